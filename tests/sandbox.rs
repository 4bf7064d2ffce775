//! A rules pack is untrusted input (issue 11): each reproduction of the
//! issue is a test here. Sealing: after loading, nothing a script can
//! reach is writable except through the host API, and every call sees the
//! same world.

mod common;

use common::*;
use shogun_lab::engine::Engine;
use shogun_lab::rules;

/// Loads the base pack with `code` appended to modifiers.lua; returns the
/// engine or the load errors.
fn with_lua(tag: &str, code: &str) -> Result<Engine, String> {
    let (pack, map) = copy_data(tag);
    let path = pack.join("modifiers.lua");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push('\n');
    text.push_str(code);
    std::fs::write(&path, text).unwrap();
    let rules = rules::load(&pack, &map).map_err(|d| d.to_string())?;
    Engine::new(rules).map_err(|d| d.to_string())
}

fn load_error(tag: &str, code: &str) -> String {
    match with_lua(tag, code) {
        Ok(_) => panic!("expected {code:?} to be refused"),
        Err(e) => e,
    }
}

#[test]
fn the_repl_lua_cannot_change_the_game() {
    let engine = engine();
    let st = started(&engine, 4, 1);
    let rt = engine.runtime();
    for code in [
        "game.pay = function() end",
        "game.pay = nil",
        "string.format = function() return 'x' end",
        "math.max = math.min",
        "table.insert = nil",
        "shogun.modifier_fn = nil",
        "RULES.players = nil",
        "MAP.provinces[1].name = 'x'",
        "getmetatable('').__index = {}",
    ] {
        assert!(rt.eval_readonly(&st, code).is_err(), "{code} was allowed");
    }
    // Existing globals cannot be replaced either (the first example
    // was `lua game.pay = ...`; `modify = ...` is the same class).
    for code in ["modify = function() end", "tostring = nil", "NARRATE = true", "game = {}", "pairs = next"] {
        let err = rt.eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains("cannot set global"), "{code}: {err}");
    }
    // Nothing changed: the functions still work as before.
    assert_eq!(rt.eval_readonly(&st, "return type(game.pay) .. string.format('%d', 3) .. math.max(1, 2)").unwrap(), "function32");
    assert_eq!(rt.eval_readonly(&st, "return ('%d'):format(4)").unwrap(), "4");
}

#[test]
fn the_globals_table_and_raw_access_are_out_of_reach() {
    let engine = engine();
    let st = started(&engine, 4, 1);
    let rt = engine.runtime();
    for code in ["return _G", "return rawset", "return rawget", "return next", "return rawequal", "return rawlen"] {
        let err = rt.eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains("undefined global"), "{code}: {err}");
    }
    for code in ["local e = _ENV return e", "_ENV = {}", "local function f() return _ENV end"] {
        let err = rt.eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains("_ENV"), "{code}: {err}");
    }
    // `local _ENV` is an ordinary local table: allowed, and harmless.
    assert_eq!(rt.eval_readonly(&st, "local _ENV = {x = 1} return x").unwrap(), "1");
}

#[test]
fn library_tables_and_rules_data_are_read_only_while_files_load() {
    for (tag, code) in [
        ("rules", "RULES.players = nil"),
        ("cards", "CARDS.actions[1].cost = 0"),
        ("map", "MAP.provinces[1].tax = 9"),
        ("string", "string.format = function() return '' end"),
        ("game", "game.pay = function() end"),
        ("builtin", "tostring = function() return '' end"),
        ("shogun", "shogun.replace = nil"),
    ] {
        let err = load_error(tag, code);
        assert!(err.contains("read-only") && err.contains("modifiers.lua"), "{code}: {err}");
    }
}

#[test]
fn a_rawset_saved_while_loading_does_not_exist() {
    let err = load_error("rawset", "local rs = rawset\nrs(RULES, 'players', 1)");
    assert!(err.contains("undefined global `rawset`"), "{err}");
    let err = load_error("next", "local n = next\nn({})");
    assert!(err.contains("undefined global `next`"), "{err}");
}

#[test]
fn file_level_state_that_outlives_a_call_is_refused_at_load() {
    // The counter: a file-level local changed by a handler.
    let err = load_error("counter", "local calls = 0\nshogun.modifier('count_calls', function(v) calls = calls + 1 return v end)");
    assert!(err.contains("modifiers.lua:") && err.contains("`calls`") && err.contains("no state between calls"), "{err}");
    // A nested function changing it, two levels down.
    let err = load_error("nested", "local last\nshogun.modifier('remember', function(v) local function f() last = v end f() return v end)");
    assert!(err.contains("`last`"), "{err}");
    // A global set inside a function.
    let err = load_error("global", "shogun.modifier('set_global', function(v) seen_value = v return v end)");
    assert!(err.contains("`seen_value`"), "{err}");
    // A table kept at file level is locked when the pack is sealed.
    let engine = with_lua("table", "local cache = {}\nfunction cache_put(k) cache[k] = true end").unwrap();
    let st = started(&engine, 4, 1);
    let err = engine.runtime().eval_readonly(&st, "cache_put('x')").unwrap_err();
    assert!(err.message.contains("read-only"), "{err}");
    // Locals of a handler's own body are per call and fine.
    with_lua("local", "shogun.modifier('per_call', function(v) local n = 0 local function f() n = n + 1 end f() return v + n - 1 end)").unwrap();
}

#[test]
fn metatables_cannot_be_changed_after_setmetatable() {
    let engine = engine();
    let st = started(&engine, 4, 1);
    let rt = engine.runtime();
    // `__mode` (or anything) added to the metatable afterwards has no effect.
    let code = "local mt = {} local t = setmetatable({}, mt) mt.__mode = 'k' mt.__index = function() return 'late' end return tostring(t.x) .. ' ' .. tostring(getmetatable(t) == mt)";
    assert_eq!(rt.eval_readonly(&st, code).unwrap(), "nil true");
    let err = rt.eval_readonly(&st, "setmetatable({}, {__mode = 'v'})").unwrap_err();
    assert!(err.message.contains("__gc and __mode"), "{err}");
    // Metatables still work as designed.
    assert_eq!(rt.eval_readonly(&st, "local C = {} C.__index = C function C.hi() return 'hi' end return setmetatable({}, C).hi()").unwrap(), "hi");
}

#[test]
fn no_address_reaches_a_script() {
    let engine = engine();
    let st = started(&engine, 4, 1);
    let rt = engine.runtime();
    let err = rt.eval_readonly(&st, "return string.format('%s %p', {}, {})").unwrap_err();
    assert!(err.message.contains("%p"), "{err}");
    assert!(rt.eval_readonly(&st, "return ('%5p'):format({})").is_err());
    assert_eq!(rt.eval_readonly(&st, "return string.format('%s %s %%p', {}, game.pay)").unwrap(), "table function %p");
    assert_eq!(rt.eval_readonly(&st, "return ('%s|%s'):format(setmetatable({}, {__name = 'x'}), string.len)").unwrap(), "table|function");
    assert_eq!(rt.eval_readonly(&st, "return tostring(setmetatable({}, {__name = 'x'}))").unwrap(), "table");
    assert_eq!(rt.eval_readonly(&st, "return tostring(setmetatable({}, {__tostring = function() return 'T' end}))").unwrap(), "T");
}
