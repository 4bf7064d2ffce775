//! `cargo bench --bench mcts`: the search bot's speed on one core.
//!
//! 1. Decisions per second of `mcts:100` and `mcts:400` over the same
//!    positions: every decision seat A faces (with more than one option)
//!    in a game of four greedy bots, seed 1.
//! 2. Full 4-player games with one `mcts:400` seat and three greedy seats.
//!
//! `MCTS_BENCH_POSITIONS` (default 40) caps the positions, `MCTS_BENCH_GAMES`
//! (default 2) sets the number of full games.

use std::path::Path;
use std::time::Instant;

use shogun_lab::bots::{self, Budget, Forbid, Mcts};
use shogun_lab::core::*;
use shogun_lab::engine::Engine;
use shogun_lab::play::play_game;

mod common;
use common::{cpu, env, positions};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = shogun_lab::rules::load(&root.join("scripts/base"), &root.join("maps/sun.yaml")).expect("rules load");
    let engine = Engine::new(rules).expect("engine");
    engine.runtime().set_narration(false);
    let mut positions = positions(&engine, 1);
    positions.truncate(env("MCTS_BENCH_POSITIONS", 40));
    for budget in [100, 400] {
        let mut bot = Mcts::new(1, Budget::Iterations(budget), Forbid::default());
        let (t, c) = (Instant::now(), cpu());
        for st in &positions {
            std::hint::black_box(bots::decide(&engine, st, Seat::new(0), &mut bot));
        }
        let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
        let n = positions.len() as f64;
        println!("mcts:{budget}: {:.1} decisions/s of CPU ({:.0} ms each; {} decisions, {c:.2} s CPU, {s:.2} s wall)", n / c, 1000.0 * c / n, positions.len());
    }
    let games = env("MCTS_BENCH_GAMES", 2);
    let names: Vec<String> = ["mcts:400", "greedy", "greedy", "greedy"].iter().map(|s| s.to_string()).collect();
    let (t, c) = (Instant::now(), cpu());
    for seed in 1..=games as u64 {
        std::hint::black_box(play_game(&engine, 4, seed, SetupMode::Preset, &names, |_| {}).expect("game"));
    }
    let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
    println!("mcts:400 + 3 greedy: {:.2} s of CPU per 4-player game ({games} games, {c:.1} s CPU, {s:.1} s wall)", c / games as f64);
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
