//! The one place where decisions, answers, plans, edits, setup modes and
//! stopping points are read from and written to text. What `text` writes,
//! `parse` reads back to the same value (tests/suite/play.rs holds it for every
//! decision of many games and for every kind of edit).
//!
//! Words that depend on the ruleset (seats, provinces, actions, buildings)
//! need the engine, so values are read and written through a `Notation`;
//! context-free words (setup modes, stopping points) are plain
//! `FromStr`/`Display`.
//!
//! Grammar:
//! - seat: a name (`A`), a colour (`blue`) or a number from 1
//! - card: a chest value (`2`) or a province name
//! - choice: a province, a count (`3`), `space N` (1-based), `pass`, `deck`, `redraw`
//! - plan: `ACTION:CARD ... [bid:CARD]`
//! - decision: `chance` | `SEAT choose CHOICE` | `SEAT plan PLAN`
//! - answer (to the pending question): a number is the option's number
//!   (as `options` lists them); anything else is a choice that must be offered
//! - edit: see `edit.rs`

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::core::*;
use crate::engine::Engine;

/// Text that does not read as what was expected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NotationError {
    #[error("no seat `{text}` (seats: {seats})")]
    NoSeat { text: String, seats: String },
    #[error("no province `{text}`{suggestion}")]
    NoProvince { text: String, suggestion: String },
    #[error("no action `{text}`{suggestion} (actions: {actions})")]
    NoAction { text: String, suggestion: String, actions: String },
    #[error("no building kind `{text}` (kinds: {kinds})")]
    NoBuilding { text: String, kinds: String },
    #[error("`{text}`: expected {expected}")]
    Syntax { text: String, expected: String },
    #[error("`{text}` is not an option (options: {options})")]
    NotAnOption { text: String, options: String },
    #[error("nobody is asked to choose now")]
    NoQuestion,
}

pub fn syntax(text: &str, expected: &str) -> NotationError {
    NotationError::Syntax { text: text.to_string(), expected: expected.to_string() }
}

/// Reads and writes the ruleset's words for a game of `seats` players.
#[derive(Clone, Copy)]
pub struct Notation<'a> {
    pub engine: &'a Engine,
    pub seats: usize,
}

/// A value with a text form under a ruleset.
pub trait Notated: Sized {
    fn read(n: &Notation, text: &str) -> Result<Self, NotationError>;
    fn write(&self, n: &Notation, out: &mut String);
}

impl<'a> Notation<'a> {
    pub fn new(engine: &'a Engine, seats: usize) -> Notation<'a> {
        Notation { engine, seats }
    }

    pub fn of(engine: &'a Engine, st: &GameState) -> Notation<'a> {
        Notation { engine, seats: st.seats() }
    }

    pub fn parse<T: Notated>(&self, text: &str) -> Result<T, NotationError> {
        T::read(self, text.trim())
    }

    pub fn text<T: Notated>(&self, value: &T) -> String {
        let mut s = String::new();
        value.write(self, &mut s);
        s
    }

    pub fn seat_name(&self, s: Seat) -> &'a str {
        self.engine.rules.seat_name(s)
    }

    /// A seat by name (`A`), colour or number from 1.
    pub fn seat(&self, text: &str) -> Result<Seat, NotationError> {
        let t = text.trim();
        if let Some(seat) = t.parse::<i64>().ok().and_then(|n| Seat::from_number(n, self.seats)) {
            return Ok(seat);
        }
        let named = |s: &Seat| self.seat_name(*s).eq_ignore_ascii_case(t) || self.engine.rules.rules.seats[s.index()].colour.eq_ignore_ascii_case(t);
        if let Some(s) = Seat::all(self.seats).find(named) {
            return Ok(s);
        }
        let names: Vec<&str> = Seat::all(self.seats).map(|s| self.seat_name(s)).collect();
        Err(NotationError::NoSeat { text: t.to_string(), seats: names.join(", ") })
    }

    /// A province's owner: a seat, or `none` / `neutral` / `-`.
    pub fn owner(&self, text: &str) -> Result<Option<Seat>, NotationError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("neutral") || t == "-" { Ok(None) } else { self.seat(t).map(Some) }
    }

    pub fn owner_name(&self, o: Option<Seat>) -> &'a str {
        o.map(|s| self.seat_name(s)).unwrap_or("none")
    }

    /// A province by name (case-insensitive), with a suggestion when misspelt.
    pub fn province(&self, text: &str) -> Result<ProvinceId, NotationError> {
        let t = text.trim();
        let map = &self.engine.rules.map;
        if let Some(p) = map.province(t) {
            return Ok(ProvinceId::new(p));
        }
        if let Some(p) = map.provinces.iter().position(|p| p.name.eq_ignore_ascii_case(t)) {
            return Ok(ProvinceId::new(p));
        }
        Err(NotationError::NoProvince { text: t.to_string(), suggestion: crate::rules::map::suggest(t, map.by_name.keys()) })
    }

    pub fn province_name(&self, p: ProvinceId) -> &'a str {
        self.engine.rules.province_name(p)
    }

    pub fn action(&self, text: &str) -> Result<usize, NotationError> {
        self.engine.rules.action_index(text).ok_or_else(|| {
            let ids: Vec<String> = self.engine.rules.cards.actions.iter().map(|a| a.id.clone()).collect();
            NotationError::NoAction { text: text.to_string(), suggestion: crate::rules::map::suggest(text, ids.iter()), actions: ids.join(", ") }
        })
    }

    pub fn building(&self, text: &str) -> Result<usize, NotationError> {
        self.engine.rules.building_index(text).ok_or_else(|| {
            let kinds: Vec<&str> = self.engine.rules.rules.components.buildings.iter().map(|k| k.id.as_str()).collect();
            NotationError::NoBuilding { text: text.to_string(), kinds: kinds.join(", ") }
        })
    }

    /// An answer to the pending question: a number is the option's number
    /// (1-based, as `options` lists them); anything else is a choice, which
    /// must be one of the options.
    pub fn answer(&self, st: &GameState, text: &str) -> Result<Decision, NotationError> {
        let Legal::Choose { seat, options, .. } = self.engine.legal(st) else {
            return Err(NotationError::NoQuestion);
        };
        let t = text.trim();
        let listed = || {
            let names: Vec<String> = options.iter().enumerate().map(|(i, o)| format!("{}) {}", i + 1, self.text(o))).collect();
            names.join(", ")
        };
        let choice = if let Ok(k) = t.parse::<usize>() {
            *options.get(k.wrapping_sub(1)).ok_or_else(|| NotationError::NotAnOption { text: t.to_string(), options: listed() })?
        } else {
            let c: Choice = self.parse(t)?;
            if !options.contains(&c) {
                return Err(NotationError::NotAnOption { text: t.to_string(), options: listed() });
            }
            c
        };
        Ok(Decision::Choose { seat, choice })
    }
}

impl Notated for Card {
    fn read(n: &Notation, text: &str) -> Result<Card, NotationError> {
        match text.parse::<u8>() {
            Ok(v) => Ok(Card::Chest(v)),
            Err(_) => n.province(text).map(Card::Province),
        }
    }
    fn write(&self, n: &Notation, out: &mut String) {
        match self {
            Card::Province(p) => out.push_str(n.province_name(*p)),
            Card::Chest(v) => out.push_str(&v.to_string()),
        }
    }
}

impl Notated for Choice {
    fn read(n: &Notation, text: &str) -> Result<Choice, NotationError> {
        let t = text;
        Ok(if t.eq_ignore_ascii_case("pass") {
            Choice::Pass
        } else if t.eq_ignore_ascii_case("deck") {
            Choice::Deck
        } else if t.eq_ignore_ascii_case("redraw") {
            Choice::Redraw
        } else if let Some(k) = t.strip_prefix("space ") {
            let k: u8 = k.trim().parse().map_err(|_| syntax(t, "`space N` with N from 1"))?;
            Choice::Space(k.checked_sub(1).ok_or_else(|| syntax(t, "`space N` with N from 1"))?)
        } else if let Ok(c) = t.parse::<u32>() {
            Choice::Count(c)
        } else {
            Choice::Province(n.province(t)?)
        })
    }
    fn write(&self, n: &Notation, out: &mut String) {
        match self {
            Choice::Province(p) => out.push_str(n.province_name(*p)),
            Choice::Count(c) => out.push_str(&c.to_string()),
            Choice::Space(k) => out.push_str(&format!("space {}", u32::from(*k) + 1)),
            Choice::Pass => out.push_str("pass"),
            Choice::Deck => out.push_str("deck"),
            Choice::Redraw => out.push_str("redraw"),
        }
    }
}

/// A plan: `ACTION:CARD ... [bid:CARD]` (empty spaces are left out).
impl Notated for Plan {
    fn read(n: &Notation, text: &str) -> Result<Plan, NotationError> {
        let mut plan = Plan { slots: vec![None; n.engine.rules.cards.actions.len()], bid: None };
        for item in text.split_whitespace() {
            let (k, v) = item.split_once(':').ok_or_else(|| syntax(item, "ACTION:CARD or bid:CARD"))?;
            let c: Card = n.parse(v)?;
            if k == "bid" {
                plan.bid = Some(c);
            } else {
                plan.slots[n.action(k)?] = Some(c);
            }
        }
        Ok(plan)
    }
    fn write(&self, n: &Notation, out: &mut String) {
        let mut first = true;
        let mut item = |out: &mut String, k: &str, c: &Card| {
            if !first {
                out.push(' ');
            }
            first = false;
            out.push_str(k);
            out.push(':');
            c.write(n, out);
        };
        for (a, slot) in self.slots.iter().enumerate() {
            if let Some(c) = slot {
                item(out, &n.engine.rules.cards.actions[a].id, c);
            }
        }
        if let Some(c) = &self.bid {
            item(out, "bid", c);
        }
    }
}

/// A decision as one line: `chance`, `A choose Kozuke`, `A plan taxes:Settsu bid:2`.
impl Notated for Decision {
    fn read(n: &Notation, line: &str) -> Result<Decision, NotationError> {
        if line == "chance" {
            return Ok(Decision::Chance);
        }
        let expected = "`chance`, `SEAT choose CHOICE` or `SEAT plan ACTION:CARD... bid:CARD`";
        let (who, rest) = line.split_once(' ').ok_or_else(|| syntax(line, expected))?;
        let seat = n.seat(who)?;
        let rest = rest.trim();
        if let Some(answer) = rest.strip_prefix("choose ") {
            return Ok(Decision::Choose { seat, choice: n.parse(answer)? });
        }
        if rest == "plan" {
            return Ok(Decision::Plan { seat, plan: n.parse("")? });
        }
        if let Some(items) = rest.strip_prefix("plan ") {
            return Ok(Decision::Plan { seat, plan: n.parse(items)? });
        }
        Err(syntax(line, expected))
    }
    fn write(&self, n: &Notation, out: &mut String) {
        match self {
            Decision::Chance => out.push_str("chance"),
            Decision::Choose { seat, choice } => {
                out.push_str(n.seat_name(*seat));
                out.push_str(" choose ");
                choice.write(n, out);
            }
            Decision::Plan { seat, plan } => {
                out.push_str(n.seat_name(*seat));
                out.push_str(" plan");
                let items = n.text(plan);
                if !items.is_empty() {
                    out.push(' ');
                    out.push_str(&items);
                }
            }
        }
    }
}

impl fmt::Display for SetupMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SetupMode::Preset => "preset",
            SetupMode::Draft => "draft",
        })
    }
}

impl FromStr for SetupMode {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<SetupMode, NotationError> {
        match s.trim() {
            "preset" => Ok(SetupMode::Preset),
            "draft" => Ok(SetupMode::Draft),
            other => Err(syntax(other, "a setup: preset or draft")),
        }
    }
}

/// How far bots and chance play on (see `Driver::run`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// This many decisions.
    Steps(usize),
    /// The next change of phase (a new round, planning, actions, winter...).
    Phase,
    /// The start of the next round (or winter).
    Round,
    /// The start of winter.
    Winter,
    /// The end of the game.
    End,
}

impl fmt::Display for Until {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Until::Steps(1) => f.write_str("step"),
            Until::Steps(n) => write!(f, "step {n}"),
            Until::Phase => f.write_str("phase"),
            Until::Round => f.write_str("round"),
            Until::Winter => f.write_str("winter"),
            Until::End => f.write_str("end"),
        }
    }
}

impl FromStr for Until {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Until, NotationError> {
        let s = s.trim();
        let expected = "step [N], phase, round, winter or end";
        match s {
            "step" => Ok(Until::Steps(1)),
            "phase" | "next" => Ok(Until::Phase),
            "round" => Ok(Until::Round),
            "winter" => Ok(Until::Winter),
            "end" => Ok(Until::End),
            _ => match s.strip_prefix("step ") {
                Some(n) => n.trim().parse().map(Until::Steps).map_err(|_| syntax(s, "`step N` with a number")),
                None => Err(syntax(s, expected)),
            },
        }
    }
}
