//! Satisfiability of path constraints: the solver stage between the executor and Bitwuzla.
//!
//! A [`Solver`] answers one question: is `constraints ∧ query` satisfiable, and if so, which
//! input bytes make it true? Every other question (validity, possible values, models) is built
//! on top of that one by the convenience methods of [`SolverExt`].
//!
//! The production solver is a chain of layers built by [`build_chain`], outermost first:
//!
//! 1. [`ValidatingSolver`] evaluates every satisfying model concretely on all constraints and
//!    the query, so that a backend bug or a translation bug can never produce a false
//!    counterexample ([`SolverError::InvalidModel`]).
//! 2. [`CachingSolver`] answers repeated queries from a table keyed by expression ids.
//! 3. [`CexCachingSolver`] (KLEE's counterexample cache) treats a query as the set of its
//!    constraints and query expression and answers it from earlier answers: an unsatisfiable
//!    subset, the model of a satisfiable superset, or a recent model that evaluates to true on
//!    it.
//! 4. [`IndependenceSolver`] drops constraints that share no symbolic array, directly or
//!    transitively, with the query (KLEE's constraint independence), and completes the model
//!    for the dropped constraints afterwards so that it satisfies the full constraint set.
//! 5. [`RangeSolver`] rewrites the query with the bounds its constraints put on its terms:
//!    signed division of non-negative values becomes unsigned, division of small values
//!    narrow, comparisons that the bounds decide constant.
//!    Above it, [`SweepingSolver`] asks a query that is not decided within a first try again
//!    with the sub-terms its constraints prove equal merged (SAT sweeping).
//! 6. [`EnumeratingSolver`] decides a query over at most two input bytes by evaluating it on
//!    every input, when that is cheap (dividers are hard for CDCL even in 8 bits).
//! 7. With `--cross-check-solver`, [`CrossCheckingSolver`] asks the other backend every
//!    question the backend answers and turns a sat/unsat disagreement into an error.
//! 8. With `--log-queries FILE`, [`LoggingSolver`] writes every query that reaches the backend
//!    as SMT-LIB, with its answer and time, for `xcheck query FILE` to replay ([`querylog`]).
//! 9. The backend: [`BitwuzlaSolver`] (the default) or [`Z3Solver`] (`--solver z3`) translates
//!    expressions to SMT terms and solves them; [`PortfolioSolver`] (`--solver portfolio`)
//!    races the two on queries that run past a delay learned per query shape.
//!
//! Every layer but the backend is a [`Layer`]: it says how it answers and which counters it
//! adds, and passes the hint, the time limit and the counters of the solver it wraps on by
//! construction (`layer.rs`).
//!
//! Every layer serves a single [`ExprPool`]: expression ids are only meaningful inside the pool
//! that created them. Layers that keep state keyed by ids (the caches, the independence layer's
//! array sets, the backend's translation memo) drop it when they are handed a pool at a
//! different address. That guard cannot see a pool that was dropped and replaced by a new one
//! at the same address, so create one chain per pool and drop it with the pool.

mod bitwuzla;
mod boundary;
mod cache;
mod cex_cache;
mod chain;
mod congruence;
mod crosscheck;
mod enumerate;
mod give_up;
mod independence;
mod layer;
mod lowering;
mod portfolio;
pub mod querylog;
mod ranges;
mod stats;
pub mod sweep;
mod validate;
mod xorlinear;
mod z3;

pub use self::bitwuzla::{BitwuzlaSolver, DEFAULT_MEMO_LIMIT, DEFAULT_RESET_INTERVAL, TIMEOUT};
pub use boundary::BoundarySolver;
pub use cache::{CachingSolver, DEFAULT_CACHE_CAPACITY};
pub use cex_cache::{CexCachingSolver, DEFAULT_CEX_CAPACITY};
pub use chain::{build_chain, new_backend, ChainSolver};
pub use crosscheck::{CrossCheckingSolver, CROSS_CHECK_TIMEOUT};
pub use enumerate::EnumeratingSolver;
pub use give_up::GiveUp;
pub use independence::IndependenceSolver;
pub use layer::Layer;
pub use portfolio::{Entrant, PortfolioSolver, MAX_RACE_DELAY, MIN_RACE_LIMIT, RACE_DELAY};
pub use querylog::{LoggingSolver, QueryLog};
pub use ranges::{rewrite_with_bounds, RangeSolver};
pub use stats::SolverStats;
pub use sweep::SweepingSolver;
pub use validate::ValidatingSolver;
pub use z3::{smtlib, SmtlibPrinter, Z3Interrupt, Z3Solver, INTERRUPTED};

use crate::expr::{ArrayId, Assignment, ExprId, ExprPool, Node};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The answer to "is `constraints ∧ query` satisfiable?".
#[derive(Clone, Debug, PartialEq)]
pub enum SatResult {
    /// Satisfiable; the assignment gives a value to every byte of every symbolic array that the
    /// formula mentions (bytes the formula does not constrain are 0).
    Sat(Assignment),
    /// Unsatisfiable.
    Unsat,
    /// The backend gave up, for the reason given.
    Unknown(GiveUp),
}

impl SatResult {
    /// Whether this is [`SatResult::Sat`].
    pub fn is_sat(&self) -> bool {
        matches!(self, SatResult::Sat(_))
    }

    /// Whether this is [`SatResult::Unsat`].
    pub fn is_unsat(&self) -> bool {
        matches!(self, SatResult::Unsat)
    }
}

/// A backend's answer without its model: what the query log records and replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Sat,
    Unsat,
    Unknown,
}

impl Answer {
    /// The answer of `result`.
    pub fn of(result: &SatResult) -> Self {
        match result {
            SatResult::Sat(_) => Answer::Sat,
            SatResult::Unsat => Answer::Unsat,
            SatResult::Unknown(_) => Answer::Unknown,
        }
    }

    /// The word SMT-LIB's `check-sat` prints.
    pub fn name(self) -> &'static str {
        match self {
            Answer::Sat => "sat",
            Answer::Unsat => "unsat",
            Answer::Unknown => "unknown",
        }
    }
}

impl std::str::FromStr for Answer {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        [Answer::Sat, Answer::Unsat, Answer::Unknown]
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| format!("'{text}' is not sat, unsat or unknown"))
    }
}

/// A failure of the solver stage itself, as opposed to an `Unknown` answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    /// The backend could not be set up or could not translate the formula.
    #[error("solver backend error: {0}")]
    Backend(String),
    /// The backend answered SAT with a model that fails concrete evaluation.
    #[error("solver returned an invalid model: {0}")]
    InvalidModel(String),
    /// A convenience method needed a definite answer and the backend answered `Unknown`.
    #[error("solver could not decide a query: {0}")]
    Unknown(GiveUp),
    /// The backend and the cross-checking solver gave opposite answers (sat and unsat).
    #[error("{0}")]
    Disagreement(String),
}

/// A decision procedure for conjunctions of width-1 expressions.
pub trait Solver: Send {
    /// Is `constraints ∧ query` satisfiable? On Sat, the model assigns every array the formula
    /// mentions. Every constraint and the query must have width 1.
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError>;

    /// The counters of this solver and of every layer it wraps.
    fn stats(&self) -> SolverStats;

    /// A model of the constraints of the coming queries, if the caller has one (a path's
    /// current model): layers that must complete a model for constraints they left out try
    /// it first. Layers that wrap another pass it on (a [`Layer`] does by construction); no
    /// default, so that a solver that wraps another cannot drop it silently.
    fn set_hint(&mut self, hint: Option<std::sync::Arc<crate::expr::Assignment>>);

    /// A time limit of the coming backend checks, when shorter than the solver's own
    /// (`None`: the solver's own again). A check it cuts short answers
    /// `Unknown("timeout")`. Layers that wrap another pass it on (a [`Layer`] does by
    /// construction); no default, as for [`Solver::set_hint`].
    fn set_time_limit(&mut self, limit: Option<std::time::Duration>);
}

/// The reason of the `SatResult::Unknown` a backend answers when its check was cancelled
/// through its [`Cancel`] handle.
pub const CANCELLED: GiveUp = GiveUp::Cancelled;

/// Ends one backend's running check early, or its next check if none runs, without stopping
/// the run: the check answers `Unknown(`[`CANCELLED`]`)`. Unlike the run's interrupt, the
/// cancel lasts until [`Cancel::rearm`]: the portfolio cancels the loser of one race only.
pub trait Cancel: Send + Sync {
    /// Cancels the running check, or the next one to start. May be called repeatedly.
    fn cancel(&self);
    /// Lets checks run again; called when no check of the backend runs.
    fn rearm(&self);
}

/// A [`Cancel`] that is a flag the backend asks (Bitwuzla's termination callback does).
#[derive(Debug, Default)]
pub struct CancelFlag(AtomicBool);

impl CancelFlag {
    /// Whether the current check is cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl Cancel for CancelFlag {
    fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn rearm(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// The default time limit of one backend check ([`SolverConfig::timeout`]): far above the
/// queries of the corpora (all their checks together take about 9 s of engine time), short
/// enough that one hard query cannot silently take a whole run's time budget.
pub const DEFAULT_QUERY_TIMEOUT: Duration = Duration::from_secs(30);

/// The SMT solver at the bottom of a chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// [`BitwuzlaSolver`].
    Bitwuzla,
    /// [`Z3Solver`].
    Z3,
    /// [`PortfolioSolver`] (the default): Bitwuzla, and Z3 raced against it once Bitwuzla
    /// has not answered within the query shape's learned delay ([`RACE_DELAY`] at first).
    #[default]
    Portfolio,
}

/// The help text of the option that chooses the backend (the front end does not name them).
pub const BACKEND_HELP: &str = "SMT solver: portfolio (default: bitwuzla, and z3 \
     raced against it on a query bitwuzla has not answered within 250 ms, learned per query \
     shape, when a core is idle), bitwuzla or z3. With --cross-check-solver, bitwuzla (unless named) and the other \
     one checks it.";

/// Why `--cross-check-solver` refuses the portfolio (the front end does not name backends).
pub const PORTFOLIO_CROSS_CHECK: &str = "not with --solver portfolio, which races the two \
     solvers instead of comparing them: cross-check one of them (--solver bitwuzla or z3)";

impl Backend {
    /// Every SMT solver (the two the portfolio races), in the order of [`BACKEND_HELP`].
    pub const ALL: [Backend; 2] = [Backend::Bitwuzla, Backend::Z3];

    /// Every choice of `--solver`.
    pub const CHOICES: [Backend; 3] = [Backend::Bitwuzla, Backend::Z3, Backend::Portfolio];

    /// The backend when the command line names none: the portfolio, or, with a cross-check
    /// (which the portfolio does not have: it races the two solvers instead of comparing
    /// them), Bitwuzla checked by Z3.
    pub fn unnamed(cross_check: bool) -> Backend {
        if cross_check {
            Backend::Bitwuzla
        } else {
            Backend::default()
        }
    }

    /// The backend's name on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Bitwuzla => "bitwuzla",
            Backend::Z3 => "z3",
            Backend::Portfolio => "portfolio",
        }
    }

    /// The backend that cross-checks this one. The portfolio is not cross-checked
    /// ([`build_chain`] cross-checks Bitwuzla instead, the command line refuses it).
    pub fn other(self) -> Backend {
        match self {
            Backend::Bitwuzla | Backend::Portfolio => Backend::Z3,
            Backend::Z3 => Backend::Bitwuzla,
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Backend::CHOICES
            .into_iter()
            .find(|b| b.name() == text.trim())
            .ok_or_else(|| format!("unknown solver '{text}' (expected bitwuzla, z3 or portfolio)"))
    }
}

/// Which layers [`build_chain`] stacks on the backend, and the backend's time limits.
#[derive(Clone, Debug)]
pub struct SolverConfig {
    /// Time limit of each backend satisfiability check; `None` means no limit. A check that
    /// runs out of time answers `SatResult::Unknown("timeout")`. Default is
    /// [`DEFAULT_QUERY_TIMEOUT`].
    pub timeout: Option<Duration>,
    /// The run's interrupt and the check's deadline: a running check returns
    /// `SatResult::Unknown` when it says to stop. Default is a token never set.
    pub stop: crate::stop::Stop,
    /// Answer repeated queries from a cache.
    pub cache: bool,
    /// Answer queries from earlier answers to subsets and supersets of their constraint sets,
    /// and from recent models that satisfy them (KLEE's counterexample cache).
    pub cex_cache: bool,
    /// Drop constraints independent of the query before asking the backend.
    pub independence: bool,
    /// Rewrite queries with the value ranges their constraints imply.
    pub ranges: bool,
    /// Sweep the queries not decided within [`sweep::FIRST_TRY`]: sub-terms proved equal
    /// merged before they are asked again (`sweep.rs`). Default is on.
    pub sweep: bool,
    /// Decide queries over at most two input bytes by trying every input.
    pub enumerate: bool,
    /// Answer a query from the caller's model with an input moved to a boundary of its
    /// comparisons with constants, when that satisfies it (`boundary.rs`). Default is on.
    pub boundary: bool,
    /// Check every model by concrete evaluation. On by default, in release builds too.
    pub validate: bool,
    /// The SMT solver at the bottom of the chain. Default is [`Backend::Portfolio`].
    pub backend: Backend,
    /// Compare every answer of the backend with the other backend's; a disagreement is an
    /// error, and its query is written as SMT-LIB into this directory.
    pub cross_check: Option<PathBuf>,
    /// Write every query that reaches the backend into this log (`--log-queries`).
    pub log: Option<std::sync::Arc<QueryLog>>,
}

impl Default for SolverConfig {
    fn default() -> Self {
        Self {
            timeout: Some(DEFAULT_QUERY_TIMEOUT),
            stop: crate::stop::Stop::default(),
            cache: true,
            cex_cache: true,
            independence: true,
            ranges: true,
            sweep: true,
            enumerate: true,
            boundary: true,
            validate: true,
            backend: Backend::default(),
            cross_check: None,
            log: None,
        }
    }
}

/// The answer of [`SolverExt::must_be_true`].
#[derive(Clone, Debug, PartialEq)]
pub enum Truth {
    /// The query holds for every input satisfying the constraints.
    Yes,
    /// Some input satisfies the constraints and falsifies the query; here is one.
    No(Assignment),
    /// The backend could not decide, for the reason given.
    Unknown(GiveUp),
}

/// The answer of [`SolverExt::may_be_true`].
#[derive(Clone, Debug, PartialEq)]
pub enum Possibility {
    /// Some input satisfies the constraints and the query; here is one.
    Yes(Assignment),
    /// No input satisfies both the constraints and the query.
    No,
    /// The backend could not decide, for the reason given.
    Unknown(GiveUp),
}

/// Questions derived from [`Solver::check`]. Implemented for every solver, including
/// `dyn Solver` and therefore `Box<dyn Solver>`. Below, `C(X)` is the conjunction of the
/// constraints over the inputs `X`.
pub trait SolverExt: Solver {
    /// Validity under the constraints: `∀X. C(X) → q(X)`, decided as `C ∧ ¬q` unsatisfiable.
    /// On `No`, the assignment is a witness of `C ∧ ¬q`.
    fn must_be_true(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<Truth, SolverError> {
        let negated = pool.bool_not(query);
        Ok(match self.check(pool, constraints, negated)? {
            SatResult::Unsat => Truth::Yes,
            SatResult::Sat(model) => Truth::No(model),
            SatResult::Unknown(why) => Truth::Unknown(why),
        })
    }

    /// Satisfiability under the constraints: `∃X. C(X) ∧ q(X)`. On `Yes`, the assignment is a
    /// witness of `C ∧ q`.
    fn may_be_true(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<Possibility, SolverError> {
        Ok(match self.check(pool, constraints, query)? {
            SatResult::Sat(model) => Possibility::Yes(model),
            SatResult::Unsat => Possibility::No,
            SatResult::Unknown(why) => Possibility::Unknown(why),
        })
    }

    /// One possible value of `e`: some `X` with `C(X)`, and `e(X)`. `None` when `C` is
    /// unsatisfiable; [`SolverError::Unknown`] when the backend cannot decide. Arrays that only
    /// `e` mentions are absent from the returned assignment and read as 0, which is the value
    /// the returned number was computed with.
    fn get_value(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        e: ExprId,
    ) -> Result<Option<(u128, Assignment)>, SolverError> {
        Ok(self
            .get_model(pool, constraints)?
            .map(|model| (pool.eval(e, &model), model)))
    }

    /// Some `X` with `C(X)`: a model of the constraints alone (query `true`). `None` when `C`
    /// is unsatisfiable; [`SolverError::Unknown`] when the backend cannot decide.
    fn get_model(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
    ) -> Result<Option<Assignment>, SolverError> {
        match self.check(pool, constraints, pool.true_())? {
            SatResult::Sat(model) => Ok(Some(model)),
            SatResult::Unsat => Ok(None),
            SatResult::Unknown(why) => Err(SolverError::Unknown(why)),
        }
    }
}

impl<S: Solver + ?Sized> SolverExt for S {}

/// Arrays larger than this many bytes get a model only as long as the highest offset the
/// formula reads, plus one, instead of their declared size.
const DENSE_MODEL_LIMIT: u32 = 1 << 16;

/// The children of `node`, in no particular order.
pub(crate) fn children(node: &Node) -> impl Iterator<Item = ExprId> {
    node.children()
}

/// Every symbolic byte reachable from `roots`, as `(node id, array, offset)`, each once. The
/// walk uses an explicit stack, so deep expressions cannot overflow the call stack.
pub(crate) fn symbolic_bytes(
    pool: &ExprPool,
    roots: impl IntoIterator<Item = ExprId>,
) -> Vec<(ExprId, ArrayId, u32)> {
    let mut seen = FxHashSet::default();
    let mut stack: Vec<ExprId> = roots.into_iter().collect();
    let mut found = Vec::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = pool.node(id);
        if let Node::Sym { array, offset } = node {
            found.push((id, array, offset));
        }
        stack.extend(children(&node).filter(|c| !seen.contains(c)));
    }
    found
}

/// The number of bytes a model gives `array` when the formula reads it at offsets up to
/// `max_offset`: the declared size, unless that is huge (then `max_offset + 1`), and never
/// less than `max_offset + 1`.
pub(crate) fn model_len(pool: &ExprPool, array: ArrayId, max_offset: u32) -> usize {
    let needed = max_offset as usize + 1;
    let declared = pool.array_info(array).size;
    if declared > DENSE_MODEL_LIMIT {
        needed
    } else {
        needed.max(declared as usize)
    }
}

/// Groups `(array, offset, value)` bytes into an assignment whose arrays have their model
/// length (see [`model_len`]); bytes not listed are 0.
pub(crate) fn assignment_from_bytes(
    pool: &ExprPool,
    bytes: impl IntoIterator<Item = (ArrayId, u32, u8)>,
) -> Assignment {
    let mut by_array: FxHashMap<ArrayId, Vec<(u32, u8)>> = FxHashMap::default();
    for (array, offset, value) in bytes {
        by_array.entry(array).or_default().push((offset, value));
    }
    let mut arrays: Vec<_> = by_array.into_iter().collect();
    arrays.sort_unstable_by_key(|(array, _)| *array);
    let mut model = Assignment::new();
    for (array, values) in arrays {
        let max_offset = values.iter().map(|&(o, _)| o).max().unwrap_or(0);
        let mut data = vec![0u8; model_len(pool, array, max_offset)];
        for (offset, value) in values {
            data[offset as usize] = value;
        }
        model.set(array, data);
    }
    model
}

/// Gives every array that `roots` mention and `model` lacks an all-zero value of its model
/// length, so that the model assigns every array of the formula.
pub(crate) fn fill_missing_arrays(pool: &ExprPool, model: &mut Assignment, roots: &[ExprId]) {
    let missing: Vec<(ArrayId, u32, u8)> = symbolic_bytes(pool, roots.iter().copied())
        .into_iter()
        .filter(|&(_, array, _)| model.get(array).is_none())
        .map(|(_, array, offset)| (array, offset, 0u8))
        .collect();
    let arrays: FxHashSet<ArrayId> = missing.iter().map(|&(array, _, _)| array).collect();
    let zeros = assignment_from_bytes(pool, missing);
    for array in arrays {
        if let Some(data) = zeros.get(array) {
            model.set(array, data.to_vec());
        }
    }
}

/// Identifies the pool a stateful layer last served, to drop id-keyed state when it changes.
pub(crate) fn pool_key(pool: &ExprPool) -> usize {
    pool.id() as usize
}

/// What [`Recycled`] asks of a backend instance.
pub(crate) trait Memo {
    /// Checks the instance has run.
    fn checks(&self) -> u64;
    /// Expressions it has translated and keeps.
    fn memo_len(&self) -> usize;
}

/// A backend's long-lived instance (solver and translation memo), made lazily and dropped
/// when it has run `reset_interval` checks, keeps more than `memo_limit` terms, or is handed
/// a different pool: the memory bound both backends share.
pub(crate) struct Recycled<I> {
    instance: Option<I>,
    /// The pool the memo refers to.
    pool: usize,
    reset_interval: u64,
    memo_limit: usize,
    /// Times an instance was dropped ([`SolverStats::backend_resets`]).
    pub(crate) resets: u64,
}

impl<I: Memo> Recycled<I> {
    pub(crate) fn new(reset_interval: u64, memo_limit: usize) -> Self {
        Self {
            instance: None,
            pool: 0,
            reset_interval: reset_interval.max(1),
            memo_limit,
            resets: 0,
        }
    }

    /// Drops the instance and its memo; the next query starts afresh.
    pub(crate) fn reset(&mut self) {
        if self.instance.take().is_some() {
            self.resets += 1;
        }
    }

    /// The number of expressions currently memoised (0 before the first query).
    pub(crate) fn memo_len(&self) -> usize {
        self.instance.as_ref().map_or(0, I::memo_len)
    }

    /// The instance for the next query on `pool`, made with `make` if there is none or a
    /// bound was reached.
    pub(crate) fn get(
        &mut self,
        pool: &ExprPool,
        make: impl FnOnce() -> Result<I, SolverError>,
    ) -> Result<&mut I, SolverError> {
        let key = pool_key(pool);
        let stale = self.instance.as_ref().is_some_and(|i| {
            self.pool != key || i.checks() >= self.reset_interval || i.memo_len() > self.memo_limit
        });
        if stale {
            self.reset();
        }
        self.pool = key;
        match &mut self.instance {
            Some(instance) => Ok(instance),
            slot @ None => Ok(slot.insert(make()?)),
        }
    }
}

/// Shortens `text` to at most `max` characters for error messages.
pub(crate) fn abbreviate(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        text
    } else {
        let mut short: String = text.chars().take(max).collect();
        short.push('…');
        short
    }
}

/// SplitMix64: the deterministic generator of the sweep's samples and of the layers'
/// randomized tests.
pub(crate) struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value below `n` (not 0).
    #[cfg(test)]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// 128 random bits.
    #[cfg(test)]
    pub fn wide(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }
}

/// Helpers shared by the unit tests of the layers.
#[cfg(test)]
pub(crate) mod testing {
    use super::{SatResult, Solver, SolverError, SolverStats};
    use crate::expr::{ExprId, ExprPool};
    use std::sync::{Arc, Mutex};

    /// The questions a [`Scripted`] solver was asked, shared with the test.
    pub(crate) type Calls = Arc<Mutex<Vec<(Vec<ExprId>, ExprId)>>>;

    type Script = Box<dyn FnMut(&ExprPool, &[ExprId], ExprId) -> SatResult + Send>;

    /// A solver that answers from a closure and records every question.
    pub(crate) struct Scripted {
        pub(crate) calls: Calls,
        script: Script,
    }

    impl Scripted {
        pub(crate) fn new(
            script: impl FnMut(&ExprPool, &[ExprId], ExprId) -> SatResult + Send + 'static,
        ) -> (Self, Calls) {
            let calls = Calls::default();
            let solver = Self {
                calls: calls.clone(),
                script: Box::new(script),
            };
            (solver, calls)
        }
    }

    impl Solver for Scripted {
        fn check(
            &mut self,
            pool: &ExprPool,
            constraints: &[ExprId],
            query: ExprId,
        ) -> Result<SatResult, SolverError> {
            self.calls
                .lock()
                .expect("calls lock")
                .push((constraints.to_vec(), query));
            Ok((self.script)(pool, constraints, query))
        }

        fn stats(&self) -> SolverStats {
            SolverStats {
                backend_queries: self.calls.lock().expect("calls lock").len() as u64,
                ..SolverStats::default()
            }
        }
        fn set_hint(&mut self, _hint: Option<std::sync::Arc<crate::expr::Assignment>>) {}

        fn set_time_limit(&mut self, _limit: Option<std::time::Duration>) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn byte_var(pool: &ExprPool, name: &str, size: u32) -> (ArrayId, ExprId) {
        let array = pool.new_array(name, size);
        (array, pool.sym(array, 0))
    }

    #[test]
    fn must_be_true_is_validity_under_the_constraints() {
        let pool = ExprPool::new();
        let (x, x0) = byte_var(&pool, "x", 1);
        let mut solver = build_chain(&SolverConfig::default());
        let below10 = pool.ult(x0, pool.constant(8, 10));
        let below20 = pool.ult(x0, pool.constant(8, 20));
        let below5 = pool.ult(x0, pool.constant(8, 5));
        assert_eq!(
            solver.must_be_true(&pool, &[below10], below20).unwrap(),
            Truth::Yes
        );
        match solver.must_be_true(&pool, &[below10], below5).unwrap() {
            Truth::No(witness) => assert!((5..10).contains(&witness.byte(x, 0))),
            other => panic!("expected a counterexample, got {other:?}"),
        }
    }

    #[test]
    fn may_be_true_is_satisfiability_under_the_constraints() {
        let pool = ExprPool::new();
        let (x, x0) = byte_var(&pool, "x", 1);
        let mut solver = build_chain(&SolverConfig::default());
        let below10 = pool.ult(x0, pool.constant(8, 10));
        let is12 = pool.eq(x0, pool.constant(8, 12));
        let is7 = pool.eq(x0, pool.constant(8, 7));
        assert_eq!(
            solver.may_be_true(&pool, &[below10], is12).unwrap(),
            Possibility::No
        );
        match solver.may_be_true(&pool, &[below10], is7).unwrap() {
            Possibility::Yes(witness) => assert_eq!(witness.byte(x, 0), 7),
            other => panic!("expected a witness, got {other:?}"),
        }
    }

    #[test]
    fn get_value_and_get_model() {
        let pool = ExprPool::new();
        let (x, x0) = byte_var(&pool, "x", 4);
        let mut solver = build_chain(&SolverConfig::default());
        let is42 = pool.eq(x0, pool.constant(8, 42));
        let e = pool.add(pool.zext(x0, 32), pool.constant(32, 1));
        let (value, model) = solver.get_value(&pool, &[is42], e).unwrap().unwrap();
        assert_eq!(value, 43);
        assert_eq!(model.get(x), Some(&[42, 0, 0, 0][..]));

        let model = solver.get_model(&pool, &[is42]).unwrap().unwrap();
        assert_eq!(model.byte(x, 0), 42);
        let contradiction = [is42, pool.eq(x0, pool.constant(8, 41))];
        assert_eq!(solver.get_model(&pool, &contradiction).unwrap(), None);
        assert_eq!(solver.get_value(&pool, &contradiction, e).unwrap(), None);
    }

    #[test]
    fn stats_merge_adds_every_counter() {
        let one = SolverStats {
            queries: 1,
            total_time: Duration::from_millis(1),
            cache_hits: 2,
            cache_misses: 3,
            cex_unsat_subset_hits: 31,
            cex_sat_superset_hits: 32,
            cex_model_reuse_hits: 33,
            cex_misses: 34,
            independence_dropped: 4,
            independence_completions: 5,
            independence_recent_hits: 12,
            backend_queries: 6,
            backend_sat: 7,
            backend_unsat: 8,
            backend_unknown: 9,
            backend_time: Duration::from_millis(10),
            backend_resets: 11,
            validated_models: 12,
            ranges_rewritten: 13,
            ranges_unsat: 14,
            xor_linear_unsat: 5,
            sweep_queries: 1,
            sweep_merged: 2,
            sweep_local_queries: 3,
            sweep_decided: 1,
            enumerated: 15,
            enumeration_over_budget: 26,
            boundary_models: 27,
            crosscheck_queries: 16,
            crosscheck_disagreements: 17,
            crosscheck_unknown: 18,
            crosscheck_time: Duration::from_millis(19),
            backend_answers: [28, 29],
            portfolio_answers: [20, 21],
            portfolio_time: [Duration::from_millis(22), Duration::from_millis(23)],
            portfolio_races: 24,
            portfolio_cancelled: 25,
            portfolio_busy: 26,
        };
        let mut sum = one;
        sum.add(&one);
        assert_eq!(sum.queries, 2);
        assert_eq!(sum.total_time, Duration::from_millis(2));
        assert_eq!(sum.cache_hits, 4);
        assert_eq!(sum.cache_misses, 6);
        assert_eq!(sum.cex_unsat_subset_hits, 62);
        assert_eq!(sum.cex_sat_superset_hits, 64);
        assert_eq!(sum.cex_model_reuse_hits, 66);
        assert_eq!(sum.cex_misses, 68);
        assert_eq!(sum.independence_dropped, 8);
        assert_eq!(sum.independence_completions, 10);
        assert_eq!(sum.independence_recent_hits, 24);
        assert_eq!(sum.backend_queries, 12);
        assert_eq!(sum.backend_sat, 14);
        assert_eq!(sum.backend_unsat, 16);
        assert_eq!(sum.backend_unknown, 18);
        assert_eq!(sum.backend_time, Duration::from_millis(20));
        assert_eq!(sum.ranges_rewritten, 26);
        assert_eq!(sum.ranges_unsat, 28);
        assert_eq!((sum.sweep_merged, sum.sweep_local_queries), (4, 6));
        assert_eq!(sum.enumerated, 30);
        assert_eq!(sum.boundary_models, 54);
        assert_eq!(sum.enumeration_over_budget, 52);
        assert_eq!(sum.backend_resets, 22);
        assert_eq!(sum.validated_models, 24);
        assert_eq!(sum.crosscheck_queries, 32);
        assert_eq!(sum.crosscheck_disagreements, 34);
        assert_eq!(sum.crosscheck_unknown, 36);
        assert_eq!(sum.crosscheck_time, Duration::from_millis(38));
        assert_eq!(sum.portfolio_answers, [40, 42]);
        let time = [Duration::from_millis(44), Duration::from_millis(46)];
        assert_eq!(sum.portfolio_time, time);
        assert_eq!(sum.portfolio_races, 48);
        assert_eq!(sum.portfolio_cancelled, 50);
        assert_eq!(sum.portfolio_busy, 52);
    }

    #[test]
    fn symbolic_bytes_visits_shared_nodes_once() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 8);
        let (a, b) = (pool.sym(x, 0), pool.sym(x, 5));
        let sum = pool.add(a, b);
        let e1 = pool.ult(sum, pool.constant(8, 3));
        let e2 = pool.eq(pool.mul(sum, sum), pool.constant(8, 9));
        let mut found: Vec<(ArrayId, u32)> = symbolic_bytes(&pool, [e1, e2, e1])
            .into_iter()
            .map(|(_, array, offset)| (array, offset))
            .collect();
        found.sort_unstable();
        assert_eq!(found, vec![(x, 0), (x, 5)]);
    }

    #[test]
    fn models_of_huge_arrays_stop_at_the_highest_offset_read() {
        let pool = ExprPool::new();
        let small = pool.new_array("small", 4);
        let huge = pool.new_array("huge", u32::MAX);
        assert_eq!(model_len(&pool, small, 1), 4);
        assert_eq!(model_len(&pool, small, 9), 10);
        assert_eq!(model_len(&pool, huge, 6), 7);
        let model = assignment_from_bytes(&pool, [(huge, 2, 7), (small, 1, 9)]);
        assert_eq!(model.get(huge), Some(&[0, 0, 7][..]));
        assert_eq!(model.get(small), Some(&[0, 9, 0, 0][..]));

        let mut partial = Assignment::new();
        partial.set(small, vec![1, 2, 3, 4]);
        let read = pool.eq(pool.sym(huge, 3), pool.sym(small, 0));
        fill_missing_arrays(&pool, &mut partial, &[read]);
        assert_eq!(partial.get(small), Some(&[1, 2, 3, 4][..]));
        assert_eq!(partial.get(huge), Some(&[0, 0, 0, 0][..]));
    }

    #[test]
    fn abbreviate_shortens_long_text() {
        assert_eq!(abbreviate("short".into(), 10), "short");
        assert_eq!(abbreviate("abcdefghij".into(), 4), "abcd…");
    }

    #[test]
    fn chains_are_send() {
        fn assert_send<T: Send>(_: &T) {}
        let solver = build_chain(&SolverConfig::default());
        assert_send(&solver);
    }
}
