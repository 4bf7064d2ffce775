//! The play layer, between the engine and everything that drives a game
//! (the REPL, scenarios, `run`, `diff`, `bench`, the lab, tests):
//!
//! - `driver`: an engine, a state and who plays each seat; lets chance and
//!   bots play to a point (the only bot loop in the tree), and `play_game`
//!   for bulk runs;
//! - `notation`: the one place where decisions, answers, plans, edits,
//!   setup modes and stopping points are read from and written to text;
//! - `edit`: what-if edits as one enum that conserves pieces, and the
//!   staging of one action;
//! - `preview`: what an answer, a planned attack or a plan would do, worked
//!   out by the rules on a scratch copy of a seat's view (nothing moves);
//! - `timeline`: a game as a timeline of entries (undo/redo, save, replay);
//! - `data`: where packs, maps and variants live, and what a ruleset is
//!   made of.

pub mod data;
pub mod driver;
pub mod edit;
pub mod notation;
pub mod preview;
pub mod timeline;

pub use data::{GameSpec, Layout};
pub use driver::{Driver, Failing, Player, Step, Stop, failing_decision, play_game};
pub use edit::{Edit, EditError, stage_action};
pub use notation::{Notated, Notation, NotationError, Until};
pub use timeline::{Checkpoint, Entry, Game, PlayError, Replayed, SAVE_FORMAT, SaveFile, SavedEntry, fingerprint};
