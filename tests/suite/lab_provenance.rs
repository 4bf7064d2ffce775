//! The lab's provenance and its merge checks (issue 21 item 6, issue 23
//! items 4, 5 and 9): hashes of the rules files in every header and record,
//! `lab merge` refusing what one run could not have written, `--until-ci`
//! files that merge, and numbers at the edge of the host API that neither
//! wrap nor size an allocation.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A data folder of its own: the shipped maps and rules, hard-winter as a
/// copy (a test edits it) and the fixture variants.
fn data_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shogun-lab-provenance-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("variants/hard-winter")).unwrap();
    let root = crate::common::root();
    crate::common::copy_tree(&root.join("maps"), &dir.join("maps"));
    crate::common::copy_tree(&root.join("scripts"), &dir.join("scripts"));
    std::fs::copy(root.join("variants/hard-winter/variant.yaml"), dir.join("variants/hard-winter/variant.yaml")).unwrap();
    for v in ["wide-numbers", "never-called", "unused-tower", "engine-limit"] {
        crate::common::copy_tree(&root.join("tests/fixtures/variants").join(v), &dir.join("variants").join(v));
    }
    for v in ["income-before-revolt", "castle-majority", "ro-events"] {
        crate::common::copy_tree(&root.join("variants").join(v), &dir.join("variants").join(v));
    }
    dir
}

fn shogun(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shogun")).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Plays the three shards of a small lab into `dir`; returns their files.
fn shards(data: &Path, dir: &Path) -> Vec<String> {
    (1..=3)
        .map(|k| {
            let f = dir.join(format!("part{k}.jsonl")).display().to_string();
            let shard = format!("{k}/3");
            let o =
                shogun(&["lab", "--data", data.to_str().unwrap(), "--variant", "hard-winter", "--against", "--games", "12", "--shard", &shard, "--jsonl", &f]);
            assert!(o.status.success(), "{}", stderr(&o));
            f
        })
        .collect()
}

fn lines(path: &str) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn write(path: &Path, lines: &[Value]) -> String {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
    path.display().to_string()
}

/// `lab merge` of the files; its error message (the merge must fail, with
/// exit code 1: an error, not a panic).
fn merge_error(files: &[String]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_shogun"))
        .args(["lab", "merge"])
        .args(files)
        .arg("--report")
        .arg(std::env::temp_dir().join("never.html"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{files:?} merged: {}", stderr(&o));
    stderr(&o)
}

#[test]
fn headers_and_records_carry_the_rules_hashes_and_seat_letters() {
    let data = data_dir("hashes");
    let files = shards(&data, &data);
    let l = lines(&files[0]);
    assert_eq!(l[0]["record"], "header");
    let h = &l[0]["lab"];
    assert!(h["version"].as_str().unwrap().starts_with("shogun-lab "));
    let rules = h["rules"].as_array().unwrap();
    let names: Vec<&str> = rules[0]["files"].as_array().unwrap().iter().map(|f| f[0].as_str().unwrap()).collect();
    for want in ["rules.yaml", "cards.yaml", "map sun.yaml", "variant hard-winter", "lua actions.lua"] {
        assert!(names.contains(&want), "{names:?}");
    }
    assert!(!rules[1]["files"].as_array().unwrap().iter().any(|f| f[0] == "variant hard-winter"));
    assert_ne!(rules[0]["hash"], rules[1]["hash"]);
    for r in &l[1..] {
        assert_eq!(r["record"], "game");
        assert_eq!(r["rules_hash"], rules[r["arm"].as_u64().unwrap() as usize]["hash"]);
        let w = r["winners"].as_array().unwrap();
        assert!(!w.is_empty() && w.iter().all(|s| ["A", "B", "C", "D"].contains(&s.as_str().unwrap())), "{w:?}");
    }
    // The same files elsewhere give the same hashes (no folder in them).
    let other = data_dir("hashes-elsewhere");
    let again = lines(&shards(&other, &other)[0]);
    assert_eq!(again[0]["lab"]["rules"], l[0]["lab"]["rules"]);
}

#[test]
fn merge_refuses_a_shard_played_with_an_edited_variant() {
    let data = data_dir("edited");
    let files = shards(&data, &data);
    assert!(shogun(&["lab", "merge", &files[0], &files[1], &files[2]]).status.success());
    // The variant changes under the same name; shard 2 is played again.
    let yaml = data.join("variants/hard-winter/variant.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("default: 2", "default: 3")).unwrap();
    let o = shogun(&[
        "lab",
        "--data",
        data.to_str().unwrap(),
        "--variant",
        "hard-winter:loss=2",
        "--against",
        "--games",
        "12",
        "--shard",
        "2/3",
        "--jsonl",
        &files[1],
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = merge_error(&files);
    assert!(e.contains("arm `base+hard-winter(loss=2)` was played with other rules files: variant hard-winter"), "{e}");
}

#[test]
fn merge_refuses_what_one_run_could_not_have_written() {
    let data = data_dir("impossible");
    let files = shards(&data, &data);
    let l = lines(&files[1]);
    let dir = &data;
    // Each case: shard 2 rewritten, and what the message must say.
    let mut cases: Vec<(&str, Vec<Value>, &str)> = Vec::new();
    let with = |i: usize, f: &dyn Fn(&mut Value)| -> Vec<Value> {
        let mut l = l.clone();
        f(&mut l[i]);
        l
    };
    let mut dup = l.clone();
    dup.splice(3..3, l[1..3].iter().cloned());
    cases.push(("duplicate", dup, "in the file twice (a duplicate)"));
    let mut gap = l.clone();
    gap.drain(1..3);
    cases.push(("gap", gap, "missing from the file (a gap)"));
    cases.push((
        "outside",
        with(1, &|r| {
            r["game"] = 11.into();
            r["seed"] = 12.into();
        }),
        "game 11 is outside this file's games 4..8",
    ));
    cases.push(("hash", with(1, &|r| r["rules_hash"] = "0".repeat(64).into()), "played with other rules files"));
    cases.push(("mixed", with(0, &|h| h["lab"]["rules"][0]["hash"] = "1".repeat(64).into()), "was played with other rules files"));
    // A file's hash cut for the message where a two-byte character spans
    // its 12th byte: it panicked (the merge fuzz target's first finding).
    cases.push((
        "hash-not-ascii",
        with(0, &|h| {
            h["lab"]["rules"][0]["hash"] = "1".repeat(64).into();
            h["lab"]["rules"][0]["files"][0][1] = "aaaaaaaaaaa\u{293}bbbb".into();
        }),
        "(sha256 aaaaaaaaaaa\u{293} here, ",
    ));
    cases.push(("winners", with(1, &|r| r["winners"] = serde_json::json!(["Z"])), "winners [Z] are not the seats ranked first"));
    cases.push(("winner-index", with(1, &|r| r["winners"] = serde_json::json!([200])), "not a game record"));
    cases.push(("ranks", with(1, &|r| r["ranks"] = serde_json::json!([1])), "`ranks` has 1 entries for 4 players"));
    cases.push(("seed", with(1, &|r| r["seed"] = 999.into()), "seed 999 does not match game 4"));
    cases.push(("bots", with(1, &|r| r["bots"][0] = "random".into()), "differ from the header's"));
    cases.push(("decisions", with(1, &|r| r["decisions"] = u64::MAX.into()), "more than any game can have"));
    cases.push(("arm", with(1, &|r| r["arm"] = 7.into()), "arm 7 is not in the header"));
    // Numbers that contradict the record's own points and ranks (the audit
    // of issue 23 item 9).
    let margin = l[1]["margin"].as_i64().unwrap();
    cases.push(("margin", with(1, &|r| r["margin"] = (margin + 7).into()), "is not the points of the first two in the standings apart"));
    cases.push(("margin-huge", with(1, &|r| r["margin"] = 1_000_000_000_000_000_000i64.into()), "is not the points of the first two"));
    cases.push(("tiebreak", with(1, &|r| r["tiebreak"] = (!r["tiebreak"].as_bool().unwrap()).into()), "`tiebreak` is"));
    cases.push(("no-decisions", with(1, &|r| r["decisions"] = 0.into()), "0 decisions"));
    // Numbers no game of these rules could have produced (the audit of
    // issue 23 items 4 and 9: each merged, and a count at u64::MAX made its
    // mean 4.6e18). Refused naming the file, the line and the field.
    let edge = shogun_lab::engine::MAX_AMOUNT;
    let mut bounds: Vec<(&str, Vec<Value>, String)> = Vec::new();
    bounds.push(("points-huge", with(1, &|r| r["points"][0] = i64::MAX.into()), format!("`points` of seat A is {}, beyond the host API's ±{edge}", i64::MAX)));
    bounds.push(("points-min", with(1, &|r| r["points"][0] = i64::MIN.into()), format!("`points` of seat A is {}", i64::MIN)));
    bounds.push(("points-edge", with(1, &|r| r["points"][1] = (-edge - 1).into()), format!("`points` of seat B is {}", -edge - 1)));
    bounds.push(("chests-huge", with(1, &|r| r["chests"][2] = (edge + 1).into()), format!("`chests` of seat C is {}", edge + 1)));
    bounds.push(("chests-negative", with(1, &|r| r["chests"][3] = (-1).into()), "`chests` of seat D is -1".into()));
    bounds.push(("battles-huge", with(1, &|r| r["battles"]["attack"] = u64::MAX.into()), "`battles`, `owner_changes` and `actions` count".into()));
    bounds.push(("battles-zero", with(1, &|r| r["battles"]["attack"] = 0.into()), "`battles` lists kind `attack` with 0 battles".into()));
    bounds.push(("owner-changes-huge", with(1, &|r| r["owner_changes"] = u64::MAX.into()), "`battles`, `owner_changes` and `actions` count".into()));
    bounds.push(("actions-huge", with(1, &|r| r["actions"]["taxes"][0] = u32::MAX.into()), "`battles`, `owner_changes` and `actions` count".into()));
    bounds.push(("actions-short", with(1, &|r| r["actions"]["taxes"] = serde_json::json!([1])), "`actions.taxes` has 1 entries for 4 players".into()));
    bounds.push(("provinces-huge", with(1, &|r| r["provinces"] = serde_json::json!([99_999, 0, 0, 0])), "`provinces` adds up to 99999".into()));
    bounds.push(("buildings-huge", with(1, &|r| r["buildings"][0] = 1000.into()), "`buildings` of seat A is 1000, more than its".into()));
    bounds.push(("bid-chests-huge", with(1, &|r| r["bid_chests"][0] = i64::MAX.into()), "`bid_chests` of seat A is".into()));
    bounds.push(("bid-chests-negative", with(1, &|r| r["bid_chests"][1] = (-3).into()), "`bid_chests` of seat B is -3".into()));
    bounds.push(("bid-provinces-huge", with(1, &|r| r["bid_provinces"][0] = u32::MAX.into()), "`bid_provinces` is 4294967295".into()));
    bounds.push(("lead-changes-huge", with(1, &|r| r["lead_changes"] = u32::MAX.into()), "`lead_changes` is 4294967295".into()));
    bounds.push(("tower-stuck-huge", with(1, &|r| r["tower_stuck"] = u32::MAX.into()), "`tower_stuck` is 4294967295".into()));
    bounds.push(("built-huge", with(1, &|r| r["built"]["castle"][0] = u32::MAX.into()), "`built` adds up to".into()));
    for (name, lines, want) in bounds {
        let f = write(&dir.join(format!("{name}.jsonl")), &lines);
        let e = merge_error(&[files[0].clone(), f, files[2].clone()]);
        assert!(e.contains(&format!("{name}.jsonl:2: condition 0, game 4, arm 0: {want}")), "{name}: {e}");
    }
    // At the edge the API allows, a record is possible.
    // (The last-placed seat only: the others' points fix the standings'
    // margin, which merge checks too.)
    let at_edge = with(1, &|r| {
        let ranks: Vec<u64> = r["ranks"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        let last = (0..ranks.len()).max_by_key(|&s| ranks[s]).unwrap();
        r["points"][last] = (-edge).into();
    });
    let f = write(&dir.join("points-at-edge.jsonl"), &at_edge);
    let o = shogun(&["lab", "merge", &files[0], &f, &files[2]]);
    assert!(o.status.success() && !stderr(&o).contains("`points`"), "{}", stderr(&o));
    cases.push(("version", with(0, &|h| h["lab"]["version"] = "shogun-lab 0.0.1".into()), "merge only files of one version"));
    cases.push(("short", l[..l.len() - 2].to_vec(), "the file ends early"));
    for (name, lines, want) in cases {
        let f = write(&dir.join(format!("{name}.jsonl")), &lines);
        let e = merge_error(&[files[0].clone(), f, files[2].clone()]);
        assert!(e.contains(want), "{name}: {e}");
    }
    // A line longer than any record is refused before it is held whole.
    let long = dir.join("long.jsonl");
    let mut text = format!("{}\n", l[0]);
    text.push_str(&" ".repeat(shogun_lab::cli::lab::MAX_LINE + 10));
    std::fs::write(&long, text).unwrap();
    let e = merge_error(&[files[0].clone(), long.display().to_string(), files[2].clone()]);
    assert!(e.contains("long.jsonl:2: line longer than"), "{e}");
}

#[test]
fn until_ci_output_merges_and_says_when_the_width_was_not_reached() {
    let data = data_dir("until-ci");
    let f = data.join("until.jsonl").display().to_string();
    let d = data.to_str().unwrap();
    let args = ["lab", "--data", d, "--variant", "hard-winter", "--against", "--games", "400", "--batch", "20", "--until-ci", "60", "--json", "--jsonl", &f];
    let run = shogun(&args);
    assert!(run.status.success(), "{}", stderr(&run));
    let h = &lines(&f)[0]["lab"];
    let played = h["played"].as_u64().unwrap();
    assert!(played < 400 && played.is_multiple_of(20) && h["games"] == 400, "{h}");
    assert_eq!(lines(&f).len() as u64, 1 + 2 * played);
    let merged = shogun(&["lab", "merge", &f, "--json"]);
    assert!(merged.status.success(), "{}", stderr(&merged));
    assert_eq!(String::from_utf8_lossy(&merged.stdout), String::from_utf8_lossy(&run.stdout));
    // A width never reached is said so.
    let o = shogun(&["lab", "--data", d, "--variant", "hard-winter", "--against", "--games", "20", "--until-ci", "0.5"]);
    assert!(stderr(&o).contains("--until-ci 0.5: NOT REACHED"), "{}", stderr(&o));
}

#[test]
fn numbers_at_the_edge_of_the_api_neither_wrap_nor_size_an_allocation() {
    // Seat A scores 2^39 points and every seat tallies math.maxinteger:
    // the total over seats must be their true sum (it wrapped to "-4.00"),
    // and the margin histogram must not ask for one slot per point.
    let data = data_dir("wide");
    let page = data.join("wide.html");
    let f = data.join("wide.jsonl").display().to_string();
    let o = shogun(&[
        "lab",
        "--data",
        data.to_str().unwrap(),
        "--variant",
        "wide-numbers",
        "--against",
        "--games",
        "6",
        "--json",
        "--jsonl",
        &f,
        "--report",
        page.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let means = &report["conditions"][0]["arms"][0]["means"];
    let total = means["tally.wide"]["value"].as_f64().unwrap();
    assert!(total >= 4.0 * i64::MAX as f64 * 0.999, "tally total {total}");
    assert!(means["margin"]["value"].as_f64().unwrap() > (1u64 << 38) as f64);
    assert!(std::fs::read_to_string(&page).unwrap().contains("Margin of victory"));
    let merged = shogun(&["lab", "merge", &f, "--report", page.to_str().unwrap()]);
    assert!(merged.status.success(), "{}", stderr(&merged));
}

/// Runs a two-arm lab and returns its `--json` report.
fn lab_json(data: &Path, args: &[&str]) -> Value {
    let d = data.to_str().unwrap();
    let mut all = vec!["lab", "--data", d];
    all.extend(args);
    all.push("--json");
    let o = shogun(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn a_rule_that_never_runs_is_reported_as_unexercised() {
    let data = data_dir("rule-use");
    // A variant whose one function no effect names: never called.
    let r = lab_json(&data, &["--variant", "never-called", "--against", "--games", "30"]);
    let c = &r["conditions"][0];
    let u = &c["arms"][0]["rule_use"];
    assert_eq!(u["games_in_play"], 0, "{u}");
    assert_eq!(u["parts"][0]["name"], "never_applied");
    assert_eq!(u["parts"][0]["kind"], "modifiers");
    assert_eq!(u["parts"][0]["replaced"], false);
    assert!(c["arms"][1]["rule_use"].is_null(), "base has no variant functions");
    let verdict: Vec<&str> = c["pairs"][0]["verdict"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(verdict[0].contains("the rule came into play in 0 of 30 games with these bots"), "{verdict:?}");
    assert!(verdict[0].contains("this run cannot tell what it does"), "{verdict:?}");
    assert!(!verdict.iter().any(|l| l.contains("no difference at all")), "{verdict:?}");
    // income-before-revolt under greedy bots (issue 21's example): they
    // never collect where there is unrest, so the replaced collection runs
    // but the rule (collect first, then the revolt) never comes into play.
    let r = lab_json(&data, &["--variant", "income-before-revolt", "--against", "--games", "30", "--bots", "greedy"]);
    let c = &r["conditions"][0];
    let u = &c["arms"][0]["rule_use"];
    assert_eq!(u["games_in_play"], 0, "{u}");
    assert!(c["pairs"][0]["verdict"][0].as_str().unwrap().contains("came into play in 0 of 30 games"), "{}", c["pairs"][0]["verdict"]);
    // With random bots it comes into play, and the records count it.
    let f = data.join("ibr.jsonl").display().to_string();
    let r = lab_json(&data, &["--variant", "income-before-revolt", "--against", "--games", "30", "--bots", "random", "--jsonl", &f]);
    let u = &r["conditions"][0]["arms"][0]["rule_use"];
    let k = u["games_in_play"].as_u64().unwrap();
    assert!(k > 0 && k <= 30, "{u}");
    let records = lines(&f);
    let counted = records[1..].iter().filter(|r| r["arm"] == 0 && r["rule_use"].as_array().unwrap().iter().any(|c| c.as_u64() > Some(0))).count();
    assert_eq!(counted as u64, k);
    assert!(records[1..].iter().filter(|r| r["arm"] == 1).all(|r| r["rule_use"].as_array().unwrap().is_empty()));
    assert!(shogun(&["lab", "merge", &f]).status.success());
}

/// The verdict's lines, as text.
fn verdict_of(c: &Value) -> Vec<String> {
    c["pairs"][0]["verdict"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect()
}

#[test]
fn a_changed_value_nobody_reads_is_reported_as_never_read() {
    let data = data_dir("value-unread");
    // YAML alone: the `thirds` tower edited, while the games use another.
    let r = lab_json(&data, &["--variant", "unused-tower", "--against", "--games", "20"]);
    let c = &r["conditions"][0];
    let u = &c["arms"][0]["rule_use"];
    assert_eq!(u["games_in_play"], 0, "{u}");
    assert_eq!(u["parts"].as_array().unwrap().len(), 1, "only the edited value: {u}");
    let p = &u["parts"][0];
    assert_eq!((p["kind"].as_str(), p["name"].as_str(), p["replaced"].as_bool()), (Some("value"), Some("RULES.towers.thirds.params.pass"), Some(true)));
    assert_eq!(p["games_called"], 0);
    assert!(p.get("uncounted").is_none(), "the scripts and the tower in use are counted: {p}");
    let verdict = verdict_of(c);
    assert!(verdict[0].contains("the rule came into play in 0 of 20 games"), "{verdict:?}");
    assert!(verdict[0].contains("never read: value `RULES.towers.thirds.params.pass` (changed)"), "{verdict:?}");
    assert!(verdict.iter().any(|l| l.contains("as they must be when the rule never runs")), "{verdict:?}");
    assert!(!verdict.iter().any(|l| l.contains("no difference at all")), "{verdict:?}");
    // A value only the engine reads: not counted, so no claim either way.
    let r = lab_json(&data, &["--variant", "engine-limit", "--against", "--games", "10"]);
    let c = &r["conditions"][0];
    let p = &c["arms"][0]["rule_use"]["parts"][0];
    assert_eq!(p["name"], "RULES.limits.decisions_per_game");
    assert!(p["uncounted"].as_str().unwrap().contains("engine"), "{p}");
    let verdict = verdict_of(c);
    assert!(verdict[0].contains("whether the rule came into play is not known"), "{verdict:?}");
    assert!(!verdict.iter().any(|l| l.contains("came into play in 0 of")), "{verdict:?}");
    // Played on that tower, the value is read at every throw.
    let r = lab_json(&data, &["--variant", "unused-tower", "--against", "--games", "10", "--tower", "thirds"]);
    let u = &r["conditions"][0]["arms"][0]["rule_use"];
    assert_eq!(u["games_in_play"], 10, "{u}");
    assert!(u["parts"][0]["calls_per_game"].as_f64().unwrap() > 10.0, "{u}");
}

#[test]
fn a_changed_value_the_rules_read_is_counted_in_the_records() {
    let data = data_dir("value-read");
    // castle-majority changes one scoring number, which the base pack reads
    // while its files load and keeps: the calls of what keeps it count.
    let f = data.join("cm.jsonl").display().to_string();
    let r = lab_json(&data, &["--variant", "castle-majority", "--against", "--games", "20", "--jsonl", &f]);
    let c = &r["conditions"][0];
    let u = &c["arms"][0]["rule_use"];
    assert_eq!((u["games_in_play"].as_u64(), u["games"].as_u64()), (Some(20), Some(20)), "{u}");
    assert_eq!(u["parts"].as_array().unwrap().len(), 1, "{u}");
    let p = &u["parts"][0];
    assert_eq!((p["kind"].as_str(), p["name"].as_str()), (Some("value"), Some("RULES.scoring.region_majority.castle")));
    assert_eq!(p["share_of_games"], 1.0, "read at every scoring: {p}");
    assert!(p["calls_per_game"].as_f64().unwrap() >= 2.0, "two scorings a game at least: {p}");
    // Read in every game: nothing said in front of the verdict.
    assert!(!verdict_of(c)[0].contains("castle-majority:"), "{:?}", verdict_of(c));
    // The header lists the value; every record counts it; merge checks both.
    let records = lines(&f);
    assert_eq!(records[0]["lab"]["rules"][0]["parts"][0]["name"], "RULES.scoring.region_majority.castle");
    assert!(records[1..].iter().filter(|r| r["arm"] == 0).all(|r| r["rule_use"].as_array().unwrap().len() == 1 && r["rule_use"][0].as_u64() > Some(0)));
    assert!(shogun(&["lab", "merge", &f]).status.success());
    let mut short = records.clone();
    short[1]["rule_use"] = serde_json::json!([]);
    let g = write(&data.join("cm-short.jsonl"), &short);
    assert!(merge_error(&[g]).contains("parts (functions and values) the header lists"));
    // ro-events edits two event cards' modifiers (and their names and
    // texts, which are not counted): read only in the games where a player
    // collects under those events.
    let r = lab_json(&data, &["--variant", "ro-events", "--against", "--games", "20"]);
    let c = &r["conditions"][0];
    let u = &c["arms"][0]["rule_use"];
    let names: Vec<&str> = u["parts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["CARDS.events[9].effects[1].modifier", "CARDS.events[11].effects[1].modifier"]);
    let k = u["games_in_play"].as_u64().unwrap();
    assert!(k > 0 && k < 20, "{u}");
    assert!(verdict_of(c).iter().any(|l| l.contains("the changed value `CARDS.events[9].effects[1].modifier` was read in ")), "{:?}", verdict_of(c));
}

/// A record holds at most the provinces of its arm's map, which the header
/// gives (the audit's leftover of issue 23 item 9, session 20: only the
/// 2^16 any map may have bounded them); a file of an older run, without
/// the count, merges with newer ones under that bound.
#[test]
fn merge_bounds_a_records_provinces_by_the_arms_map() {
    let data = data_dir("provinces");
    let files = shards(&data, &data);
    let l = lines(&files[1]);
    let dir = &data;
    let with = |i: usize, f: &dyn Fn(&mut Value)| -> Vec<Value> {
        let mut l = l.clone();
        f(&mut l[i]);
        l
    };
    let on_map = l[0]["lab"]["rules"][0]["provinces"].as_u64().expect("the header gives the arm's map's provinces");
    let f = write(&dir.join("provinces-map.jsonl"), &with(1, &|r| r["provinces"] = serde_json::json!([on_map + 1, 0, 0, 0])));
    let e = merge_error(&[files[0].clone(), f, files[2].clone()]);
    assert!(
        e.contains(&format!(
            "provinces-map.jsonl:2: condition 0, game 4, arm 0: `provinces` adds up to {}, more than the arm's map has ({on_map})",
            on_map + 1
        )),
        "{e}"
    );
    // Every province of the map held: possible.
    let all_held = with(1, &|r| {
        let held: u64 = r["provinces"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).sum();
        r["provinces"][0] = (r["provinces"][0].as_u64().unwrap() + on_map - held).into();
    });
    let f = write(&dir.join("provinces-at-map.jsonl"), &all_held);
    let o = shogun(&["lab", "merge", &files[0], &f, &files[2]]);
    assert!(o.status.success() && !stderr(&o).contains("`provinces`"), "{}", stderr(&o));
    // A file of a run before headers gave the maps' provinces merges with
    // later ones, its records bounded by what any map may have.
    let mut old_header = with(0, &|h| {
        for arm in h["lab"]["rules"].as_array_mut().unwrap() {
            arm.as_object_mut().unwrap().remove("provinces");
        }
    });
    let f = write(&dir.join("old-header.jsonl"), &old_header);
    let o = shogun(&["lab", "merge", &files[0], &f, &files[2]]);
    assert!(o.status.success(), "{}", stderr(&o));
    old_header[1]["provinces"] = serde_json::json!([99_999, 0, 0, 0]);
    let f = write(&dir.join("old-header-huge.jsonl"), &old_header);
    let e = merge_error(&[files[0].clone(), f, files[2].clone()]);
    assert!(e.contains("`provinces` adds up to 99999, more than a map may have (65536)"), "{e}");
}
