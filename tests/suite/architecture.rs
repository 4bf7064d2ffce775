//! Issue 23 item 12: the layer boundaries ARCHITECTURE.md states are held
//! by a test that fails: every `crate::` path a module of `src/` names is
//! an edge the map's "Layer edges" list allows, and every edge listed is
//! used (the map stays true).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::root;

type Edges = BTreeMap<String, BTreeSet<String>>;

/// The edges ARCHITECTURE.md's "Layer edges" list allows, by area.
fn allowed(map: &str) -> Edges {
    let section = map.split("\n### Layer edges\n").nth(1).expect("ARCHITECTURE.md has no `### Layer edges` section");
    let section = section.split("\n#").next().unwrap_or(section);
    let mut edges = Edges::new();
    for line in section.lines().filter(|l| l.starts_with("- `")) {
        let (from, to) = line[2..].split_once(" -> ").unwrap_or_else(|| panic!("a layer edge line without ` -> `: {line}"));
        let quoted = |s: &str| s.split('`').skip(1).step_by(2).map(String::from).collect::<Vec<_>>();
        let from = quoted(from).pop().unwrap_or_else(|| panic!("no area in {line}"));
        let to: BTreeSet<String> = quoted(to).into_iter().collect();
        assert!(edges.insert(from.clone(), to).is_none(), "`{from}` is listed twice");
    }
    edges
}

/// The area of a file under src/: its folder, or its name at the top.
fn area(rel: &Path) -> String {
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.strip_suffix(".rs").unwrap_or(&first).to_string()
}

/// The code of `text` line by line (numbered from 1), up to its
/// `#[cfg(test)] mod tests`, comments left out.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|n| n.trim_start().starts_with("mod ")) {
            break;
        }
        out.push((i + 1, if t.starts_with("//") { "" } else { line.split(" // ").next().unwrap_or(line) }));
    }
    out
}

/// The areas `text` names (`crate::NAME`, or `shogun_lab::NAME` in the
/// binary) with the line of each, up to its `#[cfg(test)] mod tests`.
/// Comments are skipped.
fn names(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, code) in code_lines(text) {
        for prefix in ["crate::", "shogun_lab::"] {
            for (at, _) in code.match_indices(prefix) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                    continue;
                }
                let name: String = code[at + prefix.len()..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                if !name.is_empty() {
                    out.push((name, i));
                }
            }
        }
    }
    out
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn imports_follow_the_layer_edges_in_architecture_md() {
    let allowed = allowed(&std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap());
    let src = root().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut used = Edges::new();
    let mut wrong = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let from = area(rel);
        let Some(ok) = allowed.get(&from) else {
            wrong.push(format!("src/{}: the area `{from}` has no line in ARCHITECTURE.md's layer edges", rel.display()));
            continue;
        };
        for (to, line) in names(&std::fs::read_to_string(file).unwrap()) {
            if to == from {
                continue;
            }
            if !ok.contains(&to) {
                wrong.push(format!("src/{}:{line}: `{from}` -> `{to}` is not a layer edge in ARCHITECTURE.md", rel.display()));
            }
            used.entry(from.clone()).or_default().insert(to);
        }
    }
    for (from, tos) in &allowed {
        for to in tos {
            if !used.get(from).is_some_and(|u| u.contains(to)) {
                wrong.push(format!("ARCHITECTURE.md allows `{from}` -> `{to}`, which no code uses: take it out"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Who calls `Engine::runtime()` (the Lua runtime itself): only the
/// areas and files ARCHITECTURE.md's "Calls into the runtime" lists, and
/// every one listed does. The play and REPL layers go through the
/// engine's methods.
#[test]
fn only_the_listed_layers_call_the_lua_runtime() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let line = map.lines().find(|l| l.starts_with("- runtime callers: ")).expect("ARCHITECTURE.md lists no `- runtime callers:`");
    let listed: BTreeSet<String> = line.split('`').skip(1).step_by(2).map(String::from).collect();
    let src = root().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let (mut used, mut wrong) = (BTreeSet::new(), Vec::new());
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let path = rel.to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap();
        for (i, code) in code_lines(&text) {
            if !code.contains(".runtime()") {
                continue;
            }
            match [area(rel), path.clone()].into_iter().find(|k| listed.contains(k)) {
                Some(k) => {
                    used.insert(k);
                }
                None => wrong.push(format!("src/{path}:{i} calls the Lua runtime; go through the engine (or list it in ARCHITECTURE.md)")),
            }
        }
    }
    for k in listed.difference(&used) {
        wrong.push(format!("ARCHITECTURE.md lists `{k}` as a runtime caller, which calls none: take it out"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The reader sees paths in code, not in comments or tests, and an
/// edge the list lacks is found.
#[test]
fn the_edge_reader_sees_code_only() {
    let text = "use crate::core::Seat;\n// crate::lab in a comment\nlet x = crate::files::read(p); // crate::repl\nfn f() { $crate::x; my_crate::y }\n#[cfg(test)]\nmod tests {\n    use crate::engine::Engine;\n}\n";
    assert_eq!(names(text), vec![("core".to_string(), 1), ("files".to_string(), 3)]);
    let map = "# A\n### Layer edges\n- `core` -> nothing\n- `play` -> `core`, `engine`\n## B\n- `x` -> `y`\n";
    let edges = allowed(map);
    assert_eq!(edges.len(), 2);
    assert!(edges["core"].is_empty() && edges["play"].len() == 2);
}
