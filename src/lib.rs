//! shogun-lab: a rules sandbox and variant lab for Dirk Henn's *Shogun*.
//!
//! See ARCHITECTURE.md for the code map and the invariants.

pub mod bots;
pub mod check;
pub mod cli;
pub mod clock;
pub mod core;
pub mod engine;
pub mod files;
pub mod fuzz;
pub mod lab;
pub mod play;
pub mod repl;
pub mod rules;
pub mod scenario;
pub mod script;
pub mod tower;
pub mod transcript;

pub use crate::core::{Actor, Decision, GameState, Legal};
pub use crate::engine::{Engine, EngineError};
