//! YAML reading with positions: serde for the typed structure (unknown keys
//! rejected, with their line), and a position index so that later semantic
//! checks (an unknown province name, a one-sided border) can point at the
//! exact line and column too.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use saphyr_parser::{Event, Parser};
use serde::de::DeserializeOwned;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in a data file or script, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file; for a value given on a command line, that value as typed
    /// (`--variant hard-winter:loss=99`).
    pub file: PathBuf,
    /// 1-based; 0 when the problem has no place inside the file (it cannot
    /// be read, or it is a command-line value): then only the file is named.
    pub line: usize,
    /// 1-based; 0 when only the line is known (Lua reports lines, not
    /// columns): then `file:line:` is printed, with no made-up column.
    pub column: usize,
    pub severity: Severity,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        if self.line == 0 {
            return write!(f, "{}: {}: {}", self.file.display(), sev, self.message);
        }
        if self.column == 0 {
            return write!(f, "{}:{}: {}: {}", self.file.display(), self.line, sev, self.message);
        }
        write!(f, "{}:{}:{}: {}: {}", self.file.display(), self.line, self.column, sev, self.message)
    }
}

/// A failure as printed: `error: MESSAGE`, except for problems already
/// printed as `PLACE: error: ...` (the rules' diagnostics), which keep
/// their one prefix.
pub fn error_text(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or_default();
    let located = [": error: ", ": warning: "].iter().any(|sev| first.split_once(sev).is_some_and(|(place, _)| !place.is_empty() && !place.contains('`')));
    if located { msg.to_string() } else { format!("error: {msg}") }
}

/// Every problem found while loading; printing it prints one per line.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    /// Every problem of `other`, after these.
    pub fn append(&mut self, mut other: Diagnostics) {
        self.0.append(&mut other.0);
    }
    /// An error at `at` in `file`, or in the file `at` names (a value a
    /// variant's overlay put in is reported where the variant wrote it).
    pub fn error(&mut self, file: &Path, at: impl Into<Loc>, message: impl Into<String>) {
        self.0.push(Diagnostic::at(file, at.into(), Severity::Error, message.into()));
    }
    pub fn warning(&mut self, file: &Path, at: impl Into<Loc>, message: impl Into<String>) {
        self.0.push(Diagnostic::at(file, at.into(), Severity::Warning, message.into()));
    }
}

impl Diagnostic {
    /// A problem at `at`: in the file `at` names, else in `file`.
    pub fn at(file: &Path, at: Loc, severity: Severity, message: String) -> Diagnostic {
        let file = at.file.as_deref().map_or_else(|| file.to_path_buf(), Path::to_path_buf);
        Diagnostic { file, line: at.line, column: at.column, severity, message }
    }

    /// A problem with a whole file (one that cannot be read): no line.
    pub fn file(file: &Path, message: String) -> Diagnostic {
        Diagnostic { file: file.to_path_buf(), line: 0, column: 0, severity: Severity::Error, message }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// Where a node of a YAML document starts: line and column (1-based), and
/// the file when it is not the one the positions were read from (a node a
/// variant's overlay put into the document: its place in variant.yaml).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub line: usize,
    pub column: usize,
    pub file: Option<Arc<Path>>,
}

impl From<(usize, usize)> for Loc {
    fn from((line, column): (usize, usize)) -> Loc {
        Loc { line, column, file: None }
    }
}

impl PartialEq<(usize, usize)> for Loc {
    fn eq(&self, &(line, column): &(usize, usize)) -> bool {
        self.file.is_none() && self.line == line && self.column == column
    }
}

impl Loc {
    /// The same place, in `file`.
    pub fn in_file(self, file: &Arc<Path>) -> Loc {
        Loc { file: Some(file.clone()), ..self }
    }
}

/// Where each node of a YAML document starts, by path (`provinces/3/borders/1`).
/// Mapping keys are also indexed, under the path of their value plus `@key`.
#[derive(Default, Debug, Clone)]
pub struct Positions {
    at: HashMap<String, Loc>,
}

impl Positions {
    pub fn build(text: &str) -> Positions {
        enum Frame {
            Seq(usize),
            Map { key: Option<String> },
        }
        let mut pos = Positions::default();
        let mut stack: Vec<(String, Frame)> = Vec::new();
        let mut root = String::new();
        // Path of the node about to start, or None when it is a mapping key.
        fn next_path(stack: &mut [(String, Frame)], root: &str) -> Option<String> {
            match stack.last_mut() {
                None => Some(root.to_string()),
                Some((p, Frame::Seq(i))) => {
                    let s = join(p, &i.to_string());
                    *i += 1;
                    Some(s)
                }
                Some((p, Frame::Map { key })) => key.take().map(|k| join(p, &k)),
            }
        }
        // A mapping key that is an alias or itself a collection still takes
        // a key's turn, or the key and value after it would swap.
        const COMPLEX_KEY: &str = "?complex-key";
        fn take_key(stack: &mut [(String, Frame)], pos: &mut Positions, value: &str, mark: &Loc) {
            if let Some((p, Frame::Map { key })) = stack.last_mut() {
                let full = join(p, value);
                pos.at.insert(format!("{full}@key"), mark.clone());
                pos.at.entry(full).or_insert_with(|| mark.clone());
                *key = Some(value.to_string());
            }
        }
        // Scalars with an anchor, by anchor id: an alias used as a key is
        // that scalar's text.
        let mut anchors: HashMap<usize, String> = HashMap::new();
        // The depths of the open collections that are mapping keys.
        let mut key_frames: Vec<usize> = Vec::new();
        for item in Parser::new_from_str(text) {
            let Ok((event, span)) = item else { break };
            let mark = Loc::from((span.start.line(), span.start.col() + 1));
            let is_key = matches!(stack.last(), Some((_, Frame::Map { key: None })));
            match event {
                Event::Scalar(value, _, anchor, _) => {
                    if anchor != 0 {
                        anchors.insert(anchor, value.to_string());
                    }
                    if is_key {
                        take_key(&mut stack, &mut pos, &value, &mark);
                    } else if let Some(path) = next_path(&mut stack, &root) {
                        pos.at.insert(path, mark);
                    }
                }
                Event::Alias(id) => {
                    if is_key {
                        let value = anchors.get(&id).cloned().unwrap_or_else(|| COMPLEX_KEY.to_string());
                        take_key(&mut stack, &mut pos, &value, &mark);
                    } else if let Some(path) = next_path(&mut stack, &root) {
                        pos.at.insert(path, mark);
                    }
                }
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    let path = if is_key { String::from(COMPLEX_KEY) } else { next_path(&mut stack, &root).unwrap_or_default() };
                    pos.at.insert(path.clone(), mark);
                    let frame = if matches!(event, Event::SequenceStart(..)) { Frame::Seq(0) } else { Frame::Map { key: None } };
                    if is_key {
                        key_frames.push(stack.len());
                    }
                    stack.push((path, frame));
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    stack.pop();
                    if key_frames.last() == Some(&stack.len()) {
                        key_frames.pop();
                        if let Some((_, Frame::Map { key })) = stack.last_mut() {
                            *key = Some(COMPLEX_KEY.to_string());
                        }
                    }
                }
                Event::DocumentStart(_) => root.clear(),
                _ => {}
            }
        }
        pos
    }

    /// Line and column (1-based) of the node at `path`, or of the nearest
    /// enclosing node that is indexed.
    pub fn of(&self, path: &str) -> Loc {
        let mut p = path;
        loop {
            if let Some(m) = self.at.get(p) {
                return m.clone();
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.at.get("").cloned().unwrap_or(Loc::from((1, 1))),
            }
        }
    }

    /// Where the document has a mapping key: (line, column) of each.
    pub fn key_places(&self) -> std::collections::HashSet<(usize, usize)> {
        self.at.iter().filter(|(path, l)| path.ends_with("@key") && l.file.is_none()).map(|(_, l)| (l.line, l.column)).collect()
    }

    /// Position of a mapping key (falls back to its value, then upwards).
    pub fn key(&self, path: &str) -> Loc {
        self.at.get(&format!("{path}@key")).cloned().unwrap_or_else(|| self.of(path))
    }

    /// Records where the node at `path` (and, for a mapping's value, its
    /// key) is.
    pub fn set(&mut self, path: String, at: Loc, key: Option<Loc>) {
        if let Some(k) = key {
            self.at.insert(format!("{path}@key"), k);
        }
        self.at.insert(path, at);
    }
}

/// `parent/child`, or `child` at the top.
pub fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() { child.to_string() } else { format!("{parent}/{child}") }
}

/// A parsed YAML file: its typed content and its position index.
#[derive(Clone, Debug)]
pub struct YamlFile<T> {
    pub path: PathBuf,
    pub value: T,
    pub pos: Positions,
}

/// How deep a data file may nest (lists and maps in each other): the
/// deepest of ours nests 6 levels. serde's reader is quadratic in the depth
/// of flow nesting (80,000 levels took 13 s, and the read cap allowed hours).
pub const MAX_DEPTH: usize = 64;

/// The most values (scalars, lists and maps, with every alias expanded) a
/// data file may hold: ours hold a few thousand. A 100 kB file aliasing a
/// 20,000-entry list 20,000 times expanded to 400 million values and ran
/// out of memory in serde's reader.
pub const MAX_VALUES: u64 = 1 << 20;

/// Refuses `text` unless it is YAML (as the position index reads it) that
/// nests at most `MAX_DEPTH` levels and holds at most `MAX_VALUES` values
/// with its aliases expanded, naming the line where it is not. It streams
/// the parser's events and stops at the first fault, so its cost is linear
/// in the part read; serde only ever reads a file that passed it.
pub fn check_shape(path: &Path, text: &str) -> Result<(), Diagnostic> {
    let refuse = |mark: &saphyr_parser::Marker, message: String| Diagnostic {
        file: path.to_path_buf(),
        line: mark.line(),
        column: mark.col() + 1,
        severity: Severity::Error,
        message,
    };
    let too_deep = || format!("nests deeper than {MAX_DEPTH} levels (lists and maps inside each other): data files are shallow");
    // The collections open now: each one's anchor and the values counted
    // before it started; and each finished anchor's size.
    let mut open: Vec<(usize, u64)> = Vec::new();
    let mut sizes: HashMap<usize, u64> = HashMap::new();
    let mut values = 0u64;
    for item in Parser::new_from_str(text) {
        let (event, span) = match item {
            Ok(x) => x,
            // The parser's own flow-nesting limit (255) is met while it
            // looks ahead for a key, before the events reach ours.
            Err(e) if e.info() == "recursion limit exceeded" => return Err(refuse(e.marker(), too_deep())),
            Err(e) => return Err(refuse(e.marker(), format!("YAML syntax: {}", crate::files::excerpt(e.info())))),
        };
        let added = match event {
            Event::Scalar(.., anchor, _) => {
                if anchor > 0 {
                    sizes.insert(anchor, 1);
                }
                1
            }
            Event::Alias(anchor) => sizes.get(&anchor).copied().unwrap_or(1),
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                open.push((anchor, values));
                if open.len() > MAX_DEPTH {
                    return Err(refuse(&span.start, too_deep()));
                }
                1
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, before)) = open.pop()
                    && anchor > 0
                {
                    sizes.insert(anchor, values - before);
                }
                0
            }
            _ => 0,
        };
        values = values.saturating_add(added);
        if values > MAX_VALUES {
            return Err(refuse(&span.start, format!("holds more than {MAX_VALUES} values (aliases expanded): data files are small")));
        }
    }
    Ok(())
}

/// The most unknown keys one file's read reports (`from_str`).
const UNKNOWN_KEYS: usize = 20;

/// Reads `text` (from `path`) as a `T`, or says where and why not; the
/// message quotes at most an excerpt of the file. serde stops at the
/// first unknown key; so that a file with several misspelt keys shows
/// them all at once, the read is tried again with each unknown key's
/// entry blanked out (lines kept, so every place stays where it is), and
/// each further unknown key is reported too, up to `UNKNOWN_KEYS`. The
/// first error is always the file's own; a later one is reported only if
/// it is an unknown key at a place where the file itself has a key (so
/// not one that blanking made, such as the second line of a quoted text
/// read as a key), and every blanked text passes `check_shape` before
/// serde reads it, as the file did.
pub fn from_str<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, Diagnostics> {
    check_shape(path, text).map_err(|d| Diagnostics(vec![d]))?;
    let mut e = match serde_yaml::from_str::<T>(text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let mut out = vec![read_error(path, &e)];
    if !unknown_field(&e) || odd_line_breaks(text) {
        return Err(Diagnostics(out));
    }
    let keys = Positions::build(text).key_places();
    let place = |e: &serde_yaml::Error| e.location().map(|l| (l.line(), l.column()));
    // `at`: the unknown key last reported (each is reported once).
    let Some(mut at) = place(&e) else { return Err(Diagnostics(out)) };
    let mut seen = std::collections::HashSet::from([at]);
    let mut text = text.to_string();
    while out.len() < UNKNOWN_KEYS && blank_entry(&mut text, at.0, at.1) && check_shape(path, &text).is_ok() {
        e = match serde_yaml::from_str::<T>(&text) {
            Ok(_) => break,
            Err(next) => next,
        };
        match place(&e) {
            Some(next) if unknown_field(&e) && keys.contains(&next) && seen.insert(next) => at = next,
            _ => break,
        }
        out.push(read_error(path, &e));
    }
    Err(Diagnostics(out))
}

/// Whether the text breaks lines other than by `\n` (a lone `\r`, NEL,
/// LS, PS), where the YAML reader's line numbers and `blank_entry`'s
/// would differ: no key is blanked in such a file.
fn odd_line_breaks(text: &str) -> bool {
    text.chars().any(|c| matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')) || text.split("\r\n").any(|part| part.contains('\r'))
}

/// Whether serde stopped at a key its type does not have (at the top,
/// `unknown field ...`; deeper, `path.to.it: unknown field ...`, where
/// the path holds no space or quote: a message quoting the file's text,
/// such as a string holding those words, is not taken for one).
fn unknown_field(e: &serde_yaml::Error) -> bool {
    let message = e.to_string();
    match message.split_once("unknown field `") {
        Some(("", _)) => true,
        Some((path, _)) => path.strip_suffix(": ").is_some_and(|p| !p.is_empty() && !p.contains([' ', '"', '\''])),
        None => false,
    }
}

/// serde's error as a diagnostic, at its place.
fn read_error(path: &Path, e: &serde_yaml::Error) -> Diagnostic {
    let (line, column) = e.location().map(|l| (l.line(), l.column())).unwrap_or((1, 1));
    let mut message = e.to_string();
    // serde_yaml appends " at line X column Y"; we print it in front.
    // Its last occurrence: a key from the file may hold the words.
    if let Some(i) = message.rfind(" at line ") {
        message.truncate(i);
    }
    // The message may quote the file (`invalid type: string "..."`),
    // whatever file it is.
    let message = unknown_name(&message).unwrap_or_else(|| crate::files::excerpt(&message));
    Diagnostic { file: path.to_path_buf(), line, column, severity: Severity::Error, message }
}

/// Blanks the block mapping entry whose key starts at `line`:`column`
/// (1-based): its line and the lines of its value (more indented, or a
/// list at the key's own indentation) become empty, so that no other
/// line moves. False when the key does not start its line (a flow
/// mapping, a list item's first key), which is not blanked.
fn blank_entry(text: &mut String, line: usize, column: usize) -> bool {
    let indent_of = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let mut lines: Vec<&str> = text.split('\n').collect();
    let Some(first) = line.checked_sub(1).and_then(|i| lines.get(i)) else { return false };
    let indent = indent_of(first);
    if column != indent + 1 || first.trim().is_empty() {
        return false;
    }
    let mut end = line;
    while let Some(next) = lines.get(end) {
        let (body, at) = (next.trim(), indent_of(next));
        let inside = body.is_empty() || body.starts_with('#') || at > indent || (at == indent && (body == "-" || body.starts_with("- ")));
        if !inside {
            break;
        }
        end += 1;
    }
    // Blank lines after the value are left as they were (comments among
    // and after its lines are blanked with it).
    while end > line && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    for l in &mut lines[line - 1..end] {
        *l = "";
    }
    *text = lines.join("\n");
    true
}

/// serde's "unknown field `X`, expected one of `a`, `b`, ..." (or
/// "unknown variant"), said in full with the closest names: the list is
/// the type's own names, never cut; only the name from the file, and
/// where serde found it (`steps[0]: `), are excerpts of the file.
fn unknown_name(message: &str) -> Option<String> {
    let (at, what) = ["unknown field `", "unknown variant `"].iter().find_map(|w| message.find(w).map(|i| (i, *w)))?;
    let rest = &message[at + what.len()..];
    // The name ends at the last "`, " before "expected" (a name may hold
    // a backtick).
    let (name, tail) = rest.rsplit_once("`, expected ").or_else(|| rest.rsplit_once("`, there are no "))?;
    let known: Vec<String> = tail.split('`').skip(1).step_by(2).map(str::to_string).collect();
    // Only a list of field names is the type's own: anything else (a key
    // that holds "`, expected " itself) is text from the file, said only
    // as an excerpt.
    let field_name = |k: &String| (1..=64).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if known.is_empty() || known.len() > 100 || !known.iter().all(field_name) {
        return None;
    }
    let list = known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let hint = if name.len() <= 64 { super::map::suggest(name, known.iter()) } else { String::new() };
    let (prefix, name) = (crate::files::excerpt(&message[..at]), crate::files::excerpt(name));
    let expected = if known.len() == 1 { "expected" } else { "expected one of" };
    Some(format!("{prefix}{what}{name}`{hint} ({expected} {list})"))
}

/// Parses `text` (read from `path`) into `T`, or reports where and why not.
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<YamlFile<T>, Diagnostics> {
    let value = from_str(path, text)?;
    Ok(YamlFile { path: path.to_path_buf(), value, pos: Positions::build(text) })
}

/// How many parsed files [`parse_again`] keeps per thread.
const REMEMBERED: usize = 16;

/// One remembered parse: the type, the path, the whole text, the result.
type Parsed = (TypeId, PathBuf, String, Rc<dyn Any>);

thread_local! {
    static PARSED: std::cell::RefCell<Vec<Parsed>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`parse`], remembering the result by type, path and the file's whole
/// text: a process that loads the same files again (a REPL's `reload`, a
/// lab's arms, the soak, a fuzz target that changes one file of a pack)
/// parses only the files whose text changed. The text is compared in
/// full, so a hit is exactly what `parse` would return; failures are not
/// kept. At most [`REMEMBERED`] files are kept per thread.
pub fn parse_again<T: DeserializeOwned + Clone + 'static>(path: &Path, text: &str) -> Result<YamlFile<T>, Diagnostics> {
    let key = TypeId::of::<T>();
    let hit = PARSED
        .with_borrow(|kept| kept.iter().find(|(t, p, s, _)| *t == key && p == path && s == text).and_then(|(.., v)| v.downcast_ref::<YamlFile<T>>().cloned()));
    if let Some(file) = hit {
        return Ok(file);
    }
    let file = parse::<T>(path, text)?;
    PARSED.with_borrow_mut(|kept| {
        kept.retain(|(t, p, ..)| !(*t == key && p == path));
        if kept.len() >= REMEMBERED {
            kept.remove(0);
        }
        kept.push((key, path.to_path_buf(), text.to_string(), Rc::new(file.clone())));
    });
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_of_nested_nodes() {
        let text = "a: 1\nlist:\n  - {name: X, borders: [P, Q]}\n  - name: Y\n    borders:\n      - R\n";
        let p = Positions::build(text);
        assert_eq!(p.of("a"), (1, 4));
        assert_eq!(p.of("list/0/borders/1"), (3, 28));
        assert_eq!(p.of("list/1/name"), (4, 11));
        assert_eq!(p.of("list/1/borders/0"), (6, 9));
        assert_eq!(p.key("list/1/borders"), (5, 5));
        // A path that is not there falls back to its nearest indexed parent.
        assert_eq!(p.of("list/1/borders/7"), p.of("list/1/borders"));
        assert_eq!(p.of("list/1/borders"), (6, 7));
    }

    /// An alias or a collection used as a mapping key takes a key's turn:
    /// the key and value after it were swapped, so every later line in
    /// that mapping pointed at the wrong place (`e` at its value's line
    /// under a key `3`).
    #[test]
    fn keys_that_are_aliases_or_collections_keep_the_lines_after_them() {
        let text = "a: &k x\n*k : 1\n? [c, d]\n: 2\n? {f: g}\n: 3\ne: 4\nh:\n  i: 5\n";
        let p = Positions::build(text);
        assert_eq!(p.of("a"), (1, 4));
        assert_eq!(p.of("x"), (2, 6));
        assert_eq!(p.key("x"), (2, 1));
        assert_eq!(p.of("e"), (7, 4));
        assert_eq!(p.key("e"), (7, 1));
        assert_eq!(p.of("h/i"), (9, 6));
        // At the top level too, where the key's path is the root's join.
        let p = Positions::build("? [c, d]\n: [x]\ne: 4\n");
        assert_eq!(p.of("e"), (3, 4));
        assert_eq!(p.key("e"), (3, 1));
    }

    /// A remembered parse is returned only for the same type, path and
    /// whole text; a changed file is parsed again, and a failure is not
    /// remembered (the same text fails again, with its message).
    #[test]
    fn a_parse_is_remembered_only_for_the_same_text() {
        let path = Path::new("memo-test.yaml");
        let first = parse_again::<serde_yaml::Value>(path, "a: 1\n").unwrap();
        assert_eq!(first.value["a"], serde_yaml::Value::from(1));
        let again = parse_again::<serde_yaml::Value>(path, "a: 1\n").unwrap();
        assert_eq!(again.value, first.value);
        let changed = parse_again::<serde_yaml::Value>(path, "a: 2\n").unwrap();
        assert_eq!(changed.value["a"], serde_yaml::Value::from(2));
        assert_eq!(changed.pos.of("a"), (1, 4));
        let other = parse_again::<serde_yaml::Value>(Path::new("other.yaml"), "a: 3\n").unwrap();
        assert_eq!(other.path, Path::new("other.yaml"));
        // Another type of the same text is parsed as that type.
        assert!(parse_again::<Vec<i64>>(path, "a: 2\n").is_err());
        let bad = "a: [1\n";
        let e1 = parse_again::<serde_yaml::Value>(path, bad).unwrap_err().0.remove(0);
        let e2 = parse_again::<serde_yaml::Value>(path, bad).unwrap_err().0.remove(0);
        assert_eq!(e1, e2);
        assert_eq!(parse_again::<serde_yaml::Value>(path, "a: 2\n").unwrap().value, changed.value);
    }

    /// Issue 23 item 6: deep nesting is refused at the depth limit, in
    /// flow and block style, with the line where the file goes too deep,
    /// before serde reads it (80,000 flow levels took it 13 s).
    #[test]
    fn deep_nesting_is_refused_with_its_line() {
        let refused = |text: &str| from_str::<serde_yaml::Value>(Path::new("f.yaml"), text).unwrap_err().0.remove(0);
        let n = 80_000;
        for text in [
            format!("a: {}1{}\n", "[".repeat(n), "]".repeat(n)),
            format!("a: {}1{}\n", "{a: ".repeat(n), "}".repeat(n)),
            format!("a:\n  {}1\n", "- ".repeat(n)),
        ] {
            let err = refused(&text);
            assert!(err.message.contains("nests deeper than 64 levels") && err.line <= 2, "{err}");
        }
        // One level a line: the line named is where the file is too deep
        // (the parser's look-ahead stops flow nesting by its 256th level;
        // serde took 13.6 s over this one).
        let block: String = (0..200).map(|i| format!("{}- \n", " ".repeat(2 * i))).collect();
        let err = refused(&format!("a:\n{block}"));
        assert!(err.message.contains("nests deeper") && err.line == 65, "{err}");
        let err = refused(&format!("a: {}1\n", "[\n  ".repeat(n)));
        assert!(err.message.contains("nests deeper") && err.line > 64 && err.line < 260, "{err}");
        // The limit itself is fine (`a:` is the first level).
        let shallow = format!("a: {}1{}\n", "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        assert!(from_str::<serde_yaml::Value>(Path::new("f.yaml"), &shallow).is_ok());
        assert!(refused(&format!("a: {}1{}\n", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH))).message.contains("nests deeper"));
    }

    /// Aliases are counted expanded: a 100 kB file aliasing a 20,000-entry
    /// list 20,000 times ran serde's reader out of memory (an abort), and
    /// "a billion laughs" is refused at the alias that passes the bound.
    #[test]
    fn alias_blow_up_is_refused_with_its_line() {
        let refused = |text: &str| from_str::<serde_yaml::Value>(Path::new("f.yaml"), text).unwrap_err().0.remove(0);
        let list = vec!["1"; 20_000].join(",");
        let err = refused(&format!("a: &a [{list}]\nb: [{}]\n", vec!["*a"; 20_000].join(",")));
        assert!(err.message.contains("holds more than 1048576 values") && err.line == 2, "{err}");
        let mut laughs = String::from("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            laughs.push_str(&format!("l{i}: &l{i} [{}]\n", vec![format!("*l{}", i - 1); 9].join(", ")));
        }
        let err = refused(&laughs);
        assert!(err.message.contains("holds more than") && err.line == 7, "{err}");
        // Aliases that stay small read as before.
        let v = from_str::<serde_yaml::Value>(Path::new("f.yaml"), "a: &a [1, 2]\nb: [*a, *a]\n").unwrap();
        assert_eq!(v["b"][1][1], serde_yaml::Value::from(2));
    }

    /// A syntax error is reported by the reader that checks the shape,
    /// with its line and an excerpt of the message.
    #[test]
    fn syntax_errors_are_located() {
        let err = from_str::<serde_yaml::Value>(Path::new("f.yaml"), "a: 1\nb: {c: \"d, e: f}\n").unwrap_err().0.remove(0);
        assert!(err.message.starts_with("YAML syntax: ") && err.line == 2, "{err}");
    }

    #[test]
    fn unknown_key_is_located() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct S {
            a: u32,
        }
        let err = parse::<S>(Path::new("f.yaml"), "a: 1\nb: 2\n").err().unwrap().0.remove(0);
        assert_eq!(err.line, 2);
        assert!(err.message.contains("unknown field `b`"), "{}", err.message);
    }

    /// The probe of 2026-11-27: a scenario's misspelt key got serde's list
    /// cut mid-word by the excerpt bound and no suggestion. The list is the
    /// type's own, said whole, with the closest names.
    #[test]
    fn an_unknown_key_names_the_closest_and_every_known_key() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Long {
            province: Option<u32>,
            owner_of_the_province_named: Option<u32>,
            armies_standing_in_the_province: Option<u32>,
            unrest_markers_on_the_province: Option<u32>,
            buildings_standing_in_the_province: Option<u32>,
            winner: Option<u32>,
            transcript_contains_this_line: Option<u32>,
            transcript_does_not_contain_this_line: Option<u32>,
        }
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Outer {
            expect: Vec<Long>,
        }
        let err = parse::<Outer>(Path::new("f.yaml"), "expect:\n  - winnner: 1\n").err().unwrap().0.remove(0);
        assert!(err.message.starts_with("expect[0]: unknown field `winnner`, did you mean `winner`? (expected one of `province`, "), "{}", err.message);
        assert!(err.message.ends_with("`transcript_does_not_contain_this_line`)"), "{}", err.message);
        assert!(err.message.len() > crate::files::MAX_EXCERPT, "the list is not cut: {}", err.message);
        // Far from every name: no suggestion, the list all the same.
        let err = parse::<Outer>(Path::new("f.yaml"), "expect:\n  - zzzzzzzz: 1\n").err().unwrap().0.remove(0);
        assert!(err.message.starts_with("expect[0]: unknown field `zzzzzzzz` (expected one of `province`, "), "{}", err.message);
        // A key that holds serde's own words: the name is an excerpt with
        // its escapes shown, and the list is the type's, never the file's
        // text (the review of 2026-11-27: a terminal escape, an unbounded
        // list and a suggestion measured against megabytes).
        let sly = "\"x`, expected `\\e[2J` at line \"";
        let err = parse::<Outer>(Path::new("f.yaml"), &format!("expect:\n  - {sly}: 1\n")).err().unwrap().0.remove(0);
        assert!(!err.message.contains('\u{1b}') && err.message.contains("(expected one of `province`, "), "{}", err.message);
        let sly = format!("\"{}`, expected `{}\"", "a".repeat(400), "b".repeat(400));
        let err = parse::<Outer>(Path::new("f.yaml"), &format!("expect:\n  - {sly}: 1\n")).err().unwrap().0.remove(0);
        assert!(err.message.contains("(expected one of `province`, ") && !err.message.contains("bbbb`"), "{}", err.message);
        // The name from the file is an excerpt.
        let long = "q".repeat(5000);
        let err = parse::<Outer>(Path::new("f.yaml"), &format!("expect:\n  - {long}: 1\n")).err().unwrap().0.remove(0);
        assert!(err.message.len() < 1200, "{}", err.message.len());
    }

    /// Every misspelt key of a file that does not read is named at once,
    /// each at its own line: an entry is blanked with the lines of its
    /// value (nested, or a list at the key's indentation), never moving
    /// a line; a key that does not start its line (in a flow mapping) ends
    /// the search, as does any other problem.
    #[test]
    fn every_misspelt_key_is_reported_at_its_line() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Inner {
            min: Option<u32>,
            max: Option<u32>,
        }
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct S {
            name: String,
            options: Option<std::collections::BTreeMap<String, Inner>>,
            list: Option<Vec<u32>>,
        }
        let text = "nmae: x\nsorce:\n- 1\n- 2\noptions:\n  loss:\n    mni: 0\n    max: 3\n    extra:\n      deep: 1\n\n      deeper: 2\nname: y\nlsit: [1]\n";
        let err = parse::<S>(Path::new("f.yaml"), text).err().unwrap();
        let got: Vec<(usize, usize, &str)> = err.0.iter().map(|d| (d.line, d.column, d.message.as_str())).collect();
        assert_eq!(got.len(), 5, "{err}");
        assert_eq!((got[0].0, got[0].1), (1, 1));
        assert!(got[0].2.starts_with("unknown field `nmae`, did you mean `name`?"), "{err}");
        assert_eq!((got[1].0, got[2].0, got[3].0, got[4].0), (2, 7, 9, 14), "{err}");
        assert!(got[2].2.starts_with("options.loss: unknown field `mni`, did you mean `min`?"), "{err}");
        assert!(got[3].2.contains("unknown field `extra`") && got[4].2.contains("unknown field `lsit`, did you mean `list`?"), "{err}");
        // In a flow mapping the key does not start its line: one report.
        let err = parse::<S>(Path::new("f.yaml"), "{nmae: x, lsit: [1]}\nsorce: 1\n").err().unwrap();
        assert_eq!(err.0.len(), 1, "{err}");
        // Another problem after the first unknown key is not reported (it
        // may be the blanking's doing); the file's own first error is.
        let err = parse::<S>(Path::new("f.yaml"), "sorce: 1\nname: [1]\n").err().unwrap();
        assert_eq!(err.0.len(), 1, "{err}");
        // At most 20.
        let many: String = (0..40).map(|i| format!("k{i}: 1\n")).collect();
        assert_eq!(parse::<S>(Path::new("f.yaml"), &many).err().unwrap().0.len(), UNKNOWN_KEYS);
        // The review of 2026-11-27. Blanking a key may turn the rest of a
        // quoted text into keys: they are not the file's, so not reported.
        let err = parse::<S>(Path::new("f.yaml"), "name: x\nnmae: \"a long text\nthat wraps: here\"\n").err().unwrap();
        assert_eq!(err.0.len(), 1, "{err}");
        // ... or into a structure nested past the reader's bound: the
        // blanked text is checked as the file was, and the search ends.
        let deep = format!("name: x\nk0: \"\nk1: 1\nlist: {}{}\n# \"\n", "[".repeat(100), "]".repeat(100));
        let err = parse::<S>(Path::new("f.yaml"), &deep).err().unwrap();
        assert_eq!(err.0.len(), 1, "{err}");
        // Lines broken by a lone CR, NEL, LS or PS: the reader counts them,
        // `blank_entry` would not, so only the first error is reported.
        for text in ["nmae: 1\rlsit: [1]\nsorce: 2\n", "name: \"a\u{2028}b\"\nnmae: 1\nlsit: [1]\n"] {
            let err = parse::<S>(Path::new("f.yaml"), text).err().unwrap();
            assert_eq!(err.0.len(), 1, "{text:?}: {err}");
        }
        // CRLF lines are blanked as lines.
        let err = parse::<S>(Path::new("f.yaml"), "nmae: x\r\nname: y\r\nlsit: [1]\r\n").err().unwrap();
        assert_eq!(err.0.iter().map(|d| d.line).collect::<Vec<_>>(), [1, 3], "{err}");
        // A string that quotes serde's words is not taken for a key.
        let err = parse::<S>(Path::new("f.yaml"), "name: x\nlist: [\": unknown field `\"]\nlsit: 1\n").err().unwrap();
        assert_eq!(err.0.len(), 1, "{err}");
    }
}
