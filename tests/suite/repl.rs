//! The REPL: script-mode sessions (snapshotted), save/load, reload under
//! changed rules, Lua and what-if edits, and an interactive check through
//! a pseudo-terminal (completion, history).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::*;
use shogun_lab::core::Seat;
use shogun_lab::play::GameSpec;
use shogun_lab::repl::{Config, Repl};

pub(crate) fn repl_with(rules: Option<&Path>, seats: &[&str], seed: u64) -> Repl {
    let spec = GameSpec { map: "sun".into(), rules: rules.map(Path::to_path_buf), data: Some(root()), ..GameSpec::default() };
    Repl::new(Config { spec, players: seats.len() as u8, seed, seats: seats.iter().map(|s| s.to_string()).collect() }).unwrap()
}

pub(crate) fn session(stdin: &str, args: &[&str]) -> (bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shogun"))
        .args(args)
        .env("SHOGUN_DATA", root())
        .env("HOME", std::env::temp_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

fn snap(name: &str, value: &str) {
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, value);
    });
}

#[test]
fn script_session_stepping_and_deciding() {
    let script = "\
status
next
next
next
options
plan taxes Settsu
plan castle Noto
plan deploy5 Yamato
plan attack_a Awa-Shikoku
plan bid 1
plan castle Settsu
plan rice Kaga
plan taxes Tamba
plan deploy3 Omi
plan done
next
next
order
options
2
next
player A
actions
events
board purple
view god
player B
tower
";
    // Greedy opponents: this session pins the REPL's stepping, not the default players.
    let (ok, out) = session(script, &["play", "--seed", "3", "--seats", "human,greedy"]);
    assert!(ok, "{out}");
    snap("repl_stepping_and_deciding", &out);
}

#[test]
fn script_session_undo_redo_and_history() {
    let script = "next\nnext\nnext\nplan auto greedy\nplan done\nstep 3\nhistory\nundo 2\nhistory\nredo\nhistory\nundo 99\nundo\n";
    let (ok, out) = session(script, &["play", "--seed", "4", "--seats", "human,greedy"]);
    assert!(!ok, "the last undo fails: nothing to undo");
    assert!(out.contains("error: nothing to undo"), "{out}");
    snap("repl_undo_redo", &out);
}

#[test]
fn script_mode_stops_at_the_first_error_unless_keep_going() {
    let (ok, out) = session("status\nbogus\nstatus\n", &["play"]);
    assert!(!ok);
    assert_eq!(out.matches("> status").count(), 1, "{out}");
    assert!(out.contains("unknown command `bogus`"));
    let (ok, out) = session("status\nbogus\nprovince Setsu\nstatus\n", &["play", "--keep-going"]);
    assert!(!ok);
    assert_eq!(out.matches("> status").count(), 2, "{out}");
    assert!(out.contains("did you mean `Settsu`?"), "{out}");
}

#[test]
fn save_then_load_gives_the_identical_state() {
    let mut r = repl_with(None, &["human", "greedy", "random"], 9);
    for cmd in ["next", "next", "next", "plan auto", "plan done", "round", "set Settsu armies=4", "force A=1", "round"] {
        r.exec(cmd).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    }
    let before = r.state().clone();
    let file = std::env::temp_dir().join(format!("shogun-save-{}.yaml", std::process::id()));
    r.exec(&format!("save {}", file.display())).unwrap();
    let mut other = repl_with(None, &["human", "greedy", "greedy"], 1);
    let msg = other.exec(&format!("load {}", file.display())).unwrap();
    assert!(msg.contains("the replay matches the recorded game"), "{msg}");
    assert_eq!(other.state(), &before);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("edit: set Settsu armies=4") && text.contains("decide: A plan"), "{text}");
    // A broken save file is refused and the game stays as it was.
    std::fs::write(&file, "shogun_lab_save: 1\nbogus: 2\n").unwrap();
    let err = other.exec(&format!("load {}", file.display())).unwrap_err();
    assert!(err.contains("unknown field `bogus`") || err.contains("missing field"), "{err}");
    assert_eq!(other.state(), &before);
}

#[test]
fn the_check_mode_survives_save_load_and_reload() {
    use shogun_lab::engine::CheckMode;
    let spec = GameSpec { map: "sun".into(), data: Some(root()), check: CheckMode::Sample, ..GameSpec::default() };
    let seats = vec!["greedy".to_string(); 3];
    let mut r = Repl::new(Config { spec, players: 3, seed: 4, seats: seats.clone() }).unwrap();
    assert_eq!(r.engine().check_mode(), CheckMode::Sample);
    r.exec("round").unwrap();
    r.exec("reload").unwrap();
    assert_eq!(r.engine().check_mode(), CheckMode::Sample, "reload keeps it");
    let file = std::env::temp_dir().join(format!("shogun-save-check-{}.yaml", std::process::id()));
    r.exec(&format!("save {}", file.display())).unwrap();
    assert!(std::fs::read_to_string(&file).unwrap().contains("check: sample"));
    let mut other = repl_with(None, &["greedy", "greedy", "greedy"], 1);
    assert_eq!(other.engine().check_mode(), CheckMode::Every, "the default");
    other.exec(&format!("load {}", file.display())).unwrap();
    assert_eq!(other.engine().check_mode(), CheckMode::Sample, "load restores it");
    // A save of the default says nothing (saves made before stay as they were).
    let plain = std::env::temp_dir().join(format!("shogun-save-check-every-{}.yaml", std::process::id()));
    repl_with(None, &["greedy", "greedy", "greedy"], 1).exec(&format!("save {}", plain.display())).unwrap();
    assert!(!std::fs::read_to_string(&plain).unwrap().contains("check:"));
    // An unknown mode in a save is refused with the file named.
    std::fs::write(&file, std::fs::read_to_string(&file).unwrap().replace("check: sample", "check: often")).unwrap();
    let err = other.exec(&format!("load {}", file.display())).unwrap_err();
    assert!(err.contains(":17:1: error: `check`: unknown check mode `often`"), "{err}");
    assert_eq!(other.engine().check_mode(), CheckMode::Sample, "a refused load changes nothing");
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&plain);
}

#[test]
fn reload_replays_under_changed_rules_and_reports_the_divergence() {
    let (pack, _) = copy_data("reload");
    let mut r = repl_with(Some(&pack), &["greedy", "greedy", "greedy", "greedy"], 7);
    r.exec("round").unwrap();
    let n = r.exec("history").unwrap().lines().count();
    // Unchanged rules: the same game.
    let msg = r.exec("reload").unwrap();
    assert!(msg.contains("the replay matches"), "{msg}");
    // A castle now costs 1: the same decisions, another game.
    edit(&pack.join("cards.yaml"), "handler: build, cost: 3,", "handler: build, cost: 1,");
    let msg = r.exec("reload").unwrap();
    assert!(msg.contains("the replay diverged at entry"), "{msg}");
    assert_eq!(r.exec("history").unwrap().lines().count(), n, "every entry was still legal");
    snap("repl_reload_divergence", &msg);
    // Broken rules: reported with file and line; the previous rules stay.
    let before = r.state().clone();
    std::fs::write(pack.join("winter.lua"), "shogun.handler(\"winter\", function()\n  local x = \nend)\n").unwrap();
    let err = r.exec("reload").unwrap_err();
    assert!(err.contains("previous rules stay active") && err.contains("winter.lua:3"), "{err}");
    assert_eq!(r.state(), &before);
    assert!(r.exec("next").is_ok());
}

#[test]
fn lua_is_read_only_and_errors_change_nothing() {
    let mut r = repl_with(None, &["human", "greedy", "greedy", "greedy"], 2);
    r.exec("next").unwrap();
    let before = r.state().clone();
    assert_eq!(r.exec("lua game.chests(1)").unwrap(), before.players[0].chests.to_string());
    assert_eq!(
        r.exec("lua local n = 0 for p = 1, #MAP.provinces do n = n + game.armies(p) end return n").unwrap(),
        before.provinces.iter().map(|p| u32::from(p.armies)).sum::<u32>().to_string()
    );
    // A whole plan written at once, then locked in.
    let mut q = repl_with(None, &["human", "greedy", "greedy", "greedy"], 2);
    for c in ["auto off", "next", "next", "next"] {
        q.exec(c).unwrap();
    }
    let shown = q.exec("plan taxes:Settsu castle:Noto bid:1").unwrap();
    assert!(shown.contains("castle Noto") && shown.contains("taxes Settsu") && shown.lines().next().unwrap().ends_with("bid 1"), "{shown}");
    assert!(q.exec("plan taxes:Kozuke").is_err(), "A does not hold Kozuke");
    // Spaces stay empty only for lack of cards: A still holds province cards.
    assert!(q.exec("plan done").unwrap_err().contains("lack of cards"));
    q.exec("plan taxes:Settsu castle:Noto rice:Kaga deploy5:Omi deploy3:Tamba attack_a:Awa-Shikoku bid:1").unwrap();
    q.exec("plan done").unwrap();
    let last = q.exec("history 1").unwrap();
    assert!(last.contains("A plan castle:Noto") && last.contains("taxes:Settsu") && last.ends_with("bid:1"), "{last}");
    let err = r.exec("lua error('boom')").unwrap_err();
    assert!(err.contains("boom"), "{err}");
    let err = r.exec("lua game.gain(1, 5)").unwrap_err();
    assert!(err.contains("not allowed here"), "{err}");
    let err = r.exec("lua x = 1").unwrap_err();
    assert!(err.contains("cannot set global"), "{err}");
    assert_eq!(r.state(), &before);
    assert!(r.engine().runtime().incomplete("for i = 1, 3 do"));
    assert!(!r.engine().runtime().incomplete("return 1"));
}

#[test]
fn what_if_edits_are_recorded_and_undone() {
    let mut r = repl_with(None, &["human", "greedy", "greedy", "greedy"], 2);
    for c in ["next", "next", "next"] {
        r.exec(c).unwrap();
    }
    let settsu = province(r.engine(), "Settsu");
    r.exec("set Settsu owner=B armies=3 unrest=2 buildings=castle").unwrap();
    let p = r.state().provinces[settsu];
    assert_eq!((p.owner, p.armies, p.unrest, p.buildings.count_ones()), (Some(Seat::new(1)), 3, 2, 1));
    r.exec("set A chests=40 rice=3").unwrap();
    assert_eq!(r.state().players[0].chests, 40);
    r.exec("force A=2 B=1 peasants=1").unwrap();
    assert_eq!(r.state().forced_throws.len(), 1);
    assert!(r.exec("history").unwrap().contains("edit: set Settsu owner=B armies=3 unrest=2 buildings=castle"));
    // Bad edits are refused whole.
    let before = r.state().clone();
    assert!(r.exec("set Settsu armies=999").unwrap_err().contains("cubes in supply"));
    assert!(r.exec("set Settsu colour=red").is_err());
    assert!(r.exec("set Iwami owner=A").is_ok() || r.state().seats() == 3);
    r.exec("undo").unwrap();
    assert_eq!(r.state(), &before);
    r.exec("undo 3").unwrap();
    assert_eq!(r.state().provinces[settsu].owner, Some(Seat::new(0)));
}

#[test]
fn bare_shogun_opens_the_repl_on_the_default_game() {
    let (ok, out) = session("status\n", &[]);
    assert!(ok, "{out}");
    assert!(out.contains("map sun, 4 players, seed 1") && out.contains("seats: A human, B planner, C planner, D planner"), "{out}");
}

/// The REPL's other seats and `plan auto` are the default players (the
/// rule-aware planner), as in `run` and `lab`; `plan auto BOT` asks
/// another bot, and an unknown name is refused with the bots' names.
#[test]
fn the_repl_proposes_and_plays_with_the_default_players() {
    let script = "next\nnext\nnext\nplan auto\nplan show\nplan auto planner\nplan show\nplan auto greedy\nplan show\nplan auto nobody\n";
    let (ok, out) = session(script, &["play", "--seed", "5"]);
    assert!(!ok, "the unknown bot is refused: {out}");
    let shown: Vec<&str> = out.split("> plan show").skip(1).map(|s| s.split("\n> ").next().unwrap_or_default()).collect();
    assert_eq!(shown.len(), 3, "{out}");
    assert_eq!(shown[0], shown[1], "plan auto is the planner's plan: {out}");
    assert!(out.contains("plan auto nobody") && out.contains("planner") && out.contains("greedy"), "{out}");
    let (ok, out) = session("status\n", &["play", "--players", "3"]);
    assert!(ok && out.contains("seats: A human, B planner, C planner"), "{out}");
}

#[test]
fn interactive_completion_and_history_through_a_pty() {
    let home = std::env::temp_dir().join(format!("shogun-pty-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let start = |home: &Path| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_shogun"));
        cmd.env("SHOGUN_DATA", root()).env("HOME", home).env("XDG_DATA_HOME", home.join("data")).env("TERM", "xterm").env("NO_COLOR", "1");
        rexpect::session::spawn_command(cmd, Some(15_000)).unwrap()
    };
    let mut p = start(&home);
    p.exp_string("`help` lists the commands").unwrap();
    // Tab completes a command...
    p.send("stat\t").unwrap();
    p.send_line("").unwrap();
    p.exp_string("seats: A human").unwrap();
    // ...and a province name.
    p.send("province Sett\t").unwrap();
    p.send_line("").unwrap();
    p.exp_string("Settsu (purple region)").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    let history = std::fs::read_to_string(home.join("data/shogun-lab/history")).unwrap();
    assert!(history.contains("province Settsu"), "{history}");
    // A new session recalls the last command (`quit`) with the up arrow:
    // the session ends only if the history brought it back.
    let mut p = start(&home);
    p.exp_string("`help` lists the commands").unwrap();
    p.send("\x1b[A").unwrap();
    p.send_line("").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 13 item 1: a seat reads only what it may know at that moment.
#[test]
fn a_seat_sees_no_secret_plan_before_its_cards_are_turned_up() {
    use shogun_lab::core::Phase;
    let mut r = repl_with(None, &["human", "greedy", "greedy", "greedy"], 3);
    for c in ["auto off", "next", "next", "next", "plan auto", "plan done"] {
        r.exec(c).unwrap_or_else(|e| panic!("{c}: {e}"));
    }
    let out = r.exec("step 3").unwrap();
    assert!(out.contains("B locks in a plan"), "{out}");
    let history = r.exec("history").unwrap();
    let b = history.lines().find(|l| l.contains(" B plan")).expect("B's entry");
    assert!(!b.contains(':'), "B's plan is secret during planning: {b}");
    assert!(b.contains("cards face down"), "{b}");
    assert!(history.lines().any(|l| l.contains(" A plan castle:")), "A sees its own plan: {history}");
    // The reveal turns up the bids only, not the plans.
    let out = r.exec("next").unwrap();
    assert!(out.contains("A plans:") && out.contains("bids:"), "{out}");
    assert!(!out.contains("B plans:") && !out.contains("D plans:"), "{out}");
    assert!(!r.exec("log").unwrap().contains("C plans:"));
    let b = r.exec("history").unwrap().lines().find(|l| l.contains(" B plan")).unwrap().to_string();
    assert!(b.contains(" bid:") && !b.contains("castle:"), "the bid only: {b}");
    // Each action's cards are turned up when it is carried out.
    r.exec("seat A greedy").unwrap();
    while !matches!(r.state().phase, Phase::Actions { card: 1.., .. }) {
        r.exec("step").unwrap();
    }
    let Phase::Actions { card, .. } = r.state().phase else { unreachable!() };
    let b = r.exec("history").unwrap().lines().find(|l| l.contains(" B plan")).unwrap().to_string();
    let id = |k: usize| r.engine().rules.cards.actions[r.state().action_row[k] as usize].id.clone();
    let shown: Vec<&str> = b.split_whitespace().filter(|w| w.contains(':') && !w.starts_with("bid:")).map(|w| w.split(':').next().unwrap()).collect();
    assert!(shown.contains(&id(0).as_str()), "the first action's card is up: {b}");
    for k in card as usize + 1..r.state().action_row.len() {
        assert!(!shown.contains(&id(k).as_str()), "action {} has not come yet: {b}", k + 1);
    }
    // The god view shows everything, and the prompt says so.
    assert!(!r.prompt().contains("god"));
    r.exec("view god").unwrap();
    assert!(r.prompt().contains("god view"), "{}", r.prompt());
    assert!(r.exec("log").unwrap().contains("C plans:"));
    let b = r.exec("history").unwrap().lines().find(|l| l.contains(" B plan")).unwrap().to_string();
    assert!(b.contains("castle:") && !b.contains("face down"), "{b}");
}

/// Issue 13 item 2: a reload under rules that fail at run time keeps the
/// whole log (the undone entries too), and a reload after the fix replays
/// all of it.
#[test]
fn reload_never_loses_the_game() {
    let (pack, _) = copy_data("reload-keep");
    let mut r = repl_with(Some(&pack), &["greedy", "greedy", "greedy", "greedy"], 7);
    r.exec("round").unwrap();
    r.exec("step 3").unwrap();
    let n = r.exec("history").unwrap().lines().count();
    // `undo` takes back the last command: the three steps.
    r.exec("undo").unwrap();
    // Undone entries survive a reload that replays fine.
    let msg = r.exec("reload").unwrap();
    assert!(msg.contains("`redo` brings back the 3 undone entries"), "{msg}");
    assert_eq!(r.exec("history").unwrap().lines().count(), n - 3);
    // A Lua runtime error in an action: the replay stops, the log is kept.
    let actions = pack.join("actions.lua");
    let good = std::fs::read_to_string(&actions).unwrap();
    edit(&actions, "  game.pay(seat, cost)\n", "  game.pay(seat, cost + nil)\n");
    let msg = r.exec("reload").unwrap();
    assert!(msg.contains("is no longer legal") && msg.contains(&format!("the whole log ({n} entries) is kept")), "{msg}");
    assert!(msg.contains("`reload` again"), "the message says how: {msg}");
    assert!(r.exec("history").unwrap().lines().count() < n - 3);
    // The fix, and a reload: the whole game is back, redo included.
    std::fs::write(&actions, good).unwrap();
    let msg = r.exec("reload").unwrap();
    assert!(msg.contains(&format!("replayed {n} entries")) && msg.contains("the replay matches"), "{msg}");
    assert_eq!(r.exec("history").unwrap().lines().count(), n - 3);
    r.exec("redo 3").unwrap();
    assert_eq!(r.exec("history").unwrap().lines().count(), n);
}

/// Whether `actual` is the README's `shown` line: equal, or, where the
/// line has `…`, the parts around it in order (the first at the start,
/// the last at the end).
fn shown_as(shown: &str, actual: &str) -> bool {
    let parts: Vec<&str> = shown.split('…').collect();
    if parts.len() == 1 {
        return shown == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || !actual[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// README's sample session is what the REPL prints: the banner, each
/// prompt before its command (it took three `next`s from setup to the
/// first plan, where the README showed one), and each output line, in
/// order, where a line `…` stands for lines left out and a `…` in a line
/// for part of it. Nothing is left out without a `…`.
#[test]
fn readme_sample_session_is_what_the_repl_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("A short session").expect("the sample session");
    let block = &readme[start..];
    let block = &block[block.find("```\n").unwrap() + 4..];
    let block = &block[..block.find("```").unwrap()];
    let mut r = repl(&["human", shogun_lab::bots::DEFAULT, shogun_lab::bots::DEFAULT, shogun_lab::bots::DEFAULT], 1);
    let lines: Vec<&str> = block.lines().collect();
    let banner = shogun_lab::repl::banner(&r);
    assert_eq!(lines[..2].join("\n"), banner, "README's banner");
    let dir = std::env::temp_dir().join(format!("shogun-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tmp = format!("{}/", dir.display());
    // Each command with the lines the README shows after it.
    let mut steps: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for l in &lines[2..] {
        match l.split_once("] > ") {
            Some((prompt, cmd)) if l.starts_with('[') => steps.push((prompt, cmd, Vec::new())),
            _ => steps.last_mut().expect("a prompt first").2.push(l),
        }
    }
    assert!(steps.len() >= 10, "{steps:?}");
    for (prompt, cmd, shown) in steps {
        assert_eq!(r.prompt(), format!("{prompt}] > "), "the prompt before `{cmd}`");
        let typed = match cmd.strip_prefix("save ") {
            Some(f) => format!("save {tmp}{f}"),
            None => cmd.to_string(),
        };
        let out = r.exec(&typed).unwrap_or_else(|e| panic!("`{cmd}`: {e}")).replace(&tmp, "");
        let actual: Vec<&str> = out.lines().collect();
        let (mut at, mut skip) = (0, false);
        for s in &shown {
            if s.trim() == "…" {
                skip = true;
                continue;
            }
            let found = if skip {
                actual[at..].iter().position(|a| shown_as(s, a)).map(|i| at + i)
            } else {
                (at < actual.len() && shown_as(s, actual[at])).then_some(at)
            };
            let Some(i) = found else { panic!("after `{cmd}` the README shows {s:?}, the REPL printed:\n{out}") };
            at = i + 1;
            skip = false;
        }
        assert!(skip || at == actual.len(), "after `{cmd}` the README leaves out lines without a `…`; the REPL printed:\n{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A new user's trial (2026-11-28): `shogun` alone (README's main job)
/// made its options from a `Default` that left the odds' simulated throws
/// at 0, so every battle's odds read "win 0%, tie 0%, lose 0%"; and it
/// refused `play`'s options (`shogun --variant ...`). Alone it is `play`
/// with `play`'s defaults and options.
#[test]
fn shogun_alone_is_play_with_its_defaults_and_options() {
    let script = "next\nnext\nnext\nodds Etchu from Kaga\nquit\n";
    let (ok, alone) = session(script, &[]);
    let (ok_play, play) = session(script, &["play"]);
    assert!(ok && ok_play, "{alone}\n{play}");
    assert!(alone.contains("win 52%, tie 28%, lose 20%") && !alone.contains("win 0%"), "{alone}");
    assert_eq!(alone, play);
    let (ok, out) = session("quit\n", &["--variant", "hard-winter", "--seed", "7"]);
    assert!(ok && out.starts_with("shogun-lab — 4 players on the sun map, seed 7, rules base+hard-winter(loss=2)"), "{out}");
    // `play`'s options before a subcommand are refused, not dropped.
    let (ok, out) = session("", &["--seed", "3", "run"]);
    assert!(!ok && out.contains("error:"), "{out}");
}
