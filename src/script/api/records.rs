//! What scripts record beside the state: narration, battles and statistics.

use std::rc::Rc;

use mlua::{Lua, Table};

use super::{MAX_TEXT, rt};
use crate::core::{Event, ProvinceId, Seat};
use crate::script::Shared;
use crate::script::raw::{LStr, fast};

/// Registers the records part of `game`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    fast(lua, t, sh, "log", |sh, text: LStr| {
        let text = sh.text("log", text.as_bytes(), MAX_TEXT)?;
        sh.script_event("log", Event::Note(text))
    })?;
    // Records that a battle was fought (for statistics).
    fast(lua, t, sh, "battle", |host, (kind, p): (LStr, i64)| {
        host.with_state(|sh, st| {
            let p = sh.prov(st, "battle", p)?;
            let kind = sh.text("battle", kind.as_bytes(), 64)?;
            sh.script_event("battle", Event::Battle { kind, province: ProvinceId::new(p) })
        })
    })?;
    // Adds `amount` (default 1) to the statistic `key` for `seat` (nil: the
    // whole game). What `shogun lab` reports beyond the final position comes
    // from these: points by source, battle outcomes, skipped actions.
    fast(lua, t, sh, "tally", |host, (key, seat, amount): (LStr, Option<i64>, Option<i64>)| {
        host.with_state(|sh, st| {
            let seat = match seat {
                Some(s) => Some(Seat::new(sh.seat(st, "tally", s)?)),
                None => None,
            };
            // Checked byte by byte (a fold, no early exit: it runs on whole
            // words); a scoring tallies a dozen times, for every look-ahead
            // of the planner.
            let bytes = key.as_bytes();
            let metric = |b: u8| matches!(b, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'_' | b'-');
            if bytes.is_empty() || bytes.len() > 64 || !bytes.iter().fold(true, |ok, &b| ok & metric(b)) {
                let key = key.to_str()?;
                return Err(rt(format!("game.tally: `{}` is not a metric name (1 to 64 of a-z, 0-9, `.`, `_`, `-`)", key)));
            }
            // ASCII, so `text` takes it as it is.
            let key = sh.text("tally", bytes, 64)?;
            sh.script_event("tally", Event::Tally { key, seat, amount: amount.unwrap_or(1) })
        })
    })?;
    Ok(())
}
