//! What scripts record beside the state: narration, battles and statistics.

use std::ffi::{c_int, c_void};
use std::rc::Rc;

use mlua::{Function, Lua, Table, ffi};

use super::{MAX_TEXT, rt};
use crate::core::{Event, ProvinceId, Seat};
use crate::script::Shared;
use crate::script::lend::Call;
use crate::script::raw::{LStr, fast, message, outcome, raise};

/// Logs the text on top of the stack as a line of narration (`game.note`,
/// once its formatter has run), as `game.log` does.
fn log_top(sh: &Shared, l: *mut ffi::lua_State) -> Result<(), String> {
    let _call = Call::enter(sh, "note")?;
    let mut len = 0usize;
    // SAFETY: the formatter returned one value, on top; lua_tolstring on a
    // string neither converts nor allocates (anything else is refused
    // before it is read).
    let bytes = unsafe {
        if ffi::lua_type(l, -1) != ffi::LUA_TSTRING {
            return Err("game.note: the formatter did not return a text".into());
        }
        let p = ffi::lua_tolstring(l, -1, &mut len);
        std::slice::from_raw_parts(p.cast::<u8>(), len)
    };
    let text = sh.text("note", bytes, MAX_TEXT).map_err(message)?;
    sh.script_event("note", Event::Note(text)).map_err(message)
}

/// `game.note(fmt, ...)`: nothing at all when nobody reads the narration
/// (a bulk run), else the prelude's formatter (upvalue 2: `%S`, `%P`,
/// `%n` and string.format's conversions) in a protected call, and its
/// text logged. Its errors (the formatter's, re-raised as they came, or
/// the log's) leave last, with no Rust value alive.
unsafe extern "C-unwind" fn note_entry(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: upvalue 1 is the `Shared` (see `register`), which outlives
    // the VM; lua_touserdata only reads.
    let sh = unsafe { &*(ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)) as *const Shared) };
    if !sh.narrate.get() {
        return 0;
    }
    // SAFETY: the running C function's own stack: the formatter goes below
    // its arguments and is called with all of them; an error it raises is
    // caught (lua_pcall) and raised again from here, where no Rust value
    // with a destructor is alive.
    unsafe {
        let n = ffi::lua_gettop(l);
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(2));
        ffi::lua_insert(l, 1);
        if ffi::lua_pcall(l, n, 1, 0) != ffi::LUA_OK {
            ffi::lua_error(l);
        }
    }
    let logged = outcome(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| log_top(sh, l))));
    match logged {
        Ok(()) => 0,
        // SAFETY: the boundary: `log_top`'s frame is gone.
        Err(e) => unsafe { raise(l, e) },
    }
}

/// Registers the records part of `game`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>, formatter: &Function) -> mlua::Result<()> {
    let sh_ptr = Rc::as_ptr(sh) as *mut c_void;
    // SAFETY: pushes a light userdata, the formatter and a C closure over
    // them (within the stack `exec_raw` checked); only allocation may
    // raise, which `exec_raw` catches.
    let note: Function = unsafe {
        lua.exec_raw(formatter, |l| {
            ffi::lua_pushlightuserdata(l, sh_ptr);
            ffi::lua_rotate(l, -2, 1);
            ffi::lua_pushcclosure(l, note_entry, 2);
        })?
    };
    t.set("note", note)?;
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
            let key = metric_key(sh, "tally", "", &key)?;
            sh.script_event("tally", Event::Tally { key, seat, amount: amount.unwrap_or(1) })
        })
    })?;
    Ok(())
}

/// `prefix` and a script's metric name (`game.tally`'s key, `game.award`'s
/// source) as the key of a tally: 1 to 64 of a-z, 0-9, `.`, `_`, `-` in
/// all.
pub(super) fn metric_key(sh: &Shared, what: &str, prefix: &str, name: &LStr) -> mlua::Result<String> {
    // Checked byte by byte (a fold, no early exit: it runs on whole
    // words); a scoring tallies a dozen times, for every look-ahead of
    // the planner.
    let bytes = name.as_bytes();
    let metric = |b: u8| matches!(b, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'_' | b'-');
    if bytes.is_empty() || bytes.len() + prefix.len() > 64 || !bytes.iter().fold(true, |ok, &b| ok & metric(b)) {
        let name = name.to_str()?;
        return Err(rt(format!("game.{what}: `{prefix}{name}` is not a metric name (1 to 64 of a-z, 0-9, `.`, `_`, `-`)")));
    }
    // ASCII, so `text` takes it as it is.
    if prefix.is_empty() {
        return sh.text(what, bytes, 64);
    }
    Ok(format!("{prefix}{}", sh.text(what, bytes, 64)?))
}
