//! The Moon map and the draft setup.

use crate::common::*;
use shogun_lab::core::*;
use shogun_lab::engine::Engine;

fn moon() -> Engine {
    engine_from(&root().join("scripts/base"), &root().join("maps/moon.yaml"))
}

#[test]
fn the_moon_map_has_its_regions_exclusions_and_assumed_sea_routes() {
    let m = moon();
    let map = &m.rules.map;
    assert_eq!(map.provinces.len(), 45);
    let region = |name: &str| map.regions[map.provinces[map.province(name).unwrap()].region].clone();
    // The eight provinces that change region on the Moon side.
    for (p, r) in [
        ("Hitachi", "yellow"),
        ("Shinano", "red"),
        ("Mimasaka", "red"),
        ("Sanuki", "green"),
        ("Echizen", "brown"),
        ("Owari", "purple"),
        ("Wakasa", "brown"),
        ("Kai", "red"),
    ] {
        assert_eq!(region(p), r, "{p}");
    }
    let out: Vec<&str> = map.out_of_play[&3].iter().map(|&p| map.provinces[p].name.as_str()).collect();
    assert_eq!(out, ["Iwami", "Aki", "Mutsu", "Shimotsuke", "Iyo", "Tosa", "Hitachi", "Shimosa"]);
    assert_eq!(map.assumed_sea_routes.len(), 6);
    let notice = map.assumption_notice().unwrap();
    assert!(notice.contains("moon") && notice.contains("sea route"), "{notice}");
    assert!(engine().rules.map.assumption_notice().is_none(), "the Sun side assumes nothing");
    // Same card values on both sides.
    let sun = engine();
    for p in &map.provinces {
        let q = &sun.rules.map.provinces[sun.rules.map.province(&p.name).unwrap()];
        assert_eq!((p.tax, p.rice, p.spaces), (q.tax, q.rice, q.spaces), "{}", p.name);
    }
}

#[test]
fn setups_default_by_map_and_a_missing_preset_is_an_error() {
    let m = moon();
    assert_eq!(m.default_setup(4), SetupMode::Draft);
    assert_eq!(engine().default_setup(4), SetupMode::Preset);
    let err = m.new_game_with(4, 1, SetupMode::Preset).unwrap_err().to_string();
    assert!(err.contains("no preset starting positions"), "{err}");
}

fn draft_state(engine: &Engine, players: u8, seed: u64) -> GameState {
    let mut st = engine.new_game_with(players, seed, SetupMode::Draft).unwrap();
    engine.apply(&mut st, &Decision::Chance).unwrap();
    assert_eq!(st.phase, Phase::Draft);
    st
}

#[test]
fn the_draft_places_every_group_and_takes_turns_from_seat_one() {
    for (players, groups) in [(3u8, 9usize), (4, 8), (5, 7)] {
        let e = moon();
        let mut st = draft_state(&e, players, 7);
        let d = st.draft.as_ref().unwrap();
        assert_eq!(d.turn, Seat::new(0), "seat 1 picks first");
        assert_eq!(d.groups[0].len(), groups);
        // 3 players: the out-of-play cards are not in the deck.
        if players == 3 {
            for &p in &e.rules.map.out_of_play[&3] {
                assert!(!d.deck.contains(&ProvinceId::new(p)) && !d.open.contains(&ProvinceId::new(p)));
            }
        }
        let mut order = Vec::new();
        while st.phase == Phase::Draft {
            let Legal::Choose { seat, kind, options, .. } = e.legal(&st) else { panic!() };
            if kind == "draft_card" {
                order.push(seat);
            }
            e.apply(&mut st, &Decision::Choose { seat, choice: options[0] }).unwrap();
        }
        assert_eq!(st.phase, Phase::Preload);
        let expected: Vec<Seat> = (0..groups * players as usize).map(|i| Seat::new(i % players as usize)).collect();
        assert_eq!(order, expected, "picks go round from seat 1");
        let want: i64 = e.rules.rules.army_groups.iter().take(groups).sum();
        for s in Seat::all(players as usize) {
            assert_eq!(st.provinces_of(s).count(), groups);
            let armies: i64 = st.provinces_of(s).map(|p| i64::from(st.provinces[p.index()].armies)).sum();
            assert_eq!(armies, want);
        }
        e.apply(&mut st, &Decision::Chance).unwrap();
        assert_eq!(st.phase, Phase::YearStart);
    }
}

#[test]
fn facing_the_same_open_cards_again_allows_a_redraw() {
    let e = moon();
    let mut st = draft_state(&e, 3, 3);
    let pick = |st: &mut GameState, c: Choice| {
        let Legal::Choose { seat, .. } = e.legal(st) else { panic!() };
        e.apply(st, &Decision::Choose { seat, choice: c }).unwrap();
    };
    let no_redraw = |st: &GameState| {
        let Legal::Choose { options, .. } = e.legal(st) else { panic!() };
        !options.contains(&Choice::Redraw)
    };
    assert!(no_redraw(&st));
    // Everybody takes the hidden card: the open cards never change.
    for _ in 0..3 {
        pick(&mut st, Choice::Deck);
        pick(&mut st, Choice::Count(5));
    }
    let open = st.draft.as_ref().unwrap().open.clone();
    let Legal::Choose { options, .. } = e.legal(&st) else { panic!() };
    assert!(options.contains(&Choice::Redraw), "seat 1 faces {open:?} again: {options:?}");
    let deck_before = st.draft.as_ref().unwrap().deck.len();
    pick(&mut st, Choice::Redraw);
    let d = st.draft.as_ref().unwrap();
    assert_eq!(d.open.len(), 2);
    assert!(d.open.iter().all(|p| !open.contains(p)), "two new cards");
    // Issue 26, item 5: both books put the two back into the face-down
    // deck (docs/rules.md, "Readings"); the deck keeps its size.
    assert!(open.iter().all(|p| d.deck.contains(p)), "the two go back into the deck");
    assert_eq!(d.deck.len(), deck_before, "two new ones out, the two old ones in");
    assert!(no_redraw(&st), "only once per pick");
    // The deck's order is hidden from views.
    let v = st.view(Some(Seat::new(1)));
    let mut sorted = st.draft.as_ref().unwrap().deck.clone();
    sorted.sort_unstable();
    assert_eq!(v.draft.as_ref().unwrap().deck, sorted);
}

#[test]
fn full_moon_games_for_three_to_five_players() {
    let e = moon();
    for players in 3..=5u8 {
        let names: Vec<String> = vec!["greedy".into(); players as usize];
        let (text, summary) = shogun_lab::transcript::transcript(&e, players, 11, &names).unwrap();
        assert!(text.contains("setup: draft") && text.contains("Final standings"));
        assert_eq!(summary.map, "moon");
    }
}
