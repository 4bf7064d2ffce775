//! `game.board()`: who holds what, for scoring rules, in one call.
//!
//! A scoring rule reads the whole board: each seat's provinces and
//! buildings, and who has the most of each building kind in each region.
//! Read one crossing at a time (`holdings` per seat, `region_leaders` per
//! region and kind) that was about 20 host calls a scoring, each scanning
//! the provinces; here one pass over the provinces refreshes a read-only
//! view.
//!
//! The view is made once per VM (`make_view`): read-only tables (the
//! prelude's `host_view`) over tables only the host writes, kept in the
//! registry. A call reads the counts under the lent state into plain
//! values (`Holdings`, and the leaders in `Shared::board`), ends its
//! `Call`, then writes them into those tables with raw sets into array
//! slots made at start-up: nothing allocates, so nothing raises (and no
//! Rust value with a destructor is alive then, as in `raw::trampoline`).
//! New tables each call cost more than the host calls they replace
//! (about 500 machine instructions each, allocation and collection).

use std::cell::RefCell;
use std::ffi::c_int;
use std::rc::Rc;

use mlua::{Function, Lua, Table, ffi};

use crate::core::{GameState, MAX_SEATS};
use crate::rules::Rules;
use crate::script::Shared;
use crate::script::lend::Call;
use crate::script::raw::{message, outcome, over_shared, raise};

/// What `game.board()` works with between its calls (host memory only).
#[derive(Default)]
pub(in crate::script) struct BoardScratch {
    /// Buildings of each kind in each region by seat, `[region * kinds + kind][seat]`.
    counts: Vec<[u16; MAX_SEATS]>,
    /// The seats with the most (bit `s` for seat `s`, 0-based), same index.
    leaders: Vec<u8>,
    /// The leaders each list of the view holds now (same index).
    shown: Vec<u8>,
    /// Registry references: the view itself, the tables under
    /// `provinces` and `buildings`, and each leaders list (same index).
    view: c_int,
    provinces: c_int,
    buildings: c_int,
    lists: Vec<c_int>,
}

/// What `game.board()` reads of each seat: plain values only (`Copy`, so
/// nothing here has a destructor a raised error could skip).
#[derive(Clone, Copy)]
struct Holdings {
    seats: usize,
    provinces: [i64; MAX_SEATS],
    buildings: [i64; MAX_SEATS],
}

/// Registers `game.board`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    t.set("board", over_shared(lua, sh, board_entry)?)
}

/// Reads the holdings and the leaders from the lent state (refusing as
/// every host function does: inside a tower model, on re-entry, outside a
/// call). It takes no arguments: one given is a mistake (`game.board(s)`
/// for one seat's holdings), refused rather than ignored.
fn read(sh: &Shared, args: c_int) -> Result<Holdings, String> {
    if args != 0 {
        return Err(format!("game.board takes no arguments, got {args}"));
    }
    if sh.board.try_borrow().map_or(true, |b| b.view == 0) {
        return Err("game.board: the view is not made yet".into());
    }
    let mut call = Call::enter(sh, "board")?;
    call.host().with_state(|sh, st| Ok(count(sh, st))).map_err(message)
}

/// One pass over the provinces: each seat's provinces and buildings, the
/// buildings of each kind in each region by seat, then their leaders.
fn count(sh: &Shared, st: &GameState) -> Holdings {
    let mut scratch = sh.board.borrow_mut();
    let BoardScratch { counts, leaders, .. } = &mut *scratch;
    let out = tally(&sh.rules, st, counts);
    leaders.clear();
    leaders.extend(counts.iter().map(leaders_of));
    out
}

/// Each seat's provinces and buildings, and into `counts` the buildings
/// of each kind in each region by seat (`[region * kinds + kind][seat]`).
fn tally(rules: &Rules, st: &GameState, counts: &mut Vec<[u16; MAX_SEATS]>) -> Holdings {
    let map = &rules.map;
    let kinds = rules.rules.components.buildings.len();
    let mut out = Holdings { seats: st.seats(), provinces: [0; MAX_SEATS], buildings: [0; MAX_SEATS] };
    counts.clear();
    counts.resize(map.regions.len() * kinds, [0; MAX_SEATS]);
    for (p, prov) in st.provinces.iter().enumerate() {
        let Some(o) = prov.owner else { continue };
        let o = o.index();
        out.provinces[o] += 1;
        out.buildings[o] += i64::from(prov.building_count());
        let row = map.provinces[p].region * kinds;
        for (k, c) in counts[row..row + kinds].iter_mut().enumerate() {
            c[o] += u16::from(prov.has(k));
        }
    }
    out
}

/// The seats with the most of a count by seat (bit `s` for seat `s`,
/// 0-based; none when nobody has any).
fn leaders_of(c: &[u16; MAX_SEATS]) -> u8 {
    let most = c.iter().copied().max().unwrap_or(0);
    if most == 0 { 0 } else { c.iter().enumerate().filter(|&(_, &n)| n == most).fold(0u8, |m, (s, _)| m | 1 << s) }
}

/// What `game.board()` shows of `st`, as bytes appended to `out`: the
/// seats, each seat's provinces and buildings, and the leaders of each
/// building kind in each region. A script that reads the state only
/// through `game.board()` (and the seats: `Reads`) sees the same in two
/// positions with the same bytes.
pub fn board_view(rules: &Rules, st: &GameState, out: &mut Vec<u8>) {
    thread_local! {
        /// `tally`'s counts, kept between calls (bots key every position
        /// they score by its view).
        static COUNTS: RefCell<Vec<[u16; MAX_SEATS]>> = const { RefCell::new(Vec::new()) };
    }
    COUNTS.with_borrow_mut(|counts| {
        let held = tally(rules, st, counts);
        out.push(held.seats as u8);
        for s in 0..held.seats {
            out.extend((held.provinces[s] as u16).to_le_bytes());
            out.extend((held.buildings[s] as u16).to_le_bytes());
        }
        out.extend(counts.iter().map(leaders_of));
    });
}

/// The part of `board_view` that region `r` makes: each seat's provinces
/// and buildings there, and the leaders of each building kind there.
/// Positions that differ only in region `r`, with the same bytes for it,
/// show the same board view.
pub fn region_view(rules: &Rules, st: &GameState, r: usize, out: &mut Vec<u8>) {
    // A province's buildings are bits of a byte: 8 kinds at most.
    let kinds = rules.rules.components.buildings.len().min(8);
    let (mut provinces, mut buildings) = ([0u16; MAX_SEATS], [0u16; MAX_SEATS]);
    let mut counts = [[0u16; MAX_SEATS]; 8];
    for &p in &rules.map.in_region[r] {
        let Some(o) = st.provinces[p].owner else { continue };
        let prov = &st.provinces[p];
        let o = o.index();
        provinces[o] += 1;
        buildings[o] += prov.building_count() as u16;
        for (k, c) in counts[..kinds].iter_mut().enumerate() {
            c[o] += u16::from(prov.has(k));
        }
    }
    out.push(st.seats() as u8);
    for s in 0..st.seats() {
        out.extend(provinces[s].to_le_bytes());
        out.extend(buildings[s].to_le_bytes());
    }
    out.extend(counts[..kinds].iter().map(leaders_of));
}

/// `game.board()`: reads (see `read`), then refreshes the view.
unsafe extern "C-unwind" fn board_entry(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: upvalue 1 is the `Shared` (see `register`), which outlives
    // the VM; lua_touserdata only reads.
    let sh = unsafe { &*(ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)) as *const Shared) };
    // SAFETY: reads the size of this C function's own stack.
    let args = unsafe { ffi::lua_gettop(l) };
    match outcome(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(sh, args)))) {
        // SAFETY: this C function's own stack; every Rust value of the read
        // is gone, `held` is plain data.
        Ok(held) => unsafe { refresh(sh, l, held) },
        // SAFETY: as above: the boundary, with only the plain error alive.
        Err(e) => unsafe { raise(l, e) },
    }
}

/// Writes `n` integers `f(0)..f(n-1)` into the list at registry
/// reference `list`, and nil into its slots `n+1..=upto`.
///
/// # Safety
/// `l` is a running C function's state with a free stack slot beyond the
/// one this pushes; `list` refers to a table whose array part has at least
/// `upto.max(n)` slots (made by `make_view`), so no set allocates.
unsafe fn write_list(l: *mut ffi::lua_State, list: c_int, n: usize, upto: usize, f: impl Fn(usize) -> i64) {
    // SAFETY: the caller's contract: raw reads and raw sets into existing
    // array slots, which neither allocate nor run Lua, so none raises.
    unsafe {
        ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, ffi::lua_Integer::from(list));
        for i in 0..upto.max(n) {
            if i < n {
                ffi::lua_pushinteger(l, f(i));
            } else {
                ffi::lua_pushnil(l);
            }
            ffi::lua_rawseti(l, -2, i as ffi::lua_Integer + 1);
        }
        ffi::lua_settop(l, -2);
    }
}

/// Writes the holdings and the leaders that changed into the view, and
/// returns the view.
///
/// # Safety
/// `l` is `board_entry`'s state (at least LUA_MINSTACK free slots; this
/// uses two). The view was made by `make_view` for these rules.
unsafe fn refresh(sh: &Shared, l: *mut ffi::lua_State, held: Holdings) -> c_int {
    // Copies out of the scratch: no borrow is held across the writes.
    let (provinces, buildings, view, lists) = sh.board.try_borrow().map_or((0, 0, 0, 0), |b| (b.provinces, b.buildings, b.view, b.lists.len()));
    // SAFETY: the function's contract, passed on (lists of MAX_SEATS
    // slots); pushing the view from the registry allocates nothing.
    unsafe {
        write_list(l, provinces, held.seats, MAX_SEATS, |s| held.provinces[s]);
        write_list(l, buildings, held.seats, MAX_SEATS, |s| held.buildings[s]);
        for i in 0..lists {
            let (list, now, shown) = sh.board.try_borrow().map_or((0, 0, 0), |b| (b.lists[i], b.leaders[i], b.shown[i]));
            if now != shown {
                write_list(l, list, now.count_ones() as usize, shown.count_ones() as usize, |k| nth_seat(now, k));
                if let Ok(mut b) = sh.board.try_borrow_mut() {
                    b.shown[i] = now;
                }
            }
        }
        ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, ffi::lua_Integer::from(view));
    }
    1
}

/// The `k`-th seat (1-based number) of a leaders mask, lowest first.
fn nth_seat(mask: u8, k: usize) -> i64 {
    (0..MAX_SEATS).filter(|&s| mask & (1 << s) != 0).nth(k).map_or(0, |s| s as i64 + 1)
}

/// A view's `__len`: the length of the table it shows (upvalue 1).
unsafe extern "C-unwind" fn length_of_upvalue(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: upvalue 1 is a table (see `make_view`); lua_rawlen only
    // reads, and a C function starts with room for its one result.
    unsafe {
        let n = ffi::lua_rawlen(l, ffi::lua_upvalueindex(1));
        ffi::lua_pushinteger(l, n as ffi::lua_Integer);
    }
    1
}

/// Makes the view `game.board()` returns, once per VM, with `host_view`
/// (the prelude's read-only view of a table only the host writes):
/// `{ provinces = {..}, buildings = {..}, leaders = { [r] = { [kind] = {..} } } }`,
/// every list with MAX_SEATS array slots, every region with every
/// building kind.
pub(in crate::script) fn make_view(lua: &Lua, sh: &Shared, host_view: &Function) -> mlua::Result<()> {
    let kinds = &sh.rules.rules.components.buildings;
    let regions = sh.rules.map.regions.len();
    let mut refs = BoardScratch::default();
    // SAFETY: runs in `exec_raw`'s protected call with host_view at index
    // 1; each step pushes at most four values and leaves one (a view) or
    // none; an allocation error is caught there (only `refs`, borrowed
    // from outside, is alive across a raise, and it stays consistent).
    unsafe {
        lua.exec_raw::<()>(host_view, |l| {
            // The table on top, replaced by a read-only view of it, whose
            // length is the table's, read by a C function (`#` on a view
            // is a metamethod call: a C call costs half a Lua one).
            let wrap = |l: *mut ffi::lua_State| {
                ffi::lua_pushvalue(l, 1);
                ffi::lua_pushvalue(l, -2);
                let what = "game.board() is read-only";
                ffi::lua_pushlstring(l, what.as_ptr().cast(), what.len());
                ffi::lua_call(l, 2, 1);
                ffi::lua_getmetatable(l, -1);
                ffi::lua_pushlstring(l, c"__len".as_ptr(), 5);
                ffi::lua_pushvalue(l, -4);
                ffi::lua_pushcclosure(l, length_of_upvalue, 1);
                ffi::lua_rawset(l, -3);
                ffi::lua_settop(l, -2);
                ffi::lua_rotate(l, -2, 1);
                ffi::lua_settop(l, -2);
            };
            // A new list of MAX_SEATS slots, kept in the registry; its view on top.
            let list = |l: *mut ffi::lua_State| -> c_int {
                ffi::lua_createtable(l, MAX_SEATS as c_int, 0);
                ffi::lua_pushvalue(l, -1);
                let r = ffi::luaL_ref(l, ffi::LUA_REGISTRYINDEX);
                wrap(l);
                r
            };
            let key = |l: *mut ffi::lua_State, k: &str| ffi::lua_pushlstring(l, k.as_ptr().cast(), k.len());
            ffi::lua_createtable(l, 0, 3);
            key(l, "provinces");
            refs.provinces = list(l);
            ffi::lua_rawset(l, -3);
            key(l, "buildings");
            refs.buildings = list(l);
            ffi::lua_rawset(l, -3);
            key(l, "leaders");
            ffi::lua_createtable(l, regions as c_int, 0);
            for r in 0..regions {
                ffi::lua_createtable(l, 0, kinds.len() as c_int);
                for kind in kinds {
                    key(l, &kind.id);
                    refs.lists.push(list(l));
                    ffi::lua_rawset(l, -3);
                }
                wrap(l);
                ffi::lua_rawseti(l, -2, r as ffi::lua_Integer + 1);
            }
            wrap(l);
            ffi::lua_rawset(l, -3);
            wrap(l);
            refs.view = ffi::luaL_ref(l, ffi::LUA_REGISTRYINDEX);
        })?;
    }
    refs.shown = vec![0; refs.lists.len()];
    *sh.board.borrow_mut() = refs;
    Ok(())
}
