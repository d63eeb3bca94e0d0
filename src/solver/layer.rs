//! The decorator shape shared by every layer of the chain that wraps one solver.
//!
//! A [`Layer`] says how it answers a query and which counters it adds; the blanket
//! `impl Solver for L: Layer` does the rest by construction: the hint and the time limit go
//! on to the wrapped solver, and `stats()` is the wrapped solver's counters plus the layer's
//! own. A layer cannot forget to forward them, and [`Solver`] has no no-op defaults, so a type
//! that implements it directly (a backend, the portfolio, a test's fake) says what it does
//! with each.

use super::{SatResult, Solver, SolverError, SolverStats};
use crate::expr::{Assignment, ExprId, ExprPool};
use std::sync::Arc;
use std::time::Duration;

/// A solver layer that wraps one inner solver (see the module's documentation).
pub trait Layer: Send {
    /// The solver this layer wraps.
    fn inner(&self) -> &dyn Solver;

    /// The solver this layer wraps, to pass questions and settings on to.
    fn inner_mut(&mut self) -> &mut dyn Solver;

    /// This layer's answer to [`Solver::check`]: it may answer itself or ask
    /// [`Layer::inner_mut`].
    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError>;

    /// Adds this layer's own counters to `stats` (which holds those of the layers below).
    fn add_stats(&self, _stats: &mut SolverStats) {}

    /// What the layer itself keeps of a hint, before it goes on to the wrapped solver.
    fn keep_hint(&mut self, _hint: &Option<Arc<Assignment>>) {}

    /// What the layer itself does with a time limit, before it goes on to the wrapped solver
    /// (the cross-checking layer passes it to its reference solver too).
    fn keep_time_limit(&mut self, _limit: Option<Duration>) {}
}

impl<L: Layer> Solver for L {
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        self.answer(pool, constraints, query)
    }

    fn stats(&self) -> SolverStats {
        let mut stats = self.inner().stats();
        self.add_stats(&mut stats);
        stats
    }

    fn set_hint(&mut self, hint: Option<Arc<Assignment>>) {
        self.keep_hint(&hint);
        self.inner_mut().set_hint(hint);
    }

    fn set_time_limit(&mut self, limit: Option<Duration>) {
        self.keep_time_limit(limit);
        self.inner_mut().set_time_limit(limit);
    }
}

/// [`Layer::inner`] and [`Layer::inner_mut`] of a layer whose wrapped solver is its field
/// `inner: Box<dyn Solver>`.
macro_rules! wraps_inner {
    () => {
        fn inner(&self) -> &dyn $crate::solver::Solver {
            &*self.inner
        }

        fn inner_mut(&mut self) -> &mut dyn $crate::solver::Solver {
            &mut *self.inner
        }
    };
}
pub(super) use wraps_inner;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// The settings a [`Recording`] backend was handed.
    type Seen = Arc<Mutex<(Option<Arc<Assignment>>, Option<Duration>)>>;

    /// A backend that records the settings it is handed.
    struct Recording(Seen);

    impl Solver for Recording {
        fn check(
            &mut self,
            _: &ExprPool,
            _: &[ExprId],
            _: ExprId,
        ) -> Result<SatResult, SolverError> {
            Ok(SatResult::Unsat)
        }

        fn stats(&self) -> SolverStats {
            SolverStats {
                backend_queries: 7,
                ..SolverStats::default()
            }
        }

        fn set_hint(&mut self, hint: Option<Arc<Assignment>>) {
            self.0.lock().unwrap().0 = hint;
        }

        fn set_time_limit(&mut self, limit: Option<Duration>) {
            self.0.lock().unwrap().1 = limit;
        }
    }

    /// A layer that only says how it answers and what it counts.
    struct Counting {
        inner: Box<dyn Solver>,
        asked: u64,
    }

    impl Layer for Counting {
        wraps_inner!();

        fn answer(
            &mut self,
            pool: &ExprPool,
            constraints: &[ExprId],
            query: ExprId,
        ) -> Result<SatResult, SolverError> {
            self.asked += 1;
            self.inner.check(pool, constraints, query)
        }

        fn add_stats(&self, stats: &mut SolverStats) {
            stats.cache_hits += self.asked;
        }
    }

    #[test]
    fn a_layer_passes_settings_on_and_adds_its_counters() {
        let pool = ExprPool::new();
        let seen = Seen::default();
        let mut layer = Counting {
            inner: Box::new(Recording(Arc::clone(&seen))),
            asked: 0,
        };
        let hint = Arc::new(Assignment::new());
        layer.set_hint(Some(Arc::clone(&hint)));
        layer.set_time_limit(Some(Duration::from_millis(5)));
        assert_eq!(layer.check(&pool, &[], pool.true_()), Ok(SatResult::Unsat));
        let stats = layer.stats();
        assert_eq!((stats.backend_queries, stats.cache_hits), (7, 1));
        let seen = seen.lock().unwrap();
        assert!(seen.0.as_ref().is_some_and(|h| Arc::ptr_eq(h, &hint)));
        assert_eq!(seen.1, Some(Duration::from_millis(5)));
    }
}
