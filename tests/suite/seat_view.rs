//! What a seat may see is made in one place (`GameState::view`, issue 23
//! item 11): the view holds no tower levels and no other seat's face-down
//! card, states that differ only in what a seat cannot see give the same
//! view byte for byte and the same bot decisions, and what the REPL and
//! the timeline show a seat agrees with the view.

use crate::common::*;
use shogun_lab::bots;
use shogun_lab::core::*;
use shogun_lab::play::notation::Notation;

const A: Seat = Seat::new(0);
const B: Seat = Seat::new(1);

/// `st` changed in everything `seat` cannot see: the tower's cubes spread
/// over its levels again (the same counts by colour), other seats'
/// face-down cards moved among their face-down spaces and their hidden bid
/// changed, the face-down action cards, the event deck and the draft deck
/// in another order, another seed for the random streams. Returns whether
/// anything of the levels or the plans changed.
fn hidden_changed(st: &GameState, seat: Seat, rng: &mut GameRng) -> (GameState, bool) {
    let mut o = st.clone();
    let contents = o.tower_contents();
    let levels = o.tower.len() as u32;
    if levels > 1 {
        o.tower.iter_mut().for_each(|l| *l = Pile::default());
        for colour in (0..MAX_SEATS).map(Some).chain(std::iter::once(None)) {
            for _ in 0..contents.get(colour) {
                *o.tower[rng.below(levels) as usize].get_mut(colour) += 1;
            }
        }
    }
    let round = (st.year, st.season);
    for s in Seat::all(st.seats()).filter(|&s| s != seat) {
        let Some(plan) = &mut o.players[s.index()].plan else { continue };
        let down: Vec<usize> = (0..plan.slots.len()).filter(|&a| !st.face_up(round, s, Some(a))).collect();
        if down.len() > 1 {
            let first = plan.slots[down[0]];
            for w in down.windows(2) {
                plan.slots[w[0]] = plan.slots[w[1]];
            }
            plan.slots[down[down.len() - 1]] = first;
        }
        if !st.face_up(round, s, None) {
            plan.bid = match plan.bid {
                Some(Card::Chest(v)) => Some(Card::Chest(v + 1)),
                _ => Some(Card::Chest(0)),
            };
        }
    }
    let open = (o.actions_revealed as usize).min(o.action_row.len());
    o.action_row[open..].reverse();
    o.event_deck.reverse();
    if let Some(d) = &mut o.draft {
        d.deck.reverse();
    }
    o.streams.reseed(rng.next_seed());
    let changed = o.tower != st.tower || o.players != st.players;
    (o, changed)
}

fn bytes(st: &GameState) -> Vec<u8> {
    serde_json::to_vec(st).unwrap()
}

/// OpenSpiel style: at many steps of a few seeded games, for the seat to
/// act, the real state and one changed in what that seat cannot see give
/// byte-identical views and the same decision from every bot.
#[test]
fn what_a_seat_cannot_see_changes_neither_its_view_nor_any_bot_s_decision() {
    let engine = engine();
    let names = ["random", "greedy", "planner", "mcts:6"];
    let mut rng = GameRng::seeded(23);
    let (mut compared, mut changed) = (0, 0);
    for seed in [1u64, 4, 9] {
        let mut st = engine.new_game(4, seed).unwrap();
        let mut players: Vec<Box<dyn bots::Bot>> = (0..4).map(|s| bots::by_name("greedy", seed + s).unwrap()).collect();
        for step in 0.. {
            let seat = match engine.actor(&st) {
                Actor::Terminal => break,
                Actor::Chance => None,
                Actor::Seat(s) => Some(s),
                Actor::Simultaneous(seats) => Some(seats[0]),
            };
            if let Some(seat) = seat
                && step % 4 == 0
            {
                let (other, differs) = hidden_changed(&st, seat, &mut rng);
                changed += usize::from(differs);
                compared += 1;
                assert_eq!(bytes(&st.view(Some(seat))), bytes(&other.view(Some(seat))), "seed {seed}, step {step}: the view of {seat}");
                // mcts searches at every fourth such step (its budget is small).
                for name in names.iter().filter(|n| !n.starts_with("mcts") || compared % 4 == 0) {
                    let decide = |s: &GameState| bots::decide(&engine, s, seat, bots::by_name(name, seed).unwrap().as_mut());
                    assert_eq!(decide(&st), decide(&other), "seed {seed}, step {step}: {name} for seat {seat} peeked");
                }
            }
            let d = match seat {
                None => Decision::Chance,
                Some(s) => bots::decide(&engine, &st, s, players[s.index()].as_mut()),
            };
            engine.apply(&mut st, &d).unwrap();
        }
        assert_eq!(st.phase, Phase::GameOver);
    }
    assert!(compared > 100 && changed * 2 > compared, "{changed} of {compared} states changed in their hidden parts");
}

/// The view keeps what the seat may know: the tower's contents on its top
/// level (the god view keeps the levels), the seat's own plan, another
/// seat's plan as empty spaces while it is face down.
#[test]
fn a_seat_s_view_holds_no_levels_and_no_face_down_plan() {
    let engine = engine();
    let mut st = started(&engine, 4, 2);
    engine.apply(&mut st, &Decision::Chance).unwrap();
    for s in Seat::all(4) {
        let d = bots::decide(&engine, &st, s, &mut bots::Greedy::new(1));
        engine.apply(&mut st, &d).unwrap();
    }
    assert!(st.tower.iter().filter(|l| !l.is_empty()).count() > 1 || st.tower[0].is_empty(), "cubes on more than one level");
    let v = st.view(Some(A));
    assert_eq!(v.seen_by, Some(A));
    assert_eq!(v.tower.len(), st.tower.len());
    assert_eq!(v.tower[0], st.tower_contents());
    assert!(v.tower[1..].iter().all(Pile::is_empty));
    assert_eq!(v.players[0].plan, st.players[0].plan);
    for s in 1..4 {
        assert!(st.players[s].plan.as_ref().is_some_and(|p| p.slots.iter().any(Option::is_some)));
        let p = v.players[s].plan.as_ref().expect("a plan was made");
        assert!(p.slots.iter().all(Option::is_none) && p.bid.is_none(), "seat {s}'s plan shows");
    }
    // The god view is the state itself, and says so in no save.
    assert_eq!(st.view(None), st);
    assert!(!String::from_utf8(bytes(&st)).unwrap().contains("seen_by"));
}

/// The timeline shows another seat's plan entry with exactly the cards the
/// view shows face up, and reads the log's secret lines as the view's rule
/// says.
#[test]
fn the_timeline_shows_what_the_view_shows() {
    let engine = engine();
    let mut game = shogun_lab::play::Game::new(engine, 4, 3, SetupMode::Preset, &vec!["greedy".to_string(); 4]).unwrap();
    // Play to seat B's second action card or later, each decision an entry.
    let mut checked = 0;
    for _ in 0..2000 {
        if matches!(game.state().phase, Phase::Actions { card, .. } if card >= 2) {
            break;
        }
        let st = game.state().clone();
        let d = match game.engine.actor(&st) {
            Actor::Terminal => break,
            Actor::Chance => Decision::Chance,
            Actor::Seat(s) => bots::decide(&game.engine, &st, s, &mut bots::Greedy::new(7)),
            Actor::Simultaneous(seats) => bots::decide(&game.engine, &st, seats[0], &mut bots::Greedy::new(7)),
        };
        game.decide(d).unwrap();
    }
    let view = game.state().view(Some(A));
    let n = Notation::new(&game.engine, 4);
    for (i, e) in game.entries() {
        let shogun_lab::play::Entry::Decide(Decision::Plan { seat, .. }) = e else { continue };
        if *seat != B || game.state_after(i).is_none_or(|s| (s.year, s.season) != (view.year, view.season)) {
            continue;
        }
        let seen = game.entry_seen(i, Some(A));
        let shown = view.players[B.index()].plan.clone().expect("B planned");
        assert!(shown.slots.iter().any(Option::is_some), "some of B's cards are face up by now");
        let text = n.text(&Decision::Plan { seat: B, plan: shown });
        assert!(seen.starts_with(&text), "the history shows `{seen}`, the view `{text}`");
        checked += 1;
    }
    assert_eq!(checked, 1, "B's plan of this round");
    // Secret lines: each seat reads its own, the god view all.
    let all = game.lines_seen(0, None).len();
    let a = game.lines_seen(0, Some(A)).len();
    let b = game.lines_seen(0, Some(B)).len();
    assert!(a < all && b < all && a != 0, "{a} {b} {all}");
    assert!(may_read(Some(A), Some(A)) && !may_read(Some(A), Some(B)) && may_read(None, Some(B)) && may_read(Some(B), None));
}

/// The REPL as a seat: its outputs stay byte for byte the same when only
/// the tower's levels change, and the tower shows its contents, not its
/// levels.
#[test]
fn the_repl_shows_a_seat_nothing_of_the_tower_s_levels() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 3);
    crate::repl_assist::until_asked(&mut r, "move_target");
    let looks = ["tower", "player", "board", "actions", "options", "lua return game.chests(1)"];
    let seen = |r: &mut shogun_lab::repl::Repl| -> Vec<String> {
        r.exec("view A").unwrap();
        looks.iter().map(|l| r.exec(l).unwrap()).collect()
    };
    let before = seen(&mut r);
    assert!(before[0].contains("inside (known from the counts)") && !before[0].contains("level 2"), "{}", before[0]);
    assert!(before[4].contains("win "), "the options show odds: {}", before[4]);
    // Move every cube of level 2 to level 1 (the contents stay).
    let st = r.state().clone();
    let (l1, l2) = (st.tower[0], st.tower[1]);
    assert!(!l2.is_empty(), "cubes on level 2");
    let mut both = l1;
    both.add(&l2);
    let pile = |p: &Pile| {
        let seats = ["A", "B", "C", "D"].iter().enumerate().map(|(s, n)| format!(" {n}={}", p.seats[s])).collect::<String>();
        format!("{seats} peasants={}", p.peasants)
    };
    r.exec("view god").unwrap();
    r.exec(&format!("set tower level=1{}", pile(&both))).unwrap();
    r.exec(&format!("set tower level=2{}", pile(&Pile::default()))).unwrap();
    assert_eq!(r.state().tower_contents(), st.tower_contents());
    assert_ne!(r.state().tower, st.tower);
    let god = r.exec("tower").unwrap();
    assert!(god.contains("level 2: empty"), "{god}");
    assert_eq!(seen(&mut r), before, "what seat A sees changed with the hidden levels");
    // The bots' views agree too.
    let mut changed = st.clone();
    changed.tower = r.state().tower.clone();
    assert_eq!(bytes(&changed.view(Some(A))), bytes(&st.view(Some(A))));
}
