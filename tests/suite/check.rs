//! `shogun check`: shipped data passes; deliberately broken fixtures give
//! the expected diagnostics (snapshotted).

use std::path::Path;

use crate::common::*;
use shogun_lab::check::{self, Target};
use shogun_lab::play::Layout;

#[test]
fn everything_shipped_passes_without_warnings() {
    let layout = Layout { root: root() };
    let targets = check::shipped(&layout);
    assert!(targets.len() >= 9, "{targets:?}");
    for t in &targets {
        let d = check::check(&layout, t);
        assert!(d.is_empty(), "{}:\n{}", t.path().display(), d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n"));
    }
}

fn render(root: &Path, targets: &[Target], replace: &[(&str, &str)]) -> String {
    let layout = Layout { root: root.to_path_buf() };
    let mut out = String::new();
    for t in targets {
        out.push_str(&format!("{}\n", t.path().display()));
        for d in check::check(&layout, t) {
            let mut line = d.to_string();
            for (from, to) in replace {
                line = line.replace(from, to);
            }
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

#[test]
fn broken_fixtures_give_the_expected_diagnostics() {
    // Integration tests run in the crate's folder: relative paths keep the
    // snapshot free of machine-specific prefixes.
    let root = Path::new(".");
    let mut targets = Vec::new();
    for f in ["problems", "presets", "syntax", "types", "unknown-key"] {
        targets.push(check::classify(Path::new(&format!("tests/fixtures/broken/maps/{f}.yaml"))).unwrap());
    }
    for v in ["bad-overlay", "bad-lua"] {
        targets.push(check::classify(Path::new(&format!("tests/fixtures/broken/variants/{v}"))).unwrap());
    }
    // Pack problems: a copy of the base pack with Lua handlers gone astray.
    let (pack, _) = copy_data("check-handlers");
    edit(&pack.join("cards.yaml"), "handler: collect_rice", "handler: collect_ricee");
    edit(&pack.join("cards.yaml"), "{hook: tax_yield, modifier: at_most, value: 5}", "{hook: taxes_yield, modifier: at_most, value: 5}");
    std::fs::write(pack.join("extra.lua"), "shogun.action(\"unused_action\", function() end)\n").unwrap();
    edit(&pack.join("rules.yaml"), "lua: [lib.lua,", "lua: [extra.lua, lib.lua,");
    edit(&pack.join("rules.yaml"), "  score: score\n", "  score: scoring\n");
    let (syntax_pack, _) = copy_data("check-syntax");
    let text = std::fs::read_to_string(syntax_pack.join("battle.lua")).unwrap();
    std::fs::write(syntax_pack.join("battle.lua"), text.replacen("if a > def then", "if a > def", 1)).unwrap();
    // Line numbers inside the base pack's own Lua change whenever it is
    // edited; the pack part of the snapshot shows them as `N`.
    let base_lines = |text: String| -> String {
        text.lines()
            .map(|l| match (l.find("<pack>/"), l.find(".lua:")) {
                (Some(_), Some(i)) if !l.contains("extra.lua") => {
                    let rest = &l[i + 5..];
                    let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
                    format!("{}.lua:N{}", &l[..i], &rest[digits..])
                }
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    let mut out = render(root, &targets, &[]);
    out.push_str(&base_lines(render(root, &[Target::Pack(pack.clone())], &[]).replace(pack.to_str().unwrap(), "<pack>")));
    out.push_str(&base_lines(render(root, &[Target::Pack(syntax_pack.clone())], &[]).replace(syntax_pack.to_str().unwrap(), "<pack>")));
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("check_broken_fixtures", out);
    });
    // Every kind of problem the check promises is among them.
    for needle in [
        "syntax",
        "unknown field",
        "invalid type",
        "defined twice",
        "unknown province",
        "does not list",
        "not connected",
        "regions differ in size",
        "spaces is 4",
        "tax is -4",
        "do not match the army groups",
        "no Lua handler `collect_ricee`",
        "unknown hook `taxes_yield`",
        "is registered but nothing names it",
        "no Lua handler `scoring`",
        "Lua syntax",
        "the base has no key",
    ] {
        assert!(out.contains(needle), "no diagnostic mentions {needle:?}:\n{out}");
    }
}

/// The pack fuzzer's finding (fuzz/artifacts/pack/crash-bbe1ff31…, kept in
/// tests/fixtures/fuzz/pack/): `years: 2111111111111111111` made the
/// event-card check multiply past i64 (a panic with overflow checks; a
/// wrapped count without). Years out of range are refused on their own
/// line, and a huge events_per_year needs more event cards than the pack
/// has instead of a wrapped number.
#[test]
fn calendar_numbers_too_large_are_refused_not_wrapped() {
    let (pack, map) = copy_data("calendar-overflow");
    edit(&pack.join("rules.yaml"), "  years: 2\n", "  years: 2111111111111111111\n");
    let msg = shogun_lab::rules::load(&pack, &map).map(|_| ()).unwrap_err().to_string();
    assert!(msg.contains("calendar.years is 2111111111111111111, expected 1..=20"), "{msg}");
    let (pack, map) = copy_data("calendar-overflow");
    edit(&pack.join("rules.yaml"), "  events_per_year: 4\n", "  events_per_year: 9223372036854775807\n");
    let msg = shogun_lab::rules::load(&pack, &map).map(|_| ()).unwrap_err().to_string();
    assert!(msg.contains("but 2 years of 9223372036854775807 events need 9223372036854775807"), "{msg}");
}

/// The audit of issue 23 (session 20): a table made while the pack loads,
/// captured by a function and written on every call. The run refuses the
/// first write ("rules data is read-only"), the same in every run, but
/// `check` said nothing. It now warns at each such write (a warning: a
/// function that only runs while the pack loads may write there).
#[test]
fn check_warns_where_a_function_writes_into_a_table_made_while_loading() {
    let (pack, _) = copy_data("check-loaded-tables");
    let lines = [
        "local seen = {}",                                                                       // 1
        "local C = {sub = {}}",                                                                  // 2
        "LOG = {}",                                                                              // 3
        "seen.made = true",                                                                      // 4: while loading: fine
        "shogun.modifier('w1', function(v) seen[#seen + 1] = v return v end)",                   // 5: the audit's shape
        "shogun.modifier('w2', function(v) C.count = v return v end)",                           // 6: a field by name
        "shogun.modifier('w3', function(v) C.sub.x = v return v end)",                           // 7: a table inside it
        "shogun.modifier('w4', function(v) local t = C.sub t[1] = v return v end)",              // 8: through a local
        "shogun.modifier('w5', function(v) LOG.last = v return v end)",                          // 9: a global's table
        "shogun.modifier('w6', function(v) local function f() seen.x = v end f() return v end)", // 10: nested
        "shogun.modifier('ok1', function(v) local n = {0} n[1] = v return n[1] end)",            // 11: a table of the call
        "shogun.modifier('ok2', function(v) local t = {} t.x = seen[1] return v end)",           // 12: reads are fine
        "local function fill(t, k) t[k] = true end fill(seen, 'k')",                             // 13: a parameter
    ];
    std::fs::write(pack.join("extra.lua"), lines.join("\n") + "\n").unwrap();
    edit(&pack.join("rules.yaml"), "lua: [lib.lua,", "lua: [extra.lua, lib.lua,");
    let layout = Layout { root: root() };
    let found: Vec<(usize, String)> = check::check(&layout, &Target::Pack(pack.clone()))
        .into_iter()
        .filter(|d| d.file.ends_with("extra.lua") && !d.message.contains("nothing names it"))
        .map(|d| {
            assert_eq!(d.severity, shogun_lab::rules::Severity::Warning, "{d}");
            assert!(d.message.contains("made before play") && d.message.contains("read-only"), "{d}");
            (d.line, d.message.split('`').nth(1).unwrap_or_default().to_string())
        })
        .collect();
    let expected: Vec<(usize, String)> =
        [(5, "seen"), (6, "C"), (7, "C"), (8, "C"), (9, "LOG"), (10, "seen")].iter().map(|&(l, n)| (l, n.to_string())).collect();
    assert_eq!(found, expected);
    // The run refuses such a write on its first call (sandbox.rs,
    // `file_level_state_that_outlives_a_call_is_refused_at_load`: `cache_put`).
}
