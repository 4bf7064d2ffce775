//! `shogun new variant NAME`: a working variant to start from (an option,
//! a YAML overlay, a Lua modifier, a scenario test and the LuaLS
//! configuration), and `shogun completions` / `shogun man`.

use std::path::Path;

use clap::{Args, CommandFactory, Subcommand};

use crate::play::Layout;
use crate::rules::variant::VariantArg;

#[derive(Args, Debug)]
pub struct NewArgs {
    #[command(subcommand)]
    pub what: NewWhat,
}

#[derive(Subcommand, Debug)]
pub enum NewWhat {
    /// A variant in variants/NAME: variant.yaml (an option and an overlay),
    /// NAME.lua (the modifier it uses), tests/taxes.yaml (a scenario that
    /// passes) and .luarc.json (editor completion with LuaLS).
    Variant {
        /// Letters, digits, `-` and `_`.
        name: String,
        /// Folder holding variants/ (default: as for every command).
        #[arg(long, value_name = "DIR")]
        data: Option<std::path::PathBuf>,
    },
}

pub fn command(args: NewArgs) -> Result<(), String> {
    let NewWhat::Variant { name, data } = args.what;
    let parsed: VariantArg = name.parse()?;
    if !parsed.options.is_empty() {
        return Err(format!("`{name}`: a new variant's name has no options"));
    }
    // `lab --against base` and `diff --against base` mean the rules with no
    // variant: a variant of that name could never be compared by its name.
    if parsed.name == "base" {
        return Err("`base` names the rules without any variant (`--against base`): choose another name".into());
    }
    let dir = Layout::find(data.as_deref()).variant_named(&name);
    if dir.exists() {
        return Err(format!("{} exists already: choose another name", dir.display()));
    }
    let modifier = format!("{}_bonus", name.replace('-', "_"));
    for (file, text) in scaffold(&name, &modifier) {
        let path = dir.join(&file);
        std::fs::create_dir_all(path.parent().expect("a folder")).map_err(|e| format!("{}: {e}", path.display()))?;
        crate::files::write_atomic(&path, text.as_bytes())?;
    }
    println!("created {}:", dir.display());
    for (file, _) in scaffold(&name, &modifier) {
        println!("  {file}");
    }
    // The next steps as they work typed from here: with the data folder
    // when one was given (else the variant is looked for where it is not).
    let data = data.map(|d| format!(" --data {}", shell_word(&d.display().to_string()))).unwrap_or_default();
    let dir = shell_word(&dir.display().to_string());
    println!("next:\n  shogun check {dir}{data}\n  shogun test {dir}{data}\n  shogun lab --variant {name} --against base --games 2000{data}");
    Ok(())
}

/// `s` as one word for a POSIX shell: as it is when it holds no special
/// character, else in single quotes.
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The files of a new variant: (path inside its folder, text).
fn scaffold(name: &str, modifier: &str) -> Vec<(String, String)> {
    let yaml = format!(
        "name: {name}
description: >
  Collecting taxes yields `extra` more war chests. (A new variant made by
  `shogun new variant`: change the overlay and the Lua to your rule.)
source: house rule
extends: base
options:
  extra:
    default: 1
    description: war chests added to every tax collection
    min: 0
    max: 10
# Edits to the base pack's documents (see docs/variants.md): here one more
# effect in rules.yaml's always-on `effects`, with the option's value.
overlay:
  rules:
    - add: {{path: effects, value: {{hook: tax_yield, modifier: {modifier}, value: $extra}}}}
lua: [{name}.lua]
"
    );
    let lua = format!(
        "-- {name}: the modifier the overlay names. `v` is the value on its way
-- through the hook (here the war chests a collection yields), `effect`
-- the effect's YAML (its `value` is the option `extra`).
shogun.modifier(\"{modifier}\", function(v, effect)
  return v + effect.value
end)
"
    );
    let test = format!(
        "# Run with `shogun test variants/{name}`. A with 0 chests collects taxes
# in Settsu (tax 7 on the Sun map) with the option's default of 1 more.
description: Settsu's taxes yield 7 + 1
players: 4
seed: 1
steps:
  - chance: 2
  - do: set A chests=0
  - do: perform A taxes Settsu
expect:
  - {{seat: A, chests: 8}}
"
    );
    let luarc = r#"{
  "$schema": "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
  "runtime.version": "Lua 5.4",
  "runtime.builtin": { "io": "disable", "os": "disable", "package": "disable", "debug": "disable", "coroutine": "disable", "utf8": "disable" },
  "workspace.library": ["../../docs/lua"]
}
"#;
    let test_file = crate::play::data::scenarios_dir(Path::new("")).join("taxes.yaml").display().to_string();
    vec![(crate::rules::variant::FILE.into(), yaml), (format!("{name}.lua"), lua), (test_file, test), (".luarc.json".into(), luarc.to_string())]
}

/// `shogun completions SHELL`: the shell's completion script on standard
/// output (e.g. `shogun completions bash > ~/.local/share/bash-completion/completions/shogun`).
pub fn completions(shell: clap_complete::Shell) -> Result<(), String> {
    clap_complete::generate(shell, &mut super::Cli::command(), "shogun", &mut std::io::stdout());
    Ok(())
}

/// `shogun man [DIR]`: the man page, shogun.1, on standard output or, with
/// DIR, as DIR/shogun.1 and one page per subcommand (shogun-run.1, ...).
pub fn man(dir: Option<&Path>) -> Result<(), String> {
    let cmd = super::Cli::command();
    let Some(dir) = dir else {
        return clap_mangen::Man::new(cmd).render(&mut std::io::stdout()).map_err(|e| e.to_string());
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    clap_mangen::generate_to(cmd, dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    println!("wrote the man pages to {}", dir.display());
    Ok(())
}
