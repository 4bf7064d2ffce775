//! The game's flow around the people at the keyboard: after a human
//! decision the game plays on to the next one (`auto off` stops after each
//! bot decision); in hot-seat play the view follows the acting human, with
//! a pause to pass the keyboard; `undo` takes back to before the last
//! human decision; the winter forecast (`winter?`) and the end-of-game
//! summary.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Repl, Viewer, views};

/// Where the REPL stood before a command: the cursor, the timeline's
/// length, the plan drafts and their rounds.
pub(super) type Mark = (usize, usize, Vec<Option<Plan>>, Vec<(u8, u8)>);

/// One command that changed the game or a draft, as `undo` takes it back.
#[derive(Clone, Debug)]
pub struct Step {
    line: String,
    /// The cursor before and after it.
    from: usize,
    to: usize,
    /// The plan drafts (and their rounds) before and after it.
    before: (Vec<Option<Plan>>, Vec<(u8, u8)>),
    after: (Vec<Option<Plan>>, Vec<(u8, u8)>),
}
use crate::core::*;
use crate::play::{Entry, Until};

impl Repl {
    /// `auto [on|off]`.
    pub(super) fn auto_command(&mut self, args: &[&str]) -> Result<String, String> {
        match args {
            [] => {}
            ["on"] => self.auto = true,
            ["off"] => self.auto = false,
            _ => return Err("usage: auto [on|off]".into()),
        }
        Ok(if self.auto {
            "auto on: after a human decision the bots and chance play on to the next human decision".into()
        } else {
            "auto off: the game waits after every decision (`step`, `next`, `round` move it on)".into()
        })
    }

    /// After a human decision: plays on to the next one when `auto` is on.
    pub(super) fn play_on(&mut self, mut text: String) -> Result<String, String> {
        if !self.auto || self.game.engine.actor(self.state()) == Actor::Terminal {
            return Ok(text);
        }
        // The person's decision stands whatever follows: a decision of
        // chance or a bot failing after it is that decision's failure,
        // and the game stops before it.
        let mine = self.game.cursor();
        let outcome = |r: &Repl| {
            let after = r.game.cursor() - mine;
            let followed =
                if after == 0 { String::new() } else { format!(", and so did the {} after it", views::count(after as i64, "decision", "decisions")) };
            format!(
                "your decision `{}` took effect{followed}; the game stands before the failing decision (fix the rules and `reload`; `step` tries it again; `undo` takes back your decision and what followed it)",
                r.game.entry_seen(mine, r.eyes())
            )
        };
        let more = match self.advance_or(Until::End, &outcome) {
            Ok(more) => more,
            Err(e) => {
                // What did happen, after the failure and what stands.
                self.kept_failure = true;
                let lines = self.since(mine.saturating_sub(1));
                let shown: Vec<String> = lines.iter().filter(|l| !l.trim().is_empty()).map(|l| format!("  {}", l.trim_start())).collect();
                return Err(if shown.is_empty() { e } else { format!("{e}\nwhat took effect:\n{}", shown.join("\n")) });
            }
        };
        if !more.is_empty() && more != "nothing to do" {
            // `advance` ends with who must act; drop the same line said before.
            let who = self.waiting();
            if !who.is_empty()
                && let Some(i) = text.find(&who)
            {
                text.truncate(i);
            }
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&more);
        }
        Ok(text.trim_end().to_string())
    }

    /// The human seat that must act now (for planning: the viewer's seat if
    /// it still plans, else the first human still to plan).
    fn acting_human(&self) -> Option<Seat> {
        match self.game.engine.actor(self.state()) {
            Actor::Seat(s) if self.is_human(s) => Some(s),
            Actor::Simultaneous(seats) => {
                let humans: Vec<Seat> = seats.into_iter().filter(|&s| self.is_human(s)).collect();
                match self.viewer {
                    Viewer::Seat(v) if humans.contains(&v) => Some(v),
                    _ => humans.first().copied(),
                }
            }
            _ => None,
        }
    }

    /// Hot seat: with several human seats the view follows the human who
    /// must act. Returns the pause to show when the keyboard changes hands.
    pub(super) fn follow_the_actor(&mut self) -> Option<String> {
        let Viewer::Seat(v) = self.viewer else { return None };
        if Seat::all(self.config.seats.len()).filter(|&s| self.is_human(s)).count() < 2 {
            return None;
        }
        let next = self.acting_human()?;
        if next == v {
            return None;
        }
        self.viewer = Viewer::Seat(next);
        self.handover = Some(next);
        let (n, colour) = (self.notation(), &self.game.engine.rules.rules.seats[next.index()].colour);
        Some(format!(
            "-- pass the keyboard to {} ({colour}): the view is {}'s from now on and shows nothing of {}'s secrets --",
            n.seat_name(next),
            n.seat_name(next),
            n.seat_name(v)
        ))
    }

    /// The seat the keyboard was just passed to, once (the terminal then
    /// waits for Enter and clears the screen and the line history).
    pub fn take_handover(&mut self) -> Option<Seat> {
        self.handover.take()
    }

    /// What the REPL stands at now, for `record`.
    pub(super) fn mark(&self) -> Mark {
        (self.game.cursor(), self.game.len(), self.drafts.clone(), self.draft_when.clone())
    }

    /// After a command: one step for `undo` if it changed the game or a
    /// draft. `undo`/`redo` keep their own books; `load`/`reload` start a
    /// new timeline (their undo goes along the log's entries).
    pub(super) fn record(&mut self, line: &str, (cursor, len, drafts, when): Mark) {
        let cmd = line.split_whitespace().next().unwrap_or("");
        if matches!(cmd, "undo" | "u" | "redo") {
            return;
        }
        if matches!(cmd, "load" | "reload") || self.game.cursor() < cursor {
            self.steps.clear();
            self.undone.clear();
            return;
        }
        if (self.game.cursor(), self.game.len()) == (cursor, len) && self.drafts == drafts && self.draft_when == when {
            return;
        }
        self.undone.clear();
        let after = (self.drafts.clone(), self.draft_when.clone());
        self.steps.push(Step { line: line.trim().to_string(), from: cursor, to: self.game.cursor(), before: (drafts, when), after });
    }

    /// `undo n` (commands): each step's entries and draft go back.
    pub(super) fn undo_steps(&mut self, n: usize) -> Result<String, String> {
        let mut said = Vec::new();
        for _ in 0..n {
            let Some(step) = self.steps.pop() else { break };
            if self.game.cursor() != step.to {
                // The timeline moved under the step (cannot happen by a
                // command): keep what stands, forget the books.
                self.steps.clear();
                break;
            }
            said.push(self.step_text(&step, true));
            if step.to > step.from {
                self.game.undo(step.to - step.from).map_err(|e| e.to_string())?;
            }
            (self.drafts, self.draft_when) = step.before.clone();
            self.undone.push(step);
        }
        if said.is_empty() {
            return Err("nothing to undo".into());
        }
        Ok(format!("{}\nnow at entry {} of {}", said.join("\n"), self.game.cursor(), self.game.len()))
    }

    /// `redo n`: the steps `undo` took back, as they were.
    pub(super) fn redo_steps(&mut self, n: usize) -> Result<String, String> {
        let mut said = Vec::new();
        for _ in 0..n {
            let Some(step) = self.undone.pop() else { break };
            if self.game.cursor() != step.from || self.game.len() < step.to {
                self.undone.clear();
                break;
            }
            if step.to > step.from {
                self.game.redo(step.to - step.from).map_err(|e| e.to_string())?;
            }
            (self.drafts, self.draft_when) = step.after.clone();
            said.push(self.step_text(&step, false));
            self.steps.push(step);
        }
        if said.is_empty() {
            return Err("nothing to redo".into());
        }
        Ok(format!("{}\nnow at entry {} of {}", said.join("\n"), self.game.cursor(), self.game.len()))
    }

    /// What a step did, in words: the command, its entries (as the viewer
    /// may read them) and the plan drafts it changed.
    fn step_text(&self, step: &Step, undo: bool) -> String {
        let mut s = format!("{} `{}`", if undo { "took back" } else { "brought back" }, step.line);
        let k = step.to - step.from;
        if k > 0 {
            let texts: Vec<String> = (step.from + 1..=step.to).take(3).map(|i| format!("{i} {}", self.game.entry_seen(i, self.eyes()))).collect();
            let more = if k > 3 { format!(", and {} more", k - 3) } else { String::new() };
            let _ = write!(s, ": {} ({}{more})", views::count(k as i64, "entry", "entries"), texts.join("; "));
        }
        let (from, to) = if undo { (&step.after.0, &step.before.0) } else { (&step.before.0, &step.after.0) };
        for (i, (a, b)) in from.iter().zip(to).enumerate() {
            let seat = Seat::new(i);
            if a != b && may_read(self.eyes(), Some(seat)) {
                let plan = b.as_ref().map(|p| views::plan_text(&self.game.engine, p)).unwrap_or_else(|| "empty".into());
                let _ = write!(s, "; {}'s draft is now: {plan}", self.notation().seat_name(seat));
            }
        }
        s
    }

    /// How many entries a plain `undo` takes back: with `auto` on, back to
    /// before the last human decision or edit; else one.
    pub(super) fn undo_count(&self) -> usize {
        if !self.auto {
            return 1;
        }
        let entries: Vec<(usize, &Entry)> = self.game.entries().collect();
        let mine = entries.iter().rev().find(|(_, e)| match e {
            Entry::Edit(_) => true,
            Entry::Decide(Decision::Plan { seat, .. } | Decision::Choose { seat, .. }) => self.is_human(*seat),
            Entry::Decide(Decision::Chance) => false,
        });
        mine.map(|(i, _)| self.game.cursor() + 1 - i).unwrap_or(1)
    }

    /// `winter?`: rice held and needed per seat, and what the winter would
    /// do under each event that may still be the year's last, by the rules'
    /// own winter handler on a copy of what the viewer knows (nothing
    /// collected before the winter is counted). What it did is read from
    /// the copy, not from its narration: rice before and after, and the
    /// revolts fought (questions on the way, such as the order of a
    /// seat's revolts, take their first option).
    pub(super) fn winter_forecast(&self) -> Result<String, String> {
        let e = &self.game.engine;
        let known = self.viewed();
        if matches!(known.phase, Phase::Setup | Phase::Draft | Phase::Preload | Phase::GameOver) {
            return Err("winter?: no winter to forecast now".into());
        }
        let n = self.notation();
        let per = e.rules.rules.winter.rice_per_province;
        let held = |q: Seat| known.provinces_of(q).count() as i64;
        let needed = |q: Seat| held(q) * per;
        let mut out = String::from("rice now:");
        for q in Seat::all(known.seats()) {
            let _ = write!(
                out,
                "\n  {}: holds {}, needs {} in winter ({} rice for each of {})",
                n.seat_name(q),
                known.players[q.index()].rice,
                needed(q),
                per,
                views::count(held(q), "province", "provinces")
            );
        }
        if known.year_events.is_empty() {
            out.push_str("\nno event of this year is left to set the winter's loss");
            return Ok(out);
        }
        out.push_str("\nif the winter came now (rice collected before it is not counted), by the event left last:");
        for &ev in &known.year_events {
            let card = &e.rules.cards.events[ev as usize];
            let _ = write!(out, "\n  #{} {} (rice loss {}):", card.id, card.name, card.rice_loss);
            match crate::play::preview::winter(e, &known, ev) {
                Ok(w) => {
                    for q in Seat::all(known.seats()) {
                        let (held, left) = (known.players[q.index()].rice, w.rice[q.index()]);
                        let short = (needed(q) - left).max(0);
                        let _ = write!(
                            out,
                            "\n    {}: loses {} of the {held} held, {left} left of {} needed{} -> {}",
                            n.seat_name(q),
                            held - left,
                            needed(q),
                            if short > 0 { format!(", short {short}") } else { String::new() },
                            views::count(w.revolts[q.index()], "revolt", "revolts")
                        );
                    }
                }
                Err(err) => {
                    let why = if let crate::engine::EngineError::Script(e) = &err { e.message.clone() } else { err.to_string() };
                    let _ = write!(out, "\n    (the winter handler failed: {why})");
                }
            }
        }
        Ok(out)
    }

    /// The end of the game: standings, points by source, battles won and
    /// lost, provinces gained and lost, per seat (from the rules' tallies
    /// and the changes of hands over the whole game).
    pub(super) fn summary(&self) -> Result<String, String> {
        let e = &self.game.engine;
        let st = self.state();
        if st.phase != Phase::GameOver {
            return Err("summary: the game is not over yet".into());
        }
        let events = self.game.replay_events().map_err(|e| e.to_string())?;
        let n = st.seats();
        // Script-given numbers (`game.tally(.., math.maxinteger)`) summed
        // exactly: i128 holds the sum of any 2^64 of them, and a game has
        // far fewer events (`engine::MAX_EVENTS_PER_DECISION` a decision);
        // the sum is checked all the same.
        let mut tallies: BTreeMap<String, Vec<i128>> = BTreeMap::new();
        let (mut gained, mut lost) = (vec![0i64; n], vec![0i64; n]);
        for ev in &events {
            match ev {
                Event::Tally { key, seat: Some(s), amount } => {
                    let x = &mut tallies.entry(key.clone()).or_insert_with(|| vec![0; n])[s.index()];
                    *x = x
                        .checked_add(i128::from(*amount))
                        .ok_or_else(|| format!("summary: the tally `{key}` of seat {} is too large to add up", self.notation().seat_name(*s)))?;
                }
                Event::OwnerChange { from, to, .. } => {
                    if let Some(t) = to {
                        gained[t.index()] += 1;
                    }
                    if let Some(f) = from {
                        lost[f.index()] += 1;
                    }
                }
                _ => {}
            }
        }
        let name = |s: Seat| self.notation().seat_name(s);
        let mut out = String::from("== the game is over ==\nstandings:");
        for (s, rank) in e.standings(st).map_err(|e| e.to_string())? {
            let p = &st.players[s.index()];
            let _ = write!(
                out,
                "\n  {rank}. {}: {}, {}, {}",
                name(s),
                views::count(p.points, "point", "points"),
                views::count(p.chests, "war chest", "war chests"),
                views::count(st.provinces_of(s).count() as i64, "province", "provinces")
            );
        }
        let header: String = Seat::all(n).map(|s| format!(" {:>5}", name(s))).collect();
        for (title, prefix) in [("points by source", "points."), ("battles", "battles.")] {
            let rows: Vec<(&String, &Vec<i128>)> = tallies.iter().filter(|(k, _)| k.starts_with(prefix)).collect();
            if rows.is_empty() {
                continue;
            }
            let _ = write!(out, "\n{title}:\n  {:<28}{header}", "");
            for (k, v) in rows {
                let cells: String = v.iter().map(|x| format!(" {x:>5}")).collect();
                let _ = write!(out, "\n  {:<28}{cells}", &k[prefix.len()..]);
            }
        }
        let _ = write!(out, "\nprovinces:\n  {:<28}{header}", "");
        for (label, v) in [("taken (draft and battles)", &gained), ("lost", &lost)] {
            let cells: String = v.iter().map(|x| format!(" {x:>5}")).collect();
            let _ = write!(out, "\n  {label:<28}{cells}");
        }
        Ok(out)
    }
}
