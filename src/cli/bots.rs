//! `shogun bots ladder`: the skill ladder of the bots (see `crate::lab::ladder`);
//! `shogun bots tune`: the planner's weights tuned to a ruleset (`crate::lab::tune`).

use std::sync::Arc;

use clap::{Args, Subcommand};

use super::GameData;
use crate::bots::BotSpec;
use crate::lab::ladder::{self, LadderSpec};
use crate::lab::tune::{self, TuneSpec};
use crate::lab::{Arm, Settings};

#[derive(Args, Debug)]
pub struct BotsCmd {
    #[command(subcommand)]
    pub sub: BotsSub,
}

#[derive(Subcommand, Debug)]
pub enum BotsSub {
    /// Play each bot level against the level below (one seat of the upper
    /// level, the others of the lower, seats rotated, common seeds) and
    /// print the upper level's win rate with a Wilson 95% interval.
    #[command(
        after_help = "Examples:\n  shogun bots ladder --games 200\n  shogun bots ladder --levels greedy:no-attack,greedy --games 2000\n  shogun bots ladder --variant hard-winter --levels random,greedy,mcts:100"
    )]
    Ladder(LadderArgs),
    /// Tune the planner's weights to a ruleset by a seeded search (halving
    /// by default, or coordinate): candidates play in one seat against the
    /// incumbent (self-play) or a fixed opponent; prints every trial and
    /// the weights found as a bot name to use with --bots.
    #[command(
        after_help = "Examples:\n  shogun bots tune --budget 40000 --games 2000\n  shogun bots tune --variant castle-majority --budget 2000 --games 200 --search coordinate\n  shogun bots tune --opponent greedy --from planner:order=0\n\nhalving: each pass races every one-weight step from the incumbent by sequential halving\n(each round --games games shared by the candidates left, on common seeds, the better half\ngoing on), then confirms the survivor on 2 x --games fresh games, kept when the\nconfirmation's 95% lower bound lies above what an equal player wins; the passes go on\nuntil the budget is spent. coordinate: one step of one weight per trial of --games games,\nkept when its win rate's lower bound at the level 1 - 0.05/T (T: the trials the budget\nholds) lies above what an equal player wins.\nThen the weights found are checked against --from on seeds no trial played (--check).\nThe result is deterministic for a seed (each block of games takes the next seeds from\nSEED on).\nThe weights are explained in docs/bots.md."
    )]
    Tune(TuneArgs),
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Map, rules, variants and tower to tune under.
    #[command(flatten)]
    pub data: GameData,
    /// The optimiser: halving or coordinate (docs/bots.md, "Tuning").
    #[arg(long, default_value = "halving", value_parser = tune::Search::parse)]
    pub search: tune::Search,
    /// Games per trial (coordinate); games of each halving round, shared by
    /// the candidates left, and half of each confirmation (halving).
    #[arg(long, default_value_t = 200)]
    pub games: u64,
    /// Games in all; the search stops before a trial would pass it.
    #[arg(long, default_value_t = 4000)]
    pub budget: u64,
    /// Number of players (the base rules take 3 to 5).
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// Where the search starts: a planner with options
    /// (planner:order=0:no-build); its restrictions stay on every candidate.
    #[arg(long, default_value = "planner")]
    pub from: String,
    /// The bot in the other seats (default: the incumbent, self-play).
    #[arg(long)]
    pub opponent: Option<String>,
    /// Worker threads (default: every core). The result does not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// The first seed: each block of games (a trial, a round, a
    /// confirmation) plays the seeds after the last block's.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games of the final check: the weights found in one seat against
    /// --from in the others, on seeds SEED+budget onwards, which no trial
    /// played (default: --games; 0: no check).
    #[arg(long, value_name = "N")]
    pub check: Option<u64>,
}

#[derive(Args, Debug)]
pub struct LadderArgs {
    /// Map, rules, variants and tower to play under.
    #[command(flatten)]
    pub data: GameData,
    /// Games per rung.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Number of players (the base rules take 3 to 5).
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// The levels from the weakest up, comma separated (bot names with
    /// options, e.g. mcts:400, greedy:no-attack).
    #[arg(long, value_delimiter = ',', default_value = "random,greedy,mcts:100,mcts:400")]
    pub levels: Vec<String>,
    /// Worker threads (default: every core). The result does not depend on
    /// it unless a level has a time budget (mcts:50ms).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Game i of every rung uses seed SEED+i.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn command(cmd: BotsCmd) -> Result<(), String> {
    match cmd.sub {
        BotsSub::Ladder(a) => ladder_cmd(a),
        BotsSub::Tune(a) => tune_cmd(a),
    }
}

/// The one arm a ladder or a search plays under, and its name.
fn arm_of(data: &GameData) -> Result<(Arm, String), String> {
    let spec = data.spec();
    let rules = spec.rules()?;
    let name = match &spec.tower {
        Some(t) => format!("{}@{t}", rules.ruleset_name()),
        None => rules.ruleset_name(),
    };
    Ok((Arm { name: name.clone(), rules: Arc::new(rules), tower: spec.tower.clone() }, name))
}

fn tune_cmd(args: TuneArgs) -> Result<(), String> {
    if args.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let (start, options) = tune::start_of(&args.from).map_err(|e| format!("--from: {e}"))?;
    if let Some(o) = &args.opponent {
        BotSpec::parse(o).map_err(|e| format!("--opponent: {e}"))?;
    }
    let (arm, name) = arm_of(&args.data)?;
    let check = args.check.unwrap_or(args.games);
    let mut settings = Settings::new(args.players, args.seed, args.games);
    settings.setup = args.data.setup;
    settings.jobs = args.jobs;
    let spec = TuneSpec {
        arm,
        search: args.search,
        options: options.clone(),
        start,
        opponent: args.opponent.clone(),
        games: args.games,
        budget: args.budget,
        check,
        settings,
    };
    let (total, trials) = match args.search {
        tune::Search::Coordinate => (args.budget / args.games * args.games, args.budget / args.games),
        tune::Search::Halving => (args.budget, 1),
    };
    // The check is played only when the search kept a step: the bar counts
    // it, and says so first, so that a run ending short of it is expected.
    if check > 0 {
        eprintln!("bots tune: at most {} games: the search ({total}), then a check on {check} fresh games if it keeps a step", total + check);
    }
    let bar = super::Progress::games(total + check);
    let started = std::time::Instant::now();
    let tuned = tune::tune(&spec, &|done| bar.set(done)).map_err(|e| e.to_string())?;
    bar.finish();
    let checked = tuned.check.as_ref().map_or(0, |c| c.games);
    eprintln!("{} games in {:.1} s", tuned.games + checked, started.elapsed().as_secs_f64());
    let against = args.opponent.as_deref().unwrap_or("the incumbent (self-play)");
    println!("ruleset {name}, {} players, opponent {against}, from {}", args.players, args.from);
    print!("{}", tune::table(&tuned, &options, args.players, trials));
    Ok(())
}

fn ladder_cmd(args: LadderArgs) -> Result<(), String> {
    if args.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let (arm, name) = arm_of(&args.data)?;
    let mut settings = Settings::new(args.players, args.seed, args.games);
    settings.setup = args.data.setup;
    settings.jobs = args.jobs;
    let lspec = LadderSpec { arm, levels: args.levels.clone(), settings };
    let total = args.games * (args.levels.len() as u64 - 1);
    let bar = super::Progress::games(total);
    let started = std::time::Instant::now();
    let rungs = ladder::ladder(&lspec, &|done| bar.set(done)).map_err(|e| e.to_string())?;
    bar.finish();
    eprintln!("{total} games in {:.1} s", started.elapsed().as_secs_f64());
    println!("ruleset {name}, {} players, seeds {}..{}", args.players, args.seed, args.seed + args.games - 1);
    print!("{}", ladder::table(&rungs, args.players));
    Ok(())
}
