//! The VM's allocator: the memory limit, whether a call met it, and a heap
//! that the calls before one do not shape.
//!
//! A script could observe memory pressure: an allocation past the limit
//! is refused, and Lua raises a memory error (`LUA_ERRMEM`) that a
//! script's `pcall` caught. The VM's core retries a refused request once,
//! after an emergency collection, which frees garbage but shrinks no
//! stack, CallInfo list or string table that earlier calls grew (only a
//! normal cycle does: `traversethread`, `checkSizes`); so whether
//! `pcall(string.rep, "x", 31 << 20)` succeeded depended on how deep the
//! calls before it had recursed. Three things close that:
//! - this allocator, in place of mlua's, marks the call as having *met the
//!   limit* when a request is refused for good: refused again when Lua
//!   retries it, or never retried (the auxiliary library's buffers, behind
//!   `string.rep`, `string.format` and `table.concat`, raise at the first
//!   refusal), which the next request being another one, or the error
//!   reaching a `pcall` or the end of the call, shows;
//! - such a call fails as a whole, whatever the script did with the error
//!   (`Shared::guarded`; the sandbox's `pcall` and `xpcall` pass the
//!   error on at once, see `pcall_for_scripts`), as a call that meets the
//!   time limit does;
//! - after an outermost call that met the limit, or that left the heap more
//!   than the watermark above what loading left (`Heap::settle`), full
//!   collections (not emergency ones) run until one frees nothing more:
//!   the stack, the CallInfo list and the string table shrink back.
//!
//! Every block is still made and freed by the allocator this one replaced
//! (mlua's, with its own count of the bytes in use): this one only counts,
//! refuses and records, then passes the request on. So nothing here
//! depends on how that allocator lays out its blocks, and blocks made
//! before the swap free alike. Only the public C API is used
//! (`lua_getallocf`, `lua_setallocf`, `lua_gc`).

use std::cell::Cell;
use std::ffi::c_void;

use mlua::{Lua, WeakLua, ffi};

/// The heap may stay this far, plus the memory right after load, above
/// that memory after an outermost call before full collections run (the
/// watermark grows with what a pack keeps, as the generational
/// collector's garbage between its cycles does). Ordinary play stays far
/// below it: after every call of 200 games each of random, greedy and
/// planner bots, 50 of greedy against random under each shipped variant,
/// 50 of planner against greedy on the moon map with 5 players, and 3
/// with an `mcts` bot, the heap was at most 465,374 bytes (0.44 MiB, a
/// merchant-guild game) above the memory after load (551,510 bytes for the
/// base pack on the sun map), against a watermark of 4.5 MiB there: no
/// ordinary call paid for a collection. A call that recursed 190,000 deep
/// left 18 MiB above it (about 100 bytes a level); one that leaves less
/// than the watermark keeps it until the collector's next cycle (see
/// ARCHITECTURE.md on what that leaves open).
pub(crate) const WATERMARK: usize = 4 << 20;

/// One request to the allocator: the block, its old size (or the kind of
/// object, for a new one) and the new size.
type Request = (usize, usize, usize);

/// The allocator's state: one per VM, reached through the VM's allocator
/// data (`lua_getallocf`). Only the VM's own thread touches it.
pub(crate) struct Heap {
    /// Bytes in live blocks.
    used: Cell<usize>,
    /// The memory limit in bytes.
    limit: usize,
    /// The request refused last, until the next request: Lua's retry
    /// after its emergency collection is the same request, at once.
    refused: Cell<Option<Request>>,
    /// A request was refused for good since the outermost call began.
    met: Cell<bool>,
    /// Above this, after an outermost call, full collections run.
    ceiling: Cell<usize>,
    /// Outermost calls that met the limit since the VM was made (see
    /// `Runtime::calls_that_met_the_memory_limit`).
    met_calls: Cell<u64>,
    /// The allocator this one replaced, which makes and frees every block.
    inner: ffi::lua_Alloc,
    inner_ud: *mut c_void,
}

impl Heap {
    pub(crate) fn used(&self) -> usize {
        self.used.get()
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Whether the current call met the limit, as seen from outside the
    /// allocator (a `pcall` that caught an error, the end of the call): a
    /// refused request still waiting for its retry was given up, since Lua
    /// retries at once, before anything else runs.
    pub(crate) fn met(&self) -> bool {
        if self.refused.take().is_some() {
            self.met.set(true);
        }
        self.met.get()
    }

    /// Outermost calls that met the limit since the VM was made.
    pub(crate) fn met_calls(&self) -> u64 {
        self.met_calls.get()
    }

    /// At the end of an outermost call that met the limit.
    pub(crate) fn count_met_call(&self) {
        self.met_calls.set(self.met_calls.get() + 1);
    }

    /// At the start of an outermost call.
    pub(crate) fn begin(&self) {
        self.met.set(false);
        self.refused.set(None);
    }

    /// Takes the memory now (right after load) as the base the watermark
    /// is counted from: collections run above twice the base plus
    /// `WATERMARK`.
    pub(crate) fn set_base(&self) {
        let base = self.used.get();
        self.ceiling.set(base.saturating_mul(2).saturating_add(WATERMARK));
    }

    /// After an outermost call, which `met` the limit or not: when it did,
    /// or left the heap above the watermark, full collections until one
    /// frees nothing more (each halves the spare CallInfo list; the first
    /// shrinks the stack). `state` must be the VM's, with no collection
    /// running.
    pub(crate) fn settle(&self, state: *mut ffi::lua_State, met: bool) {
        if !met && self.used.get() <= self.ceiling.get() {
            return;
        }
        // A CallInfo list of a million entries (the most the stack allows)
        // is gone after 20 halvings; the bound only guards the loop.
        for _ in 0..64 {
            let before = self.used.get();
            // SAFETY: the VM's own state, between calls (no collection in
            // progress); a full collection in Lua 5.4 raises nothing
            // (finalizers run protected, and scripts have none).
            unsafe { ffi::lua_gc(state, ffi::LUA_GCCOLLECT, 0) };
            if self.used.get() >= before {
                break;
            }
        }
    }
}

/// The allocator (`lua_Alloc`): the limit and the record of refusals, in
/// front of the allocator it replaced.
unsafe extern "C" fn allocate(ud: *mut c_void, ptr: *mut c_void, osize: usize, nsize: usize) -> *mut c_void {
    // SAFETY: `ud` is the `Heap` installed with this function (`install`),
    // which lives as long as the VM (its owner is the VM's app data).
    let heap = unsafe { &*(ud as *const Heap) };
    // When `ptr` is null, `osize` is the kind of object, not a size.
    let old = if ptr.is_null() { 0 } else { osize };
    if nsize > old {
        let request = (ptr as usize, osize, nsize);
        // A request refused before this one was given up unless this is
        // its retry (a free or a smaller block may come between: the
        // emergency collection, or a buffer freed as the error unwinds).
        let retry = match heap.refused.get() {
            None => false,
            Some(r) => {
                heap.refused.set(None);
                if r != request {
                    heap.met.set(true);
                }
                r == request
            }
        };
        if nsize - old > heap.limit - heap.used.get().min(heap.limit) {
            if retry {
                heap.met.set(true);
            } else {
                heap.refused.set(Some(request));
            }
            return std::ptr::null_mut();
        }
    }
    // SAFETY: the request is one Lua made of this VM's allocator, passed on
    // unchanged to the allocator that made every block this VM holds
    // (`install`), with its own data.
    let block = unsafe { (heap.inner)(heap.inner_ud, ptr, osize, nsize) };
    if nsize == 0 {
        heap.used.set(heap.used.get() - old);
    } else if !block.is_null() {
        heap.used.set(heap.used.get() - old + nsize);
    }
    block
}

/// Owns the `Heap` for the VM's app data: freed with the VM's extra data,
/// after `lua_close` (which frees every block through the allocator).
struct Owner(*mut Heap);

impl Drop for Owner {
    fn drop(&mut self) {
        // SAFETY: made by `Box::into_raw` in `install`, freed only here.
        drop(unsafe { Box::from_raw(self.0) });
    }
}

/// This allocator installed in a VM; when dropped, mlua's goes back in, so
/// that mlua, which looks for its own allocator when the VM closes, frees
/// its allocator data (were this dropped after the VM, that small block
/// would leak; nothing worse: every block is mlua's either way). Declare
/// it after the `Lua` it was made for, or as a field before it.
pub(crate) struct Installed {
    lua: WeakLua,
    previous: ffi::lua_Alloc,
    previous_ud: *mut c_void,
}

impl Drop for Installed {
    fn drop(&mut self) {
        if let Some(lua) = self.lua.try_upgrade() {
            // SAFETY: the VM is alive (held by `lua`), no allocation is in
            // progress, and every block the VM holds is the allocator's
            // that goes back in (this one only passed requests on).
            unsafe { ffi::lua_setallocf(lua.state(), self.previous, self.previous_ud) };
        }
    }
}

/// Puts this allocator with a limit of `limit` bytes in front of the VM's
/// own (mlua's).
pub(crate) fn install(lua: &Lua, limit: usize) -> Installed {
    // Sizes compared with the limit stay far from `isize::MAX`.
    let limit = if limit == 0 { isize::MAX as usize / 4 } else { limit.min(isize::MAX as usize / 4) };
    let state = lua.state();
    let mut inner_ud = std::ptr::null_mut();
    // SAFETY: reads the allocator and its data of the VM's own state.
    let inner = unsafe { ffi::lua_getallocf(state, &mut inner_ud) };
    let heap = Box::into_raw(Box::new(Heap {
        used: Cell::new(0),
        limit,
        refused: Cell::new(None),
        met: Cell::new(false),
        ceiling: Cell::new(usize::MAX),
        met_calls: Cell::new(0),
        inner,
        inner_ud,
    }));
    lua.set_app_data(Owner(heap));
    // SAFETY: the VM's own state, no allocation in progress; none runs
    // between reading mlua's count of the bytes in use and the switch, so
    // the count carries over.
    unsafe {
        (*heap).used.set(lua.used_memory());
        ffi::lua_setallocf(state, allocate, heap.cast());
    }
    Installed { lua: lua.weak(), previous: inner, previous_ud: inner_ud }
}

/// The `Heap` of the VM `state` belongs to, if this allocator runs it.
///
/// # Safety
/// `state` is a live VM's, and the `Heap` is used only while the VM lives
/// (the lifetime `'a` the caller picks must end before the VM closes).
pub(crate) unsafe fn of<'a>(state: *mut ffi::lua_State) -> Option<&'a Heap> {
    let mut ud = std::ptr::null_mut();
    // SAFETY: reads the allocator and its data of a live state.
    let f = unsafe { ffi::lua_getallocf(state, &mut ud) };
    // SAFETY: with this allocator installed, its data is the `Heap`, alive
    // while the VM is (the caller's promise).
    std::ptr::fn_addr_eq(f, allocate as ffi::lua_Alloc).then(|| unsafe { &*(ud as *const Heap) })
}
