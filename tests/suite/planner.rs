//! The rule-aware `planner`: it values positions by the pack's own scoring
//! (a castle worth more is built where a temple was), it sees only its
//! seat's view (the tower's levels, unlike the counts inside, change
//! nothing), and it beats random and greedy play; `mcts:100` beats it. `mcts` samples the tower's levels
//! from the counts. Fixed seeds throughout: no test can flake.

use std::sync::Arc;

use crate::common::*;
use shogun_lab::bots::value::{Valuer, scoring_reads_only_board};
use shogun_lab::bots::{self, Budget, Forbid, Greedy, Mcts, Planner, Weights};
use shogun_lab::core::*;
use shogun_lab::engine::Engine;
use shogun_lab::lab::ladder::{LadderSpec, Rung, ladder};
use shogun_lab::lab::{Arm, Settings};

/// Round 1's planning with every seat but 0 planned (greedy).
fn planning(engine: &Engine, seed: u64) -> GameState {
    let mut st = started(engine, 4, seed);
    engine.apply(&mut st, &Decision::Chance).unwrap();
    assert_eq!(st.phase, Phase::Planning);
    for s in 1..4 {
        let d = bots::decide(engine, &st, Seat::new(s), &mut Greedy::new(s as u64));
        engine.apply(&mut st, &d).unwrap();
    }
    st
}

fn plan_of(engine: &Engine, st: &GameState) -> Plan {
    let d = bots::decide(engine, st, Seat::new(0), &mut Planner::new(7));
    let Decision::Plan { plan, .. } = d else { panic!("a plan") };
    engine.check_plan(st, Seat::new(0), &plan).unwrap();
    plan
}

/// The province carrying a build card, if the plan builds it.
fn builds(engine: &Engine, plan: &Plan, id: &str) -> Option<Card> {
    plan.slots[action(engine, id)].filter(|c| matches!(c, Card::Province(_)))
}

/// The base pack with the castle's region majority worth `points`.
fn castle_majority(points: i64) -> Engine {
    let (pack, map) = copy_data("castle-majority");
    edit(
        &pack.join("rules.yaml"),
        "region_majority: {castle: 3, temple: 2, theatre: 1}",
        &format!("region_majority: {{castle: {points}, temple: 2, theatre: 1}}"),
    );
    engine_from(&pack, &map)
}

/// Only a scoring value changes (a castle's region majority, 1 -> 9): the
/// planner then builds a castle in the province where it built a temple.
/// The position (seed 1, round 1) is the same under both rulesets: the
/// setup does not read the scoring.
#[test]
fn a_castle_worth_more_is_built_where_a_temple_was() {
    let (cheap, rich) = (castle_majority(1), castle_majority(9));
    let st = planning(&cheap, 1);
    assert_eq!(st, planning(&rich, 1), "the same position under both rulesets");
    let (before, after) = (plan_of(&cheap, &st), plan_of(&rich, &st));
    let temple = builds(&cheap, &before, "temple").expect("a temple is built");
    assert_ne!(builds(&cheap, &before, "castle"), Some(temple), "{before:?}");
    assert_eq!(builds(&rich, &after, "castle"), Some(temple), "a castle where the temple was: {after:?}");
    assert_ne!(builds(&rich, &after, "temple"), Some(temple), "{after:?}");
}

/// mcts values the worlds it plays out by the pack's own scoring too (the
/// planner's value of a position at the rollout's end): the same search
/// (seed, budget, position, candidate plans) under a castle's region
/// majority worth 1 and worth 9 finds other values for the plans.
#[test]
fn mcts_values_its_rollouts_by_the_packs_scoring() {
    let (cheap, rich) = (castle_majority(1), castle_majority(9));
    let st = planning(&cheap, 1);
    assert_eq!(st, planning(&rich, 1), "the same position under both rulesets");
    let cands: Vec<Decision> = [plan_of(&cheap, &st), plan_of(&rich, &st)].into_iter().map(|plan| Decision::Plan { seat: Seat::new(0), plan }).collect();
    assert_ne!(cands[0], cands[1], "a temple in one plan, a castle in the other");
    let search = |engine: &Engine| Mcts::new(5, Budget::Iterations(30), Forbid::default()).search(engine, &st, Seat::new(0), &cands);
    let (a, b) = (search(&cheap), search(&rich));
    assert_eq!(a.iter().map(|c| c.visits).sum::<u32>(), 30);
    assert_ne!(a.iter().map(|c| c.mean).collect::<Vec<_>>(), b.iter().map(|c| c.mean).collect::<Vec<_>>(), "{a:?} {b:?}");
}

/// Scores remembered by board are kept per seat count: the same board in
/// a 3-player game, after a 4-player game on the same engine and thread
/// (the REPL's `new --players 3`), is scored for 3 seats, not given the
/// 4-player game's 4 scores.
#[test]
fn remembered_scores_belong_to_their_player_count() {
    let engine = engine();
    let mut four = started(&engine, 4, 11);
    for q in four.provinces.iter_mut().filter(|q| q.owner == Some(Seat::new(3))) {
        q.owner = None;
    }
    let mut three = started(&engine, 3, 11);
    three.provinces = four.provinces.clone();
    three.in_play = four.in_play.clone();
    (three.year, three.season) = (four.year, four.season);
    let mut val = Valuer::new(&engine, Weights::default());
    assert!(scoring_reads_only_board(&engine, &mut val, &four), "the base pack's scoring reads only the board");
    val.board_only = true;
    assert_eq!(val.score_now(&engine, &four).len(), 4);
    assert_eq!(val.score_now(&engine, &three).len(), 3, "a score for each of the three seats");
}

/// Moves `k` cubes of each colour inside the tower from level 0 to level 1
/// or back: the counts by colour stay, the levels change.
fn shuffle_levels(st: &mut GameState) {
    assert!(st.tower.len() >= 2, "a tower with levels");
    let (a, b) = (st.tower[0], st.tower[1]);
    st.tower[0] = b;
    st.tower[1] = a;
    if a == b {
        let all = st.tower[0];
        st.tower[0] = Pile::default();
        st.tower[1].add(&all);
    }
}

/// No peeking at the tower: which level the cubes sit on is hidden (only
/// the counts by colour are known), so moving cubes between levels in the
/// real state changes neither the planner's nor mcts's decision.
#[test]
fn decisions_do_not_depend_on_the_towers_hidden_levels() {
    let engine = engine();
    for seed in [2, 5] {
        let st = planning(&engine, seed);
        let inside: u32 = st.tower.iter().map(Pile::total).sum();
        assert!(inside > 0, "seed {seed}: cubes inside the tower");
        let mut other = st.clone();
        shuffle_levels(&mut other);
        assert_ne!(other.tower, st.tower);
        let total = |s: &GameState| {
            let mut all = Pile::default();
            s.tower.iter().for_each(|l| all.add(l));
            all
        };
        assert_eq!(total(&other), total(&st), "the counts by colour stay");
        assert_eq!(plan_of(&engine, &other), plan_of(&engine, &st), "seed {seed}: the planner's plan");
        let mcts = |s: &GameState| bots::decide(&engine, s, Seat::new(0), &mut Mcts::new(9, Budget::Iterations(40), Forbid::default()));
        assert_eq!(mcts(&other), mcts(&st), "seed {seed}: mcts's plan");
    }
}

/// `determinize` draws the levels from the counts: every sample keeps the
/// counts by colour, and the samples differ from one another.
#[test]
fn determinize_draws_the_towers_levels_from_the_counts() {
    let engine = engine();
    let st = planning(&engine, 3);
    let view = st.view(Some(Seat::new(0)));
    let mut rng = GameRng::seeded(4);
    let mut all = Pile::default();
    view.tower.iter().for_each(|l| all.add(l));
    let mut seen = Vec::new();
    for _ in 0..20 {
        let w = bots::determinize(&engine, &view, Seat::new(0), &mut rng);
        let mut now = Pile::default();
        w.tower.iter().for_each(|l| now.add(l));
        assert_eq!(now, all);
        assert_eq!(w.tower.len(), st.tower.len());
        if !seen.contains(&w.tower) {
            seen.push(w.tower.clone());
        }
    }
    assert!(seen.len() > 1, "the levels are drawn, not copied");
}

fn arm() -> Arm {
    let rules = shogun_lab::rules::load(&root().join("scripts/base"), &root().join("maps/sun.yaml")).unwrap();
    Arm { name: rules.ruleset_name(), rules: Arc::new(rules), tower: None }
}

/// The rung of one planner seat over three seats of `lower`, rotated, on
/// seeds 1 onwards.
fn rung_over(lower: &str, games: u64) -> Rung {
    rung_of("planner", lower, games)
}

/// The rung of one `upper` seat over three seats of `lower`, rotated, on
/// seeds 1 onwards.
fn rung_of(upper: &str, lower: &str, games: u64) -> Rung {
    let mut settings = Settings::new(4, 1, games);
    settings.jobs = Some(2);
    let spec = LadderSpec { arm: arm(), levels: vec![lower.into(), upper.into()], settings };
    ladder(&spec, &|_| {}).unwrap().remove(0)
}

/// The planner's rung above random on a small sample: one planner seat
/// against three random seats wins with a 95% lower bound above 50% over
/// 40 games (an equal bot wins 25%), and more points than they do.
#[test]
fn the_planner_beats_random_play() {
    let r = rung_over("random", 40);
    assert!(r.win_rate.lo > 2.0 * Rung::par(4) && r.margin.lo > 0.0, "{r:?}");
}

/// The planner's rung above greedy on a small sample (issue 22's ladder:
/// random < greedy < rule-aware): one planner seat against three greedy
/// seats, rotated, wins with a 95% lower bound above 30% over 100 games
/// (seeds 1-100: 56.5%, 46.7-65.8%; an equal bot wins 25%), and more
/// points than they do.
#[test]
fn the_planner_beats_greedy() {
    let r = rung_over("greedy", 100);
    assert!(r.win_rate.lo > 0.30 && r.margin.lo > 0.0, "{r:?}");
}

/// mcts's rung above the planner on a small sample (issue 22's ladder:
/// rule-aware < mcts:100): one mcts:100 seat against three planner seats,
/// rotated, wins with a 95% lower bound above the 25% an equal bot wins
/// over 100 games (seeds 1-100: 38.0%, 29.1-47.8%, +5.5 points,
/// +3.5..+7.5; 36.0% before the others' plans were kept for the round),
/// and more points than they do. About a minute of CPU.
#[test]
fn mcts_beats_the_planner() {
    let r = rung_of("mcts:100", "planner", 100);
    assert!(r.win_rate.lo > Rung::par(4) && r.margin.lo > 0.0, "{r:?}");
}

/// Issue 22 item 3: `bots tune`'s coordinate search is deterministic for a
/// seed (and the jobs), records every trial, and the weights it returns
/// are those of its last accepted trial, as a bot name that parses back.
#[test]
fn tuning_is_deterministic_for_a_seed() {
    use shogun_lab::lab::tune::{Search, TuneSpec, planner_name, tune};
    let run = |jobs: usize, seed: u64| {
        let mut settings = Settings::new(4, seed, 12);
        settings.jobs = Some(jobs);
        let spec = TuneSpec {
            arm: arm(),
            search: Search::Coordinate,
            options: ":no-attack".into(),
            start: bots::Weights::default(),
            opponent: Some("random".into()),
            games: 12,
            budget: 60,
            check: 12,
            settings,
        };
        tune(&spec, &|_| {}).unwrap()
    };
    let (a, b) = (run(1, 5), run(2, 5));
    assert_eq!(a, b, "the same seed gives the same search");
    assert_eq!(a.trials.len(), 5);
    assert_eq!(a.games, 60);
    let last = a.trials.iter().rev().find(|t| t.accepted);
    let mut want = bots::Weights::default();
    for t in a.trials.iter().filter(|t| t.accepted) {
        want.set(t.weight, t.to);
    }
    assert_eq!(a.weights, want, "{:?}", a.trials);
    let name = planner_name(&a.weights, ":no-attack");
    let spec = bots::BotSpec::parse(&name).unwrap();
    assert!(spec.forbid.attack && spec.weights == a.weights, "{name}");
    assert!(last.is_none() || name.contains(last.unwrap().weight), "{name}");
    // Against random most trials show their candidate better; the weights
    // found are then checked against the start, on seeds no trial played.
    assert!(a.trials.iter().any(|t| t.accepted), "{:?}", a.trials);
    let c = a.check.as_ref().expect("a search that moved is checked");
    assert_eq!((c.games, c.lower.as_str(), c.upper.as_str()), (12, "planner:no-attack", name.as_str()));
    assert_ne!(run(1, 6).trials, a.trials, "another seed plays other games");
}

/// The halving search (`bots tune --search halving`) is deterministic for
/// a seed and the jobs; each pass races every one-weight step by
/// sequential halving (half the candidates, rounded up, go on each round,
/// the survivor the one that played every round), confirms the survivor
/// and keeps it only when the confirmation shows it better; the weights
/// returned are the start with the kept steps; the games stay within the
/// budget.
#[test]
fn the_halving_search_is_deterministic_and_races_every_step() {
    use shogun_lab::lab::tune::{Search, TuneSpec, halving_rounds, tune};
    let run = |jobs: usize, seed: u64| {
        let mut settings = Settings::new(4, seed, 12);
        settings.jobs = Some(jobs);
        let spec = TuneSpec {
            arm: arm(),
            search: Search::Halving,
            options: String::new(),
            start: bots::Weights::default(),
            opponent: Some("random".into()),
            games: 12,
            budget: 180,
            check: 12,
            settings,
        };
        tune(&spec, &|_| {}).unwrap()
    };
    let (a, b) = (run(1, 5), run(2, 5));
    assert_eq!(a, b, "the same seed gives the same search");
    assert!(!a.trials.is_empty() && a.games <= 180, "{} games", a.games);
    let mut played = 0;
    let mut want = bots::Weights::default();
    for t in &a.trials {
        let field = &t.field;
        assert_eq!(field.len(), 2 * Weights::NAMES.len() - Weights::NAMES.iter().filter(|n| want.get(n) == 0.0).count());
        let rounds = halving_rounds(field.len(), 12);
        for (j, &(n, each)) in rounds.iter().enumerate() {
            let went = field.iter().filter(|e| e.rounds as usize > j).count();
            assert_eq!(went, n, "round {}: {field:?}", j + 1);
            assert!(field.iter().filter(|e| e.rounds as usize == j + 1).all(|e| e.games == rounds[..=j].iter().map(|r| r.1).sum::<u64>()), "{each}");
        }
        let last = field.iter().filter(|e| e.rounds as usize == rounds.len()).collect::<Vec<_>>();
        assert_eq!(last.len(), 2.min(field.len()));
        assert!(last.iter().any(|e| (e.weight, e.to) == (t.weight, t.to)), "the confirmed step survived the race");
        assert_eq!(t.rung.games, 24, "a confirmation of 2 × games");
        played += field.iter().map(|e| e.games).sum::<u64>() + t.rung.games;
        if t.accepted {
            want.set(t.weight, t.to);
        }
    }
    assert_eq!(a.games, played);
    assert_eq!(a.weights, want);
    // Against random the steps are confirmed; the weights found are then
    // checked against the start on seeds no pass played.
    assert!(a.trials.iter().any(|t| t.accepted), "{:?}", a.trials);
    assert_eq!(a.check.as_ref().map(|c| c.games), Some(12));
    assert_ne!(run(1, 6).trials, a.trials, "another seed plays other games");
}

/// Issue 22 item 3 (review): the search keeps a step only when its trial
/// shows it better. A candidate that plays exactly as the incumbent
/// (`planner:future=0.4` names the default weights) is kept on none of a
/// fixed set of seed blocks, even at the loosest level (a search of one
/// trial: the 95% bound), where a point estimate above 25% (the rule
/// before) would keep some of them.
#[test]
fn the_search_keeps_no_step_that_plays_as_the_incumbent() {
    use shogun_lab::lab::tune::shown_better;
    let arm = arm();
    let mut lucky = 0;
    for k in 0..12u64 {
        let mut settings = Settings::new(4, 1 + 50 * k, 50);
        settings.jobs = Some(2);
        let spec = LadderSpec { arm: arm.clone(), levels: vec!["planner".into(), "planner:future=0.4".into()], settings };
        let r = ladder(&spec, &|_| {}).unwrap().remove(0);
        assert!(!shown_better(&r, 4, 1), "seeds {}..: {r:?}", 1 + 50 * k);
        lucky += usize::from(r.win_rate.value > Rung::par(4));
    }
    assert!(lucky > 0, "a point estimate above par keeps some of these null steps");
}

/// The planner's weights are options of its name; bad ones are refused
/// with the list of weights.
#[test]
fn planner_weights_are_bot_options() {
    let spec = bots::BotSpec::parse("planner:army=0.5:no-attack:order=0").unwrap();
    assert!(spec.forbid.attack && spec.weights.army == 0.5 && spec.weights.order == 0.0);
    // The attack thresholds are weights too; at their defaults they name
    // the default planner.
    assert_eq!(bots::BotSpec::parse("planner:chance=0.4:commit=0.5").unwrap().weights, Weights::default());
    let w = bots::BotSpec::parse("planner:chance=0.7:commit=0.25").unwrap().weights;
    assert!(w.chance == 0.7 && w.commit == 0.25 && w.options() == ":chance=0.7:commit=0.25", "{w:?}");
    let e = bots::BotSpec::parse("planner:armies=1").unwrap_err();
    assert!(e.contains("names no weight") && e.contains("exposure"), "{e}");
    let e = bots::BotSpec::parse("planner:army=-1").unwrap_err();
    assert!(e.contains("from 0 to 100"), "{e}");
    assert!(bots::BotSpec::parse("greedy:army=1").is_err());
}

/// The planner remembers what a change within one region adds to the
/// scores only where the rules' scoring scores each region on its own:
/// the base pack's does (provinces, buildings, region majorities); one
/// with a bonus for the most provinces over the whole board does not, and
/// is scored position by position. With the base pack, the regional
/// shortcut plays the very games scoring every position did (`shogun
/// bench --bots planner`: the same decisions and battles per game).
#[test]
fn only_a_regional_scoring_is_remembered_by_region() {
    use shogun_lab::bots::value::{Valuer, Weights, scoring_is_regional, scoring_reads_only_board};
    let regional = |engine: &Engine| {
        let st = planning(engine, 1);
        let mut val = Valuer::new(engine, Weights::default());
        assert!(scoring_reads_only_board(engine, &mut val, &st));
        scoring_is_regional(engine, &mut val, &st)
    };
    assert!(regional(&engine()));
    let (pack, map) = copy_data("global-scoring");
    let turns = pack.join("turns.lua");
    let mut text = std::fs::read_to_string(&turns).unwrap();
    text.push_str(
        r#"
local regional_score = shogun.original("handler", "score")
shogun.replace("handler", "score", function()
  regional_score()
  local best, most, board = 1, -1, game.board()
  for s = 1, game.seats() do
    local held = board.provinces[s]
    if held > most then best, most = s, held end
  end
  game.add_points(best, 5)
end)
"#,
    );
    std::fs::write(&turns, text).unwrap();
    assert!(!regional(&engine_from(&pack, &map)), "a bonus over the whole board is not regional");
}

/// The base pack with its scoring followed by `extra` (Lua run after the
/// pack's own scoring, inside the same handler).
fn scoring_plus(tag: &str, extra: &str) -> Engine {
    let (pack, map) = copy_data(tag);
    let turns = pack.join("turns.lua");
    let mut text = std::fs::read_to_string(&turns).unwrap();
    text.push_str(&format!(
        "\nlocal pack_score = shogun.original(\"handler\", \"score\")\nshogun.replace(\"handler\", \"score\", function()\n  pack_score()\n  {extra}\nend)\n"
    ));
    std::fs::write(&turns, text).unwrap();
    engine_from(&pack, &map)
}

/// The runtime says what a call's host functions read beyond the board
/// view and the seats: nothing for the base pack's scoring (without its
/// narration, which reads each seat's points, as in a bot's look-ahead),
/// the round for one that reads the year, more for one that reads war
/// chests.
#[test]
fn the_runtime_says_what_a_scoring_read() {
    use shogun_lab::script::{PhaseHandler, Reads};
    let reads = |engine: &Engine| {
        let mut st = planning(engine, 1);
        engine.runtime().set_narration(false);
        engine.runtime().take_reads();
        engine.runtime().call_phase(&mut st, &mut Vec::new(), PhaseHandler::Score).unwrap();
        engine.runtime().take_reads()
    };
    assert_eq!(reads(&engine()), Reads::default());
    let year = scoring_plus("year-scoring", "game.add_points(1, game.year())");
    assert_eq!(reads(&year), Reads { round: true, ..Reads::default() });
    let chests = scoring_plus("chest-scoring", "game.add_points(1, game.chests(1))");
    assert_eq!(reads(&chests), Reads { other: true, ..Reads::default() });
    assert_eq!(chests.runtime().take_reads(), Reads::default(), "taking them starts afresh");
}

/// Issue 25: `game.award(source, points)` scores every seat from one
/// source in one call: its points, and the lab's tally `points.SOURCE`
/// for each seat; a list of the wrong length or a bad source changes
/// nothing.
#[test]
fn an_award_scores_every_seat_and_tallies_its_source() {
    use shogun_lab::script::PhaseHandler;
    let run = |extra: &str| {
        let engine = scoring_plus(&format!("award-{}", extra.len()), extra);
        let mut st = planning(&engine, 1);
        let before: Vec<i64> = st.players.iter().map(|p| p.points).collect();
        let mut events = Vec::new();
        let done = engine.runtime().call_phase(&mut st, &mut events, PhaseHandler::Score);
        (done.map(|_| ()).map_err(|e| e.to_string()), before, st, events)
    };
    let (plain, base, st0, _) = run("");
    plain.unwrap();
    let scored: Vec<i64> = st0.players.iter().zip(&base).map(|(p, b)| p.points - b).collect();
    let (done, before, st, events) = run("game.award('bonus', { 1, 2, 3, 4 })");
    done.unwrap();
    let bonus: Vec<i64> = st.players.iter().zip(&before).zip(&scored).map(|((p, b), s)| p.points - b - s).collect();
    assert_eq!(bonus, [1, 2, 3, 4]);
    let tallied: Vec<(Option<Seat>, i64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Tally { key, seat, amount } if key == "points.bonus" => Some((*seat, *amount)),
            _ => None,
        })
        .collect();
    assert_eq!(tallied, (0..4).map(|s| (Some(Seat::new(s)), s as i64 + 1)).collect::<Vec<_>>());
    for (code, want) in [
        ("game.award('bonus', { 1, 2 })", "game.award: 2 points given for 4 seats"),
        ("game.award('no spaces', { 1, 2, 3, 4 })", "is not a metric name"),
        ("game.award('bonus', { 1, 2, 3, 'x' })", "item 4 of argument 2 must be an integer"),
    ] {
        let (done, ..) = run(code);
        let err = done.unwrap_err();
        assert!(err.contains(want), "{code}: {err}");
    }
}

/// What a seat's special card can change in a call: the hooks whose
/// effects it asked for on behalf of a seat (a build asks for the calm
/// after it, not for the tax yield; collecting taxes asks for the tax
/// yield; a hook no effect names is never asked for), every hook once it
/// read a seat's special itself.
/// The planner tries a special on a planned action only where its
/// lookahead asked for one of the special's hooks.
#[test]
fn the_runtime_says_which_hooks_a_call_asked_for() {
    let engine = engine();
    let rt = engine.runtime();
    let st0 = planning(&engine, 1);
    let seat = Seat::new(0);
    let p = st0.provinces_of(seat).find(|&p| st0.provinces[p.index()].unrest == 0).unwrap();
    let act = |card: &str| {
        let a = engine.rules.cards.actions.iter().position(|c| c.id == card).unwrap();
        let mut st = st0.clone();
        st.players[0].chests = 10;
        rt.take_reads();
        rt.call_action(&mut st, &mut Vec::new(), a, seat, p).unwrap();
        rt.take_reads()
    };
    let build = act("temple");
    assert!(rt.consulted(build, "after_build") && !rt.consulted(build, "action_cost"));
    assert!(!rt.consulted(build, "tax_yield") && !rt.consulted(build, "rice_yield"));
    let taxes = act("taxes");
    assert!(rt.consulted(taxes, "tax_yield") && !rt.consulted(taxes, "deploy_armies"));
    let special = scoring_plus("special-read", "game.special(1)");
    let mut st = planning(&special, 1);
    special.runtime().set_narration(false);
    special.runtime().take_reads();
    special.runtime().call_phase(&mut st, &mut Vec::new(), shogun_lab::script::PhaseHandler::Score).unwrap();
    let all = special.runtime().take_reads();
    assert!(special.runtime().consulted(all, "tax_yield") && special.runtime().consulted(all, "no_such_hook"));
}

/// A score is remembered by the board view only for a scoring that read
/// nothing else, call by call: one that also reads war chests (or the
/// year) is scored afresh where they differ, even where the planner was
/// told that the scoring reads only the board.
#[test]
fn a_score_is_remembered_only_where_the_scoring_read_only_the_board() {
    let check = |engine: &Engine, change: &dyn Fn(&mut GameState), by: i64| {
        let st = planning(engine, 1);
        let mut val = Valuer::new(engine, Weights::default());
        val.board_only = true;
        let a = val.score_now(engine, &st);
        let mut other = st.clone();
        change(&mut other);
        let b = val.score_now(engine, &other);
        assert_eq!(b[0] - a[0], by, "{a:?} {b:?}");
        assert_eq!(val.score_now(engine, &st), a, "the first position again");
    };
    let chests = scoring_plus("chest-scoring", "game.add_points(1, game.chests(1))");
    check(&chests, &|st| st.players[0].chests += 3, 3);
    let year = scoring_plus("year-scoring", "game.add_points(1, game.year())");
    check(&year, &|st| st.year += 1, 1);
    check(&engine(), &|st| st.players[0].chests += 3, 0);
}
