//! The runaway-script guard: a time limit per call that costs nothing while
//! calls are short.
//!
//! Lua 5.4 checks for hooks on every instruction once any count hook is
//! set, so a permanent instruction-count hook slows every game. Instead, a
//! watchdog thread (one per process) looks at each runtime a few times a
//! second. A runtime marks the start of every outermost call by bumping a
//! sequence number (two plain atomic stores, no clock, no system call);
//! when the watchdog sees the same call still running after the limit, it
//! installs a count hook with `lua_sethook`, which Lua documents as safe to
//! call asynchronously (it is how `lua.c` interrupts a script on Ctrl-C).
//!
//! Once tripped, the hook raises an error on *every* instruction until the
//! call has returned to Rust, so `pcall` cannot swallow it: the first
//! instruction after a `pcall` fails again. The error names the file and
//! line where the call was interrupted. Work inside C functions is not
//! interrupted; the C functions that can run long on small input (pattern
//! matching with backtracking) are bounded in the prelude, the others are
//! bounded by the memory limit.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use mlua::ffi;

/// How often the watchdog looks at the runtimes.
const TICK: Duration = Duration::from_millis(25);

/// One runtime's view from the watchdog.
pub(crate) struct Watch {
    /// The main `lua_State` (all script code runs on it: the sandbox has no
    /// coroutines).
    state: usize,
    /// Bumped when an outermost call starts (written by the runtime's
    /// thread only).
    seq: AtomicU64,
    /// A call is running.
    active: AtomicBool,
    /// The `seq` of the call the watchdog interrupted (0: none).
    tripped: AtomicU64,
    /// Ticks a call may run.
    limit_ticks: AtomicU64,
    /// Serialises installing and removing the hook.
    lock: Mutex<()>,
    /// Where the interrupted call was (`file:line`), set by the hook.
    location: Mutex<Option<String>>,
    limit: Mutex<Duration>,
}

struct Registry {
    watches: Vec<(usize, Weak<Watch>)>,
}

fn registry() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        std::thread::Builder::new().name("shogun-watchdog".into()).spawn(watchdog).expect("cannot start the script watchdog thread");
        Mutex::new(Registry { watches: Vec::new() })
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn watchdog() {
    // (watch, seq last seen, ticks it has been running)
    let mut seen: Vec<(Weak<Watch>, u64, u64)> = Vec::new();
    loop {
        std::thread::sleep(TICK);
        let live: Vec<Arc<Watch>> = {
            let mut reg = lock(registry());
            reg.watches.retain(|(_, w)| w.strong_count() > 0);
            reg.watches.iter().filter_map(|(_, w)| w.upgrade()).collect()
        };
        seen.retain(|(w, _, _)| w.strong_count() > 0);
        for w in live {
            let seq = w.seq.load(Ordering::Acquire);
            let active = w.active.load(Ordering::Acquire);
            let entry = match seen.iter_mut().find(|(x, _, _)| std::ptr::eq(x.as_ptr(), Arc::as_ptr(&w))) {
                Some(e) => e,
                None => {
                    seen.push((Arc::downgrade(&w), seq, 0));
                    seen.last_mut().unwrap()
                }
            };
            if !active || entry.1 != seq {
                entry.1 = seq;
                entry.2 = 0;
                continue;
            }
            entry.2 += 1;
            if entry.2 >= w.limit_ticks.load(Ordering::Relaxed) && w.tripped.load(Ordering::Acquire) != seq {
                let _g = lock(&w.lock);
                if w.active.load(Ordering::Acquire) && w.seq.load(Ordering::Acquire) == seq {
                    w.tripped.store(seq, Ordering::Release);
                    // SAFETY: lua_sethook may be called asynchronously (see
                    // the module comment); the state lives as long as the
                    // Watch (the runtime drops its Arc before closing Lua).
                    unsafe { ffi::lua_sethook(w.state as *mut ffi::lua_State, Some(hook), ffi::LUA_MASKCOUNT, 1) };
                }
            }
        }
    }
}

fn find(state: *mut ffi::lua_State) -> Option<Arc<Watch>> {
    let reg = lock(registry());
    reg.watches.iter().find(|(s, _)| *s == state as usize).and_then(|(_, w)| w.upgrade())
}

/// The count hook the watchdog installs: fails the running call (again and
/// again until it has unwound to Rust), or removes itself when it was
/// installed for a call that has already ended.
unsafe extern "C-unwind" fn hook(state: *mut ffi::lua_State, ar: *mut ffi::lua_Debug) {
    let mut buf = [0u8; 512];
    let len = {
        let Some(w) = find(state) else {
            // SAFETY: a hook removing itself on its own state (Lua allows it).
            unsafe { ffi::lua_sethook(state, None, 0, 0) };
            return;
        };
        let seq = w.seq.load(Ordering::Acquire);
        if !w.active.load(Ordering::Acquire) || w.tripped.load(Ordering::Acquire) != seq {
            let _g = lock(&w.lock);
            if w.tripped.load(Ordering::Acquire) != w.seq.load(Ordering::Acquire) || !w.active.load(Ordering::Acquire) {
                // SAFETY: as above.
                unsafe { ffi::lua_sethook(state, None, 0, 0) };
            }
            return;
        }
        let mut location = lock(&w.location);
        if location.is_none() {
            let mut where_ = String::new();
            // SAFETY: `ar` is the hook's activation record for this state.
            unsafe {
                if ffi::lua_getinfo(state, c"Sl".as_ptr(), ar) != 0 && (*ar).currentline > 0 {
                    let src = std::ffi::CStr::from_ptr((*ar).short_src.as_ptr()).to_string_lossy();
                    where_ = format!("{src}:{}", (*ar).currentline);
                }
            }
            *location = Some(where_);
        }
        let mut cursor = std::io::Cursor::new(&mut buf[..]);
        let _ = match location.as_deref() {
            Some(l) if !l.is_empty() => write!(cursor, "{l}: {}", limit_message(*lock(&w.limit))),
            _ => write!(cursor, "{}", limit_message(*lock(&w.limit))),
        };
        cursor.position() as usize
        // Everything with a destructor is dropped here: lua_error does not return.
    };
    // SAFETY: the hook's boundary: only the plain buffer is alive in this
    // frame; a hook may raise (lua_error) on the state it runs on.
    unsafe {
        ffi::lua_pushlstring(state, buf.as_ptr().cast(), len);
        ffi::lua_error(state);
    }
}

fn ticks(limit: Duration) -> u64 {
    (limit.as_nanos() / TICK.as_nanos()).max(1) as u64
}

pub(crate) fn limit_message(limit: Duration) -> String {
    format!("time limit exceeded: one call ran longer than {:.1} s (an endless loop?)", limit.as_secs_f64())
}

impl Watch {
    /// Registers the VM whose main state is `state` with the watchdog.
    pub(crate) fn new(state: *mut ffi::lua_State, limit: Duration) -> Arc<Watch> {
        let w = Arc::new(Watch {
            state: state as usize,
            seq: AtomicU64::new(0),
            active: AtomicBool::new(false),
            tripped: AtomicU64::new(0),
            limit_ticks: AtomicU64::new(ticks(limit)),
            lock: Mutex::new(()),
            location: Mutex::new(None),
            limit: Mutex::new(limit),
        });
        let mut reg = lock(registry());
        reg.watches.retain(|(s, x)| x.strong_count() > 0 && *s != state as usize);
        reg.watches.push((state as usize, Arc::downgrade(&w)));
        w
    }

    /// Changes the time limit (between calls).
    pub(crate) fn set_limit(&self, limit: Duration) {
        self.limit_ticks.store(ticks(limit), Ordering::Relaxed);
        *lock(&self.limit) = limit;
    }

    /// Marks the start of an outermost call.
    pub(crate) fn start(&self) {
        self.seq.store(self.seq.load(Ordering::Relaxed) + 1, Ordering::Release);
        self.active.store(true, Ordering::Release);
    }

    /// Marks the end of the outermost call; `Some(message)` when the
    /// watchdog interrupted it (the hook is removed again).
    pub(crate) fn finish(&self) -> Option<String> {
        self.active.store(false, Ordering::Release);
        if self.tripped.load(Ordering::Acquire) != self.seq.load(Ordering::Relaxed) {
            return None;
        }
        let _g = lock(&self.lock);
        // SAFETY: called on the runtime's own thread between calls.
        unsafe { ffi::lua_sethook(self.state as *mut ffi::lua_State, None, 0, 0) };
        self.tripped.store(0, Ordering::Release);
        let location = lock(&self.location).take().unwrap_or_default();
        let message = limit_message(*lock(&self.limit));
        Some(if location.is_empty() { message } else { format!("{location}: {message}") })
    }

    /// Detaches the VM before it is closed.
    pub(crate) fn detach(&self) {
        let _g = lock(&self.lock);
        let mut reg = lock(registry());
        reg.watches.retain(|(s, _)| *s != self.state);
    }
}
