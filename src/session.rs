//! What-if operations on a game, shared by scenario tests (`shogun test`)
//! and the REPL: edit the position (keeping every piece accounted for),
//! force tower results, stage one action, answer questions by name, and
//! let bots play on to a point.

use crate::bots::{self, Bot};
use crate::core::*;
use crate::engine::{Engine, EngineError};

/// A seat by name (`A`) or number (`1`).
pub fn seat(engine: &Engine, st: &GameState, text: &str) -> Result<usize, String> {
    let t = text.trim();
    if let Ok(n) = t.parse::<usize>()
        && n >= 1
        && n <= st.seats()
    {
        return Ok(n - 1);
    }
    for s in 0..st.seats() {
        if engine.rules.seat_name(s).eq_ignore_ascii_case(t) || engine.rules.rules.seats[s].colour.eq_ignore_ascii_case(t) {
            return Ok(s);
        }
    }
    let names: Vec<&str> = (0..st.seats()).map(|s| engine.rules.seat_name(s)).collect();
    Err(format!("no seat `{t}` (seats: {})", names.join(", ")))
}

/// A province's owner by name: a seat, or `none` / `neutral` / `-`.
pub fn owner(engine: &Engine, st: &GameState, text: &str) -> Result<Option<usize>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("neutral") || t == "-" { Ok(None) } else { seat(engine, st, t).map(Some) }
}

/// A province by name (case-insensitive), with a suggestion when misspelt.
pub fn province(engine: &Engine, text: &str) -> Result<usize, String> {
    let t = text.trim();
    if let Some(p) = engine.rules.map.province(t) {
        return Ok(p);
    }
    if let Some(p) = engine.rules.map.provinces.iter().position(|p| p.name.eq_ignore_ascii_case(t)) {
        return Ok(p);
    }
    Err(format!("no province `{t}`{}", crate::rules::map::suggest(t, engine.rules.map.by_name.keys())))
}

/// Changes a province: owner (`None` = neutral), armies, unrest, buildings.
/// Cubes, markers and buildings come from and go back to their supplies.
pub fn set_province(
    engine: &Engine,
    st: &mut GameState,
    p: usize,
    owner: Option<Option<usize>>,
    armies: Option<u16>,
    unrest: Option<u16>,
    buildings: Option<&[String]>,
) -> Result<(), String> {
    let mut next = st.clone();
    let name = engine.rules.province_name(p).to_string();
    let cur = next.provinces[p];
    let new_owner = owner.unwrap_or(cur.owner.map(|o| o as usize));
    if new_owner.is_some() && !next.in_play[p] {
        return Err(format!("{name} is out of play with {} players", next.seats()));
    }
    let new_armies = armies.unwrap_or(if new_owner == cur.owner.map(|o| o as usize) { cur.armies } else { 1 });
    // Armies back to the old owner, then from the new owner's supply.
    if let Some(o) = cur.owner {
        next.players[o as usize].supply += cur.armies;
    }
    next.provinces[p].armies = 0;
    match new_owner {
        Some(o) => {
            if new_armies == 0 {
                return Err(format!("a held province needs at least one army ({name})"));
            }
            if next.players[o].supply < new_armies {
                return Err(format!("{} has only {} cubes in supply", engine.rules.seat_name(o), next.players[o].supply));
            }
            next.players[o].supply -= new_armies;
            next.provinces[p].armies = new_armies;
            next.provinces[p].owner = Some(o as u8);
        }
        None => {
            if armies.is_some_and(|a| a > 0) {
                return Err(format!("a neutral province holds no armies ({name})"));
            }
            next.provinces[p].owner = None;
        }
    }
    // Unrest markers.
    let want_unrest = if new_owner.is_none() { 0 } else { unrest.unwrap_or(cur.unrest) };
    next.unrest += cur.unrest;
    if next.unrest < want_unrest {
        return Err(format!("only {} unrest markers are left in the supply", next.unrest));
    }
    next.unrest -= want_unrest;
    next.provinces[p].unrest = want_unrest;
    // Buildings.
    let kinds = &engine.rules.rules.components.buildings;
    let mut mask = cur.buildings;
    if let Some(list) = buildings {
        mask = 0;
        for b in list {
            let k = engine
                .rules
                .building_index(b)
                .ok_or_else(|| format!("no building kind `{b}` (kinds: {})", kinds.iter().map(|k| k.id.as_str()).collect::<Vec<_>>().join(", ")))?;
            mask |= 1 << k;
        }
    }
    if new_owner.is_none() {
        mask = 0;
    }
    if mask.count_ones() > engine.rules.map.provinces[p].spaces {
        return Err(format!("{name} has only {} building spaces", engine.rules.map.provinces[p].spaces));
    }
    for k in 0..kinds.len() {
        let had = cur.buildings & (1 << k) != 0;
        let has = mask & (1 << k) != 0;
        if had && !has {
            next.buildings[k] += 1;
        }
        if has && !had {
            if next.buildings[k] == 0 {
                return Err(format!("no {} left in the supply", kinds[k].name));
            }
            next.buildings[k] -= 1;
        }
    }
    next.provinces[p].buildings = mask;
    // The province card: a planned action on a lost card is void.
    if cur.owner != next.provinces[p].owner
        && let Some(o) = cur.owner
        && let Some(plan) = &mut next.players[o as usize].plan
    {
        for slot in plan.slots.iter_mut() {
            if *slot == Some(Card::Province(p as u16)) {
                *slot = None;
            }
        }
    }
    crate::engine::check_invariants(&engine.rules, &next)?;
    *st = next;
    Ok(())
}

/// Changes a seat's war chests, rice or points.
pub fn set_seat(st: &mut GameState, s: usize, chests: Option<i64>, rice: Option<i64>, points: Option<i64>) -> Result<(), String> {
    for (what, v) in [("chests", chests), ("rice", rice)] {
        if v.is_some_and(|v| v < 0) {
            return Err(format!("{what} cannot be negative"));
        }
    }
    let p = &mut st.players[s];
    if let Some(v) = chests {
        p.chests = v;
    }
    if let Some(v) = rice {
        p.rice = v;
    }
    if let Some(v) = points {
        p.points = v;
    }
    Ok(())
}

/// Queues a forced tower result: exactly these cubes land next time.
pub fn force(st: &mut GameState, landed: Pile) {
    st.forced_throws.push(landed);
}

/// Stages one action: `seat` performs `action` in `province` now, with the
/// given event and special card in force, and runs it. The state must be
/// between rounds or in planning (any pending plans are replaced).
pub fn stage_action(
    engine: &Engine,
    st: &mut GameState,
    s: usize,
    action: &str,
    p: usize,
    event: Option<&str>,
    special: Option<&str>,
) -> Result<Vec<Event>, EngineError> {
    let err = |m: String| EngineError::Illegal(m);
    let a = engine.rules.action_index(action).ok_or_else(|| {
        err(format!("no action `{action}` (actions: {})", engine.rules.cards.actions.iter().map(|a| a.id.as_str()).collect::<Vec<_>>().join(", ")))
    })?;
    if st.provinces[p].owner != Some(s as u8) {
        return Err(err(format!("{} does not hold {}", engine.rules.seat_name(s), engine.rules.province_name(p))));
    }
    if st.ask.is_some()
        || matches!(st.phase, Phase::Setup | Phase::Draft | Phase::Preload | Phase::GameOver | Phase::Actions { .. } | Phase::Winter | Phase::Score)
    {
        return Err(err("an action can be staged only between decisions of a round (after setup, before the game ends)".into()));
    }
    let event = match event {
        Some(id) => Some(engine.rules.cards.events.iter().position(|e| e.id == id).ok_or_else(|| err(format!("no event `{id}`")))? as u8),
        None => None,
    };
    let special = match special {
        Some(id) => Some(engine.rules.cards.specials.iter().position(|c| c.id == id).ok_or_else(|| err(format!("no special card `{id}`")))? as u8),
        None => None,
    };
    let mut next = st.clone();
    let n = engine.rules.cards.actions.len();
    for (i, pl) in next.players.iter_mut().enumerate() {
        let mut plan = Plan { slots: vec![None; n], bid: None };
        if i == s {
            plan.slots[a] = Some(Card::Province(p as u16));
        }
        pl.plan = Some(plan);
        pl.space = None;
    }
    next.event = event;
    next.special_row = (0..engine.rules.cards.specials.len() as u8).map(Some).collect();
    next.players[s].space = special;
    next.action_row = vec![a as u8];
    next.actions_revealed = 1;
    next.turn_order = vec![s as u8];
    next.phase = Phase::Actions { card: 0, turn: 0 };
    let events = engine.resume(&mut next)?;
    *st = next;
    Ok(events)
}

/// Reads an answer to the pending question (or a turn-order space):
/// a province name, a number, `pass`, or `space N`.
pub fn choice(engine: &Engine, st: &GameState, text: &str) -> Result<Decision, String> {
    let Legal::Choose { seat, options, .. } = engine.legal(st) else {
        return Err("nobody is asked to choose now".into());
    };
    let t = text.trim();
    let wanted = if t.eq_ignore_ascii_case("pass") {
        Choice::Pass
    } else if t.eq_ignore_ascii_case("deck") {
        Choice::Deck
    } else if t.eq_ignore_ascii_case("redraw") {
        Choice::Redraw
    } else if let Some(k) = t.strip_prefix("space ") {
        Choice::Space(k.trim().parse::<u8>().map_err(|_| format!("`{t}`: space takes a number"))?.saturating_sub(1))
    } else if let Ok(n) = t.parse::<u32>() {
        if options.iter().any(|o| matches!(o, Choice::Count(_))) {
            Choice::Count(n)
        } else if options.iter().any(|o| matches!(o, Choice::Space(_))) {
            Choice::Space(n.saturating_sub(1) as u8)
        } else {
            Choice::Count(n)
        }
    } else {
        Choice::Province(province(engine, t)? as u16)
    };
    if !options.contains(&wanted) {
        let names: Vec<String> = options.iter().map(|o| engine.choice_name(*o)).collect();
        return Err(format!("`{t}` is not an option (options: {})", names.join(", ")));
    }
    Ok(Decision::Choose { seat, choice: wanted })
}

/// How far `play_until` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// This many decisions.
    Steps(usize),
    /// The next change of phase (a new round, planning, actions, winter...).
    Phase,
    /// The start of the next round (or winter).
    Round,
    /// The start of winter.
    Winter,
    /// The end of the game.
    End,
}

fn phase_kind(p: &Phase) -> u8 {
    match p {
        Phase::Setup | Phase::Draft | Phase::Preload => 0,
        Phase::YearStart => 1,
        Phase::RoundStart => 2,
        Phase::Planning => 3,
        Phase::Reveal => 4,
        Phase::ChooseSpace { .. } => 5,
        Phase::Actions { .. } => 6,
        Phase::Winter => 7,
        Phase::Score => 8,
        Phase::GameOver => 9,
    }
}

/// Where play started, to tell when `Until` is reached.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    phase: u8,
    year: u8,
    season: u8,
}

impl Mark {
    pub fn of(st: &GameState) -> Mark {
        Mark { phase: phase_kind(&st.phase), year: st.year, season: st.season }
    }

    /// Whether `st`, `steps` decisions after the mark, is where `until` stops.
    pub fn reached(&self, until: Until, st: &GameState, steps: usize) -> bool {
        if st.phase == Phase::GameOver {
            return true;
        }
        match until {
            Until::Steps(n) => steps >= n,
            Until::Phase => steps > 0 && phase_kind(&st.phase) != self.phase,
            Until::Round => {
                steps > 0
                    && ((st.year, st.season) != (self.year, self.season) || st.phase == Phase::Winter)
                    && matches!(st.phase, Phase::RoundStart | Phase::Winter | Phase::YearStart)
            }
            Until::Winter => steps > 0 && st.phase == Phase::Winter,
            Until::End => false,
        }
    }
}

/// The decision chance or a bot makes now, or `None` when a seat without
/// a bot (a person) must decide, or the game is over. `bots[seat]` is the
/// seat's bot, `None` for a person.
pub fn next_decision(engine: &Engine, st: &GameState, bots: &mut [Option<Box<dyn Bot>>]) -> Option<Decision> {
    match engine.actor(st) {
        Actor::Terminal => None,
        Actor::Chance => Some(Decision::Chance),
        Actor::Seat(s) => bots.get_mut(s as usize).and_then(|b| b.as_mut()).map(|b| bots::decide(engine, st, s as usize, b.as_mut())),
        Actor::Simultaneous(seats) => {
            let s = seats.iter().map(|s| *s as usize).find(|s| bots.get(*s).is_some_and(|b| b.is_some()))?;
            Some(bots::decide(engine, st, s, bots[s].as_mut().unwrap().as_mut()))
        }
    }
}

/// Lets bots (and chance) play on until `until`, or until a seat without a
/// bot must decide. Calls `each` with the state before every decision, the
/// decision and its events. Returns how many decisions were made.
pub fn play_until(
    engine: &Engine,
    st: &mut GameState,
    until: Until,
    bots: &mut [Option<Box<dyn Bot>>],
    mut each: impl FnMut(&GameState, &Decision, &[Event]),
) -> Result<usize, EngineError> {
    let mark = Mark::of(st);
    let mut steps = 0;
    while !mark.reached(until, st, steps) {
        let Some(d) = next_decision(engine, st, bots) else { break };
        let before = st.clone();
        let events = engine.apply(st, &d)?;
        each(&before, &d, &events);
        steps += 1;
    }
    Ok(steps)
}

/// A decision as one line of text, for save files and history:
/// `chance`, `A choose Kozuke`, `A plan taxes:Settsu castle:Noto bid:2`.
pub fn format_decision(engine: &Engine, d: &Decision) -> String {
    match d {
        Decision::Chance => "chance".into(),
        Decision::Choose { seat, choice } => format!("{} choose {}", engine.rules.seat_name(*seat as usize), engine.choice_name(*choice)),
        Decision::Plan { seat, plan } => {
            let mut parts = vec![format!("{} plan", engine.rules.seat_name(*seat as usize))];
            for (a, slot) in plan.slots.iter().enumerate() {
                if let Some(c) = slot {
                    parts.push(format!("{}:{}", engine.rules.cards.actions[a].id, card_text(engine, *c)));
                }
            }
            if let Some(c) = plan.bid {
                parts.push(format!("bid:{}", card_text(engine, c)));
            }
            parts.join(" ")
        }
    }
}

fn card_text(engine: &Engine, c: Card) -> String {
    match c {
        Card::Province(p) => engine.rules.province_name(p as usize).to_string(),
        Card::Chest(v) => v.to_string(),
    }
}

/// A card by text: a chest value or a province name.
pub fn card(engine: &Engine, text: &str) -> Result<Card, String> {
    match text.trim().parse::<u8>() {
        Ok(v) => Ok(Card::Chest(v)),
        Err(_) => province(engine, text).map(|p| Card::Province(p as u16)),
    }
}

/// Reads what `format_decision` writes.
pub fn parse_decision(engine: &Engine, st: &GameState, line: &str) -> Result<Decision, String> {
    let line = line.trim();
    if line == "chance" {
        return Ok(Decision::Chance);
    }
    let (who, rest) = line.split_once(' ').ok_or_else(|| format!("`{line}`: expected `chance`, `SEAT choose ...` or `SEAT plan ...`"))?;
    let s = seat(engine, st, who)? as u8;
    let rest = rest.trim();
    if let Some(answer) = rest.strip_prefix("choose ") {
        let a = answer.trim();
        let choice = if a == "pass" {
            Choice::Pass
        } else if a == "deck" {
            Choice::Deck
        } else if a == "redraw" {
            Choice::Redraw
        } else if let Some(k) = a.strip_prefix("space ") {
            Choice::Space(k.trim().parse::<u8>().map_err(|_| format!("`{a}`: bad space"))?.saturating_sub(1))
        } else if let Ok(n) = a.parse::<u32>() {
            Choice::Count(n)
        } else {
            Choice::Province(province(engine, a)? as u16)
        };
        return Ok(Decision::Choose { seat: s, choice });
    }
    if let Some(slots) = rest.strip_prefix("plan") {
        let mut plan = Plan { slots: vec![None; engine.rules.cards.actions.len()], bid: None };
        for item in slots.split_whitespace() {
            let (k, v) = item.split_once(':').ok_or_else(|| format!("`{item}`: expected action:card or bid:card"))?;
            let c = card(engine, v)?;
            if k == "bid" {
                plan.bid = Some(c);
            } else {
                let a = engine.rules.action_index(k).ok_or_else(|| format!("no action `{k}`"))?;
                plan.slots[a] = Some(c);
            }
        }
        return Ok(Decision::Plan { seat: s, plan });
    }
    Err(format!("`{line}`: expected `SEAT choose ...` or `SEAT plan ...`"))
}

/// A short fingerprint of a state (FNV-1a over its JSON), to notice when a
/// replay under changed rules parts from the recorded game.
pub fn fingerprint(st: &GameState) -> String {
    let json = serde_json::to_vec(st).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in json {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}
