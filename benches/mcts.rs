//! `cargo bench --bench mcts`: the search bot's speed on one core.
//!
//! 1. Decisions per second of `mcts:100` and `mcts:400` over the same
//!    positions: every decision seat A faces (with more than one option)
//!    in a game of four greedy bots, seed 1.
//! 2. Full 4-player games with one `mcts:400` seat and three greedy seats.
//! 3. With `MCTS_BENCH_AGREE=N` (N games, off by default): how often two
//!    deciders make the same decision, plans and questions apart, over
//!    every decision seat A faces (more than one option) in N games of four
//!    planners, seeds 95001 on: the planner against `mcts:100`, `mcts:100`
//!    against itself, against `mcts:400`, and `mcts:400` against itself
//!    (each pair of searches with two bot seeds: other worlds). Where the search is stopped by its noise,
//!    a bigger budget agrees more with itself; where it is stopped by what
//!    its rollouts and values see, the budgets agree with each other.
//!
//! `MCTS_BENCH_POSITIONS` (default 40) caps the positions, `MCTS_BENCH_GAMES`
//! (default 2) sets the number of full games (0: none).

use std::path::Path;
use std::time::Instant;

use shogun_lab::bots::{self, Budget, Forbid, Mcts};
use shogun_lab::core::*;
use shogun_lab::engine::Engine;
use shogun_lab::play::play_game;

mod common;
use common::{cpu, env, positions, positions_of};

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
    if games > 0 {
        println!("mcts:400 + 3 greedy: {:.2} s of CPU per 4-player game ({games} games, {c:.1} s CPU, {s:.1} s wall)", c / games as f64);
    }
    let agree = env("MCTS_BENCH_AGREE", 0) as u64;
    if agree > 0 {
        agreement(&engine, agree);
    }
}

/// Section 3 (see the top): the share of equal decisions of pairs of deciders.
fn agreement(engine: &Engine, games: u64) {
    let deciders = [("planner", 1), ("mcts:100", 1), ("mcts:100", 2), ("mcts:400", 1), ("mcts:400", 2)];
    let pairs = [
        (0, 1, "planner / mcts:100"),
        (1, 2, "mcts:100 / mcts:100, other seed"),
        (1, 4, "mcts:100 / mcts:400, other seed"),
        (3, 4, "mcts:400 / mcts:400, other seed"),
    ];
    // Per pair: (equal plans, equal answers); and the number of each.
    let mut same = [(0u32, 0u32); 4];
    let (mut plans, mut questions) = (0u32, 0u32);
    for seed in 95_001..95_001 + games {
        for st in positions_of(engine, seed, "planner") {
            let d: Vec<Decision> = deciders
                .iter()
                .map(|&(name, s)| {
                    let mut bot = bots::by_name(name, s).expect("bot");
                    bots::decide(engine, &st, Seat::new(0), bot.as_mut())
                })
                .collect();
            let plan = matches!(d[0], Decision::Plan { .. });
            if plan {
                plans += 1
            } else {
                questions += 1
            }
            for (k, &(a, b, _)) in pairs.iter().enumerate() {
                if d[a] == d[b] {
                    if plan { same[k].0 += 1 } else { same[k].1 += 1 }
                }
            }
        }
    }
    println!("equal decisions over seat A's positions in {games} planner games (seeds 95001..): {plans} plans, {questions} questions");
    for (k, &(_, _, name)) in pairs.iter().enumerate() {
        println!("  {name:<34} plans {}/{plans}, questions {}/{questions}", same[k].0, same[k].1);
    }
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
