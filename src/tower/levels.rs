use std::collections::BTreeMap;

use super::law::{ln_add, ln_binomial, ln_chance, ln_factorials};
use super::{TowerModel, params, probability};
use crate::core::{GameRng, MAX_SEATS, Pile};

/// A tower of `levels` ledges. Each cube reaching a ledge passes it with
/// probability `pass`, otherwise sticks there. Cubes already stuck on a
/// ledge come loose and fall on to the next one: with probability `loosen`
/// per cube that passes the ledge (`loosen_per_cube: 1`), or with
/// probability `loosen` once per throw (`loosen_per_cube: 0`). Only cubes
/// stuck before the throw come loose in it. `setup_pass` (optional) is the
/// pass probability of the setup throw alone.
#[derive(Clone, Debug, PartialEq)]
pub struct Levels {
    pub levels: usize,
    pub pass: f64,
    pub loosen: f64,
    pub per_cube: bool,
    pub setup_pass: Option<f64>,
}

impl Levels {
    pub fn from_params(p: &BTreeMap<String, f64>) -> Result<Levels, String> {
        let mut p = p.clone();
        let setup_pass = p.remove("setup_pass").map(|v| probability("levels", "setup_pass", v)).transpose()?;
        let [levels, pass, loosen, per_cube] = params("levels", &p, ["levels", "pass", "loosen", "loosen_per_cube"])
            .map_err(|e| if e.starts_with("unknown") { format!("{e} (and the optional setup_pass)") } else { e })?;
        if !(0.0..=16.0).contains(&levels) || levels.fract() != 0.0 {
            return Err(format!("tower model `levels`: levels is {levels}, expected a whole number 0..=16"));
        }
        if per_cube != 0.0 && per_cube != 1.0 {
            return Err(format!("tower model `levels`: loosen_per_cube is {per_cube}, expected 0 (per throw) or 1 (per passing cube)"));
        }
        Ok(Levels {
            levels: levels as usize,
            pass: probability("levels", "pass", pass)?,
            loosen: probability("levels", "loosen", loosen)?,
            per_cube: per_cube == 1.0,
            setup_pass,
        })
    }
}

impl TowerModel for Levels {
    fn name(&self) -> &str {
        "levels"
    }
    fn levels(&self) -> usize {
        self.levels
    }
    fn setup_throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
        match self.setup_pass {
            Some(pass) => Levels { pass, setup_pass: None, ..self.clone() }.throw(inside, input, rng),
            None => self.throw(inside, input, rng),
        }
    }
    /// A ledge with s stuck and a arriving: p ~ Binomial(a, pass) pass it,
    /// the a - p others stick; then l ~ Binomial(s, q) of the s stuck
    /// before come loose, q = loosen per throw or 1 - (1 - loosen)^p per
    /// passing cube (as `throw`); s + a - p - l stay.
    fn ledge_laws(&self, stuck: u16, max_arriving: u16) -> Option<Vec<Vec<f64>>> {
        let (s, max) = (usize::from(stuck), usize::from(max_arriving));
        let lf = ln_factorials(s + max);
        let (ln_pass, ln_stick) = ln_chance(self.pass);
        let loose_row = |ln_stay: f64| {
            // ln q from ln(1 - q): q = -(e^ln_stay - 1).
            ln_binomial(s, (-ln_stay.exp_m1()).ln(), ln_stay, &lf)
        };
        let per_throw = loose_row((-self.loosen).ln_1p());
        // Per passing cube: the row for p passing cubes, made when first asked.
        let mut per_cube: Vec<Vec<f64>> = Vec::new();
        let ln_stay_one = (-self.loosen).ln_1p();
        let mut laws = Vec::with_capacity(max + 1);
        for a in 0..=max {
            let mut law = vec![f64::NEG_INFINITY; s + a + 1];
            for (p, &lp) in ln_binomial(a, ln_pass, ln_stick, &lf).iter().enumerate() {
                if lp == f64::NEG_INFINITY {
                    continue;
                }
                let loose = if self.per_cube {
                    while per_cube.len() <= p {
                        let n = per_cube.len();
                        per_cube.push(loose_row(if n == 0 { 0.0 } else { n as f64 * ln_stay_one }));
                    }
                    &per_cube[p]
                } else {
                    &per_throw
                };
                for (l, &ll) in loose.iter().enumerate() {
                    let k = s + a - p - l;
                    law[k] = ln_add(law[k], lp + ll);
                }
            }
            laws.push(law);
        }
        Some(laws)
    }
    fn ledge_laws_work(&self, stuck: f64, arriving: f64) -> f64 {
        // Per arriving count, every passing count times a row of the stuck
        // ones (and the per-cube rows), for each stuck count.
        stuck * (stuck + 1.0) * arriving * (arriving + 2.0) / 4.0
    }
    fn throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
        let mut falling = input;
        for ledge in inside.iter_mut() {
            let stuck_before = *ledge;
            let mut passed = Pile::default();
            for c in 0..=MAX_SEATS {
                let colour = (c < MAX_SEATS).then_some(c);
                let n = falling.get(colour);
                let p = rng.binomial(u32::from(n), self.pass) as u16;
                *passed.get_mut(colour) = p;
                *ledge.get_mut(colour) += n - p;
            }
            // A stuck cube stays only if nothing shakes it loose: with k
            // passing cubes, it comes loose with 1 - (1 - loosen)^k.
            let q = if self.per_cube {
                // Repeated multiplication, not powi: powi's result may differ
                // between platforms and builds, and games must not.
                let mut stay = 1.0;
                for _ in 0..passed.total() {
                    stay *= 1.0 - self.loosen;
                }
                1.0 - stay
            } else {
                self.loosen
            };
            if q > 0.0 {
                for c in 0..=MAX_SEATS {
                    let colour = (c < MAX_SEATS).then_some(c);
                    let loose = rng.binomial(u32::from(stuck_before.get(colour)), q) as u16;
                    *ledge.get_mut(colour) -= loose;
                    *passed.get_mut(colour) += loose;
                }
            }
            falling = passed;
        }
        Ok(falling)
    }
}
