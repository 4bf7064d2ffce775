//! A rule failing in the REPL is blamed on the decision that met it: a
//! person's answer is not said to have failed when a bot's or chance's
//! decision after it did, and the answer that took effect stays.

use crate::common::*;
use shogun_lab::play::GameSpec;
use shogun_lab::repl::{Config, Repl};

/// A REPL (A human, the others greedy, seed 1) on a copy of the base pack
/// with `lua` appended to its last file, at A's choice of a turn-order
/// space in the first round.
fn at_the_first_choice(tag: &str, lua: &str) -> Repl {
    let (pack, map) = copy_data(tag);
    let path = pack.join("winter.lua");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(lua);
    std::fs::write(&path, text).unwrap();
    let spec = GameSpec { map: map.display().to_string(), rules: Some(pack), data: Some(root()), ..GameSpec::default() };
    let seats = ["human", "greedy", "greedy", "greedy"].iter().map(|s| s.to_string()).collect();
    let mut r = Repl::new(Config { spec, players: 4, seed: 1, seats }).unwrap();
    run(&mut r, &["next", "next", "next", "plan auto", "plan done"]);
    assert!(r.exec("options").unwrap().contains("choose a turn-order space"));
    r
}

/// A bot's answer to a question after the person's answer fails in the
/// rules: the message names the bot's decision, says the person's took
/// effect, and the game keeps it (it used to say nothing of whose decision
/// failed and take the person's answer back with it).
#[test]
fn a_rule_failing_in_a_bots_decision_after_an_answer_blames_the_bot_and_keeps_the_answer() {
    let mut r = at_the_first_choice(
        "blame-bot",
        "\nshogun.replace('continuation', 'deploy_move_to', function(seat, to, data) error('moving on broke') end, \
         function(seat, to, data) return seat ~= 1 end)\n",
    );
    let at = r.game().cursor();
    let err = r.exec("1").unwrap_err();
    assert!(err.starts_with("the rules failed while applying "), "{err}");
    assert!(err.contains("'s decision (the greedy bot) `") && err.contains("moving on broke"), "{err}");
    assert!(err.contains("your decision `A choose space 4` took effect"), "{err}");
    assert!(err.contains("what took effect:\n  A takes turn space 4"), "{err}");
    // The answer and the bots' decisions before the failing one stand.
    let kept = r.game().cursor();
    assert!(kept > at, "the answer was taken back");
    assert!(r.exec("history").unwrap().contains(&format!("{:>4}  A choose space 4", at + 1)));
    assert!(
        err.contains(&format!("and so did the {} after it", if kept - at == 2 { "1 decision".to_string() } else { format!("{} decisions", kept - at - 1) })),
        "{err}"
    );
    // `step` meets the same failure, named the same way, and changes nothing.
    let again = r.exec("step").unwrap_err();
    assert!(again.starts_with("the rules failed while applying ") && again.contains("nothing changed"), "{again}");
    assert_eq!(r.game().cursor(), kept);
    // `undo` takes back the answer and what followed it, whole.
    r.exec("undo").unwrap();
    assert_eq!(r.game().cursor(), at);
}

/// The rule fails in the play the person's answer itself sets going (the
/// action cards run on to the next question in the same move): the
/// message says what was being carried out, whose, and that the answer
/// did not take effect; a bot's decision meeting it says the same.
#[test]
fn a_rule_failing_in_the_play_after_a_decision_names_what_it_was_carrying_out() {
    let mut r = at_the_first_choice(
        "blame-play",
        "\nshogun.replace('action', 'build', function(seat, p, a) error('building broke') end, \
         function(seat, p, a) return seat ~= 1 end)\n",
    );
    let before = (r.state().clone(), r.game().cursor(), r.game().len());
    let err = r.exec("1").unwrap_err();
    assert!(err.starts_with("`A choose space 4` is legal, but the rules failed in the play it sets going, while carrying out "), "{err}");
    assert!(err.contains("'s Build castle in ") && err.contains("building broke"), "{err}");
    assert!(err.contains("the decision did not take effect either") && err.contains("nothing changed"), "{err}");
    assert_eq!((r.state().clone(), r.game().cursor(), r.game().len()), before);
    run(&mut r, &["seat A greedy"]);
    let err = r.exec("round").unwrap_err();
    assert!(
        err.starts_with("the rules failed while applying A's decision (the greedy bot) `A choose space 4`, in the play it set going, while carrying out "),
        "{err}"
    );
    assert!(err.contains("nothing changed: the command was taken back whole"), "{err}");
    assert_eq!((r.state().clone(), r.game().cursor(), r.game().len()), before);
}
