//! Tower models: seeded statistics with explicit tolerances, conservation
//! under every model, odds, fitting, and Lua towers.

use crate::common::*;
use shogun_lab::core::*;
use shogun_lab::rules::pack::TowerSpec;
use shogun_lab::tower::{self, fit, odds};

fn spec(model: &str, params: &[(&str, f64)]) -> TowerSpec {
    TowerSpec { model: model.into(), params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(), script: None, provenance: String::new() }
}

fn one_colour(n: u16) -> Pile {
    let mut p = Pile::default();
    p.seats[0] = n;
    p
}

#[test]
fn stateless_lands_its_probability() {
    // p = 0.7 over 10,000 cubes lands 0.70 +- 0.02.
    let m = tower::build(&spec("stateless", &[("p", 0.7)])).unwrap();
    let mut rng = GameRng::seeded(9);
    let mut inside = vec![Pile::default(); m.levels()];
    let mut landed = 0u32;
    for _ in 0..1000 {
        let mut tray = Pile::default();
        landed += tower::throw(m.as_ref(), &mut inside, &mut tray, one_colour(10), &mut rng).unwrap().total();
        inside.iter_mut().for_each(|l| *l = Pile::default());
    }
    let share = f64::from(landed) / 10_000.0;
    assert!((share - 0.70).abs() <= 0.02, "{share}");
}

#[test]
fn passthrough_is_exact() {
    let m = tower::build(&spec("passthrough", &[])).unwrap();
    let mut rng = GameRng::seeded(1);
    let (mut inside, mut tray) = (vec![Pile::default(); m.levels()], Pile::default());
    let mut input = one_colour(5);
    input.seats[3] = 2;
    input.peasants = 1;
    assert_eq!(tower::throw(m.as_ref(), &mut inside, &mut tray, input, &mut rng).unwrap(), input);
    // The tray is thrown again with the next throw and lands again.
    let again = tower::throw(m.as_ref(), &mut inside, &mut tray, one_colour(1), &mut rng).unwrap();
    assert_eq!(again.seats[0], 6);
}

#[test]
fn every_model_conserves_cubes_over_many_throws() {
    let engine = engine();
    for (name, s) in &engine.rules.rules.towers {
        if s.model == "scripted" {
            continue;
        }
        let m = tower::build(s).unwrap();
        let mut rng = GameRng::seeded(3);
        let (mut inside, mut tray) = (vec![Pile::default(); m.levels()], Pile::default());
        let mut total_in = 0u32;
        for i in 0..5000u32 {
            let mut input = Pile::default();
            input.seats[(i % 5) as usize] = (i % 7) as u16;
            input.peasants = (i % 3) as u16;
            total_in += input.total();
            // Counted cubes leave the tray between battles.
            total_in -= tray.total();
            tray = Pile::default();
            tower::throw(m.as_ref(), &mut inside, &mut tray, input, &mut rng).unwrap_or_else(|e| panic!("{name}: {e}"));
            let kept: u32 = inside.iter().map(|l| l.total()).sum();
            if !m.keeps() {
                total_in -= kept;
                inside.iter_mut().for_each(|l| *l = Pile::default());
            }
            let now: u32 = tray.total() + inside.iter().map(|l| l.total()).sum::<u32>();
            assert_eq!(now, total_in, "{name} after throw {i}");
        }
    }
}

#[test]
fn levels_keeps_and_releases_cubes() {
    let m = tower::build(&spec("levels", &[("levels", 2.0), ("pass", 0.85), ("loosen", 0.025), ("loosen_per_cube", 1.0)])).unwrap();
    let mut rng = GameRng::seeded(5);
    let mut inside = vec![Pile::default(); 2];
    let mut stuck_seen = 0;
    let mut more_than_thrown = 0;
    for _ in 0..2000 {
        let mut tray = Pile::default();
        let landed = tower::throw(m.as_ref(), &mut inside, &mut tray, one_colour(6), &mut rng).unwrap();
        stuck_seen = stuck_seen.max(inside.iter().map(|l| l.total()).sum::<u32>());
        if landed.total() > 6 {
            more_than_thrown += 1;
        }
    }
    assert!(stuck_seen > 0, "cubes stick");
    assert!(more_than_thrown > 0, "stuck cubes come loose in later throws");
}

#[test]
fn bad_tower_parameters_are_refused() {
    assert!(tower::build(&spec("levels", &[("levels", 2.0), ("pass", 1.5), ("loosen", 0.0), ("loosen_per_cube", 1.0)])).is_err());
    assert!(tower::build(&spec("stateless", &[("p", 0.5), ("q", 1.0)])).err().unwrap().contains("unknown parameter `q`"));
    assert!(tower::build(&spec("bouncy", &[])).err().unwrap().contains("unknown tower model"));
}

#[test]
fn odds_under_passthrough_are_certain() {
    let engine = engine();
    engine.runtime().set_tower("passthrough").unwrap();
    let q = odds::OddsQuery {
        attack: 4,
        defend: 3,
        peasants: 0,
        unrest: false,
        defender_extra: 0,
        preload: None,
        preload_cubes: 7,
        preload_peasants: 10,
        trials: 200,
        seed: 1,
    };
    let rt = engine.runtime();
    let o = odds::odds(engine.tower().as_ref(), &q, |k, a, d, p, u| rt.battle_outcome(k, a, d, p, u).map_err(|e| e.to_string())).unwrap();
    assert_eq!(o.attacker_wins.p, 1.0);
    assert_eq!(o.attacker_survivors[1], 1.0, "4 - 3 = 1 stands");
    let tie = odds::OddsQuery { attack: 3, ..q.clone() };
    let o = odds::odds(engine.tower().as_ref(), &tie, |k, a, d, p, u| rt.battle_outcome(k, a, d, p, u).map_err(|e| e.to_string())).unwrap();
    assert_eq!(o.ties.p, 1.0);
    let castle = odds::OddsQuery { defender_extra: shogun_lab::cli::tower::castle_bonus(&engine).unwrap(), ..q };
    let o = odds::odds(engine.tower().as_ref(), &castle, |k, a, d, p, u| rt.battle_outcome(k, a, d, p, u).map_err(|e| e.to_string())).unwrap();
    assert_eq!(o.ties.p, 1.0, "the castle's extra cube makes 4:4");
}

#[test]
fn odds_intervals_cover_the_estimate() {
    let e = odds::wilson(577, 1000);
    assert!(e.low < 0.577 && 0.577 < e.high && e.high - e.low < 0.07, "{e:?}");
}

#[test]
fn fitting_recovers_a_stateless_tower() {
    let truth = tower::build(&spec("stateless", &[("p", 0.7)])).unwrap();
    let sizes: Vec<u16> = (0..400).map(|i| 3 + (i % 8) as u16).collect();
    let obs = fit::generate(truth.as_ref(), &sizes, 17).unwrap();
    let f = fit::fit("stateless", &obs, 100, 1).unwrap();
    assert!((f.params["p"] - 0.7).abs() <= 0.03, "{f:?}");
}

#[test]
fn fitting_recovers_a_sticky_tower() {
    // Tolerance: the fitted pass probability within 0.1 of the truth, and
    // the truth's family (levels) beats the memoryless tower.
    let truth = tower::Levels { levels: 1, pass: 0.75, loosen: 0.33, per_cube: false };
    let sizes: Vec<u16> = (0..150).map(|i| 2 + (i % 9) as u16).collect();
    let obs = fit::generate(&truth, &sizes, 23).unwrap();
    let f = fit::fit("levels", &obs, 400, 2).unwrap();
    assert!((f.params["pass"] - 0.75).abs() <= 0.1, "{f:?}");
    let s = fit::fit("stateless", &obs, 100, 1).unwrap();
    assert!(f.log_likelihood > s.log_likelihood, "{f:?} vs {s:?}");
}

#[test]
fn the_example_observations_parse() {
    let path = root().join("docs/example-throws.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let obs = shogun_lab::rules::yaml::parse::<fit::Observations>(&path, &text).unwrap().value;
    assert!(obs.description.contains("Invented"));
    assert!(obs.throws.len() >= 30);
}

fn lua_tower_pack(body: &str, levels: u32) -> (std::path::PathBuf, std::path::PathBuf) {
    let (pack, map) = copy_data("luatower");
    std::fs::write(pack.join("tower.lua"), format!("shogun.tower(\"custom\", function(thrown, inside, random)\n{body}\nend)\n")).unwrap();
    edit(&pack.join("rules.yaml"), "lua: [lib.lua,", "lua: [tower.lua, lib.lua,");
    edit(
        &pack.join("rules.yaml"),
        "towers:\n",
        &format!("towers:\n  custom:\n    model: lua\n    script: custom\n    params: {{levels: {levels}}}\n    provenance: a test tower\n"),
    );
    (pack, map)
}

#[test]
fn a_lua_tower_plays_games() {
    // Half of each colour (rounded down) lands, the rest waits one throw.
    let (pack, map) = lua_tower_pack(
        "  local landed, keep = {}, {}\n  for k, n in pairs(thrown) do\n    local held = inside[1][k] or 0\n    landed[k] = n // 2 + held\n    keep[k] = n - n // 2\n  end\n  for k, n in pairs(inside[1]) do if thrown[k] == nil then landed[k] = (landed[k] or 0) + n end end\n  return landed, { keep }",
        1,
    );
    let rules = shogun_lab::rules::load(&pack, &map).unwrap();
    let engine = shogun_lab::engine::Engine::with_options(rules, Some("custom"), Default::default()).unwrap_or_else(|d| panic!("{d}"));
    let names = vec!["random".to_string(); 4];
    let (text, _) = shogun_lab::transcript::transcript(&engine, 4, 2, &names).unwrap();
    assert!(text.contains("Final standings"));
}

#[test]
fn a_lua_tower_that_loses_cubes_is_reported_and_changes_nothing() {
    let (pack, map) = lua_tower_pack("  return {}, { {} }", 1);
    let rules = shogun_lab::rules::load(&pack, &map).unwrap();
    let engine = shogun_lab::engine::Engine::with_options(rules, Some("custom"), Default::default()).unwrap();
    let mut st = engine.new_game(4, 1).unwrap();
    let before = st.clone();
    let err = engine.apply(&mut st, &Decision::Chance).unwrap_err();
    // The preload is the pack's Lua now: the tower's failure reaches it
    // through game.throw and comes back as that script's error.
    assert!(err.to_string().contains("did not conserve cubes"), "{err}");
    assert_eq!(st, before);
}

#[test]
fn a_failing_lua_tower_is_reported_and_changes_nothing() {
    let (pack, map) = lua_tower_pack("  error(\"the tower jammed\")", 1);
    let rules = shogun_lab::rules::load(&pack, &map).unwrap();
    let engine = shogun_lab::engine::Engine::with_options(rules, Some("custom"), Default::default()).unwrap();
    let mut st = engine.new_game(4, 1).unwrap();
    let before = st.clone();
    let err = engine.apply(&mut st, &Decision::Chance).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("the tower jammed") && msg.contains("tower.lua:2"), "{msg}");
    assert_eq!(st, before);
    // A tower may not reach into the game.
    let (pack, map) = lua_tower_pack("  return game.chests(1)", 1);
    let rules = shogun_lab::rules::load(&pack, &map).unwrap();
    let engine = shogun_lab::engine::Engine::with_options(rules, Some("custom"), Default::default()).unwrap();
    let mut st = engine.new_game(4, 1).unwrap();
    let msg = engine.apply(&mut st, &Decision::Chance).unwrap_err().to_string();
    assert!(msg.contains("not available inside a tower model"), "{msg}");
}

#[test]
fn every_tower_plays_full_games() {
    let engine = engine();
    for name in ["two-level", "thirds", "stateless", "passthrough"] {
        engine.runtime().set_tower(name).unwrap();
        let names = vec!["random".to_string(); 3];
        let (text, _) = shogun_lab::transcript::transcript(&engine, 3, 4, &names).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.contains("Final standings"), "{name}");
    }
    // The scripted tower refuses to throw without a forced outcome.
    engine.runtime().set_tower("scripted").unwrap();
    let mut st = engine.new_game(3, 1).unwrap();
    let err = engine.apply(&mut st, &Decision::Chance).unwrap_err();
    assert!(err.to_string().contains("no outcome queued"), "{err}");
}

/// `shogun tower odds|table` name the tower the engine used: `--tower` and
/// `--model` are one option (issue 13, item 5: `--tower passthrough` was
/// labelled `two-level`), and `--castle` shows in the header.
#[test]
fn tower_commands_label_the_tower_used() {
    let shogun = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).args(args).env("SHOGUN_DATA", root()).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let odds = ["tower", "odds", "--attack", "3", "--defend", "2", "--trials", "200"];
    let head = |out: &str| out.lines().next().unwrap_or_default().to_string();
    let by_tower = shogun(&[&odds[..], &["--tower", "passthrough"]].concat());
    assert!(head(&by_tower).contains("under tower `passthrough`"), "{by_tower}");
    assert!(by_tower.contains("attacker wins  100.0%"), "passthrough: every cube lands, 3 beat 2\n{by_tower}");
    assert_eq!(shogun(&[&odds[..], &["--model", "passthrough"]].concat()), by_tower, "--model is --tower");
    assert!(head(&shogun(&odds)).contains("under tower `two-level`"), "the rules' own by default");
    let castle = shogun(&[&odds[..], &["--tower", "passthrough", "--castle"]].concat());
    assert!(head(&castle).contains("castle") && head(&castle).contains("defender +1"), "{castle}");
    let table = shogun(&["tower", "table", "--tower", "thirds", "--trials", "20"]);
    assert!(head(&table).contains("under tower `thirds`"), "{table}");
}
