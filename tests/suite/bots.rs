//! The bots: names with options, restricted play, the `mcts` search
//! (determinism, no peeking at hidden information, obvious choices) and
//! the first rungs of the skill ladder. Every test uses fixed seeds and
//! iteration budgets, so its outcome is fixed: none can flake.

use std::sync::Arc;

use crate::common::*;
use shogun_lab::bots::{self, Bot, BotSpec, Budget, Forbid, Greedy, Mcts, Planner, RandomBot};
use shogun_lab::core::*;
use shogun_lab::engine::{Engine, check_invariants};
use shogun_lab::lab::ladder::{LadderSpec, Rung, ladder};
use shogun_lab::lab::{Arm, Settings};
use shogun_lab::play::play_game;

#[test]
fn bot_names_with_options_parse() {
    for ok in
        ["random", "greedy", "mcts", "mcts:400", "mcts:50ms", "mcts:0.2s", "mcts:400:no-attack", "greedy:no-attack", "greedy:no-build", "mcts:no-build:30"]
    {
        assert!(bots::by_name(ok, 1).is_ok(), "{ok}");
    }
    let spec = BotSpec::parse("mcts:400:no-attack").unwrap();
    assert_eq!(spec.budget, Some(Budget::Iterations(400)));
    assert_eq!(spec.forbid, Forbid { attack: true, build: false });
    for bad in ["nope", "greedy:400", "random:no-attack", "mcts:0", "mcts:fast", "mcts:10:20", "greedy:no-fight", "mcts:0ms"] {
        let e = bots::by_name(bad, 1).err().unwrap_or_else(|| panic!("{bad} should be refused"));
        assert!(e.contains("bot") || e.contains("option"), "{bad}: {e}");
    }
    let seats = bots::fill_seats(&["mcts:100".into(), "greedy:no-build".into()], 4, false, "--bots").unwrap();
    assert_eq!(seats, ["mcts:100", "greedy:no-build", "greedy:no-build", "greedy:no-build"]);
    let e = bots::fill_seats(&["greedy:7".into()], 4, false, "--bots").unwrap_err();
    assert!(e.starts_with("--bots: bot `greedy:7`"), "{e}");
}

/// The state at round 1's planning with every seat but `seat` planned (greedy).
fn planning_with_others_planned(engine: &Engine, seed: u64, seat: usize) -> GameState {
    let mut st = started(engine, 4, seed);
    engine.apply(&mut st, &Decision::Chance).unwrap(); // lay out the round
    assert_eq!(st.phase, Phase::Planning);
    for s in (0..4).filter(|&s| s != seat) {
        let d = bots::decide(engine, &st, Seat::new(s), &mut Greedy::new(s as u64));
        engine.apply(&mut st, &d).unwrap();
    }
    st
}

#[test]
fn restricted_greedy_never_plans_the_forbidden_play() {
    let engine = engine();
    for seed in 1..=20 {
        let mut st = started(&engine, 4, seed);
        engine.apply(&mut st, &Decision::Chance).unwrap();
        for seat in 0..4 {
            let view = SeatView::new(&st, Seat::new(seat));
            for (forbid, kind) in [(Forbid { attack: true, build: false }, "move_attack"), (Forbid { attack: false, build: true }, "build")] {
                let plan = Greedy::restricted(1, forbid).plan(&engine, &view, Seat::new(seat));
                engine.check_plan(&st, Seat::new(seat), &plan).unwrap();
                for (a, c) in plan.slots.iter().enumerate() {
                    if engine.rules.cards.actions[a].handler == kind {
                        assert!(!matches!(c, Some(Card::Province(_))), "seed {seed}: {kind} planned despite {forbid:?}");
                    }
                }
            }
        }
    }
    // Restricted bots play whole games, and the restriction shows.
    let names = |n: &str| vec![n.to_string(); 4];
    let built = |st: &GameState| st.provinces.iter().map(|p| p.building_count()).sum::<u32>();
    let free = play_game(&engine, 4, 3, SetupMode::Preset, &names("greedy"), |_| {}).unwrap();
    let no_build = play_game(&engine, 4, 3, SetupMode::Preset, &names("greedy:no-build"), |_| {}).unwrap();
    assert!(built(&no_build) < built(&free), "no-build built {} vs {}", built(&no_build), built(&free));
}

#[test]
fn mcts_is_deterministic_for_a_seed_and_budget() {
    let engine = engine();
    let names: Vec<String> = vec!["mcts:12".into(), "greedy".into()];
    let names = bots::fill_seats(&names, 4, false, "--bots").unwrap();
    let a = play_game(&engine, 4, 11, SetupMode::Preset, &names, |_| {}).unwrap();
    let b = play_game(&engine, 4, 11, SetupMode::Preset, &names, |_| {}).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.phase, Phase::GameOver);
}

/// Plans are the secret: the decision of `mcts` for its seat does not
/// change when what it may not see changes in the real state (another
/// seat's plan, the face-down action cards, the event deck, the streams' seed).
#[test]
fn mcts_does_not_peek() {
    let engine = engine();
    for seed in [2, 5] {
        let st = planning_with_others_planned(&engine, seed, 0);
        let decide = |st: &GameState| bots::decide(&engine, st, Seat::new(0), &mut Mcts::new(9, Budget::Iterations(60), Forbid::default()));
        let before = decide(&st);
        let mut other = st.clone();
        // Seat 2 planned something else (a random bot's plan).
        other.players[1].plan = None;
        let plan = RandomBot::new(77).plan(&engine, &SeatView::new(&other, Seat::new(1)), Seat::new(1));
        assert_ne!(Some(&plan), st.players[1].plan.as_ref(), "the test needs a different plan");
        other.players[1].plan = Some(plan);
        // And the hidden order of cards and the random streams' seed differ.
        let open = other.actions_revealed as usize;
        other.action_row[open..].reverse();
        other.event_deck.reverse();
        other.streams.reseed(12345);
        assert_eq!(st.view(Some(Seat::new(0))), other.view(Some(Seat::new(0))), "the seat's view is the same");
        assert_eq!(decide(&other), before, "seed {seed}: the decision changed with hidden information");
    }
}

/// Gives `seat` exactly `n` armies in province `p` (cubes to or from its supply).
fn set_armies(st: &mut GameState, p: usize, n: u16) {
    let seat = (st.provinces[p].owner.expect("owned")).index();
    let now = st.provinces[p].armies;
    st.players[seat].supply = st.players[seat].supply + now - n;
    st.provinces[p].armies = n;
}

#[test]
fn mcts_weighs_the_rest_of_the_round_in_its_attacks() {
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    engine.apply(&mut st, &Decision::Chance).unwrap();
    let map = &engine.rules.map;
    // A province of seat 1 with two neighbours held by other seats.
    let (from, weak, strong) = st
        .provinces_of(Seat::new(0))
        .find_map(|p| {
            let enemies: Vec<usize> = map.provinces[p.index()]
                .neighbours
                .iter()
                .copied()
                .filter(|&q| st.in_play[q] && matches!(st.provinces[q].owner, Some(o) if o != Seat::new(0)))
                .collect();
            (enemies.len() >= 2).then(|| (p.index(), enemies[0], enemies[1]))
        })
        .expect("a border province with two enemy neighbours");
    set_armies(&mut st, from, 10);
    set_armies(&mut st, weak, 1);
    set_armies(&mut st, strong, 25);
    check_invariants(&engine.rules, &st).unwrap();
    perform(&engine, &mut st, 0, "attack_a", &map.provinces[from].name, None, None);
    let ask = st.ask.clone().expect("a move question");
    assert_eq!(ask.kind, "move_target");
    let (w, s) = (Choice::Province(ProvinceId::new(weak)), Choice::Province(ProvinceId::new(strong)));
    assert!(ask.options.contains(&w) && ask.options.contains(&s));
    let view = SeatView::new(&st, Seat::new(0));
    // Played to the round's end (the others planning as the planner, every
    // question answered by it), taking the weak side leaves `from` with
    // the one army left behind next to the 25, and the search keeps its
    // armies instead: every bot seed 1-8 values the strong side's minimal
    // attack about 2 points above taking the weak one (means about -2.7
    // against -4.9). The planner, one step ahead, takes the weak side.
    // Which is right is not settled here; what is pinned is that the
    // search weighs the rest of the round, in either order of the options.
    for options in [[w, s], [s, w]] {
        let c = Mcts::new(1, Budget::Iterations(100), Forbid::default()).choose(&engine, &view, Seat::new(0), "move_target", &options);
        assert_eq!(c, s, "keeps its armies beside the 25");
    }
    let planner = Planner::new(1).choose(&engine, &view, Seat::new(0), "move_target", &[w, s]);
    assert_eq!(planner, w, "the planner attacks 1 army with 9");
    // Forbidden to attack, it moves into its own province when it can.
    let own = ask.options.iter().copied().find(|c| matches!(c, Choice::Province(q) if st.provinces[q.index()].owner == Some(Seat::new(0))));
    if let Some(own) = own {
        let c = Mcts::new(1, Budget::Iterations(30), Forbid { attack: true, build: false }).choose(&engine, &view, Seat::new(0), "move_target", &ask.options);
        assert_eq!(c, own);
    }
}

#[test]
fn mcts_prefers_a_plan_it_can_pay_for() {
    let engine = engine();
    let mut st = planning_with_others_planned(&engine, 4, 0);
    st.players[0].chests = 0;
    let view = st.view(Some(Seat::new(0)));
    let mine: Vec<ProvinceId> = st.provinces_of(Seat::new(0)).collect();
    // Every province card on an action that costs war chests: all skipped.
    let mut unpaid = Plan { slots: vec![None; engine.rules.cards.actions.len()], bid: None };
    let costly: Vec<usize> = (0..unpaid.slots.len()).filter(|&a| engine.rules.cards.actions[a].cost > 0).collect();
    for (&a, &p) in costly.iter().zip(&mine) {
        unpaid.slots[a] = Some(Card::Province(p));
    }
    unpaid.bid = Some(Card::Chest(0));
    engine.fill_skips(&view, Seat::new(0), &mut unpaid);
    engine.check_plan(&st, Seat::new(0), &unpaid).unwrap();
    let paid = Greedy::new(1).plan(&engine, &SeatView::new(&st, Seat::new(0)), Seat::new(0));
    assert_ne!(paid, unpaid);
    let cands = [Decision::Plan { seat: Seat::new(0), plan: unpaid.clone() }, Decision::Plan { seat: Seat::new(0), plan: paid.clone() }];
    let stats = Mcts::new(5, Budget::Iterations(60), Forbid::default()).search(&engine, &view, Seat::new(0), &cands);
    assert!(stats[1].mean > stats[0].mean && Mcts::best(&stats) == 1, "{stats:?}");
}

fn arm() -> Arm {
    let rules = shogun_lab::rules::load(&root().join("scripts/base"), &root().join("maps/sun.yaml")).unwrap();
    Arm { name: rules.ruleset_name(), rules: Arc::new(rules), tower: None }
}

/// The first rungs on a small sample. Margins: greedy's lower 95% bound over
/// 40 games is above the 25% an equal bot wins; mcts:30 (a small budget, to
/// keep the test short) wins more than 25% of 16 games and more points than
/// the greedy seats on average.
#[test]
fn the_ladders_first_rungs_hold() {
    let spec = |levels: &[&str], games, jobs| {
        let mut settings = Settings::new(4, 1, games);
        settings.jobs = Some(jobs);
        LadderSpec { arm: arm(), levels: levels.iter().map(|s| s.to_string()).collect(), settings }
    };
    let r = ladder(&spec(&["random", "greedy"], 40, 2), &|_| {}).unwrap();
    assert_eq!(r.len(), 1);
    assert!(r[0].win_rate.lo > Rung::par(4), "{:?}", r[0]);
    let r = ladder(&spec(&["greedy", "mcts:30"], 16, 2), &|_| {}).unwrap();
    assert!(r[0].win_rate.value > Rung::par(4) && r[0].margin.value > 0.0, "{:?}", r[0]);
    // The same ladder with one job gives the same result.
    let one = spec(&["random", "greedy"], 12, 1);
    let two = spec(&["random", "greedy"], 12, 2);
    assert_eq!(ladder(&one, &|_| {}).unwrap(), ladder(&two, &|_| {}).unwrap());
}

/// `mcts` plays whole games under the base rules and every shipped variant
/// (every folder in variants/, read from disk so a new one is covered), each
/// with every tower its rules list (`towers`, `tower.use` among them) that
/// can play a game by itself: a `scripted` tower only plays forced throws.
/// A small budget keeps it quick; player counts and the mcts seat vary.
#[test]
fn mcts_plays_every_variant_under_every_tower() {
    let mut rulesets: Vec<(String, Vec<(std::path::PathBuf, shogun_lab::rules::VariantArg)>)> = vec![("base".into(), vec![])];
    let mut dirs: Vec<_> =
        std::fs::read_dir(root().join("variants")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.join("variant.yaml").is_file()).collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "the shipped variants: {dirs:?}");
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        rulesets.push((name.clone(), vec![(dir, name.parse().unwrap())]));
    }
    let mut games = 0;
    for (name, variants) in &rulesets {
        let load =
            || shogun_lab::rules::load_with(&root().join("scripts/base"), &root().join("maps/sun.yaml"), variants).unwrap_or_else(|d| panic!("{name}: {d}"));
        let rules = load();
        assert!(rules.rules.towers.contains_key(&rules.rules.tower.use_), "{name}: its own tower is listed");
        let towers: Vec<String> = rules.rules.towers.iter().filter(|(_, spec)| spec.model != "scripted").map(|(t, _)| t.clone()).collect();
        for tower in towers {
            let engine = Engine::with_options(load(), Some(&tower), Default::default()).unwrap_or_else(|d| panic!("{name}/{tower}: {d}"));
            engine.runtime().set_narration(false);
            let players = 3 + (games % 3) as u8;
            let mut names = vec!["greedy".to_string(); players as usize];
            names[games % players as usize] = "mcts:3".into();
            let st = play_game(&engine, players, 1 + games as u64, engine.default_setup(players), &names, |_| {})
                .unwrap_or_else(|e| panic!("{name} under tower {tower}: {e}"));
            assert_eq!(st.phase, Phase::GameOver, "{name} under tower {tower}");
            games += 1;
        }
    }
    assert!(games >= 7 * 4, "{games} games");
}

/// Bots read what the pack declares in rules.yaml's `bots:` section, not
/// handler names or params of the base pack: a pack that declares other
/// values gets other play, and one that declares nothing is refused.
#[test]
fn bots_play_by_what_the_pack_declares() {
    let names = vec!["greedy".to_string(); 4];
    let game = |engine: &Engine| play_game(engine, 4, 5, SetupMode::Preset, &names, |_| {}).unwrap();
    let base = game(&engine());
    // The same declaration, copied: the same game.
    let (pack, map) = copy_data("bots-same");
    assert_eq!(game(&engine_from(&pack, &map)), base);
    // Attacks not declared: greedy plans none.
    let (pack, map) = copy_data("bots-no-attack");
    edit(&pack.join("rules.yaml"), "    move_attack: move_attack\n", "");
    let engine = engine_from(&pack, &map);
    assert_eq!(engine.rules.bots.actions[action(&engine, "attack_a")], shogun_lab::rules::ActionKind::Other);
    assert_ne!(game(&engine), base, "a move card unknown to the bots changes their play");
    // Moves leave more behind: a param of the pack's own, named for the bots.
    let (pack, map) = copy_data("bots-cautious");
    edit(&pack.join("rules.yaml"), "armies_left_behind: armies_left_behind", "armies_left_behind: bot_reserve");
    edit(&pack.join("rules.yaml"), "params:\n", "params:\n  bot_reserve: 3\n");
    let engine = engine_from(&pack, &map);
    assert_eq!(engine.rules.bots.armies_left_behind, 3);
    assert_ne!(game(&engine), base, "a larger reserve changes greedy's moves");
    // Refused, with the place and what is missing.
    let (pack, _) = copy_data("bots-missing");
    let text = std::fs::read_to_string(pack.join("rules.yaml")).unwrap();
    let (head, tail) = text.split_once("\nbots:\n").unwrap();
    std::fs::write(pack.join("rules.yaml"), format!("{head}\n{}", &tail[tail.find("\nlua:").unwrap()..])).unwrap();
    let err = shogun_lab::rules::load(&pack, &root().join("maps/sun.yaml")).unwrap_err().to_string();
    assert!(err.contains("rules.yaml:1:1: error: no `bots:` section") && err.contains("armies_left_behind"), "{err}");
    let (pack, _) = copy_data("bots-wrong");
    edit(&pack.join("rules.yaml"), "    collect_rice: rice\n", "    harvest: rice\n");
    edit(&pack.join("rules.yaml"), "neutral_peasants: neutral_peasants", "neutral_peasants: peasants_for_neutrals");
    let err = shogun_lab::rules::load(&pack, &root().join("maps/sun.yaml")).unwrap_err().to_string();
    assert!(err.contains("bots.actions: no action card has the handler `harvest`"), "{err}");
    assert!(err.contains("bots.neutral_peasants: `peasants_for_neutrals` is not a whole number under params"), "{err}");
}

/// The questions bots answer by what they mean are the pack's, by kind and
/// data field as rules.yaml's `bots.questions` and `bots.question_data`
/// name them (issue 23: bots keyed on the base pack's `move_target`,
/// `move_count`, `deploy_move` and its data keys): a pack whose scripts
/// ask them under other names, declared, gets the same play; undeclared,
/// the bots no longer know what is asked.
#[test]
fn bots_answer_the_questions_the_pack_declares() {
    let names = vec!["greedy".to_string(); 4];
    let game = |engine: &Engine| play_game(engine, 4, 5, SetupMode::Preset, &names, |_| {}).unwrap();
    let base = game(&engine());
    let renamed = |tag: &str| {
        let (pack, map) = copy_data(tag);
        let lua = pack.join("actions.lua");
        edit(&lua, r#"ask_where(seat, "move_target", "move or attack into""#, r#"ask_where(seat, "where_to", "move or attack into""#);
        edit(&lua, r#"ask_count(seat, "move_count", "how many armies go?""#, r#"ask_count(seat, "how_many", "how many armies go?""#);
        let battle = pack.join("battle.lua");
        edit(&battle, "n = n, xa = xa }", "n = n, attacker_cubes = xa }");
        edit(&battle, "data.n, data.xa, k)", "data.n, data.attacker_cubes, k)");
        (pack, map)
    };
    // Declared under the new names: the same game.
    let (pack, map) = renamed("bots-renamed");
    let rules = pack.join("rules.yaml");
    edit(&rules, "    move_target: move_target", "    move_target: where_to");
    edit(&rules, "    move_count: move_count", "    move_count: how_many");
    edit(&rules, "    attacker_extra: xa", "    attacker_extra: attacker_cubes");
    let engine = engine_from(&pack, &map);
    assert_eq!(engine.rules.bots.asked("where_to"), Some(shogun_lab::rules::Asked::MoveTarget));
    assert_eq!(engine.rules.bots.asked("move_target"), None);
    assert_eq!(engine.rules.bots.field(shogun_lab::rules::AskedField::AttackerExtra), "attacker_cubes");
    assert_eq!(game(&engine), base);
    // Not declared: the bots answer what they do not understand by their
    // fallback, and play another game.
    let (pack, map) = renamed("bots-undeclared");
    assert_ne!(game(&engine_from(&pack, &map)), base);
    // Refused, with the place: one kind for two meanings, an empty name.
    let (pack, _) = copy_data("bots-questions-wrong");
    let rules = pack.join("rules.yaml");
    edit(&rules, "    move_count: move_count", "    move_count: move_target");
    edit(&rules, "    armies: n ", "    armies: '' ");
    let err = shogun_lab::rules::load(&pack, &root().join("maps/sun.yaml")).unwrap_err().to_string();
    assert!(err.contains("bots.questions.move_count: `move_target` is already the kind of `move_target`"), "{err}");
    assert!(err.contains("bots.question_data.armies: expected the name of a field of a question's data, found an empty name"), "{err}");
    assert!(err.contains("rules.yaml:"), "{err}");
}
