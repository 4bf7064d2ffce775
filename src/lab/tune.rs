//! `shogun bots tune`: the planner's weights adapted to a ruleset by a
//! seeded coordinate search (issue 22 item 3).
//!
//! The incumbent starts at the given weights. One weight at a time, a
//! candidate with that weight scaled up (then, if that fails, down) plays
//! one seat against the opponent in every other seat (the incumbent
//! itself by default: self-play; or a fixed bot), seats rotated, as a
//! ladder rung. It replaces the incumbent only when the trial shows it
//! better (`shown_better`): the lower bound of its win rate's Wilson
//! interval at the two-sided level 1 - 0.05/T, T the trials the budget
//! holds (Bonferroni over the search), lies above the share an equal player
//! wins (1/players). So a search whose candidates are all no better than
//! the start keeps a step with a chance of at most 2.5%. A point estimate
//! above that share is not enough: on a trial of 200 games one standard
//! error is about 3 points, and a candidate that plays exactly as the
//! incumbent passes about half of its trials. A pass over every weight with no replacement
//! narrows the step to its square root (×2, ×1.41, ×1.19, ×1.09). Each trial
//! plays its own block of seeds (trial `k` uses seeds `seed + k·games ..`),
//! so the search is deterministic for a seed and never judges two
//! candidates on the same games twice. It stops when the budget of games is
//! spent.
//!
//! Then a check (`TuneSpec::check` games, on seeds `seed + budget ..`,
//! which no trial played): one seat of the weights found against the
//! starting planner in every other seat, seats rotated. Its win rate, with
//! its interval, says how much better the tuned player is on games the
//! search never saw (the trials that kept a step were chosen for their
//! luck as well as their skill).
//!
//! `lab --adapt` runs the same search for every arm of a lab before it
//! measures (`Adaptation`): the players adapted to each ruleset.

use serde::{Deserialize, Serialize};

use super::ladder::{self, LadderSpec, Rung};
use super::stats;
use super::{Arm, Lab, LabError, Settings};
use crate::bots::{BotSpec, Weights};

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
    /// Games of the final check (the weights found against the start, on
    /// seeds `seed + budget ..`); 0: none.
    pub check: u64,
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
    /// Its win rate's lower bound at the search's level (`keep_bound`).
    pub bound: f64,
    pub accepted: bool,
}

/// The search's result: the weights found, every trial on the way and the
/// check of the weights found against the start.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    pub weights: Weights,
    pub trials: Vec<Trial>,
    /// Games the search's trials played (not the check's).
    pub games: u64,
    /// The final check; `None` when no step was kept (the weights found are
    /// the start) or no check was asked for.
    pub check: Option<Rung>,
}

/// The lower bound a trial's win rate must lift above par: the Wilson
/// interval's at the two-sided level 1 - 0.05/`trials` (`trials`: how many
/// the search's budget holds; Bonferroni, so that a search among
/// candidates no better than the start keeps one with a chance of at most
/// 2.5%).
pub fn keep_bound(rung: &Rung, trials: u64) -> f64 {
    stats::wilson_at(rung.wins, rung.games, stats::ALPHA / trials.max(1) as f64).lo
}

/// Whether a trial shows the candidate better than the players it met
/// (`keep_bound` above what an equal player wins). At 200 games a 4-player
/// candidate must win about 31% of one trial's games, 35% of a trial of a
/// search of 10 trials; larger trials show smaller gains.
pub fn shown_better(rung: &Rung, players: u8, trials: u64) -> bool {
    keep_bound(rung, trials) > Rung::par(players)
}

/// The planner a search starts from (`--from`, `--adapt-from`): its
/// weights, and its options that are not weights (`:no-build`), which stay
/// on every candidate.
pub fn start_of(from: &str) -> Result<(Weights, String), String> {
    let spec = BotSpec::parse(from)?;
    if spec.kind != "planner" {
        return Err(format!("`{from}` is not a planner: only the planner has weights to tune (e.g. planner:order=0)"));
    }
    let mut options = String::new();
    if spec.forbid.attack {
        options.push_str(":no-attack");
    }
    if spec.forbid.build {
        options.push_str(":no-build");
    }
    Ok((spec.weights, options))
}

/// How far the seeds of `lab --adapt`'s searches lie from the lab's own:
/// trial k of every arm's search plays seeds `SEED + 10^9 + k·trial`
/// onwards, games the lab itself never measures (its game i plays `SEED + i`).
pub const ADAPT_SEED_OFFSET: u64 = 1_000_000_000;

/// `lab --adapt`: how each arm's planner is tuned before the lab measures
/// (one coordinate search per arm, on that arm's rules and tower, with the
/// lab's players and setup), and the planner found for each arm. The
/// header of an adapted run holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adaptation {
    /// Games each arm's search may play.
    pub budget: u64,
    /// Games per trial.
    pub trial: u64,
    /// The search's first seed (trial k plays `seed + k·trial` onwards).
    pub seed: u64,
    /// Games of each arm's final check (seeds `seed + budget` onwards): the
    /// planner found against the one the search started from; 0: none.
    pub check: u64,
    /// The planner the searches start from.
    pub from: String,
    /// The bot in the other seats of a trial; `None`: the incumbent (self-play).
    pub opponent: Option<String>,
    /// Per arm, in the header's order: the planner found.
    pub arms: Vec<AdaptedArm>,
}

/// The planner one arm's search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptedArm {
    /// The tuned planner as a bot name (`planner:future=0.2:exposure=0.25`):
    /// what every seat of the arm plays under the adapted condition.
    pub bot: String,
    /// Games the search played.
    pub games: u64,
    /// Trials it made, and how many replaced the incumbent.
    pub trials: u64,
    pub kept: u64,
    /// The check of `bot` against the starting planner on fresh seeds;
    /// `None` when no step was kept (`bot` is the start).
    pub check: Option<Checked>,
}

/// A check rung's result, as a header and a cache entry hold it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checked {
    pub games: u64,
    /// Games the tuned seat won (a tie for first shared).
    pub wins: f64,
    /// Its win rate's Wilson 95% interval, 0..1.
    pub lo: f64,
    pub hi: f64,
}

impl Checked {
    fn of(r: &Rung) -> Checked {
        Checked { games: r.games, wins: r.wins, lo: r.win_rate.lo, hi: r.win_rate.hi }
    }

    /// `28.0% (22.2–34.6%) of 200 games`
    pub fn text(&self) -> String {
        format!("{:.1}% ({:.1}–{:.1}%) of {} games", 100.0 * self.wins / self.games.max(1) as f64, 100.0 * self.lo, 100.0 * self.hi, self.games)
    }
}

impl Adaptation {
    /// The settings of `lab --adapt` (no arm tuned yet) for a lab of
    /// `lab_games` games from `lab_seed`; checked.
    pub fn new(budget: u64, trial: u64, check: u64, (lab_seed, lab_games): (u64, u64), from: &str, opponent: Option<String>) -> Result<Adaptation, String> {
        if budget == 0 {
            return Err("--adapt 0: give a budget of games per arm (e.g. --adapt 2000)".into());
        }
        if trial == 0 || budget < trial {
            return Err(format!("--adapt {budget}: the budget must hold at least one trial of {trial} games (--adapt-trial)"));
        }
        if lab_games > ADAPT_SEED_OFFSET {
            return Err(format!(
                "--adapt with --games {lab_games}: the tuning plays seeds SEED+{ADAPT_SEED_OFFSET} onwards, which the lab's own games would reach; \
                 play at most {ADAPT_SEED_OFFSET} games per arm with --adapt"
            ));
        }
        start_of(from).map_err(|e| format!("--adapt-from: {e}"))?;
        if let Some(o) = &opponent {
            BotSpec::parse(o).map_err(|e| format!("--adapt-opponent: {e}"))?;
        }
        let seed = lab_seed.wrapping_add(ADAPT_SEED_OFFSET);
        Ok(Adaptation { budget, trial, seed, check, from: from.to_string(), opponent, arms: Vec::new() })
    }

    /// The search for arm `a` of `lab`: under the arm's rules and tower,
    /// with the lab's players, setup, jobs and checks.
    pub fn spec(&self, lab: &Lab, a: usize) -> Result<TuneSpec, String> {
        let (start, options) = start_of(&self.from)?;
        let arm = lab.arms.get(a).ok_or_else(|| format!("--adapt: no arm {a}"))?;
        let mut settings = Settings::new(lab.header.players, self.seed, self.trial);
        settings.setup = Some(lab.setup);
        settings.jobs = Some(lab.jobs);
        settings.check = lab.check;
        Ok(TuneSpec { arm: arm.clone(), options, start, opponent: self.opponent.clone(), games: self.trial, budget: self.budget, check: self.check, settings })
    }

    /// Everything but the program that fixes arm `a`'s search result, as
    /// text (what a cache of tuned players is keyed by): the arm's rules
    /// hash (its name, tower and every rules file's SHA-256), the players,
    /// setup and map, the start, the opponent, the budget, the trial size,
    /// the check's size and the seed.
    pub fn key(&self, lab: &Lab, a: usize) -> String {
        let h = &lab.header;
        format!(
            "arm\t{}\nrules\t{}\nplayers\t{}\nmap\t{}\nsetup\t{}\nfrom\t{}\nopponent\t{}\nbudget\t{}\ntrial\t{}\ncheck\t{}\nseed\t{}\n",
            h.arms.get(a).map(String::as_str).unwrap_or(""),
            h.rules.get(a).map(|r| r.hash.as_str()).unwrap_or(""),
            h.players,
            h.map,
            h.setup,
            self.from,
            self.opponent.as_deref().unwrap_or("(self-play)"),
            self.budget,
            self.trial,
            self.check,
            self.seed
        )
    }

    /// Whether `found` could be what a search with these settings found
    /// (a cache entry read back): a planner with the start's restrictions
    /// (`:no-build`), whole trials within the budget, and a check of the
    /// asked size exactly when a step was kept.
    pub fn check(&self, found: &AdaptedArm) -> Result<(), String> {
        let spec = BotSpec::parse(&found.bot)?;
        if spec.kind != "planner" {
            return Err(format!("`{}` is not a planner", found.bot));
        }
        let (start, options) = start_of(&self.from)?;
        if start_of(&found.bot)?.1 != options {
            let what = if options.is_empty() { "none".to_string() } else { options.trim_start_matches(':').replace(':', ", ") };
            return Err(format!("`{}` does not keep the restrictions of `{}` ({what})", found.bot, self.from));
        }
        if found.games > self.budget || found.games != found.trials.saturating_mul(self.trial) || found.kept > found.trials {
            return Err(format!(
                "{} games in {} trials ({} kept) do not fit a budget of {} and trials of {}",
                found.games, found.trials, found.kept, self.budget, self.trial
            ));
        }
        let moved = spec.weights != start;
        if found.kept == 0 && moved {
            return Err(format!("`{}` differs from `{}` though no step was kept", found.bot, self.from));
        }
        let fits = match &found.check {
            None => !moved || self.check == 0,
            Some(c) => moved && c.games == self.check && (0.0..=c.games as f64).contains(&c.wins) && 0.0 <= c.lo && c.lo <= c.hi && c.hi <= 1.0,
        };
        if !fits {
            return Err(format!("its check does not fit a check of {} games of a planner that {} the start", self.check, if moved { "left" } else { "kept" }));
        }
        Ok(())
    }

    /// What a report says of the adaptation: the search, then one line
    /// per arm (the planner found, how, and its check).
    pub fn text(&self, h: &super::Header) -> String {
        let against = self.opponent.as_deref().map_or("self-play".to_string(), |o| format!("against {o}"));
        let par = 100.0 * Rung::par(h.players);
        let mut out = format!(
            "  players adapted per arm: a coordinate search from {} by {against}, {} games a trial, at most {} games per arm, seeds {} \
             onwards; a step kept only when the trial shows it better (its win rate's lower bound at the level 1 - 0.05/{} above {par:.0}%, \
             what an equal player wins: Bonferroni over the {} trials the budget holds)\n",
            self.from,
            self.trial,
            self.budget,
            self.seed,
            self.budget / self.trial,
            self.budget / self.trial
        );
        if self.check > 0 {
            out.push_str(&format!(
                "  check: {} games of each arm's tuned planner in one seat against {} in the others, seeds {} onwards (no trial played them)\n",
                self.check,
                self.from,
                self.seed.wrapping_add(self.budget)
            ));
        }
        let fixed = h.conditions.iter().filter(|c| c.per_arm.is_empty()).collect::<Vec<_>>();
        if !fixed.is_empty() && fixed.iter().all(|c| c.bots.iter().all(|b| *b == self.from)) {
            out.push_str(&format!("  fixed players: {} in every seat, the planner the search starts from (lab --adapt's default without --bots)\n", self.from));
        }
        for (i, (a, name)) in self.arms.iter().zip(&h.arms).enumerate() {
            let check = match &a.check {
                Some(c) => format!("; check against {}: {} (an equal player wins {par:.0}%)", self.from, c.text()),
                None if a.kept == 0 => ": no step shown better, the starting planner".to_string(),
                None => String::new(),
            };
            out.push_str(&format!(
                "    arm {} ({}): {} ({} games, {} of {} trials kept{check})\n",
                i + 1,
                super::report::short(name),
                a.bot,
                a.games,
                a.kept,
                a.trials
            ));
        }
        out
    }
}

impl Tuned {
    /// The search's result as one arm's adapted planner.
    pub fn adapted(&self, options: &str) -> AdaptedArm {
        AdaptedArm {
            bot: planner_name(&self.weights, options),
            games: self.games,
            trials: self.trials.len() as u64,
            kept: self.trials.iter().filter(|t| t.accepted).count() as u64,
            check: self.check.as_ref().map(Checked::of),
        }
    }
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
                let bound = keep_bound(&rung, spec.budget / spec.games);
                let accepted = bound > Rung::par(spec.settings.players);
                if accepted {
                    best = cand;
                    moved = true;
                }
                trials.push(Trial { weight: name, from, to, rung, bound, accepted });
                if accepted {
                    break;
                }
            }
        }
        if !moved {
            step = step.sqrt();
        }
    }
    let check = if best == spec.start || spec.check == 0 {
        None
    } else {
        let mut settings = spec.settings.clone();
        settings.games = spec.check;
        settings.seed = spec.settings.seed.wrapping_add(spec.budget);
        let levels = vec![planner_name(&spec.start, &spec.options), planner_name(&best, &spec.options)];
        let lspec = LadderSpec { arm: spec.arm.clone(), levels, settings };
        Some(ladder::ladder(&lspec, &|done| progress(played + done))?.remove(0))
    };
    Ok(Tuned { weights: best, trials, games: played, check })
}

/// The search as a table.
pub fn table(t: &Tuned, options: &str, players: u8, trials: u64) -> String {
    let mut out = format!(
        "coordinate search: each trial is one seat of the candidate against {} of the opponent, seats rotated\n\
         (a candidate no better than the opponent wins {:.0}%; it replaces the incumbent only when its win rate's lower bound at the\n\
         level 1 - 0.05/{trials}, Bonferroni over the {trials} trials the budget holds, lies above that)\n\n",
        players.saturating_sub(1),
        100.0 * Rung::par(players)
    );
    out.push_str(&format!("{:>5}  {:<9} {:>8} {:>8}  {:>8}  {:>13}  {:>7}  kept\n", "trial", "weight", "from", "to", "win rate", "95% CI", "bound"));
    for (i, tr) in t.trials.iter().enumerate() {
        let r = &tr.rung.win_rate;
        out.push_str(&format!(
            "{:>5}  {:<9} {:>8} {:>8}  {:>7.1}%  {:>13}  {:>6.1}%  {}\n",
            i + 1,
            tr.weight,
            tr.from,
            tr.to,
            100.0 * r.value,
            format!("{:.1}–{:.1}%", 100.0 * r.lo, 100.0 * r.hi),
            100.0 * tr.bound,
            if tr.accepted { "yes" } else { "" }
        ));
    }
    out.push_str(&format!("\n{} games; the weights found: {}\n", t.games, planner_name(&t.weights, options)));
    match &t.check {
        Some(c) => out.push_str(&format!(
            "check on fresh seeds ({} games no trial played): {} in one seat against {} wins {:.1}% ({:.1}–{:.1}%), points margin {:+.1} ({:+.1}..{:+.1})\n",
            c.games,
            c.upper,
            c.lower,
            100.0 * c.win_rate.value,
            100.0 * c.win_rate.lo,
            100.0 * c.win_rate.hi,
            c.margin.value,
            c.margin.lo,
            c.margin.hi
        )),
        None if t.trials.iter().all(|tr| !tr.accepted) => out.push_str("no step was shown better: the weights found are the start\n"),
        None => {}
    }
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
