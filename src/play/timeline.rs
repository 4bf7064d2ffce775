//! A game as a timeline of positions: every decision and edit is an entry,
//! undo and redo move along them, and the log of entries (as text) is what
//! save files keep and what a reload replays. `Game` is an engine with a
//! timeline and its players: the REPL and scenarios play through it.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::driver::{self, Player, Stop, Until};
use super::edit::{Edit, EditError};
use super::notation::{Notation, NotationError};
use crate::core::*;
use crate::engine::{Engine, EngineError};
use crate::transcript;

/// How the log echoes a what-if edit, before its text (the REPL leaves
/// the echo out of what it shows after the command).
pub(crate) const WHAT_IF: &str = "  (what if) ";

#[derive(Clone, Debug, PartialEq, Error)]
pub enum PlayError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Notation(#[from] NotationError),
    #[error(transparent)]
    Edit(#[from] EditError),
    #[error("{0}")]
    Setup(String),
    #[error("nothing to {0}")]
    Nothing(&'static str),
    /// A decision chance or a bot made while the game was played on
    /// (`Game::advance`) failed: the decision (applied to the position the
    /// game stands at) and why. Said as the reason alone; the REPL names
    /// whose decision it was.
    #[error("{why}")]
    PlayingOn { decision: Decision, why: Box<PlayError> },
}

impl PlayError {
    /// The failure itself, without the decision being played on.
    pub fn reason(&self) -> &PlayError {
        match self {
            PlayError::PlayingOn { why, .. } => why,
            e => e,
        }
    }
}

/// What an entry of the timeline did.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    Decide(Decision),
    Edit(Edit),
}

/// A line of narration and who may read it.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub text: String,
    /// `Some(seat)`: only that seat (and the god view) may read it.
    pub only: Option<Seat>,
}

/// One point of the timeline: the position after an entry.
#[derive(Clone)]
pub struct Moment {
    pub state: GameState,
    pub players: Vec<Player>,
    /// What happened in this entry, as transcript lines.
    pub lines: Vec<Line>,
    /// The entry that led here (none for the first moment). A save
    /// fingerprints `state` when it is written.
    pub entry: Option<Entry>,
}

/// The timeline at one moment (`Game::checkpoint`).
pub struct Checkpoint {
    cursor: usize,
    players: Vec<Player>,
    tail: Vec<Moment>,
}

/// The save format this build writes and reads. Format 1 was written
/// while one generator served every chance draw: the same seed deals
/// another game since the streams were split (core/rng.rs), so its
/// decisions would not replay.
pub const SAVE_FORMAT: u32 = 2;

/// A save file: the configuration and the log of decisions and edits.
#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct SaveFile {
    pub shogun_lab_save: u32,
    /// The ruleset the game was played under (information).
    pub ruleset: String,
    pub map: String,
    #[serde(default)]
    pub rules: Option<String>,
    #[serde(default)]
    pub variants: Vec<String>,
    #[serde(default)]
    pub tower: Option<String>,
    pub setup: String,
    pub players: u8,
    pub seed: u64,
    pub seats: Vec<String>,
    /// How often the engine checks its invariants (`every` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    pub entries: Vec<SavedEntry>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SavedEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decide: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<String>,
    /// Fingerprint of the position after this entry.
    pub check: String,
}

impl SavedEntry {
    pub fn text(&self) -> &str {
        self.decide.as_deref().or(self.edit.as_deref()).unwrap_or_default()
    }
}

/// A short fingerprint of a state (FNV-1a over its JSON), to notice when a
/// replay under changed rules parts from the recorded game.
/// The JSON is hashed as it is written, never held whole; a state that
/// cannot be written hashes as nothing (as an empty text would).
pub fn fingerprint(st: &GameState) -> String {
    let mut h = Fnv(FNV_START);
    if serde_json::to_writer(&mut h, st).is_err() {
        h.0 = FNV_START;
    }
    format!("{:016x}", h.0)
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a (64 bits) of the bytes written to it.
struct Fnv(u64);

impl std::io::Write for Fnv {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A game being played: the engine, who plays each seat and the timeline.
pub struct Game {
    pub engine: Engine,
    pub seed: u64,
    moments: Vec<Moment>,
    cursor: usize,
    /// Narrate what transcripts leave out: plans being locked in, what-if
    /// edits (the REPL's log; scenarios' goldens stay plain transcripts).
    pub verbose: bool,
}

impl Game {
    /// A new game: `names` are `human` or a bot's name, one per seat.
    pub fn new(engine: Engine, players: u8, seed: u64, setup: SetupMode, names: &[String]) -> Result<Game, PlayError> {
        if names.len() != players as usize {
            return Err(PlayError::Setup(format!("{} seats given for {players} players", names.len())));
        }
        let state = engine.new_game_with(players, seed, setup)?;
        let players = Player::all(names, seed).map_err(PlayError::Setup)?;
        let header = vec![Line { text: format!("# ruleset: {}", engine.rules.ruleset_name()), only: None }];
        Ok(Game { engine, seed, moments: vec![Moment { state, players, lines: header, entry: None }], cursor: 0, verbose: false })
    }

    pub fn notation(&self) -> Notation<'_> {
        Notation::new(&self.engine, self.state().seats())
    }

    pub fn state(&self) -> &GameState {
        &self.moments[self.cursor].state
    }

    pub fn players(&self) -> &[Player] {
        &self.moments[self.cursor].players
    }

    /// Who plays a seat from now on.
    pub fn set_player(&mut self, seat: Seat, p: Player) {
        self.moments[self.cursor].players[seat.index()] = p;
    }

    /// How many entries lead to the current position.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// How many entries the timeline holds (some may be undone).
    pub fn len(&self) -> usize {
        self.moments.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries up to the current position, numbered from 1.
    pub fn entries(&self) -> impl Iterator<Item = (usize, &Entry)> {
        (1..=self.cursor).map(|i| (i, self.moments[i].entry.as_ref().expect("every moment after the first has an entry")))
    }

    /// An entry as text (as save files and `history` show it).
    pub fn entry_text(&self, e: &Entry) -> String {
        match e {
            Entry::Decide(d) => self.notation().text(d),
            Entry::Edit(x) => self.notation().text(x),
        }
    }

    /// Everything that happened up to now, as transcript lines (the god
    /// view: every seat's secrets included).
    pub fn lines(&self) -> Vec<&str> {
        self.lines_seen(0, None)
    }

    /// The seat's view of the log: the lines of the moments from `from`
    /// (0 is the game's start) to now that `viewer` may read (`None`: the
    /// god view, everything). Every output a seat sees goes through this
    /// and `entry_seen`.
    pub fn lines_seen(&self, from: usize, viewer: Option<Seat>) -> Vec<&str> {
        let from = from.min(self.cursor + 1);
        self.moments[from..=self.cursor].iter().flat_map(|m| m.lines.iter()).filter(|l| may_read(viewer, l.only)).map(|l| l.text.as_str()).collect()
    }

    /// The seat's view of entry `i` (1-based) of the history: another
    /// seat's plan shows only the cards turned face up by now (each when
    /// its action is carried out, the bid at the reveal: the rule of the
    /// seat's view, `GameState::face_up`).
    pub fn entry_seen(&self, i: usize, viewer: Option<Seat>) -> String {
        let Some(entry) = self.moments.get(i).and_then(|m| m.entry.as_ref()) else { return String::new() };
        self.seen(entry, &self.moments[i].state, viewer)
    }

    /// The seat's view of `entry`, made in the round of `then`.
    fn seen(&self, entry: &Entry, then: &GameState, viewer: Option<Seat>) -> String {
        let (Some(v), Entry::Decide(Decision::Plan { seat, plan })) = (viewer, entry) else { return self.entry_text(entry) };
        let seat = *seat;
        if v == seat {
            return self.entry_text(entry);
        }
        let mut shown = Plan { slots: vec![None; plan.slots.len()], bid: None };
        let mut hidden = 0;
        for (a, slot) in plan.slots.iter().enumerate() {
            if slot.is_some() && self.state().face_up((then.year, then.season), seat, Some(a)) {
                shown.slots[a] = *slot;
            } else if slot.is_some() {
                hidden += 1;
            }
        }
        if plan.bid.is_some() && self.state().face_up((then.year, then.season), seat, None) {
            shown.bid = plan.bid;
        } else if plan.bid.is_some() {
            hidden += 1;
        }
        let text = self.notation().text(&Decision::Plan { seat, plan: shown });
        if hidden == 0 { text } else { format!("{text} ({hidden} cards face down)") }
    }

    /// The seat's view of a logged entry that is not (or no longer) part
    /// of the timeline, as if made now; and whether the reason it was
    /// refused must be hidden too (it may name the face-down cards).
    pub fn text_seen(&self, text: &str, viewer: Option<Seat>) -> (String, bool) {
        let Some(v) = viewer else { return (text.to_string(), false) };
        match self.notation().parse::<Decision>(text) {
            Ok(d @ Decision::Plan { seat, .. }) if seat != v => (self.seen(&Entry::Decide(d), self.state(), viewer), true),
            Ok(_) => (text.to_string(), false),
            // Unreadable now: another seat's plan shows only whose it is.
            Err(_) => match text.split_whitespace().collect::<Vec<_>>()[..] {
                [who, "plan", ..] if !self.notation().seat(who).is_ok_and(|s| s == v) => (format!("{who} plan … (face down)"), true),
                _ => (text.to_string(), false),
            },
        }
    }

    /// The position after entry `i` (1-based), undone entries included.
    pub fn state_after(&self, i: usize) -> Option<&GameState> {
        self.moments.get(i).filter(|_| i > 0).map(|m| &m.state)
    }

    fn push(&mut self, entry: Entry, state: GameState, players: Vec<Player>, lines: Vec<Line>) {
        self.moments.truncate(self.cursor + 1);
        self.moments.push(Moment { state, players, lines, entry: Some(entry) });
        self.cursor += 1;
    }

    fn narrate(&self, before: &GameState, d: &Decision, asked: Option<&str>, events: &[Event]) -> Vec<Line> {
        let mut text = String::new();
        if self.verbose
            && let Decision::Plan { seat, .. } = d
        {
            text.push_str(&format!("  {} locks in a plan (secret until its cards are turned up)\n", self.engine.rules.seat_name(*seat)));
        }
        if let Some(line) = transcript::decision_line(&self.engine, asked, d) {
            text.push_str(&line);
            text.push('\n');
        }
        let mut lines = public(&text);
        lines.extend(self.render(before.seats(), events));
        lines
    }

    /// Events as lines, each tagged with who may read it.
    fn render(&self, seats: usize, events: &[Event]) -> Vec<Line> {
        let mut lines = Vec::new();
        for e in events {
            let mut text = String::new();
            transcript::render(&self.engine, seats, std::slice::from_ref(e), &mut text);
            let only = if let Event::Secret { seat, .. } = e { Some(*seat) } else { None };
            lines.extend(text.lines().map(|t| Line { text: t.to_string(), only }));
        }
        lines
    }

    /// Applies a decision (anyone's); returns the transcript lines it made.
    pub fn decide(&mut self, d: Decision) -> Result<Vec<String>, PlayError> {
        let mut st = self.state().clone();
        let asked = st.ask.as_ref().map(|a| a.kind.clone());
        let events = self.engine.apply(&mut st, &d)?;
        let lines = self.narrate(self.state(), &d, asked.as_deref(), &events);
        let players = self.players().to_vec();
        let text = lines.iter().map(|l| l.text.clone()).collect();
        self.push(Entry::Decide(d), st, players, lines);
        Ok(text)
    }

    /// Applies a what-if edit.
    pub fn edit(&mut self, e: Edit) -> Result<Vec<String>, PlayError> {
        let mut st = self.state().clone();
        let events = e.apply(&self.engine, &mut st)?;
        let text = if self.verbose { format!("{WHAT_IF}{}\n", self.notation().text(&e)) } else { String::new() };
        let mut lines = public(&text);
        lines.extend(self.render(st.seats(), &events));
        let players = self.players().to_vec();
        let text = lines.iter().map(|l| l.text.clone()).collect();
        self.push(Entry::Edit(e), st, players, lines);
        Ok(text)
    }

    /// Lets chance and the bots play until `until` or a person's turn;
    /// every decision is an entry. Returns the lines and why it stopped;
    /// a failing decision is returned in `PlayError::PlayingOn`, the
    /// game standing before it (the decisions made until then stay).
    pub fn advance(&mut self, until: Until) -> Result<(Vec<String>, Stop), PlayError> {
        let mark = driver::Mark::of(self.state());
        let mut out = Vec::new();
        let mut steps = 0;
        loop {
            if self.state().phase == Phase::GameOver {
                return Ok((out, Stop::GameOver));
            }
            if mark.reached(until, self.state(), steps) {
                return Ok((out, Stop::Reached));
            }
            // The bots' generators move on with the decision: the moment
            // keeps the advanced copies, so undo gives the same game back.
            let mut players = self.players().to_vec();
            let Some(d) = driver::next_decision(&self.engine, self.state(), &mut players) else {
                return Ok((out, Stop::Human));
            };
            self.moments[self.cursor].players = players;
            match self.decide(d.clone()) {
                Ok(lines) => out.extend(lines),
                // The game stands before the failing decision.
                Err(why) => return Err(PlayError::PlayingOn { decision: d, why: Box::new(why) }),
            }
            steps += 1;
        }
    }

    /// Every event of the game up to now, worked out again by applying
    /// each entry to the position before it (moments keep lines, not
    /// events): what summaries count from.
    pub fn replay_events(&self) -> Result<Vec<Event>, PlayError> {
        let mut all = Vec::new();
        for i in 1..=self.cursor {
            let mut st = self.moments[i - 1].state.clone();
            match self.moments[i].entry.as_ref().expect("an entry") {
                Entry::Decide(d) => all.extend(self.engine.apply(&mut st, d)?),
                Entry::Edit(x) => all.extend(x.apply(&self.engine, &mut st)?),
            }
        }
        Ok(all)
    }

    /// The timeline as it stands (the position, the bots' generators and
    /// what `redo` would bring back), to go back to when a command fails
    /// part way: the REPL's commands are all or nothing.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint { cursor: self.cursor, players: self.players().to_vec(), tail: self.moments[self.cursor + 1..].to_vec() }
    }

    /// Puts the timeline back as it stood at `c` (taken from this game).
    pub fn rollback(&mut self, c: Checkpoint) {
        self.moments.truncate(c.cursor + 1);
        self.moments.extend(c.tail);
        self.cursor = c.cursor;
        self.moments[c.cursor].players = c.players;
    }

    pub fn undo(&mut self, n: usize) -> Result<usize, PlayError> {
        let k = n.min(self.cursor);
        if k == 0 {
            return Err(PlayError::Nothing("undo"));
        }
        self.cursor -= k;
        Ok(k)
    }

    pub fn redo(&mut self, n: usize) -> Result<usize, PlayError> {
        let k = n.min(self.len() - self.cursor);
        if k == 0 {
            return Err(PlayError::Nothing("redo"));
        }
        self.cursor += k;
        Ok(k)
    }

    /// The log up to the current position, as save files keep it.
    pub fn saved_entries(&self) -> Vec<SavedEntry> {
        self.saved_upto(self.cursor)
    }

    /// The whole log, the undone entries (what `redo` would bring back) too.
    pub fn whole_log(&self) -> Vec<SavedEntry> {
        self.saved_upto(self.len())
    }

    fn saved_upto(&self, n: usize) -> Vec<SavedEntry> {
        (1..=n)
            .map(|i| {
                let m = &self.moments[i];
                let check = fingerprint(&m.state);
                match m.entry.as_ref().expect("an entry") {
                    Entry::Decide(d) => SavedEntry { decide: Some(self.notation().text(d)), edit: None, check },
                    Entry::Edit(x) => SavedEntry { decide: None, edit: Some(self.notation().text(x)), check },
                }
            })
            .collect()
    }

    /// Replays a log on this game: up to the first entry that is no
    /// longer legal (the game then stands before it), noting the first
    /// entry whose position differs from the recorded fingerprint.
    pub fn replay(&mut self, entries: &[SavedEntry]) -> Replayed {
        let mut diverged: Option<usize> = None;
        for (i, e) in entries.iter().enumerate() {
            let result = match (&e.decide, &e.edit) {
                (Some(d), None) => self.notation().parse::<Decision>(d).map_err(PlayError::from).and_then(|d| self.decide(d).map(|_| ())),
                (None, Some(x)) => self.notation().parse::<Edit>(x).map_err(PlayError::from).and_then(|x| self.edit(x).map(|_| ())),
                _ => Err(PlayError::Setup("exactly one of `decide` or `edit`".into())),
            };
            if let Err(why) = result {
                return Replayed { total: entries.len(), done: i, diverged, refused: Some((e.text().to_string(), why.to_string())) };
            }
            if diverged.is_none() && fingerprint(self.state()) != e.check {
                diverged = Some(i + 1);
            }
        }
        Replayed { total: entries.len(), done: entries.len(), diverged, refused: None }
    }

    /// A replay's report as `viewer` may read it: entries through the
    /// seat's view (`entry_seen`, `text_seen`). `what` says what differs
    /// at the diverging entry, when the caller can tell.
    pub fn replay_report(&self, r: &Replayed, viewer: Option<Seat>, what: &[String]) -> String {
        let mut s = String::new();
        if let Some(k) = r.diverged {
            let how =
                if what.is_empty() { "the position after it differs from the recorded one".to_string() } else { format!("after it, {}", what.join("; ")) };
            s.push_str(&format!("\nthe replay diverged at entry {k} (`{}`): {how}", self.entry_seen(k, viewer)));
            if r.refused.is_none() {
                s.push_str("; all entries stayed legal");
            }
        }
        match &r.refused {
            Some((text, why)) => {
                let (shown, hide) = self.text_seen(text, viewer);
                let why = if hide { "(the reason is not shown: it would tell what the face-down cards are)".to_string() } else { why.clone() };
                s.push_str(&format!(
                    "\nentry {} is no longer legal: `{shown}`: {why}\nreplayed {} of {}; the game stands after entry {}",
                    r.done + 1,
                    r.done,
                    entries(r.total),
                    r.done
                ));
            }
            None if r.diverged.is_none() => s.push_str(&format!("\nreplayed {}; the replay matches the recorded game", entries(r.total))),
            None if r.total == 1 => s.push_str("\nreplayed the one entry"),
            None => s.push_str(&format!("\nreplayed all {}", entries(r.total))),
        }
        s
    }
}

/// `1 entry`, `2 entries`.
fn entries(n: usize) -> String {
    format!("{n} {}", if n == 1 { "entry" } else { "entries" })
}

/// What a replay did (`Game::replay`).
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    /// Entries in the log, and how many were replayed.
    pub total: usize,
    pub done: usize,
    /// The first entry (1-based) whose position differs from the record.
    pub diverged: Option<usize>,
    /// The entry no longer legal (as logged) and why.
    pub refused: Option<(String, String)>,
}

/// Lines anyone may read.
fn public(text: &str) -> Vec<Line> {
    text.lines().map(|t| Line { text: t.to_string(), only: None }).collect()
}
