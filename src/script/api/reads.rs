//! Reading the game: seats, provinces, supplies, the calendar, targets and
//! counts for scoring. Nothing here changes the state.

use std::rc::Rc;

use mlua::{Lua, Table};

use super::{many, rt};
use crate::core::{GameState, MAX_SEATS, Seat};
use crate::script::Shared;
use crate::script::raw::{LStr, fast};

/// Registers the reads part of `game`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    calendar(lua, t, sh)?;
    board(lua, t, sh)?;
    players(lua, t, sh)?;
    supplies(lua, t, sh)?;
    targets(lua, t, sh)?;
    counts(lua, t, sh)?;
    Ok(())
}

/// The calendar and the order of play: seats, year, season, the event in
/// force and the year's events, turn order.
fn calendar(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    fast(lua, t, sh, "seats", |host, ()| host.with_state(|_, st| Ok(st.seats())))?;
    fast(lua, t, sh, "year", |host, ()| host.with_state(|_, st| Ok(st.year + 1)))?;
    fast(lua, t, sh, "season", |host, ()| host.with_state(|_, st| Ok(st.season + 1)))?;
    fast(lua, t, sh, "event", |host, ()| host.with_state(|_, st| Ok(st.event.map(|e| i64::from(e) + 1))))?;
    fast(lua, t, sh, "year_events", |host, ()| host.with_state(|_, st| Ok(many(st.year_events.iter().map(|&e| i64::from(e) + 1)))))?;
    fast(lua, t, sh, "turn_order", |host, ()| host.with_state(|_, st| Ok(many(st.turn_order.iter().map(|&s| s.number())))))?;
    Ok(())
}

/// One province: owner, armies, unrest, buildings, free spaces, whether
/// it is in play.
fn board(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    fast(lua, t, sh, "owner", |host, p: i64| {
        host.with_state(|sh, st| {
            let p = sh.prov(st, "owner", p)?;
            Ok(st.provinces[p].owner)
        })
    })?;
    // What a rule reads of a province, in one call: owner (or nil),
    // armies, unrest markers, number of buildings, free building spaces.
    fast(lua, t, sh, "province", |host, p: i64| {
        host.with_state(|sh, st| {
            let p = sh.prov(st, "province", p)?;
            let pr = &st.provinces[p];
            let free = sh.rules.map.provinces[p].spaces.saturating_sub(pr.building_count());
            Ok((pr.owner, pr.armies, pr.unrest, pr.building_count(), free))
        })
    })?;
    fast(lua, t, sh, "armies", |host, p: i64| host.with_state(|sh, st| Ok(st.provinces[sh.prov(st, "armies", p)?].armies)))?;
    fast(lua, t, sh, "unrest", |host, p: i64| host.with_state(|sh, st| Ok(st.provinces[sh.prov(st, "unrest", p)?].unrest)))?;
    fast(lua, t, sh, "in_play", |host, p: i64| host.with_state(|sh, st| Ok(st.in_play[sh.prov(st, "in_play", p)?])))?;
    fast(lua, t, sh, "has", |host, (p, k): (i64, LStr)| host.with_state(|sh, st| Ok(st.provinces[sh.prov(st, "has", p)?].has(sh.kind("has", k.to_str()?)?))))?;
    fast(lua, t, sh, "buildings", |host, p: i64| host.with_state(|sh, st| Ok(st.provinces[sh.prov(st, "buildings", p)?].building_count())))?;
    fast(lua, t, sh, "free_spaces", |host, p: i64| {
        host.with_state(|sh, st| {
            let p = sh.prov(st, "free_spaces", p)?;
            Ok(sh.rules.map.provinces[p].spaces.saturating_sub(st.provinces[p].building_count()))
        })
    })?;
    Ok(())
}

/// One seat: supply, war chests, rice, points, provinces, special card.
fn players(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // What a rule reads of a seat, in one call: war chests, rice, cubes in
    // supply, points, provinces held.
    fast(lua, t, sh, "seat", |host, s: i64| {
        host.with_state(|sh, st| {
            let s = sh.seat(st, "seat", s)?;
            let pl = &st.players[s];
            Ok((pl.chests, pl.rice, pl.supply, pl.points, st.provinces_of(Seat::new(s)).count()))
        })
    })?;
    fast(lua, t, sh, "supply", |host, s: i64| host.with_state(|sh, st| Ok(st.players[sh.seat(st, "supply", s)?].supply)))?;
    fast(lua, t, sh, "chests", |host, s: i64| host.with_state(|sh, st| Ok(st.players[sh.seat(st, "chests", s)?].chests)))?;
    fast(lua, t, sh, "rice", |host, s: i64| host.with_state(|sh, st| Ok(st.players[sh.seat(st, "rice", s)?].rice)))?;
    fast(lua, t, sh, "points", |host, s: i64| host.with_state(|sh, st| Ok(st.players[sh.seat(st, "points", s)?].points)))?;
    fast(lua, t, sh, "provinces_of", |host, s: i64| {
        host.with_state(|sh, st| {
            let s = sh.seat(st, "provinces_of", s)?;
            Ok(many(st.provinces_of(Seat::new(s)).map(|p| p.number())))
        })
    })?;
    fast(lua, t, sh, "province_count", |host, s: i64| {
        host.with_state(|sh, st| {
            let s = sh.seat(st, "province_count", s)?;
            Ok(st.provinces_of(Seat::new(s)).count())
        })
    })?;
    fast(lua, t, sh, "special", |host, s: i64| {
        host.with_state(|sh, st| {
            let s = sh.seat(st, "special", s)?;
            Ok(st.special_of(Seat::new(s)).map(|x| i64::from(x) + 1))
        })
    })?;
    Ok(())
}

/// The general supplies: peasants, unrest markers, buildings of a kind.
fn supplies(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    fast(lua, t, sh, "peasant_supply", |host, ()| host.with_state(|_, st| Ok(st.peasants)))?;
    fast(lua, t, sh, "unrest_supply", |host, ()| host.with_state(|_, st| Ok(st.unrest)))?;
    // The provinces with unrest markers, in order, as several values.
    fast(lua, t, sh, "provinces_with_unrest", |host, ()| {
        host.with_state(|_, st| Ok(many(st.provinces.iter().enumerate().filter(|(_, pr)| pr.unrest > 0).map(|(p, _)| p as i64 + 1))))
    })?;
    fast(lua, t, sh, "building_supply", |host, k: LStr| host.with_state(|sh, st| Ok(st.buildings[sh.kind("building_supply", k.to_str()?)?])))?;
    Ok(())
}

/// Where armies may go from a province.
fn targets(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // Neighbours of `p` that are in play (where an army may go).
    fast(lua, t, sh, "targets", |host, p: i64| {
        host.with_state(|sh, st| {
            let p = sh.prov(st, "targets", p)?;
            Ok(many(sh.rules.map.provinces[p].neighbours.iter().copied().filter(|&n| st.in_play[n]).map(|n| n as i64 + 1)))
        })
    })?;
    // The same, only those held by `seat`, or only those not held by it.
    fast(lua, t, sh, "own_targets", |host, (p, seat): (i64, i64)| {
        host.with_state(|sh, st| {
            let p = sh.prov(st, "own_targets", p)?;
            let s = Some(Seat::new(sh.seat(st, "own_targets", seat)?));
            Ok(many(sh.rules.map.provinces[p].neighbours.iter().copied().filter(|&n| st.in_play[n] && st.provinces[n].owner == s).map(|n| n as i64 + 1)))
        })
    })?;
    fast(lua, t, sh, "other_targets", |host, (p, seat): (i64, i64)| {
        host.with_state(|sh, st| {
            let p = sh.prov(st, "other_targets", p)?;
            let s = Some(Seat::new(sh.seat(st, "other_targets", seat)?));
            Ok(many(sh.rules.map.provinces[p].neighbours.iter().copied().filter(|&n| st.in_play[n] && st.provinces[n].owner != s).map(|n| n as i64 + 1)))
        })
    })?;
    // Where his armies in `p` may go: his own provinces first, then the
    // others (own_targets, then other_targets, in one call).
    fast(lua, t, sh, "move_targets", |host, (p, seat): (i64, i64)| {
        host.with_state(|sh, st| {
            let p = sh.prov(st, "move_targets", p)?;
            let s = Some(Seat::new(sh.seat(st, "move_targets", seat)?));
            let near = || sh.rules.map.provinces[p].neighbours.iter().copied().filter(|&n| st.in_play[n]);
            let own = near().filter(|&n| st.provinces[n].owner == s);
            Ok(many(own.chain(near().filter(|&n| st.provinces[n].owner != s)).map(|n| n as i64 + 1)))
        })
    })?;
    Ok(())
}

/// Counts for scoring.
fn counts(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // Buildings of `kind` in `region`, one count per seat.
    fast(lua, t, sh, "region_buildings", |host, (region, kind): (i64, LStr)| {
        host.with_state(|sh, st| Ok(many(region_counts(sh, st, "region_buildings", region, kind)?[..st.seats()].iter().copied())))
    })?;
    Ok(())
}

/// Buildings of `kind` in `region` held by each seat, in the first
/// `st.seats()` places (`what`: the host function asking, for its errors).
fn region_counts(sh: &Shared, st: &GameState, what: &str, region: i64, kind: LStr) -> mlua::Result<[i64; MAX_SEATS]> {
    let k = sh.kind(what, kind.to_str()?)?;
    if region < 1 || region as usize > sh.rules.map.regions.len() {
        return Err(rt(format!("game.{what}: region {region} does not exist")));
    }
    let r = region as usize - 1;
    let mut counts = [0i64; MAX_SEATS];
    for (i, p) in st.provinces.iter().enumerate() {
        if let Some(o) = p.owner
            && p.has(k)
            && sh.rules.map.provinces[i].region == r
        {
            counts[o.index()] += 1;
        }
    }
    Ok(counts)
}
