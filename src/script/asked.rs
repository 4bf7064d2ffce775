//! A question's data table, from the ask to the end of the call that asked.
//!
//! `game.ask` checks its `data` as plain data (`value::check`) and keeps a
//! table in one registry slot of the runtime's; when the call returns, the
//! runtime reads the table as the call left it into plain data (JSON) for
//! the state, and empties the slot. The state never refers to the VM: a
//! continuation is handed a new table made from that data.

use std::cell::Cell;
use std::ffi::c_int;

use mlua::{Lua, ffi};
use serde_json::Value as Json;

/// The runtime's slot for the asked table (see the module).
pub(super) struct Asked {
    /// A registry reference taken once (`ready`) and never given back, so
    /// that storing into it replaces an entry: no allocation, no error.
    /// 0 until taken.
    slot: Cell<c_int>,
    /// Whether the slot holds a table the current call asked with.
    holding: Cell<bool>,
}

impl Asked {
    pub(super) fn new() -> Asked {
        Asked { slot: Cell::new(0), holding: Cell::new(false) }
    }

    /// Before a call into Lua that may ask: takes the slot if it is not
    /// taken yet (a protected call: an allocation error is an ordinary
    /// error here).
    pub(super) fn ready(&self, lua: &Lua) -> mlua::Result<()> {
        if self.slot.get() != 0 {
            return Ok(());
        }
        let mut slot = 0;
        // SAFETY: a protected call whose closure owns nothing: luaL_ref
        // may raise an allocation error, which the call catches.
        unsafe {
            lua.exec_raw::<()>((), |l| {
                ffi::lua_pushboolean(l, 0);
                slot = ffi::luaL_ref(l, ffi::LUA_REGISTRYINDEX);
            })?;
        }
        self.slot.set(slot);
        Ok(())
    }

    /// Keeps the table at `idx` until the call returns; false when there is
    /// no slot (the caller reads the data now instead).
    ///
    /// # Safety
    /// `l` is a running C function's state of this runtime's VM, and `idx`
    /// a valid index on it.
    pub(super) unsafe fn keep(&self, l: *mut ffi::lua_State, idx: c_int) -> bool {
        let slot = self.slot.get();
        if slot == 0 {
            return false;
        }
        // SAFETY: the caller's contract; the slot is ours and holds a
        // value (never nil), so rawseti replaces an entry without
        // allocating and raises nothing; pushvalue needs one free slot of
        // the C function's LUA_MINSTACK.
        unsafe {
            ffi::lua_pushvalue(l, idx);
            ffi::lua_rawseti(l, ffi::LUA_REGISTRYINDEX, ffi::lua_Integer::from(slot));
        }
        self.holding.set(true);
        true
    }

    /// After the call: the kept table as the call left it, as plain data
    /// (checked and bounded as at the ask), and the slot emptied; None when
    /// the call kept none.
    pub(super) fn take(&self, lua: &Lua) -> Option<Result<Json, String>> {
        if !self.holding.replace(false) {
            return None;
        }
        let slot = ffi::lua_Integer::from(self.slot.get());
        let mut out = None;
        // SAFETY: only calls that neither allocate nor raise run while the
        // closure's values are alive: a raw read of our slot, the plain
        // data read (`value::read` raises nothing and leaves the stack as
        // it found it), and a raw store of `false` into the
        // slot, which exists.
        let done = unsafe {
            lua.exec_raw::<()>((), |l| {
                ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, slot);
                let at = ffi::lua_gettop(l);
                // `read` refuses what the ask refuses, more than
                // `MAX_DATA_VALUES` values included.
                out = Some(super::value::read(l, at, 0).map_err(super::raw::message));
                ffi::lua_settop(l, at - 1);
                ffi::lua_pushboolean(l, 0);
                ffi::lua_rawseti(l, ffi::LUA_REGISTRYINDEX, slot);
            })
        };
        Some(match (done, out) {
            (Ok(()), Some(r)) => r.map_err(|e| format!("the question's data: {e}")),
            (Err(e), _) => Err(format!("the question's data: {}", super::raw::message(e))),
            (Ok(()), None) => Err("the question's data: not read".into()),
        })
    }
}
