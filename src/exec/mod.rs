//! Execution of states: values, copy-on-write memory, the interpreter and the search.
//!
//! `executor` owns the loop and the forking primitives, `step` gives each instruction its
//! meaning, `table` maps the functions the engine implements to their handlers in
//! `special` (intrinsics and engine primitives), `posix` (those beneath the system-call
//! model) and `jump` (`setjmp`/`longjmp`), `searcher` chooses the next state to run,
//! `defer` puts aside the states whose query the solver does not answer quickly (`waiting`
//! holds the types).

mod abstract_call;
pub mod constraints;
mod defer;
pub mod executor;
mod jump;
#[cfg(test)]
mod limit_tests;
pub mod memory;
pub mod merge;
mod posix;
mod resolve;
pub mod searcher;
pub mod shard;
mod special;
pub mod state;
mod step;
mod summary;
mod table;
mod ub;
pub mod undefined;
pub mod value;
mod vector;
pub mod waiting;

pub use crate::progress::{Progress, Tally};
pub use executor::{Driver, ExecConfig, ExecStats, Executor, Exit, Leftover, WorkPool};
pub use merge::MergeMode;
pub use posix::syscall_name;
pub use searcher::SearchKind;
pub use state::{
    path_hash, Failure, Flush, ForkLog, ForkSite, Grounds, SideOutcome, SolverFailure, State,
    Summaries, Summary, Termination, Undecided, OUTPUT_STREAMS,
};
pub use table::has_handler;
pub use undefined::{FlaggedValue, UbMode, UndefinedValue};
pub use value::Value;
pub use waiting::{Deferral, DeferralStats, Unanswered};
