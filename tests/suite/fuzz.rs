//! The fuzz targets (src/fuzz.rs) on stable Rust: each target's seeds from
//! the repository, then a fixed number of seeded mutations of them. Short
//! enough for CI; `SHOGUN_FUZZ_RUNS=N` sets the mutations per target for a
//! longer run, `SHOGUN_FUZZ_SEEDS=DIR` writes the seeds for cargo-fuzz
//! (docs/fuzzing.md; the long run uses cargo-fuzz). A finding
//! fails the test with the input that caused it.

use shogun_lab::core::GameRng;
use shogun_lab::fuzz::{Fuzzer, TARGETS, Target, mutate};

/// Mutations per target by default, and the largest input made.
const RUNS: usize = 150;
const MAX_INPUT: usize = 16 << 10;

fn runs() -> usize {
    std::env::var("SHOGUN_FUZZ_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(RUNS)
}

fn fuzz(target: Target) {
    let mut fuzzer = Fuzzer::new(&crate::common::root()).unwrap();
    let seeds = fuzzer.seeds(target).unwrap();
    assert!(!seeds.is_empty(), "{}: no seeds", target.name());
    // `SHOGUN_FUZZ_SEEDS=fuzz/corpus`: also write them there for cargo-fuzz.
    if let Some(dir) = std::env::var_os("SHOGUN_FUZZ_SEEDS") {
        let dir = std::path::Path::new(&dir).join(target.name());
        std::fs::create_dir_all(&dir).unwrap();
        for (i, s) in seeds.iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i}")), s).unwrap();
        }
    }
    let mut rng = GameRng::seeded(0x5eed ^ target as u64);
    let check = |fuzzer: &mut Fuzzer, input: &[u8]| {
        let shown = String::from_utf8_lossy(input);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fuzzer.run(target, input))) {
            Ok(Ok(())) => {}
            Ok(Err(finding)) => panic!("{}: {finding}\ninput: {shown:?}", target.name()),
            Err(_) => panic!("{}: panicked on input {shown:?}", target.name()),
        }
    };
    for s in &seeds {
        check(&mut fuzzer, s);
    }
    let started = std::time::Instant::now();
    let n = runs();
    for i in 0..n {
        let base = &seeds[i % seeds.len()];
        let input = mutate(&mut rng, base, &seeds, MAX_INPUT);
        check(&mut fuzzer, &input);
    }
    eprintln!("fuzz {}: {} seeds, {n} mutations in {:.1?}", target.name(), seeds.len(), started.elapsed());
}

/// Every input libFuzzer found (docs/fuzzing.md, the long run) stays a
/// test: `tests/fixtures/fuzz/TARGET/*` run through their target.
#[test]
fn libfuzzer_findings_stay_fixed() {
    let dir = crate::common::root().join("tests/fixtures/fuzz");
    let mut fuzzer = Fuzzer::new(&crate::common::root()).unwrap();
    let mut n = 0;
    for target in TARGETS {
        let Ok(files) = std::fs::read_dir(dir.join(target.name())) else { continue };
        for file in files {
            let path = file.unwrap().path();
            let input = std::fs::read(&path).unwrap();
            if let Err(finding) = fuzzer.run(target, &input) {
                panic!("{}: {finding}", path.display());
            }
            n += 1;
        }
    }
    assert!(n >= 1, "no findings read from {}", dir.display());
}

#[test]
fn fuzz_map() {
    fuzz(Target::Map);
}

#[test]
fn fuzz_pack() {
    fuzz(Target::Pack);
}

#[test]
fn fuzz_variant() {
    fuzz(Target::Variant);
}

#[test]
fn fuzz_save() {
    fuzz(Target::Save);
}

#[test]
fn fuzz_scenario() {
    fuzz(Target::Scenario);
}

#[test]
fn fuzz_throws() {
    fuzz(Target::Throws);
}

#[test]
fn fuzz_repl() {
    fuzz(Target::Repl);
    // The help's examples are among the seeds: `board --svg board.svg`
    // once wrote its picture (and mutated names) into the working folder.
    let cwd = std::env::current_dir().unwrap();
    let written: Vec<_> = std::fs::read_dir(&cwd).unwrap().filter_map(|e| e.ok()).filter(|e| e.path().extension().is_some_and(|x| x == "svg")).collect();
    assert!(written.is_empty(), "the REPL fuzz wrote into {}: {written:?}", cwd.display());
}

#[test]
fn fuzz_lua() {
    fuzz(Target::Lua);
}

#[test]
fn fuzz_merge() {
    fuzz(Target::Merge);
}

#[test]
fn every_target_has_a_test_and_a_name() {
    let tests = std::fs::read_to_string(crate::common::root().join("tests/suite/fuzz.rs")).unwrap();
    let cargo_fuzz = std::fs::read_to_string(crate::common::root().join("fuzz/Cargo.toml")).unwrap();
    // Every variant, by a match the compiler holds to all of them, is in
    // TARGETS (a variant left out of it would be fuzzed nowhere).
    let listed = |t: Target| match t {
        Target::Map | Target::Pack | Target::Variant | Target::Save | Target::Scenario | Target::Throws | Target::Repl | Target::Lua | Target::Merge => {
            TARGETS.contains(&t)
        }
    };
    for t in [Target::Map, Target::Pack, Target::Variant, Target::Save, Target::Scenario, Target::Throws, Target::Repl, Target::Lua, Target::Merge] {
        assert!(listed(t), "{t:?} is not in TARGETS");
    }
    for t in TARGETS {
        assert_eq!(Target::by_name(t.name()), Some(t));
        assert!(tests.contains(&format!("\n    fuzz(Target::{t:?});\n")), "{t:?} has no short run here");
        assert!(cargo_fuzz.contains(&format!("name = \"{}\"", t.name())), "{t:?} has no cargo-fuzz target");
    }
}

/// Issue 23 item 1: a seed played on an engine that has played other
/// games first plays as on a fresh engine.
#[test]
fn a_soak_against_fresh_engines_finds_nothing() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).args(["soak", "--games", "8", "--fresh", "--probe-every", "0"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("games that differ:      0") && text.contains("soak: OK"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("the second time on a fresh engine"));
}

/// Issue 23 item 1: with `--fresh` the first play of each game runs a
/// memory-heavy call every 4th decision, so a pack whose rules depend on
/// what earlier calls left in the VM's memory plays differently there
/// than on the fresh engine. The audit's pack (`memory_probe_pack`: it
/// branched on a memory error) and one that needs nearly all of the limit
/// in a call (`near_limit_pack`: it failed after a stir) have no such
/// dependence left: the soak finds nothing.
#[test]
fn a_soak_against_fresh_engines_finds_no_rule_that_reads_the_heap() {
    let probe = crate::common::memory_probe_pack("soak-memory-probe");
    let (near, _) = crate::common::near_limit_pack("soak-near-limit");
    for pack in [probe, near] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun"))
            .args(["soak", "--games", "2", "--fresh", "--probe-every", "0", "--rules"])
            .arg(&pack)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}: {text}{}", pack.display(), String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("games that differ:      0") && text.contains("games that failed:      0"), "{text}");
    }
}

#[test]
fn a_short_soak_finds_nothing() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).args(["soak", "--games", "21"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    for line in
        ["21 games, each played twice", "0 changed the state", "games that differ:      0", "games that failed:      0", "variant hard-winter", "soak: OK"]
    {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    // Standard error is a pipe here, not a terminal: progress comes as a
    // plain line at each tenth of the run, not as a bar's control codes.
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("/21 games, ")).collect();
    assert_eq!(lines.len(), 9, "{err}");
    assert!(lines[0].starts_with("3/21 games, ") && lines[8].starts_with("19/21 games, "), "{err}");
    assert!(!err.contains('\u{1b}'), "{err}");
}
