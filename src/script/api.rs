//! The host API scripts call as `game.*`. Calls are coarse where it
//! matters (throws, tallies, target lists are computed here) and every
//! change moves pieces between places, so nothing is created or lost.
//!
//! Seats, provinces, actions, events, specials and spaces are 1-based in Lua.
//!
//! Each area's host functions live in a submodule that registers its part
//! of the `game` table (`host_table`). A host function body gets a `Host`
//! and reaches the state through `with_state`/`with_state_mut` (lend.rs).

use std::rc::Rc;

use mlua::{FromLuaMulti, IntoLuaMulti, Lua, Table};

use super::raw::Many;

use super::Shared;
use super::lend::{Call, Host, Reads};
use crate::core::{Event, GameState, Name, ProvinceId, Seat};
use crate::rules::Rules;

mod board;
mod effects;
mod pieces;
mod questions;
mod reads;
mod records;
mod tower;

pub(super) use board::{BoardScratch, make_view as make_board_view};
pub use board::{board_view, region_view};

/// The longest narration line (`game.log`) and question text (`game.ask`).
pub const MAX_TEXT: usize = 1024;
/// The most events (notes, tallies, battles) a script records in one call.
pub const MAX_SCRIPT_EVENTS: usize = 10_000;

/// The most events (battles, changes of hands, notes, tallies, ...) one
/// decision and the play it sets going may make, counted as they are
/// made: in one call (`Shared::event`, `Shared::script_event`) and over
/// the calls of a decision (`Runtime::invoke_with`, with the events the
/// engine passes in). A game that makes more fails with a clear message,
/// so every count of events in a game is at most its decisions times
/// this (the lab's `merge` relies on it), and the events a decision holds
/// (outside the VM's memory limit) stay near 2^20 of them.
pub const MAX_EVENTS_PER_DECISION: usize = 1 << 20;
/// The largest number of points, war chests or rice a seat may hold (far
/// beyond any game; it keeps every sum of them exact).
pub const MAX_AMOUNT: i64 = 1 << 40;
/// The most values in a continuation's `data`.
pub const MAX_DATA_VALUES: usize = 10_000;
/// The most bytes of text (strings and keys, a string named twice counted
/// twice) in a continuation's `data`.
pub const MAX_DATA_TEXT: usize = 4 << 20;

fn rt(msg: String) -> mlua::Error {
    mlua::Error::RuntimeError(msg)
}

impl Shared {
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
        // A handful of kinds: a scan costs less than hashing the name.
        self.rules.rules.components.buildings.iter().position(|b| b.id == k).ok_or_else(|| rt(format!("game.{what}: unknown building kind `{k}`")))
    }

    fn count(&self, what: &str, n: i64) -> mlua::Result<u16> {
        if !(0..=i64::from(u16::MAX)).contains(&n) {
            return Err(rt(format!("game.{what}: count {n} out of range")));
        }
        Ok(n as u16)
    }

    /// Records an event the host makes for a script (a change of hands, a
    /// throw). Bounded when it is pushed: a call makes at most
    /// `MAX_EVENTS_PER_DECISION`, so a rule repeating without end fails
    /// before its events (kept outside the VM's memory limit) could fill
    /// the machine; `Runtime::invoke_with` bounds a decision's calls together.
    fn event(&self, what: &str, e: Event) -> mlua::Result<()> {
        let mut scratch = self.scratch.borrow_mut();
        if scratch.events.len() >= MAX_EVENTS_PER_DECISION {
            return Err(rt(format!("game.{what}: more than {MAX_EVENTS_PER_DECISION} events in one call: a rule that repeats without end?")));
        }
        scratch.events.push(e);
        Ok(())
    }

    /// A string a script hands to the host, bounded (the host keeps it
    /// outside the VM's memory limit) and safe to print.
    fn text(&self, what: &str, bytes: &[u8], max: usize) -> mlua::Result<String> {
        if bytes.len() > max {
            return Err(rt(format!("game.{what}: a text of {} bytes is longer than the limit of {max}", bytes.len())));
        }
        // Plain ASCII text (every prompt and kind the packs write) is
        // already what `sanitize` would make of it.
        // (A fold, not `all`: no early exit, so it runs on whole words.)
        if bytes.iter().fold(true, |plain, &b| plain & matches!(b, b' '..=b'~' | b'\n' | b'\t')) {
            // SAFETY: every byte is ASCII (checked just above), and ASCII
            // is valid UTF-8; no second walk over the text to learn it.
            return Ok(unsafe { String::from_utf8_unchecked(bytes.to_vec()) });
        }
        Ok(crate::files::sanitize(&String::from_utf8_lossy(bytes)))
    }

    /// A question's kind (at most 64 bytes, as `text` makes it): the
    /// `Name` kept for the same bytes, else a new one, kept when `text`
    /// left the bytes as they were (so that bytes found again make the
    /// same text) and fewer than `MAX_KINDS` are kept.
    fn ask_kind(&self, what: &str, bytes: &[u8]) -> mlua::Result<Name> {
        if let Some(k) = self.kinds.borrow().iter().find(|k| k.as_bytes() == bytes) {
            return Ok(k.clone());
        }
        let kind = Name::from(self.text(what, bytes, 64)?);
        let mut kinds = self.kinds.borrow_mut();
        if kind.as_bytes() == bytes && kinds.len() < MAX_KINDS {
            kinds.push(kind.clone());
        }
        Ok(kind)
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
/// Question kinds a runtime keeps (`Shared::ask_kind`); a pack names a
/// handful.
const MAX_KINDS: usize = 32;

fn reg<A, R, F>(lua: &Lua, t: &Table, sh: &Rc<Shared>, name: &'static str, f: F) -> mlua::Result<()>
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
    F: Fn(&Lua, Host<'_>, A) -> mlua::Result<R> + 'static,
{
    let sh = sh.clone();
    let reads = Reads::of(name);
    t.set(
        name,
        lua.create_function(move |lua, a: A| {
            let mut call = Call::enter_reading(&sh, name, reads).map_err(rt)?;
            f(lua, call.host(), a)
        })?,
    )
}

fn list<I: IntoIterator<Item = i64>>(lua: &Lua, items: I) -> mlua::Result<Table> {
    lua.create_sequence_from(items)
}

/// Several integers as multiple return values (cheaper than a table;
/// scripts write `{game.f(...)}` when they want one).
fn many<I: IntoIterator<Item = i64>>(items: I) -> Many {
    items.into_iter().collect()
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

/// The `game` table of host functions, one module per area (each registers
/// its part).
pub(super) fn host_table(lua: &Lua, sh: &Rc<Shared>, note_format: &mlua::Function) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    reads::register(lua, &t, sh)?;
    board::register(lua, &t, sh)?;
    pieces::register(lua, &t, sh)?;
    tower::register(lua, &t, sh)?;
    questions::register(lua, &t, sh)?;
    effects::register(lua, &t, sh)?;
    records::register(lua, &t, sh, note_format)?;
    super::raw::cache_effects(lua, &t, sh)?;
    Ok(t)
}
