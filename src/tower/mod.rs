//! The cube tower. A model decides which thrown cubes land in the tray and
//! which stay inside; the contents live in the game state, so a tower has
//! memory between battles exactly when its model keeps cubes inside.
//!
//! Adding a model: implement [`TowerModel`], add its name to [`build`] and
//! [`validate`].

mod levels;

pub use levels::Levels;

use crate::core::{GameRng, GameState, MAX_SEATS, Pile};
use crate::rules::pack::TowerConfig;

pub trait TowerModel {
    fn name(&self) -> &str;
    /// How many levels of contents this model keeps in the game state.
    fn levels(&self) -> usize;
    /// Throws `input` into the tower whose contents are `inside`; returns
    /// what lands in the tray and updates `inside`.
    fn throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Pile;
}

/// Checks a tower configuration, naming what is wrong.
pub fn validate(cfg: &TowerConfig) -> Result<(), String> {
    build(cfg).map(|_| ())
}

/// The model a configuration names.
pub fn build(cfg: &TowerConfig) -> Result<Box<dyn TowerModel>, String> {
    match cfg.model.as_str() {
        "levels" => Ok(Box::new(Levels::from_params(&cfg.params)?)),
        other => Err(format!("tower.model: unknown model `{other}` (known: levels)")),
    }
}

/// Throws `input` plus everything in the tray; the tray then holds what
/// landed. Checks that no cube was created or lost.
pub fn throw(model: &dyn TowerModel, inside: &mut Vec<Pile>, tray: &mut Pile, mut input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
    if inside.len() != model.levels() {
        inside.resize(model.levels(), Pile::default());
    }
    input.add(tray);
    let mut before = input;
    for level in inside.iter() {
        before.add(level);
    }
    let landed = model.throw(inside, input, rng);
    let mut after = landed;
    for level in inside.iter() {
        after.add(level);
    }
    if before != after {
        return Err(format!("tower model `{}` did not conserve cubes: before {before:?}, after {after:?}", model.name()));
    }
    *tray = landed;
    Ok(landed)
}

/// Throws `input` into the state's tower, honouring a forced outcome if one
/// is queued (`GameState::forced_throws`).
pub fn throw_in(model: &dyn TowerModel, st: &mut GameState, input: Pile) -> Result<Pile, String> {
    if st.forced_throws.is_empty() {
        return throw(model, &mut st.tower, &mut st.tray, input, &mut st.rng);
    }
    let want = st.forced_throws.remove(0);
    force(model, &mut st.tower, &mut st.tray, input, want)
}

/// A throw whose outcome is given: exactly `want` lands. The cubes come from
/// what was thrown first, then from the tower's levels top down; thrown
/// cubes that do not land stick on the top level.
pub fn force(model: &dyn TowerModel, inside: &mut Vec<Pile>, tray: &mut Pile, mut input: Pile, want: Pile) -> Result<Pile, String> {
    if inside.len() != model.levels() {
        inside.resize(model.levels(), Pile::default());
    }
    input.add(tray);
    for c in 0..=MAX_SEATS {
        let colour = (c < MAX_SEATS).then_some(c);
        let mut need = want.get(colour);
        let available = input.get(colour) + inside.iter().map(|l| l.get(colour)).sum::<u16>();
        if need > available {
            return Err(format!(
                "forced throw: {need} {} should land, but only {available} are thrown or inside the tower",
                colour.map(|s| format!("cubes of seat {}", s + 1)).unwrap_or_else(|| "peasants".into())
            ));
        }
        let from_input = need.min(input.get(colour));
        *input.get_mut(colour) -= from_input;
        need -= from_input;
        for level in inside.iter_mut() {
            let take = need.min(level.get(colour));
            *level.get_mut(colour) -= take;
            need -= take;
        }
    }
    match inside.first_mut() {
        Some(top) => top.add(&input),
        None if !input.is_empty() => return Err("forced throw: a tower without levels cannot keep cubes".into()),
        None => {}
    }
    *tray = want;
    Ok(want)
}
