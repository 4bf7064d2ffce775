//! `shogun bots tune`: the planner's weights adapted to a ruleset by a
//! seeded coordinate search (issue 22 item 3).
//!
//! The incumbent starts at the given weights. One weight at a time, a
//! candidate with that weight scaled up (then, if that fails, down) plays
//! one seat against the opponent in every other seat (the incumbent
//! itself by default: self-play; or a fixed bot), seats rotated, as a
//! ladder rung. It replaces the incumbent when it wins more than the share
//! an equal player wins. A pass over every weight with no replacement
//! halves the step. Each trial plays its own block of seeds (trial `k`
//! uses seeds `seed + k·games ..`), so the search is deterministic for a
//! seed and never judges two candidates on the same games twice. It stops
//! when the budget of games is spent.

use super::ladder::{self, LadderSpec, Rung};
use super::{Arm, LabError, Settings};
use crate::bots::Weights;

/// What a search is run with.
pub struct TuneSpec {
    pub arm: Arm,
    /// The planner's options that are not weights (`:no-build`), kept on
    /// every candidate.
    pub options: String,
    /// Where the search starts.
    pub start: Weights,
    /// The bot in the other seats; `None`: the incumbent (self-play).
    pub opponent: Option<String>,
    /// Games per trial.
    pub games: u64,
    /// Games in all: the search stops before a trial would exceed it.
    pub budget: u64,
    /// Players, first seed, setup, jobs, check mode.
    pub settings: Settings,
}

/// One trial of the search.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    pub weight: &'static str,
    pub from: f64,
    pub to: f64,
    /// The candidate's rung against the opponent.
    pub rung: Rung,
    pub accepted: bool,
}

/// The search's result: the weights found and every trial on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    pub weights: Weights,
    pub trials: Vec<Trial>,
    pub games: u64,
}

/// The planner's name with `weights` and `options`.
pub fn planner_name(weights: &Weights, options: &str) -> String {
    format!("planner{options}{}", weights.options())
}

/// The candidate value of a weight one step up or down.
fn stepped(value: f64, step: f64, up: bool) -> f64 {
    let v = if value == 0.0 {
        if up { 0.25 * (step - 1.0) } else { 0.0 }
    } else if up {
        value * step
    } else {
        value / step
    };
    // Four significant decimals: names stay short and readable.
    (v * 10_000.0).round() / 10_000.0
}

/// Runs the search; `progress` gets the games played so far.
pub fn tune(spec: &TuneSpec, progress: &dyn Fn(u64)) -> Result<Tuned, LabError> {
    if spec.games == 0 || spec.budget < spec.games {
        return Err(LabError::Setup(format!("the budget ({} games) must hold at least one trial of --games {}", spec.budget, spec.games)));
    }
    let par = Rung::par(spec.settings.players);
    let mut best = spec.start;
    let mut step = 2.0f64;
    let mut trials = Vec::new();
    let mut played = 0u64;
    'search: while step > 1.05 {
        let mut moved = false;
        for name in Weights::NAMES {
            for up in [true, false] {
                if played + spec.games > spec.budget {
                    break 'search;
                }
                let from = best.get(name);
                let to = stepped(from, step, up);
                if to == from {
                    continue;
                }
                let mut cand = best;
                cand.set(name, to);
                let lower = spec.opponent.clone().unwrap_or_else(|| planner_name(&best, &spec.options));
                let mut settings = spec.settings.clone();
                settings.games = spec.games;
                settings.seed = spec.settings.seed.wrapping_add(trials.len() as u64 * spec.games);
                let lspec = LadderSpec { arm: spec.arm.clone(), levels: vec![lower, planner_name(&cand, &spec.options)], settings };
                let base = played;
                let rung = ladder::ladder(&lspec, &|done| progress(base + done))?.remove(0);
                played += spec.games;
                let accepted = rung.win_rate.value > par;
                if accepted {
                    best = cand;
                    moved = true;
                }
                trials.push(Trial { weight: name, from, to, rung, accepted });
                if accepted {
                    break;
                }
            }
        }
        if !moved {
            step = step.sqrt();
        }
    }
    Ok(Tuned { weights: best, trials, games: played })
}

/// The search as a table.
pub fn table(t: &Tuned, options: &str, players: u8) -> String {
    let mut out = format!(
        "coordinate search: each trial is one seat of the candidate against {} of the opponent, seats rotated\n\
         (a candidate no better than the opponent wins {:.0}%; it replaces the incumbent above that)\n\n",
        players.saturating_sub(1),
        100.0 * Rung::par(players)
    );
    out.push_str(&format!("{:>5}  {:<9} {:>8} {:>8}  {:>8}  {:>13}  kept\n", "trial", "weight", "from", "to", "win rate", "95% CI"));
    for (i, tr) in t.trials.iter().enumerate() {
        let r = &tr.rung.win_rate;
        out.push_str(&format!(
            "{:>5}  {:<9} {:>8} {:>8}  {:>7.1}%  {:>13}  {}\n",
            i + 1,
            tr.weight,
            tr.from,
            tr.to,
            100.0 * r.value,
            format!("{:.1}–{:.1}%", 100.0 * r.lo, 100.0 * r.hi),
            if tr.accepted { "yes" } else { "" }
        ));
    }
    out.push_str(&format!("\n{} games; the weights found: {}\n", t.games, planner_name(&t.weights, options)));
    out
}

#[cfg(test)]
mod tests {
    use super::stepped;

    #[test]
    fn steps_scale_and_leave_zero_only_upwards() {
        assert_eq!(stepped(0.5, 2.0, true), 1.0);
        assert_eq!(stepped(0.5, 2.0, false), 0.25);
        assert_eq!(stepped(0.0, 2.0, true), 0.25);
        assert_eq!(stepped(0.0, 2.0, false), 0.0);
    }
}
