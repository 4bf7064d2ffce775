//! What every cargo-fuzz target does: one `Fuzzer` per process (a scratch
//! copy of the repository's data), each input run through it; a finding
//! (a broken promise, e.g. a failed command that changed the game) panics
//! so that libFuzzer records the input.

use std::cell::RefCell;
use std::path::Path;

use shogun_lab::fuzz::{Fuzzer, Target};

thread_local! {
    static FUZZER: RefCell<Option<Fuzzer>> = const { RefCell::new(None) };
}

pub fn run(target: Target, data: &[u8]) {
    FUZZER.with_borrow_mut(|f| {
        let fuzzer = f.get_or_insert_with(|| {
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            Fuzzer::new(&root).unwrap_or_else(|e| panic!("cannot set up the scratch data folder: {e}"))
        });
        if let Err(finding) = fuzzer.run(target, data) {
            panic!("{}: {finding}", target.name());
        }
    });
}
