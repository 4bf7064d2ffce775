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
    let f = fit::fit("stateless", &obs, fit::Method::new(100, 1)).unwrap();
    assert!((f.params["p"] - 0.7).abs() <= 0.03, "{f:?}");
}

#[test]
fn fitting_recovers_a_sticky_tower() {
    // Tolerance: the fitted pass probability within 0.1 of the truth, and
    // the truth's family (levels) beats the memoryless tower.
    let truth = tower::Levels { levels: 1, pass: 0.75, loosen: 0.33, per_cube: false, setup_pass: None };
    let sizes: Vec<u16> = (0..150).map(|i| 2 + (i % 9) as u16).collect();
    let obs = fit::generate(&truth, &sizes, 23).unwrap();
    let f = fit::fit("levels", &obs, fit::Method::new(400, 2)).unwrap();
    assert!((f.params["pass"] - 0.75).abs() <= 0.1, "{f:?}");
    let s = fit::fit("stateless", &obs, fit::Method::new(100, 1)).unwrap();
    assert!(f.log_likelihood() > s.log_likelihood(), "{f:?} vs {s:?}");
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

/// `shogun ARGS`'s standard output; the command must succeed.
fn shogun(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).args(args).env("SHOGUN_DATA", root()).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// `shogun tower odds|table` name the tower the engine used: `--tower` and
/// `--model` are one option (issue 13, item 5: `--tower passthrough` was
/// labelled `two-level`), and `--castle` shows in the header.
#[test]
fn tower_commands_label_the_tower_used() {
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

/// `tower odds` (the library call behind it) for `a` against `d` after the
/// setup throw for 4 players, under the named tower and the rules' battle
/// handler.
fn odds_after_setup(engine: &shogun_lab::engine::Engine, tower: &str, a: u16, d: u16, trials: u32, seed: u64) -> odds::Odds {
    engine.runtime().set_tower(tower).unwrap();
    let pre = &engine.rules.rules.tower.preload;
    let q = odds::OddsQuery {
        attack: a,
        defend: d,
        peasants: 0,
        unrest: false,
        defender_extra: 0,
        preload: Some(4),
        preload_cubes: pre.cubes_per_player as u16,
        preload_peasants: pre.peasants as u16,
        trials,
        seed,
    };
    let rt = engine.runtime();
    odds::odds(engine.tower().as_ref(), &q, |k, a, d, p, u| rt.battle_outcome(k, a, d, p, u).map_err(|e| e.to_string())).unwrap()
}

/// Four standard errors of the difference between a share measured here
/// (`n` trials) and one measured elsewhere (`n_ref` trials), plus the
/// reference's rounding.
fn tolerance(p: f64, n: f64, n_ref: f64, rounding: f64) -> f64 {
    4.0 * (p * (1.0 - p) * (1.0 / n + 1.0 / n_ref)).sqrt() + rounding
}

/// The same for a mean, from the spread's own standard deviation.
fn mean_tolerance(s: &odds::Spread, n: f64, n_ref: f64, rounding: f64) -> f64 {
    let var: f64 = s.shares.iter().enumerate().map(|(k, w)| w * (k as f64 - s.mean).powi(2)).sum();
    4.0 * (var * (1.0 / n + 1.0 / n_ref)).sqrt() + rounding
}

/// Issue 26: `two-level` is the public Java implementation's tower
/// (github.com/Imrihil/Shogun, Tower.java). Reference figures: that code
/// run unchanged in a harness (issue 26's table; 100,000 to 200,000 trials
/// each, taken as 100,000 here, the wider tolerance), 4 players, after the
/// setup throw of 7 cubes per player and 10 peasants. Each figure must hold
/// within four standard errors of the difference (plus the reference's
/// rounding to 0.01 of a cube or 0.01%). The mechanism before the issue
/// (`two-level-batch`) left 10.54 cubes inside and is outside them.
#[test]
fn two_level_reproduces_the_java_tower() {
    const N_REF: f64 = 100_000.0;
    const TRIALS: u32 = 100_000;
    // attack, defend, attacker wins, ties (Java)
    const JAVA_BATTLES: [(u16, u16, f64, f64); 5] =
        [(1, 1, 0.2065, 0.5299), (3, 2, 0.5221, 0.2915), (5, 3, 0.6873, 0.1852), (4, 4, 0.2938, 0.2637), (8, 5, 0.7597, 0.1288)];
    // Cubes inside after setup: mean 7.18, quantiles 5/50/95% 3/7/11;
    // peasants inside 1.89.
    let engine = engine();
    let n = f64::from(TRIALS);
    for (i, &(a, d, java_wins, java_ties)) in JAVA_BATTLES.iter().enumerate() {
        let o = odds_after_setup(&engine, "two-level", a, d, TRIALS, 26 + i as u64);
        let (wins, ties) = (o.attacker_wins.p, o.ties.p);
        assert!((wins - java_wins).abs() <= tolerance(java_wins, n, N_REF, 0.00005), "{a} v {d}: attacker wins {wins} against the Java's {java_wins}");
        assert!((ties - java_ties).abs() <= tolerance(java_ties, n, N_REF, 0.00005), "{a} v {d}: ties {ties} against the Java's {java_ties}");
        let setup = o.setup.expect("preloaded");
        assert!((setup.inside.mean - 7.18).abs() <= mean_tolerance(&setup.inside, n, N_REF, 0.005), "inside after setup: {:?}", setup.inside);
        assert_eq!((setup.inside.q05, setup.inside.q50, setup.inside.q95), (3, 7, 11), "{:?}", setup.inside);
        assert!((setup.peasants.mean - 1.89).abs() <= mean_tolerance(&setup.peasants, n, N_REF, 0.005), "peasants after setup: {:?}", setup.peasants);
    }
    // The former mechanism, kept by its own name, is the "ours"
    // column (10.54 inside, 6/10/15; 8 v 5: 71.05% / 14.20%) and not the Java.
    let old = odds_after_setup(&engine, "two-level-batch", 8, 5, TRIALS, 8);
    let setup = old.setup.unwrap();
    assert!((setup.inside.mean - 10.54).abs() <= mean_tolerance(&setup.inside, n, N_REF, 0.005), "{:?}", setup.inside);
    assert_eq!((setup.inside.q05, setup.inside.q50, setup.inside.q95), (6, 10, 15));
    assert!((old.attacker_wins.p - 0.7105).abs() <= tolerance(0.7105, n, N_REF, 0.00005), "{:?}", old.attacker_wins);
    assert!((old.attacker_wins.p - 0.7597).abs() > tolerance(0.7597, n, N_REF, 0.00005), "the old tower is not the Java's");
}

/// P(X = k) for X ~ Binomial(n, p).
fn binomial_pmf(n: u32, p: f64) -> Vec<f64> {
    let mut pmf = vec![0.0; n as usize + 1];
    pmf[0] = 1.0;
    for _ in 0..n {
        for k in (0..pmf.len()).rev() {
            pmf[k] = pmf[k] * (1.0 - p) + if k > 0 { pmf[k - 1] * p } else { 0.0 };
        }
    }
    pmf
}

fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

/// Issue 26: `wallenstein-client` is the student Java client's tower
/// (github.com/locojoetive/WallensteinOnlineSrc, src/Application/Tower.java):
/// at seeding each cube lands with 70% (the rest stays inside); in a battle
/// each cube inside first comes out with 60%, then each thrown cube lands
/// with 50%. Its figures have closed forms: after setup for 4 players the
/// contents are Binomial(38, 0.3); an attacker throwing 3 lands
/// Binomial(3, 0.5) + Binomial(7, 0.3 * 0.6) of his colour. Every share is
/// checked within four standard errors.
#[test]
fn wallenstein_client_follows_its_source() {
    const TRIALS: u32 = 60_000;
    let engine = engine();
    let o = odds_after_setup(&engine, "wallenstein-client", 3, 2, TRIALS, 71);
    let n = f64::from(TRIALS);
    let check = |what: &str, got: &[f64], want: &[f64]| {
        for (k, &w) in want.iter().enumerate() {
            let g = got.get(k).copied().unwrap_or(0.0);
            assert!((g - w).abs() <= 4.0 * (w * (1.0 - w) / n).sqrt() + 1e-9, "{what}: P({k}) = {g}, closed form {w}\n{got:?}");
        }
        assert!(got.len() <= want.len(), "{what}: counts beyond the closed form's range: {got:?}");
    };
    let setup = o.setup.unwrap();
    check("inside after setup", &setup.inside.shares, &binomial_pmf(38, 0.3));
    check("peasants inside after setup", &setup.peasants.shares, &binomial_pmf(10, 0.3));
    check("one player's cubes inside after setup", &setup.per_player.shares, &binomial_pmf(7, 0.3));
    check("attacker landed", &o.attacker_landed.shares, &convolve(&binomial_pmf(3, 0.5), &binomial_pmf(7, 0.18)));
    check("defender landed", &o.defender_landed.shares, &convolve(&binomial_pmf(2, 0.5), &binomial_pmf(7, 0.18)));
    check("peasants landed", &o.peasants_landed.shares, &binomial_pmf(10, 0.18));
}

/// `thirds` has only a player's description of SpielByWeb's Wallenstein
/// to check against (its provenance line; the code is not public): one
/// ledge, 2/3 of thrown cubes through, each cube stuck before the throw out
/// with 1/3. From an empty tower 9 cubes
/// land Binomial(9, 2/3); thrown again with nothing, the stuck ones land
/// Binomial(stuck, 1/3).
#[test]
fn thirds_does_what_its_line_says() {
    let engine = engine();
    let m = tower::build(&engine.rules.rules.towers["thirds"]).unwrap();
    let mut rng = GameRng::seeded(33);
    let (mut first, mut second) = (vec![0.0; 10], vec![0.0; 10]);
    const TRIALS: u32 = 40_000;
    for _ in 0..TRIALS {
        let (mut inside, mut tray) = (vec![Pile::default(); m.levels()], Pile::default());
        let landed = tower::throw(m.as_ref(), &mut inside, &mut tray, one_colour(9), &mut rng).unwrap().total();
        first[landed as usize] += 1.0;
        let stuck = 9 - landed;
        let mut empty = Pile::default();
        let again = tower::throw(m.as_ref(), &mut inside, &mut empty, Pile::default(), &mut rng).unwrap().total();
        // Condition on 3 stuck, the commonest count.
        if stuck == 3 {
            second[again as usize] += 1.0;
        }
    }
    let n = f64::from(TRIALS);
    for (k, w) in binomial_pmf(9, 2.0 / 3.0).iter().enumerate() {
        assert!((first[k] / n - w).abs() <= 4.0 * (w * (1.0 - w) / n).sqrt() + 1e-9, "first throw: P({k})");
    }
    let m3: f64 = second.iter().sum();
    for (k, w) in binomial_pmf(3, 1.0 / 3.0).iter().enumerate() {
        assert!((second[k] / m3 - w).abs() <= 4.0 * (w * (1.0 - w) / m3).sqrt(), "stuck cubes out: P({k})");
    }
}

/// Issue 26, item 3: `tower odds` reports the cubes of each side that
/// landed (mean and distribution) and, with `--preload`, what the setup
/// throw left inside, in the text and in the JSON; under `passthrough`
/// every cube lands and nothing stays inside.
#[test]
fn tower_odds_reports_landed_cubes_and_the_setup_contents() {
    let args = ["tower", "odds", "--tower", "passthrough", "--attack", "3", "--defend", "2", "--preload", "4", "--trials", "50"];
    let text = shogun(&args);
    assert!(text.contains("attacker cubes landed: mean 3.00, 5/50/95%: 3/3/3; 3:100.0%"), "{text}");
    assert!(text.contains("defender cubes landed: mean 2.00"), "{text}");
    assert!(text.contains("all cubes:        mean 0.00"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&shogun(&[&args[..], &["--json"]].concat())).unwrap();
    assert_eq!(json["attacker_landed"]["mean"], 3.0);
    assert_eq!(json["defender_landed"]["shares"], serde_json::json!([0.0, 0.0, 1.0]));
    assert_eq!(json["setup"]["inside"]["mean"], 0.0);
    let text = shogun(&["tower", "odds", "--tower", "two-level", "--attack", "3", "--defend", "2", "--trials", "50", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(json["setup"].is_null(), "no setup contents without --preload: {text}");
}

/// A new user's trial (2026-11-28): `tower odds --preload 7` was accepted
/// (any count 2 to 8 was), though the base rules set up 3 to 5 players, and
/// `tower table` took any count. Both take the counts the rules set up,
/// and refuse the scripted tower, which has no odds, saying so.
#[test]
fn preload_takes_a_player_count_the_rules_set_up() {
    for cmd in [&["tower", "odds", "--attack", "3", "--defend", "2", "--trials", "10"][..], &["tower", "table", "--trials", "1"][..]] {
        for bad in ["2", "7"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).args(cmd).args(["--preload", bad]).env("SHOGUN_DATA", root()).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && err.contains(&format!("--preload takes a player count these rules set up, 3 to 5; not {bad}")),
                "{cmd:?} {bad}: {err}"
            );
        }
    }
    assert!(shogun(&["tower", "odds", "--attack", "3", "--defend", "2", "--trials", "10", "--preload", "5"]).contains("preloaded for 5 players"));
    // The scripted tower said "force one first", which these commands cannot.
    for cmd in [&["tower", "odds", "--attack", "3", "--defend", "2"][..], &["tower", "table", "--trials", "1"][..]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).args(cmd).args(["--tower", "scripted"]).env("SHOGUN_DATA", root()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("tower `scripted` throws only the outcomes forced on it") && !err.contains("force one first"),
            "{cmd:?}: {err}"
        );
    }
}
