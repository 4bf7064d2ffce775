//! The rulebooks' worked examples (and the readings in docs/rules.md), with the
//! tower forced to the outcome the example describes.

use crate::common::*;
use shogun_lab::core::*;

/// Gives province `name` to `seat` with `armies` cubes, keeping every
/// seat's cube count whole (cubes go back to / come from supplies).
fn set_armies(st: &mut GameState, p: usize, seat: Option<usize>, armies: u16) {
    if let Some(o) = st.provinces[p].owner {
        st.players[o.index()].supply += st.provinces[p].armies;
    }
    st.provinces[p].owner = seat.map(Seat::new);
    st.provinces[p].armies = 0;
    if let Some(s) = seat {
        st.players[s].supply -= armies;
        st.provinces[p].armies = armies;
    }
}

fn thrown(events: &[Event]) -> Vec<Pile> {
    events.iter().filter_map(|e| if let Event::Throw { thrown, .. } = e { Some(*thrown) } else { None }).collect()
}

#[test]
fn settsu_tax_event_cap_then_special() {
    // Settsu yields 7; the event caps taxes at 5; the +1 chest special makes it 6.
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let settsu = province(&engine, "Settsu");
    assert_eq!(engine.rules.map.provinces[settsu].tax, 7);
    let before = st.players[0].chests;
    perform(&engine, &mut st, 0, "taxes", "Settsu", Some("8"), Some("chest"));
    assert_eq!(st.players[0].chests - before, 6);
    assert_eq!(st.provinces[settsu].unrest, 1, "collecting adds one unrest marker");
    // Without event and special: the printed 7.
    let mut st = started(&engine, 4, 1);
    perform(&engine, &mut st, 0, "taxes", "Settsu", None, None);
    assert_eq!(st.players[0].chests - before, 7);
}

#[test]
fn kozuke_battle() {
    // 4 blue attack 3 yellow in Kozuke; the tray shows 3 blue, 1 yellow and
    // 1 peasant; no unrest: blue wins 3:2, 1 blue stands in Kozuke and the
    // card changes hands.
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let (blue, yellow) = (0usize, 1usize);
    assert_eq!(engine.rules.rules.seats[blue].colour, "blue");
    assert_eq!(engine.rules.rules.seats[yellow].colour, "yellow");
    let kozuke = province(&engine, "Kozuke");
    let shinano = province(&engine, "Shinano");
    set_armies(&mut st, kozuke, Some(yellow), 3);
    set_armies(&mut st, shinano, Some(blue), 5);
    peasants_into_tower(&mut st, 1);
    st.forced_throws.push(pile(&[(blue, 3), (yellow, 1)], 1));
    perform(&engine, &mut st, blue, "attack_a", "Shinano", None, None);
    answer(&engine, &mut st, |o| *o.iter().find(|c| **c == Choice::Province(ProvinceId::new(kozuke))).expect("Kozuke is a target"));
    let events = answer(&engine, &mut st, |_| Choice::Count(4));
    assert_eq!(thrown(&events), vec![pile(&[(blue, 4), (yellow, 3)], 0)]);
    assert_eq!(st.provinces[kozuke].owner, Some(Seat::new(blue)));
    assert_eq!(st.provinces[kozuke].armies, 1);
    assert_eq!(st.provinces[shinano].armies, 1);
    assert!(events.contains(&Event::OwnerChange { province: ProvinceId::new(kozuke), from: Some(Seat::new(yellow)), to: Some(Seat::new(blue)) }));
    assert_eq!(st.tray, Pile::default(), "counted cubes and peasants leave the tray");
}

#[test]
fn mikawa_tax_revolt() {
    // 2 unrest markers -> 2 peasants; the revolt is put down -> 3 unrest,
    // and the taxes are collected after it (reading 2).
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let d = 3usize;
    let mikawa = province(&engine, "Mikawa");
    assert_eq!(st.provinces[mikawa].owner, Some(Seat::new(d)));
    st.unrest -= 2;
    st.provinces[mikawa].unrest = 2;
    let armies = st.provinces[mikawa].armies;
    let before = st.players[d].chests;
    st.forced_throws.push(pile(&[(d, 2)], 1));
    let events = perform(&engine, &mut st, d, "taxes", "Mikawa", None, None);
    assert_eq!(thrown(&events), vec![pile(&[(d, armies)], 2)]);
    assert_eq!(st.provinces[mikawa].owner, Some(Seat::new(d)));
    assert_eq!(st.provinces[mikawa].armies, 1, "2 landed, 1 lost to the peasant");
    assert_eq!(st.provinces[mikawa].unrest, 3);
    assert_eq!(st.players[d].chests - before, 6);
}

#[test]
fn lost_tax_revolt_yields_nothing() {
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let d = 3usize;
    let mikawa = province(&engine, "Mikawa");
    st.unrest -= 2;
    st.provinces[mikawa].unrest = 2;
    let before = st.players[d].chests;
    st.forced_throws.push(pile(&[(d, 1)], 1));
    perform(&engine, &mut st, d, "taxes", "Mikawa", None, None);
    assert_eq!(st.provinces[mikawa].owner, None, "a tie goes to the peasants");
    assert_eq!(st.provinces[mikawa].unrest, 0);
    assert_eq!(st.players[d].chests, before);
}

#[test]
fn winter_nine_provinces_six_rice() {
    // 9 provinces, 6 rice: 3 short -> 2 revolts with 2 extra peasants each.
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let a = 0usize;
    let hitachi = province(&engine, "Hitachi");
    assert_eq!(st.provinces[hitachi].owner, None);
    set_armies(&mut st, hitachi, Some(a), 1);
    assert_eq!(st.provinces_of(Seat::new(a)).count(), 9);
    for (s, p) in st.players.iter_mut().enumerate() {
        p.rice = if s == a { 6 } else { 20 };
    }
    let no_loss = engine.rules.cards.events.iter().position(|e| e.rice_loss == 0).unwrap() as u8;
    st.year_events = vec![no_loss];
    st.turn_order = Seat::all(4).collect();
    st.phase = Phase::Winter;
    st.forced_throws = vec![pile(&[(a, 1)], 0), pile(&[(a, 1)], 0)];
    engine.apply(&mut st, &Decision::Chance).unwrap();
    let Legal::Choose { seat, kind, options, .. } = engine.legal(&st) else { panic!("A must order the revolts") };
    assert_eq!((seat, kind.as_str(), options.len()), (Seat::new(a), "revolt_order", 2));
    let events = answer(&engine, &mut st, |o| o[0]);
    let throws = thrown(&events);
    assert_eq!(throws.len(), 2);
    assert!(throws.iter().all(|t| t.peasants == 2), "{throws:?}");
    assert_eq!(events.iter().filter(|e| matches!(e, Event::Battle { kind, .. } if kind == "revolt")).count(), 2);
    assert_eq!(st.provinces_of(Seat::new(a)).count(), 9, "both revolts were put down");
    assert!(st.provinces.iter().all(|p| p.unrest == 0), "no unrest from winter revolts (reading 6)");
}

#[test]
fn six_armies_special_sets_six_after_event_12() {
    let engine = engine();
    let yamato = "Yamato";
    let p = province(&engine, yamato);
    for (event, special, want) in [(Some("12"), Some("six"), 6), (Some("12"), None, 3), (None, Some("six"), 6), (None, None, 5)] {
        let mut st = started(&engine, 4, 1);
        let before = st.provinces[p].armies;
        perform(&engine, &mut st, 0, "deploy5", yamato, event, special);
        assert_eq!(st.provinces[p].armies - before, want, "event {event:?} special {special:?}");
    }
}

#[test]
fn temple_event_protects_and_castle_event_adds_a_defender() {
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let (kozuke, shinano) = (province(&engine, "Kozuke"), province(&engine, "Shinano"));
    set_armies(&mut st, shinano, Some(0), 6);
    let temple = engine.rules.building_index("temple").unwrap();
    st.buildings[temple] -= 1;
    st.provinces[kozuke].buildings |= 1 << temple;
    perform(&engine, &mut st, 0, "attack_a", "Shinano", Some("6"), None);
    let Legal::Choose { options, .. } = engine.legal(&st) else { panic!() };
    assert!(!options.contains(&Choice::Province(ProvinceId::new(kozuke))), "a temple province cannot be attacked");

    let mut st = started(&engine, 4, 1);
    set_armies(&mut st, shinano, Some(0), 6);
    let castle = engine.rules.building_index("castle").unwrap();
    st.buildings[castle] -= 1;
    st.provinces[kozuke].buildings |= 1 << castle;
    let defenders = st.provinces[kozuke].armies;
    perform(&engine, &mut st, 0, "attack_a", "Shinano", Some("4"), None);
    answer(&engine, &mut st, |_| Choice::Province(ProvinceId::new(kozuke)));
    answer(&engine, &mut st, |_| Choice::Count(5));
    // The garrison's cube is the defender's choice (docs/rules.md, reading
    // 9): he is asked, 0 or 1, and throws it.
    let Legal::Choose { seat, kind, options, .. } = engine.legal(&st) else { panic!("the defender is asked") };
    assert_eq!((seat, kind.as_str(), options), (Seat::new(1), "extra_cubes", vec![Choice::Count(0), Choice::Count(1)]));
    let events = answer(&engine, &mut st, |_| Choice::Count(1));
    assert_eq!(thrown(&events)[0].seats[1], defenders + 1, "the castle garrison throws one more");
}

#[test]
fn tie_makes_a_province_neutral_and_only_peasants_cannot_hold() {
    let engine = engine();
    let (kozuke, shinano) = (province(&engine, "Kozuke"), province(&engine, "Shinano"));
    // Tie 2:2 (1 yellow + 1 peasant): neutral, buildings gone.
    let mut st = started(&engine, 4, 1);
    set_armies(&mut st, shinano, Some(0), 5);
    let castle = engine.rules.building_index("castle").unwrap();
    st.buildings[castle] -= 1;
    st.provinces[kozuke].buildings |= 1 << castle;
    peasants_into_tower(&mut st, 1);
    st.forced_throws.push(pile(&[(0, 2), (1, 1)], 1));
    perform(&engine, &mut st, 0, "attack_a", "Shinano", None, None);
    answer(&engine, &mut st, |_| Choice::Province(ProvinceId::new(kozuke)));
    answer(&engine, &mut st, |_| Choice::Count(4));
    assert_eq!(st.provinces[kozuke], ProvinceState::default());
    assert_eq!(st.buildings[castle], engine.rules.rules.components.buildings[castle].count as u16);
    // Only peasants for the defender, even outnumbering the attacker: neutral.
    let mut st = started(&engine, 4, 1);
    set_armies(&mut st, shinano, Some(0), 5);
    peasants_into_tower(&mut st, 3);
    st.forced_throws.push(pile(&[(0, 1)], 3));
    perform(&engine, &mut st, 0, "attack_a", "Shinano", None, None);
    answer(&engine, &mut st, |_| Choice::Province(ProvinceId::new(kozuke)));
    answer(&engine, &mut st, |_| Choice::Count(4));
    assert_eq!(st.provinces[kozuke].owner, None);
}

#[test]
fn neutral_province_event_3_throws_two_peasants() {
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let (musashi, shimosa) = (province(&engine, "Musashi"), province(&engine, "Shimosa"));
    assert_eq!(st.provinces[shimosa].owner, None);
    let d = (st.provinces[musashi].owner.unwrap()).index();
    st.forced_throws.push(pile(&[(d, 3)], 1));
    perform(&engine, &mut st, d, "attack_b", "Musashi", Some("3"), None);
    answer(&engine, &mut st, |_| Choice::Province(ProvinceId::new(shimosa)));
    let events = answer(&engine, &mut st, |_| Choice::Count(3));
    assert_eq!(thrown(&events)[0].peasants, 2);
    assert_eq!(st.provinces[shimosa].owner, Some(Seat::new(d)));
    assert_eq!(st.provinces[shimosa].armies, 2, "3 landed, 1 lost to the peasant");
}

#[test]
fn unrest_means_peasants_take_no_side() {
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let (kozuke, shinano) = (province(&engine, "Kozuke"), province(&engine, "Shinano"));
    set_armies(&mut st, kozuke, Some(1), 3);
    set_armies(&mut st, shinano, Some(0), 5);
    st.unrest -= 1;
    st.provinces[kozuke].unrest = 1;
    peasants_into_tower(&mut st, 2);
    // Blue 2, yellow 1, 2 peasants: with unrest the peasants do not defend.
    st.forced_throws.push(pile(&[(0, 2), (1, 1)], 2));
    perform(&engine, &mut st, 0, "attack_a", "Shinano", None, None);
    answer(&engine, &mut st, |_| Choice::Province(ProvinceId::new(kozuke)));
    answer(&engine, &mut st, |_| Choice::Count(4));
    assert_eq!(st.provinces[kozuke].owner, Some(Seat::new(0)));
    assert_eq!(st.provinces[kozuke].armies, 1);
    assert_eq!(st.tray.peasants, 2, "peasants that took no side stay in the tray");
}

#[test]
fn partial_actions_are_skipped_whole() {
    let engine = engine();
    let mut st = started(&engine, 4, 1);
    let yamato = province(&engine, "Yamato");
    st.players[0].chests = 2; // deploy 5 costs 3
    let before = st.provinces[yamato].armies;
    let events = perform(&engine, &mut st, 0, "deploy5", "Yamato", None, None);
    assert_eq!(st.provinces[yamato].armies, before);
    assert_eq!(st.players[0].chests, 2);
    assert!(events.iter().any(|e| matches!(e, Event::Note(n) if n.contains("skipped"))));
}
