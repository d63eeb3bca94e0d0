//! Assembles the solver chain: Validate → Cache → Independence → Bitwuzla, outermost first.

use super::{
    BitwuzlaSolver, CachingSolver, IndependenceSolver, SatResult, Solver, SolverConfig,
    SolverError, SolverStats, ValidatingSolver,
};
use crate::expr::{ExprId, ExprPool};
use std::time::Instant;

/// Builds the solver chain for `cfg`: the backend, wrapped (innermost first) by independence,
/// the cache and validation, each only if `cfg` switches it on. The result counts queries
/// and their total time, and its `stats()` includes the counters of every layer.
pub fn build_chain(cfg: &SolverConfig) -> Box<dyn Solver> {
    let mut solver: Box<dyn Solver> = Box::new(BitwuzlaSolver::new(cfg.timeout));
    if cfg.independence {
        solver = Box::new(IndependenceSolver::new(solver));
    }
    if cfg.cache {
        solver = Box::new(CachingSolver::new(solver));
    }
    if cfg.validate {
        solver = Box::new(ValidatingSolver::new(solver));
    }
    Box::new(ChainSolver::new(solver))
}

/// The root of a chain: counts the queries asked of it and the time spent answering them.
pub struct ChainSolver {
    inner: Box<dyn Solver>,
    stats: SolverStats,
    /// From `XCHECK_SLOW_QUERY_MS`: queries slower than this are printed to stderr.
    slow: Option<std::time::Duration>,
}

impl ChainSolver {
    /// Counts the queries passed to `inner`.
    pub fn new(inner: Box<dyn Solver>) -> Self {
        let slow = std::env::var("XCHECK_SLOW_QUERY_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(std::time::Duration::from_millis);
        Self {
            inner,
            stats: SolverStats::default(),
            slow,
        }
    }
}

impl Solver for ChainSolver {
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let start = Instant::now();
        let result = self.inner.check(pool, constraints, query);
        self.stats.queries += 1;
        let took = start.elapsed();
        self.stats.total_time += took;
        if self.slow.is_some_and(|limit| took >= limit) {
            let parts: Vec<String> = constraints.iter().map(|&c| pool.to_sexp(c)).collect();
            eprintln!(
                "slow query ({} ms): {}\n  constraints: {}\n  result: {:?}",
                took.as_millis(),
                pool.to_sexp(query),
                parts.join("\n    "),
                result.as_ref().map(|r| r.is_sat())
            );
        }
        result
    }

    fn stats(&self) -> SolverStats {
        let mut stats = self.inner.stats();
        stats.merge(&self.stats);
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_reports_every_layer() {
        let pool = ExprPool::new();
        let (x, y) = (pool.new_array("x", 1), pool.new_array("y", 1));
        let unrelated = pool.ult(pool.sym(y, 0), pool.constant(8, 3));
        let q = pool.eq(pool.sym(x, 0), pool.constant(8, 7));
        let mut solver = build_chain(&SolverConfig::default());
        for _ in 0..2 {
            let SatResult::Sat(model) = solver.check(&pool, &[unrelated], q).unwrap() else {
                panic!("expected Sat");
            };
            assert_eq!(model.byte(x, 0), 7);
            assert!(model.byte(y, 0) < 3);
        }
        let stats = solver.stats();
        assert_eq!(stats.queries, 2);
        assert_eq!((stats.cache_hits, stats.cache_misses), (1, 1));
        assert_eq!(stats.independence_dropped, 1);
        assert_eq!(stats.backend_queries, 1);
        assert_eq!(stats.backend_sat, 1);
        assert_eq!(stats.validated_models, 2);
        assert!(stats.total_time >= stats.backend_time);
    }

    #[test]
    fn layers_can_be_switched_off() {
        let pool = ExprPool::new();
        let (x, y) = (pool.new_array("x", 1), pool.new_array("y", 1));
        let unrelated = pool.ult(pool.sym(y, 0), pool.constant(8, 3));
        let q = pool.eq(pool.sym(x, 0), pool.constant(8, 7));
        let cfg = SolverConfig {
            timeout: Some(std::time::Duration::from_secs(10)),
            cache: false,
            independence: false,
            validate: false,
        };
        let mut solver = build_chain(&cfg);
        for _ in 0..2 {
            assert!(solver.check(&pool, &[unrelated], q).unwrap().is_sat());
        }
        let stats = solver.stats();
        assert_eq!(stats.queries, 2);
        assert_eq!(stats.backend_queries, 2);
        assert_eq!(stats.cache_hits + stats.cache_misses, 0);
        assert_eq!(stats.independence_dropped, 0);
        assert_eq!(stats.validated_models, 0);
    }
}
