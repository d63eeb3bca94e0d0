//! The portfolio backend (`--solver portfolio`): Bitwuzla, and Z3 raced against it on the
//! queries Bitwuzla does not answer at once.
//!
//! Each check goes to the first backend on the calling thread. A scoped thread waits
//! [`RACE_DELAY`] for its answer; when none came (or it was not definite), that thread asks
//! the second backend the same question. The wait doubles (up to [`MAX_RACE_DELAY`]) after
//! each race the first backend wins, and returns to [`RACE_DELAY`] when the second wins: a
//! run whose queries only the first backend answers stops paying for races it loses (the
//! corpus's popcount has 65 queries of about 100 ms, all answered by Bitwuzla first). The first definite answer (sat or unsat) wins and the
//! other backend's check is cancelled through its [`Cancel`] handle, which ends that one check
//! only: the next race starts with both rearmed. The run's interrupt and deadline stay global:
//! they reach each backend through its own [`Stop`] token, as they reach a single backend, and
//! the portfolio cancels a backend still running once the token says to stop.
//!
//! The second backend runs at the lowest scheduling priority (nice 19, for its thread only):
//! it uses the CPU nothing else wants, so that on a busy machine a race does not slow the
//! first backend (measured on the corpus's popcount and floating-point checks, where Bitwuzla
//! answers every query: racing Z3 at normal priority on a loaded 2-core machine doubled
//! Bitwuzla's time).
//!
//! Both backends lower the same expressions from the same pool ([`ExprPool`] is shared by
//! threads) and keep their own incremental instances between checks. Both answer with the same
//! [`SatResult`], so the chain above validates a model whichever backend found it. When
//! neither answer is definite, the first backend's answer (unknown or error) is returned.

use super::{
    Backend, BitwuzlaSolver, Cancel, SatResult, Solver, SolverError, SolverStats, Z3Solver,
};
use crate::expr::{ExprId, ExprPool};
use crate::stop::Stop;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the first backend has alone before the second is started on the same query.
/// Most of the corpus's backend checks take well under a millisecond, and a thread that
/// starts Z3 costs more than they do; a few milliseconds keep those checks to one backend,
/// while a query that runs for seconds loses nothing measurable by the wait.
pub const RACE_DELAY: Duration = Duration::from_millis(5);

/// The longest wait before the second backend is started, however many races the first won:
/// what a query that only the second backend answers costs at most, once, before the wait is
/// short again.
pub const MAX_RACE_DELAY: Duration = Duration::from_secs(1);

/// How often the portfolio repeats the cancel of a backend that has not yet stopped: a cancel
/// that arrives while Z3 sets up its check can be lost, so it is sent again until it lands.
const CANCEL_REPEAT: Duration = Duration::from_millis(5);

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

/// Races two backends (see the module documentation).
pub struct PortfolioSolver {
    first: Entrant,
    second: Entrant,
    /// The wait of the next check, between `base_delay` and [`MAX_RACE_DELAY`].
    delay: Duration,
    base_delay: Duration,
    stop: Stop,
    stats: SolverStats,
}

/// What one entrant did in a race.
struct Run {
    result: Result<SatResult, SolverError>,
    took: Duration,
}

fn definite(result: &Result<SatResult, SolverError>) -> bool {
    matches!(result, Ok(SatResult::Sat(_) | SatResult::Unsat))
}

/// Claims the race for `me` unless another entrant already won; returns whether `me` won.
fn claim(winner: &Mutex<Option<usize>>, me: usize) -> bool {
    let mut winner = winner.lock().unwrap_or_else(|p| p.into_inner());
    match *winner {
        Some(w) => w == me,
        None => {
            *winner = Some(me);
            true
        }
    }
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

impl PortfolioSolver {
    /// Bitwuzla first and Z3 second, each check limited to `timeout` and stopped by `stop`.
    pub fn new(timeout: Option<Duration>, stop: &Stop) -> Self {
        let bitwuzla = BitwuzlaSolver::new(timeout).with_stop(stop.clone());
        let z3 = Z3Solver::new(timeout).with_stop(stop.clone());
        let first = Entrant {
            backend: Backend::Bitwuzla,
            cancel: bitwuzla.canceller(),
            solver: Box::new(bitwuzla),
        };
        let second = Entrant {
            backend: Backend::Z3,
            cancel: z3.canceller(),
            solver: Box::new(z3),
        };
        Self::with_entrants(first, second, stop)
    }

    /// A portfolio of any two solvers; `stop` is the run's token, which the entrants must
    /// also obey themselves.
    pub fn with_entrants(first: Entrant, second: Entrant, stop: &Stop) -> Self {
        Self {
            first,
            second,
            delay: RACE_DELAY,
            base_delay: RACE_DELAY,
            stop: stop.clone(),
            stats: SolverStats::default(),
        }
    }

    /// The same portfolio, starting the second backend `delay` after the first (and at most
    /// [`MAX_RACE_DELAY`] after it once the first has won races; a zero delay stays zero).
    pub fn with_delay(mut self, delay: Duration) -> Self {
        (self.delay, self.base_delay) = (delay, delay);
        self
    }
}

impl Solver for PortfolioSolver {
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let race = Instant::now();
        let (first, second) = (&mut self.first.solver, &mut self.second.solver);
        let (cancel_first, cancel_second) = (&*self.first.cancel, &*self.second.cancel);
        cancel_first.rearm();
        cancel_second.rearm();
        let (delay, stop) = (self.delay, &self.stop);
        let winner = &Mutex::new(None);
        let (finished, first_done) = mpsc::channel::<bool>();
        let (first_run, second_run) = std::thread::scope(|scope| {
            let (done, second_done) = mpsc::channel::<()>();
            let racer = scope.spawn(move || {
                // Dropped when this closure returns, which tells the first entrant's thread.
                let _done = done;
                match first_done.recv_timeout(delay) {
                    Ok(true) | Err(RecvTimeoutError::Disconnected) => return None,
                    Ok(false) | Err(RecvTimeoutError::Timeout) => {}
                }
                let decided = winner.lock().unwrap_or_else(|p| p.into_inner()).is_some();
                if decided || stop.should_stop() {
                    return None;
                }
                lower_priority();
                let start = Instant::now();
                let result = second.check(pool, constraints, query);
                let took = start.elapsed();
                if definite(&result) && claim(winner, 1) {
                    cancel_first.cancel();
                }
                Some(Run { result, took })
            });
            let start = Instant::now();
            let result = first.check(pool, constraints, query);
            let took = start.elapsed();
            let won = definite(&result) && claim(winner, 0);
            let _ = finished.send(definite(&result));
            // Wait for the second entrant, cancelling it (again until it lands) once the first
            // won or the run must stop.
            loop {
                if won || stop.should_stop() {
                    cancel_second.cancel();
                }
                match second_done.recv_timeout(CANCEL_REPEAT) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            let second_run = match racer.join() {
                Ok(run) => run,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            (Run { result, took }, second_run)
        });
        let winner = *winner.lock().unwrap_or_else(|p| p.into_inner());
        let (one, two) = (self.first.slot(), self.second.slot());
        let stats = &mut self.stats;
        stats.backend_time += race.elapsed();
        stats.portfolio_time[one] += first_run.took;
        if let Some(run) = &second_run {
            stats.portfolio_races += 1;
            stats.portfolio_time[two] += run.took;
            self.delay = match winner {
                Some(0) => (self.delay * 2).min(MAX_RACE_DELAY.max(self.base_delay)),
                Some(_) => self.base_delay,
                None => self.delay,
            };
        }
        let lost = match winner {
            Some(0) => second_run.as_ref().map(|r| &r.result),
            Some(_) => Some(&first_run.result),
            None => None,
        };
        if lost.is_some_and(|r| !definite(r)) {
            stats.portfolio_cancelled += 1;
        }
        match (winner, second_run) {
            (Some(1), Some(run)) => {
                stats.portfolio_answers[two] += 1;
                run.result
            }
            (Some(_), _) => {
                stats.portfolio_answers[one] += 1;
                first_run.result
            }
            (None, _) => first_run.result,
        }
    }

    fn stats(&self) -> SolverStats {
        let mut stats = self.first.solver.stats();
        stats.add(&self.second.solver.stats());
        // The backends' times overlap in a race: the chain waited for the portfolio's own
        // (translation included), and each backend's is in `portfolio_time`.
        stats.backend_time = Duration::ZERO;
        stats.add(&self.stats);
        stats
    }

    fn set_hint(&mut self, hint: Option<Arc<crate::expr::Assignment>>) {
        self.first.solver.set_hint(hint.clone());
        self.second.solver.set_hint(hint);
    }

    fn set_time_limit(&mut self, limit: Option<Duration>) {
        self.first.solver.set_time_limit(limit);
        self.second.solver.set_time_limit(limit);
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

    /// A backend that answers as scripted, one step per check, polling its cancel flag and
    /// the run's stop token every millisecond as a real backend's callback would; a step
    /// without an answer waits (at most a minute) to be cancelled or stopped. It records how
    /// each check ended.
    struct Fake {
        script: VecDeque<Step>,
        cancel: Arc<CancelFlag>,
        stop: Stop,
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
                if self.cancel.is_cancelled() {
                    break ("cancelled", SatResult::Unknown(CANCELLED.into()));
                }
                if let Some(why) = self.stop.reason() {
                    break ("stopped", SatResult::Unknown(why.to_string()));
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

        fn set_time_limit(&mut self, _limit: Option<std::time::Duration>) {}
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
        // The fake never answers the first query, and answers the second (unsat) at once.
        let contradiction = pool.eq(pool.sym(x, 0), pool.constant(8, 8));
        let script = vec![None, Some((Duration::ZERO, SatResult::Unsat))];
        let (slow, ended) = Fake::entrant(Backend::Bitwuzla, script, &stop);
        let mut portfolio = PortfolioSolver::with_entrants(slow, z3(&stop), &stop);
        let start = Instant::now();
        let SatResult::Sat(model) = portfolio.check(&pool, &[], query).unwrap() else {
            panic!("expected sat");
        };
        let took = start.elapsed();
        assert_eq!(model.get(x), Some(&[7, 0, 0, 0][..]));
        assert!(took < Duration::from_secs(2), "{took:?}");
        assert_eq!(*ended.lock().unwrap(), ["cancelled"]);
        let stats = portfolio.stats();
        assert_eq!(stats.portfolio_answers, [0, 1]);
        assert_eq!((stats.portfolio_races, stats.portfolio_cancelled), (1, 1));
        // The cancel was for that check only: the next is answered by the first backend,
        // within the delay, so the second is not even started.
        let answer = portfolio.check(&pool, &[contradiction], query).unwrap();
        assert_eq!(answer, SatResult::Unsat);
        assert_eq!(*ended.lock().unwrap(), ["cancelled", "answered"]);
        let stats = portfolio.stats();
        assert_eq!(stats.portfolio_answers, [1, 1]);
        assert_eq!(stats.portfolio_races, 1);
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
        let mut portfolio = PortfolioSolver::with_entrants(bitwuzla(&stop), fake, &stop);
        let start = Instant::now();
        stop.set_deadline(start + Duration::from_millis(300));
        let result = portfolio.check(&pool, &[], hard).unwrap();
        assert_eq!(result, SatResult::Unknown("max-time reached".into()));
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        // The second entrant ends by the deadline itself or by the cancellation that follows
        // the first one's stop, whichever it sees first (a loaded machine wakes it late);
        // either way it ended, once.
        let ended = ended.lock().unwrap().clone();
        assert!(ended == ["stopped"] || ended == ["cancelled"], "{ended:?}");
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
        // Started after 20, 40 and 80 ms; then the 160 ms wait outlasts the first's 120 ms,
        // until a query it does not answer: the second wins it, and the wait is 20 ms again.
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
