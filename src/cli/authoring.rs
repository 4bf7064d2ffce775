//! `shogun test` (scenario files) and `shogun diff` (one seeded game under
//! two rulesets).

use std::path::{Path, PathBuf};

use clap::Args;

use super::{BotSeats, GameData, OneGame, fill_bots};
use crate::play::Layout;
use crate::play::data::{is_variant, scenarios_dir};
use crate::scenario::{self, Setting};

#[derive(Args, Debug)]
pub struct TestArgs {
    #[command(flatten)]
    pub data: GameData,
    /// Variant folders, tests/ folders or scenario files (default: every
    /// shipped variant's tests and scripts/base/tests).
    pub paths: Vec<PathBuf>,
    /// Rewrite golden transcripts instead of comparing them.
    #[arg(long)]
    pub update: bool,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    #[command(flatten)]
    pub game: OneGame,
    #[command(flatten)]
    pub seats: BotSeats,
    /// Lines of context around the first divergence.
    #[arg(long, default_value_t = 4)]
    pub context: usize,
    /// The second ruleset, written like the first: `--variant X`, `--tower
    /// T`, `--rules DIR`, a bare variant name, `base`, or nothing (the plain
    /// rules). Other options may follow it, as in `lab`.
    #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "ARM")]
    pub against: Option<String>,
}

/// Scenario files to run, each with the variant folder it belongs to.
fn collect(paths: &[PathBuf], layout: &Layout) -> Result<Vec<(PathBuf, Option<PathBuf>)>, String> {
    let mut out = Vec::new();
    let yaml_in = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml")).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    let targets: Vec<PathBuf> = if paths.is_empty() {
        let mut t: Vec<PathBuf> = vec![layout.base_pack()];
        for name in layout.known_variants() {
            t.push(layout.variant_dir(&name));
        }
        t
    } else {
        paths.to_vec()
    };
    for t in targets {
        if t.is_file() {
            let own = t.parent().and_then(|p| p.parent()).filter(|d| is_variant(d)).map(Path::to_path_buf);
            out.push((t, own));
        } else if t.is_dir() {
            // A pack's or variant's scenarios folder itself, or the folder holding one.
            let of_parent = t.parent().filter(|p| scenarios_dir(p) == t);
            let (tests, own) = match of_parent {
                Some(p) => (t.clone(), Some(p.to_path_buf()).filter(|d| is_variant(d))),
                None => (scenarios_dir(&t), Some(t.clone()).filter(|d| is_variant(d))),
            };
            for f in yaml_in(&tests) {
                out.push((f, own.clone()));
            }
        } else {
            return Err(format!("{}: no such file or folder", t.display()));
        }
    }
    Ok(out)
}

pub fn test(args: TestArgs) -> Result<(), String> {
    if !args.data.variants.is_empty() || args.data.tower.is_some() || args.data.setup.is_some() {
        return Err("shogun test takes variants, tower and setup from each scenario file (`variants:`, `tower:`, `setup:`), not from the command line".into());
    }
    let layout = args.data.layout();
    let files = collect(&args.paths, &layout)?;
    if files.is_empty() {
        return Err("no scenario files found (a pack or variant keeps them in tests/*.yaml)".into());
    }
    let spec = args.data.spec();
    let (pack, map) = (spec.rules_dir(), spec.map_path());
    let setting = Setting { pack_dir: &pack, map_path: &map, layout: &layout, odds_trials: crate::play::preview::TRIALS };
    let (mut passed, mut failed) = (0, 0);
    for (file, own) in &files {
        match scenario::run(&setting, file, own.as_deref(), args.update) {
            Ok(r) if r.failures.is_empty() => {
                passed += 1;
                println!("ok    {}", file.display());
                for u in &r.updated {
                    println!("      wrote {}", u.display());
                }
            }
            Ok(r) => {
                failed += 1;
                println!("FAIL  {}", file.display());
                for f in &r.failures {
                    println!("  {f}");
                }
            }
            Err(e) => {
                failed += 1;
                println!("FAIL  {}\n  {e}", file.display());
            }
        }
    }
    println!("scenarios: {passed} passed, {failed} failed");
    if failed > 0 { Err(format!("{failed} scenario(s) failed")) } else { Ok(()) }
}

pub fn diff(args: DiffArgs) -> Result<(), String> {
    let OneGame { players, seed, .. } = &args.game;
    let (players, seed) = (*players, *seed);
    let spec = args.game.spec();
    let words = super::lab::arm_value_words(args.against.as_deref().unwrap_or_default());
    let other = spec.arm(&words).map_err(|e| format!("--against: {e}"))?;
    let bots = fill_bots(&args.seats.bots, players)?;
    let a = spec.engine()?;
    let b = other.engine_as("--against")?;
    let setup = spec.setup_mode(&a, players);
    let play = |e: &crate::engine::Engine| {
        crate::transcript::transcript_to_failure(e, players, seed, setup, &bots).map_err(|f| format!("{}: {}", e.rules.ruleset_name(), f.described()))
    };
    let (ta, sa) = play(&a)?;
    let (tb, sb) = play(&b)?;
    // The header names the ruleset; compare the games.
    let body = |t: &str| t.lines().filter(|l| !l.starts_with("ruleset:")).collect::<Vec<_>>().join("\n");
    println!("seed {}, {} players: {}  vs  {}", seed, players, a.rules.ruleset_name(), b.rules.ruleset_name());
    if body(&ta) == body(&tb) {
        println!("the two games are identical.");
        return Ok(());
    }
    // As every diff tool: the reference (`--against`) is the old text,
    // marked `-`; the ruleset asked about is the new one, marked `+`.
    println!("first divergence (- {} the reference, + {}):", b.rules.ruleset_name(), a.rules.ruleset_name());
    println!("{}", scenario::first_difference(&body(&tb), &body(&ta), args.context));
    println!("outcome:");
    println!("  {:<8} {:>18} {:>18}", "", b.rules.ruleset_name(), a.rules.ruleset_name());
    for (y, x) in sb.seats.iter().zip(sa.seats.iter()) {
        println!(
            "  {:<8} {:>18} {:>18}",
            x.seat,
            format!("{} pts, {} ch, #{}", y.points, y.chests, y.rank),
            format!("{} pts, {} ch, #{}", x.points, x.chests, x.rank)
        );
    }
    println!("  {:<8} {:>18} {:>18}", "winner", sb.winner.join(","), sa.winner.join(","));
    println!("  {:<8} {:>18} {:>18}", "battles", sb.stats.battles, sa.stats.battles);
    println!("  {:<8} {:>18} {:>18}", "revolts", sb.stats.revolts, sa.stats.revolts);
    println!("  {:<8} {:>18} {:>18}", "changes", sb.stats.provinces_changing_hands, sa.stats.provinces_changing_hands);
    Ok(())
}
