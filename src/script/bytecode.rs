//! What a compiled chunk would write that outlives a call, found before it
//! runs: a script keeps no state between calls, so every call sees the
//! same world (and undo, redo and replays agree).
//!
//! Tables a script can reach are locked by the prelude; what cannot be
//! locked at run time without slowing every access is refused here, from
//! the chunk's Lua 5.4 bytecode (`Function::dump`):
//! - a function assigning any captured variable (an upvalue: a closure
//!   made while the pack loads keeps it from call to call, whether the
//!   variable is a file-level local, `local n = 0 ... function() n = n + 1
//!   end`, or a local of a helper that returned the closure); every
//!   `SETUPVAL` but none, whatever made the closure;
//! - a function setting a global (only a file's top level may, while it
//!   loads), and any chunk replacing `_ENV` or taking it as a value (the
//!   globals table is reachable only through global names);
//! - a flat table of functions (`game`, `shogun`, `string`, `math`,
//!   `table`: `FLAT`) used other than to read one of its fields at once
//!   (`game.pay`, `math[k]`): no script holds one as a value, so none
//!   can write into it, and the tables themselves stay plain (a read of
//!   `game.pay` is a raw hit, not a step through a metatable).
//!
//! And for `shogun check` only (`loaded_table_writes`, a warning): a
//! function writing into a table the pack made while loading, which the
//! prelude makes read-only once the pack has loaded.

/// One refused write: the line and what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    pub line: usize,
    pub message: String,
}

const OP_LOADK: u32 = 3;
const OP_LOADKX: u32 = 4;
const OP_GETUPVAL: u32 = 9;
const OP_SETUPVAL: u32 = 10;
const OP_GETTABUP: u32 = 11;
const OP_GETTABLE: u32 = 12;
const OP_GETI: u32 = 13;
const OP_GETFIELD: u32 = 14;
const OP_SETTABUP: u32 = 15;
const OP_SETTABLE: u32 = 16;
const OP_EXTRAARG: u32 = 82;

/// The globals that are flat tables of functions: read only as
/// `NAME.field` (or `NAME[key]`), never taken as a value.
pub const FLAT: [&str; 5] = ["game", "shogun", "string", "math", "table"];

/// Whether the table a `GETTABUP` at `pc` put into register `a` goes no
/// further than a field read: `a` is a temporary (no local variable's
/// register once the instruction has run), and the next instruction reads
/// a field of it; the compiler frees the temporary at once.
/// (A key that is not among a function's first 256 constants is loaded
/// into the next register first: `LOADK`, then `GETTABLE`.)
fn only_read_in_place(p: &Proto, pc: usize, a: usize) -> bool {
    a >= p.locals_at(pc + 1) && reads_field_of(&p.code, pc, a)
}

fn reads_field_of(code: &[u32], pc: usize, a: usize) -> bool {
    let field = |ins: u32| (ins >> 16) & 0xff == a as u32;
    match code.get(pc + 1).map(|&ins| (ins & 0x7f, ins)) {
        Some((OP_GETTABLE | OP_GETI | OP_GETFIELD, ins)) => field(ins),
        _ => key_loaded(code, pc + 1, a + 1)
            .and_then(|(_, at)| code.get(at))
            .is_some_and(|&get| get & 0x7f == OP_GETTABLE && field(get) && get >> 24 == a as u32 + 1),
    }
}

/// A constant loaded into register `reg` at `pc` (`LOADK`, or `LOADKX` and
/// its `EXTRAARG`): the constant's index and the pc after the load.
fn key_loaded(code: &[u32], pc: usize, reg: usize) -> Option<(usize, usize)> {
    let load = *code.get(pc)?;
    if (load >> 7) & 0xff != reg as u32 {
        return None;
    }
    match load & 0x7f {
        OP_LOADK => Some(((load >> 15) as usize, pc + 1)),
        OP_LOADKX => {
            let extra = *code.get(pc + 1)?;
            (extra & 0x7f == OP_EXTRAARG).then_some(((extra >> 7) as usize, pc + 2))
        }
        _ => None,
    }
}

/// A global read or set that Lua compiles through `_ENV` in a register:
/// when the name is not a short string among the function's first 256
/// constants, `GETTABUP` cannot name it, so the compiler emits `GETUPVAL
/// a _ENV`, `LOADK a+1 name` (or `LOADKX` and its `EXTRAARG`), then
/// `GETTABLE r a a+1` at once, or, for a set, the value's code and then
/// `SETTABLE a a+1 v`. Found only in that shape with `a` a temporary (the
/// compiler reads the table once, for the read or the store, and drops
/// it, as with `GETTABUP`/`SETTABUP`): the pc of the `GETTABLE` or
/// `SETTABLE`, the name, and whether it sets.
fn global_through_register(p: &Proto, pc: usize, a: usize) -> Option<(usize, String, bool)> {
    if a < p.locals_at(pc + 1) {
        return None;
    }
    let (key, at) = key_loaded(&p.code, pc + 1, a + 1)?;
    let name = p.strings.get(key).cloned().flatten()?;
    let fields = |ins: u32| (ins & 0x7f, ((ins >> 7) & 0xff) as usize, ((ins >> 16) & 0xff) as usize, (ins >> 24) as usize);
    if let (OP_GETTABLE, _, rb, rc) = fields(*p.code.get(at)?) {
        return (rb == a && rc == a + 1).then_some((at, name, false));
    }
    // A set: the value is computed into the registers above a + 1 first
    // (the compiler keeps a and a + 1 for the store), then `SETTABLE`.
    let store = (at..p.code.len()).find(|&i| matches!(fields(p.code[i]), (OP_SETTABLE, ra, rb, _) if ra == a && rb == a + 1))?;
    Some((store, name, true))
}

struct Proto {
    line_defined: usize,
    code: Vec<u32>,
    /// String constants by index (None for other constants).
    strings: Vec<Option<String>>,
    /// (in the enclosing function's registers, index) per upvalue.
    upvalues: Vec<(bool, usize)>,
    protos: Vec<Proto>,
    lineinfo: Vec<i8>,
    abslineinfo: Vec<(usize, usize)>,
    upvalue_names: Vec<String>,
    /// (first pc, pc past the last) of each local variable held in a
    /// register, in the order they become active.
    locals: Vec<(usize, usize)>,
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len()).ok_or("truncated bytecode")?;
        let out = &self.data[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.bytes(1)?[0])
    }
    fn size(&mut self) -> Result<usize, String> {
        let mut x: usize = 0;
        loop {
            let b = self.byte()?;
            x = x.checked_mul(128).and_then(|x| x.checked_add(usize::from(b & 0x7f))).ok_or("bad size in bytecode")?;
            if b & 0x80 != 0 {
                return Ok(x);
            }
        }
    }
    fn string(&mut self) -> Result<Option<String>, String> {
        match self.size()? {
            0 => Ok(None),
            n => Ok(Some(String::from_utf8_lossy(self.bytes(n - 1)?).into_owned())),
        }
    }
    fn count(&mut self, each: usize) -> Result<usize, String> {
        let n = self.size()?;
        if n.saturating_mul(each) > self.data.len() - self.at {
            return Err("truncated bytecode".into());
        }
        Ok(n)
    }

    fn proto(&mut self, depth: usize) -> Result<Proto, String> {
        if depth > 250 {
            return Err("functions nest too deeply".into());
        }
        self.string()?; // source
        let line_defined = self.size()?;
        self.size()?; // last line
        self.bytes(3)?; // parameters, vararg, stack size
        let n = self.count(4)?;
        let code = self.bytes(n * 4)?.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let n = self.count(1)?;
        let mut strings = Vec::with_capacity(n);
        for _ in 0..n {
            strings.push(match self.byte()? {
                0x03 | 0x13 => {
                    self.bytes(8)?;
                    None
                }
                0x04 | 0x14 => self.string()?,
                _ => None,
            });
        }
        let n = self.count(3)?;
        let mut upvalues = Vec::with_capacity(n);
        for _ in 0..n {
            let b = self.bytes(3)?;
            upvalues.push((b[0] != 0, usize::from(b[1])));
        }
        let n = self.count(1)?;
        let mut protos = Vec::with_capacity(n);
        for _ in 0..n {
            protos.push(self.proto(depth + 1)?);
        }
        let n = self.count(1)?;
        let lineinfo = self.bytes(n)?.iter().map(|&b| b as i8).collect();
        let n = self.count(2)?;
        let mut abslineinfo = Vec::with_capacity(n);
        for _ in 0..n {
            abslineinfo.push((self.size()?, self.size()?));
        }
        let n = self.count(3)?;
        let mut locals = Vec::with_capacity(n);
        for _ in 0..n {
            self.string()?;
            locals.push((self.size()?, self.size()?));
        }
        let n = self.count(1)?;
        let mut upvalue_names = Vec::with_capacity(n);
        for _ in 0..n {
            upvalue_names.push(self.string()?.unwrap_or_default());
        }
        Ok(Proto { line_defined, code, strings, upvalues, protos, lineinfo, abslineinfo, upvalue_names, locals })
    }
}

impl Proto {
    /// The source line of instruction `pc` (as Lua's luaG_getfuncline).
    fn line(&self, pc: usize) -> usize {
        if self.lineinfo.is_empty() {
            return self.line_defined;
        }
        let (mut base_pc, mut line) = (-1i64, self.line_defined as i64);
        for &(p, l) in &self.abslineinfo {
            if p <= pc {
                (base_pc, line) = (p as i64, l as i64);
            }
        }
        while base_pc < pc as i64 {
            base_pc += 1;
            line += self.lineinfo.get(base_pc as usize).map_or(0, |&d| i64::from(d));
        }
        line.max(1) as usize
    }

    /// How many registers hold local variables at `pc` (the locals
    /// active there take the lowest registers, in order).
    fn locals_at(&self, pc: usize) -> usize {
        self.locals.iter().filter(|&&(start, end)| start <= pc && pc < end).count()
    }

    fn upvalue_name(&self, i: usize) -> &str {
        self.upvalue_names.get(i).map(|s| s.as_str()).filter(|s| !s.is_empty()).unwrap_or("?")
    }
}

/// The main function of a dumped chunk (after the header and the count of
/// its upvalues).
fn main_proto(dump: &[u8]) -> Result<Proto, String> {
    let mut r = Reader { data: dump, at: 0 };
    let header = r.bytes(31)?;
    if &header[..4] != b"\x1bLua" || header[4] != 0x54 {
        return Err("not Lua 5.4 bytecode".into());
    }
    r.byte()?; // upvalues of the main function
    r.proto(0)
}

/// Checks a chunk compiled from a pack file (`runs_later` false: its top
/// level runs while the pack loads) or typed at the REPL (`runs_later`
/// true: it runs after sealing, so it may not set globals either).
pub fn check(dump: &[u8], runs_later: bool) -> Result<Vec<Refused>, String> {
    let main = main_proto(dump)?;
    let n = main.upvalues.len();
    let mut out = Vec::new();
    walk(&main, &vec![true; n], &vec![true; n], true, runs_later, &mut out);
    out.sort_by_key(|r| r.line);
    out.dedup();
    Ok(out)
}

/// Whether the function dumped in `dump` assigns one of its own upvalues
/// (its own code, not that of functions it makes): a closure that keeps
/// state from call to call, such as the prelude's sorted `pairs`
/// iterator, if one is made while the pack loads and kept.
pub fn writes_upvalues(dump: &[u8]) -> Result<bool, String> {
    let p = main_proto(dump)?;
    Ok(p.code.iter().any(|&ins| ins & 0x7f == OP_SETUPVAL))
}

/// The refusal for a global `name` read at `pc` into register `a`: a flat
/// table taken other than to read one of its fields at once.
fn flat_misused(p: &Proto, pc: usize, a: usize, name: Option<String>) -> Option<String> {
    match name.as_deref() {
        Some(flat) if FLAT.contains(&flat) && !only_read_in_place(p, pc, a) => Some(format!(
            "uses `{flat}` other than to read one of its fields: `{flat}` is read-only (write `{flat}.name`, and keep a function of it in a local if you like: `local f = {flat}.name`)"
        )),
        _ => None,
    }
}

/// The refusal for setting the global `name`: only a file's top level
/// may, while the pack loads.
fn global_set(name: &str, is_main: bool, runs_later: bool) -> Option<String> {
    if runs_later {
        Some(format!("cannot set global `{name}`: scripts keep no state between calls"))
    } else if !is_main {
        Some(format!("sets the global `{name}` inside a function: scripts keep no state between calls (globals are defined at a file's top level)"))
    } else {
        None
    }
}

/// Upvalue `i`'s flag in `v` (false past the end).
fn flag(v: &[bool], i: usize) -> bool {
    v.get(i).copied().unwrap_or(false)
}

/// `file_level[i]`: upvalue i lives as long as the pack; `env[i]`: it is
/// the chunk's `_ENV` (the globals table).
fn walk(p: &Proto, file_level: &[bool], env: &[bool], is_main: bool, runs_later: bool, out: &mut Vec<Refused>) {
    for (pc, &ins) in p.code.iter().enumerate() {
        let op = ins & 0x7f;
        let a = ((ins >> 7) & 0xff) as usize;
        let b = ((ins >> 16) & 0xff) as usize;
        let message = match op {
            OP_SETUPVAL if flag(env, b) => Some("replaces _ENV (the globals are read-only)".to_string()),
            OP_SETUPVAL if flag(file_level, b) => Some(format!(
                "assigns the file-level local `{}` inside a function: scripts keep no state between calls (declare it `<const>`, or keep the value in the game)",
                p.upvalue_name(b)
            )),
            // A local of an enclosing function: a closure made while the
            // pack loads (a helper's counter) would carry it across calls,
            // and no check at run time could tell that closure from one
            // made per call.
            OP_SETUPVAL => Some(format!(
                "assigns `{}`, a local of an enclosing function, inside a closure: scripts keep no state between calls (return the new value, or keep it in a table local to the call)",
                p.upvalue_name(b)
            )),
            OP_GETUPVAL if flag(env, b) => match global_through_register(p, pc, a) {
                None => Some("uses _ENV as a value (the globals table is not reachable)".to_string()),
                Some((at, name, false)) => flat_misused(p, at, ((p.code[at] >> 7) & 0xff) as usize, Some(name)),
                Some((_, name, true)) => global_set(&name, is_main, runs_later),
            },
            OP_GETTABUP if flag(env, b) => flat_misused(p, pc, a, p.strings.get(((ins >> 24) & 0xff) as usize).cloned().flatten()),
            OP_SETTABUP if flag(env, a) => global_set(&p.strings.get(b).cloned().flatten().unwrap_or_else(|| "?".into()), is_main, runs_later),
            _ => None,
        };
        if let Some(message) = message {
            out.push(Refused { line: p.line(pc), message });
        }
    }
    for child in &p.protos {
        let (fl, ev) = child_upvalues(child, file_level, env, is_main);
        walk(child, &fl, &ev, false, runs_later, out);
    }
}

/// `file_level` and `env` (as in `walk`) for the upvalues of `child`, a
/// function made inside the one they describe (`is_main`: the chunk's
/// main function, whose locals live as long as the pack).
fn child_upvalues(child: &Proto, file_level: &[bool], env: &[bool], is_main: bool) -> (Vec<bool>, Vec<bool>) {
    let fl = child.upvalues.iter().map(|&(instack, idx)| if instack { is_main } else { flag(file_level, idx) }).collect();
    let ev = child.upvalues.iter().map(|&(instack, idx)| !instack && flag(env, idx)).collect();
    (fl, ev)
}

/// Writes into a table the pack made while it loaded, found in functions
/// (not a file's top level): `CACHE[k] = v`, `T.x = v`, `T.sub.x = v`,
/// where `CACHE` or `T` is a file-level local or a global. Once the pack
/// has loaded, the prelude makes every table a function can reach
/// read-only, so such a write fails when it runs during play ("rules data
/// is read-only"); it is fine in a function that only runs while the pack
/// loads, which the bytecode cannot tell: `shogun check` reports these as
/// warnings. Followed in code order within a function, through local
/// copies and field reads (`local t = CACHE.sub`), not through calls
/// (`table.insert(CACHE, v)` is not seen). Code order, not control flow:
/// a register set in a branch that returns early still counts after it
/// (`if not t then t = CACHE return t.v end t.v = 1` warns), and one set
/// in the first of two branches is forgotten in the second.
pub fn loaded_table_writes(dump: &[u8]) -> Result<Vec<Refused>, String> {
    let main = main_proto(dump)?;
    let n = main.upvalues.len();
    let mut out = Vec::new();
    writes_under(&main, &vec![true; n], &vec![true; n], true, &mut out);
    out.sort_by(|a, b| (a.line, &a.message).cmp(&(b.line, &b.message)));
    out.dedup();
    Ok(out)
}

const OP_MOVE: u32 = 0;
const OP_SETI: u32 = 17;
const OP_SETFIELD: u32 = 18;
const OP_SETLIST: u32 = 78;

/// `writes_in` for every function under `p` (`file_level` and `env` as
/// in `walk`).
fn writes_under(p: &Proto, file_level: &[bool], env: &[bool], is_main: bool, out: &mut Vec<Refused>) {
    if !is_main {
        writes_in(p, file_level, env, out);
    }
    for child in &p.protos {
        let (fl, ev) = child_upvalues(child, file_level, env, is_main);
        writes_under(child, &fl, &ev, false, out);
    }
}

/// The loaded-table writes of one function: which registers hold a table
/// the pack made while loading (by name), in code order.
fn writes_in(p: &Proto, file_level: &[bool], env: &[bool], out: &mut Vec<Refused>) {
    let loaded_upvalue = |u: usize| flag(file_level, u) && !flag(env, u);
    let mut held: Vec<Option<String>> = vec![None; 256];
    let message = |name: &str| {
        format!(
            "writes into `{name}`, a table made before play (by the pack while it loaded, or the host's, as RULES): once the pack has loaded it is read-only, so this fails if it runs during play (\"rules data is read-only\"); fill a table local to the call, or keep the value in the game"
        )
    };
    for (pc, &ins) in p.code.iter().enumerate() {
        let op = ins & 0x7f;
        let a = ((ins >> 7) & 0xff) as usize;
        let b = ((ins >> 16) & 0xff) as usize;
        let c = (ins >> 24) as usize;
        match op {
            OP_SETTABLE | OP_SETI | OP_SETFIELD | OP_SETLIST => {
                if let Some(name) = &held[a] {
                    out.push(Refused { line: p.line(pc), message: message(name) });
                }
            }
            OP_SETTABUP if loaded_upvalue(a) => out.push(Refused { line: p.line(pc), message: message(p.upvalue_name(a)) }),
            // No register written.
            OP_SETUPVAL | OP_SETTABUP | 46..=48 | 54..=66 | 70..=72 | 75 | 81 | OP_EXTRAARG => {}
            OP_MOVE => held[a] = held[b].clone(),
            OP_GETUPVAL => held[a] = loaded_upvalue(b).then(|| p.upvalue_name(b).to_string()),
            OP_GETTABUP if flag(env, b) => {
                let name = p.strings.get(c).cloned().flatten();
                held[a] = name.filter(|n| !FLAT.contains(&n.as_str()));
            }
            OP_GETTABUP => held[a] = loaded_upvalue(b).then(|| p.upvalue_name(b).to_string()),
            OP_GETTABLE | OP_GETI | OP_GETFIELD => held[a] = held[b].clone(),
            // Calls, loops, `...`, `self` and `nil` runs write from A up.
            8 | 20 | 68 | 69 | 73 | 74 | 76 | 77 | 80 => held[a..].iter_mut().for_each(|h| *h = None),
            _ => held[a] = None,
        }
    }
}
