//! `shogun bots tune`: the planner's weights adapted to a ruleset by a
//! seeded search (issue 22 item 3): the halving search (`halving`,
//! `Search::Halving`: every one-weight step raced by sequential halving,
//! the survivor confirmed on fresh seeds; `bots tune`'s default), or the
//! coordinate search described here (`Search::Coordinate`).
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
//! `lab --adapt` runs the same search (`--adapt-search`, coordinate by
//! default) for every arm of a lab before it measures (`Adaptation`): the
//! players adapted to each ruleset.

use serde::{Deserialize, Serialize};

use super::ladder::{self, LadderSpec, Rung};
use super::stats;
use super::{Arm, Lab, LabError, Settings};
use crate::bots::{BotSpec, Weights};

/// The optimiser of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Search {
    /// One step of one weight per trial, kept when its trial shows it
    /// better (`tune`, the module's text).
    #[default]
    Coordinate,
    /// Every one-weight step at once, raced by sequential halving on
    /// common seeds, the survivor confirmed on fresh seeds (`halving`).
    Halving,
}

impl Search {
    pub fn parse(s: &str) -> Result<Search, String> {
        match s {
            "coordinate" => Ok(Search::Coordinate),
            "halving" => Ok(Search::Halving),
            _ => Err(format!("`{s}` is no search: coordinate or halving")),
        }
    }

    fn is_coordinate(&self) -> bool {
        *self == Search::Coordinate
    }

    pub fn name(self) -> &'static str {
        match self {
            Search::Coordinate => "coordinate",
            Search::Halving => "halving",
        }
    }
}

/// What a search is run with.
pub struct TuneSpec {
    pub arm: Arm,
    /// The optimiser.
    pub search: Search,
    /// The planner's options that are not weights (`:no-build`), kept on
    /// every candidate.
    pub options: String,
    /// Where the search starts.
    pub start: Weights,
    /// The bot in the other seats; `None`: the incumbent (self-play).
    pub opponent: Option<String>,
    /// Games per trial (coordinate); games of each halving round, shared
    /// by the candidates left, and half a confirmation (halving).
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
    /// Halving: the step size of the pass, and every candidate raced to
    /// choose this one, in the order tried (empty for a coordinate trial).
    pub step: f64,
    pub field: Vec<Entrant>,
}

/// One candidate of a halving pass: a step of one weight, the games it
/// played (all its rounds, on the seeds every other candidate of those
/// rounds played too) and the rounds it took part in.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    pub weight: &'static str,
    pub from: f64,
    pub to: f64,
    pub games: u64,
    /// Games won (a tie for first shared).
    pub wins: f64,
    pub rounds: u32,
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
    /// The optimiser (`--adapt-search`); a header without it is of the
    /// coordinate search, and one of the coordinate search leaves it out.
    #[serde(default, skip_serializing_if = "Search::is_coordinate")]
    pub search: Search,
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
        Ok(Adaptation { budget, trial, seed, check, from: from.to_string(), opponent, search: Search::Coordinate, arms: Vec::new() })
    }

    /// These settings with the optimiser `search`; checked: a halving
    /// search's budget must hold its first pass (every one-weight step
    /// from the start, raced and confirmed).
    pub fn with_search(mut self, search: Search) -> Result<Adaptation, String> {
        if search == Search::Halving {
            let (start, _) = start_of(&self.from)?;
            let (k, cost) = first_pass(&start, self.trial);
            if self.budget < cost {
                return Err(format!(
                    "--adapt {} with --adapt-search halving: the budget must hold one pass of trials of {} games ({cost} games: its rounds among {k} steps and a confirmation of {})",
                    self.budget,
                    self.trial,
                    2 * self.trial
                ));
            }
        }
        self.search = search;
        Ok(self)
    }

    /// Games each arm's search and check play at most.
    pub fn per_arm(&self) -> u64 {
        let search = match self.search {
            Search::Coordinate => self.budget / self.trial * self.trial,
            Search::Halving => self.budget,
        };
        search + self.check
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
        Ok(TuneSpec {
            arm: arm.clone(),
            search: self.search,
            options,
            start,
            opponent: self.opponent.clone(),
            games: self.trial,
            budget: self.budget,
            check: self.check,
            settings,
        })
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
        ) + if self.search == Search::Halving { "search\thalving\n" } else { "" }
    }

    /// Whether `found` could be what a search with these settings found
    /// (a cache entry read back): a planner with the start's restrictions
    /// (`:no-build`), its games within the budget (whole trials of a
    /// coordinate search; no more confirmations than a halving search's
    /// budget holds), and a check of the asked size exactly when a step
    /// was kept.
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
        let whole = match self.search {
            Search::Coordinate => found.games == found.trials.saturating_mul(self.trial),
            Search::Halving => found.trials <= halving_trials(self.budget, self.trial),
        };
        if found.games > self.budget || !whole || found.kept > found.trials {
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
        let mut out = match self.search {
            Search::Coordinate => format!(
                "  players adapted per arm: a coordinate search from {} by {against}, {} games a trial, at most {} games per arm, seeds {} \
                 onwards; a step kept only when the trial shows it better (its win rate's lower bound at the level 1 - 0.05/{} above {par:.0}%, \
                 what an equal player wins: Bonferroni over the {} trials the budget holds)\n",
                self.from,
                self.trial,
                self.budget,
                self.seed,
                self.budget / self.trial,
                self.budget / self.trial
            ),
            Search::Halving => format!(
                "  players adapted per arm: a halving search from {} by {against} (each pass races every one-weight step by sequential halving, \
                 {} games a round on common seeds, the survivor confirmed on {} fresh games), at most {} games per arm, seeds {} onwards; a step \
                 kept only when its confirmation shows it better (its win rate's 95% lower bound above {par:.0}%, what an equal player wins)\n",
                self.from,
                self.trial,
                2 * self.trial,
                self.budget,
                self.seed
            ),
        };
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

/// Every one-weight step from `best` at `step`, up then down, in the
/// weights' order (a weight at 0 only up).
fn steps(best: &Weights, step: f64) -> Vec<(&'static str, f64, f64)> {
    let mut out = Vec::new();
    for name in Weights::NAMES {
        for up in [true, false] {
            let from = best.get(name);
            let to = stepped(from, step, up);
            if to != from && !out.iter().any(|&(n, _, t)| n == name && t == to) {
                out.push((name, from, to));
            }
        }
    }
    out
}

/// The rounds of sequential halving among `k` candidates with `games`
/// games a round: (candidates left, games each plays), until one is left
/// (one round at least). Each round's games are shared by the candidates
/// left, so each round costs at most `games` (at least one game each).
pub fn halving_rounds(k: usize, games: u64) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    let mut left = k.max(1);
    loop {
        out.push((left, (games / left as u64).max(1)));
        if left == 1 {
            return out;
        }
        left = left.div_ceil(2);
        if left == 1 {
            return out;
        }
    }
}

/// The first pass of a halving search from `start` with `games` games a
/// round: how many steps it races, and its games (a budget below them
/// would play no pass at all and report the start as found).
fn first_pass(start: &Weights, games: u64) -> (usize, u64) {
    let k = steps(start, 2.0).len().max(2);
    (k, halving_cost(k, games))
}

/// Games of a halving pass among `k` candidates: its rounds and the
/// confirmation (`2 × games`).
pub fn halving_cost(k: usize, games: u64) -> u64 {
    halving_rounds(k, games).iter().map(|&(n, g)| n as u64 * g).sum::<u64>() + 2 * games
}

/// How many confirmations a halving search's budget holds at most (each
/// pass plays at least one round and a confirmation: `3 × games`).
pub fn halving_trials(budget: u64, games: u64) -> u64 {
    (budget / games.saturating_mul(3).max(1)).max(1)
}

/// Runs the search; `progress` gets the games played so far.
pub fn tune(spec: &TuneSpec, progress: &dyn Fn(u64)) -> Result<Tuned, LabError> {
    if spec.search == Search::Halving {
        return halving(spec, progress);
    }
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
                trials.push(Trial { weight: name, from, to, rung, bound, accepted, step, field: Vec::new() });
                if accepted {
                    break;
                }
            }
        }
        if !moved {
            step = step.sqrt();
        }
    }
    let check = final_check(spec, &best, played, progress)?;
    Ok(Tuned { weights: best, trials, games: played, check })
}

/// The weights found against the start on seeds `seed + budget ..`;
/// `None` when they are the start or no check is asked for.
fn final_check(spec: &TuneSpec, best: &Weights, played: u64, progress: &dyn Fn(u64)) -> Result<Option<Rung>, LabError> {
    if *best == spec.start || spec.check == 0 {
        return Ok(None);
    }
    let mut settings = spec.settings.clone();
    settings.games = spec.check;
    settings.seed = spec.settings.seed.wrapping_add(spec.budget);
    let levels = vec![planner_name(&spec.start, &spec.options), planner_name(best, &spec.options)];
    let lspec = LadderSpec { arm: spec.arm.clone(), levels, settings };
    Ok(Some(ladder::ladder(&lspec, &|done| progress(played + done))?.remove(0)))
}

/// The halving search. A pass takes every one-weight step from the
/// incumbent at the current step size (`steps`) and races them by
/// sequential halving (`halving_rounds`): each round, every candidate left
/// plays an equal share of `games` games in one seat against the opponent
/// (the incumbent by default) in the others, seats rotated, all of them on
/// the same block of fresh seeds (common seeds: a deal that favours a seat
/// favours every candidate alike); the better half by games won over all
/// its rounds goes on (on equal wins, the earlier in `steps`' order). The
/// last one left is confirmed: `2 × games` games on fresh seeds no round
/// played, kept as the incumbent only when that win rate's Wilson 95%
/// lower bound lies above an equal player's share. The race chose it for
/// its luck as well as its skill; the confirmation's games did not, so a
/// step no better than the incumbent is kept with a chance of at most
/// 2.5% a pass (no Bonferroni over the passes: whether the weights found
/// beat the start is the final check's to say, on games no pass played).
/// A pass that keeps nothing takes the step to its square root; below
/// 1.05 the passes start again at 2 from the incumbent, on fresh seeds,
/// so the budget is spent, not left when the steps run out. The search
/// stops when the next pass would exceed the budget. Every block of seeds
/// is the next after the last one used, from `seed`, so the search is
/// deterministic for a seed and the jobs.
fn halving(spec: &TuneSpec, progress: &dyn Fn(u64)) -> Result<Tuned, LabError> {
    let g = spec.games;
    let (k, cost) = first_pass(&spec.start, g);
    if g == 0 || spec.budget < cost {
        return Err(LabError::Setup(format!(
            "the budget ({} games) must hold at least one halving pass of --games {g}: {cost} games for its {k} steps (its rounds and a confirmation of {})",
            spec.budget,
            2 * g
        )));
    }
    let par = Rung::par(spec.settings.players);
    let (mut best, mut step, mut played, mut used) = (spec.start, 2.0f64, 0u64, 0u64);
    let mut trials = Vec::new();
    loop {
        if step <= 1.05 {
            step = 2.0;
        }
        let cands = steps(&best, step);
        if cands.is_empty() || played + halving_cost(cands.len(), g) > spec.budget {
            break;
        }
        let lower = spec.opponent.clone().unwrap_or_else(|| planner_name(&best, &spec.options));
        let name = |i: usize| {
            let mut w = best;
            w.set(cands[i].0, cands[i].2);
            planner_name(&w, &spec.options)
        };
        let mut field: Vec<Entrant> = cands.iter().map(|&(weight, from, to)| Entrant { weight, from, to, games: 0, wins: 0.0, rounds: 0 }).collect();
        let mut left: Vec<usize> = (0..cands.len()).collect();
        for (n, each) in halving_rounds(cands.len(), g) {
            debug_assert_eq!(n, left.len());
            let mut settings = spec.settings.clone();
            settings.games = each;
            settings.seed = spec.settings.seed.wrapping_add(used);
            let pairs = left.iter().map(|&i| (name(i), lower.clone())).collect();
            let base = played;
            let rungs = ladder::pairs(&spec.arm, pairs, &settings, &|done| progress(base + done))?;
            used += each;
            played += each * n as u64;
            for (&i, r) in left.iter().zip(&rungs) {
                let e = &mut field[i];
                e.games += r.games;
                e.wins += r.wins;
                e.rounds += 1;
            }
            left.sort_by(|&a, &b| field[b].wins.total_cmp(&field[a].wins).then(a.cmp(&b)));
            left.truncate(n.div_ceil(2));
        }
        let chosen = left[0];
        let mut settings = spec.settings.clone();
        settings.games = 2 * g;
        settings.seed = spec.settings.seed.wrapping_add(used);
        let base = played;
        let rung = ladder::pairs(&spec.arm, vec![(name(chosen), lower)], &settings, &|done| progress(base + done))?.remove(0);
        used += 2 * g;
        played += 2 * g;
        let bound = keep_bound(&rung, 1);
        let accepted = bound > par;
        let (weight, from, to) = cands[chosen];
        trials.push(Trial { weight, from, to, rung, bound, accepted, step, field });
        if accepted {
            best.set(weight, to);
        } else {
            step = step.sqrt();
        }
    }
    let check = final_check(spec, &best, played, progress)?;
    Ok(Tuned { weights: best, trials, games: played, check })
}

/// The halving search as text: each pass's race (every candidate with
/// its games and win rate over the rounds it played, the survivor first)
/// and its confirmation.
fn halving_table(t: &Tuned, players: u8) -> String {
    let mut out = format!(
        "halving search: each pass races every one-weight step from the incumbent, one seat of each against {} of the opponent,\n\
         seats rotated, on common seeds, the better half going on each round; the survivor is confirmed on fresh seeds and\n\
         replaces the incumbent only when its win rate's 95% lower bound lies above {:.0}%, what an equal player wins\n",
        players.saturating_sub(1),
        100.0 * Rung::par(players)
    );
    for (i, tr) in t.trials.iter().enumerate() {
        out.push_str(&format!("\npass {} (step ×{:.4}): {} candidates\n", i + 1, tr.step, tr.field.len()));
        out.push_str(&format!("  {:<9} {:>8} {:>8}  {:>6}  {:>8}  rounds\n", "weight", "from", "to", "games", "win rate"));
        let mut order: Vec<&Entrant> = tr.field.iter().collect();
        order.sort_by(|a, b| b.rounds.cmp(&a.rounds).then(b.wins.total_cmp(&a.wins)));
        for e in order {
            out.push_str(&format!(
                "  {:<9} {:>8} {:>8}  {:>6}  {:>7.1}%  {}\n",
                e.weight,
                e.from,
                e.to,
                e.games,
                100.0 * e.wins / e.games.max(1) as f64,
                e.rounds
            ));
        }
        let r = &tr.rung.win_rate;
        out.push_str(&format!(
            "  confirmation of {}={}: {} games, {:.1}% ({:.1}–{:.1}%), bound {:.1}%: {}\n",
            tr.weight,
            tr.to,
            tr.rung.games,
            100.0 * r.value,
            100.0 * r.lo,
            100.0 * r.hi,
            100.0 * tr.bound,
            if tr.accepted { "kept" } else { "not kept" }
        ));
    }
    out
}

/// The search as a table.
pub fn table(t: &Tuned, options: &str, players: u8, trials: u64) -> String {
    if t.trials.iter().any(|tr| !tr.field.is_empty()) {
        let mut out = halving_table(t, players);
        out.push_str(&found_text(t, options));
        return out;
    }
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
    out.push_str(&found_text(t, options));
    out
}

/// The games played, the weights found and the check.
fn found_text(t: &Tuned, options: &str) -> String {
    let mut out = format!("\n{} games; the weights found: {}\n", t.games, planner_name(&t.weights, options));
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
    use super::{halving_cost, halving_rounds, halving_trials, stepped, steps};
    use crate::bots::Weights;

    /// Sequential halving's schedule: half the candidates (rounded up) go
    /// on each round, a round's games shared among those left, until one
    /// is left; one round even for a single candidate.
    #[test]
    fn halving_halves_the_candidates_each_round_within_its_games() {
        assert_eq!(halving_rounds(19, 200), [(19, 10), (10, 20), (5, 40), (3, 66), (2, 100)]);
        assert_eq!(halving_rounds(2, 200), [(2, 100)]);
        assert_eq!(halving_rounds(1, 200), [(1, 200)]);
        assert_eq!(halving_rounds(4, 2), [(4, 1), (2, 1)], "at least one game each");
        assert_eq!(halving_cost(19, 200), 190 + 200 + 200 + 198 + 200 + 400);
        assert_eq!(halving_trials(60_000, 2000), 10);
        assert_eq!(halving_trials(100, 2000), 1);
    }

    /// A pass's candidates: every weight up and down, a weight at 0 only up.
    #[test]
    fn a_pass_steps_every_weight_up_and_down() {
        let d = Weights::default();
        let s = steps(&d, 2.0);
        let zero = Weights::NAMES.iter().filter(|n| d.get(n) == 0.0).count();
        assert_eq!(s.len(), 2 * Weights::NAMES.len() - zero, "{s:?}");
        assert_eq!(s[0], ("future", 0.4, 0.8));
        assert_eq!(s[1], ("future", 0.4, 0.2));
        assert!(s.contains(&("order", 0.0, 0.25)) && !s.iter().any(|&(n, _, t)| n == "order" && t == 0.0));
        assert!(s.contains(&("chance", 0.4, 0.8)) && s.contains(&("commit", 0.5, 0.25)));
    }

    #[test]
    fn steps_scale_and_leave_zero_only_upwards() {
        assert_eq!(stepped(0.5, 2.0, true), 1.0);
        assert_eq!(stepped(0.5, 2.0, false), 0.25);
        assert_eq!(stepped(0.0, 2.0, true), 0.25);
        assert_eq!(stepped(0.0, 2.0, false), 0.0);
    }
}
