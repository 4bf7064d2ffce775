//! What the REPL shows: the board, a province, a player, the tower, the
//! events, the action row, the turn order. Each from one seat's eyes (or
//! everything, in the god view).

use std::fmt::Write as _;

use anstyle::Style;

use crate::core::*;
use crate::engine::Engine;

fn seat_label(engine: &Engine, s: Option<Seat>) -> String {
    s.map(|s| engine.rules.seat_name(s).to_string()).unwrap_or_else(|| "-".into())
}

fn buildings(engine: &Engine, p: &ProvinceState) -> String {
    let kinds = &engine.rules.rules.components.buildings;
    let v: Vec<&str> = kinds.iter().enumerate().filter(|(k, _)| p.has(*k)).map(|(_, b)| b.id.as_str()).collect();
    if v.is_empty() { "-".into() } else { v.join(", ") }
}

/// `1 army`, `2 armies`: a count with its noun in the right number.
pub fn count(n: impl Into<i64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The regions a board shows: the one named, or all.
fn regions_named(engine: &Engine, region: Option<&str>) -> Result<Vec<usize>, String> {
    let m = &engine.rules.map;
    match region {
        Some(r) => {
            Ok(vec![m.regions.iter().position(|x| x.eq_ignore_ascii_case(r)).ok_or_else(|| format!("no region `{r}` (regions: {})", m.regions.join(", ")))?])
        }
        None => Ok((0..m.regions.len()).collect()),
    }
}

pub fn board(engine: &Engine, st: &GameState, region: Option<&str>) -> Result<String, String> {
    let m = &engine.rules.map;
    let regions = regions_named(engine, region)?;
    // Every column as wide as its widest cell, over all regions shown, so
    // the table stays aligned whatever the names and buildings hold.
    let cells = |p: usize| -> Option<[String; 7]> {
        let pr = &st.provinces[p];
        let info = &m.provinces[p];
        st.in_play[p].then(|| {
            [
                info.name.clone(),
                seat_label(engine, pr.owner),
                pr.armies.to_string(),
                pr.unrest.to_string(),
                format!("{} ({})", buildings(engine, pr), count(info.spaces as i64, "space", "spaces")),
                info.tax.to_string(),
                info.rice.to_string(),
            ]
        })
    };
    let head = ["province", "owner", "armies", "unrest", "buildings", "tax", "rice"];
    let mut width = head.map(str::len);
    for r in &regions {
        for p in (0..m.provinces.len()).filter(|&p| m.provinces[p].region == *r) {
            width[0] = width[0].max(m.provinces[p].name.chars().count());
            for (w, c) in width.iter_mut().zip(cells(p).iter().flatten()) {
                *w = (*w).max(c.chars().count());
            }
        }
    }
    let row = |c: &[String; 7]| -> String {
        let mut line = String::from(" ");
        for (i, (cell, w)) in c.iter().zip(width).enumerate() {
            let pad = " ".repeat(w - cell.chars().count());
            // Names and buildings to the left, numbers and owners to the right.
            if i == 0 || i == 4 { line.push_str(&format!(" {cell}{pad}")) } else { line.push_str(&format!(" {pad}{cell}")) }
        }
        line.trim_end().to_string()
    };
    let mut out = String::new();
    for r in regions {
        let _ = writeln!(out, "{}", m.regions[r]);
        let _ = writeln!(out, "{}", row(&head.map(String::from)));
        let mut ps: Vec<usize> = (0..m.provinces.len()).filter(|&p| m.provinces[p].region == r).collect();
        ps.sort_by(|a, b| m.provinces[*a].name.cmp(&m.provinces[*b].name));
        for p in ps {
            match cells(p) {
                Some(c) => {
                    let _ = writeln!(out, "{}", row(&c));
                }
                None => {
                    let _ = writeln!(out, "  {:<w$} (out of play)", m.provinces[p].name, w = width[0]);
                }
            }
        }
    }
    Ok(out.trim_end().to_string())
}

/// A province in brief, as a player weighs it: owner and armies, unrest,
/// buildings (`neutral` when nobody holds it).
pub fn brief(engine: &Engine, st: &GameState, p: ProvinceId) -> String {
    let pr = &st.provinces[p.index()];
    if !st.in_play[p.index()] {
        return "out of play".into();
    }
    let mut parts = vec![match pr.owner {
        Some(o) => format!("{} {}", engine.rules.seat_name(o), count(pr.armies, "army", "armies")),
        None => "neutral".into(),
    }];
    if pr.unrest > 0 {
        parts.push(format!("unrest {}", pr.unrest));
    }
    if pr.buildings != 0 {
        parts.push(buildings(engine, pr));
    }
    parts.join(", ")
}

pub fn province(engine: &Engine, st: &GameState, p: ProvinceId) -> String {
    let m = &engine.rules.map;
    let info = m.at(p);
    let pr = &st.provinces[p.index()];
    let about = |n: usize| (&m.provinces[n].name, brief(engine, st, ProvinceId::new(n)));
    let mut ns: Vec<String> = info.borders.iter().map(|&n| about(n)).map(|(name, b)| format!("{name} ({b})")).collect();
    ns.extend(info.sea_routes.iter().map(|&n| about(n)).map(|(name, b)| format!("~{name} ({b}; by sea)")));
    format!(
        "{} ({} region){}\n  owner {}, armies {}, unrest {}, buildings {} of {}\n  tax {}, rice {}\n  neighbours:\n    {}",
        info.name,
        m.regions[info.region],
        if st.in_play[p.index()] { "" } else { " — out of play" },
        seat_label(engine, pr.owner),
        pr.armies,
        pr.unrest,
        buildings(engine, pr),
        count(info.spaces as i64, "space", "spaces"),
        info.tax,
        info.rice,
        ns.join("\n    ")
    )
}

/// A seat's holdings and plan as `st` shows them: in a seat's view
/// (`GameState::view`) another seat's plan holds only its face-up cards.
pub fn player(engine: &Engine, st: &GameState, s: Seat) -> String {
    let p = &st.players[s.index()];
    let provinces: Vec<String> = st.provinces_of(s).map(|q| format!("{} {}", engine.rules.province_name(q), st.provinces[q.index()].armies)).collect();
    let special = st.special_of(s).map(|c| engine.rules.cards.specials[c as usize].name.clone()).unwrap_or_else(|| "-".into());
    let mut out = format!(
        "{} ({}): supply {}, {}, {} rice, {}, special {}\n  provinces ({}): {}",
        engine.rules.seat_name(s),
        engine.rules.rules.seats[s.index()].colour,
        count(p.supply, "cube", "cubes"),
        count(p.chests, "war chest", "war chests"),
        p.rice,
        count(p.points, "point", "points"),
        special,
        provinces.len(),
        provinces.join(", ")
    );
    match &p.plan {
        Some(plan) if may_read(st.seen_by, Some(s)) => {
            let _ = write!(out, "\n  plan: {}", plan_text(engine, plan));
        }
        Some(plan) if plan.slots.iter().any(Option::is_some) || plan.bid.is_some() => {
            let _ = write!(out, "\n  plan (the cards turned up; the rest face down): {}", plan_text(engine, plan));
        }
        Some(_) => out.push_str("\n  plan: made (secret)"),
        None => {}
    }
    out
}

pub fn plan_text(engine: &Engine, plan: &Plan) -> String {
    let mut parts = Vec::new();
    for (a, slot) in plan.slots.iter().enumerate() {
        let c = match slot {
            Some(Card::Province(p)) => engine.rules.province_name(*p).to_string(),
            Some(Card::Chest(v)) => format!("chest {v}"),
            None => "-".into(),
        };
        parts.push(format!("{} {c}", engine.rules.cards.actions[a].id));
    }
    let bid = match plan.bid {
        Some(Card::Province(p)) => engine.rules.province_name(p).to_string(),
        Some(Card::Chest(v)) => v.to_string(),
        None => "-".into(),
    };
    format!("{}; bid {bid}", parts.join(", "))
}

/// The tower as `st` shows it: its levels in the god view, its contents
/// by colour in a seat's view (which holds no levels).
pub fn tower(engine: &Engine, st: &GameState) -> String {
    let pile = |p: &Pile| -> String {
        let mut v: Vec<String> =
            (0..st.seats()).filter(|&s| p.seats[s] > 0).map(|s| format!("{} {}", engine.rules.seat_name(Seat::new(s)), p.seats[s])).collect();
        if p.peasants > 0 {
            v.push(format!("peasants {}", p.peasants));
        }
        if v.is_empty() { "empty".into() } else { v.join(", ") }
    };
    let mut out = format!("tower `{}`\n", engine.tower_name());
    if st.levels_known() {
        for (i, l) in st.tower.iter().enumerate() {
            let _ = writeln!(out, "  level {}: {}", i + 1, pile(l));
        }
    } else {
        let _ = writeln!(out, "  inside (known from the counts): {}", pile(&st.tower_contents()));
    }
    let _ = write!(out, "  tray: {}", pile(&st.tray));
    if !st.forced_throws.is_empty() {
        let _ = write!(out, "\n  forced next: {}", st.forced_throws.iter().map(&pile).collect::<Vec<_>>().join(" | "));
    }
    out
}

pub fn events(engine: &Engine, st: &GameState) -> String {
    let name = |e: u8| {
        let c = &engine.rules.cards.events[e as usize];
        format!("#{} {} — {} (winter: {} rice)", c.id, c.name, c.text, c.rice_loss)
    };
    let mut out = String::new();
    match st.event {
        Some(e) => {
            let _ = writeln!(out, "in force: {}", name(e));
        }
        None => out.push_str("in force: none yet\n"),
    }
    let _ = write!(out, "still to come this year:");
    if st.year_events.is_empty() {
        out.push_str(" none");
    }
    for e in &st.year_events {
        let _ = write!(out, "\n  {}", name(*e));
    }
    out
}

pub fn actions(engine: &Engine, st: &GameState) -> String {
    if st.action_row.is_empty() {
        return "no action cards laid out yet".into();
    }
    let current = match st.phase {
        Phase::Actions { card, .. } => Some(card as usize),
        _ => None,
    };
    let mut out = String::from("action cards in order:");
    for (i, &a) in st.action_row.iter().enumerate() {
        let name = if i < st.actions_revealed as usize { engine.rules.cards.actions[a as usize].name.clone() } else { "(face down)".into() };
        let mark = if current == Some(i) { "  <- now" } else { "" };
        let _ = write!(out, "\n  {:>2}. {name}{mark}", i + 1);
    }
    out
}

pub fn order(engine: &Engine, st: &GameState) -> String {
    let mut out = String::from("turn-order spaces:");
    for (k, sp) in st.special_row.iter().enumerate() {
        let who =
            st.players.iter().position(|p| p.space == Some(k as u8)).map(|s| engine.rules.seat_name(Seat::new(s)).to_string()).unwrap_or_else(|| "-".into());
        let card = sp
            .map(|c| format!("{} ({})", engine.rules.cards.specials[c as usize].name, engine.rules.cards.specials[c as usize].text))
            .unwrap_or_else(|| "-".into());
        let _ = write!(out, "\n  {}. {card}: {who}", k + 1);
    }
    let bids: Vec<String> = (0..st.seats())
        .filter_map(|s| {
            st.players[s].revealed_bid.map(|b| {
                format!(
                    "{} {}",
                    engine.rules.seat_name(Seat::new(s)),
                    match b {
                        Card::Chest(v) => v.to_string(),
                        Card::Province(_) => "a province card".into(),
                    }
                )
            })
        })
        .collect();
    if !bids.is_empty() {
        let _ = write!(out, "\nbids: {}", bids.join(", "));
    }
    let t: Vec<&str> = st.turn_order.iter().map(|&s| engine.rules.seat_name(s)).collect();
    let _ = write!(out, "\nturn order: {}", if t.is_empty() { "not set yet".to_string() } else { t.join(", ") });
    out
}

/// Neutral provinces at a terminal.
const DIM: Style = Style::new().dimmed();

/// The terminal's style for a colour named in the rules (`blue`); a name
/// it does not know is shown bold.
fn ansi(colour: &str) -> Style {
    use anstyle::{Ansi256Color, AnsiColor};
    let c: anstyle::Color = match colour.trim().to_ascii_lowercase().as_str() {
        "black" | "grey" | "gray" => AnsiColor::BrightBlack.into(),
        "red" => AnsiColor::Red.into(),
        "green" => AnsiColor::Green.into(),
        "yellow" | "gold" => AnsiColor::Yellow.into(),
        "blue" | "navy" => AnsiColor::Blue.into(),
        "purple" | "magenta" | "violet" | "pink" => AnsiColor::Magenta.into(),
        "cyan" | "teal" => AnsiColor::Cyan.into(),
        "white" => AnsiColor::White.into(),
        "orange" => Ansi256Color(208).into(),
        "brown" => Ansi256Color(130).into(),
        _ => return Style::new().bold(),
    };
    Style::new().fg_color(Some(c))
}

/// `board compact [region]`: the board in a few lines a region, each
/// province as `Name` and its owner's letter with the armies (`Settsu A2`),
/// `!n` for unrest, `+` and the buildings' first two letters, `·` when
/// neutral, in parentheses when out of play. With `colour` (a terminal)
/// each province is in its owner's colour.
pub fn compact(engine: &Engine, st: &GameState, region: Option<&str>, colour: bool) -> Result<String, String> {
    const WIDTH: usize = 78;
    let m = &engine.rules.map;
    let regions = regions_named(engine, region)?;
    let paint = |text: String, seat: Option<Seat>| -> String {
        match (colour, seat) {
            (false, _) => text,
            (true, Some(s)) => {
                let style = ansi(&engine.rules.rules.seats[s.index()].colour);
                format!("{}{text}{}", style.render(), style.render_reset())
            }
            (true, None) => format!("{}{text}{}", DIM.render(), DIM.render_reset()),
        }
    };
    let kinds = &engine.rules.rules.components.buildings;
    let seats: Vec<String> =
        Seat::all(st.seats()).map(|s| paint(format!("{} {}", engine.rules.seat_name(s), engine.rules.rules.seats[s.index()].colour), Some(s))).collect();
    let marks: Vec<String> = kinds.iter().map(|b| format!("{} {}", super::picture::building_mark(&b.id), b.name)).collect();
    let mut out = format!("{}; · neutral, !n unrest, (out of play)\nbuildings after +: {}", seats.join(", "), marks.join(", "));
    let name_width = m.regions.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    for r in regions {
        let mut ps: Vec<usize> = (0..m.provinces.len()).filter(|&p| m.provinces[p].region == r).collect();
        ps.sort_by(|a, b| m.provinces[*a].name.cmp(&m.provinces[*b].name));
        let mut line = format!("{:<name_width$} ", m.regions[r]);
        let mut used = line.chars().count();
        for p in ps {
            let pr = &st.provinces[p];
            let name = &m.provinces[p].name;
            let mut cell = match (st.in_play[p], pr.owner) {
                (false, _) => format!("({name})"),
                (true, Some(o)) => format!("{name} {}{}", engine.rules.seat_name(o), pr.armies),
                (true, None) => format!("{name} ·"),
            };
            if pr.unrest > 0 {
                cell.push_str(&format!(" !{}", pr.unrest));
            }
            let built: Vec<String> = (0..kinds.len()).filter(|&k| pr.has(k)).map(|k| super::picture::building_mark(&kinds[k].id)).collect();
            if !built.is_empty() {
                cell.push_str(&format!(" +{}", built.join("")));
            }
            let len = cell.chars().count();
            if used + 2 + len > WIDTH && used > name_width + 1 {
                out.push('\n');
                out.push_str(line.trim_end());
                line = " ".repeat(name_width + 1);
                used = name_width + 1;
            }
            line.push_str("  ");
            line.push_str(&paint(cell, pr.owner.filter(|_| st.in_play[p])));
            used += 2 + len;
        }
        out.push('\n');
        out.push_str(line.trim_end());
    }
    Ok(out)
}

/// What differs between two positions, in words (at most 8 items): the
/// phase, each seat's pieces and money, each province, the tower and tray.
/// Both positions should be what the viewer may see.
pub fn differences(engine: &Engine, old: &GameState, new: &GameState) -> Vec<String> {
    let mut v = Vec::new();
    let seat = |s: Seat| engine.rules.seat_name(s);
    if (old.year, old.season, old.phase) != (new.year, new.season, new.phase) {
        v.push("the game stands at another point of the round".into());
    }
    for s in Seat::all(old.seats().min(new.seats())) {
        let (a, b) = (&old.players[s.index()], &new.players[s.index()]);
        for (what, x, y) in
            [("war chests", a.chests, b.chests), ("rice", a.rice, b.rice), ("points", a.points, b.points), ("supply", a.supply.into(), b.supply.into())]
        {
            if x != y {
                v.push(format!("{}'s {what} {y} (was {x})", seat(s)));
            }
        }
    }
    for (i, (a, b)) in old.provinces.iter().zip(&new.provinces).enumerate() {
        if a == b {
            continue;
        }
        let owner = |o: Option<Seat>| o.map(seat).unwrap_or("none").to_string();
        let mut parts = Vec::new();
        for (what, x, y) in [
            ("owner", owner(a.owner), owner(b.owner)),
            ("armies", a.armies.to_string(), b.armies.to_string()),
            ("unrest", a.unrest.to_string(), b.unrest.to_string()),
            ("buildings", buildings(engine, a), buildings(engine, b)),
        ] {
            if x != y {
                parts.push(format!("{what} {y} (was {x})"));
            }
        }
        v.push(format!("{}: {}", engine.rules.province_name(ProvinceId::new(i)), parts.join(", ")));
    }
    if old.tower_contents() != new.tower_contents() || old.tray != new.tray {
        v.push("the tower's or the tray's cubes".into());
    }
    if v.len() > 8 {
        let more = v.len() - 7;
        v.truncate(7);
        v.push(format!("and {more} more"));
    }
    v
}
