//! Host functions as plain Lua C functions.
//!
//! A function made by mlua's `create_function` costs about 900 machine
//! instructions per call on top of its body (a lock, a pool of error
//! objects, argument conversion through its traits); the rules make a few
//! thousand host calls per game, so that was a quarter of a game's time.
//! The host functions that take and return only numbers, booleans and
//! strings are registered here instead, as C closures that read their
//! arguments from the Lua stack and push their results.
//!
//! What they keep from `api::reg`: re-entry and tower checks, errors as
//! Lua errors carrying the same messages (a string, with the traceback
//! added where the engine catches it), and panics turned into errors.

use std::any::Any;
use std::ffi::{c_int, c_void};
use std::marker::PhantomData;
use std::rc::Rc;

use mlua::{Lua, Table, ffi};

use super::Shared;
use super::lend::{Call, Host, Reads};

/// A raw host function: its body and the `Shared` it runs with. The VM
/// holds its address as the function's first upvalue (one read per call);
/// its trampoline is made for its types (`trampoline::<A, R, F>`), so the
/// body is called directly.
struct Body<A, R, F> {
    sh: *const Shared,
    name: &'static str,
    /// What a call reads of the state (`Reads::of` its name).
    reads: Reads,
    f: F,
    _types: PhantomData<fn(A) -> R>,
}

/// Keeps a raw function's `Body` alive: `Shared` owns these until the VM
/// is closed (see `fast_with_keys`).
pub(super) struct RawFn {
    _body: Box<dyn Any>,
}

/// The longest error message a host function raises (longer ones are cut).
const MAX_ERROR: usize = 2048;

pub(super) fn message(e: mlua::Error) -> String {
    match e {
        mlua::Error::RuntimeError(s) => s,
        other => other.to_string(),
    }
}

/// A string argument, borrowed from the Lua stack for the length of the
/// call (the stack slot keeps the string alive).
pub(super) struct LStr {
    pub(super) ptr: *const u8,
    len: usize,
}

impl LStr {
    pub(super) fn as_bytes(&self) -> &[u8] {
        // SAFETY: see the type's comment: the string outlives the call.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub(super) fn to_str(&self) -> mlua::Result<&str> {
        std::str::from_utf8(self.as_bytes()).map_err(|_| mlua::Error::RuntimeError("a string argument is not valid UTF-8".into()))
    }
}

/// The remaining arguments, each an integer or nil.
pub(super) struct RestInts(pub Vec<Option<i64>>);

/// Integers returned as multiple values (cheaper than a table; scripts
/// write `{game.f(...)}` when they want one). The first `INLINE` are kept
/// in place, the rest in a vector (most lists are short: no allocation).
pub(super) struct Many {
    len: usize,
    inline: [i64; Many::INLINE],
    more: Vec<i64>,
}

impl Many {
    const INLINE: usize = 16;

    pub(super) fn new() -> Many {
        Many { len: 0, inline: [0; Many::INLINE], more: Vec::new() }
    }

    pub(super) fn push(&mut self, v: i64) {
        match self.inline.get_mut(self.len) {
            Some(slot) => *slot = v,
            None => self.more.push(v),
        }
        self.len += 1;
    }
}

impl Extend<i64> for Many {
    fn extend<I: IntoIterator<Item = i64>>(&mut self, items: I) {
        for v in items {
            self.push(v);
        }
    }
}

impl FromIterator<i64> for Many {
    fn from_iter<I: IntoIterator<Item = i64>>(items: I) -> Many {
        let mut m = Many::new();
        m.extend(items);
        m
    }
}

fn type_name(l: *mut ffi::lua_State, i: c_int) -> &'static str {
    // SAFETY: lua_type and lua_typename only read.
    unsafe {
        let t = ffi::lua_type(l, i);
        if t == ffi::LUA_TNONE {
            return "no value";
        }
        std::ffi::CStr::from_ptr(ffi::lua_typename(l, t)).to_str().unwrap_or("?")
    }
}

fn bad(name: &str, i: c_int, want: &str, l: *mut ffi::lua_State) -> String {
    format!("game.{name}: argument {i} must be {want}, got {}", type_name(l, i))
}

/// Arguments read from the stack (1-based positions).
pub(super) trait RawArgs: Sized {
    /// How many stack slots the arguments take.
    const N: c_int;
    /// Implementations only read (the C API calls that neither allocate
    /// nor raise: `lua_type`, `lua_tointegerx`, `lua_tolstring` on a
    /// string, raw gets), so that a failed read is an `Err`, raised by the
    /// trampoline once the body's frame is gone.
    ///
    /// # Safety
    /// `l` is the running C function's state with its arguments at `at`...
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String>;
}

impl RawArgs for () {
    const N: c_int = 0;
    unsafe fn read(_: *mut ffi::lua_State, _: c_int, _: &str) -> Result<Self, String> {
        Ok(())
    }
}

impl RawArgs for i64 {
    const N: c_int = 1;
    #[inline(always)]
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String> {
        let mut ok = 0;
        // SAFETY: a slot of the running C function (the trait's contract);
        // lua_tointegerx converts without allocating and raises nothing.
        let v = unsafe { ffi::lua_tointegerx(l, at, &mut ok) };
        if ok == 0 { Err(bad(name, at, "an integer", l)) } else { Ok(v) }
    }
}

impl RawArgs for Option<i64> {
    const N: c_int = 1;
    #[inline(always)]
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String> {
        let mut ok = 0;
        // SAFETY: as for `i64`; lua_type only reads (an index past the
        // arguments reads as LUA_TNONE).
        unsafe {
            let v = ffi::lua_tointegerx(l, at, &mut ok);
            if ok != 0 {
                Ok(Some(v))
            } else if ffi::lua_type(l, at) <= ffi::LUA_TNIL {
                Ok(None)
            } else {
                Err(bad(name, at, "an integer", l))
            }
        }
    }
}

impl RawArgs for LStr {
    const N: c_int = 1;
    #[inline(always)]
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String> {
        // Only strings: converting a number in place would allocate, which
        // may raise (the memory limit).
        // SAFETY: a slot of the running C function (the trait's contract);
        // lua_tolstring on a string neither allocates nor raises.
        unsafe {
            if ffi::lua_type(l, at) != ffi::LUA_TSTRING {
                return Err(bad(name, at, "a string", l));
            }
            let mut len = 0usize;
            let ptr = ffi::lua_tolstring(l, at, &mut len);
            Ok(LStr { ptr: ptr.cast(), len })
        }
    }
}

impl RawArgs for RestInts {
    const N: c_int = 0;
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String> {
        // SAFETY: the trait's contract; every index up to the top is an
        // argument.
        let top = unsafe { ffi::lua_gettop(l) };
        // SAFETY: as above.
        (at..=top).map(|i| unsafe { Option::<i64>::read(l, i, name) }).collect::<Result<_, _>>().map(RestInts)
    }
}

/// A yes/no argument: anything but nil and false is yes.
pub(super) struct Flag(pub bool);

impl RawArgs for Flag {
    const N: c_int = 1;
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, _: &'static str) -> Result<Self, String> {
        // SAFETY: reads one slot of the running function's stack.
        Ok(Flag(unsafe { ffi::lua_toboolean(l, at) } != 0))
    }
}

/// A list of integers (a table with items 1..n), read with raw gets: at
/// most `IntList::MAX` items.
pub(super) struct IntList(pub Vec<i64>);

impl IntList {
    pub(super) const MAX: usize = 64;
}

impl RawArgs for IntList {
    const N: c_int = 1;
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String> {
        // SAFETY: a slot of the running C function (the trait's contract);
        // lua_type, lua_rawlen and lua_rawgeti only read (no metamethod,
        // no allocation), and each value pushed is popped at once.
        unsafe {
            if ffi::lua_type(l, at) != ffi::LUA_TTABLE {
                return Err(bad(name, at, "a list of integers", l));
            }
            let n = ffi::lua_rawlen(l, at);
            if n > IntList::MAX {
                return Err(format!("game.{name}: argument {at} holds {n} items, more than {}", IntList::MAX));
            }
            let mut out = Vec::with_capacity(n);
            for i in 1..=n {
                ffi::lua_rawgeti(l, at, i as ffi::lua_Integer);
                let mut ok = 0;
                let v = ffi::lua_tointegerx(l, -1, &mut ok);
                ffi::lua_settop(l, -2);
                if ok == 0 {
                    return Err(format!("game.{name}: item {i} of argument {at} must be an integer"));
                }
                out.push(v);
            }
            Ok(IntList(out))
        }
    }
}

macro_rules! tuple_args {
    ($($t:ident),+) => {
        impl<$($t: RawArgs),+> RawArgs for ($($t,)+) {
            const N: c_int = 0 $(+ $t::N)+;
            #[allow(unused_assignments)]
            #[inline(always)]
            unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String> {
                let mut i = at;
                Ok(($({
                    // SAFETY: the trait's contract: each part reads its
                    // own slots, the next starting where it ends.
                    let v = unsafe { $t::read(l, i, name)? };
                    i += $t::N;
                    v
                },)+))
            }
        }
    };
}
tuple_args!(A, B);
tuple_args!(A, B, C);
tuple_args!(A, B, C, D);

/// A table argument, read in place with raw reads (no metamethod runs).
pub(super) struct Spec {
    l: *mut ffi::lua_State,
    idx: c_int,
    name: &'static str,
    /// Whether the running function holds `SPEC_KEYS` as upvalues (made
    /// by `fast_with_keys`).
    keyed: bool,
}

/// The keys a `Spec` reads, held by the function that reads them as its
/// upvalues 2.. (after the one every raw function has): pushing an upvalue
/// is a copy, pushing a key's text again finds the interned string by its
/// hash (`game.ask` reads eight keys per question).
pub(super) const SPEC_KEYS: [&str; 8] = ["seat", "cont", "provinces", "counts", "pass", "data", "kind", "prompt"];

impl RawArgs for Spec {
    const N: c_int = 1;
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String> {
        // SAFETY: the trait's contract; lua_type only reads.
        if unsafe { ffi::lua_type(l, at) } != ffi::LUA_TTABLE {
            return Err(bad(name, at, "a table", l));
        }
        // SAFETY: reads an upvalue slot (a missing one reads as LUA_TNONE):
        // a function made with the `SPEC_KEYS` holds its last one.
        let keyed = unsafe { ffi::lua_type(l, ffi::lua_upvalueindex(1 + SPEC_KEYS.len() as c_int)) } == ffi::LUA_TSTRING;
        Ok(Spec { l, idx: at, name, keyed })
    }
}

impl Spec {
    /// Runs `f` with `spec[key]` pushed on the stack (at the index given),
    /// then pops it. The key is one of the function's key upvalues
    /// (`SPEC_KEYS`): pushing it is a copy, which allocates nothing and
    /// raises nothing (neither does the raw read).
    fn field<T>(&self, key: &str, f: impl FnOnce(c_int) -> mlua::Result<T>) -> mlua::Result<T> {
        let Some(i) = SPEC_KEYS.iter().position(|k| *k == key).filter(|_| self.keyed) else {
            return Err(mlua::Error::RuntimeError(format!("game.{}: `{key}` is not a key this function holds", self.name)));
        };
        // SAFETY: the C function's own stack; LUA_MINSTACK slots are free
        // and this pushes two and pops them. The key upvalue exists (see
        // `keyed`), the table is at `idx` (checked by `read`).
        unsafe {
            ffi::lua_pushvalue(self.l, ffi::lua_upvalueindex(2 + i as c_int));
            ffi::lua_rawget(self.l, self.idx);
            let top = ffi::lua_gettop(self.l);
            let out = f(top);
            ffi::lua_settop(self.l, top - 1);
            out
        }
    }

    fn err(&self, key: &str, want: &str, at: c_int) -> mlua::Error {
        mlua::Error::RuntimeError(format!("game.{}: `{key}` must be {want}, got {}", self.name, type_name(self.l, at)))
    }

    fn int_at(&self, key: &str, at: c_int) -> mlua::Result<Option<i64>> {
        // SAFETY: reads the slot `at` of the C function's own stack.
        unsafe {
            if ffi::lua_type(self.l, at) <= ffi::LUA_TNIL {
                return Ok(None);
            }
            let mut ok = 0;
            let v = ffi::lua_tointegerx(self.l, at, &mut ok);
            if ok == 0 { Err(self.err(key, "an integer", at)) } else { Ok(Some(v)) }
        }
    }

    pub(super) fn int(&self, key: &str) -> mlua::Result<Option<i64>> {
        self.field(key, |at| self.int_at(key, at))
    }

    /// A string field (the table keeps the string alive for the call).
    pub(super) fn string(&self, key: &str) -> mlua::Result<Option<LStr>> {
        self.field(key, |at| {
            // SAFETY: reads the slot `at`; a string converts without allocating.
            unsafe {
                match ffi::lua_type(self.l, at) {
                    ffi::LUA_TNIL => Ok(None),
                    ffi::LUA_TSTRING => {
                        let mut len = 0usize;
                        let ptr = ffi::lua_tolstring(self.l, at, &mut len);
                        Ok(Some(LStr { ptr: ptr.cast(), len }))
                    }
                    _ => Err(self.err(key, "a string", at)),
                }
            }
        })
    }

    /// Whether the field is set to anything but nil or false.
    pub(super) fn truthy(&self, key: &str) -> mlua::Result<bool> {
        // SAFETY: reads the slot `at`.
        self.field(key, |at| Ok(unsafe { ffi::lua_toboolean(self.l, at) } != 0))
    }

    /// A list of integers (1, 2, ... up to the first nil), or None.
    pub(super) fn ints(&self, key: &str) -> mlua::Result<Option<Vec<i64>>> {
        self.field(key, |at| {
            // SAFETY: reads the slot `at` and pushes and pops one value at a time.
            unsafe {
                match ffi::lua_type(self.l, at) {
                    ffi::LUA_TNIL => Ok(None),
                    ffi::LUA_TTABLE => {
                        let mut out = Vec::new();
                        for i in 1.. {
                            ffi::lua_rawgeti(self.l, at, i);
                            let v = self.int_at(key, at + 1);
                            ffi::lua_settop(self.l, at);
                            match v? {
                                Some(v) => out.push(v),
                                None => break,
                            }
                        }
                        Ok(Some(out))
                    }
                    _ => Err(self.err(key, "a list", at)),
                }
            }
        })
    }

    /// Runs `f` with the state and the index of the field, which stays
    /// on the stack until `f` returns (`game.ask`'s data).
    pub(super) fn at<T>(&self, key: &str, f: impl FnOnce(*mut ffi::lua_State, c_int) -> mlua::Result<T>) -> mlua::Result<T> {
        self.field(key, |at| f(self.l, at))
    }
}

/// Results pushed onto the stack.
pub(super) trait RawRet {
    /// Implementations push only values that need no allocation (numbers,
    /// booleans, nil, copies of upvalues), so pushing raises nothing.
    ///
    /// # Safety
    /// `l` is the running C function's state; at most LUA_MINSTACK values
    /// are pushed unless the implementation checks the stack.
    unsafe fn push(self, l: *mut ffi::lua_State) -> Result<c_int, String>;
}

impl RawRet for () {
    unsafe fn push(self, _: *mut ffi::lua_State) -> Result<c_int, String> {
        Ok(0)
    }
}

macro_rules! int_ret {
    ($($t:ty),+) => {$(
        impl RawRet for $t {
            unsafe fn push(self, l: *mut ffi::lua_State) -> Result<c_int, String> {
                // SAFETY: the trait's contract (a free slot); no allocation.
                unsafe { ffi::lua_pushinteger(l, self as ffi::lua_Integer) };
                Ok(1)
            }
        }
    )+};
}
int_ret!(i64, u8, u16, u32, usize);

impl RawRet for bool {
    unsafe fn push(self, l: *mut ffi::lua_State) -> Result<c_int, String> {
        // SAFETY: the trait's contract (a free slot); no allocation.
        unsafe { ffi::lua_pushboolean(l, c_int::from(self)) };
        Ok(1)
    }
}

impl<T: RawRet> RawRet for Option<T> {
    unsafe fn push(self, l: *mut ffi::lua_State) -> Result<c_int, String> {
        match self {
            // SAFETY: the trait's contract, passed on.
            Some(v) => unsafe { v.push(l) },
            None => {
                // SAFETY: the trait's contract (a free slot); no allocation.
                unsafe { ffi::lua_pushnil(l) };
                Ok(1)
            }
        }
    }
}

/// The function's `i`-th key string (see `fast_with_keys`), returned
/// without allocating: the closure holds it as an upvalue.
pub(super) struct Key(pub usize);

impl RawRet for Key {
    unsafe fn push(self, l: *mut ffi::lua_State) -> Result<c_int, String> {
        let at = c_int::try_from(self.0).ok().and_then(|i| i.checked_add(2)).ok_or("no such key")?;
        // SAFETY: a key made by `fast_with_keys` is a string upvalue; a
        // missing one reads as none (checked before it is pushed).
        unsafe {
            if ffi::lua_type(l, ffi::lua_upvalueindex(at)) != ffi::LUA_TSTRING {
                return Err("no such key".into());
            }
            ffi::lua_pushvalue(l, ffi::lua_upvalueindex(at));
        }
        Ok(1)
    }
}

impl RawRet for Many {
    unsafe fn push(self, l: *mut ffi::lua_State) -> Result<c_int, String> {
        let n = c_int::try_from(self.len).map_err(|_| "too many results".to_string())?;
        // LUA_MINSTACK (20) slots are free when a C function starts; a
        // tuple of results puts at most 4 values beside these (a 5-tuple).
        // SAFETY: lua_checkstack grows the stack or answers 0; it raises
        // nothing.
        if self.len > Many::INLINE && unsafe { ffi::lua_checkstack(l, n) } == 0 {
            return Err("too many results".into());
        }
        for &v in self.inline[..self.len.min(Many::INLINE)].iter().chain(&self.more) {
            // SAFETY: room for `n` values (checked above past the inline
            // part); no allocation.
            unsafe { ffi::lua_pushinteger(l, v) };
        }
        Ok(n)
    }
}

macro_rules! tuple_ret {
    ($($t:ident $v:ident),+) => {
        impl<$($t: RawRet),+> RawRet for ($($t,)+) {
            unsafe fn push(self, l: *mut ffi::lua_State) -> Result<c_int, String> {
                let ($($v,)+) = self;
                // SAFETY: the trait's contract, passed on to each part.
                Ok(0 $(+ unsafe { $v.push(l)? })+)
            }
        }
    };
}
tuple_ret!(A a, B b);
tuple_ret!(A a, B b, C c, D d);
tuple_ret!(A a, B b, C c, D d, E e);

/// An error on its way out of a C function: the message copied out of its
/// `String` (cut to `MAX_ERROR` bytes), so that nothing with a destructor
/// is alive when `lua_error` jumps.
struct ErrorText {
    buf: [u8; MAX_ERROR],
    len: usize,
}

impl ErrorText {
    fn new(text: String) -> ErrorText {
        let mut n = text.len().min(MAX_ERROR);
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        let mut out = ErrorText { buf: [0; MAX_ERROR], len: n };
        out.buf[..n].copy_from_slice(&text.as_bytes()[..n]);
        out
    }
}

/// What a host function's body came to, panics included (the payload
/// is dropped here): its value, or its message for `raise`. The
/// message stays a `String` until `raise` copies it out, so that the
/// common outcome, a value, is never carried in a `MAX_ERROR`-byte
/// result (this runs on every host call).
#[inline(always)]
pub(super) fn outcome<T>(outcome: std::thread::Result<Result<T, String>>) -> Result<T, String> {
    match outcome {
        Ok(result) => result,
        Err(_) => Err("a host function panicked".to_string()),
    }
}

/// Raises `message` as a Lua error (a string). The one place a host
/// function's error leaves Rust: called last by a C function, with nothing
/// but plain values alive in its frame. The message is copied out of its
/// `String` (into an `ErrorText`, dropping the `String`) before the jump,
/// so nothing with a destructor is alive when `lua_error` jumps.
///
/// # Safety
/// `l` is the state of the running C function, which calls this as its
/// last act: no frame between it and Lua holds a value with a destructor.
#[cold]
#[inline(never)]
pub(super) unsafe fn raise(l: *mut ffi::lua_State, message: String) -> ! {
    let e = ErrorText::new(message);
    // SAFETY: the caller's contract; pushing a string may itself raise a
    // memory error, which leaves by the same way.
    unsafe {
        ffi::lua_pushlstring(l, e.buf.as_ptr().cast(), e.len);
        ffi::lua_error(l)
    }
}

/// Every raw host function enters here: upvalue 1 is its `Body`. The body
/// runs in a Rust frame of its own and returns its error as a value; every
/// Rust value it made is dropped before that frame returns, and `raise`
/// runs here, last, with the error's message moved into it (it copies the
/// text out and drops the `String` before the jump).
unsafe extern "C-unwind" fn trampoline<A, R, F>(l: *mut ffi::lua_State) -> c_int
where
    A: RawArgs,
    R: RawRet,
    F: Fn(Host<'_>, A) -> mlua::Result<R>,
{
    // SAFETY: the upvalue was set by `fast_with_keys` with this very
    // trampoline and points to a `Body<A, R, F>` owned by the `Shared` it
    // names, which outlives the VM (see there); lua_touserdata only reads.
    let body = unsafe { &*(ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)) as *const Body<A, R, F>) };
    match outcome(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body.run(l)))) {
        Ok(n) => n,
        // SAFETY: the trampoline's boundary: the body's frame is gone.
        Err(e) => unsafe { raise(l, e) },
    }
}

impl<A: RawArgs, R: RawRet, F: Fn(Host<'_>, A) -> mlua::Result<R>> Body<A, R, F> {
    /// Reads the arguments, runs the body, pushes the results. Nothing
    /// here raises a Lua error (reads and pushes are of the kinds that
    /// cannot, see `RawArgs` and `RawRet`); the `Call` (which marks the
    /// runtime busy until dropped) lives only while the body runs.
    #[inline(always)]
    fn run(&self, l: *mut ffi::lua_State) -> Result<c_int, String> {
        // SAFETY: the `Shared` outlives the VM (see `fast_with_keys`).
        let sh = unsafe { &*self.sh };
        // SAFETY: called by the trampoline with the function's own stack.
        let args = unsafe { A::read(l, 1, self.name)? };
        let results = {
            let mut call = Call::enter_reading(sh, self.name, self.reads)?;
            (self.f)(call.host(), args).map_err(message)?
        };
        // SAFETY: as above.
        unsafe { results.push(l) }
    }
}

/// Sets `t[name]` to a raw host function running `f` with its arguments.
/// Like `api::reg`, it refuses calls from inside a tower model and re-entry.
pub(super) fn fast<A, R, F>(lua: &Lua, t: &Table, sh: &Rc<Shared>, name: &'static str, f: F) -> mlua::Result<()>
where
    A: RawArgs + 'static,
    R: RawRet + 'static,
    F: Fn(Host<'_>, A) -> mlua::Result<R> + 'static,
{
    fast_with_keys(lua, t, sh, name, &[], f)
}

/// `fast` for a function that reads a `Spec`: it holds `keys` (the
/// `SPEC_KEYS`) as upvalues 2.. .
pub(super) fn fast_with_keys<A, R, F>(lua: &Lua, t: &Table, sh: &Rc<Shared>, name: &'static str, keys: &[&str], f: F) -> mlua::Result<()>
where
    A: RawArgs + 'static,
    R: RawRet + 'static,
    F: Fn(Host<'_>, A) -> mlua::Result<R> + 'static,
{
    let body = Box::new(Body::<A, R, F> { sh: Rc::as_ptr(sh), name, reads: Reads::of(name), f, _types: PhantomData });
    let raw_ptr = &*body as *const Body<A, R, F> as *mut c_void;
    // The `Body` lives as long as `Shared`, which the runtime keeps until
    // after the VM is closed: the pointers stay valid while Lua can call
    // (moving the box into `RawFn` does not move what it points to).
    sh.raw_bodies.borrow_mut().push(Box::new(RawFn { _body: body }));
    // SAFETY: pushes a light userdata, the keys and a closure over them
    // (within the stack exec_raw checked), nothing that raises but
    // allocation.
    let f: mlua::Function = unsafe {
        lua.exec_raw((), |l| {
            ffi::lua_pushlightuserdata(l, raw_ptr);
            for k in keys {
                ffi::lua_pushlstring(l, k.as_ptr().cast(), k.len());
            }
            ffi::lua_pushcclosure(l, trampoline::<A, R, F>, 1 + keys.len() as c_int);
        })?
    };
    t.set(name, f)
}

/// `game.effects` answers from a table indexed by (hook, event, special
/// card, action): the answer depends on nothing else. Each entry is a
/// registry reference to the read-only list (or nil) that the full lookup
/// (`api.rs`, kept as the fallback) made the first time.
pub(super) struct EffectsCache {
    /// The hook names, with the address of the pinned Lua string of each
    /// (a script's `"tax_yield"` is usually that very string: Lua interns
    /// short strings; the text is compared when it is not).
    hooks: Vec<(*const u8, Vec<u8>)>,
    /// Bit `n` set when a hook name is `n` bytes long (63: 63 or more):
    /// most strings that name no hook are told apart by their length.
    lengths: u64,
    events: usize,
    specials: usize,
    actions: usize,
    /// 0: not looked up yet; LUA_REFNIL: no effect acts; else a reference.
    refs: Vec<c_int>,
    fallback: c_int,
}

impl EffectsCache {
    /// The number of hook `name` among those effects name (`Reads::hook`).
    pub(super) fn hook_number(&self, name: &str) -> Option<usize> {
        self.hooks.iter().position(|(_, n)| n == name.as_bytes())
    }
}

/// Replaces `t.effects` (the full lookup) with the cached one.
pub(super) fn cache_effects(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    let fallback: mlua::Function = t.get("effects")?;
    let mut names: Vec<&String> = sh.hooks.keys().collect();
    names.sort();
    let rules = &sh.rules;
    let (events, specials, actions) = (rules.cards.events.len() + 1, rules.cards.specials.len() + 1, rules.cards.actions.len() + 1);
    let mut pinned: Vec<usize> = Vec::with_capacity(names.len());
    let mut fallback_ref = 0;
    // SAFETY: pushes the names and the fallback and keeps them in the
    // registry (never released: they live as long as the VM); the string
    // addresses stay valid while the strings are alive.
    unsafe {
        lua.exec_raw::<()>(&fallback, |l| {
            fallback_ref = ffi::luaL_ref(l, ffi::LUA_REGISTRYINDEX);
            for name in &names {
                ffi::lua_pushlstring(l, name.as_ptr().cast(), name.len());
                pinned.push(ffi::lua_tolstring(l, -1, std::ptr::null_mut()) as usize);
                ffi::luaL_ref(l, ffi::LUA_REGISTRYINDEX);
            }
        })?;
    }
    let hooks = names.iter().zip(pinned).map(|(n, p)| (p as *const u8, n.as_bytes().to_vec())).collect::<Vec<_>>();
    let size = hooks.len() * events * specials * actions;
    let lengths = hooks.iter().fold(0, |bits, (_, n)| bits | length_bit(n.len()));
    *sh.effects_cache_raw.borrow_mut() = Some(EffectsCache { hooks, lengths, events, specials, actions, refs: vec![0; size], fallback: fallback_ref });
    t.set("effects", over_shared(lua, sh, effects_entry)?)
}

/// A C function whose upvalue 1 is the `Shared` (as a light userdata: the
/// `Shared` outlives the VM), for host functions that read their own
/// arguments and build their own results (`game.effects`, `game.board`).
pub(super) fn over_shared(lua: &Lua, sh: &Rc<Shared>, f: ffi::lua_CFunction) -> mlua::Result<mlua::Function> {
    let sh_ptr = Rc::as_ptr(sh) as *mut c_void;
    // SAFETY: pushes a light userdata and a C closure over it (within the
    // stack `exec_raw` checked); only allocation may raise, which
    // `exec_raw` catches.
    unsafe {
        lua.exec_raw((), |l| {
            ffi::lua_pushlightuserdata(l, sh_ptr);
            ffi::lua_pushcclosure(l, f, 1);
        })
    }
}

/// A string length's bit in `EffectsCache::lengths`.
fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

/// Where the answer for these arguments is kept, or None when no effect
/// names the hook (the answer is nil). Checks the arguments as the full
/// lookup does, in the same order.
fn effects_slot(sh: &Shared, l: *mut ffi::lua_State) -> Result<Option<usize>, String> {
    // SAFETY: the running C function's own arguments.
    let (hook, seat, action) = unsafe { <(LStr, Option<i64>, Option<i64>)>::read(l, 1, "effects") }?;
    let mut call = Call::enter(sh, "effects")?;
    let slot = call.host().with_state(|sh, st| {
        let rt = mlua::Error::RuntimeError;
        let cache = sh.effects_cache_raw.borrow();
        let cache = cache.as_ref().expect("set at start-up");
        // The pinned string itself (the common case), else a hook of the
        // same text (86% of the calls name no hook: most have a length no
        // hook has).
        let by_text = || (cache.lengths & length_bit(hook.len) != 0).then(|| cache.hooks.iter().position(|(_, n)| n == hook.as_bytes())).flatten();
        let Some(h) = cache.hooks.iter().position(|(p, _)| *p == hook.ptr).or_else(by_text) else {
            return Ok(None);
        };
        let special = match seat {
            Some(s) => {
                sh.reads.set(sh.reads.get().with(Reads::hook(h)));
                st.special_of(crate::core::Seat::new(sh.seat(st, "effects", s)?))
            }
            None => None,
        };
        let a = match action {
            Some(a) if a >= 1 && (a as usize) < cache.actions => a as usize,
            Some(a) => return Err(rt(format!("game.effects: action {a} does not exist"))),
            None => 0,
        };
        let e = st.event.map_or(0, |e| e as usize + 1);
        let c = special.map_or(0, |c| c as usize + 1);
        Ok(Some(((h * cache.events + e) * cache.specials + c) * cache.actions + a))
    });
    slot.map_err(message)
}

/// What `game.effects` answers for its arguments.
enum Found {
    /// No effect acts: nil.
    Nil,
    /// The list kept in this registry reference.
    Kept(c_int),
    /// Not looked up yet: the full lookup (a registry reference) runs, and
    /// its answer is kept in `slot`.
    Miss { slot: usize, fallback: c_int },
}

fn effects_found(sh: &Shared, l: *mut ffi::lua_State) -> Result<Found, String> {
    let Some(slot) = effects_slot(sh, l)? else { return Ok(Found::Nil) };
    let cache = sh.effects_cache_raw.borrow();
    let cache = cache.as_ref().expect("set at start-up");
    Ok(match cache.refs[slot] {
        ffi::LUA_REFNIL => Found::Nil,
        0 => Found::Miss { slot, fallback: cache.fallback },
        known => Found::Kept(known),
    })
}

unsafe extern "C-unwind" fn effects_entry(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: upvalue 1 is the `Shared` (see `cache_effects`), which
    // outlives the VM; lua_touserdata only reads.
    let sh = unsafe { &*(ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)) as *const Shared) };
    // The error is raised before anything else, so that what follows
    // holds only the plain `Found`: `effects_miss` may raise too, and no
    // value with a destructor (the error's `String`) may be in scope then.
    let found = match outcome(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| effects_found(sh, l)))) {
        Ok(found) => found,
        // SAFETY: the boundary: the lookup's frame is gone, and the
        // message is moved into `raise`.
        Err(e) => unsafe { raise(l, e) },
    };
    // SAFETY: the C function's own stack (three arguments at most, one
    // result); the registry references were made by `cache_effects`
    // and `effects_miss`. Every Rust value of the lookup is gone.
    unsafe {
        match found {
            Found::Nil => ffi::lua_pushnil(l),
            Found::Kept(known) => {
                ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, ffi::lua_Integer::from(known));
            }
            Found::Miss { slot, fallback } => effects_miss(sh, l, slot, fallback),
        }
    }
    1
}

/// Runs the full lookup (a protected call) and keeps its answer in `slot`;
/// leaves the answer on the stack. Its error, and an allocation error of
/// the registry, are raised here with no Rust value alive but plain ones.
///
/// # Safety
/// `l` is `effects_entry`'s state, which calls this last.
#[cold]
unsafe fn effects_miss(sh: &Shared, l: *mut ffi::lua_State, slot: usize, fallback: c_int) {
    // SAFETY: the C function's stack: three arguments, the function
    // inserted below them, called with the three and one result.
    unsafe {
        ffi::lua_settop(l, 3);
        ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, ffi::lua_Integer::from(fallback));
        ffi::lua_insert(l, 1);
        if ffi::lua_pcall(l, 3, 1, 0) != ffi::LUA_OK {
            // The error value as the lookup raised it.
            ffi::lua_error(l);
        }
        ffi::lua_pushvalue(l, -1);
        let r = ffi::luaL_ref(l, ffi::LUA_REGISTRYINDEX);
        if let Some(cache) = sh.effects_cache_raw.borrow_mut().as_mut() {
            cache.refs[slot] = r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_returns_every_value_in_order_past_its_inline_part() {
        let lua = Lua::new();
        for n in [0, 1, Many::INLINE, Many::INLINE + 1, 40] {
            let many: Many = (0..n as i64).map(|v| v * 3).collect();
            // SAFETY: pushes `n` integers; `push` checks the stack past the
            // inline part.
            let got: mlua::Variadic<i64> = unsafe {
                lua.exec_raw((), |l| {
                    many.push(l).unwrap();
                })
            }
            .unwrap();
            assert_eq!(got.to_vec(), (0..n as i64).map(|v| v * 3).collect::<Vec<_>>(), "{n} values");
        }
    }
}
