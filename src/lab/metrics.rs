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
                Event::Battle { kind, .. } => *self.rec.battles.entry(kind.clone()).or_insert(0) += 1,
                Event::OwnerChange { .. } => self.rec.owner_changes += 1,
                Event::Tally { key, seat, amount } => match seat {
                    Some(s) => {
                        // The rules skipped the action card turned to last.
                        if key.starts_with("skipped.") && self.turned.is_some_and(|(t, _)| t == *s) {
                            self.turned = None;
                        }
                        let v = self.rec.tallies.entry(key.clone()).or_insert_with(|| vec![0; self.seats]);
                        if let Some(x) = v.get_mut(s.index()) {
                            *x = x.saturating_add(*amount);
                        }
                    }
                    None => {
                        let x = self.rec.game_tallies.entry(key.clone()).or_insert(0);
                        *x = x.saturating_add(*amount);
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

/// `parts` joined by dots, made in one allocation (a game's records are
/// flattened into a few hundred of these: `format!` cost more than the
/// rest of the lab's bookkeeping).
fn dotted(parts: &[&str]) -> String {
    let mut key = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            key.push('.');
        }
        key.push_str(p);
    }
    key
}

/// A record as named numbers (the lab's metrics): per seat `win.A`,
/// `points.A`, ...; per game `margin`, `battles`, ...; and every tally,
/// per seat and in total. Win is the seat's share of first place (1/k when
/// k seats tie).
pub fn flatten(rec: &GameRecord, seat_names: &[String]) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    let share = if rec.winners.is_empty() { 0.0 } else { 1.0 / rec.winners.len() as f64 };
    for (s, name) in seat_names.iter().enumerate() {
        let won = if rec.winners.contains(name) { share } else { 0.0 };
        m.insert(dotted(&["win", name]), won);
        m.insert(dotted(&["rank", name]), f64::from(*rec.ranks.get(s).unwrap_or(&0)));
        m.insert(dotted(&["points", name]), *rec.points.get(s).unwrap_or(&0) as f64);
        m.insert(dotted(&["chests", name]), *rec.chests.get(s).unwrap_or(&0) as f64);
        m.insert(dotted(&["provinces", name]), f64::from(*rec.provinces.get(s).unwrap_or(&0)));
        m.insert(dotted(&["buildings", name]), f64::from(*rec.buildings.get(s).unwrap_or(&0)));
        m.insert(dotted(&["bid_chests", name]), *rec.bid_chests.get(s).unwrap_or(&0) as f64);
        m.insert(dotted(&["bid_provinces", name]), f64::from(*rec.bid_provinces.get(s).unwrap_or(&0)));
    }
    m.insert("margin".into(), rec.margin as f64);
    m.insert("tiebreak".into(), if rec.tiebreak { 1.0 } else { 0.0 });
    m.insert("decisions".into(), rec.decisions as f64);
    // Sums of numbers a script or a record gave are taken wide: they
    // neither wrap nor panic (issue 23: `game.tally(.., math.maxinteger)`).
    m.insert("battles".into(), rec.battles.values().map(|&v| u128::from(v)).sum::<u128>() as f64);
    for (k, v) in &rec.battles {
        m.insert(dotted(&["battles", k]), *v as f64);
    }
    m.insert("owner_changes".into(), rec.owner_changes as f64);
    m.insert("tower_stuck".into(), f64::from(rec.tower_stuck));
    m.insert("lead_changes".into(), f64::from(rec.lead_changes));
    for (prefix, table) in [("actions", &rec.actions), ("built", &rec.built)] {
        for (k, v) in table {
            m.insert(dotted(&[prefix, k]), v.iter().map(|&x| f64::from(x)).sum());
            for (s, name) in seat_names.iter().enumerate() {
                m.insert(dotted(&[prefix, k, name]), f64::from(*v.get(s).unwrap_or(&0)));
            }
        }
    }
    for (k, v) in &rec.tallies {
        let total: i128 = v.iter().map(|&x| i128::from(x)).sum::<i128>() + i128::from(rec.game_tallies.get(k).copied().unwrap_or(0));
        m.insert(dotted(&["tally", k]), total as f64);
        for (s, name) in seat_names.iter().enumerate() {
            m.insert(dotted(&["tally", k, name]), *v.get(s).unwrap_or(&0) as f64);
        }
    }
    for (k, v) in &rec.game_tallies {
        m.entry(dotted(&["tally", k])).or_insert(*v as f64);
    }
    m
}
