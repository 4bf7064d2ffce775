use std::collections::BTreeMap;

use super::law::{ln_binomial, ln_chance, ln_factorials};
use super::{TowerModel, params, probability};
use crate::core::{GameRng, MAX_SEATS, Pile};

/// Each cube lands with probability `p`, independently. Nothing is
/// remembered: cubes that do not land go back to their owners' supplies
/// right after the throw, without counting.
#[derive(Clone, Debug, PartialEq)]
pub struct Stateless {
    pub p: f64,
}

impl Stateless {
    pub fn from_params(p: &BTreeMap<String, f64>) -> Result<Stateless, String> {
        let [v] = params("stateless", p, ["p"])?;
        Ok(Stateless { p: probability("stateless", "p", v)? })
    }
}

impl TowerModel for Stateless {
    fn name(&self) -> &str {
        "stateless"
    }
    fn levels(&self) -> usize {
        1
    }
    fn keeps(&self) -> bool {
        false
    }
    /// Of a arriving cubes, Binomial(a, p) land and the rest join the s
    /// on the level.
    fn ledge_laws(&self, stuck: u16, max_arriving: u16) -> Option<Vec<Vec<f64>>> {
        let (s, max) = (usize::from(stuck), usize::from(max_arriving));
        let lf = ln_factorials(max);
        let (ln_land, ln_stay) = ln_chance(self.p);
        Some(
            (0..=max)
                .map(|a| {
                    let mut law = vec![f64::NEG_INFINITY; s + a + 1];
                    for (l, &x) in ln_binomial(a, ln_land, ln_stay, &lf).iter().enumerate() {
                        law[s + a - l] = x;
                    }
                    law
                })
                .collect(),
        )
    }
    fn ledge_laws_work(&self, stuck: f64, arriving: f64) -> f64 {
        // One binomial row per arriving count, in a law as long as stuck + arriving.
        stuck * arriving * (stuck + arriving)
    }
    fn throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
        // What does not land waits on the single level until the engine
        // hands it back to its owners right after the throw (`keeps`).
        let mut landed = Pile::default();
        for c in 0..=MAX_SEATS {
            let colour = (c < MAX_SEATS).then_some(c);
            let n = input.get(colour);
            let l = rng.binomial(u32::from(n), self.p) as u16;
            *landed.get_mut(colour) = l;
            *inside[0].get_mut(colour) += n - l;
        }
        Ok(landed)
    }
}

/// Every cube lands.
#[derive(Clone, Debug, PartialEq)]
pub struct Passthrough;

impl TowerModel for Passthrough {
    fn name(&self) -> &str {
        "passthrough"
    }
    fn levels(&self) -> usize {
        0
    }
    fn throw(&self, _inside: &mut [Pile], input: Pile, _rng: &mut GameRng) -> Result<Pile, String> {
        Ok(input)
    }
}

/// Only forced outcomes: a throw without one is an error.
#[derive(Clone, Debug, PartialEq)]
pub struct Scripted;

impl TowerModel for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn levels(&self) -> usize {
        1
    }
    fn throw(&self, _inside: &mut [Pile], _input: Pile, _rng: &mut GameRng) -> Result<Pile, String> {
        Err("the scripted tower has no outcome queued for this throw (force one first)".into())
    }
}
