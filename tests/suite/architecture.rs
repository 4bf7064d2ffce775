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
    out.extend(crate::common::files_under(dir).into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")));
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

/// Issue 23 item 12: every file under src/ is in the code map, and every
/// file and folder the map names exists.
#[test]
fn the_code_map_names_every_file_under_src() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let entries = code_map(&map);
    let found = crate::common::files_under(&root().join("src"));
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

/// The string literals of `text` with the line each starts on, in the
/// code `code_lines` keeps (comments, doc comments and test modules left
/// out): "..." and b"..." with their escapes as written, raw strings
/// r"..." and r#"..."#; a char literal ('"') is not a string.
fn literals(text: &str) -> Vec<(usize, String)> {
    let code: Vec<(usize, &str)> = code_lines(text);
    let mut joined: Vec<(usize, char)> = Vec::new();
    for (n, line) in code {
        joined.extend(line.chars().map(|c| (n, c)));
        joined.push((n, '\n'));
    }
    let (mut out, mut i) = (Vec::new(), 0);
    let at = |i: usize| joined.get(i).map(|&(_, c)| c);
    while i < joined.len() {
        let (line, c) = joined[i];
        let word_before = i > 0 && at(i - 1).is_some_and(|p| p.is_alphanumeric() || p == '_');
        if c == '\'' {
            // A char literal ('x', '\n', '"'), else a lifetime or label.
            if at(i + 1) == Some('\\') {
                i += 2;
                while i < joined.len() && at(i) != Some('\'') {
                    i += 1;
                }
            } else if at(i + 2) == Some('\'') {
                i += 2;
            }
        } else if c == 'r' && !word_before && matches!(at(i + 1), Some('"' | '#')) {
            let mut hashes = 0;
            let mut j = i + 1;
            while at(j) == Some('#') {
                hashes += 1;
                j += 1;
            }
            if at(j) == Some('"') {
                let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let rest: String = joined[j + 1..].iter().map(|&(_, c)| c).collect();
                let end = rest.find(&close).unwrap_or(rest.len());
                out.push((line, rest[..end].to_string()));
                i = j + 1 + rest[..end].chars().count() + close.chars().count();
                continue;
            }
        } else if c == '"' {
            let mut s = String::new();
            i += 1;
            while i < joined.len() && at(i) != Some('"') {
                if at(i) == Some('\\') {
                    s.push('\\');
                    i += 1;
                }
                if let Some(c) = at(i) {
                    s.push(c);
                }
                i += 1;
            }
            out.push((line, s));
        }
        i += 1;
    }
    out
}

/// Where the data folder's names may be spelled: the folders in
/// play/data.rs (`Layout`, "the only place that knows" in ARCHITECTURE.md),
/// a variant's and a pack's own file in the format that defines it. Each
/// name as the program itself builds it, so that a renamed folder moves
/// the list.
fn layout_names() -> Vec<(String, &'static str)> {
    use shogun_lab::play::Layout;
    use shogun_lab::play::data::scenarios_dir;
    let bare = Layout { root: std::path::PathBuf::new() };
    let mut folders: Vec<std::path::PathBuf> = vec![bare.maps_dir(), bare.packs_dir(), bare.base_pack(), bare.variants_dir(), scenarios_dir(Path::new(""))];
    folders.push(bare.broken_maps());
    let mut names = Vec::new();
    for f in folders {
        // Each folder and every folder it is inside (`scripts/base`, `scripts`).
        let mut p = f.as_path();
        loop {
            names.push((p.to_string_lossy().to_string(), "play/data.rs"));
            match p.parent() {
                Some(up) if !up.as_os_str().is_empty() => p = up,
                _ => break,
            }
        }
    }
    names.push((shogun_lab::play::data::DEFAULT_MAP.to_string(), "play/data.rs"));
    names.push((shogun_lab::rules::variant::FILE.to_string(), "rules/variant.rs"));
    names.push((shogun_lab::rules::pack::RULES_FILE.to_string(), "rules/pack.rs"));
    names.push((shogun_lab::rules::pack::CARDS_FILE.to_string(), "rules/pack.rs"));
    names.sort();
    names.dedup();
    names
}

/// Whether the literal `s` spells a path in the data folder's layout:
/// a word (prose, a message with spaces, names no path) that is one of
/// `names`, or starts with one followed by `/`, or holds one as its last
/// part (`x/variant.yaml`). Returns the longest name it spells.
fn spells_a_layout_path<'a>(s: &str, names: &'a [(String, &'static str)]) -> Option<&'a (String, &'static str)> {
    if s.chars().any(char::is_whitespace) {
        return None;
    }
    names.iter().filter(|(n, _)| s == n || s.starts_with(&format!("{n}/")) || s.ends_with(&format!("/{n}"))).max_by_key(|(n, _)| n.len())
}

/// Literals in code that name layout paths but are not paths: each with
/// why. Every entry must still be found (a stale one fails).
const NOT_LAYOUT_PATHS: &[(&str, &str, &str)] = &[
    ("repl/mod.rs", "variants/{i}", "a save's `variants` list, a YAML key path for a message's line"),
    ("scenario.rs", "variants", "a scenario file's `variants:` key, for a message's line"),
    ("fuzz.rs", "sun", "a word of the mutator's dictionary (maps, bots and provinces by name), not the default map"),
];

/// Issue 23 item 12: the data folder's layout (`maps/`, `scripts/base/`,
/// `variants/`, a pack's `tests/`, the files that make a folder a variant
/// or a pack, the default map's name) is spelled in one place each: every other file goes
/// through `Layout` or the format's one test (`is_variant`, `is_pack`).
#[test]
fn the_data_layout_is_spelled_only_where_architecture_md_says() {
    let names = layout_names();
    assert!(names.iter().any(|(n, _)| n == "maps") && names.iter().any(|(n, _)| n == "scripts/base") && names.iter().any(|(n, _)| n == "tests"), "{names:?}");
    let src = root().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let (mut wrong, mut allowed_seen) = (Vec::new(), BTreeSet::new());
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        for (line, s) in literals(&std::fs::read_to_string(file).unwrap()) {
            let Some((name, owner)) = spells_a_layout_path(&s, &names) else { continue };
            if rel == *owner {
                continue;
            }
            if let Some(a) = NOT_LAYOUT_PATHS.iter().find(|(f, l, _)| *f == rel && *l == s) {
                allowed_seen.insert(a.1);
                continue;
            }
            wrong.push(format!("src/{rel}:{line}: \"{s}\" spells `{name}`, which only src/{owner} may (go through Layout or its format's test)"));
        }
    }
    for (f, l, _) in NOT_LAYOUT_PATHS {
        if !allowed_seen.contains(l) {
            wrong.push(format!("src/{f} no longer has \"{l}\": take it out of NOT_LAYOUT_PATHS"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The literal reader and the layout test see what the check of issue 23
/// found in the old check.rs and fuzz.rs, and nothing in comments, tests
/// or prose.
#[test]
fn the_layout_reader_sees_path_literals_in_code_only() {
    let text = "let c = '\"'; let base = root.join(\"scripts/base\");\n// root.join(\"maps\")\n/// \"variants\"\nlet sun = root.join(r#\"maps/sun.yaml\"#); let l: &'static str = \"a\\\"b\";\nlet f = pack.join(\"tests/fuzz.yaml\"); let m = \"keeps them in tests/*.yaml\";\n#[cfg(test)]\nmod tests {\n    const X: &str = \"maps\";\n}\nif p.join(\"variant.yaml\").is_file() {}\n";
    let lits = literals(text);
    let pairs: Vec<String> = lits.iter().map(|(l, s)| format!("{l}:{s}")).collect();
    assert_eq!(pairs, ["1:scripts/base", "4:maps/sun.yaml", "4:a\\\"b", "5:tests/fuzz.yaml", "5:keeps them in tests/*.yaml", "10:variant.yaml"]);
    let names = layout_names();
    let spelled: Vec<&str> = lits.iter().filter_map(|(_, s)| spells_a_layout_path(s, &names)).map(|(n, _)| n.as_str()).collect();
    assert_eq!(spelled, ["scripts/base", "maps", "tests", "variant.yaml"]);
}
