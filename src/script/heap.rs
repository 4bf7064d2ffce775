//! The VM's allocator: the memory limit, and whether a call met it.
//!
//! A script could observe memory pressure: an allocation past the limit
//! is refused, and Lua raises a memory error (`LUA_ERRMEM`) that a
//! script's `pcall` caught. The VM's core retries a refused request once,
//! after an emergency collection, which frees garbage but shrinks no
//! stack, CallInfo list or string table that earlier calls grew (only a
//! normal cycle does: `traversethread`, `checkSizes`); so whether
//! `pcall(string.rep, "x", 31 << 20)` succeeded depended on how deep the
//! calls before it had recursed. Two things close that:
//! - this allocator, in place of mlua's, marks the call as having *met the
//!   limit* when a request is refused for good: refused again when Lua
//!   retries it, or never retried (the auxiliary library's buffers, behind
//!   `string.rep`, `string.format` and `table.concat`, raise at the first
//!   refusal), which the next request being another one, or the error
//!   reaching a `pcall` or the end of the call, shows;
//! - such a call fails as a whole, whatever the script did with the error
//!   (`Shared::guarded`; the sandbox's `pcall` and `xpcall` pass the
//!   error on at once, see `pcall_for_scripts`), as a call that meets the
//!   time limit does.
//!
//! The bookkeeping is mlua's own (`std::alloc` with `ffi::SYS_MIN_ALIGN`,
//! the bytes of every live block counted), so a block either allocator
//! made the other frees: the VM is created with mlua's, runs with this one,
//! and gets mlua's back before it closes (`Installed`). Only the public C
//! API is used (`lua_getallocf`, `lua_setallocf`).

use std::alloc::Layout;
use std::cell::Cell;
use std::ffi::c_void;

use mlua::{Lua, WeakLua, ffi};

/// The alignment of every block: mlua's, so that blocks allocated before
/// this allocator took over (and after it hands back) free alike.
const ALIGN: usize = ffi::SYS_MIN_ALIGN;

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

    /// At the start of an outermost call.
    pub(crate) fn begin(&self) {
        self.met.set(false);
        self.refused.set(None);
    }
}

/// The allocator (`lua_Alloc`): mlua's, plus the record of refusals.
unsafe extern "C" fn allocate(ud: *mut c_void, ptr: *mut c_void, osize: usize, nsize: usize) -> *mut c_void {
    // SAFETY: `ud` is the `Heap` installed with this function (`install`),
    // which lives as long as the VM (its owner is the VM's app data).
    let heap = unsafe { &*(ud as *const Heap) };
    // When `ptr` is null, `osize` is the kind of object, not a size.
    let old = if ptr.is_null() { 0 } else { osize };
    if nsize == 0 {
        if !ptr.is_null() {
            // SAFETY: Lua frees a block it got from this allocator or
            // mlua's, with its size; both allocate with this layout.
            unsafe { std::alloc::dealloc(ptr.cast(), Layout::from_size_align_unchecked(osize, ALIGN)) };
            heap.used.set(heap.used.get() - osize);
        }
        return std::ptr::null_mut();
    }
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
    heap.used.set(heap.used.get() - old + nsize);
    // `nsize` is at most the limit (checked above, or smaller than a live
    // block), and the limit is below `isize::MAX / 2`: a valid layout.
    let block = if ptr.is_null() {
        // SAFETY: a non-zero size and a valid layout.
        unsafe { std::alloc::alloc(Layout::from_size_align_unchecked(nsize, ALIGN)) }
    } else {
        // SAFETY: `ptr` is a live block of `osize` bytes with this layout;
        // the new size is non-zero and valid.
        unsafe { std::alloc::realloc(ptr.cast(), Layout::from_size_align_unchecked(osize, ALIGN), nsize) }
    };
    if block.is_null() {
        // As mlua does: the process is out of memory, not the VM.
        std::alloc::handle_alloc_error(Layout::from_size_align(nsize, ALIGN).unwrap_or(Layout::new::<u8>()));
    }
    block.cast()
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

/// This allocator installed in a VM; when dropped, mlua's goes back in
/// (so that mlua frees its own allocator data when the VM closes). Drop
/// it before the VM: declared after the `Lua` it was made for, or as a
/// field before it.
pub(crate) struct Installed {
    lua: WeakLua,
    previous: ffi::lua_Alloc,
    previous_ud: *mut c_void,
}

impl Drop for Installed {
    fn drop(&mut self) {
        if let Some(lua) = self.lua.try_upgrade() {
            // SAFETY: the VM is alive (held by `lua`); mlua's allocator
            // frees the blocks this one made (same layout), and no
            // allocation is in progress.
            unsafe { ffi::lua_setallocf(lua.state(), self.previous, self.previous_ud) };
        }
    }
}

/// Puts this allocator with a limit of `limit` bytes in place of mlua's.
pub(crate) fn install(lua: &Lua, limit: usize) -> Installed {
    // The block sizes stay far from `isize::MAX` (see `allocate`).
    let limit = if limit == 0 { isize::MAX as usize / 4 } else { limit.min(isize::MAX as usize / 4) };
    let heap = Box::into_raw(Box::new(Heap { used: Cell::new(0), limit, refused: Cell::new(None), met: Cell::new(false) }));
    lua.set_app_data(Owner(heap));
    let state = lua.state();
    let mut previous_ud = std::ptr::null_mut();
    // SAFETY: the VM's own state; no allocation runs between reading mlua's
    // count of the bytes in use and the switch, so the count carries over.
    let previous = unsafe {
        (*heap).used.set(lua.used_memory());
        let previous = ffi::lua_getallocf(state, &mut previous_ud);
        ffi::lua_setallocf(state, allocate, heap.cast());
        previous
    };
    Installed { lua: lua.weak(), previous, previous_ud }
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
