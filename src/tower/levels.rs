use std::collections::BTreeMap;

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
