//! Bots: players that decide from their own seat's view only.
//!
//! A bot gets the engine (for the public rules and map), a borrowed view of
//! what its seat may know (`SeatView`: the public parts in place, the
//! redacted copy `GameState::view` only when asked for) and the legal
//! options; it has its own
//! seeded generator, separate from the game's.

mod greedy;
mod mcts;
mod odds;
mod planner;
mod random;
pub mod value;

pub use greedy::Greedy;
pub use mcts::{Budget, CandidateStats, Mcts, determinize};
pub use planner::Planner;
pub use random::RandomBot;
pub use value::Weights;

use crate::core::*;
use crate::engine::{Engine, TURN_SPACE};

pub trait Bot {
    fn name(&self) -> &'static str;
    /// A copy with the same generator state (for undo in the REPL).
    fn boxed_clone(&self) -> Box<dyn Bot>;
    /// A plan for `seat` (the engine checks it; an invalid one is a bug).
    fn plan(&mut self, engine: &Engine, view: &SeatView, seat: Seat) -> Plan;
    /// One of `options` (never empty).
    fn choose(&mut self, engine: &Engine, view: &SeatView, seat: Seat, kind: &str, options: &[Choice]) -> Choice;
}

/// The players wherever none are named (`run`, `diff`, `lab`, the REPL's
/// `lab`, and the seats `play` does not give a person): the rule-aware
/// planner, which plays what the rules pay for (a variant that pays more
/// for a kind of play gets more of it) and beats greedy (docs/bots.md).
pub const DEFAULT: &str = "planner";

/// Every kind of bot: its name, what it does and its options. The one
/// list: parsing (`BotSpec::parse`), `help seat`, `play --seats`, `--bots`
/// and their errors all read it.
pub const BOTS: &[(&str, &str)] = &[
    ("planner", "rule-aware one-step lookahead by the pack's own handlers and scoring; options :no-attack, :no-build, weights as :army=0.5 (docs/bots.md)"),
    ("random", "uniform legal choices and random sensible plans (no options)"),
    ("greedy", "one-rule heuristics by what the rules pack declares; options :no-attack, :no-build"),
    (
        "mcts",
        "information-set search around the planner's plan, planner rollouts to the round's end valued by the pack's scoring; options :N iterations a decision (mcts:400) or a time (mcts:50ms, not reproducible), :no-attack, :no-build",
    ),
];

/// The bots' names, in the order of `BOTS`.
pub fn bot_names() -> impl Iterator<Item = &'static str> {
    BOTS.iter().map(|b| b.0)
}

/// The bots as lines, `name  what it does`, each indented by `indent`.
pub fn bots_listed(indent: &str) -> String {
    let wide = bot_names().map(str::len).max().unwrap_or(0);
    BOTS.iter().map(|(name, what)| format!("{indent}{name:<wide$}  {what}")).collect::<Vec<_>>().join("\n")
}

/// Kinds of play a restricted bot never chooses (`greedy:no-attack`): the
/// lab compares a restricted bot with the unrestricted one to measure what
/// that kind of play is worth under a ruleset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forbid {
    /// Never moves armies into a province it does not hold (no attacks on
    /// players, no battles with neutral peasants); moves only reinforce.
    pub attack: bool,
    /// Never puts a province card on a build action.
    pub build: bool,
}

impl Forbid {
    /// Whether a province card on an action of this kind is forbidden here.
    pub(crate) fn action(&self, kind: ActionKind) -> bool {
        match kind {
            ActionKind::Build(_) => self.build,
            ActionKind::MoveAttack => self.attack,
            _ => false,
        }
    }
}

/// A bot's name read as its kind and options: `greedy`, `greedy:no-attack`,
/// `mcts:400` (iterations per decision), `mcts:50ms` (time per decision),
/// `mcts:400:no-build`. Options follow the kind, separated by `:`.
#[derive(Clone, Debug, PartialEq)]
pub struct BotSpec {
    pub kind: &'static str,
    pub budget: Option<Budget>,
    pub forbid: Forbid,
    /// The planner's weights (`planner:army=0.5`; docs/bots.md).
    pub weights: Weights,
}

impl BotSpec {
    pub fn parse(name: &str) -> Result<BotSpec, String> {
        let mut parts = name.split(':');
        let head = parts.next().unwrap_or("");
        let Some(kind) = bot_names().find(|&k| k == head) else {
            return Err(format!("unknown bot `{head}` (available: {})", bot_names().collect::<Vec<_>>().join(", ")));
        };
        let mut spec = BotSpec { kind, budget: None, forbid: Forbid::default(), weights: Weights::default() };
        for opt in parts {
            let bad =
                |why: &str| Err(format!("bot `{name}`: option `{opt}` {why} (options: no-attack, no-build; mcts also N iterations or a time such as 50ms)"));
            match opt {
                "no-attack" if kind != "random" => spec.forbid.attack = true,
                "no-build" if kind != "random" => spec.forbid.build = true,
                "no-attack" | "no-build" => return bad("is not available for the random bot"),
                _ if kind == "planner" && opt.contains('=') => {
                    let (w, v) = opt.split_once('=').unwrap_or_default();
                    let value = v.parse::<f64>().ok().filter(|x| x.is_finite() && (0.0..=100.0).contains(x));
                    match value {
                        Some(x) if spec.weights.set(w, x) => {}
                        Some(_) => return bad(&format!("names no weight (weights: {})", Weights::NAMES.join(", "))),
                        None => return bad("needs a number from 0 to 100"),
                    }
                }
                _ if kind == "mcts" && spec.budget.is_none() => match Budget::parse(opt) {
                    Ok(b) => spec.budget = Some(b),
                    Err(why) => return bad(&why),
                },
                _ => return bad("is not understood"),
            }
        }
        Ok(spec)
    }
}

pub fn by_name(name: &str, seed: u64) -> Result<Box<dyn Bot>, String> {
    let spec = BotSpec::parse(name)?;
    Ok(match spec.kind {
        "random" => Box::new(RandomBot::new(seed)),
        "greedy" => Box::new(Greedy::restricted(seed, spec.forbid)),
        "planner" => Box::new(Planner::with_weights(seed, spec.forbid, spec.weights)),
        _ => Box::new(Mcts::new(seed, spec.budget.unwrap_or_default(), spec.forbid)),
    })
}

/// Who plays each of `players` seats, from a list naming the first ones:
/// the last name fills the rest. `human` is allowed where `allow_human`.
/// `flag` names the option in messages (`--bots`, `--seats`, `bots:`).
pub fn fill_seats(names: &[String], players: u8, allow_human: bool, flag: &str) -> Result<Vec<String>, String> {
    let Some(last) = names.last() else {
        return Err(format!("{flag} needs at least one name"));
    };
    if names.len() > players as usize {
        return Err(format!("{flag} names {} seats for {players} players", names.len()));
    }
    for n in names {
        if allow_human && n == "human" {
            continue;
        }
        if let Err(e) = BotSpec::parse(n) {
            let head = n.split(':').next().unwrap_or("");
            if !bot_names().any(|b| b == head) {
                let names = bot_names().collect::<Vec<_>>().join(", ");
                let kinds = if allow_human { format!("human, {names}") } else { names };
                return Err(format!("{flag}: unknown player `{n}` (available: {kinds})"));
            }
            return Err(format!("{flag}: {e}"));
        }
    }
    let mut v = names.to_vec();
    v.resize(players as usize, last.clone());
    Ok(v)
}

/// The decision `bots[seat]` makes for the current position (which must not
/// be chance or terminal). For simultaneous planning, pass the seat to plan.
pub fn decide(engine: &Engine, st: &GameState, seat: Seat, bot: &mut dyn Bot) -> Decision {
    let view = SeatView::new(st, seat);
    // A script's question: its options are read in place (`legal` would
    // copy them, with the kind and prompt).
    if let Some(ask) = &st.ask {
        return Decision::Choose { seat, choice: bot.choose(engine, &view, seat, &ask.kind, &ask.options) };
    }
    // What `legal` answers in these phases, without its copies (the seats
    // yet to plan; the kind and prompt strings).
    match st.phase {
        Phase::Planning => return Decision::Plan { seat, plan: bot.plan(engine, &view, seat) },
        Phase::ChooseSpace { .. } => return Decision::Choose { seat, choice: bot.choose(engine, &view, seat, TURN_SPACE, &engine.space_options(st)) },
        _ => {}
    }
    match engine.legal(st) {
        Legal::Plan { .. } => Decision::Plan { seat, plan: bot.plan(engine, &view, seat) },
        Legal::Choose { kind, options, .. } => Decision::Choose { seat, choice: bot.choose(engine, &view, seat, &kind, &options) },
        Legal::Chance | Legal::None => Decision::Chance,
    }
}

pub(crate) use crate::rules::ActionKind;

/// What kind of action an action card is, as the pack declares it to the
/// bots (rules.yaml `bots.actions`).
pub(crate) fn action_kind(engine: &Engine, a: usize) -> ActionKind {
    engine.rules.bots.actions[a]
}

/// Whether a province could carry out an action of this kind (roughly:
/// bots use it to avoid plans that would certainly be skipped).
pub(crate) fn feasible(engine: &Engine, st: &SeatView, seat: Seat, a: usize, kind: ActionKind, p: ProvinceId, chests: i64) -> bool {
    match kind {
        ActionKind::Build(k) => {
            let prov = st.province(p);
            !prov.has(k) && prov.building_count() < engine.rules.map.at(p).spaces && st.buildings()[k] > 0 && chests >= engine.rules.cards.actions[a].cost
        }
        ActionKind::MoveAttack => i64::from(st.province(p).armies) > engine.rules.bots.armies_left_behind,
        ActionKind::Deploy | ActionKind::DeployMove | ActionKind::Taxes | ActionKind::Rice | ActionKind::Other => {
            feasible_anywhere(engine, st, seat, a, kind, chests) == Some(true)
        }
    }
}

/// `feasible` for the kinds whose answer is the same for every province
/// (None for the kinds where it depends on the province).
pub(crate) fn feasible_anywhere(engine: &Engine, st: &SeatView, seat: Seat, a: usize, kind: ActionKind, chests: i64) -> Option<bool> {
    match kind {
        ActionKind::Deploy | ActionKind::DeployMove => Some(chests >= engine.rules.cards.actions[a].cost && st.supply(seat) >= 5),
        ActionKind::Taxes | ActionKind::Rice | ActionKind::Other => Some(true),
        ActionKind::Build(_) | ActionKind::MoveAttack => None,
    }
}

/// Completes a bot's plan as the rules require (see `Engine::must_fill`):
/// the bid space gets the lowest war-chest card the bot can afford (else a
/// spare province card), empty action spaces get the spare war-chest cards
/// (skips), and spare province cards go where they cannot act, if they
/// still must go somewhere.
///
/// Spare province cards go to allowed action spaces first; a forbidden one
/// gets a card only when nothing else is left, and then one that cannot act
/// there if there is one.
pub(crate) fn comply(engine: &Engine, seat_view: &SeatView, seat: Seat, plan: &mut Plan, forbid: Forbid) {
    if !engine.must_fill() {
        return;
    }
    // The seat's own hand and chests are public to it: no redacted copy.
    let view = seat_view;
    // The cards of the hand the plan does not use yet, in hand order.
    let unplaced = engine.unplaced(view, seat, plan);
    if plan.bid.is_none() {
        let chest = unplaced.iter().copied().filter(|c| matches!(c, Card::Chest(_)) && engine.can_bid(view, seat, *c)).min_by_key(|c| match c {
            Card::Chest(v) => *v,
            Card::Province(_) => u8::MAX,
        });
        plan.bid = chest.or_else(|| unplaced.iter().copied().find(|c| matches!(c, Card::Province(_))));
    }
    engine.fill_skips(view, seat, plan);
    let chests = view.chests(seat);
    // The province cards not placed yet, in hand order (fill_skips places
    // only war-chest cards; the bid may have taken one); each placement
    // below takes one out.
    let mut left: Vec<ProvinceId> =
        unplaced.into_iter().filter(|c| plan.bid != Some(*c)).filter_map(|c| if let Card::Province(p) = c { Some(p) } else { None }).collect();
    // The empty spaces in order, those `forbid` allows first (each group
    // in the spaces' order: a stable sort by whether it is forbidden,
    // without sorting; with nothing forbidden the second pass finds none).
    'place: for forbidden in [false, true] {
        for a in 0..plan.slots.len() {
            let kind = action_kind(engine, a);
            if plan.slots[a].is_some() || forbid.action(kind) != forbidden {
                continue;
            }
            let Some(i) = left.iter().position(|&p| !feasible(engine, seat_view, seat, a, kind, p, chests)).or((!left.is_empty()).then_some(0)) else {
                break 'place;
            };
            let p = left.remove(i);
            plan.slots[a] = Some(Card::Province(p));
        }
    }
}
