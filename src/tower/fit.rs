//! Fitting tower models to throws recorded at a real table.
//!
//! The data are totals: how many cubes went in (including the tray's),
//! how many landed, and optionally how many the recorder saw left inside.
//! Models treat all colours alike, so totals carry all the information.
//! A stateful tower hides its contents, so the likelihood of a sequence is
//! estimated with a particle filter; a memoryless one is exact.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Levels, TowerModel};
use crate::core::{GameRng, Pile};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Observations {
    /// What the data are (where, which tower, who recorded them). The
    /// tower must be empty (shaken out) before the first throw.
    pub description: String,
    pub throws: Vec<Throw>,
}

/// The most cubes one recorded throw may put in (a real table has far
/// fewer; the likelihood simulates every cube of every throw).
pub const MAX_CUBES_PER_THROW: u16 = 1000;

impl Observations {
    /// Parses and checks the text of a file of recorded throws (`shogun
    /// tower fit`; the caller reads it, `path` names it in messages).
    pub fn parse(path: &std::path::Path, text: &str) -> Result<Observations, String> {
        let obs = crate::rules::yaml::from_str::<Observations>(path, text).map_err(|d| d.to_string())?;
        if obs.throws.is_empty() {
            return Err(format!("{}: no throws recorded", path.display()));
        }
        for (i, t) in obs.throws.iter().enumerate() {
            // Cubes stuck earlier may come out with this throw, but not more
            // than a tower holds (counted wide: `in` may be up to 65,535).
            if t.thrown > MAX_CUBES_PER_THROW || t.inside.is_some_and(|n| n > MAX_CUBES_PER_THROW) {
                return Err(format!("{}: throw {}: at most {MAX_CUBES_PER_THROW} cubes go in or stay inside", path.display(), i + 1));
            }
            if u32::from(t.landed) > u32::from(t.thrown) + 200 {
                return Err(format!("{}: throw {}: {} landed of {} in", path.display(), i + 1, t.landed, t.thrown));
            }
        }
        Ok(obs)
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Throw {
    /// Cubes that went in (thrown plus the tray's).
    #[serde(rename = "in")]
    pub thrown: u16,
    pub landed: u16,
    /// Cubes seen left inside after the throw, if looked at.
    #[serde(default)]
    pub inside: Option<u16>,
}

/// Log-likelihood of the observations under `model`, estimated with
/// `particles` particles (exact enough for ranking models). Throws no
/// particle could reproduce count with a small floor probability; see
/// [`unexplained`] for how many there were.
pub fn log_likelihood(model: &dyn TowerModel, obs: &Observations, particles: usize, seed: u64) -> Result<f64, String> {
    likelihood(model, obs, particles, seed).map(|(ll, _)| ll)
}

/// How many throws the model could not reproduce at all.
pub fn unexplained(model: &dyn TowerModel, obs: &Observations, particles: usize, seed: u64) -> Result<usize, String> {
    likelihood(model, obs, particles, seed).map(|(_, n)| n)
}

fn likelihood(model: &dyn TowerModel, obs: &Observations, particles: usize, seed: u64) -> Result<(f64, usize), String> {
    let mut missed = 0;
    let mut rng = GameRng::seeded(seed);
    let levels = model.levels();
    let mut cloud: Vec<Vec<Pile>> = vec![vec![Pile::default(); levels]; particles];
    let floor = 1.0 / (particles as f64 * 20.0);
    let mut ll = 0.0;
    for t in &obs.throws {
        let mut kept: Vec<Vec<Pile>> = Vec::with_capacity(particles);
        for p in cloud.iter() {
            let mut inside = p.clone();
            let mut input = Pile::default();
            input.seats[0] = t.thrown;
            let landed = model.throw(&mut inside, input, &mut rng)?;
            if !model.keeps() {
                inside.iter_mut().for_each(|l| *l = Pile::default());
            }
            let seen: u16 = inside.iter().map(|l| l.seats[0]).sum();
            if landed.seats[0] == t.landed && t.inside.is_none_or(|i| i == seen) {
                kept.push(inside);
            }
        }
        let p = kept.len() as f64 / particles as f64;
        if kept.is_empty() {
            missed += 1;
        }
        ll += p.max(floor).ln();
        if !kept.is_empty() {
            cloud = (0..particles).map(|_| kept[rng.below(kept.len() as u32) as usize].clone()).collect();
        } else {
            // Nothing explains this throw: carry on from an empty tower.
            cloud = vec![vec![Pile::default(); levels]; particles];
        }
    }
    Ok((ll, missed))
}

/// Exact log-likelihood for the memoryless tower.
pub fn stateless_log_likelihood(p: f64, obs: &Observations) -> f64 {
    obs.throws
        .iter()
        .map(|t| {
            let (n, k) = (u64::from(t.thrown), u64::from(t.landed));
            if k > n || t.inside.is_some_and(|i| i != 0) {
                return f64::NEG_INFINITY;
            }
            ln_choose(n, k) + k as f64 * p.max(1e-12).ln() + (n - k) as f64 * (1.0 - p).max(1e-12).ln()
        })
        .sum()
}

fn ln_choose(n: u64, k: u64) -> f64 {
    (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum()
}

#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    pub model: String,
    pub params: BTreeMap<String, f64>,
    pub log_likelihood: f64,
}

/// The best parameters for a model family by grid search.
pub fn fit(model: &str, obs: &Observations, particles: usize, seed: u64) -> Result<Fit, String> {
    match model {
        "stateless" => {
            let mut best = (f64::NEG_INFINITY, 0.0);
            for i in 1..1000 {
                let p = i as f64 / 1000.0;
                let ll = stateless_log_likelihood(p, obs);
                if ll > best.0 {
                    best = (ll, p);
                }
            }
            Ok(Fit { model: "stateless".into(), params: BTreeMap::from([("p".to_string(), best.1)]), log_likelihood: best.0 })
        }
        "levels" => {
            // Every grid point is independent: evaluate them in parallel,
            // then pick the best in grid order (the same fit as one by one).
            let mut grid = Vec::new();
            for levels in [1usize, 2] {
                for per_cube in [false, true] {
                    let loosen_grid: &[f64] = if per_cube { &[0.0, 0.005, 0.01, 0.025, 0.05, 0.1] } else { &[0.0, 0.1, 0.2, 0.33, 0.5, 0.75] };
                    for pi in 10..=19 {
                        let pass = pi as f64 * 0.05;
                        for &loosen in loosen_grid {
                            grid.push(Levels { levels, pass, loosen, per_cube, setup_pass: None });
                        }
                    }
                }
            }
            use rayon::prelude::*;
            let scores: Vec<f64> = grid
                .par_iter()
                .map(|m| likelihood(m, obs, particles, seed).map(|(ll, missed)| if missed > 0 { f64::NEG_INFINITY } else { ll }))
                .collect::<Result<_, String>>()?;
            let mut best: Option<Fit> = None;
            for (m, ll) in grid.iter().zip(scores) {
                if best.as_ref().is_none_or(|b| ll > b.log_likelihood) {
                    best = Some(Fit {
                        model: "levels".into(),
                        params: BTreeMap::from([
                            ("levels".to_string(), m.levels as f64),
                            ("pass".to_string(), m.pass),
                            ("loosen".to_string(), m.loosen),
                            ("loosen_per_cube".to_string(), if m.per_cube { 1.0 } else { 0.0 }),
                        ]),
                        log_likelihood: ll,
                    });
                }
            }
            best.ok_or_else(|| "no fit".into())
        }
        other => Err(format!("cannot fit model `{other}` (fittable: levels, stateless)")),
    }
}

/// For tests and examples: throws generated by a known model.
pub fn generate(model: &dyn TowerModel, throws: &[u16], seed: u64) -> Result<Observations, String> {
    let mut rng = GameRng::seeded(seed);
    let mut inside = vec![Pile::default(); model.levels()];
    let mut out = Vec::new();
    for &n in throws {
        let mut input = Pile::default();
        input.seats[0] = n;
        let landed = model.throw(&mut inside, input, &mut rng)?;
        if !model.keeps() {
            inside.iter_mut().for_each(|l| *l = Pile::default());
        }
        out.push(Throw { thrown: n, landed: landed.seats[0], inside: None });
    }
    Ok(Observations { description: "generated".into(), throws: out })
}
