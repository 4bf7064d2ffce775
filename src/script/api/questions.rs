//! What a seat is asked and what the order of play depends on: questions
//! (`ask`), revealed bids, the choosing order and `game.random` (the scripts' random stream).

use std::ffi::c_int;
use std::rc::Rc;

use mlua::{Lua, Table, ffi};

use super::{MAX_TEXT, reg, rt};
use crate::core::{Ask, AskData, Card, Choice, Name, ProvinceId, Purpose, Seat};
use crate::script::Shared;
use crate::script::raw::{Flag, Key, LStr, RawArgs, RestInts, SPEC_KEYS, Spec, fast, fast_with_keys, message};

/// A question's `data` argument, read as plain data when the script asks
/// (see `value.rs`): the question holds a copy of the table as it is at the
/// ask, and later changes to the table are not part of it.
struct Data(AskData);

impl Data {
    /// Reads the value at `at` of the running function's stack.
    ///
    /// # Safety
    /// `l` is the running C function's state and `at` a valid index.
    unsafe fn at(l: *mut ffi::lua_State, at: c_int, name: &str) -> Result<Data, String> {
        // SAFETY: `read` raises nothing and leaves the stack as it found
        // it; it refuses what is not plain data, more than MAX_DATA_VALUES
        // values included.
        unsafe { crate::script::value::read(l, at, 0) }.map(Data).map_err(|e| format!("game.{name}: {}", message(e)))
    }
}

impl RawArgs for Data {
    const N: c_int = 1;
    unsafe fn read(l: *mut ffi::lua_State, at: c_int, name: &'static str) -> Result<Self, String> {
        // SAFETY: as `Data::at` asks (an argument stays for the call).
        unsafe { Data::at(l, at, name) }
    }
}

/// The name of a registered continuation (the runtime's own copy).
fn continuation(sh: &Shared, what: &str, cont: &LStr) -> mlua::Result<Name> {
    if let Some(c) = sh.continuations.borrow().iter().find(|c| c.as_bytes() == cont.as_bytes()) {
        return Ok(c.clone());
    }
    let cont = cont.to_str()?;
    Err(rt(format!("game.{what}: no continuation `{cont}` is registered (shogun.continuation)")))
}

/// A question's kind and prompt, read only once the rest is checked.
type Texts<'a> = &'a dyn Fn() -> mlua::Result<(Name, String)>;

/// The kind and prompt a script gave, bounded and safe to print (a
/// missing kind is "choice", a missing prompt empty).
fn texts(sh: &Shared, what: &str, kind: Option<&LStr>, prompt: Option<&LStr>) -> mlua::Result<(Name, String)> {
    let kind = sh.ask_kind(what, kind.map_or(b"choice".as_slice(), LStr::as_bytes))?;
    let prompt = match prompt {
        Some(s) => sh.text(what, s.as_bytes(), MAX_TEXT)?,
        None => String::new(),
    };
    Ok((kind, prompt))
}

/// Sets the call's question, once its options and data are checked.
fn pose(sh: &Shared, what: &str, seat: usize, cont: Name, options: Vec<Choice>, data: Data, texts: Texts<'_>) -> mlua::Result<()> {
    let mut scratch = sh.scratch.borrow_mut();
    if scratch.ask.is_some() {
        return Err(rt(format!("game.{what}: only one question per call")));
    }
    let (kind, prompt) = texts()?;
    let data = data.0;
    let context = sh.context.get();
    scratch.ask = Some(Ask { seat: Seat::new(seat), kind, prompt, options, cont, data, asked_before: 0, context });
    Ok(())
}

/// A count range `{lo, hi}` as options.
fn count_range(what: &str, lo: i64, hi: i64) -> mlua::Result<impl Iterator<Item = Choice>> {
    if lo < 0 || hi < lo || hi > 10_000 {
        return Err(rt(format!("game.{what}: counts {{{lo}, {hi}}} is not a range")));
    }
    Ok((lo..=hi).map(|n| Choice::Count(n as u32)))
}

/// The positional questions: `ask_province` and `ask_count` ask what
/// `game.ask` asks, without a table for the question.
fn positional(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // game.ask_province(seat, kind, prompt, cont, data, pass, p1, p2, ...):
    // one of the provinces, or pass when `pass` is true.
    type ProvinceArgs = ((i64, LStr, LStr, LStr), (Data, Flag, RestInts));
    fast(lua, t, sh, "ask_province", |host, ((seat, kind, prompt, cont), (data, Flag(pass), RestInts(ps))): ProvinceArgs| {
        host.with_state_mut("ask_province", |sh, st| {
            let seat = sh.seat(st, "ask_province", seat)?;
            let cont = continuation(sh, "ask_province", &cont)?;
            let mut options = Vec::with_capacity(ps.len() + 1);
            for (i, p) in ps.into_iter().enumerate() {
                let p = p.ok_or_else(|| rt(format!("game.ask_province: argument {} must be a province, got nil", i + 7)))?;
                options.push(Choice::Province(ProvinceId::new(sh.prov(st, "ask_province", p)?)));
            }
            if pass {
                options.push(Choice::Pass);
            }
            if options.is_empty() {
                return Err(rt("game.ask_province: no options to choose from (no province and no pass)".into()));
            }
            pose(sh, "ask_province", seat, cont, options, data, &|| texts(sh, "ask_province", Some(&kind), Some(&prompt)))
        })
    })?;
    // game.ask_count(seat, kind, prompt, cont, data, min, max): a number
    // from min to max.
    type CountArgs = ((i64, LStr, LStr, LStr), (Data, i64, i64));
    fast(lua, t, sh, "ask_count", |host, ((seat, kind, prompt, cont), (data, lo, hi)): CountArgs| {
        host.with_state_mut("ask_count", |sh, st| {
            let seat = sh.seat(st, "ask_count", seat)?;
            let cont = continuation(sh, "ask_count", &cont)?;
            let options = count_range("ask_count", lo, hi)?.collect();
            pose(sh, "ask_count", seat, cont, options, data, &|| texts(sh, "ask_count", Some(&kind), Some(&prompt)))
        })
    })?;
    Ok(())
}

/// Registers the questions part of `game`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // Turns up `seat`'s bid: ("chest", value), ("province", p) or nil.
    // (A raw function: the two words are its keys, pushed without
    // allocating.)
    fast_with_keys(lua, t, sh, "reveal_bid", &["chest", "province"], |host, s: i64| {
        host.with_state_mut("reveal_bid", |sh, st| {
            let s = sh.seat(st, "reveal_bid", s)?;
            let bid = st.players[s].plan.as_ref().and_then(|p| p.bid);
            st.players[s].revealed_bid = bid;
            Ok(match bid {
                None => (None, None),
                Some(Card::Chest(v)) => (Some(Key(0)), Some(i64::from(v))),
                Some(Card::Province(p)) => (Some(Key(1)), Some(p.number())),
            })
        })
    })?;
    // The order in which the seats choose their turn-order spaces: every
    // seat once.
    reg(lua, t, sh, "set_choosing_order", |_, host, order: Vec<i64>| {
        host.with_state_mut("set_choosing_order", |sh, st| {
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
        })
    })?;
    // A uniform integer 1..n from the scripts' stream (each call its own
    // draw at this step of the game: core/rng.rs).
    fast(lua, t, sh, "random", |host, n: i64| {
        host.with_state_mut("random", |_, st| {
            if !(1..=i64::from(u32::MAX)).contains(&n) {
                return Err(rt(format!("game.random: n must be >= 1, got {n}")));
            }
            let stage = st.stage();
            Ok(i64::from(st.streams.next(Purpose::Script, stage).below(n as u32)) + 1)
        })
    })?;
    positional(lua, t, sh)?;
    // Asks a seat to choose; the answer goes to continuation `cont`.
    // spec: seat, kind, prompt, cont, data, and options as any of
    // provinces = {...}, counts = {min, max}, pass = true.
    fast_with_keys(lua, t, sh, "ask", &SPEC_KEYS, |host, spec: Spec| {
        host.with_state_mut("ask", |sh, st| {
            let seat = sh.seat(st, "ask", spec.int("seat")?.ok_or_else(|| rt("game.ask: `seat` is required".into()))?)?;
            let cont = spec.string("cont")?.ok_or_else(|| rt("game.ask: `cont` (continuation name) is required".into()))?;
            let cont = continuation(sh, "ask", &cont)?;
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
                options.extend(count_range("ask", lo, hi)?);
            }
            if spec.truthy("pass")? {
                options.push(Choice::Pass);
            }
            if options.is_empty() {
                return Err(rt("game.ask: no options to choose from".into()));
            }
            // The data stays on the stack while the question is posed.
            spec.at("data", |l, at| {
                // SAFETY: `at` holds the field until `at` returns.
                let data = unsafe { Data::at(l, at, "ask") }.map_err(rt)?;
                pose(sh, "ask", seat, cont, options, data, &|| texts(sh, "ask", spec.string("kind")?.as_ref(), spec.string("prompt")?.as_ref()))
            })
        })
    })?;
    Ok(())
}
