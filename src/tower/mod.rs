//! The cube tower. A model decides which thrown cubes land in the tray and
//! which stay inside; the contents live in the game state, so a tower has
//! memory between battles exactly when its model keeps cubes inside.
//!
//! Adding a model: implement [`TowerModel`] and add a line to [`build`].

mod cascade;
pub mod fit;
mod law;
mod levels;
pub mod odds;
mod simple;

pub use cascade::Cascade;
pub use levels::Levels;
pub use simple::{Passthrough, Scripted, Stateless};

use std::collections::BTreeMap;

use crate::core::{GameRng, GameState, MAX_SEATS, Pile, Purpose};
use crate::rules::pack::TowerSpec;

/// Model names [`build`] knows (plus `lua`, built by the script runtime).
pub const MODELS: &[&str] = &["cascade", "levels", "stateless", "passthrough", "scripted", "lua"];

pub trait TowerModel {
    fn name(&self) -> &str;
    /// How many levels of contents this model keeps in the game state.
    fn levels(&self) -> usize;
    /// Whether cubes left inside stay for later throws. A model that does
    /// not keep them has them handed back to the supplies after each throw.
    fn keeps(&self) -> bool {
        true
    }
    /// Throws `input` into the tower whose contents are `inside`; returns
    /// what lands in the tray and updates `inside`.
    fn throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String>;
    /// The setup throw into the empty tower (the rules' preload), for a
    /// model whose source treats it apart; by default a throw like any other.
    fn setup_throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
        self.throw(inside, input, rng)
    }
    /// The exact law of one ledge, for a model whose `throw` takes the
    /// ledges top down, each deciding from two counts alone (colours do
    /// not matter): the cubes stuck on it before the throw (`stuck`) and
    /// the cubes reaching it in the throw; what does not stay falls on to
    /// the next ledge, and what leaves the last one lands. Entry `[a][k]`,
    /// for `a` = 0..=`max_arriving` cubes reaching the ledge, is ln P(k
    /// cubes stuck on it after the throw), k = 0..=stuck + a; `-inf`
    /// exactly where the model never does it. `tower fit` computes exact
    /// likelihoods from these; `None` (the default): the model can only
    /// be sampled, and the fit estimates with a particle filter.
    fn ledge_laws(&self, _stuck: u16, _max_arriving: u16) -> Option<Vec<Vec<f64>>> {
        None
    }
    /// A bound on the work of `ledge_laws` for every stuck count below
    /// `stuck` with up to `arriving - 1` cubes arriving (terms summed):
    /// what the fit weighs before computing exactly. By default the most
    /// any built-in model takes (`cascade`'s).
    fn ledge_laws_work(&self, stuck: f64, arriving: f64) -> f64 {
        stuck * arriving * (stuck + arriving) * (stuck + arriving) / 2.0
    }
}

/// Reads a model's parameters: only `allowed` keys, each present.
pub(crate) fn params<const N: usize>(model: &str, p: &BTreeMap<String, f64>, allowed: [&str; N]) -> Result<[f64; N], String> {
    for k in p.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(format!("unknown parameter `{k}` for tower model `{model}` (expected: {})", allowed.join(", ")));
        }
    }
    let mut out = [0.0; N];
    for (i, k) in allowed.iter().enumerate() {
        out[i] = *p.get(*k).ok_or_else(|| format!("tower model `{model}` needs parameter `{k}`"))?;
    }
    Ok(out)
}

pub(crate) fn probability(model: &str, key: &str, v: f64) -> Result<f64, String> {
    if (0.0..=1.0).contains(&v) { Ok(v) } else { Err(format!("tower model `{model}`: {key} is {v}, expected a probability 0..=1")) }
}

/// The model a tower spec names (`lua` towers are built by the runtime).
pub fn build(spec: &TowerSpec) -> Result<Box<dyn TowerModel>, String> {
    match spec.model.as_str() {
        "cascade" => Ok(Box::new(Cascade::from_params(&spec.params)?)),
        "levels" => Ok(Box::new(Levels::from_params(&spec.params)?)),
        "stateless" => Ok(Box::new(Stateless::from_params(&spec.params)?)),
        "passthrough" => {
            params("passthrough", &spec.params, [])?;
            Ok(Box::new(Passthrough))
        }
        "scripted" => {
            params("scripted", &spec.params, [])?;
            Ok(Box::new(Scripted))
        }
        "lua" => Err("a `lua` tower is built by the script runtime".into()),
        other => Err(format!("unknown tower model `{other}` (known: {})", MODELS.join(", "))),
    }
}

/// Checks a spec without building Lua towers (those need the runtime).
pub fn validate(spec: &TowerSpec) -> Result<(), String> {
    if let Some((k, v)) = spec.params.iter().find(|(_, v)| !v.is_finite()) {
        return Err(format!("params.{k} is {v}, expected a finite number"));
    }
    if spec.model == "lua" {
        if spec.script.is_none() {
            return Err("a `lua` tower needs `script:` naming a tower registered with shogun.tower".into());
        }
        return Ok(());
    }
    if spec.script.is_some() {
        return Err(format!("`script:` only goes with model `lua`, not `{}`", spec.model));
    }
    build(spec).map(|_| ())
}

/// Gives `inside` exactly `levels` levels (a state made under another
/// model). Every cube stays: on the top level, or, with no levels at all,
/// in the returned pile for the caller to throw.
fn regroup(inside: &mut Vec<Pile>, levels: usize) -> Pile {
    if inside.len() == levels {
        return Pile::default();
    }
    let mut all = Pile::default();
    for l in inside.iter() {
        all.add(l);
    }
    inside.clear();
    inside.resize(levels, Pile::default());
    match inside.first_mut() {
        Some(top) => {
            *top = all;
            Pile::default()
        }
        None => all,
    }
}

/// Throws the model is given to settle a sampled tower.
const SETTLING_THROWS: usize = 32;

/// The tower's levels drawn from what a seat knows of them: how many cubes
/// of each colour are inside (every throw in and out is seen), not on
/// which level (a seat's view, `GameState::view`, keeps only that). The
/// cubes of `inside` are thrown into an empty tower of `model`, as the
/// preload throws them; what lands is thrown again (what sticks may come
/// loose and land too) until all are inside, and the few still out after
/// `SETTLING_THROWS` throws go to a level at random. A model that keeps
/// nothing inside, or has one level, has nothing to draw: `inside` stays.
pub fn sample_levels(model: &dyn TowerModel, inside: &mut Vec<Pile>, rng: &mut GameRng) {
    let levels = model.levels();
    let mut left = Pile::default();
    inside.iter().for_each(|l| left.add(l));
    if levels <= 1 || !model.keeps() || left.is_empty() {
        return;
    }
    let mut drawn = vec![Pile::default(); levels];
    for _ in 0..SETTLING_THROWS {
        if left.is_empty() {
            break;
        }
        let before = left.total() + drawn.iter().map(Pile::total).sum::<u32>();
        let mut trial = drawn.clone();
        match model.throw(&mut trial, left, rng) {
            // Only a throw that conserves the cubes counts.
            Ok(landed) if landed.total() + trial.iter().map(Pile::total).sum::<u32>() == before => {
                drawn = trial;
                left = landed;
            }
            _ => break,
        }
    }
    for colour in (0..MAX_SEATS).map(Some).chain(std::iter::once(None)) {
        for _ in 0..left.get(colour) {
            *drawn[rng.below(levels as u32) as usize].get_mut(colour) += 1;
        }
    }
    *inside = drawn;
}

/// Throws `input` plus everything in the tray; the tray then holds what
/// landed. Checks that no cube was created or lost, whatever the model.
pub fn throw(model: &dyn TowerModel, inside: &mut Vec<Pile>, tray: &mut Pile, input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
    throw_as(model, inside, tray, input, rng, false)
}

/// [`throw`], as the setup throw (`setup`: the model's `setup_throw`) or
/// as any other.
pub fn throw_as(model: &dyn TowerModel, inside: &mut Vec<Pile>, tray: &mut Pile, mut input: Pile, rng: &mut GameRng, setup: bool) -> Result<Pile, String> {
    // A tower without levels drops what was inside with this throw.
    input.add(&regroup(inside, model.levels()));
    input.add(tray);
    let before = wide_total(std::iter::once(&input).chain(inside.iter()));
    let mut work = inside.clone();
    let landed = if setup { model.setup_throw(&mut work, input, rng)? } else { model.throw(&mut work, input, rng)? };
    // Counted wide: a model's counts may be anything up to u16::MAX each,
    // and a sum that wrapped could look conserved.
    let after = wide_total(std::iter::once(&landed).chain(work.iter()));
    if before != after || work.len() != inside.len() {
        return Err(format!("tower model `{}` did not conserve cubes: before {}, after {}", model.name(), describe(&before), describe(&after)));
    }
    *inside = work;
    *tray = landed;
    Ok(landed)
}

/// Cubes per colour (seats, then peasants) over several piles, in u32.
fn wide_total<'a>(piles: impl Iterator<Item = &'a Pile>) -> [u32; MAX_SEATS + 1] {
    let mut t = [0u32; MAX_SEATS + 1];
    for p in piles {
        for (s, &n) in p.seats.iter().enumerate() {
            t[s] += u32::from(n);
        }
        t[MAX_SEATS] += u32::from(p.peasants);
    }
    t
}

fn describe(t: &[u32; MAX_SEATS + 1]) -> String {
    let mut parts: Vec<String> = (0..MAX_SEATS).filter(|&s| t[s] > 0).map(|s| format!("seat {} x{}", s + 1, t[s])).collect();
    parts.push(format!("peasants x{}", t[MAX_SEATS]));
    parts.join(", ")
}

/// Throws `input` into the state's tower, honouring a forced outcome if one
/// is queued (`GameState::forced_throws`). `setup`: the rules' setup throw.
/// Each throw draws from a stream of its own (the tower's, at this stage of
/// the game, this throw's index there; a forced throw takes its index too),
/// so how many numbers one throw uses never shifts another's.
pub fn throw_in(model: &dyn TowerModel, st: &mut GameState, input: Pile, setup: bool) -> Result<Pile, String> {
    let stage = st.stage();
    let mut rng = st.streams.next(Purpose::Tower, stage);
    let landed = if st.forced_throws.is_empty() {
        throw_as(model, &mut st.tower, &mut st.tray, input, &mut rng, setup)?
    } else {
        let want = st.forced_throws.remove(0);
        force(model, &mut st.tower, &mut st.tray, input, want)?
    };
    if !model.keeps() {
        let mut back = Pile::default();
        for level in st.tower.iter_mut() {
            back.add(level);
            *level = Pile::default();
        }
        for (s, p) in st.players.iter_mut().enumerate() {
            p.supply += back.seats[s];
        }
        st.peasants += back.peasants;
    }
    Ok(landed)
}

/// A throw whose outcome is given: exactly `want` lands. The cubes come from
/// what was thrown first, then from the tower's levels top down; thrown
/// cubes that do not land stick on the top level.
pub fn force(model: &dyn TowerModel, inside: &mut Vec<Pile>, tray: &mut Pile, mut input: Pile, want: Pile) -> Result<Pile, String> {
    regroup(inside, model.levels().max(1));
    input.add(tray);
    let mut work = inside.clone();
    for c in 0..=MAX_SEATS {
        let colour = (c < MAX_SEATS).then_some(c);
        let mut need = want.get(colour);
        let available = u32::from(input.get(colour)) + work.iter().map(|l| u32::from(l.get(colour))).sum::<u32>();
        let available = u16::try_from(available).map_err(|_| format!("forced throw: {available} cubes of one colour in the tower"))?;
        if need > available {
            return Err(format!(
                "forced throw: {need} {} should land, but only {available} are thrown or inside the tower",
                colour.map(|s| format!("cubes of seat {}", s + 1)).unwrap_or_else(|| "peasants".into())
            ));
        }
        let from_input = need.min(input.get(colour));
        *input.get_mut(colour) -= from_input;
        need -= from_input;
        for level in work.iter_mut() {
            let take = need.min(level.get(colour));
            *level.get_mut(colour) -= take;
            need -= take;
        }
    }
    work[0].add(&input);
    *inside = work;
    *tray = want;
    Ok(want)
}
