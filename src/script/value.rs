//! Plain data between Lua and the game state: the data a script passes to
//! its continuation is kept in the state as JSON (nil, booleans, numbers,
//! strings, lists and string-keyed maps).
//!
//! Both directions work on the Lua stack directly: `read` from a host
//! function's own stack (`game.ask`), `push` inside the continuation's call
//! (`Continue`).
//! Going through mlua values cost a protected call and a reference slot
//! per table and string, which was ~9% of a game.

use std::ffi::c_int;

use mlua::{Function, LightUserData, Lua, Value, ffi};

use crate::core::Seat;
use serde_json::{Map, Number, Value as Json};

const MAX_DEPTH: usize = 16;

fn err(msg: String) -> mlua::Error {
    mlua::Error::RuntimeError(msg)
}

const NOT_PLAIN: &str = "data tables must be lists or have string keys";

fn number(n: f64) -> mlua::Result<Json> {
    Number::from_f64(n).map(Json::Number).ok_or_else(|| err(format!("data holds the number {n}")))
}

/// The string at `idx` (which must be a string), as UTF-8.
unsafe fn string_at(state: *mut ffi::lua_State, idx: c_int) -> mlua::Result<String> {
    let mut len = 0usize;
    let p = unsafe { ffi::lua_tolstring(state, idx, &mut len) };
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map(str::to_string).map_err(|_| err("data holds a string that is not UTF-8".into()))
}

/// The value at stack index `idx` (absolute) as JSON. Tables with keys
/// 1..n become lists, tables with string keys maps; anything else
/// (functions, mixed keys) is refused. Raises no Lua error and leaves the
/// stack as it found it.
pub(super) unsafe fn read(state: *mut ffi::lua_State, idx: c_int, depth: usize) -> mlua::Result<Json> {
    if depth > MAX_DEPTH {
        return Err(err("data nests too deeply".into()));
    }
    unsafe {
        Ok(match ffi::lua_type(state, idx) {
            ffi::LUA_TNIL => Json::Null,
            ffi::LUA_TBOOLEAN => Json::Bool(ffi::lua_toboolean(state, idx) != 0),
            ffi::LUA_TNUMBER => {
                if ffi::lua_isinteger(state, idx) != 0 {
                    Json::Number(ffi::lua_tointeger(state, idx).into())
                } else {
                    number(ffi::lua_tonumber(state, idx))?
                }
            }
            ffi::LUA_TSTRING => Json::String(string_at(state, idx)?),
            ffi::LUA_TTABLE => {
                if ffi::lua_checkstack(state, 4) == 0 {
                    return Err(err("data nests too deeply".into()));
                }
                let len = ffi::lua_rawlen(state, idx);
                // A border far past what a list of plain data holds may
                // belong to a sparse table: count its entries before
                // making room for `len` of them.
                if len > ONE_PASS_MAX && count(state, idx) != len {
                    return read_map(state, idx, depth);
                }
                if len > 0
                    && let Some(list) = read_list(state, idx, len, depth)?
                {
                    return Ok(list);
                }
                read_map(state, idx, depth)?
            }
            ffi::LUA_TFUNCTION => return Err(err("data cannot hold a function".into())),
            ffi::LUA_TTHREAD => return Err(err("data cannot hold a thread".into())),
            ffi::LUA_TLIGHTUSERDATA => return Err(err("data cannot hold a lightuserdata".into())),
            _ => return Err(err("data cannot hold a userdata".into())),
        })
    }
}

/// Lists up to this long are read in one traversal (see `read_list`).
const ONE_PASS_MAX: usize = 1024;

/// How many entries the table at `idx` has.
unsafe fn count(state: *mut ffi::lua_State, idx: c_int) -> usize {
    let mut pairs = 0usize;
    unsafe {
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            pairs += 1;
            ffi::lua_settop(state, -2);
        }
    }
    pairs
}

/// The table at `idx` (border `len` > 0) as a list, in one traversal.
/// A table is a list when it has exactly `len` entries; then any key
/// outside 1..=len, or a value that cannot be read, is its error. When it
/// is not (`Ok(None)`), it is read as a map, which refuses its integer
/// keys: the same answers as counting the entries first.
unsafe fn read_list(state: *mut ffi::lua_State, idx: c_int, len: usize, depth: usize) -> mlua::Result<Option<Json>> {
    unsafe {
        let mut out = vec![Json::Null; len];
        let mut pairs = 0usize;
        // The first thing wrong, kept while the rest is counted.
        let mut wrong: Option<mlua::Error> = None;
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            pairs += 1;
            let top = ffi::lua_gettop(state);
            if wrong.is_none() {
                let key = (ffi::lua_type(state, top - 1) == ffi::LUA_TNUMBER && ffi::lua_isinteger(state, top - 1) != 0)
                    .then(|| ffi::lua_tointeger(state, top - 1))
                    .filter(|&i| i >= 1 && (i as usize) <= len);
                match key {
                    None => wrong = Some(err(NOT_PLAIN.into())),
                    Some(i) => match read(state, top, depth + 1) {
                        Ok(v) => out[i as usize - 1] = v,
                        Err(e) => wrong = Some(e),
                    },
                }
            }
            ffi::lua_settop(state, top - 1);
        }
        if pairs != len {
            return Ok(None);
        }
        match wrong {
            Some(e) => Err(e),
            None => Ok(Some(Json::Array(out))),
        }
    }
}

/// The table at `idx` as a map with string keys (an empty table is an
/// empty list).
unsafe fn read_map(state: *mut ffi::lua_State, idx: c_int, depth: usize) -> mlua::Result<Json> {
    unsafe {
        let mut out = Map::new();
        let mut any = false;
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            any = true;
            let top = ffi::lua_gettop(state);
            let entry = if ffi::lua_type(state, top - 1) != ffi::LUA_TSTRING {
                Err(err(NOT_PLAIN.into()))
            } else {
                string_at(state, top - 1).and_then(|k| Ok((k, read(state, top, depth + 1)?)))
            };
            match entry {
                Ok((k, v)) => {
                    out.insert(k, v);
                }
                Err(e) => {
                    ffi::lua_settop(state, top - 2);
                    return Err(e);
                }
            }
            ffi::lua_settop(state, top - 1);
        }
        Ok(if any { Json::Object(out) } else { Json::Array(Vec::new()) })
    }
}

/// Calls a continuation `f(seat, choice, data)`, with `data` made from
/// its JSON inside the call: the tables are built while Lua runs, where an
/// allocation error under the memory limit is an ordinary error of the
/// call (made from Rust before the call, each would need a protected call
/// of its own).
pub(super) struct Continue(Function);

/// The last line of a traceback through `Continue`: its own frame, which
/// `Continue::call` takes out so that errors read as a direct call's.
const OWN_FRAME: &str = "\n\t[C]: in ?";

impl Continue {
    pub(super) fn new(lua: &Lua) -> mlua::Result<Continue> {
        // SAFETY: `continue_with` follows the C API's rules (see there).
        Ok(Continue(unsafe { lua.create_c_function(continue_with)? }))
    }

    /// Calls `f(seat, choice, data)`. Lua never sees this function or the
    /// pointer it passes: scripts cannot call it.
    pub(super) fn call(&self, f: &Function, seat: Seat, choice: Value, data: &Json) -> mlua::Result<()> {
        let ptr = LightUserData(data as *const Json as *mut std::ffi::c_void);
        self.0.call::<()>((f, seat, choice, ptr)).map_err(|e| match e {
            mlua::Error::RuntimeError(s) if s.ends_with(OWN_FRAME) => mlua::Error::RuntimeError(s[..s.len() - OWN_FRAME.len()].to_string()),
            mlua::Error::CallbackError { traceback, cause } if traceback.ends_with(OWN_FRAME) => {
                mlua::Error::CallbackError { traceback: traceback[..traceback.len() - OWN_FRAME.len()].to_string(), cause }
            }
            other => other,
        })
    }
}

/// Arguments: the continuation, the seat, the choice and a pointer to the
/// JSON data (valid for the call: `Continue::call` borrows it).
unsafe extern "C-unwind" fn continue_with(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: the fourth argument is the pointer `Continue::call` passed.
    // Nothing here owns anything, so an error raised by the pushes (memory)
    // or by the continuation unwinds past this frame without skipping a
    // destructor.
    unsafe {
        let data = &*(ffi::lua_touserdata(state, 4) as *const Json);
        ffi::lua_settop(state, 3);
        push(state, data);
        ffi::lua_call(state, 3, 0);
    }
    0
}

fn number_value(n: &Number) -> Value {
    match n.as_i64() {
        Some(i) => Value::Integer(i),
        None => Value::Number(n.as_f64().unwrap_or(0.0)),
    }
}

unsafe fn push(state: *mut ffi::lua_State, v: &Json) {
    unsafe {
        ffi::luaL_checkstack(state, 3, std::ptr::null());
        match v {
            Json::Null => ffi::lua_pushnil(state),
            Json::Bool(b) => ffi::lua_pushboolean(state, c_int::from(*b)),
            Json::Number(n) => match number_value(n) {
                Value::Integer(i) => ffi::lua_pushinteger(state, i),
                Value::Number(f) => ffi::lua_pushnumber(state, f),
                _ => unreachable!(),
            },
            Json::String(s) => {
                ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
            }
            Json::Array(items) => {
                ffi::lua_createtable(state, items.len().min(c_int::MAX as usize) as c_int, 0);
                for (i, item) in items.iter().enumerate() {
                    push(state, item);
                    ffi::lua_rawseti(state, -2, i as ffi::lua_Integer + 1);
                }
            }
            Json::Object(map) => {
                ffi::lua_createtable(state, 0, map.len().min(c_int::MAX as usize) as c_int);
                for (k, item) in map {
                    ffi::lua_pushlstring(state, k.as_ptr().cast(), k.len());
                    push(state, item);
                    ffi::lua_rawset(state, -3);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `read` makes of the value a chunk returns.
    fn read_of(code: &str) -> Result<String, String> {
        let lua = Lua::new();
        let v: Value = lua.load(code).eval().unwrap();
        let mut out = None;
        // SAFETY: `read` raises nothing and leaves the stack as it found it.
        unsafe {
            lua.exec_raw::<()>(v, |l| {
                let top = ffi::lua_gettop(l);
                out = Some(read(l, top, 0));
                assert_eq!(ffi::lua_gettop(l), top, "the stack is as it was");
            })
        }
        .unwrap();
        out.unwrap().map(|j| j.to_string()).map_err(|e| e.to_string())
    }

    #[test]
    fn lists_maps_and_nesting_read_as_json() {
        assert_eq!(read_of("return {3, 1, 2}").unwrap(), "[3,1,2]");
        assert_eq!(read_of("return {from = 3, n = 2}").unwrap(), r#"{"from":3,"n":2}"#);
        assert_eq!(read_of("return {}").unwrap(), "[]");
        assert_eq!(read_of("return {[2] = 'b', [1] = 'a'}").unwrap(), r#"["a","b"]"#);
        assert_eq!(
            read_of("return {queue = {{seat = 1, provinces = {4, 5}, extra = 0.5}}, ok = true}").unwrap(),
            r#"{"ok":true,"queue":[{"extra":0.5,"provinces":[4,5],"seat":1}]}"#
        );
        // Longer than one traversal reads at once: counted first.
        let long = read_of("local t = {} for i = 1, 3000 do t[i] = i end return t").unwrap();
        assert!(long.starts_with("[1,2,3,") && long.ends_with(",2999,3000]"), "{long}");
    }

    #[test]
    fn mixed_sparse_and_unplain_tables_are_refused() {
        for code in [
            "return {1, 2, x = 3}",
            "return {x = 1, [1] = 2}",
            "return {[1] = 1, [3] = 3}",
            "return {[2] = 1}",
            "return {[1.5] = 1}",
            // A border far out with few entries: refused without making room for it.
            "local t = {} for i = 0, 50 do t[1 << i] = i end return t",
            "local t = {} for i = 1, 2000 do t[i] = i end t.x = 1 return t",
        ] {
            assert!(read_of(code).unwrap_err().ends_with(NOT_PLAIN), "{code}");
        }
        assert!(read_of("return {1, function() end}").unwrap_err().contains("cannot hold a function"));
        assert!(read_of("return {a = {b = 0/0}}").unwrap_err().contains("data holds the number"));
        let deep = format!("return {}1{}", "{".repeat(20), "}".repeat(20));
        assert!(read_of(&deep).unwrap_err().contains("nests too deeply"));
    }
}
