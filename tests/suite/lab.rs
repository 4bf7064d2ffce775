//! The variant lab: paired games, statistics, shards, reports.

use std::path::PathBuf;
use std::process::Command;

use clap::Parser;
use shogun_lab::cli::lab::{arm_words, build};
use shogun_lab::cli::{Cli, Command as Sub};
use shogun_lab::lab::{self, GameRecord, Report};

/// A data folder with the shipped maps and rules and the test variants.
fn data_dir() -> PathBuf {
    // Tests run in parallel: the first makes the copy, the others wait for it.
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("shogun-lab-test-lab-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = crate::common::root();
        let copy = |from: PathBuf, to: PathBuf| crate::common::copy_tree(&from, &to);
        copy(root.join("maps"), dir.join("maps"));
        copy(root.join("scripts"), dir.join("scripts"));
        copy(root.join("tests/fixtures/variants/seat-a-taxes"), dir.join("variants/seat-a-taxes"));
        copy(root.join("tests/fixtures/variants/seat-a-rare"), dir.join("variants/seat-a-rare"));
        copy(root.join("tests/fixtures/variants/null-draw"), dir.join("variants/null-draw"));
        copy(root.join("variants/hard-winter"), dir.join("variants/hard-winter"));
        copy(root.join("variants/castle-majority"), dir.join("variants/castle-majority"));
        dir
    })
    .clone()
}

fn parse(args: &[&str]) -> Result<shogun_lab::cli::lab::LabArgs, String> {
    let mut v: Vec<String> = vec!["shogun".into(), "lab".into(), "--data".into(), data_dir().display().to_string()];
    v.extend(args.iter().map(|s| s.to_string()));
    match Cli::try_parse_from(arm_words(v)).map_err(|e| e.to_string())?.command {
        Some(Sub::Lab(cmd)) => Ok(cmd.args),
        other => Err(format!("not a lab command: {other:?}")),
    }
}

fn run(args: &[&str]) -> (Report, Vec<GameRecord>) {
    let lab = build(&parse(args).unwrap(), &|_| None).unwrap();
    let mut records = Vec::new();
    let mut keep = |r: &GameRecord| {
        records.push(r.clone());
        Ok(())
    };
    let agg = lab::run(&lab, &mut keep, &|_| {}).unwrap();
    (Report::build(&agg), records)
}

fn error_of(args: &[&str]) -> String {
    match parse(args) {
        Err(e) => e,
        Ok(a) => match build(&a, &|_| None) {
            Err(e) => e,
            Ok(_) => panic!("{args:?} was accepted"),
        },
    }
}

#[test]
fn identical_rulesets_differ_by_exactly_zero() {
    let (report, records) = run(&["--games", "40", "--against", "base", "--jobs", "2"]);
    let c = &report.conditions[0];
    assert_eq!(c.games, 40);
    let p = &c.pairs[0];
    assert_eq!(p.identical_games, 40);
    assert!(p.diffs.len() > 30, "every metric is compared: {:?}", p.diffs.keys());
    for (k, i) in &p.diffs {
        assert!(i.value == 0.0 && i.lo == 0.0 && i.hi == 0.0, "{k}: {i:?}");
    }
    assert!(p.verdict[0].contains("identical games on all 40 seeds"), "{:?}", p.verdict);
    // Common random numbers: same seed and bots for game i in every arm.
    for pair in records.chunks(2) {
        assert_eq!(pair[0].seed, pair[1].seed);
        assert_eq!(pair[0].points, pair[1].points);
    }
}

#[test]
fn a_variant_that_favours_seat_a_is_detected() {
    let (report, _) = run(&["--variant", "seat-a-taxes", "--against", "base", "--games", "300"]);
    let p = &report.conditions[0].pairs[0];
    let a = p.diffs["win.A"];
    // Observed: +12.8 percentage points (6.5..19.2) on these seeds; the bound leaves room.
    assert!(a.lo > 2.0, "seat A's win-rate gain is detected: {a:?}");
    let f = &p.findings[0];
    assert!(f.metric == "win.A" && f.detected && f.p_adjusted < 0.05 && f.lo > 0.0, "{f:?}");
    assert!(p.verdict[0].contains("raises seat A's win rate"), "{:?}", p.verdict);
    assert!(report.conditions[0].arms[0].name.contains("seat-a-taxes(bonus=10)"));
}

#[test]
fn a_null_variant_states_no_change_where_the_old_verdict_did() {
    // null-draw changes no rule (in winter it draws an unused number from
    // game.random before the revolts are drawn), so nearly every game
    // differs from base but nothing changes on average. On these seeds the
    // old verdict (every headline at 95% on its own) stated changes: seed
    // 8001 the margin and lead changes, 13001 cubes stuck in the tower,
    // 17001 battles and provinces changing hands, 20001 seat A. Under Holm
    // over the family it states none. (Should a change to the game's random
    // numbers or to the bots make one of these seeds state a change --
    // expected in 1 of 20 to 40 seeds -- pick the seeds anew the same way.
    // They were picked so when greedy began to weigh its extra cubes: of
    // seeds 1001, 2001, ..., 40001, 14 had a headline at p < 0.05 on its
    // own and 2 (16001, 37001) a detection under Holm, 5% of the seeds, the
    // family-wise rate the method promises.)
    for seed in ["8001", "13001", "17001", "20001"] {
        let (report, _) = run(&["--variant", "null-draw", "--against", "base", "--games", "100", "--seed", seed]);
        let p = &report.conditions[0].pairs[0];
        assert!(p.identical_games < 100, "seed {seed}: the games differ");
        assert!(p.findings.iter().any(|f| f.p < 0.05), "seed {seed}: a headline on its own at 95% states a change: {:?}", p.findings);
        assert!(p.findings.iter().all(|f| !f.detected && f.p_adjusted >= 0.05), "seed {seed}: {:?}", p.findings);
        assert!(p.verdict.iter().all(|l| !l.contains("raises") && !l.contains("lowers") && !l.contains(" from ")), "seed {seed}: {:?}", p.verdict);
        assert!(p.verdict[0].contains("each changes by less than ±"), "seed {seed}: an equivalence bound, not silence: {:?}", p.verdict);
        assert!(p.verdict.iter().all(|l| !l.starts_with("beyond")), "seed {seed}: nothing marked beyond the headlines: {:?}", p.verdict);
    }
}

#[test]
fn a_rare_change_gets_intervals_of_some_width() {
    // seat-a-rare changes seat A's result in about 1 game in 100 (here 1 of
    // 200); the old t interval of a seat whose result never changed had no
    // width ("each within ±0.0 points").
    // (Under the cascade tower and the "may" question province 7 is the one
    // where the bonus changes a few of the first 200 games: 5, none of them
    // seat A's result; the intervals must still have width.)
    // Greedy bots: the games this comment counts.
    let (report, _) = run(&["--variant", "seat-a-rare:province=7", "--against", "base", "--games", "200", "--bots", "greedy"]);
    let p = &report.conditions[0].pairs[0];
    assert!(p.identical_games < 200);
    let a = &p.findings[0];
    assert!(a.metric == "win.A" && (0..=10).contains(&a.games_differ), "{a:?}");
    for f in &p.findings {
        assert!(f.hi - f.lo > 0.0 && f.lo <= f.estimate && f.estimate <= f.hi, "{f:?}");
        assert!(f.detectable > 0.0, "{f:?}");
    }
    for (k, i) in &p.diffs {
        assert!(i.hi > i.lo, "{k}: {i:?}");
    }
    // The findings as scripts read them.
    let json = serde_json::to_value(&report).unwrap();
    let f = &json["conditions"][0]["pairs"][0]["findings"][0];
    for key in ["metric", "estimate", "lo", "hi", "p_adjusted", "detected", "correlation", "variance_reduction", "games_differ"] {
        assert!(f.get(key).is_some(), "findings lack {key}: {f}");
    }
    assert_eq!(f["unit"], "percentage points");
}

#[test]
fn the_number_of_jobs_does_not_change_the_result() {
    let one = run(&["--variant", "hard-winter", "--against", "--games", "30", "--jobs", "1", "--batch", "7"]);
    let two = run(&["--variant", "hard-winter", "--against", "--games", "30", "--jobs", "2", "--batch", "11"]);
    assert_eq!(serde_json::to_string(&one.0).unwrap(), serde_json::to_string(&two.0).unwrap());
    assert_eq!(one.1, two.1);
}

#[test]
fn merged_shards_give_the_single_run_report() {
    let exe = env!("CARGO_BIN_EXE_shogun");
    let dir = std::env::temp_dir().join(format!("shogun-lab-test-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = data_dir();
    let common = ["lab", "--data", data.to_str().unwrap(), "--variant", "hard-winter", "--against", "base", "--games", "24", "--bots", "greedy,random"];
    let single = Command::new(exe).args(common).args(["--json"]).output().unwrap();
    assert!(single.status.success(), "{}", String::from_utf8_lossy(&single.stderr));
    let mut files = Vec::new();
    for k in 1..=3 {
        let f = dir.join(format!("part{k}.jsonl"));
        let out = Command::new(exe).args(common).args(["--shard", &format!("{k}/3"), "--jsonl", f.to_str().unwrap(), "--json"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        files.push(f);
    }
    // In any order.
    files.reverse();
    let merged = Command::new(exe).args(["lab", "merge"]).args(&files).arg("--json").output().unwrap();
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert_eq!(String::from_utf8_lossy(&merged.stdout), String::from_utf8_lossy(&single.stdout));
    // A missing shard or one given twice is refused.
    let missing = Command::new(exe).args(["lab", "merge"]).args(&files[..2]).output().unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("missing"), "{}", String::from_utf8_lossy(&missing.stderr));
    let twice = Command::new(exe).args(["lab", "merge"]).args(&files).arg(&files[0]).output().unwrap();
    assert!(String::from_utf8_lossy(&twice.stderr).contains("overlaps"), "{}", String::from_utf8_lossy(&twice.stderr));
}

#[test]
fn bad_arguments_get_clear_errors() {
    assert!(error_of(&["--variant", "no-such-variant", "--against"]).contains("unknown variant `no-such-variant`"));
    assert!(error_of(&["--against", "--variant", "nope"]).contains("unknown variant `nope`"));
    assert!(error_of(&["--games", "0"]).contains("--games must be at least 1"));
    assert!(error_of(&["--shard", "3/2", "--jsonl", "x.jsonl"]).contains("1 <= K <= N"));
    assert!(error_of(&["--shard", "two", "--jsonl", "x.jsonl"]).contains("expected K/N"));
    assert!(error_of(&["--shard", "1/2"]).contains("--jsonl"));
    assert!(error_of(&["--until-ci", "0"]).contains("--until-ci"));
    assert!(error_of(&["--towers", "two-level,nope"]).contains("no tower `nope`"));
    assert!(error_of(&["--bots", "clever"]).contains("unknown player `clever`"));
    assert!(error_of(&["--players", "9"]).contains("--players 9"));
    assert!(error_of(&["--against", "--colour", "red"]).contains("--colour"));
    assert!(error_of(&["--check", "often"]).contains("unknown check mode `often`"));
}

#[test]
fn until_ci_stops_when_the_interval_is_narrow_enough() {
    let (report, _) = run(&["--variant", "hard-winter", "--against", "--games", "4000", "--batch", "40", "--until-ci", "60"]);
    let n = report.conditions[0].games;
    assert!(n < 4000 && n % 40 == 0, "stopped after {n} games");
}

#[test]
fn sensitivity_runs_every_arm_under_each_tower_and_bot_set() {
    let (report, _) = run(&["--variant", "hard-winter", "--against", "--games", "12", "--towers", "two-level,stateless", "--bots-sets", "greedy,random"]);
    assert_eq!(report.conditions.len(), 4);
    let labels: Vec<&str> = report.conditions.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["tower two-level, bots greedy", "tower stateless, bots greedy", "tower two-level, bots random", "tower stateless, bots random"]);
    assert!(!report.sensitivity.is_empty());
    assert!(report.sensitivity.iter().all(|r| r.by_condition.len() == 4));
    assert!(report.text().contains("sensitivity to tower and bots"));
}

#[test]
fn the_html_report_holds_its_plots() {
    let (report, _) = run(&["--variant", "hard-winter", "--against", "--games", "20", "--towers", "two-level,stateless"]);
    let page = lab::html::page(&report).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script"), "no JavaScript");
    // Per condition: win rates, three distributions, two forest plots.
    assert_eq!(page.matches("<svg").count(), 12);
    for title in ["Win rate by seat", "Margin of victory", "Battles per game", "Game length", "Win rate difference by seat", "Sensitivity to the tower"] {
        assert!(page.contains(title), "missing {title}");
    }
}

#[test]
fn bots_rotate_over_seats_when_they_differ() {
    let (_, records) = run(&["--bots", "greedy,random", "--games", "4"]);
    let seats: Vec<Vec<String>> = records.iter().map(|r| r.bots.clone()).collect();
    assert_eq!(seats[0], ["greedy", "random", "random", "random"]);
    assert_eq!(seats[1], ["random", "random", "random", "greedy"]);
    let (_, fixed) = run(&["--bots", "greedy,random", "--games", "2", "--no-rotate"]);
    assert_eq!(fixed[1].bots, ["greedy", "random", "random", "random"]);
}

#[test]
fn the_repl_compares_the_rules_with_those_before_the_last_reload() {
    use shogun_lab::play::GameSpec;
    use shogun_lab::repl::{Config, Repl};
    let (pack, map) = crate::common::copy_data("lab-reload");
    let spec = GameSpec { map: map.display().to_string(), rules: Some(pack.clone()), data: Some(crate::common::root()), ..GameSpec::default() };
    let seats = ["human", "greedy", "greedy", "greedy"].iter().map(|s| s.to_string()).collect();
    let mut repl = Repl::new(Config { spec, players: 4, seed: 1, seats }).unwrap();
    // Nothing to compare: refused before a game is played (it used to play
    // the games, then say so); a billion games would take days.
    let started = std::time::Instant::now();
    for cmd in ["lab 20", "lab 1000000000", "lab --seed 3"] {
        let err = repl.exec(cmd).unwrap_err();
        assert!(err.contains("nothing to compare") && err.contains("--against ARM") && err.contains("`reload`"), "{cmd}: {err}");
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "the refusals played games");
    // A harder winter: more revolts, so more battles.
    crate::common::edit(&pack.join("winter.lua"), "    loss = card.rice_loss\n", "    loss = card.rice_loss + 4\n");
    repl.exec("reload").unwrap();
    let out = repl.exec("lab 60 --jobs 2").unwrap();
    assert!(out.contains("base (now) vs base (before reload)"), "{out}");
    assert!(out.contains("changes battles per game from"), "{out}");
    let err = repl.exec("lab 10 --against no-such-variant").unwrap_err();
    assert!(err.contains("unknown variant `no-such-variant`"), "{err}");
    assert!(repl.exec("lab 10 --colour red").unwrap_err().contains("unexpected `--colour`"));
}

/// A report file that cannot be written is refused before a game is
/// played or a shard read (it used to be said after the whole run, the
/// report printed and the file lost).
#[test]
fn an_unwritable_report_is_refused_before_the_run() {
    let exe = env!("CARGO_BIN_EXE_shogun");
    let data = data_dir();
    let dir = std::env::temp_dir().join(format!("shogun-lab-test-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("no-such-folder/lab.html");
    let jsonl = dir.join("run.jsonl");
    let out = Command::new(exe)
        .args(["lab", "--data", data.to_str().unwrap(), "--games", "2", "--bots", "random", "--jobs", "1", "--report", report.to_str().unwrap()])
        .args(["--jsonl", jsonl.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("cannot write") && stderr.contains("lab.html"), "{stderr}");
    assert!(out.stdout.is_empty(), "games were played and reported: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!jsonl.exists(), "games were played into {}", jsonl.display());
    // `lab merge` likewise refuses before it reads a shard.
    let out = Command::new(exe).args(["lab", "merge", "no-such-shard.jsonl", "--report", report.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("lab.html") && !stderr.contains("no-such-shard"), "{stderr}");
}

#[test]
fn a_killed_run_leaves_no_partial_file_and_no_progress_lines_in_a_pipe() {
    let exe = env!("CARGO_BIN_EXE_shogun");
    let dir = std::env::temp_dir().join(format!("shogun-lab-test-kill-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("run.jsonl");
    let data = data_dir();
    let child = Command::new(exe)
        .args(["lab", "--data", data.to_str().unwrap(), "--games", "100000", "--jobs", "1", "--batch", "5", "--jsonl", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let partial = || std::fs::read_dir(&dir).unwrap().flatten().any(|e| e.file_name().to_string_lossy().ends_with(".partial"));
    let start = std::time::Instant::now();
    while !partial() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(partial(), "the run started writing");
    // Some games played: a progress line would be due if there were any.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let pid = child.id() as i32;
    // SAFETY: kill(2) takes plain integers and touches no memory of ours;
    // `pid` is our own child, not yet waited for, so it names no other process.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let end = child.wait_with_output().unwrap();
    assert_eq!(end.status.code(), Some(128 + libc::SIGTERM), "{end:?}");
    assert!(!partial() && !out.exists(), "{:?}", std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect::<Vec<_>>());
    assert!(String::from_utf8_lossy(&end.stderr).trim().is_empty(), "no progress off a terminal: {}", String::from_utf8_lossy(&end.stderr));
}

/// Issue 22 item 7 and its "done when": the lab counts behaviour (actions
/// carried out by kind, buildings built by kind, per seat, from the
/// engine's events), and under a variant that pays more for castles the
/// rule-aware player builds more of them, with an interval above 0, while
/// greedy (fixed heuristics) plays the very same games.
#[test]
fn a_scoring_variant_changes_what_the_rule_aware_player_builds() {
    let (report, records) = run(&["--variant", "castle-majority", "--against", "base", "--games", "120", "--bots", "planner"]);
    let p = &report.conditions[0].pairs[0];
    let castles = p.diffs["built.castle"];
    // Observed on seeds 1..300: +0.86 castles per game (0.65..1.07).
    assert!(castles.lo > 0.0, "more castles under castle-majority: {castles:?}");
    for r in &records {
        // A build carried out is a building built; a skipped one is neither.
        for kind in ["castle", "temple", "theatre"] {
            assert_eq!(r.actions[kind], r.built[kind], "game {} {kind}", r.game);
        }
        // At most one card per action and round (3 years of 3 rounds).
        for seat in 0..4 {
            let carried: u32 = r.actions.values().map(|v| v[seat]).sum();
            assert!(carried > 5 && carried <= 10 * 9, "{:?}", r.actions);
        }
        assert_eq!(r.actions.len(), 10, "every action card of the rules is counted: {:?}", r.actions.keys());
        assert_eq!(r.built["castle"].len(), 4, "per seat");
        // Rice collected is counted: a game with rice actions carried out
        // has rice collected, one without has none (a game where no seat
        // collects rice happens: under the base rules, seed 33's planners did not).
        let rice: i64 = r.tallies.get("collected.rice").map_or(0, |v| v.iter().sum());
        assert_eq!(rice > 0, r.actions["rice"].iter().sum::<u32>() > 0, "game {}: rice collected is counted", r.game);
    }
    assert!(records.iter().any(|r| r.tallies.get("collected.rice").is_some_and(|v| v.iter().sum::<i64>() > 0)), "rice is collected");
    let table = report.text();
    assert!(table.contains("built.castle") && table.contains("actions.deploy5") && table.contains("tally.collected.taxes"), "{table}");
    let (report, _) = run(&["--variant", "castle-majority", "--against", "base", "--games", "60", "--bots", "greedy"]);
    let p = &report.conditions[0].pairs[0];
    assert_eq!(p.diffs["built.castle"].value, 0.0, "greedy does not read the scoring");
    assert_eq!(p.diffs["actions.attack_a"].value, 0.0);
    // The same moves, other scores: the verdict's headlines (win rates,
    // flow) may see nothing, and the verdict said only "no change"; it
    // now points at what the means table marks beyond them.
    let tested: Vec<&str> = p.findings.iter().map(|f| f.metric.as_str()).collect();
    let marked = p.q_values.iter().filter(|(k, q)| **q < 0.05 && !tested.contains(&k.as_str())).count();
    let last = p.verdict.last().expect("a verdict");
    assert!(marked > 0 && last.starts_with(&format!("beyond the verdict's headlines the means table marks {marked} metrics")), "{marked}: {:?}", p.verdict);
    assert!(
        last.contains(" points.") && last.contains("tally.points.majority") && last.contains("not family-wise"),
        "the points by seat and by source: {last}"
    );
}

/// A record as the lab's metrics: one name per number, the later of two
/// ways of writing a name winning (a tally `a.B` and seat B's tally `a`),
/// a game tally added to its per-seat total or standing alone.
#[test]
fn a_record_flattens_into_named_metrics() {
    use std::collections::BTreeMap;
    let seats: Vec<String> = vec!["A".into(), "B".into()];
    let rec = GameRecord {
        winners: vec!["A".into(), "B".into()],
        ranks: vec![1, 1],
        points: vec![7, 7],
        margin: 0,
        decisions: 12,
        battles: BTreeMap::from([("attack".into(), 3), ("revolt".into(), 2)]),
        actions: BTreeMap::from([("taxes".into(), vec![2, 1])]),
        tallies: BTreeMap::from([("a".into(), vec![1, 2]), ("a.B".into(), vec![5, 6])]),
        game_tallies: BTreeMap::from([("a".into(), 10), ("g".into(), 4), ("a.A".into(), 20)]),
        ..GameRecord::default()
    };
    let mut names = lab::Names::new(&seats);
    let mut flat = lab::Flat::default();
    names.flatten_into(&rec, &mut flat);
    let m = names.named(&flat);
    let want = [
        ("win.A", 0.5),
        ("win.B", 0.5),
        ("points.B", 7.0),
        ("battles", 5.0),
        ("battles.revolt", 2.0),
        ("actions.taxes", 3.0),
        ("actions.taxes.B", 1.0),
        // Per seat plus the game's own: 1 + 2 + 10.
        ("tally.a", 13.0),
        // A game tally never replaces a name the record already has: the
        // game's `a.A` leaves seat A's tally `a`.
        ("tally.a.A", 1.0),
        // Seat B's `a` and the total of `a.B` share a name: the later, the total.
        ("tally.a.B", 11.0),
        ("tally.a.B.A", 5.0),
        ("tally.g", 4.0),
    ];
    for (name, value) in want {
        assert_eq!(m.get(name), Some(&value), "{name}: {m:?}");
    }
    assert!(!m.contains_key("tally.g.A"), "a game tally has no seats: {m:?}");
    // Seats, game, battle kinds, actions, the five names of `a` and `a.B`, `g`.
    assert_eq!(m.len(), 2 * 8 + 7 + 2 + 3 + 5 + 1, "{m:?}");
    // Flattened again, the buffer holds only the new record's metrics.
    let bare = GameRecord { winners: vec!["B".into()], ..GameRecord::default() };
    names.flatten_into(&bare, &mut flat);
    let m = names.named(&flat);
    assert_eq!((m["win.A"], m["win.B"]), (0.0, 1.0));
    assert_eq!(m.len(), 2 * 8 + 7, "{m:?}");
}

/// A metric only one arm's records have is summed for that arm alone and
/// compared against 0 for the other.
#[test]
fn a_metric_of_one_arm_is_paired_against_zero() {
    let (_, records) = run(&["--games", "2", "--against", "base", "--jobs", "1", "--bots", "random"]);
    let header = {
        let lab = build(&parse(&["--games", "2", "--against", "base", "--jobs", "1", "--bots", "random"]).unwrap(), &|_| None).unwrap();
        lab.header.clone()
    };
    let mut agg = lab::Aggregate::new(header);
    for (g, pair) in records.chunks(2).enumerate() {
        let mut pair = pair.to_vec();
        pair[0].tallies.insert("only.here".into(), vec![g as i64 + 1, 0, 0, 0]);
        pair[1].game_tallies.insert("only.there".into(), 5);
        agg.add(&pair).unwrap();
    }
    let conds = agg.conds();
    let c = &conds[0];
    assert_eq!(c.arms[0].metrics["tally.only.here"].sum, 3.0);
    assert!(!c.arms[1].metrics.contains_key("tally.only.here"));
    assert_eq!(c.arms[1].metrics["tally.only.there"].sum, 10.0);
    assert!(!c.arms[0].metrics.contains_key("tally.only.there"));
    let d = &c.pairs[0].diffs;
    assert_eq!((d["tally.only.here"].sum, d["tally.only.here.A"].sum, d["tally.only.here.B"].sum), (3.0, 3.0, 0.0));
    // The first arm minus the second: what only the second has counts negative.
    assert_eq!((d["tally.only.there"].sum, d["tally.only.there"].nonzero), (-10.0, 2));
    assert!(!d.contains_key("tally.only.there.A"), "a game tally has no seats");
    assert_eq!(c.pairs[0].identical, 0);
    assert_eq!(c.arms[0].hist.keys().collect::<Vec<_>>(), ["battles", "decisions", "margin"]);
    assert_eq!(c.arms[1].hist["margin"].values().sum::<u64>(), 2);
}
