//! The REPL's `lua`: a chunk evaluated like a Lua REPL does (an expression,
//! else a statement), against a read-only view of the game, with `print`
//! to the REPL's output, every return value shown, tables pretty-printed
//! (through `__pairs`, so the sealed rules data shows too; depth, width
//! and cycles limited) and helpers by name: `seat('A')`, `province('Settsu')`.
//! The chunk cannot change the game: the host functions are read-only while
//! it runs, the state is a copy, and its bytecode may not set globals.
//! What one command shows, its printed lines and return values together,
//! is bounded in total (`Budget`): past a bound the output stops with a
//! note naming it.

use std::cell::{Cell, RefCell};
use std::collections::BinaryHeap;
use std::ffi::{c_int, c_void};
use std::rc::Rc;

use mlua::chunk::ChunkMode;
use mlua::{Function, Table, Value, ffi};

use super::{Lend, Runtime, ScriptError, bytecode};
use crate::core::GameState;

/// Tables print at most this deep ...
const DEPTH: usize = 8;
/// ... with at most this many entries each (rules tables are big) ...
const WIDTH: usize = 100;
/// ... and a table whose one-line form is longer goes on several lines.
const LINE: usize = 72;

// What one `lua` command may turn into text, its printed lines and every
// return value together (issue 23: a long string returned 3,000 times, or
// a table named 16 times on each of 8 levels, took gigabytes and minutes,
// copied path by path in Rust where the time limit never fires). Past any
// of these bounds the output stops with a note naming it; the command
// still succeeds and the game is unchanged. A page of rules data (`lua
// RULES`: 150 lines, 6 KB) is far inside them.

/// Values shown, keys included, counted by path: a table named many times
/// costs what all its paths cost.
const MAX_VALUES: usize = 10_000;
/// Bytes of text shown; a string longer than what is left is read only
/// that far, and the note gives its length.
const MAX_TEXT: usize = 1 << 20;
/// Lines shown (the printed ones and the values' own).
const MAX_LINES: usize = 10_000;
/// Table entries looked at: a table's first `WIDTH` entries in the defined
/// order are found among all of its entries, each time it is shown. A
/// string key counts one more for every `BYTES_PER_LOOK` of its bytes
/// (comparing it reads them), and so does every `ORDER_BYTES_PER_LOOK` of
/// text made to order keys that are tables (which is not shown, so it is
/// counted here, not as values and text; making it, escapes and all, costs
/// more than comparing). This bounds the host's work for one command:
/// nothing it does is not counted here or as values or text.
const MAX_LOOKED: usize = 1 << 20;
const BYTES_PER_LOOK: usize = 64;
const ORDER_BYTES_PER_LOOK: usize = 16;
/// The text that orders a key that is a table (or its value) is at most
/// this long: that much of what the key shows as (a string in it is read
/// only that far). Keys that show alike this far sort by Lua's traversal
/// order between themselves (a 1 MiB string in 60 keys made 6 bytes of
/// text for each of its bytes, 550 MB in all, for 15 s).
const ORDER_TEXT: usize = 4096;
/// Tables nest at most this deep while one value is printed, counting the
/// text made to order a table's keys (which starts its own `DEPTH`): a
/// chain of tables used as keys overflowed the stack.
const MAX_NESTING: usize = 2 * DEPTH;

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
    /// values, tab-separated, within the bounds of `Budget` (past one, a
    /// last line says which). `state` is not changed.
    pub fn eval_repl(&self, state: &GameState, code: &str) -> Result<String, ScriptError> {
        let mut copy = state.clone();
        let out = Rc::new(Output::default());
        self.shared.read_only.set(true);
        let result = (|| -> mlua::Result<()> {
            let env = self.repl_env(&out)?;
            let f = self.compile_repl(code, &env)?;
            let _lent = Lend::new(&self.shared, &mut copy);
            let run: Function = self.lua.load(RUN).set_name("=repl").set_mode(ChunkMode::Text).into_function()?;
            self.shared.guarded(|| {
                let values: Table = run.call((f, pack(&self.lua)?))?;
                if values.raw_get::<i64>("n")? > 0 {
                    out.line(&values)?;
                }
                Ok(())
            })
        })();
        self.shared.read_only.set(false);
        let mut scratch = self.shared.scratch.borrow_mut();
        scratch.ask = None;
        scratch.events.clear();
        match result {
            // A `print` past a bound stopped the chunk: what it showed stands.
            Err(e) if e.downcast_ref::<OutputCut>().is_some() && out.budget.is_cut() => {}
            Err(e) => {
                let mut e = ScriptError::from_lua(&e);
                // Its message may hold a traceback too (an error raised in a
                // function a value's printing called).
                for text in [&mut e.message, &mut e.traceback] {
                    if text.contains(RUN_FRAME) {
                        *text = text.replace(RUN_FRAME, "");
                    }
                }
                return Err(e);
            }
            Ok(()) => {}
        }
        Ok(out.budget.finish(out.text.take()))
    }

    /// The chunk's globals: `print`, `seat`, `province`, then the sealed
    /// globals (read through, never written: the bytecode check refuses it).
    fn repl_env(&self, out: &Rc<Output>) -> mlua::Result<Table> {
        let lua = &self.lua;
        let env = lua.create_table()?;
        let meta = lua.create_table()?;
        meta.raw_set("__index", lua.globals())?;
        env.set_metatable(Some(meta))?;
        let sink = out.clone();
        let print = lua.create_function(move |_, args: Table| {
            // Shown whole, counted, even when a value being shown calls it
            // (a `__pairs` that prints while its keys are ordered).
            let ordering = sink.budget.ordering.replace(0);
            let shown = sink.line(&args);
            sink.budget.ordering.set(ordering);
            shown?;
            // Past a bound nothing more shows: stop the chunk (a runaway
            // loop of prints ends here, not at the time limit).
            if sink.budget.is_cut() {
                return Err(mlua::Error::external(OutputCut));
            }
            Ok(())
        })?;
        // SAFETY: pushes a C closure over the sink (the argument, on the
        // stack `exec_raw` checked); only allocation may raise, which
        // `exec_raw` catches.
        let print: Function = unsafe { lua.exec_raw(print, |l| ffi::lua_pushcclosure(l, print_entry, 1))? };
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

/// Calls the chunk and packs what it returns into one table, so that the
/// values reach Rust one at a time (each shown and counted in turn), never
/// all at once: a chunk may return a million. The chunk is called through
/// an expression, not a name, so that tracebacks still call it the main
/// chunk; this one's own frame is taken out of them (`RUN_FRAME`).
const RUN: &str = "local _, pack = ... return pack((...)())";
const RUN_FRAME: &str = "\n\trepl:1: in main chunk";

/// `print`: its arguments packed into one table as `table.pack` does and
/// handed to the Rust function that shows them (upvalue 1), so that they
/// too reach Rust one at a time. A C function, so that the chunk's frame
/// stays in tracebacks (a Lua one would be called as a tail call).
unsafe extern "C-unwind" fn print_entry(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: Lua calls this with its arguments at 1..=n and at least
    // LUA_MINSTACK free slots (this uses two at a time); no Rust value is
    // alive here, so an error raised (out of memory, or the sink's own)
    // passes no destructor.
    unsafe {
        let n = ffi::lua_gettop(l);
        ffi::lua_createtable(l, n, 1);
        ffi::lua_rotate(l, 1, 1);
        for i in (1..=n).rev() {
            ffi::lua_rawseti(l, 1, ffi::lua_Integer::from(i));
        }
        ffi::lua_pushinteger(l, ffi::lua_Integer::from(n));
        ffi::lua_setfield(l, 1, c"n".as_ptr());
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(1));
        ffi::lua_rotate(l, 1, 1);
        ffi::lua_call(l, 1, 0);
    }
    0
}

/// `table.pack`.
fn pack(lua: &mlua::Lua) -> mlua::Result<Function> {
    lua.globals().get::<Table>("table")?.get("pack")
}

/// What a `print` past a bound raises: the chunk stops, and what was shown
/// is the command's output.
#[derive(Debug)]
struct OutputCut;

impl std::fmt::Display for OutputCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("output cut (the `lua` command shows no more)")
    }
}

impl std::error::Error for OutputCut {}

/// What one `lua` command shows, built as it runs: a line for each
/// `print`, then one of the return values, all within `budget`.
#[derive(Default)]
struct Output {
    budget: Budget,
    text: RefCell<String>,
    lines: Cell<usize>,
}

impl Output {
    /// `values` (from `table.pack`) as one line, tab-separated (strings as
    /// they are), as far as the budget goes.
    fn line(&self, values: &Table) -> mlua::Result<()> {
        let b = &self.budget;
        if b.is_cut() {
            return Ok(());
        }
        let mut line = String::new();
        for i in 0..values.raw_get::<i64>("n")?.max(0) {
            let v: Value = values.raw_get(i + 1)?;
            let shown = pretty(b, &v, &mut Vec::new(), 0)?;
            if shown.is_empty() && b.is_cut() {
                break;
            }
            if i > 0 {
                line.push('\t');
                b.frame(1, 0);
            }
            line.push_str(&shown);
            if b.is_cut() {
                break;
            }
        }
        if line.is_empty() && b.is_cut() {
            return Ok(());
        }
        let mut text = self.text.borrow_mut();
        if self.lines.get() > 0 {
            text.push('\n');
            b.frame(1, 1);
        }
        text.push_str(&line);
        self.lines.set(self.lines.get() + 1);
        Ok(())
    }
}

/// Which bound stopped the output.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cut {
    Values,
    /// In a string of this many bytes, or between values.
    Text(Option<usize>),
    Lines,
    Looked,
}

/// What one command has shown so far, against the bounds (`MAX_VALUES`
/// and the rest). Every value shown comes through here in the order it is
/// shown, which is a defined order (keys sorted, `KeyOrder`), so the same
/// value is cut at the same place on every run. Only the order of a
/// table's own entries while they are sorted follows Lua's traversal:
/// there only table entries looked at are counted, whose sum does not
/// depend on that order.
#[derive(Default)]
pub(super) struct Budget {
    values: Cell<usize>,
    text: Cell<usize>,
    newlines: Cell<usize>,
    looked: Cell<usize>,
    /// Above zero while making the text that orders a table's keys.
    ordering: Cell<usize>,
    /// Tables open, the ones being ordered included.
    nesting: Cell<usize>,
    /// While ordering: the bytes the text being made may still take
    /// (`ORDER_TEXT` at its start).
    room: Cell<usize>,
    /// While ordering: bytes made not yet counted as a look.
    made: Cell<usize>,
    cut: Cell<Option<Cut>>,
}

/// Undoes a `Budget` counter's increment when dropped.
pub(super) struct Leave<'a>(&'a Cell<usize>);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

fn enter(c: &Cell<usize>) -> Leave<'_> {
    c.set(c.get() + 1);
    Leave(c)
}

/// How a string is shown: as it is (a top-level value), quoted (inside a
/// table), or as a table key (bare when it is a name, else quoted).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Style {
    Plain,
    Quoted,
    Key,
}

impl Budget {
    pub(super) fn is_cut(&self) -> bool {
        self.cut.get().is_some()
    }

    /// Whether nothing more shows: a bound is met or, while ordering, the
    /// text that orders a key is full.
    pub(super) fn done(&self) -> bool {
        self.is_cut() || (self.ordering.get() > 0 && self.room.get() == 0)
    }

    /// The text `make` makes to order a key (or its value), within
    /// `ORDER_TEXT` bytes, each `ORDER_BYTES_PER_LOOK` of them counted as a look.
    /// `make` shows the value in the same context (open tables, indent) as
    /// it is shown in, so that two keys that sort alike show alike.
    pub(super) fn order_text(&self, make: impl FnOnce() -> String) -> String {
        let room = self.room.replace(ORDER_TEXT);
        let mut text = make();
        self.room.set(room);
        let mut end = text.len().min(ORDER_TEXT);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text
    }

    /// Records the first bound met; always false (nothing more shows).
    fn stop(&self, why: Cut) -> bool {
        if self.cut.get().is_none() {
            self.cut.set(Some(why));
        }
        false
    }

    /// One more value to show (one more look while ordering); false once a
    /// bound is met.
    pub(super) fn value(&self) -> bool {
        if self.is_cut() {
            return false;
        }
        if self.ordering.get() > 0 {
            return self.room.get() > 0 && self.look(1);
        }
        if self.values.get() >= MAX_VALUES {
            return self.stop(Cut::Values);
        }
        self.values.set(self.values.get() + 1);
        true
    }

    /// `n` more table entries looked at; false once a bound is met.
    fn look(&self, n: usize) -> bool {
        if self.is_cut() {
            return false;
        }
        let looked = self.looked.get().saturating_add(n);
        if looked > MAX_LOOKED {
            return self.stop(Cut::Looked);
        }
        self.looked.set(looked);
        true
    }

    /// Whether another table may open (`enter` it then), within
    /// `MAX_NESTING`.
    pub(super) fn may_nest(&self) -> bool {
        self.nesting.get() < MAX_NESTING
    }

    pub(super) fn enter(&self) -> Leave<'_> {
        enter(&self.nesting)
    }

    /// The bytes and line breaks shown so far (`frame` takes the difference).
    pub(super) fn mark(&self) -> (usize, usize) {
        (self.text.get(), self.newlines.get())
    }

    /// `text`, a value's own text, as shown: all of it, or as much as the
    /// bounds leave (the bound met recorded; `string` is the length of the
    /// string it comes from). While ordering, as much as the room left
    /// takes, its bytes counted as looks.
    pub(super) fn fit(&self, mut text: String, string: Option<usize>) -> String {
        if self.is_cut() {
            return String::new();
        }
        if self.ordering.get() > 0 {
            let mut end = text.len().min(self.room.get());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            self.room.set(if end < text.len() { 0 } else { self.room.get() - end });
            let made = self.made.get() + end;
            self.made.set(made % ORDER_BYTES_PER_LOOK);
            if !self.look(made / ORDER_BYTES_PER_LOOK) {
                return String::new();
            }
            return text;
        }
        let room = MAX_TEXT.saturating_sub(self.text.get());
        let lines = (MAX_LINES - 1).saturating_sub(self.newlines.get());
        let mut end = text.len();
        let mut why = None;
        if end > room {
            end = room;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            why = Some(Cut::Text(string));
        }
        if let Some((i, _)) = text[..end].match_indices('\n').nth(lines) {
            end = i;
            why = Some(Cut::Lines);
        }
        text.truncate(end);
        self.text.set(self.text.get() + end);
        self.newlines.set(self.newlines.get() + text.bytes().filter(|&c| c == b'\n').count());
        if let Some(why) = why {
            self.stop(why);
        }
        text
    }

    /// A string as shown in `style`, and whether it shows as a name. Only
    /// as much of it as the bounds leave is read (a long string is not
    /// copied whole to show its start; while ordering, as far as the room
    /// for the text that orders a key goes).
    pub(super) fn string(&self, s: &mlua::LuaString, style: Style) -> (String, bool) {
        let bytes = s.as_bytes();
        let len = bytes.len();
        // A few bytes more than room, so that the last character shown is
        // whole (what is read never shows shorter than it is).
        let room = if self.ordering.get() > 0 { self.room.get() } else { MAX_TEXT.saturating_sub(self.text.get()) };
        let take = len.min(room.saturating_add(4));
        let part = &bytes[..take];
        let name = style == Style::Key && is_name(part);
        let text = if name { String::from_utf8_lossy(part).into_owned() } else { escaped(&String::from_utf8_lossy(part), style, take < len, room) };
        let shown = self.fit(text, Some(len));
        if take < len && self.ordering.get() == 0 {
            self.stop(Cut::Text(Some(len)));
        }
        (shown, name)
    }

    /// A table's own text (braces, separators, indentation: `made` bytes
    /// with `breaks` line breaks beyond those of its entries), counted
    /// once it is made; the output is cut to the bounds at the end
    /// (`finish`), so this passes them by at most the open tables' frames.
    pub(super) fn frame(&self, made: usize, breaks: usize) {
        if self.ordering.get() > 0 || self.is_cut() {
            return;
        }
        self.text.set(self.text.get() + made);
        self.newlines.set(self.newlines.get() + breaks);
        if self.text.get() > MAX_TEXT {
            self.stop(Cut::Text(None));
        } else if self.newlines.get() > MAX_LINES - 1 {
            self.stop(Cut::Lines);
        }
    }

    /// Counts the text of a table made since `mark` as its frame: `made`
    /// less what its entries already counted.
    pub(super) fn frame_since(&self, mark: (usize, usize), made: &str) {
        let (text, breaks) = (self.text.get() - mark.0, self.newlines.get() - mark.1);
        let made_breaks = made.bytes().filter(|&c| c == b'\n').count();
        self.frame(made.len().saturating_sub(text), made_breaks.saturating_sub(breaks));
    }

    /// The output: `text` within `MAX_TEXT` bytes and `MAX_LINES` lines,
    /// then, if a bound was met, a line naming it.
    pub(super) fn finish(&self, mut text: String) -> String {
        let mut end = text.len().min(MAX_TEXT);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if let Some((i, _)) = text[..end].match_indices('\n').nth(MAX_LINES - 1) {
            end = i;
        }
        text.truncate(end);
        if let Some(why) = self.cut.get() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&match why {
                Cut::Values => format!("... output cut at {MAX_VALUES} values (each path to a table counts)"),
                Cut::Text(None) => format!("... output cut at {MAX_TEXT} bytes"),
                Cut::Text(Some(n)) => format!("... output cut at {MAX_TEXT} bytes, in a string of {n} bytes"),
                Cut::Lines => format!("... output cut at {MAX_LINES} lines"),
                Cut::Looked => format!("... output cut at {MAX_LOOKED} table entries looked at (each table shown is read whole to sort its keys)"),
            });
        }
        text
    }
}

/// A table's first entries (key, value) and how many more it has.
pub(super) type Entries = (Vec<(Value, Value)>, usize);

/// A `__pairs` is followed at most this far: past it the table shows that
/// it was not looked at further (how many more it has is not known).
const PAIRS_LOOK: usize = 100_000;

/// A table's entries through `__pairs` when it has one (the sealed data are
/// proxies whose contents only `__pairs` reaches, in sorted order), else
/// raw; the first `WIDTH` in the defined order (`first_entries`) kept,
/// the rest counted (up to `PAIRS_LOOK` through `__pairs`: past it, with
/// true). `None` when a bound is met first. `open` and `indent` are the table's (it is open): the keys are ordered
/// by what they show as there.
fn entries(b: &Budget, t: &Table, open: &[*const c_void], indent: usize) -> mlua::Result<Option<(Entries, bool)>> {
    let custom = t.metatable().and_then(|m| m.raw_get::<Option<Function>>("__pairs").ok().flatten());
    match custom {
        Some(pairs) => {
            let mut kept = Vec::new();
            let mut more = 0;
            let (next, state, mut key): (Function, Value, Value) = pairs.call(t.clone())?;
            for _ in 0..PAIRS_LOOK {
                if !b.look(1) {
                    return Ok(None);
                }
                let (k, v): (Value, Value) = next.call((state.clone(), key))?;
                if k.is_nil() {
                    return Ok(Some(((kept, more), false)));
                }
                key = k.clone();
                if kept.len() < WIDTH {
                    kept.push((k, v));
                } else {
                    more += 1;
                }
            }
            Ok(Some(((kept, more), true)))
        }
        None => Ok(first_entries(b, t, WIDTH, &|v| b.order_text(|| pretty(b, v, &mut open.to_vec(), indent + 1).unwrap_or_default()))?.map(|e| (e, false))),
    }
}

/// Where a key sorts when a table is printed: integers, then other
/// numbers, then strings (by bytes), booleans, and anything else by its
/// printed text and then its value's, each as it prints there (in the same
/// open tables, so that two keys that sort alike print alike, whatever
/// their addresses) and up to `ORDER_TEXT` bytes.
#[derive(PartialEq, PartialOrd)]
enum KeyOrder {
    Int(i64),
    Num(f64),
    Str(mlua::LuaString),
    Bool(bool),
    Other(String, String),
}

impl KeyOrder {
    fn of(k: &Value, v: &Value, text: &dyn Fn(&Value) -> String) -> KeyOrder {
        match k {
            Value::Integer(i) => KeyOrder::Int(*i),
            Value::Number(n) => KeyOrder::Num(*n),
            Value::String(s) => KeyOrder::Str(s.clone()),
            Value::Boolean(b) => KeyOrder::Bool(*b),
            other => KeyOrder::Other(text(other), text(v)),
        }
    }
}

/// A table entry ranked by its key's `KeyOrder`.
struct Ranked(KeyOrder, Value, Value);

impl PartialEq for Ranked {
    fn eq(&self, other: &Ranked) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Ranked) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Ranked) -> std::cmp::Ordering {
        self.0.partial_cmp(&other.0).unwrap_or(std::cmp::Ordering::Equal)
    }
}

/// A plain table's first `width` entries in the defined order (`KeyOrder`,
/// so which entries show does not depend on Lua's traversal order, which
/// follows addresses and string hashes), and how many more there are;
/// `None` when a bound is met first. Every entry is looked at (and
/// counted), and `text` orders keys that are neither numbers, strings nor
/// booleans: it runs while ordering, so what it shows counts as looks.
pub(super) fn first_entries(b: &Budget, t: &Table, width: usize, text: &dyn Fn(&Value) -> String) -> mlua::Result<Option<Entries>> {
    let _ordering = enter(&b.ordering);
    // The `width` first so far, the last of them on top.
    let mut kept: BinaryHeap<Ranked> = BinaryHeap::with_capacity(width + 1);
    let mut more = 0;
    for pair in t.clone().pairs::<Value, Value>() {
        let (k, v) = pair?;
        let long = if let Value::String(s) = &k { s.as_bytes().len() / BYTES_PER_LOOK } else { 0 };
        if !b.look(1 + long) {
            return Ok(None);
        }
        let order = KeyOrder::of(&k, &v, text);
        if b.is_cut() {
            return Ok(None);
        }
        kept.push(Ranked(order, k, v));
        if kept.len() > width {
            kept.pop();
            more += 1;
        }
    }
    Ok(Some((kept.into_sorted_vec().into_iter().map(|Ranked(_, k, v)| (k, v)).collect(), more)))
}

/// `text` as shown in `style` (control characters escaped; quoted unless
/// `Plain`), made a piece at a time and stopped once past `room` bytes
/// (escapes make up to 7 bytes of one: what would be cut is not made).
/// `cut`: `text` is only the start of the string (no closing quote).
fn escaped(text: &str, style: Style, cut: bool, room: usize) -> String {
    let quoted = style != Style::Plain;
    let mut out = String::with_capacity(text.len().min(room) + 2);
    if quoted {
        out.push('"');
    }
    let mut rest = text;
    while !rest.is_empty() {
        if out.len() > room {
            return out;
        }
        let mut end = rest.len().min(256);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let plain = crate::files::sanitize(&rest[..end]);
        if quoted {
            // The escapes of a piece are those of its characters (`{:?}`
            // escapes each alone): without its quotes it joins the others.
            let debug = format!("{plain:?}");
            out.push_str(&debug[1..debug.len() - 1]);
        } else {
            out.push_str(&plain);
        }
        rest = &rest[end..];
    }
    if quoted && !cut {
        out.push('"');
    }
    out
}

fn is_name(s: &[u8]) -> bool {
    let mut c = s.iter();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || *f == b'_') && c.all(|x| x.is_ascii_alphanumeric() || *x == b'_')
}

/// A value as the REPL prints it: strings quoted inside tables, tables as
/// Lua constructors with sorted keys (a sequence without keys), on several
/// indented lines when long; `{...}` past the depth, `<cycle>` for a table
/// already being printed. Addresses are never shown. As much as `b` leaves:
/// a table cut short ends in `...`, and nothing shows once a bound is met.
fn pretty(b: &Budget, v: &Value, open: &mut Vec<*const c_void>, indent: usize) -> mlua::Result<String> {
    if !b.value() {
        return Ok(String::new());
    }
    Ok(match v {
        Value::String(s) => b.string(s, if indent > 0 || !open.is_empty() { Style::Quoted } else { Style::Plain }).0,
        Value::Table(t) => {
            let id = t.to_pointer();
            if open.contains(&id) {
                return Ok(b.fit("<cycle>".into(), None));
            }
            if open.len() >= DEPTH || !b.may_nest() {
                return Ok(b.fit("{...}".into(), None));
            }
            open.push(id);
            let _in = b.enter();
            let mark = b.mark();
            let mut parts = Vec::new();
            // In the defined order (`KeyOrder`): integer keys first.
            match entries(b, t, open, indent)? {
                None => parts.push("...".to_string()),
                Some(((items, more), stopped)) => {
                    let sequence = items.iter().enumerate().all(|(i, (k, _))| matches!(k, Value::Integer(n) if *n == i as i64 + 1));
                    for (k, v) in &items {
                        let mut part = if sequence { String::new() } else { key(b, k, open, indent)? };
                        if !b.done() {
                            part.push_str(&pretty(b, v, open, indent + 1)?);
                        }
                        if !part.is_empty() {
                            parts.push(part);
                        }
                        if b.done() {
                            parts.push("...".into());
                            break;
                        }
                    }
                    if stopped && !b.done() {
                        parts.push(format!("... more: its __pairs was followed for {PAIRS_LOOK} entries and had not ended"));
                    } else if more > 0 && !b.done() {
                        parts.push(format!("... {more} more"));
                    }
                }
            }
            open.pop();
            let made = if parts.is_empty() {
                "{}".to_string()
            } else {
                let one = format!("{{ {} }}", parts.join(", "));
                if one.len() <= LINE && !one.contains('\n') {
                    one
                } else {
                    let pad = "  ".repeat(indent + 1);
                    format!("{{\n{pad}{}\n{}}}", parts.join(&format!(",\n{pad}")), "  ".repeat(indent))
                }
            };
            b.frame_since(mark, &made);
            made
        }
        Value::Nil => b.fit("nil".into(), None),
        Value::Boolean(x) => b.fit(x.to_string(), None),
        Value::Integer(i) => b.fit(i.to_string(), None),
        Value::Number(n) => b.fit(n.to_string(), None),
        other => b.fit(format!("<{}>", other.type_name()), None),
    })
}

/// A table key as shown before its value: `name = ` or `[key] = ` (only
/// what was shown of it when a bound is met inside it).
fn key(b: &Budget, k: &Value, open: &mut Vec<*const c_void>, indent: usize) -> mlua::Result<String> {
    let (text, name) = match k {
        Value::String(s) if b.value() => b.string(s, Style::Key),
        Value::String(_) => return Ok(String::new()),
        other => (pretty(b, other, open, indent + 1)?, false),
    };
    Ok(if b.done() {
        text
    } else if name {
        format!("{text} = ")
    } else {
        format!("[{text}] = ")
    })
}
