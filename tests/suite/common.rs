#![allow(dead_code)]
//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use shogun_lab::core::*;
use shogun_lab::engine::Engine;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir`, folders walked (in no particular order).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

pub fn engine() -> Engine {
    engine_from(&root().join("scripts/base"), &root().join("maps/sun.yaml"))
}

pub fn engine_from(pack: &Path, map: &Path) -> Engine {
    let rules = shogun_lab::rules::load(pack, map).unwrap_or_else(|d| panic!("rules do not load:\n{d}"));
    Engine::new(rules).unwrap_or_else(|d| panic!("engine does not start:\n{d}"))
}

/// A fresh copy of the base pack and the Sun map in a temporary folder,
/// for tests that change the data. Returns (pack dir, map path).
pub fn copy_data(tag: &str) -> (PathBuf, PathBuf) {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("shogun-lab-test-{}-{tag}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
    let _ = std::fs::remove_dir_all(&dir);
    let pack = dir.join("pack");
    std::fs::create_dir_all(&pack).unwrap();
    for entry in std::fs::read_dir(root().join("scripts/base")).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_file() {
            std::fs::copy(entry.path(), pack.join(entry.file_name())).unwrap();
        }
    }
    let map = dir.join("sun.yaml");
    std::fs::copy(root().join("maps/sun.yaml"), &map).unwrap();
    (pack, map)
}

/// A copy of the folder `from` (files and folders, recursively) at `to`.
/// Data folders are made of copies, not links: a map or variant named
/// by name must resolve inside its data folder, links followed.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() { copy_tree(&src, &dst) } else { std::fs::copy(&src, &dst).map(|_| ()).unwrap() }
    }
}

/// Replaces `from` by `to` in a file (the text must be there).
pub fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} does not contain {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

pub fn province(engine: &Engine, name: &str) -> usize {
    engine.rules.map.province(name).unwrap_or_else(|| panic!("no province {name}"))
}

pub fn action(engine: &Engine, id: &str) -> usize {
    engine.rules.action_index(id).unwrap_or_else(|| panic!("no action {id}"))
}

/// A 4-player game just after setup and the first year's events, before
/// the first round is laid out.
pub fn started(engine: &Engine, players: u8, seed: u64) -> GameState {
    let mut st = engine.new_game(players, seed).unwrap();
    engine.apply(&mut st, &Decision::Chance).unwrap(); // setup
    engine.apply(&mut st, &Decision::Chance).unwrap(); // year's events
    st
}

/// Puts the state at the point where `seat` performs `action` in
/// `province` (held by `seat`), with the given event and special in force,
/// and runs it. Returns the events.
pub fn perform(
    engine: &Engine,
    st: &mut GameState,
    seat: usize,
    action_id: &str,
    province_name: &str,
    event: Option<&str>,
    special: Option<&str>,
) -> Vec<Event> {
    let a = action(engine, action_id);
    let p = province(engine, province_name);
    assert_eq!(st.provinces[p].owner, Some(Seat::new(seat)), "{province_name} must be held by the seat");
    let event = event.map(|id| engine.rules.cards.events.iter().position(|e| e.id == id).expect("event id"));
    let special = special.map(|id| engine.rules.cards.specials.iter().position(|c| c.id == id).expect("special id"));
    shogun_lab::play::stage_action(engine, st, Seat::new(seat), a, ProvinceId::new(p), event, special).unwrap_or_else(|e| panic!("{e}"))
}

/// Moves `n` peasants from the general supply into the tower's top level.
pub fn peasants_into_tower(st: &mut GameState, n: u16) {
    st.peasants -= n;
    st.tower[0].peasants += n;
}

pub fn pile(seats: &[(usize, u16)], peasants: u16) -> Pile {
    let mut p = Pile::default();
    for &(s, n) in seats {
        p.seats[s] = n;
    }
    p.peasants = peasants;
    p
}

/// Answers the pending question with the option `pick` chooses.
pub fn answer(engine: &Engine, st: &mut GameState, pick: impl Fn(&[Choice]) -> Choice) -> Vec<Event> {
    let Legal::Choose { seat, options, .. } = engine.legal(st) else { panic!("no question pending: {:?}", engine.actor(st)) };
    let choice = pick(&options);
    engine.apply(st, &Decision::Choose { seat, choice }).unwrap_or_else(|e| panic!("{e}"))
}

/// A REPL on the sun map with these seats (`human`, `greedy`, `random`).
pub fn repl(seats: &[&str], seed: u64) -> shogun_lab::repl::Repl {
    let spec = shogun_lab::play::GameSpec { map: "sun".into(), data: Some(root()), ..Default::default() };
    let config = shogun_lab::repl::Config { spec, players: seats.len() as u8, seed, seats: seats.iter().map(|s| s.to_string()).collect() };
    shogun_lab::repl::Repl::new(config).unwrap()
}

/// Runs REPL lines, each of which must succeed; their output, a line each.
pub fn run(r: &mut shogun_lab::repl::Repl, lines: &[&str]) -> String {
    let mut out = String::new();
    for l in lines {
        out.push_str(&r.exec(l).unwrap_or_else(|e| panic!("`{l}` failed: {e}\nso far:\n{out}")));
        out.push('\n');
    }
    out
}

/// Issue 23 item 1, the audit's pack: the base pack whose `collect_taxes`
/// first asks for a 31 MiB string under `pcall` (gaining 3 war chests when
/// that fails) and then recurses 190,000 deep, which grows the VM's stack
/// by some 18 MiB. The string is 1 KiB repeated (the audit repeated one
/// character: the same memory, slower to fill). Returns the pack's folder.
pub fn memory_probe_pack(tag: &str) -> PathBuf {
    let (pack, _) = copy_data(tag);
    edit(
        &pack.join("actions.lua"),
        "shogun.action(\"collect_taxes\", function(seat, p, a)\n",
        "local function deep(n) if n > 0 then return 1 + deep(n - 1) end return 0 end\n\
         shogun.action(\"collect_taxes\", function(seat, p, a)\n  \
         if not pcall(string.rep, string.rep(\"x\", 1024), 31 << 10) then game.gain(seat, 3) end deep(190000)\n",
    );
    pack
}

/// Issue 23 item 1, what the review of the fix found: the base pack whose
/// `collect_taxes` first makes a 31 MiB string (62 MiB for a moment, the
/// buffer and the string), which fits under the 64 MiB limit from a tidy
/// heap and not beside a few MiB that earlier calls left. Returns (pack,
/// map).
pub fn near_limit_pack(tag: &str) -> (PathBuf, PathBuf) {
    let (pack, map) = copy_data(tag);
    edit(
        &pack.join("actions.lua"),
        "shogun.action(\"collect_taxes\", function(seat, p, a)\n",
        "shogun.action(\"collect_taxes\", function(seat, p, a)\n  local _ = #string.rep(\"x\", 31 << 20)\n",
    );
    (pack, map)
}
