//! The cube tower. A model decides which thrown cubes land in the tray and
//! which stay inside; the contents live in the game state, so a tower has
//! memory between battles exactly when its model keeps cubes inside.
//!
//! Adding a model: implement [`TowerModel`], add its name to [`build`] and
//! [`validate`].

mod levels;

pub use levels::Levels;

use crate::core::{GameRng, Pile};
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
