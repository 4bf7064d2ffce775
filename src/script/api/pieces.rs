//! Moving pieces and amounts: war chests, rice, points, armies, buildings,
//! unrest and province cards. Every change moves pieces between places.

use std::rc::Rc;

use mlua::{Lua, Table};

use super::records::metric_key;
use super::{MAX_AMOUNT, rt};
use crate::core::{Event, GameState, ProvinceId, Seat};
use crate::script::Shared;
use crate::script::raw::{IntList, LStr, fast};

/// Seat `s` takes province `p` (0-based both), which must be in play and
/// empty of armies (`what`: the host function, for its error).
pub(super) fn conquer(sh: &Shared, st: &mut GameState, what: &str, p: usize, s: usize) -> mlua::Result<()> {
    if !st.in_play[p] {
        return Err(rt(format!("game.{what}: {} is out of play", sh.name(p))));
    }
    if st.provinces[p].armies > 0 {
        return Err(rt(format!("game.{what}: {} still holds {} armies", sh.name(p), st.provinces[p].armies)));
    }
    change_owner(sh, st, p, Some(Seat::new(s)))?;
    Ok(())
}

/// Province `p` becomes neutral: armies to the owner's supply, buildings
/// and unrest to the supply, card to the deck.
pub(super) fn neutralize(sh: &Shared, st: &mut GameState, p: usize) -> mlua::Result<()> {
    let prov = st.provinces[p];
    if let Some(o) = prov.owner {
        st.players[o.index()].supply += prov.armies;
    }
    for k in 0..st.buildings.len() {
        if prov.has(k) {
            st.buildings[k] += 1;
        }
    }
    st.unrest += prov.unrest;
    st.provinces[p].armies = 0;
    st.provinces[p].buildings = 0;
    st.provinces[p].unrest = 0;
    change_owner(sh, st, p, None)
}

/// Records a change of hands. What becomes of the former owner's planned
/// action there is the rules' (`game.void_planned`, called by the pack's
/// `province_lost` handler).
fn change_owner(sh: &Shared, st: &mut GameState, p: usize, to: Option<Seat>) -> mlua::Result<()> {
    let from = st.provinces[p].owner;
    if from == to {
        return Ok(());
    }
    sh.event(if to.is_some() { "conquer" } else { "neutralize" }, Event::OwnerChange { province: ProvinceId::new(p), from, to })?;
    st.provinces[p].owner = to;
    Ok(())
}

/// Registers the pieces part of `game`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    amounts(lua, t, sh)?;
    armies(lua, t, sh)?;
    buildings_and_unrest(lua, t, sh)?;
    cards(lua, t, sh)?;
    Ok(())
}

/// A seat's war chests, rice and points.
fn amounts(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    fast(lua, t, sh, "pay", |host, (s, n): (i64, i64)| {
        host.with_state_mut("pay", |sh, st| {
            let s = sh.seat(st, "pay", s)?;
            if n < 0 || st.players[s].chests < n {
                return Err(rt(format!("game.pay: seat {} has {} war chests, cannot pay {n}", s + 1, st.players[s].chests)));
            }
            st.players[s].chests -= n;
            Ok(())
        })
    })?;
    fast(lua, t, sh, "gain", |host, (s, n): (i64, i64)| {
        host.with_state_mut("gain", |sh, st| {
            let s = sh.seat(st, "gain", s)?;
            if n < 0 {
                return Err(rt(format!("game.gain: cannot gain {n} war chests")));
            }
            st.players[s].chests =
                st.players[s].chests.checked_add(n).filter(|&c| c <= MAX_AMOUNT).ok_or_else(|| rt(format!("game.gain: {n} war chests is out of range")))?;
            Ok(())
        })
    })?;
    fast(lua, t, sh, "add_rice", |host, (s, n): (i64, i64)| {
        host.with_state_mut("add_rice", |sh, st| {
            let s = sh.seat(st, "add_rice", s)?;
            st.players[s].rice =
                st.players[s].rice.checked_add(n).filter(|&r| r <= MAX_AMOUNT).ok_or_else(|| rt(format!("game.add_rice: {n} rice is out of range")))?.max(0);
            Ok(st.players[s].rice)
        })
    })?;
    fast(lua, t, sh, "set_rice", |host, (s, n): (i64, i64)| {
        host.with_state_mut("set_rice", |sh, st| {
            let s = sh.seat(st, "set_rice", s)?;
            if n > MAX_AMOUNT {
                return Err(rt(format!("game.set_rice: {n} rice is out of range")));
            }
            st.players[s].rice = n.max(0);
            Ok(())
        })
    })?;
    // game.award(source, points): each seat scores points[s] (a list with
    // an entry per seat), added to its points and tallied for the lab as
    // `points.SOURCE`: a scoring in one call per source.
    fast(lua, t, sh, "award", |host, (source, IntList(points)): (LStr, IntList)| {
        host.with_state_mut("award", |sh, st| {
            if points.len() != st.seats() {
                return Err(rt(format!("game.award: {} points given for {} seats", points.len(), st.seats())));
            }
            let key = metric_key(sh, "award", "points.", &source)?;
            let mut total = Vec::with_capacity(points.len());
            for (s, &n) in points.iter().enumerate() {
                let p = st.players[s].points.checked_add(n).filter(|p| p.abs() <= MAX_AMOUNT);
                total.push(p.ok_or_else(|| rt(format!("game.award: {n} points is out of range")))?);
            }
            for (s, (&n, p)) in points.iter().zip(total).enumerate() {
                st.players[s].points = p;
                sh.script_event("award", Event::Tally { key: key.clone(), seat: Some(Seat::new(s)), amount: n })?;
            }
            Ok(())
        })
    })?;
    fast(lua, t, sh, "add_points", |host, (s, n): (i64, i64)| {
        host.with_state_mut("add_points", |sh, st| {
            let s = sh.seat(st, "add_points", s)?;
            st.players[s].points = st.players[s]
                .points
                .checked_add(n)
                .filter(|p| p.abs() <= MAX_AMOUNT)
                .ok_or_else(|| rt(format!("game.add_points: {n} points is out of range")))?;
            Ok(())
        })
    })?;
    Ok(())
}

/// Armies from the supply onto the board and between provinces.
fn armies(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // Supply -> province (the seat's own); returns the armies there now.
    fast(lua, t, sh, "deploy", |host, (s, p, n): (i64, i64, i64)| {
        host.with_state_mut("deploy", |sh, st| {
            let s = sh.seat(st, "deploy", s)?;
            let p = sh.prov(st, "deploy", p)?;
            let n = sh.count("deploy", n)?;
            if st.provinces[p].owner != Some(Seat::new(s)) {
                return Err(rt(format!("game.deploy: {} is not held by seat {}", sh.name(p), s + 1)));
            }
            if st.players[s].supply < n {
                return Err(rt(format!("game.deploy: seat {} has {} cubes in supply, not {n}", s + 1, st.players[s].supply)));
            }
            st.players[s].supply -= n;
            st.provinces[p].armies += n;
            Ok(st.provinces[p].armies)
        })
    })?;
    // Province -> adjacent own province.
    fast(lua, t, sh, "move", |host, (s, from, to, n): (i64, i64, i64, i64)| {
        host.with_state_mut("move", |sh, st| {
            let s = sh.seat(st, "move", s)?;
            let from = sh.prov(st, "move", from)?;
            let to = sh.prov(st, "move", to)?;
            let n = sh.count("move", n)?;
            if st.provinces[from].owner != Some(Seat::new(s)) || st.provinces[to].owner != Some(Seat::new(s)) {
                return Err(rt(format!("game.move: seat {} must hold both {} and {}", s + 1, sh.name(from), sh.name(to))));
            }
            if !sh.rules.map.adjacent(from, to) {
                return Err(rt(format!("game.move: {} and {} are not adjacent", sh.name(from), sh.name(to))));
            }
            if st.provinces[from].armies < n {
                return Err(rt(format!("game.move: {} has {} armies, not {n}", sh.name(from), st.provinces[from].armies)));
            }
            st.provinces[from].armies -= n;
            st.provinces[to].armies += n;
            Ok(())
        })
    })?;
    Ok(())
}

/// Buildings and unrest markers, between the supplies and a province.
fn buildings_and_unrest(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    fast(lua, t, sh, "build", |host, (p, k): (i64, LStr)| {
        host.with_state_mut("build", |sh, st| {
            let p = sh.prov(st, "build", p)?;
            let k = sh.kind("build", k.to_str()?)?;
            let prov = &st.provinces[p];
            if prov.has(k) {
                return Err(rt(format!("game.build: {} already has a {}", sh.name(p), sh.rules.rules.components.buildings[k].name)));
            }
            if prov.building_count() >= sh.rules.map.provinces[p].spaces {
                return Err(rt(format!("game.build: {} has no free building space", sh.name(p))));
            }
            if st.buildings[k] == 0 {
                return Err(rt(format!("game.build: no {} left in the supply", sh.rules.rules.components.buildings[k].name)));
            }
            st.buildings[k] -= 1;
            st.provinces[p].buildings |= 1 << k;
            Ok(())
        })
    })?;
    // Adds up to n unrest markers (as many as the supply has); returns how many.
    fast(lua, t, sh, "add_unrest", |host, (p, n): (i64, i64)| {
        host.with_state_mut("add_unrest", |sh, st| {
            let p = sh.prov(st, "add_unrest", p)?;
            let n = sh.count("add_unrest", n)?.min(st.unrest);
            st.unrest -= n;
            st.provinces[p].unrest += n;
            Ok(n)
        })
    })?;
    fast(lua, t, sh, "remove_unrest", |host, (p, n): (i64, Option<i64>)| {
        host.with_state_mut("remove_unrest", |sh, st| {
            let p = sh.prov(st, "remove_unrest", p)?;
            let have = st.provinces[p].unrest;
            let n = match n {
                Some(n) => sh.count("remove_unrest", n)?.min(have),
                None => have,
            };
            st.provinces[p].unrest -= n;
            st.unrest += n;
            Ok(n)
        })
    })?;
    Ok(())
}

/// Province cards changing hands.
fn cards(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // The seat takes the province card (from the deck or another seat).
    // The province must be empty of armies.
    fast(lua, t, sh, "conquer", |host, (p, s): (i64, i64)| {
        host.with_state_mut("conquer", |sh, st| {
            let p = sh.prov(st, "conquer", p)?;
            let s = sh.seat(st, "conquer", s)?;
            conquer(sh, st, "conquer", p, s)
        })
    })?;
    fast(lua, t, sh, "neutralize", |host, p: i64| {
        host.with_state_mut("neutralize", |sh, st| {
            let p = sh.prov(st, "neutralize", p)?;
            neutralize(sh, st, p)
        })
    })?;
    // The province's card leaves the seat's plan: the action planned there
    // is lost (the rules call this when a province is lost in battle).
    // Returns how many action spaces it emptied, and how many of them held
    // an action still to be carried out this round.
    fast(lua, t, sh, "void_planned", |host, (s, p): (i64, i64)| {
        host.with_state_mut("void_planned", |sh, st| {
            let s = sh.seat(st, "void_planned", s)?;
            let p = sh.prov(st, "void_planned", p)?;
            let id = ProvinceId::new(p);
            let (emptied, pending) = st.planned_with(Seat::new(s), id);
            st.void_planned(Seat::new(s), id);
            Ok((emptied as i64, pending as i64))
        })
    })?;
    Ok(())
}
