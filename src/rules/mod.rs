//! Loading and validating the game's data: a map (`maps/*.yaml`) and a
//! rules pack (`scripts/<pack>/rules.yaml`, `cards.yaml` and Lua files).
//!
//! This module and the CLI are the only places that read files. Every
//! problem is reported with file, line and column; nothing here panics on
//! bad data.

pub mod map;
pub mod pack;
pub mod variant;
pub mod yaml;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use map::Map;
pub use pack::{CardsFile, RulesFile};
pub use variant::{LoadedVariant, VariantArg};
pub use yaml::{Diagnostic, Diagnostics, Positions, Severity, error_text};

use crate::core::{MAX_SEATS, ProvinceId, Seat};

/// A Lua file of the pack or of a variant: its name as shown in messages,
/// its text, and which pack it belongs to (for replacement conflicts).
#[derive(Clone, Debug)]
pub struct LuaSource {
    pub name: String,
    pub path: PathBuf,
    pub source: String,
    /// `base` for the rules pack's own files, else the variant's name.
    pub pack: String,
    /// Variants whose replacements this pack may replace again.
    pub overrides: Vec<String>,
}

/// Everything the engine needs to know about the game, fully validated.
#[derive(Debug, Clone)]
pub struct Rules {
    /// What bots know of the rules (`bots:` in rules.yaml, resolved).
    pub bots: BotRules,
    pub rules: RulesFile,
    pub cards: CardsFile,
    pub map: Map,
    pub rules_path: PathBuf,
    pub cards_path: PathBuf,
    pub map_path: PathBuf,
    pub rules_pos: Positions,
    pub cards_pos: Positions,
    pub lua: Vec<LuaSource>,
    /// Variants applied on top of the pack, in order.
    pub variants: Vec<LoadedVariant>,
    /// Problems that do not stop a game (shown by `shogun check`).
    pub warnings: Vec<Diagnostic>,
    /// Every file these rules were made of, as (role, SHA-256 of its
    /// text), in load order: `rules.yaml`, `cards.yaml`, `map sun.yaml`,
    /// each `variant NAME`, each Lua file (`lua actions.lua`,
    /// `lua NAME/collect.lua`). Names carry no folder, so two machines
    /// with the same files agree (the lab's provenance).
    pub sources: Vec<(String, String)>,
    /// The pack's own data before the variants' overlays (`None` without
    /// variants): what the values a variant changed are found against
    /// (the lab's rule use).
    pub base: Option<Arc<BaseData>>,
}

/// A pack's rules, cards and map as its files give them, before variants.
#[derive(Debug)]
pub struct BaseData {
    pub rules: RulesFile,
    pub cards: CardsFile,
    pub map: Map,
}

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// What bots know of the rules, resolved from rules.yaml's `bots:` section
/// (`pack::BotInfo`): bots read these, never handler names or params.
#[derive(Debug, Clone)]
pub struct BotRules {
    /// What each action card does, in cards.yaml's order.
    pub actions: Vec<ActionKind>,
    /// Armies a move must leave behind.
    pub armies_left_behind: i64,
    /// Peasants thrown for a neutral province.
    pub neutral_peasants: u16,
    /// The pack's questions bots answer by what they mean
    /// (`bots.questions`).
    pub questions: pack::BotQuestions,
    /// The names of the data fields bots read in them
    /// (`bots.question_data`).
    pub question_data: pack::BotQuestionData,
}

/// What a question the pack's scripts ask means to the bots, as
/// `bots.questions` declares it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Asked {
    MoveTarget,
    MoveCount,
    DeployMove,
    ExtraCubes,
}

/// A field of a question's data that bots read (`bots.question_data`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AskedField {
    From,
    To,
    Armies,
    AttackerExtra,
}

impl BotRules {
    /// What a question of this kind means, if the pack declares it.
    pub fn asked(&self, kind: &str) -> Option<Asked> {
        let q = &self.questions;
        [(&q.move_target, Asked::MoveTarget), (&q.move_count, Asked::MoveCount), (&q.deploy_move, Asked::DeployMove), (&q.extra_cubes, Asked::ExtraCubes)]
            .into_iter()
            .find_map(|(k, a)| (k.as_deref() == Some(kind)).then_some(a))
    }

    /// The name the pack gives a field of a question's data.
    pub fn field(&self, f: AskedField) -> &str {
        let d = &self.question_data;
        match f {
            AskedField::From => &d.from,
            AskedField::To => &d.to,
            AskedField::Armies => &d.armies,
            AskedField::AttackerExtra => &d.attacker_extra,
        }
    }
}

/// What an action card does, as bots see it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ActionKind {
    /// Builds the building with this index.
    Build(usize),
    Taxes,
    Rice,
    Deploy,
    DeployMove,
    MoveAttack,
    /// Not declared to the bots.
    Other,
}

impl Rules {
    pub fn action_index(&self, id: &str) -> Option<usize> {
        self.cards.actions.iter().position(|a| a.id == id)
    }
    pub fn building_index(&self, id: &str) -> Option<usize> {
        self.rules.components.buildings.iter().position(|b| b.id == id)
    }
    pub fn seat_name(&self, seat: Seat) -> &str {
        self.rules.seats.get(seat.index()).map(|s| s.name.as_str()).unwrap_or("?")
    }
    pub fn province_name(&self, p: ProvinceId) -> &str {
        &self.map.at(p).name
    }
    /// The file that gave rules.yaml's value at `path` (`limits/...`): a
    /// variant's variant.yaml when its overlay put the value in.
    pub fn rules_source(&self, path: &str) -> PathBuf {
        self.rules_pos.of(path).file.map_or_else(|| self.rules_path.clone(), |f| f.to_path_buf())
    }

    /// The ruleset in one canonical string, e.g. `base+ro-events+hard-winter(loss=2)`.
    pub fn ruleset_name(&self) -> String {
        let mut s = self.rules.name.clone();
        for v in &self.variants {
            s.push('+');
            s.push_str(&v.canonical());
        }
        s
    }
}

fn read(path: &Path, diags: &mut Diagnostics) -> Option<String> {
    match crate::files::read_text(path) {
        Ok(s) => Some(s),
        Err(e) => {
            diags.push(unreadable(path, &e));
            None
        }
    }
}

/// A file that cannot be read, said once: `PATH: error: cannot be read: WHY`
/// (no line: there is none to point at).
pub(crate) fn unreadable(path: &Path, e: &str) -> Diagnostic {
    let why = e.strip_prefix(&format!("cannot read {}: ", path.display())).unwrap_or(e);
    Diagnostic::file(path, format!("cannot be read: {why}"))
}

/// Loads the rules pack in `pack_dir` with the map file `map_path`.
pub fn load(pack_dir: &Path, map_path: &Path) -> Result<Rules, Diagnostics> {
    load_with(pack_dir, map_path, &[])
}

fn value_of(path: &Path, text: &str, diags: &mut Diagnostics) -> Option<serde_yaml::Value> {
    yaml::parse_again::<serde_yaml::Value>(path, text).map(|f| f.value).map_err(|d| diags.append(d)).ok()
}

/// A variant's folder given as a pack: said as such, not as two files
/// missing.
fn variant_as_pack(dir: &Path) -> Option<Diagnostic> {
    if pack::is_pack(dir) || !variant::is_variant(dir) {
        return None;
    }
    let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    Some(Diagnostic::file(
        dir,
        format!(
            "is a variant (it has a variant.yaml), not a rules pack: a variant is played with `--variant {name}` on the pack it extends, from the data folder's variants/ (`--data`)"
        ),
    ))
}

/// Loads the pack and map with `variants` (folder, arguments) applied in
/// order on top.
pub fn load_with(pack_dir: &Path, map_path: &Path, variants: &[(PathBuf, VariantArg)]) -> Result<Rules, Diagnostics> {
    let mut diags = Diagnostics::default();
    if let Some(d) = variant_as_pack(pack_dir) {
        diags.0.push(d);
        return Err(diags);
    }
    let rules_path = pack_dir.join(pack::RULES_FILE);
    let cards_path = pack_dir.join(pack::CARDS_FILE);
    let rules_text = read(&rules_path, &mut diags);
    let cards_text = read(&cards_path, &mut diags);
    let map_text = read(map_path, &mut diags);
    let (Some(rt), Some(ct), Some(mt)) = (rules_text, cards_text, map_text) else {
        return Err(diags);
    };
    // Typed parses of the base give located errors and the position index.
    let rules = yaml::parse_again::<RulesFile>(&rules_path, &rt).map_err(|d| diags.append(d)).ok();
    let cards = yaml::parse_again::<CardsFile>(&cards_path, &ct).map_err(|d| diags.append(d)).ok();
    let map_file = yaml::parse_again::<map::MapFile>(map_path, &mt).map_err(|d| diags.append(d)).ok();
    let (Some(mut rules), Some(mut cards), Some(mut map_file)) = (rules, cards, map_file) else {
        return Err(diags);
    };
    let mut loaded = Vec::new();
    let mut variant_lua = Vec::new();
    let mut base = None;
    if !variants.is_empty() {
        base = Map::from_file(&map_file, &mut Diagnostics::default())
            .map(|map| Arc::new(BaseData { rules: rules.value.clone(), cards: cards.value.clone(), map }));
        let (Some(rv), Some(cv), Some(mv)) =
            (value_of(&rules_path, &rt, &mut diags), value_of(&cards_path, &ct, &mut diags), value_of(map_path, &mt, &mut diags))
        else {
            return Err(diags);
        };
        // Where each value comes from: the base files, then each overlay.
        let origins =
            [variant::Origin::of(&rv, &rules.pos, "", None), variant::Origin::of(&cv, &cards.pos, "", None), variant::Origin::of(&mv, &map_file.pos, "", None)];
        let mut docs = Docs { rules: rv, cards: cv, map: mv, origins };
        for (dir, arg) in variants {
            if let Some(lv) = apply_variant(dir, arg, &rules.value.name, &loaded, &mut docs, &mut variant_lua, &mut diags) {
                loaded.push(lv);
            }
        }
        if diags.has_errors() {
            return Err(diags);
        }
        rules.value = serde_yaml::from_value(docs.rules).expect("checked above");
        cards.value = serde_yaml::from_value(docs.cards).expect("checked above");
        map_file.value = serde_yaml::from_value(docs.map).expect("checked above");
        // The checks below report a value where it was written: a
        // variant's values in its variant.yaml.
        let [ro, co, mo] = &docs.origins;
        rules.pos = ro.positions();
        cards.pos = co.positions();
        map_file.pos = mo.positions();
    }
    let map = Map::from_file(&map_file, &mut diags);
    check_rules(&rules, &mut diags);
    check_cards(&cards, &rules.value, &mut diags);
    let bots = check_bots(&rules, &cards.value, &mut diags);
    if let Some(map) = &map {
        check_presets(map, &map_file, &rules.value, &mut diags);
    }
    let mut lua = Vec::new();
    for (i, name) in rules.value.lua.iter().enumerate() {
        match crate::files::inside(pack_dir, name).and_then(|path| crate::files::read_text(&path).map(|source| (path, source))) {
            Ok((path, source)) => lua.push(LuaSource { name: path.display().to_string(), path, source, pack: "base".into(), overrides: Vec::new() }),
            Err(e) => diags.error(&rules.path, rules.pos.of(&format!("lua/{i}")), format!("Lua file: {e}")),
        }
    }
    lua.extend(variant_lua);
    let file_name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut sources = vec![
        (pack::RULES_FILE.to_string(), sha256(rt.as_bytes())),
        (pack::CARDS_FILE.to_string(), sha256(ct.as_bytes())),
        (format!("map {}", file_name(map_path)), sha256(mt.as_bytes())),
    ];
    sources.extend(loaded.iter().map(|v| (format!("variant {}", v.name), v.sha256.clone())));
    for l in &lua {
        let name = if l.pack == "base" { file_name(&l.path) } else { format!("{}/{}", l.pack, file_name(&l.path)) };
        sources.push((format!("lua {name}"), sha256(l.source.as_bytes())));
    }
    let (Some(map), Some(bots)) = (map, bots) else {
        return Err(diags);
    };
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(Rules {
        bots,
        rules: rules.value,
        cards: cards.value,
        map,
        rules_path,
        cards_path,
        map_path: map_path.to_path_buf(),
        rules_pos: rules.pos,
        cards_pos: cards.pos,
        lua,
        variants: loaded,
        warnings: diags.0,
        sources,
        base,
    })
}

/// The three documents a variant's overlays edit, untyped, with where
/// their values come from (rules, cards, map).
struct Docs {
    rules: serde_yaml::Value,
    cards: serde_yaml::Value,
    map: serde_yaml::Value,
    origins: [variant::Origin; 3],
}

/// Applies the variant in `dir` to `docs`: its overlays, its options as
/// `RULES.params[name]`, its Lua files (onto `lua`). Returns the variant,
/// or None when it is refused (the reasons go to `diags`).
fn apply_variant(
    dir: &Path,
    arg: &VariantArg,
    pack_name: &str,
    loaded: &[LoadedVariant],
    docs: &mut Docs,
    lua: &mut Vec<LuaSource>,
    diags: &mut Diagnostics,
) -> Option<LoadedVariant> {
    let (vf, lv) = variant::read(dir, arg, diags)?;
    if loaded.iter().any(|x: &LoadedVariant| x.name == lv.name) {
        diags.error(&vf.path, (1, 1), format!("variant `{}` is applied twice", lv.name));
        return None;
    }
    if vf.value.extends != pack_name {
        diags.error(&vf.path, vf.pos.of("extends"), format!("variant `{}` extends `{}`, but the rules pack is `{}`", lv.name, vf.value.extends, pack_name));
        return None;
    }
    let before = diags.0.len();
    let file: Arc<Path> = Arc::from(vf.path.as_path());
    let [ro, co, mo] = &mut docs.origins;
    for (doc, origin, ops, key) in [
        (&mut docs.rules, &mut *ro, &vf.value.overlay.rules, "rules"),
        (&mut docs.cards, co, &vf.value.overlay.cards, "cards"),
        (&mut docs.map, mo, &vf.value.overlay.map, "map"),
    ] {
        for (i, op) in ops.iter().enumerate() {
            match variant::apply(doc, op, &lv.options) {
                Ok(edit) => {
                    // The value put in is placed where the variant wrote it.
                    let (verb, value) = match op {
                        variant::Op::Set(o) => ("set", &o.value),
                        variant::Op::Add(o) => ("add", &o.value),
                        variant::Op::Remove(_) => ("remove", &serde_yaml::Value::Null),
                    };
                    let here = format!("overlay/{key}/{i}/{verb}");
                    let new = variant::Origin::of(value, &vf.pos, &format!("{here}/value"), Some(&file));
                    origin.follow(&edit, new, vf.pos.of(&format!("{here}/path")).in_file(&file));
                }
                Err(msg) => diags.error(&vf.path, vf.pos.of(&format!("overlay/{key}/{i}")), format!("overlay on {key}: {msg}")),
            }
        }
    }
    // The variant's options, for its scripts: RULES.params[name].
    if let serde_yaml::Value::Mapping(m) = &mut docs.rules {
        let params_key = serde_yaml::Value::String("params".into());
        if !m.contains_key(&params_key) {
            m.insert(params_key.clone(), serde_yaml::Value::Mapping(Default::default()));
            let new = variant::Origin::of(&serde_yaml::Value::Mapping(Default::default()), &vf.pos, "options", Some(&file));
            ro.follow(&variant::Edit::Insert(Vec::new(), "params".into()), new, vf.pos.key("options").in_file(&file));
        }
        if let Some(serde_yaml::Value::Mapping(pm)) = m.get_mut(&params_key) {
            let mut opts = serde_yaml::Mapping::new();
            for (k, v) in &lv.options {
                opts.insert(serde_yaml::Value::String(k.clone()), serde_yaml::to_value(v).unwrap_or_default());
            }
            let opts = serde_yaml::Value::Mapping(opts);
            let new = variant::Origin::of(&opts, &vf.pos, "options", Some(&file));
            let name = serde_yaml::Value::String(lv.name.clone());
            let edit = if pm.contains_key(&name) {
                variant::Edit::Replace(vec![variant::Found::Key("params".into()), variant::Found::Key(lv.name.clone())])
            } else {
                variant::Edit::Insert(vec![variant::Found::Key("params".into())], lv.name.clone())
            };
            ro.follow(&edit, new, vf.pos.key("options").in_file(&file));
            pm.insert(name, opts);
        }
    }
    // Does the result still read as a rules pack and a map? A value that
    // does not is reported where a variant wrote it; anything else (a
    // field the overlays removed) at this variant's overlays of the file.
    // (Once an earlier variant's overlays broke a file, it is said once.)
    if diags.0.len() == before && !diags.has_errors() {
        let [ro, co, mo] = &docs.origins;
        for (fault, origin, key, what) in [
            (read_fault::<RulesFile>(&docs.rules), ro, "rules", pack::RULES_FILE),
            (read_fault::<CardsFile>(&docs.cards), co, "cards", pack::CARDS_FILE),
            (read_fault::<map::MapFile>(&docs.map), mo, "map", "the map"),
        ] {
            let Some(ReadFault { at, shown, why: e }) = fault else { continue };
            // Where this variant wrote the value; anything else (a field
            // its overlays removed, a value an earlier variant wrote) at
            // its overlays of the file.
            let written = origin.positions().of(&at);
            let loc = if written.file.as_deref() == Some(file.as_ref()) { written } else { vf.pos.of(&format!("overlay/{key}")) };
            let place = if at.is_empty() { String::new() } else { format!(" at {shown}") };
            diags.error(&vf.path, loc, format!("after this variant's overlays, {what} no longer reads{place}: {e}"));
        }
    }
    for (i, name) in vf.value.lua.iter().enumerate() {
        match crate::files::inside(dir, name).and_then(|path| crate::files::read_text(&path).map(|source| (path, source))) {
            Ok((path, source)) => {
                lua.push(LuaSource { name: path.display().to_string(), path, source, pack: lv.name.clone(), overrides: lv.overrides.clone() })
            }
            Err(e) => diags.error(&vf.path, vf.pos.of(&format!("lua/{i}")), format!("Lua file: {e}")),
        }
    }
    Some(lv)
}

/// Where reading a document as its type stopped, and why.
struct ReadFault {
    /// The path as the position index has it (`a/0/b`).
    at: String,
    /// The path as a reader writes it (`a[0].b`).
    shown: String,
    why: String,
}

/// Whether `doc` reads as a `T`: if not, where the reading stopped and why.
fn read_fault<T: serde::de::DeserializeOwned>(doc: &serde_yaml::Value) -> Option<ReadFault> {
    let e = serde_path_to_error::deserialize::<_, T>(doc.clone()).err()?;
    let mut at = String::new();
    for segment in e.path().iter() {
        let step = match segment {
            serde_path_to_error::Segment::Seq { index } => index.to_string(),
            serde_path_to_error::Segment::Map { key } => key.clone(),
            serde_path_to_error::Segment::Enum { variant } => variant.clone(),
            // The nearest known ancestor, rather than a wrong node.
            serde_path_to_error::Segment::Unknown => break,
        };
        at = yaml::join(&at, &step);
    }
    let shown = e.path().to_string();
    Some(ReadFault { at, shown, why: e.into_inner().to_string() })
}

/// Reads and checks the `bots:` section against the cards and params.
fn check_bots(f: &yaml::YamlFile<RulesFile>, cards: &CardsFile, d: &mut Diagnostics) -> Option<BotRules> {
    let r = &f.value;
    let p = &f.path;
    let Some(b) = &r.bots else {
        d.error(
            p,
            (1, 1),
            "no `bots:` section: bots need `actions` (what each action handler does) and the params holding `armies_left_behind` and `neutral_peasants` (see scripts/base/rules.yaml)",
        );
        return None;
    };
    let mut ok = true;
    for handler in b.actions.keys() {
        if !cards.actions.iter().any(|a| &a.handler == handler) {
            d.warning(p, f.pos.key(&format!("bots/actions/{handler}")), format!("bots.actions: no action card has the handler `{handler}`"));
        }
    }
    let mut actions = Vec::with_capacity(cards.actions.len());
    for a in &cards.actions {
        actions.push(match b.actions.get(&a.handler) {
            None => ActionKind::Other,
            Some(pack::BotAction::Build) => {
                let building = a.params.get("building").and_then(|v| v.as_str());
                match building.and_then(|k| r.components.buildings.iter().position(|x| x.id == k)) {
                    Some(k) => ActionKind::Build(k),
                    None => {
                        d.error(
                            p,
                            f.pos.of(&format!("bots/actions/{}", a.handler)),
                            format!("bots.actions: `{}` builds, but action `{}` has no params.building naming a building kind", a.handler, a.id),
                        );
                        ok = false;
                        ActionKind::Other
                    }
                }
            }
            Some(pack::BotAction::Taxes) => ActionKind::Taxes,
            Some(pack::BotAction::Rice) => ActionKind::Rice,
            Some(pack::BotAction::Deploy) => ActionKind::Deploy,
            Some(pack::BotAction::DeployMove) => ActionKind::DeployMove,
            Some(pack::BotAction::MoveAttack) => ActionKind::MoveAttack,
        });
    }
    let q = &b.questions;
    let mut kinds: Vec<(&str, &str)> = Vec::new();
    for (meaning, kind) in [("move_target", &q.move_target), ("move_count", &q.move_count), ("deploy_move", &q.deploy_move), ("extra_cubes", &q.extra_cubes)] {
        let Some(kind) = kind else { continue };
        if kind.trim().is_empty() {
            d.error(p, f.pos.of(&format!("bots/questions/{meaning}")), format!("bots.questions.{meaning}: expected a question's kind, found an empty name"));
            ok = false;
        } else if let Some((other, _)) = kinds.iter().find(|(_, k)| *k == kind.as_str()) {
            d.error(
                p,
                f.pos.of(&format!("bots/questions/{meaning}")),
                format!("bots.questions.{meaning}: `{kind}` is already the kind of `{other}`; a question means one thing to the bots"),
            );
            ok = false;
        }
        kinds.push((meaning, kind));
    }
    let qd = &b.question_data;
    for (name, field) in [("from", &qd.from), ("to", &qd.to), ("armies", &qd.armies), ("attacker_extra", &qd.attacker_extra)] {
        if field.trim().is_empty() {
            d.error(
                p,
                f.pos.of(&format!("bots/question_data/{name}")),
                format!("bots.question_data.{name}: expected the name of a field of a question's data, found an empty name"),
            );
            ok = false;
        }
    }
    let mut param = |key: &str, name: &str, max: i64| -> Option<i64> {
        match r.params.get(name).and_then(|v| v.as_i64()) {
            Some(v) if (0..=max).contains(&v) => Some(v),
            Some(v) => {
                d.error(p, f.pos.of(&format!("params/{name}")), format!("params.{name} is {v}, expected 0..={max} (bots.{key} names it)"));
                None
            }
            None => {
                d.error(p, f.pos.of(&format!("bots/{key}")), format!("bots.{key}: `{name}` is not a whole number under params"));
                None
            }
        }
    };
    let left = param("armies_left_behind", &b.armies_left_behind, MAX_COUNT);
    let peasants = param("neutral_peasants", &b.neutral_peasants, i64::from(u16::MAX));
    match (left, peasants) {
        (Some(armies_left_behind), Some(n)) if ok => {
            Some(BotRules { actions, armies_left_behind, neutral_peasants: n as u16, questions: b.questions.clone(), question_data: b.question_data.clone() })
        }
        _ => None,
    }
}

/// The largest count or award the rules may give (chests, points): far
/// beyond a real game, small enough that sums of them never overflow.
const MAX_COUNT: i64 = 1_000_000;

/// Whether a `params` value is a finite number, a boolean, or a map or list
/// of those.
fn plain_numbers(v: &serde_json::Value) -> Result<(), String> {
    match v {
        serde_json::Value::Number(n) if n.as_f64().is_some_and(f64::is_finite) => Ok(()),
        serde_json::Value::Bool(_) => Ok(()),
        serde_json::Value::Array(a) => a.iter().try_for_each(plain_numbers),
        serde_json::Value::Object(m) => m.values().try_for_each(plain_numbers),
        other => Err(format!("{other} is not a number")),
    }
}

fn check_rules(f: &yaml::YamlFile<RulesFile>, d: &mut Diagnostics) {
    let r = &f.value;
    let p = &f.path;
    let at = |path: &str| f.pos.of(path);
    if r.players.min < 1 || r.players.min > r.players.max || r.players.max as usize > MAX_SEATS {
        d.error(p, at("players"), format!("players: expected 1 <= min <= max <= {MAX_SEATS}, found {}..{}", r.players.min, r.players.max));
    }
    if r.seats.len() < r.players.max as usize {
        d.error(p, at("seats"), format!("seats: {} listed, but up to {} players are allowed", r.seats.len(), r.players.max));
    }
    let mut names = HashSet::new();
    for (i, s) in r.seats.iter().enumerate() {
        if !names.insert(&s.name) {
            d.error(p, at(&format!("seats/{i}/name")), format!("seat name `{}` is used twice", s.name));
        }
    }
    for n in r.players.min..=r.players.max {
        match r.starting_chests.get(&n) {
            None => d.error(p, at("starting_chests"), format!("starting_chests: no entry for {n} players")),
            Some(c) if !(0..=MAX_COUNT).contains(c) => {
                d.error(p, at(&format!("starting_chests/{n}")), format!("starting_chests for {n} players is {c}, expected 0..={MAX_COUNT}"))
            }
            _ => {}
        }
        match r.army_groups_used.get(&n) {
            None => d.error(p, at("army_groups_used"), format!("army_groups_used: no entry for {n} players")),
            Some(u) if *u > r.army_groups.len() => d.error(
                p,
                at(&format!("army_groups_used/{n}")),
                format!("army_groups_used for {n} players is {u}, but only {} army groups exist", r.army_groups.len()),
            ),
            _ => {}
        }
    }
    if !(1..=20).contains(&r.draft.open_cards) {
        d.error(p, at("draft/open_cards"), format!("draft.open_cards is {}, expected 1..=20", r.draft.open_cards));
    }
    for (i, g) in r.army_groups.iter().enumerate() {
        if *g < 1 {
            d.error(p, at(&format!("army_groups/{i}")), format!("army group of {g}, expected at least 1"));
        }
    }
    let s = &r.scoring;
    for (key, v, lo) in [("per_province", s.per_province, 0), ("per_building", s.per_building, 0), ("tie_step", s.tie_step, -MAX_COUNT)] {
        if !(lo..=MAX_COUNT).contains(&v) {
            d.error(p, at(&format!("scoring/{key}")), format!("scoring.{key} is {v}, expected {lo}..={MAX_COUNT}"));
        }
    }
    for (kind, v) in &s.region_majority {
        if !(0..=MAX_COUNT).contains(v) {
            d.error(p, at(&format!("scoring/region_majority/{kind}")), format!("scoring.region_majority.{kind} is {v}, expected 0..={MAX_COUNT}"));
        }
    }
    for (key, v) in &r.params {
        if let Err(what) = plain_numbers(v) {
            d.error(p, at(&format!("params/{key}")), format!("params.{key}: {what} (params are numbers, or maps of them, for scripts to read)"));
        }
    }
    check_components(f, d);
    check_tower(f, d);
    check_calendar_and_winter(f, d);
    let c = &r.components;
    for k in r.scoring.region_majority.keys() {
        if !c.buildings.iter().any(|b| &b.id == k) {
            d.error(p, f.pos.key(&format!("scoring/region_majority/{k}")), format!("scoring.region_majority: `{k}` is not a building kind"));
        }
    }
    let stages = ["event", "special", "variant"];
    for (i, s) in r.modifier_order.iter().enumerate() {
        if !stages.contains(&s.as_str()) {
            d.error(p, at(&format!("modifier_order/{i}")), format!("modifier_order: unknown stage `{s}`, expected one of {}", stages.join(", ")));
        }
    }
}

/// The most cubes per player, peasants or unrest markers a box may hold
/// (`components:` in rules.yaml). The lab's `merge` bounds a record's
/// cubes left in the tower by it.
pub const MAX_BOX: i64 = 10_000;

/// The box: cubes, peasants, unrest markers, war-chest cards, buildings.
fn check_components(f: &yaml::YamlFile<RulesFile>, d: &mut Diagnostics) {
    let r = &f.value;
    let p = &f.path;
    let at = |path: &str| f.pos.of(path);
    let c = &r.components;
    for (key, v, lo, hi) in
        [("cubes_per_player", c.cubes_per_player, 1, MAX_BOX), ("peasants", c.peasants, 0, MAX_BOX), ("unrest_markers", c.unrest_markers, 0, MAX_BOX)]
    {
        if v < lo || v > hi {
            d.error(p, at(&format!("components/{key}")), format!("components.{key} is {v}, expected {lo}..={hi}"));
        }
    }
    let mut seen = HashSet::new();
    for (i, v) in c.chest_cards.iter().enumerate() {
        if !(0..=255).contains(v) || !seen.insert(*v) {
            d.error(p, at(&format!("components/chest_cards/{i}")), format!("chest card {v}: expected distinct values 0..=255"));
        }
    }
    if c.buildings.is_empty() || c.buildings.len() > 8 {
        d.error(p, at("components/buildings"), "components.buildings: expected 1 to 8 kinds");
    }
    let mut ids = HashSet::new();
    for (i, b) in c.buildings.iter().enumerate() {
        if !ids.insert(&b.id) {
            d.error(p, at(&format!("components/buildings/{i}/id")), format!("building kind `{}` is listed twice", b.id));
        }
        if !(0..=10_000).contains(&b.count) {
            d.error(p, at(&format!("components/buildings/{i}/count")), format!("{} count is {}, expected 0..=10000", b.id, b.count));
        }
    }
}

/// The tower in use, every tower's spec, and the preload.
fn check_tower(f: &yaml::YamlFile<RulesFile>, d: &mut Diagnostics) {
    let r = &f.value;
    let p = &f.path;
    let at = |path: &str| f.pos.of(path);
    let c = &r.components;
    let t = &r.tower;
    if !r.towers.contains_key(&t.use_) {
        let known: Vec<&str> = r.towers.keys().map(|s| s.as_str()).collect();
        d.error(p, at("tower/use"), format!("tower.use: no tower `{}` in `towers` (known: {})", t.use_, known.join(", ")));
    }
    for (name, spec) in &r.towers {
        if let Err(msg) = crate::tower::validate(spec) {
            d.error(p, at(&format!("towers/{name}")), format!("tower `{name}`: {msg}"));
        }
    }
    for (key, v) in [("cubes_per_player", t.preload.cubes_per_player), ("peasants", t.preload.peasants)] {
        if v < 0 {
            d.error(p, at(&format!("tower/preload/{key}")), format!("tower.preload.{key} is {v}, expected >= 0"));
        }
    }
    if t.preload.cubes_per_player > c.cubes_per_player || t.preload.peasants > c.peasants {
        d.error(p, at("tower/preload"), "tower.preload asks for more cubes or peasants than the box has");
    }
}

/// The calendar and the winter's supply table.
fn check_calendar_and_winter(f: &yaml::YamlFile<RulesFile>, d: &mut Diagnostics) {
    let r = &f.value;
    let p = &f.path;
    let at = |path: &str| f.pos.of(path);
    let cal = &r.calendar;
    if !(1..=20).contains(&cal.years) {
        d.error(p, at("calendar/years"), format!("calendar.years is {}, expected 1..=20", cal.years));
    }
    if cal.seasons.is_empty() || cal.seasons.len() > 20 {
        d.error(p, at("calendar/seasons"), "calendar.seasons: expected 1 to 20 action rounds");
    }
    if cal.events_per_year < cal.seasons.len() as i64 + 1 {
        d.error(
            p,
            at("calendar/events_per_year"),
            format!(
                "calendar.events_per_year is {}, expected at least one per action round plus one for winter ({})",
                cal.events_per_year,
                cal.seasons.len() + 1
            ),
        );
    }
    if cal.open_action_cards < 0 {
        d.error(p, at("calendar/open_action_cards"), "calendar.open_action_cards must be >= 0");
    }
    let table = &r.winter.supply_table;
    if table.first().map(|row| row.shortage) != Some(0) {
        d.error(p, at("winter/supply_table"), "winter.supply_table must start with a row for shortage 0");
    }
    for (i, row) in table.iter().enumerate() {
        if i > 0 && row.shortage <= table[i - 1].shortage {
            d.error(p, at(&format!("winter/supply_table/{i}/shortage")), "winter.supply_table rows must be in increasing order of shortage");
        }
        if row.revolts < 0 || row.extra_peasants < 0 {
            d.error(p, at(&format!("winter/supply_table/{i}")), "winter.supply_table: revolts and extra_peasants must be >= 0");
        }
    }
    if r.winter.rice_per_province < 0 {
        d.error(p, at("winter/rice_per_province"), "winter.rice_per_province must be >= 0");
    }
}

fn check_cards(f: &yaml::YamlFile<CardsFile>, r: &RulesFile, d: &mut Diagnostics) {
    let c = &f.value;
    let p = &f.path;
    let at = |path: &str| f.pos.of(path);
    let mut ids = HashSet::new();
    for (i, a) in c.actions.iter().enumerate() {
        if !ids.insert(&a.id) {
            d.error(p, at(&format!("actions/{i}/id")), format!("action `{}` is defined twice", a.id));
        }
        if a.cost < 0 {
            d.error(p, at(&format!("actions/{i}/cost")), format!("action `{}`: cost {} must be >= 0", a.id, a.cost));
        }
    }
    if c.actions.is_empty() {
        d.error(p, at("actions"), "no action cards");
    }
    if r.calendar.open_action_cards as usize > c.actions.len() {
        d.error(
            p,
            at("actions"),
            format!("calendar.open_action_cards is {}, but there are only {} action cards", r.calendar.open_action_cards, c.actions.len()),
        );
    }
    // Both numbers come from the pack: a product past i64 (years out of
    // range are reported by check_calendar_and_winter) needs more cards
    // than any pack has, never a wrapped count.
    let need = r.calendar.years.max(0).saturating_mul(r.calendar.events_per_year.max(0));
    if (c.events.len() as i64) < need {
        d.error(
            p,
            at("events"),
            format!("{} event cards, but {} years of {} events need {need}", c.events.len(), r.calendar.years, r.calendar.events_per_year),
        );
    }
    if c.specials.len() < r.players.max as usize {
        d.error(p, at("specials"), format!("{} special cards, but up to {} players each take one", c.specials.len(), r.players.max));
    }
    let check_effects = |kind: &str, i: usize, effects: &[pack::Effect], d: &mut Diagnostics| {
        for (j, e) in effects.iter().enumerate() {
            for (k, a) in e.actions.iter().enumerate() {
                if !c.actions.iter().any(|x| &x.id == a) {
                    d.error(p, at(&format!("{kind}/{i}/effects/{j}/actions/{k}")), format!("unknown action `{a}`"));
                }
            }
        }
    };
    let mut ev = HashSet::new();
    for (i, e) in c.events.iter().enumerate() {
        if !ev.insert(&e.id) {
            d.error(p, at(&format!("events/{i}/id")), format!("event `{}` is defined twice", e.id));
        }
        if e.rice_loss < 0 {
            d.error(p, at(&format!("events/{i}/rice_loss")), "rice_loss must be >= 0");
        }
        check_effects("events", i, &e.effects, d);
    }
    let mut sp = HashSet::new();
    for (i, s) in c.specials.iter().enumerate() {
        if !sp.insert(&s.id) {
            d.error(p, at(&format!("specials/{i}/id")), format!("special `{}` is defined twice", s.id));
        }
        check_effects("specials", i, &s.effects, d);
    }
}

fn check_presets(map: &Map, f: &yaml::YamlFile<map::MapFile>, r: &RulesFile, d: &mut Diagnostics) {
    for (n, seats) in &map.presets {
        let Some(used) = r.army_groups_used.get(n) else { continue };
        let mut want: Vec<i64> = r.army_groups.iter().take(*used).copied().collect();
        want.sort_unstable();
        for (s, armies) in seats.iter().enumerate() {
            let mut got: Vec<i64> = armies.iter().map(|(_, a)| i64::from(*a)).collect();
            got.sort_unstable();
            if got != want {
                d.error(
                    &f.path,
                    f.pos.of(&format!("presets/{n}/{s}")),
                    format!("{n}-player preset, seat {}: armies {:?} do not match the army groups used with {n} players {:?}", s + 1, got, want),
                );
            }
        }
    }
}
