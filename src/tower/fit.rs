//! Fitting tower models to throws recorded at a real table.
//!
//! The data are totals: how many cubes went in (including the tray's),
//! how many landed, and optionally how many the recorder saw left inside.
//! Models treat all colours alike, so totals carry all the information.
//! A stateful tower hides how its contents sit on its ledges (how many are
//! inside follows from the totals), so the likelihood of a sequence sums
//! over every way they could: exactly, level by level, for the built-in
//! models ([`likelihood`]); a model that can only be sampled (a Lua
//! tower) is estimated with a particle filter. "Cannot explain" is said
//! only when it is proven.

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

/// The most cubes a record may leave inside a tower that keeps them (all
/// that went in and did not land, over the throws so far): ten throws of
/// the most cubes, far more than a real tower holds, and far from what a
/// ledge counts (65,535).
pub const MAX_CUBES_INSIDE: u32 = 10_000;

impl Observations {
    /// Parses and checks the text of a file of recorded throws (`shogun
    /// tower fit`; the caller reads it, `path` names it in messages).
    pub fn parse(path: &std::path::Path, text: &str) -> Result<Observations, String> {
        let obs = crate::rules::yaml::from_str::<Observations>(path, text).map_err(|d| d.to_string())?;
        if obs.throws.is_empty() {
            return Err(format!("{}: no throws recorded", path.display()));
        }
        // Where throw `i` (0-based) is written, for messages.
        let at = |i: usize| {
            let loc = crate::rules::yaml::Positions::build(text).of(&format!("throws/{i}"));
            format!("{}:{}:{}: throw {}", path.display(), loc.line, loc.column, i + 1)
        };
        for (i, t) in obs.throws.iter().enumerate() {
            // Cubes stuck earlier may come out with this throw, but not more
            // than a tower holds (counted wide: `in` may be up to 65,535).
            if t.thrown > MAX_CUBES_PER_THROW || t.inside.is_some_and(|n| n > MAX_CUBES_PER_THROW) {
                return Err(format!("{}: at most {MAX_CUBES_PER_THROW} cubes go in or stay inside", at(i)));
            }
            if u32::from(t.landed) > u32::from(t.thrown) + 200 {
                return Err(format!("{}: {} landed of {} in", at(i), t.landed, t.thrown));
            }
        }
        if let Some((i, inside)) = obs.overfull() {
            return Err(format!("{}: {inside}", at(i)));
        }
        Ok(obs)
    }

    /// The first throw (0-based) after which a tower that keeps cubes
    /// would hold more than [`MAX_CUBES_INSIDE`] (all that went in and did
    /// not land so far), and what to say about it. Every model's counts
    /// stay far from wrapping within it.
    fn overfull(&self) -> Option<(usize, String)> {
        let mut inside: u32 = 0;
        for (i, t) in self.throws.iter().enumerate() {
            inside = (inside + u32::from(t.thrown)).saturating_sub(u32::from(t.landed));
            if inside > MAX_CUBES_INSIDE {
                return Some((
                    i,
                    format!("{inside} cubes went in and did not land over the throws so far; a tower that keeps them would hold more than {MAX_CUBES_INSIDE}"),
                ));
            }
        }
        None
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

/// How well a model explains a record: ln P(the landed and inside counts
/// | the counts that went in), or why there is no such number.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Likelihood {
    /// Computed exactly from the model's ledge laws, summing over every
    /// contents the tower could have (only rounding error).
    Exact { log_likelihood: f64 },
    /// Estimated by a particle filter (a model that can only be sampled).
    /// Its spread across seeds is measured in docs/towers.md.
    Estimated { log_likelihood: f64, particles: usize },
    /// Proven: the model can never give throw `throw` (1-based) after the
    /// throws before it, whatever happened in them.
    Impossible { throw: usize, why: String },
    /// No estimate: no particle of the filter reproduced throw `throw`.
    /// Not a proof of anything; more particles may get through.
    LostTrack { throw: usize, particles: usize },
}

impl Likelihood {
    /// The log-likelihood when there is one (`-inf` when impossible);
    /// `None` when the filter lost track.
    pub fn value(&self) -> Option<f64> {
        match self {
            Likelihood::Exact { log_likelihood } | Likelihood::Estimated { log_likelihood, .. } => Some(*log_likelihood),
            Likelihood::Impossible { .. } => Some(f64::NEG_INFINITY),
            Likelihood::LostTrack { .. } => None,
        }
    }
}

/// How [`likelihood`] computes: the particle filter's particles and seed,
/// and whether it may compute exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Method {
    pub particles: usize,
    pub seed: u64,
    /// Estimate every tower that keeps cubes with the particle filter,
    /// as one that can only be sampled is (to check the exact numbers or
    /// see the filter's spread).
    pub filter_only: bool,
}

impl Method {
    /// Exact where the model allows, else `particles` particles from `seed`.
    pub fn new(particles: usize, seed: u64) -> Method {
        Method { particles, seed, filter_only: false }
    }
}

/// The likelihood of `obs` under `model`: first what conservation alone
/// rules out (exact for every model), then the exact sum over the tower's
/// hidden contents when the model gives its ledge laws
/// (`TowerModel::ledge_laws`) and the sum is small enough
/// ([`EXACT_WORK`]), else a particle filter.
pub fn likelihood(model: &dyn TowerModel, obs: &Observations, method: Method) -> Result<Likelihood, String> {
    if method.particles == 0 {
        return Err("the particle filter needs at least 1 particle".into());
    }
    if let Some((i, why)) = obs.overfull() {
        return Err(format!("throw {}: {why}", i + 1));
    }
    if let Some(ruled_out) = conservation(model.levels(), model.keeps(), obs) {
        return Ok(ruled_out);
    }
    // A tower that keeps nothing hides nothing: the filter would only add noise.
    if (!method.filter_only || !model.keeps())
        && let Some(exact) = exact(model, obs)
    {
        return Ok(exact);
    }
    particle_filter(model, obs, method.particles, method.seed)
}

/// What no tower of this shape can do, whatever its model, since a throw
/// neither creates nor loses cubes (the engine checks every throw): with
/// the tower empty at the start, the cubes inside after a throw are all
/// that went in minus all that landed, so this many must be inside, and
/// never fewer than none. A tower without levels lands everything; one
/// that keeps nothing lands at most what went in.
fn conservation(levels: usize, keeps: bool, obs: &Observations) -> Option<Likelihood> {
    let mut inside: i64 = 0;
    for (i, t) in obs.throws.iter().enumerate() {
        let (thrown, landed) = (i64::from(t.thrown), i64::from(t.landed));
        let seen = t.inside.map(i64::from);
        let why = if levels == 0 && landed != thrown {
            Some(format!("{landed} landed of {thrown} in, and this tower has no ledge to keep or hold back a cube"))
        } else if !keeps && landed > thrown {
            Some(format!("{landed} landed of {thrown} in, and this tower keeps nothing inside from earlier throws"))
        } else if keeps && landed > inside + thrown {
            Some(format!("{landed} landed, but only {thrown} went in and {inside} can be inside before it"))
        } else {
            inside = if keeps && levels > 0 { inside + thrown - landed } else { 0 };
            seen.filter(|&s| s != inside).map(|s| {
                if keeps && levels > 0 {
                    format!("{s} seen inside, but every cube that went in and did not land is inside: {inside}")
                } else {
                    format!("{s} seen inside, and this tower keeps no cube after a throw")
                }
            })
        };
        if let Some(why) = why {
            return Some(Likelihood::Impossible { throw: i + 1, why });
        }
    }
    None
}

/// The most work the exact likelihood may take, by [`exact`]'s bound on
/// the terms it sums, before the fit estimates with the particle filter
/// instead. The example (40 throws) is a fifth of it. Measured: a record
/// at it (`{in: 40, landed: 10}` then 5,000 × `{in: 10, landed: 10}`,
/// 9.7e6) takes 1.3 s for `tower fit --family stateless`, five presets
/// and the stateless fit, all exact; at 2e8 (24,001 throws, 60 inside) the
/// presets took 47 s.
pub const EXACT_WORK: f64 = 1e7;

/// The exact likelihood by the forward algorithm: the law of the tower's
/// contents level by level after each throw, given everything recorded
/// so far. `None` when the model gives no ledge laws or the work would
/// pass [`EXACT_WORK`].
fn exact(model: &dyn TowerModel, obs: &Observations) -> Option<Likelihood> {
    let levels = model.levels();
    if levels == 0 {
        // Every cube lands, as `conservation` has checked: probability 1.
        return Some(Likelihood::Exact { log_likelihood: 0.0 });
    }
    model.ledge_laws(0, 0)?;
    // The most cubes inside before a throw, and arriving at one ledge.
    let (mut most_inside, mut most_arriving, mut inside) = (0usize, 0usize, 0usize);
    for t in &obs.throws {
        most_arriving = most_arriving.max(inside + usize::from(t.thrown));
        if model.keeps() {
            inside = (inside + usize::from(t.thrown)).checked_sub(usize::from(t.landed))?;
        }
        most_inside = most_inside.max(inside);
    }
    // Work: the laws for every stuck count (the model's own bound,
    // `TowerModel::ledge_laws_work`), then per throw every contents (at most (T+1)^(levels-1)) times every split
    // at each ledge but the last.
    let (t, a) = (most_inside as f64 + 1.0, most_arriving as f64 + 1.0);
    let work = model.ledge_laws_work(t, a) + obs.throws.len() as f64 * (t * a).powi(levels as i32 - 1);
    if !work.is_finite() || work > EXACT_WORK || most_inside > usize::from(u16::MAX) || most_arriving > usize::from(u16::MAX) {
        return None;
    }
    let mut walk = Walk { model, laws: Vec::new(), max_arriving: most_arriving as u16 };
    let mut dist: BTreeMap<Vec<u16>, f64> = BTreeMap::from([(vec![0; levels], 0.0)]);
    let mut ll = 0.0;
    for (i, t) in obs.throws.iter().enumerate() {
        let mut next = BTreeMap::new();
        for (state, &lp) in &dist {
            let mut after = state.clone();
            walk.ledge(0, usize::from(t.thrown), state, &mut after, lp, usize::from(t.landed), &mut next)?;
        }
        if !model.keeps() {
            // Handed back after the throw: one empty tower, whatever stuck.
            let all = super::law::ln_sum(next.values().copied());
            next = BTreeMap::from([(vec![0; levels], all)]);
        }
        let step = super::law::ln_sum(next.values().copied());
        if step == f64::NEG_INFINITY {
            return Some(Likelihood::Impossible {
                throw: i + 1,
                why: format!("{} landed of {} in, which no contents the tower could have then can give", t.landed, t.thrown),
            });
        }
        ll += step;
        next.values_mut().for_each(|lp| *lp -= step);
        dist = next;
    }
    Some(Likelihood::Exact { log_likelihood: ll })
}

/// One throw through the ledges, every way at once (for [`exact`]).
struct Walk<'a> {
    model: &'a dyn TowerModel,
    /// The ledge laws by stuck count, made when first needed.
    laws: Vec<Option<std::rc::Rc<Vec<Vec<f64>>>>>,
    max_arriving: u16,
}

impl Walk<'_> {
    fn laws(&mut self, stuck: u16) -> Option<std::rc::Rc<Vec<Vec<f64>>>> {
        let s = usize::from(stuck);
        if self.laws.len() <= s {
            self.laws.resize(s + 1, None);
        }
        if self.laws[s].is_none() {
            self.laws[s] = Some(std::rc::Rc::new(self.model.ledge_laws(stuck, self.max_arriving)?));
        }
        self.laws[s].clone()
    }

    /// `arriving` cubes reach ledge `i` of contents `state`; `after` holds
    /// the ledges above as they are left; `lp` is ln P of the contents and
    /// of what happened above. What leaves the last ledge must be `landed`.
    #[allow(clippy::too_many_arguments)]
    fn ledge(
        &mut self,
        i: usize,
        arriving: usize,
        state: &[u16],
        after: &mut Vec<u16>,
        lp: f64,
        landed: usize,
        into: &mut BTreeMap<Vec<u16>, f64>,
    ) -> Option<()> {
        let laws = self.laws(state[i])?;
        let law = laws.get(arriving)?;
        let here = usize::from(state[i]) + arriving;
        if law.len() != here + 1 {
            return None;
        }
        if i + 1 == state.len() {
            // The last ledge: exactly `landed` leave it.
            let Some(stays) = here.checked_sub(landed) else { return Some(()) };
            if law[stays] > f64::NEG_INFINITY {
                after[i] = stays as u16;
                let e = into.entry(after.clone()).or_insert(f64::NEG_INFINITY);
                *e = super::law::ln_add(*e, lp + law[stays]);
            }
            return Some(());
        }
        let below: usize = state[i + 1..].iter().map(|&s| usize::from(s)).sum();
        for (stays, &ls) in law.iter().enumerate() {
            // Too few left to land what landed: nothing below can add cubes.
            if ls == f64::NEG_INFINITY || here - stays + below < landed {
                continue;
            }
            after[i] = stays as u16;
            self.ledge(i + 1, here - stays, state, after, lp + ls, landed, into)?;
        }
        Some(())
    }
}

/// A bootstrap particle filter for a model that can only be sampled: each
/// particle is a possible tower, thrown as recorded; the share that
/// reproduce a throw estimates its probability, and the survivors are
/// resampled. If none survive, the filter has lost track: no estimate.
fn particle_filter(model: &dyn TowerModel, obs: &Observations, particles: usize, seed: u64) -> Result<Likelihood, String> {
    let mut rng = GameRng::seeded(seed);
    let levels = model.levels();
    let mut cloud: Vec<Vec<Pile>> = vec![vec![Pile::default(); levels]; particles];
    let mut ll = 0.0;
    for (i, t) in obs.throws.iter().enumerate() {
        let mut kept: Vec<Vec<Pile>> = Vec::with_capacity(particles);
        for p in cloud.iter() {
            let mut inside = p.clone();
            let before: u32 = inside.iter().map(Pile::total).sum::<u32>() + u32::from(t.thrown);
            let mut input = Pile::default();
            input.seats[0] = t.thrown;
            let landed = model.throw(&mut inside, input, &mut rng)?;
            if inside.len() != levels || landed.total() + inside.iter().map(Pile::total).sum::<u32>() != before {
                return Err(format!("tower model `{}` did not conserve cubes (throw {} of the record)", model.name(), i + 1));
            }
            if !model.keeps() {
                inside.iter_mut().for_each(|l| *l = Pile::default());
            }
            let seen: u32 = inside.iter().map(Pile::total).sum();
            if landed.total() == u32::from(t.landed) && t.inside.is_none_or(|i| u32::from(i) == seen) {
                kept.push(inside);
            }
        }
        if kept.is_empty() {
            return Ok(Likelihood::LostTrack { throw: i + 1, particles });
        }
        ll += (kept.len() as f64 / particles as f64).ln();
        cloud = (0..particles).map(|_| kept[rng.below(kept.len() as u32) as usize].clone()).collect();
    }
    Ok(Likelihood::Estimated { log_likelihood: ll, particles })
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
    pub likelihood: Likelihood,
}

impl Fit {
    /// The fitted log-likelihood (`-inf`: the family cannot explain the
    /// record; NaN: the particle filter lost track, no number).
    pub fn log_likelihood(&self) -> f64 {
        self.likelihood.value().unwrap_or(f64::NAN)
    }
}

/// The parameters of `m` as `tower fit` reports them.
fn levels_params(m: &Levels) -> BTreeMap<String, f64> {
    BTreeMap::from([
        ("levels".to_string(), m.levels as f64),
        ("pass".to_string(), m.pass),
        ("loosen".to_string(), m.loosen),
        ("loosen_per_cube".to_string(), if m.per_cube { 1.0 } else { 0.0 }),
    ])
}

/// The best parameters for a model family by grid search. A family whose
/// every grid point is impossible is reported impossible (with the first
/// point's reason); if the particle filter lost track at any grid point,
/// the fit reports that point rather than a best that may not be one.
pub fn fit(model: &str, obs: &Observations, method: Method) -> Result<Fit, String> {
    match model {
        "stateless" => {
            let mut best = (f64::NEG_INFINITY, 0.5);
            for i in 1..1000 {
                let p = i as f64 / 1000.0;
                let ll = stateless_log_likelihood(p, obs);
                if ll > best.0 {
                    best = (ll, p);
                }
            }
            // The best point again through the general path: the same
            // number, or the throw that makes every p impossible.
            let likelihood = likelihood(&super::Stateless { p: best.1 }, obs, method)?;
            Ok(Fit { model: "stateless".into(), params: BTreeMap::from([("p".to_string(), best.1)]), likelihood })
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
            let scores: Vec<Likelihood> = grid.par_iter().map(|m| likelihood(m, obs, method)).collect::<Result<_, String>>()?;
            let fit = |m: &Levels, likelihood: &Likelihood| Fit { model: "levels".into(), params: levels_params(m), likelihood: likelihood.clone() };
            if let Some((m, lost)) = grid.iter().zip(&scores).find(|(_, l)| matches!(l, Likelihood::LostTrack { .. })) {
                return Ok(fit(m, lost));
            }
            let mut best: Option<(&Levels, &Likelihood)> = None;
            for (m, l) in grid.iter().zip(&scores) {
                if matches!(l, Likelihood::Impossible { .. }) {
                    continue;
                }
                if best.is_none_or(|(_, b)| l.value() > b.value()) {
                    best = Some((m, l));
                }
            }
            let (m, l) = best.unwrap_or((&grid[0], &scores[0]));
            Ok(fit(m, l))
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
