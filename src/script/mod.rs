//! The Lua runtime that runs a rules pack.
//!
//! Scripts see only `table`, `string` and `math` (without `math.random`),
//! sorted iteration, the read-only data tables `RULES`, `CARDS` and `MAP`,
//! and the host API `game` (see `api.rs`). The game state is lent to the
//! VM for the length of one call and taken back after it: scripts keep no
//! reference to it. A memory limit (see `heap.rs`) and a time limit (see
//! `guard.rs`) bound every call; no script can catch either.

mod api;
mod bytecode;
mod eval;
mod guard;
mod heap;
mod ids;
mod lend;
mod load;
mod raw;
mod value;
mod values;

/// `MAX_AMOUNT`: the host API's cap on a seat's points, war chests and
/// rice (its checks are in api/pieces.rs). `MAX_EVENTS_PER_DECISION`: the
/// most events one decision may make (`too_many_events`). The lab's
/// `merge` bounds records by both.
pub use api::{MAX_AMOUNT, MAX_EVENTS_PER_DECISION};

pub use api::{board_view, region_view};
pub use lend::Reads;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use mlua::chunk::ChunkMode;
use mlua::{Function, IntoLuaMulti, Lua, LuaOptions, LuaSerdeExt, StdLib, Table, Value};

use crate::core::{ActionContext, Ask, Choice, Event, GameRng, GameState, MAX_SEATS, Name, Pile, ProvinceId, Seat};
use crate::rules::Rules;
use crate::tower::TowerModel;

/// The error of a decision that made `n` events, more than
/// `MAX_EVENTS_PER_DECISION`: the runtime checks at the end of each call,
/// the engine once the decision has run (the few events it adds itself
/// come between calls).
pub fn too_many_events(n: usize) -> Option<ScriptError> {
    (n > MAX_EVENTS_PER_DECISION).then(|| {
        let message = format!(
            "one decision made {n} events (battles, changes of hands, notes, tallies), more than the engine allows ({MAX_EVENTS_PER_DECISION}): a rule that repeats without end?"
        );
        ScriptError::from_lua(&mlua::Error::RuntimeError(message))
    })
}

/// Bounds on what one script call may use.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// How many bytes the VM may hold. A call that needs more fails as a
    /// whole: no script can catch the error (see `heap.rs`).
    pub memory_bytes: usize,
    /// How long one call from the engine into Lua may run (loading the
    /// pack's files may take 20 times as long). Nothing a script does can
    /// catch or outlast it.
    pub time_per_call: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { memory_bytes: 64 << 20, time_per_call: std::time::Duration::from_secs(2) }
    }
}

/// A script failure: where it happened and the Lua traceback.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptError {
    pub file: String,
    pub line: usize,
    pub message: String,
    pub traceback: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.is_empty() {
            write!(f, "script error: {}", self.message)?;
        } else {
            write!(f, "{}:{}: script error: {}", self.file, self.line, self.message)?;
        }
        if !self.traceback.is_empty() {
            write!(f, "\n{}", self.traceback)?;
        }
        Ok(())
    }
}

impl ScriptError {
    pub fn from_lua(e: &mlua::Error) -> ScriptError {
        let (message, traceback) = match e {
            mlua::Error::CallbackError { traceback, cause } => (root_cause(cause), traceback.clone()),
            mlua::Error::RuntimeError(s) | mlua::Error::SyntaxError { message: s, .. } => match s.find("\nstack traceback:") {
                Some(i) => (s[..i].to_string(), s[i + 1..].to_string()),
                None => (s.clone(), String::new()),
            },
            mlua::Error::MemoryError(s) => (format!("out of memory: {s}"), String::new()),
            other => (root_cause(other), String::new()),
        };
        // Printable: no addresses (`error({})`), no terminal escapes.
        let (message, traceback) = (printable(&message), printable(&traceback));
        // The first `file.lua:N:` in the message, else in the traceback.
        let (file, line) = locate(&message).or_else(|| locate(&traceback)).unwrap_or_default();
        ScriptError { file, line, message: strip_location(&message), traceback }
    }

    /// Where `f` is defined, when the error itself names no place (an
    /// out-of-memory error, say, carries no position).
    fn or_in(mut self, f: &Function) -> ScriptError {
        if self.file.is_empty() {
            let info = f.info();
            if let Some(source) = info.source.as_deref().and_then(|s| s.strip_prefix('@')) {
                self.file = source.to_string();
                self.line = info.line_defined.unwrap_or(0);
                self.message = format!("{} (in the function defined here)", self.message);
            }
        }
        self
    }
}

/// Error text as printed: addresses (`table: 0x55d0...`) removed, control
/// characters escaped.
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(": 0x") {
        let hex = rest[i + 4..].bytes().take_while(u8::is_ascii_hexdigit).count();
        out.push_str(&rest[..i]);
        if hex == 0 {
            out.push_str(": 0x");
        }
        rest = &rest[i + 4 + hex..];
    }
    out.push_str(rest);
    crate::files::sanitize(&out)
}

fn root_cause(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => root_cause(cause),
        mlua::Error::RuntimeError(s) => s.clone(),
        other => other.to_string(),
    }
}

fn locate(text: &str) -> Option<(String, usize)> {
    for (i, _) in text.match_indices(".lua:") {
        // After the separator, whatever its width (U+2000 is whitespace of
        // three bytes: a fuzzed message cut inside it).
        let start = text[..i].char_indices().rev().find(|&(_, c)| c.is_whitespace() || c == '\'' || c == '"').map_or(0, |(j, c)| j + c.len_utf8());
        let file = &text[start..i + 4];
        let digits: String = text[i + 5..].chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(line) = digits.parse() {
            return Some((file.to_string(), line));
        }
    }
    None
}

fn strip_location(message: &str) -> String {
    if let Some((file, line)) = locate(message) {
        let prefix = format!("{file}:{line}: ");
        if let Some(rest) = message.strip_prefix(&prefix) {
            return rest.to_string();
        }
    }
    message.to_string()
}

/// What the VM's host functions share with the runtime.
pub(crate) struct Shared {
    /// The state lent for the current call; null between calls.
    state: Cell<*mut GameState>,
    scratch: RefCell<Scratch>,
    /// The action being carried out by the current call (an action's
    /// handler, or a continuation of a question asked in one): what a
    /// question asked now records as its context.
    context: Cell<Option<ActionContext>>,
    rules: Rc<Rules>,
    /// The tower games use now (see `Runtime::set_tower`).
    tower: RefCell<Rc<dyn TowerModel>>,
    /// Set while a Lua tower runs: it gets cubes and a generator, not the game.
    in_tower: Cell<bool>,
    /// Lua calls in progress (a Lua tower runs inside a script's call).
    depth: Cell<u32>,
    /// The watchdog's handle on this VM (the time limit).
    watch: std::sync::Arc<guard::Watch>,
    /// The VM's main state and its allocator's record (the memory limit).
    lua_state: *mut mlua::ffi::lua_State,
    heap: *const heap::Heap,
    /// Names of registered continuations (checked when a script asks).
    continuations: RefCell<Vec<Name>>,
    /// The kinds questions were asked with (`ask_kind`), at most
    /// `MAX_KINDS`: one `Name` each, shared by every question of the kind.
    kinds: RefCell<Vec<Name>>,
    /// When set, host functions that change the state refuse (REPL queries).
    read_only: Cell<bool>,
    /// When false, scripts skip their narration (`NARRATE`).
    pub(crate) narrate: Cell<bool>,
    /// Set while a host function runs (re-entry is refused).
    pub(crate) busy: Cell<bool>,
    /// Hook name -> which card effects act on it (the modifier pipeline).
    hooks: HashMap<String, HookEffects>,
    /// Read-only Lua tables of every card effect, built once.
    effect_tables: RefCell<EffectTables>,
    /// game.effects' answers: they depend only on (hook, event, special
    /// card, action), so each list is built once and shared read-only.
    effects_cache: RefCell<HashMap<EffectsKey, Option<Table>>>,
    /// The prelude's `readonly_list`.
    readonly_list: RefCell<Option<Function>>,
    /// Interned key strings for the host functions that read tables.
    keys: RefCell<Option<Keys>>,
    /// The raw host functions (see `raw.rs`): the VM holds pointers to
    /// them, so they live as long as this, past the VM. Boxed: a pointer
    /// to each must not move when the vector grows.
    #[allow(clippy::vec_box)]
    raw_bodies: RefCell<Vec<Box<raw::RawFn>>>,
    /// game.effects' answers by (hook, event, special, action).
    effects_cache_raw: RefCell<Option<raw::EffectsCache>>,
    /// The functions variants added or replaced (the lab's rule use).
    rule_parts: RefCell<Vec<RulePart>>,
    /// Calls of each of `rule_parts` while counting was on.
    rule_calls: RefCell<Vec<u64>>,
    /// Whether calls of `rule_parts` count now (the game's own decisions,
    /// not a bot's look-ahead).
    counting: Cell<bool>,
    /// The values variants changed (see `values.rs`), after `rule_parts`
    /// in the rule use, and their reads while counting was on.
    value_parts: RefCell<Vec<RulePart>>,
    value_reads: RefCell<Vec<u64>>,
    /// Set while the pack's files load, and which value parts they read.
    loading: Cell<bool>,
    read_at_load: RefCell<Vec<bool>>,
    /// `game.board()`'s counts and leaders (api/board.rs).
    board: RefCell<api::BoardScratch>,
    /// What host functions read since the last `Runtime::take_reads`.
    reads: Cell<Reads>,
}

/// A function a variant added or replaced, whose calls the lab counts.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RulePart {
    /// `actions`, `continuations`, `handlers`, `modifiers` or `towers`.
    pub kind: String,
    pub name: String,
    /// The variant that registered it last.
    pub variant: String,
    /// Whether it replaced a function of that name (else it was added);
    /// of a value (kind `value`, named by its path as scripts read it,
    /// `RULES.scoring.region_majority.castle`): whether the pack had it
    /// (changed or removed) or the variants added it.
    pub replaced: bool,
    /// Why the reads of this value are not (all) counted, where the engine
    /// or the bots read it themselves: its count is then no evidence that
    /// nobody read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncounted: Option<String>,
}

impl Shared {
    fn new(lua: &Lua, rules: Rc<Rules>, limits: Limits) -> Shared {
        Shared {
            state: Cell::new(std::ptr::null_mut()),
            scratch: RefCell::new(Scratch::default()),
            context: Cell::new(None),
            tower: RefCell::new(Rc::new(crate::tower::Passthrough)),
            in_tower: Cell::new(false),
            depth: Cell::new(0),
            watch: guard::Watch::new(lua.state(), limits.time_per_call.saturating_mul(20)),
            lua_state: lua.state(),
            // SAFETY: the pointer is read only while the VM lives (`heap`).
            heap: unsafe { heap::of(lua.state()) }.expect("the sandbox installs its allocator"),
            continuations: RefCell::new(Vec::new()),
            kinds: RefCell::new(Vec::new()),
            read_only: Cell::new(false),
            narrate: Cell::new(true),
            busy: Cell::new(false),
            hooks: hook_index(&rules),
            effect_tables: RefCell::new(EffectTables::default()),
            effects_cache: RefCell::new(HashMap::new()),
            readonly_list: RefCell::new(None),
            keys: RefCell::new(None),
            raw_bodies: RefCell::new(Vec::new()),
            effects_cache_raw: RefCell::new(None),
            rules,
            rule_parts: RefCell::new(Vec::new()),
            rule_calls: RefCell::new(Vec::new()),
            counting: Cell::new(false),
            value_parts: RefCell::new(Vec::new()),
            value_reads: RefCell::new(Vec::new()),
            loading: Cell::new(false),
            read_at_load: RefCell::new(Vec::new()),
            board: RefCell::new(api::BoardScratch::default()),
            reads: Cell::new(Reads::default()),
        }
    }

    /// The VM's allocator record.
    fn heap(&self) -> &heap::Heap {
        // SAFETY: the `Heap` lives as long as the VM, and `Shared` is used
        // only while the VM lives (its host functions and calls).
        unsafe { &*self.heap }
    }

    /// Runs one call into Lua under the time limit and the memory limit.
    /// Nested calls (a Lua tower inside a throw) share the outermost
    /// call's time, and meeting the memory limit anywhere in it fails it.
    fn guarded<R>(&self, f: impl FnOnce() -> mlua::Result<R>) -> mlua::Result<R> {
        let depth = self.depth.get();
        if depth == 0 {
            self.heap().begin();
        }
        let call = (depth == 0).then(|| self.watch.start());
        self.depth.set(depth + 1);
        struct Leave<'a>(&'a Shared, u32);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.depth.set(self.1);
            }
        }
        let leave = Leave(self, depth);
        let result = f();
        drop(leave);
        let Some(call) = call else { return result };
        let timed_out = call.finish();
        let heap = self.heap();
        let met = heap.met();
        // The next call starts from a heap this one did not grow.
        heap.settle(self.lua_state, met);
        // Whatever the script did with the error on its way out (pcall,
        // error handlers), the call failed.
        if let Some(message) = timed_out {
            return Err(mlua::Error::RuntimeError(message));
        }
        if met {
            heap.count_met_call();
            return Err(out_of_memory(heap.limit(), result.err()));
        }
        result
    }
}

/// The error of a call that met the memory limit: where, when the error
/// the script saw carries a traceback (a `pcall` passed it on), else the
/// runtime names the function that was called (`ScriptError::or_in`).
fn out_of_memory(limit: usize, seen: Option<mlua::Error>) -> mlua::Error {
    let message = format!("out of memory: the rules used more than {} in one call", mebibytes(limit));
    let Some(seen) = seen.map(|e| ScriptError::from_lua(&e)) else { return mlua::Error::RuntimeError(message) };
    let place = if seen.file.is_empty() { String::new() } else { format!("{}:{}: ", seen.file, seen.line) };
    let traceback = if seen.traceback.is_empty() { String::new() } else { format!("\n{}", seen.traceback) };
    mlua::Error::RuntimeError(format!("{place}{message}{traceback}"))
}

/// A byte count as rule authors read the limit: `64 MiB`.
fn mebibytes(bytes: usize) -> String {
    if bytes.is_multiple_of(1 << 20) { format!("{} MiB", bytes >> 20) } else { format!("{bytes} bytes") }
}

/// What game.effects' answer depends on: the hook (its index entry's
/// address), the event, the seat's special card and the action.
type EffectsKey = (usize, Option<u8>, Option<u8>, Option<i64>);

#[derive(Default)]
pub(crate) struct EffectTables {
    events: Vec<Vec<Table>>,
    specials: Vec<Vec<Table>>,
    always: Vec<Table>,
}

pub(crate) struct Keys {
    seat: mlua::LuaString,
    n: mlua::LuaString,
    from: mlua::LuaString,
    peasants: mlua::LuaString,
    /// The keys `game.ask` reads (raw.rs `Spec`), held so that they stay
    /// interned: pushing them then allocates nothing.
    _pinned: Vec<mlua::LuaString>,
}

impl EffectTables {
    /// Every card effect and every effect always in force, as a table
    /// `freeze` made read-only.
    /// With variants, each counts the reads of what they changed in it, as
    /// the path `CARDS.events[9].effects[1]` (1-based, as scripts index)
    /// or, where they added it whole, as the card or effect they added.
    fn frozen(lua: &Lua, rules: &Rules, freeze: &Function) -> mlua::Result<EffectTables> {
        fn events(c: &crate::rules::CardsFile) -> Vec<&Vec<crate::rules::pack::Effect>> {
            c.events.iter().map(|e| &e.effects).collect()
        }
        fn specials(c: &crate::rules::CardsFile) -> Vec<&Vec<crate::rules::pack::Effect>> {
            c.specials.iter().map(|e| &e.effects).collect()
        }
        use crate::rules::pack::Effect;
        let varied = rules.base.is_some();
        // `base`: the pack's own effect at the same place; `at`: the path
        // counted when there is none.
        let table = |e: &Effect, base: Option<&Effect>, path: String, at: &str| -> mlua::Result<Table> {
            match base {
                _ if !varied => freeze.call(lua.to_value(e)?),
                Some(b) => freeze.call((lua.to_value(e)?, lua.to_value(b)?, path)),
                None => freeze.call((lua.to_value(e)?, "new", if at.is_empty() { path.as_str() } else { at })),
            }
        };
        // Per card, its effects: the variants' and the pack's own.
        let cards = |list: Vec<&Vec<Effect>>, base: Option<Vec<&Vec<Effect>>>, name: &str| -> mlua::Result<Vec<Vec<Table>>> {
            let mut out = Vec::with_capacity(list.len());
            for (i, effects) in list.into_iter().enumerate() {
                let card = format!("CARDS.{name}[{}]", i + 1);
                let bc = base.as_ref().and_then(|b| b.get(i));
                let at = if bc.is_none() { card.as_str() } else { "" };
                let effects = effects.iter().enumerate().map(|(j, e)| table(e, bc.and_then(|b| b.get(j)), format!("{card}.effects[{}]", j + 1), at));
                out.push(effects.collect::<mlua::Result<_>>()?);
            }
            Ok(out)
        };
        let base = rules.base.as_deref();
        let always = rules.rules.effects.iter().enumerate();
        Ok(EffectTables {
            events: cards(events(&rules.cards), base.map(|b| events(&b.cards)), "events")?,
            specials: cards(specials(&rules.cards), base.map(|b| specials(&b.cards)), "specials")?,
            always: always
                .map(|(j, e)| table(e, base.and_then(|b| b.rules.effects.get(j)), format!("RULES.effects[{}]", j + 1), ""))
                .collect::<mlua::Result<_>>()?,
        })
    }
}

impl Keys {
    fn interned(lua: &Lua) -> mlua::Result<Keys> {
        let key = |k: &str| lua.create_string(k);
        Ok(Keys {
            seat: key("seat")?,
            n: key("n")?,
            from: key("from")?,
            peasants: key("peasants")?,
            _pinned: ["cont", "provinces", "counts", "pass", "data", "kind", "prompt"].into_iter().map(key).collect::<mlua::Result<_>>()?,
        })
    }
}

/// The effects on one hook: per event card, per special card, and always.
#[derive(Default)]
pub(crate) struct HookEffects {
    events: Vec<Vec<usize>>,
    specials: Vec<Vec<usize>>,
    always: Vec<usize>,
}

fn hook_index(rules: &Rules) -> HashMap<String, HookEffects> {
    let mut map: HashMap<String, HookEffects> = HashMap::new();
    let (ne, ns) = (rules.cards.events.len(), rules.cards.specials.len());
    fn entry<'a>(map: &'a mut HashMap<String, HookEffects>, hook: &str, ne: usize, ns: usize) -> &'a mut HookEffects {
        map.entry(hook.to_string()).or_insert_with(|| HookEffects { events: vec![Vec::new(); ne], specials: vec![Vec::new(); ns], always: Vec::new() })
    }
    for (i, e) in rules.cards.events.iter().enumerate() {
        for (j, eff) in e.effects.iter().enumerate() {
            entry(&mut map, &eff.hook, ne, ns).events[i].push(j);
        }
    }
    for (i, c) in rules.cards.specials.iter().enumerate() {
        for (j, eff) in c.effects.iter().enumerate() {
            entry(&mut map, &eff.hook, ne, ns).specials[i].push(j);
        }
    }
    for (j, eff) in rules.rules.effects.iter().enumerate() {
        entry(&mut map, &eff.hook, ne, ns).always.push(j);
    }
    map
}

#[derive(Default)]
pub(crate) struct Scratch {
    events: Vec<Event>,
    ask: Option<Ask>,
}

/// Lends a state to the VM for one call; takes it back when dropped,
/// whatever happens in between (a panic included).
struct Lend<'a> {
    shared: &'a Shared,
    previous: *mut GameState,
}

impl<'a> Lend<'a> {
    fn new(shared: &'a Shared, state: &'a mut GameState) -> Lend<'a> {
        let previous = shared.state.replace(state as *mut GameState);
        Lend { shared, previous }
    }
}

impl Drop for Lend<'_> {
    fn drop(&mut self) {
        self.shared.state.set(self.previous);
    }
}

/// The handlers the engine calls, resolved once at load.
struct Handlers {
    /// Sorted by name, found by binary search: every answer looks one up,
    /// and a keyed hash of the name cost more than the few comparisons of
    /// a pack's handful of names. (No hash anyone can invert either: the
    /// names are a pack's, which may be a stranger's, and a search takes
    /// log2 of their number whatever they are.)
    continuations: Vec<(String, Function)>,
    winter: Function,
    score: Function,
    year_end: Function,
    battle: Function,
    preload: Function,
    bids: Function,
    perform: Function,
    standings: Function,
}

pub struct Runtime {
    /// The sandbox's allocator; dropped before `lua`, so that mlua's is
    /// back when the VM closes.
    _allocator: heap::Installed,
    lua: Lua,
    shared: Rc<Shared>,
    handlers: Handlers,
    limits: Limits,
    /// Towers registered by scripts (shogun.tower).
    towers: Table,
    /// Registered functions nothing names (for `shogun check`).
    pub warnings: Vec<crate::rules::Diagnostic>,
    tower_name: RefCell<String>,
    /// Calls continuations with their data (see `value::Continue`).
    continue_with: value::Continue,
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // Before the VM closes: the watchdog must not touch it after.
        self.shared.watch.detach();
    }
}

/// A tower written in Lua: `function(thrown, inside, random) -> landed, inside`.
/// `thrown` and each level of `inside` map seat numbers (and `peasants`) to
/// counts; `random(n)` draws 1..n from the throw's own generator (the
/// tower's stream: core/rng.rs).
struct LuaTower {
    name: String,
    levels: usize,
    func: Function,
    /// Weak: the VM holds the tower (through `Shared`), not the other way.
    lua: mlua::WeakLua,
    shared: std::rc::Weak<Shared>,
}

fn pile_table(lua: &Lua, p: &Pile) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for (s, n) in p.seats.iter().enumerate() {
        if *n > 0 {
            t.raw_set(Seat::new(s), *n)?;
        }
    }
    t.raw_set("peasants", p.peasants)?;
    Ok(t)
}

fn table_pile(t: &Table) -> mlua::Result<Pile> {
    let mut p = Pile::default();
    for pair in t.pairs::<Value, i64>() {
        let (k, v) = pair?;
        if !(0..=i64::from(u16::MAX)).contains(&v) {
            return Err(mlua::Error::RuntimeError(format!("a tower returned the count {v}")));
        }
        match k {
            Value::Integer(n) if let Some(s) = Seat::from_number(n, MAX_SEATS) => p.seats[s.index()] = v as u16,
            Value::String(ref name) if name.to_str()? == "peasants" => p.peasants = v as u16,
            other => return Err(mlua::Error::RuntimeError(format!("a tower returned the key {other:?} (expected seat numbers and `peasants`)"))),
        }
    }
    Ok(p)
}

impl TowerModel for LuaTower {
    fn name(&self) -> &str {
        &self.name
    }
    fn levels(&self) -> usize {
        self.levels
    }
    fn throw(&self, inside: &mut [Pile], input: Pile, rng: &mut GameRng) -> Result<Pile, String> {
        let shared = self.shared.upgrade().ok_or("the Lua runtime is gone")?;
        let lua = self.lua.try_upgrade().ok_or("the Lua runtime is gone")?;
        struct InTower<'a>(&'a Cell<bool>);
        impl Drop for InTower<'_> {
            fn drop(&mut self) {
                self.0.set(false);
            }
        }
        shared.in_tower.set(true);
        let _in_tower = InTower(&shared.in_tower);
        let result = shared.guarded(|| {
            lua.scope(|scope| {
                let random = scope.create_function_mut(|_, n: i64| {
                    if !(1..=i64::from(u32::MAX)).contains(&n) {
                        return Err(mlua::Error::RuntimeError(format!("random: n must be >= 1, got {n}")));
                    }
                    Ok(i64::from(rng.below(n as u32)) + 1)
                })?;
                let levels = lua.create_table()?;
                for (i, l) in inside.iter().enumerate() {
                    levels.raw_set(i + 1, pile_table(&lua, l)?)?;
                }
                let (landed, after): (Table, Table) = self.func.call((pile_table(&lua, &input)?, levels, random))?;
                let landed = table_pile(&landed)?;
                let mut new_inside = Vec::new();
                for level in after.sequence_values::<Table>() {
                    new_inside.push(table_pile(&level?)?);
                }
                Ok((landed, new_inside))
            })
        });
        let (landed, new_inside) = result.map_err(|e| {
            let se = ScriptError::from_lua(&e);
            format!("Lua tower `{}`: {}{}", self.name, if se.file.is_empty() { String::new() } else { format!("{}:{}: ", se.file, se.line) }, se.message)
        })?;
        if new_inside.len() != inside.len() {
            return Err(format!("Lua tower `{}` returned {} levels, expected {}", self.name, new_inside.len(), inside.len()));
        }
        inside.copy_from_slice(&new_inside);
        Ok(landed)
    }
}

/// What a script call produced besides its changes to the state.
pub struct CallResult {
    pub ask: Option<Ask>,
}

/// Which phase handler to call.
#[derive(Clone, Copy, Debug)]
pub enum PhaseHandler {
    Winter,
    Score,
    YearEnd,
    Preload,
    Bids,
}

impl Runtime {
    /// Switches the tower games use to the named one from the rules' `towers`.
    pub fn set_tower(&self, name: &str) -> Result<(), String> {
        let rules = &self.shared.rules;
        let Some(spec) = rules.rules.towers.get(name) else {
            return Err(format!("unknown tower `{name}`{}", rules.rules.towers_for(name)));
        };
        let model: Rc<dyn TowerModel> = if spec.model == "lua" {
            let script = spec.script.clone().unwrap_or_default();
            let func: Function = self.towers.get(script.as_str()).map_err(|_| format!("no Lua tower `{script}` is registered"))?;
            let levels = spec.params.get("levels").copied().unwrap_or(1.0);
            if !(0.0..=16.0).contains(&levels) || levels.fract() != 0.0 {
                return Err(format!("tower `{name}`: levels is {levels}, expected a whole number 0..=16"));
            }
            Rc::new(LuaTower { name: name.to_string(), levels: levels as usize, func, lua: self.lua.weak(), shared: Rc::downgrade(&self.shared) })
        } else {
            Rc::from(crate::tower::build(spec).map_err(|e| format!("tower `{name}`: {e}"))?)
        };
        let parts = values::tower_parts(&self.shared.value_parts.borrow(), name, name == rules.rules.tower.use_);
        let model: Rc<dyn TowerModel> =
            if parts.is_empty() { model } else { Rc::new(values::CountedTower { inner: model, parts, shared: Rc::downgrade(&self.shared) }) };
        *self.shared.tower.borrow_mut() = model;
        *self.tower_name.borrow_mut() = name.to_string();
        Ok(())
    }

    /// The name (in the rules' `towers`) of the tower in use.
    pub fn tower_name(&self) -> String {
        self.tower_name.borrow().clone()
    }

    /// The tower games use now.
    pub fn tower(&self) -> Rc<dyn TowerModel> {
        self.shared.tower.borrow().clone()
    }

    /// The pack's battle rule: who wins, from what landed. Returns
    /// (outcome, attacker cubes left, defender cubes left), outcome one of
    /// `attacker`, `defender`, `tie`.
    pub fn battle_outcome(&self, kind: &str, attacker: u32, defender: u32, peasants: u32, unrest: bool) -> Result<(String, u32, u32), ScriptError> {
        self.shared
            .guarded(|| self.handlers.battle.call::<(String, u32, u32)>((kind, attacker, defender, peasants, unrest)))
            .map_err(|e| ScriptError::from_lua(&e))
    }

    /// Whether scripts narrate (transcripts) or stay quiet (bulk runs).
    /// The functions variants added or replaced, whose calls are counted
    /// (`count_rule_use`, `take_rule_use`), in a fixed order, then the
    /// values their overlays changed, whose reads are counted.
    pub fn rule_parts(&self) -> Vec<RulePart> {
        let mut parts = self.shared.rule_parts.borrow().clone();
        parts.extend(self.shared.value_parts.borrow().iter().cloned());
        parts
    }

    /// Turns the counting of `rule_parts` calls on or off (on only around
    /// a game's own decisions: a bot's look-ahead on the same engine does
    /// not count).
    pub fn count_rule_use(&self, on: bool) {
        self.shared.counting.set(on);
    }

    /// The calls (or reads) of each of `rule_parts` counted since the
    /// last take; the counts start again from 0.
    pub fn take_rule_use(&self) -> Vec<u64> {
        let mut calls = self.shared.rule_calls.borrow_mut();
        let mut reads = self.shared.value_reads.borrow_mut();
        let out = calls.iter().chain(reads.iter()).copied().collect();
        calls.iter_mut().chain(reads.iter_mut()).for_each(|c| *c = 0);
        out
    }

    pub fn set_narration(&self, on: bool) {
        if self.shared.narrate.get() != on {
            self.shared.narrate.set(on);
            // A constant for scripts, changed only from here (the seal
            // stops scripts from setting globals).
            let _ = self.lua.globals().raw_set("NARRATE", on);
        }
    }

    pub fn narrating(&self) -> bool {
        self.shared.narrate.get()
    }

    /// What the host functions called since the last call of this read
    /// of the state beyond the board view and the seats (`Reads`), and
    /// starts afresh.
    pub fn take_reads(&self) -> Reads {
        self.shared.reads.replace(Reads::default())
    }

    /// Whether calls that read `reads` asked for the effects on `hook` on
    /// behalf of a seat, or read a seat's special card (`Reads::specials`).
    pub fn consulted(&self, reads: Reads, hook: &str) -> bool {
        let cache = self.shared.effects_cache_raw.borrow();
        let Some(h) = cache.as_ref().and_then(|c| c.hook_number(hook)) else { return reads.specials == u64::MAX };
        reads.specials & Reads::hook(h).specials != 0
    }

    /// The names of the functions in `table`, one of the flat tables
    /// scripts read only as `NAME.field` (`game`, `shogun`, the
    /// libraries; script/bytecode.rs), sorted: what a script can call
    /// there (no script can list them itself: it cannot take the table as
    /// a value).
    pub fn functions_of(&self, table: &str) -> Vec<String> {
        let Ok(t) = self.lua.globals().raw_get::<mlua::Table>(table) else { return Vec::new() };
        let mut names: Vec<String> = t.pairs::<String, Value>().filter_map(Result::ok).filter(|(_, v)| v.is_function()).map(|(k, _)| k).collect();
        names.sort();
        names
    }

    /// Where the pack's functions write into a table the pack made while
    /// it loaded (`bytecode::loaded_table_writes`), as warnings for `shogun
    /// check`: the run refuses such a write once the pack has loaded,
    /// which a function that only runs while loading never meets. Each
    /// file of the rules this runtime loaded is compiled again, not run.
    pub fn loaded_table_writes(&self) -> Vec<crate::rules::Diagnostic> {
        let mut out = Vec::new();
        for src in &self.shared.rules.lua {
            let chunk = self.lua.load(&src.source).set_name(format!("@{}", src.name)).set_mode(ChunkMode::Text);
            let warning = |line: usize, message: String| crate::rules::Diagnostic {
                severity: crate::rules::Severity::Warning,
                file: src.path.clone(),
                line,
                column: 0,
                message,
            };
            match chunk.into_function().map_err(|e| e.to_string()).and_then(|f| bytecode::loaded_table_writes(&f.dump(false))) {
                Ok(writes) => out.extend(writes.into_iter().map(|w| warning(w.line, w.message))),
                Err(e) => out.push(warning(0, format!("not checked for writes into tables made before play: {e}"))),
            }
        }
        out
    }

    /// Bytes the VM uses now.
    pub fn memory_used(&self) -> usize {
        self.shared.heap().used()
    }

    /// How many calls into Lua have met the memory limit since the VM was
    /// made. After such a call the heap was collected in full (the stack,
    /// the CallInfo list and the string table shrunk back), so a call made
    /// again from the same state meets the limit whatever earlier calls
    /// left in memory only if it needs that much itself: `Engine::apply`
    /// makes a decision again once when one of its calls met the limit.
    pub fn calls_that_met_the_memory_limit(&self) -> u64 {
        self.shared.heap().met_calls()
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Lends `state` to the VM, calls `f`, and takes the state back.
    fn invoke(&self, state: &mut GameState, events: &mut Vec<Event>, f: &Function, args: impl IntoLuaMulti) -> Result<CallResult, ScriptError> {
        self.invoke_with(state, events, f, || f.call::<()>(args))
    }

    /// `invoke` with the call made by `call` (which calls `f`).
    fn invoke_with(
        &self,
        state: &mut GameState,
        events: &mut Vec<Event>,
        f: &Function,
        call: impl FnOnce() -> mlua::Result<()>,
    ) -> Result<CallResult, ScriptError> {
        let result = {
            let _lent = Lend::new(&self.shared, state);
            self.shared.guarded(call)
        };
        let ask = {
            let mut scratch = self.shared.scratch.borrow_mut();
            events.append(&mut scratch.events);
            scratch.ask.take()
        };
        result.map_err(|e| ScriptError::from_lua(&e).or_in(f))?;
        // A call makes at most MAX_EVENTS_PER_DECISION (`Shared::event`);
        // the calls of one decision (the events passed in) together too, so
        // a decision holds at most twice that, however many calls it makes.
        if let Some(e) = too_many_events(events.len()) {
            return Err(e.or_in(f));
        }
        Ok(CallResult { ask })
    }

    /// Carries out a planned action through the rules' `perform` handler
    /// (which voids it when the province card was lost).
    pub fn call_action(
        &self,
        state: &mut GameState,
        events: &mut Vec<Event>,
        action: usize,
        seat: Seat,
        province: ProvinceId,
    ) -> Result<CallResult, ScriptError> {
        // Who holds the province card now (nil: nobody), so the handler can
        // void the action without asking the host.
        let holder = state.provinces[province.index()].owner;
        self.in_context(Some(ActionContext { province, action }), || {
            self.invoke(state, events, &self.handlers.perform, (seat, province, action as i64 + 1, holder))
        })
    }

    /// The rules' ranking: each seat's rank (1 = first) from its points and
    /// war chests.
    pub fn standings(&self, players: &[(i64, i64)]) -> Result<Vec<usize>, ScriptError> {
        let lua_err = |e: mlua::Error| ScriptError::from_lua(&e);
        // The list is built in one protected call (each table or field set
        // through mlua's API would be one of its own under the memory
        // limit), in the order the tables were always built.
        // SAFETY: the closure pushes one table and owns nothing, so an
        // allocation error raised inside skips no destructor.
        let list: Table = unsafe {
            self.lua.exec_raw((), |l| {
                mlua::ffi::lua_createtable(l, 0, 0);
                for (i, (points, chests)) in (1..).zip(players) {
                    mlua::ffi::lua_createtable(l, 0, 0);
                    mlua::ffi::lua_pushinteger(l, *points);
                    mlua::ffi::lua_setfield(l, -2, c"points".as_ptr());
                    mlua::ffi::lua_pushinteger(l, *chests);
                    mlua::ffi::lua_setfield(l, -2, c"chests".as_ptr());
                    mlua::ffi::lua_rawseti(l, -2, i);
                }
            })
        }
        .map_err(lua_err)?;
        let ranks: Vec<i64> = self.shared.guarded(|| self.handlers.standings.call(list)).map_err(lua_err)?;
        if ranks.len() != players.len() || ranks.iter().any(|&r| r < 1 || r as usize > players.len()) {
            return Err(ScriptError {
                file: String::new(),
                line: 0,
                message: format!("the standings handler must return a rank 1..{} for each seat, got {ranks:?}", players.len()),
                traceback: String::new(),
            });
        }
        Ok(ranks.into_iter().map(|r| r as usize).collect())
    }

    pub fn call_continuation(&self, state: &mut GameState, events: &mut Vec<Event>, ask: &Ask, choice: Choice) -> Result<CallResult, ScriptError> {
        let f = match self.handlers.continuations.binary_search_by(|(name, _)| name.as_str().cmp(&ask.cont)) {
            Ok(i) => &self.handlers.continuations[i].1,
            Err(_) => {
                return Err(ScriptError {
                    file: String::new(),
                    line: 0,
                    message: format!("no continuation `{}` is registered", ask.cont),
                    traceback: String::new(),
                });
            }
        };
        let choice = match choice {
            Choice::Province(p) => Some(p.number()),
            Choice::Count(n) => Some(i64::from(n)),
            Choice::Space(s) => Some(i64::from(s) + 1),
            Choice::Pass | Choice::Deck | Choice::Redraw => None,
        };
        self.in_context(ask.context, || self.invoke_with(state, events, f, || self.continue_with.call(f, ask.seat, choice, &ask.data, ask.context)))
    }

    /// Runs `f` with `context` as the action being carried out (what the
    /// questions asked in it record), and none again after.
    fn in_context<R>(&self, context: Option<ActionContext>, f: impl FnOnce() -> R) -> R {
        /// Puts the context back to none however the call ends (a panic
        /// included), so that no later call's question records it.
        struct Reset<'a>(&'a Cell<Option<ActionContext>>);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                self.0.set(None);
            }
        }
        let _reset = Reset(&self.shared.context);
        self.shared.context.set(context);
        f()
    }

    pub fn call_phase(&self, state: &mut GameState, events: &mut Vec<Event>, which: PhaseHandler) -> Result<CallResult, ScriptError> {
        let f = match which {
            PhaseHandler::Winter => &self.handlers.winter,
            PhaseHandler::Score => &self.handlers.score,
            PhaseHandler::YearEnd => &self.handlers.year_end,
            PhaseHandler::Preload => &self.handlers.preload,
            PhaseHandler::Bids => &self.handlers.bids,
        };
        self.invoke(state, events, f, ())
    }

    /// Whether `code` is an unfinished chunk (more lines may complete it).
    /// Only a chunk that an opened block, bracket or long string leaves
    /// open is unfinished: `return 1,` is simply wrong, and waiting for more
    /// would swallow the lines after it.
    pub fn incomplete(&self, code: &str) -> bool {
        let compiles = |c: &str| self.lua.load(c).set_name("=eval").set_mode(ChunkMode::Text).into_function();
        let at_end = |c: &str| matches!(compiles(c), Err(mlua::Error::SyntaxError { incomplete_input: true, .. }));
        let ret = format!("return {code}");
        if compiles(code).is_ok() || compiles(&ret).is_ok() || !(at_end(code) || at_end(&ret)) {
            return false;
        }
        // Closing what may be open (up to three levels) must complete it.
        const CLOSERS: [&str; 5] = ["\nend", "\n}", "\n)", "\nuntil true", "]]"];
        let mut tails = vec![String::new()];
        for _ in 0..3 {
            let mut next = Vec::new();
            for t in &tails {
                for c in CLOSERS {
                    let tail = format!("{t}{c}");
                    if compiles(&format!("{code}{tail}")).is_ok() || compiles(&format!("return {code}{tail}")).is_ok() {
                        return true;
                    }
                    next.push(tail);
                }
            }
            tails = next;
        }
        false
    }

    /// Evaluates a Lua chunk against a read-only view of `state` and returns
    /// the printed result (for inspection tools). The state is not changed.
    pub fn eval_readonly(&self, state: &GameState, code: &str) -> Result<String, ScriptError> {
        let mut copy = state.clone();
        self.shared.read_only.set(true);
        let f = self.lua.load(code).set_name("=eval").set_mode(ChunkMode::Text).into_function().and_then(|f| {
            // A chunk typed here runs after sealing: no global writes.
            match bytecode::check(&f.dump(false), true).map_err(mlua::Error::RuntimeError)?.first() {
                Some(r) => Err(mlua::Error::RuntimeError(format!("eval:{}: {}", r.line, r.message))),
                None => Ok(f),
            }
        });
        let result = match f {
            Ok(f) => {
                let _lent = Lend::new(&self.shared, &mut copy);
                self.shared.guarded(|| f.call::<Value>(())).map(|v| describe(&v))
            }
            Err(e) => Err(e),
        };
        self.shared.read_only.set(false);
        let mut scratch = self.shared.scratch.borrow_mut();
        scratch.ask = None;
        scratch.events.clear();
        result.map_err(|e| ScriptError::from_lua(&e))
    }
}

/// Tables printed by `describe` nest at most this deep ...
const DESCRIBE_DEPTH: usize = 8;
/// ... and show at most this many entries each.
const DESCRIBE_WIDTH: usize = 100;

/// A value as the REPL prints it: tables sorted, nested at most
/// DESCRIBE_DEPTH deep (`{...}` below), a table already being printed
/// shown as `<cycle>`, control characters escaped; within the bounds of
/// the REPL's `lua` (`eval::Budget`), past which it stops with a note.
fn describe(v: &Value) -> String {
    let budget = eval::Budget::default();
    let text = describe_in(&budget, v, &mut Vec::new());
    budget.finish(text)
}

fn describe_in(b: &eval::Budget, v: &Value, open: &mut Vec<*const std::ffi::c_void>) -> String {
    if !b.value() {
        return String::new();
    }
    match v {
        Value::Nil => b.fit("nil".into(), None),
        Value::Boolean(x) => b.fit(x.to_string(), None),
        Value::Integer(i) => b.fit(i.to_string(), None),
        Value::Number(n) => b.fit(n.to_string(), None),
        Value::String(s) => b.string(s, eval::Style::Plain).0,
        Value::Table(t) => {
            // The address only tells tables apart here; it is never shown.
            let id = t.to_pointer();
            if open.contains(&id) {
                return b.fit("<cycle>".into(), None);
            }
            if open.len() >= DESCRIBE_DEPTH || !b.may_nest() {
                return b.fit("{...}".into(), None);
            }
            open.push(id);
            let _in = b.enter();
            let mark = b.mark();
            // The first entries in the defined order, whatever the order
            // Lua's traversal meets them in.
            // The keys are ordered by what they show as here.
            let listed =
                eval::first_entries(b, t, DESCRIBE_WIDTH, &|x| b.order_text(|| describe_in(b, x, &mut open.clone()))).unwrap_or(Some(Default::default()));
            let mut parts = Vec::new();
            if let Some((kept, more)) = &listed {
                for (k, v) in kept {
                    let key = describe_in(b, k, open);
                    let value = if b.done() { String::new() } else { describe_in(b, v, open) };
                    parts.push(format!("{key}={value}"));
                    if b.done() {
                        break;
                    }
                }
                parts.sort();
                if *more > 0 && !b.done() {
                    parts.push(format!("... {more} more"));
                }
            }
            open.pop();
            if b.done() {
                parts.push("...".into());
            }
            let made = format!("{{{}}}", parts.join(", "));
            b.frame_since(mark, &made);
            made
        }
        other => b.fit(format!("<{}>", other.type_name()), None),
    }
}

/// What the prelude needs to lock tables in place: the upvalues of a
/// function (`upvalue(f, i)` -> true, value, or nothing past the last),
/// and a table's raw metatable, get and set. Passed to the prelude's
/// `lock_builtins` and `seal` only, never stored where scripts reach.
fn lock_helpers(lua: &Lua) -> mlua::Result<(Function, Function, Function)> {
    unsafe extern "C-unwind" fn upvalue_of(l: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
        use mlua::ffi;
        // SAFETY: only stack slots 1 and 2 (the arguments) are read, and at
        // most three values are pushed (Lua guarantees LUA_MINSTACK = 20).
        unsafe {
            if ffi::lua_type(l, 1) != ffi::LUA_TFUNCTION {
                return 0;
            }
            let n = ffi::lua_tointegerx(l, 2, std::ptr::null_mut());
            if !(1..=255).contains(&n) {
                return 0;
            }
            let name = ffi::lua_getupvalue(l, 1, n as std::ffi::c_int);
            if name.is_null() {
                return 0;
            }
            ffi::lua_pushboolean(l, 1);
            ffi::lua_insert(l, -2);
            // The name is a C string of the function's prototype (empty
            // for C functions), alive while the function is (slot 1).
            ffi::lua_pushstring(l, name);
            3
        }
    }
    // SAFETY: `upvalue_of` follows the Lua C API's rules for C functions.
    let upvalue = unsafe { lua.create_c_function(upvalue_of)? };
    let getmt = lua.create_function(|_, t: Value| Ok(if let Value::Table(t) = t { t.metatable() } else { None }))?;
    let setmt = lua.create_function(|_, (t, m): (Table, Option<Table>)| t.set_metatable(m))?;
    Ok((upvalue, getmt, setmt))
}

/// Lua's `error`, except that NUL bytes in a message become `\0`: the
/// traceback is built with C strings, which a NUL would cut short. A C
/// function (not a Lua wrapper), so `error(msg, level)` counts levels as
/// Lua's does and adds no frame.
unsafe extern "C-unwind" fn error_without_nul(l: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    use mlua::ffi;
    // SAFETY: reads its two arguments and pushes at most three values
    // (within LUA_MINSTACK). Every call that may raise (an allocation
    // error, or lua_error itself) runs with only plain values in this frame:
    // the cleaned message is built in the VM, piece by piece, never in a
    // Rust buffer that a raise would skip.
    unsafe {
        let level = ffi::luaL_optinteger(l, 2, 1);
        ffi::lua_settop(l, 1);
        if ffi::lua_type(l, 1) == ffi::LUA_TSTRING {
            let mut len = 0usize;
            let p = ffi::lua_tolstring(l, 1, &mut len);
            // The message stays at index 1 (so its bytes stay alive) while
            // its pieces are pushed above it and joined.
            let bytes = std::slice::from_raw_parts(p as *const u8, len);
            if bytes.contains(&0) {
                let mut pieces = bytes.split(|&b| b == 0);
                let first = pieces.next().unwrap_or_default();
                ffi::lua_pushlstring(l, first.as_ptr().cast(), first.len());
                for piece in pieces {
                    ffi::lua_pushlstring(l, c"\\0".as_ptr(), 2);
                    ffi::lua_pushlstring(l, piece.as_ptr().cast(), piece.len());
                    ffi::lua_concat(l, 3);
                }
                ffi::lua_replace(l, 1);
            }
            if level > 0 {
                ffi::luaL_where(l, level as std::ffi::c_int);
                ffi::lua_pushvalue(l, 1);
                ffi::lua_concat(l, 2);
            }
        }
        ffi::lua_error(l)
    }
}

/// Scripts' `string.format`: Lua's own (upvalue 1), called directly, unless
/// the format has a `%p` conversion (an address differs between runs:
/// refused here, with the caller's position as `error(msg, 2)` gives it) or
/// an argument is a table, function, thread or userdata (upvalue 2, the
/// prelude's `format_shown`, shows them as `tostring` does). A C function, so a
/// format costs one call instead of a vararg Lua call that checks each
/// argument's type through `select`.
unsafe extern "C-unwind" fn format_for_scripts(l: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    use mlua::ffi;
    // SAFETY: reads the function's own arguments and upvalues. The three
    // ways out own nothing Rust drops: Lua's format called as this C
    // function (its arguments are this call's), lua_error with the message
    // pushed (LUA_MINSTACK room), and the prelude's version called with the
    // arguments (one slot more, checked), whose results are returned.
    unsafe {
        let n = ffi::lua_gettop(l);
        if ffi::lua_type(l, 1) == ffi::LUA_TSTRING {
            let mut len = 0usize;
            let p = ffi::lua_tolstring(l, 1, &mut len);
            if formats_an_address(std::slice::from_raw_parts(p.cast::<u8>(), len)) {
                ffi::luaL_where(l, 1);
                ffi::lua_pushstring(l, c"string.format: %p (an address) is not allowed in rule scripts".as_ptr());
                ffi::lua_concat(l, 2);
                ffi::lua_error(l);
            }
        }
        let shown_by_tostring = (2..=n)
            .any(|i| matches!(ffi::lua_type(l, i), ffi::LUA_TTABLE | ffi::LUA_TFUNCTION | ffi::LUA_TTHREAD | ffi::LUA_TUSERDATA | ffi::LUA_TLIGHTUSERDATA));
        if !shown_by_tostring && let Some(format) = ffi::lua_tocfunction(l, ffi::lua_upvalueindex(1)) {
            return format(l);
        }
        ffi::luaL_checkstack(l, 1, std::ptr::null());
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(2));
        ffi::lua_insert(l, 1);
        ffi::lua_call(l, n, ffi::LUA_MULTRET);
        ffi::lua_gettop(l)
    }
}

/// Whether a format has a `%p` conversion: with every `%%` taken out (left
/// to right), a `%` followed by flags, width or precision and `p` (the Lua
/// pattern `%%[-+ #0-9.]*p`).
fn formats_an_address(fmt: &[u8]) -> bool {
    if !fmt.contains(&b'p') {
        return false;
    }
    let mut plain = Vec::with_capacity(fmt.len());
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] == b'%' && fmt.get(i + 1) == Some(&b'%') {
            i += 2;
        } else {
            plain.push(fmt[i]);
            i += 1;
        }
    }
    plain.iter().enumerate().filter(|&(_, &b)| b == b'%').any(|(at, _)| {
        let rest = &plain[at + 1..];
        let flags = rest.iter().take_while(|b| matches!(b, b'-' | b'+' | b' ' | b'#' | b'0'..=b'9' | b'.')).count();
        rest.get(flags) == Some(&b'p')
    })
}

/// A VM with only the safe libraries, nothing that loads code or touches
/// the machine, and a memory limit no script can catch (`heap.rs`). The
/// allocator must be dropped before the VM (see `heap::Installed`).
fn sandbox(limits: Limits) -> mlua::Result<(Lua, heap::Installed)> {
    let lua = Lua::new_with(StdLib::TABLE | StdLib::STRING | StdLib::MATH, LuaOptions::default())?;
    let g = lua.globals();
    for name in ["dofile", "loadfile", "load", "loadstring", "collectgarbage", "print", "require", "rawequal", "rawlen"] {
        g.set(name, Value::Nil)?;
    }
    // SAFETY: both follow the C API's rules for C functions (see there).
    unsafe {
        g.set("pcall", lua.create_c_function(pcall_for_scripts)?)?;
        g.set("xpcall", lua.create_c_function(xpcall_for_scripts)?)?;
    }
    let math: Table = g.get("math")?;
    math.set("random", Value::Nil)?;
    math.set("randomseed", Value::Nil)?;
    let string: Table = g.get("string")?;
    string.set("dump", Value::Nil)?;
    // Lua names a function that its call site does not name (one called
    // through `pcall`, a frame of a traceback) by searching the loaded
    // modules (the registry's `_LOADED`, with `_G` among them) in table
    // order, which follows string hashes seeded anew for every VM: a
    // function with two names (`pairs` and `spairs`, or a pack's
    // `REP = string.rep`) was named either way, so a rule branching on an
    // error message played two games from one seed. With no module listed
    // such a function is named by its call site or not at all, the same
    // in every run. Nothing in the sandbox loads modules (`require` is gone).
    lua.set_named_registry_value("_LOADED", lua.create_table()?)?;
    // Scripts make many short-lived tables; the generational collector
    // handles those cheaply (a larger young generation measured ~4% faster
    // games than Lua's default of 20).
    lua.gc_set_mode(mlua::state::GcMode::Generational(mlua::state::GcGenParams::default().minor_multiplier(50)));
    // A limit for mlua too, so that mlua runs every operation that may
    // allocate protected (without one, a memory error would unwind through
    // its Rust frames); the sandbox's allocator, in front of mlua's,
    // enforces the real one, so mlua's is as high as it goes.
    lua.set_memory_limit(isize::MAX as usize)?;
    let allocator = heap::install(&lua, limits.memory_bytes);
    Ok((lua, allocator))
}

/// Whether the call running on `l` met the memory limit: the allocator
/// refused a request for good (not the error's status: a `__close`
/// handler or a host function may have raised another error in its place,
/// and a script may raise Lua's own memory message itself).
///
/// # Safety
/// `l` is a live state of a sandboxed VM, inside a call.
unsafe fn met_memory_limit(l: *mut mlua::ffi::lua_State) -> bool {
    // SAFETY: the caller's promise; the reference ends with this function.
    unsafe { heap::of(l) }.is_some_and(heap::Heap::met)
}

/// Raises the error on top of `l` again, for a call that met the memory
/// limit. Lua's memory error names no place: the line that called `pcall`
/// is put in front of it (and, as any other error now, it gets a
/// traceback where the call began).
///
/// # Safety
/// Called from `pcall_for_scripts` or `xpcall_for_scripts` with the error
/// on top and two free stack slots; raises, never returns.
unsafe fn raise_again(l: *mut mlua::ffi::lua_State, status: std::ffi::c_int) -> ! {
    use mlua::ffi;
    // SAFETY: the caller's promise; only plain values in this frame.
    unsafe {
        if status == ffi::LUA_ERRMEM {
            ffi::luaL_where(l, 1);
            ffi::lua_pushstring(l, c"out of memory".as_ptr());
            ffi::lua_concat(l, 2);
        }
        ffi::lua_error(l)
    }
}

/// Scripts' `pcall`: Lua's, except that an error of a call that met the
/// memory limit goes on up (the call fails as a whole, `Shared::guarded`),
/// whatever its status now (a `__close` handler or a host function may
/// have replaced it). No coroutines in the sandbox, so no continuation.
unsafe extern "C-unwind" fn pcall_for_scripts(l: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    use mlua::ffi;
    // SAFETY: as Lua's own `luaB_pcall`: the `true` is pushed before the
    // call (a call with LUA_MULTRET leaves no free slot), at most two
    // values after an error (within LUA_MINSTACK); lua_error raises the
    // error object on top, and only plain values are alive in this frame.
    unsafe {
        ffi::luaL_checkany(l, 1);
        ffi::lua_pushboolean(l, 1);
        ffi::lua_insert(l, 1);
        let status = ffi::lua_pcall(l, ffi::lua_gettop(l) - 2, ffi::LUA_MULTRET, 0);
        if status == ffi::LUA_OK {
            return ffi::lua_gettop(l);
        }
        if met_memory_limit(l) {
            raise_again(l, status);
        }
        ffi::lua_pushboolean(l, 0);
        ffi::lua_pushvalue(l, -2);
        2
    }
}

/// Scripts' `xpcall`: Lua's, with `pcall_for_scripts`' rule, and the
/// message handler not called for an error of a call that met the memory
/// limit (Lua calls none for a memory error; this covers one that a host
/// function or a `__close` handler raised in its place).
unsafe extern "C-unwind" fn xpcall_for_scripts(l: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    use mlua::ffi;
    unsafe extern "C-unwind" fn handler(l: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
        // SAFETY: a message handler gets the error as its one argument and
        // returns one value; the script's handler (upvalue 1) is called
        // with it (one slot more, within LUA_MINSTACK).
        unsafe {
            if !met_memory_limit(l) {
                ffi::lua_pushvalue(l, ffi::lua_upvalueindex(1));
                ffi::lua_insert(l, 1);
                ffi::lua_call(l, ffi::lua_gettop(l) - 1, 1);
            }
            1
        }
    }
    // SAFETY: as Lua's own `luaB_xpcall`, with the handler wrapped in a C
    // closure first (it replaces argument 2); see `pcall_for_scripts`.
    unsafe {
        let n = ffi::lua_gettop(l);
        ffi::luaL_checktype(l, 2, ffi::LUA_TFUNCTION);
        ffi::lua_pushvalue(l, 2);
        ffi::lua_pushcclosure(l, handler, 1);
        ffi::lua_replace(l, 2);
        ffi::lua_pushboolean(l, 1);
        ffi::lua_pushvalue(l, 1);
        ffi::lua_rotate(l, 3, 2);
        let status = ffi::lua_pcall(l, n - 2, ffi::LUA_MULTRET, 2);
        if status == ffi::LUA_OK {
            return ffi::lua_gettop(l) - 2;
        }
        if met_memory_limit(l) {
            raise_again(l, status);
        }
        ffi::lua_pushboolean(l, 0);
        ffi::lua_pushvalue(l, -2);
        2
    }
}

#[cfg(test)]
mod format_tests {
    /// libFuzzer's `lua` finding (tests/fixtures/fuzz/lua): a message
    /// whose file name follows a whitespace wider than a byte was cut
    /// inside that character, a panic.
    #[test]
    fn a_place_after_a_wide_space_is_found_whole() {
        assert_eq!(super::locate("m\u{2000}ac.lua:3: x"), Some(("ac.lua".to_string(), 3)));
        assert_eq!(super::locate("\u{2000}.lua:7"), Some((".lua".to_string(), 7)));
        assert_eq!(super::locate("say 'é.lua:12: x'"), Some(("é.lua".to_string(), 12)));
        assert_eq!(super::strip_location("b.lua:4: no"), "no");
    }

    #[test]
    fn an_address_conversion_is_found_as_the_lua_pattern_finds_it() {
        for (fmt, address) in [
            ("%p", true),
            ("%5.2p", true),
            ("%%p", false),
            ("%%%p", true),
            ("%-%%p", true),
            ("%%%%p", false),
            ("%d %s", false),
            ("pp %d", false),
            ("%s %p", true),
            ("100%% sure, p", false),
        ] {
            assert_eq!(super::formats_an_address(fmt.as_bytes()), address, "{fmt}");
        }
    }
}
