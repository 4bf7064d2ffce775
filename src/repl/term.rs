//! The REPL at a terminal (rustyline: history, completion, hints, colour)
//! or reading commands from standard input (script mode).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use super::{COMMANDS, Config, Repl};

/// Completion (by context: `complete.rs`) and hints from the commands.
struct ReplHelper {
    words: super::complete::Words,
}

impl Completer for ReplHelper {
    type Candidate = Pair;
    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, found) = super::complete::complete(&self.words, &line[..pos]);
        Ok((start, found.into_iter().map(|w| Pair { display: w.clone(), replacement: w }).collect()))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        if pos < line.len() || line.is_empty() {
            return None;
        }
        if !line.contains(' ') {
            let c = COMMANDS.iter().find(|c| c.0.starts_with(line) && c.0 != line)?;
            return Some(c.0[line.len()..].to_string());
        }
        let (cmd, _) = line.split_once(' ')?;
        let c = COMMANDS.iter().find(|c| c.0 == cmd)?;
        if line.trim_end() == cmd { Some(format!("  e.g. {}", c.3)) } else { None }
    }
}

impl Highlighter for ReplHelper {}
impl Validator for ReplHelper {}
impl Helper for ReplHelper {}

/// `$XDG_DATA_HOME/shogun-lab` (else `~/.local/share/shogun-lab`), made
/// if missing: the line history and the recovery file.
fn data_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    let dir = base.join("shogun-lab");
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir)
}

fn history_file() -> Option<PathBuf> {
    data_dir().map(|d| d.join("history"))
}

/// The two lines an interactive session opens with: the game and whom
/// you play.
pub fn banner(repl: &Repl) -> String {
    let e = repl.engine();
    let humans: Vec<String> = repl
        .config
        .seats
        .iter()
        .enumerate()
        .filter(|(_, s)| *s == "human")
        .map(|(i, _)| format!("{} ({})", e.rules.seat_name(crate::core::Seat::new(i)), e.rules.rules.seats[i].colour))
        .collect();
    format!(
        "shogun-lab — {} players on the {} map, seed {}, rules {}; invariants checked {}\nyou play {}. `help` lists the commands; `next` moves the game on.",
        repl.config.players,
        crate::files::excerpt(&e.rules.map.name),
        repl.config.seed,
        e.rules.ruleset_name(),
        e.check_mode().describe(),
        if humans.is_empty() { "no seat (bots only)".into() } else { humans.join(", ") }
    )
}

/// Whether a `lua` command still needs lines.
fn unfinished(repl: &Repl, line: &str) -> bool {
    line.trim_start().strip_prefix("lua ").is_some_and(|code| repl.engine().lua_incomplete(code))
}

/// Opens the REPL on a game: interactive at a terminal, else reading
/// commands from standard input (`keep_going`: carry on after a failing
/// command).
/// `colour`: whether the terminal session colours its text (`--color`,
/// NO_COLOR; decided by the CLI).
pub fn run(config: Config, keep_going: bool, colour: bool, odds_trials: u32) -> Result<(), String> {
    let mut repl = Repl::new(config)?;
    repl.odds_trials = odds_trials;
    if std::io::stdin().is_terminal() { interactive(&mut repl, colour) } else { script(&mut repl, keep_going) }
}

fn script(repl: &mut Repl, keep_going: bool) -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    // The same opening as at a terminal: which game the commands play.
    let _ = writeln!(out, "{}", banner(repl));
    let mut failed = 0;
    let mut pending = String::new();
    let mut input = stdin.lock();
    for number in 1.. {
        let mut raw = Vec::new();
        if input.read_until(b'\n', &mut raw).map_err(|e| format!("cannot read standard input: {e}"))? == 0 {
            break;
        }
        if raw.ends_with(b"\n") {
            raw.pop();
            if raw.ends_with(b"\r") {
                raw.pop();
            }
        }
        // A line that is not UTF-8 is a failing command, not the end.
        let line = match String::from_utf8(raw) {
            Ok(l) => l,
            Err(e) => {
                let _ = writeln!(out, "> {}", crate::files::sanitize(&String::from_utf8_lossy(e.as_bytes())));
                let _ = writeln!(out, "error: line {number} is not UTF-8 text");
                failed += 1;
                if !keep_going {
                    let _ = out.flush();
                    return Err(format!("stopped at line {number}, which is not UTF-8 text"));
                }
                continue;
            }
        };
        if !pending.is_empty() {
            pending.push('\n');
            pending.push_str(&line);
        } else {
            pending = line;
        }
        if unfinished(repl, &pending) {
            continue;
        }
        let cmd = std::mem::take(&mut pending);
        let _ = writeln!(out, "> {cmd}");
        match repl.exec(&cmd) {
            Ok(text) => {
                if !text.is_empty() {
                    let _ = writeln!(out, "{text}");
                }
            }
            Err(e) => {
                let _ = writeln!(out, "{}", crate::rules::error_text(&e));
                failed += 1;
                if !keep_going {
                    let _ = out.flush();
                    return Err(format!("stopped at the first failing command: {cmd}"));
                }
            }
        }
        if repl.done {
            break;
        }
    }
    if !pending.is_empty() {
        return Err("the input ended inside an unfinished Lua chunk".into());
    }
    if failed > 0 { Err(format!("{failed} command(s) failed")) } else { Ok(()) }
}

fn interactive(repl: &mut Repl, color: bool) -> Result<(), String> {
    repl.colour = color;
    repl.width = Some(textwrap::termwidth());
    let style = |s: anstyle::Style| if color { s.render().to_string() } else { String::new() };
    let (bold, red, dim) = (style(anstyle::Style::new().bold()), style(anstyle::AnsiColor::Red.on_default()), style(anstyle::Style::new().dimmed()));
    let reset = if color { anstyle::Reset.render().to_string() } else { String::new() };
    // Tab completes what all matches share; a second Tab lists them.
    let config = rustyline::Config::builder().completion_type(rustyline::CompletionType::List).build();
    let mut ed: Editor<ReplHelper, DefaultHistory> = Editor::with_config(config).map_err(|e| e.to_string())?;
    ed.set_helper(Some(ReplHelper { words: repl.completion_words() }));
    let history = history_file();
    if let Some(h) = &history {
        let _ = ed.load_history(h);
    }
    println!("{bold}{}{reset}", banner(repl));
    let w = repl.waiting();
    if !w.is_empty() {
        println!("{w}");
    }
    loop {
        let prompt = repl.prompt();
        if let Some(h) = ed.helper_mut() {
            h.words = repl.completion_words();
        }
        let mut line = match ed.readline(&prompt) {
            Ok(l) => l,
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(e) => return Err(e.to_string()),
        };
        // A Lua chunk still open reads on; Ctrl-C drops it (as in Lua's
        // own REPL), Ctrl-D runs what there is.
        let mut cancelled = false;
        while unfinished(repl, &line) {
            match ed.readline("...> ") {
                Ok(more) => {
                    line.push('\n');
                    line.push_str(&more);
                }
                Err(rustyline::error::ReadlineError::Interrupted) => {
                    cancelled = true;
                    break;
                }
                Err(_) => break,
            }
        }
        if cancelled {
            let _ = ed.add_history_entry(line.as_str());
            println!("{dim}(the unfinished chunk is dropped){reset}");
            continue;
        }
        if !line.trim().is_empty() {
            let _ = ed.add_history_entry(line.as_str());
        }
        match repl.exec(&line) {
            Ok(text) if !text.is_empty() => println!("{text}"),
            Ok(_) => {}
            Err(e) => match crate::rules::error_text(&e).strip_prefix("error: ") {
                Some(plain) => println!("{red}error:{reset} {plain}"),
                None => println!("{e}"),
            },
        }
        // Hot seat: wait until the next player has the keyboard, then clear
        // the screen and the line history (they hold the last one's plans).
        if let Some(next) = repl.take_handover() {
            let _ = ed.readline(&format!("{} presses Enter to go on ", repl.engine().rules.seat_name(next)));
            print!("\x1b[2J\x1b[H");
            let _ = ed.clear_history();
            let w = repl.waiting();
            if !w.is_empty() {
                println!("{w}");
            }
        }
        if repl.done {
            break;
        }
    }
    if let Some(h) = &history {
        let _ = ed.save_history(h);
    }
    leave(repl);
    Ok(())
}

/// Leaving with a game not saved since it last moved: it goes to the
/// recovery file (beside the line history), and the message says where.
fn leave(repl: &mut Repl) {
    if !repl.unsaved() {
        return;
    }
    let Some(path) = data_dir().map(|d| d.join("recovery.yaml")) else {
        println!("the game was not saved (no $XDG_DATA_HOME or $HOME for a recovery file)");
        return;
    };
    match repl.save_to(&path) {
        Ok(_) => println!("the game was not saved: it is kept in {} (`load {}` goes on from there)", path.display(), path.display()),
        Err(e) => println!("the game was not saved, and the recovery file could not be written: {e}"),
    }
}
