//! What a seat is asked and what the order of play depends on: questions
//! (`ask`), revealed bids, the choosing order and the game's generator.

use std::rc::Rc;

use mlua::{Lua, Table, Value};

use super::{MAX_DATA_VALUES, MAX_TEXT, reg, rt};
use crate::core::{Ask, Card, Choice, ProvinceId, Seat};
use crate::script::Shared;
use crate::script::raw::{SPEC_KEYS, Spec, fast, fast_with_keys};

/// How many values a JSON value holds (itself included).
fn json_values(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::Array(a) => 1 + a.iter().map(json_values).sum::<usize>(),
        serde_json::Value::Object(m) => 1 + m.values().map(json_values).sum::<usize>(),
        _ => 1,
    }
}

/// Registers the questions part of `game`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // Turns up `seat`'s bid: ("chest", value), ("province", p) or nil.
    reg(lua, t, sh, "reveal_bid", |lua, host, s: i64| {
        host.with_state_mut("reveal_bid", |sh, st| {
            let s = sh.seat(st, "reveal_bid", s)?;
            let bid = st.players[s].plan.as_ref().and_then(|p| p.bid);
            st.players[s].revealed_bid = bid;
            Ok(match bid {
                None => (Value::Nil, Value::Nil),
                Some(Card::Chest(v)) => (Value::String(lua.create_string("chest")?), Value::Integer(i64::from(v))),
                Some(Card::Province(p)) => (Value::String(lua.create_string("province")?), Value::Integer(p.number())),
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
    // A uniform integer 1..n from the game's generator.
    fast(lua, t, sh, "random", |host, n: i64| {
        host.with_state_mut("random", |_, st| {
            if !(1..=i64::from(u32::MAX)).contains(&n) {
                return Err(rt(format!("game.random: n must be >= 1, got {n}")));
            }
            Ok(i64::from(st.rng.below(n as u32)) + 1)
        })
    })?;
    // Asks a seat to choose; the answer goes to continuation `cont`.
    // spec: seat, kind, prompt, cont, data, and options as any of
    // provinces = {...}, counts = {min, max}, pass = true.
    fast_with_keys(lua, t, sh, "ask", &SPEC_KEYS, |host, spec: Spec| {
        host.with_state_mut("ask", |sh, st| {
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
        })
    })?;
    Ok(())
}
