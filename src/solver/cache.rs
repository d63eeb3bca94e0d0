//! A query cache: repeated questions are answered without asking the backend again.
//!
//! The key is the sorted, deduplicated list of constraint ids together with the query id;
//! hash-consing makes id equality structural equality, so equal formulas hit the same entry
//! whatever the order or repetition of their constraints. `Sat` and `Unsat` answers are
//! cached; `Unknown` answers are not, because they depend on the machine's load at the time.
//! The cache is emptied when it reaches its capacity, which bounds its memory (models
//! included) without bookkeeping on every hit.

use super::layer::{wraps_inner, Layer};
use super::{pool_key, SatResult, Solver, SolverError, SolverStats};
use crate::expr::{ExprId, ExprPool};
use rustc_hash::FxHashMap;

/// Entries held before the cache is emptied.
pub const DEFAULT_CACHE_CAPACITY: usize = 100_000;

/// The cache key: sorted, deduplicated constraints and the query.
type Key = (Box<[ExprId]>, ExprId);

/// A [`Solver`] layer that remembers the answers of the solver it wraps.
pub struct CachingSolver {
    inner: Box<dyn Solver>,
    entries: FxHashMap<Key, SatResult>,
    capacity: usize,
    pool: usize,
    hits: u64,
    misses: u64,
}

impl CachingSolver {
    /// Caches the answers of `inner`, holding at most
    /// [`DEFAULT_CACHE_CAPACITY`](super::DEFAULT_CACHE_CAPACITY) entries.
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self::with_capacity(inner, DEFAULT_CACHE_CAPACITY)
    }

    /// Caches the answers of `inner`, emptying the cache when it holds `capacity` entries.
    pub fn with_capacity(inner: Box<dyn Solver>, capacity: usize) -> Self {
        Self {
            inner,
            entries: FxHashMap::default(),
            capacity: capacity.max(1),
            pool: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// The number of cached answers.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no answer is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Layer for CachingSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let key_pool = pool_key(pool);
        if key_pool != self.pool {
            self.entries.clear();
            self.pool = key_pool;
        }
        let mut sorted = constraints.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let key = (sorted.into_boxed_slice(), query);
        if let Some(answer) = self.entries.get(&key) {
            self.hits += 1;
            return Ok(answer.clone());
        }
        self.misses += 1;
        let answer = self.inner.check(pool, &key.0, query)?;
        if !matches!(answer, SatResult::Unknown(_)) {
            if self.entries.len() >= self.capacity {
                self.entries.clear();
            }
            self.entries.insert(key, answer.clone());
        }
        Ok(answer)
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.cache_hits += self.hits;
        stats.cache_misses += self.misses;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::testing::Scripted;

    #[test]
    fn equal_formulas_hit_whatever_the_order_of_constraints() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let x0 = pool.sym(x, 0);
        let (a, b) = (
            pool.ult(x0, pool.constant(8, 9)),
            pool.ult(pool.constant(8, 2), x0),
        );
        let q = pool.eq(x0, pool.constant(8, 4));
        let (inner, calls) = Scripted::new(|_, _, _| SatResult::Unsat);
        let mut solver = CachingSolver::new(Box::new(inner));
        assert_eq!(solver.check(&pool, &[a, b], q).unwrap(), SatResult::Unsat);
        assert_eq!(
            solver.check(&pool, &[b, a, b], q).unwrap(),
            SatResult::Unsat
        );
        assert_eq!(calls.lock().unwrap().len(), 1);
        // A different query or constraint set misses.
        solver.check(&pool, &[a], q).unwrap();
        solver.check(&pool, &[a, b], a).unwrap();
        assert_eq!(calls.lock().unwrap().len(), 3);
        let stats = solver.stats();
        assert_eq!((stats.cache_hits, stats.cache_misses), (1, 3));
        assert_eq!(solver.len(), 3);
        // The inner solver saw the sorted, deduplicated constraints.
        let mut sorted = vec![a, b];
        sorted.sort_unstable();
        assert_eq!(calls.lock().unwrap()[0].0, sorted);
    }

    #[test]
    fn unknown_answers_are_not_cached() {
        let pool = ExprPool::new();
        let (inner, calls) = Scripted::new(|_, _, _| SatResult::Unknown("timeout".into()));
        let mut solver = CachingSolver::new(Box::new(inner));
        let t = pool.true_();
        solver.check(&pool, &[], t).unwrap();
        solver.check(&pool, &[], t).unwrap();
        assert_eq!(calls.lock().unwrap().len(), 2);
        assert!(solver.is_empty());
    }

    #[test]
    fn a_full_cache_is_emptied() {
        let pool = ExprPool::new();
        let (inner, calls) = Scripted::new(|_, _, _| SatResult::Unsat);
        let mut solver = CachingSolver::with_capacity(Box::new(inner), 2);
        let qs: Vec<ExprId> = (0..3).map(|v| pool.constant(1, v % 2)).collect();
        let x = pool.new_array("x", 1);
        let third = pool.eq(pool.sym(x, 0), pool.constant(8, 1));
        for q in [qs[0], qs[1], third, qs[0]] {
            solver.check(&pool, &[], q).unwrap();
        }
        assert_eq!(calls.lock().unwrap().len(), 4);
        assert_eq!(solver.len(), 2);
    }
}
