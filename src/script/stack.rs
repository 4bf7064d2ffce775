//! A raw host function's arguments and first upvalue, read in place.
//!
//! Each C API read (`lua_tointegerx`, `lua_type`, `lua_tolstring`,
//! `lua_touserdata`) is a call into the C library that finds the slot
//! again from the index; the raw host functions make about 1,700 calls and
//! read about 4,000 arguments per game, and those reads were ~4% of a
//! game. The common cases (an integer, nil or no value, a short string,
//! the function's light userdata) are a few loads from the slot itself.
//!
//! This mirrors the first fields of Lua 5.4's private structures
//! (`lua_State`, `CallInfo`, `TValue`, `CClosure`, `TString` in lstate.h
//! and lobject.h of Lua 5.4.9, which mlua builds from lua-src 551.0.2,
//! pinned in Cargo.lock). Everything else (floats, numeric strings, long
//! strings, wrong types) goes through the C API as before, so the answers
//! and the errors are the API's. `check` compares every fast read with
//! the API's once per process before the fast reads are used; a test pins
//! the lua-src version (tests/suite/sandbox.rs, `lua_src_is_the_version_stack_rs_mirrors`) so that an upgrade rechecks
//! these layouts.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use mlua::{Lua, ffi};

/// Lua 5.4's `Value` (the members read here).
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) union Value {
    /// A collectable object or a light userdata.
    pub(super) p: *mut c_void,
    pub(super) i: i64,
}

/// Lua 5.4's `TValue` (and a stack slot, `StackValue`, which has its size).
#[repr(C)]
pub(super) struct TValue {
    pub(super) value: Value,
    pub(super) tt: u8,
}

/// The first fields of `lua_State`.
#[repr(C)]
struct State {
    next: *mut c_void,
    tt: u8,
    marked: u8,
    status: u8,
    allowhook: u8,
    nci: u16,
    /// First free slot of the stack.
    top: *const TValue,
    l_g: *mut c_void,
    /// The running function's call.
    ci: *const CallInfo,
}

/// The first field of `CallInfo`.
#[repr(C)]
struct CallInfo {
    /// The function's slot; its arguments follow it.
    func: *const TValue,
}

/// `CClosure` up to its first upvalue.
#[repr(C)]
struct CClosure {
    next: *mut c_void,
    tt: u8,
    marked: u8,
    nupvalues: u8,
    gclist: *mut c_void,
    f: *mut c_void,
    upvalue: TValue,
}

/// `TString` up to its text.
#[repr(C)]
pub(super) struct TString {
    next: *mut c_void,
    tt: u8,
    marked: u8,
    extra: u8,
    /// The length of a short string (0xFF for a long one).
    pub(super) shrlen: u8,
    hash: u32,
    /// A long string's length.
    pub(super) u: usize,
    pub(super) contents: [u8; 0],
}

/// Type tags (lobject.h): variant bits 4-5, collectable bit 6.
pub(super) const NIL_MASK: u8 = 0x0F; // `novariant`: LUA_TNIL is 0
pub(super) const NUMINT: u8 = 3; // LUA_VNUMINT
pub(super) const SHRSTR: u8 = 4 | 0x40; // ctb(LUA_VSHRSTR)
const LIGHTUSERDATA: u8 = 2; // LUA_VLIGHTUSERDATA
const CCLOSURE: u8 = (6 | (2 << 4)) | 0x40; // ctb(LUA_VCCL)

/// What an argument slot holds, as far as the fast path tells.
#[derive(Debug, PartialEq)]
pub(super) enum Peek {
    /// Past the last argument (the API's "no value").
    Absent,
    Nil,
    Int(i64),
    /// A short string's text (alive while the slot holds it).
    Str(*const u8, usize),
    /// Anything else: ask the C API.
    Other,
}

/// Whether the layout matched the C API's (set once per process by
/// `check`, before any fast read).
static LAYOUT: OnceLock<bool> = OnceLock::new();

#[inline(always)]
fn fast() -> bool {
    matches!(LAYOUT.get(), Some(true))
}

/// Argument `idx` (1-based) of the running C function.
///
/// # Safety
/// `l` is the state of a C function Lua is running, `idx >= 1`.
#[inline(always)]
pub(super) unsafe fn peek(l: *mut ffi::lua_State, idx: c_int) -> Peek {
    // SAFETY: the layout matched the API's, as the caller's contract.
    if fast() { unsafe { peek_in_place(l, idx) } } else { Peek::Other }
}

/// `peek` without asking whether the layout was checked.
///
/// # Safety
/// As `peek`, and the layout is Lua 5.4's (see the module).
#[inline(always)]
unsafe fn peek_in_place(l: *mut ffi::lua_State, idx: c_int) -> Peek {
    // SAFETY: while a C function runs, `ci` is its call and `func..top`
    // its stack frame: every slot below `top` holds a value (the test
    // below keeps to those), and a value's tag tells what its `Value` is.
    unsafe {
        let st = &*(l as *const State);
        let o = (*st.ci).func.add(idx as usize);
        if o >= st.top {
            return Peek::Absent;
        }
        let o = &*o;
        match o.tt {
            NUMINT => Peek::Int(o.value.i),
            SHRSTR => {
                let s = &*(o.value.p as *const TString);
                Peek::Str(s.contents.as_ptr(), usize::from(s.shrlen))
            }
            t if t & NIL_MASK == 0 => Peek::Nil,
            _ => Peek::Other,
        }
    }
}

/// The running C function's first upvalue as a light userdata.
///
/// # Safety
/// `l` is the state of a C function Lua is running.
#[inline]
pub(super) unsafe fn upvalue1(l: *mut ffi::lua_State) -> *mut c_void {
    // SAFETY: the caller's contract; the layout was checked.
    if fast()
        && let Some(p) = unsafe { upvalue1_in_place(l) }
    {
        return p;
    }
    // SAFETY: an upvalue index of the running C function.
    unsafe { ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)) }
}

/// `upvalue1` read in place: None when it is not a light userdata.
///
/// # Safety
/// As `peek_in_place`.
#[inline]
unsafe fn upvalue1_in_place(l: *mut ffi::lua_State) -> Option<*mut c_void> {
    // SAFETY: as in `peek_in_place`; a function slot tagged as a C
    // closure points to one, whose first upvalue exists when `nupvalues`
    // is not 0.
    unsafe {
        let st = &*(l as *const State);
        let f = &*(*st.ci).func;
        if f.tt != CCLOSURE {
            return None;
        }
        let c = &*(f.value.p as *const CClosure);
        (c.nupvalues > 0 && c.upvalue.tt == LIGHTUSERDATA).then_some(c.upvalue.value.p)
    }
}

/// What the C API says of argument `idx`, in `Peek`'s terms.
unsafe fn api_peek(l: *mut ffi::lua_State, idx: c_int) -> Peek {
    // SAFETY: reads of the running C function's own slots.
    unsafe {
        match ffi::lua_type(l, idx) {
            ffi::LUA_TNONE => Peek::Absent,
            ffi::LUA_TNIL => Peek::Nil,
            ffi::LUA_TNUMBER if ffi::lua_isinteger(l, idx) != 0 => Peek::Int(ffi::lua_tointegerx(l, idx, std::ptr::null_mut())),
            ffi::LUA_TSTRING => {
                let mut len = 0usize;
                let p = ffi::lua_tolstring(l, idx, &mut len);
                Peek::Str(p.cast(), len)
            }
            _ => Peek::Other,
        }
    }
}

/// The check's C function: compares the fast reads of its arguments and
/// upvalue with the API's, returns whether all agree.
unsafe extern "C-unwind" fn compare(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C closure with one light userdata upvalue.
    // The fast reads run only on a layout that passed the tag and pointer
    // tests below, each of which reads inside the structures named.
    unsafe {
        let top = ffi::lua_gettop(l);
        let mut same = upvalue1_in_place(l) == Some(ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)));
        for i in 1..=top + 2 {
            let (fast, api) = (peek_in_place(l, i), api_peek(l, i));
            same &= match (&fast, &api) {
                // A long string is read through the API.
                (Peek::Other, Peek::Str(..)) => ffi::lua_rawlen(l, i) > 40,
                (Peek::Str(p, n), Peek::Str(q, m)) => p == q && n == m,
                _ => fast == api,
            };
        }
        ffi::lua_pushboolean(l, c_int::from(same));
        1
    }
}

/// Checks the layout once per process, before the first fast read (every
/// later call keeps the first answer): calls `compare` with one argument
/// of each kind. A layout that does not match leaves the C API in use; a
/// comparison that could not run (e.g. a VM at its memory limit) decides
/// nothing, and the next runtime checks again.
pub(super) fn check(lua: &Lua) {
    if LAYOUT.get().is_none()
        && let Ok(same) = compare_with_api(lua)
    {
        // A second thread may have answered meanwhile: the same answer.
        let _ = LAYOUT.set(same);
    }
}

fn compare_with_api(lua: &Lua) -> mlua::Result<bool> {
    let mut marker = 0u8;
    let marker_ptr = (&raw mut marker).cast::<c_void>();
    // SAFETY: pushes a C closure over a light userdata (the marker's
    // address, only compared); nothing but allocation raises.
    let f: mlua::Function = unsafe {
        lua.exec_raw((), |l| {
            ffi::lua_pushlightuserdata(l, marker_ptr);
            ffi::lua_pushcclosure(l, compare, 1);
        })?
    };
    let long = "a long string, longer than forty bytes, so not interned";
    let nil = mlua::Value::Nil;
    f.call::<bool>((7, -3, i64::MAX, 2.5, 3.0, "12", nil.clone(), "short", long, true, lua.create_table()?, nil))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_layout_matches_this_lua_and_the_fast_reads_are_used() {
        let lua = mlua::Lua::new();
        assert!(super::compare_with_api(&lua).unwrap(), "every fast read agrees with the C API");
        super::check(&lua);
        assert!(super::fast(), "the fast reads are in use");
    }
}
