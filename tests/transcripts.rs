//! Golden transcripts: full seeded games pinned as insta snapshots in the
//! top-level snapshots/ folder. A rule change shows up as a reviewable diff
//! of these files (`cargo insta review`, or INSTA_UPDATE=always).

mod common;

fn golden(players: u8, seed: u64, bots: &[&str]) -> String {
    let engine = common::engine();
    let names: Vec<String> = bots.iter().map(|s| s.to_string()).collect();
    let (text, summary) = shogun_lab::transcript::transcript(&engine, players, seed, &names).unwrap();
    format!("{text}\nsummary: {}\n", serde_json::to_string(&summary).unwrap())
}

macro_rules! snapshot {
    ($name:literal, $value:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
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
