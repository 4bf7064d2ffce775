//! A question's data checked in place: the common case of `value::check`
//! without the C API.
//!
//! `value::check` walks a table with `lua_next`, which finds each key
//! again by hashing it: ~1,100 instructions for `{ from = p, action = a }`,
//! ~6,300 for a winter revolt queue, at every question. Here the walk
//! reads the table's array and hash parts directly (Lua 5.4.9's `Table` and
//! `Node`, lobject.h; the values, strings and tags as `stack.rs` mirrors
//! them, pinned the same way). It answers only for data that is plain in
//! the usual way (lists 1..n and string-keyed maps of booleans, integers,
//! finite floats, UTF-8 strings, no metatable, no table twice, at most
//! `SHAPE_TABLES` tables): there `value::check` answers the same (a table
//! with exactly the keys 1..n has the border n; one with only string keys
//! the border 0). For anything else it says nothing, and `value::check`
//! gives its answer or its error. `check_layout` compares both on sample
//! data once per process; on a mismatch this is never used.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use mlua::{Lua, ffi};

use super::stack::{NIL_MASK, NUMINT, SHRSTR, TString, TValue, Value};
use super::value::{Checked, MAX_DEPTH, SHAPE_TABLES};

/// Lua 5.4.9's `Table`.
#[repr(C)]
struct Table {
    next: *mut c_void,
    tt: u8,
    marked: u8,
    flags: u8,
    /// log2 of the hash part's size.
    lsizenode: u8,
    /// The array part's size, or a hint below it (see `array_size`).
    alimit: u32,
    array: *const TValue,
    node: *const Node,
    lastfree: *const Node,
    metatable: *const Table,
    gclist: *mut c_void,
}

/// Lua 5.4.9's `Node` (a hash part entry): the value's fields, then the key.
#[repr(C)]
struct Node {
    value: Value,
    tt: u8,
    key_tt: u8,
    next: i32,
    key_val: Value,
}

/// Type tags (lobject.h) besides `stack.rs`'s.
const FALSE: u8 = 0x01; // LUA_VFALSE
const TRUE: u8 = 0x11; // LUA_VTRUE
const NUMFLT: u8 = 0x13; // LUA_VNUMFLT
const LNGSTR: u8 = 0x54; // ctb(LUA_VLNGSTR)
const TABLE: u8 = 0x45; // ctb(LUA_VTABLE)
/// `flags` bit: `alimit` is not the array part's real size.
const BITRAS: u8 = 1 << 7;

/// Whether the layout matched (`check_layout`).
static LAYOUT: OnceLock<bool> = OnceLock::new();

/// The array part's real size (`luaH_realasize`).
fn array_size(t: &Table) -> usize {
    let a = t.alimit;
    // Lua's `ispow2` holds for 0 too.
    if t.flags & BITRAS == 0 || a & a.wrapping_sub(1) == 0 { a as usize } else { a.next_power_of_two() as usize }
}

/// Whether a string's bytes are UTF-8.
///
/// # Safety
/// `s` points to a live Lua string.
unsafe fn utf8(s: *const TString) -> bool {
    // SAFETY: a string's text follows its header: `shrlen` bytes, or
    // `u` (its length) for a long string.
    unsafe {
        let s = &*s;
        let len = if s.shrlen == 0xFF { s.u } else { usize::from(s.shrlen) };
        let bytes = std::slice::from_raw_parts(s.contents.as_ptr(), len);
        bytes.is_ascii() || std::str::from_utf8(bytes).is_ok()
    }
}

/// The tables met so far and the deepest level reached.
struct Walk {
    tables: [*const Table; SHAPE_TABLES],
    n: usize,
    deepest: usize,
}

impl Walk {
    /// The number of values in `v` (at nesting `depth`), or None.
    ///
    /// # Safety
    /// `v` points to a live value (a table's entry).
    unsafe fn value(&mut self, v: *const TValue, depth: usize) -> Option<usize> {
        if depth > MAX_DEPTH {
            return None;
        }
        // SAFETY: a value's tag tells what its `Value` holds.
        unsafe {
            let v = &*v;
            match v.tt {
                FALSE | TRUE | NUMINT => Some(1),
                NUMFLT => f64::from_bits(v.value.i as u64).is_finite().then_some(1),
                SHRSTR | LNGSTR => utf8(v.value.p as *const TString).then_some(1),
                TABLE => self.table(v.value.p as *const Table, depth),
                _ => None,
            }
        }
    }

    /// A table's values (itself included), or None.
    ///
    /// # Safety
    /// `t` points to a live table.
    unsafe fn table(&mut self, t: *const Table, depth: usize) -> Option<usize> {
        self.deepest = self.deepest.max(depth);
        if self.n == SHAPE_TABLES || self.tables[..self.n].contains(&t) {
            return None;
        }
        self.tables[self.n] = t;
        self.n += 1;
        // SAFETY: the array part has `array_size` slots and the hash part
        // 2^lsizenode nodes; an entry whose value is empty is no entry (as
        // `luaH_next` skips it).
        unsafe {
            let t = &*t;
            if !t.metatable.is_null() {
                return None;
            }
            let (mut values, mut ints, mut max, mut strings) = (1usize, 0usize, 0i64, 0usize);
            for i in 0..array_size(t) {
                let v = t.array.add(i);
                if (*v).tt & NIL_MASK != 0 {
                    ints += 1;
                    max = i as i64 + 1;
                    values += self.value(v, depth + 1)?;
                }
            }
            for i in 0..1usize << t.lsizenode {
                let n = &*t.node.add(i);
                if n.tt & NIL_MASK == 0 {
                    continue;
                }
                match n.key_tt {
                    NUMINT if n.key_val.i >= 1 => {
                        ints += 1;
                        max = max.max(n.key_val.i);
                    }
                    SHRSTR | LNGSTR if utf8(n.key_val.p as *const TString) => strings += 1,
                    _ => return None,
                }
                values += self.value((n as *const Node).cast::<TValue>(), depth + 1)?;
            }
            // A list has exactly the keys 1..n; a map only string keys.
            (ints == 0 || (strings == 0 && max == ints as i64)).then_some(values)
        }
    }
}

/// What `value::check` answers for the value at `idx`, when it is plain
/// data of the usual kind (see the module); None otherwise.
///
/// # Safety
/// `l` is a running C function's state and `idx` a valid index.
pub(super) unsafe fn check(l: *mut ffi::lua_State, idx: c_int) -> Option<Checked> {
    if LAYOUT.get() != Some(&true) {
        return None;
    }
    // SAFETY: the layout was checked (above); the caller's contract.
    unsafe { walk_unchecked(l, idx) }
}

/// `check` without asking whether the layout was checked.
///
/// # Safety
/// As `check`, and the layout is Lua 5.4.9's.
unsafe fn walk_unchecked(l: *mut ffi::lua_State, idx: c_int) -> Option<Checked> {
    // SAFETY: lua_topointer gives a table's address; the walk reads the
    // table and what it holds, all kept alive by the stack slot, and
    // changes nothing.
    unsafe {
        if ffi::lua_type(l, idx) != ffi::LUA_TTABLE {
            return None;
        }
        let mut walk = Walk { tables: [std::ptr::null(); SHAPE_TABLES], n: 0, deepest: 0 };
        let values = walk.table(ffi::lua_topointer(l, idx).cast(), 0)?;
        // `value::check` needs stack room per level (and says the data
        // nests too deeply where it cannot have it).
        if ffi::lua_checkstack(l, 2 * walk.deepest as c_int + 4) == 0 {
            return None;
        }
        Some(Checked { values, own: true })
    }
}

/// `t[key]` read in place for the table at `idx`: `Some(Some(n))` when it
/// is an integer, `Some(None)` when it is anything else or absent, `None`
/// when this cannot tell (then ask the C API).
///
/// # Safety
/// `l` is a state of a live VM and `idx` a valid index.
pub(super) unsafe fn int_field(l: *mut ffi::lua_State, idx: c_int, key: &[u8]) -> Option<Option<i64>> {
    if LAYOUT.get() != Some(&true) {
        return None;
    }
    // SAFETY: as in `check`: the slot keeps the table alive; nodes whose
    // value is empty are skipped; a string key's text follows its header.
    unsafe {
        if ffi::lua_type(l, idx) != ffi::LUA_TTABLE {
            return None;
        }
        let t = &*ffi::lua_topointer(l, idx).cast::<Table>();
        for i in 0..1usize << t.lsizenode {
            let n = &*t.node.add(i);
            if n.tt & NIL_MASK == 0 || !matches!(n.key_tt, SHRSTR | LNGSTR) {
                continue;
            }
            let s = &*(n.key_val.p as *const TString);
            let len = if s.shrlen == 0xFF { s.u } else { usize::from(s.shrlen) };
            if std::slice::from_raw_parts(s.contents.as_ptr(), len) == key {
                return Some((n.tt == NUMINT).then_some(n.value.i));
            }
        }
        Some(None)
    }
}

/// Decides once per process whether `check` is used: it must answer as
/// `value::check` does on sample data, and say nothing on the rest. A
/// comparison that could not run (an error from its VM) decides nothing,
/// and the next runtime checks again (as `stack::check`).
pub(super) fn check_layout() {
    if LAYOUT.get().is_none()
        && let Ok(same) = compare_with_api()
    {
        // A second thread may have answered meanwhile: the same answer.
        let _ = LAYOUT.set(same);
    }
}

/// Sample data: `check` must answer for the first ones, not for the others.
const SAMPLES: &str = r#"
local grown = {} for i = 1, 9 do grown[i] = i end grown[10] = 10
local hashed = {} hashed[3] = 3 hashed[2] = 2 hashed[1] = 1
local holes = {1, 2, 3, 4} holes[4] = nil
-- `#` leaves a size hint in the array part (alimit below the real size)
local hint = {} for i = 1, 16 do hint[i] = i end hint[16] = nil hint[15] = nil hint[14] = nil local _ = #hint
local hint2 = {} for i = 1, 8 do hint2[i] = i end hint2[8] = nil local _ = #hint2 hint2[8] = 8
-- keys 1..9 and 11, the hint at 9: not a list
local gap = {} for i = 1, 16 do gap[i] = i end for i = 12, 16 do gap[i] = nil end gap[10] = nil local _ = #gap
return {
  { from = 3, action = 2 },
  { queue = { { seat = 1, provinces = { 4, 5 }, extra = 0 }, { seat = 2, provinces = { 7, 8, 9 }, extra = 1 } } },
  { f = 2.5, s = "é", long = string.rep("x", 50), yes = true, no = false, [string.rep("k", 45)] = -1 },
  {}, { 1, 2, 3 }, grown, hashed, holes, hint, hint2,
}, {
  gap, setmetatable({}, {}), { 1, x = 1 }, { [2] = 1 }, { [0] = 1 }, { [1.5] = 1 }, { a = 0/0 }, { a = 1/0 },
  { "\255" }, { ["\255"] = 1 }, { print }, { { { { { { { { { { { { { { { { { 1 } } } } } } } } } } } } } } } } },
}
"#;

fn compare_with_api() -> mlua::Result<bool> {
    let lua = Lua::new();
    let (plain, other): (mlua::Table, mlua::Table) = lua.load(SAMPLES).eval()?;
    let mut same = true;
    for (list, answers) in [(plain, true), (other, false)] {
        for v in list.sequence_values::<mlua::Value>() {
            // SAFETY: both checks raise nothing and leave the stack as it was.
            unsafe {
                lua.exec_raw::<()>(v?, |l| {
                    let top = ffi::lua_gettop(l);
                    let fast = walk_unchecked(l, top);
                    let api = super::value::check(l, top).ok().filter(|c| c.own);
                    same &= if answers { fast.is_some() && fast == api } else { fast.is_none() };
                })?;
            }
        }
    }
    Ok(same)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_walk_answers_as_the_c_api_does_and_is_used() {
        assert!(super::compare_with_api().unwrap(), "the walk agrees with value::check on every sample");
        super::check_layout();
        assert_eq!(super::LAYOUT.get(), Some(&true), "the walk is in use");
    }

    /// `int_field` reads what a raw lookup reads.
    #[test]
    fn int_field_reads_integers_by_key() {
        use mlua::ffi;
        super::check_layout();
        let lua = mlua::Lua::new();
        let long = "k".repeat(45);
        let t: mlua::Table = lua.load(format!("return {{ from = 3, to = 2.0, s = 'x', [5] = 1, {long} = -7 }}")).eval().unwrap();
        for (key, want) in [("from", Some(3)), ("to", None), ("s", None), ("none", None), ("5", None), (long.as_str(), Some(-7))] {
            // SAFETY: the table is on the stack for the call.
            let got = unsafe {
                lua.exec_raw::<mlua::Value>(&t, |l| {
                    let v = super::int_field(l, ffi::lua_gettop(l), key.as_bytes());
                    ffi::lua_settop(l, 0);
                    match v {
                        Some(Some(n)) => ffi::lua_pushinteger(l, n),
                        Some(None) => ffi::lua_pushboolean(l, 0),
                        None => ffi::lua_pushnil(l),
                    }
                })
            };
            let got = match got.unwrap() {
                mlua::Value::Integer(n) => Some(Some(n)),
                mlua::Value::Boolean(_) => Some(None),
                _ => None,
            };
            assert_eq!(got, Some(want), "{key}");
        }
    }

    /// The samples include an array part whose `alimit` is a hint below
    /// its real size (so `array_size` is tested).
    #[test]
    fn a_sample_has_a_size_hint() {
        use mlua::ffi;
        let lua = mlua::Lua::new();
        let (plain, _): (mlua::Table, mlua::Table) = lua.load(super::SAMPLES).eval().unwrap();
        let mut hinted = 0;
        for v in plain.sequence_values::<mlua::Value>() {
            // SAFETY: reads the header of a table the stack holds.
            unsafe {
                lua.exec_raw::<()>(v.unwrap(), |l| {
                    let t = &*ffi::lua_topointer(l, -1).cast::<super::Table>();
                    if t.flags & super::BITRAS != 0 && super::array_size(t) != t.alimit as usize {
                        hinted += 1;
                    }
                })
                .unwrap();
            }
        }
        assert!(hinted > 0);
    }
}
