//! Variants: named overlays on a rules pack and map.
//!
//! A variant lives in `variants/<name>/variant.yaml` with optional Lua
//! files beside it. Its overlays edit the base YAML documents before they
//! are read (see docs/variants.md for the merge semantics):
//!
//! * `set: {path, value}` replaces the value at `path` (which must exist);
//! * `add: {path, value}` appends `value` to the list at `path`, or creates
//!   the mapping key `path` (which must not exist yet);
//! * `remove: {path}` deletes the mapping key or list element at `path`.
//!
//! A path is a dotted list of keys; `[3]` picks a list element by index and
//! `[id=9]` the element whose field `id` equals `9`. A string value that is
//! exactly `$name` becomes the value of the variant's option `name`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_yaml::{Mapping, Value};

use std::sync::Arc;

use super::yaml::{self, Diagnostics, Loc, Positions, YamlFile};

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    pub name: String,
    /// One paragraph: what the variant changes and why.
    pub description: String,
    /// Where the rule comes from (rulebook, designer, forum thread...).
    pub source: String,
    /// The rules pack it applies to.
    pub extends: String,
    #[serde(default)]
    pub options: BTreeMap<String, OptionSpec>,
    #[serde(default)]
    pub overlay: Overlays,
    #[serde(default)]
    pub lua: Vec<String>,
    /// Variants whose Lua replacements this one may replace again.
    #[serde(default)]
    pub overrides: Vec<String>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    /// Written as a whole number (`2`), the option takes whole numbers
    /// only; written with a point (`0.5`, `1.0`), any number in range.
    pub default: OptionDefault,
    pub description: String,
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
}

/// An option's default, as its file writes it: its form says whether the
/// option takes fractions (a count of rice or points does not: `1.5`
/// would reach a rule that adds whole rice, and fail there).
#[derive(Debug, Clone, Copy)]
pub enum OptionDefault {
    Whole(i64),
    Real(f64),
}

impl<'de> Deserialize<'de> for OptionDefault {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Number;
        impl serde::de::Visitor<'_> for Number {
            type Value = OptionDefault;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number (an integer such as 2 for an option of whole numbers, or one with a point such as 0.5 or 2.0)")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<OptionDefault, E> {
                Ok(OptionDefault::Whole(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<OptionDefault, E> {
                i64::try_from(v).map(OptionDefault::Whole).map_err(|_| E::custom(format!("{v} is too large for an option")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<OptionDefault, E> {
                Ok(OptionDefault::Real(v))
            }
        }
        d.deserialize_any(Number)
    }
}

impl OptionDefault {
    pub fn value(self) -> f64 {
        match self {
            OptionDefault::Whole(n) => n as f64,
            OptionDefault::Real(x) => x,
        }
    }

    /// Whether the option takes whole numbers only.
    pub fn whole(self) -> bool {
        matches!(self, OptionDefault::Whole(_))
    }
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct Overlays {
    /// Edits of the pack's rules.yaml.
    #[serde(default)]
    pub rules: Vec<Op>,
    /// Edits of the pack's cards.yaml.
    #[serde(default)]
    pub cards: Vec<Op>,
    /// Edits of the map.
    #[serde(default)]
    pub map: Vec<Op>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(try_from = "OpRaw")]
pub enum Op {
    Set(ValueOp),
    Add(ValueOp),
    Remove(PathOp),
}

/// `- set: {...}`, `- add: {...}` or `- remove: {...}`: one key each.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpRaw {
    #[serde(default)]
    set: Option<ValueOp>,
    #[serde(default)]
    add: Option<ValueOp>,
    #[serde(default)]
    remove: Option<PathOp>,
}

impl TryFrom<OpRaw> for Op {
    type Error = String;
    fn try_from(r: OpRaw) -> Result<Op, String> {
        match (r.set, r.add, r.remove) {
            (Some(o), None, None) => Ok(Op::Set(o)),
            (None, Some(o), None) => Ok(Op::Add(o)),
            (None, None, Some(o)) => Ok(Op::Remove(o)),
            _ => Err("each overlay entry is exactly one of `set`, `add` or `remove`".into()),
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ValueOp {
    pub path: String,
    pub value: Value,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct PathOp {
    pub path: String,
}

/// A variant asked for on the command line: `name` or `name:k=v,k=v`.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantArg {
    pub name: String,
    pub options: Vec<(String, f64)>,
    /// Where the options were given, for messages about them: the flag
    /// and value as typed (`--variant hard-winter:loss=99`) or a file
    /// position (`tests/x.yaml:4:10`). `None`: the variant's own file is
    /// named.
    pub given: Option<String>,
}

impl std::str::FromStr for VariantArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, rest) = match s.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (s, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(format!("`{s}`: a variant name is letters, digits, `-` and `_` (then `:option=value,...`)"));
        }
        let mut options = Vec::new();
        for kv in rest.into_iter().flat_map(|r| r.split(',')).filter(|kv| !kv.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("`{kv}` in `{s}`: options are written `name=value`"))?;
            let v: f64 = v.trim().trim_start_matches('+').parse().map_err(|_| format!("`{kv}` in `{s}`: the value must be a number"))?;
            options.push((k.trim().to_string(), v));
        }
        Ok(VariantArg { name: name.to_string(), options, given: None })
    }
}

/// A variant after loading: what it is and the options in force.
#[derive(Clone, Debug)]
pub struct LoadedVariant {
    pub name: String,
    pub description: String,
    pub source: String,
    pub dir: PathBuf,
    pub options: BTreeMap<String, f64>,
    pub overrides: Vec<String>,
    /// SHA-256 of variant.yaml as read (the lab's provenance).
    pub sha256: String,
}

impl LoadedVariant {
    /// `name` or `name(k=v,...)`.
    pub fn canonical(&self) -> String {
        if self.options.is_empty() {
            return self.name.clone();
        }
        let mut s = format!("{}(", self.name);
        for (i, (k, v)) in self.options.iter().enumerate() {
            let _ = write!(s, "{}{k}={}", if i > 0 { "," } else { "" }, fmt_num(*v));
        }
        s.push(')');
        s
    }
}

pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

/// The file that makes a folder a variant.
pub const FILE: &str = "variant.yaml";

/// Whether a folder is a variant: it holds a variant.yaml (the one place
/// that says what makes a folder a variant).
pub fn is_variant(dir: &Path) -> bool {
    dir.join(FILE).is_file()
}

/// The variants found under `dir` (folders with a variant.yaml), sorted.
pub fn available(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).filter(|e| is_variant(&e.path())).filter_map(|e| e.file_name().to_str().map(String::from)).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn num(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 { Value::Number((v as i64).into()) } else { Value::Number(v.into()) }
}

/// Replaces `$option` strings in `v` by the option's value.
fn substitute(v: &Value, options: &BTreeMap<String, f64>) -> Result<Value, String> {
    Ok(match v {
        Value::String(s) if s.starts_with('$') => {
            let key = &s[1..];
            num(*options.get(key).ok_or_else(|| format!("`{s}` names no option of this variant"))?)
        }
        Value::Sequence(items) => Value::Sequence(items.iter().map(|i| substitute(i, options)).collect::<Result<_, _>>()?),
        Value::Mapping(m) => {
            let mut out = Mapping::new();
            for (k, v) in m {
                out.insert(k.clone(), substitute(v, options)?);
            }
            Value::Mapping(out)
        }
        other => other.clone(),
    })
}

#[derive(Debug)]
enum Seg {
    Key(String),
    Index(usize),
    Field(String, String),
}

fn parse_path(path: &str) -> Result<Vec<Seg>, String> {
    let mut segs = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            segs.push(Seg::Key(key.to_string()));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').ok_or_else(|| format!("path `{path}`: missing `]`"))?;
            let inner = &r[..end];
            match inner.split_once('=') {
                Some((f, v)) => segs.push(Seg::Field(f.trim().to_string(), v.trim().to_string())),
                None => segs.push(Seg::Index(inner.trim().parse().map_err(|_| format!("path `{path}`: `[{inner}]` is neither an index nor field=value"))?)),
            }
            rest = &r[end + 1..];
        }
        if !rest.is_empty() {
            return Err(format!("path `{path}`: unexpected `{rest}`"));
        }
        if key.is_empty() && part.is_empty() {
            return Err(format!("path `{path}`: empty segment"));
        }
    }
    if segs.is_empty() {
        return Err("empty path".into());
    }
    Ok(segs)
}

fn key_value(m: &Mapping, k: &str) -> Option<Value> {
    let s = Value::String(k.to_string());
    if m.contains_key(&s) {
        return Some(s);
    }
    if let Ok(n) = k.parse::<i64>() {
        let n = Value::Number(n.into());
        if m.contains_key(&n) {
            return Some(n);
        }
    }
    None
}

/// `, did you mean `per_province`?` for a key the mapping lacks (the keys
/// it has that are a few edits away), or nothing.
fn near(m: &Mapping, k: &str) -> String {
    let keys: Vec<String> = m.keys().filter_map(|x| x.as_str().map(String::from)).collect();
    super::map::suggest(k, keys.iter())
}

fn scalar_eq(v: &Value, want: &str) -> bool {
    match v {
        Value::String(s) => s == want,
        Value::Number(n) => n.to_string() == want,
        Value::Bool(b) => b.to_string() == want,
        _ => false,
    }
}

/// One step of a path as it was found in the document: the key as the
/// document spells it, or the index (a `[field=value]` selector resolved).
#[derive(Clone, Debug, PartialEq)]
pub enum Found {
    Key(String),
    Index(usize),
}

/// A mapping key as a path segment (as the position index spells it).
fn key_text(k: &Value) -> String {
    match k {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::from("?"),
    }
}

fn step<'a>(v: &'a mut Value, seg: &Seg, path: &str, found: &mut Vec<Found>) -> Result<&'a mut Value, String> {
    match (seg, v) {
        (Seg::Key(k), Value::Mapping(m)) => {
            let key = key_value(m, k).ok_or_else(|| format!("`{path}`: the base has no key `{k}` here{}", near(m, k)))?;
            found.push(Found::Key(key_text(&key)));
            Ok(m.get_mut(&key).unwrap())
        }
        (Seg::Index(i), Value::Sequence(s)) => {
            let n = s.len();
            found.push(Found::Index(*i));
            s.get_mut(*i).ok_or_else(|| format!("`{path}`: index {i} is past the end of a list of {n}"))
        }
        (Seg::Field(f, want), Value::Sequence(s)) => {
            let i = s
                .iter()
                .position(|item| item.as_mapping().and_then(|m| m.get(Value::String(f.clone()))).is_some_and(|x| scalar_eq(x, want)))
                .ok_or_else(|| format!("`{path}`: no list element with {f} = {want}"))?;
            found.push(Found::Index(i));
            Ok(&mut s[i])
        }
        (seg, v) => Err(format!("`{path}`: {} cannot be applied to {}", describe_seg(seg), describe_value(v))),
    }
}

fn describe_seg(seg: &Seg) -> String {
    match seg {
        Seg::Key(k) => format!("the key `{k}`"),
        Seg::Index(i) => format!("the index [{i}]"),
        Seg::Field(f, v) => format!("the selector [{f}={v}]"),
    }
}

fn describe_value(v: &Value) -> &'static str {
    match v {
        Value::Mapping(_) => "a mapping",
        Value::Sequence(_) => "a list",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "nothing",
        _ => "a tagged value",
    }
}

/// What an operation did to a document, by the path it found (for
/// [`Origin::follow`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// The node at the path was replaced.
    Replace(Vec<Found>),
    /// A value was appended to the list at the path.
    Push(Vec<Found>),
    /// The mapping at the path got a new key.
    Insert(Vec<Found>, String),
    /// The key or element (the last step) was removed.
    Remove(Vec<Found>),
}

/// Applies one operation to a document; says what it changed.
pub fn apply(doc: &mut Value, op: &Op, options: &BTreeMap<String, f64>) -> Result<Edit, String> {
    let (path, value) = match op {
        Op::Set(o) | Op::Add(o) => (o.path.as_str(), Some(substitute(&o.value, options)?)),
        Op::Remove(o) => (o.path.as_str(), None),
    };
    let segs = parse_path(path)?;
    let (last, parents) = segs.split_last().unwrap();
    let mut found = Vec::new();
    let mut cur = doc;
    for seg in parents {
        cur = step(cur, seg, path, &mut found)?;
    }
    Ok(match op {
        Op::Set(_) => {
            let target = step(cur, last, path, &mut found)?;
            *target = value.unwrap();
            Edit::Replace(found)
        }
        Op::Add(_) => match (last, &mut *cur) {
            (Seg::Key(k), Value::Mapping(m)) => {
                if let Some(key) = key_value(m, k) {
                    match m.get_mut(&key).unwrap() {
                        Value::Sequence(list) => list.push(value.unwrap()),
                        _ => return Err(format!("`{path}`: the base already has `{k}`; use `set` to change it")),
                    }
                    found.push(Found::Key(key_text(&key)));
                    Edit::Push(found)
                } else {
                    m.insert(Value::String(k.clone()), value.unwrap());
                    Edit::Insert(found, k.clone())
                }
            }
            _ => {
                let target = step(cur, last, path, &mut found)?;
                match target {
                    Value::Sequence(list) => list.push(value.unwrap()),
                    _ => return Err(format!("`{path}`: `add` appends to a list or creates a new key")),
                }
                Edit::Push(found)
            }
        },
        Op::Remove(_) => {
            match (last, cur) {
                (Seg::Key(k), Value::Mapping(m)) => {
                    let key = key_value(m, k).ok_or_else(|| format!("`{path}`: the base has no key `{k}` to remove{}", near(m, k)))?;
                    m.remove(&key);
                    found.push(Found::Key(key_text(&key)));
                }
                (Seg::Index(i), Value::Sequence(s)) => {
                    if *i >= s.len() {
                        return Err(format!("`{path}`: index {i} is past the end of a list of {}", s.len()));
                    }
                    s.remove(*i);
                    found.push(Found::Index(*i));
                }
                (Seg::Field(f, want), Value::Sequence(s)) => {
                    let i = s
                        .iter()
                        .position(|item| item.as_mapping().and_then(|m| m.get(Value::String(f.clone()))).is_some_and(|x| scalar_eq(x, want)))
                        .ok_or_else(|| format!("`{path}`: no list element with {f} = {want}"))?;
                    s.remove(i);
                    found.push(Found::Index(i));
                }
                (seg, v) => return Err(format!("`{path}`: {} cannot be applied to {}", describe_seg(seg), describe_value(v))),
            }
            Edit::Remove(found)
        }
    })
}

/// Where each node of a document came from, shaped as the document: built
/// from the base file's positions, it follows each overlay's edit, so a
/// value a variant put in is placed in the variant's file (and a base
/// value after a removal keeps its own line). [`Origin::positions`] gives
/// the index the checks after the overlays report with.
#[derive(Clone, Debug)]
pub struct Origin {
    at: Loc,
    /// For a mapping's value: where its key is.
    key: Option<Loc>,
    kids: Kids,
}

#[derive(Clone, Debug)]
enum Kids {
    Leaf,
    List(Vec<Origin>),
    Map(Vec<(String, Origin)>),
}

impl Origin {
    /// The origin of `value`, whose node is at `path` in `pos`; `file`
    /// names the file when `pos` is not the document's own.
    pub fn of(value: &Value, pos: &Positions, path: &str, file: Option<&Arc<Path>>) -> Origin {
        let place = |l: Loc| match file {
            Some(f) => l.in_file(f),
            None => l,
        };
        let kids = match value {
            Value::Sequence(items) => Kids::List(items.iter().enumerate().map(|(i, x)| Origin::of(x, pos, &yaml::join(path, &i.to_string()), file)).collect()),
            Value::Mapping(m) => Kids::Map(
                m.iter()
                    .map(|(k, x)| {
                        let k = key_text(k);
                        let child = yaml::join(path, &k);
                        let mut o = Origin::of(x, pos, &child, file);
                        o.key = Some(place(pos.key(&child)));
                        (k, o)
                    })
                    .collect(),
            ),
            _ => Kids::Leaf,
        };
        Origin { at: place(pos.of(path)), key: None, kids }
    }

    fn get_mut(&mut self, path: &[Found]) -> Option<&mut Origin> {
        let mut cur = self;
        for f in path {
            cur = match (f, &mut cur.kids) {
                (Found::Key(k), Kids::Map(m)) => m.iter_mut().find(|(x, _)| x == k).map(|(_, o)| o)?,
                (Found::Index(i), Kids::List(l)) => l.get_mut(*i)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// Follows `edit` (as [`apply`] made it) with `new`, the origin of the
    /// value it put in (unused for a removal); `key` is where a new key is
    /// written.
    pub fn follow(&mut self, edit: &Edit, new: Origin, key: Loc) {
        match edit {
            Edit::Replace(path) => {
                if let Some(o) = self.get_mut(path) {
                    let key = o.key.take();
                    *o = Origin { key, ..new };
                }
            }
            Edit::Push(path) => {
                if let Some(Origin { kids: Kids::List(l), .. }) = self.get_mut(path) {
                    l.push(new);
                }
            }
            Edit::Insert(path, k) => {
                if let Some(Origin { kids: Kids::Map(m), .. }) = self.get_mut(path) {
                    m.push((k.clone(), Origin { key: Some(key), ..new }));
                }
            }
            Edit::Remove(path) => {
                let Some((last, parent)) = path.split_last() else { return };
                match (last, self.get_mut(parent).map(|o| &mut o.kids)) {
                    (Found::Key(k), Some(Kids::Map(m))) => m.retain(|(x, _)| x != k),
                    (Found::Index(i), Some(Kids::List(l))) if *i < l.len() => {
                        l.remove(*i);
                    }
                    _ => {}
                }
            }
        }
    }

    /// The position index of the document as it is now.
    pub fn positions(&self) -> Positions {
        let mut pos = Positions::default();
        self.index(String::new(), &mut pos);
        pos
    }

    fn index(&self, path: String, pos: &mut Positions) {
        match &self.kids {
            Kids::Leaf => {}
            Kids::List(l) => {
                for (i, o) in l.iter().enumerate() {
                    o.index(yaml::join(&path, &i.to_string()), pos);
                }
            }
            Kids::Map(m) => {
                for (k, o) in m {
                    o.index(yaml::join(&path, k), pos);
                }
            }
        }
        pos.set(path, self.at.clone(), self.key.clone());
    }
}

/// Reads a variant and resolves its options; reports problems.
pub fn read(dir: &Path, arg: &VariantArg, diags: &mut Diagnostics) -> Option<(YamlFile<VariantFile>, LoadedVariant)> {
    let path = dir.join(FILE);
    let text = match crate::files::read_text(&path) {
        Ok(t) => t,
        Err(e) => {
            diags.push(super::unreadable(&path, &e));
            return None;
        }
    };
    let file = match yaml::parse::<VariantFile>(&path, &text) {
        Ok(f) => f,
        Err(d) => {
            diags.append(d);
            return None;
        }
    };
    let v = &file.value;
    if v.name != arg.name {
        diags.error(&path, file.pos.of("name"), format!("the variant in folder `{}` calls itself `{}`", arg.name, v.name));
    }
    for (k, o) in &v.options {
        let default = o.default.value();
        let finite = default.is_finite() && o.min.is_none_or(f64::is_finite) && o.max.is_none_or(f64::is_finite);
        if !finite || o.min.is_some_and(|m| default < m) || o.max.is_some_and(|m| default > m) || o.min.zip(o.max).is_some_and(|(lo, hi)| lo > hi) {
            diags.error(
                &path,
                file.pos.of(&format!("options/{k}")),
                format!(
                    "option `{k}`: default {} must be a number within min..max ({}..{})",
                    fmt_num(default),
                    o.min.map(fmt_num).unwrap_or_default(),
                    o.max.map(fmt_num).unwrap_or_default()
                ),
            );
        }
    }
    let mut options: BTreeMap<String, f64> = v.options.iter().map(|(k, o)| (k.clone(), o.default.value())).collect();
    // An option's value is the caller's (the command line, a scenario):
    // reported there when it says where, with where the variant defines
    // what it takes.
    let mut wrong = |at: yaml::Loc, message: String, known: &str| match &arg.given {
        Some(g) => diags.push(yaml::Diagnostic::file(Path::new(g), format!("{message} ({known}as {}:{}:{} defines it)", path.display(), at.line, at.column))),
        None => diags.error(&path, at, format!("{message}{}", if known.is_empty() { String::new() } else { format!(" ({})", known.trim_end_matches("; ")) })),
    };
    for (k, val) in &arg.options {
        match v.options.get(k) {
            None => {
                let known: Vec<String> = v.options.keys().cloned().collect();
                wrong(
                    file.pos.of("options"),
                    format!("variant `{}` has no option `{k}`{}", v.name, super::map::suggest(k, known.iter())),
                    &format!("options: {}; ", if known.is_empty() { "none".into() } else { known.join(", ") }),
                );
            }
            Some(spec) => {
                let at = file.pos.of(&format!("options/{k}"));
                if !val.is_finite() {
                    wrong(at, format!("option `{k}` of `{}` is {val}, expected a number", v.name), "");
                } else if spec.default.whole() && val.fract() != 0.0 {
                    let d = fmt_num(spec.default.value());
                    wrong(at, format!("option `{k}` of `{}` takes whole numbers, not {} (its default, {d}, is a whole number)", v.name, fmt_num(*val)), "");
                } else if spec.min.is_some_and(|m| *val < m) || spec.max.is_some_and(|m| *val > m) {
                    let range = match (spec.min, spec.max) {
                        (Some(lo), Some(hi)) => format!("{}..={}", fmt_num(lo), fmt_num(hi)),
                        (Some(lo), None) => format!("at least {}", fmt_num(lo)),
                        (None, hi) => format!("at most {}", hi.map(fmt_num).unwrap_or_default()),
                    };
                    wrong(at, format!("option `{k}` of `{}` is {}, expected {range}", v.name, fmt_num(*val)), "");
                } else {
                    // A refused value is not applied: its overlays would
                    // only fail again, further from what was typed.
                    options.insert(k.clone(), *val);
                }
            }
        }
    }
    let loaded = LoadedVariant {
        name: v.name.clone(),
        description: v.description.clone(),
        source: v.source.clone(),
        dir: dir.to_path_buf(),
        options,
        overrides: v.overrides.clone(),
        sha256: super::sha256(text.as_bytes()),
    };
    Some((file, loaded))
}
