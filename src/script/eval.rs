//! The REPL's `lua`: a chunk evaluated like a Lua REPL does (an expression,
//! else a statement), against a read-only view of the game, with `print`
//! to the REPL's output, every return value shown, tables pretty-printed
//! (through `__pairs`, so the sealed rules data shows too; depth, width
//! and cycles limited) and helpers by name: `seat('A')`, `province('Settsu')`.
//! The chunk cannot change the game: the host functions are read-only while
//! it runs, the state is a copy, and its bytecode may not set globals.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::chunk::ChunkMode;
use mlua::{Function, MultiValue, Table, Value};

use super::{Lend, Runtime, ScriptError, bytecode};
use crate::core::GameState;

/// Tables print at most this deep ...
const DEPTH: usize = 8;
/// ... with at most this many entries each (rules tables are big) ...
const WIDTH: usize = 100;
/// ... and a table whose one-line form is longer goes on several lines.
const LINE: usize = 72;

/// The helpers, as Lua over the read-only host API (so they see exactly what
/// the viewer's state holds).
const HELPERS: &str = r#"
local function seat_index(s)
  if math.type(s) == "integer" and s >= 1 and s <= game.seats() then return s end
  for i = 1, game.seats() do
    local d = RULES.seats[i]
    if d.name:lower() == tostring(s):lower() or d.colour:lower() == tostring(s):lower() then return i end
  end
  error("no seat `" .. tostring(s) .. "` (a name such as 'A', a colour, or 1.." .. game.seats() .. ")", 3)
end
local function province_index(p)
  if math.type(p) == "integer" and p >= 1 and p <= #MAP.provinces then return p end
  local i = MAP.by_name[p]
  if i then return i end
  for j = 1, #MAP.provinces do
    if MAP.provinces[j].name:lower() == tostring(p):lower() then return j end
  end
  error("no province `" .. tostring(p) .. "` (a name such as 'Settsu', or 1.." .. #MAP.provinces .. ")", 3)
end
local function names(...)
  local t = {}
  for _, p in ipairs({ ... }) do t[#t + 1] = MAP.provinces[p].name end
  return t
end
local function seat(s)
  local i = seat_index(s)
  local d = RULES.seats[i]
  local sp = game.special(i)
  return {
    index = i, name = d.name, colour = d.colour, supply = game.supply(i), chests = game.chests(i),
    rice = game.rice(i), points = game.points(i), special = sp and CARDS.specials[sp].name or nil,
    provinces = names(game.provinces_of(i)),
  }
end
local function province(p)
  local i = province_index(p)
  local m = MAP.provinces[i]
  local owner = game.owner(i)
  local built = {}
  for k = 1, #RULES.components.buildings do
    local id = RULES.components.buildings[k].id
    if game.has(i, id) then built[#built + 1] = id end
  end
  local near = {}
  for _, n in ipairs(m.neighbours) do near[#near + 1] = MAP.provinces[n].name end
  return {
    index = i, name = m.name, region = m.region_name, in_play = game.in_play(i),
    owner = owner and RULES.seats[owner].name or nil, armies = game.armies(i), unrest = game.unrest(i),
    buildings = built, tax = m.tax, rice = m.rice, spaces = m.spaces, neighbours = near,
  }
end
return seat, province
"#;

impl Runtime {
    /// Evaluates `code` as the REPL's `lua` command does (see the module
    /// docs) and returns what to print: the printed lines, then the return
    /// values, tab-separated. `state` is not changed.
    pub fn eval_repl(&self, state: &GameState, code: &str) -> Result<String, ScriptError> {
        let mut copy = state.clone();
        let printed = Rc::new(RefCell::new(Vec::<String>::new()));
        self.shared.read_only.set(true);
        let result = (|| -> mlua::Result<String> {
            let env = self.repl_env(&printed)?;
            let f = self.compile_repl(code, &env)?;
            let _lent = Lend::new(&self.shared, &mut copy);
            self.shared.guarded(|| {
                let values: MultiValue = f.call(())?;
                let shown: Vec<String> = values.iter().map(|v| pretty(v, &mut Vec::new(), 0)).collect::<mlua::Result<_>>()?;
                let mut out = printed.borrow().clone();
                if !shown.is_empty() {
                    out.push(shown.join("\t"));
                }
                Ok(out.join("\n"))
            })
        })();
        self.shared.read_only.set(false);
        let mut scratch = self.shared.scratch.borrow_mut();
        scratch.ask = None;
        scratch.events.clear();
        result.map_err(|e| ScriptError::from_lua(&e))
    }

    /// The chunk's globals: `print`, `seat`, `province`, then the sealed
    /// globals (read through, never written: the bytecode check refuses it).
    fn repl_env(&self, printed: &Rc<RefCell<Vec<String>>>) -> mlua::Result<Table> {
        let lua = &self.lua;
        let env = lua.create_table()?;
        let meta = lua.create_table()?;
        meta.raw_set("__index", lua.globals())?;
        env.set_metatable(Some(meta))?;
        let sink = printed.clone();
        let print = lua.create_function(move |_, args: MultiValue| {
            let parts: Vec<String> = args
                .iter()
                .map(|v| if let Value::String(s) = v { Ok(crate::files::sanitize(&s.to_string_lossy())) } else { pretty(v, &mut Vec::new(), 0) })
                .collect::<mlua::Result<_>>()?;
            let mut lines = sink.borrow_mut();
            // A runaway loop of prints stops at the time limit; cap the memory too.
            if lines.len() >= 10_000 {
                return Err(mlua::Error::RuntimeError("print: more than 10000 lines".into()));
            }
            lines.push(parts.join("\t"));
            Ok(())
        })?;
        env.raw_set("print", print)?;
        let (seat, province): (Function, Function) =
            lua.load(HELPERS).set_name("=repl helpers").set_mode(ChunkMode::Text).set_environment(env.clone()).into_function()?.call(())?;
        env.raw_set("seat", seat)?;
        env.raw_set("province", province)?;
        Ok(env)
    }

    /// `return CODE` when that compiles (an expression), else `CODE`; either
    /// way checked like every chunk typed after sealing.
    fn compile_repl(&self, code: &str, env: &Table) -> mlua::Result<Function> {
        let load = |text: &str| self.lua.load(text.to_string()).set_name("=lua").set_mode(ChunkMode::Text).set_environment(env.clone()).into_function();
        let f = load(&format!("return {code}")).or_else(|_| load(code))?;
        match bytecode::check(&f.dump(false), true).map_err(mlua::Error::RuntimeError)?.first() {
            Some(r) => Err(mlua::Error::RuntimeError(format!("lua:{}: {}", r.line, r.message))),
            None => Ok(f),
        }
    }
}

/// A table's entries through `__pairs` when it has one (the sealed data are
/// proxies whose contents only `__pairs` reaches, in sorted order), else
/// raw; the first `WIDTH` in the defined order (`first_entries`) kept,
/// the rest counted (up to a bound).
fn entries(t: &Table) -> mlua::Result<(Vec<(Value, Value)>, usize)> {
    let custom = t.metatable().and_then(|m| m.raw_get::<Option<Function>>("__pairs").ok().flatten());
    match custom {
        Some(pairs) => {
            let mut kept = Vec::new();
            let mut more = 0;
            let (next, state, mut key): (Function, Value, Value) = pairs.call(t.clone())?;
            for _ in 0..100_000 {
                let (k, v): (Value, Value) = next.call((state.clone(), key))?;
                if k.is_nil() {
                    break;
                }
                key = k.clone();
                if kept.len() < WIDTH {
                    kept.push((k, v));
                } else {
                    more += 1;
                }
            }
            Ok((kept, more))
        }
        None => first_entries(t, WIDTH, &|v| pretty(v, &mut Vec::new(), 0).unwrap_or_default()),
    }
}

/// Where a key sorts when a table is printed: integers, then other
/// numbers, then strings (by bytes), booleans, and anything else by its
/// printed text and then its value's (two such keys that print alike
/// print in the same order whatever their addresses).
#[derive(PartialEq, PartialOrd)]
enum KeyOrder {
    Int(i64),
    Num(f64),
    Str(Vec<u8>),
    Bool(bool),
    Other(String, String),
}

impl KeyOrder {
    fn of(k: &Value, v: &Value, text: &dyn Fn(&Value) -> String) -> KeyOrder {
        match k {
            Value::Integer(i) => KeyOrder::Int(*i),
            Value::Number(n) => KeyOrder::Num(*n),
            Value::String(s) => KeyOrder::Str(s.as_bytes().to_vec()),
            Value::Boolean(b) => KeyOrder::Bool(*b),
            other => KeyOrder::Other(text(other), text(v)),
        }
    }

    fn cmp(&self, other: &KeyOrder) -> std::cmp::Ordering {
        self.partial_cmp(other).unwrap_or(std::cmp::Ordering::Equal)
    }
}

/// A plain table's first `width` entries in the defined order (`KeyOrder`,
/// so which entries show does not depend on Lua's traversal order, which
/// follows addresses and string hashes), and how many more there are.
pub(super) fn first_entries(t: &Table, width: usize, text: &dyn Fn(&Value) -> String) -> mlua::Result<(Vec<(Value, Value)>, usize)> {
    let mut kept: Vec<(KeyOrder, Value, Value)> = Vec::new();
    let mut more = 0;
    for pair in t.clone().pairs::<Value, Value>() {
        let (k, v) = pair?;
        let order = KeyOrder::of(&k, &v, text);
        let at = kept.partition_point(|(o, _, _)| o.cmp(&order).is_le());
        if at < width {
            kept.insert(at, (order, k, v));
        }
        if kept.len() > width {
            kept.pop();
            more += 1;
        } else if at >= width {
            more += 1;
        }
    }
    Ok((kept.into_iter().map(|(_, k, v)| (k, v)).collect(), more))
}

fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// A value as the REPL prints it: strings quoted inside tables, tables as
/// Lua constructors with sorted keys (a sequence without keys), on several
/// indented lines when long; `{...}` past the depth, `<cycle>` for a table
/// already being printed. Addresses are never shown.
fn pretty(v: &Value, open: &mut Vec<*const std::ffi::c_void>, indent: usize) -> mlua::Result<String> {
    Ok(match v {
        Value::String(s) if indent > 0 || !open.is_empty() => format!("{:?}", crate::files::sanitize(&s.to_string_lossy())),
        Value::String(s) => crate::files::sanitize(&s.to_string_lossy()),
        Value::Table(t) => {
            let id = t.to_pointer();
            if open.contains(&id) {
                return Ok("<cycle>".into());
            }
            if open.len() >= DEPTH {
                return Ok("{...}".into());
            }
            open.push(id);
            // In the defined order (`KeyOrder`): integer keys first.
            let (items, more) = entries(t)?;
            let sequence = items.iter().enumerate().all(|(i, (k, _))| matches!(k, Value::Integer(n) if *n == i as i64 + 1));
            let mut parts = Vec::new();
            for (k, v) in &items {
                let value = pretty(v, open, indent + 1)?;
                parts.push(if sequence {
                    value
                } else {
                    match k {
                        Value::String(s) if is_name(&s.to_string_lossy()) => format!("{} = {value}", s.to_string_lossy()),
                        _ => format!("[{}] = {value}", pretty(k, open, indent + 1)?),
                    }
                });
            }
            open.pop();
            if more > 0 {
                parts.push(format!("... {more} more"));
            }
            if parts.is_empty() {
                return Ok("{}".into());
            }
            let one = format!("{{ {} }}", parts.join(", "));
            if one.len() <= LINE && !one.contains('\n') {
                one
            } else {
                let pad = "  ".repeat(indent + 1);
                format!("{{\n{pad}{}\n{}}}", parts.join(&format!(",\n{pad}")), "  ".repeat(indent))
            }
        }
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        other => format!("<{}>", other.type_name()),
    })
}
