//! The lab's report: per arm win rates and means, per pair of arms paired
//! differences and a plain verdict, and the sensitivity of each headline to
//! the tower and the bots. Built from an `Aggregate` only, so a run and its
//! merged shards give the same report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::stats::{self, Interval};
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

#[derive(Clone, Debug, Serialize)]
pub struct ArmReport {
    pub name: String,
    /// Seat -> share of first places with its Wilson interval.
    pub win_rates: BTreeMap<String, Interval>,
    /// 1 - (largest gap between seat win rates).
    pub balance: f64,
    pub chi2: f64,
    /// p-value of the chi-square test that seats win equally often.
    pub balance_p: f64,
    /// Every metric's mean with its 95% t interval.
    pub means: BTreeMap<String, Interval>,
    /// Distributions (value -> games) of margin, battles and decisions.
    pub histograms: BTreeMap<String, BTreeMap<i64, u64>>,
    /// How often the functions the arm's variants added or replaced ran
    /// (absent for an arm without any).
    pub rule_use: Option<super::rule_use::RuleUse>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PairReport {
    pub a: usize,
    pub b: usize,
    /// Mean of (a - b) game by game, 95% paired t interval.
    pub diffs: BTreeMap<String, Interval>,
    /// Games in which every metric was equal under both arms.
    pub identical_games: u64,
    pub verdict: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConditionReport {
    pub label: String,
    pub games: u64,
    pub arms: Vec<ArmReport>,
    pub pairs: Vec<PairReport>,
}

/// A headline across conditions: whether its direction holds.
#[derive(Clone, Debug, Serialize)]
pub struct SensitivityRow {
    pub pair: String,
    pub metric: String,
    /// Per condition: the paired difference.
    pub by_condition: Vec<Interval>,
    pub verdict: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub header: Header,
    pub method: String,
    pub conditions: Vec<ConditionReport>,
    pub sensitivity: Vec<SensitivityRow>,
}

/// The arm's name in sentences: its ruleset without the `base+` prefix.
pub fn short(name: &str) -> &str {
    name.strip_prefix("base+").unwrap_or(name)
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

fn num(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

impl Report {
    pub fn build(agg: &Aggregate) -> Report {
        let h = &agg.header;
        let mut conditions = Vec::new();
        for (c, cs) in agg.conds.iter().enumerate() {
            let n = cs.games;
            let arms: Vec<ArmReport> = cs
                .arms
                .iter()
                .enumerate()
                .map(|(a, s)| {
                    let wins: Vec<f64> = h.seats.iter().map(|seat| s.metrics.get(&format!("win.{seat}")).map(|x| x.sum).unwrap_or(0.0)).collect();
                    let win_rates: BTreeMap<String, Interval> = h.seats.iter().zip(&wins).map(|(seat, &w)| (seat.clone(), stats::wilson(w, n))).collect();
                    let rates: Vec<f64> = win_rates.values().map(|i| i.value).collect();
                    let gap = rates.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - rates.iter().cloned().fold(f64::INFINITY, f64::min);
                    let (chi2, p) = stats::seat_balance(&wins);
                    ArmReport {
                        name: h.arms[a].clone(),
                        win_rates,
                        balance: if n == 0 { 1.0 } else { 1.0 - gap },
                        chi2,
                        balance_p: p,
                        means: s.metrics.iter().map(|(k, v)| (k.clone(), v.mean(n))).collect(),
                        histograms: s.hist.clone(),
                        rule_use: super::rule_use::RuleUse::of(&h.rules[a].parts, s, n),
                    }
                })
                .collect();
            let pairs = cs
                .pairs
                .iter()
                .map(|p| {
                    let diffs: BTreeMap<String, Interval> = p.diffs.iter().map(|(k, v)| (k.clone(), v.mean(n))).collect();
                    let mut pr = PairReport { a: p.a, b: p.b, diffs, identical_games: p.identical, verdict: Vec::new() };
                    pr.verdict = verdict(h, &arms, &pr, n);
                    let use_of = |i: usize| (arms[i].name.as_str(), arms[i].rule_use.as_ref());
                    super::rule_use::amend(&mut pr.verdict, [use_of(p.a), use_of(p.b)], n > 0 && p.identical == n);
                    pr
                })
                .collect();
            conditions.push(ConditionReport { label: h.conditions[c].label(), games: n, arms, pairs });
        }
        let sensitivity = if conditions.len() > 1 { sensitivity(h, &conditions) } else { Vec::new() };
        Report {
            header: h.clone(),
            method: "common random numbers: game i of every arm uses seed+i and the same bot seeds; win rates with Wilson 95% intervals \
                     (a tie for first counts 1/k to each of k seats); means and paired differences (an arm minus a later-written arm, game by game) with \
                     95% Student t intervals, each 95% on its own (no correction for comparing several seats and metrics at once); seat \
                     balance: chi-square test of equal first places, and 1 - (largest gap between seat win rates)"
                .into(),
            conditions,
            sensitivity,
        }
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
        for c in &self.conditions {
            let _ = writeln!(o, "\n== {} — {} games per arm ==", c.label, c.games);
            let w = c.arms.iter().map(|a| short(&a.name).len()).max().unwrap_or(4).max(22);
            let _ = write!(o, "\nwin rate by seat (95% Wilson)\n  {:<8}", "seat");
            for a in &c.arms {
                let _ = write!(o, "{:<w$}", short(&a.name), w = w + 2);
            }
            let _ = writeln!(o);
            for seat in &h.seats {
                let _ = write!(o, "  {seat:<8}");
                for a in &c.arms {
                    let i = a.win_rates[seat];
                    let _ = write!(o, "{:<w$}", format!("{}% ({}–{})", pct(i.value), pct(i.lo), pct(i.hi)), w = w + 2);
                }
                let _ = writeln!(o);
            }
            let _ = write!(o, "  {:<8}", "balance");
            for a in &c.arms {
                let _ = write!(o, "{:<w$}", format!("{:.3} (χ² p={:.3})", a.balance, a.balance_p), w = w + 2);
            }
            let _ = writeln!(o);
            let mut rows: Vec<&str> = FLOW.iter().map(|(k, _)| *k).collect();
            let per_seat = ["points", "chests", "provinces", "buildings"];
            let seat_rows: Vec<String> = per_seat.iter().flat_map(|m| h.seats.iter().map(move |s| format!("{m}.{s}"))).collect();
            rows.extend(seat_rows.iter().map(String::as_str));
            let tallies: Vec<String> = {
                let mut t: Vec<String> = c.arms.iter().flat_map(|a| a.means.keys()).filter(|k| is_total_tally(k, &h.seats)).cloned().collect();
                t.sort();
                t.dedup();
                t
            };
            rows.extend(tallies.iter().map(String::as_str));
            let kw = rows.iter().map(|k| k.len()).max().unwrap_or(6) + 2;
            let _ = write!(o, "\nmeans per game (95% CI)\n  {:<kw$}", "metric");
            for a in &c.arms {
                let _ = write!(o, "{:<w$}", short(&a.name), w = w + 2);
            }
            let _ = writeln!(o);
            for key in rows {
                let _ = write!(o, "  {key:<kw$}");
                for a in &c.arms {
                    let cell = a.means.get(key).map(|i| format!("{} ({}–{})", num(i.value), num(i.lo), num(i.hi))).unwrap_or_else(|| "0".into());
                    let _ = write!(o, "{:<w$}", cell, w = w + 2);
                }
                let _ = writeln!(o);
            }
            for p in &c.pairs {
                let (an, bn) = (short(&c.arms[p.a].name), short(&c.arms[p.b].name));
                let _ = writeln!(o, "\n{an} vs {bn} (paired, game by game)");
                for line in &p.verdict {
                    let _ = writeln!(o, "  {line}");
                }
            }
        }
        if !self.sensitivity.is_empty() {
            let _ = writeln!(o, "\nsensitivity to tower and bots (paired differences per condition)");
            for r in &self.sensitivity {
                let cells: Vec<String> = r.by_condition.iter().map(|i| format!("{}{}", num(i.value), if i.excludes_zero() { "*" } else { "" })).collect();
                let _ = writeln!(o, "  {:<28} {:<24} {}  -> {}", r.pair, r.metric, cells.join(" | "), r.verdict);
            }
            let _ = writeln!(
                o,
                "  (* the 95% interval excludes 0; conditions in order: {})",
                self.conditions.iter().map(|c| c.label.clone()).collect::<Vec<_>>().join(" | ")
            );
        }
        let _ = writeln!(o, "\nmethod: {}", self.method);
        o
    }
}

/// Tallies in total (`tally.KEY`, not `tally.KEY.SEAT`).
fn is_total_tally(key: &str, seats: &[String]) -> bool {
    key.starts_with("tally.") && !seats.iter().any(|s| key.ends_with(&format!(".{s}")))
}

/// The plain-language verdict for one pair.
fn verdict(h: &Header, arms: &[ArmReport], p: &PairReport, n: u64) -> Vec<String> {
    let (an, bn) = (short(&arms[p.a].name), short(&arms[p.b].name));
    let mut out = Vec::new();
    if n > 0 && p.identical_games == n {
        out.push(format!("{an} and {bn} played identical games on all {n} seeds: no difference at all"));
        return out;
    }
    let mut moved = Vec::new();
    let mut widest: f64 = 0.0;
    for seat in &h.seats {
        let i = p.diffs.get(&format!("win.{seat}")).copied().unwrap_or(Interval { value: 0.0, lo: 0.0, hi: 0.0 });
        widest = widest.max(i.hi.abs()).max(i.lo.abs());
        if i.excludes_zero() {
            let dir = if i.value > 0.0 { "raises" } else { "lowers" };
            let (lo, hi) = if i.value > 0.0 { (i.lo, i.hi) } else { (-i.hi, -i.lo) };
            moved.push(format!("{dir} seat {seat}'s win rate by {} points (95% CI {}–{})", pct(i.value.abs()), pct(lo), pct(hi)));
        }
    }
    if moved.is_empty() {
        out.push(format!("no detectable change in any seat's win rate (each within ±{} points at 95%; {n} paired games)", pct(widest)));
    } else {
        let rest = if moved.len() < h.seats.len() { "; other seats: no detectable change" } else { "" };
        out.push(format!("{an} {}{rest}", moved.join(", ")));
    }
    let mut flow_moved = Vec::new();
    let mut flow_same = Vec::new();
    for (key, name) in FLOW {
        let Some(i) = p.diffs.get(*key) else { continue };
        let base = arms[p.b].means.get(*key).map(|m| m.value).unwrap_or(0.0);
        if i.excludes_zero() {
            flow_moved.push(format!(
                "{an} changes {name} from {} to {} ({}{}, 95% CI {}–{})",
                num(base),
                num(base + i.value),
                if i.value > 0.0 { "+" } else { "" },
                num(i.value),
                num(i.lo),
                num(i.hi)
            ));
        } else {
            flow_same.push(*name);
        }
    }
    out.extend(flow_moved);
    if !flow_same.is_empty() {
        out.push(format!("no detectable change in: {}", flow_same.join(", ")));
    }
    out
}

fn sensitivity(h: &Header, conds: &[ConditionReport]) -> Vec<SensitivityRow> {
    let mut rows = Vec::new();
    let mut metrics: Vec<(String, String)> = h.seats.iter().map(|s| (format!("win.{s}"), format!("seat {s} win rate"))).collect();
    metrics.extend(FLOW.iter().map(|(k, n)| ((*k).to_string(), (*n).to_string())));
    for (pi, p) in conds[0].pairs.iter().enumerate() {
        let pair = format!("{} vs {}", short(&conds[0].arms[p.a].name), short(&conds[0].arms[p.b].name));
        for (key, name) in &metrics {
            let by: Vec<Interval> = conds.iter().map(|c| c.pairs[pi].diffs.get(key).copied().unwrap_or(Interval { value: 0.0, lo: 0.0, hi: 0.0 })).collect();
            let up = by.iter().any(|i| i.lo > 0.0);
            let down = by.iter().any(|i| i.hi < 0.0);
            let sig = by.iter().filter(|i| i.excludes_zero()).count();
            let signs_differ = by.iter().any(|i| i.value > 0.0) && by.iter().any(|i| i.value < 0.0);
            let verdict = if up && down {
                "SIGN FLIPS: the direction depends on the tower or the bots".to_string()
            } else if sig > 0 && signs_differ {
                format!("depends on the condition: detected under {sig} of {}, opposite sign elsewhere", by.len())
            } else if sig == by.len() {
                "holds under every condition".to_string()
            } else if sig > 0 {
                format!("detected under {sig} of {} conditions, same sign elsewhere", by.len())
            } else {
                "not detected under any condition".to_string()
            };
            rows.push(SensitivityRow { pair: pair.clone(), metric: name.clone(), by_condition: by, verdict });
        }
    }
    rows
}
