//! Completion that follows the context: the first word completes to a
//! command (or, while a question is pending, to one of its answers); the
//! words after it to what that command takes in that place: provinces,
//! seats, actions, regions, the options of the pending question.

use super::{COMMANDS, Repl};
use crate::core::{Actor, Legal, Seat};

/// What completion draws on, taken from the game before each prompt.
#[derive(Clone, Debug, Default)]
pub struct Words {
    pub provinces: Vec<String>,
    pub seats: Vec<String>,
    pub actions: Vec<String>,
    pub regions: Vec<String>,
    pub bots: Vec<String>,
    /// The pending question's answers, as typed (`Kii`, `pass`, `space 4`).
    pub answers: Vec<String>,
    /// The provinces of the seat that plans now (what `plan ACTION` takes).
    pub own: Vec<String>,
    /// (line prefix, words) the plan assistant offers after that prefix:
    /// the plan's free actions, the unplaced provinces, the allowed bids
    /// (`Repl::context_words`); they come before the general words.
    pub context: Vec<(String, Vec<String>)>,
}

impl Repl {
    /// The words completion offers now.
    pub fn completion_words(&self) -> Words {
        let e = self.engine();
        let st = self.state();
        let n = self.notation();
        let answers = match e.legal(st) {
            Legal::Choose { options, .. } => options.iter().map(|o| n.text(o)).collect(),
            _ => Vec::new(),
        };
        let planner = match e.actor(st) {
            Actor::Simultaneous(_) => self.planner().ok(),
            _ => None,
        };
        Words {
            provinces: e.rules.map.provinces.iter().map(|p| p.name.clone()).collect(),
            seats: Seat::all(st.seats()).map(|s| n.seat_name(s).to_string()).collect(),
            actions: e.rules.cards.actions.iter().map(|a| a.id.clone()).collect(),
            regions: e.rules.map.regions.clone(),
            bots: ["human", "greedy", "planner", "random", "mcts"].map(String::from).to_vec(),
            answers,
            own: planner.map(|s| st.provinces_of(s).map(|p| n.province_name(p).to_string()).collect()).unwrap_or_default(),
            context: self.context_words(),
        }
    }
}

impl Repl {
    /// What Tab offers at the end of `line` (the terminal's completer).
    pub fn completions(&self, line: &str) -> Vec<String> {
        complete(&self.completion_words(), line).1
    }
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Where the word being completed starts in `line` (cut at the cursor) and
/// the candidates for it, sorted, without duplicates.
pub fn complete(w: &Words, line: &str) -> (usize, Vec<String>) {
    let start = line.rfind(char::is_whitespace).map(|i| i + 1).unwrap_or(0);
    let word = &line[start..];
    let before: Vec<&str> = line[..start].split_whitespace().collect();
    let context = w.context.iter().filter(|(p, _)| line[..start].eq_ignore_ascii_case(p)).max_by_key(|(p, _)| p.len());
    let pool: Vec<String> = match before.as_slice() {
        _ if context.is_some() => context.map(|(_, words)| words.clone()).unwrap_or_default(),
        [] => {
            let mut p: Vec<String> = COMMANDS.iter().map(|c| c.0.to_string()).collect();
            p.extend(w.answers.iter().filter(|a| !a.contains(' ')).cloned());
            p
        }
        [cmd, args @ ..] => arguments(w, cmd, args),
    };
    let lower = word.to_lowercase();
    let mut out: Vec<String> = pool.into_iter().filter(|c| c.to_lowercase().starts_with(&lower)).collect();
    out.sort();
    out.dedup();
    (start, out)
}

/// What `cmd` takes after the words `args`.
fn arguments(w: &Words, cmd: &str, args: &[&str]) -> Vec<String> {
    let n = args.len();
    match cmd {
        "help" | "?" if n == 0 => COMMANDS.iter().map(|c| c.0.to_string()).collect(),
        "province" | "p" | "odds" if n == 0 => w.provinces.clone(),
        "choose" | "c" if n == 0 => w.answers.iter().map(|a| a.split(' ').next().unwrap_or(a).to_string()).collect(),
        // `space 4`: after the first word of a two-word answer, the rest.
        "choose" | "c" | "space" => {
            w.answers.iter().filter_map(|a| a.strip_prefix(&format!("{} ", args.last().copied().unwrap_or(cmd)))).map(String::from).collect()
        }
        "board" if n == 0 => {
            let mut v = w.regions.clone();
            v.extend(["--svg", "compact"].map(String::from));
            v
        }
        "board" if n == 1 && args[0] == "compact" => w.regions.clone(),
        "player" if n == 0 => w.seats.clone(),
        "view" if n == 0 => {
            let mut v = w.seats.clone();
            v.push("god".into());
            v
        }
        "seat" if n == 0 => w.seats.clone(),
        "seat" if n == 1 => w.bots.clone(),
        "plan" if n == 0 => {
            let mut v = w.actions.clone();
            v.extend(strs(&["show", "auto", "clear", "done", "bid"]));
            v
        }
        "plan" if n == 1 && args[0] == "auto" => w.bots.iter().filter(|b| *b != "human").cloned().collect(),
        "plan" if n == 1 && args[0] == "bid" => {
            let mut v = strs(&["0", "1", "2", "3", "4", "-"]);
            v.extend(w.own.iter().cloned());
            v
        }
        "plan" if n == 1 && w.actions.iter().any(|a| a == args[0]) => {
            let mut v = w.own.clone();
            v.push("-".into());
            v
        }
        "set" if n == 0 => [w.provinces.clone(), w.seats.clone()].concat(),
        "set" if w.seats.iter().any(|s| s.eq_ignore_ascii_case(args[0])) => strs(&["chests=", "rice=", "points=", "supply="]),
        "set" => strs(&["owner=", "armies=", "unrest=", "buildings="]),
        "force" => {
            let mut v: Vec<String> = w.seats.iter().map(|s| format!("{s}=")).collect();
            v.push("peasants=".into());
            v
        }
        "perform" if n == 0 => w.seats.clone(),
        "perform" if n == 1 => w.actions.clone(),
        "perform" if n == 2 => w.provinces.clone(),
        "perform" => strs(&["event=", "special="]),
        "lua" => strs(&["seat(", "province(", "print(", "game.", "RULES", "CARDS", "MAP"]),
        _ => Vec::new(),
    }
}
