//! The REPL: step through a game, play any seat, undo, save, reload the
//! rules, ask "what if". `Repl::exec` runs one command and returns what to
//! print; `term.rs` wraps it in a line editor (or reads a script).

mod term;
pub mod views;

pub use term::{PlayArgs, run};

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::bots::{self, Bot};
use crate::cli::GameData;
use crate::core::*;
use crate::engine::Engine;
use crate::session::{self, Until};
use crate::transcript;

/// What a game in the REPL is made from.
#[derive(Clone, Debug)]
pub struct Config {
    pub data: GameData,
    pub players: u8,
    pub seed: u64,
    /// Per seat: `human` or a bot name.
    pub seats: Vec<String>,
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

#[derive(Clone, Debug)]
enum Entry {
    Decide(Decision),
    Edit(String),
}

/// One point of the timeline: the position after an entry.
struct Moment {
    state: GameState,
    bots: Vec<Option<Box<dyn Bot>>>,
    /// What happened in this entry, as transcript lines.
    added: Vec<String>,
    entry: Option<(Entry, String)>,
}

fn clone_bots(b: &[Option<Box<dyn Bot>>]) -> Vec<Option<Box<dyn Bot>>> {
    b.iter().map(|x| x.as_ref().map(|b| b.boxed_clone())).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    Seat(usize),
    God,
}

pub struct Repl {
    pub config: Config,
    engine: Engine,
    timeline: Vec<Moment>,
    cursor: usize,
    /// Plans being edited by human seats.
    drafts: Vec<Option<Plan>>,
    viewer: Viewer,
    /// Set by `quit`.
    pub done: bool,
}

fn make_bot(name: &str, seed: u64, seat: usize) -> Result<Option<Box<dyn Bot>>, String> {
    if name == "human" { Ok(None) } else { bots::by_name(name, transcript::bot_seed(seed, seat)).map(Some) }
}

/// The commands, for help and completion: (name, usage, what, example).
pub const COMMANDS: &[(&str, &str, &str, &str)] = &[
    ("help", "help [command]", "list the commands, or explain one", "help plan"),
    ("status", "status", "where the game is and who must act", "status"),
    ("step", "step [n]", "advance n decisions (bots and chance decide; stops when a human seat must)", "step 5"),
    ("next", "next", "advance to the next phase", "next"),
    ("round", "round", "advance to the end of the round", "round"),
    ("winter", "winter", "advance to winter", "winter"),
    ("end", "end", "play on to the end of the game", "end"),
    ("options", "options", "the legal decisions for the seat to act, numbered (choose with the number)", "options"),
    ("choose", "choose ANSWER", "answer the question: a province, a number, pass, deck, redraw, space N (or type the option's number alone)", "choose Kozuke"),
    (
        "plan",
        "plan [show|auto|clear|done] | plan ACTION PROVINCE|- | plan bid VALUE|PROVINCE|- | plan ACTION:PROVINCE... bid:VALUE",
        "edit the secret plan of the human seat to plan (one space, or all at once), then lock it in with `plan done`",
        "plan taxes Settsu",
    ),
    ("board", "board [region]", "provinces by region: owner, armies, unrest, buildings", "board red"),
    ("province", "province NAME", "one province in detail", "province Settsu"),
    ("player", "player [SEAT]", "a player's supply, chests, rice, points, provinces (and plan, if you may see it)", "player B"),
    ("tower", "tower", "the tower's contents and the tray", "tower"),
    ("events", "events", "the event in force and the year's others", "events"),
    ("actions", "actions", "the action-card row (face-down cards stay hidden)", "actions"),
    ("order", "order", "turn-order spaces, specials, bids and turn order", "order"),
    ("log", "log [n]", "the last n lines of what happened (default 30)", "log 50"),
    ("view", "view SEAT|god", "whose eyes the displays use; god shows everything (and says so)", "view god"),
    ("seat", "seat SEAT human|greedy|random", "who plays a seat from now on", "seat B human"),
    ("undo", "undo [n]", "take back the last n decisions or edits (bots' too)", "undo 3"),
    ("redo", "redo [n]", "redo what undo took back", "redo"),
    ("history", "history [n]", "the log of decisions and edits, numbered", "history 20"),
    ("save", "save FILE", "save the configuration and the log (YAML)", "save game.yaml"),
    ("load", "load FILE", "load a saved game and replay it", "load game.yaml"),
    ("reload", "reload", "re-read the rules (YAML and Lua) from disk and replay the log under them", "reload"),
    ("lua", "lua CODE", "evaluate Lua against a read-only view of the game", "lua return game.chests(1)"),
    (
        "set",
        "set PROVINCE key=value... | set SEAT key=value...",
        "what if: edit the position (owner, armies, unrest, buildings; chests, rice, points)",
        "set Settsu owner=B armies=3 unrest=1",
    ),
    ("force", "force SEAT=n... [peasants=n]", "what if: force the next tower result", "force A=3 B=1 peasants=1"),
    ("quit", "quit", "leave", "quit"),
];

impl Repl {
    pub fn new(config: Config) -> Result<Repl, String> {
        let engine = config.data.engine()?;
        if config.seats.len() != config.players as usize {
            return Err(format!("{} seats given for {} players", config.seats.len(), config.players));
        }
        let setup = config.data.setup_mode(&engine, config.players);
        let state = engine.new_game_with(config.players, config.seed, setup).map_err(|e| e.to_string())?;
        let bots = config.seats.iter().enumerate().map(|(s, n)| make_bot(n, config.seed, s)).collect::<Result<Vec<_>, _>>()?;
        let viewer = config.seats.iter().position(|s| s == "human").map(Viewer::Seat).unwrap_or(Viewer::God);
        let header = vec![format!("# ruleset: {}", engine.rules.ruleset_name())];
        Ok(Repl {
            drafts: vec![None; config.players as usize],
            config,
            engine,
            timeline: vec![Moment { state, bots, added: header, entry: None }],
            cursor: 0,
            viewer,
            done: false,
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn state(&self) -> &GameState {
        &self.timeline[self.cursor].state
    }

    fn is_human(&self, seat: usize) -> bool {
        self.config.seats.get(seat).is_some_and(|s| s == "human")
    }

    /// Names for completion: provinces, seats, actions, bots.
    pub fn words(&self) -> Vec<String> {
        let mut w: Vec<String> = self.engine.rules.map.provinces.iter().map(|p| p.name.clone()).collect();
        w.extend((0..self.config.players as usize).map(|s| self.engine.rules.seat_name(s).to_string()));
        w.extend(self.engine.rules.cards.actions.iter().map(|a| a.id.clone()));
        w.extend(["human", "greedy", "random", "god", "pass", "deck", "redraw", "done", "auto", "show", "clear", "bid"].map(String::from));
        w.extend(self.engine.rules.map.regions.iter().cloned());
        w
    }

    /// The prompt: where the game is and who acts.
    pub fn prompt(&self) -> String {
        let st = self.state();
        let r = &self.engine.rules.rules;
        let when = match st.phase {
            Phase::Setup | Phase::Draft | Phase::Preload => "setup".to_string(),
            Phase::GameOver => "game over".to_string(),
            Phase::Winter | Phase::Score => format!("Y{} {}", st.year + 1, r.calendar.winter),
            _ => format!("Y{} {}", st.year + 1, r.calendar.seasons.get(st.season as usize).map(|s| s.as_str()).unwrap_or("?")),
        };
        let who = match self.engine.actor(st) {
            Actor::Terminal => String::new(),
            Actor::Chance => " · chance".into(),
            Actor::Seat(s) => format!(" · {} to act", self.engine.rules.seat_name(s as usize)),
            Actor::Simultaneous(_) => " · planning".into(),
        };
        format!("[{when}{who}] > ")
    }

    fn commit(&mut self, entry: Entry, state: GameState, bots: Vec<Option<Box<dyn Bot>>>, added: Vec<String>) {
        self.timeline.truncate(self.cursor + 1);
        let fp = session::fingerprint(&state);
        self.timeline.push(Moment { state, bots, added, entry: Some((entry, fp)) });
        self.cursor += 1;
    }

    /// Everything that happened up to now, as transcript lines.
    pub fn lines(&self) -> Vec<&str> {
        self.timeline[..=self.cursor].iter().flat_map(|m| m.added.iter().map(|s| s.as_str())).collect()
    }

    /// Applies a decision; returns the transcript lines it made.
    fn decide(&mut self, d: Decision) -> Result<Vec<String>, String> {
        let mut st = self.state().clone();
        let asked = st.ask.as_ref().map(|a| a.kind.clone());
        let events = self.engine.apply(&mut st, &d).map_err(|e| e.to_string())?;
        let mut text = String::new();
        // Plans are secret until the reveal; the REPL says that one was made.
        if let Decision::Plan { seat, .. } = &d {
            text.push_str(&format!("  {} locks in a plan (secret until the reveal)\n", self.engine.rules.seat_name(*seat as usize)));
        }
        transcript::narrate(&self.engine, st.seats(), asked.as_deref(), &d, &events, &mut text);
        let lines: Vec<String> = text.lines().map(String::from).collect();
        let bots = clone_bots(&self.timeline[self.cursor].bots);
        if let Decision::Plan { seat, .. } = d {
            self.drafts[seat as usize] = None;
        }
        self.commit(Entry::Decide(d), st, bots, lines.clone());
        Ok(lines)
    }

    /// Lets bots and chance play until `until`, or until a human must act.
    fn advance(&mut self, until: Until) -> Result<String, String> {
        let mark = session::Mark::of(self.state());
        let mut out: Vec<String> = Vec::new();
        let mut steps = 0;
        while !mark.reached(until, self.state(), steps) {
            // Seats a person plays have no bot. The bots' generators move on
            // with the decision, so the moment keeps the advanced copies.
            let mut bots = clone_bots(&self.timeline[self.cursor].bots);
            let Some(d) = session::next_decision(&self.engine, self.state(), &mut bots) else { break };
            self.timeline[self.cursor].bots = bots;
            out.extend(self.decide(d)?);
            steps += 1;
        }
        let mut text = out.join("\n");
        let who = self.waiting();
        if !who.is_empty() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&who);
        }
        if steps == 0 && text.is_empty() {
            text = "nothing to do".into();
        }
        Ok(text)
    }

    /// Who must act now, in words.
    pub fn waiting(&self) -> String {
        let st = self.state();
        let name = |s: usize| self.engine.rules.seat_name(s).to_string();
        match self.engine.actor(st) {
            Actor::Terminal => {
                let won: Vec<String> = self.engine.standings(st).iter().filter(|(_, r)| *r == 1).map(|(s, _)| name(*s as usize)).collect();
                format!("the game is over: {} won", won.join(" and "))
            }
            Actor::Chance => String::new(),
            Actor::Seat(s) if self.is_human(s as usize) => match self.engine.legal(st) {
                Legal::Choose { prompt, options, .. } => {
                    let opts: Vec<String> = options.iter().enumerate().map(|(i, o)| format!("{}) {}", i + 1, self.engine.choice_name(*o))).collect();
                    format!("{} to decide: {prompt}\n  {}", name(s as usize), opts.join("  "))
                }
                _ => String::new(),
            },
            Actor::Seat(_) => String::new(),
            Actor::Simultaneous(seats) => {
                let humans: Vec<String> = seats.iter().filter(|&&s| self.is_human(s as usize)).map(|&s| name(s as usize)).collect();
                if humans.is_empty() {
                    String::new()
                } else {
                    format!(
                        "{} to plan: `plan ACTION PROVINCE` for each action, `plan bid ...`, then `plan done` (`plan auto` proposes one)",
                        humans.join(", ")
                    )
                }
            }
        }
    }

    fn viewed(&self) -> (GameState, bool, Option<usize>) {
        match self.viewer {
            Viewer::God => (self.state().clone(), true, None),
            Viewer::Seat(s) => (self.state().view(Some(s)), false, Some(s)),
        }
    }

    /// Runs one command line; returns what to print.
    pub fn exec(&mut self, line: &str) -> Result<String, String> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(String::new());
        }
        let (cmd, rest) = match line.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (line, ""),
        };
        if let Ok(n) = cmd.parse::<usize>() {
            return self.choose_number(n);
        }
        let args: Vec<&str> = rest.split_whitespace().collect();
        match cmd {
            "help" | "?" => Ok(help(args.first().copied())),
            "status" => Ok(self.status()),
            "step" | "s" => {
                let n = args.first().map(|a| a.parse::<usize>().map_err(|_| format!("step takes a number, not `{a}`"))).transpose()?.unwrap_or(1);
                self.advance(Until::Steps(n))
            }
            "next" | "phase" => self.advance(Until::Phase),
            "round" => self.advance(Until::Round),
            "winter" => self.advance(Until::Winter),
            "end" => self.advance(Until::End),
            "options" | "o" => Ok(self.options()),
            "choose" | "c" => {
                if rest.is_empty() {
                    return Err("choose what? (`options` lists them)".into());
                }
                let d = session::choice(&self.engine, self.state(), rest)?;
                self.decide_human(d)
            }
            "plan" => self.plan(&args),
            "board" => {
                let (st, _, _) = self.viewed();
                views::board(&self.engine, &st, args.first().copied())
            }
            "province" | "p" => {
                let p = session::province(&self.engine, rest)?;
                Ok(views::province(&self.engine, self.state(), p))
            }
            "player" => {
                let (st, god, viewer) = self.viewed();
                let seats: Vec<usize> = match args.first() {
                    Some(s) => vec![session::seat(&self.engine, &st, s)?],
                    None => (0..st.seats()).collect(),
                };
                Ok(seats.iter().map(|&s| views::player(&self.engine, &st, s, god, viewer)).collect::<Vec<_>>().join("\n"))
            }
            "tower" => {
                let (st, god, _) = self.viewed();
                Ok(views::tower(&self.engine, &st, god))
            }
            "events" => Ok(views::events(&self.engine, self.state())),
            "actions" => {
                let (st, _, _) = self.viewed();
                Ok(views::actions(&self.engine, &st))
            }
            "order" => Ok(views::order(&self.engine, self.state())),
            "log" => {
                let n = args.first().map(|a| a.parse::<usize>().map_err(|_| format!("log takes a number, not `{a}`"))).transpose()?.unwrap_or(30);
                let lines = self.lines();
                let start = lines.len().saturating_sub(n);
                Ok(lines[start..].join("\n"))
            }
            "view" => {
                let who = args.first().ok_or("view whom? a seat or `god`")?;
                if who.eq_ignore_ascii_case("god") {
                    self.viewer = Viewer::God;
                    Ok("god view: you see everything, including secret plans and the tower's levels".into())
                } else {
                    let s = session::seat(&self.engine, self.state(), who)?;
                    self.viewer = Viewer::Seat(s);
                    Ok(format!("viewing as {}", self.engine.rules.seat_name(s)))
                }
            }
            "seat" => {
                let [who, what] = args[..] else { return Err("usage: seat SEAT human|greedy|random".into()) };
                let s = session::seat(&self.engine, self.state(), who)?;
                let bot = make_bot(what, self.config.seed.wrapping_add(self.cursor as u64), s)?;
                self.config.seats[s] = what.to_string();
                self.timeline[self.cursor].bots[s] = bot;
                Ok(format!("{} is now played by {what}", self.engine.rules.seat_name(s)))
            }
            "undo" | "u" => {
                let n = args.first().and_then(|a| a.parse().ok()).unwrap_or(1usize);
                let k = n.min(self.cursor);
                if k == 0 {
                    return Err("nothing to undo".into());
                }
                self.cursor -= k;
                Ok(format!("undid {k}; now at entry {} of {}", self.cursor, self.timeline.len() - 1))
            }
            "redo" => {
                let n = args.first().and_then(|a| a.parse().ok()).unwrap_or(1usize);
                let k = n.min(self.timeline.len() - 1 - self.cursor);
                if k == 0 {
                    return Err("nothing to redo".into());
                }
                self.cursor += k;
                Ok(format!("redid {k}; now at entry {} of {}", self.cursor, self.timeline.len() - 1))
            }
            "history" => {
                let n = args.first().and_then(|a| a.parse().ok()).unwrap_or(usize::MAX);
                let entries: Vec<String> = (1..=self.cursor)
                    .map(|i| {
                        let (e, _) = self.timeline[i].entry.as_ref().unwrap();
                        format!("{i:>4}  {}", self.entry_text(e))
                    })
                    .collect();
                let start = entries.len().saturating_sub(n);
                Ok(if entries.is_empty() { "no decisions yet".into() } else { entries[start..].join("\n") })
            }
            "save" => self.save(Path::new(rest)),
            "load" => self.load(Path::new(rest)),
            "reload" => self.reload(),
            "lua" => {
                if rest.is_empty() {
                    return Err("lua what? e.g. lua return game.chests(1)".into());
                }
                let (st, _, _) = self.viewed();
                let code = if is_statement(rest) { rest.to_string() } else { format!("return {rest}") };
                self.engine.runtime().eval_readonly(&st, &code).map_err(|e| e.to_string())
            }
            "set" | "force" => {
                let mut st = self.state().clone();
                apply_edit(&self.engine, &mut st, line)?;
                let bots = clone_bots(&self.timeline[self.cursor].bots);
                let note = format!("  (what if) {line}");
                self.commit(Entry::Edit(line.to_string()), st, bots, vec![note.clone()]);
                Ok(format!("done: {line}"))
            }
            "quit" | "exit" | "q" => {
                self.done = true;
                Ok(String::new())
            }
            other => {
                let names: Vec<String> = COMMANDS.iter().map(|c| c.0.to_string()).collect();
                Err(format!("unknown command `{other}`{} (`help` lists them)", crate::rules::map::suggest(other, names.iter())))
            }
        }
    }

    fn entry_text(&self, e: &Entry) -> String {
        match e {
            Entry::Decide(d) => session::format_decision(&self.engine, d),
            Entry::Edit(l) => format!("edit: {l}"),
        }
    }

    fn status(&self) -> String {
        let st = self.state();
        let mut s = format!(
            "{}map {}, {} players, seed {}, rules {}\n",
            self.prompt().trim_end_matches("> "),
            self.engine.rules.map.name,
            st.seats(),
            self.config.seed,
            self.engine.rules.ruleset_name()
        );
        let seats: Vec<String> = self.config.seats.iter().enumerate().map(|(i, b)| format!("{} {b}", self.engine.rules.seat_name(i))).collect();
        s.push_str(&format!("seats: {}\n", seats.join(", ")));
        s.push_str(&format!(
            "viewing as: {}\n",
            match self.viewer {
                Viewer::God => "god (everything)".to_string(),
                Viewer::Seat(x) => self.engine.rules.seat_name(x).to_string(),
            }
        ));
        s.push_str(&format!("entries: {} (undo/redo move along them)", self.cursor));
        let w = self.waiting();
        if !w.is_empty() {
            s.push('\n');
            s.push_str(&w);
        }
        s
    }

    fn options(&self) -> String {
        let st = self.state();
        match self.engine.legal(st) {
            Legal::None => "the game is over".into(),
            Legal::Chance => "chance acts next: `step`".into(),
            Legal::Plan { seats } => {
                let names: Vec<&str> = seats.iter().map(|&s| self.engine.rules.seat_name(s as usize)).collect();
                let hand: Vec<String> = seats
                    .iter()
                    .filter(|&&s| self.is_human(s as usize))
                    .map(|&s| {
                        let cards: Vec<String> = self.engine.hand(st, s as usize).iter().map(|c| self.engine.card_name(*c)).collect();
                        format!("{}'s cards: {}", self.engine.rules.seat_name(s as usize), cards.join(", "))
                    })
                    .collect();
                let acts: Vec<&str> = self.engine.rules.cards.actions.iter().map(|a| a.id.as_str()).collect();
                format!("to plan: {}\nactions: {}\n{}", names.join(", "), acts.join(", "), hand.join("\n"))
            }
            Legal::Choose { seat, prompt, options, .. } => {
                let opts: Vec<String> = options.iter().enumerate().map(|(i, o)| format!("  {}) {}", i + 1, self.engine.choice_name(*o))).collect();
                format!("{}: {prompt}\n{}", self.engine.rules.seat_name(seat as usize), opts.join("\n"))
            }
        }
    }

    fn choose_number(&mut self, n: usize) -> Result<String, String> {
        let Legal::Choose { seat, options, .. } = self.engine.legal(self.state()) else {
            return Err("nobody is choosing from numbered options now".into());
        };
        let choice = *options.get(n.wrapping_sub(1)).ok_or_else(|| format!("choose 1 to {}", options.len()))?;
        self.decide_human(Decision::Choose { seat, choice })
    }

    fn decide_human(&mut self, d: Decision) -> Result<String, String> {
        let mut out = self.decide(d)?.join("\n");
        let w = self.waiting();
        if !w.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&w);
        }
        Ok(out)
    }

    /// The human seat that plans now (the viewer's, else the first).
    fn planner(&self) -> Result<usize, String> {
        let Actor::Simultaneous(seats) = self.engine.actor(self.state()) else {
            return Err("nobody plans now".into());
        };
        let humans: Vec<usize> = seats.iter().map(|&s| s as usize).filter(|&s| self.is_human(s)).collect();
        if let Viewer::Seat(v) = self.viewer
            && humans.contains(&v)
        {
            return Ok(v);
        }
        humans.first().copied().ok_or_else(|| "no human seat plans now (`step` lets the bots plan)".into())
    }

    fn plan(&mut self, args: &[&str]) -> Result<String, String> {
        let s = self.planner()?;
        let n = self.engine.rules.cards.actions.len();
        let name = self.engine.rules.seat_name(s).to_string();
        let draft = self.drafts[s].get_or_insert_with(|| Plan { slots: vec![None; n], bid: None });
        match args {
            [] | ["show"] => {}
            ["clear"] => *draft = Plan { slots: vec![None; n], bid: None },
            ["auto"] => {
                let mut b = crate::bots::Greedy::new(self.config.seed ^ s as u64);
                let view = self.timeline[self.cursor].state.view(Some(s));
                let plan = b.plan(&self.engine, &view, s);
                self.drafts[s] = Some(plan);
            }
            ["done"] => {
                let plan = draft.clone();
                self.engine.check_plan(self.state(), s, &plan).map_err(|e| e.to_string())?;
                self.decide(Decision::Plan { seat: s as u8, plan })?;
                let mut text = format!("{name}'s plan is locked in");
                let w = self.waiting();
                if !w.is_empty() {
                    text.push('\n');
                    text.push_str(&w);
                }
                return Ok(text);
            }
            ["bid", v] => {
                draft.bid = if *v == "-" { None } else { Some(session::card(&self.engine, v)?) };
            }
            // A whole plan at once, as history shows it: plan taxes:Settsu castle:Noto bid:2
            items if items.iter().all(|i| i.contains(':')) => {
                let line = format!("{} plan {}", name, items.join(" "));
                let Decision::Plan { plan, .. } = session::parse_decision(&self.engine, self.state(), &line)? else {
                    unreachable!("a plan line reads as a plan")
                };
                for card in plan.slots.iter().chain(std::iter::once(&plan.bid)).flatten() {
                    if let Card::Province(p) = card
                        && self.state().provinces[*p as usize].owner != Some(s as u8)
                    {
                        return Err(format!("{name} does not hold {}", self.engine.rules.province_name(*p as usize)));
                    }
                }
                self.drafts[s] = Some(plan);
            }
            [action, v] => {
                let a = self.engine.rules.action_index(action).ok_or_else(|| {
                    let ids: Vec<String> = self.engine.rules.cards.actions.iter().map(|a| a.id.clone()).collect();
                    format!("no action `{action}`{} (actions: {})", crate::rules::map::suggest(action, ids.iter()), ids.join(", "))
                })?;
                let c = if *v == "-" { None } else { Some(session::card(&self.engine, v)?) };
                if let Some(Card::Province(p)) = c
                    && self.state().provinces[p as usize].owner != Some(s as u8)
                {
                    return Err(format!("{name} does not hold {}", self.engine.rules.province_name(p as usize)));
                }
                let draft = self.drafts[s].as_mut().unwrap();
                // A card can lie on one space only: move it.
                if let Some(card) = c {
                    for slot in draft.slots.iter_mut() {
                        if *slot == Some(card) {
                            *slot = None;
                        }
                    }
                    if draft.bid == Some(card) {
                        draft.bid = None;
                    }
                }
                draft.slots[a] = c;
            }
            _ => {
                return Err(
                    "usage: plan [show|auto|clear|done] | plan ACTION PROVINCE|- | plan bid VALUE|PROVINCE|- | plan ACTION:PROVINCE... bid:VALUE".into()
                );
            }
        }
        let draft = self.drafts[s].as_ref().unwrap();
        Ok(format!("{name}'s plan (not locked in): {}", views::plan_text(&self.engine, draft)))
    }

    fn save(&self, path: &Path) -> Result<String, String> {
        if path.as_os_str().is_empty() {
            return Err("save where? e.g. save game.yaml".into());
        }
        let st = self.state();
        let entries: Vec<SavedEntry> = (1..=self.cursor)
            .map(|i| {
                let (e, fp) = self.timeline[i].entry.as_ref().unwrap();
                match e {
                    Entry::Decide(d) => SavedEntry { decide: Some(session::format_decision(&self.engine, d)), edit: None, check: fp.clone() },
                    Entry::Edit(l) => SavedEntry { decide: None, edit: Some(l.clone()), check: fp.clone() },
                }
            })
            .collect();
        let d = &self.config.data;
        let file = SaveFile {
            shogun_lab_save: 1,
            ruleset: self.engine.rules.ruleset_name(),
            map: d.map.clone(),
            rules: d.rules.as_ref().map(|p| p.display().to_string()),
            variants: d.variants.clone(),
            tower: d.tower.clone(),
            setup: match st.setup {
                SetupMode::Preset => "preset".into(),
                SetupMode::Draft => "draft".into(),
            },
            players: self.config.players,
            seed: self.config.seed,
            seats: self.config.seats.clone(),
            entries,
        };
        let text = serde_yaml::to_string(&file).map_err(|e| e.to_string())?;
        // Write beside and rename: a failed save never leaves half a file.
        let tmp = path.with_extension("yaml.partial");
        std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(format!("saved {} entries to {}", self.cursor, path.display()))
    }

    fn load(&mut self, path: &Path) -> Result<String, String> {
        if path.as_os_str().is_empty() {
            return Err("load what? e.g. load game.yaml".into());
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file = crate::rules::yaml::parse::<SaveFile>(path, &text).map_err(|d| d.to_string())?.value;
        let mut data = self.config.data.clone();
        data.map = file.map.clone();
        data.rules = file.rules.as_ref().map(Into::into);
        data.variants = file.variants.clone();
        data.tower = file.tower.clone();
        data.setup = Some(file.setup.clone());
        let config = Config { data, players: file.players, seed: file.seed, seats: file.seats.clone() };
        let fresh = Repl::new(config)?;
        let mut entries = Vec::new();
        for (i, e) in file.entries.iter().enumerate() {
            match (&e.decide, &e.edit) {
                (Some(d), None) => entries.push((Some(d.clone()), None, e.check.clone())),
                (None, Some(l)) => entries.push((None, Some(l.clone()), e.check.clone())),
                _ => return Err(format!("{}: entry {}: exactly one of `decide` or `edit`", path.display(), i + 1)),
            }
        }
        let viewer = self.viewer;
        *self = fresh;
        self.viewer = viewer;
        let report = self.replay_text(&entries);
        Ok(format!("loaded {} ({} entries, rules {}){}", path.display(), file.entries.len(), self.engine.rules.ruleset_name(), report))
    }

    /// Replays entries given as text; reports divergence and illegality.
    fn replay_text(&mut self, entries: &[(Option<String>, Option<String>, String)]) -> String {
        let mut diverged: Option<usize> = None;
        for (i, (d, e, check)) in entries.iter().enumerate() {
            let result = match (d, e) {
                (Some(d), _) => session::parse_decision(&self.engine, self.state(), d).and_then(|d| self.decide(d).map(|_| ())),
                (_, Some(l)) => {
                    let mut st = self.state().clone();
                    apply_edit(&self.engine, &mut st, l).map(|_| {
                        let bots = clone_bots(&self.timeline[self.cursor].bots);
                        self.commit(Entry::Edit(l.clone()), st, bots, vec![format!("  (what if) {l}")]);
                    })
                }
                _ => Ok(()),
            };
            let what = d.clone().or_else(|| e.clone()).unwrap_or_default();
            if let Err(msg) = result {
                let mut s = String::new();
                if let Some(k) = diverged {
                    s.push_str(&format!("\nthe replay diverged at entry {} (the position after it differs from the recorded one)", k + 1));
                }
                s.push_str(&format!(
                    "\nentry {} is no longer legal: `{what}`: {msg}\nreplayed {i} of {} entries; the game stands after entry {i}",
                    i + 1,
                    entries.len()
                ));
                return s;
            }
            if diverged.is_none() && session::fingerprint(self.state()) != *check {
                diverged = Some(i);
            }
        }
        match diverged {
            Some(k) => {
                let what = entries[k].0.clone().or_else(|| entries[k].1.clone()).unwrap_or_default();
                format!("\nthe replay diverged at entry {} (`{what}`): the position after it differs from the recorded one; all entries stayed legal", k + 1)
            }
            None => "\nthe replay matches the recorded game".into(),
        }
    }

    fn reload(&mut self) -> Result<String, String> {
        let engine = self.config.data.engine().map_err(|e| format!("the rules did not load; the previous rules stay active:\n{e}"))?;
        let entries: Vec<(Option<String>, Option<String>, String)> = (1..=self.cursor)
            .map(|i| {
                let (e, fp) = self.timeline[i].entry.as_ref().unwrap();
                match e {
                    Entry::Decide(d) => (Some(session::format_decision(&self.engine, d)), None, fp.clone()),
                    Entry::Edit(l) => (None, Some(l.clone()), fp.clone()),
                }
            })
            .collect();
        let setup = self.state().setup;
        let state = engine.new_game_with(self.config.players, self.config.seed, setup).map_err(|e| e.to_string())?;
        let bots = self.config.seats.iter().enumerate().map(|(s, n)| make_bot(n, self.config.seed, s)).collect::<Result<Vec<_>, _>>()?;
        let header = vec![format!("# ruleset: {}", engine.rules.ruleset_name())];
        self.engine = engine;
        self.timeline = vec![Moment { state, bots, added: header, entry: None }];
        self.cursor = 0;
        let report = self.replay_text(&entries);
        Ok(format!("reloaded the rules ({}) and replayed {} entries{}", self.engine.rules.ruleset_name(), entries.len(), report))
    }
}

/// Whether a Lua chunk is a statement (else it is evaluated as `return ...`).
fn is_statement(code: &str) -> bool {
    let first = code.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or_default();
    ["return", "local", "for", "if", "while", "do", "function", "repeat"].contains(&first) || code.contains('\n') || {
        let eq = code.replace("==", "").replace("~=", "").replace("<=", "").replace(">=", "");
        eq.contains('=')
    }
}

/// Applies a what-if edit line (`set ...` or `force ...`).
pub fn apply_edit(engine: &Engine, st: &mut GameState, line: &str) -> Result<(), String> {
    let mut words = line.split_whitespace();
    let cmd = words.next().unwrap_or_default();
    match cmd {
        "force" => {
            let mut pile = Pile::default();
            let mut any = false;
            for kv in words {
                let (k, v) = kv.split_once('=').ok_or_else(|| format!("`{kv}`: write SEAT=n or peasants=n"))?;
                let n: u16 = v.parse().map_err(|_| format!("`{kv}`: n must be a number"))?;
                if k == "peasants" {
                    pile.peasants = n;
                } else {
                    pile.seats[session::seat(engine, st, k)?] = n;
                }
                any = true;
            }
            if !any {
                return Err("usage: force SEAT=n... [peasants=n]".into());
            }
            session::force(st, pile);
            Ok(())
        }
        "set" => {
            let target = words.next().ok_or("usage: set PROVINCE|SEAT key=value...")?;
            let pairs: Vec<(&str, &str)> = words.map(|kv| kv.split_once('=').ok_or_else(|| format!("`{kv}`: write key=value"))).collect::<Result<_, _>>()?;
            if pairs.is_empty() {
                return Err("set what? e.g. set Settsu armies=3".into());
            }
            if let Ok(s) = session::seat(engine, st, target) {
                let (mut chests, mut rice, mut points) = (None, None, None);
                for (k, v) in pairs {
                    let n: i64 = v.parse().map_err(|_| format!("`{k}={v}`: a number is expected"))?;
                    match k {
                        "chests" => chests = Some(n),
                        "rice" => rice = Some(n),
                        "points" => points = Some(n),
                        other => return Err(format!("a seat has chests, rice and points, not `{other}`")),
                    }
                }
                return session::set_seat(st, s, chests, rice, points);
            }
            let p = session::province(engine, target)?;
            let (mut owner, mut armies, mut unrest, mut buildings) = (None, None, None, None);
            for (k, v) in pairs {
                match k {
                    "owner" => owner = Some(session::owner(engine, st, v)?),
                    "armies" => armies = Some(v.parse().map_err(|_| format!("`armies={v}`: a number is expected"))?),
                    "unrest" => unrest = Some(v.parse().map_err(|_| format!("`unrest={v}`: a number is expected"))?),
                    "buildings" => buildings = Some(if v == "-" || v == "none" { Vec::new() } else { v.split(',').map(String::from).collect::<Vec<_>>() }),
                    other => return Err(format!("a province has owner, armies, unrest and buildings, not `{other}`")),
                }
            }
            session::set_province(engine, st, p, owner, armies, unrest, buildings.as_deref())
        }
        _ => Err(format!("`{cmd}` is not an edit")),
    }
}

pub fn help(topic: Option<&str>) -> String {
    match topic {
        None => {
            let mut s = String::from("commands (`help COMMAND` for more; a number alone chooses that option):\n");
            for (name, usage, what, _) in COMMANDS {
                let _ = name;
                s.push_str(&format!("  {usage:<44} {what}\n"));
            }
            s.trim_end().to_string()
        }
        Some(t) => match COMMANDS.iter().find(|c| c.0 == t) {
            Some((_, usage, what, example)) => format!("{usage}\n  {what}\n  example: {example}"),
            None => {
                let names: Vec<String> = COMMANDS.iter().map(|c| c.0.to_string()).collect();
                format!("no command `{t}`{}", crate::rules::map::suggest(t, names.iter()))
            }
        },
    }
}
