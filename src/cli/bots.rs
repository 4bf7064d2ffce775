//! `shogun bots ladder`: the skill ladder of the bots (see `crate::lab::ladder`).

use std::sync::Arc;

use clap::{Args, Subcommand};

use super::GameData;
use crate::lab::ladder::{self, LadderSpec};
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
}

#[derive(Args, Debug)]
pub struct LadderArgs {
    /// Map, rules, variants and tower to play under.
    #[command(flatten)]
    pub data: GameData,
    /// Games per rung.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
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
    }
}

fn ladder_cmd(args: LadderArgs) -> Result<(), String> {
    if args.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let spec = args.data.spec();
    let rules = spec.rules()?;
    let name = match &spec.tower {
        Some(t) => format!("{}@{t}", rules.ruleset_name()),
        None => rules.ruleset_name(),
    };
    let arm = Arm { name: name.clone(), rules: Arc::new(rules), tower: spec.tower.clone() };
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
