//! The variant lab: plays the same seeded games under two or more rulesets
//! ("arms") and says, with intervals, what differs.
//!
//! Game `i` of every arm uses the seed `seed + i` and the same bot seeds
//! (common random numbers), so identical rulesets play identical games and
//! a change shows up as a paired difference. Games run in parallel (one
//! engine per worker thread and arm), and are folded into the statistics in
//! game order, so the result is the same for any number of jobs and for
//! shards merged afterwards. Nothing here reads or writes files: the caller
//! gets every record through a callback (the CLI writes JSONL).

pub mod html;
pub mod ladder;
pub mod metrics;
pub mod report;
pub mod rule_use;
pub mod stats;
pub mod tune;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use metrics::ByIndex;
pub use metrics::{Collector, Flat, GameRecord, Names};
pub use report::Report;
use stats::Sums;

use crate::core::SetupMode;
use crate::engine::{CheckMode, Engine, Limits, RulePart};
use crate::play::GameSpec;
use crate::rules::Rules;

/// One ruleset under comparison.
#[derive(Clone)]
pub struct Arm {
    /// The canonical ruleset name (`base+hard-winter(loss=2)`).
    pub name: String,
    pub rules: Arc<Rules>,
    /// The arm's own tower (`--tower` inside the arm), if any.
    pub tower: Option<String>,
}

/// What every arm is played under: a tower and a set of bots. More than
/// one condition is a sensitivity analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// `None`: each arm's own tower (its `--tower`, else the rules' default).
    pub tower: Option<String>,
    /// The bot of each seat before rotation (players adapted per arm: the
    /// planner their tuning started from).
    pub bots: Vec<String>,
    /// Players adapted per arm (`lab --adapt`): per arm, the bot of each
    /// seat, in place of `bots`. Empty: every arm plays `bots`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_arm: Vec<Vec<String>>,
}

impl Condition {
    /// The condition's name in reports. Players adapted per arm differ by
    /// arm, so the label says what a difference there is made of.
    pub fn label(&self) -> String {
        let mut bots = self.bots.clone();
        bots.dedup();
        let tower = self.tower.as_deref().unwrap_or("(ruleset's)");
        if self.adapted() {
            return format!("tower {tower}, rules + each arm's tuned players ({} adapted per arm)", bots.join(","));
        }
        format!("tower {tower}, bots {}", bots.join(","))
    }

    /// Whether every arm plays its own players here (`lab --adapt`).
    pub fn adapted(&self) -> bool {
        !self.per_arm.is_empty()
    }

    /// The bots arm `arm` plays under this condition, by seat before rotation.
    pub fn bots_of(&self, arm: usize) -> &[String] {
        self.per_arm.get(arm).unwrap_or(&self.bots)
    }
}

/// Everything that fixes a lab run's results (written as the JSONL header
/// and checked when shards are merged).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub format: u32,
    /// The program that played the games (`shogun-lab 0.1.0`): another
    /// version may play other games from the same seeds.
    pub version: String,
    pub arms: Vec<String>,
    /// Per arm (in `arms` order): every rules file it loaded, hashed.
    pub rules: Vec<ArmRules>,
    pub conditions: Vec<Condition>,
    pub players: u8,
    pub map: String,
    pub setup: String,
    pub seats: Vec<String>,
    pub seed: u64,
    /// Games per arm and condition asked for.
    pub games: u64,
    pub rotate: bool,
    /// `[first, end)` game indices this run plays (a shard's slice).
    pub range: (u64, u64),
    /// `--until-ci W`, if the run stopped on an interval width.
    pub until_ci: Option<f64>,
    /// Games per arm and condition actually played, from the range's
    /// first: the range's length unless `--until-ci` stopped earlier.
    pub played: u64,
    /// `--adapt`: how each arm's players were tuned, and the weights found
    /// (the conditions with `per_arm` bots play them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapt: Option<tune::Adaptation>,
}

/// Where one arm's rules came from: each file it loaded with the SHA-256
/// of its text (`Rules::sources`), and `hash`, the SHA-256 of all of them
/// with the arm's name (its variants' options) and tower. Every record
/// carries its arm's `hash`; `merge` refuses files whose hashes differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmRules {
    pub hash: String,
    /// The functions the arm's variants added or replaced, then the values
    /// their overlays changed: each record's `rule_use` counts their calls
    /// and reads in this order (the rule use).
    pub parts: Vec<RulePart>,
    /// (file, SHA-256): `rules.yaml`, `cards.yaml`, `map sun.yaml`,
    /// `variant NAME`, `lua FILE`, in load order.
    pub files: Vec<(String, String)>,
    /// How many provinces the arm's map has: a record's `provinces` add
    /// up to at most this. Absent from the files of older runs, which
    /// `merge` bounds by `MAX_PROVINCES`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provinces: Option<u32>,
}

impl ArmRules {
    pub fn of(arm: &Arm, parts: Vec<RulePart>) -> ArmRules {
        let mut text = format!("arm\t{}\ntower\t{}\n", arm.name, arm.tower.as_deref().unwrap_or(""));
        for (file, hash) in &arm.rules.sources {
            text.push_str(&format!("file\t{file}\t{hash}\n"));
        }
        // The map is among the files hashed: its province count adds nothing to the hash.
        let provinces = u32::try_from(arm.rules.map.provinces.len()).ok();
        ArmRules { hash: crate::rules::sha256(text.as_bytes()), parts, files: arm.rules.sources.clone(), provinces }
    }
}

/// The JSONL format: 2 since records carry `record`, `rules_hash` and
/// seat letters as winners.
pub const FORMAT: u32 = 2;

/// This program's name and version, as headers record it.
pub fn version() -> String {
    format!("shogun-lab {}", env!("CARGO_PKG_VERSION"))
}

impl Arm {
    /// The ruleset a spec describes (map, pack, variants, tower), loaded
    /// and checked.
    pub fn from_spec(spec: &GameSpec) -> Result<Arm, String> {
        Arm::from_spec_as(spec, "--variant")
    }

    /// [`Arm::from_spec`], naming the variants' flag `flag` in messages
    /// (`--against` for the arms after the first).
    pub fn from_spec_as(spec: &GameSpec, flag: &str) -> Result<Arm, String> {
        Ok(Arm::from_rules(spec.rules_as(flag)?, spec.tower.clone()))
    }

    /// An arm from rules already loaded (the REPL's current rules).
    pub fn from_rules(rules: Rules, tower: Option<String>) -> Arm {
        let name = match &tower {
            Some(t) => format!("{}@{t}", rules.ruleset_name()),
            None => rules.ruleset_name(),
        };
        Arm { name, rules: Arc::new(rules), tower }
    }
}

/// How a lab runs, apart from its arms, bots and towers.
#[derive(Clone, Debug)]
pub struct Settings {
    pub players: u8,
    /// `None`: the map's presets when it has them, else the draft.
    pub setup: Option<SetupMode>,
    pub seed: u64,
    pub games: u64,
    /// The slice of games to play (`None`: all).
    pub range: Option<(u64, u64)>,
    /// `None`: rotate when the bots of a set differ.
    pub rotate: Option<bool>,
    /// `None`: every core.
    pub jobs: Option<usize>,
    pub until_ci: Option<f64>,
    pub batch: u64,
    /// When the engine checks its invariants (a sample by default: a
    /// broken invariant still stops the run, found a little later).
    pub check: CheckMode,
}

impl Settings {
    pub fn new(players: u8, seed: u64, games: u64) -> Settings {
        Settings { players, setup: None, seed, games, range: None, rotate: None, jobs: None, until_ci: None, batch: 500, check: CheckMode::Sample }
    }
}

/// A lab run: the header plus what to run it with.
pub struct Lab {
    pub header: Header,
    pub arms: Vec<Arm>,
    pub setup: SetupMode,
    pub jobs: usize,
    /// Stop once every headline interval is narrower than this many
    /// percentage points (checked after each batch).
    pub until_ci: Option<f64>,
    /// Games per batch (between checks of `until_ci` and progress updates).
    pub batch: u64,
    pub check: CheckMode,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LabError {
    #[error("{0}")]
    Setup(String),
    #[error("arm `{arm}`, game {game} (seed {seed}): {message}")]
    Game { arm: String, game: u64, seed: u64, message: String },
    #[error("merge: {0}")]
    Merge(String),
    #[error("{0}")]
    Output(String),
}

impl Lab {
    /// A lab comparing `arms` under every bot set × tower (`towers` empty:
    /// each arm's own tower). Checks everything before a game is played;
    /// `flag` names the bot option in messages.
    pub fn new(arms: Vec<Arm>, bot_sets: &[Vec<String>], flag: &str, towers: &[String], s: Settings) -> Result<Lab, String> {
        if s.games == 0 {
            return Err("--games must be at least 1".into());
        }
        if s.jobs == Some(0) {
            return Err("--jobs must be at least 1".into());
        }
        let Some(first) = arms.first() else { return Err("the lab needs at least one ruleset".into()) };
        for a in &arms {
            let r = &a.rules.rules.players;
            if s.players < r.min || s.players > r.max {
                return Err(format!("--players {}: arm `{}` is for {} to {} players", s.players, a.name, r.min, r.max));
            }
        }
        for t in towers {
            for a in &arms {
                if !a.rules.rules.towers.contains_key(t) {
                    return Err(format!("--towers: arm `{}` has no tower `{t}`{}", a.name, a.rules.rules.towers_for(t)));
                }
            }
        }
        if !towers.is_empty() && arms.iter().any(|a| a.tower.is_some()) {
            return Err("--towers runs every arm under each tower: drop the arms' own --tower".into());
        }
        let tower_list: Vec<Option<String>> = if towers.is_empty() { vec![None] } else { towers.iter().cloned().map(Some).collect() };
        let mut conditions = Vec::new();
        for bots in bot_sets {
            let bots = crate::bots::fill_seats(bots, s.players, false, flag)?;
            for t in &tower_list {
                conditions.push(Condition { tower: t.clone(), bots: bots.clone(), per_arm: Vec::new() });
            }
        }
        // Setup: as asked, else the map's default; every arm must allow it.
        let setup = s.setup.unwrap_or(if first.rules.map.presets.contains_key(&s.players) { SetupMode::Preset } else { SetupMode::Draft });
        if setup == SetupMode::Preset {
            for a in &arms {
                if !a.rules.map.presets.contains_key(&s.players) {
                    return Err(format!("arm `{}`: map `{}` has no preset for {} players (use --setup draft)", a.name, a.rules.map.name, s.players));
                }
            }
        }
        let differ = conditions.iter().any(|c| c.bots.windows(2).any(|w| w[0] != w[1]));
        let range = s.range.unwrap_or((0, s.games));
        // Which functions each arm's variants add or replace, which values
        // they change: known once its scripts have run.
        let mut rules = Vec::new();
        for a in &arms {
            let e = Engine::with_options((*a.rules).clone(), a.tower.as_deref(), Limits::default()).map_err(|d| format!("arm `{}`: {d}", a.name))?;
            rules.push(ArmRules::of(a, e.rule_parts()));
        }
        let header = Header {
            format: FORMAT,
            version: version(),
            arms: arms.iter().map(|a| a.name.clone()).collect(),
            rules,
            conditions,
            players: s.players,
            map: first.rules.map.name.clone(),
            setup: setup.to_string(),
            seats: crate::core::Seat::all(s.players as usize).map(|i| first.rules.seat_name(i).to_string()).collect(),
            seed: s.seed,
            games: s.games,
            rotate: s.rotate.unwrap_or(differ),
            range,
            until_ci: s.until_ci,
            played: range.1.saturating_sub(range.0),
            adapt: None,
        };
        let jobs = s.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
        Ok(Lab { header, arms, setup, jobs, until_ci: s.until_ci, batch: s.batch, check: s.check })
    }
}

impl Lab {
    /// Adds the players adapted per arm (`lab --adapt`): for each tower the
    /// run's conditions use, a condition in which every seat of an arm
    /// plays that arm's tuned planner; the header records the tuning.
    pub fn adapt(&mut self, adaptation: tune::Adaptation) -> Result<(), String> {
        let h = &mut self.header;
        if adaptation.arms.len() != self.arms.len() {
            return Err(format!("--adapt: {} tuned players for {} arms", adaptation.arms.len(), self.arms.len()));
        }
        let n = h.players as usize;
        let per_arm: Vec<Vec<String>> = adaptation.arms.iter().map(|a| vec![a.bot.clone(); n]).collect();
        let mut towers: Vec<Option<String>> = Vec::new();
        for c in &h.conditions {
            if !towers.contains(&c.tower) {
                towers.push(c.tower.clone());
            }
        }
        for tower in towers {
            h.conditions.push(Condition { tower, bots: vec![adaptation.from.clone(); n], per_arm: per_arm.clone() });
        }
        h.adapt = Some(adaptation);
        Ok(())
    }
}

/// The slice `k` (1-based) of `n` of `games` game indices.
pub fn shard_range(games: u64, k: u64, n: u64) -> Result<(u64, u64), LabError> {
    if n == 0 || k == 0 || k > n {
        return Err(LabError::Setup(format!("--shard {k}/{n}: expected K/N with 1 <= K <= N")));
    }
    let lo = games * (k - 1) / n;
    let hi = games * k / n;
    Ok((lo, hi))
}

/// The bots of each seat in game `g`: rotated one seat per game when
/// `rotate`, so every bot plays every seat equally often.
pub fn seat_bots(bots: &[String], g: u64, rotate: bool) -> Vec<String> {
    let n = bots.len();
    if !rotate || n == 0 {
        return bots.to_vec();
    }
    let r = (g % n as u64) as usize;
    (0..n).map(|s| bots[(s + r) % n].clone()).collect()
}

static RUNS: AtomicU64 = AtomicU64::new(0);

/// Which engine a worker needs: (run, arm, tower).
type EngineKey = (u64, usize, Option<String>);

thread_local! {
    /// Engines of the current run on this worker.
    static ENGINES: RefCell<Vec<(EngineKey, Rc<Engine>)>> = const { RefCell::new(Vec::new()) };
}

fn engine_for(run: u64, arm_idx: usize, arm: &Arm, tower: Option<&str>, check: CheckMode) -> Result<Rc<Engine>, LabError> {
    let key = (run, arm_idx, tower.map(str::to_string));
    ENGINES.with(|cell| {
        let mut cache = cell.borrow_mut();
        if let Some((_, e)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(e.clone());
        }
        cache.retain(|((r, _, _), _)| *r == run);
        let e = Engine::with_options((*arm.rules).clone(), tower, Limits::default()).map_err(|d| LabError::Setup(format!("arm `{}`: {d}", arm.name)))?;
        e.set_narration(false);
        e.set_check(check);
        let e = Rc::new(e);
        cache.push((key, e.clone()));
        Ok(e)
    })
}

/// Plays game `g` of condition `c` under arm `a` and returns its record.
fn play_one(lab: &Lab, run: u64, c: usize, a: usize, g: u64) -> Result<GameRecord, LabError> {
    let h = &lab.header;
    let arm = &lab.arms[a];
    let cond = &h.conditions[c];
    let tower = cond.tower.as_deref().or(arm.tower.as_deref());
    let engine = engine_for(run, a, arm, tower, lab.check)?;
    let seed = h.seed.wrapping_add(g);
    let fail = |message: String| LabError::Game { arm: arm.name.clone(), game: g, seed, message };
    let names = seat_bots(cond.bots_of(a), g, h.rotate);
    let mut col = Collector::new(&engine, h.players as usize);
    let st =
        crate::play::play_game(&engine, h.players, seed, lab.setup, &names, |step| col.observe(step.events, step.after)).map_err(|e| fail(e.to_string()))?;
    let mut rec = col.finish(&engine, &st).map_err(|e| fail(e.to_string()))?;
    rec.condition = c;
    rec.game = g;
    rec.arm = a;
    rec.ruleset = arm.name.clone();
    rec.rules_hash = h.rules[a].hash.clone();
    rec.rule_use = engine.take_rule_use();
    rec.seed = seed;
    rec.bots = names;
    Ok(rec)
}

/// Sums of every metric of one arm under one condition.
#[derive(Clone, Debug, Default)]
pub struct ArmSums {
    pub metrics: BTreeMap<String, Sums>,
    /// Distributions of a few per-game counts (value -> games).
    pub hist: BTreeMap<String, BTreeMap<i64, u64>>,
    /// Per function of `ArmRules::parts`: (calls, games with a call).
    pub rule_calls: Vec<(u64, u64)>,
    /// Games in which any of them was called.
    pub rule_games: u64,
}

/// Sums of the paired differences (arm `a` minus arm `b`, game by game;
/// `a` is written before `b` on the command line, so the later arm is the
/// reference: `--variant X --against base` measures X minus base).
#[derive(Clone, Debug, Default)]
pub struct PairSums {
    pub a: usize,
    pub b: usize,
    pub diffs: BTreeMap<String, Sums>,
    /// Games where every metric of the two arms was equal.
    pub identical: u64,
}

/// Everything the report is computed from, per condition.
#[derive(Clone, Debug, Default)]
pub struct CondSums {
    pub games: u64,
    pub arms: Vec<ArmSums>,
    pub pairs: Vec<PairSums>,
}

pub const HISTOGRAMS: &[&str] = &["margin", "battles", "decisions"];

/// Sums by metric index (`metrics::Names`), of the metrics added.
type Acc = ByIndex<Sums>;

/// Adds `v` to the sums of metric `i`.
fn add_to(acc: &mut Acc, i: u32, v: f64) {
    acc.slot(i).0.add(v);
}

/// The sums by name.
fn named(acc: &Acc, names: &Names) -> BTreeMap<String, Sums> {
    acc.iter().map(|(i, s)| (names.name(i).to_string(), *s)).collect()
}

/// One arm's sums while folding (`ArmSums` by metric index).
#[derive(Clone, Debug, Default)]
struct ArmAcc {
    metrics: Acc,
    /// Per `HISTOGRAMS` entry: value -> games.
    hist: Vec<BTreeMap<i64, u64>>,
    rule_calls: Vec<(u64, u64)>,
    rule_games: u64,
}

/// One pair's sums while folding (`PairSums` by metric index).
#[derive(Clone, Debug, Default)]
struct PairAcc {
    a: usize,
    b: usize,
    diffs: Acc,
    identical: u64,
}

#[derive(Clone, Debug, Default)]
struct CondAcc {
    games: u64,
    arms: Vec<ArmAcc>,
    pairs: Vec<PairAcc>,
}

/// The statistics so far, folded in game order.
pub struct Aggregate {
    pub header: Header,
    names: Names,
    conds: Vec<CondAcc>,
    /// The records of the game being added, flattened (kept for their
    /// buffers).
    flat: Vec<Flat>,
    /// `HISTOGRAMS` by metric index.
    hist: Vec<u32>,
}

impl Aggregate {
    pub fn new(header: Header) -> Aggregate {
        let k = header.arms.len();
        let pairs: Vec<PairAcc> = (0..k).flat_map(|a| (a + 1..k).map(move |b| PairAcc { a, b, ..PairAcc::default() })).collect();
        let conds = header.conditions.iter().map(|_| CondAcc { games: 0, arms: vec![ArmAcc::default(); k], pairs: pairs.clone() }).collect();
        let names = Names::new(&header.seats);
        let hist = HISTOGRAMS.iter().map(|h| names.get(h).expect("every histogram is a metric of every game")).collect();
        Aggregate { header, names, conds, flat: vec![Flat::default(); k], hist }
    }

    /// Adds one game: its record under every arm, in arm order.
    pub fn add(&mut self, records: &[GameRecord]) -> Result<(), LabError> {
        let k = self.header.arms.len();
        if records.len() != k {
            return Err(LabError::Merge(format!("game has {} records, expected one per arm ({k})", records.len())));
        }
        let c = records[0].condition;
        let game = records[0].game;
        for (i, r) in records.iter().enumerate() {
            if r.arm != i || r.condition != c || r.game != game {
                return Err(LabError::Merge(format!("records of game {game} are out of order (arm {}, condition {}, game {})", r.arm, r.condition, r.game)));
            }
        }
        let cond = self.conds.get_mut(c).ok_or_else(|| LabError::Merge(format!("condition {c} is not in the header")))?;
        for (f, r) in self.flat.iter_mut().zip(records) {
            self.names.flatten_into(r, f);
        }
        let flat = &self.flat;
        cond.games += 1;
        for ((arm, r), f) in cond.arms.iter_mut().zip(records).zip(flat) {
            arm.rule_calls.resize(r.rule_use.len().max(arm.rule_calls.len()), (0, 0));
            for (sum, &calls) in arm.rule_calls.iter_mut().zip(&r.rule_use) {
                sum.0 = sum.0.saturating_add(calls);
                sum.1 += u64::from(calls > 0);
            }
            arm.rule_games += u64::from(r.rule_use.iter().any(|&c| c > 0));
            for &i in f.present() {
                add_to(&mut arm.metrics, i, f.value(i));
            }
            arm.hist.resize(self.hist.len(), BTreeMap::new());
            for (hist, &i) in arm.hist.iter_mut().zip(&self.hist) {
                *hist.entry(f.value(i) as i64).or_insert(0) += 1;
            }
        }
        for pair in cond.pairs.iter_mut() {
            // Every metric of either record, a missing value counting 0.
            let (fa, fb) = (&flat[pair.a], &flat[pair.b]);
            let mut same = true;
            for &i in fa.present().iter().chain(fb.present().iter().filter(|&&i| !fa.has(i))) {
                let d = fa.value(i) - fb.value(i);
                if d != 0.0 {
                    same = false;
                }
                add_to(&mut pair.diffs, i, d);
            }
            if same {
                pair.identical += 1;
            }
        }
        Ok(())
    }

    /// The sums of every condition, by metric name.
    pub fn conds(&self) -> Vec<CondSums> {
        let names = &self.names;
        self.conds
            .iter()
            .map(|c| CondSums {
                games: c.games,
                arms: c
                    .arms
                    .iter()
                    .map(|a| ArmSums {
                        metrics: named(&a.metrics, names),
                        hist: HISTOGRAMS.iter().zip(&a.hist).map(|(h, m)| (h.to_string(), m.clone())).collect(),
                        rule_calls: a.rule_calls.clone(),
                        rule_games: a.rule_games,
                    })
                    .collect(),
                pairs: c.pairs.iter().map(|p| PairSums { a: p.a, b: p.b, diffs: named(&p.diffs, names), identical: p.identical }).collect(),
            })
            .collect()
    }

    /// The widest interval among the headlines (seat win rates, or their
    /// paired differences when there are two arms or more), in percentage
    /// points.
    pub fn headline_width(&self) -> f64 {
        let mut widest: f64 = 0.0;
        for cond in &self.conds {
            for s in 0..self.header.seats.len() {
                let i = self.names.win(s);
                if cond.pairs.is_empty() {
                    for arm in &cond.arms {
                        let wins = arm.metrics.get(i).map(|s| s.sum).unwrap_or(0.0);
                        widest = widest.max(stats::wilson(wins, cond.games).width() * 100.0);
                    }
                }
                for pair in &cond.pairs {
                    let w = pair.diffs.get(i).copied().unwrap_or_default().mean(cond.games).width();
                    widest = widest.max(w * 100.0);
                }
            }
        }
        widest
    }

    pub fn games(&self) -> u64 {
        self.conds.iter().map(|c| c.games).min().unwrap_or(0)
    }
}

/// Runs the lab. Each record goes to `sink` in game order (condition by
/// condition within a batch); `progress` gets the number of games played
/// so far (all arms and conditions counted).
pub fn run(lab: &Lab, sink: &mut dyn FnMut(&GameRecord) -> Result<(), LabError>, progress: &dyn Fn(u64)) -> Result<Aggregate, LabError> {
    let h = &lab.header;
    if h.arms.len() != lab.arms.len() || h.arms.is_empty() {
        return Err(LabError::Setup("the lab needs at least one arm".into()));
    }
    if h.conditions.is_empty() {
        return Err(LabError::Setup("the lab needs at least one condition (tower and bots)".into()));
    }
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(lab.jobs.max(1)).build().map_err(|e| LabError::Setup(format!("cannot start worker threads: {e}")))?;
    let mut agg = Aggregate::new(h.clone());
    let (first, end) = h.range;
    let batch = lab.batch.max(1);
    let k = lab.arms.len();
    let mut done = 0u64;
    let mut next = first;
    while next < end {
        let stop = (next + batch).min(end);
        for c in 0..h.conditions.len() {
            let games: Vec<Vec<GameRecord>> = pool.install(|| {
                (next..stop).into_par_iter().map(|g| (0..k).map(|a| play_one(lab, run, c, a, g)).collect::<Result<Vec<_>, _>>()).collect::<Result<_, _>>()
            })?;
            for recs in &games {
                for r in recs {
                    sink(r)?;
                }
                agg.add(recs)?;
            }
            done += (stop - next) * k as u64;
            progress(done);
        }
        next = stop;
        if let Some(w) = lab.until_ci
            && agg.headline_width() < w
        {
            break;
        }
    }
    // Worker threads end with the pool; their engines with them.
    drop(pool);
    agg.header.played = agg.games();
    Ok(agg)
}

/// Records read back from one JSONL file, one at a time, each with its
/// line number (a line number or place in each error).
pub type Records<'a> = Box<dyn Iterator<Item = Result<(usize, GameRecord), String>> + 'a>;

/// A hash's first 12 characters, for a message (a file's header is
/// anybody's text: characters, not bytes, so that no cut falls inside one).
fn short(hash: &str) -> String {
    hash.chars().take(12).collect()
}

/// Whether `b` is the same lab run as `a` (all but the range and the games
/// played); the reason when it is not.
fn same_run(a: &Header, b: &Header) -> Result<(), String> {
    if a.version != b.version {
        return Err(format!(
            "written by {}, the first file by {}: merge only files of one version (another may play other games from the same seeds)",
            b.version, a.version
        ));
    }
    if a.arms != b.arms {
        return Err(format!("other arms ({} instead of {})", b.arms.join(", "), a.arms.join(", ")));
    }
    for (i, (x, y)) in a.rules.iter().zip(&b.rules).enumerate() {
        if x.hash == y.hash {
            continue;
        }
        let differ: Vec<String> = y
            .files
            .iter()
            .filter(|f| !x.files.contains(f))
            .map(|(file, hash)| match x.files.iter().find(|(g, _)| g == file) {
                Some((_, other)) => format!("{file} (sha256 {} here, {} there)", short(hash), short(other)),
                None => format!("{file} (only here)"),
            })
            .chain(x.files.iter().filter(|(f, _)| !y.files.iter().any(|(g, _)| g == f)).map(|(f, _)| format!("{f} (only there)")))
            .collect();
        let what = if differ.is_empty() { "the arm's rules hash".to_string() } else { differ.join(", ") };
        return Err(format!("arm `{}` was played with other rules files: {what}; play every shard with the same files", a.arms[i]));
    }
    // What is left to differ: the settings (the range and games played may).
    // A file of a run before headers gave the maps' provinces may join one
    // after (the same version): the rules files already matched above.
    let mut b = b.clone();
    for (x, y) in a.rules.iter().zip(b.rules.iter_mut()) {
        if x.provinces.is_none() || y.provinces.is_none() {
            y.provinces = x.provinces;
        }
    }
    if (Header { range: a.range, played: a.played, ..b }) != *a {
        return Err("another lab run (conditions, players, map, setup, seed, games, --until-ci or --adapt's tuning differ)".into());
    }
    Ok(())
}

/// What is wrong with a record of a file with header `h`, if anything: it
/// must be a game of the file's range played as the header says (seed, bots,
/// ruleset and rules hash of its arm), with one entry per seat everywhere,
/// ranks from 1 to the number of players and the winners exactly the seats
/// ranked first.
pub fn check_record(h: &Header, r: &GameRecord) -> Result<(), String> {
    let n = h.players as usize;
    let (first, end) = (h.range.0, h.range.0.saturating_add(h.played));
    if r.record != "game" {
        return Err(format!("`record` is `{}`, expected `game`", r.record));
    }
    let cond = h.conditions.get(r.condition).ok_or_else(|| format!("condition {} is not in the header ({} conditions)", r.condition, h.conditions.len()))?;
    let rules = h.rules.get(r.arm).ok_or_else(|| format!("arm {} is not in the header ({} arms)", r.arm, h.arms.len()))?;
    if r.game < first || r.game >= end {
        return Err(format!("game {} is outside this file's games {first}..{end}", r.game));
    }
    if r.ruleset != h.arms[r.arm] {
        return Err(format!("arm {} is `{}` in the header, the record says `{}`", r.arm, h.arms[r.arm], r.ruleset));
    }
    if r.rules_hash != rules.hash {
        return Err(format!("rules hash {} differs from arm `{}`'s {} in the header: played with other rules files", r.rules_hash, h.arms[r.arm], rules.hash));
    }
    if r.seed != h.seed.wrapping_add(r.game) {
        return Err(format!("seed {} does not match game {} (the lab's seed {} + game = {})", r.seed, r.game, h.seed, h.seed.wrapping_add(r.game)));
    }
    let bots = seat_bots(cond.bots_of(r.arm), r.game, h.rotate);
    if r.bots != bots {
        return Err(format!("bots {} differ from the header's for game {} ({})", r.bots.join(","), r.game, bots.join(",")));
    }
    let lens = [("ranks", r.ranks.len()), ("points", r.points.len()), ("chests", r.chests.len()), ("provinces", r.provinces.len())];
    let lens2 = [("buildings", r.buildings.len()), ("bid_chests", r.bid_chests.len()), ("bid_provinces", r.bid_provinces.len())];
    let tallies = r.tallies.iter().map(|(k, v)| (k.as_str(), v.len()));
    for (what, len) in lens.into_iter().chain(lens2).chain(tallies) {
        if len != n {
            return Err(format!("`{what}` has {len} entries for {n} players"));
        }
    }
    bounded(h, r)?;
    if let Some(rank) = r.ranks.iter().find(|&&x| x == 0 || usize::from(x) > n) {
        return Err(format!("rank {rank} is outside 1..{n}"));
    }
    let firsts: Vec<&String> = h.seats.iter().zip(&r.ranks).filter(|(_, rank)| **rank == 1).map(|(s, _)| s).collect();
    if r.winners.iter().collect::<Vec<_>>() != firsts {
        return Err(format!(
            "winners [{}] are not the seats ranked first [{}]",
            r.winners.join(", "),
            firsts.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    // The margin and the tiebreak are those of the first two seats in the
    // standings' order (rank, then seat), as `Collector::finish` sets them.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&s| (r.ranks[s], s));
    let (margin, tiebreak) = match order[..] {
        [x, y, ..] => (r.points[x].saturating_sub(r.points[y]), r.points[x] == r.points[y] && r.chests[x] != r.chests[y]),
        _ => (0, false),
    };
    if r.margin != margin {
        return Err(format!("margin {} is not the points of the first two in the standings apart ({margin})", r.margin));
    }
    if r.tiebreak != tiebreak {
        return Err(format!(
            "`tiebreak` is {} but the first two in the standings {}",
            r.tiebreak,
            if tiebreak { "tie on points and not on war chests" } else { "do not tie on points with different war chests" }
        ));
    }
    if r.rule_use.len() != rules.parts.len() {
        return Err(format!(
            "`rule_use` has {} counts for the {} parts (functions and values) the header lists for arm {}",
            r.rule_use.len(),
            rules.parts.len(),
            r.arm
        ));
    }
    Ok(())
}

/// Whether every number of a record is one a game of the header's rules
/// could have produced (issue 23): a count at u64::MAX would make its mean
/// 4.6e18. The counts are at most what `Collector` can count in the
/// record's own `decisions` (already checked to be at most
/// `MAX_DECISIONS`); each bound says why it holds. Left unbounded: the
/// tallies (`game.tally` takes any integer, and the collector adds them
/// saturating, so any i64 can be written; the lab sums them in i128) and
/// `rule_use` (each call of a wrapped function counts one, saturating, and a
/// loop inside one script call repeats calls with no engine limit but the
/// time limit).
fn bounded(h: &Header, r: &GameRecord) -> Result<(), String> {
    use crate::engine::{MAX_AMOUNT, MAX_EVENTS_PER_DECISION};
    if r.decisions == 0 {
        return Err("0 decisions: every game takes at least one".into());
    }
    if r.decisions > MAX_DECISIONS {
        return Err(format!("{} decisions: more than any game can have ({MAX_DECISIONS})", r.decisions));
    }
    let n = usize::from(h.players);
    let d = u128::from(r.decisions);
    let seat = |s: usize| h.seats.get(s).map_or("?", String::as_str);
    // Points change only through the host API (`game.award`,
    // `game.add_points`), which keeps them within ±MAX_AMOUNT.
    if let Some((s, p)) = r.points.iter().enumerate().find(|(_, p)| p.unsigned_abs() > MAX_AMOUNT.unsigned_abs()) {
        return Err(format!("`points` of seat {} is {p}, beyond the host API's ±{MAX_AMOUNT}", seat(s)));
    }
    // War chests start within the rules' limits (far below MAX_AMOUNT),
    // `game.gain` keeps them at most MAX_AMOUNT and `game.pay` never below 0.
    if let Some((s, c)) = r.chests.iter().enumerate().find(|(_, c)| !(0..=MAX_AMOUNT).contains(*c)) {
        return Err(format!("`chests` of seat {} is {c}, outside the host API's 0..={MAX_AMOUNT}", seat(s)));
    }
    // Each province has one holder: at most the arm's map's provinces
    // (older files: at most MAX_PROVINCES, what any map may have).
    let held: u64 = r.provinces.iter().map(|&p| u64::from(p)).sum();
    let map = h.rules.get(r.arm).and_then(|a| a.provinces);
    let any_map = crate::rules::map::MAX_PROVINCES as u64;
    let most = map.map_or(any_map, |p| u64::from(p).min(any_map));
    if held > most {
        let whose = if map.is_some() { "the arm's map has" } else { "a map may have" };
        return Err(format!("`provinces` adds up to {held}, more than {whose} ({most})"));
    }
    // A province holds at most one building of each kind, and the kinds
    // are the bits of a u8: at most 8 in each of the seat's provinces.
    if let Some(s) = (0..n).find(|&s| u64::from(r.buildings[s]) > u64::from(r.provinces[s]) * u64::from(u8::BITS)) {
        return Err(format!("`buildings` of seat {} is {}, more than its {} provinces can hold", seat(s), r.buildings[s], r.provinces[s]));
    }
    // Revealed bids are counted once a round, at most once a decision, and
    // a war-chest card's value is a u8.
    if let Some(s) = (0..n).find(|&s| r.bid_chests[s] < 0 || r.bid_chests[s] as u128 > d * u128::from(u8::MAX)) {
        return Err(format!("`bid_chests` of seat {} is {}, not 0..={} for {} decisions", seat(s), r.bid_chests[s], d * u128::from(u8::MAX), r.decisions));
    }
    let at_most_one_a_decision = [("bid_provinces", r.bid_provinces.iter().copied().max().unwrap_or(0)), ("lead_changes", r.lead_changes)];
    if let Some((what, v)) = at_most_one_a_decision.into_iter().find(|&(_, v)| u128::from(v) > d) {
        return Err(format!("`{what}` is {v}: counted at most once a decision, and the game took {}", r.decisions));
    }
    // Cubes are conserved (checked at the end of every game in every check
    // mode): each seat has the box's cubes_per_player, and the peasants are
    // the box's, each at most MAX_BOX.
    let cubes = (u64::from(h.players) + 1) * crate::rules::MAX_BOX.unsigned_abs();
    if u64::from(r.tower_stuck) > cubes {
        return Err(format!("`tower_stuck` is {}, more cubes than {} players' box may hold ({cubes})", r.tower_stuck, h.players));
    }
    // Battles, changes of hands and carried-out actions are counted from
    // events (one each), and one decision makes at most
    // MAX_EVENTS_PER_DECISION of them (the engine fails a game that makes
    // more). A battle kind is in the map only once one is counted.
    if let Some((kind, _)) = r.battles.iter().find(|(_, v)| **v == 0) {
        return Err(format!("`battles` lists kind `{kind}` with 0 battles: a kind is listed only once counted"));
    }
    for (what, table) in [("actions", &r.actions), ("built", &r.built)] {
        if let Some((k, v)) = table.iter().find(|(_, v)| v.len() != n) {
            return Err(format!("`{what}.{k}` has {} entries for {n} players", v.len()));
        }
    }
    let events = r.battles.values().map(|&v| u128::from(v)).sum::<u128>()
        + u128::from(r.owner_changes)
        + r.actions.values().flatten().map(|&v| u128::from(v)).sum::<u128>();
    let most = d * MAX_EVENTS_PER_DECISION as u128;
    if events > most {
        return Err(format!(
            "`battles`, `owner_changes` and `actions` count {events} events, more than {} decisions can make ({most}: at most {MAX_EVENTS_PER_DECISION} a decision)",
            r.decisions
        ));
    }
    // A building is counted when it appears in a province after a
    // decision: at most one of each kind in each province a decision.
    let built = r.built.values().flatten().map(|&v| u128::from(v)).sum::<u128>();
    let most = d * crate::rules::map::MAX_PROVINCES as u128 * u128::from(u8::BITS);
    if built > most {
        return Err(format!("`built` adds up to {built}, more than {} decisions can build ({most})", r.decisions));
    }
    Ok(())
}

/// Whether a header's players adapted per arm are those its adaptation
/// found: conditions with `per_arm` bots exactly when the header holds an
/// adaptation, one bot per seat for each arm, and in every seat of arm `a`
/// the planner tuned to arm `a`.
fn adapted_players(h: &Header) -> Result<(), String> {
    let n = usize::from(h.players);
    let adapted: Vec<&Condition> = h.conditions.iter().filter(|c| c.adapted()).collect();
    if let Some(c) = adapted.iter().find(|c| c.per_arm.len() != h.arms.len() || c.per_arm.iter().any(|b| b.len() != n)) {
        return Err(format!("condition `{}` does not name one bot per seat for each of the {} arms", c.label(), h.arms.len()));
    }
    let Some(a) = &h.adapt else {
        return match adapted.first() {
            Some(c) => Err(format!("condition `{}` has players adapted per arm, but the header holds no adaptation (`adapt`)", c.label())),
            None => Ok(()),
        };
    };
    if adapted.is_empty() {
        return Err("the header holds an adaptation (`adapt`) but no condition plays the players it found".into());
    }
    if a.arms.len() != h.arms.len() {
        return Err(format!("the adaptation names {} tuned players for {} arms", a.arms.len(), h.arms.len()));
    }
    for c in adapted {
        for (i, (bots, found)) in c.per_arm.iter().zip(&a.arms).enumerate() {
            if let Some(b) = bots.iter().find(|b| **b != found.bot) {
                return Err(format!("condition `{}` gives arm {} `{b}`, but the adaptation tuned `{}` for it", c.label(), i + 1, found.bot));
            }
        }
    }
    Ok(())
}

/// More decisions than any game may have (the rules' `limits` are far
/// below): a record claiming more is refused by `merge`.
pub const MAX_DECISIONS: u64 = 1 << 32;

/// Folds the records of JSONL files (`headers`: each file's name and
/// header; `open(i)`: file `i`'s records, read as they are folded) into
/// one aggregate. Checks that the files come from one lab run with the
/// same rules files (hashes), cover its games exactly once (no overlap, no
/// gap, nothing outside a file's range, no game twice) and that every
/// record is possible (`check_record`). Reads one record at a time.
pub fn merge<'a>(headers: Vec<(String, Header)>, open: &mut dyn FnMut(usize) -> Result<Records<'a>, String>) -> Result<Aggregate, LabError> {
    let m = |e: String| LabError::Merge(e);
    let Some((first_name, first)) = headers.first() else {
        return Err(m("no files to merge".into()));
    };
    for (name, h) in &headers {
        same_run(first, h).map_err(|e| m(format!("{name} against {first_name}: {e}")))?;
        if h.range.0 > h.range.1 || h.range.1 > h.games || h.played > h.range.1 - h.range.0 {
            return Err(m(format!("{name}: its header's range {}..{} and {} games played do not fit {} games", h.range.0, h.range.1, h.played, h.games)));
        }
        adapted_players(h).map_err(|e| m(format!("{name}: {e}")))?;
        if h.played < h.range.1 - h.range.0 && h.until_ci.is_none() {
            return Err(m(format!("{name}: {} of its games {}..{} were played (an interrupted run?)", h.played, h.range.0, h.range.1)));
        }
    }
    let mut order: Vec<usize> = (0..headers.len()).collect();
    order.sort_by_key(|&i| headers[i].1.range);
    let mut expect = 0;
    for &i in &order {
        let (name, h) = &headers[i];
        if h.range.0 != expect {
            return Err(m(if h.range.0 < expect {
                format!("{name} overlaps another file (games {}..{})", h.range.0, h.range.1)
            } else {
                format!("games {expect}..{} are missing (no file covers them)", h.range.0)
            }));
        }
        expect = h.range.0 + h.played;
    }
    let mut header = first.clone();
    if expect != header.games && header.until_ci.is_none() {
        return Err(m(format!("games {expect}..{} are missing (no file covers them)", header.games)));
    }
    header.range = (0, header.games);
    header.played = expect;
    let mut agg = Aggregate::new(header);
    for i in order {
        let (name, h) = &headers[i];
        fold_file(&mut agg, name, h, open(i).map_err(m)?)?;
    }
    Ok(agg)
}

/// Folds one file's records into `agg`: a game's records under every arm
/// in a row, each condition's games in order without a gap.
fn fold_file(agg: &mut Aggregate, name: &str, h: &Header, records: Records<'_>) -> Result<(), LabError> {
    let k = h.arms.len();
    let end = h.range.0 + h.played;
    let mut next = vec![h.range.0; h.conditions.len()];
    let mut game: Vec<GameRecord> = Vec::with_capacity(k);
    for r in records {
        let (line, r) = r.map_err(LabError::Merge)?;
        let at = |e: String| LabError::Merge(format!("{name}:{line}: condition {}, game {}, arm {}: {e}", r.condition, r.game, r.arm));
        check_record(h, &r).map_err(at)?;
        let want = next[r.condition];
        if r.game < want || (r.game == want && game.iter().any(|g| g.arm == r.arm)) {
            return Err(at("this game is in the file twice (a duplicate)".into()));
        }
        if r.game > want {
            return Err(at(format!("games {want}..{} of condition {} are missing from the file (a gap)", r.game, r.condition)));
        }
        if r.arm != game.len() || game.first().is_some_and(|g| g.condition != r.condition) {
            return Err(at(format!("expected arm {} of this game next (a game's records under every arm come in a row)", game.len())));
        }
        game.push(r);
        if game.len() == k {
            agg.add(&game).map_err(|e| LabError::Merge(format!("{name}: {e}")))?;
            next[game[0].condition] += 1;
            game.clear();
        }
    }
    if !game.is_empty() {
        return Err(LabError::Merge(format!("{name}: game {} has records under {} of {k} arms (an interrupted run?)", game[0].game, game.len())));
    }
    if let Some((c, &n)) = next.iter().enumerate().find(|(_, n)| **n != end) {
        return Err(LabError::Merge(format!("{name}: games {n}..{end} of condition {c} are missing (the file ends early: an interrupted run?)")));
    }
    Ok(())
}

/// A word of a lab command line, or the words of one `--against` arm.
#[derive(Debug, PartialEq, Eq)]
pub enum LabWord {
    Word(String),
    /// The words after one `--against`: arm options (`--variant X`,
    /// `--tower T`, `--rules DIR`, or `--variant=X`) and bare names
    /// (`base`, a variant), up to the next other option.
    Arm(Vec<String>),
}

/// Reads the arms out of a lab command line, so the lab's other options may
/// follow an arm anywhere (`--against base --games 500`). The command line
/// (`shogun lab`, `shogun diff`) and the REPL's `lab` read their arms with this.
pub fn arm_words<I: IntoIterator<Item = String>>(args: I) -> Vec<LabWord> {
    let mut out = Vec::new();
    let mut it = args.into_iter().peekable();
    while let Some(a) = it.next() {
        if a != "--against" {
            out.push(LabWord::Word(a));
            continue;
        }
        let mut words: Vec<String> = Vec::new();
        while let Some(next) = it.peek() {
            let takes_value = matches!(next.as_str(), "--variant" | "--tower" | "--rules");
            let inline = ["--variant=", "--tower=", "--rules="].iter().any(|p| next.starts_with(p));
            if takes_value {
                words.extend(it.next());
                words.extend(it.next());
            } else if inline || !next.starts_with('-') {
                words.extend(it.next());
            } else {
                break;
            }
        }
        out.push(LabWord::Arm(words));
    }
    out
}
