//! Fuzz targets: every way untrusted input reaches the program, fed
//! arbitrary bytes through the program's own entry points (the loaders
//! read a file written into a scratch copy of the data folder, the REPL
//! runs command lines). A target fails by panicking or by returning a
//! finding: a broken promise such as a failed command that changed the
//! game. The cargo-fuzz targets in `fuzz/` and the bounded run in
//! `tests/suite/fuzz.rs` call the same functions; `mutate` is the stable run's
//! seeded mutator, `seeds` the corpus taken from the repository's files.
//! See docs/fuzzing.md.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::core::{GameRng, GameState};
use crate::engine::Engine;
use crate::play::data::{Layout, scenarios_dir};
use crate::play::{Game, GameSpec, fingerprint};
use crate::repl::{Config, Repl};
use crate::rules::{self, VariantArg};

/// The targets, by name (the cargo-fuzz targets carry the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A map file (`maps/*.yaml`), loaded with the base pack.
    Map,
    /// The pack's rules.yaml or cards.yaml (first byte chooses).
    Pack,
    /// A shipped variant's variant.yaml (first byte chooses which).
    Variant,
    /// A save file, loaded by the REPL's `load`.
    Save,
    /// A scenario file, run as `shogun test` runs it.
    Scenario,
    /// Recorded tower throws, as `shogun tower fit` reads them.
    Throws,
    /// REPL command lines, one game per input (first byte: players and
    /// the human seat).
    Repl,
    /// A Lua snippet run by the REPL's read-only `lua`.
    Lua,
    /// Lab shards (JSONL), merged as `shogun lab merge` merges them and
    /// their report made as text, JSON and HTML (first byte odd: two
    /// files, split at the first NUL byte).
    Merge,
}

pub const TARGETS: [Target; 9] =
    [Target::Map, Target::Pack, Target::Variant, Target::Save, Target::Scenario, Target::Throws, Target::Repl, Target::Lua, Target::Merge];

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Map => "map",
            Target::Pack => "pack",
            Target::Variant => "variant",
            Target::Save => "save",
            Target::Scenario => "scenario",
            Target::Throws => "throws",
            Target::Repl => "repl",
            Target::Lua => "lua",
            Target::Merge => "merge",
        }
    }

    pub fn by_name(name: &str) -> Option<Target> {
        TARGETS.iter().copied().find(|t| t.name() == name)
    }
}

/// The variants a `Variant` input may stand for (its first byte chooses).
const VARIANTS: [&str; 6] = ["hard-winter", "income-before-revolt", "lua-tower", "merchant-guild", "no-tower-memory", "ro-events"];
/// REPL commands a `Repl` input may not run (nor any line with `--svg`,
/// which writes a picture): they touch files outside the scratch folder
/// (`save`, `load`, `reload` are the `Save` target's), play hundreds of
/// games (`lab`) or end the session.
const SKIPPED: [&str; 7] = ["save", "load", "reload", "lab", "quit", "exit", "q"];
/// At most this many command lines per `Repl` input.
const MAX_LINES: usize = 48;
/// The time limit per Lua call in fuzzed games (the default is 2 s; an
/// endless loop here costs 0.2 s, and still ends with a located error).
const TIME_PER_CALL: std::time::Duration = std::time::Duration::from_millis(200);

/// The most iterations a search bot a `Repl` input names may take. The
/// search gives every candidate still in at least one rollout in each
/// round of its halving, whatever the budget, so a budget of 4 runs every line of
/// it that 20 runs; 20 spent most of the target's time in rollouts
/// (57% of a profile's samples in `Mcts::search`).
const MAX_SEARCH: u32 = 4;

/// Whether `line` names a search bot with more than `MAX_SEARCH`
/// iterations, a time budget or its default one (`seat B mcts:400`,
/// `plan auto mcts`): its games take seconds a decision on a loaded
/// machine, and a run of them passed the time limit of an input (a
/// timeout, not a hang: 42 s).
fn names_a_costly_search(line: &str) -> bool {
    line.split("mcts").skip(1).any(|after| {
        let budget = after.strip_prefix(':').map(|rest| rest.split([':', ',', ' ']).next().unwrap_or_default());
        budget.and_then(|b| b.parse::<u32>().ok()).is_none_or(|n| n > MAX_SEARCH)
    })
}

/// The longest input the fuzz runs make (`-max_len`, the short run's
/// `MAX_INPUT`): a longer seed would be cut inside a record.
const MAX_SEED: usize = 16 << 10;

/// How many of `hostile_lua`'s shapes the `repl` target's seeds run.
const CHEAP_LUA: usize = 3;

/// Simulated throws behind a battle's odds in fuzzed REPL games and scenarios.
const ODDS_TRIALS: u32 = 16;

/// A scratch copy of the repository's data (maps, base pack, variants)
/// that the file targets write their inputs into, and a REPL reused from
/// input to input (its engine; the game is new for every input).
pub struct Fuzzer {
    root: PathBuf,
    scratch: PathBuf,
    repl: Option<Repl>,
}

impl Drop for Fuzzer {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()))?;
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` inside the scratch folder, runs `f`, and
/// puts back what was there.
fn with_file<T>(path: &Path, bytes: &[u8], f: impl FnOnce() -> T) -> T {
    let before = std::fs::read(path).ok();
    std::fs::write(path, bytes).expect("the scratch folder is writable");
    let out = f();
    match before {
        Some(b) => std::fs::write(path, b).expect("the scratch folder is writable"),
        None => std::fs::remove_file(path).expect("the scratch folder is writable"),
    }
    out
}

/// What a REPL holds of its game: a failed command must leave all of it
/// as it was. (Not the question's text: its battle odds are simulated
/// under the time limit, and a call near it may pass one time and not the
/// next.)
fn snapshot(r: &Repl) -> Snapshot {
    Snapshot { state: r.state().clone(), cursor: r.game().cursor(), len: r.game().len(), lines: r.lines().len(), prompt: r.prompt() }
}

/// What a refused line must leave as it was: the position (compared whole,
/// not by its JSON's hash, which cost a fifth of the `repl` target's time),
/// the timeline and the prompt.
#[derive(PartialEq)]
struct Snapshot {
    state: GameState,
    cursor: usize,
    len: usize,
    lines: usize,
    prompt: String,
}

impl std::fmt::Display for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}|{}|{}|{}|{}", fingerprint(&self.state), self.cursor, self.len, self.lines, self.prompt)
    }
}

impl Fuzzer {
    /// `root` holds `maps/`, `scripts/base/` and `variants/` (the
    /// repository).
    pub fn new(root: &Path) -> Result<Fuzzer, String> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let scratch = std::env::temp_dir().join(format!("shogun-fuzz-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
        let _ = std::fs::remove_dir_all(&scratch);
        let (from, to) = (Layout { root: root.to_path_buf() }, Layout { root: scratch.clone() });
        for (a, b) in [(from.maps_dir(), to.maps_dir()), (from.base_pack(), to.base_pack()), (from.variants_dir(), to.variants_dir())] {
            copy_dir(&a, &b)?;
        }
        Ok(Fuzzer { root: root.to_path_buf(), scratch, repl: None })
    }

    /// The scratch copy of the data folder.
    fn layout(&self) -> Layout {
        Layout { root: self.scratch.clone() }
    }

    fn pack(&self) -> PathBuf {
        self.layout().base_pack()
    }

    fn sun(&self) -> PathBuf {
        self.layout().default_map()
    }

    /// Runs one input. `Err` is a finding (a promise broken); the input
    /// being refused is not one.
    pub fn run(&mut self, target: Target, data: &[u8]) -> Result<(), String> {
        let (first, rest) = data.split_first().map(|(f, r)| (*f, r)).unwrap_or((0, data));
        match target {
            Target::Map => {
                let path = self.layout().map_path("fuzz");
                let pack = self.pack();
                with_file(&path, data, || loaded(rules::load(&pack, &path)));
            }
            Target::Pack => {
                let path = self.pack().join(if first % 2 == 0 { rules::pack::RULES_FILE } else { rules::pack::CARDS_FILE });
                let (pack, sun) = (self.pack(), self.sun());
                with_file(&path, rest, || loaded(rules::load(&pack, &sun)));
            }
            Target::Variant => {
                let name = VARIANTS[first as usize % VARIANTS.len()];
                let dir = self.layout().variant_named(name);
                let (pack, sun) = (self.pack(), self.sun());
                let arg = VariantArg { name: name.to_string(), options: Vec::new(), given: None };
                with_file(&dir.join(rules::variant::FILE), rest, || loaded(rules::load_with(&pack, &sun, &[(dir.clone(), arg)])));
            }
            Target::Save => {
                let path = self.scratch.join("fuzz-save.yaml");
                let repl = self.repl(0)?;
                let before = snapshot(repl);
                let line = format!("load {}", path.display());
                let out = with_file(&path, data, || self.repl.as_mut().expect("made above").exec(&line));
                match out {
                    // The loaded game has its own engine: the next input starts afresh.
                    Ok(_) => self.repl = None,
                    Err(e) => {
                        let after = snapshot(self.repl.as_ref().expect("made above"));
                        if after != before {
                            return Err(format!("a failed load changed the game ({e})"));
                        }
                    }
                }
            }
            Target::Scenario => {
                let path = scenarios_dir(&self.pack()).join("fuzz.yaml");
                let layout = crate::play::Layout::find(Some(&self.scratch));
                let (pack, sun) = (self.pack(), self.sun());
                // The odds shown after each step took 78% of the target's time
                // at the default trials (perf on 300 corpus inputs).
                let setting = crate::scenario::Setting { pack_dir: &pack, map_path: &sun, layout: &layout, odds_trials: ODDS_TRIALS };
                // Never `--update`: a scenario's golden is written only beside it.
                let _ = with_file(&path, data, || crate::scenario::run(&setting, &path, None, false));
            }
            Target::Throws => {
                let path = self.scratch.join("fuzz-throws.yaml");
                if let Ok(obs) = with_file(&path, data, || crate::tower::fit::Observations::parse(&path, &crate::files::read_text(&path)?)) {
                    let _ = crate::tower::fit::fit("stateless", &obs, crate::tower::fit::Method::new(4, 1));
                    let model = crate::tower::Levels { levels: 2, pass: 0.8, loosen: 0.1, per_cube: false, setup_pass: None };
                    // Exact (within its work limit), then the particle filter.
                    let _ = crate::tower::fit::likelihood(&model, &obs, crate::tower::fit::Method::new(4, 1));
                    let _ = crate::tower::fit::likelihood(&model, &obs, crate::tower::fit::Method { particles: 4, seed: 1, filter_only: true });
                }
            }
            Target::Repl => {
                let repl = self.repl(first)?;
                for raw in rest.split(|&b| b == b'\n').take(MAX_LINES) {
                    // The REPL's script mode refuses a line that is not UTF-8 before running it.
                    let Ok(line) = std::str::from_utf8(raw) else { continue };
                    let word = line.split_whitespace().next().unwrap_or_default();
                    // `board --svg FILE` writes where it is told (the
                    // working folder): the examples' `board.svg` landed in
                    // the repository.
                    if SKIPPED.contains(&word) || line.contains("--svg") || names_a_costly_search(line) {
                        continue;
                    }
                    let before = snapshot(repl);
                    if let Err(e) = repl.exec(line) {
                        let after = snapshot(repl);
                        if after != before {
                            return Err(format!("`{line}` failed ({e}) but changed the game:\n  before {before}\n  after  {after}"));
                        }
                    }
                }
            }
            Target::Lua => {
                // A game some way in, so that the reads have something to read.
                let repl = self.repl(1)?;
                let _ = repl.exec("step 40");
                let before = snapshot(repl);
                let code = String::from_utf8_lossy(data);
                let out = repl.exec(&format!("lua {code}"));
                let after = snapshot(repl);
                if after != before {
                    return Err(format!("`lua` changed the game ({out:?})"));
                }
            }
            Target::Merge => {
                let (one, two) = (self.scratch.join("fuzz-shard-1.jsonl"), self.scratch.join("fuzz-shard-2.jsonl"));
                let merge = |files: &[PathBuf]| {
                    if let Ok(report) = crate::cli::lab::merged(files) {
                        let _ = report.text();
                        let _ = serde_json::to_string(&report);
                        let _ = crate::lab::html::page(&report);
                    }
                };
                match rest.iter().position(|&b| b == 0).filter(|_| first % 2 == 1) {
                    Some(at) => with_file(&one, &rest[..at], || with_file(&two, &rest[at + 1..], || merge(&[one.clone(), two.clone()]))),
                    None => with_file(&one, rest, || merge(std::slice::from_ref(&one))),
                }
            }
        }
        Ok(())
    }

    /// The REPL, with a new game: `mode` picks 3–5 players and which seat
    /// is human (the others are bots).
    fn repl(&mut self, mode: u8) -> Result<&mut Repl, String> {
        let players = 3 + mode % 3;
        let human = (mode / 3) as usize % players as usize;
        let bots = ["greedy", "random"];
        let seats: Vec<String> = (0..players as usize).map(|s| if s == human { "human".to_string() } else { bots[s % 2].to_string() }).collect();
        let spec = GameSpec {
            data: Some(self.scratch.clone()),
            map: crate::play::data::DEFAULT_MAP.into(),
            rules: None,
            variants: Vec::new(),
            tower: None,
            setup: None,
            check: Default::default(),
        };
        let engine = match self.repl.take() {
            Some(r) if r.config.spec.data == spec.data && r.config.spec.variants.is_empty() && r.config.spec.map == crate::play::data::DEFAULT_MAP => {
                r.into_game().engine
            }
            _ => {
                let rules = spec.rules()?;
                let limits = crate::script::Limits { time_per_call: TIME_PER_CALL, ..Default::default() };
                Engine::with_options(rules, None, limits).map_err(|d| d.to_string())?
            }
        };
        let setup = spec.setup_mode(&engine, players);
        let mut game = Game::new(engine, players, 1, setup, &seats).map_err(|e| e.to_string())?;
        game.verbose = true;
        let config = Config { spec, players, seed: 1, seats };
        let mut repl = Repl::from_game(config, game);
        // The odds shown with a battle are a simulation of thousands of
        // throws, recomputed for each line's snapshot (its prompt): most of
        // an input's time at the default. A few throws run the same code.
        repl.odds_trials = ODDS_TRIALS;
        Ok(self.repl.insert(repl))
    }

    /// The seed corpus of a target: the repository's own files of that
    /// kind (with the choosing first byte where the target reads one).
    pub fn seeds(&mut self, target: Target) -> Result<Vec<Vec<u8>>, String> {
        let read = |p: PathBuf| std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()));
        let prefixed = |b: u8, mut v: Vec<u8>| {
            v.insert(0, b);
            v
        };
        let yaml_in = |dir: PathBuf| -> Vec<PathBuf> {
            let mut v: Vec<PathBuf> =
                std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "yaml")).collect();
            v.sort();
            v
        };
        let root = self.root.clone();
        let data = Layout { root: root.clone() };
        Ok(match target {
            Target::Map => {
                let files = yaml_in(data.maps_dir()).into_iter().chain(yaml_in(data.broken_maps()));
                files.map(read).chain(hostile_yaml().into_iter().map(Ok)).collect::<Result<_, _>>()?
            }
            Target::Pack => {
                vec![prefixed(0, read(data.base_pack().join(rules::pack::RULES_FILE))?), prefixed(1, read(data.base_pack().join(rules::pack::CARDS_FILE))?)]
            }
            Target::Variant => VARIANTS
                .iter()
                .enumerate()
                .map(|(i, v)| read(data.variant_named(v).join(rules::variant::FILE)).map(|b| prefixed(i as u8, b)))
                .chain(hostile_yaml().into_iter().map(|b| Ok(prefixed(0, b))))
                .collect::<Result<_, _>>()?,
            Target::Scenario => {
                let mut files = yaml_in(scenarios_dir(&data.base_pack()));
                for v in VARIANTS {
                    files.extend(yaml_in(scenarios_dir(&data.variant_named(v))));
                }
                files.into_iter().map(read).collect::<Result<_, _>>()?
            }
            Target::Throws => vec![read(root.join("docs/example-throws.yaml"))?],
            Target::Save => {
                // Saves the program writes: a game some way in, and one with an edit.
                let mut out = Vec::new();
                for (mode, lines) in [(0u8, &["step 30"][..]), (4, &["set A chests=9", "step 12", "undo 2"][..])] {
                    let path = self.scratch.join("seed-save.yaml");
                    let repl = self.repl(mode)?;
                    for l in lines {
                        repl.exec(l)?;
                    }
                    repl.exec(&format!("save {}", path.display()))?;
                    out.push(read(path)?);
                }
                out.extend(hostile_yaml());
                out
            }
            Target::Repl => {
                // Each shipped scenario's steps as one session, and the help's examples.
                let mut out = Vec::new();
                for file in yaml_in(scenarios_dir(&data.base_pack())) {
                    let text = String::from_utf8_lossy(&read(file)?).to_string();
                    let steps: Vec<&str> =
                        text.lines().filter_map(|l| l.trim().strip_prefix("- do:").or_else(|| l.trim().strip_prefix("- "))).map(str::trim).collect();
                    out.push(prefixed(0, steps.join("\n").into_bytes()));
                }
                let examples: Vec<&str> = crate::repl::COMMANDS.iter().map(|c| c.3).collect();
                out.push(prefixed(4, examples.join("\n").into_bytes()));
                // The cheapest of the Lua shapes that printed without bound
                // (the `lua` target has them all), as `lua` lines: every
                // mutation of this session runs them.
                let lua: Vec<Vec<u8>> = hostile_lua().into_iter().take(CHEAP_LUA).map(|code| [&b"lua "[..], &code].concat()).collect();
                out.push(prefixed(0, lua.join(&b'\n')));
                out
            }
            Target::Lua => {
                // The Lua in the API's documentation, one line per seed, and the pack's files.
                let text = String::from_utf8_lossy(&read(root.join("docs/lua-api.md"))?).to_string();
                let mut out: Vec<Vec<u8>> = text
                    .lines()
                    .filter(|l| l.contains("game.") && !l.starts_with('#'))
                    .map(|l| l.trim_matches(|c| c == '`' || c == ' ' || c == '-').as_bytes().to_vec())
                    .collect();
                for f in ["lib.lua", "battle.lua"] {
                    out.push(read(data.base_pack().join(f))?);
                }
                out.extend(hostile_lua());
                out.sort();
                out.dedup();
                out
            }
            Target::Merge => {
                // Labs the program writes: two arms, two towers (one file
                // each), and a lab's two shards (first byte 1: two files).
                let lab = |args: &[&str]| {
                    let mut words = vec!["--data".to_string(), self.scratch.display().to_string()];
                    words.extend(args.iter().map(|w| w.to_string()));
                    // A shard is refused without a file to go to (it is only named).
                    words.extend(["--jsonl".to_string(), self.scratch.join("seed-shard.jsonl").display().to_string()]);
                    crate::cli::lab::jsonl_of_words(&words).map(String::into_bytes)
                };
                let half = |k: &str| lab(&["--games", "4", "--shard", k, "--bots", "greedy,random"]);
                let out = vec![
                    prefixed(0, lab(&["--variant", "hard-winter", "--against", "base", "--games", "3", "--bots", "random"])?),
                    prefixed(0, lab(&["--games", "3", "--towers", "two-level,two-level-batch", "--bots", "random"])?),
                    prefixed(1, [half("1/2")?, vec![0], half("2/2")?].concat()),
                ];
                if let Some(big) = out.iter().find(|s| s.len() > MAX_SEED) {
                    return Err(format!("a merge seed of {} bytes, more than the {MAX_SEED} a fuzzed input may have", big.len()));
                }
                out
            }
        })
    }
}

/// YAML shapes that were hangs or crashes (issue 23 item 6): flow and
/// block nesting far past the depth limit, and aliases that expand to
/// millions of values, each under the mutations' size cap.
fn hostile_yaml() -> Vec<Vec<u8>> {
    let mut laughs = String::from("name: laughs\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        laughs.push_str(&format!("l{i}: &l{i} [{}]\n", vec![format!("*l{}", i - 1); 9].join(", ")));
    }
    vec![
        format!("name: deep\nprovinces: {}1{}\n", "[".repeat(5000), "]".repeat(5000)).into_bytes(),
        format!("name: deep\nprovinces:\n  {}1\n", "- ".repeat(4000)).into_bytes(),
        format!("name: deep\nprovinces: {}1{}\n", "{a: ".repeat(3000), "}".repeat(3000)).into_bytes(),
        laughs.into_bytes(),
    ]
}

/// Lua shapes whose printing by the REPL's `lua` took gigabytes, minutes
/// or the stack (issue 23 items 2 and 4): one long string returned and
/// printed thousands of times, tables named many times on each level (16
/// on 8 levels, 8 on 12: counted by path, billions of values), a table of
/// 20,000 entries shown 600 times, a chain of tables used as keys, tables
/// nested 100,000 deep, and prints without end. The first `CHEAP_LUA`
/// take the least time, and the `repl` target's seeds run them too.
fn hostile_lua() -> Vec<Vec<u8>> {
    let shared = |width: u32, levels: u32| format!("local t = {{1}} for l = 1, {levels} do local n = {{}} for j = 1, {width} do n[j] = t end t = n end");
    let long = "local s = string.rep('x', 8 << 20) local d = {} for i = 1, 3000 do d[i] = s end";
    [
        format!("{long} print(table.unpack(d))"),
        format!("{} return t", shared(16, 8)),
        format!("{} print(t)", shared(8, 12)),
        format!("{long} return table.unpack(d)"),
        format!("{} return t, t, t", shared(8, 12)),
        "local t = {} for i = 1, 20000 do t[i] = i end local d = {} for i = 1, 600 do d[i] = t end return d".to_string(),
        "local t = {} for i = 1, 100000 do t = {[t] = 1} end return t".to_string(),
        "local t = {} for i = 1, 100000 do t = {t} end return t".to_string(),
        "for i = 1, 1e9 do print(i, {i}) end".to_string(),
    ]
    .into_iter()
    .map(String::into_bytes)
    .collect()
}

/// A loader's answer: rules, or every problem found, printable.
fn loaded(result: Result<rules::Rules, rules::Diagnostics>) {
    match result {
        Ok(r) => {
            let _ = r.ruleset_name();
        }
        Err(d) => {
            let _ = d.to_string();
        }
    }
}

/// Words the mutator splices in: the syntax of YAML and Lua, names the
/// data use, and numbers at the edges of the types the loaders read.
const TOKENS: &[&str] = &[
    ":",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ",",
    "\n",
    "\n  ",
    "&a ",
    "*a",
    "!!str ",
    "!!binary ",
    "<<: ",
    "~",
    "null",
    "true",
    "'",
    "\"",
    "#",
    "|\n",
    ">\n",
    "0",
    "-1",
    "255",
    "256",
    "65535",
    "65536",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    ".nan",
    ".inf",
    "NaN",
    "0.5",
    "Settsu",
    "Kozuke",
    "A",
    "E",
    "sun",
    "moon",
    "human",
    "greedy",
    "random",
    "step",
    "undo",
    "redo",
    "plan",
    "choose",
    "set",
    "force",
    "perform",
    "lua ",
    "end",
    "(",
    ")",
    "..",
    "function() ",
    " end",
    "return ",
    "while true do ",
    "for i=1,1e9 do ",
    "string.rep('a', 1e8)",
    "game.",
    "RULES",
    "setmetatable",
    "rawset",
    "pcall",
    "error({})",
    "table.unpack(",
    "print(",
    "{[t] = t}",
    "__pairs",
    "%p",
    "\\0",
    "\u{1b}[31m",
    "../",
    "/dev/zero",
    "/etc/passwd",
];

/// One seeded mutation of `data` (the stable run's mutator): flips,
/// inserts, deletes, repeats, splices from `others`, and tokens. At most
/// `max` bytes come out.
pub fn mutate(rng: &mut GameRng, data: &[u8], others: &[Vec<u8>], max: usize) -> Vec<u8> {
    let mut out = data.to_vec();
    let rounds = 1 + pick(rng, 0, 4);
    for _ in 0..rounds {
        let len = out.len();
        let at = if len == 0 { 0 } else { pick(rng, 0, len + 1) };
        match pick(rng, 0, 7) {
            0 if len > 0 => {
                let i = pick(rng, 0, len);
                out[i] ^= 1 << pick(rng, 0, 8);
            }
            1 => out.insert(at, rng.below(256) as u8),
            2 if len > 0 => {
                let end = (at + pick(rng, 1, 16 + 1)).min(len);
                out.drain(at.min(end)..end);
            }
            3 if len > 0 => {
                let from = pick(rng, 0, len);
                let end = (from + pick(rng, 1, 64 + 1)).min(len);
                let piece = out[from..end].to_vec();
                out.splice(at..at, piece);
            }
            4 if !others.is_empty() => {
                let other = &others[pick(rng, 0, others.len())];
                if !other.is_empty() {
                    let from = pick(rng, 0, other.len());
                    let end = (from + pick(rng, 1, 256 + 1)).min(other.len());
                    out.splice(at..at, other[from..end].iter().copied());
                }
            }
            5 if len > 0 => {
                // Replace a number-like run by an edge value.
                let i = pick(rng, 0, len);
                let end = out[i..].iter().position(|b| !b.is_ascii_alphanumeric()).map_or(len, |p| i + p);
                let token = TOKENS[pick(rng, 0, TOKENS.len())].as_bytes();
                out.splice(i..end, token.iter().copied());
            }
            _ => {
                let token = TOKENS[pick(rng, 0, TOKENS.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
        }
    }
    out.truncate(max);
    out
}

/// A uniform number in `lo..hi` (`hi > lo`).
fn pick(rng: &mut GameRng, lo: usize, hi: usize) -> usize {
    lo + rng.below((hi - lo) as u32) as usize
}

#[cfg(test)]
mod tests {
    use super::names_a_costly_search;

    /// The `repl` timeout of 2026-11-26 (`seat B mcts:400`, then `round`)
    /// and its kin are skipped; small searches and other bots are played.
    #[test]
    fn a_repl_input_plays_only_small_searches() {
        for costly in ["seat B mcts:400", "seat B mcts:5", "seat B mcts", "plan auto mcts:50ms", "seat C mcts:21:no-attack", "seat B greedy,mcts:0.5s"] {
            assert!(names_a_costly_search(costly), "{costly}");
        }
        for cheap in ["seat B mcts:4", "seat B mcts:3:no-attack", "plan auto greedy", "round", "seat B greedy,mcts:2"] {
            assert!(!names_a_costly_search(cheap), "{cheap}");
        }
    }
}
