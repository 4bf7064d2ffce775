//! Human-readable transcripts (the narration of decisions and events) and
//! machine-readable summaries of games. Games are played by `play`.

use std::fmt::Write as _;

use serde::Serialize;

use crate::core::*;
use crate::engine::{Engine, EngineError};

/// Counts gathered from a game's events.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Stats {
    pub decisions: u64,
    pub battles: u64,
    pub revolts: u64,
    pub provinces_changing_hands: u64,
}

impl Stats {
    pub fn record(&mut self, events: &[Event]) {
        for e in events {
            match e {
                Event::Battle { kind, .. } => {
                    self.battles += 1;
                    if kind == "revolt" {
                        self.revolts += 1;
                    }
                }
                Event::OwnerChange { .. } => self.provinces_changing_hands += 1,
                _ => {}
            }
        }
    }
}

fn pile(engine: &Engine, p: &Pile, seats: usize) -> String {
    let mut parts: Vec<String> = (0..seats).filter(|&s| p.seats[s] > 0).map(|s| format!("{} {}", engine.rules.seat_name(Seat::new(s)), p.seats[s])).collect();
    if p.peasants > 0 {
        parts.push(format!("peasants {}", p.peasants));
    }
    if parts.is_empty() { "nothing".into() } else { parts.join(", ") }
}

/// Appends the transcript lines for `events` to `out`.
pub fn render(engine: &Engine, seats: usize, events: &[Event], out: &mut String) {
    for e in events {
        match e {
            Event::Heading(h) => {
                let _ = writeln!(out, "\n== {h} ==");
            }
            Event::Note(n) | Event::Secret { text: n, .. } => {
                let _ = writeln!(out, "  {n}");
            }
            Event::Throw { thrown, rethrown, landed } => {
                let again = if rethrown.is_empty() { String::new() } else { format!(" + tray again: {}", pile(engine, rethrown, seats)) };
                let _ = writeln!(out, "    tower: in {}{again} -> tray: {}", pile(engine, thrown, seats), pile(engine, landed, seats));
            }
            Event::Battle { .. } | Event::OwnerChange { .. } | Event::Tally { .. } | Event::Action { .. } => {}
        }
    }
}

/// How a decision reads in a transcript (`None` for chance, plans and
/// turn spaces, which the events narrate). `asked` is the kind of question
/// the decision answered, if a script asked one.
pub fn decision_line(engine: &Engine, asked: Option<&str>, d: &Decision) -> Option<String> {
    match d {
        Decision::Choose { seat, choice } => {
            let kind = asked?;
            Some(format!("  > {} chooses {} ({kind})", engine.rules.seat_name(*seat), engine.choice_name(*choice)))
        }
        _ => None,
    }
}

/// Appends a decision (if it reads as a line) and its events to `out`:
/// the transcript's words, shared by `run`, scenarios and the REPL.
pub fn narrate(engine: &Engine, seats: usize, asked: Option<&str>, d: &Decision, events: &[Event], out: &mut String) {
    if let Some(line) = decision_line(engine, asked, d) {
        out.push_str(&line);
        out.push('\n');
    }
    render(engine, seats, events, out);
}

/// One seat's result.
#[derive(Clone, Debug, Serialize)]
pub struct SeatResult {
    pub seat: String,
    pub bot: String,
    pub rank: usize,
    pub points: i64,
    pub chests: i64,
    pub provinces: usize,
}

/// The machine-readable summary of a finished game.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub seed: u64,
    pub map: String,
    pub ruleset: String,
    pub players: usize,
    pub seats: Vec<SeatResult>,
    pub winner: Vec<String>,
    #[serde(flatten)]
    pub stats: Stats,
}

pub fn summary(engine: &Engine, st: &GameState, seed: u64, bot_names: &[String], stats: &Stats) -> Result<Summary, EngineError> {
    let standings = engine.standings(st)?;
    let rank_of = |s: Seat| standings.iter().find(|(x, _)| *x == s).map(|(_, r)| *r).unwrap_or(0);
    let seats = Seat::all(st.seats())
        .map(|s| SeatResult {
            seat: engine.rules.seat_name(s).to_string(),
            bot: bot_names.get(s.index()).cloned().unwrap_or_default(),
            rank: rank_of(s),
            points: st.players[s.index()].points,
            chests: st.players[s.index()].chests,
            provinces: st.provinces_of(s).count(),
        })
        .collect();
    Ok(Summary {
        seed,
        map: engine.rules.map.name.clone(),
        ruleset: engine.rules.ruleset_name(),
        players: st.seats(),
        seats,
        winner: standings.iter().filter(|(_, r)| *r == 1).map(|(s, _)| engine.rules.seat_name(*s).to_string()).collect(),
        stats: stats.clone(),
    })
}

/// Plays one game (the map's default setup) and returns its transcript and summary.
pub fn transcript(engine: &Engine, players: u8, seed: u64, bot_names: &[String]) -> Result<(String, Summary), EngineError> {
    transcript_with(engine, players, seed, engine.default_setup(players), bot_names)
}

/// Plays one game with the given setup and returns its transcript and summary.
pub fn transcript_with(engine: &Engine, players: u8, seed: u64, setup: SetupMode, bot_names: &[String]) -> Result<(String, Summary), EngineError> {
    transcript_to_failure(engine, players, seed, setup, bot_names).map_err(|f| f.error)
}

/// A game the rules failed in: its transcript up to the failure, and why.
#[derive(Debug)]
pub struct Failure {
    pub so_far: String,
    pub error: EngineError,
    /// When in the game the rules failed and what the game was carrying
    /// out, in words (`Year 1, spring`, `carrying out A's Collect taxes in
    /// Settsu`), when the game played again failed alike.
    pub doing: Option<(String, String)>,
}

impl Failure {
    /// Whether the rules failed in play (a script's error or a broken
    /// invariant), rather than the game not starting (`Setup`): only then
    /// is there a point in the game, and a transcript up to it.
    pub fn in_play(&self) -> bool {
        matches!(self.error, EngineError::Script(_) | EngineError::Broken(_) | EngineError::Illegal(_)) && self.point().is_some()
    }

    /// Where the game stood: the transcript's last round heading (`Year
    /// 1, autumn`) and the action heading after it, if any. Headings start
    /// their line; the rules' notes are indented and never taken for one.
    pub fn point(&self) -> Option<String> {
        let heading = |l: &str| l.strip_prefix("== ").and_then(|h| h.strip_suffix(" ==")).map(str::to_string);
        let headings: Vec<String> = self.so_far.lines().filter_map(heading).collect();
        let round = headings.iter().rposition(|h| h.starts_with("Year ") || h.starts_with("Setup"))?;
        Some(match headings.get(round + 1..).and_then(|rest| rest.last()) {
            Some(action) => format!("{}, {action}", headings[round]),
            None => headings[round].clone(),
        })
    }

    /// The error with the point the game stood at, for a message: the
    /// rules failed in the play that follows the last line narrated. A
    /// game that did not start is its error alone.
    pub fn described(&self) -> String {
        self.described_with("")
    }

    /// `described` with `note` (where the transcript went) after the point.
    /// What the game was carrying out is named where it is known (the
    /// last action heading narrated may be an earlier action's).
    pub fn described_with(&self, note: &str) -> String {
        if !self.in_play() {
            return self.error.to_string();
        }
        match (&self.doing, self.point()) {
            (Some((when, doing)), _) => format!("the rules failed in {when}, while {doing}{note}: {}", self.error),
            (None, Some(at)) => format!("the rules failed in the play after {at}{note}: {}", self.error),
            (None, None) => self.error.to_string(),
        }
    }
}

/// `transcript_with`, keeping what was played when the rules fail.
pub fn transcript_to_failure(engine: &Engine, players: u8, seed: u64, setup: SetupMode, bot_names: &[String]) -> Result<(String, Summary), Box<Failure>> {
    let mut out = String::new();
    let _ = writeln!(out, "# shogun-lab transcript (god view: it shows everything, every seat's secret plan included)");
    let _ = writeln!(out, "ruleset: {}", engine.rules.ruleset_name());
    let _ = writeln!(out, "map: {}", engine.rules.map.name);
    if setup != engine.default_setup(players) || setup == SetupMode::Draft {
        let _ = writeln!(out, "setup: {setup}");
    }
    let _ = writeln!(out, "seed: {seed}");
    let seats: Vec<String> = bot_names.iter().enumerate().map(|(s, b)| format!("{} {b}", engine.rules.seat_name(Seat::new(s)))).collect();
    let _ = writeln!(out, "players: {players} ({})", seats.join(", "));
    let n = players as usize;
    let mut stats = Stats::default();
    let played = crate::play::play_game(engine, players, seed, setup, bot_names, |step| {
        stats.decisions += 1;
        stats.record(step.events);
        narrate(engine, n, step.asked, step.decision, step.events, &mut out);
    });
    let st = match played {
        Ok(st) => st,
        Err(error) => {
            // Played again to its failure, to say what it was carrying out:
            // only a failure met alike (the same decision, the same error).
            let doing = crate::play::failing_decision(engine, players, seed, setup, bot_names)
                .filter(|f| f.after == stats.decisions && f.error.to_string() == error.to_string())
                .and_then(|f| engine.failure_point(&f.state, &f.decision));
            return Err(Box::new(Failure { so_far: out, error, doing }));
        }
    };
    let sum = match summary(engine, &st, seed, bot_names, &stats) {
        Ok(s) => s,
        Err(error) => return Err(Box::new(Failure { so_far: out, error, doing: None })),
    };
    let _ = writeln!(out, "\nwinner: {}", sum.winner.join(", "));
    let _ = writeln!(
        out,
        "battles: {}, revolts: {}, provinces changing hands: {}, decisions: {}",
        stats.battles, stats.revolts, stats.provinces_changing_hands, stats.decisions
    );
    Ok((out, sum))
}
