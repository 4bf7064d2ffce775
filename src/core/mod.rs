//! The game state and the decisions that move it: plain serde data.
//!
//! Nothing here reads files, calls Lua or knows a rule; the engine does.

pub mod data;
pub mod rng;
pub mod state;
pub mod view;

pub use data::AskData;
pub use rng::{Chance, GameRng, Purpose, Stage, Streams};
pub use state::*;
pub use view::{SeatView, may_read};

/// Capacity of the fixed per-seat arrays (the rules pack sets the real
/// player range, which must fit in it).
pub const MAX_SEATS: usize = 8;
