//! Looking ahead with the rules: one of the pack's handlers called on a
//! scratch copy, outside the phase machine (`play::preview` and the REPL's
//! forecasts read what it did), and the REPL's `lua` on a copy. The copy
//! is the caller's, usually a seat's view; nothing here moves a game. The
//! play and REPL layers reach the Lua runtime only through these and the
//! engine's other methods (ARCHITECTURE.md, "Calls into the runtime").

use super::{Engine, EngineError};
use crate::core::*;
use crate::script::PhaseHandler;

impl Engine {
    /// The rules' bids handler (bids revealed, paid, ranked) on `st`.
    pub fn look_bids(&self, st: &mut GameState, events: &mut Vec<Event>) -> Result<(), EngineError> {
        self.runtime.call_phase(st, events, PhaseHandler::Bids)?;
        Ok(())
    }

    /// The rules' winter handler on `st`; the question it asks, if any.
    pub fn look_winter(&self, st: &mut GameState, events: &mut Vec<Event>) -> Result<Option<Ask>, EngineError> {
        Ok(self.runtime.call_phase(st, events, PhaseHandler::Winter)?.ask)
    }

    /// `seat` carrying out action `action` with `province`'s card on `st`
    /// (the rules' `perform` handler); the question it asks, if any.
    pub fn look_action(
        &self,
        st: &mut GameState,
        events: &mut Vec<Event>,
        action: usize,
        seat: Seat,
        province: ProvinceId,
    ) -> Result<Option<Ask>, EngineError> {
        Ok(self.runtime.call_action(st, events, action, seat, province)?.ask)
    }

    /// `ask` answered with `choice` on `st` (its continuation); the next
    /// question, if any.
    pub fn look_answer(&self, st: &mut GameState, events: &mut Vec<Event>, ask: &Ask, choice: Choice) -> Result<Option<Ask>, EngineError> {
        Ok(self.runtime.call_continuation(st, events, ask, choice)?.ask)
    }

    /// The rules' verdict on a battle (their `battle` handler): the winner
    /// (`attacker`, `defender` or `tie`) and each side's armies left.
    pub fn battle_outcome(&self, kind: &str, attacker: u32, defender: u32, peasants: u32, unrest: bool) -> Result<(String, u32, u32), EngineError> {
        Ok(self.runtime.battle_outcome(kind, attacker, defender, peasants, unrest)?)
    }

    /// The REPL's `lua`: `code` evaluated against a copy of `st` with the
    /// host API read-only; what it printed and returned, as text.
    pub fn eval_lua(&self, st: &GameState, code: &str) -> Result<String, EngineError> {
        Ok(self.runtime.eval_repl(st, code)?)
    }

    /// Whether `code` is a Lua chunk cut short (the REPL reads on).
    pub fn lua_incomplete(&self, code: &str) -> bool {
        self.runtime.incomplete(code)
    }

    /// The tower's name as the rules (or the command line) chose it.
    pub fn tower_name(&self) -> String {
        self.runtime.tower_name()
    }
}
