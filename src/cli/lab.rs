//! `shogun lab`: compare rulesets over paired, seeded games (see
//! `crate::lab`); `shogun lab merge`: combine shards into one report.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::{DEFAULT_BOT, GameData};
use crate::lab::tune::{Adaptation, Search};
use crate::lab::{self, Arm, GameRecord, Header, Lab, LabError, LabWord, Report, Settings};

pub const EXAMPLES: &str = "Examples:
  shogun lab --variant hard-winter --against base --games 20000
  shogun lab --variant hard-winter --against --variant hard-winter:loss=4 --against base --games 5000
  shogun lab --variant ro-events --against --games 100000 --until-ci 1.5 --report lab.html
  shogun lab --variant hard-winter --against --towers two-level,thirds,stateless --bots-sets greedy,random
  shogun lab --variant castle-majority --against base --games 2000 --adapt 4000 --adapt-trial 1000
  shogun lab --variant hard-winter --against --games 100000 --shard 3/10 --jsonl part3.jsonl
  shogun lab merge part*.jsonl --report lab.html

Arms: the options before the first --against (--variant, --tower, --rules) make the first
arm; each --against starts another, written the same way (`base` or nothing: the plain
rules; a bare name: that variant). Game i of every arm uses seed S+i and the same bot
seeds, so identical rulesets give identical games and differences are paired.

--adapt GAMES tunes the planner to each arm first (at most GAMES games of self-play per
arm in whole trials of --adapt-trial games, seeds SEED+10^9 onwards; a step is kept only
when its trial shows it better, then the planner found is checked against the start on
fresh seeds) and reports the verdicts under the fixed players and under the players
adapted per arm side by side. Under the adapted condition each arm plays its own tuned
planner: the seeds are still shared, but a difference there is the rules' and the
players' together (rules + each arm's tuned players), and the intervals do not hold the
search's own noise. Without --bots, the fixed players are the planner the search starts
from (--adapt-from; by default the planner, as without --adapt). The tuned weights are cached by the arm's rules hash, so a second run with the
same rules does not tune again (docs/lab.md).";

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct LabCmd {
    #[command(subcommand)]
    pub sub: Option<LabSub>,
    #[command(flatten)]
    pub args: LabArgs,
}

#[derive(Subcommand, Debug)]
pub enum LabSub {
    /// Combine JSONL shards (`--shard K/N --jsonl FILE`) into the report a
    /// single run gives.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' JSONL files, in any order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub out: Output,
}

/// Where the report goes.
#[derive(Args, Debug, Default)]
pub struct Output {
    /// Print the summary as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML report (inline SVG plots).
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct LabArgs {
    /// The first arm's map, rules, variants and tower; shared options.
    #[command(flatten)]
    pub data: GameData,
    /// Games per arm (and per tower and bot set); the most with --until-ci.
    #[arg(long, default_value_t = 2000)]
    pub games: u64,
    /// Number of players (the base rules take 3 to 5).
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// Bots by seat, comma separated (the last fills the rest; default:
    /// planner, the rule-aware player; with --adapt the planner the search
    /// starts from).
    #[arg(long, value_delimiter = ',')]
    pub bots: Vec<String>,
    /// Rotate the bots one seat per game (default: on when the bots differ).
    #[arg(long, overrides_with = "no_rotate")]
    pub rotate: bool,
    /// Keep each bot in its seat.
    #[arg(long)]
    pub no_rotate: bool,
    /// Worker threads (default: every core). The result does not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Game i uses seed SEED+i under every arm.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Keep playing in batches (500 games per arm) until every headline
    /// interval (seat win-rate differences, in percentage points) is
    /// narrower than W, or --games.
    #[arg(long, value_name = "W")]
    pub until_ci: Option<f64>,
    /// Sensitivity: run every arm under each of these towers.
    #[arg(long, value_delimiter = ',', value_name = "T1,T2,...")]
    pub towers: Vec<String>,
    /// Sensitivity: run every arm with each bot set (`greedy,random`; seats
    /// within a set joined by `+`, e.g. `greedy+random`).
    #[arg(long, value_delimiter = ',', value_name = "SET1,SET2,...")]
    pub bots_sets: Vec<String>,
    /// Players adapted to each ruleset: before measuring, tune the
    /// planner's weights for every arm by self-play on that arm's rules (a
    /// seeded coordinate search, as `bots tune --search coordinate`; at most GAMES games per
    /// arm; a step kept only when its trial shows it better), then play a
    /// condition "rules + each arm's tuned players", every arm with its own
    /// tuned planner, beside the fixed players. The tuned weights are
    /// cached by the arm's rules hash (--adapt-cache).
    #[arg(long, value_name = "GAMES")]
    pub adapt: Option<u64>,
    /// Games per trial of the --adapt search (default: 200, or the budget
    /// when it is smaller). Larger trials show smaller gains; a budget that
    /// is not whole trials plays the whole trials that fit (with a note).
    /// With --adapt-search halving: games of each halving round, and half
    /// of each confirmation.
    #[arg(long, value_name = "N", requires = "adapt")]
    pub adapt_trial: Option<u64>,
    /// The --adapt optimiser: coordinate, or halving (as `bots tune`'s
    /// default; docs/bots.md, "Tuning").
    #[arg(long, value_name = "SEARCH", default_value = "coordinate", value_parser = Search::parse, requires = "adapt")]
    pub adapt_search: Search,
    /// Games of each arm's final --adapt check: the planner found in one
    /// seat against --adapt-from in the others, on seeds no trial played
    /// (default: --adapt-trial; 0: no check).
    #[arg(long, value_name = "N", requires = "adapt")]
    pub adapt_check: Option<u64>,
    /// The planner --adapt starts from (its restrictions, e.g. no-build,
    /// stay on); without --bots, the fixed players too.
    #[arg(long, default_value = "planner", value_name = "PLANNER", requires = "adapt")]
    pub adapt_from: String,
    /// The bot in the other seats of an --adapt trial (default: the
    /// incumbent, self-play).
    #[arg(long, value_name = "BOT", requires = "adapt")]
    pub adapt_opponent: Option<String>,
    /// Where --adapt caches tuned players (default: $SHOGUN_TUNE_CACHE,
    /// else $XDG_CACHE_HOME/shogun-lab/tuned, else ~/.cache/shogun-lab/tuned;
    /// `none`: no cache).
    #[arg(long, value_name = "DIR|none", requires = "adapt")]
    pub adapt_cache: Option<PathBuf>,
    /// Play only slice K of N of the games (write them with --jsonl and
    /// combine with `shogun lab merge`); `auto` reads a Slurm array task,
    /// `auto/N` a Kubernetes Indexed Job's JOB_COMPLETION_INDEX.
    #[arg(long, value_name = "K/N|auto|auto/N")]
    pub shard: Option<String>,
    /// Write one JSON record per game and arm (with a header line) to FILE.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// When the engine checks its invariants: every (decision), sample
    /// (every 16th and at the end) or end (of each game).
    #[arg(long, default_value = "sample", value_name = "every|sample|end")]
    pub check: String,
    /// Games per batch between progress updates and --until-ci checks.
    #[arg(long, default_value_t = 500, hide = true)]
    pub batch: u64,
    #[command(flatten)]
    pub out: Output,
    /// Start the next arm, written like the first: `--variant X`, `--tower
    /// T`, `--rules DIR`, a bare variant name, `base`, or nothing (the plain
    /// rules). Repeatable; other options may follow anywhere.
    #[arg(long, num_args = 0..=1, default_missing_value = "", action = clap::ArgAction::Append, value_name = "ARM")]
    pub against: Vec<String>,
}

/// Separates the words of one arm inside the single value `--against`
/// carries after `arm_words` has gathered them.
const SEP: char = '\u{1f}';

/// Gathers the words of each arm after `--against` into one value for clap
/// (`crate::lab::arm_words` reads them), so the other options of `lab` and
/// `diff` may follow an arm anywhere: `--variant a --against base --games
/// 500` works.
pub fn arm_words(args: Vec<String>) -> Vec<String> {
    crate::lab::arm_words(args)
        .into_iter()
        .map(|w| match w {
            LabWord::Word(w) => w,
            LabWord::Arm(words) => format!("--against={}", words.join(&SEP.to_string())),
        })
        .collect()
}

/// The words of one arm from the value `arm_words` made of them.
pub fn arm_value_words(value: &str) -> Vec<String> {
    value.split(SEP).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

pub fn command(cmd: LabCmd) -> Result<(), String> {
    // Before any worker thread starts: a killed run leaves no partial files.
    crate::files::remove_partial_files_on_signal();
    match cmd.sub {
        Some(LabSub::Merge(m)) => merge(m),
        None => run(cmd.args),
    }
}

/// Which slice of the games this process plays: (K, N), 1-based K.
fn shard_of(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<(u64, u64), String> {
    let num = |name: &str| -> Result<u64, String> {
        let v = env(name).ok_or_else(|| format!("--shard auto: {name} is not set"))?;
        v.trim().parse::<u64>().map_err(|_| format!("--shard auto: {name}={v} is not a whole number"))
    };
    if spec == "auto" {
        if env("SLURM_ARRAY_TASK_ID").is_some() {
            let id = num("SLURM_ARRAY_TASK_ID")?;
            let min = if env("SLURM_ARRAY_TASK_MIN").is_some() { num("SLURM_ARRAY_TASK_MIN")? } else { 0 };
            let count = num("SLURM_ARRAY_TASK_COUNT")?;
            if id < min {
                return Err(format!("--shard auto: SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}"));
            }
            return Ok((id - min + 1, count));
        }
        return Err("--shard auto: no scheduler found (Slurm sets SLURM_ARRAY_TASK_ID; for a Kubernetes Indexed Job give --shard auto/N)".into());
    }
    if let Some(n) = spec.strip_prefix("auto/") {
        let n = n.parse::<u64>().map_err(|_| format!("--shard {spec}: N must be a whole number"))?;
        return Ok((num("JOB_COMPLETION_INDEX")? + 1, n));
    }
    let (k, n) = spec.split_once('/').ok_or_else(|| format!("--shard {spec}: expected K/N (e.g. 3/10), auto or auto/N"))?;
    let parse = |x: &str| x.trim().parse::<u64>().map_err(|_| format!("--shard {spec}: expected K/N with whole numbers"));
    Ok((parse(k)?, parse(n)?))
}

/// Builds the lab from the command line: every problem found before a game is played.
pub fn build(args: &LabArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<Lab, String> {
    if let Some(w) = args.until_ci
        && !(w.is_finite() && w > 0.0)
    {
        return Err(format!("--until-ci {w}: expected a width in percentage points above 0 (e.g. 2)"));
    }
    let first = args.data.spec();
    let mut arms = vec![Arm::from_spec(&first)?];
    for arm in &args.against {
        let words = arm_value_words(arm);
        arms.push(Arm::from_spec_as(&first.arm(&words).map_err(|e| format!("--against: {e}"))?, "--against")?);
    }
    let adapt = adaptation(args)?;
    let (bot_sets, flag) = if args.bots_sets.is_empty() {
        let bots = match (args.bots.is_empty(), &adapt) {
            (false, _) => args.bots.clone(),
            (true, Some(a)) => vec![a.from.clone()],
            (true, None) => vec![DEFAULT_BOT.to_string()],
        };
        (vec![bots], "--bots")
    } else {
        (args.bots_sets.iter().map(|s| s.split('+').map(str::to_string).collect()).collect(), "--bots-sets")
    };
    let (k, n) = match &args.shard {
        Some(s) => shard_of(s, env)?,
        None => (1, 1),
    };
    let range = lab::shard_range(args.games, k, n).map_err(|e| e.to_string())?;
    if n > 1 && args.until_ci.is_some() {
        return Err("--until-ci cannot be used with --shard (each shard would stop at a different point)".into());
    }
    if n > 1 && args.jsonl.is_none() {
        return Err("--shard writes its games for `shogun lab merge`: give --jsonl FILE".into());
    }
    let rotate = if args.no_rotate {
        Some(false)
    } else if args.rotate {
        Some(true)
    } else {
        None
    };
    let settings = Settings {
        players: args.players,
        setup: args.data.setup,
        seed: args.seed,
        games: args.games,
        range: Some(range),
        rotate,
        jobs: args.jobs,
        until_ci: args.until_ci,
        batch: args.batch,
        check: crate::engine::CheckMode::parse(&args.check).map_err(|e| format!("--check: {e}"))?,
    };
    Lab::new(arms, &bot_sets, flag, &args.towers, settings)
}

/// What `--adapt` asks for (no arm tuned yet), checked; `None` without it.
pub fn adaptation(args: &LabArgs) -> Result<Option<Adaptation>, String> {
    let Some(budget) = args.adapt else { return Ok(None) };
    let trial = args.adapt_trial.unwrap_or(budget.clamp(1, 200));
    let check = args.adapt_check.unwrap_or(trial);
    Adaptation::new(budget, trial, check, (args.seed, args.games), &args.adapt_from, args.adapt_opponent.clone())?.with_search(args.adapt_search).map(Some)
}

/// The lab of `args` with its players adapted to each arm when `--adapt`
/// asks for it (tuned, or read from the cache): what `run` plays.
pub fn build_adapted(args: &LabArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<Lab, String> {
    let mut lab = build(args, env)?;
    if let Some(a) = adaptation(args)? {
        let dir = super::adapt::cache_dir(args.adapt_cache.as_deref(), &|k| env(k).map(Into::into))?;
        for note in notes(args, &a) {
            eprintln!("note: {note}");
        }
        super::adapt::adapt(&mut lab, a, dir.as_deref())?;
    }
    Ok(lab)
}

/// What `--adapt` does that a user may not expect: a budget that is not
/// whole trials, and fixed players switched from greedy to the planner.
pub fn notes(args: &LabArgs, a: &Adaptation) -> Vec<String> {
    let mut out = Vec::new();
    let spare = a.budget % a.trial;
    if spare > 0 && a.search == Search::Coordinate {
        out.push(format!(
            "--adapt {}: {} whole trials of {} games fit; the other {spare} games of the budget are not played",
            a.budget,
            a.budget / a.trial,
            a.trial
        ));
    }
    if args.bots.is_empty() && args.bots_sets.is_empty() && a.from != DEFAULT_BOT {
        out.push(format!("--adapt without --bots: the fixed players are {} (the planner the search starts from), not {DEFAULT_BOT}", a.from));
    }
    out
}

/// The HTML report's file, made before any game is played (or shard
/// read): a path that cannot be written is refused first, not after the
/// run. Nothing replaces the target until the report is committed.
fn open_report(out: &Output) -> Result<Option<crate::files::AtomicFile>, String> {
    out.report.as_deref().map(crate::files::AtomicFile::create).transpose()
}

fn output(report: &Report, out: &Output, file: Option<crate::files::AtomicFile>) -> Result<(), String> {
    if out.json {
        println!("{}", serde_json::to_string_pretty(report).map_err(|e| e.to_string())?);
    } else {
        print!("{}", report.text());
    }
    if let (Some(mut f), Some(path)) = (file, &out.report) {
        let page = lab::html::page(report)?;
        f.line(page.trim_end_matches('\n'))?;
        f.commit()?;
        eprintln!("report written to {}", path.display());
    }
    Ok(())
}

/// The JSONL header line: `{"record":"header","lab":{...}}`, padded with
/// spaces to `width` bytes (the line written first, so a rewrite with
/// fewer games played fits in its place).
fn header_line(h: &Header, width: usize) -> String {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        record: &'static str,
        lab: &'a Header,
    }
    let line = serde_json::to_string(&Line { record: "header", lab: h }).unwrap_or_default();
    format!("{line:<width$}")
}

fn run(args: LabArgs) -> Result<(), String> {
    let report_file = open_report(&args.out)?;
    let lab = build_adapted(&args, &|k| std::env::var(k).ok())?;
    let total = (lab.header.range.1 - lab.header.range.0) * lab.arms.len() as u64 * lab.header.conditions.len() as u64;
    let bar = super::Progress::bar_only(total);
    let first_line = header_line(&lab.header, 0);
    let mut file = match &args.jsonl {
        Some(p) => {
            let mut f = crate::files::AtomicFile::create(p)?;
            f.line(&first_line)?;
            Some(f)
        }
        None => None,
    };
    let mut sink = |r: &GameRecord| -> Result<(), LabError> {
        if let Some(f) = file.as_mut() {
            f.line(&serde_json::to_string(r).map_err(|e| LabError::Output(e.to_string()))?).map_err(LabError::Output)?;
        }
        Ok(())
    };
    let started = std::time::Instant::now();
    let progress = |done: u64| bar.set(done);
    let agg = lab::run(&lab, &mut sink, &progress).map_err(|e| e.to_string())?;
    bar.finish();
    let secs = started.elapsed().as_secs_f64();
    let played = agg.games() * lab.arms.len() as u64 * lab.header.conditions.len() as u64;
    eprintln!(
        "{played} games in {secs:.1} s ({} games/s on {} job(s)); invariants checked {}",
        super::rate(played as f64 / secs.max(1e-9)),
        lab.jobs,
        lab.check.describe()
    );
    if let Some(mut f) = file {
        // The games actually played (--until-ci may stop early): fewer
        // digits than asked, so the line fits where it was.
        if agg.header.played != lab.header.played {
            f.rewrite_start(header_line(&agg.header, first_line.len()).as_bytes())?;
        }
        f.commit()?;
    }
    if lab.header.range != (0, lab.header.games) && agg.games() == lab.header.range.1 - lab.header.range.0 {
        eprintln!("shard games {}..{} written; combine the shards with `shogun lab merge FILES...`", lab.header.range.0, lab.header.range.1);
    }
    if let Some(w) = lab.until_ci {
        let widest = agg.headline_width();
        if widest < w {
            eprintln!("--until-ci {w}: stopped after {} games per arm: widest headline interval {widest:.2} points", agg.games());
        } else {
            eprintln!(
                "--until-ci {w}: NOT REACHED: all {} games per arm played and the widest headline interval is still {widest:.2} points; \
                 read the intervals as they are (playing on until something shows would make them lie: docs/lab.md)",
                agg.games()
            );
        }
    }
    output(&Report::build(&agg), &args.out, report_file)
}

/// The longest line `lab merge` reads: a record is a few hundred bytes, a
/// header a few kilobytes; a longer line is refused before it is held.
pub const MAX_LINE: usize = 1 << 24;

/// The next line of `r` (without its newline) into `buf`, at most
/// `MAX_LINE` bytes; `Ok(false)` at the end.
fn next_line(r: &mut impl BufRead, buf: &mut Vec<u8>, place: &dyn Fn() -> String) -> Result<bool, String> {
    buf.clear();
    let n = r.by_ref().take(MAX_LINE as u64 + 1).read_until(b'\n', buf).map_err(|e| format!("{}: {e}", place()))?;
    if n == 0 {
        return Ok(false);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if buf.len() > MAX_LINE {
        return Err(format!("{}: line longer than {MAX_LINE} bytes (not a lab record)", place()));
    }
    Ok(true)
}

fn open_jsonl(path: &Path) -> Result<BufReader<std::fs::File>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let meta = f.metadata().map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    Ok(BufReader::new(f))
}

/// Reads a lab JSONL file's header (its first line).
fn read_header(path: &Path, r: &mut impl BufRead) -> Result<Header, String> {
    let mut buf = Vec::new();
    if !next_line(r, &mut buf, &|| format!("{}:1", path.display()))? {
        return Err(format!("{}:1: empty file (expected a lab header line)", path.display()));
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Top {
        record: String,
        lab: serde_json::Value,
    }
    let top = serde_json::from_slice::<Top>(&buf).map_err(|e| format!("{}:1: not a lab header ({e})", path.display()))?;
    let format = top.lab.get("format").and_then(serde_json::Value::as_u64);
    if top.record != "header" || format != Some(u64::from(lab::FORMAT)) {
        return Err(format!("{}:1: not a lab header of format {} (this build reads files it wrote itself)", path.display(), lab::FORMAT));
    }
    serde_json::from_value::<Header>(top.lab).map_err(|e| format!("{}:1: not a lab header ({e})", path.display()))
}

/// Reads a lab JSONL file whole: its header and records (tests and small
/// files; `lab merge` reads one record at a time).
pub fn read_jsonl(path: &Path) -> Result<(Header, Vec<GameRecord>), String> {
    let mut r = open_jsonl(path)?;
    let header = read_header(path, &mut r)?;
    let records = records_of(path.to_path_buf(), r).map(|r| r.map(|(_, rec)| rec)).collect::<Result<Vec<_>, _>>()?;
    Ok((header, records))
}

/// The records after a file's header, one line at a time, each with its
/// line number.
fn records_of(path: PathBuf, mut r: BufReader<std::fs::File>) -> impl Iterator<Item = Result<(usize, GameRecord), String>> {
    let mut buf = Vec::new();
    let mut line = 1usize;
    let mut failed = false;
    std::iter::from_fn(move || {
        loop {
            if failed {
                return None;
            }
            line += 1;
            let place = || format!("{}:{line}", path.display());
            match next_line(&mut r, &mut buf, &place) {
                Ok(false) => return None,
                Err(e) => {
                    failed = true;
                    return Some(Err(e));
                }
                Ok(true) if buf.iter().all(u8::is_ascii_whitespace) => continue,
                Ok(true) => {
                    let rec = serde_json::from_slice::<GameRecord>(&buf).map_err(|e| format!("{}: not a game record ({e})", place()));
                    failed = rec.is_err();
                    return Some(rec.map(|rec| (line, rec)));
                }
            }
        }
    })
}

fn merge(args: MergeArgs) -> Result<(), String> {
    let report_file = open_report(&args.out)?;
    output(&merged(&args.files)?, &args.out, report_file)
}

/// The report of shards merged (`shogun lab merge FILES`): every file's
/// header first, then their records one at a time.
pub fn merged(files: &[PathBuf]) -> Result<Report, String> {
    let mut headers = Vec::new();
    for p in files {
        headers.push((p.display().to_string(), read_header(p, &mut open_jsonl(p)?)?));
    }
    let expected: Vec<Header> = headers.iter().map(|(_, h)| h.clone()).collect();
    let mut open = |i: usize| -> Result<lab::Records<'static>, String> {
        let p = &files[i];
        let mut r = open_jsonl(p)?;
        if read_header(p, &mut r)? != expected[i] {
            return Err(format!("{}: the file changed while it was merged", p.display()));
        }
        Ok(Box::new(records_of(p.clone(), r)))
    };
    let agg = lab::merge(headers, &mut open).map_err(|e| e.to_string())?;
    Ok(Report::build(&agg))
}

/// The JSONL `shogun lab WORDS... --jsonl FILE` would write (`WORDS`
/// without the program's name and `lab`), played in memory: the `merge`
/// fuzz target's seeds.
pub fn jsonl_of_words(words: &[String]) -> Result<String, String> {
    let all = ["shogun", "lab"].iter().map(|w| w.to_string()).chain(words.iter().cloned()).collect();
    let cli = <super::Cli as clap::Parser>::try_parse_from(arm_words(all)).map_err(|e| e.to_string())?;
    let Some(super::Command::Lab(cmd)) = cli.command else { return Err(format!("{words:?}: not a lab command")) };
    jsonl_of(&build(&cmd.args, &|_| None)?)
}

/// A lab's games as the JSONL `--jsonl` writes (its header line, then a
/// record per game and arm), played in memory.
fn jsonl_of(lab: &Lab) -> Result<String, String> {
    let mut lines = vec![header_line(&lab.header, 0)];
    let mut sink = |r: &GameRecord| -> Result<(), LabError> {
        lines.push(serde_json::to_string(r).map_err(|e| LabError::Output(e.to_string()))?);
        Ok(())
    };
    lab::run(lab, &mut sink, &|_| {}).map_err(|e| e.to_string())?;
    Ok(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::shard_of;

    #[test]
    fn shards_from_schedulers() {
        let none = |_: &str| None;
        assert_eq!(shard_of("3/10", &none), Ok((3, 10)));
        assert!(shard_of("auto", &none).unwrap_err().contains("no scheduler"));
        let slurm = |k: &str| match k {
            "SLURM_ARRAY_TASK_ID" => Some("4".to_string()),
            "SLURM_ARRAY_TASK_MIN" => Some("0".to_string()),
            "SLURM_ARRAY_TASK_COUNT" => Some("8".to_string()),
            _ => None,
        };
        assert_eq!(shard_of("auto", &slurm), Ok((5, 8)));
        let k8s = |k: &str| if k == "JOB_COMPLETION_INDEX" { Some("0".to_string()) } else { None };
        assert_eq!(shard_of("auto/6", &k8s), Ok((1, 6)));
        assert!(shard_of("x", &none).is_err());
    }
}
