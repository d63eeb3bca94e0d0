//! Assembles the solver chain: Validate → Cache → CexCache → Independence → (CrossCheck) →
//! Sweep → Ranges → Enumerate → Boundary → (QueryLog) → backend (Bitwuzla, Z3 or the portfolio of
//! both), outermost first.
//!
//! The order follows KLEE's `Validating(Caching(CexCaching(Independent(core))))`: the exact
//! cache answers repeats before the counterexample cache searches subsets and supersets, and
//! the counterexample cache sees whole constraint sets, before independence slices them.

use super::layer::{wraps_inner, Layer};
use super::{
    Backend, BitwuzlaSolver, BoundarySolver, CachingSolver, CexCachingSolver, CrossCheckingSolver,
    EnumeratingSolver, IndependenceSolver, LoggingSolver, PortfolioSolver, RangeSolver, SatResult,
    Solver, SolverConfig, SolverError, SolverStats, SweepingSolver, ValidatingSolver, Z3Solver,
    CROSS_CHECK_TIMEOUT,
};
use crate::expr::{ExprId, ExprPool};
use std::time::Instant;

/// A bare backend whose every check is limited to `timeout`.
pub fn new_backend(
    backend: Backend,
    timeout: Option<std::time::Duration>,
    stop: &crate::stop::Stop,
) -> Box<dyn Solver> {
    match backend {
        Backend::Bitwuzla => Box::new(BitwuzlaSolver::new(timeout).with_stop(stop.clone())),
        Backend::Z3 => Box::new(Z3Solver::new(timeout).with_stop(stop.clone())),
        Backend::Portfolio => Box::new(PortfolioSolver::new(timeout, stop)),
    }
}

/// Builds the solver chain for `cfg`: the backend (its queries logged with `cfg.log`),
/// wrapped (innermost first) by boundary models, enumeration, ranges, the cross-check by
/// the other backend (`cfg.cross_check`: it checks the answers of the four below it),
/// independence, the counterexample cache, the cache and validation, each only if `cfg` switches it on. The
/// result counts queries and their total time, and its `stats()` includes the counters of
/// every layer. The portfolio is not cross-checked: with
/// `cfg.cross_check` it gives way to Bitwuzla checked by Z3 (the command line refuses the
/// combination, [`super::PORTFOLIO_CROSS_CHECK`]).
pub fn build_chain(cfg: &SolverConfig) -> Box<dyn Solver> {
    let backend = match cfg.backend {
        Backend::Portfolio if cfg.cross_check.is_some() => Backend::Bitwuzla,
        chosen => chosen,
    };
    let mut solver = new_backend(backend, cfg.timeout, &cfg.stop);
    if let Some(log) = &cfg.log {
        solver = Box::new(LoggingSolver::new(solver, backend.name(), log.clone()));
    }
    // Just above the backend: it answers only what would reach the backend (the layers
    // above decide most small questions more cheaply; on whole programs, trying the path's
    // large model first cost more than it saved).
    if cfg.boundary {
        solver = Box::new(BoundarySolver::new(solver));
    }
    if cfg.enumerate {
        solver = Box::new(EnumeratingSolver::new(solver));
    }
    if cfg.ranges {
        solver = Box::new(RangeSolver::new(solver));
    }
    if cfg.sweep {
        // Above range rewriting, so that its local queries and the swept query are rewritten
        // too; below the cross-check, which checks its answers.
        solver = Box::new(SweepingSolver::new(solver, cfg.timeout));
    }
    if let Some(dir) = &cfg.cross_check {
        // Above range rewriting, enumeration and boundary models, so that their answers are
        // checked too: they answer without the backend, by reasoning of this project's own.
        let other = backend.other();
        let reference = new_backend(
            other,
            Some(cfg.timeout.unwrap_or(CROSS_CHECK_TIMEOUT)),
            &cfg.stop,
        );
        let checked = match (cfg.ranges, cfg.enumerate) {
            (false, false) => backend.name().to_string(),
            (true, false) => format!("{} after range rewriting", backend.name()),
            (false, true) => format!("{} or enumeration", backend.name()),
            (true, true) => format!("{} or enumeration, after range rewriting", backend.name()),
        };
        let checked = if cfg.boundary {
            format!("{checked}, or boundary models")
        } else {
            checked
        };
        let checked = if cfg.sweep {
            format!("{checked}, after sweeping")
        } else {
            checked
        };
        solver = Box::new(CrossCheckingSolver::new(
            solver,
            &checked,
            reference,
            other.name(),
            dir,
        ));
    }
    if cfg.independence {
        solver = Box::new(IndependenceSolver::new(solver));
    }
    if cfg.cex_cache {
        solver = Box::new(CexCachingSolver::new(solver));
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

impl Layer for ChainSolver {
    wraps_inner!();

    fn answer(
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

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.add(&self.stats);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cross-check covers the layers that answer without the backend: a question that
    /// enumeration decides is asked of the other solver too.
    #[test]
    fn the_cross_check_sees_what_enumeration_answers() {
        let pool = ExprPool::new();
        let dir = tempfile::tempdir().unwrap();
        let x = pool.sym(pool.new_array("x", 1), 0);
        let q = pool.eq(
            pool.mul(pool.zext(x, 32), pool.constant(32, 7)),
            pool.constant(32, 91),
        );
        let mut solver = build_chain(&SolverConfig {
            cross_check: Some(dir.path().to_path_buf()),
            ..SolverConfig::default()
        });
        let SatResult::Sat(model) = solver.check(&pool, &[], q).unwrap() else {
            panic!("expected Sat");
        };
        assert_eq!(model.byte(pool.arrays_in(q)[0], 0), 13);
        let unsat = pool.eq(
            pool.mul(pool.zext(x, 32), pool.constant(32, 7)),
            pool.constant(32, 92),
        );
        assert_eq!(solver.check(&pool, &[], unsat).unwrap(), SatResult::Unsat);
        let stats = solver.stats();
        assert_eq!((stats.enumerated, stats.backend_queries), (2, 0));
        assert_eq!(stats.crosscheck_queries, 2, "{stats:?}");
    }

    #[test]
    fn the_chain_reports_every_layer() {
        let pool = ExprPool::new();
        // Three bytes in the query: too many to enumerate, so Bitwuzla answers it.
        let (x, y) = (pool.new_array("x", 3), pool.new_array("y", 1));
        let unrelated = pool.ult(pool.sym(y, 0), pool.constant(8, 3));
        let bytes: Vec<ExprId> = (0..3).map(|i| pool.sym(x, i)).collect();
        let q = pool.eq(pool.concat_bytes(&bytes), pool.constant(24, 7));
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
        assert_eq!(stats.cex_misses, 1);
        assert_eq!(stats.independence_dropped, 1);
        assert_eq!(stats.backend_queries, 1);
        assert_eq!(stats.backend_sat, 1);
        assert_eq!(stats.enumerated, 0);
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
            cex_cache: false,
            independence: false,
            ranges: false,
            enumerate: false,
            validate: false,
            ..SolverConfig::default()
        };
        let mut solver = build_chain(&cfg);
        for _ in 0..2 {
            assert!(solver.check(&pool, &[unrelated], q).unwrap().is_sat());
        }
        let stats = solver.stats();
        assert_eq!(stats.queries, 2);
        assert_eq!(stats.backend_queries, 2);
        assert_eq!(stats.cache_hits + stats.cache_misses, 0);
        assert_eq!(stats.cex_misses, 0);
        assert_eq!(stats.independence_dropped, 0);
        assert_eq!(stats.validated_models, 0);
    }

    /// The condition of the branch at `depth` of [`explore`]: a comparison of one of three input
    /// bytes, or of the sum of two, with a threshold, so that paths mix feasible sides with
    /// infeasible ones.
    fn condition(pool: &ExprPool, x: crate::expr::ArrayId, depth: usize) -> ExprId {
        let d = depth as u32;
        let byte = pool.sym(x, d % 3);
        let threshold = pool.constant(8, u128::from((d * 67 + 29) % 200 + 20));
        if depth % 4 == 3 {
            pool.ult(pool.add(byte, pool.sym(x, (d + 1) % 3)), threshold)
        } else {
            pool.ult(byte, threshold)
        }
    }

    /// Explores every path of a tree of `depth` branches depth first, as the executor does: at
    /// each node the same error condition is checked (as a repeated bounds or division check
    /// would be), both sides of the branch are asked for and the feasible ones are followed,
    /// and every path that ends asks for a model of its constraints. Returns the paths and the
    /// infeasible questions, and checks every model on the question it was asked for.
    fn explore(
        solver: &mut dyn Solver,
        pool: &ExprPool,
        x: crate::expr::ArrayId,
        pc: &mut Vec<ExprId>,
        depth: usize,
    ) -> (usize, usize) {
        use crate::solver::{Possibility, SolverExt};
        if pc.len() == depth {
            let model = solver
                .get_model(pool, pc)
                .unwrap()
                .expect("a feasible path");
            assert!(pool.eval_all(pc, &model).iter().all(|&v| v == 1));
            return (1, 0);
        }
        let error = pool.eq(pool.sym(x, 2), pool.constant(8, 200));
        let c = condition(pool, x, pc.len());
        let (mut paths, mut infeasible) = (0, 0);
        match solver.may_be_true(pool, pc, error).unwrap() {
            Possibility::Yes(model) => assert!(pool.eval_bool(error, &model)),
            Possibility::No => infeasible += 1,
            Possibility::Unknown(why) => panic!("unknown: {why}"),
        }
        for side in [c, pool.bool_not(c)] {
            match solver.may_be_true(pool, pc, side).unwrap() {
                Possibility::Yes(model) => {
                    assert!(pool.eval_bool(side, &model));
                    pc.push(side);
                    let (p, i) = explore(solver, pool, x, pc, depth);
                    pc.pop();
                    paths += p;
                    infeasible += i;
                }
                Possibility::No => infeasible += 1,
                Possibility::Unknown(why) => panic!("unknown: {why}"),
            }
        }
        (paths, infeasible)
    }

    #[test]
    fn the_cex_cache_saves_backend_queries_on_shared_prefixes() {
        let mut results = Vec::new();
        for cex_cache in [false, true] {
            let pool = ExprPool::new();
            let x = pool.new_array("x", 3);
            // Enumeration would decide these three-byte questions before the backend.
            let mut solver = build_chain(&SolverConfig {
                cex_cache,
                enumerate: false,
                ..SolverConfig::default()
            });
            let start = Instant::now();
            let explored = explore(solver.as_mut(), &pool, x, &mut Vec::new(), 9);
            let stats = solver.stats();
            eprintln!(
                "cex_cache {cex_cache}: {explored:?} in {:?}, {stats:?}",
                start.elapsed()
            );
            results.push((explored, stats));
        }
        let [(off_explored, off), (on_explored, on)] = &results[..] else {
            unreachable!();
        };
        assert_eq!(off_explored, on_explored);
        assert!(
            off_explored.0 > 20 && off_explored.1 > 20,
            "{off_explored:?}"
        );
        assert_eq!(off.queries, on.queries);
        assert_eq!(off.cex_misses, 0);
        assert!(on.cex_unsat_subset_hits > 0, "{on:?}");
        assert!(on.cex_sat_superset_hits > 0, "{on:?}");
        assert!(on.cex_model_reuse_hits > 0, "{on:?}");
        assert!(
            on.backend_queries * 2 < off.backend_queries,
            "{} backend queries with the cex cache, {} without",
            on.backend_queries,
            off.backend_queries
        );
    }
}
