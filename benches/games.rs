//! `cargo bench`: full 4-player games with random bots on one core.

use std::path::Path;

use shogun_lab::cli::bench::run_bench;
use shogun_lab::engine::Engine;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = shogun_lab::rules::load(&root.join("scripts/base"), &root.join("maps/sun.yaml")).expect("rules load");
    let engine = Engine::new(rules).expect("engine");
    let games = std::env::var("BENCH_GAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let bots = vec!["random".to_string(); 4];
    let r = run_bench(&engine, games, 4, &bots, 1, false).expect("bench");
    println!(
        "games/s: {:.0} ({} games in {:.2} s); decisions/game {:.0}; state bytes {:.0} (JSON {:.0}); Lua VM bytes {}",
        r.games_per_second(),
        r.games,
        r.seconds,
        r.decisions as f64 / r.games as f64,
        r.state_bytes_mean,
        r.state_json_bytes_mean,
        r.lua_vm_bytes
    );
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
