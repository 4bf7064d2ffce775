//! `shogun lab --adapt` (issue 22 item 3): the planner tuned to each arm by
//! self-play before the lab measures, reported beside the fixed players,
//! cached by the arm's rules hash without ever changing a result.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clap::Parser;
use serde_json::Value;
use shogun_lab::cli::lab::{arm_words, build};
use shogun_lab::cli::{Cli, Command as Sub};
use shogun_lab::lab::tune::{Adaptation, AdaptedArm, Checked};
use shogun_lab::lab::{self, GameRecord, Report};

/// The arms and a small budget: two trials of 20 games per arm.
const LAB: [&str; 11] = ["lab", "--variant", "castle-majority", "--against", "base", "--adapt", "40", "--adapt-trial", "20", "--games", "12"];

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shogun-lab-test-adapt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The program with `args`, its cache in $SHOGUN_TUNE_CACHE = `cache`.
fn shogun(args: &[&str], cache: &Path) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_shogun")).args(args).env("SHOGUN_TUNE_CACHE", cache).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    files
}

#[test]
fn adapting_is_deterministic_and_a_cache_hit_or_a_bad_entry_changes_nothing() {
    let dir = scratch("cache");
    let cache = dir.join("cache");
    fn json<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        [&LAB[..], &["--json"], extra].concat()
    }
    let first = shogun(&json(&["--jobs", "1"]), &cache);
    assert_eq!(stderr(&first).matches("tuned in 40 games").count(), 2, "{}", stderr(&first));
    let files = cache_files(&cache);
    assert_eq!(files.len(), 2, "one entry per arm");
    // The same run again: both arms from the cache, the very same report.
    let again = shogun(&json(&["--jobs", "2"]), &cache);
    assert_eq!(stderr(&again).matches("from the cache").count(), 2, "{}", stderr(&again));
    assert!(!stderr(&again).contains("tuned in"), "{}", stderr(&again));
    assert_eq!(String::from_utf8_lossy(&again.stdout), String::from_utf8_lossy(&first.stdout));
    // A corrupt entry and one written for another search are ignored with
    // a note, tuned again and rewritten; the report does not change. The
    // foreign entry holds a planner neither arm tuned, so taking it would
    // change the report.
    let report: Value = serde_json::from_slice(&first.stdout).unwrap();
    let tuned: Vec<&str> = report["header"]["adapt"]["arms"].as_array().unwrap().iter().map(|a| a["bot"].as_str().unwrap()).collect();
    let mut foreign: Value = serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    let planted = "planner:future=0.8";
    assert!(!tuned.contains(&planted), "{tuned:?}");
    foreign["found"] = serde_json::json!({"bot": planted, "games": 40, "trials": 2, "kept": 1, "check": {"games": 20, "wins": 9.0, "lo": 0.25, "hi": 0.66}});
    std::fs::write(&files[0], "{\"format\": 2, \"key\": ").unwrap();
    std::fs::write(&files[1], foreign.to_string()).unwrap();
    let dir_opt = cache.display().to_string();
    let mended = shogun(&json(&["--adapt-cache", &dir_opt]), Path::new("none"));
    let err = stderr(&mended);
    assert!(err.contains("not a cache entry") && err.contains("written for another search"), "{err}");
    assert_eq!(err.matches("tuning again").count(), 2, "{err}");
    assert_eq!(String::from_utf8_lossy(&mended.stdout), String::from_utf8_lossy(&first.stdout));
    let hit = shogun(&json(&[]), &cache);
    assert_eq!(stderr(&hit).matches("from the cache").count(), 2, "the entries were rewritten: {}", stderr(&hit));
    // Without a cache: the same report.
    let uncached = shogun(&json(&[]), Path::new("none"));
    assert_eq!(String::from_utf8_lossy(&uncached.stdout), String::from_utf8_lossy(&first.stdout));
    assert_eq!(cache_files(&cache).len(), 2);

    // The report names each arm's tuned planner, the budget and the seeds,
    // and every arm of the adapted condition plays its own.
    let h = &report["header"];
    let adapt = &h["adapt"];
    assert_eq!((adapt["budget"].as_u64(), adapt["trial"].as_u64(), adapt["seed"].as_u64()), (Some(40), Some(20), Some(1_000_000_001)));
    let labels: Vec<&str> = report["conditions"].as_array().unwrap().iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["tower (ruleset's), bots planner", "tower (ruleset's), rules + each arm's tuned players (planner adapted per arm)"]);
    assert_eq!(report["conditions"][1]["adapted"], true);
    assert!(report["conditions"][0].get("adapted").is_none());
    let verdict = report["conditions"][1]["pairs"][0]["verdict"][0].as_str().unwrap();
    assert!(verdict.starts_with("rules + each arm's tuned players") && verdict.contains("not the rules' alone"), "{verdict}");
    assert!(report["method"].as_str().unwrap().contains("each arm plays its own tuned planner"));
    for (a, arm) in adapt["arms"].as_array().unwrap().iter().enumerate() {
        let bot = arm["bot"].as_str().unwrap();
        assert!(bot.starts_with("planner"), "{bot}");
        assert_eq!(arm["games"], 40);
        assert_eq!(h["conditions"][1]["per_arm"][a], serde_json::json!([bot, bot, bot, bot]));
    }
    assert!(h["conditions"][0].get("per_arm").is_none(), "the fixed players are the same for every arm");
    // The terminal report names them too.
    let text = shogun(&LAB, &cache);
    let out = String::from_utf8_lossy(&text.stdout);
    let bot0 = adapt["arms"][0]["bot"].as_str().unwrap();
    assert!(out.contains(&format!("arm 1 (castle-majority(award=6)): {bot0} (40 games,")), "{out}");
    assert!(out.contains("== tower (ruleset's), rules + each arm's tuned players (planner adapted per arm) — 12 games per arm =="), "{out}");
    assert!(out.contains("fixed players: planner in every seat"), "{out}");
    assert!(!stderr(&text).contains("note: --adapt without --bots"), "planner is the default anyway: {}", stderr(&text));

    // The search is `bots tune --search coordinate`'s, on the lab's seed + 10^9.
    let tune =
        shogun(&["bots", "tune", "--search", "coordinate", "--variant", "castle-majority", "--budget", "40", "--games", "20", "--seed", "1000000001"], &cache);
    let tuned = String::from_utf8_lossy(&tune.stdout);
    assert!(tuned.contains(&format!("the weights found: {bot0}\n")), "{tuned}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--adapt-search halving` tunes each arm by `bots tune`'s halving
/// search on the lab's seed + 10^9 (the same planner found), says so in
/// the header and the report, and keys its cache entries apart from the
/// coordinate search's.
#[test]
fn adapt_search_halving_is_bots_tunes_halving_search() {
    let dir = scratch("halving");
    let cache = dir.join("cache");
    let lab = ["lab", "--variant", "castle-majority", "--games", "4", "--adapt", "100", "--adapt-trial", "12", "--adapt-check", "0", "--jobs", "2"];
    let halving = [&lab[..], &["--adapt-search", "halving", "--json"]].concat();
    let out = shogun(&halving, &cache);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let adapt = &report["header"]["adapt"];
    assert_eq!(adapt["search"], "halving");
    // One pass of 19 candidates fits: rounds of 19, 10, 5, 3 and 2
    // candidates (1, 1, 2, 4 and 6 games each) and a confirmation of 24.
    assert_eq!(adapt["arms"][0]["games"], 87);
    assert_eq!(adapt["arms"][0]["trials"], 1);
    let bot = adapt["arms"][0]["bot"].as_str().unwrap();
    let tune = shogun(&["bots", "tune", "--variant", "castle-majority", "--budget", "100", "--games", "12", "--seed", "1000000001", "--check", "0"], &cache);
    let tuned = String::from_utf8_lossy(&tune.stdout);
    assert!(tuned.contains(&format!("the weights found: {bot}\n")) && tuned.contains("pass 1 (step ×2.0000): 19 candidates"), "{tuned}");
    let text = String::from_utf8_lossy(&shogun(&[&lab[..], &["--adapt-search", "halving"]].concat(), &cache).stdout).to_string();
    assert!(text.contains("a halving search from planner by self-play"), "{text}");
    // The coordinate search's header leaves the field out, and its cache
    // entry is another one.
    let coord: Value = serde_json::from_slice(&shogun(&[&lab[..], &["--json"]].concat(), &cache).stdout).unwrap();
    assert!(coord["header"]["adapt"].get("search").is_none());
    assert_eq!(cache_files(&cache).len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_of_an_adapted_run_tune_alike_and_merge_to_the_single_run() {
    let dir = scratch("shards");
    let single = shogun(&[&LAB[..], &["--json"]].concat(), &dir.join("c0"));
    let mut parts = Vec::new();
    for k in 1..=2 {
        // A cache of its own: each shard tunes by itself.
        let part = dir.join(format!("part{k}.jsonl")).display().to_string();
        let shard = format!("{k}/2");
        let out = shogun(&[&LAB[..], &["--shard", &shard, "--jsonl", &part]].concat(), &dir.join(format!("c{k}")));
        assert_eq!(stderr(&out).matches("tuned in").count(), 2, "{}", stderr(&out));
        parts.push(part);
    }
    let merged = shogun(&[&["lab", "merge"][..], &[&parts[1], &parts[0]], &["--json"]].concat(), &dir);
    assert_eq!(String::from_utf8_lossy(&merged.stdout), String::from_utf8_lossy(&single.stdout));
    // A header whose adapted condition does not name each arm's players is refused.
    let text = std::fs::read_to_string(&parts[0]).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let mut head: Value = serde_json::from_str(head).unwrap();
    head["lab"]["conditions"][1]["per_arm"].as_array_mut().unwrap().pop();
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, format!("{head}\n{rest}")).unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_shogun")).args(["lab", "merge"]).arg(&bad).arg(&parts[1]).output().unwrap();
    assert!(stderr(&refused).contains("does not name one bot per seat for each of the 2 arms"), "{}", stderr(&refused));
    // Both shards' headers edited alike: the adapted players must be those
    // the adaptation found, and the two come together.
    let edited = |tag: &str, edit: &dyn Fn(&mut Value)| -> String {
        let mut files = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            let text = std::fs::read_to_string(part).unwrap();
            let (head, rest) = text.split_once('\n').unwrap();
            let mut head: Value = serde_json::from_str(head).unwrap();
            edit(&mut head["lab"]);
            let path = dir.join(format!("{tag}{k}.jsonl"));
            std::fs::write(&path, format!("{head}\n{rest}")).unwrap();
            files.push(path);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_shogun")).args(["lab", "merge"]).args(&files).output().unwrap();
        assert!(!out.status.success(), "{tag}: merged");
        stderr(&out)
    };
    let e = edited("other-bot", &|h| h["adapt"]["arms"][0]["bot"] = "planner:future=0.8".into());
    assert!(e.contains("gives arm 1 `planner") && e.contains("but the adaptation tuned `planner:future=0.8`"), "{e}");
    let e = edited("no-adapt", &|h| h["adapt"] = Value::Null);
    assert!(e.contains("holds no adaptation"), "{e}");
    let e = edited("no-per-arm", &|h| {
        h["conditions"][1].as_object_mut().unwrap().remove("per_arm");
    });
    assert!(e.contains("no condition plays the players it found"), "{e}");
    // A shard tuned otherwise is another run.
    let odd = dir.join("odd.jsonl").display().to_string();
    shogun(&[&LAB[..], &["--adapt-opponent", "greedy", "--shard", "2/2", "--jsonl", &odd]].concat(), &dir.join("c3"));
    let refused = Command::new(env!("CARGO_BIN_EXE_shogun")).args(["lab", "merge", &parts[0], &odd]).output().unwrap();
    assert!(!refused.status.success());
    assert!(stderr(&refused).contains("another lab run"), "{}", stderr(&refused));
    let _ = std::fs::remove_dir_all(&dir);
}

fn parse(args: &[&str]) -> Result<shogun_lab::cli::lab::LabArgs, String> {
    let v: Vec<String> = ["shogun", "lab"].iter().chain(args).map(|s| s.to_string()).collect();
    match Cli::try_parse_from(arm_words(v)).map_err(|e| e.to_string())?.command {
        Some(Sub::Lab(cmd)) => Ok(cmd.args),
        other => Err(format!("not a lab command: {other:?}")),
    }
}

/// Under the adapted condition each arm plays its own planner, in every
/// seat; under the fixed one every arm plays the same; a record with
/// another arm's players is refused by merge's checks.
#[test]
fn each_arm_plays_its_own_adapted_players() {
    let args = parse(&["--variant", "castle-majority", "--against", "base", "--games", "3", "--adapt", "40", "--adapt-trial", "20"]).unwrap();
    let mut lab = build(&args, &|_| None).unwrap();
    assert_eq!(lab.header.conditions.len(), 1, "build plays the fixed players; the adapted ones come with the tuning");
    let mut adaptation = shogun_lab::cli::lab::adaptation(&args).unwrap().unwrap();
    let own = ["planner:future=0.8", "planner:army=0.6"];
    let check = Checked { games: 20, wins: 7.5, lo: 0.2, hi: 0.6 };
    adaptation.arms = own.iter().map(|b| AdaptedArm { bot: b.to_string(), games: 40, trials: 2, kept: 1, check: Some(check.clone()) }).collect();
    lab.adapt(adaptation).unwrap();
    let mut records: Vec<GameRecord> = Vec::new();
    let agg = lab::run(
        &lab,
        &mut |r| {
            records.push(r.clone());
            Ok(())
        },
        &|_| {},
    )
    .unwrap();
    assert_eq!(records.len(), 3 * 2 * 2);
    for r in &records {
        let want = if r.condition == 0 { "planner" } else { own[r.arm] };
        assert_eq!(r.bots, [want; 4], "condition {}, arm {}", r.condition, r.arm);
        lab::check_record(&lab.header, r).unwrap();
    }
    let mut swapped = records.iter().find(|r| r.condition == 1 && r.arm == 0).unwrap().clone();
    swapped.bots = vec![own[1].to_string(); 4];
    assert!(lab::check_record(&lab.header, &swapped).unwrap_err().contains("differ from the header"));
    let report = Report::build(&agg);
    let text = report.text();
    assert!(text.contains("arm 2 (base): planner:army=0.6 (40 games, 1 of 2 trials kept; check against planner: 37.5% (20.0–60.0%) of 20 games"), "{text}");
    let page = lab::html::page(&report).unwrap();
    assert!(page.contains("planner:army=0.6") && page.contains("rules + each arm's tuned players"), "{page}");
    // A wrong number of tuned players is refused.
    let mut short = shogun_lab::cli::lab::adaptation(&args).unwrap().unwrap();
    short.arms.push(AdaptedArm { bot: "planner".into(), games: 40, trials: 2, kept: 0, check: None });
    assert!(build(&args, &|_| None).unwrap().adapt(short).unwrap_err().contains("1 tuned players for 2 arms"));
}

#[test]
fn adapt_options_are_checked_before_anything_is_played() {
    let err = |args: &[&str]| match parse(args) {
        Err(e) => e,
        Ok(a) => build(&a, &|_| None).err().unwrap_or_else(|| panic!("{args:?} was accepted")),
    };
    assert!(err(&["--adapt", "10", "--adapt-trial", "20"]).contains("at least one trial of 20 games"));
    assert!(
        err(&["--adapt", "50", "--adapt-trial", "20", "--adapt-search", "halving"])
            .contains("one pass of trials of 20 games (137 games: its rounds among 19 steps")
    );
    // 60 games held a pass of two candidates, not the 19 steps from the
    // planner's weights: the search played none and reported the start.
    assert!(err(&["--adapt", "100", "--adapt-trial", "20", "--adapt-search", "halving"]).contains("(137 games"));
    assert!(err(&["--adapt", "100", "--adapt-search", "annealing"]).contains("coordinate or halving"));
    assert!(err(&["--adapt", "0"]).contains("--adapt 0"));
    assert!(err(&["--adapt", "100", "--adapt-from", "greedy"]).contains("not a planner"));
    assert!(err(&["--adapt", "100", "--adapt-opponent", "clever"]).contains("--adapt-opponent"));
    assert!(err(&["--adapt-trial", "20"]).contains("--adapt"));
    // The tuning's seeds (SEED+10^9 onwards) must lie beyond the lab's games.
    assert!(err(&["--adapt", "100", "--games", "1000000001"]).contains("at most 1000000000 games"));
    assert!(parse(&["--adapt", "100", "--games", "1000000000"]).and_then(|a| build(&a, &|_| None).map(|_| ())).is_ok());
    // An empty --adapt-cache would cache into the current folder (clap
    // refuses an empty path; `cache_dir` too, tested beside it).
    let e = parse(&["--adapt", "20", "--adapt-cache", ""]).and_then(|a| shogun_lab::cli::lab::build_adapted(&a, &|_| None).map(|_| ())).unwrap_err();
    assert!(e.contains("--adapt-cache"), "{e}");
    // The checks of a cache entry: whole trials within the budget, a
    // planner with the start's restrictions, a check when a step was kept.
    let a = Adaptation::new(40, 20, 20, (1, 100), "planner:no-build", None).unwrap();
    let check = || Some(Checked { games: 20, wins: 6.0, lo: 0.14, hi: 0.52 });
    let arm = |bot: &str, games, trials, kept, check| AdaptedArm { bot: bot.into(), games, trials, kept, check };
    assert!(a.check(&arm("planner:future=0.8:no-build", 40, 2, 1, check())).is_ok());
    assert!(a.check(&arm("planner:no-build", 40, 2, 0, None)).is_ok());
    assert!(a.check(&arm("greedy", 40, 2, 1, check())).is_err());
    assert!(a.check(&arm("planner:no-build", 60, 3, 1, None)).is_err());
    assert!(a.check(&arm("planner:no-build", 30, 2, 1, None)).is_err());
    assert!(a.check(&arm("planner:no-build", 40, 2, 3, None)).is_err());
    let e = a.check(&arm("planner:future=0.8", 40, 2, 1, check())).unwrap_err();
    assert!(e.contains("does not keep the restrictions of `planner:no-build` (no-build)"), "{e}");
    assert!(a.check(&arm("planner:future=0.8:no-build:no-attack", 40, 2, 1, check())).is_err());
    assert!(a.check(&arm("planner:future=0.8:no-build", 40, 2, 0, check())).unwrap_err().contains("no step was kept"));
    assert!(a.check(&arm("planner:future=0.8:no-build", 40, 2, 1, None)).unwrap_err().contains("check"));
    assert!(a.check(&arm("planner:no-build", 40, 2, 0, check())).unwrap_err().contains("check"));
    // A halving search's entry: within the budget, no more confirmations
    // than the budget holds (150 / (3 × 20) = 2), any number of games.
    let h = Adaptation::new(150, 20, 20, (1, 100), "planner", None).unwrap().with_search(shogun_lab::lab::tune::Search::Halving).unwrap();
    assert!(h.check(&arm("planner:chest=1", 137, 2, 1, check())).is_ok());
    assert!(h.check(&arm("planner", 137, 3, 0, None)).is_err());
    assert!(h.check(&arm("planner", 151, 1, 0, None)).is_err());
    let odd = Some(Checked { games: 40, wins: 6.0, lo: 0.14, hi: 0.52 });
    assert!(a.check(&arm("planner:future=0.8:no-build", 40, 2, 1, odd)).unwrap_err().contains("check"));
}

/// What --adapt does that a user may not expect is said: a budget that is
/// not whole trials, and fixed players other than the default planner.
#[test]
fn adapt_says_what_it_leaves_unplayed_and_which_players_are_fixed() {
    let notes = |args: &[&str]| {
        let a = parse(args).unwrap();
        shogun_lab::cli::lab::notes(&a, &shogun_lab::cli::lab::adaptation(&a).unwrap().unwrap())
    };
    let n = notes(&["--adapt", "300", "--bots", "greedy"]);
    assert_eq!(n, ["--adapt 300: 1 whole trials of 200 games fit; the other 100 games of the budget are not played"]);
    assert!(notes(&["--adapt", "400", "--bots", "greedy"]).is_empty());
    assert!(notes(&["--adapt", "400"]).is_empty(), "the planner is the default players");
    let n = notes(&["--adapt", "400", "--adapt-from", "planner:army=0.5"]);
    assert_eq!(n, ["--adapt without --bots: the fixed players are planner:army=0.5 (the planner the search starts from), not planner"]);
    let lab = build(&parse(&["--adapt", "400"]).unwrap(), &|_| None).unwrap();
    assert_eq!(lab.header.conditions[0].bots, ["planner"; 4]);
}

/// The cache's key (docs/lab.md promises it): an edited rules file, and
/// every setting the search depends on, give another key; the same
/// settings give the same key.
#[test]
fn the_cache_key_changes_with_a_rules_file_and_with_every_setting() {
    let (pack, _) = crate::common::copy_data("adapt-key");
    let pack = pack.display().to_string();
    let key = |extra: &[&str]| {
        let budget: &[&str] = if extra.contains(&"--adapt") { &[] } else { &["--adapt", "400"] };
        let args = parse(&[&["--rules", &pack][..], budget, extra].concat()).unwrap();
        let lab = build(&args, &|_| None).unwrap();
        shogun_lab::cli::lab::adaptation(&args).unwrap().unwrap().key(&lab, 0)
    };
    let first = key(&[]);
    assert_eq!(key(&[]), first, "the same settings, the same key");
    assert_eq!(key(&["--games", "7", "--jobs", "1"]), first, "the lab's own games and jobs do not change the search");
    let settings: [&[&str]; 10] = [
        &["--players", "3"],
        &["--seed", "2"],
        &["--setup", "draft"],
        &["--map", "moon"],
        &["--adapt", "600"],
        &["--adapt-trial", "100"],
        &["--adapt-check", "50"],
        &["--adapt-from", "planner:order=0"],
        &["--adapt-opponent", "greedy"],
        &["--variant", "castle-majority"],
    ];
    for extra in settings {
        assert_ne!(key(extra), first, "{extra:?}");
    }
    let halving = |extra: &[&str]| key(&[&["--adapt", "800", "--adapt-trial", "100"][..], extra].concat());
    assert_ne!(halving(&["--adapt-search", "halving"]), halving(&[]), "the search");
    let file = Path::new(&pack).join("winter.lua");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n-- edited\n")).unwrap();
    assert_ne!(key(&[]), first, "an edited rules file");
    std::fs::write(&file, text).unwrap();
    assert_eq!(key(&[]), first);
}

/// A search that keeps a step checks the planner it found against the
/// start on fresh seeds, and the report gives that check beside it.
#[test]
fn a_kept_step_is_checked_on_fresh_seeds_and_reported() {
    let dir = scratch("check");
    let args = [&LAB[..], &["--adapt-opponent", "random", "--adapt-check", "24", "--json"]].concat();
    let out = shogun(&args, &dir);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let adapt = &report["header"]["adapt"];
    assert_eq!((adapt["check"].as_u64(), adapt["seed"].as_u64()), (Some(24), Some(1_000_000_001)));
    let mut checked = 0;
    for arm in adapt["arms"].as_array().unwrap() {
        let c = &arm["check"];
        if arm["kept"] == 0 {
            assert!(c.is_null(), "{arm}");
            continue;
        }
        checked += 1;
        assert_eq!(c["games"], 24, "{arm}");
        let (wins, lo, hi) = (c["wins"].as_f64().unwrap(), c["lo"].as_f64().unwrap(), c["hi"].as_f64().unwrap());
        assert!(lo <= wins / 24.0 && wins / 24.0 <= hi, "{arm}");
        assert!(stderr(&out).contains(&format!("{} tuned in 40 games; check against planner: ", arm["bot"].as_str().unwrap())), "{}", stderr(&out));
    }
    assert!(checked > 0, "against random a step is kept: {adapt}");
    let text = shogun(&args[..args.len() - 1], &dir);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("check: 24 games of each arm's tuned planner in one seat against planner in the others, seeds 1000000041 onwards"), "{text}");
    assert!(text.contains("; check against planner: "), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
