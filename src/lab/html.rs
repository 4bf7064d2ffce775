//! The lab's report as one self-contained HTML page: inline SVG plots
//! (plotters' SVG backend) and tables, no JavaScript, nothing fetched.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::report::{ConditionReport, Report, decimals, fixed, p_text, range, short, signed, with_interval};
use super::stats::Interval;

const PALETTE: [RGBColor; 6] =
    [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(44, 160, 44), RGBColor(148, 103, 189), RGBColor(255, 127, 14), RGBColor(140, 86, 75)];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

type Plot = Result<String, String>;

fn err(e: impl std::fmt::Display) -> String {
    format!("plot: {e}")
}

/// Width in pixels of text in the plots' sans-serif at `size` px (a
/// generous estimate, so labels are never cut).
fn text_width(text: &str, size: u32) -> u32 {
    (text.chars().count() as f64 * f64::from(size) * 0.62).ceil() as u32
}

/// The legend's width for these arms: drawn beside the plot, never on it.
fn legend_width(cond: &ConditionReport) -> u32 {
    cond.arms.iter().map(|a| text_width(short(&a.name), 13)).max().unwrap_or(40) + 40
}

/// A legend of one swatch per arm in its own area to the right of a plot.
fn legend<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, cond: &ConditionReport, line: bool) -> Result<(), String> {
    for (a, arm) in cond.arms.iter().enumerate() {
        let colour = PALETTE[a % PALETTE.len()];
        let y = 40 + 22 * a as i32;
        if line {
            area.draw(&PathElement::new(vec![(8, y), (24, y)], colour.stroke_width(2))).map_err(err)?;
        } else {
            area.draw(&Rectangle::new([(8, y - 6), (20, y + 6)], colour.mix(0.8).filled())).map_err(err)?;
        }
        area.draw(&Text::new(short(&arm.name).to_string(), (30, y - 7), ("sans-serif", 13))).map_err(err)?;
    }
    Ok(())
}

/// Seat win rates per arm, bars with their 95% intervals; the legend
/// beside the plot.
fn win_rates_svg(r: &Report, c: usize) -> Plot {
    let cond = &r.conditions[c];
    let seats = &r.header.seats;
    let k = cond.arms.len() as f64;
    let lw = legend_width(cond);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (600 + lw, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(600);
        let top = cond.arms.iter().flat_map(|a| a.win_rates.values().map(|i| i.hi)).fold(0.0f64, f64::max).max(30.0) * 1.1;
        let mut chart = ChartBuilder::on(&plot)
            .caption("Win rate by seat (95% Wilson interval)", ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(-0.5f64..(seats.len() as f64 - 0.5), 0f64..top)
            .map_err(err)?;
        let names = seats.clone();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(seats.len())
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 { names.get(i as usize).map(|s| format!("seat {s}")).unwrap_or_default() } else { String::new() }
            })
            .y_desc("% of games won")
            .draw()
            .map_err(err)?;
        let even = 100.0 / seats.len() as f64;
        chart.draw_series(std::iter::once(PathElement::new(vec![(-0.5, even), (seats.len() as f64 - 0.5, even)], BLACK.mix(0.4)))).map_err(err)?;
        let width = 0.8 / k;
        for (a, arm) in cond.arms.iter().enumerate() {
            let colour = PALETTE[a % PALETTE.len()];
            let bars = seats.iter().enumerate().map(|(s, seat)| {
                let x0 = s as f64 - 0.4 + a as f64 * width;
                Rectangle::new([(x0, 0.0), (x0 + width * 0.9, arm.win_rates[seat].value)], colour.mix(0.8).filled())
            });
            chart.draw_series(bars).map_err(err)?;
            let whiskers = seats.iter().enumerate().map(|(s, seat)| {
                let x = s as f64 - 0.4 + a as f64 * width + width * 0.45;
                let i = arm.win_rates[seat];
                PathElement::new(vec![(x, i.lo), (x, i.hi)], BLACK.stroke_width(2))
            });
            chart.draw_series(whiskers).map_err(err)?;
        }
        legend(&side, cond, false)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// A distribution (share of games per value) of one count, one line per arm.
fn histogram_svg(r: &Report, c: usize, metric: &str, title: &str) -> Plot {
    let cond = &r.conditions[c];
    let n = cond.games.max(1) as f64;
    let (mut lo, mut hi, mut top) = (i64::MAX, i64::MIN, 0.0f64);
    for a in &cond.arms {
        if let Some(h) = a.histograms.get(metric) {
            for (&v, &count) in h {
                lo = lo.min(v);
                hi = hi.max(v);
                top = top.max(count as f64 / n);
            }
        }
    }
    if lo > hi {
        lo = 0;
        hi = 1;
    }
    let mut svg = String::new();
    {
        let lw = legend_width(cond);
        let root = SVGBackend::with_string(&mut svg, (420 + lw, 260)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(420);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 14))
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(45)
            .build_cartesian_2d(lo as f64 - 0.5..hi as f64 + 0.5, 0f64..(top * 110.0).max(1.0))
            .map_err(err)?;
        chart.configure_mesh().y_desc("% of games").draw().map_err(err)?;
        for (a, arm) in cond.arms.iter().enumerate() {
            let colour = PALETTE[a % PALETTE.len()];
            let Some(h) = arm.histograms.get(metric) else { continue };
            let pts = histogram_points(h, n, (lo, hi));
            chart.draw_series(LineSeries::new(pts, colour.stroke_width(2))).map_err(err)?;
        }
        legend(&side, cond, true)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// A distribution's line: each value seen with its share of games, and 0
/// beside it where the next value was not seen. As many points as values
/// seen (at most the games), never one per integer between the smallest
/// and the largest: a pack may score 2^39 points, a record claim 2^64
/// decisions.
fn histogram_points(h: &std::collections::BTreeMap<i64, u64>, n: f64, (lo, hi): (i64, i64)) -> Vec<(f64, f64)> {
    let mut pts = Vec::with_capacity(h.len() * 3);
    for (&v, &count) in h {
        if v > lo && !h.contains_key(&(v - 1)) && pts.last().is_none_or(|&(x, _)| x < v as f64 - 1.0) {
            pts.push((v as f64 - 1.0, 0.0));
        }
        pts.push((v as f64, count as f64 / n * 100.0));
        if v < hi && !h.contains_key(&(v + 1)) {
            pts.push((v as f64 + 1.0, 0.0));
        }
    }
    pts
}

/// Rows of (label, interval, stated by the verdict) as a forest plot
/// around zero.
fn forest_svg(title: &str, unit: &str, rows: &[(String, Interval, bool)]) -> Plot {
    let mut svg = String::new();
    {
        let height = 60 + 26 * rows.len().max(1) as u32;
        let label_area = rows.iter().map(|(l, _, _)| text_width(l, 12)).max().unwrap_or(60) + 16;
        let root = SVGBackend::with_string(&mut svg, (label_area + 420, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let reach = rows.iter().flat_map(|(_, i, _)| [i.lo.abs(), i.hi.abs()]).filter(|x| x.is_finite()).fold(0.0f64, f64::max).max(1e-3) * 1.15;
        let labels: Vec<String> = rows.iter().map(|(l, _, _)| l.clone()).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 14))
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(label_area)
            .build_cartesian_2d(-reach..reach, -0.5f64..(rows.len() as f64 - 0.5))
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(rows.len().max(1))
            .y_label_style(("sans-serif", 12))
            .y_label_formatter(&|y| {
                let i = y.round();
                if (y - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(labels.len().saturating_sub(1 + i as usize)).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_desc(unit)
            .draw()
            .map_err(err)?;
        let len = rows.len() as f64;
        chart.draw_series(std::iter::once(PathElement::new(vec![(0.0, -0.5), (0.0, len - 0.5)], BLACK.mix(0.5)))).map_err(err)?;
        for (j, (_, i, detected)) in rows.iter().enumerate() {
            let y = len - 1.0 - j as f64;
            let colour = if *detected { PALETTE[1] } else { RGBColor(120, 120, 120) };
            let (lo, hi) = (i.lo.max(-reach), i.hi.min(reach));
            chart.draw_series(std::iter::once(PathElement::new(vec![(lo, y), (hi, y)], colour.stroke_width(2)))).map_err(err)?;
            chart.draw_series(std::iter::once(Circle::new((i.value, y), 4, colour.filled()))).map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The whole page: the header, each condition, the sensitivity table and
/// the method.
pub fn page(r: &Report) -> Result<String, String> {
    let mut o = String::new();
    header(&mut o, r);
    for c in 0..r.conditions.len() {
        condition(&mut o, r, c)?;
    }
    sensitivity(&mut o, r);
    let _ = writeln!(o, "<h2>Method</h2><p>{}</p></body></html>", esc(&r.method));
    Ok(o)
}

/// The document's head and style, the lab's settings and its arms.
fn header(o: &mut String, r: &Report) {
    let h = &r.header;
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>shogun lab: {}</title>\n<style>\
body{{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}}\
table{{border-collapse:collapse;margin:.5em 0}}td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}\
th{{background:#f3f3f3}}td:first-child,th:first-child{{text-align:left}}.plots{{display:flex;flex-wrap:wrap;gap:8px}}\
.verdict{{background:#f6f8ff;border-left:4px solid #1f77b4;padding:.4em .8em}}.flip{{color:#b00;font-weight:bold}}\
</style></head><body>\n",
        esc(&h.arms.iter().map(|a| short(a).to_string()).collect::<Vec<_>>().join(" vs "))
    );
    let _ = writeln!(
        o,
        "<h1>shogun lab</h1>\n<p>{} players on <b>{}</b> ({}), seed {}, bots rotated over seats: {}.</p>",
        h.players,
        esc(&h.map),
        esc(&h.setup),
        h.seed,
        if h.rotate { "yes" } else { "no" }
    );
    let _ = writeln!(o, "<ol>");
    for a in &h.arms {
        let _ = writeln!(o, "<li><code>{}</code></li>", esc(a));
    }
    let _ = writeln!(o, "</ol>");
    if let Some(a) = &h.adapt {
        let _ = writeln!(o, "<pre>{}</pre>", esc(a.text(h).trim_end()));
    }
}

/// One condition (tower × bots): the verdicts, win rates by seat, the
/// distributions, the paired differences and the means.
fn condition(o: &mut String, r: &Report, c: usize) -> Result<(), String> {
    let cond = &r.conditions[c];
    let _ = writeln!(o, "<h2>{} — {} games per arm</h2>", esc(&cond.label), cond.games);
    for p in &cond.pairs {
        let _ = writeln!(o, "<div class=\"verdict\"><b>{} vs {}</b><ul>", esc(short(&cond.arms[p.a].name)), esc(short(&cond.arms[p.b].name)));
        for line in &p.verdict {
            let _ = writeln!(o, "<li>{}</li>", esc(line));
        }
        let _ = writeln!(o, "</ul></div>");
    }
    let _ = writeln!(o, "<div class=\"plots\">{}</div>", win_rates_svg(r, c)?);
    win_table(o, r, c);
    let hists: Vec<String> = [("margin", "Margin of victory"), ("battles", "Battles per game"), ("decisions", "Game length (decisions)")]
        .iter()
        .map(|(m, t)| histogram_svg(r, c, m, t))
        .collect::<Result<_, _>>()?;
    let _ = writeln!(o, "<h3>Distributions</h3><div class=\"plots\">{}</div>", hists.join("\n"));
    if !cond.pairs.is_empty() {
        paired_differences(o, r, c)?;
    }
    means_table(o, r, c);
    Ok(())
}

/// One header cell per arm (the win table's and the means table's columns).
fn arm_headers(o: &mut String, cond: &ConditionReport) {
    for a in &cond.arms {
        let _ = write!(o, "<th>{}</th>", esc(short(&a.name)));
    }
}

/// Win rates by seat and arm, and each arm's seat balance.
fn win_table(o: &mut String, r: &Report, c: usize) {
    let cond = &r.conditions[c];
    let _ = write!(o, "<table><tr><th>seat</th>");
    arm_headers(o, cond);
    let _ = writeln!(o, "</tr>");
    for seat in &r.header.seats {
        let _ = write!(o, "<tr><td>{}</td>", esc(seat));
        for a in &cond.arms {
            let i = a.win_rates[seat];
            let _ = write!(o, "<td>{:.1}% ({:.1}–{:.1})</td>", i.value, i.lo, i.hi);
        }
        let _ = writeln!(o, "</tr>");
    }
    let _ = write!(o, "<tr><td>balance (95% CI; χ² test)</td>");
    for a in &cond.arms {
        let i = a.balance;
        let _ = write!(o, "<td>{:.2} ({:.2}–{:.2}; {})</td>", i.value, i.lo, i.hi, esc(&p_text(a.balance_p)));
    }
    let _ = writeln!(o, "</tr></table>");
}

/// Forest plots of each pair's headlines (family-wise intervals; red where
/// the verdict states a change): win rate by seat in percentage points,
/// the flow of the game relative to the reference arm's mean.
fn paired_differences(o: &mut String, r: &Report, c: usize) -> Result<(), String> {
    let cond = &r.conditions[c];
    let mut win_rows = Vec::new();
    let mut flow_rows = Vec::new();
    for p in &cond.pairs {
        let tag = format!("{} vs {}", short(&cond.arms[p.a].name), short(&cond.arms[p.b].name));
        for f in &p.findings {
            let i = Interval { value: f.estimate, lo: f.lo, hi: f.hi };
            if f.metric.starts_with("win.") {
                win_rows.push((format!("{tag}: {}", f.label), i, f.detected));
            } else if f.reference.abs() > 1e-9 {
                flow_rows.push((format!("{tag}: {}", f.label), i.scaled(100.0 / f.reference.abs()), f.detected));
            }
        }
    }
    let _ = writeln!(
        o,
        "<h3>Paired differences (family-wise 95% intervals)</h3><div class=\"plots\">{}\n{}</div>",
        forest_svg("Win rate difference by seat", "percentage points (family-wise 95% interval)", &win_rows)?,
        forest_svg("Flow of the game, relative change", "% of the reference arm's mean (family-wise 95% interval)", &flow_rows)?
    );
    pairing_table(o, cond);
    Ok(())
}

/// What pairing achieved per headline, and the smallest detectable change.
fn pairing_table(o: &mut String, cond: &ConditionReport) {
    let _ = writeln!(
        o,
        "<table><tr><th>pair</th><th>headline</th><th>correlation</th><th>variance saved</th><th>games differ</th><th>detectable (80% power)</th><th>difference (family-wise 95%)</th><th>Holm p</th></tr>"
    );
    for p in &cond.pairs {
        let tag = format!("{} vs {}", short(&cond.arms[p.a].name), short(&cond.arms[p.b].name));
        for f in &p.findings {
            let i = Interval { value: f.estimate, lo: f.lo, hi: f.hi };
            let dec = decimals(i.width() / 2.0);
            let unit = if f.metric.starts_with("win.") { " pp" } else { "" };
            let bold = if f.detected { " style=\"font-weight:bold\"" } else { "" };
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>±{}{unit}</td><td{bold}>{} ({})</td><td>{}</td></tr>",
                esc(&tag),
                esc(&f.label),
                f.correlation.map(|r| fixed(r, 2)).unwrap_or_else(|| "—".into()),
                f.variance_reduction.map(|v| format!("{}%", fixed(v * 100.0, 0))).unwrap_or_else(|| "—".into()),
                f.games_differ,
                fixed(f.detectable, decimals(f.detectable / 2.0)),
                signed(f.estimate, dec),
                esc(&range(&i, dec)),
                esc(&p_text(f.p_adjusted))
            );
        }
    }
    let _ = writeln!(o, "</table><p>pp: percentage points. Bold: the verdict states the change (Holm over the pair's family).</p>");
}

/// Every metric's mean per game by arm, and each pair's difference (bold
/// where its interval excludes 0).
fn means_table(o: &mut String, r: &Report, c: usize) {
    let cond = &r.conditions[c];
    let _ = write!(o, "<h3>Means per game</h3><table><tr><th>metric</th>");
    arm_headers(o, cond);
    for p in &cond.pairs {
        let _ = write!(o, "<th>{} − {}</th>", esc(short(&cond.arms[p.a].name)), esc(short(&cond.arms[p.b].name)));
    }
    let _ = writeln!(o, "</tr>");
    let keys: std::collections::BTreeSet<&String> = cond.arms.iter().flat_map(|a| a.means.keys()).collect();
    for key in keys {
        let _ = write!(o, "<tr><td>{}</td>", esc(key));
        for a in &cond.arms {
            match a.means.get(key) {
                Some(i) => {
                    let _ = write!(o, "<td>{}</td>", esc(&with_interval(i)));
                }
                None => o.push_str("<td>0</td>"),
            }
        }
        for p in &cond.pairs {
            match (p.diffs.get(key), p.q_values.get(key)) {
                (Some(i), Some(&q)) => {
                    let bold = if q < 0.05 { " style=\"font-weight:bold\"" } else { "" };
                    let dec = decimals(i.width() / 2.0);
                    let _ = write!(o, "<td{bold}>{} ({}; q {})</td>", signed(i.value, dec), esc(&range(i, dec)), esc(&q_text(q)));
                }
                _ => o.push_str("<td>0</td>"),
            }
        }
        let _ = writeln!(o, "</tr>");
    }
    let _ = writeln!(
        o,
        "</table><p>Exploratory: differences with their 95% interval each on its own; bold where the Benjamini–Hochberg q &lt; 0.05 over this \
         table (false discoveries kept below 5% of those marked). Win rates in percent, their differences in percentage points. Only the \
         verdict's headlines are held to the family-wise 5%.</p>"
    );
}

/// "0.012", "&lt; 0.001".
fn q_text(q: f64) -> String {
    if q < 0.001 { "< 0.001".into() } else { format!("{q:.3}") }
}

/// How each pair's headline difference changes with the tower and the
/// bots (only when the lab ran more than one condition).
fn sensitivity(o: &mut String, r: &Report) {
    if r.sensitivity.is_empty() {
        return;
    }
    let _ = write!(o, "<h2>Sensitivity to the tower and the bots</h2><table><tr><th>pair</th><th>headline</th>");
    for c in &r.conditions {
        let _ = write!(o, "<th>{}</th>", esc(&c.label));
    }
    let _ = writeln!(o, "<th>verdict</th></tr>");
    for row in &r.sensitivity {
        let _ = write!(o, "<tr><td>{}</td><td>{}</td>", esc(&row.pair), esc(&row.metric));
        for (i, d) in row.by_condition.iter().zip(&row.detected) {
            let _ = write!(o, "<td>{}{}</td>", signed(i.value, decimals(i.width() / 2.0).min(2)), if *d { "*" } else { "" });
        }
        let class = if row.verdict.starts_with("SIGN") { " class=\"flip\"" } else { "" };
        let _ = writeln!(o, "<td{class}>{}</td></tr>", esc(&row.verdict));
    }
    let _ = writeln!(o, "</table><p>* stated by the verdict (Holm over the pair's family). Win rates in percentage points.</p>");
}
