//! Plain data between Lua and the game state: the data a script passes to
//! its continuation is kept in the state as JSON (nil, booleans, numbers,
//! strings, lists and string-keyed maps).
//!
//! Both directions work on the Lua stack directly: `read` from a host
//! function's own stack (`game.ask`), `to_lua` inside one protected call.
//! Going through mlua values cost a protected call and a reference slot
//! per table and string, which was ~9% of a game.

use std::ffi::c_int;

use mlua::{Lua, Value, ffi};
use serde_json::{Map, Number, Value as Json};

const MAX_DEPTH: usize = 16;

fn err(msg: String) -> mlua::Error {
    mlua::Error::RuntimeError(msg)
}

const NOT_PLAIN: &str = "game.ask: data tables must be lists or have string keys";

fn number(n: f64) -> mlua::Result<Json> {
    Number::from_f64(n).map(Json::Number).ok_or_else(|| err(format!("game.ask: data holds the number {n}")))
}

/// The string at `idx` (which must be a string), as UTF-8.
unsafe fn string_at(state: *mut ffi::lua_State, idx: c_int) -> mlua::Result<String> {
    let mut len = 0usize;
    let p = unsafe { ffi::lua_tolstring(state, idx, &mut len) };
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map(str::to_string).map_err(|_| err("game.ask: data holds a string that is not UTF-8".into()))
}

/// The value at stack index `idx` (absolute) as JSON. Tables with keys
/// 1..n become lists, tables with string keys maps; anything else
/// (functions, mixed keys) is refused. Raises no Lua error and leaves the
/// stack as it found it.
pub(super) unsafe fn read(state: *mut ffi::lua_State, idx: c_int, depth: usize) -> mlua::Result<Json> {
    if depth > MAX_DEPTH {
        return Err(err("game.ask: data nests too deeply".into()));
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
                    return Err(err("game.ask: data nests too deeply".into()));
                }
                // One pass to count, then decide what the table is.
                let mut pairs = 0usize;
                ffi::lua_pushnil(state);
                while ffi::lua_next(state, idx) != 0 {
                    pairs += 1;
                    ffi::lua_settop(state, -2);
                }
                let len = ffi::lua_rawlen(state, idx);
                if pairs == 0 {
                    Json::Array(Vec::new())
                } else if pairs == len {
                    let mut out = vec![Json::Null; len];
                    ffi::lua_pushnil(state);
                    while ffi::lua_next(state, idx) != 0 {
                        let top = ffi::lua_gettop(state);
                        let key = (ffi::lua_type(state, top - 1) == ffi::LUA_TNUMBER && ffi::lua_isinteger(state, top - 1) != 0)
                            .then(|| ffi::lua_tointeger(state, top - 1))
                            .filter(|&i| i >= 1 && (i as usize) <= len);
                        let Some(i) = key else {
                            ffi::lua_settop(state, top - 2);
                            return Err(err(NOT_PLAIN.into()));
                        };
                        match read(state, top, depth + 1) {
                            Ok(v) => out[i as usize - 1] = v,
                            Err(e) => {
                                ffi::lua_settop(state, top - 2);
                                return Err(e);
                            }
                        }
                        ffi::lua_settop(state, top - 1);
                    }
                    Json::Array(out)
                } else {
                    let mut out = Map::new();
                    ffi::lua_pushnil(state);
                    while ffi::lua_next(state, idx) != 0 {
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
                    Json::Object(out)
                }
            }
            ffi::LUA_TFUNCTION => return Err(err("game.ask: data cannot hold a function".into())),
            ffi::LUA_TTHREAD => return Err(err("game.ask: data cannot hold a thread".into())),
            ffi::LUA_TLIGHTUSERDATA => return Err(err("game.ask: data cannot hold a lightuserdata".into())),
            _ => return Err(err("game.ask: data cannot hold a userdata".into())),
        })
    }
}

/// JSON back as a Lua value (fresh tables: the script may change them).
pub fn to_lua(lua: &Lua, v: &Json) -> mlua::Result<Value> {
    match v {
        Json::Array(_) | Json::Object(_) => {}
        Json::Null => return Ok(Value::Nil),
        Json::Bool(b) => return Ok(Value::Boolean(*b)),
        Json::Number(n) => return Ok(number_value(n)),
        Json::String(s) => return Ok(Value::String(lua.create_string(s)?)),
    }
    // SAFETY: the closure only borrows `v`; an allocation error raised by
    // the pushes unwinds to exec_raw's protected call without skipping any
    // destructor.
    unsafe { lua.exec_raw::<Value>((), |state| push(state, v)) }
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
