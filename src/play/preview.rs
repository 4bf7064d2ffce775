//! Looking ahead without moving the game: what an answer or a planned
//! attack would start, worked out by the rules themselves (the pack's
//! handlers and continuations) on a scratch copy of what the deciding seat
//! may know (`GameState::view`), and the battle's chances from the tower's
//! present contents and tray through the rules' one `battle` handler (the
//! path `shogun tower odds` uses). Nothing here changes the game.

use crate::core::*;
use crate::engine::{Engine, EngineError};
use crate::tower::odds::{Chances, Estimate, Position, chances_from};

/// A battle as the rules would set it up.
#[derive(Clone, Debug, PartialEq)]
pub struct Battle {
    /// The rules' word for it (`attack`, `neutral`, ...).
    pub kind: String,
    pub province: ProvinceId,
    pub attacker: Seat,
    /// The province's owner before the battle (`None`: neutral).
    pub defender: Option<Seat>,
    /// The armies the attacker moves in, when a count was chosen.
    pub moved: Option<u16>,
    /// The defender's armies in the province.
    pub defending: u16,
    /// What the rules throw into the tower (extra cubes from the supplies
    /// and peasants included), the tray not counted.
    pub thrown: Pile,
    /// The province has unrest (the rules' battle handler is told so).
    pub unrest: bool,
}

impl Battle {
    /// Cubes the attacker throws beyond the armies he moves (from his
    /// supply, by the cards in force), when the count is known.
    pub fn attacker_extra(&self) -> Option<u16> {
        self.moved.map(|m| self.thrown.seats[self.attacker.index()].saturating_sub(m))
    }
    /// Cubes the defender throws beyond his armies in the province.
    pub fn defender_extra(&self) -> u16 {
        self.defender.map(|d| self.thrown.seats[d.index()].saturating_sub(self.defending)).unwrap_or(0)
    }
}

/// What an answer leads to.
#[derive(Clone, Debug, PartialEq)]
pub enum Preview {
    /// A battle (the first one the answer starts).
    Battle(Battle),
    /// No battle: pieces move or nothing happens.
    Quiet,
}

/// How many simulated throws a chance is estimated from, unless the
/// caller says otherwise (`play --odds-trials`).
pub const TRIALS: u32 = 4000;

/// What answering the pending question with `choice` would start, on the
/// copy `known` (the asking seat's view, or the whole state in the god
/// view). A count question that follows for the same seat is answered with
/// the largest count (`count` when given); the questions how many extra
/// cubes a side throws from its supply (`bots.questions.extra_cubes`), either side's,
/// with all the cards allow.
pub fn answer(engine: &Engine, known: &GameState, choice: Choice, count: Option<u32>) -> Result<Preview, String> {
    let Legal::Choose { seat, .. } = engine.legal(known) else { return Err("no question is pending".into()) };
    let before = known.clone();
    let mut s = known.clone();
    let mut events = engine.apply(&mut s, &Decision::Choose { seat, choice }).map_err(|e| e.to_string())?;
    // The answer to "how many go" is the count moved.
    let mut moved = if let Choice::Count(n) = choice { u16::try_from(n).ok() } else { None };
    // A count question that follows (how many armies go).
    for _ in 0..6 {
        if events.iter().any(|e| matches!(e, Event::Battle { .. })) {
            break;
        }
        let Legal::Choose { seat: q, options, kind, .. } = engine.legal(&s) else { break };
        let counts: Vec<u32> = options.iter().filter_map(|o| if let Choice::Count(n) = o { Some(*n) } else { None }).collect();
        // How many extra cubes a side throws from its supply (either side):
        // assumed all the cards allow.
        if engine.rules.bots.asked(&kind) == Some(crate::rules::Asked::ExtraCubes)
            && let Some(&most) = counts.iter().max()
        {
            events.extend(engine.apply(&mut s, &Decision::Choose { seat: q, choice: Choice::Count(most) }).map_err(|e| e.to_string())?);
            continue;
        }
        if q != seat || counts.is_empty() {
            break;
        }
        let n = match count {
            Some(n) if counts.contains(&n) => n,
            Some(n) => return Err(format!("{n} is not among the counts offered ({}..{})", counts[0], counts[counts.len() - 1])),
            None => *counts.iter().max().expect("counts"),
        };
        moved = Some(n as u16);
        events.extend(engine.apply(&mut s, &Decision::Choose { seat: q, choice: Choice::Count(n) }).map_err(|e| e.to_string())?);
    }
    Ok(battle_in(&before, seat, moved, &events).map(Preview::Battle).unwrap_or(Preview::Quiet))
}

/// The first battle among `events` and the throw that decides it.
fn battle_in(before: &GameState, seat: Seat, moved: Option<u16>, events: &[Event]) -> Option<Battle> {
    let at = events.iter().position(|e| matches!(e, Event::Battle { .. }))?;
    let Event::Battle { kind, province } = &events[at] else { return None };
    let thrown = events[at..].iter().find_map(|e| if let Event::Throw { thrown, .. } = e { Some(*thrown) } else { None })?;
    let pr = &before.provinces[province.index()];
    let defender = pr.owner;
    // Answered by the defender (how many extra cubes he throws): the
    // attacker is the other seat whose cubes are thrown.
    let attacker = if defender == Some(seat) {
        (0..thrown.seats.len()).map(Seat::new).find(|&s| Some(s) != defender && thrown.seats[s.index()] > 0).unwrap_or(seat)
    } else {
        seat
    };
    Some(Battle {
        kind: kind.clone(),
        province: *province,
        attacker,
        defender,
        moved,
        defending: if defender.is_some() { pr.armies } else { 0 },
        thrown,
        unrest: pr.unrest > 0,
    })
}

/// A battle's chances from the deciding seat's side: it wins (takes the
/// province, or holds its own against the peasants), ties, or loses.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatChances {
    pub trials: u32,
    pub win: Estimate,
    pub tie: Estimate,
    pub lose: Estimate,
}

/// The chances of `b` for its seat (`b.attacker`, the one deciding),
/// thrown from the tower and tray of `known`. The god view sees the
/// levels; a seat's view (`GameState::view`) holds only how many cubes of
/// each colour are inside, and the levels are drawn from those counts
/// (see `chances_from`).
///
/// One number per position: the simulation's generator is seeded from
/// what decides the battle (the tower's contents and tray, what is
/// thrown, the kind, unrest, who fights), never from the move count, so
/// the same battle shows the same odds in every menu until the tower
/// changes.
pub fn chances(engine: &Engine, known: &GameState, b: &Battle, trials: u32) -> Result<SeatChances, String> {
    let levels_known = known.levels_known();
    // The rules' verdict is from the attacker's side. A seat defending its
    // own province against peasants (a revolt) throws as the defender: the
    // rules' `attacker` is then the peasants, and the seat wins when the
    // rules say `defender`.
    let own = b.defender == Some(b.attacker);
    let at = Position { inside: &known.tower, tray: known.tray, levels_known };
    let c = chances_from(engine.tower().as_ref(), at, b.thrown, trials, position_seed(known, b, levels_known), |landed| {
        let a = if own { 0 } else { u32::from(landed.seats[b.attacker.index()]) };
        let d = b.defender.map(|d| u32::from(landed.seats[d.index()])).unwrap_or(0);
        engine.battle_outcome(&b.kind, a, d, u32::from(landed.peasants), b.unrest).map(|r| r.0).map_err(|e| e.to_string())
    })?;
    Ok(seat_side(c, own))
}

/// The rules' attacker/defender chances turned to the deciding seat's side.
fn seat_side(c: Chances, own: bool) -> SeatChances {
    let (win, lose) = if own { (c.defender_wins, c.attacker_wins) } else { (c.attacker_wins, c.defender_wins) };
    SeatChances { trials: c.trials, win, tie: c.ties, lose }
}

/// The simulation's seed for one battle from one position: FNV-1a over
/// everything the chances depend on.
fn position_seed(known: &GameState, b: &Battle, levels_known: bool) -> u64 {
    // A seat knows the tower's contents by colour, not by level: only
    // what it knows goes in.
    let all = known.tower_contents();
    let levels: Vec<&Pile> = if levels_known { known.tower.iter().collect() } else { vec![&all] };
    let mut bytes = Vec::new();
    for p in levels.into_iter().chain([&known.tray, &b.thrown]) {
        for v in p.seats.iter().chain(std::iter::once(&p.peasants)) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    bytes.extend_from_slice(b.kind.as_bytes());
    bytes.extend([u8::from(b.unrest), u8::from(levels_known), b.attacker.index() as u8, b.defender.map_or(u8::MAX, |d| d.index() as u8)]);
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3))
}

/// Stages, on a copy of `known`, `seat` moving from `from` into `to` now
/// (with `count` armies, the most when `None`): the action is the first of
/// `actions` whose question offers `to`. The event and the specials in
/// force stay as they are. More armies than the rules let go from `from`
/// now are refused, with how many may go.
pub fn staged_move(
    engine: &Engine,
    known: &GameState,
    seat: Seat,
    from: ProvinceId,
    to: ProvinceId,
    count: Option<u32>,
    actions: &[usize],
) -> Result<Preview, String> {
    let (seat_name, from_name, to_name) = (engine.rules.seat_name(seat), &engine.rules.map.at(from).name, &engine.rules.map.at(to).name);
    let stage = |st: &GameState, a: usize| -> Result<Option<GameState>, String> {
        let mut s = st.clone();
        s.ask = None;
        let n = engine.rules.cards.actions.len();
        for p in s.players.iter_mut() {
            p.plan = Some(Plan { slots: vec![None; n], bid: None });
        }
        s.players[seat.index()].plan.as_mut().expect("a plan").slots[a] = Some(Card::Province(from));
        s.action_row = vec![a as u8];
        s.actions_revealed = 1;
        s.turn_order = vec![seat];
        s.phase = Phase::Actions { card: 0, turn: 0 };
        engine.resume(&mut s).map_err(|e| e.to_string())?;
        let offered = matches!(engine.legal(&s), Legal::Choose { seat: q, ref options, .. } if q == seat && options.contains(&Choice::Province(to)));
        Ok(offered.then_some(s))
    };
    if known.provinces[from.index()].owner != Some(seat) {
        return Err(format!("{seat_name} does not hold {from_name}"));
    }
    for &a in actions {
        let Some(s) = stage(known, a)? else { continue };
        let most = |s: &GameState| -> Option<u32> {
            let mut t = s.clone();
            engine.apply(&mut t, &Decision::Choose { seat, choice: Choice::Province(to) }).ok()?;
            match engine.legal(&t) {
                Legal::Choose { seat: q, options, .. } if q == seat => {
                    options.iter().filter_map(|o| if let Choice::Count(n) = o { Some(*n) } else { None }).max()
                }
                _ => None,
            }
        };
        // How many may go is the rules' own question (the count it offers).
        let can = most(&s).unwrap_or(1);
        let want = count.unwrap_or(can);
        if want > can {
            let there = u32::from(known.provinces[from.index()].armies);
            return Err(format!(
                "at most {can} of {seat_name}'s {there} armies in {from_name} may go now (the rules leave {} behind)",
                there.saturating_sub(can)
            ));
        }
        return answer(engine, &s, Choice::Province(to), Some(want).filter(|_| most(&s).is_some()));
    }
    let map = &engine.rules.map;
    if from == to {
        return Err(format!("{from_name} is the province the armies would leave: name another to move into"));
    }
    if !map.adjacent(from.index(), to.index()) {
        let mut next: Vec<&str> = map.neighbours(from).map(|q| map.at(q).name.as_str()).collect();
        next.sort_unstable();
        return Err(format!("{from_name} does not border {to_name} (its neighbours: {})", next.join(", ")));
    }
    Err(format!("no action card lets {seat_name} move from {from_name} into {to_name} now"))
}

/// One action of a plan as the rules would carry it out now.
#[derive(Clone, Debug, PartialEq)]
pub struct LedgerStep {
    pub action: usize,
    /// The card's place in the row is known (face up); face-down cards
    /// follow in no known order.
    pub face_up: bool,
    pub province: ProvinceId,
    pub chests_before: i64,
    pub chests_after: i64,
    /// The rules' narration of it (empty when a battle decides it: the
    /// throw here would be one guess among many).
    pub lines: Vec<String>,
    /// Nothing moved and nothing was asked: the rules skip (or void) it.
    pub skipped: bool,
    /// The question it would put (its prompt and how many choices).
    pub asks: Option<(String, usize)>,
    /// A battle decides it (e.g. a revolt when collecting).
    pub battle: bool,
}

/// A plan's ledger: the chests at the reveal (the bid paid by the rules'
/// bids handler) and each planned action in the order of the action row,
/// carried out by the rules' `perform` handler on a copy of the seat's
/// view. Other seats' plans are unknown and left out; the event and the
/// specials are not counted before they are drawn and taken.
pub fn ledger(engine: &Engine, known: &GameState, seat: Seat, plan: &Plan) -> Result<(i64, Vec<LedgerStep>), String> {
    let mut s = known.clone();
    s.ask = None;
    let n = engine.rules.cards.actions.len();
    for (i, p) in s.players.iter_mut().enumerate() {
        p.plan = Some(if i == seat.index() { plan.clone() } else { Plan { slots: vec![None; n], bid: None } });
    }
    let mut ev = Vec::new();
    engine.look_bids(&mut s, &mut ev).map_err(|e| e.to_string())?;
    let at_reveal = s.players[seat.index()].chests;
    let mut steps = Vec::new();
    let revealed = (s.actions_revealed as usize).min(s.action_row.len());
    let row: Vec<u8> = if s.action_row.is_empty() { (0..n as u8).collect() } else { s.action_row.clone() };
    for (k, &a) in row.iter().enumerate() {
        let a = a as usize;
        let Some(Card::Province(p)) = plan.slots.get(a).copied().flatten() else { continue };
        let before = (s.players.clone(), s.provinces.clone(), s.buildings.clone());
        let chests_before = s.players[seat.index()].chests;
        let mut ev = Vec::new();
        let asked = engine.look_action(&mut s, &mut ev, a, seat, p).map_err(|e| e.to_string())?;
        let asks = asked.map(|q| (q.prompt, q.options.len()));
        let battle = ev.iter().any(|e| matches!(e, Event::Battle { .. }));
        let mut text = String::new();
        if !battle {
            crate::transcript::render(engine, s.seats(), &ev, &mut text);
        }
        let skipped = asks.is_none() && before == (s.players.clone(), s.provinces.clone(), s.buildings.clone());
        steps.push(LedgerStep {
            action: a,
            face_up: k < revealed,
            province: p,
            chests_before,
            chests_after: s.players[seat.index()].chests,
            lines: text.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect(),
            skipped,
            asks,
            battle,
        });
    }
    Ok((at_reveal, steps))
}

/// What the rules' winter handler does to each seat, on a copy of `known`
/// with `event` as the year's last: each seat's rice after it, and the
/// battles fought in the seat's provinces (in winter: its revolts), read
/// from the copy and the handler's events, never from its narration.
pub struct WinterPreview {
    pub rice: Vec<i64>,
    pub revolts: Vec<i64>,
}

/// The winter on a copy of `known` with `event` as the year's last (see
/// `WinterPreview`). A question on the way (which revolt first) takes its
/// first option, as many times as the rules allow in one action.
pub fn winter(engine: &Engine, known: &GameState, event: u8) -> Result<WinterPreview, EngineError> {
    let mut s = known.clone();
    s.ask = None;
    s.year_events = vec![event];
    if s.turn_order.is_empty() {
        s.turn_order = Seat::all(s.seats()).collect();
    }
    let mut events = Vec::new();
    let mut asked = engine.look_winter(&mut s, &mut events)?;
    for _ in 0..engine.rules.rules.limits.questions_per_action {
        let Some(ask) = asked.take() else { break };
        let Some(&first) = ask.options.first() else { break };
        asked = engine.look_answer(&mut s, &mut events, &ask, first)?;
    }
    let mut revolts = vec![0; s.seats()];
    for ev in &events {
        if let Event::Battle { province, .. } = ev
            && let Some(owner) = known.provinces[province.index()].owner
        {
            revolts[owner.index()] += 1;
        }
    }
    Ok(WinterPreview { rice: s.players.iter().map(|p| p.rice).collect(), revolts })
}
