use std::collections::BTreeMap;

use super::law::{ln_add, ln_binomial, ln_chance, ln_factorials};
use super::{TowerModel, params, probability};
use crate::core::{Chance, GameRng, MAX_SEATS, Pile};

/// A tower of `levels` ledges, followed cube by cube. The thrown cubes fall
/// in a random order. A cube reaching a ledge first gives each cube stuck
/// there, one after another, the chance `loosen` to come loose (a loose
/// cube falls on to the next ledge ahead of it); then it passes the ledge
/// with probability `pass` or sticks there itself, where the cubes after it
/// in the same throw may knock it loose. So every cube that reaches a ledge
/// shakes it, including the cubes that then stick, and cubes poured into an
/// empty tower free each other.
#[derive(Clone, Debug, PartialEq)]
pub struct Cascade {
    pub levels: usize,
    pub pass: f64,
    pub loosen: f64,
}

impl Cascade {
    pub fn from_params(p: &BTreeMap<String, f64>) -> Result<Cascade, String> {
        let [levels, pass, loosen] = params("cascade", p, ["levels", "pass", "loosen"])?;
        if !(0.0..=16.0).contains(&levels) || levels.fract() != 0.0 {
            return Err(format!("tower model `cascade`: levels is {levels}, expected a whole number 0..=16"));
        }
        Ok(Cascade { levels: levels as usize, pass: probability("cascade", "pass", pass)?, loosen: probability("cascade", "loosen", loosen)? })
    }
}

/// A pile as one entry per cube: its colour's index (seats, then peasants
/// at `MAX_SEATS`), colour by colour.
fn cubes(pile: &Pile, out: &mut Vec<u8>) {
    for c in 0..=MAX_SEATS {
        let colour = (c < MAX_SEATS).then_some(c);
        out.extend(std::iter::repeat_n(c as u8, usize::from(pile.get(colour))));
    }
}

/// A cube reaching a ledge shakes it: each cube stuck there, in order,
/// comes loose with probability `loosen` (one draw each, in that order)
/// and falls on to `below`; the others stay, in their order.
fn shake(stuck: &mut Vec<u8>, below: &mut Vec<u8>, loosen: Chance, rng: &mut GameRng) {
    let mut kept = 0;
    for i in 0..stuck.len() {
        let s = stuck[i];
        if rng.draw(loosen) {
            below.push(s);
        } else {
            stuck[kept] = s;
            kept += 1;
        }
    }
    stuck.truncate(kept);
}

fn pile(cubes: &[u8]) -> Pile {
    let mut p = Pile::default();
    for &c in cubes {
        *p.get_mut((usize::from(c) < MAX_SEATS).then_some(usize::from(c))) += 1;
    }
    p
}

impl TowerModel for Cascade {
    fn name(&self) -> &str {
        "cascade"
    }
    fn levels(&self) -> usize {
        self.levels
    }
    /// A ledge with m stuck, cube by cube as `throw`: each arriving cube
    /// first frees Binomial(m, loosen) of them, then sticks with 1 - pass.
    /// Only counts matter, so the laws for 0, 1, 2, ... arriving cubes are
    /// the steps of one walk over m.
    fn ledge_laws(&self, stuck: u16, max_arriving: u16) -> Option<Vec<Vec<f64>>> {
        let (s, max) = (usize::from(stuck), usize::from(max_arriving));
        let lf = ln_factorials(s + max);
        let (ln_free, ln_hold) = ln_chance(self.loosen);
        let (ln_pass, ln_stick) = ln_chance(self.pass);
        // How many of m stuck cubes one arrival frees, for every m reached.
        let frees: Vec<Vec<f64>> = (0..=s + max).map(|m| ln_binomial(m, ln_free, ln_hold, &lf)).collect();
        let mut law = vec![f64::NEG_INFINITY; s + 1];
        law[s] = 0.0;
        let mut laws = Vec::with_capacity(max + 1);
        for _ in 0..max {
            let mut shaken = vec![f64::NEG_INFINITY; law.len()];
            for (m, &lm) in law.iter().enumerate() {
                if lm == f64::NEG_INFINITY {
                    continue;
                }
                for (freed, &lb) in frees[m].iter().enumerate() {
                    shaken[m - freed] = ln_add(shaken[m - freed], lm + lb);
                }
            }
            let mut next = vec![f64::NEG_INFINITY; law.len() + 1];
            for (m, &lm) in shaken.iter().enumerate() {
                next[m] = ln_add(next[m], lm + ln_pass);
                next[m + 1] = ln_add(next[m + 1], lm + ln_stick);
            }
            laws.push(std::mem::replace(&mut law, next));
        }
        laws.push(law);
        Some(laws)
    }
    fn throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
        let (pass, loosen) = (Chance::new(self.pass), Chance::new(self.loosen));
        let mut falling = Vec::with_capacity(input.total() as usize);
        cubes(&input, &mut falling);
        rng.shuffle(&mut falling);
        let mut stuck = Vec::new();
        let mut below = Vec::with_capacity(falling.len());
        for ledge in inside.iter_mut() {
            // The order of the cubes stuck from earlier throws is not kept
            // in the state: a random one (it decides only the order in which
            // cubes freed by the same arrival fall on).
            stuck.clear();
            cubes(ledge, &mut stuck);
            rng.shuffle(&mut stuck);
            below.clear();
            for &cube in &falling {
                if self.loosen > 0.0 {
                    shake(&mut stuck, &mut below, loosen, rng);
                }
                if rng.draw(pass) {
                    below.push(cube);
                } else {
                    stuck.push(cube);
                }
            }
            *ledge = pile(&stuck);
            std::mem::swap(&mut falling, &mut below);
        }
        Ok(pile(&falling))
    }
}
