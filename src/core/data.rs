//! A question's data: plain data (nil, booleans, numbers, strings, lists
//! and string-keyed maps) kept in the state, made from the script's table
//! when it asks and handed to the continuation as a new table.
//!
//! Compact: one list of nodes in pre-order and one string holding every
//! key and string longer than `SHORT` bytes (shorter ones sit in their
//! nodes), so a question's data costs at most two allocations to make,
//! clone and drop, however many entries it has (one when its strings are
//! short, as most keys are). A map's entries are kept
//! in the order of their keys' bytes: the order they are printed and saved
//! in (the JSON of a save is that of a map sorted by key) and handed to
//! Lua in.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;

/// One value, or the head of a list or map whose items follow it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Node {
    Nil,
    Bool(bool),
    Int(i64),
    /// Finite (no NaN or infinity: JSON has none).
    Float(f64),
    /// `text[at..at + len]`.
    Str {
        at: usize,
        len: usize,
    },
    /// A string of at most `SHORT` bytes, kept in the node itself (most
    /// keys and names: data of such strings needs no `text`).
    Short {
        len: u8,
        bytes: [u8; SHORT],
    },
    /// `len` items follow, taking `size` nodes in all.
    List {
        len: u32,
        size: u32,
    },
    /// `len` entries follow, each a key (a `Str`) then its value, taking
    /// `size` nodes in all; keys in the order of their bytes, each once.
    Map {
        len: u32,
        size: u32,
    },
}

/// The longest string a node holds in place: what fits beside the tag
/// in the size the other nodes take anyway.
const SHORT: usize = 22;
const _: () = assert!(std::mem::size_of::<Node>() == 24);

/// The node of string `s`: in place when short, else its bytes added to
/// `text`.
fn string_node(text: &mut String, s: &str) -> Node {
    if s.len() <= SHORT {
        let mut bytes = [0u8; SHORT];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        return Node::Short { len: s.len() as u8, bytes };
    }
    let at = text.len();
    text.push_str(s);
    Node::Str { at, len: s.len() }
}

/// The string of node `at` ("" for a node that is not one).
fn node_str<'a>(nodes: &'a [Node], text: &'a str, at: usize) -> &'a str {
    match &nodes[at] {
        Node::Str { at, len } => &text[*at..*at + *len],
        Node::Short { len, bytes } => {
            let bytes = &bytes[..usize::from(*len)];
            // SAFETY: `string_node` made these bytes, the first `len`
            // bytes of a `&str` whole: valid UTF-8.
            unsafe { std::str::from_utf8_unchecked(bytes) }
        }
        _ => "",
    }
}

/// A question's data (see the module). The default is nil.
#[derive(Clone, Default)]
pub struct AskData {
    /// Empty for nil, else the root first.
    nodes: Vec<Node>,
    text: String,
}

/// A value of `AskData`, read in place.
#[derive(Clone, Copy, Debug)]
pub enum DataRef<'a> {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
    List(Items<'a>),
    /// Its entries' keys in byte order.
    Map(Items<'a>),
}

/// One node as `AskData::node` reads it: a list's or map's head says
/// only how many items or entries follow it (a map's each a `Str` key,
/// then its value).
#[derive(Clone, Copy, Debug)]
pub enum NodeRef<'a> {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
    List(usize),
    Map(usize),
}

/// A list's items or a map's entries, in order.
#[derive(Clone, Copy, Debug)]
pub struct Items<'a> {
    data: &'a AskData,
    /// The first node after the head.
    first: usize,
    len: usize,
    map: bool,
}

impl<'a> Items<'a> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The items (a map's: its keys, each with its value).
    pub fn iter(&self) -> impl Iterator<Item = (Option<&'a str>, DataRef<'a>)> + 'a {
        let (data, map) = (self.data, self.map);
        let mut at = self.first;
        (0..self.len).map(move |_| {
            let key = map.then(|| {
                let k = data.str_at(at);
                at += 1;
                k
            });
            let v = data.get(at);
            at += 1 + data.size(at);
            (key, v)
        })
    }
}

/// A value without items: what a flat map holds (`AskData::flat_map`).
#[derive(Clone, Copy, Debug)]
pub enum Scalar<'a> {
    Bool(bool),
    Int(i64),
    /// Finite (the caller refuses others).
    Float(f64),
    Str(&'a str),
}

impl AskData {
    /// A map whose values are all scalars, made at once: the same value
    /// `Builder` makes of these entries (`entries` in any order, their keys
    /// distinct; put in byte order here). No entries: an empty list.
    pub fn flat_map(entries: &mut [(&str, Scalar<'_>)]) -> AskData {
        if entries.is_empty() {
            return AskData { nodes: vec![Node::List { len: 0, size: 0 }], text: String::new() };
        }
        // Few entries (the common data has one to six): an insertion sort.
        for i in 1..entries.len() {
            let mut j = i;
            while j > 0 && entries[j - 1].0.as_bytes() > entries[j].0.as_bytes() {
                entries.swap(j - 1, j);
                j -= 1;
            }
        }
        let long = |s: &str| if s.len() > SHORT { s.len() } else { 0 };
        let text_len = entries.iter().map(|(k, v)| long(k) + if let Scalar::Str(s) = v { long(s) } else { 0 }).sum();
        let mut text = String::with_capacity(text_len);
        let mut nodes = Vec::with_capacity(1 + 2 * entries.len());
        nodes.push(Node::Map { len: entries.len() as u32, size: 2 * entries.len() as u32 });
        for &(k, v) in entries.iter() {
            nodes.push(string_node(&mut text, k));
            nodes.push(match v {
                Scalar::Bool(b) => Node::Bool(b),
                Scalar::Int(i) => Node::Int(i),
                Scalar::Float(f) => Node::Float(f),
                Scalar::Str(s) => string_node(&mut text, s),
            });
        }
        AskData { nodes, text }
    }
}

impl AskData {
    /// The whole value.
    pub fn root(&self) -> DataRef<'_> {
        if self.nodes.is_empty() { DataRef::Nil } else { self.get(0) }
    }

    /// `data[key]` when the data is a map holding an integer there.
    pub fn int(&self, key: &str) -> Option<i64> {
        let Some(&Node::Map { len, .. }) = self.nodes.first() else { return None };
        let mut at = 1;
        for _ in 0..len {
            let found = self.str_at(at) == key;
            at += 1;
            match self.nodes[at] {
                Node::Int(i) if found => return Some(i),
                _ if found => return None,
                Node::List { size, .. } | Node::Map { size, .. } => at += 1 + size as usize,
                _ => at += 1,
            }
        }
        None
    }

    /// The node at `at` and the index after it and all it holds: for
    /// walking the nodes in order without `DataRef`s (`Lua`'s push).
    pub fn node(&self, at: usize) -> Option<(NodeRef<'_>, usize)> {
        Some(match *self.nodes.get(at)? {
            Node::Nil => (NodeRef::Nil, at + 1),
            Node::Bool(b) => (NodeRef::Bool(b), at + 1),
            Node::Int(i) => (NodeRef::Int(i), at + 1),
            Node::Float(f) => (NodeRef::Float(f), at + 1),
            Node::Str { .. } | Node::Short { .. } => (NodeRef::Str(self.str_at(at)), at + 1),
            Node::List { len, size } => (NodeRef::List(len as usize), at + 1 + size as usize),
            Node::Map { len, size } => (NodeRef::Map(len as usize), at + 1 + size as usize),
        })
    }

    /// The data as JSON (tests, tools).
    pub fn to_json(&self) -> Json {
        json_of(self.root())
    }

    /// Plain data from JSON (a save's).
    pub fn from_json(j: &Json) -> AskData {
        let mut b = Builder::default();
        b.json(j);
        b.finish()
    }

    fn get(&self, at: usize) -> DataRef<'_> {
        match self.nodes[at] {
            Node::Nil => DataRef::Nil,
            Node::Bool(b) => DataRef::Bool(b),
            Node::Int(i) => DataRef::Int(i),
            Node::Float(f) => DataRef::Float(f),
            Node::Str { .. } | Node::Short { .. } => DataRef::Str(self.str_at(at)),
            Node::List { len, .. } => DataRef::List(Items { data: self, first: at + 1, len: len as usize, map: false }),
            Node::Map { len, .. } => DataRef::Map(Items { data: self, first: at + 1, len: len as usize, map: true }),
        }
    }

    fn str_at(&self, at: usize) -> &str {
        node_str(&self.nodes, &self.text, at)
    }

    /// The nodes after `at` that belong to it.
    fn size(&self, at: usize) -> usize {
        match self.nodes[at] {
            Node::List { size, .. } | Node::Map { size, .. } => size as usize,
            _ => 0,
        }
    }
}

fn json_of(v: DataRef<'_>) -> Json {
    match v {
        DataRef::Nil => Json::Null,
        DataRef::Bool(b) => Json::Bool(b),
        DataRef::Int(i) => Json::from(i),
        DataRef::Float(f) => serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number),
        DataRef::Str(s) => Json::String(s.to_string()),
        DataRef::List(items) => Json::Array(items.iter().map(|(_, v)| json_of(v)).collect()),
        DataRef::Map(entries) => Json::Object(entries.iter().map(|(k, v)| (k.unwrap_or_default().to_string(), json_of(v))).collect()),
    }
}

/// Equal values compare equal, wherever their strings sit in `text`.
impl PartialEq for AskData {
    fn eq(&self, other: &AskData) -> bool {
        self.nodes.len() == other.nodes.len()
            && self.nodes.iter().zip(&other.nodes).enumerate().all(|(i, (a, b))| match (a, b) {
                (Node::Str { .. } | Node::Short { .. }, Node::Str { .. } | Node::Short { .. }) => self.str_at(i) == other.str_at(i),
                _ => a == b,
            })
    }
}

/// Printed as its JSON.
impl fmt::Debug for AskData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

/// As JSON: a map's keys in byte order.
impl Serialize for AskData {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.root().serialize(s)
    }
}

impl Serialize for DataRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match *self {
            DataRef::Nil => s.serialize_unit(),
            DataRef::Bool(b) => s.serialize_bool(b),
            DataRef::Int(i) => s.serialize_i64(i),
            DataRef::Float(f) => s.serialize_f64(f),
            DataRef::Str(t) => s.serialize_str(t),
            DataRef::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for (_, v) in items.iter() {
                    seq.serialize_element(&v)?;
                }
                seq.end()
            }
            DataRef::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries.iter() {
                    map.serialize_entry(k.unwrap_or_default(), &v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for AskData {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AskData, D::Error> {
        Json::deserialize(d).map(|j| AskData::from_json(&j))
    }
}

/// Where a list or map began (`Builder::open_list`, `open_map`).
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    node: usize,
    text: usize,
    unit: usize,
}

/// One item of a list or entry of a map being built: where it begins in
/// the nodes and what it is ordered by (a list's index, a map's key).
#[derive(Clone, Copy, Debug)]
struct Unit {
    start: usize,
    /// A list item's index (a map's entries are ordered by their key
    /// node's string).
    order: usize,
}

/// Makes an `AskData` top-down: a scalar with one call, a list or map with
/// `open_*`, then each item (`item` or `key`, then its value), then
/// `close`. Items and entries may come in any order: `close` puts them in
/// place. `rollback` forgets everything since a mark.
#[derive(Default)]
pub struct Builder {
    nodes: Vec<Node>,
    text: String,
    /// The items of the lists and maps open now, innermost last.
    units: Vec<Unit>,
    /// Room to reorder in, kept between tables.
    spare: Vec<Node>,
}

impl Builder {
    pub fn nil(&mut self) {
        self.nodes.push(Node::Nil);
    }
    pub fn boolean(&mut self, b: bool) {
        self.nodes.push(Node::Bool(b));
    }
    pub fn integer(&mut self, i: i64) {
        self.nodes.push(Node::Int(i));
    }
    /// A finite number (the caller refuses others).
    pub fn float(&mut self, f: f64) {
        self.nodes.push(Node::Float(f));
    }
    pub fn string(&mut self, s: &str) {
        let node = self.text_node(s);
        self.nodes.push(node);
    }

    fn text_node(&mut self, s: &str) -> Node {
        string_node(&mut self.text, s)
    }

    /// Where the builder is now: `open_*`'s mark, or a place to roll back to.
    pub fn mark(&self) -> Mark {
        Mark { node: self.nodes.len(), text: self.text.len(), unit: self.units.len() }
    }

    /// Opens a list of `len` items (`item(i)` before each, `i` < `len`).
    pub fn open_list(&mut self, len: usize) -> Mark {
        let m = self.mark();
        self.nodes.push(Node::List { len: len as u32, size: 0 });
        m
    }
    /// Opens a map (`key(k)` before each value).
    pub fn open_map(&mut self) -> Mark {
        let m = self.mark();
        self.nodes.push(Node::Map { len: 0, size: 0 });
        m
    }
    /// The next value is the list's item `i` (0-based).
    pub fn item(&mut self, i: usize) {
        self.units.push(Unit { start: self.nodes.len(), order: i });
    }
    /// The next value is the map's entry under `k`.
    pub fn key(&mut self, k: &str) {
        let start = self.nodes.len();
        let node = self.text_node(k);
        self.nodes.push(node);
        // Ordered by the key node's string (`close`).
        self.units.push(Unit { start, order: 0 });
    }

    /// Closes the list or map opened at `m`, its items in order. A map
    /// without entries is an empty list (an empty Lua table).
    pub fn close(&mut self, m: Mark) {
        let units = self.units.len() - m.unit;
        let size = (self.nodes.len() - m.node - 1) as u32;
        let head = match self.nodes[m.node] {
            Node::Map { .. } if units == 0 => Node::List { len: 0, size: 0 },
            Node::Map { .. } => Node::Map { len: units as u32, size },
            _ => Node::List { len: units as u32, size },
        };
        self.nodes[m.node] = head;
        if matches!(head, Node::Map { .. }) {
            self.order(m, |nodes, text, a, b| node_str(nodes, text, a.start).as_bytes().cmp(node_str(nodes, text, b.start).as_bytes()));
        } else {
            self.order(m, |_, _, a, b| a.order.cmp(&b.order));
        }
        self.units.truncate(m.unit);
    }

    /// Puts the units opened since `m` in order of `by`, moving their
    /// nodes (the common case, already in order, moves nothing).
    fn order(&mut self, m: Mark, cmp: impl Fn(&[Node], &str, &Unit, &Unit) -> std::cmp::Ordering) {
        let (nodes, text) = (self.nodes.as_slice(), self.text.as_str());
        let units = &self.units[m.unit..];
        if units.windows(2).all(|w| cmp(nodes, text, &w[0], &w[1]).is_lt()) {
            return;
        }
        // Small tables (the common case) sort their places on the stack.
        let mut small = [0u32; 16];
        let mut large = Vec::new();
        let perm: &mut [u32] = if units.len() <= small.len() {
            &mut small[..units.len()]
        } else {
            large.resize(units.len(), 0);
            &mut large
        };
        for (i, p) in perm.iter_mut().enumerate() {
            *p = i as u32;
        }
        perm.sort_unstable_by(|&a, &b| cmp(nodes, text, &units[a as usize], &units[b as usize]));
        let end = self.nodes.len();
        self.spare.clear();
        for &i in perm.iter() {
            let i = i as usize;
            let (s, e) = (units[i].start, units.get(i + 1).map_or(end, |u| u.start));
            self.spare.extend_from_slice(&self.nodes[s..e]);
        }
        self.nodes.truncate(m.node + 1);
        self.nodes.append(&mut self.spare);
    }

    /// Forgets everything made so far.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.text.clear();
        self.units.clear();
    }

    /// Forgets everything made since `m`.
    pub fn rollback(&mut self, m: Mark) {
        self.nodes.truncate(m.node);
        self.text.truncate(m.text);
        self.units.truncate(m.unit);
    }

    /// The value made (one, whole), leaving the builder empty for the next.
    pub fn finish(&mut self) -> AskData {
        debug_assert!(self.units.is_empty(), "every list and map is closed");
        // Nil is the default, without nodes.
        let nodes = if let [Node::Nil] = self.nodes[..] { Vec::new() } else { self.nodes.as_slice().to_vec() };
        let data = AskData { nodes, text: self.text.as_str().to_string() };
        self.nodes.clear();
        self.text.clear();
        data
    }

    fn json(&mut self, j: &Json) {
        match j {
            Json::Null => self.nil(),
            Json::Bool(b) => self.boolean(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => self.integer(i),
                None => self.float(n.as_f64().unwrap_or(0.0)),
            },
            Json::String(s) => self.string(s),
            Json::Array(items) => {
                let m = self.open_list(items.len());
                for (i, v) in items.iter().enumerate() {
                    self.item(i);
                    self.json(v);
                }
                self.close(m);
            }
            Json::Object(map) => {
                let m = self.open_map();
                for (k, v) in map {
                    self.key(k);
                    self.json(v);
                }
                self.close(m);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_goes_through_unchanged() {
        for j in [
            json!(null),
            json!([]),
            json!({"from": 3, "n": 2}),
            json!({"queue": [{"seat": 1, "provinces": [4, 5], "extra": 0.5}], "ok": true, "name": "Ōmi"}),
            json!([[1, [2, {"a": [3]}]], -7, "x", false]),
        ] {
            let d = AskData::from_json(&j);
            assert_eq!(d.to_json(), j);
            assert_eq!(serde_json::to_string(&d).unwrap(), serde_json::to_string(&j).unwrap());
            let back: AskData = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
            assert_eq!(back, d);
        }
        assert_eq!(AskData::default().to_json(), json!(null));
        assert_eq!(serde_json::to_string(&AskData::default()).unwrap(), "null");
    }

    /// Entries and items given out of order are kept in order (keys by
    /// bytes, items by index), and equal to the same value given in order.
    #[test]
    fn out_of_order_entries_and_items_are_put_in_place() {
        let mut b = Builder::default();
        let m = b.open_map();
        b.key("to");
        b.integer(5);
        b.key("b");
        let l = b.open_list(3);
        for i in [2, 0, 1] {
            b.item(i);
            b.string(&format!("s{i}"));
        }
        b.close(l);
        b.key("a");
        let inner = b.open_map();
        b.close(inner);
        b.close(m);
        let d = b.finish();
        assert_eq!(d.to_json(), json!({"a": [], "b": ["s0", "s1", "s2"], "to": 5}));
        assert_eq!(d, AskData::from_json(&json!({"a": [], "b": ["s0", "s1", "s2"], "to": 5})));
        assert_eq!(d.int("to"), Some(5));
        assert_eq!(d.int("a"), None);
        assert_ne!(d, AskData::from_json(&json!({"a": [], "b": ["s0", "s1", "s3"], "to": 5})));
    }

    /// Issue 25: strings up to `SHORT` bytes are kept in their nodes,
    /// longer ones in `text`; keys of either kind are ordered by their
    /// bytes alike, and a flat map made at once equals the builder's.
    #[test]
    fn short_and_long_strings_and_keys_keep_their_order_and_values() {
        let long = "k".repeat(SHORT + 1);
        let edge = "k".repeat(SHORT);
        let j = json!({
            long.clone(): "a value longer than twenty-two bytes",
            edge.clone(): "x".repeat(SHORT),
            "k": [long.clone(), "Ōmi", ""],
            "": 1,
        });
        let d = AskData::from_json(&j);
        assert_eq!(d.to_json(), j);
        assert_eq!(serde_json::to_string(&d).unwrap(), serde_json::to_string(&j).unwrap());
        // Entries given in reverse order are put in byte order.
        let mut b = Builder::default();
        let m = b.open_map();
        for k in [long.as_str(), edge.as_str(), "kk", "k", ""] {
            b.key(k);
            b.string(k);
        }
        b.close(m);
        let keys: Vec<String> = match b.finish().root() {
            DataRef::Map(entries) => entries.iter().map(|(k, _)| k.unwrap().to_string()).collect(),
            _ => panic!("a map"),
        };
        assert_eq!(keys, ["", "k", "kk", edge.as_str(), long.as_str()]);
        let mut entries = [(long.as_str(), Scalar::Int(1)), ("b", Scalar::Str(&edge)), ("a", Scalar::Str(&long)), ("c", Scalar::Float(0.5))];
        let flat = AskData::flat_map(&mut entries);
        let j = json!({"a": long.clone(), "b": edge.clone(), "c": 0.5, long.clone(): 1});
        assert_eq!(flat, AskData::from_json(&j));
        assert_eq!(serde_json::to_string(&flat).unwrap(), serde_json::to_string(&j).unwrap());
        assert_eq!(flat.int(&long), Some(1));
    }

    #[test]
    fn a_rollback_forgets_what_was_made_since_its_mark() {
        let mut b = Builder::default();
        let m = b.open_map();
        b.key("k");
        let at = b.mark();
        let l = b.open_list(2);
        b.item(0);
        b.string("gone");
        b.close(l);
        b.rollback(at);
        b.integer(1);
        b.close(m);
        assert_eq!(b.finish().to_json(), json!({"k": 1}));
    }
}
