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
}

impl ChainSolver {
    /// Counts the queries passed to `inner`.
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self {
            inner,
            stats: SolverStats::default(),
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
        self.stats.total_time += start.elapsed();
        result
    }

    fn stats(&self) -> SolverStats {
        let mut stats = self.inner.stats();
        stats.merge(&self.stats);
        stats
    }
}
