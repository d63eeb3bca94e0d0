//! Failures of xcheck itself or of its input: never a fault of the program under test.
//!
//! A division by zero in the checked program is data (a path outcome); a file that is not
//! bitcode is an [`Error`]. Every variant prints as one line that names the file or option
//! at fault, and maps to exit code 2.

use std::path::PathBuf;

/// Exit code for usage and input errors.
pub const EXIT_ERROR: i32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command-line option or combination that makes no sense.
    #[error("{0}")]
    Usage(String),
    /// An input file that cannot be used: unreadable, not bitcode, missing a function…
    #[error("{}: {msg}", path.display())]
    Input { path: PathBuf, msg: String },
    /// Writing results failed.
    #[error("{}: {source}", path.display())]
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The solver backend failed (not a timeout, which is an inconclusive path).
    #[error("solver: {0}")]
    Solver(#[from] crate::solver::SolverError),
}

impl Error {
    pub fn input(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::Input {
            path: path.into(),
            msg: msg.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
