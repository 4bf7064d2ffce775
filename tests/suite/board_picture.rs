//! The board as a picture (issue 13, item 10): `shogun map --svg` and the
//! REPL's `board --svg` write an SVG holding every province where the map
//! places it, which a real browser (headless chromium, when installed, as
//! `.ci/check-report` uses it) renders; map positions are checked on load.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use shogun_lab::play::GameSpec;
use shogun_lab::repl::{Config, Repl};

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shogun-board-picture-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every `data-province="NAME"` in the text, in order.
fn provinces_in(svg: &str) -> Vec<String> {
    svg.split("data-province=\"").skip(1).map(|s| s[..s.find('"').unwrap()].to_string()).collect()
}

/// Opens `svg` in headless chromium: once as an SVG document (an XML error
/// would show as a `parsererror`), once inlined in a page whose script
/// counts the province elements through the DOM and measures the drawing.
/// Returns (provinces the DOM holds, drawn width, screenshot bytes), or
/// `None` when no chromium is installed (the CI installs Debian's).
fn render_in_chromium(svg: &Path) -> Option<(usize, f64, u64)> {
    let chromium =
        ["chromium", "chromium-browser", "google-chrome"].into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))?;
    let dir = svg.parent().unwrap();
    let flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ];
    let profile = format!("--user-data-dir={}", dir.join("profile").display());
    let run = |extra: &[String], url: &str| -> String {
        let out = Command::new(chromium).args(flags).arg(&profile).args(extra).arg(url).output().expect("chromium runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let dom = run(&["--dump-dom".into()], &format!("file://{}", svg.display()));
    assert!(dom.trim_start().starts_with("<svg") && !dom.contains("parsererror"), "chromium did not read the SVG:\n{}", &dom[..dom.len().min(2000)]);
    let page = dir.join("page.html");
    let text = std::fs::read_to_string(svg).unwrap();
    std::fs::write(
        &page,
        format!(
            "<!doctype html><html><head><title>-</title></head><body>{text}<script>\
             const n = document.querySelectorAll('g.province[data-province]').length;\
             const w = document.querySelector('svg').getBBox().width;\
             document.title = 'provinces=' + n + ' width=' + Math.round(w);</script></body></html>"
        ),
    )
    .unwrap();
    let dom = run(&["--dump-dom".into()], &format!("file://{}", page.display()));
    let title = dom.split("<title>").nth(1).and_then(|t| t.split("</title>").next()).unwrap_or_default().to_string();
    let number = |key: &str| -> f64 { title.split(key).nth(1).and_then(|t| t.split_whitespace().next()).and_then(|v| v.parse().ok()).unwrap_or(-1.0) };
    let png = dir.join("shot.png");
    run(&["--window-size=1400,900".into(), format!("--screenshot={}", png.display())], &format!("file://{}", svg.display()));
    let bytes = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    Some((number("provinces=") as usize, number("width="), bytes))
}

fn check_render(svg: &Path) {
    match render_in_chromium(svg) {
        Some((provinces, width, bytes)) => {
            assert_eq!(provinces, 45, "the DOM chromium built holds {provinces} province elements");
            assert!(width > 800.0, "the drawing is {width} px wide in chromium");
            assert!(bytes > 20_000, "chromium's screenshot of the picture is only {bytes} bytes");
        }
        None => eprintln!("note: no chromium installed; the picture was checked as text only (the CI installs chromium)"),
    }
}

#[test]
fn shogun_map_svg_draws_every_province_and_renders_in_chromium() {
    let dir = scratch("map");
    for map in ["sun", "moon"] {
        let file = dir.join(format!("{map}.svg"));
        let out = Command::new(env!("CARGO_BIN_EXE_shogun"))
            .args(["map", "--map", map, "--players", "3", "--svg"])
            .arg(&file)
            .env("SHOGUN_DATA", root())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("45 provinces"));
        let svg = std::fs::read_to_string(&file).unwrap();
        let engine = engine_from(&root().join("scripts/base"), &root().join(format!("maps/{map}.yaml")));
        let mut names = provinces_in(&svg);
        names.sort();
        let mut want: Vec<String> = engine.rules.map.provinces.iter().map(|p| p.name.clone()).collect();
        want.sort();
        assert_eq!(names, want, "one element per province of the {map} map");
        // 6 dashed sea routes, and every land border once.
        let borders: usize = engine.rules.map.provinces.iter().map(|p| p.borders.len()).sum::<usize>() / 2;
        let section = |class: &str| svg.split(&format!("<g class=\"{class}\"")).nth(1).unwrap().split("</g>").next().unwrap().matches("<line").count();
        assert_eq!(section("borders"), borders);
        assert_eq!(section("sea-routes"), 6);
        // Out of play with 3 players: greyed and said so.
        assert_eq!(svg.matches("data-in-play=\"false\"").count(), 8);
        check_render(&file);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The REPL's picture shows the position as the viewer sees it: owners,
/// armies, unrest and buildings, one element per province.
#[test]
fn board_svg_shows_owners_armies_unrest_and_buildings() {
    let dir = scratch("repl");
    let spec = GameSpec { map: "sun".into(), data: Some(root()), ..GameSpec::default() };
    let mut r = Repl::new(Config { spec, players: 4, seed: 2, seats: ["human", "greedy", "greedy", "greedy"].map(String::from).to_vec() }).unwrap();
    for line in ["next", "set Omi owner=B armies=7 unrest=2 buildings=castle,temple"] {
        r.exec(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    let file = dir.join("board.svg");
    let said = r.exec(&format!("board --svg {}", file.display())).unwrap();
    assert!(said.contains("as A sees it, 45 provinces"), "{said}");
    let svg = std::fs::read_to_string(&file).unwrap();
    assert_eq!(provinces_in(&svg).len(), 45);
    let omi = svg.split("data-province=\"Omi\"").nth(1).unwrap().split("</g>").next().unwrap();
    assert!(omi.contains("data-owner=\"B\" data-armies=\"7\" data-unrest=\"2\""), "{omi}");
    assert!(omi.contains("fill=\"yellow\""), "B's colour: {omi}");
    assert!(omi.contains("<title>Omi (red region): B with 7 armies, unrest 2, castle, temple;"), "{omi}");
    assert!(omi.contains("class=\"unrest\"") && omi.contains(">Ca Te</text>"), "{omi}");
    // Every province's owner as the state has it.
    let st = r.state();
    for (p, info) in r.engine().rules.map.provinces.iter().enumerate() {
        let owner = st.provinces[p].owner.map(|s| r.engine().rules.seat_name(s).to_string()).unwrap_or_else(|| "neutral".into());
        assert!(svg.contains(&format!("data-province=\"{}\" data-region=\"{}\" data-owner=\"{owner}\"", info.name, r.engine().rules.map.regions[info.region])));
    }
    // Issue 24 item 9: owners and regions cannot be confused. The seats'
    // colours fill owners' nodes only: regions are hatched in one neutral
    // ink, a pattern per region, and unrest is a white diamond.
    let seat_colours: Vec<&str> = r.engine().rules.rules.seats.iter().map(|s| s.colour.as_str()).collect();
    let regions = svg.split("<g class=\"regions\"").nth(1).unwrap().split("</g>").next().unwrap();
    let defs = svg.split("<defs>").nth(1).unwrap().split("</defs>").next().unwrap();
    for c in &seat_colours {
        assert!(!regions.contains(&format!("\"{c}\"")) && !defs.contains(&format!("\"{c}\"")), "a seat's colour {c} in the regions: {regions}");
    }
    assert_eq!(defs.matches("<pattern id=\"region-").count(), r.engine().rules.map.regions.len());
    assert!(regions.contains("fill=\"url(#region-"), "{regions}");
    let badge = omi.split("class=\"unrest\"").nth(1).unwrap().split("/>").next().unwrap();
    assert!(badge.contains("fill=\"white\"") && !seat_colours.iter().any(|c| badge.contains(&format!("\"{c}\""))), "{badge}");
    assert!(!omi.contains("stroke=\"red\""), "Omi's node is outlined in ink, not its region's colour: {omi}");
    assert!(r.exec("board --svg").unwrap_err().contains("needs a file"));
    check_render(&file);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Positions are optional but all or none, both coordinates, in range; a
/// map without them loads and plays, and its picture is refused clearly.
#[test]
fn map_positions_are_checked_on_load() {
    let load = |map: &Path| shogun_lab::rules::load(&root().join("scripts/base"), map).map(|_| ()).map_err(|d| d.to_string());
    let (_, map) = copy_data("positions-missing");
    edit(&map, "name: Settsu, region: purple, tax: 7, rice: 3, spaces: 1, lon: 135.4, lat: 34.7", "name: Settsu, region: purple, tax: 7, rice: 3, spaces: 1");
    let err = load(&map).unwrap_err();
    assert!(err.contains("sun.yaml:") && err.contains("province `Settsu` has no position, but 44 other provinces have one"), "{err}");
    let (_, map) = copy_data("positions-half");
    edit(&map, "lon: 135.4, lat: 34.7", "lon: 135.4");
    let err = load(&map).unwrap_err();
    assert!(err.contains("province `Settsu` gives `lon` but not `lat`"), "{err}");
    let (_, map) = copy_data("positions-range");
    edit(&map, "lon: 135.4, lat: 34.7", "lon: 135.4, lat: 134.7");
    let err = load(&map).unwrap_err();
    assert!(err.contains("province `Settsu`: lat is 134.7, expected degrees from -90 to 90"), "{err}");
    let (_, map) = copy_data("positions-type");
    edit(&map, "lon: 135.4, lat: 34.7", "lon: east, lat: 34.7");
    let err = load(&map).unwrap_err();
    assert!(err.contains("sun.yaml:"), "{err}");
    // The line named is Settsu's.
    let line = std::fs::read_to_string(&map).unwrap().lines().position(|l| l.contains("name: Settsu")).unwrap() + 1;
    assert!(err.contains(&format!("sun.yaml:{line}")), "line {line}: {err}");
    // None at all: the map loads; the picture is refused, naming the fix.
    let (_, map) = copy_data("positions-none");
    let text = std::fs::read_to_string(&map).unwrap();
    let bare: String = text
        .lines()
        .map(|l| {
            if let Some(i) = l.find(", lon: ") {
                let j = l[i..].find(", borders").unwrap() + i;
                format!("{}{}\n", &l[..i], &l[j..])
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&map, bare).unwrap();
    load(&map).unwrap();
    let dir = scratch("none");
    let out = Command::new(env!("CARGO_BIN_EXE_shogun"))
        .args(["map", "--map"])
        .arg(&map)
        .arg("--svg")
        .arg(dir.join("x.svg"))
        .env("SHOGUN_DATA", root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("gives no positions, so it cannot be drawn: add `lon:` and `lat:`"), "{err}");
    assert!(!dir.join("x.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
