//! The cross-check layer (`--cross-check-solver`): every answer of the backend, and of the
//! layers that answer without it (range rewriting, enumeration), is compared with a second,
//! independent solver's answer to the same question.
//!
//! The layer sits above range rewriting and enumeration, so it sees each question as
//! independence leaves it, before either rewrites or decides it. Opposite answers (sat against unsat) are [`SolverError::Disagreement`]: the
//! message names both answers, says which one a concrete evaluation of the Sat side's model
//! supports, and gives the path of an SMT-LIB file holding the query. A satisfying model of
//! the second solver is checked by concrete evaluation like the backend's. `Unknown` on
//! either side (a time limit, an interrupt) is no disagreement; it is counted.

use super::layer::{wraps_inner, Layer};
use super::validate::model_failure;
use super::{smtlib, SatResult, Solver, SolverError, SolverStats};
use crate::expr::{Assignment, ExprId, ExprPool};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Time limit of the second solver's checks when the chain has none, so that a question the
/// backend answers quickly cannot hold the run for ever on the second solver.
pub const CROSS_CHECK_TIMEOUT: Duration = Duration::from_secs(30);

/// Numbers the disagreement files of this process.
static DISAGREEMENTS: AtomicU64 = AtomicU64::new(0);

/// A [`Solver`] layer that asks `reference` every question `inner` answers.
pub struct CrossCheckingSolver {
    inner: Box<dyn Solver>,
    inner_name: String,
    reference: Box<dyn Solver>,
    reference_name: String,
    /// Where the queries of disagreements are written.
    dir: PathBuf,
    stats: SolverStats,
}

impl CrossCheckingSolver {
    /// Compares the answers of `inner` (called `inner_name` in messages) with those of
    /// `reference`; disagreements are written into `dir` (created when needed).
    pub fn new(
        inner: Box<dyn Solver>,
        inner_name: &str,
        reference: Box<dyn Solver>,
        reference_name: &str,
        dir: &Path,
    ) -> Self {
        Self {
            inner,
            inner_name: inner_name.to_string(),
            reference,
            reference_name: reference_name.to_string(),
            dir: dir.to_path_buf(),
            stats: SolverStats::default(),
        }
    }

    /// The error for opposite answers: which side a concrete evaluation supports, and where
    /// the query was written.
    fn disagreement(
        &self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
        first_sat: bool,
        model: &Assignment,
    ) -> SolverError {
        let name = |sat: bool| if sat { "sat" } else { "unsat" };
        let (first, second) = (first_sat, !first_sat);
        let sat_side = if first_sat {
            &self.inner_name
        } else {
            &self.reference_name
        };
        let verdict = match model_failure(pool, constraints, query, model) {
            None => format!("{sat_side}'s model satisfies the query, so sat is right"),
            Some(why) => format!("{sat_side}'s model fails ({why}), so unsat may be right"),
        };
        let number = DISAGREEMENTS.fetch_add(1, Ordering::Relaxed) + 1;
        let path = self.dir.join(format!(
            "solver-disagreement-{}-{number}.smt2",
            std::process::id()
        ));
        let written = smtlib(pool, constraints, query)
            .and_then(|text| {
                let header = format!(
                    "; {} answers {}, {} answers {}; {verdict}\n",
                    self.inner_name,
                    name(first),
                    self.reference_name,
                    name(second)
                );
                std::fs::create_dir_all(&self.dir)
                    .and_then(|()| std::fs::write(&path, header + &text))
                    .map_err(|e| SolverError::Backend(e.to_string()))
            })
            .map(|()| format!("query written to {}", path.display()))
            .unwrap_or_else(|e| format!("could not write the query to {}: {e}", path.display()));
        SolverError::Disagreement(format!(
            "solvers disagree: {} answers {}, {} answers {} ({verdict}); {written}",
            self.inner_name,
            name(first),
            self.reference_name,
            name(second)
        ))
    }
}

impl Layer for CrossCheckingSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let first = self.inner.check(pool, constraints, query)?;
        if matches!(first, SatResult::Unknown(_)) {
            self.stats.crosscheck_unknown += 1;
            return Ok(first);
        }
        let start = Instant::now();
        let second = self.reference.check(pool, constraints, query);
        self.stats.crosscheck_time += start.elapsed();
        let second = second.map_err(|e| match e {
            SolverError::Backend(why) => {
                SolverError::Backend(format!("{} (cross-check): {why}", self.reference_name))
            }
            other => other,
        })?;
        match (&first, &second) {
            (_, SatResult::Unknown(_)) => {
                self.stats.crosscheck_unknown += 1;
                return Ok(first);
            }
            (SatResult::Sat(model), SatResult::Unsat)
            | (SatResult::Unsat, SatResult::Sat(model)) => {
                self.stats.crosscheck_queries += 1;
                self.stats.crosscheck_disagreements += 1;
                let first_sat = first.is_sat();
                return Err(self.disagreement(pool, constraints, query, first_sat, model));
            }
            _ => self.stats.crosscheck_queries += 1,
        }
        if let SatResult::Sat(model) = &second {
            if let Some(why) = model_failure(pool, constraints, query, model) {
                return Err(SolverError::InvalidModel(format!(
                    "{} (cross-check): {why}",
                    self.reference_name
                )));
            }
        }
        Ok(first)
    }

    fn keep_time_limit(&mut self, limit: Option<std::time::Duration>) {
        self.reference.set_time_limit(limit);
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.add(&self.stats);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::testing::Scripted;
    use crate::solver::{BitwuzlaSolver, Z3Solver};

    fn layer(
        inner: Box<dyn Solver>,
        reference: Box<dyn Solver>,
        dir: &Path,
    ) -> CrossCheckingSolver {
        CrossCheckingSolver::new(inner, "inner", reference, "reference", dir)
    }

    /// A byte that must be 7 after a multiplication: satisfiable, with one answer.
    fn question(pool: &ExprPool) -> (ExprId, ExprId) {
        let x = pool.new_array("x", 1);
        let c = pool.ult(pool.sym(x, 0), pool.constant(8, 100));
        let q = pool.eq(
            pool.mul(pool.sym(x, 0), pool.constant(8, 3)),
            pool.constant(8, 21),
        );
        (c, q)
    }

    #[test]
    fn a_backend_that_always_answers_unsat_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let pool = ExprPool::new();
        let (c, q) = question(&pool);
        let (wrong, _) = Scripted::new(|_, _, _| SatResult::Unsat);
        let mut solver = layer(Box::new(wrong), Box::new(Z3Solver::new(None)), dir.path());
        let Err(SolverError::Disagreement(why)) = solver.check(&pool, &[c], q) else {
            panic!("the disagreement was not caught");
        };
        assert!(why.contains("inner answers unsat"), "{why}");
        assert!(why.contains("reference answers sat"), "{why}");
        assert!(why.contains("so sat is right"), "{why}");
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1);
        let path = files[0].as_ref().unwrap().path();
        assert!(why.contains(&path.display().to_string()), "{why}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("; inner answers unsat, reference answers sat"),
            "{text}"
        );
        assert!(
            text.contains("(check-sat)") && text.contains("bvmul"),
            "{text}"
        );
        let stats = solver.stats();
        assert_eq!(
            (stats.crosscheck_queries, stats.crosscheck_disagreements),
            (1, 1)
        );
    }

    #[test]
    fn a_wrong_unsat_of_the_reference_is_caught_too() {
        let dir = tempfile::tempdir().unwrap();
        let pool = ExprPool::new();
        let (c, q) = question(&pool);
        let (wrong, _) = Scripted::new(|_, _, _| SatResult::Unsat);
        let inner = Box::new(BitwuzlaSolver::new(None));
        let mut solver = layer(inner, Box::new(wrong), dir.path());
        match solver.check(&pool, &[c], q) {
            Err(SolverError::Disagreement(why)) => {
                assert!(
                    why.contains("inner answers sat, reference answers unsat"),
                    "{why}"
                )
            }
            other => panic!("expected a disagreement, got {other:?}"),
        }
    }

    #[test]
    fn agreeing_answers_pass_and_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let pool = ExprPool::new();
        let (c, q) = question(&pool);
        let inner = Box::new(BitwuzlaSolver::new(None));
        let mut solver = layer(inner, Box::new(Z3Solver::new(None)), dir.path());
        let SatResult::Sat(model) = solver.check(&pool, &[c], q).unwrap() else {
            panic!("expected sat");
        };
        assert_eq!(pool.eval(q, &model), 1);
        // Twice a byte is never odd.
        let y = pool.sym(pool.new_array("y", 1), 0);
        let odd = pool.eq(pool.mul(y, pool.constant(8, 2)), pool.constant(8, 21));
        assert_eq!(solver.check(&pool, &[], odd).unwrap(), SatResult::Unsat);
        let stats = solver.stats();
        assert_eq!(stats.crosscheck_queries, 2);
        assert_eq!(stats.crosscheck_disagreements, 0);
        assert_eq!(
            stats.backend_queries, 2,
            "the reference's counters are not merged"
        );
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }

    #[test]
    fn unknown_is_no_disagreement() {
        let dir = tempfile::tempdir().unwrap();
        let pool = ExprPool::new();
        let (c, q) = question(&pool);
        let (gives_up, _) = Scripted::new(|_, _, _| SatResult::Unknown("timeout".into()));
        let inner = Box::new(BitwuzlaSolver::new(None));
        let mut solver = layer(inner, Box::new(gives_up), dir.path());
        assert!(solver.check(&pool, &[c], q).unwrap().is_sat());
        let (gives_up, _) = Scripted::new(|_, _, _| SatResult::Unknown("timeout".into()));
        let (never_called, calls) = Scripted::new(|_, _, _| SatResult::Unsat);
        let mut solver2 = layer(Box::new(gives_up), Box::new(never_called), dir.path());
        let answer = solver2.check(&pool, &[c], q).unwrap();
        assert_eq!(answer, SatResult::Unknown("timeout".into()));
        assert!(calls.lock().unwrap().is_empty());
        for s in [solver.stats(), solver2.stats()] {
            assert_eq!(
                (
                    s.crosscheck_queries,
                    s.crosscheck_unknown,
                    s.crosscheck_disagreements
                ),
                (0, 1, 0)
            );
        }
    }

    #[test]
    fn the_references_models_are_validated() {
        let dir = tempfile::tempdir().unwrap();
        let pool = ExprPool::new();
        let (c, q) = question(&pool);
        let x = pool.array_by_name("x").unwrap();
        let (bad_model, _) = Scripted::new(move |_, _, _| {
            let mut model = crate::expr::Assignment::new();
            model.set(x, vec![8]);
            SatResult::Sat(model)
        });
        let inner = Box::new(BitwuzlaSolver::new(None));
        let mut solver = layer(inner, Box::new(bad_model), dir.path());
        match solver.check(&pool, &[c], q) {
            Err(SolverError::InvalidModel(why)) => {
                assert!(why.starts_with("reference (cross-check)"), "{why}")
            }
            other => panic!("expected an invalid model, got {other:?}"),
        }
    }
}
