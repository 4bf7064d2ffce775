//! YAML reading with positions: serde for the typed structure (unknown keys
//! rejected, with their line), and a position index so that later semantic
//! checks (an unknown province name, a one-sided border) can point at the
//! exact line and column too.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

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
    pub file: PathBuf,
    pub line: usize,
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
        write!(f, "{}:{}:{}: {}: {}", self.file.display(), self.line, self.column, sev, self.message)
    }
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
    pub fn error(&mut self, file: &Path, (line, column): (usize, usize), message: impl Into<String>) {
        self.0.push(Diagnostic { file: file.to_path_buf(), line, column, severity: Severity::Error, message: message.into() });
    }
    pub fn warning(&mut self, file: &Path, (line, column): (usize, usize), message: impl Into<String>) {
        self.0.push(Diagnostic { file: file.to_path_buf(), line, column, severity: Severity::Warning, message: message.into() });
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

/// Where each node of a YAML document starts, by path (`provinces/3/borders/1`).
/// Mapping keys are also indexed, under the path of their value plus `@key`.
#[derive(Default, Debug, Clone)]
pub struct Positions {
    at: HashMap<String, (usize, usize)>,
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
        for item in Parser::new_from_str(text) {
            let Ok((event, span)) = item else { break };
            let mark = (span.start.line(), span.start.col() + 1);
            match event {
                Event::Scalar(value, ..) => {
                    let is_key = matches!(stack.last(), Some((_, Frame::Map { key: None })));
                    if is_key {
                        let (p, frame) = stack.last_mut().unwrap();
                        let full = join(p, &value);
                        pos.at.insert(format!("{full}@key"), mark);
                        pos.at.entry(full).or_insert(mark);
                        if let Frame::Map { key } = frame {
                            *key = Some(value.to_string());
                        }
                    } else if let Some(path) = next_path(&mut stack, &root) {
                        pos.at.insert(path, mark);
                    }
                }
                Event::Alias(_) => {
                    if let Some(path) = next_path(&mut stack, &root) {
                        pos.at.insert(path, mark);
                    }
                }
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    let is_key = matches!(stack.last(), Some((_, Frame::Map { key: None })));
                    let path = if is_key { String::from("?complex-key") } else { next_path(&mut stack, &root).unwrap_or_default() };
                    pos.at.insert(path.clone(), mark);
                    let frame = if matches!(event, Event::SequenceStart(..)) { Frame::Seq(0) } else { Frame::Map { key: None } };
                    stack.push((path, frame));
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    stack.pop();
                }
                Event::DocumentStart(_) => root.clear(),
                _ => {}
            }
        }
        pos
    }

    /// Line and column (1-based) of the node at `path`, or of the nearest
    /// enclosing node that is indexed.
    pub fn of(&self, path: &str) -> (usize, usize) {
        let mut p = path;
        loop {
            if let Some(m) = self.at.get(p) {
                return *m;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.at.get("").copied().unwrap_or((1, 1)),
            }
        }
    }

    /// Position of a mapping key (falls back to its value, then upwards).
    pub fn key(&self, path: &str) -> (usize, usize) {
        self.at.get(&format!("{path}@key")).copied().unwrap_or_else(|| self.of(path))
    }
}

fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() { child.to_string() } else { format!("{parent}/{child}") }
}

/// A parsed YAML file: its typed content and its position index.
pub struct YamlFile<T> {
    pub path: PathBuf,
    pub value: T,
    pub pos: Positions,
}

/// Parses `text` (read from `path`) into `T`, or reports where and why not.
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<YamlFile<T>, Diagnostic> {
    match serde_yaml::from_str::<T>(text) {
        Ok(value) => Ok(YamlFile { path: path.to_path_buf(), value, pos: Positions::build(text) }),
        Err(e) => {
            let (line, column) = e.location().map(|l| (l.line(), l.column())).unwrap_or((1, 1));
            let mut message = e.to_string();
            // serde_yaml appends " at line X column Y"; we print it in front.
            if let Some(i) = message.find(" at line ") {
                message.truncate(i);
            }
            Err(Diagnostic { file: path.to_path_buf(), line, column, severity: Severity::Error, message })
        }
    }
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

    #[test]
    fn unknown_key_is_located() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct S {
            a: u32,
        }
        let err = parse::<S>(Path::new("f.yaml"), "a: 1\nb: 2\n").err().unwrap();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("unknown field `b`"), "{}", err.message);
    }
}
