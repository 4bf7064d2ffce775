//! The phase machine: turns decisions into new states, calling the rules
//! pack's Lua where the rules say what happens.
//!
//! `apply` is the only way a game moves. It works on a copy of the state
//! and replaces the original only when everything succeeded, so a failing
//! script or an illegal decision leaves the game exactly as it was.

mod draft;
mod invariants;
mod lookahead;
mod observe;

use std::fmt;
use std::rc::Rc;

/// The runtime's bounds, given when an engine is built (`with_options`),
/// and the unit rule use is counted in (`Engine::rule_parts`).
pub use crate::script::{Limits, MAX_AMOUNT, MAX_EVENTS_PER_DECISION, RulePart};
pub use invariants::check as check_invariants;

/// The kind of the engine's own question: which turn-order space to take.
pub const TURN_SPACE: &str = "turn_space";
/// The kind of the draft's question which card a seat takes.
pub const DRAFT_CARD: &str = "draft_card";
/// The kind of the draft's question which army group goes on the card taken.
pub const DRAFT_GROUP: &str = "draft_group";

use crate::core::*;
use crate::rules::{Diagnostics, Rules};
use crate::script::{PhaseHandler, Runtime, ScriptError};
use crate::tower::TowerModel;

#[derive(Clone, Debug, PartialEq)]
pub enum EngineError {
    /// The decision is not legal here (the text says why).
    Illegal(String),
    /// A script failed; the state is as before the decision.
    Script(ScriptError),
    /// The game cannot start as asked (player count, missing preset...).
    Setup(String),
    /// A rule of conservation was broken by a script; the decision is undone.
    Broken(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Illegal(s) => write!(f, "illegal decision: {s}"),
            EngineError::Script(e) => write!(f, "{e}"),
            EngineError::Setup(s) => write!(f, "cannot set up the game: {s}"),
            EngineError::Broken(s) => write!(f, "the rules broke an invariant: {s}"),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<ScriptError> for EngineError {
    fn from(e: ScriptError) -> Self {
        EngineError::Script(e)
    }
}

/// A decision that failed, and where: `play_from` is the index of the
/// first event of the play the decision set going (up to the next
/// decision) when that play failed, `None` when the decision itself did.
struct Failed {
    error: EngineError,
    play_from: Option<usize>,
}

/// A loaded ruleset ready to run games: the rules, the Lua VM and its tower.
pub struct Engine {
    pub rules: Rc<Rules>,
    runtime: Runtime,
    check: std::cell::Cell<CheckMode>,
    /// The state a previous `apply` replaced: the next one copies into its
    /// buffers instead of allocating new ones.
    spare: std::cell::RefCell<Option<GameState>>,
}

/// How often `apply` checks the invariants (conservation of pieces and
/// the like). A decision that breaks one is undone only when it is checked;
/// bulk runs trade that for speed. Debug builds always check every decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CheckMode {
    /// After every decision (the default: play, run, tests).
    #[default]
    Every,
    /// After every `SAMPLE_EVERY`-th decision of a game and at its end.
    Sample,
    /// Only when the game is over.
    End,
}

impl CheckMode {
    /// Decisions between checks in `Sample` mode.
    pub const SAMPLE_EVERY: u32 = 16;

    pub fn parse(s: &str) -> Result<CheckMode, String> {
        match s {
            "every" => Ok(CheckMode::Every),
            "sample" => Ok(CheckMode::Sample),
            "end" => Ok(CheckMode::End),
            other => Err(format!("unknown check mode `{other}` (every, sample, end)")),
        }
    }

    /// The word `parse` reads (saves, options).
    pub fn word(self) -> &'static str {
        match self {
            CheckMode::Every => "every",
            CheckMode::Sample => "sample",
            CheckMode::End => "end",
        }
    }

    /// How the mode reads in a report.
    pub fn describe(self) -> String {
        match self {
            CheckMode::Every => "after every decision".into(),
            CheckMode::Sample => format!("after every {}th decision and at the end", CheckMode::SAMPLE_EVERY),
            CheckMode::End => "at the end of each game".into(),
        }
    }
}

/// What it takes to build the same engine again (on another thread: an
/// `Engine` and its Lua VM stay on the thread that made them).
pub struct EngineSpec {
    rules: Rules,
    tower: String,
    limits: Limits,
    narrate: bool,
    check: CheckMode,
}

impl EngineSpec {
    pub fn build(self) -> Result<Engine, Diagnostics> {
        let engine = Engine::with_options(self.rules, Some(&self.tower), self.limits)?;
        engine.runtime.set_narration(self.narrate);
        engine.set_check(self.check);
        Ok(engine)
    }
}

/// A set of cards (a plan's, or those seen so far), without allocating
/// for the cards of any real board: province cards of the first 128
/// provinces and every war-chest value are bits; a province past those is
/// kept in a list (empty, so unallocated, on smaller maps).
#[derive(Clone, Default)]
struct CardSet {
    provinces: u128,
    chests: [u64; 4],
    far: Vec<ProvinceId>,
}

impl CardSet {
    /// The cards `plan` uses: on its spaces and its bid.
    fn of(plan: &Plan) -> CardSet {
        let mut set = CardSet::default();
        for &card in plan.slots.iter().chain(std::iter::once(&plan.bid)).flatten() {
            set.insert(card);
        }
        set
    }

    /// Adds `card`; false when it was in the set already.
    fn insert(&mut self, card: Card) -> bool {
        match card {
            Card::Chest(v) => {
                let (word, bit) = (usize::from(v / 64), v % 64);
                let new = self.chests[word] >> bit & 1 == 0;
                self.chests[word] |= 1 << bit;
                new
            }
            Card::Province(p) if p.index() < 128 => {
                let new = self.provinces >> p.index() & 1 == 0;
                self.provinces |= 1 << p.index();
                new
            }
            Card::Province(p) => {
                let new = !self.far.contains(&p);
                if new {
                    self.far.push(p);
                }
                new
            }
        }
    }

    fn contains(&self, card: Card) -> bool {
        match card {
            Card::Chest(v) => self.chests[usize::from(v / 64)] >> (v % 64) & 1 != 0,
            Card::Province(p) if p.index() < 128 => self.provinces >> p.index() & 1 != 0,
            Card::Province(p) => self.far.contains(&p),
        }
    }
}

pub(crate) fn illegal<T>(msg: impl Into<String>) -> Result<T, EngineError> {
    Err(EngineError::Illegal(msg.into()))
}

impl Engine {
    /// An engine with the rules' own tower (`tower.use`).
    pub fn new(rules: Rules) -> Result<Engine, Diagnostics> {
        Engine::with_options(rules, None, Limits::default())
    }

    /// An engine with the named tower instead of the rules' default.
    pub fn with_options(rules: Rules, tower: Option<&str>, limits: Limits) -> Result<Engine, Diagnostics> {
        let name = tower.map(str::to_string).unwrap_or_else(|| rules.rules.tower.use_.clone());
        let rules = Rc::new(rules);
        let runtime = Runtime::new(rules.clone(), &name, limits)?;
        Ok(Engine { rules, runtime, check: std::cell::Cell::new(CheckMode::Every), spare: std::cell::RefCell::new(None) })
    }

    /// The recipe for an identical engine (same rules, tower, limits,
    /// narration and check mode), to build on another thread.
    pub fn spec(&self) -> EngineSpec {
        EngineSpec {
            rules: (*self.rules).clone(),
            tower: self.runtime.tower_name(),
            limits: self.runtime.limits(),
            narrate: self.runtime.narrating(),
            check: self.check.get(),
        }
    }

    /// How often `apply` checks the invariants from now on.
    pub fn set_check(&self, mode: CheckMode) {
        self.check.set(mode);
    }

    pub fn check_mode(&self) -> CheckMode {
        self.check.get()
    }

    /// Whether `apply` checks the invariants of this state (just decided).
    fn checks(&self, st: &GameState) -> bool {
        if cfg!(debug_assertions) {
            return true;
        }
        match self.check.get() {
            CheckMode::Every => true,
            CheckMode::Sample => st.decisions.is_multiple_of(CheckMode::SAMPLE_EVERY) || st.phase == Phase::GameOver,
            CheckMode::End => st.phase == Phase::GameOver,
        }
    }

    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// How many calls into the rules have met the memory limit since the
    /// engine was made (`Runtime::calls_that_met_the_memory_limit`): a
    /// game that met it while played without copies is played again with
    /// them (`play::play_game`).
    pub fn calls_that_met_the_memory_limit(&self) -> u64 {
        self.runtime.calls_that_met_the_memory_limit()
    }

    /// The tower games use now.
    pub fn tower(&self) -> Rc<dyn TowerModel> {
        self.runtime.tower()
    }

    /// The setup a map uses unless told otherwise: its presets if it has
    /// them for this many players, else the draft.
    pub fn default_setup(&self, players: u8) -> SetupMode {
        if self.rules.map.presets.contains_key(&players) { SetupMode::Preset } else { SetupMode::Draft }
    }

    /// A new game before setup (the first decision is chance), with the
    /// map's default setup.
    pub fn new_game(&self, players: u8, seed: u64) -> Result<GameState, EngineError> {
        self.new_game_with(players, seed, self.default_setup(players))
    }

    pub fn new_game_with(&self, players: u8, seed: u64, setup: SetupMode) -> Result<GameState, EngineError> {
        let r = &self.rules.rules;
        if !r.players.takes(players) {
            return Err(EngineError::Setup(format!("{players} players: this ruleset is for {} to {}", r.players.min, r.players.max)));
        }
        if setup == SetupMode::Preset && !self.rules.map.presets.contains_key(&players) {
            return Err(EngineError::Setup(format!(
                "map `{}` has no preset starting positions for {players} players (use the draft: --setup draft)",
                self.rules.map.name
            )));
        }
        let n = self.rules.map.provinces.len();
        let player = PlayerState { supply: r.components.cubes_per_player as u16, chests: r.starting_chests[&players], ..PlayerState::default() };
        Ok(GameState {
            players: vec![player; players as usize],
            provinces: vec![ProvinceState::default(); n],
            in_play: self.rules.map.in_play(players),
            year: 0,
            season: 0,
            phase: Phase::Setup,
            peasants: r.components.peasants as u16,
            buildings: r.components.buildings.iter().map(|b| b.count as u16).collect(),
            unrest: r.components.unrest_markers as u16,
            tower: vec![Pile::default(); self.tower().levels()],
            tray: Pile::default(),
            forced_throws: Vec::new(),
            event_deck: Vec::new(),
            year_events: Vec::new(),
            event: None,
            action_row: Vec::new(),
            actions_revealed: 0,
            special_row: Vec::new(),
            choose_order: Vec::new(),
            turn_order: Vec::new(),
            ask: None,
            setup,
            draft: None,
            streams: Streams::new(seed),
            decisions: 0,
            seen_by: None,
        })
    }

    pub fn actor(&self, st: &GameState) -> Actor {
        if let Some(ask) = &st.ask {
            return Actor::Seat(ask.seat);
        }
        match st.phase {
            Phase::GameOver => Actor::Terminal,
            Phase::Setup | Phase::Preload | Phase::YearStart | Phase::RoundStart | Phase::Reveal | Phase::Winter => Actor::Chance,
            Phase::Draft => Actor::Seat(st.draft.as_ref().map(|d| d.turn).unwrap_or(Seat::new(0))),
            Phase::Planning => Actor::Simultaneous(Seat::all(st.seats()).filter(|&s| st.players[s.index()].plan.is_none()).collect()),
            Phase::ChooseSpace { idx } => Actor::Seat(st.choose_order[idx as usize]),
            // The machine never rests in these phases (see `advance`).
            Phase::Actions { .. } | Phase::Score => Actor::Chance,
        }
    }

    pub fn legal(&self, st: &GameState) -> Legal {
        if let Some(ask) = &st.ask {
            return Legal::Choose { seat: ask.seat, kind: ask.kind.to_string(), prompt: ask.prompt.clone(), options: ask.options.clone() };
        }
        if st.phase == Phase::Draft {
            return self.draft_legal(st);
        }
        match self.actor(st) {
            Actor::Terminal => Legal::None,
            Actor::Chance => Legal::Chance,
            Actor::Simultaneous(seats) => Legal::Plan { seats },
            Actor::Seat(seat) => Legal::Choose { seat, kind: TURN_SPACE.into(), prompt: "choose a turn-order space".into(), options: self.space_options(st) },
        }
    }

    /// The turn-order spaces still free, as the options of a `TURN_SPACE`
    /// choice.
    pub fn space_options(&self, st: &GameState) -> Vec<Choice> {
        self.free_spaces(st).map(Choice::Space).collect()
    }

    fn free_spaces<'a>(&self, st: &'a GameState) -> impl Iterator<Item = u8> + 'a {
        (0..st.special_row.len() as u8).filter(|&k| st.special_row[k as usize].is_some() && !st.players.iter().any(|p| p.space == Some(k)))
    }

    /// The cards a seat may put on its player board now.
    pub fn hand(&self, st: &impl Holdings, seat: Seat) -> Vec<Card> {
        let mut v: Vec<Card> = st.held_by(seat).map(Card::Province).collect();
        v.extend(self.chest_cards());
        v
    }

    /// The war-chest cards every hand holds, in the rules' order.
    fn chest_cards(&self) -> impl Iterator<Item = Card> + '_ {
        self.rules.rules.components.chest_cards.iter().map(|&c| Card::Chest(c as u8))
    }

    /// Why a plan is not acceptable for `seat` now, if it is not.
    pub fn check_plan(&self, st: &GameState, seat: Seat, plan: &Plan) -> Result<(), EngineError> {
        if st.phase != Phase::Planning {
            return illegal("plans are made only in the planning phase");
        }
        if seat.index() >= st.seats() {
            return illegal(format!("seat {seat} does not exist"));
        }
        if st.players[seat.index()].plan.is_some() {
            return illegal(format!("{} has already planned this round", self.rules.seat_name(seat)));
        }
        let actions = &self.rules.cards.actions;
        if plan.slots.len() != actions.len() {
            return illegal(format!("a plan has {} action spaces, got {}", actions.len(), plan.slots.len()));
        }
        let mut used = CardSet::default();
        let chest_cards = &self.rules.rules.components.chest_cards;
        for card in plan.slots.iter().chain(std::iter::once(&plan.bid)).flatten() {
            if !used.insert(*card) {
                return illegal(format!("card {} is used twice", self.card_name(*card)));
            }
            match card {
                Card::Province(p) => {
                    let p = p.index();
                    if p >= st.provinces.len() || st.provinces[p].owner != Some(seat) {
                        return illegal(format!("{} does not hold that province card", self.rules.seat_name(seat)));
                    }
                }
                Card::Chest(v) => {
                    if !chest_cards.contains(&i64::from(*v)) {
                        return illegal(format!("there is no war-chest card of value {v}"));
                    }
                }
            }
        }
        if let Some(Card::Chest(v)) = plan.bid
            && i64::from(v) > st.players[seat.index()].chests
        {
            return illegal(format!("{} bids {v} but holds {} war chests", self.rules.seat_name(seat), st.players[seat.index()].chests));
        }
        let empty = plan.slots.iter().filter(|c| c.is_none()).count();
        // A plan with its bid and every space placed leaves nothing to fill.
        if self.must_fill() && (plan.bid.is_none() || empty > 0) {
            let name = self.rules.seat_name(seat);
            let left = self.unplaced(st, seat, plan);
            if plan.bid.is_none() && left.iter().any(|c| self.can_bid(st, seat, *c)) {
                return illegal(format!("{name} must put a card on the bid space (a war-chest card or a province card)"));
            }
            if empty > 0 && !left.is_empty() {
                let cards: Vec<String> = left.iter().map(|c| self.card_name(*c)).collect();
                return illegal(format!(
                    "{name} leaves {empty} action space(s) empty but still holds {}: spaces stay empty only for lack of cards",
                    cards.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Whether the rules want every space filled while cards are left.
    pub fn must_fill(&self) -> bool {
        self.rules.rules.planning.empty_spaces == crate::rules::pack::EmptySpaces::OnlyWithoutCards
    }

    /// Whether `card` may lie on `seat`'s bid space (a chest bid is at most
    /// the chests held).
    pub fn can_bid(&self, st: &impl Holdings, seat: Seat, card: Card) -> bool {
        match card {
            Card::Chest(v) => i64::from(v) <= st.chests_of(seat),
            Card::Province(_) => true,
        }
    }

    /// The cards of `seat`'s hand that `plan` does not use.
    pub fn unplaced(&self, st: &impl Holdings, seat: Seat, plan: &Plan) -> Vec<Card> {
        // One allocation: room for every province and chest card.
        let mut left = Vec::with_capacity(st.province_states().len() + self.rules.rules.components.chest_cards.len());
        let placed = CardSet::of(plan);
        left.extend(st.held_by(seat).map(Card::Province).filter(|&c| !placed.contains(c)));
        left.extend(self.unplaced_chests(placed));
        left
    }

    /// The war-chest cards not in `placed` (a plan's cards), in the rules'
    /// order (the chest part of `unplaced`).
    fn unplaced_chests(&self, placed: CardSet) -> impl Iterator<Item = Card> + '_ {
        self.chest_cards().filter(move |&c| !placed.contains(c))
    }

    /// Puts the unused war-chest cards on empty action spaces, where they
    /// mean "skip" (when the rules want spaces filled). The choices that
    /// matter (the bid, province cards) stay with the player.
    pub fn fill_skips(&self, st: &impl Holdings, seat: Seat, plan: &mut Plan) {
        if !self.must_fill() {
            return;
        }
        // With the bid space still empty, keep the lowest card it could take.
        let mut keep_for_bid = plan.bid.is_none();
        let mut chests = self.unplaced_chests(CardSet::of(plan)).filter(|&c| {
            let keep = keep_for_bid && self.can_bid(st, seat, c);
            keep_for_bid &= !keep;
            !keep
        });
        for slot in plan.slots.iter_mut().filter(|s| s.is_none()) {
            match chests.next() {
                Some(c) => *slot = Some(c),
                None => break,
            }
        }
    }

    pub fn card_name(&self, c: Card) -> String {
        match c {
            Card::Province(p) => self.rules.map.provinces.get(p.index()).map(|x| x.name.clone()).unwrap_or_else(|| format!("province #{}", p.index())),
            Card::Chest(v) => format!("chest {v}"),
        }
    }

    pub fn choice_name(&self, c: Choice) -> String {
        match c {
            Choice::Province(p) => self.rules.province_name(p).to_string(),
            Choice::Count(n) => n.to_string(),
            Choice::Space(k) => format!("space {}", k + 1),
            Choice::Pass => "pass".into(),
            Choice::Deck => "deck".into(),
            Choice::Redraw => "redraw".into(),
        }
    }

    /// Runs the game on from a state changed by hand (a what-if edit, a
    /// test position) to the next decision. Atomic like `apply`.
    pub fn resume(&self, st: &mut GameState) -> Result<Vec<Event>, EngineError> {
        let mut next = st.clone();
        let mut ev = Vec::new();
        self.advance(&mut next, &mut ev)?;
        invariants::check(&self.rules, &next).map_err(EngineError::Broken)?;
        *st = next;
        Ok(ev)
    }

    /// Applies a decision and runs the game on to the next decision.
    /// On any error the state is left exactly as it was.
    pub fn apply(&self, st: &mut GameState, d: &Decision) -> Result<Vec<Event>, EngineError> {
        let mut ev = Vec::new();
        self.apply_into(st, d, &mut ev)?;
        Ok(ev)
    }

    /// `apply` with the events put in `ev` (cleared first), so that a
    /// driver making many decisions reuses one buffer for them.
    pub fn apply_into(&self, st: &mut GameState, d: &Decision, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        ev.clear();
        self.within_limit(st)?;
        // The copy reuses the buffers of the state the last apply replaced.
        let spare = self.spare.borrow_mut().take();
        let mut next = match spare {
            Some(mut s) => {
                s.clone_from(st);
                s
            }
            None => st.clone(),
        };
        let result = self.decide_from(st, &mut next, d, ev).map_err(|f| f.error);
        match result {
            Ok(()) => {
                let old = std::mem::replace(st, next);
                *self.spare.borrow_mut() = Some(old);
                Ok(())
            }
            Err(e) => {
                *self.spare.borrow_mut() = Some(next);
                Err(e)
            }
        }
    }

    /// Where a decision that `apply` refused failed: `None` when the
    /// decision itself failed (not legal, or the rules' answer to it
    /// raised) or the failure is not met again; otherwise what the game
    /// was carrying out after it, in words (`C's Build castle in Mimasaka`,
    /// `the winter`): a decision and the play it sets going up to the
    /// next decision are one move, so a rule failing in that play refuses
    /// the decision too. Worked out again on a copy.
    pub fn failure_context(&self, st: &GameState, d: &Decision) -> Option<String> {
        self.failure_point(st, d).map(|(_, doing)| doing)
    }

    /// `failure_context`, and when in the game that was, as the
    /// transcript's headings name it (`Year 1, spring`, `Year 1, winter`,
    /// `the setup`).
    pub fn failure_point(&self, st: &GameState, d: &Decision) -> Option<(String, String)> {
        let mut next = st.clone();
        let mut ev = Vec::new();
        let from = self.decide_from(st, &mut next, d, &mut ev).err()?.play_from?;
        let action = ev[from..].iter().rev().find_map(|e| match e {
            Event::Action { seat, action, province } => Some((*seat, *action, *province)),
            _ => None,
        });
        let when = match next.phase {
            Phase::Setup | Phase::Draft | Phase::Preload => "the setup".to_string(),
            Phase::Winter | Phase::Score | Phase::GameOver => self.round_name(next.year, None),
            Phase::YearStart => format!("Year {}", next.year + 1),
            _ => self.round_name(next.year, Some(next.season)),
        };
        let doing = match (next.phase, action) {
            (Phase::Actions { .. }, Some((seat, a, p))) => format!(
                "carrying out {}'s {} in {}",
                self.rules.seat_name(seat),
                self.rules.cards.actions.get(a as usize).map_or("action", |c| c.name.as_str()),
                self.rules.province_name(p)
            ),
            (Phase::Actions { .. }, None) => "carrying out the action cards".to_string(),
            (Phase::Winter, _) => "playing the winter".to_string(),
            (Phase::Score, _) => "scoring the year".to_string(),
            (Phase::Setup | Phase::Draft | Phase::Preload, _) => "setting up the game".to_string(),
            (Phase::YearStart, _) => "turning up the year's events".to_string(),
            (Phase::RoundStart, _) => "laying out the round's cards".to_string(),
            (Phase::Planning, _) => "planning".to_string(),
            (Phase::Reveal, _) => "revealing the bids".to_string(),
            (Phase::ChooseSpace { .. }, _) => "choosing the turn-order spaces".to_string(),
            (Phase::GameOver, _) => "ending the game".to_string(),
        };
        Some((when, doing))
    }

    /// A round as the transcript's headings name it: `Year 1, spring`, or
    /// with no season the year's winter (`Year 1, winter`).
    fn round_name(&self, year: u8, season: Option<u8>) -> String {
        let calendar = &self.rules.rules.calendar;
        let name = match season {
            Some(s) => calendar.seasons.get(usize::from(s)).map_or("?", String::as_str),
            None => calendar.winter.as_str(),
        };
        format!("Year {}, {name}", year + 1)
    }

    /// `apply` without the copy that makes it atomic: after an error the
    /// state is half-changed and must be thrown away. Only for runs that
    /// discard a game that failed (`play::play_game`: bench, the lab,
    /// `run`, soak); everything that keeps a state after an error (the
    /// REPL, scenarios, edits, previews) uses `apply`.
    pub fn apply_discarding_on_error(&self, st: &mut GameState, d: &Decision) -> Result<Vec<Event>, EngineError> {
        let mut ev = Vec::new();
        self.apply_discarding_on_error_into(st, d, &mut ev)?;
        Ok(ev)
    }

    /// `apply_discarding_on_error` with the events put in `ev` (cleared
    /// first), as `apply_into` puts them.
    pub fn apply_discarding_on_error_into(&self, st: &mut GameState, d: &Decision, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        ev.clear();
        self.within_limit(st)?;
        self.decide_in_place(st, d, ev).map_err(|f| f.error)
    }

    fn within_limit(&self, st: &GameState) -> Result<(), EngineError> {
        let limit = self.rules.rules.limits.decisions_per_game;
        if st.decisions >= limit {
            return Err(EngineError::Broken(format!(
                "the game has taken {} decisions without ending (limits.decisions_per_game in {})",
                st.decisions,
                self.rules.rules_source("limits/decisions_per_game").display()
            )));
        }
        Ok(())
    }

    /// `decide_in_place` on `next`, a copy of `st`; made again once from
    /// `st` when one of its calls met the memory limit: the heap is tidy
    /// then, so the decision made again fails only if it needs that memory
    /// itself, not because of what calls before it left (script/heap.rs).
    /// What `apply` and `failure_context` both make of a decision.
    fn decide_from(&self, st: &GameState, next: &mut GameState, d: &Decision, ev: &mut Vec<Event>) -> Result<(), Failed> {
        let met = self.runtime.calls_that_met_the_memory_limit();
        let result = self.decide_in_place(next, d, ev);
        if result.is_err() && self.runtime.calls_that_met_the_memory_limit() != met {
            next.clone_from(st);
            ev.clear();
            return self.decide_in_place(next, d, ev);
        }
        result
    }

    /// The decision, the game run on to the next one, the invariants.
    fn decide_in_place(&self, st: &mut GameState, d: &Decision, ev: &mut Vec<Event>) -> Result<(), Failed> {
        st.decisions += 1;
        self.step(st, d, ev).map_err(|error| Failed { error, play_from: None })?;
        let from = ev.len();
        let played = |error| Failed { error, play_from: Some(from) };
        self.advance(st, ev).map_err(played)?;
        // Each call checks the decision's events as it ends (the runtime's
        // `invoke_with`); the few the engine adds itself between calls are
        // counted here, so no decision ends with more.
        if let Some(e) = crate::script::too_many_events(ev.len()) {
            return Err(played(EngineError::Script(e)));
        }
        if self.checks(st) {
            invariants::check(&self.rules, st).map_err(|e| played(EngineError::Broken(e)))?;
        }
        Ok(())
    }

    fn step(&self, st: &mut GameState, d: &Decision, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        match d {
            Decision::Chance => {
                if self.actor(st) != Actor::Chance {
                    return illegal("it is not chance's turn");
                }
                self.chance(st, ev)
            }
            Decision::Plan { seat, plan } => {
                self.check_plan(st, *seat, plan)?;
                st.players[seat.index()].plan = Some(plan.clone());
                if st.players.iter().all(|p| p.plan.is_some()) {
                    st.phase = Phase::Reveal;
                }
                Ok(())
            }
            Decision::Choose { seat, choice } => {
                if let Some(ask) = st.ask.take() {
                    if ask.seat != *seat {
                        return illegal(format!("{} must choose, not {}", self.rules.seat_name(ask.seat), self.rules.seat_name(*seat)));
                    }
                    if !ask.options.contains(choice) {
                        return illegal(format!("{} is not one of the options", self.choice_name(*choice)));
                    }
                    let mut r = self.runtime.call_continuation(st, ev, &ask, *choice)?;
                    if let Some(next) = &mut r.ask {
                        next.asked_before = ask.asked_before + 1;
                        let limit = self.rules.rules.limits.questions_per_action;
                        if next.asked_before >= limit {
                            return Err(EngineError::Broken(format!(
                                "continuation `{}` asked again: {} questions in one action (limits.questions_per_action in {})",
                                ask.cont,
                                next.asked_before + 1,
                                self.rules.rules_source("limits/questions_per_action").display()
                            )));
                        }
                    }
                    st.ask = r.ask;
                    return Ok(());
                }
                if st.phase == Phase::Draft {
                    return self.draft_choose(st, ev, *seat, *choice);
                }
                let Phase::ChooseSpace { idx } = st.phase else {
                    return illegal("nobody is asked to choose now");
                };
                let who = st.choose_order[idx as usize];
                if who != *seat {
                    return illegal(format!("{} chooses a space now, not {}", self.rules.seat_name(who), self.rules.seat_name(*seat)));
                }
                let Choice::Space(k) = *choice else {
                    return illegal("choose a turn-order space");
                };
                if usize::from(k) >= st.special_row.len() {
                    return illegal(format!("there is no space {} (the turn-order spaces are 1 to {})", u16::from(k) + 1, st.special_row.len()));
                }
                if !self.free_spaces(st).any(|f| f == k) {
                    return illegal(format!("space {} is not free", k + 1));
                }
                self.take_space(st, ev, *seat, k);
                st.phase = Phase::ChooseSpace { idx: idx + 1 };
                Ok(())
            }
        }
    }

    /// Narration, skipped when nobody reads it (bulk runs).
    fn note(&self, ev: &mut Vec<Event>, line: impl FnOnce() -> String) {
        if self.runtime.narrating() {
            ev.push(Event::Note(line()));
        }
    }

    /// A transcript heading, likewise only when narrating (headings are
    /// narration: statistics never read them).
    fn heading(&self, ev: &mut Vec<Event>, line: impl FnOnce() -> String) {
        if self.runtime.narrating() {
            ev.push(Event::Heading(line()));
        }
    }

    fn take_space(&self, st: &mut GameState, ev: &mut Vec<Event>, seat: Seat, k: u8) {
        st.players[seat.index()].space = Some(k);
        let special = st.special_row[k as usize].map(|s| self.rules.cards.specials[s as usize].name.as_str()).unwrap_or_default();
        self.note(ev, || format!("{} takes turn space {} ({special})", self.rules.seat_name(seat), k + 1));
    }

    fn chance(&self, st: &mut GameState, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        let r = &self.rules.rules;
        match st.phase {
            Phase::Setup => {
                self.heading(ev, || format!("Setup: {} players on the {} map", st.seats(), self.rules.map.name));
                if st.setup == SetupMode::Preset {
                    self.place_presets(st, ev)?;
                    self.preload(st, ev)?;
                    st.phase = Phase::YearStart;
                } else {
                    self.start_draft(st, ev);
                    st.phase = Phase::Draft;
                }
            }
            Phase::Preload => {
                self.preload(st, ev)?;
                st.phase = Phase::YearStart;
            }
            Phase::YearStart => {
                let k = (r.calendar.events_per_year as usize).min(st.event_deck.len());
                st.year_events = st.event_deck.drain(..k).collect();
                self.heading(ev, || format!("Year {}", st.year + 1));
                self.note(ev, || {
                    let names: Vec<String> = st.year_events.iter().map(|&e| self.event_name(e)).collect();
                    format!("events of the year: {}", names.join(", "))
                });
                st.phase = Phase::RoundStart;
            }
            Phase::RoundStart => {
                let n = self.rules.cards.actions.len();
                let mut row: Vec<u8> = (0..n as u8).collect();
                let stage = st.stage();
                st.streams.next(Purpose::Actions, stage).shuffle(&mut row);
                st.action_row = row;
                st.actions_revealed = (r.calendar.open_action_cards as usize).min(n) as u8;
                let mut specials: Vec<u8> = (0..self.rules.cards.specials.len() as u8).collect();
                st.streams.next(Purpose::Specials, stage).shuffle(&mut specials);
                st.special_row = specials.into_iter().map(Some).collect();
                for p in st.players.iter_mut() {
                    p.plan = None;
                    p.revealed_bid = None;
                    p.space = None;
                }
                self.heading(ev, || self.round_name(st.year, Some(st.season)));
                self.note(ev, || {
                    let open: Vec<&str> =
                        st.action_row[..st.actions_revealed as usize].iter().map(|&a| self.rules.cards.actions[a as usize].name.as_str()).collect();
                    format!(
                        "action cards: {}{}",
                        open.join(", "),
                        if st.actions_revealed as usize == n { String::new() } else { format!(", then {} face down", n - st.actions_revealed as usize) }
                    )
                });
                self.note(ev, || {
                    let sp: Vec<String> = st
                        .special_row
                        .iter()
                        .enumerate()
                        .map(|(i, s)| format!("{}: {}", i + 1, s.map(|s| self.rules.cards.specials[s as usize].name.as_str()).unwrap_or("-")))
                        .collect();
                    format!("specials: {}", sp.join("; "))
                });
                st.phase = Phase::Planning;
            }
            Phase::Reveal => self.reveal(st, ev)?,
            Phase::Winter => {
                self.heading(ev, || self.round_name(st.year, None));
                st.phase = Phase::Score;
                let res = self.runtime.call_phase(st, ev, PhaseHandler::Winter)?;
                st.ask = res.ask;
            }
            _ => return illegal("no chance event is pending"),
        }
        Ok(())
    }

    fn event_name(&self, e: u8) -> String {
        let c = &self.rules.cards.events[e as usize];
        format!("#{} {}", c.id, c.name)
    }

    fn place_presets(&self, st: &mut GameState, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        let r = &self.rules.rules;
        let n = st.seats() as u8;
        let preset = &self.rules.map.presets[&n];
        for s in 0..st.seats() {
            for &(p, a) in &preset[s] {
                let a = a as u16;
                if st.players[s].supply < a {
                    return Err(EngineError::Setup(format!("seat {} has too few cubes for its preset", s + 1)));
                }
                st.players[s].supply -= a;
                st.provinces[p] = ProvinceState { owner: Some(Seat::new(s)), armies: a, unrest: 0, buildings: 0 };
            }
            self.note(ev, || {
                // The provinces' names only for narration (not in bulk runs).
                let names: Vec<String> = preset[s].iter().map(|&(p, a)| format!("{} {}", self.rules.province_name(ProvinceId::new(p)), a as u16)).collect();
                format!(
                    "{} ({}) starts with {} war chests in {}",
                    self.rules.seat_name(Seat::new(s)),
                    r.seats[s].colour,
                    st.players[s].chests,
                    names.join(", ")
                )
            });
        }
        Ok(())
    }

    /// Loads the tower and shuffles the event cards.
    fn preload(&self, st: &mut GameState, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        let res = self.runtime.call_phase(st, ev, PhaseHandler::Preload)?;
        if res.ask.is_some() {
            return Err(EngineError::Broken("the preload handler may not ask questions".into()));
        }
        let mut deck: Vec<u8> = (0..self.rules.cards.events.len() as u8).collect();
        st.streams.next(Purpose::Events, Stage::setup()).shuffle(&mut deck);
        st.event_deck = deck;
        Ok(())
    }

    /// Draws the event, reveals and pays the bids, ranks the bidders.
    fn reveal(&self, st: &mut GameState, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        if st.year_events.is_empty() {
            return Err(EngineError::Broken("no event left to draw".into()));
        }
        let stage = st.stage();
        let i = st.streams.next(Purpose::Events, stage).below(st.year_events.len() as u32) as usize;
        let e = st.year_events.remove(i);
        st.event = Some(e);
        let card = &self.rules.cards.events[e as usize];
        self.note(ev, || format!("event: {} — {}", self.event_name(e), card.text));
        // Each card is turned face up only when its action is carried out
        // (docs/rules.md, "An action round"): the whole plan is a secret line.
        for s in (0..st.seats()).filter(|_| self.runtime.narrating()) {
            let plan = st.players[s].plan.clone().unwrap_or_default();
            let mut parts = Vec::new();
            for (a, slot) in plan.slots.iter().enumerate() {
                if let Some(Card::Province(p)) = slot {
                    parts.push(format!("{} {}", self.rules.cards.actions[a].id, self.rules.province_name(*p)));
                }
            }
            let text = format!("{} plans: {}", self.rules.seat_name(Seat::new(s)), if parts.is_empty() { "nothing".to_string() } else { parts.join(", ") });
            ev.push(Event::Secret { seat: Seat::new(s), text });
        }
        let res = self.runtime.call_phase(st, ev, PhaseHandler::Bids)?;
        if res.ask.is_some() {
            return Err(EngineError::Broken("the bids handler may not ask questions".into()));
        }
        if st.choose_order.len() != st.seats() {
            return Err(EngineError::Broken("the bids handler did not set the choosing order (game.set_choosing_order)".into()));
        }
        st.phase = Phase::ChooseSpace { idx: 0 };
        Ok(())
    }

    /// Runs the game on until someone must decide (or the game is over).
    fn advance(&self, st: &mut GameState, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        loop {
            if st.ask.is_some() {
                return Ok(());
            }
            match st.phase {
                Phase::Setup | Phase::Preload | Phase::YearStart | Phase::RoundStart | Phase::Planning | Phase::Reveal | Phase::Winter | Phase::GameOver => {
                    return Ok(());
                }
                Phase::Draft => {
                    if self.draft_auto(st, ev)? {
                        continue;
                    }
                    return Ok(());
                }
                Phase::ChooseSpace { idx } => {
                    if idx as usize >= st.choose_order.len() {
                        let mut order: Vec<Seat> = Seat::all(st.seats()).collect();
                        order.sort_by_key(|&s| st.players[s.index()].space);
                        st.turn_order = order;
                        self.note(ev, || {
                            let names: Vec<&str> = st.turn_order.iter().map(|&s| self.rules.seat_name(s)).collect();
                            format!("turn order: {}", names.join(", "))
                        });
                        st.phase = Phase::Actions { card: 0, turn: 0 };
                        continue;
                    }
                    // The one space left, if only one is.
                    let only = {
                        let mut free = self.free_spaces(st);
                        match (free.next(), free.next()) {
                            (Some(k), None) => Some(k),
                            _ => None,
                        }
                    };
                    if let Some(k) = only {
                        let seat = st.choose_order[idx as usize];
                        self.take_space(st, ev, seat, k);
                        st.phase = Phase::ChooseSpace { idx: idx + 1 };
                        continue;
                    }
                    return Ok(());
                }
                Phase::Actions { card, turn } => {
                    let (card, turn) = (card as usize, turn as usize);
                    if card >= st.action_row.len() {
                        self.end_round(st, ev);
                        continue;
                    }
                    if turn >= st.turn_order.len() {
                        st.phase = Phase::Actions { card: card as u8 + 1, turn: 0 };
                        continue;
                    }
                    let action = st.action_row[card] as usize;
                    if turn == 0 {
                        if card >= st.actions_revealed as usize {
                            st.actions_revealed = card as u8 + 1;
                        }
                        self.heading(ev, || format!("action {}/{}: {}", card + 1, st.action_row.len(), self.rules.cards.actions[action].name));
                    }
                    st.phase = Phase::Actions { card: card as u8, turn: turn as u8 + 1 };
                    let seat = st.turn_order[turn];
                    let slot = st.players[seat.index()].plan.as_ref().and_then(|p| p.slots.get(action).copied().flatten());
                    if let Some(Card::Province(p)) = slot {
                        ev.push(Event::Action { seat, action: action as u8, province: p });
                        let res = self.runtime.call_action(st, ev, action, seat, p)?;
                        st.ask = res.ask;
                    }
                }
                Phase::Score => {
                    let res = self.runtime.call_phase(st, ev, PhaseHandler::Score)?;
                    st.ask = res.ask;
                    if st.year as i64 + 1 < self.rules.rules.calendar.years {
                        let res = self.runtime.call_phase(st, ev, PhaseHandler::YearEnd)?;
                        if res.ask.is_some() {
                            return Err(EngineError::Broken("the year_end handler may not ask questions".into()));
                        }
                        st.year += 1;
                        st.season = 0;
                        st.event = None;
                        st.phase = Phase::YearStart;
                    } else {
                        st.phase = Phase::GameOver;
                        self.final_standings(st, ev)?;
                    }
                    if st.ask.is_some() {
                        return Err(EngineError::Broken("the score handler may not ask questions".into()));
                    }
                }
            }
        }
    }

    fn end_round(&self, st: &mut GameState, ev: &mut Vec<Event>) {
        for p in st.players.iter_mut() {
            p.plan = None;
            p.revealed_bid = None;
            p.space = None;
        }
        st.event = None;
        st.season += 1;
        self.note(ev, || {
            let summary: Vec<String> = (0..st.seats())
                .map(|s| {
                    let p = &st.players[s];
                    format!("{} {} prov, {} chests, {} rice", self.rules.seat_name(Seat::new(s)), st.provinces_of(Seat::new(s)).count(), p.chests, p.rice)
                })
                .collect();
            format!("end of round: {}", summary.join("; "))
        });
        st.phase = if st.season as usize >= self.rules.rules.calendar.seasons.len() { Phase::Winter } else { Phase::RoundStart };
    }

    /// Seats from first to last with their ranks, by the rules' `standings`
    /// handler (base: most points, then most war chests).
    pub fn standings(&self, st: &GameState) -> Result<Vec<(Seat, usize)>, EngineError> {
        let players: Vec<(i64, i64)> = st.players.iter().map(|p| (p.points, p.chests)).collect();
        let ranks = self.runtime.standings(&players)?;
        let mut out: Vec<(Seat, usize)> = ranks.into_iter().enumerate().map(|(s, r)| (Seat::new(s), r)).collect();
        out.sort_by_key(|&(s, r)| (r, s));
        Ok(out)
    }

    fn final_standings(&self, st: &GameState, ev: &mut Vec<Event>) -> Result<(), EngineError> {
        self.heading(ev, || "Final standings".into());
        for (s, rank) in self.standings(st)? {
            let p = &st.players[s.index()];
            self.note(ev, || {
                let n = |v: i64, one: &str, many: &str| format!("{v} {}", if v == 1 { one } else { many });
                format!("{rank}. {}: {}, {}", self.rules.seat_name(s), n(p.points, "point", "points"), n(p.chests, "war chest", "war chests"))
            });
        }
        Ok(())
    }
}
