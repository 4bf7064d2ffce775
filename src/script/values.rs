//! The lab's rule use of values: the values a variant's overlays changed
//! (its rules.yaml, cards and map edits: the merged data against the
//! pack's own, down to the leaves) and how often the game read them.
//!
//! * Scripts read them through `RULES`, `CARDS`, `MAP` and the card
//!   effects: only the tables holding a changed key count, and only reads
//!   of those keys (the prelude's `freeze_changes`); every other table
//!   reads as before, at no cost.
//! * A value a script read while its files loaded and kept (a file-level
//!   local) is read again whenever a function keeping it runs. Which
//!   functions keep it: the same files loaded once more on the pack's own
//!   data, and each registered or global function's kept values compared
//!   (the prelude's `fingerprints`); the calls of those that differ count
//!   as reads (`count_kept`).
//! * The engine reads the tower it uses: each throw of a tower whose
//!   spec, or the rules' choice of it, changed counts. Other values the
//!   Rust engine or the bots read themselves are marked as not counted
//!   (`RulePart::uncounted`), so that a count of 0 is never taken for a
//!   value nobody read.

use std::collections::HashMap;
use std::rc::{Rc, Weak};

use mlua::{Function, Lua, LuaSerdeExt, Table, Value};

use super::{Limits, RulePart, Shared, api, lock_helpers, sandbox};
use crate::core::{GameRng, Pile};
use crate::rules::Rules;
use crate::tower::TowerModel;

impl Shared {
    /// One read of value part `i` (0-based): counted while the game's own
    /// decisions run, remembered while the files load.
    fn read_value(&self, i: usize) {
        if self.counting.get() {
            if let Some(c) = self.value_reads.borrow_mut().get_mut(i) {
                *c = c.saturating_add(1);
            }
        } else if self.loading.get()
            && let Some(b) = self.read_at_load.borrow_mut().get_mut(i)
        {
            *b = true;
        }
    }
}

/// Sets `RULES`, `CARDS` and `MAP`, read-only, in the globals; with
/// variants, their changed values counted (see the module's comment).
/// Returns the prelude's `freeze_changes` for the card effects.
pub(super) fn freeze_data(lua: &Lua, rules: &Rules, shared: &Rc<Shared>, prelude: &Table) -> mlua::Result<Function> {
    let sh: Weak<Shared> = Rc::downgrade(shared);
    let bump = lua.create_function(move |_, i: usize| {
        if let Some(sh) = sh.upgrade() {
            sh.read_value(i.wrapping_sub(1));
        }
        Ok(())
    })?;
    prelude.get::<Function>("set_value_bump")?.call::<()>(bump)?;
    let freeze: Function = prelude.get("freeze_changes")?;
    let base = rules.base.as_deref();
    // A variant's options reach its scripts as RULES.params[NAME]: not a
    // change of the pack's rules (its scripts' calls are counted).
    let skip = lua.create_table()?;
    for v in &rules.variants {
        if base.is_some_and(|b| !b.rules.params.contains_key(&v.name)) {
            skip.set(format!("RULES.params.{}", v.name), true)?;
        }
    }
    let g = lua.globals();
    let of = |v: Option<Value>| v.unwrap_or(Value::Nil);
    g.set("RULES", freeze.call::<Table>((lua.to_value(&rules.rules)?, of(base.map(|b| lua.to_value(&b.rules)).transpose()?), "RULES", &skip))?)?;
    g.set("CARDS", freeze.call::<Table>((lua.to_value(&rules.cards)?, of(base.map(|b| lua.to_value(&b.cards)).transpose()?), "CARDS", &skip))?)?;
    let base_map = match base {
        Some(b) => {
            let mut r = rules.clone();
            r.map = b.map.clone();
            Value::Table(api::map_table(lua, &r)?)
        }
        None => Value::Nil,
    };
    g.set("MAP", freeze.call::<Table>((api::map_table(lua, rules)?, base_map, "MAP", &skip))?)?;
    Ok(freeze)
}

/// Sizes the counters once `freeze_data` and the card effects have made
/// every value part.
pub(super) fn size_counters(shared: &Shared, prelude: &Table) -> mlua::Result<()> {
    let n = prelude.get::<Function>("value_list")?.call::<Table>(())?.raw_len();
    *shared.value_reads.borrow_mut() = vec![0; n];
    *shared.read_at_load.borrow_mut() = vec![false; n];
    Ok(())
}

/// What the prelude's `fingerprints` says of each function (and global
/// table) the loaded files left.
fn fingerprints(lua: &Lua, prelude: &Table) -> mlua::Result<HashMap<String, String>> {
    let (upvalue, getmt, _) = lock_helpers(lua)?;
    prelude.get::<Function>("fingerprints")?.call((upvalue, getmt))
}

/// Which functions keep a value read while the files loaded (see the
/// module's comment), before `count_calls` wraps any: `Ok(keys)` to wrap
/// with `count_kept`, or `Err(reason)` when the reads cannot be counted.
pub(super) struct Kept(Result<Vec<String>, &'static str>);

pub(super) fn kept(lua: &Lua, rules: &Rules, shared: &Shared, prelude: &Table, limits: Limits) -> mlua::Result<Option<Kept>> {
    if !shared.read_at_load.borrow().contains(&true) {
        return Ok(None);
    }
    let Some(base) = &rules.base else { return Ok(None) };
    let prints = fingerprints(lua, prelude)?;
    let mut r = rules.clone();
    (r.rules, r.cards, r.map, r.base) = (base.rules.clone(), base.cards.clone(), base.map.clone(), None);
    // The same files on the pack's own data: a variant's scripts that need
    // its data may fail there, and then nothing can be compared.
    let Some(base_prints) = base_load(r, limits) else {
        return Ok(Some(Kept(Err("read while the rules loaded; the scripts do not load without the variant's data, so its use is not counted"))));
    };
    let mut keys: Vec<String> = prints.keys().chain(base_prints.keys()).filter(|k| prints.get(*k) != base_prints.get(*k)).cloned().collect();
    keys.sort();
    keys.dedup();
    if keys.iter().any(|k| k.starts_with("table/") || !prints.contains_key(k)) {
        return Ok(Some(Kept(Err("read while the rules loaded and kept where no call shows its use (a global table, or a function it removed)"))));
    }
    Ok(Some(Kept(Ok(keys))))
}

/// The fingerprints of the pack's files loaded on `rules`, if they load.
fn base_load(rules: Rules, limits: Limits) -> Option<HashMap<String, String>> {
    // `_allocator` is dropped before `lua` (see `heap::Installed`).
    let (lua, _allocator) = sandbox(limits).ok()?;
    let rules = Rc::new(rules);
    let shared = Rc::new(Shared::new(&lua, rules.clone(), limits));
    let prelude = super::load::globals(&lua, &rules, &shared).ok()?;
    super::load::run_files(&lua, &rules, &shared, &prelude).ok()?;
    fingerprints(&lua, &prelude).ok()
}

/// After `count_calls`: wraps the functions that keep values read while
/// loading, and lists the value parts (`Shared::value_parts`).
pub(super) fn finish(rules: &Rules, shared: &Shared, prelude: &Table, kept: Option<Kept>) -> mlua::Result<()> {
    let at_load: Vec<usize> = shared.read_at_load.borrow().iter().enumerate().filter(|(_, b)| **b).map(|(i, _)| i).collect();
    let mut not_counted = None;
    match kept {
        Some(Kept(Ok(keys))) => prelude.get::<Function>("count_kept")?.call::<()>((keys, at_load.iter().map(|i| i + 1).collect::<Vec<_>>()))?,
        Some(Kept(Err(reason))) => not_counted = Some(reason),
        None => {}
    }
    let variant = rules.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join("+");
    let list: Vec<Table> = prelude.get::<Function>("value_list")?.call(())?;
    let mut parts = Vec::with_capacity(list.len());
    for (i, t) in list.iter().enumerate() {
        let name: String = t.get(1)?;
        let uncounted = engine_reads(&name).or(not_counted.filter(|_| at_load.contains(&i)));
        parts.push(RulePart { kind: "value".into(), uncounted: uncounted.map(str::to_string), name, variant: variant.clone(), replaced: t.get(2)? });
    }
    *shared.value_parts.borrow_mut() = parts;
    Ok(())
}

/// Whether the Rust engine (or the bots) reads the value at `path` itself,
/// where no count sees it: why, or `None` when the scripts alone read it
/// (or the tower in use, whose throws are counted).
fn engine_reads(path: &str) -> Option<&'static str> {
    const ENGINE: &str = "read by the engine itself, not counted";
    let head = |rest: &str| rest.split(['.', '[']).next().unwrap_or("").to_string();
    if path.starts_with("MAP.") || path.starts_with("CARDS.actions") {
        return Some(ENGINE);
    }
    if path.contains(".effects[") && (path.ends_with(".hook") || path.ends_with(".actions") || path.contains(".actions[")) {
        return Some("read by the engine to find the effects on a hook, not counted");
    }
    if let Some(rest) = path.strip_prefix("CARDS.") {
        // A whole card added or removed: the engine deals it.
        let card = rest.strip_prefix("events[").or_else(|| rest.strip_prefix("specials["));
        return card.filter(|c| c.ends_with(']') && !c.contains('.')).map(|_| ENGINE);
    }
    let rest = path.strip_prefix("RULES.")?;
    if rest.starts_with("tower.preload") {
        return Some(ENGINE);
    }
    match head(rest).as_str() {
        "bots" => Some("read by the bots, not by the rules"),
        "players" | "seats" | "starting_chests" | "army_groups" | "army_groups_used" | "draft" | "components" | "calendar" | "planning" | "modifier_order"
        | "handlers" | "limits" | "lua" => Some(ENGINE),
        _ => None,
    }
}

/// The value parts a throw of the tower `name` reads: its spec, and the
/// rules' choice of it when `chosen`.
pub(super) fn tower_parts(parts: &[RulePart], name: &str, chosen: bool) -> Vec<usize> {
    let spec = format!("RULES.towers.{name}");
    let inside = format!("{spec}.");
    parts.iter().enumerate().filter(|(_, p)| p.name == spec || p.name.starts_with(&inside) || (chosen && p.name == "RULES.tower.use")).map(|(i, _)| i).collect()
}

/// A tower whose every throw counts as a read of the value parts `parts`.
pub(super) struct CountedTower {
    pub inner: Rc<dyn TowerModel>,
    pub parts: Vec<usize>,
    pub shared: Weak<Shared>,
}

impl CountedTower {
    fn count(&self) {
        if let Some(sh) = self.shared.upgrade() {
            self.parts.iter().for_each(|&i| sh.read_value(i));
        }
    }
}

impl TowerModel for CountedTower {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn levels(&self) -> usize {
        self.inner.levels()
    }
    fn keeps(&self) -> bool {
        self.inner.keeps()
    }
    fn throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
        self.count();
        self.inner.throw(inside, input, rng)
    }
    fn setup_throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
        self.count();
        self.inner.setup_throw(inside, input, rng)
    }
    fn ledge_laws(&self, stuck: u16, max_arriving: u16) -> Option<Vec<Vec<f64>>> {
        self.count();
        self.inner.ledge_laws(stuck, max_arriving)
    }
    fn ledge_laws_work(&self, stuck: f64, arriving: f64) -> f64 {
        self.inner.ledge_laws_work(stuck, arriving)
    }
}
