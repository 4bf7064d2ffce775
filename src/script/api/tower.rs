//! The tower: throwing cubes in and taking what lands out of the tray.

use std::rc::Rc;

use mlua::{Lua, Table};

use super::pieces::{conquer, neutralize};
use super::{reg, rt};
use crate::core::{Event, GameState, Pile, ProvinceId, Seat};
use crate::script::Shared;
use crate::script::raw::{Flag, LStr, Many, RestInts, fast};

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
    sh.event("throw", Event::Throw { thrown: input, rethrown, landed })?;
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
    battles(lua, t, sh)?;
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

/// What `game.fight` reads: kind, the province fought for, the attacking
/// seat and where its armies come from; their number and the attacker's
/// extra cubes, the defending seat and its extra cubes; the peasants.
type FightArgs = ((LStr, i64, Option<i64>, Option<i64>), (Option<i64>, Option<i64>, Option<i64>, Option<i64>), Option<i64>);

/// What `game.settle` reads: the province, who holds it now, each side
/// and how many of its cubes stay there, whether the peasants go back.
type SettleArgs = ((i64, Option<i64>, Option<i64>, Option<i64>), (Option<i64>, Option<i64>, Flag));

/// A side's cubes in the tray after a battle: `stay` of them go into `p`
/// (held by the side by then), the rest back to its supply.
fn side_back(sh: &Shared, st: &mut GameState, p: usize, side: Option<(usize, u16)>, into: bool) -> mlua::Result<()> {
    let Some((s, stay)) = side else { return Ok(()) };
    let landed = st.tray.seats[s];
    if stay > landed {
        return Err(rt(format!("game.settle: the tray holds {landed} cubes of seat {}, {stay} cannot stay", s + 1)));
    }
    if !into {
        st.tray.seats[s] -= landed - stay;
        st.players[s].supply += landed - stay;
    } else if stay > 0 {
        if st.provinces[p].owner != Some(Seat::new(s)) {
            return Err(rt(format!("game.settle: {} is not held by seat {}, whose cubes stay there", sh.name(p), s + 1)));
        }
        st.tray.seats[s] -= stay;
        st.provinces[p].armies += stay;
    }
    Ok(())
}

/// A battle in two calls: the throw (`game.fight`) and, once the pack's
/// battle rule has said who won, where the cubes go (`game.settle`).
fn battles(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // game.fight(kind, to, attacker, from, armies, attacker_extra, defender,
    // defender_extra, peasants): records a battle of `kind` for `to`, then
    // throws the attacker's `armies` from `from`, every army of the
    // defender in `to`, each side's extra cubes from its supply and
    // `peasants` from the general supply, with the tray. A side may be
    // nil (a neutral province has no defender, a revolt no attacking
    // seat). Returns the peasants, the attacker's and the defender's cubes
    // in the tray.
    fast(lua, t, sh, "fight", |host, ((kind, to, attacker, from), (armies, xa, defender, xd), peasants): FightArgs| {
        host.with_state_mut("fight", |sh, st| {
            let p = sh.prov(st, "fight", to)?;
            let kind = sh.text("fight", kind.as_bytes(), 64)?;
            sh.script_event("fight", Event::Battle { kind, province: ProvinceId::new(p) })?;
            let mut input = Pile::default();
            let a = match attacker {
                Some(a) => Some(take_group(sh, st, &mut input, a, from, armies.unwrap_or(0))?),
                None => None,
            };
            let d = match defender {
                Some(d) => Some(take_group(sh, st, &mut input, d, Some(to), i64::from(st.provinces[p].armies))?),
                None => None,
            };
            if let Some(a) = attacker {
                take_group(sh, st, &mut input, a, None, xa.unwrap_or(0))?;
            }
            if let Some(d) = defender {
                take_group(sh, st, &mut input, d, None, xd.unwrap_or(0))?;
            }
            let landed = throw_input(sh, st, input, peasants.unwrap_or(0), false)?;
            let mut out = Many::new();
            out.push(i64::from(landed.peasants));
            out.push(a.map_or(0, |a| i64::from(landed.seats[a])));
            out.push(d.map_or(0, |d| i64::from(landed.seats[d])));
            Ok(out)
        })
    })?;
    // game.settle(to, holder, attacker, attacker_stay, defender,
    // defender_stay, peasants_back): after a battle, each side's cubes in
    // the tray go back to its supply but `stay` of them, which go into
    // `to`; `to` goes to `holder` (a seat, or nil: neutral; as it was,
    // nothing changes); the peasants in the tray go back to the general
    // supply when `peasants_back` is true.
    fast(lua, t, sh, "settle", |host, ((to, holder, attacker, a_stay), (defender, d_stay, Flag(peasants_back))): SettleArgs| {
        host.with_state_mut("settle", |sh, st| {
            let p = sh.prov(st, "settle", to)?;
            let side = |s: Option<i64>, stay: Option<i64>| -> mlua::Result<Option<(usize, u16)>> {
                s.map(|s| Ok((sh.seat(st, "settle", s)?, sh.count("settle", stay.unwrap_or(0))?))).transpose()
            };
            let (a, d) = (side(attacker, a_stay)?, side(defender, d_stay)?);
            let holder = holder.map(|h| sh.seat(st, "settle", h)).transpose()?;
            side_back(sh, st, p, a, false)?;
            side_back(sh, st, p, d, false)?;
            if st.provinces[p].owner.map(Seat::index) != holder {
                match holder {
                    Some(h) => conquer(sh, st, "settle", p, h)?,
                    None => neutralize(sh, st, p)?,
                }
            }
            side_back(sh, st, p, a, true)?;
            side_back(sh, st, p, d, true)?;
            if peasants_back {
                st.peasants += st.tray.peasants;
                st.tray.peasants = 0;
            }
            Ok(())
        })
    })?;
    Ok(())
}
