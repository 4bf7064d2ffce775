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
}

/// What an entry of the timeline did.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    Decide(Decision),
    Edit(Edit),
}

/// One point of the timeline: the position after an entry.
#[derive(Clone)]
pub struct Moment {
    pub state: GameState,
    pub players: Vec<Player>,
    /// What happened in this entry, as transcript lines.
    pub lines: Vec<String>,
    /// The entry and the fingerprint of the position after it.
    pub entry: Option<(Entry, String)>,
}

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
pub fn fingerprint(st: &GameState) -> String {
    let json = serde_json::to_vec(st).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in json {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
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
        let header = vec![format!("# ruleset: {}", engine.rules.ruleset_name())];
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
    pub fn set_player(&mut self, seat: usize, p: Player) {
        self.moments[self.cursor].players[seat] = p;
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
        (1..=self.cursor).map(|i| (i, &self.moments[i].entry.as_ref().expect("every moment after the first has an entry").0))
    }

    /// An entry as text (as save files and `history` show it).
    pub fn entry_text(&self, e: &Entry) -> String {
        match e {
            Entry::Decide(d) => self.notation().text(d),
            Entry::Edit(x) => self.notation().text(x),
        }
    }

    /// Everything that happened up to now, as transcript lines.
    pub fn lines(&self) -> Vec<&str> {
        self.moments[..=self.cursor].iter().flat_map(|m| m.lines.iter().map(|s| s.as_str())).collect()
    }

    fn push(&mut self, entry: Entry, state: GameState, players: Vec<Player>, lines: Vec<String>) {
        self.moments.truncate(self.cursor + 1);
        let fp = fingerprint(&state);
        self.moments.push(Moment { state, players, lines, entry: Some((entry, fp)) });
        self.cursor += 1;
    }

    fn narrate(&self, before: &GameState, d: &Decision, asked: Option<&str>, events: &[Event]) -> Vec<String> {
        let mut text = String::new();
        if self.verbose
            && let Decision::Plan { seat, .. } = d
        {
            text.push_str(&format!("  {} locks in a plan (secret until the reveal)\n", self.engine.rules.seat_name(*seat as usize)));
        }
        transcript::narrate(&self.engine, before.seats(), asked, d, events, &mut text);
        text.lines().map(String::from).collect()
    }

    /// Applies a decision (anyone's); returns the transcript lines it made.
    pub fn decide(&mut self, d: Decision) -> Result<Vec<String>, PlayError> {
        let mut st = self.state().clone();
        let asked = st.ask.as_ref().map(|a| a.kind.clone());
        let events = self.engine.apply(&mut st, &d)?;
        let lines = self.narrate(self.state(), &d, asked.as_deref(), &events);
        let players = self.players().to_vec();
        self.push(Entry::Decide(d), st, players, lines.clone());
        Ok(lines)
    }

    /// Applies a what-if edit.
    pub fn edit(&mut self, e: Edit) -> Result<Vec<String>, PlayError> {
        let mut st = self.state().clone();
        let events = e.apply(&self.engine, &mut st)?;
        let mut text = if self.verbose { format!("  (what if) {}\n", self.notation().text(&e)) } else { String::new() };
        transcript::render(&self.engine, st.seats(), &events, &mut text);
        let lines: Vec<String> = text.lines().map(String::from).collect();
        let players = self.players().to_vec();
        self.push(Entry::Edit(e), st, players, lines.clone());
        Ok(lines)
    }

    /// Lets chance and the bots play until `until` or a person's turn;
    /// every decision is an entry. Returns the lines and why it stopped.
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
            out.extend(self.decide(d)?);
            steps += 1;
        }
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
        (1..=self.cursor)
            .map(|i| {
                let (e, fp) = self.moments[i].entry.as_ref().expect("an entry");
                match e {
                    Entry::Decide(d) => SavedEntry { decide: Some(self.notation().text(d)), edit: None, check: fp.clone() },
                    Entry::Edit(x) => SavedEntry { decide: None, edit: Some(self.notation().text(x)), check: fp.clone() },
                }
            })
            .collect()
    }

    /// Replays a log on this game; reports divergence and the first entry
    /// that is no longer legal (the game then stands before it).
    pub fn replay(&mut self, entries: &[SavedEntry]) -> String {
        let mut diverged: Option<usize> = None;
        for (i, e) in entries.iter().enumerate() {
            let result = match (&e.decide, &e.edit) {
                (Some(d), None) => self.notation().parse::<Decision>(d).map_err(PlayError::from).and_then(|d| self.decide(d).map(|_| ())),
                (None, Some(x)) => self.notation().parse::<Edit>(x).map_err(PlayError::from).and_then(|x| self.edit(x).map(|_| ())),
                _ => Err(PlayError::Setup("exactly one of `decide` or `edit`".into())),
            };
            if let Err(msg) = result {
                let mut s = String::new();
                if let Some(k) = diverged {
                    s.push_str(&format!("\nthe replay diverged at entry {} (the position after it differs from the recorded one)", k + 1));
                }
                s.push_str(&format!(
                    "\nentry {} is no longer legal: `{}`: {msg}\nreplayed {i} of {} entries; the game stands after entry {i}",
                    i + 1,
                    e.text(),
                    entries.len()
                ));
                return s;
            }
            if diverged.is_none() && fingerprint(self.state()) != e.check {
                diverged = Some(i);
            }
        }
        match diverged {
            Some(k) => format!(
                "\nthe replay diverged at entry {} (`{}`): the position after it differs from the recorded one; all entries stayed legal",
                k + 1,
                entries[k].text()
            ),
            None => "\nthe replay matches the recorded game".into(),
        }
    }
}
