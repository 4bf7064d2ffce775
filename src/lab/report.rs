//! The lab's report: per arm win rates and means, per pair of arms paired
//! differences, the pairing figures, the verdict's family of headlines
//! under family-wise error control, and the sensitivity of each headline
//! to the tower and the bots. Built from an `Aggregate` only, so a run and
//! its merged shards give the same report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::stats::{self, ALPHA, Interval, Sums};
use super::{Aggregate, Header};

/// Per-game quantities that describe the flow of a game, with their names
/// in verdicts.
pub const FLOW: &[(&str, &str)] = &[
    ("margin", "margin of victory"),
    ("battles", "battles per game"),
    ("owner_changes", "provinces changing hands"),
    ("decisions", "decisions per game"),
    ("lead_changes", "lead changes"),
    ("tiebreak", "games decided by war chests"),
    ("tower_stuck", "cubes stuck in the tower at the end"),
];

/// The unit of win rates and their differences in every output.
pub const POINTS: &str = "percentage points";

#[derive(Clone, Debug, Serialize)]
pub struct ArmReport {
    pub name: String,
    /// Seat -> percentage of first places with its Wilson 95% interval.
    pub win_rates: BTreeMap<String, Interval>,
    /// 1 - (gap between the seats with the most and the fewest first
    /// places), with the 95% score interval of that gap.
    pub balance: Interval,
    pub chi2: f64,
    /// p-value of the chi-square test that seats win equally often.
    pub balance_p: f64,
    /// Every metric's mean with its 95% interval (`win.*` in percent).
    pub means: BTreeMap<String, Interval>,
    /// Distributions (value -> games) of margin, battles and decisions.
    pub histograms: BTreeMap<String, BTreeMap<i64, u64>>,
    /// How often the functions the arm's variants added or replaced ran
    /// (absent for an arm without any).
    pub rule_use: Option<super::rule_use::RuleUse>,
}

/// One headline of a pair's verdict: a seat's win rate or a flow metric.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The metric's key (`win.A`, `battles`).
    pub metric: String,
    /// Its name in sentences.
    pub label: String,
    /// `percentage points` for win rates, `per game` otherwise.
    pub unit: String,
    /// The reference arm's value (its win rate in percent, or its mean).
    pub reference: f64,
    /// The paired difference (arm minus reference) and its family-wise 95%
    /// interval (each interval at 1 - 0.05/m for a family of m headlines).
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
    /// The test of "no change" on its own, and after Holm's adjustment
    /// over the pair's family.
    pub p: f64,
    pub p_adjusted: f64,
    /// Whether the verdict states a change (p_adjusted < 0.05).
    pub detected: bool,
    /// The smallest true change this run detects with 80% power at the
    /// family's level, in the finding's unit.
    pub detectable: f64,
    /// Correlation of the two arms' values game by game.
    pub correlation: Option<f64>,
    /// 1 - var(paired difference) / var(two independent samples).
    pub variance_reduction: Option<f64>,
    /// Games in which the two arms' values differ.
    pub games_differ: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct PairReport {
    pub a: usize,
    pub b: usize,
    /// Mean of (a - b) game by game with its 95% interval on its own
    /// (`win.*` in percentage points).
    pub diffs: BTreeMap<String, Interval>,
    /// Benjamini–Hochberg q-values of the differences (exploratory).
    pub q_values: BTreeMap<String, f64>,
    /// Games in which every metric was equal under both arms.
    pub identical_games: u64,
    /// The verdict's headlines, in order: seats, then the flow metrics.
    pub findings: Vec<Finding>,
    pub verdict: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConditionReport {
    pub label: String,
    /// Every arm plays its own tuned players (`lab --adapt`): a difference
    /// is the rules' and the players' together.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adapted: bool,
    pub games: u64,
    pub arms: Vec<ArmReport>,
    pub pairs: Vec<PairReport>,
}

/// A headline across conditions: whether its direction holds.
#[derive(Clone, Debug, Serialize)]
pub struct SensitivityRow {
    pub pair: String,
    pub metric: String,
    /// Per condition: the paired difference (family-wise interval).
    pub by_condition: Vec<Interval>,
    /// Per condition: whether the verdict states it (Holm over the family).
    pub detected: Vec<bool>,
    pub verdict: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub header: Header,
    pub method: String,
    /// Headlines per pair: seats and flow metrics under every condition.
    pub family_size: usize,
    pub conditions: Vec<ConditionReport>,
    pub sensitivity: Vec<SensitivityRow>,
}

/// The arm's name in sentences: its ruleset without the `base+` prefix.
pub fn short(name: &str) -> &str {
    name.strip_prefix("base+").unwrap_or(name)
}

/// Decimals that show an interval of half-width `half` to two significant
/// digits (0 to 4).
pub fn decimals(half: f64) -> usize {
    if !(half.is_finite() && half > 0.0) {
        return 2;
    }
    (1.0 - half.log10().floor()).clamp(0.0, 4.0) as usize
}

/// `x` to `dec` decimals, never "-0.0".
pub fn fixed(x: f64, dec: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "—".into()
        } else if x > 0.0 {
            "∞".into()
        } else {
            "-∞".into()
        };
    }
    let s = format!("{x:.dec$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') { s[1..].to_string() } else { s }
}

/// A difference with its sign ("+1.2", "-0.4", "0.0").
pub fn signed(x: f64, dec: usize) -> String {
    let s = fixed(x, dec);
    if s.starts_with('-') || s.chars().all(|c| c == '0' || c == '.') || !x.is_finite() { s } else { format!("+{s}") }
}

/// An interval's bounds: "4.3–4.9" when neither is negative, else
/// "-0.2 to +1.4" (signed).
pub fn range(i: &Interval, dec: usize) -> String {
    let (lo, hi) = (fixed(i.lo, dec), fixed(i.hi, dec));
    if !lo.starts_with('-') && !hi.starts_with('-') { format!("{lo}–{hi}") } else { format!("{} to {}", signed(i.lo, dec), signed(i.hi, dec)) }
}

/// A value with its interval: "5.17 (4.98–5.36)".
pub fn with_interval(i: &Interval) -> String {
    let dec = decimals(i.width() / 2.0);
    format!("{} ({})", fixed(i.value, dec), range(i, dec))
}

/// "p = 0.031", "p < 0.001".
pub fn p_text(p: f64) -> String {
    if p < 0.001 { "p < 0.001".into() } else { format!("p = {p:.3}") }
}

/// The verdict's headlines: each seat's win rate, then the flow metrics.
fn headlines(h: &Header) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = h.seats.iter().map(|s| (format!("win.{s}"), format!("seat {s}'s win rate"))).collect();
    v.extend(FLOW.iter().map(|(k, n)| ((*k).to_string(), (*n).to_string())));
    v
}

fn is_win(key: &str) -> bool {
    key.starts_with("win.")
}

/// A difference's test: the score interval for win shares (in percentage
/// points), the mean's test otherwise.
fn diff_test(s: &Sums, key: &str, n: u64, alpha: f64) -> stats::Test {
    if is_win(key) {
        let t = s.share_test(n, alpha, 1.0);
        stats::Test { interval: t.interval.scaled(100.0), p: t.p }
    } else {
        s.test(n, alpha)
    }
}

fn arm_report(h: &Header, name: &str, s: &super::ArmSums, n: u64) -> ArmReport {
    let wins: Vec<f64> = h.seats.iter().map(|seat| s.metrics.get(&format!("win.{seat}")).map(|x| x.sum).unwrap_or(0.0)).collect();
    let win_rates: BTreeMap<String, Interval> = h.seats.iter().zip(&wins).map(|(seat, &w)| (seat.clone(), stats::wilson(w, n).scaled(100.0))).collect();
    let most = wins.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let fewest = wins.iter().cloned().fold(f64::INFINITY, f64::min);
    // The gap between two seats of the same games: a paired difference.
    let gap = if n == 0 { Interval::ZERO } else { stats::score_test(n as f64, most, fewest, ALPHA).interval };
    let (chi2, p) = stats::seat_balance(&wins);
    let means = s
        .metrics
        .iter()
        .map(|(k, v)| {
            let i = stats::arm_mean(v, n);
            (k.clone(), if is_win(k) { i.scaled(100.0) } else { i })
        })
        .collect();
    ArmReport {
        name: name.to_string(),
        win_rates,
        balance: Interval { value: 1.0 - gap.value, lo: 1.0 - gap.hi, hi: 1.0 - gap.lo },
        chi2,
        balance_p: p,
        means,
        histograms: s.hist.clone(),
        rule_use: None,
    }
}

/// A pair's differences, q-values and headlines (before Holm's adjustment,
/// which spans every condition).
fn pair_report(h: &Header, cs: &super::CondSums, p: &super::PairSums, arms: &[ArmReport], family: usize) -> PairReport {
    let n = cs.games;
    let identical = n > 0 && p.identical == n;
    let test = |key: &str, s: &Sums, alpha: f64| if identical { stats::Test { interval: Interval::ZERO, p: 1.0 } } else { diff_test(s, key, n, alpha) };
    let tests: Vec<(String, stats::Test)> = p.diffs.iter().map(|(k, s)| (k.clone(), test(k, s, ALPHA))).collect();
    let q = stats::benjamini_hochberg(&tests.iter().map(|(_, t)| t.p).collect::<Vec<_>>());
    let alpha = ALPHA / family.max(1) as f64;
    let empty = Sums::default();
    let findings = headlines(h)
        .into_iter()
        .map(|(key, label)| {
            let d = p.diffs.get(&key).unwrap_or(&empty);
            let t = test(&key, d, alpha);
            let (sa, sb) = (cs.arms[p.a].metrics.get(&key).unwrap_or(&empty), cs.arms[p.b].metrics.get(&key).unwrap_or(&empty));
            let (correlation, variance_reduction) = stats::pairing(sa, sb, d, n);
            Finding {
                unit: if is_win(&key) { POINTS.into() } else { "per game".into() },
                reference: arms[p.b].means.get(&key).map(|m| m.value).unwrap_or(0.0),
                estimate: t.interval.value,
                lo: t.interval.lo,
                hi: t.interval.hi,
                p: t.p,
                p_adjusted: t.p,
                detected: false,
                detectable: stats::detectable(&t.interval, alpha),
                correlation,
                variance_reduction,
                games_differ: d.nonzero,
                metric: key,
                label,
            }
        })
        .collect();
    PairReport {
        a: p.a,
        b: p.b,
        diffs: tests.iter().map(|(k, t)| (k.clone(), t.interval)).collect(),
        q_values: tests.iter().zip(q).map(|((k, _), q)| (k.clone(), q)).collect(),
        identical_games: p.identical,
        findings,
        verdict: Vec::new(),
    }
}

impl Report {
    pub fn build(agg: &Aggregate) -> Report {
        let h = &agg.header;
        let conds = agg.conds();
        let family = headlines(h).len() * conds.len();
        let mut conditions: Vec<ConditionReport> = conds
            .iter()
            .enumerate()
            .map(|(c, cs)| {
                let arms: Vec<ArmReport> = cs
                    .arms
                    .iter()
                    .enumerate()
                    .map(|(a, s)| ArmReport {
                        rule_use: super::rule_use::RuleUse::of(&h.rules[a].parts, s, cs.games),
                        ..arm_report(h, &h.arms[a], s, cs.games)
                    })
                    .collect();
                let pairs = cs.pairs.iter().map(|p| pair_report(h, cs, p, &arms, family)).collect();
                ConditionReport { label: h.conditions[c].label(), adapted: h.conditions[c].adapted(), games: cs.games, arms, pairs }
            })
            .collect();
        // One family per pair: its headlines under every condition, Holm.
        let pairs = conditions.first().map(|c| c.pairs.len()).unwrap_or(0);
        for pi in 0..pairs {
            let p: Vec<f64> = conditions.iter().flat_map(|c| c.pairs[pi].findings.iter().map(|f| f.p)).collect();
            let mut adjusted = stats::holm(&p).into_iter();
            for c in conditions.iter_mut() {
                for f in c.pairs[pi].findings.iter_mut() {
                    f.p_adjusted = adjusted.next().unwrap_or(1.0);
                    f.detected = f.p_adjusted < ALPHA;
                }
            }
        }
        for c in conditions.iter_mut() {
            for pi in 0..c.pairs.len() {
                c.pairs[pi].verdict = verdict(&c.arms, &c.pairs[pi], c.games);
                if let Some(line) = beyond_verdict(&h.seats, &c.arms, &c.pairs[pi]) {
                    c.pairs[pi].verdict.push(line);
                }
                // A rule that never came into play is said so, not "no change".
                let (a, b) = (c.pairs[pi].a, c.pairs[pi].b);
                let use_of = |i: usize| (c.arms[i].name.as_str(), c.arms[i].rule_use.as_ref());
                let all_identical = c.games > 0 && c.pairs[pi].identical_games == c.games;
                super::rule_use::amend(&mut c.pairs[pi].verdict, [use_of(a), use_of(b)], all_identical, c.adapted);
                if c.adapted {
                    c.pairs[pi].verdict.insert(
                        0,
                        "rules + each arm's tuned players: here each arm plays its own tuned planner, so a difference below is the rules' and \
                         the players' together, not the rules' alone; the intervals hold the games' noise, not the tuning's (another search \
                         seed may tune other players)"
                            .into(),
                    );
                }
            }
        }
        let sensitivity = if conditions.len() > 1 { sensitivity(&conditions) } else { Vec::new() };
        Report { header: h.clone(), method: method(family, h.adapt.is_some()), family_size: family, conditions, sensitivity }
    }

    /// The terminal table.
    pub fn text(&self) -> String {
        let h = &self.header;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "shogun lab: {} arm(s), {} players on {} ({}), seed {}, bots rotated over seats: {}",
            h.arms.len(),
            h.players,
            h.map,
            h.setup,
            h.seed,
            if h.rotate { "yes" } else { "no" }
        );
        for (i, a) in h.arms.iter().enumerate() {
            let _ = writeln!(o, "  arm {}: {a}", i + 1);
        }
        if let Some(a) = &h.adapt {
            o.push_str(&a.text(h));
        }
        for c in &self.conditions {
            let _ = writeln!(o, "\n== {} — {} games per arm ==", c.label, c.games);
            let w = c.arms.iter().map(|a| short(&a.name).len()).max().unwrap_or(4).max(32);
            win_text(&mut o, h, c, w);
            means_text(&mut o, h, c, w);
            for p in &c.pairs {
                pair_text(&mut o, c, p, self.family_size);
            }
        }
        self.sensitivity_text(&mut o);
        let _ = writeln!(o, "\nmethod: {}", self.method);
        o
    }

    fn sensitivity_text(&self, o: &mut String) {
        if self.sensitivity.is_empty() {
            return;
        }
        let _ = writeln!(o, "\nsensitivity to tower and bots (paired differences per condition; win rates in {POINTS})");
        for r in &self.sensitivity {
            let cells: Vec<String> = r
                .by_condition
                .iter()
                .zip(&r.detected)
                .map(|(i, d)| format!("{}{}", signed(i.value, decimals(i.width() / 2.0).min(2)), if *d { "*" } else { "" }))
                .collect();
            let _ = writeln!(o, "  {:<28} {:<36} {}  -> {}", r.pair, r.metric, cells.join(" | "), r.verdict);
        }
        let _ = writeln!(
            o,
            "  (* stated by the verdict: Holm over the pair's family; conditions in order: {})",
            self.conditions.iter().map(|c| c.label.clone()).collect::<Vec<_>>().join(" | ")
        );
    }
}

fn method(family: usize, adapted: bool) -> String {
    let players = if adapted {
        " Under the condition of players adapted per arm (rules + each arm's tuned players) the seeds are shared but each arm plays its \
         own tuned planner: a difference there is the rules' and the players' together, and its interval holds the games' noise, not \
         the tuning's."
    } else {
        ""
    };
    format!(
        "common random numbers: game i of every arm uses seed+i and the same bot seeds.{players} Win rates (in percent; a tie for first counts 1/k \
         to each of k seats) with Wilson 95% intervals; means with 95% Student t intervals (the score interval of the values, in units of the \
         largest seen, when fewer than {rare} games have a nonzero value; in a run of fewer than {rare} games, an arm's mean of a metric never below 0 \
         spans both its t interval and the Poisson interval of its sum). Paired differences (an arm minus a later-written arm, game by game): win \
         rates in {POINTS} with Tango's score interval for paired proportions (a half win counts as half a game), other metrics as means. \
         The verdict: one family per pair of arms, its {family} headlines (each seat's win rate and {flows} flow metrics, under every \
         condition), with family-wise error control by Holm's method at 5% (the closed test of Bonferroni tests: the seat vector is \
         tested jointly before any seat is named); headline intervals are family-wise (each at 1 - 0.05/{family}); where nothing is \
         detected the bound it rules out is stated. Pairing figures per headline: correlation of the arms' values, variance saved \
         against two independent samples, games that differ; the detectable change is the smallest true change found with 80% \
         power at the family's level. The means table's differences are exploratory: marked where the Benjamini–Hochberg q < 0.05 \
         over every metric compared. Seat balance: chi-square test of equal first places, and 1 - (gap between the seats with the most and fewest \
         first places) with a 95% score interval",
        rare = stats::RARE,
        flows = FLOW.len()
    )
}

/// Win rates by seat and each arm's balance.
fn win_text(o: &mut String, h: &Header, c: &ConditionReport, w: usize) {
    let _ = write!(o, "\nwin rate by seat, % (95% Wilson)\n  {:<8}", "seat");
    for a in &c.arms {
        let _ = write!(o, "{:<w$}", short(&a.name), w = w + 2);
    }
    let _ = writeln!(o);
    for seat in &h.seats {
        let _ = write!(o, "  {seat:<8}");
        for a in &c.arms {
            let i = a.win_rates[seat];
            let _ = write!(o, "{:<w$}", format!("{:.1}% ({:.1}–{:.1})", i.value, i.lo, i.hi), w = w + 2);
        }
        let _ = writeln!(o);
    }
    let _ = write!(o, "  {:<8}", "balance");
    for a in &c.arms {
        let i = a.balance;
        let _ = write!(o, "{:<w$}", format!("{:.2} ({:.2}–{:.2}; χ² {})", i.value, i.lo, i.hi, p_text(a.balance_p)), w = w + 2);
    }
    let _ = writeln!(o);
}

/// The means table's rows: the flow metrics, then points, chests,
/// provinces and buildings by seat, then behaviour (actions carried out,
/// buildings built) and the rules' own tallies, in total (per seat in
/// `--json` and the records).
fn means_rows(seats: &[String], arms: &[ArmReport]) -> Vec<String> {
    let mut rows: Vec<String> = FLOW.iter().map(|(k, _)| (*k).to_string()).collect();
    for m in ["points", "chests", "provinces", "buildings"] {
        rows.extend(seats.iter().map(|s| format!("{m}.{s}")));
    }
    for prefix in ["actions.", "built.", "tally."] {
        let mut keys: Vec<String> = arms.iter().flat_map(|a| a.means.keys()).filter(|k| k.starts_with(prefix) && is_total(k, seats)).cloned().collect();
        keys.sort();
        keys.dedup();
        rows.extend(keys);
    }
    rows
}

/// The means table, with each pair's difference (exploratory).
fn means_text(o: &mut String, h: &Header, c: &ConditionReport, w: usize) {
    let rows = means_rows(&h.seats, &c.arms);
    let kw = rows.iter().map(|k| k.len()).max().unwrap_or(6) + 2;
    let _ = write!(o, "\nmeans per game (95% CI)\n  {:<kw$}", "metric");
    for a in &c.arms {
        let _ = write!(o, "{:<w$}", short(&a.name), w = w + 2);
    }
    for p in &c.pairs {
        let _ = write!(o, "{:<dw$}", format!("{} − {} (95% CI)", short(&c.arms[p.a].name), short(&c.arms[p.b].name)), dw = w + 2);
    }
    let _ = writeln!(o);
    let mut marked = false;
    for key in &rows {
        let _ = write!(o, "  {key:<kw$}");
        for a in &c.arms {
            let cell = a.means.get(key).map(with_interval).unwrap_or_else(|| "0".into());
            let _ = write!(o, "{:<w$}", cell, w = w + 2);
        }
        for p in &c.pairs {
            let cell = match (p.diffs.get(key), p.q_values.get(key)) {
                (Some(i), Some(&q)) => {
                    marked |= q < ALPHA;
                    let dec = decimals(i.width() / 2.0);
                    format!("{} ({}){}", signed(i.value, dec), range(i, dec), if q < ALPHA { "*" } else { "" })
                }
                _ => "0".into(),
            };
            let _ = write!(o, "{cell:<w$}", w = w + 2);
        }
        let _ = writeln!(o);
    }
    if marked {
        let _ = writeln!(o, "  (* exploratory: Benjamini–Hochberg q < 0.05 over every metric compared; not part of the verdict)");
    }
}

/// A pair's pairing figures, detectable changes and verdict.
fn pair_text(o: &mut String, c: &ConditionReport, p: &PairReport, family: usize) {
    let (an, bn) = (short(&c.arms[p.a].name), short(&c.arms[p.b].name));
    let _ = writeln!(o, "\n{an} vs {bn}: {} paired games", c.games);
    let _ = writeln!(o, "  what pairing achieved, and the smallest change this run detects (80% power, family-wise 5%):");
    let _ = writeln!(o, "    {:<38}{:>12}{:>16}{:>14}   detectable change", "headline", "correlation", "variance saved", "games differ");
    for f in &p.findings {
        let corr = f.correlation.map(|r| fixed(r, 2)).unwrap_or_else(|| "—".into());
        let saved = f.variance_reduction.map(|v| format!("{}%", fixed(v * 100.0, 0))).unwrap_or_else(|| "—".into());
        let unit = if is_win(&f.metric) { format!(" {POINTS}") } else { String::new() };
        let dec = if is_win(&f.metric) { decimals(f.detectable / 2.0).max(1) } else { decimals(f.detectable / 2.0) };
        let det = format!("±{}{unit}", fixed(f.detectable, dec));
        let _ = writeln!(o, "    {:<38}{corr:>12}{saved:>16}{:>14}   {det}", f.label, f.games_differ);
    }
    let _ = writeln!(o, "  verdict (one family of {family} headlines, Holm, family-wise 95%):");
    for line in &p.verdict {
        let _ = writeln!(o, "    {line}");
    }
}

/// A metric in total (`tally.KEY`, not `tally.KEY.SEAT`).
fn is_total(key: &str, seats: &[String]) -> bool {
    !seats.iter().any(|s| key.ends_with(&format!(".{s}")))
}

/// The plain-language verdict for one pair: detected changes with their
/// family-wise intervals, and for the rest the change the data rule out.
fn verdict(arms: &[ArmReport], p: &PairReport, n: u64) -> Vec<String> {
    let (an, bn) = (short(&arms[p.a].name), short(&arms[p.b].name));
    if n > 0 && p.identical_games == n {
        return vec![format!("{an} and {bn} played identical games on all {n} seeds: every metric was equal game by game")];
    }
    let mut out = Vec::new();
    let seats: Vec<&Finding> = p.findings.iter().filter(|f| is_win(&f.metric)).collect();
    let (moved, still): (Vec<&Finding>, Vec<&Finding>) = seats.iter().partition(|f| f.detected);
    for f in &moved {
        let i = Interval { value: f.estimate, lo: f.lo, hi: f.hi };
        let dec = decimals(i.width() / 2.0).max(1);
        let dir = if f.estimate > 0.0 { "raises" } else { "lowers" };
        out.push(format!(
            "{an} {dir} {} by {} {POINTS} (from {}% to {}%; family-wise 95% interval {}; Holm {})",
            f.label,
            fixed(f.estimate.abs(), dec),
            fixed(f.reference, 1),
            fixed(f.reference + f.estimate, 1),
            range(&i, dec),
            p_text(f.p_adjusted)
        ));
    }
    if !still.is_empty() {
        let bound = still.iter().map(|f| f.lo.abs().max(f.hi.abs())).fold(0.0, f64::max);
        let names: Vec<&str> = still.iter().map(|f| f.metric.trim_start_matches("win.")).collect();
        let who = if moved.is_empty() {
            "no seat's win rate changes detectably: each".to_string()
        } else {
            format!("seats {}: no change detected; each", names.join(", "))
        };
        out.push(format!("{who} changes by less than ±{} {POINTS} (family-wise 95%; {n} paired games)", fixed(bound, decimals(bound / 2.0).max(1))));
    }
    let mut same = Vec::new();
    for f in p.findings.iter().filter(|f| !is_win(&f.metric)) {
        let i = Interval { value: f.estimate, lo: f.lo, hi: f.hi };
        let dec = decimals(i.width() / 2.0);
        if f.detected {
            out.push(format!(
                "{an} changes {} from {} to {} ({}; family-wise 95% interval {}; Holm {})",
                f.label,
                fixed(f.reference, dec),
                fixed(f.reference + f.estimate, dec),
                signed(f.estimate, dec),
                range(&i, dec),
                p_text(f.p_adjusted)
            ));
        } else {
            same.push(format!("{} ±{}", f.label, fixed(i.bound(), decimals(i.bound() / 2.0))));
        }
    }
    if !same.is_empty() {
        out.push(format!("no change detected, each changes by less than (family-wise 95%): {}", same.join(", ")));
    }
    out
}

/// How many metrics beyond the verdict's headlines the means table marks
/// (every metric compared: the terminal's table shows totals, `--report`
/// and `--json` every one), and the clearest of them, the terminal's rows
/// first: a scoring rule moves points, not necessarily a seat's win rate
/// or the flow, and a verdict of "no change" alone read as "the rule does
/// nothing". Said as what it is, exploratory.
fn beyond_verdict(seats: &[String], arms: &[ArmReport], p: &PairReport) -> Option<String> {
    const SHOWN: usize = 4;
    let tested: Vec<&str> = p.findings.iter().map(|f| f.metric.as_str()).collect();
    let shown_here = means_rows(seats, arms);
    let mut marked: Vec<(&String, f64, bool)> =
        p.q_values.iter().filter(|(k, q)| **q < ALPHA && !tested.contains(&k.as_str())).map(|(k, &q)| (k, q, shown_here.contains(k))).collect();
    if marked.is_empty() {
        return None;
    }
    // The terminal table's rows first, clearest first; on equal q-values,
    // by name.
    marked.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.total_cmp(&b.1)));
    let shown: Vec<String> = marked
        .iter()
        .take(SHOWN)
        .filter_map(|(k, ..)| {
            let i = p.diffs.get(*k)?;
            let dec = decimals(i.width() / 2.0);
            Some(format!("{k} {} ({})", signed(i.value, dec), range(i, dec)))
        })
        .collect();
    let more = if marked.len() > SHOWN { format!(" and {} more", marked.len() - SHOWN) } else { String::new() };
    Some(format!(
        "beyond the verdict's headlines the means table marks {} metric{} (exploratory: Benjamini–Hochberg q < 0.05 over every metric compared, not family-wise): {}{more}",
        marked.len(),
        if marked.len() == 1 { "" } else { "s" },
        shown.join(", ")
    ))
}

fn sensitivity(conds: &[ConditionReport]) -> Vec<SensitivityRow> {
    let mut rows = Vec::new();
    for (pi, p) in conds[0].pairs.iter().enumerate() {
        let pair = format!("{} vs {}", short(&conds[0].arms[p.a].name), short(&conds[0].arms[p.b].name));
        for (fi, f) in p.findings.iter().enumerate() {
            let found: Vec<&Finding> = conds.iter().map(|c| &c.pairs[pi].findings[fi]).collect();
            let by: Vec<Interval> = found.iter().map(|f| Interval { value: f.estimate, lo: f.lo, hi: f.hi }).collect();
            let detected: Vec<bool> = found.iter().map(|f| f.detected).collect();
            let up = found.iter().filter(|f| f.detected && f.estimate > 0.0).count();
            let down = found.iter().filter(|f| f.detected && f.estimate < 0.0).count();
            let verdict = if up > 0 && down > 0 {
                format!("SIGN FLIPS: raised under {up}, lowered under {down} of {} conditions (the tower or the bots decide)", by.len())
            } else if up + down == by.len() {
                "holds under every condition".to_string()
            } else if up + down > 0 {
                format!("detected under {} of {} conditions, not detected elsewhere", up + down, by.len())
            } else {
                "not detected under any condition".to_string()
            };
            rows.push(SensitivityRow { pair: pair.clone(), metric: f.label.clone(), by_condition: by, detected, verdict });
        }
    }
    rows
}
