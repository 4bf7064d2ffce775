//! Plain data between Lua and the game state: the data a script passes to
//! its continuation is kept in the state as JSON (nil, booleans, numbers,
//! strings, lists and string-keyed maps).

use mlua::{Lua, Value};
use serde_json::{Map, Number, Value as Json};

const MAX_DEPTH: usize = 16;

fn err(msg: String) -> mlua::Error {
    mlua::Error::RuntimeError(msg)
}

/// A Lua value as JSON. Tables with keys 1..n become lists, tables with
/// string keys maps; anything else (functions, mixed keys) is refused.
pub fn to_json(v: &Value, depth: usize) -> mlua::Result<Json> {
    if depth > MAX_DEPTH {
        return Err(err("game.ask: data nests too deeply".into()));
    }
    Ok(match v {
        Value::Nil => Json::Null,
        Value::Boolean(b) => Json::Bool(*b),
        Value::Integer(i) => Json::Number((*i).into()),
        Value::Number(n) => Number::from_f64(*n).map(Json::Number).ok_or_else(|| err(format!("game.ask: data holds the number {n}")))?,
        Value::String(s) => Json::String(s.to_str()?.to_string()),
        Value::Table(t) => {
            let len = t.raw_len();
            let mut count = 0usize;
            let mut string_keys = true;
            t.for_each(|k: Value, _: Value| {
                count += 1;
                string_keys &= matches!(k, Value::String(_));
                Ok(())
            })?;
            if count == 0 {
                Json::Array(Vec::new())
            } else if count == len {
                let mut out = Vec::with_capacity(len);
                for i in 1..=len {
                    out.push(to_json(&t.raw_get::<Value>(i)?, depth + 1)?);
                }
                Json::Array(out)
            } else if string_keys {
                let mut out = Map::new();
                t.for_each(|k: String, v: Value| {
                    out.insert(k, to_json(&v, depth + 1)?);
                    Ok(())
                })?;
                Json::Object(out)
            } else {
                return Err(err("game.ask: data tables must be lists or have string keys".into()));
            }
        }
        other => return Err(err(format!("game.ask: data cannot hold a {}", other.type_name()))),
    })
}

/// JSON back as a Lua value (fresh tables: the script may change them).
pub fn to_lua(lua: &Lua, v: &Json) -> mlua::Result<Value> {
    Ok(match v {
        Json::Null => Value::Nil,
        Json::Bool(b) => Value::Boolean(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Number(n.as_f64().unwrap_or(0.0)),
        },
        Json::String(s) => Value::String(lua.create_string(s)?),
        Json::Array(items) => {
            let t = lua.create_table_with_capacity(items.len(), 0)?;
            for (i, item) in items.iter().enumerate() {
                t.raw_set(i + 1, to_lua(lua, item)?)?;
            }
            Value::Table(t)
        }
        Json::Object(map) => {
            let t = lua.create_table_with_capacity(0, map.len())?;
            for (k, item) in map {
                t.raw_set(k.as_str(), to_lua(lua, item)?)?;
            }
            Value::Table(t)
        }
    })
}
