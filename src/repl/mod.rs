//! The REPL: step through a game, play any seat, undo, save, reload the
//! rules, ask "what if". `Repl::exec` runs one command and returns what to
//! print; `term.rs` wraps it in a line editor (or reads a script).

mod complete;
mod decide;
mod flow;
pub mod picture;
mod plan;
mod term;
pub mod views;

pub use term::{banner, run};

use std::path::Path;

use crate::core::*;
use crate::engine::{CheckMode, Engine, EngineError};
use crate::play::{Edit, Entry, Game, GameSpec, Notation, PlayError, Player, SaveFile, SavedEntry, Stop, Until};

/// What a game in the REPL is made from.
#[derive(Clone, Debug)]
pub struct Config {
    pub spec: GameSpec,
    pub players: u8,
    pub seed: u64,
    /// Per seat: `human` or a bot name.
    pub seats: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    Seat(Seat),
    God,
}

pub struct Repl {
    pub config: Config,
    game: Game,
    /// Plans being edited by human seats (kept after `plan done`, so an
    /// `undo` brings the draft back) and the round each belongs to.
    drafts: Vec<Option<Plan>>,
    draft_when: Vec<(u8, u8)>,
    viewer: Viewer,
    /// The rules in force before the last `reload` (what `lab` compares with).
    before_reload: Option<crate::rules::Rules>,
    /// The whole log when a `reload` could not replay all of it: the next
    /// `reload` replays this one.
    /// (with the position the game stood at).
    kept_log: Option<(Vec<SavedEntry>, usize)>,
    /// After a human decision, play on to the next one (`auto on|off`).
    auto: bool,
    /// Hot seat: the seat the keyboard was just passed to.
    handover: Option<Seat>,
    /// The commands that changed the game or a draft, in the order made
    /// (what `undo` takes back, one a time), and those undone (`redo`).
    steps: Vec<flow::Step>,
    undone: Vec<flow::Step>,
    /// Set by `quit`.
    pub done: bool,
    /// Colour in the text it returns (`board compact`): set at a terminal
    /// (standard output a terminal, no NO_COLOR); plain text otherwise.
    pub colour: bool,
    /// The terminal's width in columns (`help` wraps to it); `None`: not
    /// a terminal, lines as they are.
    pub width: Option<usize>,
    /// Simulated throws behind each battle's odds in a question and in
    /// `odds` (`play --odds-trials`; `preview::TRIALS` unless set).
    pub odds_trials: u32,
    /// The log (cursor and length) as last saved or loaded: a game that
    /// moved since is unsaved (`unsaved`).
    saved: (usize, usize),
    /// Set by a command that fails after it changed the game for good (a
    /// person's decision that took effect, the bots' play after it
    /// failing): `exec` keeps what it did instead of taking it back.
    kept_failure: bool,
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
        "plan [show|auto [BOT]|clear|done] | plan ACTION PROVINCE|- | plan bid VALUE|PROVINCE|- | plan ACTION:PROVINCE... bid:VALUE",
        "edit the secret plan of the human seat to plan (one space, or several at once: only the spaces named change; a card named twice is refused, one already on another space moves there), then lock it in with `plan done` (`plan done anyway` for a plan with no province card); `plan auto` fills in the plan the default players (the planner) would make from your view, `plan auto greedy` another bot's; each edit shows the ledger: the war chests action by action in the order of the row (the rules' own handlers on your view; the event and specials are not counted before they are drawn), what would be skipped and why, the bids you may make and what is not placed yet; after `undo` the draft comes back",
        "plan taxes Settsu",
    ),
    (
        "board",
        "board [region] | board compact [region] | board --svg FILE",
        "provinces by region: owner, armies, unrest, buildings; `compact`: a few lines a region, each province in its owner's colour at a terminal (`Settsu A2 !1 +Ca`: A's 2 armies, unrest 1, a castle); `--svg FILE` writes a picture of the board as you see it (open it in a browser: provinces where they lie, borders, dashed sea routes, owners' colours, armies, buildings, unrest, regions tinted)",
        "board --svg board.svg",
    ),
    ("province", "province NAME", "one province in detail, with its neighbours' owners and armies", "province Settsu"),
    (
        "odds",
        "odds PROVINCE [N] [from SOURCE]",
        "the chances of attacking PROVINCE with N armies (default and most: all the rules let go from there now) from SOURCE or the plan's province next to it, by the rules' battle handler from the tower's contents and tray now; a seat counts the cubes inside the tower by colour (all pieces are public) but not their levels (god view: the levels as they are)",
        "odds Mino 2",
    ),
    ("player", "player [SEAT]", "a player's supply, chests, rice, points, provinces (and plan, if you may see it)", "player B"),
    ("tower", "tower", "the tower's contents and the tray", "tower"),
    ("events", "events", "the event in force and the year's others", "events"),
    ("actions", "actions", "the action-card row (face-down cards stay hidden)", "actions"),
    ("order", "order", "turn-order spaces, specials, bids and turn order", "order"),
    (
        "auto",
        "auto [on|off]",
        "on (the default): after a human decision the bots and chance play on to the next human decision; off: the game waits after every decision",
        "auto off",
    ),
    (
        "winter?",
        "winter?",
        "the winter forecast: rice held and needed per seat, and what the winter would do under each event that may still be the year's last (the rules' winter handler on what you know)",
        "winter?",
    ),
    ("summary", "summary", "at the end: standings, points by source, battles won and lost, provinces taken and lost per seat", "summary"),
    ("log", "log [n]", "the last n lines of what happened (default 30)", "log 50"),
    ("view", "view SEAT|god", "whose eyes the displays use; god shows everything (and says so)", "view god"),
    ("seat", "seat SEAT human|BOT[:OPTIONS]", "who plays a seat from now on: a person or a bot (the bots and their options follow)", "seat B mcts:400"),
    (
        "undo",
        "undo [n]",
        "take back the last n commands that changed the game or a plan draft, each whole, and say what they were: a plan edit, a decision with the bots' play that followed it, a `step`, a what-if edit (after `load` or `reload`, entries of the log: to before your last decision)",
        "undo 3",
    ),
    ("redo", "redo [n]", "bring back the last n commands `undo` took back, as they were", "redo"),
    ("history", "history [n]", "the log of decisions and edits, numbered", "history 20"),
    ("save", "save FILE", "save the configuration and the log (YAML)", "save game.yaml"),
    ("load", "load FILE", "load a saved game and replay it, whole or not at all (a problem is said at its line in the file)", "load game.yaml"),
    ("reload", "reload", "re-read the rules (YAML and Lua) from disk and replay the log under them", "reload"),
    (
        "lab",
        "lab [GAMES] [--against ARM]... [--bots B,...] [--seed S] [--jobs J]",
        "paired games of the rules now loaded against the rules before the last `reload` (or against each ARM: base, a variant, --variant X, --tower T); win rates, means, a verdict; with neither, refused before a game is played",
        "lab 300 --against base",
    ),
    (
        "lua",
        "lua CODE",
        "evaluate Lua against a read-only view of the game: every value shown (a long output cut, with a note), print works, seat(NAME) and province(NAME) help",
        "lua province('Settsu')",
    ),
    (
        "set",
        "set PROVINCE key=value... | set SEAT key=value... | set tray|tower [level=N] SEAT=n... [peasants=n]",
        "what if: edit the position (owner, armies, unrest, buildings; chests, rice, points, supply; the tray's or a tower level's cubes); pieces move, never appear",
        "set Settsu owner=B armies=3 unrest=1",
    ),
    ("force", "force SEAT=n... [peasants=n]", "what if: force the next tower result", "force A=3 B=1 peasants=1"),
    (
        "perform",
        "perform SEAT ACTION PROVINCE [event=ID] [special=ID]",
        "what if: in place of this season's round (its plans and bids are dropped: stage it before the bids are revealed), SEAT carries out ACTION in PROVINCE alone, with that event and special in force; play goes on from the round's end",
        "perform A attack_a Omi event=5",
    ),
    ("quit", "quit", "leave", "quit"),
];

/// The first lines of every save file.
pub const SAVE_HEADER: &str = "\
# shogun-lab save: the game's configuration and every decision and edit.
# This is a god view: it holds every seat's plans in clear, face-down cards
# included. Do not pass it to a player whose opponents' plans are secret.
";

impl Repl {
    pub fn new(config: Config) -> Result<Repl, String> {
        let engine = config.spec.engine()?;
        Repl::with_engine(config, engine)
    }

    /// [`Repl::new`] with the rules of `config.spec` loaded already.
    pub fn with_engine(config: Config, engine: Engine) -> Result<Repl, String> {
        if config.seats.len() != config.players as usize {
            return Err(format!("{} seats given for {} players", config.seats.len(), config.players));
        }
        let setup = config.spec.setup_mode(&engine, config.players);
        let mut game = Game::new(engine, config.players, config.seed, setup, &config.seats).map_err(|e| e.to_string())?;
        game.verbose = true;
        // A person at the prompt: play on to his next decision.
        Ok(Repl { auto: true, ..Repl::from_game(config, game) })
    }

    /// A REPL on a game made elsewhere (a scenario's).
    pub fn from_game(config: Config, game: Game) -> Repl {
        let viewer = config.seats.iter().position(|s| s == "human").map(|s| Viewer::Seat(Seat::new(s))).unwrap_or(Viewer::God);
        Repl {
            drafts: vec![None; config.players as usize],
            draft_when: vec![(0, 0); config.players as usize],
            config,
            game,
            viewer,
            before_reload: None,
            kept_log: None,
            auto: false,
            handover: None,
            steps: Vec::new(),
            undone: Vec::new(),
            done: false,
            colour: false,
            width: None,
            odds_trials: crate::play::preview::TRIALS,
            saved: (0, 0),
            kept_failure: false,
        }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn game_mut(&mut self) -> &mut Game {
        &mut self.game
    }

    /// The game, giving up the REPL (the fuzzer keeps the engine for the
    /// next input's game).
    pub fn into_game(self) -> Game {
        self.game
    }

    pub fn engine(&self) -> &Engine {
        &self.game.engine
    }

    pub fn state(&self) -> &GameState {
        self.game.state()
    }

    fn notation(&self) -> Notation<'_> {
        self.game.notation()
    }

    fn is_human(&self, seat: Seat) -> bool {
        self.game.players().get(seat.index()).is_some_and(Player::is_human)
    }

    /// The prompt: where the game is and who acts.
    pub fn prompt(&self) -> String {
        let st = self.state();
        let r = &self.engine().rules.rules;
        let when = match st.phase {
            Phase::Setup | Phase::Draft | Phase::Preload => "setup".to_string(),
            Phase::GameOver => "game over".to_string(),
            Phase::Winter | Phase::Score => format!("Y{} {}", st.year + 1, r.calendar.winter),
            _ => format!("Y{} {}", st.year + 1, r.calendar.seasons.get(st.season as usize).map(|s| s.as_str()).unwrap_or("?")),
        };
        let who = match self.engine().actor(st) {
            Actor::Terminal => String::new(),
            Actor::Chance => " · chance".into(),
            Actor::Seat(s) => format!(" · {} to act", self.engine().rules.seat_name(s)),
            Actor::Simultaneous(_) => " · planning".into(),
        };
        let god = if self.viewer == Viewer::God { " · god view" } else { "" };
        format!("[{when}{who}{god}] > ")
    }

    /// Whose eyes the outputs use: `None` is the god view.
    fn eyes(&self) -> Option<Seat> {
        match self.viewer {
            Viewer::God => None,
            Viewer::Seat(s) => Some(s),
        }
    }

    /// What the viewer may read of everything that happened up to now.
    pub fn lines(&self) -> Vec<&str> {
        self.game.lines_seen(0, self.eyes())
    }

    /// What the viewer may read of the entries after `mark` (a cursor).
    fn since(&self, mark: usize) -> Vec<String> {
        self.game.lines_seen(mark + 1, self.eyes()).into_iter().map(String::from).collect()
    }

    /// Applies a decision; returns the lines it made that the viewer may read.
    fn decide(&mut self, d: Decision) -> Result<Vec<String>, String> {
        let mark = self.game.cursor();
        if let Err(e) = self.game.decide(d.clone()) {
            return Err(self.failure(e, Some(&d), "nothing changed (fix the rules and `reload`, then decide again)"));
        }
        Ok(self.since(mark))
    }

    /// Lets bots and chance play until `until`, or until a human must act.
    fn advance(&mut self, until: Until) -> Result<String, String> {
        self.advance_or(until, &|_| "nothing changed: the command was taken back whole".to_string())
    }

    /// [`Repl::advance`]; `outcome` says what stands when a decision fails
    /// (the caller keeps or takes back what was done).
    pub(super) fn advance_or(&mut self, until: Until, outcome: &dyn Fn(&Repl) -> String) -> Result<String, String> {
        let mark = self.game.cursor();
        let (_, stop) = match self.game.advance(until) {
            Ok(done) => done,
            Err(PlayError::PlayingOn { decision, why }) => return Err(self.played_on_failure(*why, &decision, &outcome(self))),
            Err(e) => return Err(self.failure(e, None, &outcome(self))),
        };
        let out = self.since(mark);
        let mut text = out.join("\n");
        let who = self.waiting();
        if !who.is_empty() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&who);
        }
        if out.is_empty() && text.is_empty() && stop != Stop::Reached {
            text = "nothing to do".into();
        }
        Ok(text)
    }

    /// A decision chance or a bot made while the game was played on
    /// failed (`d`, at the position the game stands at): whose it was, what
    /// it was as the viewer may see it, why, and `outcome` (what stands).
    fn played_on_failure(&self, e: PlayError, d: &Decision, outcome: &str) -> String {
        if self.forced_failure(&e, Some(d)).is_some() {
            return self.failure(e, Some(d), outcome);
        }
        let n = self.notation();
        let whose = match d {
            Decision::Chance => "chance's decision".to_string(),
            Decision::Plan { seat, .. } | Decision::Choose { seat, .. } => {
                let who = self.game.players().get(seat.index()).map_or("a bot", |p| p.name());
                format!("{}'s decision (the {who} bot)", n.seat_name(*seat))
            }
        };
        let (shown, hide) = self.game.text_seen(&n.text(d), self.eyes());
        let why = if hide { "(the reason is not shown: it would tell what the face-down cards are)".to_string() } else { e.to_string() };
        let doing = if hide { None } else { self.game.engine.failure_context(self.state(), d) };
        let doing = doing.map(|x| format!(", in the play it set going, while {x}")).unwrap_or_default();
        format!("the rules failed while applying {whose} `{shown}`{doing}: {why}\n{outcome}")
    }

    /// A forced throw the throw cannot honour (the force is checked when
    /// typed only against what any throw could land): the force as typed,
    /// the decision that met it and the rules' message, when `e` is that.
    fn forced_failure(&self, e: &PlayError, d: Option<&Decision>) -> Option<(String, Decision, String)> {
        let st = self.state();
        let (PlayError::Engine(EngineError::Script(why)), Some(want)) = (e.reason(), st.forced_throws.first()) else { return None };
        let engine = &self.game.engine;
        let d = d.cloned().or_else(|| crate::play::driver::next_decision(engine, st, &mut self.game.players().to_vec()))?;
        let mut free = st.clone();
        free.forced_throws.clear();
        if engine.apply(&mut free, &d).is_err() {
            return None;
        }
        Some((self.notation().text(&Edit::Force(*want)), d, why.message.clone()))
    }

    /// Why a decision failed, in words, then `outcome` (what stands). A
    /// forced throw the throw cannot honour is named as such, without the
    /// rules' traceback: the same decision, `d` or the bot's next, goes
    /// through on a copy without the force. The caller puts the timeline
    /// back (`exec`) or keeps it, as `outcome` says.
    fn failure(&self, e: PlayError, d: Option<&Decision>, outcome: &str) -> String {
        let Some((force, d, why)) = self.forced_failure(&e, d) else {
            // A rule failing in the play a legal decision set going: what
            // it was carrying out, and that the decision did not stand.
            if let (Some(d), PlayError::Engine(EngineError::Script(_) | EngineError::Broken(_))) = (d, e.reason())
                && let Some(doing) = self.game.engine.failure_context(self.state(), d)
            {
                return format!(
                    "`{}` is legal, but the rules failed in the play it sets going, while {doing}: {e}\nthe decision did not take effect either (a decision and the play after it, up to the next question, are one move): {outcome}",
                    self.notation().text(d)
                );
            }
            return e.to_string();
        };
        format!(
            "`{force}` cannot be honoured by the throw of `{}`: {why}; {outcome}, and the force stays queued for the next throw (`undo` back past the `force` takes it back)",
            self.notation().text(&d)
        )
    }

    /// Who must act now, in words.
    pub fn waiting(&self) -> String {
        let st = self.state();
        let name = |s: Seat| self.notation().seat_name(s);
        match self.game.engine.actor(st) {
            Actor::Terminal => match self.game.engine.standings(st) {
                Ok(ranks) => {
                    let won: Vec<&str> = ranks.iter().filter(|(_, r)| *r == 1).map(|(s, _)| name(*s)).collect();
                    format!("the game is over: {} won", won.join(" and "))
                }
                Err(e) => format!("the game is over; the rules could not rank the players: {e}"),
            },
            Actor::Chance => String::new(),
            Actor::Seat(s) if self.is_human(s) => match self.game.engine.legal(st) {
                Legal::Choose { prompt, options, .. } => {
                    let opts = self.option_lines(&options);
                    let long = opts.iter().any(|o| o.contains(": "));
                    format!("{} to decide: {prompt}\n  {}", name(s), opts.join(if long { "\n  " } else { "  " }))
                }
                _ => String::new(),
            },
            Actor::Seat(_) => String::new(),
            Actor::Simultaneous(seats) => {
                let humans: Vec<&str> = seats.iter().filter(|&&s| self.is_human(s)).map(|&s| name(s)).collect();
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

    /// The game as the viewer may see it (`GameState::view`, the one
    /// place a seat's view is made; the god view is the state itself).
    pub(super) fn viewed(&self) -> GameState {
        self.state().view(self.eyes())
    }

    /// Runs one command line; returns what to print. In hot-seat play the
    /// view then follows the human who must act; when the game ends, the
    /// summary follows.
    pub fn exec(&mut self, line: &str) -> Result<String, String> {
        let was_over = self.state().phase == Phase::GameOver;
        let at = (self.game.cursor(), self.game.len());
        // All or nothing: a command that fails part way (a bot's decision
        // failing after others were made) leaves the timeline as it was.
        let checkpoint = self.game.checkpoint();
        let mark = self.mark();
        let mut text = match self.exec_command(line) {
            Ok(text) => text,
            // A person's decision that took effect before the bots' play
            // after it failed stays (the message says so), as one step.
            Err(e) if std::mem::take(&mut self.kept_failure) => {
                self.record(line, mark);
                return Err(e);
            }
            Err(e) => {
                self.game.rollback(checkpoint);
                return Err(e);
            }
        };
        self.record(line, mark);
        let mut more = Vec::new();
        // The command took effect: from here on nothing is an error. A
        // summary that cannot be made (its replay of the game failing: a
        // call over the time limit) is said in the output.
        if !was_over && self.state().phase == Phase::GameOver {
            more.push(self.summary().unwrap_or_else(|e| format!("the game is over; the summary could not be made: {e} (`summary` tries again)")));
        }
        let before = self.waiting();
        if at != (self.game.cursor(), self.game.len())
            && let Some(pause) = self.follow_the_actor()
        {
            // Who must act is said again, in the next player's view.
            if !before.is_empty() && text.ends_with(&before) {
                text.truncate(text.len() - before.len());
                text.truncate(text.trim_end().len());
            }
            more.push(pause);
            more.push(self.waiting());
        }
        for m in more.into_iter().filter(|m| !m.is_empty()) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&m);
        }
        Ok(text)
    }

    /// Runs one command: the first word names it (a number alone chooses
    /// that option; an answer alone answers the pending question).
    fn exec_command(&mut self, line: &str) -> Result<String, String> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(String::new());
        }
        let (cmd, rest) = match line.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (line, ""),
        };
        if cmd.parse::<usize>().is_ok() && rest.is_empty() {
            return self.choose(cmd);
        }
        let args: Vec<&str> = rest.split_whitespace().collect();
        match cmd {
            "help" | "?" => Ok(help(args.first().copied(), self.width)),
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
            "choose" | "c" if rest.is_empty() => Err("choose what? (`options` lists them)".into()),
            "choose" | "c" => self.choose(rest),
            "plan" => self.plan(&args),
            "odds" => self.odds(&args),
            "auto" => self.auto_command(&args),
            "winter?" => self.winter_forecast(),
            "summary" => self.summary(),
            "board" => self.board(&args),
            "province" | "p" | "player" | "tower" | "events" | "actions" | "order" | "log" => self.look(cmd, rest, &args),
            "view" => self.view(&args),
            "seat" => self.seat(&args),
            "undo" | "u" | "redo" | "history" => self.timeline(cmd, &args),
            "save" => self.save(Path::new(rest)),
            "load" => self.load(Path::new(rest)),
            "reload" => self.reload(),
            "lab" => self.lab(&args),
            "lua" if rest.is_empty() => Err("lua what? e.g. lua return game.chests(1)".into()),
            "lua" => {
                let st = self.viewed();
                self.game.engine.eval_lua(&st, rest).map_err(|e| e.to_string())
            }
            "set" | "force" | "perform" => {
                let edit: Edit = self.notation().parse(line).map_err(|e| e.to_string())?;
                let mark = self.game.cursor();
                self.game.edit(edit).map_err(|e| e.to_string())?;
                // What a staged action did, as the viewer may see it (an
                // edit of the position has nothing to tell), without the
                // log's echo of the command.
                let mut told = if cmd == "perform" { self.since(mark) } else { Vec::new() };
                told.retain(|l| !l.starts_with(crate::play::timeline::WHAT_IF));
                Ok(std::iter::once(format!("done: {line}")).chain(told).collect::<Vec<_>>().join("\n"))
            }
            "quit" | "exit" | "q" => {
                self.done = true;
                Ok(String::new())
            }
            // A bare answer to the pending question: `pass`, `Kii`, `space 4`.
            _ if matches!(self.game.engine.legal(self.state()), Legal::Choose { .. }) && self.notation().answer(self.state(), line).is_ok() => {
                self.choose(line)
            }
            other => {
                let names: Vec<String> = COMMANDS.iter().map(|c| c.0.to_string()).collect();
                Err(format!("unknown command `{other}`{} (`help` lists them)", crate::rules::map::suggest(other, names.iter())))
            }
        }
    }

    /// The views that only read the game, as the viewer may see it:
    /// `province`, `player`, `tower`, `events`, `actions`, `order`, `log`.
    fn look(&self, cmd: &str, rest: &str, args: &[&str]) -> Result<String, String> {
        let engine = &self.game.engine;
        let st = self.viewed();
        match cmd {
            "province" | "p" => {
                let p = self.notation().province(rest).map_err(|e| e.to_string())?;
                Ok(views::province(engine, &st, p))
            }
            "player" => {
                let seats: Vec<Seat> = match args.first() {
                    Some(s) => vec![self.notation().seat(s).map_err(|e| e.to_string())?],
                    None => Seat::all(st.seats()).collect(),
                };
                Ok(seats.iter().map(|&s| views::player(engine, &st, s)).collect::<Vec<_>>().join("\n"))
            }
            "tower" => Ok(views::tower(engine, &st)),
            "events" => Ok(views::events(engine, &st)),
            "actions" => Ok(views::actions(engine, &st)),
            "order" => Ok(views::order(engine, &st)),
            _ => {
                let n = args.first().map(|a| a.parse::<usize>().map_err(|_| format!("log takes a number, not `{a}`"))).transpose()?.unwrap_or(30);
                let lines = self.lines();
                let start = lines.len().saturating_sub(n);
                Ok(lines[start..].join("\n"))
            }
        }
    }

    /// `view SEAT|god`: whose eyes the outputs use.
    fn view(&mut self, args: &[&str]) -> Result<String, String> {
        let who = args.first().ok_or("view whom? a seat or `god`")?;
        if who.eq_ignore_ascii_case("god") {
            self.viewer = Viewer::God;
            return Ok("god view: you see everything, including secret plans and the tower's levels".into());
        }
        let s = self.notation().seat(who).map_err(|e| e.to_string())?;
        self.viewer = Viewer::Seat(s);
        Ok(format!("viewing as {}", self.notation().seat_name(s)))
    }

    /// `seat SEAT human|BOT`: who plays a seat from now on.
    fn seat(&mut self, args: &[&str]) -> Result<String, String> {
        let [who, what] = args[..] else { return Err(format!("usage: seat SEAT human|BOT[:OPTIONS]; the bots:\n{}", crate::bots::bots_listed("  "))) };
        let s = self.notation().seat(who).map_err(|e| e.to_string())?;
        let player = Player::by_name(what, self.config.seed.wrapping_add(self.game.cursor() as u64), s)?;
        self.config.seats[s.index()] = what.to_string();
        self.game.set_player(s, player);
        Ok(format!("{} is now played by {what}", self.notation().seat_name(s)))
    }

    /// Moving along the timeline: `undo [n]`, `redo [n]`, `history [n]`.
    fn timeline(&mut self, cmd: &str, args: &[&str]) -> Result<String, String> {
        match cmd {
            "undo" | "u" if !self.steps.is_empty() => self.undo_steps(count_arg("undo", args)?),
            "redo" if !self.undone.is_empty() => self.redo_steps(count_arg("redo", args)?),
            // Nothing typed in this session to take back (a loaded or
            // reloaded game): along the log's entries.
            "undo" | "u" => {
                let n = if args.is_empty() { self.undo_count() } else { count_arg("undo", args)? };
                let k = self.game.undo(n).map_err(|e| e.to_string())?;
                Ok(format!("undid {} of the log; now at entry {} of {}", views::count(k as i64, "entry", "entries"), self.game.cursor(), self.game.len()))
            }
            "redo" => {
                let n = count_arg("redo", args)?;
                let k = self.game.redo(n).map_err(|e| e.to_string())?;
                Ok(format!("redid {} of the log; now at entry {} of {}", views::count(k as i64, "entry", "entries"), self.game.cursor(), self.game.len()))
            }
            _ => {
                let n = args.first().and_then(|a| a.parse().ok()).unwrap_or(usize::MAX);
                let entries: Vec<String> = self.game.entries().map(|(i, e)| format!("{i:>4}  {}", self.entry_text(i, e))).collect();
                let start = entries.len().saturating_sub(n);
                Ok(if entries.is_empty() { "no decisions yet".into() } else { entries[start..].join("\n") })
            }
        }
    }

    /// `board [region]`, `board --svg FILE`.
    fn board(&self, args: &[&str]) -> Result<String, String> {
        let st = self.viewed();
        match args {
            ["--svg"] => Err("board --svg needs a file to write, e.g. board --svg board.svg".into()),
            ["--svg", file] => {
                let seen = match self.eyes() {
                    Some(s) => format!("as {} sees it", self.notation().seat_name(s)),
                    None => "in the god view".into(),
                };
                // The prompt's words without the brackets: when, who acts.
                let when = self.prompt();
                let when = when.trim_end().trim_end_matches('>').trim_end().trim_start_matches('[').trim_end_matches(']').replace(" · god view", "");
                let subtitle = format!("seed {}, rules {}\n{when}, {seen}", self.config.seed, self.engine().rules.ruleset_name());
                let picture = picture::Picture { rules: &self.engine().rules, state: Some(&st), in_play: st.in_play.clone(), subtitle };
                let svg = picture.svg()?;
                crate::files::write_atomic(Path::new(file), svg.as_bytes())?;
                Ok(format!("wrote {file}: the board {seen}, {} provinces (open it in a browser)", st.provinces.len()))
            }
            ["compact"] => views::compact(&self.game.engine, &st, None, self.colour),
            ["compact", region] => views::compact(&self.game.engine, &st, Some(region), self.colour),
            [region] => views::board(&self.game.engine, &st, Some(region)),
            [] => views::board(&self.game.engine, &st, None),
            _ => Err("usage: board [region] | board compact [region] | board --svg FILE".into()),
        }
    }

    fn entry_text(&self, i: usize, e: &Entry) -> String {
        match e {
            Entry::Decide(_) => self.game.entry_seen(i, self.eyes()),
            Entry::Edit(_) => format!("edit: {}", self.game.entry_text(e)),
        }
    }

    fn status(&self) -> String {
        let st = self.state();
        let mut s = format!(
            "{}map {}, {} players, seed {}, rules {}\n",
            self.prompt().trim_end_matches("> "),
            self.game.engine.rules.map.name,
            st.seats(),
            self.config.seed,
            self.game.engine.rules.ruleset_name()
        );
        let seats: Vec<String> = Seat::all(st.seats()).zip(&self.config.seats).map(|(s, b)| format!("{} {b}", self.notation().seat_name(s))).collect();
        s.push_str(&format!("seats: {}\n", seats.join(", ")));
        s.push_str(&format!(
            "viewing as: {}\n",
            match self.viewer {
                Viewer::God => "god (everything)".to_string(),
                Viewer::Seat(x) => self.notation().seat_name(x).to_string(),
            }
        ));
        s.push_str(&format!("entries: {} (undo/redo move along them)", self.game.cursor()));
        let w = self.waiting();
        if !w.is_empty() {
            s.push('\n');
            s.push_str(&w);
        }
        s
    }

    fn options(&self) -> String {
        let st = self.state();
        match self.game.engine.legal(st) {
            Legal::None => "the game is over".into(),
            Legal::Chance => "chance acts next: `step`".into(),
            Legal::Plan { seats } => {
                let n = self.notation();
                let names: Vec<&str> = seats.iter().map(|&s| n.seat_name(s)).collect();
                let hand: Vec<String> = seats
                    .iter()
                    .filter(|&&s| self.is_human(s))
                    .map(|&s| {
                        let cards: Vec<String> = self.game.engine.hand(st, s).iter().map(|c| self.game.engine.card_name(*c)).collect();
                        format!("{}'s cards: {}", n.seat_name(s), cards.join(", "))
                    })
                    .collect();
                let acts: Vec<&str> = self.game.engine.rules.cards.actions.iter().map(|a| a.id.as_str()).collect();
                format!("to plan: {}\nactions: {}\n{}", names.join(", "), acts.join(", "), hand.join("\n"))
            }
            Legal::Choose { seat, prompt, options, .. } => {
                let opts: Vec<String> = self.option_lines(&options).into_iter().map(|o| format!("  {o}")).collect();
                format!("{}: {prompt}\n{}", self.notation().seat_name(seat), opts.join("\n"))
            }
        }
    }

    /// Answers the pending question: an option's number or the answer itself.
    fn choose(&mut self, answer: &str) -> Result<String, String> {
        let d = self.notation().answer(self.state(), answer).map_err(|e| e.to_string())?;
        self.decide_human(d)
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
        self.play_on(out)
    }

    /// The human seat that plans now (the viewer's, else the first).
    fn planner(&self) -> Result<Seat, String> {
        let Actor::Simultaneous(seats) = self.game.engine.actor(self.state()) else {
            return Err("nobody plans now".into());
        };
        let humans: Vec<Seat> = seats.into_iter().filter(|&s| self.is_human(s)).collect();
        if let Viewer::Seat(v) = self.viewer
            && humans.contains(&v)
        {
            return Ok(v);
        }
        humans.first().copied().ok_or_else(|| "no human seat plans now (`step` lets the bots plan)".into())
    }

    /// Whether `seat`'s draft belongs to the round being planned now.
    fn draft_is_current(&self, seat: Seat) -> bool {
        self.draft_when.get(seat.index()) == Some(&(self.state().year, self.state().season))
    }

    fn plan(&mut self, args: &[&str]) -> Result<String, String> {
        let seat = self.planner()?;
        let s = seat.index();
        let n = self.game.engine.rules.cards.actions.len();
        let name = self.notation().seat_name(seat).to_string();
        if !self.draft_is_current(seat) {
            self.drafts[s] = None;
            self.draft_when[s] = (self.state().year, self.state().season);
        }
        let draft = self.drafts[s].get_or_insert_with(|| Plan { slots: vec![None; n], bid: None });
        match args {
            [] | ["show"] => {}
            ["clear"] => *draft = Plan { slots: vec![None; n], bid: None },
            ["auto"] | ["auto", _] => {
                // The proposal of the default players (or of the bot named),
                // from the seat's own view.
                let bot = args.get(1).copied().unwrap_or(crate::bots::DEFAULT);
                let mut b = crate::bots::by_name(bot, self.config.seed ^ s as u64).map_err(|e| format!("plan auto {bot}: {e}"))?;
                let view = crate::core::SeatView::new(self.game.state(), seat);
                let plan = b.plan(&self.game.engine, &view, seat);
                self.drafts[s] = Some(plan);
            }
            ["done"] | ["done", "anyway"] => {
                if args.len() == 1 && Repl::plan_is_empty(draft) {
                    return Err(format!(
                        "{name}'s plan puts no province card on any action: every action would be skipped. `plan done anyway` locks it in as it is"
                    ));
                }
                // Spare war-chest cards go on the empty action spaces (skips);
                // the bid and the province cards are the player's to place.
                let mut plan = draft.clone();
                self.game.engine.fill_skips(self.game.state(), seat, &mut plan);
                self.game.engine.check_plan(self.state(), seat, &plan).map_err(|e| e.to_string())?;
                self.decide(Decision::Plan { seat, plan })?;
                let mut text = format!("{name}'s plan is locked in");
                let w = self.waiting();
                if !w.is_empty() {
                    text.push('\n');
                    text.push_str(&w);
                }
                return self.play_on(text);
            }
            // One grammar: `plan SPACE CARD` or `plan SPACE:CARD...` (a space
            // is an action or `bid`; `-` empties it). Only the spaces named
            // change.
            [space, v] if !space.contains(':') && !v.contains(':') => {
                let note = self.edit_plan(seat, &[(space, v)])?;
                return Ok(self.plan_shown(seat, &note));
            }
            items if items.iter().all(|i| i.contains(':')) => {
                let pairs: Vec<(&str, &str)> = items.iter().map(|i| i.split_once(':').expect("a colon")).collect();
                let note = self.edit_plan(seat, &pairs)?;
                return Ok(self.plan_shown(seat, &note));
            }
            _ => {
                return Err(
                    "usage: plan [show|auto [BOT]|clear|done] | plan ACTION PROVINCE|- | plan bid VALUE|PROVINCE|- | plan ACTION:PROVINCE... bid:VALUE".into(),
                );
            }
        }
        Ok(self.plan_shown(seat, ""))
    }

    /// The draft with its ledger (after `note`, what an edit moved).
    fn plan_shown(&self, seat: Seat, note: &str) -> String {
        let name = self.notation().seat_name(seat);
        let draft = self.drafts[seat.index()].as_ref().expect("a draft");
        format!("{name}'s plan (not locked in): {}{note}\n{}", views::plan_text(&self.game.engine, draft), self.plan_report(seat, draft))
    }

    /// Puts cards on the spaces named (an action or `bid`; `-` empties
    /// it), leaving the others as they are. A card or a space named twice
    /// is refused, and so is a province the seat does not hold; a card
    /// that lay on another space moves (the note says so). All or nothing.
    fn edit_plan(&mut self, seat: Seat, items: &[(&str, &str)]) -> Result<String, String> {
        let n = Notation::new(&self.game.engine, self.game.state().seats());
        let name = n.seat_name(seat);
        let mut edits: Vec<(Option<usize>, Option<Card>, &str)> = Vec::new();
        for &(space, v) in items {
            let a = if space == "bid" { None } else { Some(n.action(space).map_err(|e| e.to_string())?) };
            let c: Option<Card> = if v == "-" { None } else { Some(n.parse(v).map_err(|e| e.to_string())?) };
            if let Some(Card::Province(p)) = c
                && self.state().provinces[p.index()].owner != Some(seat)
            {
                return Err(format!("{name} does not hold {}", n.province_name(p)));
            }
            // A war-chest card must exist, and a bid be one the seat may make.
            if let Some(card @ Card::Chest(v)) = c {
                let e = &self.game.engine;
                let exists = e.rules.rules.components.chest_cards.contains(&i64::from(v));
                if a.is_none() && !(exists && e.can_bid(self.state(), seat, card)) {
                    let known = self.state().view(Some(seat));
                    let why = if exists {
                        format!("{name} holds {} war chests", known.players[seat.index()].chests)
                    } else {
                        format!("there is no war-chest card of value {v}")
                    };
                    return Err(format!("{why}: bids {name} may make: {} or a province card", self.chest_bids(&known, seat).join(", ")));
                }
                if !exists {
                    let cards: Vec<String> = e.rules.rules.components.chest_cards.iter().map(|v| v.to_string()).collect();
                    return Err(format!("there is no war-chest card of value {v} (the war-chest cards: {})", cards.join(", ")));
                }
            }
            if let Some((_, _, first)) = edits.iter().find(|e| e.0 == a) {
                return Err(format!("the {first} space is named twice: a space holds one card"));
            }
            if let Some((_, _, first)) = edits.iter().find(|e| c.is_some() && e.1 == c) {
                return Err(format!("{v} is named twice ({first} and {space}): a card lies on one space only"));
            }
            edits.push((a, c, space));
        }
        let actions = &self.game.engine.rules.cards.actions;
        let draft = self.drafts[seat.index()].as_mut().expect("a draft");
        let named = |x: Option<usize>| edits.iter().any(|e| e.0 == x);
        let mut moved = Vec::new();
        for &(a, c, _) in &edits {
            // A card already on a space not named here moves.
            if let Some(card) = c {
                for (k, slot) in draft.slots.iter_mut().enumerate() {
                    if *slot == Some(card) && !named(Some(k)) {
                        *slot = None;
                        moved.push(format!("{} left {}", n.text(&card), actions[k].id));
                    }
                }
                if draft.bid == Some(card) && !named(None) {
                    draft.bid = None;
                    moved.push(format!("{} left the bid", n.text(&card)));
                }
            }
            match a {
                Some(a) => draft.slots[a] = c,
                None => draft.bid = c,
            }
        }
        Ok(if moved.is_empty() { String::new() } else { format!(" ({})", moved.join(", ")) })
    }

    /// Whether the game moved since it was last saved or loaded (a new
    /// game counts as saved until its first entry).
    pub fn unsaved(&self) -> bool {
        self.game.cursor() > 0 && self.saved != (self.game.cursor(), self.game.len())
    }

    /// Saves the game to `path` (as `save PATH`).
    pub fn save_to(&mut self, path: &Path) -> Result<String, String> {
        self.save(path)
    }

    fn save(&mut self, path: &Path) -> Result<String, String> {
        if path.as_os_str().is_empty() {
            return Err("save where? e.g. save game.yaml".into());
        }
        let spec = &self.config.spec;
        let file = SaveFile {
            shogun_lab_save: crate::play::SAVE_FORMAT,
            ruleset: self.engine().rules.ruleset_name(),
            map: spec.map.clone(),
            rules: spec.rules.as_ref().map(|p| p.display().to_string()),
            variants: spec.variants.clone(),
            tower: spec.tower.clone(),
            setup: self.state().setup.to_string(),
            players: self.config.players,
            seed: self.config.seed,
            seats: self.config.seats.clone(),
            check: (spec.check != CheckMode::Every).then(|| spec.check.word().to_string()),
            entries: self.game.saved_entries(),
        };
        // A save is a god view: it holds every seat's plan in clear.
        let text = format!("{SAVE_HEADER}{}", serde_yaml::to_string(&file).map_err(|e| e.to_string())?);
        // A failed save never leaves half a file or replaces a special one.
        crate::files::write_atomic(path, text.as_bytes())?;
        self.saved = (self.game.cursor(), self.game.len());
        Ok(format!("saved {} to {}", views::count(self.game.cursor() as i64, "entry", "entries"), path.display()))
    }

    /// Loads a save: everything it names is checked, and its whole log
    /// replayed, on a new game before anything here changes. A problem
    /// (a hand edit gone wrong, most often) is said at its line in the
    /// save, with the key as written there and what was expected, and
    /// leaves the game as it was.
    fn load(&mut self, path: &Path) -> Result<String, String> {
        if path.as_os_str().is_empty() {
            return Err("load what? e.g. load game.yaml".into());
        }
        let text = crate::files::read_text(path)?;
        let parsed = crate::rules::yaml::parse::<SaveFile>(path, &text).map_err(|d| d.to_string())?;
        let (file, pos) = (parsed.value, parsed.pos);
        let at = |key: &str, problem: &str| save_problem(path, &pos, key, problem);
        if let Some(problem) = save_format_problem(file.shogun_lab_save) {
            return Err(at("shogun_lab_save", &problem));
        }
        let mut spec = self.config.spec.clone();
        let layout = spec.layout();
        let own = &self.config.spec;
        let rules = own.rules.as_ref().map(|p| p.display().to_string());
        let started: Vec<&str> = own.variants.iter().map(String::as_str).chain([own.map.as_str()]).chain(rules.as_deref()).collect();
        spec.map = layout.saved_name(&file.map, &started, crate::play::data::Named::Map).map_err(|e| at("map", &e))?;
        if let Some(problem) = spec.map_problem() {
            return Err(at("map", &format!("{problem} (expected a map's name or a map file inside the data folder)")));
        }
        spec.rules = match &file.rules {
            Some(r) => Some(layout.saved_path(r, &started).map_err(|e| at("rules", &e))?),
            None => None,
        };
        if let Some(dir) = &spec.rules
            && !dir.is_dir()
        {
            return Err(at("rules", &format!("{}: {}", dir.display(), crate::play::data::NOT_A_PACK)));
        }
        // Each variant is resolved on its own, so that a problem with one
        // (an unknown name, an option out of range) is said at its line.
        spec.variants.clear();
        let mut variants = Vec::new();
        for (i, v) in file.variants.iter().enumerate() {
            let key = format!("variants/{i}");
            let name = layout.saved_name(v, &started, crate::play::data::Named::Variant).map_err(|e| at(&key, &e))?;
            let loc = pos.of(&key);
            let place = format!("{}:{}:{}", path.display(), loc.line, loc.column);
            let one = layout.variants(std::slice::from_ref(&name), &place).map_err(|e| {
                let e = e.strip_prefix(place.as_str()).unwrap_or(&e);
                at(&key, e.trim_start_matches(':').trim_start())
            })?;
            variants.extend(one);
            spec.variants.push(name);
        }
        spec.tower = file.tower.clone();
        let tower_loc = pos.of("tower");
        let tower_place = format!("{}:{}:{}: error: `tower`", path.display(), tower_loc.line, tower_loc.column);
        let loaded = spec.rules_resolved(&variants, &tower_place).map_err(|e| {
            // A variant's option is said at its line in the save already.
            if e.starts_with(&format!("{}:", path.display())) { e } else { format!("{}: the rules this save names do not load:\n{e}", path.display()) }
        })?;
        spec.setup = Some(file.setup.parse().map_err(|e: crate::play::NotationError| at("setup", &e.to_string()))?);
        spec.check = match &file.check {
            Some(word) => CheckMode::parse(word).map_err(|e| at("check", &e))?,
            None => CheckMode::Every,
        };
        let (min, max) = (loaded.rules.players.min, loaded.rules.players.max);
        if !loaded.rules.players.takes(file.players) {
            return Err(at("players", &format!("{} players: expected {min} to {max} (what these rules are for)", file.players)));
        }
        if file.seats.len() != file.players as usize {
            return Err(at("seats", &format!("{} seats listed for {} players: expected one per player", file.seats.len(), file.players)));
        }
        for (i, name) in file.seats.iter().enumerate() {
            Player::by_name(name, file.seed, Seat::new(i)).map_err(|e| at(&format!("seats/{i}"), &format!("{e}; expected `human` or a bot")))?;
        }
        if spec.setup == Some(crate::core::SetupMode::Preset) && !loaded.map.presets.contains_key(&file.players) {
            return Err(at("setup", &format!("map `{}` has no preset for {} players: expected `draft`", loaded.map.name, file.players)));
        }
        for (i, e) in file.entries.iter().enumerate() {
            if e.decide.is_some() == e.edit.is_some() {
                return Err(at(&format!("entries/{i}"), "expected exactly one of `decide` or `edit`"));
            }
        }
        let engine = Engine::with_options(loaded, spec.tower.as_deref(), crate::engine::Limits::default())
            .map_err(|d| format!("{}: the rules this save names do not load:\n{d}", path.display()))?;
        engine.set_check(spec.check);
        let config = Config { spec, players: file.players, seed: file.seed, seats: file.seats.clone() };
        let mut fresh = Repl::with_engine(config, engine).map_err(|e| format!("{}: {e}", path.display()))?;
        (fresh.viewer, fresh.colour, fresh.width, fresh.odds_trials) = (self.viewer, self.colour, self.width, self.odds_trials);
        // The whole log replays, or nothing is loaded: an entry the rules
        // refuse (an edit gone wrong; a save from other rules) is said at
        // its line.
        let replayed = fresh.game.replay(&file.entries);
        if let Some((entry, why)) = &replayed.refused {
            let k = replayed.done;
            let key = format!("entries/{k}/{}", if file.entries[k].decide.is_some() { "decide" } else { "edit" });
            let (shown, hide) = fresh.game.text_seen(entry, fresh.eyes());
            let why = if hide { "(the reason is not shown: it would tell what the face-down cards are)".to_string() } else { why.clone() };
            return Err(at(
                &key,
                &format!(
                    "entry {} `{shown}` does not replay: {why}\nnothing was loaded: expected a decision or edit the game allows after entry {k} (fix the entry, or delete it and the entries after it)",
                    k + 1
                ),
            ));
        }
        *self = fresh;
        // A save keeps a fingerprint of each position, not the position:
        // what differs cannot be told.
        let report = self.game.replay_report(&replayed, self.eyes(), &[]);
        self.saved = (self.game.cursor(), self.game.len());
        Ok(format!("loaded {} (rules {}){report}", path.display(), self.engine().rules.ruleset_name()))
    }

    /// Re-reads the rules and replays the whole log under them (the undone
    /// entries too, so `redo` still has them). A replay that stops early
    /// keeps the whole log: the next `reload` replays all of it again.
    fn reload(&mut self) -> Result<String, String> {
        let engine = self.config.spec.engine().map_err(|e| format!("the rules did not load; the previous rules stay active:\n{e}"))?;
        self.before_reload = Some((*self.game.engine.rules).clone());
        let mut at = self.game.cursor();
        let mut entries = self.game.whole_log();
        let mut note = String::new();
        if let Some((kept, kept_at)) = self.kept_log.take() {
            // The log kept by a replay that stopped early, unless the game
            // has since been played on along another line.
            let same = |a: &[SavedEntry], b: &[SavedEntry]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.text() == y.text());
            if kept.len() >= entries.len() && same(&kept[..entries.len()], &entries) {
                entries = kept;
                at = kept_at;
            } else {
                note = "\n(the log kept by the last failed replay was dropped: the game has been played on since)".into();
            }
        }
        let setup = self.state().setup;
        let mut game = Game::new(engine, self.config.players, self.config.seed, setup, &self.config.seats).map_err(|e| e.to_string())?;
        game.verbose = true;
        let old = std::mem::replace(&mut self.game, game);
        let replayed = self.game.replay(&entries);
        let done = self.game.len();
        if done > at {
            let back = self.game.undo(done - at).map_err(|e| e.to_string())?;
            let undone = if back == 1 { "the undone entry".to_string() } else { format!("the {back} undone entries") };
            note.push_str(&format!("\nthe game stands at entry {at} as before; `redo` brings back {undone}"));
        }
        if done < entries.len() {
            note.push_str(&format!(
                "\nthe whole log ({}) is kept: fix the rules and `reload` again to replay all of it (`save FILE` keeps only what stands now)",
                views::count(entries.len() as i64, "entry", "entries")
            ));
            self.kept_log = Some((entries.clone(), at));
        }
        // What differs at the first diverging entry: the old and the new
        // position after it, both as the viewer may see them.
        let what = match (replayed.diverged.and_then(|k| old.state_after(k)), replayed.diverged.and_then(|k| self.game.state_after(k))) {
            (Some(a), Some(b)) => views::differences(&self.game.engine, &a.view(self.eyes()), &b.view(self.eyes())),
            _ => Vec::new(),
        };
        let report = self.game.replay_report(&replayed, self.eyes(), &what);
        Ok(format!("reloaded the rules ({}){report}{note}", self.engine().rules.ruleset_name()))
    }
}

impl Repl {
    /// `lab`: a small lab on the rules now loaded (see `crate::lab`).
    fn lab(&self, args: &[&str]) -> Result<String, String> {
        use crate::lab::{Arm, Lab, LabWord, Settings};
        let mut games = 200u64;
        let mut bots = vec![crate::bots::DEFAULT.to_string()];
        let (mut seed, mut jobs) = (self.config.seed, None);
        let mut against: Vec<Vec<String>> = Vec::new();
        let mut it = crate::lab::arm_words(args.iter().map(|a| a.to_string())).into_iter().peekable();
        if let Some(n) = it.peek().and_then(|a| if let LabWord::Word(w) = a { w.parse::<u64>().ok() } else { None }) {
            games = n;
            it.next();
        }
        while let Some(a) = it.next() {
            let a = match a {
                LabWord::Arm(words) => {
                    against.push(words);
                    continue;
                }
                LabWord::Word(w) => w,
            };
            let mut value = |flag: &str| match it.next() {
                Some(LabWord::Word(v)) => Ok(v),
                _ => Err(format!("lab: {flag} needs a value")),
            };
            match a.as_str() {
                "--bots" => bots = value("--bots")?.split(',').map(str::to_string).collect(),
                "--seed" => seed = value("--seed")?.parse().map_err(|_| "lab: --seed takes a whole number".to_string())?,
                "--jobs" => jobs = Some(value("--jobs")?.parse().map_err(|_| "lab: --jobs takes a whole number".to_string())?),
                other => return Err(format!("lab: unexpected `{other}` (usage: {})", COMMANDS.iter().find(|c| c.0 == "lab").map(|c| c.1).unwrap_or("lab"))),
            }
        }
        // Nothing to compare with is said before anything is loaded or played.
        if against.is_empty() && self.before_reload.is_none() {
            return Err("lab: nothing to compare the rules now loaded with: give `--against ARM` (base, a variant's name, --variant X, --tower T), or edit the rules and `reload` (`lab` then compares with the rules before the reload)".into());
        }
        let mut arms = vec![Arm::from_rules((*self.game.engine.rules).clone(), self.config.spec.tower.clone())];
        for words in &against {
            arms.push(Arm::from_spec_as(&self.config.spec.arm(words).map_err(|e| format!("lab --against: {e}"))?, "lab --against")?);
        }
        if against.is_empty()
            && let Some(before) = &self.before_reload
        {
            let mut arm = Arm::from_rules(before.clone(), self.config.spec.tower.clone());
            arm.name = format!("{} (before reload)", arm.name);
            arms[0].name = format!("{} (now)", arms[0].name);
            arms.push(arm);
        }
        let mut settings = Settings::new(self.config.players, seed, games);
        settings.setup = Some(self.state().setup);
        settings.jobs = jobs;
        let lab = Lab::new(arms, &[bots], "--bots", &[], settings)?;
        let agg = crate::lab::run(&lab, &mut |_| Ok(()), &|_| {}).map_err(|e| e.to_string())?;
        Ok(crate::lab::Report::build(&agg).text().trim_end().to_string())
    }
}

/// Why a save of format `n` cannot be loaded by this build, if it cannot.
fn save_format_problem(n: u32) -> Option<String> {
    match n {
        crate::play::SAVE_FORMAT => None,
        1 => Some(format!(
            "save format 1 is from before the game's random draws were split into one stream per purpose: its seed deals another game in this build, so its decisions would not replay (play it on with the build that wrote it; this build reads format {})",
            crate::play::SAVE_FORMAT
        )),
        n => Some(format!("save format {n} is not known (this build reads format {})", crate::play::SAVE_FORMAT)),
    }
}

/// A problem with one key of the save at `path`: its file, line and
/// column, then the key as written (`seats`, item 3).
fn save_problem(path: &Path, pos: &crate::rules::yaml::Positions, key: &str, problem: &str) -> String {
    let loc = pos.key(key);
    let words: Vec<String> = key.split('/').map(|part| part.parse::<usize>().map_or_else(|_| format!("`{part}`"), |i| format!("item {}", i + 1))).collect();
    format!("{}:{}:{}: error: {}: {problem}", path.display(), loc.line, loc.column, words.join(", "))
}

/// The optional count after `undo`/`redo`: a whole number >= 1 (default 1);
/// anything else is refused rather than read as 1.
fn count_arg<S: AsRef<str>>(cmd: &str, args: &[S]) -> Result<usize, String> {
    match args {
        [] => Ok(1),
        [a] => match a.as_ref().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!("{cmd}: `{}` is not a count (a whole number >= 1, e.g. {cmd} 3)", crate::files::excerpt(a.as_ref()))),
        },
        _ => Err(format!("usage: {cmd} [n]")),
    }
}

/// `help` and `help COMMAND`, wrapped to `width` columns when given
/// (between words, continuation lines indented under the text).
pub fn help(topic: Option<&str>, width: Option<usize>) -> String {
    let wrap = |first: &str, rest: &str, text: &str| -> String {
        match width {
            Some(w) => textwrap::fill(text, textwrap::Options::new(w.max(40)).initial_indent(first).subsequent_indent(rest).break_words(false)),
            None => format!("{first}{text}"),
        }
    };
    match topic {
        None => {
            let mut s = wrap("", "  ", "commands (`help COMMAND` for more; a number alone chooses that option):");
            s.push('\n');
            for (_, usage, what, _) in COMMANDS {
                // A long usage, or a narrow terminal: the usage on a line of
                // its own, the text under it.
                if width.is_some_and(|w| usage.len() > 44 || w < 100) {
                    s.push_str(&wrap("  ", "    ", usage));
                    s.push('\n');
                    s.push_str(&wrap("      ", "      ", what));
                } else {
                    s.push_str(&wrap(&format!("  {usage:<44} "), &" ".repeat(47), what));
                }
                s.push('\n');
            }
            s.trim_end().to_string()
        }
        Some(t) => match COMMANDS.iter().find(|c| c.0 == t) {
            Some((name, usage, what, example)) => {
                let mut s = format!("{}\n{}\n  example: {example}", wrap("", "  ", usage), wrap("  ", "  ", what));
                if *name == "seat" {
                    s.push_str(&format!("\nthe bots:\n{}", crate::bots::bots_listed("  ")));
                }
                s
            }
            None => {
                let names: Vec<String> = COMMANDS.iter().map(|c| c.0.to_string()).collect();
                format!("no command `{t}`{}", crate::rules::map::suggest(t, names.iter()))
            }
        },
    }
}
