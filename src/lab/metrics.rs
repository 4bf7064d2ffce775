//! What one game of the lab measured: a record per game and arm, gathered
//! from the engine's events and the state after each decision (never from
//! narration), and its flattening into named numbers for the statistics.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::core::{Card, Event, GameState, Seat};
use crate::engine::Engine;

/// One game under one arm: the JSONL record the lab writes and merges.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Always `game` (the JSONL header line has `header`): filter on it to
    /// load the records as one table (docs/lab.md).
    pub record: String,
    /// Index of the condition (tower × bot set) the game was played under.
    pub condition: usize,
    /// Index of the game (its seed is the lab's seed plus this).
    pub game: u64,
    pub arm: usize,
    /// The arm's canonical ruleset name.
    pub ruleset: String,
    /// The arm's rules hash (`ArmRules::hash` in the header).
    pub rules_hash: String,
    pub seed: u64,
    /// The bot of each seat (after rotation).
    pub bots: Vec<String>,
    /// Seats ranked first, by their letters as `run --json` gives them
    /// (`["C"]`); more than one when fully tied.
    pub winners: Vec<String>,
    pub ranks: Vec<u8>,
    pub points: Vec<i64>,
    pub chests: Vec<i64>,
    pub provinces: Vec<u32>,
    pub buildings: Vec<u32>,
    /// Points of the first minus points of the second.
    pub margin: i64,
    /// The first two have equal points: war chests decided.
    pub tiebreak: bool,
    pub decisions: u64,
    /// Battles by kind, from the engine's battle events.
    pub battles: BTreeMap<String, u64>,
    pub owner_changes: u64,
    /// War chests bid by each seat over the game.
    pub bid_chests: Vec<i64>,
    /// Rounds in which each seat bid a province card.
    pub bid_provinces: Vec<u32>,
    /// Cubes left inside the tower at the end.
    pub tower_stuck: u32,
    /// How often the leader (points, then chests) changed between scorings.
    pub lead_changes: u32,
    /// The rules' own statistics (`game.tally`): key -> per seat.
    pub tallies: BTreeMap<String, Vec<i64>>,
    /// `game.tally` calls without a seat: key -> total.
    pub game_tallies: BTreeMap<String, i64>,
    /// Calls in this game of each function the arm's variants added or
    /// replaced (the header's `rules[arm].parts`, in order): the rule use.
    pub rule_use: Vec<u64>,
    /// Behaviour: action id -> per seat, the action cards carried out
    /// (the engine turned to the seat's province card and the rules did
    /// not skip it).
    #[serde(default)]
    pub actions: BTreeMap<String, Vec<u32>>,
    /// Behaviour: building kind -> per seat, buildings that appeared in a
    /// province the seat held right after.
    #[serde(default)]
    pub built: BTreeMap<String, Vec<u32>>,
}

/// Gathers a record while a game is played.
pub struct Collector {
    rec: GameRecord,
    seats: usize,
    /// The rules' action ids and building kinds, by index.
    action_ids: Vec<String>,
    building_ids: Vec<String>,
    /// The action card turned to last and not yet skipped: (seat, action).
    turned: Option<(Seat, u8)>,
    /// Each province's buildings after the last decision.
    last_buildings: Vec<u8>,
    /// The (year, season) whose bids were counted last.
    bids_of: Option<(u8, u8)>,
    last_points: Vec<i64>,
    leader: Option<u8>,
}

impl Collector {
    pub fn new(engine: &Engine, seats: usize) -> Collector {
        let rules = &engine.rules;
        let action_ids: Vec<String> = rules.cards.actions.iter().map(|a| a.id.clone()).collect();
        let building_ids: Vec<String> = rules.rules.components.buildings.iter().map(|b| b.id.clone()).collect();
        let zero = |ids: &[String]| ids.iter().map(|id| (id.clone(), vec![0; seats])).collect();
        Collector {
            rec: GameRecord {
                record: "game".into(),
                bid_chests: vec![0; seats],
                bid_provinces: vec![0; seats],
                actions: zero(&action_ids),
                built: zero(&building_ids),
                ..GameRecord::default()
            },
            seats,
            action_ids,
            building_ids,
            turned: None,
            last_buildings: Vec::new(),
            bids_of: None,
            last_points: vec![0; seats],
            leader: None,
        }
    }

    /// The events one decision caused and the state after it.
    pub fn observe(&mut self, events: &[Event], after: &GameState) {
        self.rec.decisions += 1;
        for e in events {
            match e {
                Event::Action { seat, action, .. } => {
                    self.carried_out();
                    self.turned = Some((*seat, *action));
                }
                Event::Battle { kind, .. } => bump(&mut self.rec.battles, kind, || 0, |n| *n += 1),
                Event::OwnerChange { .. } => self.rec.owner_changes += 1,
                Event::Tally { key, seat, amount } => match seat {
                    Some(s) => {
                        // The rules skipped the action card turned to last.
                        if key.starts_with("skipped.") && self.turned.is_some_and(|(t, _)| t == *s) {
                            self.turned = None;
                        }
                        let seats = self.seats;
                        bump(
                            &mut self.rec.tallies,
                            key,
                            || vec![0; seats],
                            |v| {
                                if let Some(x) = v.get_mut(s.index()) {
                                    *x = x.saturating_add(*amount);
                                }
                            },
                        );
                    }
                    None => {
                        bump(&mut self.rec.game_tallies, key, || 0, |x| *x = x.saturating_add(*amount));
                    }
                },
                Event::Heading(_) | Event::Note(_) | Event::Secret { .. } | Event::Throw { .. } => {}
            }
        }
        // An action card's events end with the decision that carries it
        // out (a question it asks ends the decision, but then it was not
        // skipped before asking: the rules skip an action whole).
        self.carried_out();
        self.count_built(after);
        // Bids are public once revealed: count each round's once.
        let round = (after.year, after.season);
        if self.bids_of != Some(round) && after.players.iter().any(|p| p.revealed_bid.is_some()) {
            self.bids_of = Some(round);
            for (s, p) in after.players.iter().enumerate() {
                match p.revealed_bid {
                    Some(Card::Chest(v)) => self.rec.bid_chests[s] += i64::from(v),
                    Some(Card::Province(_)) => self.rec.bid_provinces[s] += 1,
                    None => {}
                }
            }
        }
        // Points change at scorings: follow the leader.
        if after.players.iter().zip(&self.last_points).any(|(p, &q)| p.points != q) {
            self.last_points = after.players.iter().map(|p| p.points).collect();
            let lead = (0..self.seats).max_by(|&a, &b| {
                let (pa, pb) = (&after.players[a], &after.players[b]);
                (pa.points, pa.chests).cmp(&(pb.points, pb.chests)).then(b.cmp(&a))
            });
            let lead = lead.map(|s| s as u8);
            if self.leader.is_some() && lead != self.leader {
                self.rec.lead_changes += 1;
            }
            self.leader = lead;
        }
    }

    /// Counts the action card turned to last as carried out (no skip
    /// followed it).
    fn carried_out(&mut self) {
        if let Some((seat, action)) = self.turned.take()
            && let Some(id) = self.action_ids.get(usize::from(action))
            && let Some(x) = self.rec.actions.get_mut(id).and_then(|v| v.get_mut(seat.index()))
        {
            *x += 1;
        }
    }

    /// Buildings that appeared since the last decision, by the province's
    /// holder after it.
    fn count_built(&mut self, after: &GameState) {
        if self.last_buildings.len() != after.provinces.len() {
            self.last_buildings = after.provinces.iter().map(|p| p.buildings).collect();
            return;
        }
        // Most decisions change no building: a look before any write.
        if self.last_buildings.iter().zip(&after.provinces).all(|(&was, p)| was == p.buildings) {
            return;
        }
        for (was, p) in self.last_buildings.iter_mut().zip(&after.provinces) {
            let new = p.buildings & !*was;
            *was = p.buildings;
            if new == 0 {
                continue;
            }
            let Some(owner) = p.owner else { continue };
            for (k, id) in self.building_ids.iter().enumerate() {
                if new & (1 << k) != 0
                    && let Some(x) = self.rec.built.get_mut(id).and_then(|v| v.get_mut(owner.index()))
                {
                    *x += 1;
                }
            }
        }
    }

    /// The record of the finished game.
    pub fn finish(mut self, engine: &Engine, st: &GameState) -> Result<GameRecord, crate::engine::EngineError> {
        let standings = engine.standings(st)?;
        let n = st.seats();
        let mut ranks = vec![0u8; n];
        for &(s, r) in &standings {
            ranks[s.index()] = r as u8;
        }
        let r = &mut self.rec;
        r.ranks = ranks;
        let mut first: Vec<Seat> = standings.iter().filter(|(_, rank)| *rank == 1).map(|(s, _)| *s).collect();
        first.sort();
        r.winners = first.into_iter().map(|s| engine.rules.seat_name(s).to_string()).collect();
        r.points = st.players.iter().map(|p| p.points).collect();
        r.chests = st.players.iter().map(|p| p.chests).collect();
        r.provinces = Seat::all(n).map(|s| st.provinces_of(s).count() as u32).collect();
        r.buildings = Seat::all(n).map(|s| st.provinces_of(s).map(|p| st.provinces[p.index()].building_count()).sum()).collect();
        if let [first, second, ..] = standings.as_slice() {
            let (a, b) = (&st.players[first.0.index()], &st.players[second.0.index()]);
            r.margin = a.points.saturating_sub(b.points);
            r.tiebreak = a.points == b.points && a.chests != b.chests;
        }
        r.tower_stuck = st.tower.iter().map(|l| l.total()).sum();
        Ok(self.rec)
    }
}

/// Applies `f` to the count of `key` in `map`, made by `zero` if the key
/// is new (the key is copied only then: a game counts a few hundred events,
/// nearly all of them under keys met before).
fn bump<V>(map: &mut BTreeMap<String, V>, key: &str, zero: impl FnOnce() -> V, f: impl FnOnce(&mut V)) {
    match map.get_mut(key) {
        Some(v) => f(v),
        None => f(map.entry(key.to_string()).or_insert_with(zero)),
    }
}

/// `parts` joined by dots.
fn dotted(parts: &[&str]) -> String {
    parts.join(".")
}

/// The per-seat metrics, in the order a record is flattened.
const SEAT_FIELDS: [&str; 8] = ["win", "rank", "points", "chests", "provinces", "buildings", "bid_chests", "bid_provinces"];
/// The per-game metrics that are not keyed by the rules' names.
const GAME_FIELDS: [&str; 7] = ["margin", "tiebreak", "decisions", "battles", "owner_changes", "tower_stuck", "lead_changes"];
/// The metrics keyed by the rules' names, per key a total and one per
/// seat: `actions.K`, `actions.K.A`, ...
const KEYED: [&str; 3] = ["actions", "built", "tally"];
/// The tallies' place in `KEYED`.
const TALLY: usize = 2;

/// A keyed metric's indices: its total and each seat's.
#[derive(Clone, Debug)]
struct Keyed {
    total: u32,
    seats: Vec<u32>,
}

/// The lab's metric names, each with an index: the sums are kept by index,
/// so a game's few hundred numbers are added without building, comparing or
/// copying their names (only a name met for the first time is built). Two
/// ways of writing the same name (a tally `a.B` and seat B's tally `a`) are
/// one metric, as they are one name.
#[derive(Clone, Debug)]
pub struct Names {
    list: Vec<String>,
    index: BTreeMap<String, u32>,
    seats: Vec<String>,
    /// Per seat, the index of each of `SEAT_FIELDS`.
    seat_fields: Vec<[u32; SEAT_FIELDS.len()]>,
    game_fields: [u32; GAME_FIELDS.len()],
    /// `battles.K` by K.
    battles: BTreeMap<String, u32>,
    /// Per `KEYED` prefix, K -> its indices.
    keyed: [BTreeMap<String, Keyed>; KEYED.len()],
}

impl Names {
    pub fn new(seats: &[String]) -> Names {
        let mut n = Names {
            list: Vec::new(),
            index: BTreeMap::new(),
            seats: seats.to_vec(),
            seat_fields: Vec::new(),
            game_fields: [0; GAME_FIELDS.len()],
            battles: BTreeMap::new(),
            keyed: Default::default(),
        };
        for seat in seats {
            let ids = SEAT_FIELDS.map(|f| n.intern(dotted(&[f, seat])));
            n.seat_fields.push(ids);
        }
        n.game_fields = GAME_FIELDS.map(|f| n.intern(f.to_string()));
        n
    }

    fn intern(&mut self, name: String) -> u32 {
        if let Some(&i) = self.index.get(&name) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(name.clone());
        self.index.insert(name, i);
        i
    }

    /// The name of metric `i` (an index this `Names` gave).
    pub(crate) fn name(&self, i: u32) -> &str {
        &self.list[i as usize]
    }

    /// The index of a name met so far.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    /// The index of seat `s`'s win share (`win.A`; `s` one of the seats
    /// this `Names` was made for).
    pub(crate) fn win(&self, s: usize) -> u32 {
        self.seat_fields[s][0]
    }

    fn battle(&mut self, kind: &str) -> u32 {
        match self.battles.get(kind) {
            Some(&i) => i,
            None => {
                let i = self.intern(dotted(&["battles", kind]));
                self.battles.insert(kind.to_string(), i);
                i
            }
        }
    }

    fn keyed(&mut self, family: usize, key: &str) -> &Keyed {
        if !self.keyed[family].contains_key(key) {
            let prefix = KEYED[family];
            let total = self.intern(dotted(&[prefix, key]));
            let names = self.seats.clone();
            let seats = names.iter().map(|seat| self.intern(dotted(&[prefix, key, seat]))).collect();
            self.keyed[family].insert(key.to_string(), Keyed { total, seats });
        }
        &self.keyed[family][key]
    }

    /// A record as numbers by metric (the lab's metrics): per seat
    /// `win.A`, `points.A`, ...; per game `margin`, `battles`, ...; and
    /// every tally, per seat and in total. Win is the seat's share of first
    /// place (1/k when k seats tie). Written into `out`, which is cleared
    /// first.
    pub fn flatten_into(&mut self, rec: &GameRecord, out: &mut Flat) {
        out.clear();
        let share = if rec.winners.is_empty() { 0.0 } else { 1.0 / rec.winners.len() as f64 };
        for s in 0..self.seats.len() {
            let won = if rec.winners.contains(&self.seats[s]) { share } else { 0.0 };
            let values = [
                won,
                f64::from(*rec.ranks.get(s).unwrap_or(&0)),
                *rec.points.get(s).unwrap_or(&0) as f64,
                *rec.chests.get(s).unwrap_or(&0) as f64,
                f64::from(*rec.provinces.get(s).unwrap_or(&0)),
                f64::from(*rec.buildings.get(s).unwrap_or(&0)),
                *rec.bid_chests.get(s).unwrap_or(&0) as f64,
                f64::from(*rec.bid_provinces.get(s).unwrap_or(&0)),
            ];
            for (&i, v) in self.seat_fields[s].iter().zip(values) {
                out.set(i, v);
            }
        }
        let [margin, tiebreak, decisions, battles, owner_changes, tower_stuck, lead_changes] = self.game_fields;
        out.set(margin, rec.margin as f64);
        out.set(tiebreak, if rec.tiebreak { 1.0 } else { 0.0 });
        out.set(decisions, rec.decisions as f64);
        // Sums of numbers a script or a record gave are taken wide: they
        // neither wrap nor panic (issue 23: `game.tally(.., math.maxinteger)`).
        out.set(battles, rec.battles.values().map(|&v| u128::from(v)).sum::<u128>() as f64);
        for (k, v) in &rec.battles {
            out.set(self.battle(k), *v as f64);
        }
        out.set(owner_changes, rec.owner_changes as f64);
        out.set(tower_stuck, f64::from(rec.tower_stuck));
        out.set(lead_changes, f64::from(rec.lead_changes));
        for (family, table) in [&rec.actions, &rec.built].into_iter().enumerate() {
            for (k, v) in table {
                let ids = self.keyed(family, k);
                out.set(ids.total, v.iter().map(|&x| f64::from(x)).sum());
                for (s, &i) in ids.seats.iter().enumerate() {
                    out.set(i, f64::from(*v.get(s).unwrap_or(&0)));
                }
            }
        }
        for (k, v) in &rec.tallies {
            let total: i128 = v.iter().map(|&x| i128::from(x)).sum::<i128>() + i128::from(rec.game_tallies.get(k).copied().unwrap_or(0));
            let ids = self.keyed(TALLY, k);
            out.set(ids.total, total as f64);
            for (s, &i) in ids.seats.iter().enumerate() {
                out.set(i, *v.get(s).unwrap_or(&0) as f64);
            }
        }
        for (k, v) in &rec.game_tallies {
            let i = self.keyed(TALLY, k).total;
            if !out.has(i) {
                out.set(i, *v as f64);
            }
        }
    }

    /// A flattened record by name (tests and tools; the lab keeps indices).
    pub fn named(&self, flat: &Flat) -> BTreeMap<String, f64> {
        flat.present.iter().map(|&i| (self.name(i).to_string(), flat.value(i))).collect()
    }
}

/// Values by metric index (`Names`), with which indices hold one: what
/// a record has (`Flat`) and what the lab has summed (its sums per arm
/// and pair).
#[derive(Clone, Debug, Default)]
pub(crate) struct ByIndex<T> {
    values: Vec<T>,
    has: Vec<bool>,
}

impl<T: Clone + Default> ByIndex<T> {
    /// The value at `i` (made with `T::default()` where there was none),
    /// and whether it was made now.
    pub fn slot(&mut self, i: u32) -> (&mut T, bool) {
        let at = i as usize;
        if at >= self.has.len() {
            self.has.resize(at + 1, false);
            self.values.resize(at + 1, T::default());
        }
        let new = !self.has[at];
        if new {
            self.has[at] = true;
            self.values[at] = T::default();
        }
        (&mut self.values[at], new)
    }

    /// The value at `i`, if there is one.
    pub fn get(&self, i: u32) -> Option<&T> {
        self.has.get(i as usize).copied().unwrap_or(false).then(|| &self.values[i as usize])
    }

    /// Forgets the value at `i` (its room is kept).
    fn unset(&mut self, i: u32) {
        if let Some(h) = self.has.get_mut(i as usize) {
            *h = false;
        }
    }

    /// The values with their indices, in index order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.values.iter().zip(&self.has).enumerate().filter(|(_, (_, has))| **has).map(|(i, (v, _))| (i as u32, v))
    }
}

/// One record's metrics by index (`Names::flatten_into`): the value of each
/// metric the record has, and which those are, in the order first set.
#[derive(Clone, Debug, Default)]
pub struct Flat {
    values: ByIndex<f64>,
    present: Vec<u32>,
}

impl Flat {
    /// Sets metric `i` (a later value replaces an earlier one).
    fn set(&mut self, i: u32, v: f64) {
        let (value, new) = self.values.slot(i);
        *value = v;
        if new {
            self.present.push(i);
        }
    }

    fn clear(&mut self) {
        for &i in &self.present {
            self.values.unset(i);
        }
        self.present.clear();
    }

    /// The record has metric `i`.
    pub fn has(&self, i: u32) -> bool {
        self.values.get(i).is_some()
    }

    /// Metric `i`'s value, 0 where the record does not have it.
    pub fn value(&self, i: u32) -> f64 {
        self.values.get(i).copied().unwrap_or(0.0)
    }

    /// The metrics the record has, in the order first set.
    pub fn present(&self) -> &[u32] {
        &self.present
    }
}
