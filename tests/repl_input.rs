//! The REPL's input: what a keystroke means (option numbers, bare answers),
//! what-if edits checked when typed, Lua like a Lua REPL, and completion.

mod common;

use common::*;
use shogun_lab::play::GameSpec;
use shogun_lab::repl::{Config, Repl};

fn repl(seats: &[&str], seed: u64) -> Repl {
    let spec = GameSpec { map: "sun".into(), data: Some(root()), ..GameSpec::default() };
    Repl::new(Config { spec, players: seats.len() as u8, seed, seats: seats.iter().map(|s| s.to_string()).collect() }).unwrap()
}

fn run(r: &mut Repl, lines: &[&str]) -> String {
    let mut out = String::new();
    for l in lines {
        out.push_str(&r.exec(l).unwrap_or_else(|e| panic!("`{l}` failed: {e}\nso far:\n{out}")));
        out.push('\n');
    }
    out
}

/// Seed 3, seat A human: planning, then A's turn-order choice (spaces 4
/// and 5 left), a move target, a count, then a deploy question with `pass`.
#[test]
fn numbers_are_option_numbers_and_bare_answers_are_accepted() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 3);
    let out = run(&mut r, &["next", "next", "next", "plan auto", "plan done", "end"]);
    assert!(out.contains("A to decide: choose a turn-order space\n  1) space 4") && out.contains("\n  2) space 5"), "{out}");
    // `4` is option 4, which does not exist: refused, not read as space 4.
    let err = r.exec("4").unwrap_err();
    assert!(err.contains("1) space 4, 2) space 5"), "{err}");
    assert!(r.exec("choose 4").is_err());
    // A bare answer, written as the option reads.
    let out = r.exec("space 4").unwrap();
    assert!(out.contains("A takes turn space 4"), "{out}");
    r.exec("undo").unwrap();
    // The option's number, alone or after `choose`.
    let out = r.exec("choose 2").unwrap();
    assert!(out.contains("A takes turn space 5"), "{out}");
    let out = r.exec("end").unwrap();
    assert!(out.contains("A to decide: move or attack into\n  1) Kii") && out.contains("\n  4) Tosa"), "{out}");
    // A province's name alone (any case), then an option number for a count.
    let out = r.exec("kii").unwrap();
    assert!(out.contains("A chooses Kii (move_target)") && out.contains("how many armies go?"), "{out}");
    let out = r.exec("2").unwrap();
    assert!(out.contains("A chooses 2 (move_count)"), "{out}");
    let out = r.exec("end").unwrap();
    assert!(out.contains("or pass\n") && out.contains("4) pass"), "{out}");
    // A province that is not an option is refused with the options listed.
    let err = r.exec("choose Kozuke").unwrap_err();
    assert!(err.contains("4) pass"), "{err}");
    let out = r.exec("pass").unwrap();
    assert!(out.contains("A chooses pass (deploy_move)"), "{out}");
    // With no question pending, a word that is no command stays an error.
    let mut q = repl(&["human", "greedy", "greedy", "greedy"], 3);
    assert!(q.exec("pass").unwrap_err().contains("unknown command `pass`"));
}

/// `force` is checked when typed (issue 13, item 4): `force B=9 D=0` used to
/// say `done` and fail at the next battle with a Lua traceback.
#[test]
fn force_is_checked_against_what_can_be_thrown() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 3);
    // Before the tower is loaded the next throw is the preload (7 a seat).
    let err = r.exec("force B=9 D=0").unwrap_err();
    assert!(err.contains("the tower's preload: at most 7"), "{err}");
    run(&mut r, &["next", "next", "next"]);
    // Inside now: B 2, C 2, peasants 4; B's largest army is 5 (Kozuke), and a
    // defender may throw 2 extra cubes (the castle event, the defence special).
    let before = r.state().clone();
    let err = r.exec("force B=10 D=0").unwrap_err();
    assert_eq!(
        err,
        "force: 10 of B's cubes cannot land in the next throw: at most 9 can (2 inside the tower and in the tray, 5 in its largest army (Kozuke), 2 extra from its supply)"
    );
    let err = r.exec("force A=1 C=3 D=1").unwrap_err();
    assert!(err.contains("A, C, D would all have to throw cubes, but a battle has two sides"), "{err}");
    assert!(r.exec("force peasants=500").unwrap_err().contains("500 peasants cannot land"));
    assert!(r.exec("force E=1").is_err(), "no seat E in a 4-player game");
    assert_eq!(r.state(), &before, "a refused force changes nothing");
    assert!(!r.exec("history").unwrap().contains("force"), "and is not recorded");
    assert_eq!(r.exec("force B=9 D=0").unwrap(), "done: force B=9 D=0");
    assert_eq!(r.state().forced_throws.len(), 1);
}

/// The board table stays aligned whatever the buildings column holds, and
/// counts agree with their nouns (issue 13, item 7).
#[test]
fn board_is_aligned_and_counts_are_grammatical() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 1);
    run(&mut r, &["next", "next", "next", "set Iyo owner=A buildings=castle,temple,theatre armies=12 unrest=1", "set A points=1 chests=1"]);
    let board = r.exec("board purple").unwrap();
    let lines: Vec<&str> = board.lines().skip(1).collect();
    // Every column ends (or, for the left-aligned ones, starts) at the same
    // place on every line: the header's.
    let head = lines[0];
    for col in ["owner", "armies", "unrest", "tax", "rice"] {
        let end = head.find(col).unwrap() + col.len();
        for l in &lines[1..] {
            assert!(l.len() >= end && l.as_bytes()[end - 1] != b' ' && l.as_bytes().get(end).is_none_or(|&c| c == b' '), "column {col}:\n{board}");
        }
    }
    let b = head.find("buildings").unwrap();
    assert!(lines.iter().all(|l| l.as_bytes()[b - 1] == b' ' && l.as_bytes()[b] != b' '), "{board}");
    assert!(board.contains("castle,temple,theatre (3 spaces)") && board.contains("- (1 space) "), "{board}");
    let a = r.exec("player A").unwrap();
    assert!(a.contains("1 war chest,") && a.contains("1 point,"), "{a}");
    assert!(r.exec("province Settsu").unwrap().contains("of 1 space\n"));
    assert!(r.exec("set Settsu buildings=castle,temple").unwrap_err().contains("only 1 building space"));
}
