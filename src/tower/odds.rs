//! Battle odds under a tower model, by simulation.

use serde::Serialize;

use super::{TowerModel, throw, throw_as};
use crate::core::{GameRng, Pile};

/// One battle set-up to simulate. Seat 1 attacks, seat 2 defends.
#[derive(Clone, Debug)]
pub struct OddsQuery {
    pub attack: u16,
    pub defend: u16,
    /// Peasants thrown with the battle.
    pub peasants: u16,
    /// The defended province has unrest (peasants take no side).
    pub unrest: bool,
    /// Cubes the defender adds from his supply (e.g. the castle event's).
    pub defender_extra: u16,
    /// Start from a tower loaded as at setup for this many players.
    pub preload: Option<u8>,
    pub preload_cubes: u16,
    pub preload_peasants: u16,
    pub trials: u32,
    pub seed: u64,
}

/// A probability with its 95% (Wilson) interval.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Estimate {
    pub p: f64,
    pub low: f64,
    pub high: f64,
}

pub fn wilson(successes: u64, n: u64) -> Estimate {
    if n == 0 {
        return Estimate { p: 0.0, low: 0.0, high: 1.0 };
    }
    let z = 1.959_963_984_540_054_f64;
    let nf = n as f64;
    let p = successes as f64 / nf;
    let denom = 1.0 + z * z / nf;
    let centre = (p + z * z / (2.0 * nf)) / denom;
    let half = z * ((p * (1.0 - p) / nf) + z * z / (4.0 * nf * nf)).sqrt() / denom;
    Estimate { p, low: (centre - half).max(0.0), high: (centre + half).min(1.0) }
}

/// A count's distribution over trials: its mean, its 5%, 50% and 95%
/// quantiles and the share of trials with each count (`shares[n]`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub q05: usize,
    pub q50: usize,
    pub q95: usize,
    pub shares: Vec<f64>,
}

/// Counts per trial, kept as a histogram.
#[derive(Default)]
struct Histogram(Vec<u64>);

impl Histogram {
    fn add(&mut self, n: usize) {
        if self.0.len() <= n {
            self.0.resize(n + 1, 0);
        }
        self.0[n] += 1;
    }
    fn spread(&self) -> Spread {
        let n: u64 = self.0.iter().sum();
        let nf = n.max(1) as f64;
        let mean = self.0.iter().enumerate().map(|(k, &c)| k as f64 * c as f64).sum::<f64>() / nf;
        // The smallest count whose cumulative share reaches q.
        let quantile = |q: f64| {
            let mut seen = 0u64;
            self.0.iter().position(|&c| {
                seen += c;
                seen as f64 >= q * n as f64
            })
        };
        let q = |x| quantile(x).unwrap_or(0);
        Spread { mean, q05: q(0.05), q50: q(0.5), q95: q(0.95), shares: self.0.iter().map(|&c| c as f64 / nf).collect() }
    }
}

/// What the setup throw leaves inside the tower (`--preload`): all cubes,
/// the peasants among them, and one player's cubes.
#[derive(Clone, Debug, Serialize)]
pub struct SetupContents {
    pub inside: Spread,
    pub peasants: Spread,
    pub per_player: Spread,
}

#[derive(Clone, Debug, Serialize)]
pub struct Odds {
    pub trials: u32,
    pub attacker_wins: Estimate,
    pub ties: Estimate,
    pub defender_wins: Estimate,
    /// survivors[n] = share of trials in which the winner kept n cubes in
    /// the province (attacker's when he won, defender's when he held).
    pub attacker_survivors: Vec<f64>,
    pub defender_survivors: Vec<f64>,
    /// Cubes of each side, and peasants, that landed in the tray.
    pub attacker_landed: Spread,
    pub defender_landed: Spread,
    pub peasants_landed: Spread,
    /// Mean of each side's cubes inside the tower after the battle.
    pub attacker_stuck_mean: f64,
    pub defender_stuck_mean: f64,
    /// The tower's contents after the setup throw (with `preload`).
    pub setup: Option<SetupContents>,
}

/// The tower after the setup throw for `players` players: contents, tray.
fn preload(model: &dyn TowerModel, q: &OddsQuery, players: u8, rng: &mut GameRng) -> Result<Vec<Pile>, String> {
    let mut inside = vec![Pile::default(); model.levels()];
    let mut tray = Pile::default();
    let mut load = Pile::default();
    for s in 0..players as usize {
        load.seats[s] = q.preload_cubes;
    }
    load.peasants = q.preload_peasants;
    throw_as(model, &mut inside, &mut tray, load, rng, true)?;
    if !model.keeps() {
        inside.iter_mut().for_each(|l| *l = Pile::default());
    }
    Ok(inside)
}

/// `outcome(kind, a, d, p, unrest)` is the rules' battle outcome function
/// (the pack's Lua `battle` handler): (winner, attacker left, defender left).
pub fn odds(
    model: &dyn TowerModel,
    q: &OddsQuery,
    mut outcome: impl FnMut(&str, u32, u32, u32, bool) -> Result<(String, u32, u32), String>,
) -> Result<Odds, String> {
    let kind = if q.defend == 0 { "neutral" } else { "attack" };
    let mut rng = GameRng::seeded(q.seed);
    let (mut aw, mut tie, mut dw) = (0u64, 0u64, 0u64);
    let mut a_surv = vec![0u64; q.attack as usize + 2];
    let mut d_surv = vec![0u64; q.defend as usize + 3];
    let (mut a_stuck, mut d_stuck) = (0u64, 0u64);
    let [mut a_landed, mut d_landed, mut p_landed] = [Histogram::default(), Histogram::default(), Histogram::default()];
    let [mut s_inside, mut s_peasants, mut s_player] = [Histogram::default(), Histogram::default(), Histogram::default()];
    for _ in 0..q.trials {
        let mut inside = match q.preload {
            Some(n) => preload(model, q, n, &mut rng)?,
            None => vec![Pile::default(); model.levels()],
        };
        if q.preload.is_some() {
            let mut all = Pile::default();
            inside.iter().for_each(|l| all.add(l));
            s_inside.add(all.total() as usize);
            s_peasants.add(usize::from(all.peasants));
            s_player.add(usize::from(all.seats[0]));
        }
        let mut tray = Pile::default();
        let mut input = Pile::default();
        input.seats[0] = q.attack;
        input.seats[1] = q.defend + if q.defend > 0 { q.defender_extra } else { 0 };
        input.peasants = q.peasants;
        let landed = throw(model, &mut inside, &mut tray, input, &mut rng)?;
        a_landed.add(usize::from(landed.seats[0]));
        d_landed.add(usize::from(landed.seats[1]));
        p_landed.add(usize::from(landed.peasants));
        let (winner, a_left, d_left) = outcome(kind, u32::from(landed.seats[0]), u32::from(landed.seats[1]), u32::from(landed.peasants), q.unrest)?;
        match winner.as_str() {
            "attacker" => {
                aw += 1;
                let i = (a_left as usize).min(a_surv.len() - 1);
                a_surv[i] += 1;
            }
            "defender" => {
                dw += 1;
                let i = (d_left as usize).min(d_surv.len() - 1);
                d_surv[i] += 1;
            }
            "tie" => tie += 1,
            other => return Err(format!("the battle rule returned the outcome `{other}`")),
        }
        if model.keeps() {
            a_stuck += inside.iter().map(|l| u64::from(l.seats[0])).sum::<u64>();
            d_stuck += inside.iter().map(|l| u64::from(l.seats[1])).sum::<u64>();
        }
    }
    let n = u64::from(q.trials);
    let share = |v: Vec<u64>| -> Vec<f64> {
        let mut v: Vec<f64> = v.into_iter().map(|c| c as f64 / n as f64).collect();
        while v.len() > 1 && *v.last().unwrap() == 0.0 {
            v.pop();
        }
        v
    };
    Ok(Odds {
        trials: q.trials,
        attacker_wins: wilson(aw, n),
        ties: wilson(tie, n),
        defender_wins: wilson(dw, n),
        attacker_survivors: share(a_surv),
        defender_survivors: share(d_surv),
        attacker_landed: a_landed.spread(),
        defender_landed: d_landed.spread(),
        peasants_landed: p_landed.spread(),
        attacker_stuck_mean: a_stuck as f64 / n as f64,
        defender_stuck_mean: d_stuck as f64 / n as f64,
        setup: q.preload.map(|_| SetupContents { inside: s_inside.spread(), peasants: s_peasants.spread(), per_player: s_player.spread() }),
    })
}

/// A battle's chances from a position of the game.
#[derive(Clone, Debug, Serialize)]
pub struct Chances {
    pub trials: u32,
    pub attacker_wins: Estimate,
    pub ties: Estimate,
    pub defender_wins: Estimate,
}

/// Where a battle is thrown from: the tower's contents and the tray.
///
/// `levels_known: false` is what a player knows: how many cubes of each
/// colour are inside (every piece is public, so they can be counted) but
/// not on which level; each trial then draws the levels from the counts
/// (`tower::sample_levels`, as `mcts` draws its worlds).
#[derive(Clone, Copy, Debug)]
pub struct Position<'a> {
    pub inside: &'a [Pile],
    pub tray: Pile,
    pub levels_known: bool,
}

/// The chances of one battle thrown from a position of the game: `input`
/// thrown in (every seat's cubes where they are, so the tray's other
/// colours fall with them as in play). `outcome(landed)` is the rules'
/// verdict on what landed: `attacker`, `defender` or `tie`.
pub fn chances_from(
    model: &dyn TowerModel,
    at: Position,
    input: Pile,
    trials: u32,
    seed: u64,
    mut outcome: impl FnMut(&Pile) -> Result<String, String>,
) -> Result<Chances, String> {
    let Position { inside, tray, levels_known } = at;
    let mut rng = GameRng::seeded(seed);
    let (mut aw, mut tie, mut dw) = (0u64, 0u64, 0u64);
    for _ in 0..trials {
        let mut now = inside.to_vec();
        if !levels_known {
            super::sample_levels(model, &mut now, &mut rng);
        }
        let mut tr = tray;
        let landed = throw(model, &mut now, &mut tr, input, &mut rng)?;
        match outcome(&landed)?.as_str() {
            "attacker" => aw += 1,
            "defender" => dw += 1,
            "tie" => tie += 1,
            other => return Err(format!("the battle rule returned the outcome `{other}`")),
        }
    }
    let n = u64::from(trials);
    Ok(Chances { trials, attacker_wins: wilson(aw, n), ties: wilson(tie, n), defender_wins: wilson(dw, n) })
}
