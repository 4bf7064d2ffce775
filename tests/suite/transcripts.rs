//! Golden transcripts: full seeded games pinned as insta snapshots in the
//! top-level snapshots/ folder. A rule change shows up as a reviewable diff
//! of these files (`cargo insta review`, or INSTA_UPDATE=always).

fn golden(players: u8, seed: u64, bots: &[&str]) -> String {
    let engine = crate::common::engine();
    let names: Vec<String> = bots.iter().map(|s| s.to_string()).collect();
    let (text, summary) = shogun_lab::transcript::transcript(&engine, players, seed, &names).unwrap();
    format!("{text}\nsummary: {}\n", serde_json::to_string(&summary).unwrap())
}

macro_rules! snapshot {
    ($name:literal, $value:expr) => {
        insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

#[test]
fn three_players_seed_1() {
    snapshot!("game_3p_seed1", golden(3, 1, &["greedy", "random", "greedy"]));
}

#[test]
fn four_players_seed_7() {
    snapshot!("game_4p_seed7", golden(4, 7, &["greedy", "greedy", "random", "random"]));
}

#[test]
fn five_players_seed_3() {
    snapshot!("game_5p_seed3", golden(5, 3, &["random", "greedy", "random", "greedy", "random"]));
}

/// `run --check MODE` says when the invariants are checked, and the mode
/// changes no game (the default is every decision).
#[test]
fn run_states_its_check_mode_and_the_mode_changes_no_game() {
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--seed", "5", "--bots", "random", "--transcript", "-"];
        args.extend_from_slice(extra);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).args(&args).env("SHOGUN_DATA", crate::common::root()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let every = run(&[]);
    assert_eq!(run(&["--check", "end"]), every);
    assert_eq!(run(&["--check", "sample"]), every);
    let summary = |extra: &[&str]| {
        let mut args = vec!["run", "--seed", "5", "--bots", "random"];
        args.extend_from_slice(extra);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).args(&args).env("SHOGUN_DATA", crate::common::root()).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(summary(&[]).contains("invariants checked after every decision"), "{}", summary(&[]));
    assert!(summary(&["--check", "end"]).contains("invariants checked at the end of each game"));
}
