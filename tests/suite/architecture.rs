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

/// The code of `text` line by line (numbered from 1), comments and
/// `#[cfg(test)] mod NAME { .. }` blocks left out (such a block ends at
/// its closing brace, which rustfmt puts alone at the `mod` line's
/// indentation; code after it is read again).
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        if t == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|n| n.trim_start().starts_with("mod ")) {
            let m = lines[i + 1];
            if m.trim_end().ends_with('{') {
                let close = format!("{}}}", &m[..m.len() - m.trim_start().len()]);
                i += 2;
                while i < lines.len() && lines[i].trim_end() != close {
                    i += 1;
                }
            } else {
                // `mod tests;`: the module lives in a file of its own.
                i += 1;
            }
            i += 1;
            continue;
        }
        out.push((i + 1, if t.starts_with("//") { "" } else { line.split(" // ").next().unwrap_or(line) }));
        i += 1;
    }
    out
}

/// What the crate root re-exports (`pub use crate::AREA::{Name, ..}` in
/// src/lib.rs): a path `crate::Name` names that area.
fn reexports() -> BTreeMap<String, String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let mut out = BTreeMap::new();
    for line in lib.lines().filter_map(|l| l.trim().strip_prefix("pub use crate::")) {
        let (area, rest) = line.split_once("::").unwrap_or((line, ""));
        let rest = rest.trim_end_matches(';').trim_start_matches('{').trim_end_matches('}');
        for name in rest.split(',').map(|n| n.trim().rsplit("::").next().unwrap_or("").split(" as ").last().unwrap_or("").trim()) {
            if !name.is_empty() {
                out.insert(name.to_string(), area.to_string());
            }
        }
    }
    out
}

/// The first path segment of each item of a `{ .. }` group that starts
/// at `rest` (just after its `{`), which may go on over the next lines:
/// the nested groups' items are inside an item, not first segments.
fn group_heads(rest: &str, more: &[(usize, &str)]) -> Vec<String> {
    let mut text = rest.to_string();
    for (_, l) in more.iter().take(40) {
        if depth_closed(&text) {
            break;
        }
        text.push(' ');
        text.push_str(l);
    }
    let (mut heads, mut depth, mut item) = (Vec::new(), 1usize, String::new());
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => break,
            '}' => depth -= 1,
            ',' if depth == 1 => heads.push(std::mem::take(&mut item)),
            _ if depth == 1 => item.push(c),
            _ => {}
        }
    }
    heads.push(item);
    heads.iter().map(|i| i.trim().split("::").next().unwrap_or("").trim().to_string()).filter(|h| !h.is_empty() && h != "self").collect()
}

/// Whether the group opened before `text` closes in it.
fn depth_closed(text: &str) -> bool {
    let mut depth = 1i32;
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return true;
        }
    }
    false
}

/// The areas `text` names (`crate::NAME`, `shogun_lab::NAME` in the
/// binary, `crate::{a::X, b}`, a root re-export such as `crate::Engine`,
/// or `super::` paths that climb out of the file's area) with the line of
/// each, test modules and comments skipped. `module`: the file's module
/// path under src/ (`["script", "api", "effects"]`). A name the reader
/// cannot place is returned as itself, which no edge allows.
fn names_in(text: &str, module: &[String], reexported: &BTreeMap<String, String>) -> Vec<(String, usize)> {
    let lines = code_lines(text);
    let mut out = Vec::new();
    let push = |head: &str, line: usize, out: &mut Vec<(String, usize)>| {
        let area = if head.starts_with(|c: char| c.is_ascii_uppercase()) {
            reexported.get(head).cloned().unwrap_or_else(|| head.to_string())
        } else {
            head.to_string()
        };
        out.push((area, line));
    };
    for (n, &(i, code)) in lines.iter().enumerate() {
        for prefix in ["crate::", "shogun_lab::"] {
            for (at, _) in code.match_indices(prefix) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
                    continue;
                }
                let rest = &code[at + prefix.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    for head in group_heads(group, &lines[n + 1..]) {
                        push(&head, i, &mut out);
                    }
                    continue;
                }
                let head: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !head.is_empty() {
                    push(&head, i, &mut out);
                }
            }
        }
        // `super::super::x` from src/a/b.rs is `crate::x`: it leaves the area.
        for (at, _) in code.match_indices("super::") {
            if code[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut rest = &code[at..];
            let mut ups = 0;
            while let Some(r) = rest.strip_prefix("super::") {
                ups += 1;
                rest = r;
            }
            if ups >= module.len() {
                let head: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !head.is_empty() {
                    push(&head, i, &mut out);
                }
            }
        }
    }
    out
}

/// `names_in` for a file `src/x/y.rs` with no re-exports known (the
/// reader's own test).
fn names(text: &str) -> Vec<(String, usize)> {
    names_in(text, &["x".to_string(), "y".to_string()], &BTreeMap::new())
}

/// The module path of a file under src/ (`script/api/effects.rs` →
/// script, api, effects; `script/mod.rs` → script).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().to_string()).collect();
    if let Some(last) = parts.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(&last).to_string();
        if stem != "mod" && stem != "lib" && stem != "main" {
            parts.push(stem);
        }
    }
    parts
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
    let reexported = reexports();
    let mut used = Edges::new();
    let mut wrong = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let from = area(rel);
        let Some(ok) = allowed.get(&from) else {
            wrong.push(format!("src/{}: the area `{from}` has no line in ARCHITECTURE.md's layer edges", rel.display()));
            continue;
        };
        for (to, line) in names_in(&std::fs::read_to_string(file).unwrap(), &module_of(rel), &reexported) {
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
            if !code.contains(".runtime()") && !code.contains("::runtime(") {
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
    // The ways past the first reader (the audit of issue 23): a group of
    // paths, over lines too; a root re-export; `super::` out of the area;
    // code after a test module.
    let text = "use crate::{lab::Arm, repl};\nuse crate::{\n    bots::{self, Bot},\n    script::Runtime,\n};\nuse super::super::rules::Rules;\nuse super::Sibling;\n#[cfg(test)]\nmod tests {\n    use crate::engine::Engine;\n}\nfn after() { crate::tower::throw(); }\n";
    let pairs = |v: Vec<(String, usize)>| v.into_iter().map(|(a, l)| format!("{a}:{l}")).collect::<Vec<_>>();
    assert_eq!(pairs(names(text)), ["lab:1", "repl:1", "bots:2", "script:2", "rules:6", "tower:12"]);
    let reexported = BTreeMap::from([("Engine".to_string(), "engine".to_string())]);
    assert_eq!(pairs(names_in("let e: crate::Engine = x; let y: crate::Mystery = z;", &["play".to_string()], &reexported)), ["engine:1", "Mystery:1"]);
    assert_eq!(reexports().get("Engine").map(String::as_str), Some("engine"));
    let map = "# A\n### Layer edges\n- `core` -> nothing\n- `play` -> `core`, `engine`\n## B\n- `x` -> `y`\n";
    let edges = allowed(map);
    assert_eq!(edges.len(), 2);
    assert!(edges["core"].is_empty() && edges["play"].len() == 2);
}

/// The files ARCHITECTURE.md's code map names, as paths from the
/// repository's root (`src/core/state.rs`), and the folders (`src/core/`).
/// An entry is a line of the map's `src/` tree whose first word is a file
/// or folder name (`state.rs`, `core/`, `lab/ladder.rs`) at an indent of
/// two spaces a level; under a folder it names the folder's file, under a
/// file `NAME.rs` the file of folder `NAME/` (script/api.rs's `reads.rs` is
/// src/script/api/reads.rs). Descriptions are indented further.
fn code_map(map: &str) -> Vec<String> {
    let section = map.split("\n## Code map\n").nth(1).expect("ARCHITECTURE.md has no `## Code map` section");
    let block = section.split("```").nth(1).expect("the code map is a ``` block");
    let mut out = Vec::new();
    let mut inside = false;
    // (indent, the folder an entry there names files of)
    let mut stack: Vec<(usize, String)> = Vec::new();
    for line in block.lines() {
        let indent = line.len() - line.trim_start().len();
        let word = line.split_whitespace().next().unwrap_or("");
        if indent == 0 {
            inside = word == "src/";
            stack = vec![(0, "src/".to_string())];
            continue;
        }
        let named = |w: &str| {
            !w.is_empty()
                && (w.ends_with(".rs") || w.ends_with(".lua") || w.ends_with('/'))
                && w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/'))
        };
        if !inside || indent % 2 != 0 || indent > 2 * stack.len() || !named(word) {
            continue;
        }
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let path = format!("{}{word}", stack.last().map_or("src/", |(_, d)| d.as_str()));
        let folder = match path.strip_suffix(".rs") {
            Some(stem) if !path.ends_with("/mod.rs") => format!("{stem}/"),
            _ if path.ends_with('/') => path.clone(),
            _ => path.rsplit_once('/').map_or(String::new(), |(d, _)| format!("{d}/")),
        };
        stack.push((indent, folder));
        out.push(path);
    }
    out
}

/// What is wrong between a walk of src/ (`files`, from the root) and the
/// code map's entries: a file the map does not name (a `mod.rs` is named by
/// its folder's line), an entry naming no file or folder.
fn code_map_gaps(files: &[String], entries: &[String], exists: impl Fn(&str) -> bool) -> Vec<String> {
    let named: BTreeSet<&str> = entries.iter().map(String::as_str).collect();
    let mut wrong = Vec::new();
    for f in files {
        let folder_line = f.strip_suffix("mod.rs").filter(|d| d.ends_with('/'));
        if !named.contains(f.as_str()) && !folder_line.is_some_and(|d| named.contains(d)) {
            wrong.push(format!("{f} is not in ARCHITECTURE.md's code map: add a line for it"));
        }
    }
    for e in entries {
        if !exists(e) {
            wrong.push(format!("ARCHITECTURE.md's code map names {e}, which does not exist: take it out"));
        }
    }
    wrong
}

fn all_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Issue 23 item 12: every file under src/ is in the code map, and every
/// file and folder the map names exists.
#[test]
fn the_code_map_names_every_file_under_src() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let entries = code_map(&map);
    let mut found = Vec::new();
    all_files(&root().join("src"), &mut found);
    let mut files: Vec<String> = found.iter().map(|p| p.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/")).collect();
    files.sort();
    let wrong = code_map_gaps(&files, &entries, |e| root().join(e).exists());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The code map's reader: nesting under folders and files, folders'
/// `mod.rs`, descriptions skipped; a missing file and a stale entry found.
#[test]
fn the_code_map_reader_finds_what_is_missing() {
    let map = "# A\n## Code map\n\n```\nsrc/\n  lib.rs       the root: `Engine`,\n               `GameState`, ...\n  core/        plain data\n    state.rs     Seat\n                 and more.rs words\n  script/      Lua\n    mod.rs       Runtime\n    api.rs       the host\n      reads.rs     seats\n    load.rs      files\n  lab/ladder.rs the ladder\nmaps/          boards\n  sun.rs       not src\n```\n";
    let entries = code_map(map);
    assert_eq!(
        entries,
        [
            "src/lib.rs",
            "src/core/",
            "src/core/state.rs",
            "src/script/",
            "src/script/mod.rs",
            "src/script/api.rs",
            "src/script/api/reads.rs",
            "src/script/load.rs",
            "src/lab/ladder.rs"
        ]
    );
    let files: Vec<String> = [
        "src/lib.rs",
        "src/core/mod.rs",
        "src/core/state.rs",
        "src/script/mod.rs",
        "src/script/api.rs",
        "src/script/api/reads.rs",
        "src/script/load.rs",
        "src/lab/ladder.rs",
    ]
    .map(String::from)
    .to_vec();
    assert!(code_map_gaps(&files, &entries, |_| true).is_empty());
    // A file left out of the map (here the map loses `load.rs`), and an
    // entry whose file is gone.
    let without: Vec<String> = entries.iter().filter(|e| !e.ends_with("load.rs")).cloned().collect();
    assert_eq!(code_map_gaps(&files, &without, |_| true), ["src/script/load.rs is not in ARCHITECTURE.md's code map: add a line for it"]);
    let gone = code_map_gaps(&files, &entries, |e| e != "src/core/state.rs");
    assert_eq!(gone, ["ARCHITECTURE.md's code map names src/core/state.rs, which does not exist: take it out"]);
    // A folder's `mod.rs` needs its folder's line.
    let no_core: Vec<String> = entries.iter().filter(|e| !e.starts_with("src/core/")).cloned().collect();
    let gaps = code_map_gaps(&files, &no_core, |_| true);
    assert!(gaps.iter().any(|g| g.starts_with("src/core/mod.rs is not")), "{gaps:?}");
}
