//! Random-simulation tests in the style of OpenSpiel: many full games with
//! bots, checking the conservation rules and state round-trips after every
//! applied decision.

use crate::common::*;
use shogun_lab::core::*;
use shogun_lab::engine::{Engine, check_invariants};
use shogun_lab::play::{Driver, Until};

fn check_everything(engine: &Engine, st: &GameState) {
    let c = &engine.rules.rules.components;
    // Every player's 62 cubes are somewhere: supply, board, tower, tray.
    for s in 0..st.seats() {
        assert_eq!(i64::from(st.cubes_of(Seat::new(s))), c.cubes_per_player, "seat {s} cubes");
        assert!(st.players[s].chests >= 0, "chests never negative");
    }
    // 20 peasants: general supply, tower, tray (never on the board).
    assert_eq!(i64::from(st.peasants_total()), c.peasants);
    // Buildings: within supply, never two of a kind (one bit per kind).
    for (k, b) in c.buildings.iter().enumerate() {
        let on_board = st.provinces.iter().filter(|p| p.has(k)).count() as i64;
        assert_eq!(on_board + i64::from(st.buildings[k]), b.count, "{} count", b.id);
    }
    for (i, p) in st.provinces.iter().enumerate() {
        if !st.in_play[i] {
            assert_eq!(p.armies, 0, "no cube in an out-of-play province");
            assert_eq!(p.owner, None);
        }
        assert!(p.building_count() <= engine.rules.map.provinces[i].spaces);
    }
    check_invariants(&engine.rules, st).unwrap();
    // Clone equality and serialize -> deserialize -> equal.
    assert_eq!(&st.clone(), st);
    let json = serde_json::to_string(st).unwrap();
    let back: GameState = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, st);
}

fn check_views(st: &GameState) {
    let round = (st.year, st.season);
    for seat in Seat::all(st.seats()) {
        let v = st.view(Some(seat));
        // No tower levels: the cubes inside, by colour, all on the top level.
        assert!(!v.levels_known() && st.levels_known());
        assert_eq!(v.tower_contents(), st.tower_contents());
        assert!(v.tower.iter().skip(1).all(Pile::is_empty), "seat {seat} sees the tower's levels");
        // Another seat's plan shows only its face-up cards: nothing while
        // plans are made and revealed.
        for (s, p) in v.players.iter().enumerate() {
            let (owner, real) = (Seat::new(s), &st.players[s].plan);
            if owner == seat {
                assert_eq!(&p.plan, real);
                continue;
            }
            let (Some(seen), Some(real)) = (&p.plan, real) else { continue };
            if matches!(st.phase, Phase::Planning | Phase::Reveal) {
                assert!(seen.slots.iter().all(Option::is_none) && seen.bid.is_none(), "seat {seat} sees seat {s}'s plan");
            }
            for (a, (x, y)) in seen.slots.iter().zip(&real.slots).enumerate() {
                assert_eq!(*x, if st.face_up(round, owner, Some(a)) { *y } else { None }, "seat {seat}, seat {s}'s card for action {a}");
            }
            assert_eq!(seen.bid, if st.face_up(round, owner, None) { real.bid } else { None });
        }
        // Seeing is idempotent.
        assert_eq!(v.view(Some(seat)), v);
    }
}

#[test]
fn two_hundred_random_games_keep_every_invariant() {
    let engine = engine();
    let mut games = 0;
    let mut decisions = 0u64;
    let mut battles = 0u64;
    for seed in 0..200u64 {
        let players = 3 + (seed % 3) as u8;
        let names: Vec<String> = (0..players).map(|s| if (seed + u64::from(s)) % 4 == 0 { "greedy".into() } else { "random".into() }).collect();
        let mut d = Driver::start(&engine, players, seed, engine.default_setup(players), &names).unwrap();
        check_everything(&engine, &d.state);
        d.run(Until::End, |step, _| {
            battles += step.events.iter().filter(|e| matches!(e, Event::Battle { .. })).count() as u64;
            decisions += 1;
            check_everything(&engine, step.after);
            if step.after.phase == Phase::Planning || matches!(step.after.phase, Phase::Actions { .. }) {
                check_views(step.after);
            }
        })
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let st = d.state;
        assert_eq!(st.phase, Phase::GameOver);
        assert!(st.players.iter().any(|p| p.points > 0), "seed {seed}: nobody scored");
        games += 1;
    }
    assert_eq!(games, 200);
    assert!(battles > 200 * 10, "bots fight: {battles} battles in 200 games");
    assert!(decisions > 200 * 50);
}

#[test]
fn moon_and_draft_games_keep_every_invariant() {
    let moon = engine_from(&root().join("scripts/base"), &root().join("maps/moon.yaml"));
    let sun = engine();
    for seed in 0..60u64 {
        let players = 3 + (seed % 3) as u8;
        let engine = if seed % 2 == 0 { &moon } else { &sun };
        let names: Vec<String> = (0..players).map(|s| if (seed + u64::from(s)) % 3 == 0 { "greedy".into() } else { "random".into() }).collect();
        let st = shogun_lab::play::play_game(engine, players, seed, SetupMode::Draft, &names, |step| check_everything(engine, step.after))
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(st.phase, Phase::GameOver);
    }
}

#[test]
fn illegal_decisions_are_refused_and_change_nothing() {
    let engine = engine();
    let mut st = engine.new_game(4, 5).unwrap();
    let before = st.clone();
    let plan = Plan { slots: vec![None; 10], bid: None };
    assert!(engine.apply(&mut st, &Decision::Plan { seat: Seat::new(0), plan: plan.clone() }).is_err());
    assert_eq!(st, before);
    engine.apply(&mut st, &Decision::Chance).unwrap();
    engine.apply(&mut st, &Decision::Chance).unwrap();
    engine.apply(&mut st, &Decision::Chance).unwrap();
    assert_eq!(engine.actor(&st), Actor::Simultaneous(vec![Seat::new(0), Seat::new(1), Seat::new(2), Seat::new(3)]));
    let before = st.clone();
    // A province card the seat does not hold.
    let theirs = st.provinces_of(Seat::new(1)).next().unwrap();
    let mut bad = plan.clone();
    bad.slots[0] = Some(Card::Province(theirs));
    assert!(engine.apply(&mut st, &Decision::Plan { seat: Seat::new(0), plan: bad }).is_err());
    // The same card twice.
    let mine = st.provinces_of(Seat::new(0)).next().unwrap();
    let mut twice = plan.clone();
    twice.slots[0] = Some(Card::Province(mine));
    twice.bid = Some(Card::Province(mine));
    assert!(engine.apply(&mut st, &Decision::Plan { seat: Seat::new(0), plan: twice }).is_err());
    // A bid above the seat's chests.
    st.players[0].chests = 1;
    let before_bid = st.clone();
    let mut rich = plan.clone();
    rich.bid = Some(Card::Chest(4));
    assert!(engine.apply(&mut st, &Decision::Plan { seat: Seat::new(0), plan: rich }).is_err());
    assert_eq!(st, before_bid);
    st = before.clone();
    // Chance is not asked now.
    assert!(engine.apply(&mut st, &Decision::Chance).is_err());
    assert_eq!(st, before);
    // An empty bid space and empty action spaces while cards are left.
    assert!(engine.apply(&mut st, &Decision::Plan { seat: Seat::new(2), plan: plan.clone() }).unwrap_err().to_string().contains("bid space"));
    assert_eq!(st, before);
    // Planning twice.
    let mut full = plan.clone();
    full.bid = Some(Card::Chest(0));
    engine.fill_skips(&st, Seat::new(2), &mut full);
    let spare: Vec<Card> = engine.unplaced(&st, Seat::new(2), &full);
    for (slot, card) in full.slots.iter_mut().filter(|s| s.is_none()).zip(spare) {
        *slot = Some(card);
    }
    engine.apply(&mut st, &Decision::Plan { seat: Seat::new(2), plan: full.clone() }).unwrap();
    assert!(engine.apply(&mut st, &Decision::Plan { seat: Seat::new(2), plan: full }).is_err());
    assert_eq!(engine.actor(&st), Actor::Simultaneous(vec![Seat::new(0), Seat::new(1), Seat::new(3)]));
}

#[test]
fn same_seed_same_game() {
    let engine = engine();
    let names = vec!["random".to_string(), "greedy".into(), "random".into(), "greedy".into()];
    let (a, sa) = shogun_lab::transcript::transcript(&engine, 4, 11, &names).unwrap();
    let (b, sb) = shogun_lab::transcript::transcript(&engine, 4, 11, &names).unwrap();
    assert_eq!(a, b);
    assert_eq!(serde_json::to_string(&sa).unwrap(), serde_json::to_string(&sb).unwrap());
    // A second engine (a new Lua VM) plays the same game too.
    let other = crate::common::engine();
    let (c, _) = shogun_lab::transcript::transcript(&other, 4, 11, &names).unwrap();
    assert_eq!(a, c);
    let (d, _) = shogun_lab::transcript::transcript(&engine, 4, 12, &names).unwrap();
    assert_ne!(a, d, "another seed, another game");
}

#[test]
fn quiet_and_narrated_runs_reach_the_same_states() {
    // Narration must never change the game: scripts skip it in bulk runs.
    let engine = engine();
    for seed in 20..32u64 {
        let players = 3 + (seed % 3) as u8;
        let names: Vec<String> = (0..players).map(|s| if s % 2 == 0 { "random".into() } else { "greedy".into() }).collect();
        let run = |narrate: bool| {
            engine.runtime().set_narration(narrate);
            let mut states = Vec::new();
            shogun_lab::play::play_game(&engine, players, seed, engine.default_setup(players), &names, |step| states.push(step.after.clone())).unwrap();
            states
        };
        let quiet = run(false);
        let loud = run(true);
        engine.runtime().set_narration(true);
        assert_eq!(quiet, loud, "seed {seed}");
    }
}
