//! How a host function reaches the game state lent for a call.
//!
//! `Runtime::invoke` lends a `&mut GameState` to the VM for one Lua call
//! (`Lend` in mod.rs keeps a raw pointer to it in `Shared::state`). A host
//! function gets a `Host` from its `Call`, by value and not `Clone`: its only
//! way to the state is `with_state` or `with_state_mut`, which consume it
//! and lend the state to a closure. So a body cannot hold two references to
//! the state (a second `with_state` is a use after move, a compile error),
//! and the reference cannot outlive the closure. The closure gets the
//! `Shared` as a plain `&Shared`, which has no way to the state.
//!
//! Lua run from inside the closure (a tower model, table allocation) cannot
//! reach the state again: every host function starts with `Call::enter`,
//! which refuses while another call runs.

use std::ops::Deref;

use super::Shared;
use crate::core::GameState;

/// The message for game.* called from inside a Lua tower model.
pub(super) const IN_TOWER: &str = "game.* is not available inside a tower model (it gets the cubes and a `random` function)";

/// A host function call in progress: made once per call by the entry
/// points (`raw::fast`, `api::reg`, `raw::effects_slot`), it refuses a call
/// from inside a tower model and re-entry, and marks the runtime busy until
/// dropped.
pub(super) struct Call<'a>(&'a Shared);

/// What host functions read of the game state, beyond what a caller can
/// key an answer by: the board as `game.board()` shows it and the number
/// of seats. Gathered across calls until `Runtime::take_reads`, so that a
/// bot knows exactly what a scoring read (docs/bots.md): one that read
/// neither gives the same answer for every position with the same board
/// view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// The round (`game.year`, `game.season`).
    pub round: bool,
    /// Anything else (every other host function, writes included, except
    /// those that only record: `add_points`, `tally`, `log`).
    pub other: bool,
    /// What a seat's special card (its turn-order space) can have changed:
    /// bit `n` when `game.effects` was asked for the `n`-th hook any effect
    /// names on behalf of a seat (`Runtime::consulted`), every bit when a
    /// seat's special was read itself (`game.special`). A call that asked
    /// for none of a special's hooks runs alike whoever holds it.
    pub specials: u64,
}

impl Reads {
    /// What a call of the host function `name` reads (by its name, once
    /// when the function is registered).
    pub(super) fn of(name: &str) -> Reads {
        match name {
            "board" | "seats" | "add_points" | "award" | "tally" | "log" => Reads::default(),
            "year" | "season" => Reads { round: true, ..Reads::default() },
            "special" => Reads { other: true, specials: u64::MAX, ..Reads::default() },
            _ => Reads { other: true, ..Reads::default() },
        }
    }

    pub(super) fn with(self, more: Reads) -> Reads {
        Reads { round: self.round | more.round, other: self.other | more.other, specials: self.specials | more.specials }
    }

    /// The reads of asking for hook number `h`'s effects on behalf of a
    /// seat (every bit beyond the 64th hook).
    pub(super) fn hook(h: usize) -> Reads {
        Reads { specials: if h < 64 { 1 << h } else { u64::MAX }, ..Reads::default() }
    }
}

impl<'a> Call<'a> {
    #[inline]
    pub(super) fn enter(sh: &'a Shared, name: &str) -> Result<Call<'a>, String> {
        Call::enter_reading(sh, name, Reads::of(name))
    }

    /// `enter` for a function whose reads (`Reads::of` its name) are
    /// known already.
    #[inline]
    pub(super) fn enter_reading(sh: &'a Shared, name: &str, reads: Reads) -> Result<Call<'a>, String> {
        if sh.in_tower.get() {
            return Err(IN_TOWER.into());
        }
        if sh.busy.replace(true) {
            return Err(format!("game.{name} was called while another game.* call was running"));
        }
        sh.reads.set(sh.reads.get().with(reads));
        Ok(Call(sh))
    }

    /// The call's access to the state. It borrows the call, so there is
    /// never more than one.
    #[inline]
    pub(super) fn host(&mut self) -> Host<'_> {
        Host(self.0)
    }
}

impl Drop for Call<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.busy.set(false);
    }
}

/// One host function call's access to the lent state (see the module).
pub(super) struct Host<'a>(&'a Shared);

impl<'a> Host<'a> {
    /// Runs `f` with the state lent for this call, to read.
    #[inline]
    pub(super) fn with_state<T>(self, f: impl FnOnce(&'a Shared, &GameState) -> mlua::Result<T>) -> mlua::Result<T> {
        self.lend(|sh, st| f(sh, st))
    }

    /// Runs `f` with the state lent for this call, to change. `what` names
    /// the host function in the refusal under a read-only view.
    #[inline]
    pub(super) fn with_state_mut<T>(self, what: &str, f: impl FnOnce(&'a Shared, &mut GameState) -> mlua::Result<T>) -> mlua::Result<T> {
        if self.0.read_only.get() {
            return Err(mlua::Error::RuntimeError(format!("game.{what} changes the game, which is not allowed here (read-only view)")));
        }
        self.lend(f)
    }

    #[inline]
    fn lend<T>(self, f: impl FnOnce(&'a Shared, &mut GameState) -> mlua::Result<T>) -> mlua::Result<T> {
        let sh = self.0;
        let p = sh.state.get();
        if p.is_null() {
            return Err(mlua::Error::RuntimeError("the game state is only lent to scripts during a call".into()));
        }
        // SAFETY: `Runtime::invoke` set the pointer from a `&mut GameState`
        // it does not touch until the Lua call returns (`Lend` clears it
        // after, even on a panic). No Lua tower runs (`Call::enter` checked
        // that). This `Host` is the only one of the only
        // `Call` running (`Call::enter` refuses a second while one runs,
        // and every host function enters through it), and it is consumed
        // here: the reference made here, alive only inside `f`, is the
        // only one derived from the pointer.
        f(sh, unsafe { &mut *p })
    }
}

impl Deref for Host<'_> {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Lend;

    #[test]
    fn the_state_is_lent_once_per_call_and_only_inside_the_closure() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let rules = crate::rules::load(&root.join("scripts/base"), &root.join("maps/sun.yaml")).unwrap();
        let engine = crate::engine::Engine::new(rules).unwrap();
        let mut st = engine.new_game(3, 1).unwrap();
        let sh = &*engine.runtime().shared;
        // Outside a Lua call there is nothing to lend.
        let mut call = Call::enter(sh, "seats").unwrap();
        let err = call.host().with_state(|_, st| Ok(st.seats())).unwrap_err();
        assert!(err.to_string().contains("only lent to scripts during a call"), "{err}");
        drop(call);
        let _lent = Lend::new(sh, &mut st);
        let mut call = Call::enter(sh, "seats").unwrap();
        // A second host call while one runs is refused.
        let err = Call::enter(sh, "year").err().unwrap();
        assert!(err.contains("game.year was called while another game.* call was running"), "{err}");
        let seats = call
            .host()
            .with_state(|sh, st| {
                // Nothing run from inside the closure reaches the state again.
                assert!(Call::enter(sh, "owner").is_err());
                Ok(st.seats())
            })
            .unwrap();
        assert_eq!(seats, 3);
        // A read-only view refuses the changing lending before lending.
        sh.read_only.set(true);
        let err = call.host().with_state_mut("gain", |_, _| Ok(())).unwrap_err();
        assert!(err.to_string().contains("game.gain changes the game"), "{err}");
        sh.read_only.set(false);
        drop(call);
        assert!(!sh.busy.get(), "the call is over");
        assert!(Call::enter(sh, "year").is_ok());
    }
}
