//! What-if edits of a position, as one enum: every edit moves pieces
//! between their places (supply, board, tower, tray) and never creates or
//! loses one; a refused edit leaves the state untouched. Also the staging
//! of one action (a test position: this seat performs this action now).

use thiserror::Error;

use super::notation::{Notated, Notation, NotationError, syntax};
use crate::core::*;
use crate::engine::{Engine, EngineError};

/// A what-if edit. Its text form (`Notation`) is the REPL's command:
/// `set Settsu owner=B armies=3 unrest=1 buildings=castle,temple`,
/// `set A chests=3 rice=2 points=10 supply=20`, `set tray A=2 peasants=1`,
/// `set tower level=2 B=1`, `force A=3 B=1 peasants=1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// A province's owner (`Some(None)`: neutral), armies, unrest and
    /// buildings (by kind); what is not given stays (armies default to 1
    /// when the owner changes). Actions the former owner planned with the
    /// province's card are void at once.
    Province { province: ProvinceId, owner: Option<Option<Seat>>, armies: Option<u16>, unrest: Option<u16>, buildings: Option<Vec<usize>> },
    /// A seat's war chests, rice and points, and the cubes in his supply:
    /// the difference goes into (or comes out of) the tower's first level,
    /// where cubes lie stuck in a real game.
    Seat { seat: Seat, chests: Option<i64>, rice: Option<i64>, points: Option<i64>, supply: Option<u16> },
    /// Exactly these cubes lie in the tray or on a level of the tower; the
    /// difference comes from (or goes back to) the seats' supplies and the
    /// general peasant supply.
    Pile { place: Place, pile: Pile },
    /// The next tower result: exactly these cubes land.
    Force(Pile),
    /// A test position: `seat` performs `action` in `province` now, with
    /// the event and special card given in force (see `stage_action`).
    Perform { seat: Seat, action: usize, province: ProvinceId, event: Option<usize>, special: Option<usize> },
}

/// Where a pile of cubes lies off the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Tray,
    /// A level of the tower, 0-based (the text form counts from 1).
    Tower(usize),
}

#[derive(Clone, Debug, PartialEq, Error)]
pub enum EditError {
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// The edit would break a rule of the position (the text says which).
    #[error("{0}")]
    Refused(String),
    /// A staged action failed (illegal, or its script failed).
    #[error(transparent)]
    Engine(#[from] EngineError),
}

fn refused<T>(msg: impl Into<String>) -> Result<T, EditError> {
    Err(EditError::Refused(msg.into()))
}

impl Edit {
    /// Applies the edit to `st`, or changes nothing and says why not.
    /// Returns the events (a staged action's; none for the others).
    pub fn apply(&self, engine: &Engine, st: &mut GameState) -> Result<Vec<Event>, EditError> {
        match self {
            Edit::Province { province, owner, armies, unrest, buildings } => {
                set_province(engine, st, *province, *owner, *armies, *unrest, buildings.as_deref()).map(|_| Vec::new())
            }
            Edit::Perform { seat, action, province, event, special } => Ok(stage_action(engine, st, *seat, *action, *province, *event, *special)?),
            Edit::Seat { seat, chests, rice, points, supply } => {
                for (what, v) in [("chests", chests), ("rice", rice)] {
                    if v.is_some_and(|v| v < 0) {
                        return refused(format!("{what} cannot be negative"));
                    }
                }
                let mut next = st.clone();
                if let Some(n) = supply {
                    set_supply(engine, &mut next, *seat, *n)?;
                }
                let p = &mut next.players[seat.index()];
                for (field, v) in [(&mut p.chests, chests), (&mut p.rice, rice), (&mut p.points, points)] {
                    if let Some(v) = v {
                        *field = *v;
                    }
                }
                crate::engine::check_invariants(&engine.rules, &next).map_err(EditError::Refused)?;
                *st = next;
                Ok(Vec::new())
            }
            Edit::Pile { place, pile } => {
                let mut next = st.clone();
                set_pile(engine, &mut next, *place, pile)?;
                crate::engine::check_invariants(&engine.rules, &next).map_err(EditError::Refused)?;
                *st = next;
                Ok(Vec::new())
            }
            Edit::Force(pile) => {
                check_force(engine, st, pile)?;
                st.forced_throws.push(*pile);
                Ok(Vec::new())
            }
        }
    }
}

/// Moves cubes between `seat`'s supply and the tower's first level until
/// the supply holds `n`.
fn set_supply(engine: &Engine, st: &mut GameState, seat: Seat, n: u16) -> Result<(), EditError> {
    let name = engine.rules.seat_name(seat);
    let seat = seat.index();
    let have = st.players[seat].supply;
    let Some(level) = st.tower.first_mut() else {
        return refused(format!("the tower `{}` keeps no cubes, so {name}'s supply can change only through the board or the tray", engine.tower_name()));
    };
    if n > have {
        let want = n - have;
        if level.seats[seat] < want {
            return refused(format!(
                "only {} of {name}'s cubes lie on the tower's first level, {want} are needed: free armies from the board with `set PROVINCE armies=N`",
                level.seats[seat]
            ));
        }
        level.seats[seat] -= want;
    } else {
        level.seats[seat] += have - n;
    }
    st.players[seat].supply = n;
    Ok(())
}

/// Makes the tray or a tower level hold exactly `pile`, moving cubes from
/// and to the supplies.
fn set_pile(engine: &Engine, st: &mut GameState, place: Place, pile: &Pile) -> Result<(), EditError> {
    let levels = st.tower.len();
    let old = match place {
        Place::Tray => st.tray,
        Place::Tower(l) if l < levels => st.tower[l],
        Place::Tower(l) => {
            let has = if levels == 1 { "only 1 level".to_string() } else { format!("{levels} levels") };
            return refused(format!("the tower `{}` has {has}, not a level {}", engine.tower_name(), l + 1));
        }
    };
    for s in 0..st.seats() {
        let supply = u32::from(st.players[s].supply) + u32::from(old.seats[s]);
        if supply < u32::from(pile.seats[s]) {
            return refused(format!("{} has only {supply} cubes to put there", engine.rules.seat_name(Seat::new(s))));
        }
        st.players[s].supply = (supply - u32::from(pile.seats[s])) as u16;
    }
    let peasants = u32::from(st.peasants) + u32::from(old.peasants);
    if peasants < u32::from(pile.peasants) {
        return refused(format!("only {peasants} peasants are in the general supply"));
    }
    st.peasants = (peasants - u32::from(pile.peasants)) as u16;
    match place {
        Place::Tray => st.tray = *pile,
        Place::Tower(l) => st.tower[l] = *pile,
    }
    Ok(())
}

/// Refuses a forced result that the next throw cannot give: more cubes of
/// a colour than lie in the tower and the tray plus what one battle can
/// throw in (for a seat: its largest army in one province and the extra
/// cubes the cards' `attacker_extra`/`defender_extra` effects can add from
/// its supply; for peasants: the general supply), or more than two seats
/// throwing (a battle has two sides). Before the tower is loaded, the next
/// throw is the preload's.
fn check_force(engine: &Engine, st: &GameState, want: &Pile) -> Result<(), EditError> {
    let mut known = st.tray;
    for level in &st.tower {
        known.add(level);
    }
    // One event in force and one special held: per side, the largest extra
    // of any event plus the largest of any special.
    let most_of = |effects: &mut dyn Iterator<Item = &crate::rules::pack::Effect>, hook: &str| -> u16 {
        effects.filter(|e| e.hook == hook).filter_map(|e| e.value.as_ref().and_then(|v| v.as_u64())).max().map_or(0, |v| u16::try_from(v).unwrap_or(u16::MAX))
    };
    let cards = &engine.rules.cards;
    let extra = ["attacker_extra", "defender_extra"]
        .iter()
        .map(|hook| {
            most_of(&mut cards.events.iter().flat_map(|c| &c.effects), hook).saturating_add(most_of(&mut cards.specials.iter().flat_map(|c| &c.effects), hook))
        })
        .max()
        .unwrap_or(0);
    // Before the tower is loaded, the next throw is the preload: every
    // seat's preload cubes and the peasants at once.
    let pre = &engine.rules.rules.tower.preload;
    let preload = matches!(st.phase, Phase::Setup | Phase::Draft | Phase::Preload);
    let mut throwing = Vec::new();
    for s in 0..MAX_SEATS {
        let need = want.seats[s];
        if need == 0 {
            continue;
        }
        if s >= st.seats() {
            return refused(format!("force: there is no seat {} in a {}-player game", s + 1, st.seats()));
        }
        let name = engine.rules.seat_name(Seat::new(s));
        if need <= known.seats[s] {
            continue;
        }
        if preload {
            let most = u16::try_from(pre.cubes_per_player).unwrap_or(u16::MAX);
            if need > most {
                return refused(format!("force: {need} of {name}'s cubes cannot land in the next throw, the tower's preload: at most {most} can"));
            }
            continue;
        }
        throwing.push(name);
        let largest = st.provinces_of(Seat::new(s)).max_by_key(|&p| st.provinces[p.index()].armies);
        let army = largest.map(|p| st.provinces[p.index()].armies).unwrap_or(0);
        let extra = extra.min(st.players[s].supply);
        let most = known.seats[s] + army + extra;
        if need > most {
            return refused(format!(
                "force: {need} of {name}'s cubes cannot land in the next throw: at most {most} can ({} inside the tower and in the tray, {army} in its largest army{}, {extra} extra from its supply)",
                known.seats[s],
                largest.map(|p| format!(" ({})", engine.rules.province_name(p))).unwrap_or_default(),
            ));
        }
    }
    if throwing.len() > 2 {
        return refused(format!("force: {} would all have to throw cubes, but a battle has two sides", throwing.join(", ")));
    }
    let most = if preload { u16::try_from(pre.peasants).unwrap_or(u16::MAX) } else { known.peasants.saturating_add(st.peasants) };
    if want.peasants > most {
        return refused(format!("force: {} peasants cannot land: there are {most} (inside the tower, in the tray and in the general supply)", want.peasants));
    }
    Ok(())
}

fn set_province(
    engine: &Engine,
    st: &mut GameState,
    id: ProvinceId,
    owner: Option<Option<Seat>>,
    armies: Option<u16>,
    unrest: Option<u16>,
    buildings: Option<&[usize]>,
) -> Result<(), EditError> {
    let mut next = st.clone();
    let p = id.index();
    let name = engine.rules.province_name(id).to_string();
    let cur = next.provinces[p];
    let new_owner = owner.unwrap_or(cur.owner);
    if new_owner.is_some() && !next.in_play[p] {
        return refused(format!("{name} is out of play with {} players", next.seats()));
    }
    let new_armies = armies.unwrap_or(if new_owner == cur.owner { cur.armies } else { 1 });
    // Armies back to the old owner, then from the new owner's supply.
    if let Some(o) = cur.owner {
        next.players[o.index()].supply += cur.armies;
    }
    next.provinces[p].armies = 0;
    match new_owner {
        Some(o) => {
            if new_armies == 0 {
                return refused(format!("a held province needs at least one army ({name})"));
            }
            let player = &mut next.players[o.index()];
            if player.supply < new_armies {
                return refused(format!("{} has only {} cubes in supply", engine.rules.seat_name(o), player.supply));
            }
            player.supply -= new_armies;
            next.provinces[p].armies = new_armies;
            next.provinces[p].owner = Some(o);
        }
        None => {
            if armies.is_some_and(|a| a > 0) {
                return refused(format!("a neutral province holds no armies ({name})"));
            }
            next.provinces[p].owner = None;
        }
    }
    // Unrest markers.
    let want_unrest = if new_owner.is_none() { 0 } else { unrest.unwrap_or(cur.unrest) };
    next.unrest += cur.unrest;
    if next.unrest < want_unrest {
        return refused(format!("only {} unrest markers are left in the supply", next.unrest));
    }
    next.unrest -= want_unrest;
    next.provinces[p].unrest = want_unrest;
    // Buildings.
    let kinds = &engine.rules.rules.components.buildings;
    let mut mask = cur.buildings;
    if let Some(list) = buildings {
        mask = list.iter().fold(0, |m, k| m | (1 << k));
    }
    if new_owner.is_none() {
        mask = 0;
    }
    if mask.count_ones() > engine.rules.map.provinces[p].spaces {
        let n = engine.rules.map.provinces[p].spaces;
        return refused(format!("{name} has only {n} building space{}", if n == 1 { "" } else { "s" }));
    }
    for k in 0..kinds.len() {
        let had = cur.buildings & (1 << k) != 0;
        let has = mask & (1 << k) != 0;
        if had && !has {
            next.buildings[k] += 1;
        }
        if has && !had {
            if next.buildings[k] == 0 {
                return refused(format!("no {} left in the supply", kinds[k].name));
            }
            next.buildings[k] -= 1;
        }
    }
    next.provinces[p].buildings = mask;
    // A planned action on a card that changed hands is void at once, as
    // when the rules move a card (`game.conquer`, `game.neutralize`).
    if let Some(o) = cur.owner
        && next.provinces[p].owner != Some(o)
    {
        next.void_planned(o, id);
    }
    crate::engine::check_invariants(&engine.rules, &next).map_err(EditError::Refused)?;
    *st = next;
    Ok(())
}

fn number<T: std::str::FromStr>(k: &str, v: &str) -> Result<T, NotationError> {
    v.parse().map_err(|_| syntax(&format!("{k}={v}"), "a number"))
}

impl Notated for Edit {
    fn read(n: &Notation, line: &str) -> Result<Edit, NotationError> {
        let mut words = line.split_whitespace();
        let cmd = words.next().unwrap_or_default();
        let pairs = |words: std::str::SplitWhitespace| -> Result<Vec<(String, String)>, NotationError> {
            words.map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).ok_or_else(|| syntax(kv, "key=value"))).collect()
        };
        match cmd {
            "force" => {
                let mut pile = Pile::default();
                let pairs = pairs(words)?;
                if pairs.is_empty() {
                    return Err(syntax(line, "force SEAT=n... [peasants=n]"));
                }
                for (k, v) in pairs {
                    n.pile_count(&mut pile, &k, number(&k, &v)?)?;
                }
                Ok(Edit::Force(pile))
            }
            "set" => {
                let target = words.next().ok_or_else(|| syntax(line, "set PROVINCE|SEAT key=value..."))?;
                let pairs = pairs(words)?;
                if pairs.is_empty() {
                    return Err(syntax(line, "set PROVINCE|SEAT key=value..., e.g. set Settsu armies=3"));
                }
                if target == "tray" || target == "tower" {
                    let mut place = if target == "tray" { Place::Tray } else { Place::Tower(0) };
                    let mut pile = Pile::default();
                    for (k, v) in pairs {
                        match k.as_str() {
                            "level" if target == "tower" => {
                                let l: usize = number(&k, &v)?;
                                if l == 0 {
                                    return Err(syntax(&format!("{k}={v}"), "a tower level counted from 1"));
                                }
                                place = Place::Tower(l - 1);
                            }
                            _ => n.pile_count(&mut pile, &k, number(&k, &v)?).map_err(|_| syntax(&k, "a seat, `peasants` or (for the tower) `level`"))?,
                        }
                    }
                    return Ok(Edit::Pile { place, pile });
                }
                if let Ok(seat) = n.seat(target) {
                    let (mut chests, mut rice, mut points, mut supply) = (None, None, None, None);
                    for (k, v) in pairs {
                        match k.as_str() {
                            "chests" => chests = Some(number(&k, &v)?),
                            "rice" => rice = Some(number(&k, &v)?),
                            "points" => points = Some(number(&k, &v)?),
                            "supply" => supply = Some(number(&k, &v)?),
                            _ => return Err(syntax(&k, "a seat's chests, rice, points or supply")),
                        }
                    }
                    return Ok(Edit::Seat { seat, chests, rice, points, supply });
                }
                let province = n.province(target)?;
                let (mut owner, mut armies, mut unrest, mut buildings) = (None, None, None, None);
                for (k, v) in pairs {
                    match k.as_str() {
                        "owner" => owner = Some(n.owner(&v)?),
                        "armies" => armies = Some(number(&k, &v)?),
                        "unrest" => unrest = Some(number(&k, &v)?),
                        "buildings" => {
                            buildings =
                                Some(if v == "-" || v == "none" { Vec::new() } else { v.split(',').map(|b| n.building(b)).collect::<Result<_, _>>()? })
                        }
                        _ => return Err(syntax(&k, "a province's owner, armies, unrest or buildings")),
                    }
                }
                Ok(Edit::Province { province, owner, armies, unrest, buildings })
            }
            "perform" => {
                let usage = "perform SEAT ACTION PROVINCE [event=ID] [special=ID]";
                let (Some(seat), Some(action), Some(province)) = (words.next(), words.next(), words.next()) else {
                    return Err(syntax(line, usage));
                };
                let (seat, action, province) = (n.seat(seat)?, n.action(action)?, n.province(province)?);
                let (mut event, mut special) = (None, None);
                for (k, v) in pairs(words)? {
                    match k.as_str() {
                        "event" => event = Some(n.event(&v)?),
                        "special" => special = Some(n.special(&v)?),
                        _ => return Err(syntax(&k, usage)),
                    }
                }
                Ok(Edit::Perform { seat, action, province, event, special })
            }
            _ => Err(syntax(line, "an edit: `set ...`, `force ...` or `perform ...`")),
        }
    }

    fn write(&self, n: &Notation, out: &mut String) {
        match self {
            Edit::Province { province, owner, armies, unrest, buildings } => {
                out.push_str("set ");
                out.push_str(n.province_name(*province));
                if let Some(o) = owner {
                    out.push_str(&format!(" owner={}", n.owner_name(*o)));
                }
                if let Some(a) = armies {
                    out.push_str(&format!(" armies={a}"));
                }
                if let Some(u) = unrest {
                    out.push_str(&format!(" unrest={u}"));
                }
                if let Some(b) = buildings {
                    let ids: Vec<&str> = b.iter().map(|&k| n.engine.rules.rules.components.buildings[k].id.as_str()).collect();
                    out.push_str(&format!(" buildings={}", if ids.is_empty() { "-".to_string() } else { ids.join(",") }));
                }
            }
            Edit::Seat { seat, chests, rice, points, supply } => {
                out.push_str("set ");
                out.push_str(n.seat_name(*seat));
                for (k, v) in [("chests", chests), ("rice", rice), ("points", points), ("supply", &supply.map(i64::from))] {
                    if let Some(v) = v {
                        out.push_str(&format!(" {k}={v}"));
                    }
                }
            }
            Edit::Pile { place, pile } => {
                out.push_str(match place {
                    Place::Tray => "set tray",
                    Place::Tower(_) => "set tower",
                });
                if let Place::Tower(l) = place
                    && *l > 0
                {
                    out.push_str(&format!(" level={}", l + 1));
                }
                write_pile(n, pile, out);
            }
            Edit::Perform { seat, action, province, event, special } => {
                out.push_str(&format!("perform {} {} {}", n.seat_name(*seat), n.engine.rules.cards.actions[*action].id, n.province_name(*province)));
                if let Some(e) = event {
                    out.push_str(&format!(" event={}", n.engine.rules.cards.events[*e].id));
                }
                if let Some(k) = special {
                    out.push_str(&format!(" special={}", n.engine.rules.cards.specials[*k].id));
                }
            }
            Edit::Force(pile) => {
                out.push_str("force");
                write_pile(n, pile, out);
            }
        }
    }
}

/// ` A=3 B=1 peasants=2`: the seats holding cubes, and the peasants (also
/// when nothing else is there, so the text is never empty).
pub(crate) fn write_pile(n: &Notation, pile: &Pile, out: &mut String) {
    let mut any = false;
    for s in Seat::all(n.seats) {
        if pile.seats[s.index()] > 0 {
            out.push_str(&format!(" {}={}", n.seat_name(s), pile.seats[s.index()]));
            any = true;
        }
    }
    if pile.peasants > 0 || !any {
        out.push_str(&format!(" peasants={}", pile.peasants));
    }
}

/// Stages one action: `seat` performs `action` in `province` now, with
/// the given event and special card in force, and runs it, in place of the
/// season's round: the round's plans and bids are dropped, the staged
/// action is its only one, and the game goes on from the round's end. The
/// state must be between the year's events and the reveal of the round's
/// bids (`staging_refused`). Atomic like `Engine::apply`.
pub fn stage_action(
    engine: &Engine,
    st: &mut GameState,
    seat: Seat,
    action: usize,
    province: ProvinceId,
    event: Option<usize>,
    special: Option<usize>,
) -> Result<Vec<Event>, EngineError> {
    let err = |m: String| EngineError::Illegal(m);
    if let Some(why) = staging_refused(st) {
        return Err(err(format!("an action can be staged only before a round's bids are revealed, in place of the round: {why}")));
    }
    if st.provinces[province.index()].owner != Some(seat) {
        return Err(err(format!("{} does not hold {}", engine.rules.seat_name(seat), engine.rules.province_name(province))));
    }
    let mut next = st.clone();
    let n = engine.rules.cards.actions.len();
    for (i, pl) in next.players.iter_mut().enumerate() {
        let mut plan = Plan { slots: vec![None; n], bid: None };
        if i == seat.index() {
            plan.slots[action] = Some(Card::Province(province));
        }
        pl.plan = Some(plan);
        pl.space = None;
    }
    next.event = event.map(|e| e as u8);
    next.special_row = (0..engine.rules.cards.specials.len() as u8).map(Some).collect();
    next.players[seat.index()].space = special.map(|k| k as u8);
    next.action_row = vec![action as u8];
    next.actions_revealed = 1;
    next.turn_order = vec![seat];
    next.phase = Phase::Actions { card: 0, turn: 0 };
    let events = engine.resume(&mut next)?;
    *st = next;
    Ok(events)
}

/// Why an action cannot be staged at `st` (`stage_action`), if it cannot:
/// from the round's start to the reveal of its bids it replaces the round
/// (once bids are paid and the round's event drawn, it would drop them).
fn staging_refused(st: &GameState) -> Option<&'static str> {
    match st.phase {
        Phase::RoundStart | Phase::Planning | Phase::Reveal => st.ask.is_some().then_some("a question is pending (answer it first)"),
        Phase::Setup | Phase::Draft | Phase::Preload => Some("the game is not set up yet"),
        Phase::YearStart => Some("the year's events are not turned up yet (one step of chance turns them up)"),
        Phase::ChooseSpace { .. } => Some("the bids are revealed and paid, and the round's event drawn (stage it once the round is over)"),
        Phase::Actions { .. } => Some("this round's actions have begun (stage it once the round is over)"),
        Phase::Winter | Phase::Score => Some("it is the year's end, winter and scoring (stage it once the next year's events are turned up)"),
        Phase::GameOver => Some("the game is over"),
    }
}

impl Notation<'_> {
    /// An event card by id.
    pub fn event(&self, id: &str) -> Result<usize, NotationError> {
        let events = &self.engine.rules.cards.events;
        events.iter().position(|e| e.id == id).ok_or_else(|| {
            let ids: Vec<&str> = events.iter().map(|e| e.id.as_str()).collect();
            syntax(id, &format!("an event id ({})", ids.join(", ")))
        })
    }

    /// Sets one count of a pile from its text: `peasants`, or a seat.
    pub fn pile_count(&self, pile: &mut Pile, key: &str, count: u16) -> Result<(), NotationError> {
        if key == "peasants" {
            pile.peasants = count;
        } else {
            pile.seats[self.seat(key)?.index()] = count;
        }
        Ok(())
    }

    /// A special card by id.
    pub fn special(&self, id: &str) -> Result<usize, NotationError> {
        let specials = &self.engine.rules.cards.specials;
        specials.iter().position(|c| c.id == id).ok_or_else(|| {
            let ids: Vec<&str> = specials.iter().map(|c| c.id.as_str()).collect();
            syntax(id, &format!("a special card id ({})", ids.join(", ")))
        })
    }
}
