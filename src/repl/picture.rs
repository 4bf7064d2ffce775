//! The board as a picture (`board --svg FILE` in the REPL, `shogun map
//! --svg FILE`): each province at its map position (the map's `lon`/`lat`),
//! land borders as lines and sea routes dashed, regions hatched (an angle
//! of lines each, never a seat's colour), owners' colours, armies,
//! buildings and unrest, and a legend. Written as SVG text: every province
//! is one `<g class="province" data-province="NAME">` (what a browser test
//! counts), with a tooltip saying everything about it.

use std::fmt::Write as _;

use crate::core::{GameState, ProvinceId, Seat};
use crate::rules::Rules;

/// The picture's size: the map's longest side in pixels, the margin
/// around it, and the legend's width.
const MAP_SIDE: f64 = 900.0;
const MARGIN: f64 = 60.0;
const LEGEND: f64 = 280.0;
const NODE: f64 = 15.0;

/// Colours for names the CSS colour words do not cover (a seat's colour
/// named otherwise gets the next of these).
const PALETTE: &[&str] = &["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

/// A seat's colour named in the rules (`blue`) as SVG knows it; a name
/// that is no common colour word gets a palette colour.
fn colour(name: &str, fallback: usize) -> String {
    const WORDS: &[&str] = &[
        "black", "blue", "brown", "cyan", "gold", "gray", "green", "grey", "magenta", "navy", "olive", "orange", "pink", "purple", "red", "silver", "teal",
        "violet", "white", "yellow",
    ];
    let lower = name.trim().to_ascii_lowercase();
    if WORDS.contains(&lower.as_str()) { lower } else { PALETTE[fallback % PALETTE.len()].to_string() }
}

/// The ink of outlines and region hatching: no seat's colour.
const INK: &str = "#4a443a";

/// Region `r`'s hatching: lines in the ink at an angle of its own (eight
/// angles; beyond eight, the spacing differs too).
fn hatch(r: usize) -> String {
    const ANGLES: [f64; 8] = [45.0, -45.0, 0.0, 90.0, 22.5, -67.5, 67.5, -22.5];
    let gap = 7.0 + 3.0 * (r / ANGLES.len()) as f64;
    format!(
        r#"<pattern id="region-{r}" patternUnits="userSpaceOnUse" width="{gap}" height="{gap}" patternTransform="rotate({})"><line x1="0" y1="0" x2="0" y2="{gap}" stroke="{INK}" stroke-width="2"/></pattern>"#,
        ANGLES[r % ANGLES.len()]
    )
}

/// Unrest's mark: a white diamond outlined in ink (a shape no owner's
/// node has, in colours no seat has), centred on `x` and `y` (the text of
/// a number, or the legend's `{Y}` placeholder).
fn unrest_badge(class: &str, x: f64, y: &str) -> String {
    let class = if class.is_empty() { String::new() } else { format!(r#" class="{class}""#) };
    format!(
        r#"<rect{class} x="{x:.1}" y="{y}" width="11" height="11" transform="rotate(45 {x:.1} {y}) translate(-5.5 -5.5)" fill="white" stroke="{INK}" stroke-width="1.5"/>"#
    )
}

/// Text made safe inside an SVG element or attribute.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A building's mark on the picture: the first two letters of its id
/// (`Ca`, `Te`, `Th`), capitalised.
pub(super) fn building_mark(id: &str) -> String {
    let mut cs = id.chars();
    let first: String = cs.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
    format!("{first}{}", cs.next().map(String::from).unwrap_or_default())
}

/// What to draw: the map alone (`state: None`: values and regions) or a
/// position (owners, armies, buildings, unrest) as one seat may see it.
pub struct Picture<'a> {
    pub rules: &'a Rules,
    pub state: Option<&'a GameState>,
    /// Per province: in play (out-of-play provinces are drawn greyed).
    pub in_play: Vec<bool>,
    /// Lines under the title: the game, when, whose view.
    pub subtitle: String,
}

impl Picture<'_> {
    /// The SVG text; refused when the map gives no positions.
    pub fn svg(&self) -> Result<String, String> {
        let m = &self.rules.map;
        let Some(at) = m.positions() else {
            return Err(format!(
                "map `{}` gives no positions, so it cannot be drawn: add `lon:` and `lat:` (degrees east and north) to every province of its YAML file",
                m.name
            ));
        };
        // An equirectangular projection around the map's middle latitude,
        // scaled so the longer side is MAP_SIDE pixels.
        let (lo0, lo1) = at.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let (la0, la1) = at.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
        let squeeze = ((la0 + la1) / 2.0).to_radians().cos();
        let span = ((lo1 - lo0) * squeeze).max(la1 - la0).max(1e-6);
        let k = MAP_SIDE / span;
        let xy: Vec<(f64, f64)> = at.iter().map(|&(lon, lat)| (MARGIN + (lon - lo0) * squeeze * k, MARGIN + (la1 - lat) * k)).collect();
        let map_w = (lo1 - lo0) * squeeze * k + 2.0 * MARGIN;
        let map_h = (la1 - la0) * k + 2.0 * MARGIN;
        let (w, h) = (map_w + LEGEND, map_h.max(560.0));

        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" data-map="{}" data-provinces="{}">"#,
            esc(&m.name),
            m.provinces.len()
        );
        let _ = writeln!(out, r##"<rect width="100%" height="100%" fill="#f7f5ef"/>"##);
        // Regions: a hatched halo around each province, each region its own
        // angle of lines in one neutral ink, so no region can be taken for
        // an owner (the board's region colours are seat colours too); a
        // region's halos merge.
        out.push_str("<defs>\n");
        for r in 0..m.regions.len() {
            let _ = writeln!(out, "{}", hatch(r));
        }
        out.push_str("</defs>\n<g class=\"regions\" opacity=\"0.55\">\n");
        for (p, &(x, y)) in xy.iter().enumerate() {
            let _ = writeln!(out, r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.0}" fill="url(#region-{})"/>"#, NODE * 2.6, m.provinces[p].region);
        }
        out.push_str("</g>\n");

        // Land borders, then the dashed sea routes, each drawn once.
        out.push_str("<g class=\"borders\" stroke=\"#6b6455\" stroke-width=\"2\">\n");
        for (a, pr) in m.provinces.iter().enumerate() {
            for &b in pr.borders.iter().filter(|&&b| b > a) {
                let _ = writeln!(out, r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/>"#, xy[a].0, xy[a].1, xy[b].0, xy[b].1);
            }
        }
        out.push_str("</g>\n<g class=\"sea-routes\" stroke=\"#2f6fa3\" stroke-width=\"2\" stroke-dasharray=\"7 5\">\n");
        for (a, pr) in m.provinces.iter().enumerate() {
            for &b in pr.sea_routes.iter().filter(|&&b| b > a) {
                let _ = writeln!(out, r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/>"#, xy[a].0, xy[a].1, xy[b].0, xy[b].1);
            }
        }
        out.push_str("</g>\n");

        for (p, &(x, y)) in xy.iter().enumerate() {
            self.province(&mut out, ProvinceId::new(p), x, y);
        }
        self.legend(&mut out, map_w + 10.0);
        out.push_str("</svg>\n");
        Ok(out)
    }

    fn seat_colour(&self, s: Seat) -> String {
        colour(&self.rules.rules.seats[s.index()].colour, s.index())
    }

    /// One province: its node (owner's colour, region's outline), the
    /// armies (or, on the bare map, the tax) inside, unrest as a red badge,
    /// buildings as marks below, its name, and a tooltip.
    fn province(&self, out: &mut String, p: ProvinceId, x: f64, y: f64) {
        let e = self.rules;
        let info = e.map.at(p);
        let region = &e.map.regions[info.region];
        let in_play = self.in_play.get(p.index()).copied().unwrap_or(true);
        let piece = self.state.map(|st| &st.provinces[p.index()]);
        let owner = piece.and_then(|pr| pr.owner);
        let kinds = &e.rules.components.buildings;
        let built: Vec<usize> = piece.map(|pr| (0..kinds.len()).filter(|&k| pr.has(k)).collect()).unwrap_or_default();
        let mut tip = format!("{} ({region} region)", info.name);
        if !in_play {
            tip.push_str(", out of play");
        } else if let Some(pr) = piece {
            match owner {
                Some(s) => {
                    let _ = write!(tip, ": {} with {}", e.seat_name(s), super::views::count(pr.armies, "army", "armies"));
                }
                None => tip.push_str(": neutral"),
            }
            if pr.unrest > 0 {
                let _ = write!(tip, ", unrest {}", pr.unrest);
            }
            if !built.is_empty() {
                let names: Vec<&str> = built.iter().map(|&k| kinds[k].name.as_str()).collect();
                let _ = write!(tip, ", {}", names.join(", "));
            }
        }
        let _ = write!(tip, "; tax {}, rice {}, {}", info.tax, info.rice, super::views::count(info.spaces as i64, "building space", "building spaces"));
        let owner_attr = owner.map(|s| e.seat_name(s).to_string()).unwrap_or_else(|| if piece.is_some() { "neutral".into() } else { String::new() });
        let _ = writeln!(
            out,
            r#"<g class="province" data-province="{}" data-region="{}" data-owner="{}" data-armies="{}" data-unrest="{}" data-in-play="{in_play}">"#,
            esc(&info.name),
            esc(region),
            esc(&owner_attr),
            piece.map(|pr| pr.armies).unwrap_or(0),
            piece.map(|pr| pr.unrest).unwrap_or(0),
        );
        let _ = writeln!(out, "<title>{}</title>", esc(&tip));
        let fill = match (in_play, owner) {
            (false, _) => "#c9c6bf".to_string(),
            (true, Some(s)) => self.seat_colour(s),
            (true, None) => "#fffdf7".to_string(),
        };
        let dash = if in_play { "" } else { r#" stroke-dasharray="3 3""# };
        let _ = writeln!(out, r##"<circle cx="{x:.1}" cy="{y:.1}" r="{NODE}" fill="{fill}" stroke="{INK}" stroke-width="2.5"{dash}/>"##);
        // The number inside: armies on a position, the tax on the bare map.
        let inside = match piece {
            Some(pr) if in_play && pr.armies > 0 => pr.armies.to_string(),
            Some(_) => String::new(),
            None => info.tax.to_string(),
        };
        if !inside.is_empty() {
            let _ = writeln!(
                out,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="14" font-weight="bold" fill="white" stroke="black" stroke-width="3" paint-order="stroke">{inside}</text>"#,
                y + 5.0
            );
        }
        if let Some(pr) = piece.filter(|pr| pr.unrest > 0) {
            let (ux, uy) = (x + NODE * 0.95, y - NODE * 0.95);
            let _ = writeln!(out, "{}", unrest_badge("unrest", ux, &format!("{uy:.1}")));
            let _ = writeln!(
                out,
                r#"<text x="{ux:.1}" y="{:.1}" text-anchor="middle" font-size="10" font-weight="bold" fill="{INK}">{}</text>"#,
                uy + 3.5,
                pr.unrest
            );
        }
        let label_y = y + NODE + 13.0;
        let marks: Vec<String> = built.iter().map(|&k| building_mark(&kinds[k].id)).collect();
        let _ = writeln!(
            out,
            r##"<text x="{x:.1}" y="{label_y:.1}" text-anchor="middle" font-size="11" fill="#222" stroke="#f7f5ef" stroke-width="3" paint-order="stroke">{}{}</text>"##,
            esc(&info.name),
            if in_play { String::new() } else { " (out)".into() }
        );
        if !marks.is_empty() {
            let _ = writeln!(
                out,
                r##"<text class="buildings" x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="10" font-weight="bold" fill="#5a3e1b" stroke="#f7f5ef" stroke-width="3" paint-order="stroke">{}</text>"##,
                label_y + 11.0,
                esc(&marks.join(" "))
            );
        }
        out.push_str("</g>\n");
    }

    /// The legend: title, who is who, the regions, the lines and marks.
    fn legend(&self, out: &mut String, x0: f64) {
        let e = self.rules;
        let m = &e.map;
        let mut y = 40.0;
        let line = |out: &mut String, y: &mut f64, swatch: String, text: &str| {
            out.push_str(&swatch.replace("{Y}", &format!("{:.1}", *y - 4.0)));
            let _ = writeln!(out, r#"<text x="{:.1}" y="{:.1}" font-size="12">{}</text>"#, x0 + 28.0, *y, esc(text));
            *y += 20.0;
        };
        let _ = writeln!(out, r#"<g class="legend"><text x="{x0:.1}" y="{y:.1}" font-size="16" font-weight="bold">{}</text>"#, esc(&m.title));
        y += 18.0;
        for part in self.subtitle.lines() {
            let _ = writeln!(out, r##"<text x="{x0:.1}" y="{y:.1}" font-size="11" fill="#555">{}</text>"##, esc(part));
            y += 15.0;
        }
        y += 12.0;
        let dot = |fill: &str, stroke: &str| format!(r#"<circle cx="{:.1}" cy="{{Y}}" r="7" fill="{fill}" stroke="{stroke}" stroke-width="2"/>"#, x0 + 10.0);
        if let Some(st) = self.state {
            for s in Seat::all(st.seats()) {
                let label = format!("{} ({})", e.seat_name(s), e.rules.seats[s.index()].colour);
                line(out, &mut y, dot(&self.seat_colour(s), "#333"), &label);
            }
            line(out, &mut y, dot("#fffdf7", "#333"), "neutral");
            line(out, &mut y, String::new(), "number: armies");
        } else {
            line(out, &mut y, String::new(), "number: tax (war chests)");
        }
        line(out, &mut y, dot("#c9c6bf", "#333"), "out of play");
        y += 6.0;
        for (r, name) in m.regions.iter().enumerate() {
            let swatch =
                format!(r#"<rect x="{:.1}" y="{{Y}}" width="18" height="14" transform="translate(0 -7)" fill="url(#region-{r})" stroke="{INK}"/>"#, x0 + 1.0);
            line(out, &mut y, swatch, &format!("{name} region (hatching)"));
        }
        y += 6.0;
        let stroke = |c: &str, dash: &str| format!(r#"<line x1="{x0:.1}" y1="{{Y}}" x2="{:.1}" y2="{{Y}}" stroke="{c}" stroke-width="2"{dash}/>"#, x0 + 20.0);
        line(out, &mut y, stroke("#6b6455", ""), "land border");
        line(out, &mut y, stroke("#2f6fa3", r#" stroke-dasharray="7 5""#), "sea route");
        if self.state.is_some() {
            line(out, &mut y, unrest_badge("", x0 + 10.0, "{Y}"), "unrest (its level, in the diamond)");
            for b in &e.rules.components.buildings {
                line(out, &mut y, String::new(), &format!("{}: {}", building_mark(&b.id), b.name));
            }
        }
        out.push_str("</g>\n");
    }
}
