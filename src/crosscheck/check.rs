//! What a function check compares and how: [`FunctionCheck`], with its defaults and the
//! buffer placement it names (`--buffer-offset`). Its own module, so that the setup and the
//! driver (`mod.rs`) both import it and neither imports the other for it.

use super::float::FpEquality;
use super::globals;
use crate::exec::{ExecConfig, UbMode};
use crate::solver::SolverConfig;
use std::path::{Path, PathBuf};

/// The most bytes a parameter's buffer grows to by default (`--buffer-cap`).
pub const DEFAULT_BUFFER_CAP: u32 = 256;

/// What to check. Every field documents its default.
#[derive(Clone, Debug)]
pub struct FunctionCheck {
    pub a_path: PathBuf,
    pub b_path: PathBuf,
    /// Entry point in A.
    pub a_name: String,
    /// Entry point in B (the same name as in A unless given as `f=g`).
    pub b_name: String,
    /// Bytes of the buffer behind a pointer parameter whose pointee is not a struct.
    /// Default is 16.
    pub buffer_size: u32,
    /// The most bytes a buffer of `buffer_size` (or a flexible array member's) grows to
    /// when a side reads or writes past it (`--buffer-cap`); a path that needs more is
    /// unknown. Default is 256.
    pub buffer_cap: u32,
    /// Where buffers passed as plain pointers start within a 16-byte boundary
    /// (`--buffer-offset`). Default is `None`: at the boundary.
    pub buffer_offset: Option<BufferOffset>,
    /// Pointer parameters that point into one object, at offsets that are inputs
    /// (`--alias`; empty: every plain pointer parameter). Default is `None`: each its own.
    pub alias: Option<Vec<String>>,
    /// Per-parameter buffer sizes (`--buffer-size name=N`), overriding `buffer_size`.
    pub param_sizes: Vec<(String, u32)>,
    /// Preconditions, in the `--assume` language. Default is none.
    pub assumes: Vec<String>,
    /// Compare the final contents of buffers as well as return values. Default is true.
    pub compare_buffers: bool,
    /// How mutable globals start. Default is [`globals::GlobalsMode::Symbolic`].
    pub globals: globals::GlobalsMode,
    /// When two floating-point return values count as equal. Default is bit-identical.
    pub fp_equality: FpEquality,
    /// What operations with undefined results give (`--ub`). Default is
    /// [`UbMode::Report`]: a fresh value, and a path whose outcome depends on one is
    /// undefined behaviour, not a verdict.
    pub ub: UbMode,
    pub exec: ExecConfig,
    pub solver: SolverConfig,
    /// Where tests and reports go. Default is `xcheck-out`.
    pub out_dir: PathBuf,
    /// The most `.ktest` files a kind of difference gets (`--tests-per-kind`; `None`, as
    /// `--all-tests`: every one). Default is [`DEFAULT_TESTS_PER_KIND`].
    pub tests_per_kind: Option<usize>,
    /// Builds native executables of the pair, for the rows that rest on one side's
    /// undefined behaviour (the front end's: `crosscheck` does not import `native/`).
    /// Default is `None`: such rows stay unknown.
    pub native: Option<super::NativeFunctions>,
    /// Whether calls both sides share and the entries' recursive calls are first tried as
    /// uninterpreted functions (`summaries.rs`; `--no-summaries` turns it off). Default is
    /// true.
    pub summaries: bool,
    /// Pairs proved equivalent for all inputs earlier in the same run (a gate's), whose
    /// calls this check may summarize. Default is none.
    pub proved: ProvedPairs,
}

/// Function pairs proved equivalent for all inputs earlier in one run, shared by its
/// checks (`gate::run_jobs` adds them as they are proved).
#[derive(Clone, Debug, Default)]
pub struct ProvedPairs(pub std::sync::Arc<std::sync::Mutex<Vec<ProvedPair>>>);

/// One pair of [`ProvedPairs`]: A's and B's function names, and what the proof assumed
/// (summaries of its own) that a proof resting on it assumes too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvedPair {
    pub a: String,
    pub b: String,
    pub assumptions: Vec<String>,
}

impl ProvedPairs {
    /// The pairs proved so far.
    pub fn list(&self) -> Vec<ProvedPair> {
        self.0.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Records `check`'s pair when `report` proves it for every input its callers may give:
    /// equivalent, with no precondition and results compared bit for bit (whether its
    /// parameters are scalars, which a summary needs, the plan sees from the IR).
    pub fn record(&self, check: &FunctionCheck, report: &crate::report::Report) {
        let for_all = report.summary.overall == crate::report::Overall::Equivalent
            && check.assumes.is_empty()
            && check.fp_equality == super::FpEquality::default()
            && check.summaries;
        if !for_all {
            return;
        }
        let assumptions = report
            .summary
            .assumptions
            .iter()
            .filter(|a| a.contains("summarized"))
            .cloned()
            .collect();
        if let Ok(mut list) = self.0.lock() {
            list.push(ProvedPair {
                a: check.a_name.clone(),
                b: check.b_name.clone(),
                assumptions,
            });
        }
    }
}

/// The cap on a check's tests per kind: none for a shard (`--shard`), which writes every
/// test, since `xcheck merge` chooses the tests over all the shards' rows, as one run does.
pub(super) fn tests_capped(check: &FunctionCheck) -> Option<usize> {
    check.tests_per_kind.filter(|_| check.exec.shard.is_none())
}

/// The most `.ktest` files a kind of difference gets by default (`--tests-per-kind`): the
/// rows beyond keep their inputs in the reports, and are replayed all the same.
pub const DEFAULT_TESTS_PER_KIND: usize = 10;

impl FunctionCheck {
    pub fn new(a: &Path, b: &Path, a_name: &str, b_name: &str) -> Self {
        FunctionCheck {
            a_path: a.to_path_buf(),
            b_path: b.to_path_buf(),
            a_name: a_name.to_string(),
            b_name: b_name.to_string(),
            buffer_size: 16,
            buffer_cap: DEFAULT_BUFFER_CAP,
            buffer_offset: None,
            alias: None,
            param_sizes: Vec::new(),
            assumes: Vec::new(),
            compare_buffers: true,
            globals: globals::GlobalsMode::default(),
            fp_equality: FpEquality::default(),
            ub: UbMode::Report,
            exec: ExecConfig::default(),
            solver: SolverConfig::default(),
            out_dir: PathBuf::from("xcheck-out"),
            tests_per_kind: Some(DEFAULT_TESTS_PER_KIND),
            native: None,
            summaries: true,
            proved: ProvedPairs::default(),
        }
    }
}

impl FunctionCheck {
    /// The check with its `--ub` mode in the engine's configuration.
    pub(super) fn engine_ub(&self) -> FunctionCheck {
        let mut check = self.clone();
        check.exec.ub = self.ub;
        check
    }
}

/// Where a parameter's buffer starts within a [`BUFFER_ALIGN`]-byte boundary
/// (`--buffer-offset`): at one offset, or at any (a symbolic input, so that code whose
/// path depends on the alignment — a word-at-a-time loop's prologue — runs each way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferOffset {
    Fixed(u8),
    Any,
}

impl std::str::FromStr for BufferOffset {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "any" => Ok(BufferOffset::Any),
            n => match n.parse::<u8>() {
                Ok(k) if u32::from(k) < BUFFER_ALIGN => Ok(BufferOffset::Fixed(k)),
                _ => Err(format!(
                    "'{n}': expected any or an offset from 0 to {}",
                    BUFFER_ALIGN - 1
                )),
            },
        }
    }
}

/// The alignment of the address every parameter's buffer object starts at.
pub const BUFFER_ALIGN: u32 = 16;
