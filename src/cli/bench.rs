//! `shogun bench`: games per second (per core and in total), bytes per
//! state and per VM.

use std::time::{Duration, Instant};

use super::BenchArgs;
use crate::engine::{CheckMode, Engine};
use crate::play::play_game;

#[derive(Debug, Clone)]
pub struct BenchReport {
    pub games: u64,
    /// Time spent playing (the state-size sampling is not counted).
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
    let mut sampling = Duration::ZERO;
    let (mut decisions, mut battles, mut samples, mut bytes, mut json) = (0u64, 0u64, 0u64, 0f64, 0f64);
    for g in 0..games {
        let seed = first_seed + g;
        let sample = g % 50 == 0;
        play_game(engine, players, seed, setup, bots, |step| {
            decisions += 1;
            battles += step.events.iter().filter(|e| matches!(e, crate::core::Event::Battle { .. })).count() as u64;
            // Every 8th state of every 50th game: serialising each state
            // cost more CPU than some of the rules (the time is not counted,
            // but the CPU is).
            if sample && decisions.is_multiple_of(8) {
                let t = Instant::now();
                samples += 1;
                bytes += step.after.approx_bytes() as f64;
                json += serde_json::to_vec(step.after).map(|v| v.len()).unwrap_or(0) as f64;
                sampling += t.elapsed();
            }
        })
        .map_err(|e| format!("game with seed {seed}: {e}"))?;
        if progress && (g + 1) % 500 == 0 {
            eprintln!("  {} / {games} games, {} games/s", g + 1, super::rate((g + 1) as f64 / (start.elapsed() - sampling).as_secs_f64()));
        }
    }
    let seconds = (start.elapsed() - sampling).as_secs_f64();
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
    if args.jobs == 0 || args.jobs as u64 > args.games {
        return Err(format!("--jobs must be between 1 and --games ({})", args.games));
    }
    let engine = args.data.engine()?;
    engine.set_check(CheckMode::parse(&args.check)?);
    let bots = super::fill_bots(&args.bots, args.players)?;
    let setup = args.data.spec().setup_mode(&engine, args.players);
    let jobs = args.jobs;
    eprintln!("playing {} games with {} players ({}) on {jobs} thread{}...", args.games, args.players, bots.join(","), if jobs == 1 { "" } else { "s" });
    let wall = Instant::now();
    let reports: Vec<BenchReport> = if jobs == 1 {
        vec![run_bench_with(&engine, args.games, args.players, setup, &bots, args.seed, true)?]
    } else {
        // One engine (and Lua VM) per thread; thread j plays a contiguous
        // share of the seeds, so the games are the same as with one job.
        let shares: Vec<(u64, u64)> = (0..jobs as u64)
            .map(|j| {
                let from = args.games * j / jobs as u64;
                let to = args.games * (j + 1) / jobs as u64;
                (args.seed + from, to - from)
            })
            .collect();
        let specs: Vec<_> = (0..jobs).map(|_| engine.spec()).collect();
        let results: Vec<Result<BenchReport, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = specs
                .into_iter()
                .zip(shares)
                .map(|(spec, (first, games))| {
                    let bots = &bots;
                    let players = args.players;
                    scope.spawn(move || {
                        let engine = spec.build().map_err(|d| d.to_string())?;
                        run_bench_with(&engine, games, players, setup, bots, first, false)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a bench thread panicked".into()))).collect()
        });
        results.into_iter().collect::<Result<_, _>>()?
    };
    let wall = wall.elapsed().as_secs_f64();
    let games: u64 = reports.iter().map(|r| r.games).sum();
    let decisions: u64 = reports.iter().map(|r| r.decisions).sum();
    let battles: u64 = reports.iter().map(|r| r.battles).sum();
    let per_core = reports.iter().map(|r| r.games_per_second()).sum::<f64>() / reports.len() as f64;
    let mean = |f: &dyn Fn(&BenchReport) -> f64| reports.iter().map(f).sum::<f64>() / reports.len() as f64;
    println!("games:            {games}");
    println!("threads:          {jobs}");
    println!("invariants:       checked {}", engine.check_mode().describe());
    if jobs == 1 {
        println!("time:             {:.3} s", reports[0].seconds);
        println!("games/s:          {}", super::rate(reports[0].games_per_second()));
    } else {
        println!("time:             {wall:.3} s (wall clock)");
        println!("games/s:          {} in total", super::rate(games as f64 / wall));
        println!("games/s per core: {} (mean over threads)", super::rate(per_core));
    }
    println!("decisions/game:   {:.1}", decisions as f64 / games as f64);
    println!("battles/game:     {:.1}", battles as f64 / games as f64);
    println!("state bytes:      {:.0} in memory, {:.0} as JSON (mean over sampled states)", mean(&|r| r.state_bytes_mean), mean(&|r| r.state_json_bytes_mean));
    println!("Lua VM bytes:     {}", reports[0].lua_vm_bytes);
    Ok(())
}
