//! Where the game's data lives: the one place that knows the data folder's
//! layout (`maps/NAME.yaml`, `scripts/base/`, `variants/NAME/`, a pack's or
//! variant's `tests/`), and the description of a ruleset to load (map,
//! pack, variants, tower, setup) that the CLI, the REPL and save files
//! share. A map or variant named by name (not by a path) resolves inside
//! the data folder, symbolic links followed: one that leads outside it is
//! refused before anything is read.

use std::path::{Path, PathBuf};

use crate::core::SetupMode;
use crate::engine::{CheckMode, Engine};
use crate::rules::{self, VariantArg};

/// The data folder's folders, relative to its root (and the scenarios'
/// folder, relative to a pack or variant). Nothing else names them.
const MAPS: &str = "maps";
const PACKS: &str = "scripts";
const BASE_PACK: &str = "base";
const VARIANTS: &str = "variants";
const SCENARIOS: &str = "tests";
/// In the source tree (the data folder when no other is found): the data
/// kept broken on purpose, by kind (`maps/`, ...).
const BROKEN: &str = "tests/fixtures/broken";
/// The map a game is played on and rules are checked with when no other
/// is named.
pub const DEFAULT_MAP: &str = "sun";

/// A data folder: `maps/`, `scripts/base/` (the base pack), `variants/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub root: PathBuf,
}

/// What a name in a save stands for (`Layout::saved_name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    Map,
    Variant,
}

impl Layout {
    /// The folder given, else `$SHOGUN_DATA`, else the current folder if
    /// it holds the data, else the source tree's.
    pub fn find(explicit: Option<&Path>) -> Layout {
        if let Some(p) = explicit {
            return Layout { root: p.to_path_buf() };
        }
        if let Some(p) = std::env::var_os("SHOGUN_DATA") {
            return Layout { root: PathBuf::from(p) };
        }
        let cwd = PathBuf::from(".");
        let here = Layout { root: cwd };
        if rules::pack::is_pack(&here.base_pack()) && here.maps_dir().is_dir() {
            return here;
        }
        Layout { root: PathBuf::from(env!("CARGO_MANIFEST_DIR")) }
    }

    pub fn maps_dir(&self) -> PathBuf {
        self.root.join(MAPS)
    }

    /// The folder holding the packs (`scripts/`).
    pub fn packs_dir(&self) -> PathBuf {
        self.root.join(PACKS)
    }

    pub fn base_pack(&self) -> PathBuf {
        self.packs_dir().join(BASE_PACK)
    }

    pub fn variants_dir(&self) -> PathBuf {
        self.root.join(VARIANTS)
    }

    /// The map rules are checked with when none is named (`sun`), as
    /// `map_path` takes it.
    pub fn default_map(&self) -> PathBuf {
        self.map_path(DEFAULT_MAP)
    }

    /// In the source tree: the maps kept broken on purpose (`shogun
    /// check`'s tests, the fuzzer's seeds).
    pub fn broken_maps(&self) -> PathBuf {
        self.root.join(BROKEN).join(MAPS)
    }

    /// A shipped variant's folder by name (for the program's own use: the
    /// fuzzer's scratch copy, `shogun new`; a name from a person or a file
    /// goes through `variant_dir`).
    pub fn variant_named(&self, name: &str) -> PathBuf {
        self.variants_dir().join(name)
    }

    /// A map by name (`sun`: `maps/sun.yaml`) or by path (anything ending
    /// in .yaml or with a `/`, taken as it is). What the user names is
    /// followed where it leads (a data folder may be made of links); a
    /// save's names and paths go through `saved_name` first.
    pub fn map_path(&self, map: &str) -> PathBuf {
        if is_path(map) {
            return PathBuf::from(map);
        }
        self.root.join(MAPS).join(format!("{map}.yaml"))
    }

    /// A map or variant a save names (`kind` says which), as the command
    /// line names it (a name from maps/ or variants/, a variant's options
    /// after `:`), or a path as `saved_path` takes it. A save may come
    /// from anyone: a name must lead to a file inside this data folder
    /// once symbolic links are followed, unless the user started the
    /// session with it (`started`), so a save's error can only ever quote
    /// our files.
    pub fn saved_name(&self, name: &str, started: &[&str], kind: Named) -> Result<String, String> {
        let (head, options) = name.split_once(':').map_or((name, None), |(h, o)| (h, Some(o)));
        if !is_path(head) {
            if started.iter().any(|s| s.split(':').next() == Some(head)) {
                return Ok(name.to_string());
            }
            let (rel, what) = match kind {
                Named::Map => (format!("{MAPS}/{head}.yaml"), "map"),
                Named::Variant => (format!("{VARIANTS}/{head}"), "variant"),
            };
            crate::files::inside(&self.root, &rel).map_err(|e| format!("{what} `{}`: {e}", crate::files::excerpt(head)))?;
            return Ok(name.to_string());
        }
        let path = self.saved_path(head, started)?.display().to_string();
        Ok(match options {
            Some(o) => format!("{path}:{o}"),
            None => path,
        })
    }

    /// A path a save names, made one inside this data folder: a save from
    /// elsewhere never reads outside it (`map: /etc/passwd` and
    /// `map: ../../etc/shadow` are refused before anything is read). A path
    /// in `started` (what the user started the session with, options after
    /// `:` aside) is taken as it is.
    pub fn saved_path(&self, path: &str, started: &[&str]) -> Result<PathBuf, String> {
        if started.iter().any(|s| s.split(':').next() == Some(path)) {
            return Ok(PathBuf::from(path));
        }
        crate::files::inside(&self.root, path)
    }

    /// The names of the maps in `maps/`, sorted.
    pub fn known_maps(&self) -> Vec<String> {
        let mut known: Vec<String> = std::fs::read_dir(self.maps_dir())
            .map(|d| d.filter_map(|e| e.ok()).filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".yaml")).map(String::from)).collect())
            .unwrap_or_default();
        known.sort();
        known
    }

    /// A variant by name (in `variants/`) or by path (anything with a
    /// `/`, taken as it is). What the user names is followed where it
    /// leads; a save's names go through `saved_name` first, which keeps
    /// them inside the data folder.
    pub fn variant_dir(&self, name: &str) -> PathBuf {
        if name.contains('/') {
            return PathBuf::from(name);
        }
        self.variants_dir().join(name)
    }

    /// Everything in this data folder `shogun check` checks with nothing
    /// named: its maps, its packs (folders of `scripts/` holding a pack),
    /// its variants; each sorted by path.
    pub fn shipped(&self) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>) {
        let list = |dir: &Path| -> Vec<PathBuf> {
            let mut v: Vec<PathBuf> = std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect()).unwrap_or_default();
            v.sort();
            v
        };
        let maps = list(&self.maps_dir()).into_iter().filter(|p| p.extension().is_some_and(|x| x == "yaml")).collect();
        let packs = list(&self.packs_dir()).into_iter().filter(|p| rules::pack::is_pack(p)).collect();
        let variants = list(&self.variants_dir()).into_iter().filter(|p| is_variant(p)).collect();
        (maps, packs, variants)
    }

    /// The shipped variants' names.
    pub fn known_variants(&self) -> Vec<String> {
        rules::variant::available(&self.variants_dir())
    }

    /// Resolves variant arguments (`name[:opt=v,...]`) to their folders.
    /// `what` names the source in messages (`--variant`, `--against`, a
    /// file position).
    pub fn variants(&self, args: &[String], what: &str) -> Result<Vec<(PathBuf, VariantArg)>, String> {
        let mut out = Vec::new();
        for v in args {
            let mut arg: VariantArg = v.parse().map_err(|e| format!("{what} {e}"))?;
            let dir = self.variant_dir(&arg.name);
            if !is_variant(&dir) {
                let known = self.known_variants();
                return Err(format!(
                    "{what}: unknown variant `{}`{} (available: {})",
                    arg.name,
                    crate::rules::map::suggest(&arg.name, known.iter()),
                    if known.is_empty() { "none".to_string() } else { known.join(", ") }
                ));
            }
            // A flag's options are reported as typed; a file's at its place.
            arg.given = Some(if what.starts_with('-') { format!("{what} {v}") } else { what.to_string() });
            out.push((dir, arg));
        }
        Ok(out)
    }
}

/// What a rules folder that is not there should have been.
pub const NOT_A_PACK: &str = "no such folder (a rules pack is a folder holding rules.yaml and cards.yaml)";

/// Whether a map or variant name is a path rather than a name.
fn is_path(name: &str) -> bool {
    name.ends_with(".yaml") || name.ends_with(".yml") || name.contains('/')
}

pub use crate::rules::variant::is_variant;

/// The scenario files of a pack or variant folder live in its `tests/`.
pub fn scenarios_dir(dir: &Path) -> PathBuf {
    dir.join(SCENARIOS)
}

/// A ruleset and how games start: everything but players, seed and seats.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameSpec {
    /// The data folder (`None`: found as `Layout::find` says).
    pub data: Option<PathBuf>,
    /// A map name from `maps/` or a path.
    pub map: String,
    /// The rules pack folder (`None`: the data folder's base pack).
    pub rules: Option<PathBuf>,
    /// Variants applied in order, as `name[:opt=v,...]`.
    pub variants: Vec<String>,
    pub tower: Option<String>,
    /// `None`: the map's default for the player count.
    pub setup: Option<SetupMode>,
    /// How often the engine checks its invariants (a save keeps it).
    pub check: CheckMode,
}

impl GameSpec {
    pub fn layout(&self) -> Layout {
        Layout::find(self.data.as_deref())
    }

    /// The map's file (a name resolved inside the data folder).
    pub fn map_path(&self) -> PathBuf {
        self.layout().map_path(&self.map)
    }

    pub fn rules_dir(&self) -> PathBuf {
        self.rules.clone().unwrap_or_else(|| self.layout().base_pack())
    }

    /// The setup asked for, or the map's default for `players`.
    pub fn setup_mode(&self, engine: &Engine, players: u8) -> SetupMode {
        self.setup.unwrap_or_else(|| engine.default_setup(players))
    }

    /// Loads and checks the rules; on failure, every problem found.
    pub fn engine(&self) -> Result<Engine, String> {
        self.engine_as("--variant")
    }

    /// [`GameSpec::engine`], naming the variants' flag `flag` in messages.
    pub fn engine_as(&self, flag: &str) -> Result<Engine, String> {
        let rules = self.rules_as(flag)?;
        let engine = Engine::with_options(rules, self.tower.as_deref(), crate::engine::Limits::default()).map_err(|d| d.to_string())?;
        engine.set_check(self.check);
        Ok(engine)
    }

    /// Another ruleset on the same data, map and setup, from the words
    /// after `--against`: `--variant NAME[:OPT=V]` (repeatable), `--tower
    /// NAME`, `--rules DIR` (the pack stays unless given), a bare variant
    /// name, or `base` (or nothing) for no variant. `diff` and `lab` read
    /// their arms with this.
    pub fn arm(&self, words: &[String]) -> Result<GameSpec, String> {
        let mut other = GameSpec { variants: Vec::new(), tower: None, ..self.clone() };
        let mut it = words.iter();
        while let Some(tok) = it.next() {
            let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
            match tok.as_str() {
                "--variant" => other.variants.push(value("--variant")?),
                "--tower" => other.tower = Some(value("--tower")?),
                "--rules" => other.rules = Some(PathBuf::from(value("--rules")?)),
                "base" => {}
                t if t.starts_with("--variant=") => other.variants.push(t["--variant=".len()..].to_string()),
                t if t.starts_with("--tower=") => other.tower = Some(t["--tower=".len()..].to_string()),
                t if t.starts_with("--rules=") => other.rules = Some(PathBuf::from(&t["--rules=".len()..])),
                t if !t.starts_with('-') => other.variants.push(t.to_string()),
                t => return Err(format!("unexpected `{t}` (an arm takes --variant NAME, --tower NAME, --rules DIR, a variant name, or `base`)")),
            }
        }
        Ok(other)
    }

    /// Loads and checks the rules and the tower's name; on failure, every
    /// problem found.
    pub fn rules(&self) -> Result<crate::rules::Rules, String> {
        self.rules_as("--variant")
    }

    /// [`GameSpec::rules`], naming the variants' flag `flag` in messages
    /// (`--against` for a lab's or diff's other arm).
    pub fn rules_as(&self, flag: &str) -> Result<crate::rules::Rules, String> {
        if let Some(problem) = self.map_problem() {
            return Err(problem);
        }
        if let Some(dir) = &self.rules
            && !dir.is_dir()
        {
            return Err(format!("--rules {}: {}", dir.display(), NOT_A_PACK));
        }
        let variants = self.layout().variants(&self.variants, flag)?;
        self.rules_resolved(&variants, "--tower")
    }

    /// Why the map cannot be read (its file, or the data folder, missing),
    /// with the maps there are; `None` when the file is there.
    pub fn map_problem(&self) -> Option<String> {
        let layout = self.layout();
        let map = layout.map_path(&self.map);
        if map.is_file() {
            return None;
        }
        // Say what is missing: the data folder, its maps/, or the map.
        let whence = if self.data.is_some() {
            "--data"
        } else if std::env::var_os("SHOGUN_DATA").is_some() {
            "$SHOGUN_DATA"
        } else {
            "the data folder"
        };
        let holds = "a data folder holds maps/, scripts/ and variants/";
        if !is_path(&self.map) && !layout.root.is_dir() {
            return Some(format!("{whence} {}: no such folder ({holds})", layout.root.display()));
        }
        if !is_path(&self.map) && !layout.maps_dir().is_dir() {
            return Some(format!("{whence} {}: has no maps/ folder ({holds})", layout.root.display()));
        }
        let known = layout.known_maps();
        Some(format!(
            "no map `{}`{} (looked for {}); known maps: {}",
            self.map,
            crate::rules::map::suggest(&self.map, known.iter()),
            map.display(),
            if known.is_empty() { "none".to_string() } else { known.join(", ") }
        ))
    }

    /// The rules of this map and pack (both checked to be there) with
    /// `variants` resolved already; an unknown tower is said after
    /// `tower_place` (`--tower`, or a save's place).
    pub fn rules_resolved(&self, variants: &[(PathBuf, VariantArg)], tower_place: &str) -> Result<crate::rules::Rules, String> {
        let rules = rules::load_with(&self.rules_dir(), &self.map_path(), variants).map_err(|d| d.to_string())?;
        if let Some(t) = &self.tower
            && !rules.rules.towers.contains_key(t)
        {
            return Err(format!("{tower_place}: unknown tower `{t}`{}", rules.rules.towers_for(t)));
        }
        if let Some(notice) = rules.map.assumption_notice() {
            // Once per map and process: the lab and `soak` load a map many times.
            static SHOWN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
            let mut shown = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
            if !shown.contains(&notice) {
                eprintln!("{notice}");
                shown.push(notice);
            }
        }
        Ok(rules)
    }
}
