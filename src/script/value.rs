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
            // One pass over the table, then decide what it is.
            let mut pairs: Vec<(Value, Value)> = Vec::new();
            t.for_each(|k: Value, v: Value| {
                pairs.push((k, v));
                Ok(())
            })?;
            let len = t.raw_len();
            if pairs.is_empty() {
                Json::Array(Vec::new())
            } else if pairs.len() == len {
                let mut out = vec![Json::Null; len];
                for (k, v) in &pairs {
                    match k {
                        Value::Integer(i) if *i >= 1 && (*i as usize) <= len => out[*i as usize - 1] = to_json(v, depth + 1)?,
                        _ => return Err(err("game.ask: data tables must be lists or have string keys".into())),
                    }
                }
                Json::Array(out)
            } else {
                let mut out = Map::new();
                for (k, v) in &pairs {
                    let Value::String(k) = k else {
                        return Err(err("game.ask: data tables must be lists or have string keys".into()));
                    };
                    out.insert(k.to_str()?.to_string(), to_json(v, depth + 1)?);
                }
                Json::Object(out)
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
        Json::Array(items) => Value::Table(lua.create_sequence_from(items.iter().map(|i| to_lua(lua, i)).collect::<mlua::Result<Vec<_>>>()?)?),
        Json::Object(map) => {
            let pairs = map.iter().map(|(k, v)| Ok((k.as_str(), to_lua(lua, v)?))).collect::<mlua::Result<Vec<_>>>()?;
            Value::Table(lua.create_table_from(pairs)?)
        }
    })
}
