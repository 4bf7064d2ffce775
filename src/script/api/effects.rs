//! The modifier pipeline: which card and variant effects act on a hook now.

use std::rc::Rc;

use mlua::{Lua, Table, Value};

use super::{reg, rt};
use crate::script::Shared;

/// Registers the effects part of `game`.
pub(super) fn register(lua: &Lua, t: &Table, sh: &Rc<Shared>) -> mlua::Result<()> {
    // The modifier pipeline: the effects acting on `hook` for `seat` doing
    // `action` now, in the rules' modifier_order (event, special, variant);
    // nil when none does.
    reg(lua, t, sh, "effects", |lua, host, (hook, seat, action): (mlua::LuaString, Option<i64>, Option<i64>)| {
        // What the answer depends on, read from the state; the lists are
        // built after the state is handed back (building runs Lua).
        let found = host.with_state(|sh, st| {
            let hook = hook.to_str()?;
            let Some(index) = sh.hooks.get(&*hook) else { return Ok(None) };
            let seat = match seat {
                Some(s) => Some(sh.seat(st, "effects", s)?),
                None => None,
            };
            let action_id = match action {
                Some(a) if a >= 1 && (a as usize) <= sh.rules.cards.actions.len() => Some(sh.rules.cards.actions[a as usize - 1].id.as_str()),
                Some(a) => return Err(rt(format!("game.effects: action {a} does not exist"))),
                None => None,
            };
            Ok(Some((sh, index, action_id, st.event, seat.and_then(|s| st.special_of(crate::core::Seat::new(s))))))
        })?;
        let Some((sh, index, action_id, event, special)) = found else { return Ok(Value::Nil) };
        let key = (index as *const super::super::HookEffects as usize, event, special, action);
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
                    if let Some(e) = event {
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
    Ok(())
}
