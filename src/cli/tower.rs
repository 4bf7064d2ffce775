//! `shogun tower`: battle odds, odds tables and fitting models to real throws.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::GameData;
use crate::engine::Engine;
use crate::tower::fit::{self, Observations};
use crate::tower::odds::{OddsQuery, Spread, odds};

#[derive(Args, Debug)]
pub struct TowerArgs {
    #[command(subcommand)]
    pub command: TowerCommand,
}

#[derive(Subcommand, Debug)]
pub enum TowerCommand {
    /// Chances of one battle under a tower model, the cubes of each side
    /// that land, and (with --preload) what the setup throw leaves inside:
    /// the figures to compare a tower with a real one or with its source.
    #[command(
        after_help = "Examples:\n  shogun tower odds --tower two-level --attack 4 --defend 3\n  shogun tower odds --tower thirds --attack 5 --defend 0 --peasants 1 --preload 4 --json\n  shogun tower odds --tower wallenstein-client --attack 3 --defend 2 --preload 4"
    )]
    Odds(OddsArgs),
    /// Attacker-win chances for 1..10 attackers against 1..10 defenders.
    #[command(after_help = "Example:\n  shogun tower table --tower two-level --svg two-level.svg")]
    Table(TableArgs),
    /// Fit a model's parameters to throws recorded at a real table.
    #[command(after_help = "Example:\n  shogun tower fit docs/example-throws.yaml\n  shogun tower fit my-throws.yaml --family stateless")]
    Fit(FitArgs),
}

#[derive(Args, Debug)]
pub struct OddsArgs {
    #[command(flatten)]
    pub data: GameData,
    /// Attacking cubes thrown.
    #[arg(long)]
    pub attack: u16,
    /// Defending cubes thrown (0: a neutral province).
    #[arg(long)]
    pub defend: u16,
    /// Peasants thrown (default: against a neutral province the peasants
    /// the rules declare for one, rules.yaml `bots.neutral_peasants`; else 0).
    #[arg(long)]
    pub peasants: Option<u16>,
    /// The province has unrest: peasants take no side.
    #[arg(long)]
    pub unrest: bool,
    /// The castle event in force: the defender throws the extra cubes the
    /// pack's event gives (its effect on the `defender_extra` hook).
    #[arg(long)]
    pub castle: bool,
    /// Start from a tower loaded as at setup for this many players.
    #[arg(long, value_name = "PLAYERS")]
    pub preload: Option<u8>,
    #[arg(long, default_value_t = 100_000)]
    pub trials: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct TableArgs {
    #[command(flatten)]
    pub data: GameData,
    /// Trials per cell.
    #[arg(long, default_value_t = 4000)]
    pub trials: u32,
    #[arg(long)]
    pub preload: Option<u8>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write the table as an SVG heat map.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct FitArgs {
    #[command(flatten)]
    pub data: GameData,
    /// Observations file (YAML): see docs/example-throws.yaml.
    pub observations: PathBuf,
    /// Model family to fit: levels or stateless (default: both).
    #[arg(long)]
    pub family: Option<String>,
    /// Particles for a tower that can only be sampled (a Lua tower; more:
    /// slower, steadier). The built-in models are computed exactly, unless
    /// a record is too big for the exact sum: then with these particles too.
    #[arg(long, default_value_t = 2000)]
    pub particles: usize,
    /// Seed of the particle filter.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Estimate every tower that keeps cubes with the particle filter, as
    /// a Lua tower is: to check the exact numbers or see the filter's spread.
    #[arg(long)]
    pub particle_filter: bool,
    #[arg(long)]
    pub json: bool,
}

/// The extra cubes the pack's castle event gives a defender: the value of
/// the first event effect on the `defender_extra` hook.
pub fn castle_bonus(engine: &Engine) -> Result<u16, String> {
    let effect = engine.rules.cards.events.iter().flat_map(|e| &e.effects).find(|x| x.hook == "defender_extra");
    let value = effect.ok_or("--castle: no event of these rules gives the defender extra cubes (an effect on the `defender_extra` hook)")?;
    let n = value.value.as_ref().and_then(|v| v.as_u64()).ok_or("--castle: the event's `defender_extra` effect has no whole-number value")?;
    u16::try_from(n).map_err(|_| format!("--castle: {n} extra cubes is too many"))
}

pub fn query(engine: &Engine, a: &OddsArgs) -> Result<OddsQuery, String> {
    let pre = &engine.rules.rules.tower.preload;
    let peasants = match a.peasants {
        Some(p) => p,
        // The param the pack declares for them (checked when the rules load).
        None if a.defend == 0 => engine.rules.bots.neutral_peasants,
        None => 0,
    };
    Ok(OddsQuery {
        attack: a.attack,
        defend: a.defend,
        peasants,
        unrest: a.unrest,
        defender_extra: if a.castle { castle_bonus(engine)? } else { 0 },
        preload: a.preload,
        preload_cubes: pre.cubes_per_player as u16,
        preload_peasants: pre.peasants as u16,
        trials: a.trials,
        seed: a.seed,
    })
}

/// The odds of `q` by the engine's tower and the rules' battle handler
/// (`handlers.battle`, the one games call through `battle_outcome`).
fn run_odds(engine: &Engine, q: &OddsQuery) -> Result<crate::tower::odds::Odds, String> {
    let rt = engine.runtime();
    odds(engine.tower().as_ref(), q, |kind, a, d, p, u| rt.battle_outcome(kind, a, d, p, u).map_err(|e| e.to_string()))
}

fn pct(p: f64) -> String {
    format!("{:5.1}%", p * 100.0)
}

pub fn command(args: TowerArgs) -> Result<(), String> {
    match args.command {
        TowerCommand::Odds(a) => odds_command(&a),
        TowerCommand::Table(a) => table_command(&a),
        TowerCommand::Fit(a) => fit_command(&a),
    }
}

/// `shogun tower odds`: one battle's chances, as text or JSON.
fn odds_command(a: &OddsArgs) -> Result<(), String> {
    if a.attack == 0 {
        return Err("--attack must be at least 1".into());
    }
    if a.trials == 0 {
        return Err("--trials must be at least 1".into());
    }
    let engine = a.data.engine()?;
    check_preload(&engine, a.preload)?;
    simulated(&engine)?;
    let q = query(&engine, a)?;
    let o = run_odds(&engine, &q)?;
    if a.json {
        println!("{}", serde_json::to_string(&o).map_err(|e| e.to_string())?);
        return Ok(());
    }
    // The tower the engine actually uses (`--tower`, else the rules' own).
    let tower = engine.runtime().tower_name();
    println!(
        "{} attackers vs {}{}{}{} under tower `{tower}`{} — {} trials",
        a.attack,
        if a.defend == 0 { "a neutral province".to_string() } else { format!("{} defenders", a.defend) },
        if q.peasants > 0 { format!(" + {} peasant(s)", q.peasants) } else { String::new() },
        if a.unrest { " (unrest)" } else { "" },
        if q.defender_extra > 0 { format!(" (castle: defender +{})", q.defender_extra) } else { String::new() },
        a.preload.map(|n| format!(", preloaded for {n} players")).unwrap_or_default(),
        a.trials
    );
    for (name, e) in [("attacker wins", &o.attacker_wins), ("tie", &o.ties), ("defender wins", &o.defender_wins)] {
        println!("  {name:<14} {}  (95%: {} – {})", pct(e.p), pct(e.low).trim(), pct(e.high).trim());
    }
    let dist = |v: &[f64]| v.iter().enumerate().filter(|(_, p)| **p > 0.0).map(|(n, p)| format!("{n}:{}", pct(*p).trim())).collect::<Vec<_>>().join("  ");
    println!("  attacker keeps (share of all trials): {}", dist(&o.attacker_survivors));
    println!("  defender keeps (share of all trials): {}", dist(&o.defender_survivors));
    let spread = |s: &Spread| format!("mean {:.2}, 5/50/95%: {}/{}/{}; {}", s.mean, s.q05, s.q50, s.q95, dist(&s.shares));
    println!("  attacker cubes landed: {}", spread(&o.attacker_landed));
    if a.defend > 0 {
        println!("  defender cubes landed: {}", spread(&o.defender_landed));
    }
    println!("  peasants landed:       {}", spread(&o.peasants_landed));
    println!("  cubes left stuck in the tower afterwards: attacker {:.2}, defender {:.2} (mean)", o.attacker_stuck_mean, o.defender_stuck_mean);
    if let Some(s) = &o.setup {
        println!("  inside after the setup throw (before the battle):");
        println!("    all cubes:        {}", spread(&s.inside));
        println!("    peasants:         {}", spread(&s.peasants));
        println!("    one player's:     {}", spread(&s.per_player));
    }
    Ok(())
}

/// A tower that throws only outcomes forced on it has no odds to simulate.
fn simulated(engine: &Engine) -> Result<(), String> {
    let name = engine.runtime().tower_name();
    match engine.rules.rules.towers.get(&name) {
        Some(spec) if spec.forced_only() => Err(format!(
            "tower `{name}` throws only the outcomes forced on it (`force` in the REPL or a scenario), so it has no odds: choose another with --tower"
        )),
        _ => Ok(()),
    }
}

/// `--preload N`: the setup throw of a game these rules can set up.
fn check_preload(engine: &Engine, preload: Option<u8>) -> Result<(), String> {
    let players = &engine.rules.rules.players;
    match preload {
        Some(n) if !players.takes(n) => Err(format!("--preload takes a player count these rules set up, {} to {}; not {n}", players.min, players.max)),
        _ => Ok(()),
    }
}

/// `shogun tower table`: attacker-win chances, 1..10 against 1..10.
fn table_command(a: &TableArgs) -> Result<(), String> {
    if a.trials == 0 {
        return Err("--trials must be at least 1".into());
    }
    let engine = a.data.engine()?;
    check_preload(&engine, a.preload)?;
    simulated(&engine)?;
    let pre = &engine.rules.rules.tower.preload;
    let mut grid = vec![vec![0.0; 10]; 10];
    for (i, row) in grid.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            let q = OddsQuery {
                attack: i as u16 + 1,
                defend: j as u16 + 1,
                peasants: 0,
                unrest: false,
                defender_extra: 0,
                preload: a.preload,
                preload_cubes: pre.cubes_per_player as u16,
                preload_peasants: pre.peasants as u16,
                trials: a.trials,
                seed: a.seed + (i * 10 + j) as u64,
            };
            *cell = run_odds(&engine, &q)?.attacker_wins.p;
        }
    }
    let tower = engine.runtime().tower_name();
    println!("attacker-win chance under tower `{tower}` ({} trials per cell); rows: attackers, columns: defenders", a.trials);
    print!("att\\def");
    for j in 1..=10 {
        print!("{j:>6}");
    }
    println!();
    for (i, row) in grid.iter().enumerate() {
        print!("{:>7}", i + 1);
        for p in row {
            print!("{:>5.0}%", p * 100.0);
        }
        println!();
    }
    if let Some(path) = &a.svg {
        crate::files::write_atomic(path, svg(&grid, &tower).as_bytes())?;
        println!("heat map written to {}", path.display());
    }
    Ok(())
}

/// `shogun tower fit`: model parameters fitted to recorded throws.
fn fit_command(a: &FitArgs) -> Result<(), String> {
    if a.particles == 0 {
        return Err("--particles must be at least 1".into());
    }
    let obs = Observations::parse(&a.observations, &crate::files::read_text(&a.observations)?)?;
    let engine = a.data.engine()?;
    let families: Vec<&str> = match a.family.as_deref() {
        Some(m) => vec![m],
        None => vec!["levels", "stateless"],
    };
    let method = fit::Method { particles: a.particles, seed: a.seed, filter_only: a.particle_filter };
    let mut fits = Vec::new();
    for f in &families {
        fits.push(fit::fit(f, &obs, method)?);
    }
    let mut presets = Vec::new();
    for (name, spec) in &engine.rules.rules.towers {
        if spec.forced_only() {
            continue;
        }
        engine.runtime().set_tower(name)?;
        presets.push((name.clone(), fit::likelihood(engine.tower().as_ref(), &obs, method)?));
    }
    if a.json {
        let fits: Vec<_> = fits.iter().map(|f| serde_json::json!({ "model": f.model, "params": f.params, "likelihood": f.likelihood })).collect();
        let presets: Vec<_> = presets.iter().map(|(n, l)| serde_json::json!({ "tower": n, "likelihood": l })).collect();
        println!("{}", serde_json::json!({ "fits": fits, "presets": presets }));
        return Ok(());
    }
    println!("{} throws from {}: {}", obs.throws.len(), a.observations.display(), obs.description.trim());
    println!("best parameters (log-likelihood, higher is better):");
    for f in &fits {
        let params: Vec<String> = f.params.iter().map(|(k, v)| format!("{k}={}", trim_num(*v))).collect();
        match &f.likelihood {
            fit::Likelihood::Impossible { .. } => println!("  {:<12} {}", f.model, describe(&f.likelihood)),
            l => println!("  {:<12} {}   {}", f.model, describe(l), params.join(", ")),
        }
    }
    println!("presets in the rules:");
    for (name, l) in &presets {
        println!("  {name:<12} {}", describe(l));
    }
    let mut all: Vec<(String, &fit::Likelihood)> = fits.iter().map(|f| (format!("fitted `{}`", f.model), &f.likelihood)).collect();
    all.extend(presets.iter().map(|(n, l)| (format!("preset `{n}`"), l)));
    println!("{}.", verdict(&all));
    Ok(())
}

/// A likelihood as `tower fit` prints it.
fn describe(l: &fit::Likelihood) -> String {
    match l {
        fit::Likelihood::Exact { log_likelihood } => format!("{log_likelihood:>10.2}"),
        fit::Likelihood::Estimated { log_likelihood, particles } => format!("{log_likelihood:>10.2}   (estimated: particle filter, {particles} particles)"),
        fit::Likelihood::Impossible { throw, why } => format!("cannot explain throw {throw}: {why}"),
        fit::Likelihood::LostTrack { throw, particles } => {
            format!(
                "no estimate: the particle filter lost track at throw {throw} with {particles} particles (which proves nothing about the tower); raise --particles"
            )
        }
    }
}

/// Which model the data favour, from reliable numbers only: a model whose
/// estimate was lost may be the best, so then there is no verdict.
fn verdict(all: &[(String, &fit::Likelihood)]) -> String {
    let lost: Vec<&str> = all.iter().filter(|(_, l)| l.value().is_none()).map(|(n, _)| n.as_str()).collect();
    if !lost.is_empty() {
        return format!("verdict: none: the particle filter lost track of {}, which may fit best; raise --particles", lost.join(", "));
    }
    let mut ranked: Vec<(&str, f64)> = all.iter().filter_map(|(n, l)| l.value().filter(|v| v.is_finite()).map(|v| (n.as_str(), v))).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let Some(&(best, top)) = ranked.first() else {
        return "verdict: none of these models can explain these throws (check the record: see each model's line)".into();
    };
    let mut verdict = format!("verdict: {best} fits these throws best");
    if let Some(&(second, next)) = ranked.get(1)
        && top - next < 2.0
    {
        let _ = write!(verdict, ", but {second} is within 2 log-likelihood units: record more throws to tell them apart");
    }
    if ranked.iter().take(2).any(|(n, _)| all.iter().any(|(m, l)| m == n && matches!(l, fit::Likelihood::Estimated { .. }))) {
        verdict.push_str(" (a particle estimate is among these: compare across a few --seed values)");
    }
    verdict
}

fn trim_num(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The odds table as an SVG heat map (red: defender favoured, green: attacker).
pub fn svg(grid: &[Vec<f64>], title: &str) -> String {
    let cell = 44;
    let (left, top) = (60, 60);
    let w = left + cell * 10 + 20;
    let h = top + cell * 10 + 40;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <text x=\"{left}\" y=\"20\" font-size=\"14\">Attacker wins, tower `{}`</text>\n\
         <text x=\"{}\" y=\"44\" text-anchor=\"middle\">defenders</text>\n\
         <text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">attackers</text>\n",
        title.replace('&', "&amp;").replace('<', "&lt;"),
        left + cell * 5,
        top + cell * 5,
        top + cell * 5
    );
    for j in 0..10 {
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", left + j * cell + cell / 2, top - 4, j + 1);
    }
    for (i, row) in grid.iter().enumerate() {
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", left - 6, top + i * cell + cell / 2 + 4, i + 1);
        for (j, p) in row.iter().enumerate() {
            let r = (255.0 * (1.0 - p)).round() as u8;
            let g = (200.0 * p + 40.0).round() as u8;
            let _ = writeln!(
                s,
                "<rect x=\"{}\" y=\"{}\" width=\"{cell}\" height=\"{cell}\" fill=\"rgb({r},{g},80)\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:.0}</text>",
                left + j * cell,
                top + i * cell,
                left + j * cell + cell / 2,
                top + i * cell + cell / 2 + 4,
                p * 100.0
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
