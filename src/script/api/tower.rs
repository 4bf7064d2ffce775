//! The tower: throwing cubes in and taking what lands out of the tray.

use std::rc::Rc;

use mlua::{Lua, Table};

use super::{reg, rt};
use crate::core::{Event, GameState, Pile, Seat};
use crate::script::Shared;
use crate::script::raw::{Many, RestInts, fast};

/// Takes one group of a throw (`n` cubes of `seat` from province `from`,
/// or from the supply) into `input`; returns the seat (0-based).
fn take_group(sh: &Shared, st: &mut GameState, input: &mut Pile, seat: i64, from: Option<i64>, n: i64) -> mlua::Result<usize> {
    let s = sh.seat(st, "throw", seat)?;
    let n = sh.count("throw", n)?;
    match from {
        Some(p) => {
            let p = sh.prov(st, "throw", p)?;
            let prov = &mut st.provinces[p];
            if prov.owner != Some(Seat::new(s)) || prov.armies < n {
                return Err(rt(format!("game.throw: seat {} has {} armies in {}, cannot throw {n}", s + 1, prov.armies, sh.name(p))));
            }
            prov.armies -= n;
        }
        None => {
            if st.players[s].supply < n {
                return Err(rt(format!("game.throw: seat {} has {} cubes in supply, cannot throw {n}", s + 1, st.players[s].supply)));
            }
            st.players[s].supply -= n;
        }
    }
    input.seats[s] += n;
    Ok(s)
}

/// Adds `peasants` from the supply and throws `input` with the tray
/// (`setup`: as the rules' setup throw).
fn throw_input(sh: &Shared, st: &mut GameState, mut input: Pile, peasants: i64, setup: bool) -> mlua::Result<Pile> {
    let peasants = sh.count("throw", peasants)?;
    if st.peasants < peasants {
        return Err(rt(format!("game.throw: {} peasants in the supply, cannot throw {peasants}", st.peasants)));
    }
    st.peasants -= peasants;
    input.peasants += peasants;
    let rethrown = st.tray;
    let tower = sh.tower.borrow().clone();
    let landed = crate::tower::throw_in(tower.as_ref(), st, input, setup).map_err(rt)?;
    sh.event(Event::Throw { thrown: input, rethrown, landed });
    Ok(landed)
}

/// Registers the tower part of `game`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // Throws cubes into the tower with everything in the tray. `spec` is a
    // list of {seat=, n=, from=province or nil for the supply} and an
    // optional `peasants` count; `setup = true` makes it the setup throw (a
    // tower whose source treats that one apart). Returns the tray: [seat] =
    // n, peasants = n.
    reg(lua, t, sh, "throw", |lua, host, spec: Table| {
        host.with_state_mut("throw", |sh, st| {
            let keys = sh.keys.borrow();
            let keys = keys.as_ref().expect("keys are set at start-up");
            let mut input = Pile::default();
            for entry in spec.clone().sequence_values::<Table>() {
                let entry = entry?;
                take_group(sh, st, &mut input, entry.raw_get(&keys.seat)?, entry.raw_get(&keys.from)?, entry.raw_get(&keys.n)?)?;
            }
            let setup = spec.raw_get::<Option<bool>>("setup")?.unwrap_or(false);
            let landed = throw_input(sh, st, input, spec.raw_get::<Option<i64>>(&keys.peasants)?.unwrap_or(0), setup)?;
            let out = lua.create_table()?;
            for s in 0..st.seats() {
                out.raw_set(s + 1, landed.seats[s])?;
            }
            out.set("peasants", landed.peasants)?;
            Ok(out)
        })
    })?;
    // The same throw, positional (no tables made): throw_cubes(peasants,
    // seat, from, n, seat, from, n, ...) with from = nil for the supply.
    // Returns the peasants that landed, then for each group the cubes of
    // its seat that landed.
    fast(lua, t, sh, "throw_cubes", |host, (peasants, RestInts(groups)): (i64, RestInts)| {
        host.with_state_mut("throw_cubes", |sh, st| {
            if groups.len() % 3 != 0 {
                return Err(rt(format!("game.throw_cubes: groups come as seat, from, n; got {} values after the peasants", groups.len())));
            }
            let mut input = Pile::default();
            let mut seats = Vec::with_capacity(groups.len() / 3);
            for g in groups.chunks(3) {
                let seat = g[0].ok_or_else(|| rt("game.throw_cubes: a group has no seat".into()))?;
                let n = g[2].ok_or_else(|| rt("game.throw_cubes: a group has no count".into()))?;
                seats.push(take_group(sh, st, &mut input, seat, g[1], n)?);
            }
            let landed = throw_input(sh, st, input, peasants, false)?;
            let mut out = Many::new();
            out.push(i64::from(landed.peasants));
            out.extend(seats.into_iter().map(|s| i64::from(landed.seats[s])));
            Ok(out)
        })
    })?;
    fast(lua, t, sh, "tray_to_supply", |host, (s, n): (i64, i64)| {
        host.with_state_mut("tray_to_supply", |sh, st| {
            let s = sh.seat(st, "tray_to_supply", s)?;
            let n = sh.count("tray_to_supply", n)?;
            if st.tray.seats[s] < n {
                return Err(rt(format!("game.tray_to_supply: the tray holds {} cubes of seat {}, not {n}", st.tray.seats[s], s + 1)));
            }
            st.tray.seats[s] -= n;
            st.players[s].supply += n;
            Ok(())
        })
    })?;
    fast(lua, t, sh, "tray_to_province", |host, (s, p, n): (i64, i64, i64)| {
        host.with_state_mut("tray_to_province", |sh, st| {
            let s = sh.seat(st, "tray_to_province", s)?;
            let p = sh.prov(st, "tray_to_province", p)?;
            let n = sh.count("tray_to_province", n)?;
            if st.tray.seats[s] < n {
                return Err(rt(format!("game.tray_to_province: the tray holds {} cubes of seat {}, not {n}", st.tray.seats[s], s + 1)));
            }
            if st.provinces[p].owner != Some(Seat::new(s)) {
                return Err(rt(format!("game.tray_to_province: {} is not held by seat {}", sh.name(p), s + 1)));
            }
            st.tray.seats[s] -= n;
            st.provinces[p].armies += n;
            Ok(())
        })
    })?;
    // Peasants in the tray back to the general supply (all, or n).
    fast(lua, t, sh, "tray_peasants_to_supply", |host, n: Option<i64>| {
        host.with_state_mut("tray_peasants_to_supply", |sh, st| {
            let n = match n {
                Some(n) => sh.count("tray_peasants_to_supply", n)?.min(st.tray.peasants),
                None => st.tray.peasants,
            };
            st.tray.peasants -= n;
            st.peasants += n;
            Ok(n)
        })
    })?;
    Ok(())
}
