//! What the benchmarks share: a thread's CPU clock and the positions a
//! seat decides in.

use shogun_lab::core::*;
use shogun_lab::engine::Engine;
use shogun_lab::play::{Driver, Until};

/// CPU time of this thread in seconds, to the nanosecond
/// (`CLOCK_THREAD_CPUTIME_ID`), so the figures mean something on a loaded
/// machine.
pub fn cpu() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec for the call's duration.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    if ok { t.tv_sec as f64 + t.tv_nsec as f64 / 1e9 } else { 0.0 }
}

/// A number from the environment, or `default`.
pub fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Seat A's positions with more than one option in a game of four greedy
/// bots.
pub fn positions(engine: &Engine, seed: u64) -> Vec<GameState> {
    positions_of(engine, seed, "greedy")
}

/// Seat A's positions with more than one option in a game of four `bot`s.
pub fn positions_of(engine: &Engine, seed: u64, bot: &str) -> Vec<GameState> {
    let names = vec![bot.to_string(); 4];
    let mut found = Vec::new();
    let mut d = Driver::start(engine, 4, seed, SetupMode::Preset, &names).expect("start");
    let mut before = d.state.clone();
    d.run(Until::End, |step, _| {
        let seat_a = match step.decision {
            Decision::Plan { seat, .. } | Decision::Choose { seat, .. } => *seat == Seat::new(0),
            Decision::Chance => false,
        };
        let several = match engine.legal(&before) {
            Legal::Choose { options, .. } => options.len() > 1,
            Legal::Plan { .. } => true,
            _ => false,
        };
        if seat_a && several {
            found.push(before.clone());
        }
        before = step.after.clone();
    })
    .expect("game");
    found
}
