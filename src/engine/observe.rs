//! What drivers and the lab switch and read in the runtime, through the
//! engine: the narration (off for bulk runs and lookaheads) and rule use
//! (the calls of the functions and the reads of the values a ruleset's
//! variants changed, counted only around the game's own decisions).

use super::Engine;
use crate::script::RulePart;

impl Engine {
    /// Whether scripts narrate (transcripts) or stay quiet (bulk runs).
    pub fn set_narration(&self, on: bool) {
        self.runtime.set_narration(on);
    }

    pub fn narrating(&self) -> bool {
        self.runtime.narrating()
    }

    /// The parts of the rules whose use is counted (what the variants
    /// added, replaced or changed), in the order of `take_rule_use`.
    pub fn rule_parts(&self) -> Vec<RulePart> {
        self.runtime.rule_parts()
    }

    /// Counts rule use from now on (`true`) or stops (`false`).
    pub fn count_rule_use(&self, on: bool) {
        self.runtime.count_rule_use(on);
    }

    /// The counts since the last call, per `rule_parts` entry, and zeroes them.
    pub fn take_rule_use(&self) -> Vec<u64> {
        self.runtime.take_rule_use()
    }
}
