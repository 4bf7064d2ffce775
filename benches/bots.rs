//! `cargo bench --bench bots`: every bot's speed on one core (issue 22
//! item 5), in CPU time so the figures mean something on a loaded machine.
//!
//! 1. Decisions per second of each bot over the same positions: every
//!    decision seat A faces with more than one option in games of four
//!    greedy bots (seeds 1..=`BOTS_BENCH_SEEDS`, default 3).
//! 2. Games per second of four-seat games of each fast bot (`random`,
//!    `greedy`, `planner`; `BOTS_BENCH_GAMES`, default 200), the work of a
//!    lab arm; the planner's ratio to greedy is the figure the issue sets
//!    (within 3×).
//! 3. One `mcts:100` seat and three planner seats: CPU seconds per
//!    4-player game (`BOTS_BENCH_MCTS_GAMES`, default 2; the goal is under
//!    1 s).

use std::path::Path;
use std::time::Instant;

use shogun_lab::bots;
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
    let seeds = env("BOTS_BENCH_SEEDS", 3) as u64;
    let all: Vec<GameState> = (1..=seeds).flat_map(|s| positions(&engine, s)).collect();
    println!("decisions per second of CPU, over seat A's {} positions with a choice (seeds 1..={seeds}):", all.len());
    for name in ["random", "greedy", "planner", "mcts:100"] {
        let mut bot = bots::by_name(name, 1).expect("bot");
        // mcts takes a few of them only (a tenth of a second each). Each
        // position is decided once: a second pass would find the
        // planner's scores remembered.
        let take = if name.starts_with("mcts") { all.len().min(30) } else { all.len() };
        let c = cpu();
        for st in &all[..take] {
            std::hint::black_box(bots::decide(&engine, st, Seat::new(0), bot.as_mut()));
        }
        let (c, done) = (cpu() - c, take);
        println!("  {name:<9} {:>10.0} decisions/s ({done} decisions, {:.1} ms CPU)", done as f64 / c, 1000.0 * c);
    }
    let games = env("BOTS_BENCH_GAMES", 200) as u64;
    println!("4-player games per second of CPU, all seats one bot ({games} games, seeds 1..={games}):");
    let mut rate = Vec::new();
    for name in ["random", "greedy", "planner"] {
        let names = vec![name.to_string(); 4];
        let (t, c) = (Instant::now(), cpu());
        for seed in 1..=games {
            std::hint::black_box(play_game(&engine, 4, seed, SetupMode::Preset, &names, |_| {}).expect("game"));
        }
        let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
        rate.push(games as f64 / c);
        println!("  {name:<9} {:>8.0} games/s ({c:.2} s CPU, {s:.2} s wall)", games as f64 / c);
    }
    println!("  greedy / planner: {:.2}× (the issue asks for at most 3×)", rate[1] / rate[2]);
    let games = env("BOTS_BENCH_MCTS_GAMES", 2) as u64;
    let names: Vec<String> = ["mcts:100", "planner", "planner", "planner"].iter().map(|s| s.to_string()).collect();
    let (t, c) = (Instant::now(), cpu());
    for seed in 1..=games {
        std::hint::black_box(play_game(&engine, 4, seed, SetupMode::Preset, &names, |_| {}).expect("game"));
    }
    let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
    println!("mcts:100 + 3 planner: {:.2} s of CPU per 4-player game ({games} games, {s:.1} s wall; the goal is under 1 s)", c / games as f64);
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
