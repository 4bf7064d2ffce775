//! Plain data between Lua and the game state: the data a script passes to
//! its continuation (nil, booleans, numbers, strings, lists and
//! string-keyed maps).
//!
//! All of it works on the Lua stack directly: `read` from a
//! host function's own stack (`game.ask`), `push` inside the continuation's
//! call (`Continue`). Going through mlua values cost a protected call and
//! a reference slot per table and string.

use std::cell::RefCell;
use std::ffi::c_int;

use mlua::{Function, LightUserData, Lua, ffi};

use super::api::{MAX_DATA_TEXT, MAX_DATA_VALUES};
use crate::core::data::{AskData, Builder, NodeRef, Scalar};
use crate::core::{ActionContext, Seat};

pub(super) const MAX_DEPTH: usize = 16;

fn err(msg: String) -> mlua::Error {
    mlua::Error::RuntimeError(msg)
}

const NOT_PLAIN: &str = "data tables must be lists or have string keys";

/// Why data is not plain: small, so that the traversal's results stay
/// small; the message is made once, at the end (`Bad::error`).
#[derive(Clone, Copy, Debug)]
enum Bad {
    NotPlain,
    /// Tables nested more than `MAX_DEPTH` levels.
    Deep,
    /// The Lua stack cannot grow for the next level: the script's calls
    /// already fill it, or the memory limit refuses it more room.
    NoStack,
    NotUtf8,
    Number(f64),
    Holds(&'static str),
    /// More values met than `MAX_DATA_VALUES` (counted in visits, so that
    /// tables named many times cost what their paths cost, and stop), or
    /// more table entries looked at than `MAX_STEPS`.
    TooMany,
    /// More bytes of text than `MAX_DATA_TEXT` (counted by visit too).
    TooLong,
}

impl Bad {
    fn error(self) -> mlua::Error {
        err(match self {
            Bad::NotPlain => NOT_PLAIN.into(),
            Bad::Deep => format!("data nests too deeply (more than {MAX_DEPTH} levels of tables)"),
            Bad::NoStack => NO_STACK.into(),
            Bad::NotUtf8 => "data holds a string that is not UTF-8".into(),
            Bad::Number(n) => format!("data holds the number {n}"),
            Bad::Holds(what) => format!("data cannot hold a {what}"),
            Bad::TooMany => format!("`data` holds more than {MAX_DATA_VALUES} values"),
            Bad::TooLong => format!("`data` holds more than {MAX_DATA_TEXT} bytes of text"),
        })
    }
}

/// The string at `idx` (which must be a string), as UTF-8 (borrowed
/// from the Lua string, which the stack keeps alive), its bytes counted
/// against the walk's text bound (every string data copies comes here).
unsafe fn string_at<'a>(w: &mut Walk, state: *mut ffi::lua_State, idx: c_int) -> Result<&'a str, Bad> {
    let mut len = 0usize;
    // SAFETY: the caller's index holds a string: lua_tolstring neither
    // converts nor allocates, and its text (`len` bytes) lives as long as
    // the stack holds it.
    let p = unsafe { ffi::lua_tolstring(state, idx, &mut len) };
    w.copy(len)?;
    // SAFETY: as above.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
    if bytes.is_ascii() {
        // SAFETY: ASCII is UTF-8 (the common case, checked cheaply).
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).map_err(|_| Bad::NotUtf8)
}

thread_local! {
    /// The builder `read` makes data with, kept between questions so
    /// that making one costs only the data's own two allocations.
    static BUILDER: RefCell<Builder> = RefCell::new(Builder::default());
}

/// The value at stack index `idx` (absolute) as plain data. Tables with
/// keys 1..n become lists, tables with string keys maps; anything else
/// (functions, mixed keys) is refused, as is data of more than
/// `MAX_DATA_VALUES` values. Raises no Lua error and leaves the stack as
/// it found it.
pub(super) unsafe fn read(state: *mut ffi::lua_State, idx: c_int, depth: usize) -> mlua::Result<AskData> {
    // SAFETY: the caller's index (see `flat`).
    if let Some(data) = unsafe { flat(state, idx, depth) } {
        return Ok(data);
    }
    BUILDER
        .with(|b| match b.try_borrow_mut() {
            // SAFETY: the caller's index (see `walk`).
            Ok(mut b) => unsafe { traverse(&mut b, state, idx, depth) },
            // SAFETY: as above (not reached: nothing here calls back into Lua).
            Err(_) => unsafe { traverse(&mut Builder::default(), state, idx, depth) },
        })
        .map_err(Bad::error)
}

/// Entries a map may have to be read by `flat`.
const FLAT_MAX: usize = 8;

/// The common data read at once: nil, or a map of a few scalars
/// (`{ to = 12 }`, `{ n = 2 }`), in one traversal without the builder.
/// None, with the stack as it was, for anything else (nesting, lists,
/// more entries, anything `walk` might refuse), which `traverse` reads
/// and names the faults of: what this reads, `walk` reads alike and
/// within every bound (at most 1 + `FLAT_MAX` visits and `FLAT_MAX` steps,
/// the text counted here, a depth below `MAX_DEPTH`).
unsafe fn flat(state: *mut ffi::lua_State, idx: c_int, depth: usize) -> Option<AskData> {
    if depth >= MAX_DEPTH {
        return None;
    }
    // SAFETY: `idx` is a valid absolute index (the caller's); only reads
    // and a raw traversal (lua_next on the table with its own keys), none
    // of which allocates or raises (lua_checkstack may allocate, before
    // any string is borrowed); every push is popped. The strings borrowed
    // are the table's keys and values: the table (at `idx`) holds them,
    // nothing changes it, and nothing after the stack check can run the
    // collector (no allocation), so they live until the data is made;
    // their lifetime `'a` is this function's body, which copies them into
    // the `AskData` before it returns.
    unsafe {
        match ffi::lua_type(state, idx) {
            ffi::LUA_TNIL => return Some(AskData::default()),
            ffi::LUA_TTABLE => {}
            _ => return None,
        }
        // `walk` asks the same room of a table (and says so when refused).
        if ffi::lua_checkstack(state, 4) == 0 || ffi::lua_rawlen(state, idx) != 0 {
            return None;
        }
        let mut entries = [("", Scalar::Bool(false)); FLAT_MAX];
        let mut n = 0usize;
        let mut text = 0usize;
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            let value = if n < FLAT_MAX && ffi::lua_type(state, -2) == ffi::LUA_TSTRING { flat_scalar(state, -1) } else { None };
            let key = value.and_then(|_| flat_str(state, -2));
            let (Some(k), Some(v)) = (key, value) else {
                ffi::lua_settop(state, -3);
                return None;
            };
            text = text.saturating_add(k.len()).saturating_add(if let Scalar::Str(s) = v { s.len() } else { 0 });
            entries[n] = (k, v);
            n += 1;
            ffi::lua_settop(state, -2);
        }
        if text > MAX_DATA_TEXT {
            return None;
        }
        Some(AskData::flat_map(&mut entries[..n]))
    }
}

/// The scalar at `at` (a relative index of a traversal's value) as `walk`
/// reads it, or None for what `flat` leaves to `walk`.
///
/// # Safety
/// As `flat`: the value is held by the table traversed.
unsafe fn flat_scalar<'a>(state: *mut ffi::lua_State, at: c_int) -> Option<Scalar<'a>> {
    // SAFETY: the caller's slot; reads only.
    unsafe {
        match ffi::lua_type(state, at) {
            ffi::LUA_TBOOLEAN => Some(Scalar::Bool(ffi::lua_toboolean(state, at) != 0)),
            ffi::LUA_TNUMBER if ffi::lua_isinteger(state, at) != 0 => Some(Scalar::Int(ffi::lua_tointeger(state, at))),
            ffi::LUA_TNUMBER => Some(ffi::lua_tonumber(state, at)).filter(|f| f.is_finite()).map(Scalar::Float),
            ffi::LUA_TSTRING => flat_str(state, at).map(Scalar::Str),
            _ => None,
        }
    }
}

/// The string at `at` as UTF-8, or None.
///
/// # Safety
/// As `flat`: `at` holds a string the table traversed holds.
unsafe fn flat_str<'a>(state: *mut ffi::lua_State, at: c_int) -> Option<&'a str> {
    let mut len = 0usize;
    // SAFETY: a string: lua_tolstring neither converts nor allocates, and
    // its `len` bytes live as long as the table holds it.
    let bytes = unsafe { std::slice::from_raw_parts(ffi::lua_tolstring(state, at, &mut len).cast::<u8>(), len) };
    if bytes.is_ascii() {
        // SAFETY: ASCII is UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).ok()
}

/// How a traversal goes: the values visited so far (a table named twice
/// is visited twice: data is a tree, and its size is counted by path, so
/// 12 levels of 8 references stop after `MAX_DATA_VALUES` visits), and
/// whether it must find the error in the defined order (`exhaustive`).
struct Walk {
    visits: usize,
    /// Table entries looked at (`lua_next`), in every pass over a table:
    /// a table refused for its keys has its entries looked at but no
    /// value visited, so visits alone do not bound the work when it is
    /// named many times.
    steps: usize,
    /// Bytes of text copied (strings and keys).
    text: usize,
    /// Every value is visited and the error reported is the first in the
    /// defined order: a table's own shape before its values, a list's
    /// items by index, a map's entries by key (bytes). Lua's own order
    /// (`lua_next`) follows string hashes, which change between runs.
    exhaustive: bool,
}

/// Table entries a traversal may look at: plain data within
/// `MAX_DATA_VALUES` needs at most three looks an entry (counted, read as a
/// list, read as a map).
const MAX_STEPS: usize = 4 * MAX_DATA_VALUES;

impl Walk {
    fn new(exhaustive: bool) -> Walk {
        Walk { visits: 0, steps: 0, text: 0, exhaustive }
    }
    /// One more table entry looked at.
    fn step(&mut self) -> Result<(), Bad> {
        self.steps += 1;
        if self.steps > MAX_STEPS { Err(Bad::TooMany) } else { Ok(()) }
    }
    /// `len` more bytes of text copied.
    fn copy(&mut self, len: usize) -> Result<(), Bad> {
        self.text = self.text.saturating_add(len);
        if self.text > MAX_DATA_TEXT { Err(Bad::TooLong) } else { Ok(()) }
    }
}

/// Whether a fault ends a traversal at once: the bounds, which an
/// exhaustive traversal meets in any order (it looks at every entry and
/// visits every value of the tables it does not refuse), so that whether
/// they are met does not depend on Lua's order.
fn bound(e: Bad) -> bool {
    matches!(e, Bad::TooMany | Bad::TooLong)
}

/// One traversal in Lua's order, which stops at the first fault (the
/// common case: no fault, and the answer is the same in any order); on a
/// fault, a second, exhaustive one names the fault the defined order
/// meets first, so a script sees the same message on every run.
unsafe fn traverse(b: &mut Builder, state: *mut ffi::lua_State, idx: c_int, depth: usize) -> Result<AskData, Bad> {
    // Nothing is left from an earlier read that did not finish (a panic
    // in a host function is turned into an error, and the thread's
    // builder outlives it).
    b.clear();
    let start = b.mark();
    // SAFETY: the caller's index (see `walk`).
    let first = unsafe { walk(b, &mut Walk::new(false), state, idx, depth) };
    let Err(e) = first else { return Ok(b.finish()) };
    b.rollback(start);
    // SAFETY: as above.
    let ordered = unsafe { walk(b, &mut Walk::new(true), state, idx, depth) };
    b.rollback(start);
    Err(ordered.err().unwrap_or(e))
}

/// Why data could not be read or handed back when the stack could not grow.
const NO_STACK: &str = "no room left on the Lua stack for the question's data (calls nested too deeply, or the memory limit)";

unsafe fn walk(b: &mut Builder, w: &mut Walk, state: *mut ffi::lua_State, idx: c_int, depth: usize) -> Result<(), Bad> {
    if depth > MAX_DEPTH {
        return Err(Bad::Deep);
    }
    w.visits += 1;
    if w.visits > MAX_DATA_VALUES {
        return Err(Bad::TooMany);
    }
    // SAFETY: `idx` is a valid absolute index (the caller's); only reads
    // and raw traversals (lua_next on a table, keys left as found), none
    // of which allocates or raises; every push is popped.
    unsafe {
        match ffi::lua_type(state, idx) {
            ffi::LUA_TNIL => b.nil(),
            ffi::LUA_TBOOLEAN => b.boolean(ffi::lua_toboolean(state, idx) != 0),
            ffi::LUA_TNUMBER => {
                if ffi::lua_isinteger(state, idx) != 0 {
                    b.integer(ffi::lua_tointeger(state, idx));
                } else {
                    let n = ffi::lua_tonumber(state, idx);
                    if !n.is_finite() {
                        return Err(Bad::Number(n));
                    }
                    b.float(n);
                }
            }
            ffi::LUA_TSTRING => {
                b.string(string_at(w, state, idx)?);
            }
            ffi::LUA_TTABLE => {
                if ffi::lua_checkstack(state, 4) == 0 {
                    return Err(Bad::NoStack);
                }
                let len = ffi::lua_rawlen(state, idx);
                if w.exhaustive {
                    return match len {
                        0 => walk_map_ordered(b, w, state, idx, depth),
                        _ => walk_list_ordered(b, w, state, idx, len, depth),
                    };
                }
                // A border far past what a list of plain data holds may
                // belong to a sparse table: count its entries before
                // making room for `len` of them.
                if len > ONE_PASS_MAX && count(w, state, idx)? != len {
                    return walk_map(b, w, state, idx, depth);
                }
                if len == 0 || !walk_list(b, w, state, idx, len, depth)? {
                    walk_map(b, w, state, idx, depth)?;
                }
            }
            ffi::LUA_TFUNCTION => return Err(Bad::Holds("function")),
            ffi::LUA_TTHREAD => return Err(Bad::Holds("thread")),
            ffi::LUA_TLIGHTUSERDATA => return Err(Bad::Holds("lightuserdata")),
            _ => return Err(Bad::Holds("userdata")),
        }
    }
    Ok(())
}

/// The first fault in the defined order so far: its place (a list index,
/// or a map key's bytes) and the fault. `TooMany` is not kept here: it
/// ends the traversal at once (whether it happens does not depend on the
/// order, since an exhaustive traversal visits every value).
struct First<K: Ord> {
    at: Option<(K, Bad)>,
}

impl<K: Ord> First<K> {
    fn note(&mut self, key: impl FnOnce() -> K, bad: Bad, before: impl FnOnce(&K) -> bool) {
        if self.at.as_ref().is_none_or(|(k, _)| before(k)) {
            self.at = Some((key(), bad));
        }
    }
}

/// A table with border `len` > 0, exhaustively: a list when its keys are
/// exactly 1..=len (else "not plain", its own fault, before any value's),
/// then every item, the lowest index's fault reported.
unsafe fn walk_list_ordered(b: &mut Builder, w: &mut Walk, state: *mut ffi::lua_State, idx: c_int, len: usize, depth: usize) -> Result<(), Bad> {
    // SAFETY: `idx` is a table (the caller's); raw reads and lua_next with
    // its own keys (no allocation, no error), every push is popped.
    unsafe {
        let mut pairs = 0usize;
        let mut keys_ok = true;
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            pairs += 1;
            let top = ffi::lua_gettop(state);
            if let Err(e) = w.step() {
                ffi::lua_settop(state, top - 2);
                return Err(e);
            }
            keys_ok &= ffi::lua_type(state, top - 1) == ffi::LUA_TNUMBER
                && ffi::lua_isinteger(state, top - 1) != 0
                && (1..=len as i64).contains(&ffi::lua_tointeger(state, top - 1));
            ffi::lua_settop(state, top - 1);
        }
        if !keys_ok || pairs != len {
            return Err(Bad::NotPlain);
        }
        let m = b.open_list(len);
        let mut first = First::<usize> { at: None };
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            let top = ffi::lua_gettop(state);
            let i = ffi::lua_tointeger(state, top - 1) as usize;
            let at = b.mark();
            b.item(i - 1);
            match w.step().and_then(|()| walk(b, w, state, top, depth + 1)) {
                Ok(()) => {}
                Err(e) if bound(e) => {
                    ffi::lua_settop(state, top - 2);
                    return Err(e);
                }
                Err(e) => {
                    b.rollback(at);
                    first.note(|| i, e, |&k| i < k);
                }
            }
            ffi::lua_settop(state, top - 1);
        }
        match first.at {
            Some((_, e)) => Err(e),
            None => {
                b.close(m);
                Ok(())
            }
        }
    }
}

/// A table with border 0, exhaustively: a map when every key is a string
/// (else "not plain", its own fault), then every entry, the fault of the
/// lowest key (by bytes) reported.
unsafe fn walk_map_ordered(b: &mut Builder, w: &mut Walk, state: *mut ffi::lua_State, idx: c_int, depth: usize) -> Result<(), Bad> {
    // SAFETY: `idx` is a table (the caller's); lua_next walks it with its
    // own keys (no allocation, no error), every push is popped.
    unsafe {
        // Every key is looked at, whatever the first wrong one: the steps
        // counted do not depend on Lua's order.
        let mut keys_ok = true;
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            let top = ffi::lua_gettop(state);
            if let Err(e) = w.step() {
                ffi::lua_settop(state, top - 2);
                return Err(e);
            }
            keys_ok &= ffi::lua_type(state, top - 1) == ffi::LUA_TSTRING;
            ffi::lua_settop(state, top - 1);
        }
        if !keys_ok {
            return Err(Bad::NotPlain);
        }
        let m = b.open_map();
        let mut first = First::<Vec<u8>> { at: None };
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            let top = ffi::lua_gettop(state);
            let mut len = 0usize;
            let p = ffi::lua_tolstring(state, top - 1, &mut len);
            let bytes = std::slice::from_raw_parts(p.cast::<u8>(), len);
            let at = b.mark();
            let entry = w.step().and_then(|()| string_at(w, state, top - 1)).and_then(|k| {
                b.key(k);
                walk(b, w, state, top, depth + 1)
            });
            match entry {
                Ok(()) => {}
                Err(e) if bound(e) => {
                    ffi::lua_settop(state, top - 2);
                    return Err(e);
                }
                Err(e) => {
                    b.rollback(at);
                    first.note(|| bytes.to_vec(), e, |k| bytes < k.as_slice());
                }
            }
            ffi::lua_settop(state, top - 1);
        }
        match first.at {
            Some((_, e)) => Err(e),
            None => {
                b.close(m);
                Ok(())
            }
        }
    }
}

/// Lists up to this long are read in one traversal (see `walk_list`).
const ONE_PASS_MAX: usize = 1024;

/// How many entries the table at `idx` has.
unsafe fn count(w: &mut Walk, state: *mut ffi::lua_State, idx: c_int) -> Result<usize, Bad> {
    let mut pairs = 0usize;
    // SAFETY: `idx` is a table; lua_next with its own keys raises nothing,
    // and each key and value pushed is popped.
    unsafe {
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            pairs += 1;
            if let Err(e) = w.step() {
                ffi::lua_settop(state, -3);
                return Err(e);
            }
            ffi::lua_settop(state, -2);
        }
    }
    Ok(pairs)
}

/// The table at `idx` (border `len` > 0) as a list, in one traversal.
/// A table is a list when it has exactly `len` entries; then any key
/// outside 1..=len, or a value that cannot be read, is its error. When it
/// is not (`Ok(false)`, nothing made), it is read as a map, which refuses
/// its integer keys: the same answers as counting the entries first.
unsafe fn walk_list(b: &mut Builder, w: &mut Walk, state: *mut ffi::lua_State, idx: c_int, len: usize, depth: usize) -> Result<bool, Bad> {
    // SAFETY: `idx` is a table (the caller's); lua_next walks it with its
    // own keys (no allocation, no error), every push is popped.
    unsafe {
        let m = b.open_list(len);
        let mut pairs = 0usize;
        // The first thing wrong, kept while the rest is counted.
        let mut wrong: Option<Bad> = None;
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            pairs += 1;
            let top = ffi::lua_gettop(state);
            if let Err(e) = w.step() {
                ffi::lua_settop(state, top - 2);
                return Err(e);
            }
            if wrong.is_none() {
                let key = (ffi::lua_type(state, top - 1) == ffi::LUA_TNUMBER && ffi::lua_isinteger(state, top - 1) != 0)
                    .then(|| ffi::lua_tointeger(state, top - 1))
                    .filter(|&i| i >= 1 && (i as usize) <= len);
                match key {
                    None => wrong = Some(Bad::NotPlain),
                    Some(i) => {
                        b.item(i as usize - 1);
                        if let Err(e) = walk(b, w, state, top, depth + 1) {
                            wrong = Some(e);
                        }
                    }
                }
            }
            ffi::lua_settop(state, top - 1);
        }
        if pairs != len {
            b.rollback(m);
            return Ok(false);
        }
        match wrong {
            Some(e) => Err(e),
            None => {
                b.close(m);
                Ok(true)
            }
        }
    }
}

/// The table at `idx` as a map with string keys (an empty table is an
/// empty list).
unsafe fn walk_map(b: &mut Builder, w: &mut Walk, state: *mut ffi::lua_State, idx: c_int, depth: usize) -> Result<(), Bad> {
    // SAFETY: `idx` is a table (the caller's); lua_next walks it with its
    // own keys (no allocation, no error), every push is popped.
    unsafe {
        let m = b.open_map();
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            let top = ffi::lua_gettop(state);
            let entry = if let Err(e) = w.step() {
                Err(e)
            } else if ffi::lua_type(state, top - 1) != ffi::LUA_TSTRING {
                Err(Bad::NotPlain)
            } else {
                string_at(w, state, top - 1).and_then(|k| {
                    b.key(k);
                    walk(b, w, state, top, depth + 1)
                })
            };
            if let Err(e) = entry {
                ffi::lua_settop(state, top - 2);
                return Err(e);
            }
            ffi::lua_settop(state, top - 1);
        }
        b.close(m);
        Ok(())
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

    /// Calls `f(seat, choice, data, province, action)`, the last two the
    /// action the question was asked in (nil outside one). Lua never sees
    /// this function or the pointer it passes: scripts cannot call it.
    /// Only `f` and that pointer go through mlua; `continue_with` pushes
    /// the rest itself (plain values: no allocation).
    pub(super) fn call(&self, f: &Function, seat: Seat, choice: Option<i64>, data: &AskData, context: Option<ActionContext>) -> mlua::Result<()> {
        let args = Args { seat: seat.number(), choice, province: context.map(|c| c.province.number()), action: context.map(|c| c.action as i64 + 1), data };
        let ptr = LightUserData(&args as *const Args as *mut std::ffi::c_void);
        self.0.call::<()>((f, ptr)).map_err(|e| match e {
            mlua::Error::RuntimeError(s) if s.ends_with(OWN_FRAME) => mlua::Error::RuntimeError(s[..s.len() - OWN_FRAME.len()].to_string()),
            mlua::Error::CallbackError { traceback, cause } if traceback.ends_with(OWN_FRAME) => {
                mlua::Error::CallbackError { traceback: traceback[..traceback.len() - OWN_FRAME.len()].to_string(), cause }
            }
            other => other,
        })
    }
}

/// What `Continue::call` passes `continue_with` besides the continuation:
/// plain values and a borrow of the data, for the length of the call.
struct Args<'a> {
    seat: i64,
    choice: Option<i64>,
    province: Option<i64>,
    action: Option<i64>,
    data: &'a AskData,
}

/// Pushes an integer, or nil (no allocation, nothing raised).
///
/// # Safety
/// `state` is a running C function's state with a free slot.
unsafe fn push_opt(state: *mut ffi::lua_State, v: Option<i64>) {
    // SAFETY: the caller's contract.
    unsafe {
        match v {
            Some(i) => ffi::lua_pushinteger(state, i),
            None => ffi::lua_pushnil(state),
        }
    }
}

/// Arguments: the continuation and a pointer to its `Args` (valid for the
/// call: `Continue::call` borrows them). Calls `f(seat, choice, data,
/// province, action)`.
unsafe extern "C-unwind" fn continue_with(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: the second argument is the pointer `Continue::call` passed,
    // to the `Args` it borrows for the call. A C function starts with
    // LUA_MINSTACK (20) free slots: room for f's four plain arguments
    // (`push` asks for its own). Nothing in this frame or in `push`'s owns
    // anything (references and plain values only), so an allocation error
    // raised by the pushes (the memory limit) or an error of the
    // continuation leaves by them without skipping a destructor; a stack
    // that cannot grow is raised here, at the end.
    unsafe {
        let args = &*(ffi::lua_touserdata(state, 2) as *const Args);
        ffi::lua_settop(state, 1);
        ffi::lua_pushinteger(state, args.seat);
        push_opt(state, args.choice);
        if push(state, args.data, 0).is_none() {
            ffi::lua_settop(state, 0);
            ffi::lua_pushlstring(state, NO_STACK.as_ptr().cast(), NO_STACK.len());
            ffi::lua_error(state);
        }
        push_opt(state, args.province);
        push_opt(state, args.action);
        ffi::lua_call(state, 5, 0);
    }
    0
}

/// Pushes the value at node `at` of `data` as Lua data and returns the
/// node after it; None (with the stack as it was) when the stack cannot
/// grow. Holds no value with a destructor (see `continue_with`).
///
/// # Safety
/// Pushes an item or a map's value, the node at `at`: a scalar in the room
/// `push` made for it, anything else by `push` itself. Answers the node
/// after it, or None when the stack cannot grow, having popped the
/// caller's `pending` slots (its table, and a map's key) as `push` leaves
/// nothing of its own then.
///
/// # Safety
/// As `push`, inside the `push` that made the table (and key) on top.
unsafe fn push_item(state: *mut ffi::lua_State, data: &AskData, at: usize, pending: c_int) -> Option<usize> {
    // SAFETY: the caller's contract: room for a scalar was made; `push`
    // checks its own; settop only pops.
    unsafe {
        if let Some((item, n)) = data.node(at)
            && push_scalar(state, item)
        {
            return Some(n);
        }
        let pushed = push(state, data, at);
        if pushed.is_none() {
            ffi::lua_settop(state, -1 - pending);
        }
        pushed
    }
}

/// `state` is a running C function's state.
unsafe fn push(state: *mut ffi::lua_State, data: &AskData, at: usize) -> Option<usize> {
    // SAFETY: the caller's contract; lua_checkstack raises nothing and
    // makes room for this value, one key and a scalar item or value
    // (pushed in place, not by a call of its own); tables are built with
    // raw sets.
    unsafe {
        let node = data.node(at);
        // The room the checks of one call per value asked for: 3 from
        // each value's place (its table, key and value), so 3 for this
        // value, 4 once a list's item is pushed, 5 once a map's key is.
        let room = match node {
            Some((NodeRef::Map(len), _)) if len > 0 => 5,
            Some((NodeRef::List(len), _)) if len > 0 => 4,
            _ => 3,
        };
        if ffi::lua_checkstack(state, room) == 0 {
            return None;
        }
        let Some((node, after)) = node else {
            ffi::lua_pushnil(state);
            return Some(at);
        };
        match node {
            NodeRef::Nil | NodeRef::Bool(_) | NodeRef::Int(_) | NodeRef::Float(_) | NodeRef::Str(_) => {
                push_scalar(state, node);
            }
            NodeRef::List(len) => {
                ffi::lua_createtable(state, len.min(c_int::MAX as usize) as c_int, 0);
                let mut next = at + 1;
                for i in 1..=len {
                    next = push_item(state, data, next, 1)?;
                    ffi::lua_rawseti(state, -2, i as ffi::lua_Integer);
                }
            }
            NodeRef::Map(len) => {
                ffi::lua_createtable(state, 0, len.min(c_int::MAX as usize) as c_int);
                let mut next = at + 1;
                for _ in 0..len {
                    // The key (a string: a map's keys are), then its value.
                    let k = match data.node(next) {
                        Some((NodeRef::Str(k), _)) => k,
                        _ => "",
                    };
                    ffi::lua_pushlstring(state, k.as_ptr().cast(), k.len());
                    next = push_item(state, data, next + 1, 2)?;
                    ffi::lua_rawset(state, -3);
                }
            }
        }
        Some(after)
    }
}

/// Pushes `node` when it is a scalar (true), else pushes nothing (false).
/// Holds no value with a destructor (see `continue_with`).
///
/// # Safety
/// `state` is a running C function's state with a free slot.
unsafe fn push_scalar(state: *mut ffi::lua_State, node: NodeRef<'_>) -> bool {
    // SAFETY: the caller's contract (one free slot); a string's push may
    // raise a memory error, which leaves by `continue_with` (nothing here
    // owns anything).
    unsafe {
        match node {
            NodeRef::Nil => ffi::lua_pushnil(state),
            NodeRef::Bool(b) => ffi::lua_pushboolean(state, c_int::from(b)),
            NodeRef::Int(i) => ffi::lua_pushinteger(state, i),
            NodeRef::Float(f) => ffi::lua_pushnumber(state, f),
            NodeRef::Str(s) => {
                ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
            }
            NodeRef::List(_) | NodeRef::Map(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlua::Value;

    /// What `f` (`read`) makes of the value a chunk returns;
    /// it must leave the stack as it found it.
    fn on_value<T>(code: &str, f: impl FnOnce(*mut ffi::lua_State, c_int) -> mlua::Result<T>) -> Result<T, String> {
        let lua = Lua::new();
        let v: Value = lua.load(code).eval().unwrap();
        let mut out = None;
        // SAFETY: `read` raises nothing.
        unsafe {
            lua.exec_raw::<()>(v, |l| {
                let top = ffi::lua_gettop(l);
                out = Some(f(l, top));
                assert_eq!(ffi::lua_gettop(l), top, "the stack is as it was");
            })
        }
        .unwrap();
        out.unwrap().map_err(|e| e.to_string())
    }

    fn read_of(code: &str) -> Result<String, String> {
        // SAFETY: see `on_value`.
        on_value(code, |l, at| unsafe { read(l, at, 0) }).map(|d| d.to_json().to_string())
    }

    /// The general traversal alone (no `flat`), as JSON.
    fn general_of(code: &str) -> Result<String, String> {
        // SAFETY: see `on_value`.
        on_value(code, |l, at| unsafe { traverse(&mut Builder::default(), l, at, 0) }.map_err(Bad::error)).map(|d| d.to_json().to_string())
    }

    /// What `flat` makes of the value, if it reads it.
    fn flat_of(code: &str) -> Option<AskData> {
        // SAFETY: see `on_value`; `flat` raises nothing.
        on_value(code, |l, at| Ok(unsafe { flat(l, at, 0) })).unwrap()
    }

    /// Issue 25: the common data (nil, a map of a few scalars) is read at
    /// once; what it reads is what the general traversal makes, and what
    /// it leaves (anything else, every fault) gets the general answer.
    #[test]
    fn flat_data_reads_as_the_general_traversal_does() {
        let read_at_once = [
            "return nil",
            "return {}",
            "return { to = 12 }",
            "return { n = 2 }",
            "return { defender = 2, from = 7, to = 12, n = 3, action = 4 }",
            "return { seat = 1, defender = 2, from = 7, to = 12, n = 3, xa = 0 }",
            "return { ok = true, no = false, half = 0.5, big = -1e300, name = 'Ōmi', [''] = 'empty key' }",
            "return { a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8 }",
            "return { z = 1, y = 2, x = 3, w = 4, v = 5, u = 6, t = 7, s = 8 }",
            "return { ab = 1, a = 2, abc = 3, b = 4, ['a\\0'] = 5 }",
        ];
        for code in read_at_once {
            for _ in 0..10 {
                let flat = flat_of(code).unwrap_or_else(|| panic!("{code} is read at once"));
                let general = general_of(code).unwrap();
                assert_eq!(flat.to_json().to_string(), general, "{code}");
                assert_eq!(serde_json::to_string(&flat).unwrap(), general, "{code}");
                assert_eq!(flat, AskData::from_json(&serde_json::from_str(&general).unwrap()), "{code}");
                assert_eq!(read_of(code).unwrap(), general, "{code}");
            }
        }
        let left_to_walk = [
            "return 3",
            "return 'x'",
            "return true",
            "return {1, 2}",
            "return { a = {} }",
            "return { a = { b = 1 } }",
            "return { a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8, i = 9 }",
            "return { a = 0/0 }",
            "return { a = 1/0 }",
            "return { a = function() end }",
            "return { a = 1, [1.5] = 2 }",
            "return { [true] = 1 }",
            "return { a = '\\255' }",
            "return { ['\\255'] = 1 }",
            "return { a = coroutine and coroutine.create(function() end) or io }",
        ];
        for code in left_to_walk {
            assert!(flat_of(code).is_none(), "{code} is left to the general traversal");
            assert_eq!(read_of(code), general_of(code), "{code}");
        }
        // Text past the bound is left to the traversal, which names it.
        let long = format!("return {{ a = string.rep('x', {MAX_DATA_TEXT}) }}");
        assert!(flat_of(&long).is_none());
        assert_eq!(read_of(&long).unwrap_err(), format!("runtime error: `data` holds more than {MAX_DATA_TEXT} bytes of text"));
        let key = format!("return {{ [string.rep('k', {MAX_DATA_TEXT})] = 1, b = 'x' }}");
        assert!(flat_of(&key).is_none());
        assert!(read_of(&key).unwrap_err().ends_with("bytes of text"));
    }

    /// Issue 23 item 3: with two faults, the one reported is the first in
    /// the defined order (a table's own shape, then list items by index,
    /// map entries by key), on every VM (string hashes are seeded per VM).
    #[test]
    fn the_fault_reported_is_the_first_in_the_defined_order() {
        let filler: String = (0..40).map(|i| format!("k{i} = {i}, ")).collect();
        for (code, expected) in [
            (format!("return {{ {filler} b = 0/0, a = function() end }}"), "cannot hold a function"),
            (format!("return {{ {filler} a = 0/0, b = function() end }}"), "data holds the number"),
            ("return {1, 0/0, function() end, 4}".to_string(), "data holds the number"),
            ("return {1, {function() end}, 0/0}".to_string(), "cannot hold a function"),
            (format!("return {{ {filler} z = {{1, x = 2}}, y = {{ q = 0/0 }} }}"), "data holds the number"),
            (format!("return {{ {filler} [1.5] = 1, a = function() end }}"), NOT_PLAIN),
        ] {
            for _ in 0..30 {
                let read = read_of(&code).unwrap_err();
                assert!(read.contains(expected), "{code}: {read}");
            }
        }
    }

    /// Issue 23 item 2: tables named many times are walked path by path,
    /// so their size is counted in visits and bounded; 12 levels of 8
    /// references stop at once.
    #[test]
    fn shared_tables_are_bounded_in_visits() {
        let code = "local t = {1} for level = 1, 12 do local n = {} for j = 1, 8 do n[j] = t end t = n end return {tree = t}";
        let too_many = format!("runtime error: `data` holds more than {MAX_DATA_VALUES} values");
        assert_eq!(read_of(code).unwrap_err(), too_many);
        // With a fault too: the bound wins, in either order.
        let code = "local t = {1} for level = 1, 12 do local n = {} for j = 1, 8 do n[j] = t end t = n end return {a = 0/0, b = t}";
        assert_eq!(read_of(code).unwrap_err(), too_many);
        // A tree just within the bound is read.
        let code = format!("local t = {{}} for i = 1, {} do t[i] = i end return t", MAX_DATA_VALUES - 1);
        assert!(read_of(&code).is_ok());
    }

    /// The review of 2026-11-26: a table refused for its keys had its
    /// entries looked at with no value visited, so one named 9,990 times
    /// cost 100M looks in one host call (26 s, no time limit sees it); and
    /// a 1 MB string named 9,000 times was copied 9,000 times (an abort
    /// asking for gigabytes). Looks and bytes are bounded as visits are,
    /// in any order, with or without another fault.
    #[test]
    fn tables_refused_for_their_keys_and_long_strings_named_often_are_bounded() {
        let too_many = format!("runtime error: `data` holds more than {MAX_DATA_VALUES} values");
        let wide = "local T = {} for i = 1, 10000 do T[i] = i end T.x = true local d = {} for i = 1, 9990 do d[i] = T end";
        assert_eq!(read_of(&format!("{wide} return d")).unwrap_err(), too_many);
        assert_eq!(read_of(&format!("{wide} return {{ a = 0/0, b = d }}")).unwrap_err(), too_many);
        assert_eq!(read_of(&format!("{wide} return {{ [1.5] = 1, b = d }}")).unwrap_err(), format!("runtime error: {NOT_PLAIN}"));
        let keys = "local T = {} for i = 1, 10000 do T[i + 0.5] = i end local d = {} for i = 1, 9990 do d['k' .. i] = T end";
        assert_eq!(read_of(&format!("{keys} return d")).unwrap_err(), too_many);
        let too_long = format!("runtime error: `data` holds more than {MAX_DATA_TEXT} bytes of text");
        let long = "local s = string.rep('x', 1 << 20) local d = {} for i = 1, 9000 do d[i] = s end";
        assert_eq!(read_of(&format!("{long} return d")).unwrap_err(), too_long);
        assert_eq!(read_of(&format!("{long} return {{ a = function() end, b = d }}")).unwrap_err(), too_long);
        let key = "local k = string.rep('k', 5 << 20) return { [k] = 1 }";
        assert_eq!(read_of(key).unwrap_err(), too_long);
        // Just within the bound: read.
        let within = format!("return {{ a = string.rep('x', {}) }}", MAX_DATA_TEXT - 1);
        assert!(read_of(&within).is_ok());
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
        assert!(read_of(&deep).unwrap_err().contains("nests too deeply (more than 16 levels of tables)"));
    }

    /// The review of 2026-11-26: a stack that cannot grow (a script's calls
    /// filling it, or the memory limit) was reported as data nesting too
    /// deeply, for data three levels deep.
    #[test]
    fn a_stack_that_cannot_grow_is_named_as_such_not_as_deep_data() {
        let err = on_value("return { a = { b = { 1 } } }", |l, at| {
            // SAFETY: pushes only into room lua_checkstack made (it raises
            // nothing); the stack is put back before returning.
            unsafe {
                let top = ffi::lua_gettop(l);
                // Twice: the first refusal gives the stack the VM's spare
                // room for error handling, which the second fills.
                for _ in 0..2 {
                    while ffi::lua_checkstack(l, 1) != 0 {
                        ffi::lua_pushnil(l);
                    }
                }
                let read = read(l, at, 0).map(|_| ());
                ffi::lua_settop(l, top);
                read
            }
        })
        .unwrap_err();
        assert!(err.ends_with(NO_STACK), "{err}");
    }
}
