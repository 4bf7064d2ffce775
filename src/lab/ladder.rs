//! The skill ladder: each bot level plays against the level below it.
//!
//! A rung is a lab condition with one seat of the upper level and every
//! other seat of the lower level, rotated one seat per game, game `i`
//! seeded `seed + i` on every rung (common seeds). The rung's figure is
//! the share of games the upper seat wins (a tie for first counts as the
//! fraction of the winners it is), with a Wilson 95% interval; a bot no
//! better than the level below wins 1/players of the games.

use super::stats::{self, Interval};
use super::{Arm, GameRecord, Lab, LabError, Settings};

/// One rung's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Rung {
    pub upper: String,
    pub lower: String,
    pub games: u64,
    /// Games won by the upper seat (ties shared).
    pub wins: f64,
    /// The upper seat's win rate, 0..1, with its Wilson 95% interval.
    pub win_rate: Interval,
    /// Mean points of the upper seat minus the mean of the lower seats.
    pub margin: Interval,
}

impl Rung {
    /// What an upper level no better than the lower one would win.
    pub fn par(players: u8) -> f64 {
        1.0 / f64::from(players.max(1))
    }
}

/// What the ladder is played with.
pub struct LadderSpec {
    pub arm: Arm,
    /// Bot names from the weakest up (at least two).
    pub levels: Vec<String>,
    /// Players, seed, games, jobs, setup, check mode (rotation is always on).
    pub settings: Settings,
}

/// Plays every rung and returns them from the lowest up. `progress` gets
/// the number of games played so far (all rungs).
pub fn ladder(spec: &LadderSpec, progress: &dyn Fn(u64)) -> Result<Vec<Rung>, LabError> {
    if spec.levels.len() < 2 {
        return Err(LabError::Setup("--levels needs at least two bots, weakest first".into()));
    }
    let rungs: Vec<(String, String)> = spec.levels.windows(2).map(|w| (w[1].clone(), w[0].clone())).collect();
    pairs(&spec.arm, rungs, &spec.settings, progress)
}

/// Plays any rungs (upper, lower) in one lab on common seeds (game `i` of
/// every rung seeded `settings.seed + i`) and returns them in order:
/// `ladder`'s rungs, or the candidates of a round of `bots tune`'s
/// halving search, each against the incumbent.
pub fn pairs(arm: &Arm, rungs: Vec<(String, String)>, settings: &Settings, progress: &dyn Fn(u64)) -> Result<Vec<Rung>, LabError> {
    let players = settings.players;
    if players < 2 {
        return Err(LabError::Setup("the ladder needs at least 2 players".into()));
    }
    let sets: Vec<Vec<String>> = rungs
        .iter()
        .map(|(upper, lower)| {
            let mut bots = vec![lower.clone(); players as usize];
            bots[0] = upper.clone();
            bots
        })
        .collect();
    let mut settings = settings.clone();
    settings.rotate = Some(true);
    settings.batch = settings.batch.min(64);
    let lab = Lab::new(vec![arm.clone()], &sets, "--levels", &[], settings).map_err(LabError::Setup)?;
    let lab_seats = lab.header.seats.clone();
    let mut wins = vec![stats::Sums::default(); rungs.len()];
    let mut margins = vec![stats::Sums::default(); rungs.len()];
    let mut games = vec![0u64; rungs.len()];
    let mut sink = |r: &GameRecord| -> Result<(), LabError> {
        let (upper, _) = &rungs[r.condition];
        let Some(seat) = r.bots.iter().position(|b| b == upper) else {
            return Err(LabError::Setup(format!("game {}: no seat plays `{upper}`", r.game)));
        };
        let name = lab_seats.get(seat).map(String::as_str).unwrap_or("?");
        let share = if r.winners.iter().any(|w| w == name) { 1.0 / r.winners.len() as f64 } else { 0.0 };
        let others: Vec<f64> = (0..r.points.len()).filter(|&s| s != seat).map(|s| r.points[s] as f64).collect();
        let mean_others = others.iter().sum::<f64>() / others.len().max(1) as f64;
        wins[r.condition].add(share);
        margins[r.condition].add(r.points[seat] as f64 - mean_others);
        games[r.condition] += 1;
        Ok(())
    };
    super::run(&lab, &mut sink, progress)?;
    Ok(rungs
        .into_iter()
        .enumerate()
        .map(|(i, (upper, lower))| Rung {
            upper,
            lower,
            games: games[i],
            wins: wins[i].sum,
            win_rate: stats::wilson(wins[i].sum, games[i]),
            margin: margins[i].mean(games[i]),
        })
        .collect())
}

/// The ladder as a table.
pub fn table(rungs: &[Rung], players: u8) -> String {
    let mut out = format!(
        "skill ladder: one seat of the upper level against {} of the level below, seats rotated, common seeds\n\
         (an upper level no better than the one below wins {:.0}% of the games)\n\n",
        players.saturating_sub(1),
        100.0 * Rung::par(players)
    );
    let width = rungs.iter().map(|r| r.upper.len() + r.lower.len() + 4).max().unwrap_or(10).max(4);
    out.push_str(&format!("{:<width$}  {:>6}  {:>8}  {:>13}  {:>16}\n", "rung", "games", "win rate", "95% CI", "points margin"));
    for r in rungs {
        let name = format!("{} vs {}", r.upper, r.lower);
        out.push_str(&format!(
            "{name:<width$}  {:>6}  {:>7.1}%  {:>13}  {:>+6.1} ({:+.1}..{:+.1})\n",
            r.games,
            100.0 * r.win_rate.value,
            format!("{:.1}–{:.1}%", 100.0 * r.win_rate.lo, 100.0 * r.win_rate.hi),
            r.margin.value,
            r.margin.lo,
            r.margin.hi
        ));
    }
    let par = Rung::par(players);
    for r in rungs {
        let verdict = if r.win_rate.lo > par {
            "beats"
        } else if r.win_rate.hi < par {
            "loses to"
        } else {
            "cannot be told apart from"
        };
        out.push_str(&format!("\n{} {verdict} {} ({} games)", r.upper, r.lower, r.games));
    }
    out.push('\n');
    out
}
