use std::collections::BTreeMap;

use super::TowerModel;
use crate::core::{GameRng, MAX_SEATS, Pile};

/// A tower of `levels` ledges. Each cube reaching a ledge passes it with
/// probability `pass`, otherwise sticks there. Each cube already stuck on a
/// ledge comes loose with probability `loosen` per cube that passes that
/// ledge, and falls on to the next one.
#[derive(Clone, Debug, PartialEq)]
pub struct Levels {
    pub levels: usize,
    pub pass: f64,
    pub loosen: f64,
}

impl Levels {
    pub fn from_params(params: &BTreeMap<String, f64>) -> Result<Levels, String> {
        for k in params.keys() {
            if !["levels", "pass", "loosen"].contains(&k.as_str()) {
                return Err(format!("tower.params: unknown parameter `{k}` for model `levels` (expected levels, pass, loosen)"));
            }
        }
        let get = |k: &str| params.get(k).copied().ok_or_else(|| format!("tower.params: model `levels` needs `{k}`"));
        let levels = get("levels")?;
        let pass = get("pass")?;
        let loosen = get("loosen")?;
        if !(0.0..=16.0).contains(&levels) || levels.fract() != 0.0 {
            return Err(format!("tower.params.levels is {levels}, expected a whole number 0..=16"));
        }
        for (k, v) in [("pass", pass), ("loosen", loosen)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("tower.params.{k} is {v}, expected a probability 0..=1"));
            }
        }
        Ok(Levels { levels: levels as usize, pass, loosen })
    }
}

impl TowerModel for Levels {
    fn name(&self) -> &str {
        "levels"
    }
    fn levels(&self) -> usize {
        self.levels
    }
    fn throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Pile {
        let mut falling = input;
        for ledge in inside.iter_mut() {
            let mut passed = Pile::default();
            for c in 0..=MAX_SEATS {
                let colour = (c < MAX_SEATS).then_some(c);
                let n = falling.get(colour);
                let p = rng.binomial(u32::from(n), self.pass) as u16;
                *passed.get_mut(colour) = p;
                *ledge.get_mut(colour) += n - p;
            }
            // Each passing cube shakes each stuck cube loose with `loosen`:
            // a stuck cube stays only if none of the k passing cubes frees it.
            let k = passed.total() as i32;
            if k > 0 && self.loosen > 0.0 {
                let q = 1.0 - (1.0 - self.loosen).powi(k);
                for c in 0..=MAX_SEATS {
                    let colour = (c < MAX_SEATS).then_some(c);
                    // Only cubes stuck before this throw can be shaken loose.
                    let stuck_before = ledge.get(colour) - (falling.get(colour) - passed.get(colour));
                    let loose = rng.binomial(u32::from(stuck_before), q) as u16;
                    *ledge.get_mut(colour) -= loose;
                    *passed.get_mut(colour) += loose;
                }
            }
            falling = passed;
        }
        falling
    }
}
