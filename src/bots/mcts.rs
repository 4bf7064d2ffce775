//! `mcts`: information-set Monte Carlo search from the seat's own view.
//!
//! At each decision with more than one candidate the bot runs a budget of
//! iterations. Each iteration samples one world consistent with what its
//! seat sees (`GameState::view`): the face-down action cards, the event
//! deck and the draft deck are shuffled, the tower's levels are drawn from
//! the counts by colour inside it, the game's random streams get a fresh
//! seed (battles, the event drawn, ties in the bids), and every other seat
//! that has already planned gets the plan the greedy policy would make in
//! its place (their real plans are hidden from the view and never read).
//! The candidate chosen by UCB1 is applied to that world with
//! `Engine::apply` (so every rule, variant and tower, Lua ones included,
//! is respected), then all seats play the greedy policy (this seat keeping
//! its restrictions) until the end of the year or of the game, and the
//! world is valued by the rules' own scoring (`value::Valuer`, the
//! planner's value of a position). The bot picks the candidate visited most.
//!
//! Planning is a secret simultaneous decision; the bot treats it as its
//! own move against the others' sampled plans: its candidates are the
//! greedy plan, the same plan with each other bid, and plans that put one
//! other province card on one other action space (only where the action
//! could be carried out), up to a number that grows with the budget.
//! The tree is one level deep (a bandit over the root's candidates);
//! deeper decisions are played by the rollout policy. See docs/bots.md.

use std::time::Duration;

use super::value::{Valuer, Weights};
use super::{Bot, Forbid, Greedy, action_kind, feasible};
use crate::clock::Stopwatch;
use crate::core::*;
use crate::engine::{CheckMode, Engine};
use crate::rules::Asked;

/// How much search a decision gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Iterations (sampled worlds played out) per decision: reproducible.
    Iterations(u32),
    /// Wall time per decision: depends on the machine, so not reproducible.
    Time(Duration),
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::Iterations(200)
    }
}

/// The most iterations one decision may get: past this a game with a few
/// hundred decisions would run for hours (`mcts:4294967295` ran for days).
pub const MAX_ITERATIONS: u32 = 100_000;
/// The most time one decision may get.
pub const MAX_TIME: Duration = Duration::from_secs(60);

impl Budget {
    /// `400` (iterations), `50ms` or `0.5s` (time); at most
    /// `MAX_ITERATIONS` or `MAX_TIME`, whoever names it (the command line,
    /// a save, a lab arm): every bot name is read here.
    pub fn parse(s: &str) -> Result<Budget, String> {
        let too_long = || format!("asks for more than the cap of {} s a decision", MAX_TIME.as_secs());
        let time = |d: Option<Duration>| match d {
            Some(d) if d > MAX_TIME => Err(too_long()),
            Some(d) if !d.is_zero() => Ok(Budget::Time(d)),
            _ => Err("is not understood".to_string()),
        };
        if let Some(ms) = s.strip_suffix("ms") {
            return time(ms.parse::<u64>().ok().map(Duration::from_millis));
        }
        if let Some(sec) = s.strip_suffix('s') {
            return time(sec.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).map(|x| Duration::from_secs_f64(x.min(1e9))));
        }
        match s.parse::<u64>() {
            Ok(n) if n > u64::from(MAX_ITERATIONS) => Err(format!("asks for more than the cap of {MAX_ITERATIONS} iterations a decision")),
            Ok(n) if n > 0 => Ok(Budget::Iterations(n as u32)),
            _ => Err("is not understood".to_string()),
        }
    }
}

#[derive(Clone)]
pub struct Mcts {
    rng: GameRng,
    budget: Budget,
    forbid: Forbid,
}

/// What the search found for one candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CandidateStats {
    pub visits: u32,
    /// Mean value (the seat's value by the rules' scoring less the others').
    pub mean: f64,
}

/// Switches the engine to bulk mode while a search runs (no narration, the
/// invariants checked at the end of a game only) and back when dropped.
pub(super) struct Quiet<'e> {
    engine: &'e Engine,
    narrate: bool,
    check: CheckMode,
}

impl<'e> Quiet<'e> {
    pub(super) fn new(engine: &'e Engine) -> Quiet<'e> {
        let q = Quiet { engine, narrate: engine.runtime().narrating(), check: engine.check_mode() };
        engine.runtime().set_narration(false);
        engine.set_check(CheckMode::End);
        q
    }
}

impl Drop for Quiet<'_> {
    fn drop(&mut self) {
        self.engine.runtime().set_narration(self.narrate);
        self.engine.set_check(self.check);
    }
}

impl Mcts {
    pub fn new(seed: u64, budget: Budget, forbid: Forbid) -> Mcts {
        Mcts { rng: GameRng::seeded(seed), budget, forbid }
    }

    /// How many plans a planning search considers.
    fn plan_candidates_wanted(&self) -> usize {
        match self.budget {
            Budget::Iterations(n) => (n as usize / 25).clamp(4, 16),
            Budget::Time(_) => 8,
        }
    }

    /// Candidate plans: the greedy plan first, then other bids, then
    /// one-card changes, all valid and within the restrictions.
    fn plan_candidates(&mut self, engine: &Engine, sv: &SeatView, seat: Seat) -> Vec<Plan> {
        let want = self.plan_candidates_wanted();
        let view = sv.state();
        let base = Greedy::restricted(0, self.forbid).plan(engine, sv, seat);
        let mut out = vec![base.clone()];
        let n = base.slots.len();
        let kinds: Vec<_> = (0..n).map(|a| action_kind(engine, a)).collect();
        let finish = |mut p: Plan| -> Plan {
            for s in p.slots.iter_mut() {
                if matches!(s, Some(Card::Chest(_))) {
                    *s = None;
                }
            }
            super::comply(engine, sv, seat, &mut p, self.forbid);
            p
        };
        let mut bids: Vec<Option<Card>> =
            engine.rules.rules.components.chest_cards.iter().filter(|&&v| v <= sv.chests(seat)).map(|&v| Some(Card::Chest(v as u8))).collect();
        if let Some(p) = sv.provinces_of(seat).last() {
            bids.push(Some(Card::Province(p)));
        }
        let mut more = Vec::new();
        for bid in bids {
            let mut p = base.clone();
            if let Some(c @ Card::Province(_)) = bid {
                for s in p.slots.iter_mut().filter(|s| **s == Some(c)) {
                    *s = None;
                }
            }
            p.bid = bid;
            more.push(finish(p));
        }
        let mut changes = Vec::new();
        let chests = sv.chests(seat);
        for a in 0..n {
            if self.forbid.action(kinds[a]) {
                continue;
            }
            for q in sv.provinces_of(seat) {
                let card = Some(Card::Province(q));
                if base.slots[a] == card || !feasible(engine, sv, seat, a, kinds[a], q, chests) {
                    continue;
                }
                let mut p = base.clone();
                for s in p.slots.iter_mut().filter(|s| **s == card) {
                    *s = None;
                }
                if p.bid == card {
                    p.bid = None;
                }
                p.slots[a] = card;
                changes.push(p);
            }
        }
        self.rng.shuffle(&mut changes);
        for p in more.into_iter().chain(changes.into_iter().map(finish)) {
            if out.len() >= want {
                break;
            }
            let forbidden =
                p.slots.iter().enumerate().any(|(a, c)| matches!(c, Some(Card::Province(_))) && self.forbid.action(kinds[a]) && base.slots[a] != *c);
            if !out.contains(&p) && !forbidden && engine.check_plan(view, seat, &p).is_ok() {
                out.push(p);
            }
        }
        out
    }

    /// Candidate answers: all options, less those the restrictions forbid.
    fn choice_candidates(&self, engine: &Engine, view: &SeatView, seat: Seat, kind: &str, options: &[Choice]) -> Vec<Choice> {
        let asked = engine.rules.bots.asked(kind);
        if self.forbid.attack && asked == Some(Asked::MoveTarget) {
            let own: Vec<Choice> = options.iter().copied().filter(|c| matches!(c, Choice::Province(q) if view.province(*q).owner == Some(seat))).collect();
            if !own.is_empty() {
                return own;
            }
        }
        if self.forbid.attack && asked == Some(Asked::MoveCount) && super::greedy::move_is_attack(engine, view, seat) {
            return options.iter().copied().min().into_iter().collect();
        }
        options.to_vec()
    }

    /// Runs the search over `candidates` (decisions for `seat` in the
    /// position `view` shows) and returns what it found for each.
    pub fn search(&mut self, engine: &Engine, view: &GameState, seat: Seat, candidates: &[Decision]) -> Vec<CandidateStats> {
        let n = candidates.len();
        let mut visits = vec![0u32; n];
        let mut sums = vec![0f64; n];
        if n <= 1 {
            return vec![CandidateStats { visits: 0, mean: 0.0 }; n];
        }
        let _quiet = Quiet::new(engine);
        let watch = matches!(self.budget, Budget::Time(_)).then(Stopwatch::start);
        let (mut all, mut all_sq) = (0f64, 0f64);
        let mut it = 0u32;
        let mut valuer = Valuer::new(engine, Weights::default());
        loop {
            let done = match self.budget {
                Budget::Iterations(k) => it >= k.max(n as u32),
                Budget::Time(d) => it as usize >= n && watch.as_ref().is_some_and(|w| w.elapsed() >= d),
            };
            if done {
                break;
            }
            let k = if (it as usize) < n {
                it as usize
            } else {
                let total = f64::from(it);
                let mean = all / total;
                let sd = (all_sq / total - mean * mean).max(0.0).sqrt().max(0.25);
                let c = 1.0 * sd;
                (0..n)
                    .max_by(|&a, &b| {
                        let ucb = |i: usize| sums[i] / f64::from(visits[i]) + c * (total.ln() / f64::from(visits[i])).sqrt();
                        ucb(a).total_cmp(&ucb(b)).then(b.cmp(&a))
                    })
                    .unwrap_or(0)
            };
            let world = determinize(engine, view, seat, &mut self.rng);
            let mut rng = self.rng.fork();
            let v = rollout(engine, world, &candidates[k], seat, self.forbid, &mut rng, &mut valuer);
            visits[k] += 1;
            sums[k] += v;
            all += v;
            all_sq += v * v;
            it += 1;
        }
        (0..n).map(|i| CandidateStats { visits: visits[i], mean: if visits[i] == 0 { 0.0 } else { sums[i] / f64::from(visits[i]) } }).collect()
    }

    /// The index of the best candidate: most visits, then best mean, then first.
    fn best(stats: &[CandidateStats]) -> usize {
        (0..stats.len()).max_by(|&a, &b| stats[a].visits.cmp(&stats[b].visits).then(stats[a].mean.total_cmp(&stats[b].mean)).then(b.cmp(&a))).unwrap_or(0)
    }
}

/// One world consistent with `view`, which `seat` sees: what the seat
/// cannot see is drawn again (see the module's comment).
pub fn determinize(engine: &Engine, view: &GameState, seat: Seat, rng: &mut GameRng) -> GameState {
    let mut w = view.clone();
    // The future (every random stream) is hidden: another seed.
    w.streams.reseed(rng.next_seed());
    let open = (w.actions_revealed as usize).min(w.action_row.len());
    rng.shuffle(&mut w.action_row[open..]);
    rng.shuffle(&mut w.event_deck);
    if let Some(d) = &mut w.draft {
        rng.shuffle(&mut d.deck);
    }
    // What a seat's view keeps of the tower is its contents by colour.
    crate::tower::sample_levels(engine.tower().as_ref(), &mut w.tower, rng);
    w.seen_by = None;
    for s in Seat::all(w.seats()) {
        if s != seat && w.players[s.index()].plan.is_some() {
            let plan = Greedy::new(0).plan(engine, &SeatView::new(&w, s), s);
            w.players[s.index()].plan = Some(plan);
        }
    }
    w
}

/// Applies `first` to the world, plays greedy to the end of the year (or
/// game) and returns the world's value for `seat` by the rules' own
/// scoring (`Valuer`, the planner's value of a position).
fn rollout(engine: &Engine, mut w: GameState, first: &Decision, seat: Seat, forbid: Forbid, rng: &mut GameRng, valuer: &mut Valuer) -> f64 {
    let year = w.year;
    if engine.apply(&mut w, first).is_err() {
        return valuer.value(engine, &w, seat) - 1000.0;
    }
    let mut bots: Vec<Greedy> =
        Seat::all(w.seats()).map(|s| Greedy::restricted(u64::from(rng.below(u32::MAX)), if s == seat { forbid } else { Forbid::default() })).collect();
    while w.phase != Phase::GameOver && w.year == year {
        let d = match engine.actor(&w) {
            Actor::Terminal => break,
            Actor::Chance => Decision::Chance,
            Actor::Seat(s) => super::decide(engine, &w, s, &mut bots[s.index()]),
            Actor::Simultaneous(seats) => super::decide(engine, &w, seats[0], &mut bots[seats[0].index()]),
        };
        if engine.apply(&mut w, &d).is_err() {
            break;
        }
    }
    valuer.value(engine, &w, seat)
}

impl Bot for Mcts {
    fn boxed_clone(&self) -> Box<dyn Bot> {
        Box::new(self.clone())
    }

    fn name(&self) -> &'static str {
        "mcts"
    }

    fn plan(&mut self, engine: &Engine, view: &SeatView, seat: Seat) -> Plan {
        let plans = self.plan_candidates(engine, view, seat);
        let cands: Vec<Decision> = plans.iter().map(|p| Decision::Plan { seat, plan: p.clone() }).collect();
        let stats = self.search(engine, view.state(), seat, &cands);
        plans[Self::best(&stats)].clone()
    }

    fn choose(&mut self, engine: &Engine, view: &SeatView, seat: Seat, kind: &str, options: &[Choice]) -> Choice {
        let choices = self.choice_candidates(engine, view, seat, kind, options);
        let cands: Vec<Decision> = choices.iter().map(|&c| Decision::Choose { seat, choice: c }).collect();
        if cands.len() == 1 {
            return choices[0];
        }
        let stats = self.search(engine, view.state(), seat, &cands);
        choices[Self::best(&stats)]
    }
}
