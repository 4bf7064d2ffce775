//! The only clock the game's code may read: the time budget of a search bot
//! (`mcts:50ms`), documented as not reproducible. Bots with an iteration
//! budget never start a stopwatch, so their games stay fixed by (rules,
//! seed, bots). `the_core_reads_no_files_and_uses_no_other_randomness`
//! checks that nothing else under the core uses it.

use std::time::{Duration, Instant};

pub struct Stopwatch(Instant);

impl Stopwatch {
    pub fn start() -> Stopwatch {
        Stopwatch(Instant::now())
    }

    pub fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
}
