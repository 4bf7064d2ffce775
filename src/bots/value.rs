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

use super::odds::win_table;
use super::{ActionKind, action_kind};
use crate::core::*;
use crate::engine::Engine;
use crate::rules::Rules;
use crate::script::PhaseHandler;

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
}

impl Default for Weights {
    fn default() -> Weights {
        Weights { future: 0.4, chest: 0.5, army: 0.3, supply: 0.05, revolt: 0.6, order: 0.0, leader: 0.5, reach: 0.0, exposure: 0.0 }
    }
}

impl Weights {
    /// The weights' names, as the planner's options spell them
    /// (`planner:army=0.5:revolt=1`).
    pub const NAMES: [&'static str; 9] = ["future", "chest", "army", "supply", "revolt", "order", "leader", "reach", "exposure"];

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
}

impl Valuer {
    pub fn new(engine: &Engine, weights: Weights) -> Valuer {
        Valuer { weights, units: Units::of(engine), board_only: false, regional: false, events: Vec::new(), scratch: None }
    }

    /// What the rules' score handler would award each seat if the year
    /// ended in position `st` (a copy is scored; `st` is not changed).
    /// Zero for every seat once the game is over.
    pub fn score_now(&mut self, engine: &Engine, st: &GameState) -> Vec<i64> {
        if st.phase == Phase::GameOver {
            return vec![0; st.seats()];
        }
        let key = self.board_only.then(|| board_key(st));
        if let Some(k) = &key
            && let Some(v) = SCORES.with_borrow_mut(|c| c.get(engine, k))
        {
            return v;
        }
        let s = self.scratch.get_or_insert_with(|| st.clone());
        s.clone_from(st);
        s.ask = None;
        self.events.clear();
        let v = match engine.runtime().call_phase(s, &mut self.events, PhaseHandler::Score) {
            Ok(_) => s.players.iter().zip(&st.players).map(|(a, b)| a.points - b.points).collect(),
            Err(_) => vec![0; st.seats()],
        };
        if let Some(k) = key {
            SCORES.with_borrow_mut(|c| c.put(engine, k, v.clone()));
        }
        v
    }

    /// What `score_now(st)` gives for a position `st` reached from `base`,
    /// whose scores are `now0`. Where the rules' scoring reads only the
    /// board and scores each region on its own, a change within one region
    /// adds what the same change of that region's board added before
    /// (remembered across positions and seats); else `st` is scored.
    pub fn score_from(&mut self, engine: &Engine, base: &GameState, now0: &[i64], st: &GameState) -> Vec<i64> {
        if !self.board_only {
            return self.score_now(engine, st);
        }
        let Some(changed) = changed_region(engine, base, st) else { return now0.to_vec() };
        let Some(r) = changed.filter(|_| self.regional) else { return self.score_now(engine, st) };
        let key = delta_key(engine, base, st, r);
        if let Some(d) = DELTAS.with_borrow_mut(|c| c.get(engine, &key)) {
            return now0.iter().zip(d).map(|(a, b)| a + b).collect();
        }
        let full = self.score_now(engine, st);
        DELTAS.with_borrow_mut(|c| c.put(engine, key, full.iter().zip(now0).map(|(a, b)| a - b).collect()));
        full
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

    /// Every seat's worth given the scores `now` of `score_now`.
    pub fn seat_values(&self, engine: &Engine, st: &GameState, now: &[i64]) -> Vec<f64> {
        let n = st.seats();
        if st.phase == Phase::GameOver {
            return st.players.iter().map(|p| p.points as f64 + CHEST_AT_END * p.chests as f64).collect();
        }
        // Provinces and armies of each seat, in one pass over the board.
        let mut held = vec![(0f64, 0f64); n];
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
        let (reach, exposure) = if w.reach == 0.0 && w.exposure == 0.0 { (vec![0.0; n], vec![0.0; n]) } else { self.threats(engine, st) };
        (0..n)
            .map(|s| {
                let p = &st.players[s];
                let score = now[s] as f64 * (1.0 + w.future * years_after);
                let threat = w.reach * reach[s] - w.exposure * exposure[s];
                let forces = fight * u.province * (w.army * held[s].1 + w.supply * f64::from(p.supply) + threat);
                let revolts = w.revolt * u.province * Valuer::winter_revolts(engine, held[s].0, p.rice as f64, loss);
                p.points as f64 + score + chest * p.chests as f64 + forces - revolts
            })
            .collect()
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
        let all = self.seat_values(engine, st, now);
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
    val.score_now(engine, st) == val.score_now(engine, &other)
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

/// A change of region `r`'s board: the round, the region, and each of its
/// provinces' owner, buildings and play before and after.
fn delta_key(engine: &Engine, base: &GameState, st: &GameState, r: usize) -> Vec<u8> {
    let mut k = vec![st.seats() as u8, st.year, st.season, r as u8, (r >> 8) as u8];
    for (i, p) in engine.rules.map.provinces.iter().enumerate() {
        if p.region == r {
            for s in [base, st] {
                let q = &s.provinces[i];
                k.extend([q.owner.map_or(u8::MAX, |o| o.index() as u8), q.buildings, u8::from(s.in_play[i])]);
            }
        }
    }
    k
}

thread_local! {
    /// Per engine's rules: whether its scoring scores each region on its own.
    static REGIONAL: PerEngine = const { RefCell::new(Vec::new()) };
    /// What a change of one region's board adds to each seat's score.
    static DELTAS: RefCell<ScoreCache> = RefCell::new(ScoreCache { rules: Weak::new(), map: std::collections::HashMap::new(), kept: DELTAS_KEPT });
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
        let (a, b) = (val.score_now(engine, &to), val.score_now(engine, from));
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

/// What the scoring depends on when it reads only the board: the round,
/// the provinces in play, and each province's owner and buildings.
fn board_key(st: &GameState) -> Vec<u8> {
    // The seats first: a remembered score has one entry per seat, so a
    // board of a game with another player count must not find it.
    let mut k = Vec::with_capacity(3 + 3 * st.provinces.len());
    k.push(st.seats() as u8);
    k.push(st.year);
    k.push(st.season);
    for (q, &on) in st.provinces.iter().zip(&st.in_play) {
        k.push(q.owner.map_or(u8::MAX, |s| s.index() as u8));
        k.push(q.buildings);
        k.push(u8::from(on));
    }
    k
}

/// Scores remembered by board for one engine's rules (the seats of a round
/// plan from the same board; its answer is the same for each).
struct ScoreCache {
    rules: Weak<Rules>,
    map: std::collections::HashMap<Vec<u8>, Vec<i64>>,
    /// Entries remembered at most (then the cache starts afresh).
    kept: usize,
}

/// Boards remembered at most.
const SCORES_KEPT: usize = 4096;
/// Changes of a region's board remembered at most (a region's board is
/// met again across rounds and games: about 100 bytes each).
const DELTAS_KEPT: usize = 32768;

impl ScoreCache {
    fn of(&mut self, engine: &Engine) -> &mut std::collections::HashMap<Vec<u8>, Vec<i64>> {
        if !Weak::ptr_eq(&self.rules, &Rc::downgrade(&engine.rules)) || self.rules.strong_count() == 0 || self.map.len() >= self.kept {
            self.rules = Rc::downgrade(&engine.rules);
            self.map.clear();
        }
        &mut self.map
    }
    fn get(&mut self, engine: &Engine, k: &[u8]) -> Option<Vec<i64>> {
        self.of(engine).get(k).cloned()
    }
    fn put(&mut self, engine: &Engine, k: Vec<u8>, v: Vec<i64>) {
        self.of(engine).insert(k, v);
    }
}

thread_local! {
    static SCORES: RefCell<ScoreCache> = RefCell::new(ScoreCache { rules: Weak::new(), map: std::collections::HashMap::new(), kept: SCORES_KEPT });
}
