//! xcheck: prove two LLVM bitcode implementations equivalent, or show where they differ.
//!
//! The stages, in data-flow order: `load` (read and link bitcode) → `lower` (to the
//! engine's `ir`) → `exec` (symbolic execution over `expr` values, with the `solver`
//! chain) → `crosscheck` (per-path verdicts) → `ktest` and `report` (files people and
//! tools read); `native` replays tests on native binaries. Above the stages: `gate` (many
//! function pairs under a policy), `suite` (a suite of utilities), `shards` (a sharded run's
//! outputs joined). `cli` turns arguments into a configuration and `cmd` runs each command
//! with it; `main.rs` only calls `cmd`.

pub mod assume;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod counters;
pub mod crosscheck;
pub mod env_options;
pub mod error;
pub mod exec;
pub mod expr;
pub mod gate;
pub mod induction;
pub mod input;
pub mod ir;
pub mod ktest;
pub mod libgate;
pub mod load;
pub mod lower;
pub mod native;
pub mod progress;
pub mod report;
pub mod shards;
pub mod solver;
pub mod stop;
pub mod suite;
pub mod toolchain;

pub use error::{Error, Result};
