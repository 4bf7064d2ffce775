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
