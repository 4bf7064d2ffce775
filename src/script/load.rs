//! Building a runtime: the sandboxed VM, the prelude and the globals, the
//! pack's files (syntax checked in all of them first, then run), the names
//! the YAML gives checked against what the scripts registered, and the
//! globals sealed. Every problem found is reported with its file and line.

use std::path::Path;
use std::rc::Rc;

use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, Table, Value};

use super::{
    EffectTables, Handlers, Keys, Limits, RulePart, Runtime, ScriptError, Shared, api, bytecode, error_without_nul, lock_helpers, sandbox, value, values,
};
use crate::rules::map::suggest;
use crate::rules::pack::Effect;
use crate::rules::{Diagnostic, Diagnostics, Positions, Rules, Severity};

impl Runtime {
    /// Builds a sandboxed VM, loads the pack's Lua files and checks that
    /// every handler, modifier and hook the YAML names is registered.
    pub fn new(rules: Rc<Rules>, tower_name: &str, limits: Limits) -> Result<Runtime, Diagnostics> {
        // `allocator` is declared after `lua`, so it is dropped first (see
        // `heap::Installed`).
        let (lua, allocator) = sandbox(limits).map_err(|e| fatal(&rules.rules_path, format!("cannot start Lua: {e}")))?;
        let shared = Rc::new(Shared::new(&lua, rules.clone(), limits));
        let prelude = globals(&lua, &rules, &shared).map_err(|e| fatal(&rules.rules_path, format!("cannot set up the Lua runtime: {e}")))?;
        let mut diags = Diagnostics::default();
        // Syntax first, in every file, so that all of them are reported;
        // then what a file would write that outlives a call.
        check_syntax(&lua, &rules, &mut diags);
        if diags.has_errors() {
            return Err(diags);
        }
        shared.loading.set(true);
        let ran = run_files(&lua, &rules, &shared, &prelude);
        shared.loading.set(false);
        ran?;
        check_kept_state(&lua, &rules, &prelude, &mut diags);
        let registry = Registry::of(&prelude);
        // Warnings name the scripts' own functions, before they are wrapped.
        let warnings = unused(&rules, &registry);
        let setup = |e: mlua::Error| fatal(&rules.rules_path, format!("cannot set up the Lua runtime: {e}"));
        let kept = values::kept(&lua, &rules, &shared, &prelude, limits).map_err(setup)?;
        count_calls(&lua, &shared, &prelude).map_err(setup)?;
        values::finish(&rules, &shared, &prelude, kept).map_err(setup)?;
        check_names(&rules, &registry, &mut diags);
        let handlers = resolve_handlers(&rules, &registry, &mut diags);
        let Some(handlers) = handlers.filter(|_| !diags.has_errors()) else {
            diags.0.extend(warnings);
            return Err(diags);
        };
        *shared.continuations.borrow_mut() = handlers.continuations.iter().map(|(k, _)| crate::core::Name::from(k.as_str())).collect();
        let seal: Function = prelude.get("seal").expect("prelude seal");
        if let Err(e) = lock_helpers(&lua).and_then(|helpers| shared.guarded(|| seal.call::<()>(helpers))) {
            return Err(fatal(&rules.rules_path, format!("cannot seal the Lua globals: {e}")));
        }
        shared.watch.set_limit(limits.time_per_call);
        let continue_with = value::Continue::new(&lua).map_err(|e| fatal(&rules.rules_path, format!("cannot set up the Lua runtime: {e}")))?;
        let rt =
            Runtime { _allocator: allocator, lua, shared, handlers, limits, towers: registry.towers, warnings, tower_name: Default::default(), continue_with };
        match rt.set_tower(tower_name) {
            Ok(()) => {
                // What loading left is the base of the heap's watermark.
                rt.shared.heap().set_base();
                Ok(rt)
            }
            Err(msg) => Err(fatal_at(&rules.rules_path, rules.rules_pos.of("tower/use"), msg)),
        }
    }
}

/// One problem that stops the load.
fn fatal(file: &Path, message: String) -> Diagnostics {
    fatal_at(file, (1, 1), message)
}

fn fatal_at(file: &Path, at: impl Into<crate::rules::yaml::Loc>, message: String) -> Diagnostics {
    let mut d = Diagnostics::default();
    d.error(file, at, message);
    d
}

/// Runs the prelude and sets what scripts see before the pack's files
/// load: the frozen `RULES`, `CARDS` and `MAP`, the host API `game`, the
/// card effects as read-only tables, `NARRATE` and `error`; then locks the
/// builtins. Returns the prelude's table.
pub(super) fn globals(lua: &Lua, rules: &Rules, shared: &Rc<Shared>) -> mlua::Result<Table> {
    let prelude: Table = lua.load(include_str!("prelude.lua")).set_name("=prelude").set_mode(ChunkMode::Text).eval()?;
    let g = lua.globals();
    let freeze = values::freeze_data(lua, rules, shared, &prelude)?;
    g.set("game", api::host_table(lua, shared, &prelude.get("note_format")?)?)?;
    *shared.readonly_list.borrow_mut() = Some(prelude.get("readonly_list")?);
    api::make_board_view(lua, shared, &prelude.get("host_view")?)?;
    *shared.effect_tables.borrow_mut() = EffectTables::frozen(lua, rules, &freeze)?;
    values::size_counters(shared, &prelude)?;
    *shared.keys.borrow_mut() = Some(Keys::interned(lua)?);
    g.set("NARRATE", true)?;
    // SAFETY: `error_without_nul` follows the C API's rules (see there).
    g.set("error", unsafe { lua.create_c_function(error_without_nul)? })?;
    // string.format as a C function (see `format_for_scripts`), with Lua's
    // own and the prelude's version as its upvalues.
    let (raw, script): (Function, Function) = (prelude.get("raw_format")?, prelude.get("script_format")?);
    // SAFETY: pushes the two upvalues and makes the closure of a C function
    // that follows the C API's rules (see there); nothing Rust owns is
    // alive if an allocation error unwinds.
    let format: Function = unsafe {
        lua.exec_raw((raw, script), |l| {
            mlua::ffi::lua_pushcclosure(l, super::format_for_scripts, 2);
        })?
    };
    g.get::<Table>("string")?.set("format", format)?;
    // The flat tables scripts reach only as `NAME.field` (bytecode.rs).
    prelude.get::<Function>("set_flat")?.call::<()>(bytecode::FLAT)?;
    // From here on the builtins are read-only, while files load too.
    prelude.get::<Function>("lock_builtins")?.call::<()>(lock_helpers(lua)?)?;
    Ok(prelude)
}

/// Compiles every file of the pack without running it: syntax errors, and
/// what the compiled chunk would write that outlives a call (`bytecode`).
fn check_syntax(lua: &Lua, rules: &Rules, diags: &mut Diagnostics) {
    for src in &rules.lua {
        match lua.load(&src.source).set_name(format!("@{}", src.name)).set_mode(ChunkMode::Text).into_function() {
            Ok(f) => match bytecode::check(&f.dump(false), false) {
                Ok(refused) => {
                    for r in refused {
                        diags.error(&src.path, (r.line, 0), r.message);
                    }
                }
                Err(e) => diags.error(&src.path, (0, 0), format!("cannot check the compiled chunk: {e}")),
            },
            Err(e) => {
                let se = ScriptError::from_lua(&e);
                let file = if se.file.is_empty() { src.path.clone() } else { se.file.clone().into() };
                diags.error(&file, (se.line.max(1), 0), format!("Lua syntax: {}", se.message));
            }
        }
    }
}

/// Runs the pack's files in order under the time limit (each one told
/// which pack it belongs to and what it may override); the first that
/// fails stops the load.
pub(super) fn run_files(lua: &Lua, rules: &Rules, shared: &Shared, prelude: &Table) -> Result<(), Diagnostics> {
    let set_loading: Function = prelude.get("set_loading").expect("prelude set_loading");
    for src in &rules.lua {
        if let Err(e) = set_loading.call::<()>((src.pack.as_str(), src.overrides.clone())) {
            return Err(fatal(&src.path, format!("cannot start loading: {e}")));
        }
        // Run exactly as checked (`check_syntax`): a file that ran as other
        // text than it was checked as could reach what the check refuses
        // (a parameter named `_ENV` hid a prepended local from it).
        let chunk = lua.load(src.source.as_str()).set_name(format!("@{}", src.name)).set_mode(ChunkMode::Text);
        if let Err(e) = shared.guarded(|| chunk.exec()) {
            let se = ScriptError::from_lua(&e);
            let file = if se.file.is_empty() { src.path.clone() } else { se.file.clone().into() };
            return Err(fatal_at(&file, (se.line.max(1), 0), se.message));
        }
    }
    Ok(())
}

/// Refuses what would carry state from call to call although no script
/// assigns a captured variable (`bytecode` refuses that): a function made
/// while the files loaded that keeps its own state, kept where a later
/// call reaches it (the prelude's `stateful_values` walks the globals and
/// the registry). Whatever made it: an iterator of `pairs`, of
/// `string.gmatch`, any C function a library returned.
fn check_kept_state(lua: &Lua, rules: &Rules, prelude: &Table, diags: &mut Diagnostics) {
    let describe = lua.create_function(|_, f: Function| {
        let info = f.info();
        let defined = info.source.as_deref().filter(|s| s.starts_with('@')).map(|s| format!("{}:{}", &s[1..], info.line_defined.unwrap_or(0)));
        let keeps = if info.what == "C" {
            Some("a function a library made while the files loaded (an iterator such as `string.gmatch`'s keeps its place between calls)")
        } else if bytecode::writes_upvalues(&f.dump(true)).unwrap_or(true) {
            Some("a function made while the files loaded that changes its own upvalues (an iterator such as `pairs`' keeps its place between calls)")
        } else {
            None
        };
        Ok((keeps, defined))
    });
    let found = describe.and_then(|describe| {
        let (upvalue, getmt, _) = lock_helpers(lua)?;
        let list = prelude.get::<Function>("stateful_values")?.call::<Vec<Table>>((upvalue, getmt, describe))?;
        list.iter().map(|t| Ok((t.get::<String>(1)?, t.get::<String>(2)?))).collect::<mlua::Result<Vec<(String, String)>>>()
    });
    let mut found = match found {
        Ok(found) => found,
        Err(e) => return diags.error(&rules.rules_path, (0, 0), format!("cannot check what the scripts keep: {e}")),
    };
    found.sort();
    found.dedup();
    for (place, what) in found {
        let (name, line) = place.rsplit_once(':').map_or(("", 1), |(n, l)| (n, l.parse().unwrap_or(1)));
        let file = rules.lua.iter().find(|s| s.name == name).map_or(rules.rules_path.clone(), |s| s.path.clone());
        diags.error(&file, (line.max(1), 0), format!("{what}: scripts keep no state between calls (make it inside the call that uses it)"));
    }
}

/// Wraps the functions variants added or replaced so that their calls are
/// counted while `Shared::counting` is on (the prelude's `count_calls`).
fn count_calls(lua: &Lua, shared: &Rc<Shared>, prelude: &Table) -> mlua::Result<()> {
    let sh = Rc::downgrade(shared);
    let bump = lua.create_function(move |_, i: usize| {
        if let Some(sh) = sh.upgrade()
            && sh.counting.get()
            && let Some(c) = sh.rule_calls.borrow_mut().get_mut(i.wrapping_sub(1))
        {
            *c = c.saturating_add(1);
        }
        Ok(())
    })?;
    let wrap: Function = prelude.get("count_calls")?;
    let parts: Vec<Table> = wrap.call(bump)?;
    let parts = parts
        .iter()
        .map(|t| Ok(RulePart { kind: t.get(1)?, name: t.get(2)?, variant: t.get(3)?, replaced: t.get(4)?, uncounted: None }))
        .collect::<mlua::Result<Vec<_>>>()?;
    *shared.rule_calls.borrow_mut() = vec![0; parts.len()];
    *shared.rule_parts.borrow_mut() = parts;
    Ok(())
}

/// What the pack's scripts registered through the prelude, by kind.
struct Registry {
    actions: Table,
    continuations: Table,
    modifiers: Table,
    handlers: Table,
    hooks: Table,
    towers: Table,
}

impl Registry {
    fn of(prelude: &Table) -> Registry {
        let registry: Table = prelude.get("registry").expect("prelude registry");
        let get = |kind: &str| -> Table { registry.get(kind).expect("registry table") };
        Registry {
            actions: get("actions"),
            continuations: get("continuations"),
            modifiers: get("modifiers"),
            handlers: get("handlers"),
            hooks: get("hooks"),
            towers: get("towers"),
        }
    }
}

/// Checks that every Lua tower, action handler, modifier and hook the YAML
/// names is registered.
fn check_names(rules: &Rules, reg: &Registry, diags: &mut Diagnostics) {
    for (name, spec) in &rules.rules.towers {
        if let Some(script) = &spec.script
            && !matches!(reg.towers.get::<Value>(script.as_str()), Ok(Value::Function(_)))
        {
            diags.error(
                &rules.rules_path,
                rules.rules_pos.of(&format!("towers/{name}/script")),
                format!("tower `{name}`: no Lua tower `{script}` is registered (shogun.tower)"),
            );
        }
    }
    for (i, a) in rules.cards.actions.iter().enumerate() {
        if !matches!(reg.actions.get::<Option<Function>>(a.handler.as_str()), Ok(Some(_))) {
            diags.error(
                &rules.cards_path,
                rules.cards_pos.of(&format!("actions/{i}/handler")),
                format!("action `{}`: no Lua handler `{}` is registered (shogun.action)", a.id, a.handler),
            );
        }
    }
    let cards = (rules.cards_path.as_path(), &rules.cards_pos, "the pack's scripts declare their hooks with shogun.hooks");
    for (i, e) in rules.cards.events.iter().enumerate() {
        check_effects(reg, cards, &format!("events/{i}/"), &e.effects, diags);
    }
    for (i, s) in rules.cards.specials.iter().enumerate() {
        check_effects(reg, cards, &format!("specials/{i}/"), &s.effects, diags);
    }
    check_effects(reg, (rules.rules_path.as_path(), &rules.rules_pos, "declare it with shogun.hooks"), "", &rules.rules.effects, diags);
}

/// Checks each effect's modifier and hook; `at` is the YAML file, its
/// positions and how to declare a hook, `prefix` the path to `effects`.
fn check_effects(reg: &Registry, at: (&Path, &Positions, &str), prefix: &str, effects: &[Effect], diags: &mut Diagnostics) {
    let (file, pos, declare) = at;
    let names = |t: &Table, keep: &dyn Fn(&Value) -> bool| -> Vec<String> {
        t.pairs::<String, Value>().filter_map(|kv| kv.ok()).filter(|(_, v)| keep(v)).map(|(k, _)| k).collect()
    };
    for (j, e) in effects.iter().enumerate() {
        if !matches!(reg.modifiers.get::<Value>(e.modifier.as_str()), Ok(Value::Function(_))) {
            let known = names(&reg.modifiers, &|v| matches!(v, Value::Function(_)));
            diags.error(
                file,
                pos.of(&format!("{prefix}effects/{j}/modifier")),
                format!("no Lua modifier `{}` is registered{} (shogun.modifier)", e.modifier, suggest(&e.modifier, known.iter())),
            );
        }
        if !matches!(reg.hooks.get::<Value>(e.hook.as_str()), Ok(Value::Boolean(true))) {
            let known = names(&reg.hooks, &|v| matches!(v, Value::Boolean(true)));
            diags.error(file, pos.of(&format!("{prefix}effects/{j}/hook")), format!("unknown hook `{}`{} ({declare})", e.hook, suggest(&e.hook, known.iter())));
        }
    }
}

/// The phase handlers rules.yaml names and the registered continuations;
/// `None` if a handler is missing (each missing one is reported).
fn resolve_handlers(rules: &Rules, reg: &Registry, diags: &mut Diagnostics) -> Option<Handlers> {
    let mut phase = |key: &str, name: &str| -> Option<Function> {
        let found = reg.handlers.get::<Option<Function>>(name).ok().flatten();
        if found.is_none() {
            diags.error(
                &rules.rules_path,
                rules.rules_pos.of(&format!("handlers/{key}")),
                format!("handlers.{key}: no Lua handler `{name}` is registered (shogun.handler)"),
            );
        }
        found
    };
    let h = &rules.rules.handlers;
    let (winter, score, year_end) = (phase("winter", &h.winter), phase("score", &h.score), phase("year_end", &h.year_end));
    let battle = phase("battle", &h.battle);
    // Called by the pack's own scripts, not the engine: only checked.
    let province_lost = phase("province_lost", &h.province_lost);
    let (preload, bids, perform, standings) =
        (phase("preload", &h.preload), phase("bids", &h.bids), phase("perform", &h.perform), phase("standings", &h.standings));
    province_lost?;
    let mut continuations: Vec<(String, Function)> = reg.continuations.pairs::<String, Function>().filter_map(|kv| kv.ok()).collect();
    continuations.sort_by(|a, b| a.0.cmp(&b.0));
    Some(Handlers {
        continuations,
        winter: winter?,
        score: score?,
        year_end: year_end?,
        battle: battle?,
        preload: preload?,
        bids: bids?,
        perform: perform?,
        standings: standings?,
    })
}

/// Warnings for what the scripts registered that nothing in the YAML
/// names (actions, modifiers, handlers, towers), sorted by place.
fn unused(rules: &Rules, reg: &Registry) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    let mut unused = |table: &Table, used: &dyn Fn(&str) -> bool, what: &str| {
        for (name, f) in table.pairs::<String, Function>().flatten() {
            if !used(&name) {
                let info = f.info();
                let file = info.source.as_deref().map(|s| s.trim_start_matches('@').to_string()).unwrap_or_default();
                warnings.push(Diagnostic {
                    file: file.into(),
                    line: info.line_defined.unwrap_or(1).max(1),
                    column: 0,
                    severity: Severity::Warning,
                    message: format!("Lua {what} `{name}` is registered but nothing names it"),
                });
            }
        }
    };
    let cards = &rules.cards;
    unused(&reg.actions, &|n| cards.actions.iter().any(|a| a.handler == n), "action");
    let effects = || cards.events.iter().flat_map(|e| &e.effects).chain(cards.specials.iter().flat_map(|c| &c.effects)).chain(rules.rules.effects.iter());
    unused(&reg.modifiers, &|n| effects().any(|e| e.modifier == n), "modifier");
    let h = &rules.rules.handlers;
    let named = [&h.winter, &h.score, &h.year_end, &h.battle, &h.preload, &h.bids, &h.perform, &h.province_lost, &h.standings];
    unused(&reg.handlers, &|n| named.iter().any(|x| x.as_str() == n), "handler");
    unused(&reg.towers, &|n| rules.rules.towers.values().any(|t| t.script.as_deref() == Some(n)), "tower");
    warnings.sort_by(|a, b| (&a.file, a.line, &a.message).cmp(&(&b.file, b.line, &b.message)));
    warnings
}
