//! `shogun soak`: many bot games over every combination of players, maps,
//! setups, towers, variants and bots, each played twice on two separate
//! engines to check that it is deterministic, with the invariants checked
//! after every decision and refused decisions tried along the way to check
//! that a refusal leaves the position untouched. With `--fresh`, the
//! second play of each game is on an engine built for that game alone, so
//! anything an engine carried over from the games it played before (state
//! a script kept between calls) shows as a difference; and the first play
//! runs a memory-heavy call every `STIR_EVERY` decisions (`STIRS`), so that
//! a rule whose outcome depends on what earlier calls left in the VM's
//! memory shows too.

use std::collections::{BTreeMap, HashMap};

use clap::Args;

use super::GameData;
use crate::core::{Decision, GameState, SetupMode};
use crate::engine::{CheckMode, Engine};
use crate::play::{GameSpec, fingerprint, play_game};

#[derive(Args, Debug)]
pub struct SoakArgs {
    #[command(flatten)]
    pub data: GameData,
    /// Games to play (each is played twice).
    #[arg(long, default_value_t = 200)]
    pub games: u64,
    /// First seed (game i uses seed + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Try refused decisions at every n-th decision (0: never).
    #[arg(long, default_value_t = 4)]
    pub probe_every: u64,
    /// Play each game's second time on a fresh engine (built for that game
    /// alone) instead of one that has played the games before it: the
    /// first play's engine has played other games, and runs a
    /// memory-heavy call every 4th decision, so state kept between
    /// calls or games (in scripts or in the VM's memory) shows as a
    /// difference. Slower (one load per game).
    #[arg(long)]
    pub fresh: bool,
}

pub const EXAMPLES: &str = "Examples:\n  shogun soak --games 100\n  shogun soak --games 5000 --seed 1000\n\n\
Game i has seed + i and a combination of variant (none or each shipped one), players (3-5), map \
(each in maps/), setup (the map's default, or draft), tower (the rules' own, or each other one except \
`scripted`) and bots (random, greedy, mixed); each of these turns over on its own period. It is played on one engine, probed \
with refused decisions, and played again on a second engine; both transcripts and final states must be \
identical. With --fresh the second engine is built anew for each game, while the first has played \
every game before it and runs a memory-heavy call (deep recursion) every 4th decision. Exit status 1 \
on any problem.";

/// How often (in decisions) the first play of a game runs a stir with
/// `--fresh`.
const STIR_EVERY: u64 = 4;

/// Calls that grow the VM's stack and CallInfo list, taken in turn: run
/// between decisions of the first play only, so that a rule whose outcome
/// depends on what earlier calls left in memory (one that could see a
/// memory error, or that needs nearly all of the limit) plays differently
/// there than on the fresh engine. The first leaves about 3 MiB, below the
/// heap's watermark (script/heap.rs: nothing is tidied after it); the
/// second about 18 MiB, above it.
const STIRS: [&str; 2] = [
    "local function deep(n) if n > 0 then return 1 + deep(n - 1) end return 0 end return deep(30000)",
    "local function deep(n) if n > 0 then return 1 + deep(n - 1) end return 0 end return deep(190000)",
];

/// One game's combination.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Combo {
    variant: Option<String>,
    players: u8,
    map: String,
    draft: bool,
    tower: Option<String>,
    bots: usize,
}

/// What an engine is built from: variant, map, tower.
type RulesetKey = (Option<String>, String, Option<String>);

const BOT_SETS: [&str; 3] = ["random", "greedy", "mixed"];

fn bots(set: usize, players: u8) -> Vec<String> {
    (0..players as usize).map(|s| if set == 2 { ["greedy", "random"][s % 2] } else { BOT_SETS[set] }.to_string()).collect()
}

/// What one play of a game gave.
struct Played {
    hash: u64,
    state: String,
    decisions: u64,
}

#[derive(Default)]
struct Tally {
    games: u64,
    decisions: u64,
    probes: u64,
    refused: u64,
    /// Refused decisions that changed the state (must stay 0).
    changed: u64,
    /// Games whose two plays differ (must stay 0).
    divergent: u64,
    by: BTreeMap<String, u64>,
    problems: Vec<String>,
}

fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

/// A decision that must be refused at `st` (or `None` if none is known):
/// chance acting while a seat must decide, or a decision already taken.
fn refused_candidates(st: &GameState, engine: &Engine, recent: &[Decision]) -> Vec<Decision> {
    let mut out = Vec::new();
    if !matches!(engine.actor(st), crate::core::Actor::Chance) {
        out.push(Decision::Chance);
    }
    out.extend(recent.iter().filter(|d| !matches!(d, Decision::Chance)).cloned());
    out
}

fn play(engine: &Engine, combo: &Combo, seed: u64, probe_every: u64, stir_every: u64, tally: &mut Tally) -> Result<Played, String> {
    let setup = if combo.draft { SetupMode::Draft } else { engine.default_setup(combo.players) };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut decisions = 0u64;
    let mut recent: Vec<Decision> = Vec::new();
    let mut failure: Option<String> = None;
    let st = play_game(engine, combo.players, seed, setup, &bots(combo.bots, combo.players), |step| {
        decisions += 1;
        fnv(&mut hash, &serde_json::to_vec(step.decision).unwrap_or_default());
        fnv(&mut hash, &serde_json::to_vec(step.events).unwrap_or_default());
        if probe_every > 0 && decisions.is_multiple_of(probe_every) {
            let before = fingerprint(step.after);
            for bad in refused_candidates(step.after, engine, &recent) {
                let mut probe = step.after.clone();
                tally.probes += 1;
                if engine.apply(&mut probe, &bad).is_err() {
                    tally.refused += 1;
                    if fingerprint(&probe) != before {
                        tally.changed += 1;
                        failure.get_or_insert_with(|| format!("a refused {bad:?} changed the state at decision {decisions}"));
                    }
                }
            }
        }
        if !matches!(step.decision, Decision::Chance) {
            recent.insert(0, step.decision.clone());
            recent.truncate(2);
        }
        if stir_every > 0 && decisions.is_multiple_of(stir_every) {
            // Only the memory it leaves matters (and it changes nothing).
            let stir = STIRS[(decisions / stir_every % 2) as usize];
            let _ = engine.runtime().eval_readonly(step.after, stir);
        }
    })
    .map_err(|e| e.to_string())?;
    if let Some(f) = failure {
        return Err(f);
    }
    Ok(Played { hash, state: fingerprint(&st), decisions })
}

/// The values each dimension of a combination takes.
struct Dimensions {
    variants: Vec<Option<String>>,
    towers: Vec<Option<String>>,
    maps: Vec<String>,
}

impl Dimensions {
    /// No variant and each shipped one; the rules' own tower and each
    /// other one but `scripted` (it cannot throw by itself); every map.
    fn of(spec: &GameSpec, engine: &Engine) -> Dimensions {
        let layout = spec.layout();
        let mut variants: Vec<Option<String>> = vec![None];
        variants.extend(layout.known_variants().into_iter().map(Some));
        let mut towers: Vec<Option<String>> = vec![None];
        towers.extend(engine.rules.rules.towers.iter().filter(|(_, t)| !t.forced_only()).map(|(n, _)| Some(n.clone())));
        Dimensions { variants, towers, maps: layout.known_maps() }
    }

    /// Game `i`'s combination. Each dimension turns over on its own
    /// period, so that a short run already sees every value of each.
    fn combo(&self, i: u64) -> Combo {
        let i = i as usize;
        Combo {
            variant: self.variants[i % self.variants.len()].clone(),
            players: 3 + (i % 3) as u8,
            map: self.maps[i % self.maps.len()].clone(),
            draft: (i / self.variants.len()) % 2 == 1,
            tower: self.towers[i % self.towers.len()].clone(),
            bots: (i / self.towers.len()) % BOT_SETS.len(),
        }
    }
}

impl Combo {
    fn label(&self, g: u64, seed: u64) -> String {
        format!(
            "game {g} (seed {seed}, {}, {} players, {}, {}, tower {}, {} bots)",
            self.variant.as_deref().unwrap_or("base"),
            self.players,
            self.map,
            if self.draft { "draft" } else { "preset" },
            self.tower.as_deref().unwrap_or("default"),
            BOT_SETS[self.bots]
        )
    }

    /// The rows of the summary's count by combination this game adds to.
    fn rows(&self) -> [String; 6] {
        [
            format!("variant {}", self.variant.as_deref().unwrap_or("(none)")),
            format!("players {}", self.players),
            format!("map {}", self.map),
            format!("setup {}", if self.draft { "draft" } else { "map default" }),
            format!("tower {}", self.tower.as_deref().unwrap_or("(the rules' own)")),
            format!("bots {}", BOT_SETS[self.bots]),
        ]
    }
}

/// Plays game `c` once on an engine of each cache (made on first use),
/// probing refused decisions in the first play only; a problem is noted in
/// the tally and ends the game's plays. `fresh`: the second cache is
/// emptied first, so the second play is on a new engine, and the first
/// play is stirred (`STIRS`).
fn play_twice(
    engines: &mut [HashMap<RulesetKey, Engine>; 2],
    base: &GameSpec,
    c: &Combo,
    seed: u64,
    args: &SoakArgs,
    label: &str,
    tally: &mut Tally,
) -> Vec<Played> {
    let (probe_every, fresh) = (args.probe_every, args.fresh);
    let key = (c.variant.clone(), c.map.clone(), c.tower.clone());
    let mut plays = Vec::new();
    for (n, cache) in engines.iter_mut().enumerate() {
        if n == 1 && fresh {
            cache.clear();
        }
        if !cache.contains_key(&key) {
            let spec = GameSpec { map: c.map.clone(), variants: c.variant.iter().cloned().collect(), tower: c.tower.clone(), setup: None, ..base.clone() };
            match spec.engine() {
                Ok(e) => {
                    e.set_check(CheckMode::Every);
                    cache.insert(key.clone(), e);
                }
                Err(e) => {
                    tally.problems.push(format!("{label}: the rules did not load: {e}"));
                    break;
                }
            }
        }
        let stir_every = if n == 0 && fresh { STIR_EVERY } else { 0 };
        match play(&cache[&key], c, seed, if n == 0 { probe_every } else { 0 }, stir_every, tally) {
            Ok(p) => plays.push(p),
            Err(e) => {
                tally.problems.push(format!("{label}, play {}: {e}", n + 1));
                break;
            }
        }
    }
    plays
}

impl Tally {
    /// The summary on standard output, the first problems on standard
    /// error; an error when there was any.
    fn report(&self, seconds: f64) -> Result<(), String> {
        println!("soak: {} games, each played twice, in {seconds:.1} s", self.games);
        println!("  decisions:              {} per play (invariants checked after every one)", self.decisions);
        println!("  refused decisions:      {} of {} tried; {} changed the state", self.refused, self.probes, self.changed);
        println!("  games that differ:      {} (transcript hash and final state)", self.divergent);
        println!("  games that failed:      {}", self.problems.len() as u64 - self.divergent);
        println!("  games by combination:");
        for (k, n) in &self.by {
            println!("    {k:<32} {n}");
        }
        if self.problems.is_empty() {
            println!("soak: OK");
            return Ok(());
        }
        for p in self.problems.iter().take(20) {
            eprintln!("  {p}");
        }
        Err(format!("soak: {} problem(s)", self.problems.len()))
    }
}

pub fn command(args: SoakArgs) -> Result<(), String> {
    if args.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let base = args.data.spec();
    let dims = Dimensions::of(&base, &base.engine()?);
    eprintln!(
        "soak: {} games, each played twice{}, over {} rulesets (none and each variant), 3-5 players, {} maps, 2 setups, {} towers, {} bot sets",
        args.games,
        if args.fresh { " (the second time on a fresh engine)" } else { "" },
        dims.variants.len(),
        dims.maps.len(),
        dims.towers.len(),
        BOT_SETS.len()
    );
    let bar = super::Progress::games(args.games);
    // Two engines per ruleset: the second play of a game never shares a VM
    // with the first, and each engine has played other games before (or,
    // with --fresh, the second is new for every game).
    let mut engines: [HashMap<RulesetKey, Engine>; 2] = [HashMap::new(), HashMap::new()];
    let mut tally = Tally::default();
    let started = std::time::Instant::now();
    for g in 0..args.games {
        let c = dims.combo(g);
        let seed = args.seed + g;
        let label = c.label(g, seed);
        let plays = play_twice(&mut engines, &base, &c, seed, &args, &label, &mut tally);
        tally.games += 1;
        if let [a, b] = &plays[..] {
            tally.decisions += a.decisions;
            if a.hash != b.hash || a.state != b.state {
                tally.divergent += 1;
                tally.problems.push(format!("{label}: the two plays differ (transcript {:016x} vs {:016x}, state {} vs {})", a.hash, b.hash, a.state, b.state));
            }
        }
        for k in c.rows() {
            *tally.by.entry(k).or_default() += 1;
        }
        bar.set(g + 1);
    }
    bar.finish();
    tally.report(started.elapsed().as_secs_f64())
}
