//! Seats and provinces crossing into Lua: the one place where they become
//! the numbers scripts see (from 1), for mlua's conversions and for the
//! raw host functions (`raw.rs`). Coming back, host functions read a
//! number and check it against the game (`Seat::from_number`,
//! `ProvinceId::from_number`), so a script's out-of-range number gets a
//! message naming the host function.

use mlua::state::RawLua;
use mlua::{IntoLua, Lua, Value};

use super::raw::RawRet;
use crate::core::{ProvinceId, Seat};

macro_rules! as_number {
    ($($t:ty),*) => {$(
        impl IntoLua for $t {
            #[inline]
            fn into_lua(self, _: &Lua) -> mlua::Result<Value> {
                Ok(Value::Integer(self.number()))
            }
            // As fast as a plain integer (mlua's default goes through a `Value`).
            #[inline]
            unsafe fn push_into_stack(self, lua: &RawLua) -> mlua::Result<()> {
                // SAFETY: the caller's contract, passed on unchanged.
                unsafe { self.number().push_into_stack(lua) }
            }
        }

        impl RawRet for $t {
            #[inline]
            unsafe fn push(self, l: *mut mlua::ffi::lua_State) -> Result<std::ffi::c_int, String> {
                // SAFETY: the caller's contract, passed on unchanged.
                unsafe { self.number().push(l) }
            }
        }
    )*};
}

as_number!(Seat, ProvinceId);
