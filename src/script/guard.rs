//! The runaway-script guard: a time limit per call that costs nothing while
//! calls are short. On Linux the limit is processor time, the time the
//! call's thread has run (its CPU clock), so a loaded machine, where a
//! thread waits its turn for seconds, does not fail calls that an idle one
//! runs (a game or an answer that depends on the load); elsewhere it is
//! wall-clock time.
//!
//! Lua 5.4 checks for hooks on every instruction once any count hook is
//! set, so a permanent instruction-count hook slows every game (a plain
//! loop ran 2.5x slower with a count hook that did nothing). Instead, a
//! watchdog thread (one per process) looks at each runtime a few times a
//! second. A runtime marks the start of every outermost call by bumping a
//! sequence number (plain atomic stores, no clock, no system call); when
//! the watchdog sees the same call still running after the limit, it marks
//! the call tripped and sends the runtime's thread a signal (`SIGURG`,
//! ignored by default). The handler, on the VM's own thread, installs a
//! count hook with `lua_sethook`, which Lua allows in a signal handler: it
//! is how `lua.c` interrupts a script on Ctrl-C. The watchdog itself never
//! touches a `lua_State` (`lua_sethook` walks the thread's CallInfo list,
//! which the VM's thread frees as it goes: called from another thread,
//! that was a data race).
//!
//! Once tripped, the hook raises an error on *every* instruction until the
//! call has returned to Rust, so `pcall` cannot swallow it: the first
//! instruction after a `pcall` fails again. The error names the file and
//! line where the call was interrupted. Work inside C functions is not
//! interrupted; the C functions that can run long on small input (pattern
//! matching with backtracking) are bounded in the prelude, the others are
//! bounded by the memory limit. Without Unix signals, the hook is set
//! before every outermost call instead (sound, but every instruction pays).

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use mlua::ffi;

std::thread_local! {
    /// Whether this thread is the watchdog (set once, when it starts). A
    /// constant initialiser and no destructor: `set_hook` may read it in a
    /// signal handler.
    static ON_WATCHDOG: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The one place that calls `lua_sethook`; it refuses the watchdog's
/// thread, which must never touch a `lua_State` (issue 23 item 10: the
/// hook walks the CallInfo list the VM's own thread frees as it runs).
/// Called on the VM's thread: before or after a call, from the hook
/// itself, or from the signal handler the watchdog's signal runs there.
///
/// # Safety
/// `state` is a live `lua_State`, and the caller runs on the thread that
/// runs it (or in a signal handler on that thread).
unsafe fn set_hook(state: *mut ffi::lua_State, f: Option<ffi::lua_Hook>, mask: std::ffi::c_int, count: std::ffi::c_int) {
    if ON_WATCHDOG.with(std::cell::Cell::get) {
        // Never reached: the watchdog only marks calls and signals threads.
        // Aborting (not unwinding: this may run in a signal handler) ends
        // the process before a write to freed memory could.
        std::process::abort();
    }
    // SAFETY: the caller's promise.
    unsafe { ffi::lua_sethook(state, f, mask, count) };
}

/// How often the watchdog looks at the runtimes.
const TICK: Duration = Duration::from_millis(25);

/// One runtime's view from the watchdog.
pub(crate) struct Watch {
    /// The main `lua_State` (all script code runs on it: the sandbox has no
    /// coroutines). Only the VM's own thread passes it to Lua.
    state: usize,
    /// The thread running the current call (a `pthread_t`), written by it
    /// at the start of each outermost call.
    #[cfg(unix)]
    thread: std::sync::atomic::AtomicUsize,
    /// Bumped when an outermost call starts (written by the runtime's
    /// thread only).
    seq: AtomicU64,
    /// A call is running.
    active: AtomicBool,
    /// The `seq` of the call the watchdog interrupted (0: none).
    tripped: AtomicU64,
    /// The limit in nanoseconds: of the thread's CPU time, or of wall
    /// time (in whole ticks, at least one) where there is no CPU clock.
    limit_nanos: AtomicU64,
    /// The CPU clock of the thread running the current call (a
    /// `clockid_t`), written by it at the start of each outermost call.
    #[cfg(target_os = "linux")]
    clock: std::sync::atomic::AtomicI32,
    /// Held while the watchdog signals the call's thread, and by `finish`
    /// of a tripped call: the thread cannot end while it is signalled.
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
        #[cfg(unix)]
        interrupt::install();
        std::thread::Builder::new().name("shogun-watchdog".into()).spawn(watchdog).expect("cannot start the script watchdog thread");
        Mutex::new(Registry { watches: Vec::new() })
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn watchdog() {
    ON_WATCHDOG.with(|w| w.set(true));
    // (watch, seq last seen, ticks it has been running, its thread's CPU
    // time when the watchdog first saw it running)
    let mut seen: Vec<(Weak<Watch>, u64, u64, Option<u64>)> = Vec::new();
    loop {
        std::thread::sleep(TICK);
        let live: Vec<Arc<Watch>> = {
            let mut reg = lock(registry());
            reg.watches.retain(|(_, w)| w.strong_count() > 0);
            reg.watches.iter().filter_map(|(_, w)| w.upgrade()).collect()
        };
        seen.retain(|(w, ..)| w.strong_count() > 0);
        for w in live {
            let seq = w.seq.load(Ordering::Acquire);
            let active = w.active.load(Ordering::Acquire);
            let entry = match seen.iter_mut().find(|(x, ..)| std::ptr::eq(x.as_ptr(), Arc::as_ptr(&w))) {
                Some(e) => e,
                None => {
                    seen.push((Arc::downgrade(&w), seq, 0, None));
                    seen.last_mut().unwrap()
                }
            };
            if !active || entry.1 != seq {
                entry.1 = seq;
                entry.2 = 0;
                entry.3 = if active { w.cpu_nanos() } else { None };
                continue;
            }
            entry.2 += 1;
            let over = match (entry.3, w.cpu_nanos()) {
                (Some(first), Some(now)) => now.saturating_sub(first) >= w.limit_nanos.load(Ordering::Relaxed),
                (None, Some(now)) => {
                    entry.3 = Some(now);
                    false
                }
                (_, None) => entry.2 >= ticks(w.limit_nanos.load(Ordering::Relaxed)),
            };
            if over {
                // Marked, and the thread asked again every tick until the
                // call ends (a nested runtime's call may be running on the
                // thread when the first signal arrives).
                let _g = lock(&w.lock);
                w.tripped.store(seq, Ordering::SeqCst);
                if w.active.load(Ordering::SeqCst) && w.seq.load(Ordering::Acquire) == seq {
                    #[cfg(unix)]
                    interrupt::signal(&w);
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
            unsafe { set_hook(state, None, 0, 0) };
            return;
        };
        let seq = w.seq.load(Ordering::Acquire);
        if !w.active.load(Ordering::Acquire) {
            // SAFETY: as above.
            unsafe { set_hook(state, None, 0, 0) };
            return;
        }
        if w.tripped.load(Ordering::Acquire) != seq {
            // Set before the call (no signals) and not tripped: carry on.
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

fn ticks(limit_nanos: u64) -> u64 {
    (u128::from(limit_nanos) / TICK.as_nanos()).max(1) as u64
}

fn nanos(limit: Duration) -> u64 {
    limit.as_nanos().min(u128::from(u64::MAX)) as u64
}

pub(crate) fn limit_message(limit: Duration) -> String {
    let how = if cfg!(target_os = "linux") { "used more than {} s of processor time" } else { "ran longer than {} s" };
    format!("time limit exceeded: one call {} (an endless loop?)", how.replace("{}", &format!("{:.1}", limit.as_secs_f64())))
}

/// The thread CPU clock of the calling thread (computed once a thread).
#[cfg(target_os = "linux")]
fn own_clock() -> libc::clockid_t {
    thread_local! {
        static CLOCK: std::cell::Cell<Option<libc::clockid_t>> = const { std::cell::Cell::new(None) };
    }
    CLOCK.with(|c| {
        c.get().unwrap_or_else(|| {
            let mut id: libc::clockid_t = 0;
            // SAFETY: pthread_getcpuclockid writes a clockid_t into `id`, ours,
            // for this thread (alive: it is the caller).
            let ok = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) } == 0;
            // -1 is no clock id (CLOCK_REALTIME is 0, so 0 is no sentinel).
            let id = if ok { id } else { -1 };
            c.set(Some(id));
            id
        })
    })
}

impl Watch {
    /// Registers the VM whose main state is `state` with the watchdog.
    pub(crate) fn new(state: *mut ffi::lua_State, limit: Duration) -> Arc<Watch> {
        let w = Arc::new(Watch {
            state: state as usize,
            #[cfg(unix)]
            thread: std::sync::atomic::AtomicUsize::new(0),
            seq: AtomicU64::new(0),
            active: AtomicBool::new(false),
            tripped: AtomicU64::new(0),
            limit_nanos: AtomicU64::new(nanos(limit)),
            #[cfg(target_os = "linux")]
            clock: std::sync::atomic::AtomicI32::new(-1),
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
        self.limit_nanos.store(nanos(limit), Ordering::Relaxed);
        *lock(&self.limit) = limit;
    }

    /// Marks the start of an outermost call, on the VM's thread; the call
    /// ends with `Call::finish` (or when it is dropped).
    pub(crate) fn start(&self) -> Call<'_> {
        self.seq.store(self.seq.load(Ordering::Relaxed) + 1, Ordering::Release);
        #[cfg(unix)]
        // SAFETY: pthread_self has no preconditions.
        self.thread.store(unsafe { libc::pthread_self() } as usize, Ordering::Relaxed);
        #[cfg(target_os = "linux")]
        self.clock.store(own_clock(), Ordering::Relaxed);
        #[cfg(unix)]
        let outer = interrupt::enter(self);
        #[cfg(not(unix))]
        // SAFETY: on the VM's own thread, before the call.
        unsafe {
            set_hook(self.state as *mut ffi::lua_State, Some(hook), ffi::LUA_MASKCOUNT, 1000)
        };
        self.active.store(true, Ordering::SeqCst);
        Call {
            watch: self,
            #[cfg(unix)]
            outer,
            done: false,
        }
    }

    /// The CPU time the thread running the current call has used, in
    /// nanoseconds; `None` without a thread CPU clock, or when the thread
    /// has ended (its clock reads as an error; were its id reused by a new
    /// thread of this process, that thread's time is read: harmless, since
    /// the call it was read for has ended, and the watchdog signals only a
    /// call still active with the same sequence number).
    fn cpu_nanos(&self) -> Option<u64> {
        #[cfg(target_os = "linux")]
        {
            let id = self.clock.load(Ordering::Relaxed);
            if id == -1 {
                return None;
            }
            let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            // SAFETY: clock_gettime writes a timespec into `t`, ours; any
            // clock id is safe to pass (a bad one fails with EINVAL).
            if unsafe { libc::clock_gettime(id, &mut t) } != 0 {
                return None;
            }
            Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
        }
        #[cfg(not(target_os = "linux"))]
        None
    }

    fn end(&self) -> Option<String> {
        self.active.store(false, Ordering::SeqCst);
        let seq = self.seq.load(Ordering::Relaxed);
        #[cfg(not(unix))]
        // SAFETY: on the VM's own thread, after the call.
        unsafe {
            set_hook(self.state as *mut ffi::lua_State, None, 0, 0)
        };
        if self.tripped.load(Ordering::SeqCst) != seq {
            // The watchdog marks a call before it signals, and signals
            // only while `active`: it has not and will not signal this call.
            return None;
        }
        // Waits for a signal being sent to this thread to be sent.
        let _g = lock(&self.lock);
        // SAFETY: called on the runtime's own thread between calls.
        unsafe { set_hook(self.state as *mut ffi::lua_State, None, 0, 0) };
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

/// An outermost call in progress (see `Watch::start`).
pub(crate) struct Call<'a> {
    watch: &'a Watch,
    /// The call this one runs inside (another runtime's), if any.
    #[cfg(unix)]
    outer: *const Watch,
    done: bool,
}

impl Call<'_> {
    /// Marks the end of the outermost call; `Some(message)` when the
    /// watchdog interrupted it (the hook is removed again).
    pub(crate) fn finish(mut self) -> Option<String> {
        self.done = true;
        self.leave()
    }

    fn leave(&self) -> Option<String> {
        let message = self.watch.end();
        #[cfg(unix)]
        interrupt::leave(self.outer);
        message
    }
}

impl Drop for Call<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.leave();
        }
    }
}

/// The signal that asks a VM's thread to install the hook itself.
#[cfg(unix)]
mod interrupt {
    use std::cell::Cell;
    use std::sync::atomic::Ordering;

    use super::{Watch, ffi, hook};

    const SIGNAL: libc::c_int = libc::SIGURG;

    thread_local! {
        /// The watch of the outermost call running on this thread (null:
        /// none). A constant initialiser and no destructor: reading it
        /// in a signal handler touches nothing else.
        static RUNNING: Cell<*const Watch> = const { Cell::new(std::ptr::null()) };
    }

    pub(super) fn install() {
        // SAFETY: a sigaction for a signal nothing else in the program
        // uses, with a handler that only reads atomics and calls
        // lua_sethook (which Lua allows in a signal handler).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(SIGNAL, &action, std::ptr::null_mut());
        }
    }

    /// Makes `w` this thread's running call; returns the one it replaces.
    pub(super) fn enter(w: &Watch) -> *const Watch {
        RUNNING.with(|r| r.replace(w))
    }

    pub(super) fn leave(outer: *const Watch) {
        RUNNING.with(|r| r.set(outer));
    }

    /// Asks the thread running `w`'s call to install the hook (the caller
    /// holds `w.lock` and has seen the call active, so the thread is alive).
    pub(super) fn signal(w: &Watch) {
        // SAFETY: the thread is alive: it is in the call, and cannot
        // finish it while the lock is held.
        unsafe { libc::pthread_kill(w.thread.load(Ordering::Relaxed) as libc::pthread_t, SIGNAL) };
    }

    extern "C" fn handler(_: libc::c_int) {
        let w = RUNNING.with(Cell::get);
        if w.is_null() {
            return;
        }
        // SAFETY: RUNNING points at a watch only while its call runs on
        // this thread (the runtime owning it is alive), and this handler
        // runs on this thread.
        let w = unsafe { &*w };
        if w.active.load(Ordering::SeqCst) && w.tripped.load(Ordering::SeqCst) == w.seq.load(Ordering::Relaxed) {
            // SAFETY: on the VM's own thread, from a signal handler, as
            // Lua's manual allows (and lua.c does).
            unsafe { super::set_hook(w.state as *mut ffi::lua_State, Some(hook), ffi::LUA_MASKCOUNT, 1) };
        }
    }
}
