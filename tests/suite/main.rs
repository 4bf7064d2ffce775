//! The integration tests, one binary: each module is one area of the program
//! (one link of the library instead of one per file; `cargo test --release NAME` filters as before).

mod architecture;
mod board_picture;
mod bots;
mod check;
mod common;
mod data_and_scripts;
mod diffs;
mod fuzz;
mod lab;
mod lab_adapt;
mod lab_provenance;
mod lua_api;
mod maps_and_draft;
mod planner;
mod play;
mod question_data;
mod repl;
mod repl_assist;
mod repl_failures;
mod repl_input;
mod repl_issue24;
mod rule_examples;
mod sandbox;
mod seat_view;
mod simulation;
mod tower_fit;
mod towers;
mod transcripts;
mod variants;

/// The test binary's allocator: the system's, with what the calling thread
/// allocates counted (`counted`), so that a test can bound the work and
/// memory of what it calls, whatever other tests run at the same time.
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    /// Allocations made, bytes held now, most bytes held at once.
    #[derive(Clone, Copy, Default)]
    struct Counts {
        calls: usize,
        held: isize,
        peak: isize,
    }

    thread_local! {
        // A constant initialiser and no destructor: reading it allocates nothing.
        static COUNTS: Cell<Counts> = const { Cell::new(Counts { calls: 0, held: 0, peak: 0 }) };
    }

    fn note(grow: isize, call: bool) {
        let _ = COUNTS.try_with(|c| {
            let mut n = c.get();
            n.calls += usize::from(call);
            n.held += grow;
            n.peak = n.peak.max(n.held);
            c.set(n);
        });
    }

    pub struct Counting;

    // SAFETY: every call is passed to `System` as it came; only counters
    // of the calling thread are written besides.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            note(layout.size() as isize, true);
            // SAFETY: the caller's guarantees, passed on.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            note(-(layout.size() as isize), false);
            // SAFETY: the caller's guarantees, passed on.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            note(new_size as isize - layout.size() as isize, true);
            // SAFETY: the caller's guarantees, passed on.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    /// What `f` allocated on this thread: (allocations made, most bytes
    /// held at once above what was held before), and its result.
    pub fn counted<R>(f: impl FnOnce() -> R) -> (usize, usize, R) {
        let before = COUNTS.with(|c| {
            let mut n = c.get();
            n.peak = n.held;
            c.set(n);
            n
        });
        let r = f();
        let after = COUNTS.with(Cell::get);
        (after.calls - before.calls, (after.peak - before.held).max(0) as usize, r)
    }
}

#[global_allocator]
static COUNTING: counting::Counting = counting::Counting;
pub use counting::counted;
