//! Diffs of transcripts (`shogun test`, `shogun diff`) mark only the lines
//! that changed (issue 13, item 6), through the `similar` crate.

use crate::common::*;
use shogun_lab::scenario::first_difference;

#[test]
fn one_changed_line_is_one_pair() {
    let old = "a\nb\nc\nd\ne\nf\ng\n";
    let new = "a\nb\nc\nD\ne\nf\ng\n";
    let d = first_difference(old, new, 2);
    assert_eq!(d, "    b\n    c\n  - d\n  + D\n    e\n    f\n  (first difference at line 4; 1 changed region, 2 lines marked in all; 7 lines before, 7 after)");
    // A line put in moves nothing else: one `+`, no `-`.
    let d = first_difference(old, "a\nb\nx\nc\nd\ne\nf\ng\n", 1);
    assert_eq!(d.matches("\n  -").count() + usize::from(d.starts_with("  -")), 0, "{d}");
    assert_eq!(d.matches("  + ").count(), 1, "{d}");
    assert!(first_difference(old, old, 3).contains("no difference"));
}

/// The reproduction: Settsu's tax set to 9, `shogun test` on a golden
/// transcript shows one -/+ pair where one line of the game changed.
#[test]
fn shogun_test_marks_one_pair_for_one_changed_line() {
    let dir = std::env::temp_dir().join(format!("shogun-lab-diffs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    let map = std::fs::read_to_string(root().join("maps/sun.yaml")).unwrap();
    let changed = map.replace("{name: Settsu, region: purple, tax: 7,", "{name: Settsu, region: purple, tax: 9,");
    assert_ne!(map, changed);
    std::fs::write(dir.join("maps/sun.yaml"), changed).unwrap();
    std::fs::copy(root().join("maps/moon.yaml"), dir.join("maps/moon.yaml")).unwrap();
    for d in ["scripts", "variants"] {
        copy_tree(&root().join(d), &dir.join(d));
    }
    let scenario = dir.join("variants/hard-winter/tests/game.yaml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).arg("test").arg("--data").arg(&dir).arg(&scenario).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    let first: Vec<&str> = text.lines().skip_while(|l| !l.contains("transcript differs")).skip(1).take_while(|l| !l.contains("(first difference")).collect();
    let minus: Vec<&&str> = first.iter().filter(|l| l.starts_with("  -")).collect();
    let plus: Vec<&&str> = first.iter().filter(|l| l.starts_with("  +")).collect();
    assert_eq!((minus.len(), plus.len()), (1, 1), "{text}");
    assert!(minus[0].contains("A plans:") && minus[0].contains("temple Settsu") && plus[0].contains("taxes Settsu"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `shogun diff --variant hard-winter --against --players 3` was refused
/// ("--against: unexpected `--players`") while `lab` took its other options
/// after an arm: `diff` reads its arm the same way, so options may follow.
#[test]
fn diff_takes_other_options_after_its_arm() {
    let diff = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shogun")).arg("diff").args(args).env("SHOGUN_DATA", root()).output().unwrap();
        (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    };
    let (ok, out) = diff(&["--seed", "7", "--variant", "hard-winter", "--against", "--players", "3", "--context", "1"]);
    assert!(ok && out.starts_with("seed 7, 3 players: base+hard-winter(loss=2)  vs  base\n"), "{out}");
    let (ok, out) = diff(&["--seed", "7", "--against", "--variant", "hard-winter", "--players", "3"]);
    assert!(ok && out.starts_with("seed 7, 3 players: base  vs  base+hard-winter(loss=2)\n"), "{out}");
    let (ok, out) = diff(&["--against", "--variant", "ro-event", "--players", "3"]);
    assert!(!ok && out.starts_with("error: --against: unknown variant `ro-event`, did you mean `ro-events`?"), "{out}");
}
