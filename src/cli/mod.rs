//! The `shogun` command line.

pub mod adapt;
pub mod authoring;
pub mod bench;
pub mod bots;
pub mod lab;
pub mod new;
pub mod soak;
pub mod tower;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::core::SetupMode;
use crate::engine::{CheckMode, Engine};
use crate::play::{GameSpec, Layout};
use crate::rules;

#[derive(Parser, Debug)]
#[command(
    name = "shogun",
    args_conflicts_with_subcommands = true,
    version,
    about = "A rules sandbox and variant lab for Dirk Henn's board game Shogun",
    long_about = "A rules sandbox and variant lab for Dirk Henn's board game Shogun (2006).\n\n\
The game lives in data and scripts: maps in maps/*.yaml, the rules pack in scripts/base/ \
(YAML for every number, Lua for behaviour). Edit them and the next run plays by the new rules.",
    after_help = "Examples:\n  shogun                                   # the REPL on the default game\n  shogun --variant hard-winter --seed 7    # the REPL under a variant (`play`'s options)\n  shogun run --players 4 --seed 7 --transcript -\n  shogun run --players 3 --seed 1 --bots greedy,random,random --json\n  shogun bench --games 2000"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Without a subcommand: `play`'s options (the REPL).
    #[command(flatten)]
    pub play: PlayArgs,
    /// Colour at a terminal: auto (when standard output is a terminal and
    /// NO_COLOR is unset or empty), always, or never.
    #[arg(long, global = true, value_enum, default_value_t = Colour::Auto)]
    pub color: Colour,
}

/// `--color`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    Auto,
    Always,
    Never,
}

impl Colour {
    /// Whether to colour output going to a terminal (`terminal`): an empty
    /// NO_COLOR does not count (no-color.org).
    pub fn on(self, terminal: bool) -> bool {
        match self {
            Colour::Always => true,
            Colour::Never => false,
            Colour::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the REPL on a game: step through it, play any seat, undo, save,
    /// reload the rules, ask what if. `shogun` alone does this with defaults.
    #[command(
        after_help = "Examples:\n  shogun                                   # Sun, 4 players, seat 1 human, the planner in the others\n  shogun play --map moon --players 3 --seats human,human,random\n  shogun play --seed 7 --variant hard-winter < session.txt   # script mode"
    )]
    Play(PlayArgs),
    /// Play one full game with bots and print its transcript or summary.
    #[command(
        after_help = "Examples:\n  shogun run --seed 7 --transcript -\n  shogun run --players 5 --bots random --json\n  shogun run --players 3 --seed 2 --transcript game.txt"
    )]
    Run(RunArgs),
    /// Measure games per second, bytes per state and per Lua VM.
    #[command(after_help = "Example:\n  shogun bench --games 2000 --players 4 --bots random")]
    Bench(BenchArgs),
    /// Cube towers: battle odds, odds tables, fitting a model to real throws.
    Tower(tower::TowerArgs),
    /// Run scenario files (tests/*.yaml of packs and variants).
    #[command(
        after_help = "Examples:\n  shogun test                          # every shipped variant and the base pack\n  shogun test variants/hard-winter\n  shogun test variants/my-rule --update   # rewrite golden transcripts"
    )]
    Test(authoring::TestArgs),
    /// Check maps, rules packs and variants; every problem with its location.
    #[command(
        after_help = "Examples:\n  shogun check                      # everything shipped\n  shogun check maps/moon.yaml variants/hard-winter\n  shogun check my-pack/"
    )]
    Check(CheckArgs),
    /// Print a map: provinces by region, values, neighbours, exclusions;
    /// or draw it as a picture (`--svg FILE`).
    #[command(
        after_help = "Examples:\n  shogun map --map moon\n  shogun map --map sun --players 3\n  shogun map --svg sun.svg                  # open it in a browser\n  shogun map --map moon --players 3 --svg moon.svg\n\n\
The picture places each province at the map's `lon`/`lat` (degrees east and north; see the map's provenance): \
land borders are lines, sea routes dashed, regions tinted, the number in a province is its tax. \
In the REPL, `board --svg FILE` draws the game as a seat sees it (owners, armies, buildings, unrest)."
    )]
    Map(MapArgs),
    /// Play one seeded game under two rulesets and show where they part.
    #[command(
        after_help = "Examples:\n  shogun diff --seed 7 --variant ro-events --against\n  shogun diff --seed 3 --variant hard-winter:loss=4 --against --variant hard-winter"
    )]
    Diff(authoring::DiffArgs),
    /// Compare rulesets over thousands of paired, seeded games: win rates by
    /// seat, scores and the flow of the game, with intervals and a verdict.
    #[command(after_help = lab::EXAMPLES)]
    Lab(Box<lab::LabCmd>),
    /// The bots: `ladder` plays each level against the level below.
    Bots(bots::BotsCmd),
    /// Play many bot games over players, maps, setups, towers, variants and
    /// bots, each twice, checking determinism, the invariants at every
    /// decision, and that refused decisions change nothing.
    #[command(after_help = soak::EXAMPLES)]
    Soak(soak::SoakArgs),
    /// Start something new from a working example: `shogun new variant NAME`.
    #[command(after_help = "Example:\n  shogun new variant bonus-taxes\n  shogun test variants/bonus-taxes")]
    New(new::NewArgs),
    /// A shell's completion script on standard output.
    #[command(
        after_help = "Examples:\n  shogun completions bash > ~/.local/share/bash-completion/completions/shogun\n  shogun completions zsh > ~/.zfunc/_shogun\n  shogun completions fish > ~/.config/fish/completions/shogun.fish"
    )]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The man page (roff) on standard output, or every page into a folder.
    #[command(after_help = "Examples:\n  shogun man | man -l -\n  shogun man ~/.local/share/man/man1")]
    Man {
        /// Write shogun.1 and a page per subcommand here.
        dir: Option<PathBuf>,
    },
}

/// Where the game data lives and which map and rules to load.
#[derive(Args, Debug, Clone, Default)]
pub struct GameData {
    /// Map: a name from maps/ (`sun`) or a path to a map YAML file.
    #[arg(long, default_value = crate::play::data::DEFAULT_MAP)]
    pub map: String,
    /// Rules pack folder (default: scripts/base under the data folder).
    #[arg(long, value_name = "DIR")]
    pub rules: Option<PathBuf>,
    /// Folder holding maps/ and scripts/ (default: $SHOGUN_DATA, else the
    /// current folder if it has them, else the source tree's).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Cube tower by name, from the rules' `towers` (default: `tower.use`);
    /// `--model` is the same option.
    #[arg(long, visible_alias = "model", value_name = "NAME")]
    pub tower: Option<String>,
    /// Starting provinces: preset (the map's printed positions) or draft
    /// (default: preset where the map has one for the player count).
    #[arg(long, value_name = "preset|draft")]
    pub setup: Option<SetupMode>,
    /// Apply a variant from variants/ (repeatable, applied in order);
    /// options as `name:option=value,option=value`, e.g. hard-winter:loss=3.
    #[arg(long = "variant", value_name = "NAME[:OPT=V,...]")]
    pub variants: Vec<String>,
}

/// One game: where its rules and map come from, how many play, its seed.
/// Shared by every command that plays a single game (`play`, `run`, `diff`).
#[derive(Args, Debug, Clone)]
pub struct OneGame {
    #[command(flatten)]
    pub data: GameData,
    /// Number of players (the base rules take 3 to 5).
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// Seed of the game's random streams: the same seed, rules and bots give the same game.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// When the engine checks its invariants: after every decision, a
    /// sample of them (every 16th and the end of the game), or only at the
    /// end. A decision that breaks one is undone only where it is checked.
    #[arg(long, default_value = "every", value_parser = ["every", "sample", "end"])]
    pub check: String,
}

impl OneGame {
    /// The ruleset with the check mode asked for.
    pub fn spec(&self) -> GameSpec {
        GameSpec { check: CheckMode::parse(&self.check).unwrap_or_default(), ..self.data.spec() }
    }
}

impl Default for OneGame {
    fn default() -> Self {
        OneGame { data: GameData { map: crate::play::data::DEFAULT_MAP.into(), ..GameData::default() }, players: 4, seed: 1, check: "every".into() }
    }
}

/// The players of a game played by bots alone (`run`, `diff`, `lab`).
pub const DEFAULT_BOT: &str = crate::bots::DEFAULT;

/// The bots of a game played without a person (`run`, `diff`).
#[derive(Args, Debug, Clone)]
pub struct BotSeats {
    /// Bots by seat, comma separated (options after `:`, e.g. mcts:400,
    /// greedy:no-attack); the last one fills the remaining seats.
    #[arg(long, default_value = DEFAULT_BOT, value_delimiter = ',', long_help = bots_help())]
    pub bots: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: OneGame,
    /// Who plays each seat: human or a bot, comma separated; the last fills
    /// the rest (default: seat 1 human, the others {}).
    #[arg(long, value_delimiter = ',', long_help = seats_help())]
    pub seats: Vec<String>,
    /// Script mode: carry on after a failing command (exit status 1 at the end).
    #[arg(long)]
    pub keep_going: bool,
    /// Simulated throws behind each battle's odds (in a question and in
    /// `odds`): fewer answer sooner and rougher. The odds are the same for
    /// the same position and number.
    #[arg(long, default_value_t = crate::play::preview::TRIALS, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub odds_trials: u32,
}

/// `--bots`' long help: every bot from `bots::BOTS`.
fn bots_help() -> String {
    format!("Bots by seat, comma separated (options after `:`); the last one fills the remaining seats. The bots:\n{}", crate::bots::bots_listed("  "))
}

/// `play --help`'s text for `--seats`: every bot from `bots::BOTS`.
fn seats_help() -> String {
    format!(
        "Who plays each seat, comma separated: human or a bot (options after `:`); the last fills the rest (default: seat 1 human, the others {}). The bots:\n{}",
        DEFAULT_BOT,
        crate::bots::bots_listed("  ")
    )
}

fn play(args: PlayArgs, colour: Colour) -> Result<(), String> {
    let given: Vec<String> = if args.seats.is_empty() { vec!["human".into(), DEFAULT_BOT.into()] } else { args.seats.clone() };
    let (spec, players, seed) = (args.game.spec(), args.game.players, args.game.seed);
    let seats = crate::bots::fill_seats(&given, players, true, "--seats")?;
    let config = crate::repl::Config { spec, players, seed, seats };
    use std::io::IsTerminal;
    crate::repl::run(config, args.keep_going, colour.on(std::io::stdout().is_terminal()), args.odds_trials)
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub game: OneGame,
    #[command(flatten)]
    pub seats: BotSeats,
    /// Write the transcript to FILE (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<String>,
    /// Print a one-line JSON summary of the result.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    pub data: GameData,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Number of players (the base rules take 3 to 5).
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// Bots by seat, comma separated (the last fills the rest).
    #[arg(long, default_value = "random", value_delimiter = ',')]
    pub bots: Vec<String>,
    /// First seed (games use seed, seed+1, ...).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads, each with its own engine (games are split between them).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// When the invariants are checked: every decision, a sample of them
    /// (every 16th and the end of each game), or only at the end.
    #[arg(long, default_value = "sample", value_parser = ["every", "sample", "end"])]
    pub check: String,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Maps (YAML files), rules packs or variant folders (default: everything shipped).
    pub paths: Vec<PathBuf>,
    /// Folder holding maps/, scripts/ and variants/.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct MapArgs {
    #[command(flatten)]
    pub data: GameData,
    /// Mark the provinces out of play with this many players.
    #[arg(long)]
    pub players: Option<u8>,
    /// Write a picture of the map (SVG) to FILE instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

fn check(args: CheckArgs) -> Result<(), String> {
    let layout = Layout::find(args.data.as_deref());
    let targets = if args.paths.is_empty() {
        crate::check::shipped(&layout)
    } else {
        args.paths.iter().map(|p| crate::check::classify(p)).collect::<Result<Vec<_>, _>>()?
    };
    let (mut errors, mut warnings) = (0, 0);
    for t in &targets {
        let d = crate::check::check(&layout, t);
        let (e, w) = crate::check::tally(&d);
        errors += e;
        warnings += w;
        let kind = match t {
            crate::check::Target::Map(_) => "map",
            crate::check::Target::Pack(_) => "pack",
            crate::check::Target::Variant(_) => "variant",
        };
        println!("{} {kind} {}", if e > 0 { "FAIL" } else { "ok  " }, t.path().display());
        for x in &d {
            println!("  {x}");
        }
    }
    println!("checked {} target(s): {errors} error(s), {warnings} warning(s)", targets.len());
    if errors > 0 { Err(format!("{errors} error(s)")) } else { Ok(()) }
}

fn map_view(args: MapArgs) -> Result<(), String> {
    let layout = args.data.layout();
    let path = layout.map_path(&args.data.map);
    let rules = rules::load(&layout.base_pack(), &path).map_err(|d| d.to_string())?;
    let m = &rules.map;
    let out: Vec<usize> = args.players.and_then(|n| m.out_of_play.get(&n).cloned()).unwrap_or_default();
    if let Some(file) = &args.svg {
        let in_play: Vec<bool> = (0..m.provinces.len()).map(|p| !out.contains(&p)).collect();
        let subtitle = match args.players {
            Some(n) => format!("{}\nout of play with {n} players: greyed", path.display()),
            None => path.display().to_string(),
        };
        let svg = crate::repl::picture::Picture { rules: &rules, state: None, in_play, subtitle }.svg()?;
        crate::files::write_atomic(file, svg.as_bytes())?;
        println!("wrote {}: the {} map, {} provinces (open it in a browser)", file.display(), m.name, m.provinces.len());
        return Ok(());
    }
    println!("{} ({}): {} provinces in {} regions", m.title, m.name, m.provinces.len(), m.regions.len());
    if let Some(n) = m.assumption_notice() {
        println!("{n}");
    }
    for (r, region) in m.regions.iter().enumerate() {
        println!("\n{region}");
        println!("  {:<13} {:>3} {:>4} {:>6}  neighbours (~ sea route)", "province", "tax", "rice", "spaces");
        let mut ps: Vec<usize> = (0..m.provinces.len()).filter(|&p| m.provinces[p].region == r).collect();
        ps.sort_by_key(|&p| m.provinces[p].name.clone());
        for p in ps {
            let pr = &m.provinces[p];
            let mut ns: Vec<String> = pr.borders.iter().map(|&n| m.provinces[n].name.clone()).collect();
            ns.extend(pr.sea_routes.iter().map(|&n| {
                let assumed = m.assumed_sea_routes.contains(&(p.min(n), p.max(n)));
                format!("~{}{}", m.provinces[n].name, if assumed { " (assumed)" } else { "" })
            }));
            let mark = if out.contains(&p) { " [out of play]" } else { "" };
            println!("  {:<13} {:>3} {:>4} {:>6}  {}{mark}", pr.name, pr.tax, pr.rice, pr.spaces, ns.join(", "));
        }
    }
    let excl: Vec<String> = m
        .out_of_play
        .iter()
        .map(|(n, ps)| format!("{n} players: {}", ps.iter().map(|&p| m.provinces[p].name.as_str()).collect::<Vec<_>>().join(", ")))
        .collect();
    if !excl.is_empty() {
        println!("\nout of play with {}", excl.join("; "));
    }
    let presets: Vec<String> = m.presets.keys().map(|n| n.to_string()).collect();
    println!("preset starting positions for: {}", if presets.is_empty() { "none (draft only)".to_string() } else { format!("{} players", presets.join(", ")) });
    Ok(())
}

impl GameData {
    /// The ruleset these options describe (the play layer's, without clap).
    pub fn spec(&self) -> GameSpec {
        GameSpec {
            data: self.data.clone(),
            map: self.map.clone(),
            rules: self.rules.clone(),
            variants: self.variants.clone(),
            tower: self.tower.clone(),
            setup: self.setup,
            check: CheckMode::default(),
        }
    }

    pub fn layout(&self) -> Layout {
        Layout::find(self.data.as_deref())
    }

    /// Loads and checks the rules; on failure, every problem found.
    pub fn engine(&self) -> Result<Engine, String> {
        self.spec().engine()
    }
}

fn fill_bots(names: &[String], players: u8) -> Result<Vec<String>, String> {
    crate::bots::fill_seats(names, players, false, "--bots")
}

/// Progress over `total` games on standard error, used by every long run:
/// a bar on a terminal; elsewhere (a CI log, a pipe) a plain line at each
/// tenth of the run, so a log still shows that the run is alive and how
/// fast it goes.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: u64,
    started: std::time::Instant,
    /// Tenths already reported as plain lines.
    tenths: std::cell::Cell<u64>,
}

/// A rate per second for people: whole numbers from 100 up, else three
/// significant digits, so that a slow run (mcts bots: 0.12 games/s) does
/// not read "0 games/s".
pub(crate) fn rate(x: f64) -> String {
    match x {
        x if !x.is_finite() => "-".to_string(),
        x if x <= 0.0 => "0".to_string(),
        x if x >= 99.95 => format!("{x:.0}"),
        x if x >= 9.995 => format!("{x:.1}"),
        x if x >= 0.9995 => format!("{x:.2}"),
        x => format!("{:.*}", (2 - x.log10().floor() as i64).clamp(2, 9) as usize, x),
    }
}

impl Progress {
    fn games(total: u64) -> Progress {
        use std::io::IsTerminal;
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(
                indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} games, {per_sec}, ETA {eta}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        });
        Progress { bar, total, started: std::time::Instant::now(), tenths: std::cell::Cell::new(0) }
    }

    /// A bar on a terminal and nothing elsewhere (the lab: its closing
    /// summary is all a log gets).
    fn bar_only(total: u64) -> Progress {
        let p = Progress::games(total);
        if p.bar.is_none() {
            p.tenths.set(u64::MAX);
        }
        p
    }

    /// `done` games of `total` are played.
    fn set(&self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
            return;
        }
        let tenths = done.saturating_mul(10) / self.total.max(1);
        if tenths > self.tenths.get() && done < self.total {
            self.tenths.set(tenths);
            let secs = self.started.elapsed().as_secs_f64();
            eprintln!("{done}/{} games, {} games/s, {secs:.0} s", self.total, rate(done as f64 / secs.max(1e-9)));
        }
    }

    fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}

fn run(args: RunArgs) -> Result<(), String> {
    let OneGame { players, seed, .. } = &args.game;
    let spec = args.game.spec();
    let engine = spec.engine()?;
    let bots = fill_bots(&args.seats.bots, *players)?;
    let setup = spec.setup_mode(&engine, *players);
    // Where `--transcript` sends a transcript: standard output or a file.
    let emit = |text: &str| -> Result<(), String> {
        match args.transcript.as_deref() {
            Some("-") => print!("{text}"),
            Some(path) => crate::files::write_atomic(std::path::Path::new(path), text.as_bytes())?,
            None => {}
        }
        Ok(())
    };
    let summary = match crate::transcript::transcript_to_failure(&engine, *players, *seed, setup, &bots) {
        Ok((text, summary)) => {
            emit(&text)?;
            summary
        }
        // What was played is kept: the transcript up to the failure, where
        // it was asked for, and the point the game stood at in the message.
        Err(f) => {
            let kept = match args.transcript.as_deref().filter(|_| f.in_play()) {
                None => String::new(),
                Some(to) => match emit(&f.so_far) {
                    Ok(()) if to == "-" => " (the transcript above ends where it did)".to_string(),
                    Ok(()) => format!(" (the transcript up to it is in {to})"),
                    Err(e) => format!(" (the transcript up to it could not be written: {e})"),
                },
            };
            // The note on the transcript before the rules' own lines (a traceback).
            return Err(f.described_with(&kept));
        }
    };
    if args.json {
        println!("{}", serde_json::to_string(&summary).map_err(|e| e.to_string())?);
    } else if args.transcript.as_deref() != Some("-") {
        let scores: Vec<String> = summary.seats.iter().map(|s| format!("{} {} ({} pts, {} chests)", s.seat, s.bot, s.points, s.chests)).collect();
        println!("seed {seed}: winner {} — {}", summary.winner.join(", "), scores.join("; "));
        println!("invariants checked {}", engine.check_mode().describe());
    }
    Ok(())
}

pub fn main() -> ExitCode {
    // Die quietly when the reader of our output goes away (`| head`).
    #[cfg(unix)]
    // SAFETY: at the start of main, before any thread: restores the
    // default action of a signal, with no handler of ours involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let mut args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "lab" || a == "diff") {
        args = lab::arm_words(args);
    }
    let cli = Cli::parse_from(args);
    let colour = cli.color;
    let result = match cli.command.unwrap_or(Command::Play(cli.play)) {
        Command::Play(a) => play(a, colour),
        Command::Run(a) => run(a),
        Command::Bench(a) => bench::command(a),
        Command::Tower(a) => tower::command(a),
        Command::Test(a) => authoring::test(a),
        Command::Diff(a) => authoring::diff(a),
        Command::Check(a) => check(a),
        Command::Map(a) => map_view(a),
        Command::Lab(a) => lab::command(*a),
        Command::Bots(a) => bots::command(a),
        Command::Soak(a) => soak::command(a),
        Command::New(a) => new::command(a),
        Command::Completions { shell } => new::completions(shell),
        Command::Man { dir } => new::man(dir.as_deref()),
    };
    let _ = std::io::stdout().flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("{}", rules::error_text(&msg));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_keep_three_significant_digits_below_a_hundred() {
        let cases = [(2907.4, "2907"), (99.96, "100"), (12.34, "12.3"), (1.0, "1.00"), (0.121, "0.121"), (0.000_456_7, "0.000457"), (0.0, "0")];
        for (x, text) in cases {
            assert_eq!(super::rate(x), text, "{x}");
        }
        assert_eq!(super::rate(f64::NAN), "-");
    }
}
