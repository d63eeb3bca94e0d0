//! The portfolio backend (the default, `--solver portfolio`): Bitwuzla, and Z3 raced against
//! it on the queries Bitwuzla does not answer at once, with what the races taught kept per
//! query shape.
//!
//! **One check of the first backend, a racer that waits.** A check is the first backend's,
//! on the calling thread, with the check's whole limit: it is never restarted. Beside it, a
//! *racer thread*, started with the portfolio's first check that may be raced and kept until
//! the portfolio is dropped, owns the second backend (made at the first race: a run without
//! one never creates Z3) and its incremental instance. The calling thread posts each check to
//! the racer without waking it (a mutex, no system call); the racer looks at the posted check
//! every [`POLL`] (20 ms) and, once it has run for its shape's *delay* ([`RACE_DELAY`],
//! 250 ms, at first) without an answer, asks the second backend the same question with the
//! time left. A check that ends within its delay costs two uncontended locks: no thread is
//! started, nothing is translated twice, and the first backend's work is never thrown away.
//! A non-definite answer other than a timeout goes to the second backend alone. A check whose
//! limit is at most [`MIN_RACE_LIMIT`] is the first backend's alone.
//!
//! The first definite answer (sat or unsat) of a race wins and the other backend's check is
//! cancelled through its [`Cancel`] handle, which ends that one check only: the next race
//! starts with both rearmed. The run's interrupt and deadline stay global: they reach each
//! backend through its own [`Stop`] token, as they reach a single backend, and the portfolio
//! cancels a backend still running once the token says to stop. A check returns only once
//! the racer no longer runs it: the racer reads the caller's pool and constraints through
//! pointers that are valid exactly that long (a guard keeps this when the first backend
//! panics).
//!
//! **Learned per query shape.** A query's *shape* is the set of its operators (each binary
//! operator, unary operators, `ite`, extractions and extensions, arrays, floating point, widths
//! beyond 64 bits). A race the first backend wins doubles its shape's delay (up to
//! [`MAX_RACE_DELAY`]): a shape that only the first backend answers stops paying for races.
//! A race the second wins makes its shape's delay zero: the next query of that shape is
//! raced at once (the racer is woken for it). Shapes are computed only once a race has
//! happened, memoized by expression.
//!
//! The racer thread runs at the lowest scheduling priority (nice 19): the second backend uses
//! the CPU nothing else wants. **A race needs an idle core**: when the machine's load average
//! leaves none ([`idle_core`]), a check due for a race is left to the first backend (counted
//! as `portfolio: races left out (no idle core)`), since the second could only take CPU from
//! it, and a cancelled Z3 that got none kept the check waiting for seconds.
//!
//! Both backends lower the same expressions from the same pool ([`ExprPool`] is shared by
//! threads) and keep their own incremental instances between checks. Both answer with the same
//! [`SatResult`], so the chain above validates a model whichever backend found it. When
//! neither answer is definite, the first backend's answer (unknown or error) is returned.

use super::{
    Backend, BitwuzlaSolver, Cancel, SatResult, Solver, SolverError, SolverStats, Z3Solver, TIMEOUT,
};
use crate::expr::{Assignment, ExprId, ExprPool, Node};
use crate::stop::Stop;
use rustc_hash::FxHashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The first backend's time alone on a query of a shape no race has taught anything about.
/// Most backend checks take well under a millisecond, and floating-point ones up to a few
/// hundred; a race costs the second backend's translation and a share of the CPU: on a loaded
/// machine the corpus's `fp_neg_zero` (-O2, `--fp-equal ieee`), whose one query Bitwuzla
/// answers in about 100 ms, took 0.2–1 s instead of 0.1–0.18 s when raced at 50 ms. The
/// queries Z3 wins take Bitwuzla far longer than this (KLEE's `modOpt` urem query without
/// the range layer: 0.5–0.9 s).
pub const RACE_DELAY: Duration = Duration::from_millis(250);

/// The longest delay, however many races of its shape the first backend won: what a query
/// that only the second backend answers costs at most, once, before its shape is raced at
/// once.
pub const MAX_RACE_DELAY: Duration = Duration::from_secs(1);

/// How often the racer looks for a posted check when it was not woken: a check is raced at
/// most this much later than its delay, and an idle racer wakes this often (a lock and a
/// comparison each time).
pub const POLL: Duration = Duration::from_millis(20);

/// Whether a core is idle for the second backend: the machine's 1-minute load average (which
/// counts the first backend's thread) plus the racer's thread fits in the cores this process
/// may use (Linux's `/proc/loadavg`; where it cannot be read, a core is assumed idle). On a
/// busy machine a race cannot run beside the first backend, only take CPU from it: the racer
/// runs at nice 19 within the process's scheduling group, so it gets almost nothing while the
/// first runs, and Z3, cancelled in a phase that seldom looks at its cancel flag, then kept
/// the check waiting: KLEE's `mod`/`modOpt` urem query (`--no-ranges`) took 3.2–6.8 s
/// against 2.3–2.8 s with Bitwuzla alone at load 7, Z3 stopping up to 3.4 s after Bitwuzla's
/// answer.
fn idle_core() -> bool {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<f64>().ok());
    load.is_none_or(|load| load + 1.0 <= cores)
}

/// The longest check limit not worth a race: a check limited to this or less is the first
/// backend's alone. The second backend takes CPU from the first; on a loaded two-core machine
/// that pushed branch queries Bitwuzla answers in just under their first try
/// (`--defer-after`, 1 s) past it, and the deferrals that followed left zlib's `adler32`
/// (`len <= 16`, -O2) inconclusive at 20 s in two runs of three (0.9 s with Bitwuzla
/// alone). Searches that expect timeouts (counterexample minimization asks with a quarter of
/// a second) gain nothing either. The retry of a deferred query and a path's final query have
/// the full limit, and are raced.
pub const MIN_RACE_LIMIT: Duration = Duration::from_secs(1);

/// How often the portfolio repeats the cancel of a backend that has not yet stopped: a cancel
/// that arrives while Z3 sets up its check can be lost, so it is sent again until it lands.
const CANCEL_REPEAT: Duration = Duration::from_millis(5);

/// The most expressions whose shape the portfolio remembers before it starts again.
const SHAPE_MEMO_LIMIT: usize = 1 << 20;

/// One backend of a portfolio: the solver, the handle that cancels its checks, and the
/// backend it stands for in the counters.
pub struct Entrant {
    pub backend: Backend,
    pub solver: Box<dyn Solver>,
    pub cancel: Arc<dyn Cancel>,
}

impl Entrant {
    /// The slot of this entrant's backend in the portfolio counters ([`Backend::ALL`]).
    fn slot(&self) -> usize {
        Backend::ALL
            .iter()
            .position(|&b| b == self.backend)
            .unwrap_or(0)
    }
}

/// Makes the second entrant at the first race.
type MakeEntrant = Box<dyn FnOnce() -> Entrant + Send>;

/// The second entrant, made when first needed.
enum Second {
    Later(MakeEntrant),
    Made(Entrant),
}

/// What one entrant did in a race: its answer, or the panic that ended it.
struct Run {
    result: std::thread::Result<Result<SatResult, SolverError>>,
    took: Duration,
}

/// A check posted to the racer: the question the first backend is asked (pointers into the
/// caller's frame: see [`Racer`]), when it was asked, and when the second may join.
struct Job {
    pool: *const ExprPool,
    constraints: *const [ExprId],
    query: ExprId,
    posted: Instant,
    wait: Duration,
    /// The check's limit as a whole, and the second backend's own between checks.
    budget: Option<Duration>,
    limit: Option<Duration>,
}

// SAFETY: the pointers are read only by the racer thread while the check that posted them
// runs: the calling thread removes the job and waits until the racer no longer runs it before
// `PortfolioSolver::check` returns or unwinds ([`Posted`]). `ExprPool` is `Sync`, and the
// constraints are plain ids.
unsafe impl Send for Job {}

/// What the calling thread and the racer share, under one mutex.
struct Shared {
    /// The running check, while the first backend has not answered it.
    job: Option<Job>,
    /// Counts posted checks: the racer runs each at most once.
    posted: u64,
    raced: u64,
    /// The last posted check left to the first backend for want of an idle core.
    busy: u64,
    /// The second entrant while the racer does not run it (taken out during its check);
    /// `None` after a panic in it, which ends the races.
    second: Option<Second>,
    running: bool,
    /// Cancels the second entrant's check, once it is made.
    cancel_second: Option<Arc<dyn Cancel>>,
    /// The winner of the running check (0: the first), and the racer's run, if any.
    winner: Option<usize>,
    run: Option<Run>,
    /// The hint, kept for a second entrant made later.
    hint: Option<Arc<Assignment>>,
    quit: bool,
}

/// The racer's side: the shared state, the condition both wait on, and the run's token.
struct Racer {
    shared: Mutex<Shared>,
    changed: Condvar,
    stop: Stop,
    /// Cancels the first backend (the racer's win).
    cancel_first: Arc<dyn Cancel>,
    /// Whether a race waits for an idle core ([`idle_core`]).
    when_idle: bool,
}

impl Racer {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The racer thread: waits for a posted check to outlast its delay, asks the second
    /// entrant, and reports; until told to quit.
    fn serve(&self) {
        lower_priority();
        let mut shared = self.lock();
        loop {
            if shared.quit {
                return;
            }
            let due = match &shared.job {
                Some(job) if shared.raced != shared.posted && shared.second.is_some() => {
                    job.posted + job.wait
                }
                _ => {
                    shared = self.wait(shared, POLL);
                    continue;
                }
            };
            let now = Instant::now();
            if now < due {
                shared = self.wait(shared, (due - now).min(POLL));
                continue;
            }
            shared.raced = shared.posted;
            if shared.winner.is_some() || self.stop.should_stop() {
                continue;
            }
            if self.when_idle && !idle_core() {
                shared.busy = shared.posted;
                continue;
            }
            let job = shared.job.as_ref().expect("checked above");
            let (pool, constraints, query) = (job.pool, job.constraints, job.query);
            let left = job.budget.map(|b| b.saturating_sub(job.posted.elapsed()));
            let limit = job.limit;
            if left.is_some_and(|l| l.is_zero()) {
                continue;
            }
            let mut second = shared.second.take();
            let hint = shared.hint.clone();
            shared.running = true;
            drop(shared);
            let start = Instant::now();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if let Some(Second::Later(make)) = second.take_if(|s| matches!(s, Second::Later(_)))
                {
                    let mut entrant = make();
                    entrant.solver.set_hint(hint);
                    self.lock().cancel_second = Some(entrant.cancel.clone());
                    second = Some(Second::Made(entrant));
                }
                let Some(Second::Made(entrant)) = second.as_mut() else {
                    unreachable!("made above")
                };
                entrant.cancel.rearm();
                entrant.solver.set_time_limit(left.or(limit));
                // SAFETY: see `Job`: the check that posted these runs until `running` is
                // false again.
                let (pool, constraints) = unsafe { (&*pool, &*constraints) };
                let result = entrant.solver.check(pool, constraints, query);
                entrant.solver.set_time_limit(limit);
                result
            }));
            let took = start.elapsed();
            shared = self.lock();
            let panicked = result.is_err();
            if matches!(result, Ok(ref r) if definite(r)) && shared.winner.is_none() {
                shared.winner = Some(1);
                self.cancel_first.cancel();
            }
            if !panicked {
                shared.second = second;
            }
            shared.run = Some(Run { result, took });
            shared.running = false;
            self.changed.notify_all();
        }
    }

    fn wait<'a>(&self, shared: MutexGuard<'a, Shared>, most: Duration) -> MutexGuard<'a, Shared> {
        match self.changed.wait_timeout(shared, most) {
            Ok((guard, _)) => guard,
            Err(p) => p.into_inner().0,
        }
    }
}

/// A check posted to the racer: dropped (also when the first backend panics), it takes the
/// check back and waits until the racer no longer runs it, cancelling the second backend
/// when the first won or the run must stop.
struct Posted<'a> {
    racer: &'a Racer,
    done: bool,
}

impl Posted<'_> {
    /// Ends the check: the first backend answered `definite` (and, if so, claims the win
    /// unless the racer already did); returns the winner and the racer's run.
    fn finish(&mut self, definite: bool) -> (Option<usize>, Option<Run>) {
        self.end(definite, false)
    }

    /// Whether the racer left this check to the first backend for want of an idle core
    /// (asked after [`Posted::finish`]).
    fn left_out(&self) -> bool {
        let shared = self.racer.lock();
        shared.busy == shared.posted
    }

    /// [`Posted::finish`], cancelling the second backend whatever the first answered when
    /// `abandon` (the first backend panicked).
    fn end(&mut self, definite: bool, abandon: bool) -> (Option<usize>, Option<Run>) {
        self.done = true;
        let racer = self.racer;
        let mut shared = racer.lock();
        shared.job = None;
        if definite && shared.winner.is_none() {
            shared.winner = Some(0);
        }
        while shared.running {
            if abandon || shared.winner == Some(0) || racer.stop.should_stop() {
                if let Some(cancel) = &shared.cancel_second {
                    cancel.cancel();
                }
            }
            shared = racer.wait(shared, CANCEL_REPEAT);
        }
        (shared.winner, shared.run.take())
    }
}

impl Drop for Posted<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.end(false, true);
        }
    }
}

/// Races two backends (see the module documentation).
pub struct PortfolioSolver {
    first: Entrant,
    /// The second entrant until the racer thread starts, which then owns it.
    second: Option<Second>,
    second_slot: usize,
    racer: Option<(Arc<Racer>, std::thread::JoinHandle<()>)>,
    /// Whether a race waits for an idle core ([`idle_core`]; [`PortfolioSolver::new`]'s do).
    when_idle: bool,
    /// The delay of a shape not seen in a race, and the least a race won by the first
    /// backend leaves.
    base_delay: Duration,
    /// The delay learned per shape ([`shape_bits`]).
    shapes: FxHashMap<u64, Duration>,
    /// The shape of each expression seen since races began, and the pool it belongs to.
    shape_memo: FxHashMap<ExprId, u64>,
    memo_pool: u64,
    /// The backends' own limit, and the shorter one set for the coming checks.
    timeout: Option<Duration>,
    limit: Option<Duration>,
    /// The hint, kept for the second entrant.
    hint: Option<Arc<Assignment>>,
    stop: Stop,
    stats: SolverStats,
}

fn definite(result: &Result<SatResult, SolverError>) -> bool {
    matches!(result, Ok(SatResult::Sat(_) | SatResult::Unsat))
}

fn timed_out(result: &Result<SatResult, SolverError>) -> bool {
    matches!(result, Ok(SatResult::Unknown(why)) if *why == TIMEOUT)
}

/// Gives the calling thread the lowest scheduling priority (nice 19); a failure leaves it as
/// it was.
fn lower_priority() {
    // SAFETY: `gettid` has no preconditions; `setpriority` on the calling thread's id changes
    // only that thread's nice value (Linux), and its result is deliberately ignored.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19);
    }
}

/// The operator bit of one node (see the module documentation), 0 for leaves.
fn node_bit(pool: &ExprPool, id: ExprId, node: Node) -> u64 {
    let wide = if pool.width(id) > 64 { 1 << 50 } else { 0 };
    let bit = match node {
        Node::Const { .. } | Node::Sym { .. } | Node::ArrayConst { .. } => return wide,
        Node::Binary { op, .. } => op as u32,
        Node::Unary { .. } => 32,
        Node::Ite { .. } => 33,
        Node::Extract { .. } | Node::Concat { .. } => 34,
        Node::ZExt { .. } | Node::SExt { .. } => 35,
        Node::ArrayRead { .. } | Node::ArrayStore { .. } => 36,
        Node::FpBinary { .. } | Node::FpUnary { .. } | Node::FpFma { .. } => 37,
        Node::FpCmp { .. } => 38,
        Node::FpConvert { .. } | Node::FpToSInt { .. } | Node::IntToFp { .. } => 39,
    };
    wide | 1 << bit
}

impl PortfolioSolver {
    /// Bitwuzla first and Z3 second, each check limited to `timeout` and stopped by `stop`.
    pub fn new(timeout: Option<Duration>, stop: &Stop) -> Self {
        let bitwuzla = BitwuzlaSolver::new(timeout).with_stop(stop.clone());
        let first = Entrant {
            backend: Backend::Bitwuzla,
            cancel: bitwuzla.canceller(),
            solver: Box::new(bitwuzla),
        };
        let z3_stop = stop.clone();
        let make_z3: MakeEntrant = Box::new(move || {
            let z3 = Z3Solver::new(timeout).with_stop(z3_stop);
            Entrant {
                backend: Backend::Z3,
                cancel: z3.canceller(),
                solver: Box::new(z3),
            }
        });
        let slot = Backend::ALL.iter().position(|&b| b == Backend::Z3);
        let mut portfolio = Self::build(first, Second::Later(make_z3), slot.unwrap_or(1), stop);
        portfolio.timeout = timeout;
        portfolio.when_idle = true;
        portfolio
    }

    /// A portfolio of any two solvers; `stop` is the run's token, which the entrants must
    /// also obey themselves.
    pub fn with_entrants(first: Entrant, second: Entrant, stop: &Stop) -> Self {
        let slot = second.slot();
        Self::build(first, Second::Made(second), slot, stop)
    }

    fn build(first: Entrant, second: Second, second_slot: usize, stop: &Stop) -> Self {
        Self {
            first,
            second: Some(second),
            second_slot,
            racer: None,
            when_idle: false,
            base_delay: RACE_DELAY,
            shapes: FxHashMap::default(),
            shape_memo: FxHashMap::default(),
            memo_pool: 0,
            timeout: None,
            limit: None,
            hint: None,
            stop: stop.clone(),
            stats: SolverStats::default(),
        }
    }

    /// The same portfolio, giving the first backend `delay` alone on a query of a shape no
    /// race has taught anything about (a zero delay races every query at once).
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// The racer, started now if it was not yet (`None` if its thread cannot be started:
    /// then the first backend answers alone).
    fn racer(&mut self) -> Option<Arc<Racer>> {
        if self.racer.is_none() {
            let second = self.second.take()?;
            let cancel_second = match &second {
                Second::Made(entrant) => Some(entrant.cancel.clone()),
                Second::Later(_) => None,
            };
            let racer = Arc::new(Racer {
                shared: Mutex::new(Shared {
                    job: None,
                    posted: 0,
                    raced: 0,
                    busy: 0,
                    second: Some(second),
                    running: false,
                    cancel_second,
                    winner: None,
                    run: None,
                    hint: self.hint.clone(),
                    quit: false,
                }),
                changed: Condvar::new(),
                stop: self.stop.clone(),
                cancel_first: self.first.cancel.clone(),
                when_idle: self.when_idle,
            });
            let serving = racer.clone();
            let thread = std::thread::Builder::new()
                .name("xcheck-racer".into())
                .spawn(move || serving.serve())
                .ok()?;
            self.racer = Some((racer, thread));
        }
        self.racer.as_ref().map(|(racer, _)| racer.clone())
    }

    /// The shape of `constraints ∧ query`: the union of its operators' bits.
    fn shape(&mut self, pool: &ExprPool, constraints: &[ExprId], query: ExprId) -> u64 {
        if self.memo_pool != pool.id() || self.shape_memo.len() > SHAPE_MEMO_LIMIT {
            self.shape_memo.clear();
            self.memo_pool = pool.id();
        }
        let memo = &mut self.shape_memo;
        let mut shape = 0;
        for &root in constraints.iter().chain([&query]) {
            // Post-order: a node's shape is its bit and its children's shapes.
            let mut stack = vec![(root, false)];
            while let Some((id, expanded)) = stack.pop() {
                if memo.contains_key(&id) {
                    continue;
                }
                let node = pool.node(id);
                if !expanded {
                    stack.push((id, true));
                    stack.extend(node.children().map(|c| (c, false)));
                    continue;
                }
                let bits = node
                    .children()
                    .fold(node_bit(pool, id, node), |bits, c| bits | memo[&c]);
                memo.insert(id, bits);
            }
            shape |= memo[&root];
        }
        shape
    }

    /// The limit of the check as a whole: the shorter one set for it, or the backends' own.
    fn budget(&self) -> Option<Duration> {
        self.limit.or(self.timeout)
    }
}

impl Drop for PortfolioSolver {
    fn drop(&mut self) {
        if let Some((racer, thread)) = self.racer.take() {
            racer.lock().quit = true;
            racer.changed.notify_all();
            let _ = thread.join();
        }
    }
}

impl Solver for PortfolioSolver {
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let budget = self.budget();
        if budget.is_some_and(|b| b <= MIN_RACE_LIMIT) {
            return self.alone(pool, constraints, query);
        }
        let Some(racer) = self.racer() else {
            return self.alone(pool, constraints, query);
        };
        let mut shape = None;
        let mut delay = self.base_delay;
        if !self.shapes.is_empty() {
            let s = self.shape(pool, constraints, query);
            shape = Some(s);
            delay = self.shapes.get(&s).copied().unwrap_or(self.base_delay);
        }
        let start = Instant::now();
        {
            let mut shared = racer.lock();
            shared.job = Some(Job {
                pool,
                constraints,
                query,
                posted: start,
                wait: delay,
                budget,
                limit: self.limit,
            });
            shared.posted += 1;
            shared.winner = None;
            shared.run = None;
        }
        if delay.is_zero() {
            racer.changed.notify_all();
        }
        let mut posted = Posted {
            racer: &racer,
            done: false,
        };
        self.first.cancel.rearm();
        let result = self.first.solver.check(pool, constraints, query);
        let took = start.elapsed();
        let (winner, run) = posted.finish(definite(&result));
        if posted.left_out() {
            self.stats.portfolio_busy += 1;
        }
        drop(posted);
        let (one, two) = (self.first.slot(), self.second_slot);
        let stats = &mut self.stats;
        stats.backend_time += start.elapsed();
        stats.portfolio_time[one] += took;
        let raced = run.is_some();
        let second_result = match run {
            Some(run) => {
                stats.portfolio_races += 1;
                stats.portfolio_time[two] += run.took;
                match run.result {
                    Ok(result) => Some(result),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            None => None,
        };
        let lost = match winner {
            Some(0) => second_result.as_ref(),
            Some(_) => Some(&result),
            None => None,
        };
        if lost.is_some_and(|r| !definite(r)) {
            stats.portfolio_cancelled += 1;
        }
        let answer = match (winner, second_result) {
            (Some(1), Some(other)) => {
                stats.portfolio_answers[two] += 1;
                other
            }
            (Some(_), _) => {
                stats.portfolio_answers[one] += 1;
                result
            }
            (None, _) => result,
        };
        if winner.is_none() && !raced && !timed_out(&answer) && !self.stop.should_stop() {
            // The first backend gave up on its own within its delay: the second is asked
            // alone.
            return self.second_alone(&racer, pool, constraints, query, answer);
        }
        let shape = match shape {
            Some(s) => s,
            None if raced || winner == Some(0) && took >= delay => {
                self.shape(pool, constraints, query)
            }
            None => return answer,
        };
        match (winner, raced) {
            (Some(0), true) => {
                let longer = (delay * 2)
                    .max(self.base_delay)
                    .min(MAX_RACE_DELAY.max(self.base_delay));
                self.shapes.insert(shape, longer);
            }
            (Some(0), false) | (None, _) => {
                self.shapes.entry(shape).or_insert(delay);
            }
            (Some(_), _) => {
                self.shapes.insert(shape, Duration::ZERO);
            }
        }
        answer
    }

    fn stats(&self) -> SolverStats {
        let mut stats = self.first.solver.stats();
        let second = |s: &Second| match s {
            Second::Made(entrant) => Some(entrant.solver.stats()),
            Second::Later(_) => None,
        };
        let second_stats = match &self.racer {
            Some((racer, _)) => racer.lock().second.as_ref().and_then(second),
            None => self.second.as_ref().and_then(second),
        };
        if let Some(s) = second_stats {
            stats.add(&s);
        }
        // The backends' times overlap in a race: the chain waited for the portfolio's own
        // (translation included), and each backend's is in `portfolio_time`.
        stats.backend_time = Duration::ZERO;
        stats.add(&self.stats);
        stats
    }

    fn set_hint(&mut self, hint: Option<Arc<Assignment>>) {
        self.first.solver.set_hint(hint.clone());
        self.each_second(|second| second.solver.set_hint(hint.clone()));
        if let Some((racer, _)) = &self.racer {
            racer.lock().hint = hint.clone();
        }
        self.hint = hint;
    }

    fn set_time_limit(&mut self, limit: Option<Duration>) {
        self.first.solver.set_time_limit(limit);
        self.each_second(|second| second.solver.set_time_limit(limit));
        self.limit = limit;
    }
}

impl PortfolioSolver {
    /// Calls `f` on the second entrant if it was made (the racer does not run it between
    /// checks).
    fn each_second(&mut self, f: impl FnOnce(&mut Entrant)) {
        let apply = |second: Option<&mut Second>| {
            if let Some(Second::Made(entrant)) = second {
                f(entrant);
            }
        };
        match &self.racer {
            Some((racer, _)) => apply(racer.lock().second.as_mut()),
            None => apply(self.second.as_mut()),
        }
    }

    /// The first backend's answer, without a race.
    fn alone(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let start = Instant::now();
        self.first.cancel.rearm();
        let result = self.first.solver.check(pool, constraints, query);
        let took = start.elapsed();
        let one = self.first.slot();
        self.stats.backend_time += took;
        self.stats.portfolio_time[one] += took;
        if definite(&result) {
            self.stats.portfolio_answers[one] += 1;
        }
        result
    }

    /// The second backend's answer on the calling thread (the racer is idle between checks),
    /// or `first`'s when it has none.
    fn second_alone(
        &mut self,
        racer: &Racer,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
        first: Result<SatResult, SolverError>,
    ) -> Result<SatResult, SolverError> {
        let mut shared = racer.lock();
        let hint = shared.hint.clone();
        let Some(second) = shared.second.as_mut() else {
            return first;
        };
        if let Second::Later(_) = second {
            let Some(Second::Later(make)) = shared.second.take() else {
                unreachable!("matched above")
            };
            let mut entrant = make();
            entrant.solver.set_hint(hint);
            entrant.solver.set_time_limit(self.limit);
            shared.cancel_second = Some(entrant.cancel.clone());
            shared.second = Some(Second::Made(entrant));
        }
        let Some(Second::Made(entrant)) = shared.second.as_mut() else {
            unreachable!("made above")
        };
        entrant.cancel.rearm();
        let asked = Instant::now();
        let other = entrant.solver.check(pool, constraints, query);
        let took = asked.elapsed();
        drop(shared);
        let two = self.second_slot;
        self.stats.backend_time += took;
        self.stats.portfolio_time[two] += took;
        self.stats.portfolio_races += 1;
        if definite(&other) {
            self.stats.portfolio_answers[two] += 1;
            return other;
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{ArrayId, Assignment};
    use crate::solver::{build_chain, CancelFlag, SolverConfig, CANCELLED};
    use std::collections::VecDeque;

    /// A `bytes`-byte little-endian input word named `name`.
    fn word(pool: &ExprPool, name: &str, bytes: u32) -> (ArrayId, ExprId) {
        let array = pool.new_array(name, bytes);
        let syms: Vec<ExprId> = (0..bytes).map(|i| pool.sym(array, i)).collect();
        (array, pool.concat_bytes(&syms))
    }

    /// 4294967291 · 4294967279, the two largest primes below 2^32.
    const FACTORS: (u64, u64) = (4294967291, 4294967279);

    /// Two 64-bit factors above 1 of a product of two large primes: satisfiable, and hard
    /// for both backends (neither finds the factors in seconds).
    fn factoring(pool: &ExprPool) -> (ExprId, Assignment) {
        let ((a, x), (b, y)) = (word(pool, "x", 8), word(pool, "y", 8));
        let c = u128::from(FACTORS.0) * u128::from(FACTORS.1);
        let product = pool.mul(pool.zext(x, 128), pool.zext(y, 128));
        let one = pool.constant(64, 1);
        let query = pool.bool_and(
            pool.eq(product, pool.constant(128, c)),
            pool.bool_and(pool.ugt(x, one), pool.ugt(y, one)),
        );
        let mut model = Assignment::new();
        model.set(a, FACTORS.0.to_le_bytes().to_vec());
        model.set(b, FACTORS.1.to_le_bytes().to_vec());
        (query, model)
    }

    /// What a [`Fake`] does in one check: answer after a time, or wait for a cancel.
    type Step = Option<(Duration, SatResult)>;

    /// A backend that answers as scripted, one step per check, polling its cancel flag, the
    /// run's stop token and its time limit every millisecond as a real backend's callback
    /// would; a step without an answer waits (at most a minute) to be cancelled or stopped.
    /// A check cut short by the time limit keeps its step for the next (the portfolio asks
    /// again after the first backend's solo time). It records how each check ended.
    struct Fake {
        script: VecDeque<Step>,
        cancel: Arc<CancelFlag>,
        stop: Stop,
        limit: Option<Duration>,
        ended: Arc<Mutex<Vec<String>>>,
    }

    impl Fake {
        fn entrant(
            backend: Backend,
            script: Vec<Step>,
            stop: &Stop,
        ) -> (Entrant, Arc<Mutex<Vec<String>>>) {
            let ended = Arc::new(Mutex::new(Vec::new()));
            let cancel = Arc::new(CancelFlag::default());
            let fake = Fake {
                script: script.into(),
                cancel: cancel.clone(),
                stop: stop.clone(),
                limit: None,
                ended: ended.clone(),
            };
            let entrant = Entrant {
                backend,
                solver: Box::new(fake),
                cancel,
            };
            (entrant, ended)
        }
    }

    impl Solver for Fake {
        fn check(
            &mut self,
            _: &ExprPool,
            _: &[ExprId],
            _: ExprId,
        ) -> Result<SatResult, SolverError> {
            let step = self.script.pop_front().flatten();
            let start = Instant::now();
            let (how, result) = loop {
                if self.limit.is_some_and(|l| start.elapsed() >= l) {
                    self.script.push_front(step.clone());
                    break ("timed out", SatResult::Unknown(TIMEOUT));
                }
                if self.cancel.is_cancelled() {
                    break ("cancelled", SatResult::Unknown(CANCELLED));
                }
                if let Some(why) = self.stop.reason() {
                    break ("stopped", SatResult::Unknown(why.into()));
                }
                match &step {
                    Some((after, answer)) if start.elapsed() >= *after => {
                        break ("answered", answer.clone());
                    }
                    None if start.elapsed() > Duration::from_secs(60) => {
                        break ("never stopped", SatResult::Unknown("fake".into()));
                    }
                    _ => std::thread::sleep(Duration::from_millis(1)),
                }
            };
            self.ended.lock().unwrap().push(how.to_string());
            Ok(result)
        }

        fn stats(&self) -> SolverStats {
            SolverStats::default()
        }
        fn set_hint(&mut self, _hint: Option<std::sync::Arc<crate::expr::Assignment>>) {}

        fn set_time_limit(&mut self, limit: Option<std::time::Duration>) {
            self.limit = limit;
        }
    }

    fn bitwuzla(stop: &Stop) -> Entrant {
        let solver = BitwuzlaSolver::new(Some(Duration::from_secs(60))).with_stop(stop.clone());
        Entrant {
            backend: Backend::Bitwuzla,
            cancel: solver.canceller(),
            solver: Box::new(solver),
        }
    }

    fn z3(stop: &Stop) -> Entrant {
        let solver = Z3Solver::new(Some(Duration::from_secs(60))).with_stop(stop.clone());
        Entrant {
            backend: Backend::Z3,
            cancel: solver.canceller(),
            solver: Box::new(solver),
        }
    }

    /// Queries with their expected answers (true: sat): arithmetic both backends decide at
    /// once, satisfiable ones with a single model or few.
    fn queries(pool: &ExprPool) -> Vec<(Vec<ExprId>, ExprId, bool)> {
        let (_, x) = word(pool, "x", 4);
        let (_, y) = word(pool, "y", 4);
        let (_, a) = word(pool, "a", 2);
        let (_, b) = word(pool, "b", 2);
        let c32 = |v| pool.constant(32, v);
        let c16 = |v| pool.constant(16, v);
        let small = [pool.ult(a, c16(100)), pool.ult(b, c16(100))];
        let above_one = [pool.ugt(a, c16(1)), pool.ugt(b, c16(1))];
        let sum = pool.add(pool.xor(x, y), pool.mul(c32(2), pool.and(x, y)));
        vec![
            (vec![], pool.eq(pool.mul(x, c32(3)), c32(12345)), true),
            (vec![pool.ult(x, c32(10))], pool.ugt(x, c32(20)), false),
            (vec![], pool.bool_not(pool.eq(sum, pool.add(x, y))), false),
            (
                [small, above_one].concat(),
                pool.eq(pool.mul(a, b), c16(391)),
                true,
            ),
            (
                vec![pool.eq(pool.urem(x, c32(7)), c32(3))],
                pool.eq(pool.udiv(x, c32(7)), c32(5)),
                true,
            ),
            (small.to_vec(), pool.eq(pool.mul(a, b), c16(10007)), false),
        ]
    }

    #[test]
    fn the_portfolio_answers_as_each_backend() {
        let pool = ExprPool::new();
        let stop = Stop::new();
        let qs = queries(&pool);
        let at_once = PortfolioSolver::with_entrants(bitwuzla(&stop), z3(&stop), &stop);
        let raced = PortfolioSolver::with_entrants(bitwuzla(&stop), z3(&stop), &stop)
            .with_delay(Duration::ZERO);
        let z3_first = PortfolioSolver::with_entrants(z3(&stop), bitwuzla(&stop), &stop)
            .with_delay(Duration::ZERO);
        let mut solvers: Vec<(&str, Box<dyn Solver>)> = vec![
            ("bitwuzla", bitwuzla(&stop).solver),
            ("z3", z3(&stop).solver),
            ("portfolio", Box::new(at_once)),
            ("raced", Box::new(raced)),
            ("z3 first", Box::new(z3_first)),
            (
                "chain",
                build_chain(&SolverConfig {
                    backend: Backend::Portfolio,
                    ..SolverConfig::default()
                }),
            ),
        ];
        for (name, solver) in &mut solvers {
            for (i, (constraints, query, sat)) in qs.iter().enumerate() {
                let result = solver.check(&pool, constraints, *query).unwrap();
                match result {
                    SatResult::Sat(model) => {
                        assert!(*sat, "{name}: query {i} answered sat");
                        let roots: Vec<ExprId> =
                            constraints.iter().copied().chain([*query]).collect();
                        assert!(
                            pool.eval_all(&roots, &model).iter().all(|&v| v == 1),
                            "{name}: query {i}: the model fails"
                        );
                    }
                    SatResult::Unsat => assert!(!*sat, "{name}: query {i} answered unsat"),
                    SatResult::Unknown(why) => panic!("{name}: query {i}: unknown ({why})"),
                }
            }
        }
        for (name, solver) in &solvers[2..] {
            let stats = solver.stats();
            eprintln!("{name}: {stats:?}");
            let answered: u64 = stats.portfolio_answers.iter().sum();
            if *name == "chain" {
                // The layers above the backend decide some queries themselves.
                assert!(
                    answered > 0 && answered <= stats.backend_queries,
                    "{stats:?}"
                );
            } else {
                assert_eq!(answered, qs.len() as u64, "{name}: {stats:?}");
            }
        }
    }

    #[test]
    fn a_slow_backend_loses_and_is_cancelled_promptly() {
        let pool = ExprPool::new();
        let stop = Stop::new();
        let (x, query) = {
            let (x, w) = word(&pool, "x", 4);
            (
                x,
                pool.eq(pool.add(w, pool.constant(32, 5)), pool.constant(32, 12)),
            )
        };
        // The fake never answers the first query, and answers the next two (unsat) at once.
        let contradiction = pool.eq(pool.sym(x, 0), pool.constant(8, 8));
        let at_once = Some((Duration::ZERO, SatResult::Unsat));
        let script = vec![None, at_once.clone(), at_once];
        let (slow, ended) = Fake::entrant(Backend::Bitwuzla, script, &stop);
        let mut portfolio = PortfolioSolver::with_entrants(slow, z3(&stop), &stop);
        let start = Instant::now();
        let SatResult::Sat(model) = portfolio.check(&pool, &[], query).unwrap() else {
            panic!("expected sat");
        };
        let took = start.elapsed();
        assert_eq!(model.get(x), Some(&[7, 0, 0, 0][..]));
        assert!(took < Duration::from_secs(2), "{took:?}");
        // Asked once (never restarted), and cancelled when the second won the race.
        assert_eq!(*ended.lock().unwrap(), ["cancelled"]);
        let stats = portfolio.stats();
        assert_eq!(stats.portfolio_answers, [0, 1]);
        assert_eq!((stats.portfolio_races, stats.portfolio_cancelled), (1, 1));
        // The cancel was for that check only. The second backend won the shape (equalities
        // of sums of bytes), so the next query of that shape is raced at once: the racer
        // starts the second backend unless the first (answering at once) was quicker.
        let answer = portfolio.check(&pool, &[contradiction], query).unwrap();
        assert_eq!(answer, SatResult::Unsat);
        assert_eq!(*ended.lock().unwrap(), ["cancelled", "answered"]);
        let stats = portfolio.stats();
        assert_eq!(stats.portfolio_answers.iter().sum::<u64>(), 2, "{stats:?}");
        let races = stats.portfolio_races;
        assert!((1..=2).contains(&races), "{stats:?}");
        // A query of another shape (an unsigned comparison only) has the first backend alone
        // first: answered at once, no race.
        let other = pool.ult(pool.sym(x, 1), pool.constant(8, 3));
        assert_eq!(
            portfolio.check(&pool, &[], other).unwrap(),
            SatResult::Unsat
        );
        assert_eq!(portfolio.stats().portfolio_races, races);
    }

    /// Races `real` (started first or second) on the hard factoring query against a fake
    /// that finds the factors after 200 ms: the fake wins and the real backend's check is
    /// cancelled at once. Then the real backend answers an easy query as usual (the cancel
    /// was not kept), while the fake waits to be cancelled.
    fn cancels_a_real_backend(real: Entrant, real_first: bool) {
        let pool = ExprPool::new();
        let stop = Stop::new();
        let (hard, factors) = factoring(&pool);
        let (x, easy) = {
            let (x, w) = word(&pool, "x", 4);
            (
                x,
                pool.eq(pool.mul(w, pool.constant(32, 3)), pool.constant(32, 21)),
            )
        };
        let real_slot = real.slot();
        let fake_backend = Backend::ALL[1 - real_slot];
        let script = vec![
            Some((Duration::from_millis(200), SatResult::Sat(factors))),
            None,
        ];
        let (fake, ended) = Fake::entrant(fake_backend, script, &stop);
        let mut portfolio = if real_first {
            PortfolioSolver::with_entrants(real, fake, &stop)
        } else {
            PortfolioSolver::with_entrants(fake, real, &stop).with_delay(Duration::ZERO)
        };
        let start = Instant::now();
        assert!(portfolio.check(&pool, &[], hard).unwrap().is_sat());
        let took = start.elapsed();
        assert!(took < Duration::from_millis(1500), "{took:?}");
        let stats = portfolio.stats();
        assert_eq!(stats.portfolio_answers[1 - real_slot], 1, "{stats:?}");
        assert_eq!(stats.portfolio_cancelled, 1, "{stats:?}");
        // Started first or second, the real backend was asked once, and cancelled.
        assert_eq!(stats.backend_unknown, 1, "{stats:?}");
        assert!(stats.portfolio_time[real_slot] < Duration::from_millis(1500));

        let SatResult::Sat(model) = portfolio.check(&pool, &[], easy).unwrap() else {
            panic!("expected sat");
        };
        assert_eq!(model.get(x), Some(&[7, 0, 0, 0][..]));
        let stats = portfolio.stats();
        assert_eq!(stats.portfolio_answers[real_slot], 1, "{stats:?}");
        let ended = ended.lock().unwrap().clone();
        if real_first {
            // Answered within the delay, the fake is not asked; on a loaded machine the
            // real backend may take longer than the delay, and then the fake's check is
            // cancelled when the real one answers.
            assert!(
                ended == ["answered"] || ended == ["answered", "cancelled"],
                "{ended:?}"
            );
        } else {
            assert_eq!(ended, ["answered", "cancelled"]);
        }
    }

    #[test]
    fn a_cancelled_bitwuzla_check_ends_at_once_and_the_next_is_answered() {
        cancels_a_real_backend(bitwuzla(&Stop::new()), true);
        cancels_a_real_backend(bitwuzla(&Stop::new()), false);
    }

    #[test]
    fn a_cancelled_z3_check_ends_at_once_and_the_next_is_answered() {
        cancels_a_real_backend(z3(&Stop::new()), true);
        cancels_a_real_backend(z3(&Stop::new()), false);
    }

    #[test]
    fn the_runs_interrupt_stops_a_race_and_every_later_check() {
        let pool = ExprPool::new();
        let stop = Stop::new();
        let (hard, _) = factoring(&pool);
        let mut portfolio = PortfolioSolver::with_entrants(bitwuzla(&stop), z3(&stop), &stop)
            .with_delay(Duration::ZERO);
        let start = Instant::now();
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(300));
                stop.interrupt();
            });
            portfolio.check(&pool, &[], hard).unwrap()
        });
        let took = start.elapsed();
        assert_eq!(result, SatResult::Unknown("interrupted".into()));
        assert!(took < Duration::from_secs(3), "{took:?}");
        let stats = portfolio.stats();
        assert_eq!(stats.portfolio_races, 1, "{stats:?}");
        assert_eq!(stats.portfolio_answers, [0, 0]);
        // The interrupt is the run's: a later check does not start.
        let start = Instant::now();
        let (_, easy) = word(&pool, "z", 1);
        let easy = pool.eq(pool.and(easy, pool.constant(8, 3)), pool.constant(8, 1));
        assert!(matches!(
            portfolio.check(&pool, &[], easy).unwrap(),
            SatResult::Unknown(_)
        ));
        assert!(start.elapsed() < Duration::from_millis(500));
    }

    #[test]
    fn the_runs_deadline_stops_a_race() {
        let pool = ExprPool::new();
        let stop = Stop::new();
        let (hard, _) = factoring(&pool);
        let (fake, ended) = Fake::entrant(Backend::Z3, vec![None], &stop);
        let mut portfolio = PortfolioSolver::with_entrants(bitwuzla(&stop), fake, &stop)
            .with_delay(Duration::from_millis(50));
        let start = Instant::now();
        stop.set_deadline(start + Duration::from_millis(1000));
        let result = portfolio.check(&pool, &[], hard).unwrap();
        assert_eq!(result, SatResult::Unknown("max-time reached".into()));
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        // The second entrant ends by the deadline itself or by the cancellation that follows
        // the first one's stop, whichever it sees first (a loaded machine wakes it late);
        // either way it ended, once. On a machine loaded enough that the racer is not woken
        // before the deadline, it never started: the race is then not run, which is also a
        // race the deadline stopped.
        let ended = ended.lock().unwrap().clone();
        assert!(
            ended == ["stopped"] || ended == ["cancelled"] || ended.is_empty(),
            "{ended:?}"
        );
    }

    /// A backend that panics after `after`, as a bug in a backend would.
    struct Panicking(Duration);

    impl Solver for Panicking {
        fn check(
            &mut self,
            _: &ExprPool,
            _: &[ExprId],
            _: ExprId,
        ) -> Result<SatResult, SolverError> {
            std::thread::sleep(self.0);
            panic!("the first backend failed");
        }
        fn stats(&self) -> SolverStats {
            SolverStats::default()
        }
        fn set_hint(&mut self, _hint: Option<Arc<Assignment>>) {}
        fn set_time_limit(&mut self, _limit: Option<Duration>) {}
    }

    /// The first backend panics while the racer runs the second on the same check: the
    /// panic reaches the caller only once the second's check was cancelled and has ended (the
    /// racer read the caller's pool and constraints until then), and the portfolio is then
    /// dropped cleanly (its racer thread joined).
    #[test]
    fn a_panic_in_the_first_backend_ends_the_race_before_it_unwinds() {
        let pool = ExprPool::new();
        let stop = Stop::new();
        let (hard, _) = factoring(&pool);
        let first = Entrant {
            backend: Backend::Bitwuzla,
            solver: Box::new(Panicking(Duration::from_millis(200))),
            cancel: Arc::new(CancelFlag::default()),
        };
        let (second, ended) = Fake::entrant(Backend::Z3, vec![None], &stop);
        let mut portfolio =
            PortfolioSolver::with_entrants(first, second, &stop).with_delay(Duration::ZERO);
        let start = Instant::now();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            portfolio.check(&pool, &[], hard)
        }));
        assert!(caught.is_err());
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        // The racer's check had ended (cancelled) before the panic left `check`.
        assert_eq!(*ended.lock().unwrap(), ["cancelled"]);
        drop(portfolio);
    }

    #[test]
    fn races_the_first_backend_wins_make_the_next_wait_longer() {
        let pool = ExprPool::new();
        let stop = Stop::new();
        let (_, x) = word(&pool, "x", 1);
        let q = pool.ult(x, pool.constant(8, 3));
        let unsat = Some((Duration::from_millis(120), SatResult::Unsat));
        // The first answers every query after 120 ms, except the sixth, which it never answers.
        let mut script = vec![unsat.clone(); 5];
        script.extend([None, unsat.clone()]);
        let (first, _) = Fake::entrant(Backend::Bitwuzla, script, &stop);
        // The second is asked only when it is started: it answers its fourth query at once.
        let mut second_script = vec![None; 3];
        second_script.extend([Some((Duration::ZERO, SatResult::Unsat)), None]);
        let (second, _) = Fake::entrant(Backend::Z3, second_script, &stop);
        let mut portfolio = PortfolioSolver::with_entrants(first, second, &stop)
            .with_delay(Duration::from_millis(20));
        let mut races = Vec::new();
        for _ in 0..7 {
            assert_eq!(portfolio.check(&pool, &[], q).unwrap(), SatResult::Unsat);
            races.push(portfolio.stats().portfolio_races);
        }
        // Raced after a delay of 20, 40 and 80 ms; then the 160 ms delay outlasts the first's
        // 120 ms, until a query it does not answer: the second wins it, so the next query of
        // the shape is raced at once; the first wins that race, and the delay is 20 ms again.
        assert_eq!(races, [1, 2, 3, 3, 3, 4, 5]);
        assert_eq!(portfolio.stats().portfolio_answers, [6, 1]);
    }

    /// A shorter limit set for the coming checks (`Solver::set_time_limit`) cuts a hard one
    /// short on every backend, through the whole chain, as a timeout; unset, the next check
    /// has the backend's own limit again (an easy query is answered).
    #[test]
    fn a_shorter_limit_for_the_coming_checks_holds_on_every_backend() {
        let pool = ExprPool::new();
        let (hard, _) = factoring(&pool);
        let (_, x) = word(&pool, "e", 4);
        let easy = pool.eq(x, pool.constant(32, 7));
        for backend in Backend::CHOICES {
            let mut solver = build_chain(&SolverConfig {
                backend,
                timeout: Some(Duration::from_secs(60)),
                ..SolverConfig::default()
            });
            solver.set_time_limit(Some(Duration::from_millis(300)));
            let start = Instant::now();
            let result = solver.check(&pool, &[], hard).unwrap();
            let took = start.elapsed();
            assert_eq!(result, SatResult::Unknown("timeout".into()), "{backend:?}");
            assert!(took < Duration::from_secs(3), "{backend:?}: {took:?}");
            solver.set_time_limit(None);
            let result = solver.check(&pool, &[], easy).unwrap();
            assert!(
                matches!(result, SatResult::Sat(_)),
                "{backend:?}: {result:?}"
            );
        }
    }
}
