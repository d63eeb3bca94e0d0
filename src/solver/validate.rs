//! The outermost safety net: every satisfying model is checked by concrete evaluation.
//!
//! A model that does not make every constraint and the query evaluate to 1 is turned into
//! [`SolverError::InvalidModel`], so a translation bug or a backend bug can never surface as a
//! false counterexample. Validation is always on unless the configuration turns it off, in
//! release builds too: evaluation is cheap next to solving.

use super::layer::{wraps_inner, Layer};
use super::{abbreviate, SatResult, Solver, SolverError, SolverStats};
use crate::expr::{Assignment, ExprId, ExprPool};

/// Longest expression text quoted in an [`SolverError::InvalidModel`] message.
const QUOTE_LIMIT: usize = 240;

/// Why `model` is not a model of `constraints ∧ query`: the first root that does not evaluate
/// to 1, with its value, the model and the root (abbreviated); `None` when it is a model.
pub(crate) fn model_failure(
    pool: &ExprPool,
    constraints: &[ExprId],
    query: ExprId,
    model: &Assignment,
) -> Option<String> {
    let mut roots = constraints.to_vec();
    roots.push(query);
    // One evaluation of all roots shares the work on common subexpressions.
    let values = pool.eval_all(&roots, model);
    let (i, (&e, &value)) = roots
        .iter()
        .zip(&values)
        .enumerate()
        .find(|(_, (_, &value))| value != 1)?;
    let role = if i == constraints.len() {
        "the query".to_string()
    } else {
        format!("constraint {i}")
    };
    Some(format!(
        "{role} evaluates to {value} under {}: {}",
        abbreviate(format!("{model:?}"), QUOTE_LIMIT),
        abbreviate(pool.to_sexp(e), QUOTE_LIMIT)
    ))
}

/// A [`Solver`] layer that checks the models of the solver it wraps.
pub struct ValidatingSolver {
    inner: Box<dyn Solver>,
    validated: u64,
}

impl ValidatingSolver {
    /// Validates every model that `inner` returns.
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self {
            inner,
            validated: 0,
        }
    }
}

impl Layer for ValidatingSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let result = self.inner.check(pool, constraints, query)?;
        if let SatResult::Sat(model) = &result {
            if let Some(why) = model_failure(pool, constraints, query, model) {
                return Err(SolverError::InvalidModel(why));
            }
            self.validated += 1;
        }
        Ok(result)
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.validated_models += self.validated;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::testing::Scripted;

    #[test]
    fn good_models_pass_and_are_counted() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let q = pool.eq(pool.sym(x, 0), pool.constant(8, 5));
        let c = pool.ult(pool.sym(x, 0), pool.constant(8, 9));
        let (inner, _) = Scripted::new(move |_, _, _| {
            let mut model = Assignment::new();
            model.set(x, vec![5]);
            SatResult::Sat(model)
        });
        let mut solver = ValidatingSolver::new(Box::new(inner));
        assert!(solver.check(&pool, &[c], q).unwrap().is_sat());
        assert_eq!(solver.stats().validated_models, 1);
    }

    #[test]
    fn bad_models_are_errors() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let q = pool.eq(pool.sym(x, 0), pool.constant(8, 5));
        let c = pool.ult(pool.sym(x, 0), pool.constant(8, 3));
        let (inner, _) = Scripted::new(move |_, _, _| {
            let mut model = Assignment::new();
            model.set(x, vec![5]);
            SatResult::Sat(model)
        });
        let mut solver = ValidatingSolver::new(Box::new(inner));
        match solver.check(&pool, &[c], q) {
            Err(SolverError::InvalidModel(why)) => assert!(why.contains("constraint 0"), "{why}"),
            other => panic!("expected an invalid model, got {other:?}"),
        }
        match solver.check(&pool, &[], pool.false_()) {
            Err(SolverError::InvalidModel(why)) => assert!(why.contains("the query"), "{why}"),
            other => panic!("expected an invalid model, got {other:?}"),
        }
        assert_eq!(solver.stats().validated_models, 0);
    }

    #[test]
    fn other_answers_pass_through() {
        let pool = ExprPool::new();
        let (inner, _) = Scripted::new(|_, constraints, _| {
            if constraints.is_empty() {
                SatResult::Unsat
            } else {
                SatResult::Unknown("timeout".into())
            }
        });
        let mut solver = ValidatingSolver::new(Box::new(inner));
        let t = pool.true_();
        assert_eq!(solver.check(&pool, &[], t).unwrap(), SatResult::Unsat);
        assert_eq!(
            solver.check(&pool, &[t], t).unwrap(),
            SatResult::Unknown("timeout".into())
        );
    }
}
