//! The driver: an engine, a state and who plays each seat (a person or a
//! bot). It makes chance's and the bots' decisions and stops where it is
//! told to (a number of decisions, a phase, a round, winter, the end) or
//! where a person must decide. The REPL, scenarios, `run`, `diff`, `bench`,
//! the lab and the tests all let bots play through it.

use crate::bots::{self, Bot};
use crate::core::*;
use crate::engine::{Engine, EngineError};

pub use super::notation::Until;

/// Who plays a seat.
pub enum Player {
    /// A person: the driver stops when this seat must decide.
    Human,
    Bot(Box<dyn Bot>),
}

impl Clone for Player {
    fn clone(&self) -> Player {
        match self {
            Player::Human => Player::Human,
            Player::Bot(b) => Player::Bot(b.boxed_clone()),
        }
    }
}

impl Player {
    /// `human` or a bot by name, with the bot's seed derived from the
    /// game's seed and the seat (so a game is fixed by rules, seed, bots).
    pub fn by_name(name: &str, seed: u64, seat: Seat) -> Result<Player, String> {
        if name == "human" { Ok(Player::Human) } else { bots::by_name(name, bot_seed(seed, seat.index())).map(Player::Bot) }
    }

    /// One player per name, seat by seat.
    pub fn all(names: &[String], seed: u64) -> Result<Vec<Player>, String> {
        Seat::all(names.len()).zip(names).map(|(s, n)| Player::by_name(n, seed, s)).collect()
    }

    pub fn name(&self) -> &'static str {
        match self {
            Player::Human => "human",
            Player::Bot(b) => b.name(),
        }
    }

    pub fn is_human(&self) -> bool {
        matches!(self, Player::Human)
    }
}

/// Bot seeds derive from the game seed and the seat.
pub fn bot_seed(seed: u64, seat: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(seat as u64 + 1)
}

/// One decision as the observer of a run sees it.
pub struct Step<'a> {
    pub decision: &'a Decision,
    /// The kind of script question the decision answered, if any.
    pub asked: Option<&'a str>,
    pub events: &'a [Event],
    /// The state after the decision.
    pub after: &'a GameState,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The point asked for was reached.
    Reached,
    /// A seat played by a person must decide.
    Human,
    /// The game is over.
    GameOver,
}

fn phase_kind(p: &Phase) -> u8 {
    match p {
        Phase::Setup | Phase::Draft | Phase::Preload => 0,
        Phase::YearStart => 1,
        Phase::RoundStart => 2,
        Phase::Planning => 3,
        Phase::Reveal => 4,
        Phase::ChooseSpace { .. } => 5,
        Phase::Actions { .. } => 6,
        Phase::Winter => 7,
        Phase::Score => 8,
        Phase::GameOver => 9,
    }
}

/// Where a run started, to tell when `Until` is reached.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    phase: u8,
    year: u8,
    season: u8,
}

impl Mark {
    pub fn of(st: &GameState) -> Mark {
        Mark { phase: phase_kind(&st.phase), year: st.year, season: st.season }
    }

    /// Whether `st`, `steps` decisions after the mark, is where `until` stops.
    pub fn reached(&self, until: Until, st: &GameState, steps: usize) -> bool {
        match until {
            Until::Steps(n) => steps >= n,
            Until::Phase => steps > 0 && phase_kind(&st.phase) != self.phase,
            Until::Round => {
                steps > 0
                    && ((st.year, st.season) != (self.year, self.season) || st.phase == Phase::Winter)
                    && matches!(st.phase, Phase::RoundStart | Phase::Winter | Phase::YearStart)
            }
            Until::Winter => steps > 0 && st.phase == Phase::Winter,
            Until::End => false,
        }
    }
}

/// The decision chance or a bot makes now, or `None` when a person must
/// decide or the game is over. While several seats plan at once, the first
/// seat with a bot plans.
pub fn next_decision(engine: &Engine, st: &GameState, players: &mut [Player]) -> Option<Decision> {
    let bot = |players: &mut [Player], s: Seat| match players.get_mut(s.index()) {
        Some(Player::Bot(b)) => Some(bots::decide(engine, st, s, b.as_mut())),
        _ => None,
    };
    match engine.actor(st) {
        Actor::Terminal => None,
        Actor::Chance => Some(Decision::Chance),
        Actor::Seat(s) => bot(players, s),
        Actor::Simultaneous(seats) => {
            let s = seats.iter().copied().find(|s| matches!(players.get(s.index()), Some(Player::Bot(_))))?;
            bot(players, s)
        }
    }
}

/// An engine, a position and who plays each seat.
pub struct Driver<'e> {
    pub engine: &'e Engine,
    pub state: GameState,
    pub players: Vec<Player>,
    /// Whether a failed decision leaves `state` as it was (the default).
    /// `play_game` turns it off: it throws a failed game away, so the copy
    /// that makes each decision atomic would be wasted.
    atomic: bool,
    /// Whether the calls of the functions variants added or replaced are
    /// counted around each decision of the game (`play_game`, for the lab:
    /// never a bot's look-ahead).
    count_rule_use: bool,
}

impl<'e> Driver<'e> {
    pub fn new(engine: &'e Engine, state: GameState, players: Vec<Player>) -> Driver<'e> {
        Driver { engine, state, players, atomic: true, count_rule_use: false }
    }

    /// A new game (before setup) with players by name (`human` or a bot).
    pub fn start(engine: &'e Engine, players: u8, seed: u64, setup: SetupMode, names: &[String]) -> Result<Driver<'e>, EngineError> {
        if names.len() != players as usize {
            return Err(EngineError::Setup(format!("{} players named for {players} seats", names.len())));
        }
        let state = engine.new_game_with(players, seed, setup)?;
        let players = Player::all(names, seed).map_err(EngineError::Setup)?;
        Ok(Driver { engine, state, players, atomic: true, count_rule_use: false })
    }

    /// Applies one decision (anyone's); returns its events.
    pub fn apply(&mut self, d: &Decision) -> Result<Vec<Event>, EngineError> {
        self.engine.apply(&mut self.state, d)
    }

    /// Lets chance and the bots play until `until`, a person's turn or the
    /// end. `observe` sees every decision with its events, and the players
    /// after it (their generators moved on).
    pub fn run(&mut self, until: Until, mut observe: impl FnMut(&Step, &[Player])) -> Result<Stop, EngineError> {
        let mark = Mark::of(&self.state);
        let mut steps = 0;
        // One buffer for every decision's events, and one for the kind of
        // question each answered (a copy: the decision takes the question
        // off the state).
        let mut events = Vec::new();
        let mut asked = String::new();
        loop {
            if self.state.phase == Phase::GameOver {
                return Ok(Stop::GameOver);
            }
            if mark.reached(until, &self.state, steps) {
                return Ok(Stop::Reached);
            }
            let Some(d) = next_decision(self.engine, &self.state, &mut self.players) else {
                return Ok(if self.engine.actor(&self.state) == Actor::Terminal { Stop::GameOver } else { Stop::Human });
            };
            asked.clear();
            let answers = self.state.ask.as_ref().map(|a| asked.push_str(&a.kind)).is_some();
            self.engine.count_rule_use(self.count_rule_use);
            let applied = if self.atomic {
                self.engine.apply_into(&mut self.state, &d, &mut events)
            } else {
                self.engine.apply_discarding_on_error_into(&mut self.state, &d, &mut events)
            };
            self.engine.count_rule_use(false);
            applied?;
            observe(&Step { decision: &d, asked: answers.then_some(asked.as_str()), events: &events, after: &self.state }, &self.players);
            steps += 1;
        }
    }
}

/// A bots-only game played again from its seed to where it fails, each
/// decision on a copy: to say where it failed (`Engine::failure_point`).
pub struct Failing {
    /// The position before the decision that failed.
    pub state: GameState,
    pub decision: Decision,
    /// How many decisions stood before it.
    pub after: u64,
    pub error: EngineError,
}

/// The game of `play_game` played again to its first failing decision;
/// None when it does not fail again (or cannot start).
pub fn failing_decision(engine: &Engine, players: u8, seed: u64, setup: SetupMode, names: &[String]) -> Option<Failing> {
    let mut d = Driver::start(engine, players, seed, setup, names).ok()?;
    let mut after = 0;
    loop {
        let decision = next_decision(engine, &d.state, &mut d.players)?;
        match d.apply(&decision) {
            Ok(_) => after += 1,
            Err(error) => return Some(Failing { state: d.state, decision, after, error }),
        }
    }
}

/// Plays one game with bots to the end (the lab's and `bench`'s entry
/// point): `names` names a bot per seat. `observe` sees every decision and
/// its events. Returns the final state; the calls of the functions
/// variants added or replaced, made by the game (not by a bot's
/// look-ahead), wait in `engine.take_rule_use()`.
pub fn play_game(
    engine: &Engine,
    players: u8,
    seed: u64,
    setup: SetupMode,
    names: &[String],
    mut observe: impl FnMut(&Step),
) -> Result<GameState, EngineError> {
    let met = engine.calls_that_met_the_memory_limit();
    let mut observed = 0u64;
    let first = play_once(engine, players, seed, setup, names, false, |step| {
        observed += 1;
        observe(step)
    });
    match first {
        // A call met the memory limit and the game, played without copies,
        // cannot make that decision again: play it again with them (each
        // decision made again once from its own state, `Engine::apply`), so
        // that whether it fails does not depend on what the engine played
        // before. The steps already seen are not shown twice.
        Err(_) if engine.calls_that_met_the_memory_limit() != met => {
            let mut seen = 0u64;
            play_once(engine, players, seed, setup, names, true, |step| {
                seen += 1;
                if seen > observed {
                    observe(step)
                }
            })
        }
        other => other,
    }
}

/// One play of `play_game`'s game; `atomic`: each decision on a copy.
fn play_once(
    engine: &Engine,
    players: u8,
    seed: u64,
    setup: SetupMode,
    names: &[String],
    atomic: bool,
    mut observe: impl FnMut(&Step),
) -> Result<GameState, EngineError> {
    // The rules' calls while the game is set up count too.
    engine.take_rule_use();
    engine.count_rule_use(true);
    let d = Driver::start(engine, players, seed, setup, names);
    engine.count_rule_use(false);
    let mut d = d?;
    d.atomic = atomic;
    d.count_rule_use = true;
    if d.players.iter().any(Player::is_human) {
        return Err(EngineError::Setup("play_game plays bots only".into()));
    }
    d.run(Until::End, |step, _| observe(step))?;
    Ok(d.state)
}
