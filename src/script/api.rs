//! The host API scripts call as `game.*`. Calls are coarse where it
//! matters (throws, tallies, target lists are computed here) and every
//! change moves pieces between places, so nothing is created or lost.
//!
//! Seats, provinces, actions, events, specials and spaces are 1-based in Lua.

use std::rc::Rc;

use mlua::{FromLuaMulti, IntoLuaMulti, Lua, Table, Value};

use super::raw::{LStr, Many, RestInts, Spec, fast};

use super::Shared;
use crate::core::{Ask, Card, Choice, Event, GameState, Pile, ProvinceId, Seat};
use crate::rules::Rules;

/// The longest narration line (`game.log`) and question text (`game.ask`).
pub const MAX_TEXT: usize = 1024;
/// The most events (notes, tallies, battles) a script records in one call.
pub const MAX_SCRIPT_EVENTS: usize = 10_000;
/// The largest number of points, war chests or rice a seat may hold (far
/// beyond any game; it keeps every sum of them exact).
pub const MAX_AMOUNT: i64 = 1 << 40;
/// The most values in a continuation's `data`.
pub const MAX_DATA_VALUES: usize = 10_000;

fn rt(msg: String) -> mlua::Error {
    mlua::Error::RuntimeError(msg)
}

impl Shared {
    /// The state lent for this call.
    #[allow(clippy::mut_from_ref)]
    pub(super) fn lent(&self) -> mlua::Result<&mut GameState> {
        if self.in_tower.get() {
            return Err(rt("game.* is not available inside a tower model (it gets the cubes and a `random` function)".into()));
        }
        let p = self.state.get();
        if p.is_null() {
            return Err(rt("the game state is only lent to scripts during a call".into()));
        }
        // SAFETY: `Runtime::invoke` sets the pointer from a `&mut GameState`
        // it does not touch until the Lua call returns, and a guard clears it
        // after (even on a panic). Only one host function runs at a time:
        // `reg` refuses re-entry (a host function that allocates may run Lua
        // again only through finalizers or metamethods, and the sandbox
        // refuses `__gc`; reads of script tables are raw), so at most one
        // reference derived from the pointer is alive.
        Ok(unsafe { &mut *p })
    }

    fn writable(&self, what: &str) -> mlua::Result<&mut GameState> {
        if self.read_only.get() {
            return Err(rt(format!("game.{what} changes the game, which is not allowed here (read-only view)")));
        }
        self.lent()
    }

    pub(super) fn seat(&self, st: &GameState, what: &str, s: i64) -> mlua::Result<usize> {
        match Seat::from_number(s, st.seats()) {
            Some(seat) => Ok(seat.index()),
            None => Err(rt(format!("game.{what}: seat {s} does not exist (1..{})", st.seats()))),
        }
    }

    fn prov(&self, st: &GameState, what: &str, p: i64) -> mlua::Result<usize> {
        match ProvinceId::from_number(p, st.provinces.len()) {
            Some(id) => Ok(id.index()),
            None => Err(rt(format!("game.{what}: province {p} does not exist (1..{})", st.provinces.len()))),
        }
    }

    fn kind(&self, what: &str, k: &str) -> mlua::Result<usize> {
        self.building_ids.get(k).copied().ok_or_else(|| rt(format!("game.{what}: unknown building kind `{k}`")))
    }

    fn count(&self, what: &str, n: i64) -> mlua::Result<u16> {
        if !(0..=i64::from(u16::MAX)).contains(&n) {
            return Err(rt(format!("game.{what}: count {n} out of range")));
        }
        Ok(n as u16)
    }

    fn event(&self, e: Event) {
        self.scratch.borrow_mut().events.push(e);
    }

    /// A string a script hands to the host, bounded (the host keeps it
    /// outside the VM's memory limit) and safe to print.
    fn text(&self, what: &str, bytes: &[u8], max: usize) -> mlua::Result<String> {
        if bytes.len() > max {
            return Err(rt(format!("game.{what}: a text of {} bytes is longer than the limit of {max}", bytes.len())));
        }
        Ok(crate::files::sanitize(&String::from_utf8_lossy(bytes)))
    }

    /// Records a script's own event (narration, statistics), at most
    /// MAX_SCRIPT_EVENTS per call.
    fn script_event(&self, what: &str, e: Event) -> mlua::Result<()> {
        let mut scratch = self.scratch.borrow_mut();
        if scratch.events.len() >= MAX_SCRIPT_EVENTS {
            return Err(rt(format!("game.{what}: more than {MAX_SCRIPT_EVENTS} events in one call")));
        }
        scratch.events.push(e);
        Ok(())
    }

    fn name(&self, p: usize) -> &str {
        &self.rules.map.provinces[p].name
    }
}

/// Removes a province's card from its former owner's plan (the planned
/// action there is lost) and records the change of hands.
fn change_owner(sh: &Shared, st: &mut GameState, p: usize, to: Option<Seat>) {
    let from = st.provinces[p].owner;
    if from == to {
        return;
    }
    if let Some(f) = from
        && let Some(plan) = &mut st.players[f.index()].plan
    {
        for slot in plan.slots.iter_mut() {
            if *slot == Some(Card::Province(ProvinceId::new(p))) {
                *slot = None;
            }
        }
    }
    st.provinces[p].owner = to;
    sh.event(Event::OwnerChange { province: ProvinceId::new(p), from, to });
}

fn reg<A, R, F>(lua: &Lua, t: &Table, sh: &Rc<Shared>, name: &'static str, f: F) -> mlua::Result<()>
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
    F: Fn(&Lua, &Shared, A) -> mlua::Result<R> + 'static,
{
    let sh = sh.clone();
    t.set(
        name,
        lua.create_function(move |lua, a: A| {
            if sh.in_tower.get() {
                return Err(rt("game.* is not available inside a tower model (it gets the cubes and a `random` function)".into()));
            }
            if sh.busy.replace(true) {
                return Err(rt(format!("game.{name} was called while another game.* call was running")));
            }
            struct Done<'a>(&'a std::cell::Cell<bool>);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.set(false);
                }
            }
            let _done = Done(&sh.busy);
            f(lua, &sh, a)
        })?,
    )
}

fn list<I: IntoIterator<Item = i64>>(lua: &Lua, items: I) -> mlua::Result<Table> {
    lua.create_sequence_from(items)
}

/// Several integers as multiple return values (cheaper than a table;
/// scripts write `{game.f(...)}` when they want one).
fn many<I: IntoIterator<Item = i64>>(items: I) -> Many {
    Many(items.into_iter().collect())
}

/// The read-only `MAP` table (frozen by the prelude after loading).
pub(super) fn map_table(lua: &Lua, rules: &Rules) -> mlua::Result<Table> {
    let m = &rules.map;
    let t = lua.create_table()?;
    t.set("name", m.name.as_str())?;
    t.set("title", m.title.as_str())?;
    t.set("regions", lua.create_sequence_from(m.regions.iter().map(|s| s.as_str()))?)?;
    let provinces = lua.create_table()?;
    let by_name = lua.create_table()?;
    for (i, p) in m.provinces.iter().enumerate() {
        let row = lua.create_table()?;
        row.set("id", i + 1)?;
        row.set("name", p.name.as_str())?;
        row.set("region", p.region + 1)?;
        row.set("region_name", m.regions[p.region].as_str())?;
        row.set("tax", p.tax)?;
        row.set("rice", p.rice)?;
        row.set("spaces", p.spaces)?;
        row.set("neighbours", list(lua, p.neighbours.iter().map(|&n| n as i64 + 1))?)?;
        row.set("borders", list(lua, p.borders.iter().map(|&n| n as i64 + 1))?)?;
        row.set("sea_routes", list(lua, p.sea_routes.iter().map(|&n| n as i64 + 1))?)?;
        provinces.raw_set(i + 1, row)?;
        by_name.set(p.name.as_str(), i + 1)?;
    }
    t.set("provinces", provinces)?;
    t.set("by_name", by_name)?;
    Ok(t)
}

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

/// Adds `peasants` from the supply and throws `input` with the tray.
fn throw_input(sh: &Shared, st: &mut GameState, mut input: Pile, peasants: i64) -> mlua::Result<Pile> {
    let peasants = sh.count("throw", peasants)?;
    if st.peasants < peasants {
        return Err(rt(format!("game.throw: {} peasants in the supply, cannot throw {peasants}", st.peasants)));
    }
    st.peasants -= peasants;
    input.peasants += peasants;
    let rethrown = st.tray;
    let tower = sh.tower.borrow().clone();
    let landed = crate::tower::throw_in(tower.as_ref(), st, input).map_err(rt)?;
    sh.event(Event::Throw { thrown: input, rethrown, landed });
    Ok(landed)
}

/// The `game` table of host functions.
pub(super) fn host_table(lua: &Lua, sh: &Rc<Shared>) -> mlua::Result<Table> {
    let t = lua.create_table()?;

    // ---- reading -------------------------------------------------------
    fast(lua, &t, sh, "seats", |sh, ()| Ok(sh.lent()?.seats()))?;
    fast(lua, &t, sh, "year", |sh, ()| Ok(sh.lent()?.year + 1))?;
    fast(lua, &t, sh, "season", |sh, ()| Ok(sh.lent()?.season + 1))?;
    fast(lua, &t, sh, "owner", |sh, p: i64| {
        let st = sh.lent()?;
        let p = sh.prov(st, "owner", p)?;
        Ok(st.provinces[p].owner)
    })?;
    // owner (or nil), armies, unrest markers, number of buildings.
    fast(lua, &t, sh, "province", |sh, p: i64| {
        let st = sh.lent()?;
        let pr = &st.provinces[sh.prov(st, "province", p)?];
        Ok((pr.owner, pr.armies, pr.unrest, pr.building_count()))
    })?;
    fast(lua, &t, sh, "armies", |sh, p: i64| {
        let st = sh.lent()?;
        Ok(st.provinces[sh.prov(st, "armies", p)?].armies)
    })?;
    fast(lua, &t, sh, "unrest", |sh, p: i64| {
        let st = sh.lent()?;
        Ok(st.provinces[sh.prov(st, "unrest", p)?].unrest)
    })?;
    fast(lua, &t, sh, "in_play", |sh, p: i64| {
        let st = sh.lent()?;
        Ok(st.in_play[sh.prov(st, "in_play", p)?])
    })?;
    fast(lua, &t, sh, "has", |sh, (p, k): (i64, LStr)| {
        let st = sh.lent()?;
        Ok(st.provinces[sh.prov(st, "has", p)?].has(sh.kind("has", k.to_str()?)?))
    })?;
    fast(lua, &t, sh, "buildings", |sh, p: i64| {
        let st = sh.lent()?;
        Ok(st.provinces[sh.prov(st, "buildings", p)?].building_count())
    })?;
    fast(lua, &t, sh, "free_spaces", |sh, p: i64| {
        let st = sh.lent()?;
        let p = sh.prov(st, "free_spaces", p)?;
        Ok(sh.rules.map.provinces[p].spaces.saturating_sub(st.provinces[p].building_count()))
    })?;
    fast(lua, &t, sh, "supply", |sh, s: i64| {
        let st = sh.lent()?;
        Ok(st.players[sh.seat(st, "supply", s)?].supply)
    })?;
    fast(lua, &t, sh, "chests", |sh, s: i64| {
        let st = sh.lent()?;
        Ok(st.players[sh.seat(st, "chests", s)?].chests)
    })?;
    fast(lua, &t, sh, "rice", |sh, s: i64| {
        let st = sh.lent()?;
        Ok(st.players[sh.seat(st, "rice", s)?].rice)
    })?;
    fast(lua, &t, sh, "points", |sh, s: i64| {
        let st = sh.lent()?;
        Ok(st.players[sh.seat(st, "points", s)?].points)
    })?;
    fast(lua, &t, sh, "provinces_of", |sh, s: i64| {
        let st = sh.lent()?;
        let s = sh.seat(st, "provinces_of", s)?;
        Ok(many(st.provinces_of(s).map(|p| p as i64 + 1)))
    })?;
    fast(lua, &t, sh, "province_count", |sh, s: i64| {
        let st = sh.lent()?;
        let s = sh.seat(st, "province_count", s)?;
        Ok(st.provinces_of(s).count())
    })?;
    fast(lua, &t, sh, "event", |sh, ()| Ok(sh.lent()?.event.map(|e| i64::from(e) + 1)))?;
    fast(lua, &t, sh, "year_events", |sh, ()| Ok(many(sh.lent()?.year_events.iter().map(|&e| i64::from(e) + 1))))?;
    fast(lua, &t, sh, "special", |sh, s: i64| {
        let st = sh.lent()?;
        let s = sh.seat(st, "special", s)?;
        Ok(st.special_of(s).map(|x| i64::from(x) + 1))
    })?;
    fast(lua, &t, sh, "turn_order", |sh, ()| Ok(many(sh.lent()?.turn_order.iter().map(|&s| s.number()))))?;
    fast(lua, &t, sh, "peasant_supply", |sh, ()| Ok(sh.lent()?.peasants))?;
    fast(lua, &t, sh, "unrest_supply", |sh, ()| Ok(sh.lent()?.unrest))?;
    fast(lua, &t, sh, "building_supply", |sh, k: LStr| {
        let st = sh.lent()?;
        Ok(st.buildings[sh.kind("building_supply", k.to_str()?)?])
    })?;
    // Neighbours of `p` that are in play (where an army may go).
    fast(lua, &t, sh, "targets", |sh, p: i64| {
        let st = sh.lent()?;
        let p = sh.prov(st, "targets", p)?;
        Ok(many(sh.rules.map.provinces[p].neighbours.iter().copied().filter(|&n| st.in_play[n]).map(|n| n as i64 + 1)))
    })?;
    // The same, only those held by `seat`, or only those not held by it.
    fast(lua, &t, sh, "own_targets", |sh, (p, seat): (i64, i64)| {
        let st = sh.lent()?;
        let p = sh.prov(st, "own_targets", p)?;
        let s = Some(Seat::new(sh.seat(st, "own_targets", seat)?));
        Ok(many(sh.rules.map.provinces[p].neighbours.iter().copied().filter(|&n| st.in_play[n] && st.provinces[n].owner == s).map(|n| n as i64 + 1)))
    })?;
    fast(lua, &t, sh, "other_targets", |sh, (p, seat): (i64, i64)| {
        let st = sh.lent()?;
        let p = sh.prov(st, "other_targets", p)?;
        let s = Some(Seat::new(sh.seat(st, "other_targets", seat)?));
        Ok(many(sh.rules.map.provinces[p].neighbours.iter().copied().filter(|&n| st.in_play[n] && st.provinces[n].owner != s).map(|n| n as i64 + 1)))
    })?;
    // Counts for scoring: provinces and buildings a seat holds.
    fast(lua, &t, sh, "holdings", |sh, seat: i64| {
        let st = sh.lent()?;
        let s = Some(Seat::new(sh.seat(st, "holdings", seat)?));
        let (mut provinces, mut buildings) = (0i64, 0i64);
        for p in st.provinces.iter().filter(|p| p.owner == s) {
            provinces += 1;
            buildings += i64::from(p.building_count());
        }
        Ok((provinces, buildings))
    })?;
    // Buildings of `kind` in `region`, one count per seat.
    fast(lua, &t, sh, "region_buildings", |sh, (region, kind): (i64, LStr)| {
        let st = sh.lent()?;
        let k = sh.kind("region_buildings", kind.to_str()?)?;
        if region < 1 || region as usize > sh.rules.map.regions.len() {
            return Err(rt(format!("game.region_buildings: region {region} does not exist")));
        }
        let r = region as usize - 1;
        let mut counts = vec![0i64; st.seats()];
        for (i, p) in st.provinces.iter().enumerate() {
            if let Some(o) = p.owner
                && p.has(k)
                && sh.rules.map.provinces[i].region == r
            {
                counts[o.index()] += 1;
            }
        }
        Ok(many(counts))
    })?;

    // ---- changing ------------------------------------------------------
    fast(lua, &t, sh, "pay", |sh, (s, n): (i64, i64)| {
        let st = sh.writable("pay")?;
        let s = sh.seat(st, "pay", s)?;
        if n < 0 || st.players[s].chests < n {
            return Err(rt(format!("game.pay: seat {} has {} war chests, cannot pay {n}", s + 1, st.players[s].chests)));
        }
        st.players[s].chests -= n;
        Ok(())
    })?;
    fast(lua, &t, sh, "gain", |sh, (s, n): (i64, i64)| {
        let st = sh.writable("gain")?;
        let s = sh.seat(st, "gain", s)?;
        if n < 0 {
            return Err(rt(format!("game.gain: cannot gain {n} war chests")));
        }
        st.players[s].chests =
            st.players[s].chests.checked_add(n).filter(|&c| c <= MAX_AMOUNT).ok_or_else(|| rt(format!("game.gain: {n} war chests is out of range")))?;
        Ok(())
    })?;
    fast(lua, &t, sh, "add_rice", |sh, (s, n): (i64, i64)| {
        let st = sh.writable("add_rice")?;
        let s = sh.seat(st, "add_rice", s)?;
        st.players[s].rice =
            st.players[s].rice.checked_add(n).filter(|&r| r <= MAX_AMOUNT).ok_or_else(|| rt(format!("game.add_rice: {n} rice is out of range")))?.max(0);
        Ok(st.players[s].rice)
    })?;
    fast(lua, &t, sh, "set_rice", |sh, (s, n): (i64, i64)| {
        let st = sh.writable("set_rice")?;
        let s = sh.seat(st, "set_rice", s)?;
        if n > MAX_AMOUNT {
            return Err(rt(format!("game.set_rice: {n} rice is out of range")));
        }
        st.players[s].rice = n.max(0);
        Ok(())
    })?;
    fast(lua, &t, sh, "add_points", |sh, (s, n): (i64, i64)| {
        let st = sh.writable("add_points")?;
        let s = sh.seat(st, "add_points", s)?;
        st.players[s].points =
            st.players[s].points.checked_add(n).filter(|p| p.abs() <= MAX_AMOUNT).ok_or_else(|| rt(format!("game.add_points: {n} points is out of range")))?;
        Ok(())
    })?;
    // Supply -> province (the seat's own).
    fast(lua, &t, sh, "deploy", |sh, (s, p, n): (i64, i64, i64)| {
        let st = sh.writable("deploy")?;
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
        Ok(())
    })?;
    // Province -> adjacent own province.
    fast(lua, &t, sh, "move", |sh, (s, from, to, n): (i64, i64, i64, i64)| {
        let st = sh.writable("move")?;
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
    })?;
    fast(lua, &t, sh, "build", |sh, (p, k): (i64, LStr)| {
        let st = sh.writable("build")?;
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
    })?;
    // Adds up to n unrest markers (as many as the supply has); returns how many.
    fast(lua, &t, sh, "add_unrest", |sh, (p, n): (i64, i64)| {
        let st = sh.writable("add_unrest")?;
        let p = sh.prov(st, "add_unrest", p)?;
        let n = sh.count("add_unrest", n)?.min(st.unrest);
        st.unrest -= n;
        st.provinces[p].unrest += n;
        Ok(n)
    })?;
    fast(lua, &t, sh, "remove_unrest", |sh, (p, n): (i64, Option<i64>)| {
        let st = sh.writable("remove_unrest")?;
        let p = sh.prov(st, "remove_unrest", p)?;
        let have = st.provinces[p].unrest;
        let n = match n {
            Some(n) => sh.count("remove_unrest", n)?.min(have),
            None => have,
        };
        st.provinces[p].unrest -= n;
        st.unrest += n;
        Ok(n)
    })?;
    // Throws cubes into the tower with everything in the tray. `spec` is a
    // list of {seat=, n=, from=province or nil for the supply} and an
    // optional `peasants` count. Returns the tray: [seat] = n, peasants = n.
    reg(lua, &t, sh, "throw", |lua, sh, spec: Table| {
        let st = sh.writable("throw")?;
        let keys = sh.keys.borrow();
        let keys = keys.as_ref().expect("keys are set at start-up");
        let mut input = Pile::default();
        for entry in spec.clone().sequence_values::<Table>() {
            let entry = entry?;
            take_group(sh, st, &mut input, entry.raw_get(&keys.seat)?, entry.raw_get(&keys.from)?, entry.raw_get(&keys.n)?)?;
        }
        let landed = throw_input(sh, st, input, spec.raw_get::<Option<i64>>(&keys.peasants)?.unwrap_or(0))?;
        let out = lua.create_table()?;
        for s in 0..st.seats() {
            out.raw_set(s + 1, landed.seats[s])?;
        }
        out.set("peasants", landed.peasants)?;
        Ok(out)
    })?;
    // The same throw, positional (no tables made): throw_cubes(peasants,
    // seat, from, n, seat, from, n, ...) with from = nil for the supply.
    // Returns the peasants that landed, then for each group the cubes of
    // its seat that landed.
    fast(lua, &t, sh, "throw_cubes", |sh, (peasants, RestInts(groups)): (i64, RestInts)| {
        let st = sh.writable("throw_cubes")?;
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
        let landed = throw_input(sh, st, input, peasants)?;
        let mut out = Vec::with_capacity(seats.len() + 1);
        out.push(i64::from(landed.peasants));
        out.extend(seats.into_iter().map(|s| i64::from(landed.seats[s])));
        Ok(Many(out))
    })?;
    fast(lua, &t, sh, "tray_to_supply", |sh, (s, n): (i64, i64)| {
        let st = sh.writable("tray_to_supply")?;
        let s = sh.seat(st, "tray_to_supply", s)?;
        let n = sh.count("tray_to_supply", n)?;
        if st.tray.seats[s] < n {
            return Err(rt(format!("game.tray_to_supply: the tray holds {} cubes of seat {}, not {n}", st.tray.seats[s], s + 1)));
        }
        st.tray.seats[s] -= n;
        st.players[s].supply += n;
        Ok(())
    })?;
    fast(lua, &t, sh, "tray_to_province", |sh, (s, p, n): (i64, i64, i64)| {
        let st = sh.writable("tray_to_province")?;
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
    })?;
    // Peasants in the tray back to the general supply (all, or n).
    fast(lua, &t, sh, "tray_peasants_to_supply", |sh, n: Option<i64>| {
        let st = sh.writable("tray_peasants_to_supply")?;
        let n = match n {
            Some(n) => sh.count("tray_peasants_to_supply", n)?.min(st.tray.peasants),
            None => st.tray.peasants,
        };
        st.tray.peasants -= n;
        st.peasants += n;
        Ok(n)
    })?;
    // The seat takes the province card (from the deck or another seat).
    // The province must be empty of armies.
    fast(lua, &t, sh, "conquer", |sh, (p, s): (i64, i64)| {
        let st = sh.writable("conquer")?;
        let p = sh.prov(st, "conquer", p)?;
        let s = sh.seat(st, "conquer", s)?;
        if !st.in_play[p] {
            return Err(rt(format!("game.conquer: {} is out of play", sh.name(p))));
        }
        if st.provinces[p].armies > 0 {
            return Err(rt(format!("game.conquer: {} still holds {} armies", sh.name(p), st.provinces[p].armies)));
        }
        change_owner(sh, st, p, Some(Seat::new(s)));
        Ok(())
    })?;
    // The province becomes neutral: armies to the owner's supply, buildings
    // and unrest to the supply, card to the deck.
    fast(lua, &t, sh, "neutralize", |sh, p: i64| {
        let st = sh.writable("neutralize")?;
        let p = sh.prov(st, "neutralize", p)?;
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
        change_owner(sh, st, p, None);
        Ok(())
    })?;
    // Turns up `seat`'s bid: ("chest", value), ("province", p) or nil.
    reg(lua, &t, sh, "reveal_bid", |lua, sh, s: i64| {
        let st = sh.writable("reveal_bid")?;
        let s = sh.seat(st, "reveal_bid", s)?;
        let bid = st.players[s].plan.as_ref().and_then(|p| p.bid);
        st.players[s].revealed_bid = bid;
        Ok(match bid {
            None => (Value::Nil, Value::Nil),
            Some(Card::Chest(v)) => (Value::String(lua.create_string("chest")?), Value::Integer(i64::from(v))),
            Some(Card::Province(p)) => (Value::String(lua.create_string("province")?), Value::Integer(p.number())),
        })
    })?;
    // The order in which the seats choose their turn-order spaces: every
    // seat once.
    reg(lua, &t, sh, "set_choosing_order", |_, sh, order: Vec<i64>| {
        let st = sh.writable("set_choosing_order")?;
        let n = st.seats();
        let mut seen = vec![false; n];
        let mut out = Vec::with_capacity(n);
        for s in order {
            let s = sh.seat(st, "set_choosing_order", s)?;
            if std::mem::replace(&mut seen[s], true) {
                return Err(rt(format!("game.set_choosing_order: seat {} is listed twice", s + 1)));
            }
            out.push(Seat::new(s));
        }
        if out.len() != n {
            return Err(rt(format!("game.set_choosing_order: every seat once ({n} seats, {} given)", out.len())));
        }
        st.choose_order = out;
        Ok(())
    })?;
    // A uniform integer 1..n from the game's generator.
    fast(lua, &t, sh, "random", |sh, n: i64| {
        let st = sh.writable("random")?;
        if !(1..=i64::from(u32::MAX)).contains(&n) {
            return Err(rt(format!("game.random: n must be >= 1, got {n}")));
        }
        Ok(i64::from(st.rng.below(n as u32)) + 1)
    })?;
    // The modifier pipeline: the effects acting on `hook` for `seat` doing
    // `action` now, in the rules' modifier_order (event, special, variant);
    // nil when none does.
    reg(lua, &t, sh, "effects", |lua, sh, (hook, seat, action): (mlua::LuaString, Option<i64>, Option<i64>)| {
        let st = sh.lent()?;
        let hook = hook.to_str()?;
        let Some(index) = sh.hooks.get(&*hook) else { return Ok(Value::Nil) };
        let seat = match seat {
            Some(s) => Some(sh.seat(st, "effects", s)?),
            None => None,
        };
        let action_id = match action {
            Some(a) if a >= 1 && (a as usize) <= sh.rules.cards.actions.len() => Some(sh.rules.cards.actions[a as usize - 1].id.as_str()),
            Some(a) => return Err(rt(format!("game.effects: action {a} does not exist"))),
            None => None,
        };
        let special = seat.and_then(|s| st.special_of(s));
        let key = (index as *const super::HookEffects as usize, st.event, special, action);
        if let Some(cached) = sh.effects_cache.borrow().get(&key) {
            return Ok(cached.clone().map(Value::Table).unwrap_or(Value::Nil));
        }
        let tables = sh.effect_tables.borrow();
        let cards = &sh.rules.cards;
        let wanted = |e: &crate::rules::pack::Effect| e.actions.is_empty() || action_id.is_some_and(|a| e.actions.iter().any(|x| x == a));
        let mut out: Option<Table> = None;
        let mut count = 0;
        let mut push = |t: &Table| -> mlua::Result<()> {
            if out.is_none() {
                out = Some(lua.create_table()?);
            }
            count += 1;
            out.as_ref().unwrap().raw_set(count, t)
        };
        for stage in &sh.rules.rules.modifier_order {
            match stage.as_str() {
                "event" => {
                    if let Some(e) = st.event {
                        let e = e as usize;
                        for &j in &index.events[e] {
                            if wanted(&cards.events[e].effects[j]) {
                                push(&tables.events[e][j])?;
                            }
                        }
                    }
                }
                "special" => {
                    if let Some(c) = special {
                        let c = c as usize;
                        for &j in &index.specials[c] {
                            if wanted(&cards.specials[c].effects[j]) {
                                push(&tables.specials[c][j])?;
                            }
                        }
                    }
                }
                _ => {
                    for &j in &index.always {
                        if wanted(&sh.rules.rules.effects[j]) {
                            push(&tables.always[j])?;
                        }
                    }
                }
            }
        }
        let list = match out {
            Some(t) => Some(sh.readonly_list.borrow().as_ref().expect("set at start-up").call::<Table>(t)?),
            None => None,
        };
        sh.effects_cache.borrow_mut().insert(key, list.clone());
        Ok(list.map(Value::Table).unwrap_or(Value::Nil))
    })?;
    fast(lua, &t, sh, "log", |sh, text: LStr| {
        let text = sh.text("log", text.as_bytes(), MAX_TEXT)?;
        sh.script_event("log", Event::Note(text))
    })?;
    // Records that a battle was fought (for statistics).
    fast(lua, &t, sh, "battle", |sh, (kind, p): (LStr, i64)| {
        let st = sh.lent()?;
        let p = sh.prov(st, "battle", p)?;
        let kind = sh.text("battle", kind.as_bytes(), 64)?;
        sh.script_event("battle", Event::Battle { kind, province: ProvinceId::new(p) })
    })?;
    // Adds `amount` (default 1) to the statistic `key` for `seat` (nil: the
    // whole game). What `shogun lab` reports beyond the final position comes
    // from these: points by source, battle outcomes, skipped actions.
    fast(lua, &t, sh, "tally", |sh, (key, seat, amount): (LStr, Option<i64>, Option<i64>)| {
        let st = sh.lent()?;
        let seat = match seat {
            Some(s) => Some(Seat::new(sh.seat(st, "tally", s)?)),
            None => None,
        };
        let key = key.to_str()?;
        if key.is_empty() || key.len() > 64 || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-') {
            return Err(rt(format!("game.tally: `{}` is not a metric name (1 to 64 of a-z, 0-9, `.`, `_`, `-`)", key)));
        }
        sh.script_event("tally", Event::Tally { key: key.to_string(), seat, amount: amount.unwrap_or(1) })
    })?;
    // Asks a seat to choose; the answer goes to continuation `cont`.
    // spec: seat, kind, prompt, cont, data, and options as any of
    // provinces = {...}, counts = {min, max}, pass = true.
    fast(lua, &t, sh, "ask", |sh, spec: Spec| {
        let st = sh.writable("ask")?;
        let seat = sh.seat(st, "ask", spec.int("seat")?.ok_or_else(|| rt("game.ask: `seat` is required".into()))?)?;
        let cont = spec.string("cont")?.ok_or_else(|| rt("game.ask: `cont` (continuation name) is required".into()))?;
        let cont = cont.to_str()?;
        if !sh.continuations.borrow().iter().any(|c| c == cont) {
            return Err(rt(format!("game.ask: no continuation `{cont}` is registered (shogun.continuation)")));
        }
        let mut options = Vec::new();
        if let Some(ps) = spec.ints("provinces")? {
            for p in ps {
                options.push(Choice::Province(ProvinceId::new(sh.prov(st, "ask", p)?)));
            }
        }
        if let Some(c) = spec.ints("counts")? {
            let [lo, hi] = c[..] else {
                return Err(rt(format!("game.ask: counts must be {{min, max}}, got {} numbers", c.len())));
            };
            if lo < 0 || hi < lo || hi > 10_000 {
                return Err(rt(format!("game.ask: counts {{{lo}, {hi}}} is not a range")));
            }
            options.extend((lo..=hi).map(|n| Choice::Count(n as u32)));
        }
        if spec.truthy("pass")? {
            options.push(Choice::Pass);
        }
        if options.is_empty() {
            return Err(rt("game.ask: no options to choose from".into()));
        }
        let data = spec.json("data")?;
        if json_values(&data) > MAX_DATA_VALUES {
            return Err(rt(format!("game.ask: `data` holds more than {MAX_DATA_VALUES} values")));
        }
        let mut scratch = sh.scratch.borrow_mut();
        if scratch.ask.is_some() {
            return Err(rt("game.ask: only one question per call".into()));
        }
        scratch.ask = Some(Ask {
            seat: Seat::new(seat),
            kind: match spec.string("kind")? {
                Some(s) => sh.text("ask", s.as_bytes(), 64)?,
                None => "choice".into(),
            },
            prompt: match spec.string("prompt")? {
                Some(s) => sh.text("ask", s.as_bytes(), MAX_TEXT)?,
                None => String::new(),
            },
            options,
            cont: cont.to_string(),
            data,
            asked_before: 0,
        });
        Ok(())
    })?;
    super::raw::cache_effects(lua, &t, sh)?;
    Ok(t)
}

/// How many values a JSON value holds (itself included).
fn json_values(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::Array(a) => 1 + a.iter().map(json_values).sum::<usize>(),
        serde_json::Value::Object(m) => 1 + m.values().map(json_values).sum::<usize>(),
        _ => 1,
    }
}
