//! Execution of states: values, copy-on-write memory, the interpreter and the search.
//!
//! `executor` owns the loop and the forking primitives, `step` gives each instruction its
//! meaning, `special` implements intrinsics and engine primitives (`posix`: those beneath the
//! system-call model), `searcher` chooses the
//! next state to run.

pub mod constraints;
pub mod executor;
mod fast;
pub mod memory;
pub mod merge;
mod posix;
pub mod progress;
pub mod searcher;
mod special;
pub mod state;
mod step;
pub mod value;
mod vector;

pub use executor::{Driver, ExecConfig, ExecStats, Executor, Exit, WorkPool};
pub use progress::{Progress, Tally};
pub use searcher::SearchKind;
pub use state::{Failure, SideOutcome, State, Termination};
pub use value::Value;
