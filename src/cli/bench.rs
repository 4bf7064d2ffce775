//! `shogun bench`: games per second on one core, bytes per state and per VM.

use std::time::Instant;

use super::BenchArgs;
use crate::engine::Engine;
use crate::play::play_game;

#[derive(Debug, Clone)]
pub struct BenchReport {
    pub games: u64,
    pub seconds: f64,
    pub decisions: u64,
    pub battles: u64,
    pub state_bytes_mean: f64,
    pub state_json_bytes_mean: f64,
    pub lua_vm_bytes: usize,
}

impl BenchReport {
    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.seconds
    }
}

/// Plays `games` games one after another on this thread.
pub fn run_bench(engine: &Engine, games: u64, players: u8, bots: &[String], first_seed: u64, progress: bool) -> Result<BenchReport, String> {
    run_bench_with(engine, games, players, engine.default_setup(players), bots, first_seed, progress)
}

pub fn run_bench_with(
    engine: &Engine,
    games: u64,
    players: u8,
    setup: crate::core::SetupMode,
    bots: &[String],
    first_seed: u64,
    progress: bool,
) -> Result<BenchReport, String> {
    let narrating = engine.runtime().narrating();
    engine.runtime().set_narration(false);
    let start = Instant::now();
    let (mut decisions, mut battles, mut samples, mut bytes, mut json) = (0u64, 0u64, 0u64, 0f64, 0f64);
    for g in 0..games {
        let seed = first_seed + g;
        let sample = g % 50 == 0;
        play_game(engine, players, seed, setup, bots, |step| {
            decisions += 1;
            battles += step.events.iter().filter(|e| matches!(e, crate::core::Event::Battle { .. })).count() as u64;
            if sample {
                samples += 1;
                bytes += step.after.approx_bytes() as f64;
                json += serde_json::to_vec(step.after).map(|v| v.len()).unwrap_or(0) as f64;
            }
        })
        .map_err(|e| format!("game with seed {seed}: {e}"))?;
        if progress && (g + 1) % 500 == 0 {
            eprintln!("  {} / {games} games, {:.0} games/s", g + 1, (g + 1) as f64 / start.elapsed().as_secs_f64());
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    engine.runtime().set_narration(narrating);
    Ok(BenchReport {
        games,
        seconds,
        decisions,
        battles,
        state_bytes_mean: bytes / samples.max(1) as f64,
        state_json_bytes_mean: json / samples.max(1) as f64,
        lua_vm_bytes: engine.runtime().memory_used(),
    })
}

pub fn command(args: BenchArgs) -> Result<(), String> {
    if args.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let engine = args.data.engine()?;
    let bots = super::fill_bots(&args.bots, args.players)?;
    eprintln!("playing {} games with {} players ({}) on one thread...", args.games, args.players, bots.join(","));
    let setup = args.data.spec().setup_mode(&engine, args.players);
    let r = run_bench_with(&engine, args.games, args.players, setup, &bots, args.seed, true)?;
    println!("games:            {}", r.games);
    println!("time:             {:.3} s", r.seconds);
    println!("games/s:          {:.0}", r.games_per_second());
    println!("decisions/game:   {:.1}", r.decisions as f64 / r.games as f64);
    println!("battles/game:     {:.1}", r.battles as f64 / r.games as f64);
    println!("state bytes:      {:.0} in memory, {:.0} as JSON (mean over sampled states)", r.state_bytes_mean, r.state_json_bytes_mean);
    println!("Lua VM bytes:     {}", r.lua_vm_bytes);
    Ok(())
}
