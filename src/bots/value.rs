//! A state's worth to a seat, taken from the rules pack: the pack's own
//! scoring (what its `score` handler would award if the year ended now,
//! run on a copy of the position) and the seat's holdings valued in the
//! pack's terms (war chests by what the pack's build cards buy with them,
//! rice against the coming winter by the pack's supply table, armies and
//! cubes by what a province scores). A variant that changes a number of
//! the scoring changes this value with no change of code.
//!
//! The weights (`Weights`) are the only numbers of our own; docs/bots.md
//! explains each.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::thread::LocalKey;

use rustc_hash::FxHashMap;

use super::odds::win_table;
use super::{ActionKind, action_kind};
use crate::core::*;
use crate::engine::Engine;
use crate::rules::Rules;
use crate::script::{PhaseHandler, Reads};

/// How much each part of the value counts (documented in docs/bots.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Share of this year's score each later year is expected to repeat.
    pub future: f64,
    /// A war chest, in points a chest buys through the pack's build cards.
    pub chest: f64,
    /// An army on the board, in the points a province scores.
    pub army: f64,
    /// A cube in the supply, in the points a province scores.
    pub supply: f64,
    /// A revolt the coming winter's shortage of rice brings, in the points
    /// a province (with a building) scores.
    pub revolt: f64,
    /// Acting first in a round (the first choice of turn-order space), and
    /// more for each attack planned, in the points a province scores.
    pub order: f64,
    /// How much the others count against the seat: this share of the best
    /// other seat's value, the rest of their mean.
    pub leader: f64,
    /// Armies that threaten: for each own province, its best attack on a
    /// neighbour (chance by the rules' tower odds) times what a province
    /// scores.
    pub reach: f64,
    /// Provinces under threat: for each own province, the best chance of a
    /// neighbouring enemy to take it, times what a province scores.
    pub exposure: f64,
    /// The least chance (by the rules' battle odds) at which the planner
    /// values an attack at all.
    pub chance: f64,
    /// The least chance at which an attack it is asked about gets every
    /// army that may go (below it, as few as it may).
    pub commit: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights { future: 0.4, chest: 0.5, army: 0.3, supply: 0.05, revolt: 0.6, order: 0.0, leader: 0.5, reach: 0.0, exposure: 0.0, chance: 0.4, commit: 0.5 }
    }
}

impl Weights {
    /// The weights' names, as the planner's options spell them
    /// (`planner:army=0.5:revolt=1`).
    pub const NAMES: [&'static str; 11] = ["future", "chest", "army", "supply", "revolt", "order", "leader", "reach", "exposure", "chance", "commit"];

    fn slot(&mut self, name: &str) -> Option<&mut f64> {
        Some(match name {
            "future" => &mut self.future,
            "chest" => &mut self.chest,
            "army" => &mut self.army,
            "supply" => &mut self.supply,
            "revolt" => &mut self.revolt,
            "order" => &mut self.order,
            "leader" => &mut self.leader,
            "reach" => &mut self.reach,
            "exposure" => &mut self.exposure,
            "chance" => &mut self.chance,
            "commit" => &mut self.commit,
            _ => return None,
        })
    }

    /// Sets the weight `name`; false for a name that is not a weight.
    pub fn set(&mut self, name: &str, value: f64) -> bool {
        self.slot(name).map(|w| *w = value).is_some()
    }

    /// The weight `name` (0 for a name that is not one).
    pub fn get(&self, name: &str) -> f64 {
        let mut copy = *self;
        copy.slot(name).map_or(0.0, |w| *w)
    }

    /// The options that give these weights to a planner, for those that
    /// differ from the defaults (`:army=0.5:revolt=1`; empty for none).
    pub fn options(&self) -> String {
        let d = Weights::default();
        Weights::NAMES.iter().filter(|n| self.get(n) != d.get(n)).map(|n| format!(":{n}={}", self.get(n))).collect()
    }
}

/// A war chest's worth at the end of the game: the tie-break only.
const CHEST_AT_END: f64 = 0.01;

/// The pack's units the weights multiply, read once from the rules.
#[derive(Clone, Debug)]
pub struct Units {
    /// Points a war chest buys: the mean over the build cards of the points
    /// a building scores per war chest it costs.
    pub chest: f64,
    /// Points a held province with one building scores at a scoring.
    pub province: f64,
    /// Action rounds in a year.
    pub seasons: i64,
    pub years: i64,
}

impl Units {
    pub fn of(engine: &Engine) -> Units {
        let sc = &engine.rules.rules.scoring;
        let builds: Vec<f64> = (0..engine.rules.cards.actions.len())
            .filter(|&a| matches!(action_kind(engine, a), ActionKind::Build(_)))
            .map(|a| engine.rules.cards.actions[a].cost)
            .filter(|&c| c > 0)
            .map(|c| sc.per_building as f64 / c as f64)
            .collect();
        let chest = if builds.is_empty() { 0.1 } else { builds.iter().sum::<f64>() / builds.len() as f64 };
        let cal = &engine.rules.rules.calendar;
        Units { chest, province: (sc.per_province + sc.per_building) as f64, seasons: cal.seasons.len().max(1) as i64, years: cal.years }
    }
}

/// Values positions for one engine (its rules' units and a scratch list
/// of events for the score handler's calls).
pub struct Valuer {
    pub weights: Weights,
    pub units: Units,
    /// The rules' scoring reads only the board (`scoring_reads_only_board`):
    /// its answers may be remembered by board.
    pub board_only: bool,
    /// It also scores each region on its own (`scoring_is_regional`): what
    /// a change within one region adds may be remembered by that region.
    pub regional: bool,
    events: Vec<Event>,
    scratch: Option<GameState>,
    /// A scoring failed: its zero award is not what the rules give, so no
    /// difference is learnt from it.
    failed: bool,
}

impl Valuer {
    pub fn new(engine: &Engine, weights: Weights) -> Valuer {
        Valuer { weights, units: Units::of(engine), board_only: false, regional: false, events: Vec::new(), scratch: None, failed: false }
    }

    /// What the rules' score handler would award each seat if the year
    /// ended in position `st` (a copy is scored; `st` is not changed).
    /// Zero for every seat once the game is over. Where the scoring reads
    /// only the board, an answer is remembered by the board view it read
    /// (`ScoreCache`).
    pub fn score_now(&mut self, engine: &Engine, st: &GameState) -> Vec<i64> {
        if st.phase == Phase::GameOver {
            return vec![0; st.seats()];
        }
        let remember = self.board_only && !engine.runtime().narrating();
        if remember && let Some(v) = CACHE.with_borrow_mut(|c| c.of(engine).score(engine, st)) {
            return v;
        }
        let (v, reads) = self.score_afresh(engine, st);
        match reads {
            Some(reads) if remember => CACHE.with_borrow_mut(|c| c.of(engine).keep_score(engine, st, reads, &v, true)),
            Some(_) => {}
            None => self.failed = true,
        }
        v
    }

    /// Runs the rules' score handler on a copy of `st`: the award, and what
    /// the handler read of the state (None when it failed: no award).
    fn score_afresh(&mut self, engine: &Engine, st: &GameState) -> (Vec<i64>, Option<Reads>) {
        let s = self.scratch.get_or_insert_with(|| st.clone());
        s.clone_from(st);
        s.ask = None;
        self.events.clear();
        let rt = engine.runtime();
        rt.take_reads();
        match rt.call_phase(s, &mut self.events, PhaseHandler::Score) {
            Ok(_) => (s.players.iter().zip(&st.players).map(|(a, b)| a.points - b.points).collect(), Some(rt.take_reads())),
            Err(_) => (vec![0; st.seats()], None),
        }
    }

    /// What `score_now(st)` gives for a position `st` reached from `base`,
    /// whose scores are `now0`. Where the rules' scoring reads only the
    /// board and scores each region on its own, a change within one region
    /// adds what such a change is known to add (`Worths` over the nodes of
    /// `ScoreCache::region_nodes`, learnt across positions, seats and
    /// games); else `st` is scored.
    pub fn score_from(&mut self, engine: &Engine, base: &GameState, now0: &[i64], st: &GameState) -> Vec<i64> {
        if !self.board_only {
            return self.score_now(engine, st);
        }
        let Some(changed) = changed_region(engine, base, st) else { return now0.to_vec() };
        let Some(r) = changed.filter(|_| self.regional && !self.failed && !engine.runtime().narrating()) else {
            return self.score_now(engine, st);
        };
        let Some(nodes) = CACHE.with_borrow_mut(|c| c.of(engine).region_nodes(engine, base, st, r)) else {
            return self.score_now(engine, st);
        };
        if let Some(d) = CACHE.with_borrow_mut(|c| c.of(engine).difference(nodes)) {
            return now0.iter().zip(d).map(|(a, b)| a + b).collect();
        }
        let full = self.score_now(engine, st);
        if !self.failed {
            let d: Vec<i64> = full.iter().zip(now0).map(|(a, b)| a - b).collect();
            CACHE.with_borrow_mut(|c| c.of(engine).join(nodes, &d));
        }
        full
    }

    /// `score_now(st)` for a position a lookahead starts from: reached
    /// from the last one scored so (by this thread, for these rules) by a
    /// change within one region, it adds what that change is known to add
    /// (`score_from`), as the lookaheads from the last one may have learnt
    /// it (the action carried out since was often one of them); else `st`
    /// is scored.
    pub fn score_base(&mut self, engine: &Engine, st: &GameState) -> Vec<i64> {
        let last = CACHE.with_borrow_mut(|c| c.of(engine).last.take());
        let now = match last {
            Some((b, n)) if self.board_only && b.seats() == st.seats() && b.phase != Phase::GameOver && st.phase != Phase::GameOver => {
                let now = self.score_from(engine, &b, &n, st);
                CACHE.with_borrow_mut(|c| c.last = Some((b, n)));
                now
            }
            _ => self.score_now(engine, st),
        };
        CACHE.with_borrow_mut(|c| match &mut c.last {
            Some((b, n)) => {
                b.clone_from(st);
                n.clone_from(&now);
            }
            None => c.last = Some((st.clone(), now.clone())),
        });
        now
    }

    /// Action rounds still to be played after the current one.
    fn rounds_after(&self, st: &GameState) -> i64 {
        let u = &self.units;
        ((u.years - 1 - i64::from(st.year)) * u.seasons + (u.seasons - 1 - i64::from(st.season))).max(0)
    }

    /// What a war chest is worth now: what it buys while rounds are left
    /// to spend it in.
    pub fn chest_value(&self, st: &GameState) -> f64 {
        let left = (self.rounds_after(st) as f64 / self.units.seasons as f64).min(1.0);
        (self.weights.chest * self.units.chest * left).max(CHEST_AT_END)
    }

    /// The mean rice the year's last event takes (each face-up event is as
    /// likely to be the last one).
    fn rice_loss(engine: &Engine, st: &GameState) -> f64 {
        let events = &st.year_events;
        if events.is_empty() {
            return 0.0;
        }
        events.iter().map(|&e| engine.rules.cards.events[e as usize].rice_loss as f64).sum::<f64>() / events.len() as f64
    }

    /// Revolts the coming winter would bring a seat holding `held`
    /// provinces and `rice`, after the rice `loss` of the year's last
    /// event, through the pack's supply table (its extra peasants counted
    /// as a quarter of a revolt each).
    pub fn winter_revolts(engine: &Engine, held: f64, rice: f64, loss: f64) -> f64 {
        let w = &engine.rules.rules.winter;
        let shortage = (held * w.rice_per_province as f64 - (rice - loss)).max(0.0);
        let row = w.supply_table.iter().rev().find(|r| shortage >= r.shortage as f64);
        row.map_or(0.0, |r| r.revolts as f64 + 0.25 * (r.revolts * r.extra_peasants) as f64)
    }

    /// Every seat's worth given the scores `now` of `score_now`, into
    /// `out` (the first `st.seats()`), allocating nothing: the planner
    /// values every position it looks at.
    fn seat_values(&self, engine: &Engine, st: &GameState, now: &[i64], out: &mut [f64; MAX_SEATS]) {
        let n = st.seats();
        if st.phase == Phase::GameOver {
            for (o, p) in out.iter_mut().zip(&st.players) {
                *o = p.points as f64 + CHEST_AT_END * p.chests as f64;
            }
            return;
        }
        // Provinces and armies of each seat, in one pass over the board.
        let mut held = [(0f64, 0f64); MAX_SEATS];
        for q in &st.provinces {
            if let Some(o) = q.owner {
                held[o.index()].0 += 1.0;
                held[o.index()].1 += f64::from(q.armies);
            }
        }
        let w = &self.weights;
        let u = &self.units;
        let years_after = (u.years - 1 - i64::from(st.year)).max(0) as f64;
        // Armies and cubes matter while rounds are left to fight in.
        let fight = ((self.rounds_after(st) + 1) as f64 / u.seasons as f64).min(1.0);
        let chest = self.chest_value(st);
        let loss = Valuer::rice_loss(engine, st);
        let threats = (w.reach != 0.0 || w.exposure != 0.0).then(|| self.threats(engine, st));
        for (s, o) in out.iter_mut().enumerate().take(n) {
            let p = &st.players[s];
            let score = now[s] as f64 * (1.0 + w.future * years_after);
            let (reach, exposure) = threats.as_ref().map_or((0.0, 0.0), |(r, e)| (r[s], e[s]));
            let threat = w.reach * reach - w.exposure * exposure;
            let forces = fight * u.province * (w.army * held[s].1 + w.supply * f64::from(p.supply) + threat);
            let revolts = w.revolt * u.province * Valuer::winter_revolts(engine, held[s].0, p.rice as f64, loss);
            *o = p.points as f64 + score + chest * p.chests as f64 + forces - revolts;
        }
    }

    /// Per seat: the sum over its provinces of the best chance to take a
    /// neighbour (`reach`), and of the best chance of a neighbouring
    /// enemy to take it (`exposure`), by the rules' battle odds.
    fn threats(&self, engine: &Engine, st: &GameState) -> (Vec<f64>, Vec<f64>) {
        let n = st.seats();
        let (mut reach, mut exposure) = (vec![0.0; n], vec![0.0; n]);
        let map = &engine.rules.map;
        let (odds, behind) = (win_table(engine), engine.rules.bots.armies_left_behind);
        for (i, at) in st.provinces.iter().enumerate() {
            let Some(o) = at.owner else { continue };
            let p = ProvinceId::new(i);
            let movable = i64::from(at.armies) - behind;
            let (mut best_out, mut best_in) = (0.0f64, 0.0f64);
            for q in map.neighbours(p) {
                if !st.in_play[q.index()] {
                    continue;
                }
                let there = &st.provinces[q.index()];
                match there.owner {
                    Some(e) if e == o => {}
                    Some(_) => {
                        best_out = best_out.max(odds.win(movable, i64::from(there.armies)));
                        best_in = best_in.max(odds.win(i64::from(there.armies) - behind, i64::from(at.armies)));
                    }
                    None => best_out = best_out.max(odds.win(movable, 0)),
                }
            }
            reach[o.index()] += best_out;
            exposure[o.index()] += best_in;
        }
        (reach, exposure)
    }

    /// `seat`'s worth less the others' (a share `leader` of the best other
    /// seat's, the rest of their mean), with the rules' scoring run once.
    pub fn value(&mut self, engine: &Engine, st: &GameState, seat: Seat) -> f64 {
        let now = self.score_now(engine, st);
        self.value_with(engine, st, seat, &now)
    }

    /// `value` with the scores already known.
    pub fn value_with(&self, engine: &Engine, st: &GameState, seat: Seat, now: &[i64]) -> f64 {
        let mut all = [0.0; MAX_SEATS];
        self.seat_values(engine, st, now, &mut all);
        let all = &all[..st.seats()];
        let me = all[seat.index()];
        let others = all.iter().enumerate().filter(|&(s, _)| s != seat.index()).map(|(_, v)| *v);
        let (best, sum, k) = others.fold((f64::NEG_INFINITY, 0.0, 0usize), |(b, s, k), v| (b.max(v), s + v, k + 1));
        if k == 0 {
            return me;
        }
        me - self.weights.leader * best - (1.0 - self.weights.leader) * sum / k as f64
    }
}

thread_local! {
    /// Per engine's rules: whether its scoring reads only the board.
    static BOARD_ONLY: PerEngine = const { RefCell::new(Vec::new()) };
}

/// Whether the rules' score handler gives the same award when only what
/// is not on the board changes (war chests, rice, supplies, points,
/// armies, unrest): found once per engine by scoring `st` and a copy with
/// those changed. Where it does, a lookahead that leaves owners and
/// buildings as they were needs no new scoring.
pub fn scoring_reads_only_board(engine: &Engine, val: &mut Valuer, st: &GameState) -> bool {
    once_per_engine(&BOARD_ONLY, engine, st, || probe_board_only(engine, val, st))
}

/// A finding about `engine`'s rules kept per thread in `cell`: found by
/// `probe` the first time (false, and not kept, from a finished game).
fn once_per_engine(cell: &'static LocalKey<PerEngine>, engine: &Engine, st: &GameState, probe: impl FnOnce() -> bool) -> bool {
    let found = cell.with_borrow_mut(|v| {
        v.retain(|(r, _)| r.strong_count() > 0);
        v.iter().find(|(r, _)| Weak::ptr_eq(r, &Rc::downgrade(&engine.rules))).map(|e| e.1)
    });
    if let Some(b) = found {
        return b;
    }
    if st.phase == Phase::GameOver {
        return false;
    }
    let b = probe();
    cell.with_borrow_mut(|v| v.push((Rc::downgrade(&engine.rules), b)));
    b
}

type PerEngine = RefCell<Vec<(Weak<Rules>, bool)>>;

fn probe_board_only(engine: &Engine, val: &mut Valuer, st: &GameState) -> bool {
    let mut other = st.clone();
    for p in other.players.iter_mut() {
        p.chests += 7;
        p.rice += 3;
        p.supply = p.supply.saturating_sub(1);
        p.points += 5;
    }
    for q in other.provinces.iter_mut() {
        q.armies += 1;
        q.unrest += 1;
    }
    val.score_afresh(engine, st).0 == val.score_afresh(engine, &other).0
}

/// Where `st`'s board differs from `base`'s: `None` nowhere,
/// `Some(Some(r))` in region `r` alone, `Some(None)` in several regions.
fn changed_region(engine: &Engine, base: &GameState, st: &GameState) -> Option<Option<usize>> {
    let map = &engine.rules.map;
    let mut found = None;
    for (i, (a, b)) in base.provinces.iter().zip(&st.provinces).enumerate() {
        if a.owner != b.owner || a.buildings != b.buildings || base.in_play[i] != st.in_play[i] {
            let r = map.provinces[i].region;
            match found {
                None => found = Some(Some(r)),
                Some(Some(x)) if x != r => return Some(None),
                _ => {}
            }
        }
    }
    found
}

thread_local! {
    /// Per engine's rules: whether its scoring scores each region on its own.
    static REGIONAL: PerEngine = const { RefCell::new(Vec::new()) };
}

/// Whether the rules' scoring (already found to read only the board)
/// scores each region on its own: what taking a province, or a building
/// there, adds to every seat's score is the same whatever stands outside
/// its region. Found once per engine from `st`: for a province in each of
/// up to four regions, the change it makes there against the change it
/// makes with every other province in play held by one seat and full of
/// buildings. A scoring with a rule over the whole board (the most
/// provinces overall, say) differs there and is scored position by
/// position.
pub fn scoring_is_regional(engine: &Engine, val: &mut Valuer, st: &GameState) -> bool {
    once_per_engine(&REGIONAL, engine, st, || probe_regions(engine, val, st))
}

fn probe_regions(engine: &Engine, val: &mut Valuer, st: &GameState) -> bool {
    let map = &engine.rules.map;
    let n = st.seats();
    if map.regions.len() < 2 || n < 2 {
        return false;
    }
    let kinds = engine.rules.rules.components.buildings.len().min(8) as u32;
    let full = ((1u16 << kinds) - 1) as u8;
    // The first province in play of each of up to four regions.
    let mut probes: Vec<usize> = Vec::new();
    for (i, p) in map.provinces.iter().enumerate() {
        if st.in_play[i] && probes.len() < 4 && !probes.iter().any(|&q| map.provinces[q].region == p.region) {
            probes.push(i);
        }
    }
    // What `change` adds to each seat's score from `from`.
    let mut added = |from: &GameState, change: &dyn Fn(&mut GameState)| -> Vec<i64> {
        let mut to = from.clone();
        change(&mut to);
        let (a, b) = (val.score_afresh(engine, &to).0, val.score_afresh(engine, from).0);
        a.iter().zip(&b).map(|(x, y)| x - y).collect()
    };
    for q in probes {
        let r = map.provinces[q].region;
        let s = Seat::new(if st.provinces[q].owner == Some(Seat::new(0)) { 1 } else { 0 });
        let t = Seat::new((s.index() + 1) % n);
        let mut far = st.clone();
        for (i, p) in far.provinces.iter_mut().enumerate() {
            if map.provinces[i].region != r && st.in_play[i] {
                p.owner = Some(t);
                p.buildings = full;
            }
        }
        let take = |g: &mut GameState| g.provinces[q].owner = Some(s);
        let build = |g: &mut GameState| g.provinces[q].buildings ^= 1;
        for change in [&take as &dyn Fn(&mut GameState), &build] {
            if added(st, change) != added(&far, change) {
                return false;
            }
        }
    }
    true
}

/// How remembered scores are keyed: by the board view alone while every
/// scoring read nothing else (`Reads`), by the round too once one read
/// the round, not at all once one read anything more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Keying {
    View,
    ViewAndRound,
    Off,
}

/// Scores remembered for one engine's rules. A scoring that read only the
/// board view (`script::board_view`: each seat's provinces and buildings,
/// the leaders of each kind in each region) gives the same award for every
/// position with the same view, whatever else differs: the Lua it runs
/// keeps nothing between calls, so what it read decides what it does. The
/// runtime says what each call read (`Runtime::take_reads`), so this holds
/// call by call, not by a probe.
struct ScoreCache {
    rules: Weak<Rules>,
    keying: Keying,
    /// Awards by board view (and round).
    scores: FxHashMap<Vec<u8>, Vec<i64>>,
    /// What changes within a region add, where the scoring is regional
    /// (`region_nodes`).
    worths: Worths,
    /// How many times `worths` was started afresh (nodes carry it).
    generation: u64,
    key: Vec<u8>,
    /// The last position `Valuer::score_base` scored, and its scores.
    last: Option<(GameState, Vec<i64>)>,
    /// Scratch region views (`region_nodes`).
    view_before: Vec<u8>,
    view_after: Vec<u8>,
}

/// A change's two nodes in `ScoreCache::worths` (`region_nodes`), and the generation of
/// `worths` they were made in (every change of keying or rules starts
/// `worths` afresh, so the generation says the keying too).
#[derive(Clone, Copy)]
struct Nodes {
    before: u32,
    after: u32,
    generation: u64,
}

/// Board views remembered at most (then the cache starts afresh).
const SCORES_KEPT: usize = 16384;
/// Nodes (leaders, changes) whose worth is known at most (about 150 bytes each).
const WORTHS_KEPT: usize = 65536;

thread_local! {
    static CACHE: RefCell<ScoreCache> = RefCell::new(ScoreCache::empty());
}

impl ScoreCache {
    /// A cache of no rules yet, with nothing remembered.
    fn empty() -> ScoreCache {
        ScoreCache {
            rules: Weak::new(),
            keying: Keying::View,
            scores: FxHashMap::default(),
            worths: Worths::default(),
            generation: 0,
            key: Vec::new(),
            last: None,
            view_before: Vec::new(),
            view_after: Vec::new(),
        }
    }

    /// The cache of `engine`'s rules (emptied when the rules change or it
    /// is full).
    fn of(&mut self, engine: &Engine) -> &mut ScoreCache {
        if !Weak::ptr_eq(&self.rules, &Rc::downgrade(&engine.rules)) || self.rules.strong_count() == 0 {
            self.rules = Rc::downgrade(&engine.rules);
            self.keying = Keying::View;
            self.forget();
        }
        if self.scores.len() >= SCORES_KEPT {
            self.scores.clear();
        }
        if self.worths.parent.len() >= WORTHS_KEPT {
            self.restart_worths();
        }
        self
    }

    fn forget(&mut self) {
        self.scores.clear();
        self.last = None;
        self.restart_worths();
    }

    /// Starts `self.key` with what the keying needs beyond the view.
    fn start_key(&mut self, st: &GameState) {
        self.key.clear();
        if self.keying == Keying::ViewAndRound {
            self.key.extend([st.year, st.season]);
        }
    }

    fn score(&mut self, engine: &Engine, st: &GameState) -> Option<Vec<i64>> {
        if self.keying == Keying::Off {
            return None;
        }
        self.start_key(st);
        crate::script::board_view(&engine.rules, st, &mut self.key);
        self.scores.get(&self.key).cloned()
    }

    /// Keeps the award `v` of a scoring of `st` that read `reads`, keyed
    /// as it allows (a scoring that read more than the keys say starts the
    /// cache afresh with keys that say more, or turns it off). `keyed`:
    /// `self.key` is `st`'s key already (`score` made it).
    fn keep_score(&mut self, engine: &Engine, st: &GameState, reads: Reads, v: &[i64], mut keyed: bool) {
        let need = if reads.other {
            Keying::Off
        } else if reads.round {
            Keying::ViewAndRound
        } else {
            Keying::View
        };
        if need > self.keying {
            self.keying = need;
            self.forget();
            keyed = false;
        }
        if self.keying != Keying::Off {
            if !keyed {
                self.start_key(st);
                crate::script::board_view(&engine.rules, st, &mut self.key);
            }
            self.scores.insert(self.key.clone(), v.to_vec());
        }
    }

    /// The nodes of the change from `base` to `st` within region `r`,
    /// with the generation of `worths` they were made in (None when the
    /// keying is off, or keyed by the round and the two differ).
    ///
    /// A scoring that reads only the board view (each seat's provinces and
    /// buildings in all, `T`, and the leaders of each kind in each region,
    /// `L`) and scores each region on its own gives `K + Σ_r g_r(view_r)`
    /// as a function of `T` and `L` alone; two regions' counts varied
    /// apart then make it affine in `T`: `a·T + Σ_r h_r(L_r)`. So what a
    /// change within region `r` adds is `a·ΔT + h_r(L_r') − h_r(L_r)`: the
    /// node before is region `r`'s leaders (`h_r(L_r)`), the node after its
    /// leaders after with the change of the seats' counts (`a·ΔT +
    /// h_r(L_r')`); a change that leaves the leaders as they were adds
    /// `a·ΔT` in whatever region (nodes without the region).
    fn region_nodes(&mut self, engine: &Engine, base: &GameState, st: &GameState, r: usize) -> Option<Nodes> {
        if self.keying == Keying::Off || (self.keying == Keying::ViewAndRound && (base.year, base.season) != (st.year, st.season)) {
            return None;
        }
        let (mut before, mut after) = (std::mem::take(&mut self.view_before), std::mem::take(&mut self.view_after));
        before.clear();
        after.clear();
        crate::script::region_view(&engine.rules, base, r, &mut before);
        crate::script::region_view(&engine.rules, st, r, &mut after);
        let seats = usize::from(before[0]);
        let counts = 1 + 4 * seats;
        let same_leaders = before[counts..] == after[counts..];
        // Keys: the round where keyed by it, the seats, a tag (0/1: before
        // and after a change that leaves the leaders; 2/3: one that
        // changes them, then the region), then the leaders before, or
        // the change of the counts and the leaders after.
        self.start_key(st);
        self.key.push(before[0]);
        let at = self.key.len();
        let tag = if same_leaders { 0 } else { 2 };
        let region = |key: &mut Vec<u8>| {
            if !same_leaders {
                key.extend((r as u16).to_le_bytes());
            }
        };
        self.key.push(tag);
        region(&mut self.key);
        if !same_leaders {
            self.key.extend(&before[counts..]);
        }
        let b = self.worths.node(&self.key);
        self.key.truncate(at);
        self.key.push(tag + 1);
        region(&mut self.key);
        for i in (1..counts).step_by(2) {
            let d = i32::from(u16::from_le_bytes([after[i], after[i + 1]])) - i32::from(u16::from_le_bytes([before[i], before[i + 1]]));
            self.key.extend((d as i16).to_le_bytes());
        }
        if !same_leaders {
            self.key.extend(&after[counts..]);
        }
        let a = self.worths.node(&self.key);
        (self.view_before, self.view_after) = (before, after);
        Some(Nodes { before: b, after: a, generation: self.generation })
    }

    /// Whether nodes made earlier still name views of `worths`: it was not
    /// started afresh since (when full, or the keying or rules changed),
    /// which may happen between making the nodes and using them (`of`
    /// empties a full cache).
    fn current(&self, nodes: Nodes) -> bool {
        nodes.generation == self.generation && self.keying != Keying::Off
    }

    /// What region view `nodes.after` scores more than `nodes.before`,
    /// where known and the nodes are current.
    fn difference(&mut self, nodes: Nodes) -> Option<[i64; MAX_SEATS]> {
        if !self.current(nodes) {
            return None;
        }
        self.worths.difference(nodes.before, nodes.after)
    }

    /// Learns that region view `nodes.after` scores `d` more than
    /// `nodes.before`, unless the nodes are no longer current.
    fn join(&mut self, nodes: Nodes, d: &[i64]) {
        if self.current(nodes) {
            let mut w = [0; MAX_SEATS];
            w.iter_mut().zip(d).for_each(|(a, b)| *a = *b);
            self.worths.join(nodes.before, nodes.after, w);
        }
    }

    /// Starts `worths` afresh: nodes made before name nothing.
    fn restart_worths(&mut self) {
        self.worths = Worths::default();
        self.generation += 1;
    }
}

/// What nodes (`ScoreCache::region_nodes`: a region's leaders before a
/// change, the change of the counts with the leaders after) are worth,
/// each up to a constant shared by the nodes joined to it by known
/// differences: a union-find whose edges are the differences scorings
/// showed. Where the scoring is regional, every node has a worth (see
/// `region_nodes`), so the difference between any two joined nodes is
/// known, however they were joined (each scoring joins the node before
/// to the node after).
#[derive(Default)]
struct Worths {
    index: FxHashMap<Vec<u8>, u32>,
    parent: Vec<u32>,
    /// A view's worth less its parent's, by seat.
    up: Vec<[i64; MAX_SEATS]>,
    /// Views in the group (for roots: short paths).
    size: Vec<u32>,
}

impl Worths {
    fn node(&mut self, key: &[u8]) -> u32 {
        if let Some(&n) = self.index.get(key) {
            return n;
        }
        let n = self.parent.len() as u32;
        self.index.insert(key.to_vec(), n);
        self.parent.push(n);
        self.up.push([0; MAX_SEATS]);
        self.size.push(1);
        n
    }

    /// `x`'s group, and `x`'s worth less the group's root's.
    fn root(&mut self, x: u32) -> (u32, [i64; MAX_SEATS]) {
        let p = self.parent[x as usize];
        if p == x {
            return (x, [0; MAX_SEATS]);
        }
        let (r, above) = self.root(p);
        let mut w = self.up[x as usize];
        w.iter_mut().zip(above).for_each(|(a, b)| *a += b);
        self.parent[x as usize] = r;
        self.up[x as usize] = w;
        (r, w)
    }

    /// `b`'s worth less `a`'s, where known.
    fn difference(&mut self, a: u32, b: u32) -> Option<[i64; MAX_SEATS]> {
        let ((ra, wa), (rb, mut wb)) = (self.root(a), self.root(b));
        (ra == rb).then(|| {
            wb.iter_mut().zip(wa).for_each(|(x, y)| *x -= y);
            wb
        })
    }

    /// Learns that `b` is worth `d` more than `a`.
    fn join(&mut self, a: u32, b: u32, d: [i64; MAX_SEATS]) {
        let ((ra, wa), (rb, wb)) = (self.root(a), self.root(b));
        if ra == rb {
            return;
        }
        // rb's worth less ra's: (b - wb) - (a - wa) = d - wb + wa.
        let mut w = d;
        w.iter_mut().zip(wb.iter().zip(wa)).for_each(|(x, (b, a))| *x += a - b);
        let (low, high) = if self.size[ra as usize] >= self.size[rb as usize] { (rb, ra) } else { (ra, rb) };
        if low == ra {
            w.iter_mut().for_each(|x| *x = -*x);
        }
        self.parent[low as usize] = high;
        self.up[low as usize] = w;
        self.size[high as usize] += self.size[low as usize];
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_SEATS, Nodes, ScoreCache, Worths};

    fn w(v: i64) -> [i64; MAX_SEATS] {
        let mut a = [0; MAX_SEATS];
        a[0] = v;
        a[1] = -2 * v;
        a
    }

    /// Differences joined in any order and direction add up, both ways;
    /// views never joined have none.
    #[test]
    fn worths_add_up_along_joins() {
        let mut ws = Worths::default();
        let [a, b, c, d, e] = [b"a", b"b", b"c", b"d", b"e"].map(|k| ws.node(k));
        ws.join(a, b, w(3));
        ws.join(d, c, w(5));
        assert_eq!(ws.difference(a, c), None);
        ws.join(b, c, w(-1));
        assert_eq!(ws.difference(a, c), Some(w(2)));
        assert_eq!(ws.difference(c, a), Some(w(-2)));
        assert_eq!(ws.difference(a, d), Some(w(-3)));
        assert_eq!(ws.difference(d, b), Some(w(6)));
        assert_eq!(ws.difference(e, a), None);
        ws.join(e, a, w(10));
        assert_eq!(ws.difference(e, d), Some(w(7)));
        assert_eq!(ws.node(b"c"), c, "a view is one node");
    }

    /// Nodes made before `worths` started afresh name nothing: `of`
    /// empties a full cache between making a lookahead's nodes and asking
    /// their difference, which indexed an empty `worths` (a 2000-game
    /// planner lab, Sun 4, seed 50001: "index out of bounds: the len is 0
    /// but the index is 65509").
    #[test]
    fn nodes_from_before_a_restart_name_nothing() {
        let mut c = ScoreCache::empty();
        let (before, after) = (c.worths.node(b"a"), c.worths.node(b"b"));
        let nodes = Nodes { before, after, generation: c.generation };
        c.join(nodes, &[1, -2]);
        assert_eq!(c.difference(nodes).map(|d| (d[0], d[1])), Some((1, -2)));
        c.restart_worths();
        assert_eq!(c.difference(nodes), None);
        c.join(nodes, &[1, -2]);
        assert!(c.worths.parent.is_empty(), "nothing learnt through stale nodes");
    }
}
