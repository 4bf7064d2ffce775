//! Question data kept as the script's own Lua table while a game is played.
//!
//! `game.ask` checks its `data` as plain data (`value::check`) and, when it
//! is a table, keeps that table in a slot of the Lua registry instead of
//! turning it into JSON; the continuation gets the same table back. JSON
//! is made only when something outside the game needs it (saving, a
//! comparison, the engine's atomic `apply`, see `AskData`), by reading the
//! table through its `Held` handle.
//!
//! A `Held` is shared by the clones of a state (an `Arc`): a continuation is
//! handed the table itself only when the state it plays is the handle's
//! only holder, else a copy made from JSON, so the other holders keep their
//! data as it was.
//!
//! The handle is `Send` (states cross threads in the lab), but it reads
//! its Lua state only on the thread that made it and only while the
//! runtime lives; elsewhere reading it is an error, never a touch of the VM.
//! Dropping a handle anywhere only queues its slot; the runtime empties
//! queued slots before its next call into Lua (`Slots::ready`).

use std::cell::RefCell;
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;

use mlua::{Lua, ffi};
use serde_json::Value as Json;

/// A runtime's registry slots for held tables: slots it took with
/// `luaL_ref` and never gives back to Lua, so that storing into one
/// replaces an existing entry (no allocation, so nothing can raise).
struct Home {
    /// The VM's main state.
    lua: *mut ffi::lua_State,
    thread: ThreadId,
    /// Cleared by the runtime, on its thread, before the VM closes.
    alive: AtomicBool,
    /// Slots whose handles were dropped, to empty before reuse.
    released: Mutex<Vec<c_int>>,
    dirty: AtomicBool,
}

// SAFETY: `lua` is dereferenced only by `Held::with_table`, on `thread`
// while `alive`; the runtime (not Send, so on that thread) clears `alive`
// before the VM closes. The other fields are Sync.
unsafe impl Send for Home {}
// SAFETY: as for Send.
unsafe impl Sync for Home {}

struct Slot {
    id: c_int,
    home: Arc<Home>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.home.released.lock().unwrap_or_else(PoisonError::into_inner).push(self.id);
        self.home.dirty.store(true, Ordering::Release);
    }
}

/// A table held for a pending question (see the module).
#[derive(Clone)]
pub struct Held(Arc<Slot>);

impl Held {
    /// Runs `f` with the table pushed on its runtime's main stack (at the
    /// index given), then pops it.
    fn with_table<R>(&self, f: impl FnOnce(*mut ffi::lua_State, c_int) -> R) -> Result<R, String> {
        let home = &self.0.home;
        if std::thread::current().id() != home.thread {
            return Err("the question's data is held by an engine on another thread".into());
        }
        if !home.alive.load(Ordering::Acquire) {
            return Err("the question's data was held by an engine that is gone".into());
        }
        // SAFETY: on the VM's thread while it lives (checked above). The
        // registry slot is ours; rawgeti and the reads in `f` do not raise,
        // and the stack is left as it was.
        unsafe {
            let l = home.lua;
            if ffi::lua_checkstack(l, 2) == 0 {
                return Err("the question's data cannot be read (Lua stack)".into());
            }
            ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, ffi::lua_Integer::from(self.0.id));
            let top = ffi::lua_gettop(l);
            let r = f(l, top);
            ffi::lua_settop(l, top - 1);
            Ok(r)
        }
    }

    /// The data as JSON (checked as at the ask: a script may have changed
    /// its table since).
    pub fn json(&self) -> Result<Json, String> {
        // SAFETY: `read` raises nothing and leaves the stack as it found it.
        self.with_table(|l, at| unsafe { super::value::read(l, at, 0) })?.map_err(|e| format!("the question's data: {}", super::raw::message(e)))
    }

    /// `data[key]` when it is an integer, read in place (what
    /// `json()?.get(key)?.as_i64()` answers, without building the JSON).
    pub fn int(&self, key: &str) -> Option<i64> {
        self.with_table(|l, at| {
            // SAFETY: walks the table's entries with lua_next (no
            // allocation, no metamethod); leaves the stack as it was.
            unsafe {
                ffi::lua_pushnil(l);
                while ffi::lua_next(l, at) != 0 {
                    let top = ffi::lua_gettop(l);
                    if ffi::lua_type(l, top - 1) == ffi::LUA_TSTRING {
                        let mut len = 0usize;
                        let p = ffi::lua_tolstring(l, top - 1, &mut len);
                        if std::slice::from_raw_parts(p.cast::<u8>(), len) == key.as_bytes() {
                            let v = (ffi::lua_isinteger(l, top) != 0).then(|| ffi::lua_tointeger(l, top));
                            ffi::lua_settop(l, at);
                            return v;
                        }
                    }
                    ffi::lua_settop(l, top - 1);
                }
                None
            }
        })
        .ok()
        .flatten()
    }

    /// Whether both are the same handle (then they hold the same data).
    pub fn same(&self, other: &Held) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The runtime's side of the held tables.
pub(super) struct Slots {
    home: Arc<Home>,
    /// Empty slots (each holds `false`).
    free: RefCell<Vec<c_int>>,
}

/// Slots taken from the registry at a time.
const GROW: usize = 4;

impl Slots {
    pub(super) fn new(lua: &Lua) -> Slots {
        let home = Home {
            lua: lua.state(),
            thread: std::thread::current().id(),
            alive: AtomicBool::new(true),
            released: Mutex::new(Vec::new()),
            dirty: AtomicBool::new(false),
        };
        Slots { home: Arc::new(home), free: RefCell::new(Vec::new()) }
    }

    /// Before a call into Lua that may ask: empties the slots of dropped
    /// handles (their tables may be collected) and makes sure a free one is
    /// there, so that `hold` never allocates.
    pub(super) fn ready(&self, lua: &Lua) -> mlua::Result<()> {
        if self.home.dirty.swap(false, Ordering::Acquire) {
            let ids = std::mem::take(&mut *self.home.released.lock().unwrap_or_else(PoisonError::into_inner));
            // SAFETY: outside any call, on the VM's thread; each slot is
            // ours and holds a table, so rawseti replaces an entry without
            // allocating.
            unsafe {
                let l = self.home.lua;
                if ffi::lua_checkstack(l, 1) != 0 {
                    for &id in &ids {
                        ffi::lua_pushboolean(l, 0);
                        ffi::lua_rawseti(l, ffi::LUA_REGISTRYINDEX, ffi::lua_Integer::from(id));
                    }
                }
            }
            self.free.borrow_mut().extend(ids);
        }
        if self.free.borrow().is_empty() {
            let mut ids = [0 as c_int; GROW];
            // SAFETY: a protected call: an allocation error in luaL_ref is
            // an ordinary error here; the closure owns nothing.
            unsafe {
                lua.exec_raw::<()>((), |l| {
                    for id in ids.iter_mut() {
                        ffi::lua_pushboolean(l, 0);
                        *id = ffi::luaL_ref(l, ffi::LUA_REGISTRYINDEX);
                    }
                })?;
            }
            self.free.borrow_mut().extend(ids);
        }
        Ok(())
    }

    /// Holds the table at `idx` of a running host function's stack, in a
    /// free slot. Allocates nothing in Lua and raises nothing; `None` when
    /// no slot is free (then the caller keeps JSON).
    ///
    /// # Safety
    /// `l` is a state of this runtime's VM and `idx` a valid index.
    pub(super) unsafe fn hold(&self, l: *mut ffi::lua_State, idx: c_int) -> Option<Held> {
        let id = self.free.borrow_mut().pop()?;
        // SAFETY: the slot is ours and holds `false` (see `ready`).
        unsafe {
            ffi::lua_pushvalue(l, idx);
            ffi::lua_rawseti(l, ffi::LUA_REGISTRYINDEX, ffi::lua_Integer::from(id));
        }
        Some(Held(Arc::new(Slot { id, home: self.home.clone() })))
    }

    /// The slot of `h` when this runtime holds it and `h` is its only
    /// handle: then the continuation may have the table itself.
    pub(super) fn sole(&self, h: &Held) -> Option<c_int> {
        (Arc::ptr_eq(&h.0.home, &self.home) && Arc::strong_count(&h.0) == 1).then_some(h.0.id)
    }

    /// The VM is closing: handles still around can no longer be read.
    pub(super) fn close(&self) {
        self.home.alive.store(false, Ordering::Release);
    }
}
