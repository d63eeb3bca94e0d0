//! Constraint independence (as in KLEE): constraints that share no symbolic array with the
//! query, directly or through other constraints, cannot change whether the query is
//! satisfiable, so they are left out of the backend query.
//!
//! Soundness of the model. Leaving constraints out would make the returned model satisfy only
//! the constraints that were kept, and the callers (and the validation layer) expect a model
//! of the full constraint set. So, on `Sat`, this layer evaluates every dropped group of
//! constraints (a connected component of the "shares an array" relation) under the model,
//! with the group's arrays absent and hence reading 0:
//! - a group that holds there gets all-zero arrays in the model;
//! - a group that holds under the caller's hint (the path's own model) or one of the last
//!   few full models this layer returned (taking
//!   only the group's arrays from it) gets those values: consecutive queries usually come
//!   from the same path, whose other groups an earlier model already satisfies;
//! - any other group is solved on its own (query `true`); its arrays are disjoint from the
//!   model's, so the union of the two models is a model of both, and an `Unsat` group makes
//!   the whole formula `Unsat` (an `Unknown` one makes it `Unknown`).
//!
//! The answer is therefore exactly the answer for the full formula, and the model assigns
//! every array the full formula mentions. Constraints that mention no array at all are
//! always kept (they are cheap, and a false one decides the query).

use super::{fill_missing_arrays, pool_key, SatResult, Solver, SolverError, SolverStats};
use crate::expr::{ArrayId, ExprId, ExprPool};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Expressions whose arrays are memoised before the memo is emptied.
const ARRAYS_MEMO_LIMIT: usize = 1 << 20;

/// A [`Solver`] layer that drops constraints independent of the query.
pub struct IndependenceSolver {
    inner: Box<dyn Solver>,
    /// The arrays of each constraint and query seen, since `arrays_in` walks the expression.
    arrays: FxHashMap<ExprId, Arc<[ArrayId]>>,
    pool: usize,
    dropped: u64,
    completions: u64,
    /// Groups completed from `recent` instead of a backend query.
    recent_hits: u64,
    /// The last full models returned, newest last.
    recent: std::collections::VecDeque<Arc<crate::expr::Assignment>>,
    /// The caller's model of the constraints (see [`Solver::set_hint`]), tried first.
    hint: Option<Arc<crate::expr::Assignment>>,
}

/// Full models kept to complete dropped groups.
const RECENT_MODELS: usize = 8;

/// One group of dropped constraints and the arrays they mention.
#[derive(Default)]
struct Group {
    constraints: Vec<ExprId>,
    arrays: FxHashSet<ArrayId>,
}

impl IndependenceSolver {
    /// Drops independent constraints before asking `inner`.
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self {
            inner,
            arrays: FxHashMap::default(),
            pool: 0,
            dropped: 0,
            completions: 0,
            recent_hits: 0,
            recent: Default::default(),
            hint: None,
        }
    }

    /// The arrays `e` mentions, memoised.
    fn arrays_of(&mut self, pool: &ExprPool, e: ExprId) -> Arc<[ArrayId]> {
        if let Some(arrays) = self.arrays.get(&e) {
            return Arc::clone(arrays);
        }
        if self.arrays.len() >= ARRAYS_MEMO_LIMIT {
            self.arrays.clear();
        }
        let arrays: Arc<[ArrayId]> = pool.arrays_in(e).into();
        self.arrays.insert(e, Arc::clone(&arrays));
        arrays
    }
}

/// Union-find over arrays, with path halving.
#[derive(Default)]
struct Components {
    parent: FxHashMap<ArrayId, ArrayId>,
}

impl Components {
    fn find(&mut self, mut a: ArrayId) -> ArrayId {
        loop {
            let p = *self.parent.entry(a).or_insert(a);
            if p == a {
                return a;
            }
            let grandparent = *self.parent.entry(p).or_insert(p);
            self.parent.insert(a, grandparent);
            a = grandparent;
        }
    }

    fn union_all(&mut self, arrays: &[ArrayId]) {
        if let Some((&first, rest)) = arrays.split_first() {
            let root = self.find(first);
            for &a in rest {
                let other = self.find(a);
                if other != root {
                    self.parent.insert(other, root);
                }
            }
        }
    }
}

impl Solver for IndependenceSolver {
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let key = pool_key(pool);
        if key != self.pool {
            self.arrays.clear();
            self.pool = key;
        }

        let mut components = Components::default();
        let query_arrays = self.arrays_of(pool, query);
        components.union_all(&query_arrays);
        let constraint_arrays: Vec<Arc<[ArrayId]>> = constraints
            .iter()
            .map(|&c| self.arrays_of(pool, c))
            .collect();
        for arrays in &constraint_arrays {
            components.union_all(arrays);
        }
        let relevant: FxHashSet<ArrayId> =
            query_arrays.iter().map(|&a| components.find(a)).collect();

        let mut kept = Vec::with_capacity(constraints.len());
        // Keyed by component root, so groups are solved in a deterministic order.
        let mut groups: BTreeMap<ArrayId, Group> = BTreeMap::new();
        for (&c, arrays) in constraints.iter().zip(&constraint_arrays) {
            let Some(&first) = arrays.first() else {
                kept.push(c);
                continue;
            };
            let root = components.find(first);
            if relevant.contains(&root) {
                kept.push(c);
            } else {
                let group = groups.entry(root).or_default();
                group.constraints.push(c);
                group.arrays.extend(arrays.iter().copied());
            }
        }
        if groups.is_empty() {
            return self.inner.check(pool, constraints, query);
        }
        self.dropped += (constraints.len() - kept.len()) as u64;

        let mut model = match self.inner.check(pool, &kept, query)? {
            SatResult::Sat(model) => model,
            other => return Ok(other),
        };
        for group in groups.into_values() {
            let holds = pool
                .eval_all(&group.constraints, &model)
                .iter()
                .all(|&v| v == 1);
            if holds {
                fill_missing_arrays(pool, &mut model, &group.constraints);
                continue;
            }
            let mut arrays: Vec<ArrayId> = group.arrays.iter().copied().collect();
            arrays.sort_unstable();
            let from_recent = self
                .hint
                .iter()
                .chain(self.recent.iter().rev())
                .find_map(|old| {
                    let mut candidate = model.clone();
                    for &array in &arrays {
                        if let Some(data) = old.get(array) {
                            candidate.set(array, data.to_vec());
                        }
                    }
                    pool.eval_all(&group.constraints, &candidate)
                        .iter()
                        .all(|&v| v == 1)
                        .then_some(candidate)
                });
            if let Some(candidate) = from_recent {
                self.recent_hits += 1;
                model = candidate;
                continue;
            }
            self.completions += 1;
            match self.inner.check(pool, &group.constraints, pool.true_())? {
                SatResult::Sat(part) => {
                    let mut arrays: Vec<ArrayId> = group.arrays.into_iter().collect();
                    arrays.sort_unstable();
                    for array in arrays {
                        if let Some(data) = part.get(array) {
                            model.set(array, data.to_vec());
                        }
                    }
                }
                other => return Ok(other),
            }
        }
        if self.recent.len() == RECENT_MODELS {
            self.recent.pop_front();
        }
        self.recent.push_back(Arc::new(model.clone()));
        Ok(SatResult::Sat(model))
    }

    fn set_hint(&mut self, hint: Option<Arc<crate::expr::Assignment>>) {
        self.hint = hint;
    }

    fn stats(&self) -> SolverStats {
        let mut stats = self.inner.stats();
        stats.independence_dropped += self.dropped;
        stats.independence_completions += self.completions;
        stats.independence_recent_hits += self.recent_hits;
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Assignment;
    use crate::solver::testing::Scripted;
    use crate::solver::BitwuzlaSolver;

    #[test]
    fn only_transitively_related_constraints_are_kept() {
        let pool = ExprPool::new();
        let [x, y, z, w] = ["x", "y", "z", "w"].map(|n| pool.new_array(n, 1));
        let byte = |a| pool.sym(a, 0);
        let q = pool.ult(byte(x), pool.constant(8, 10));
        let links_xz = pool.eq(byte(x), byte(z));
        let on_z = pool.ult(pool.constant(8, 2), byte(z));
        let on_y = pool.eq(byte(y), pool.constant(8, 5));
        let on_w = pool.ult(byte(w), pool.constant(8, 5));
        let truth = pool.true_();
        let (inner, calls) = Scripted::new(move |_, _, query| {
            let mut model = Assignment::new();
            if query == truth {
                model.set(y, vec![5]);
            } else {
                model.set(x, vec![3]);
                model.set(z, vec![3]);
            }
            SatResult::Sat(model)
        });
        let mut solver = IndependenceSolver::new(Box::new(inner));
        let constraints = [on_y, links_xz, on_w, on_z];
        let SatResult::Sat(model) = solver.check(&pool, &constraints, q).unwrap() else {
            panic!("expected Sat");
        };
        let calls = calls.lock().unwrap().clone();
        assert_eq!(calls[0], (vec![links_xz, on_z], q));
        // The `y` group fails with zeros and is solved alone; the `w` group holds with zeros.
        assert_eq!(calls[1..], [(vec![on_y], truth)]);
        assert_eq!(model.get(x), Some(&[3][..]));
        assert_eq!(model.get(y), Some(&[5][..]));
        assert_eq!(model.get(z), Some(&[3][..]));
        assert_eq!(model.get(w), Some(&[0][..]));
        let stats = solver.stats();
        assert_eq!(stats.independence_dropped, 2);
        assert_eq!(stats.independence_completions, 1);
    }

    #[test]
    fn nothing_dropped_passes_the_question_unchanged() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 2);
        let q = pool.ult(pool.sym(x, 0), pool.sym(x, 1));
        let c = pool.ult(pool.sym(x, 1), pool.constant(8, 3));
        let ground = pool.true_();
        let (inner, calls) = Scripted::new(|_, _, _| SatResult::Unsat);
        let mut solver = IndependenceSolver::new(Box::new(inner));
        assert_eq!(
            solver.check(&pool, &[c, ground], q).unwrap(),
            SatResult::Unsat
        );
        assert_eq!(calls.lock().unwrap()[0], (vec![c, ground], q));
        assert_eq!(solver.stats().independence_dropped, 0);
    }

    #[test]
    fn answers_are_those_of_the_full_formula() {
        let pool = ExprPool::new();
        let (x, y) = (pool.new_array("x", 1), pool.new_array("y", 1));
        let q = pool.eq(pool.sym(x, 0), pool.constant(8, 1));
        let y5 = pool.eq(pool.sym(y, 0), pool.constant(8, 5));
        let y6 = pool.eq(pool.sym(y, 0), pool.constant(8, 6));
        let mut solver = IndependenceSolver::new(Box::new(BitwuzlaSolver::new(None)));
        // A contradiction among dropped constraints makes the whole formula unsatisfiable.
        assert_eq!(solver.check(&pool, &[y5, y6], q).unwrap(), SatResult::Unsat);
        // A false ground constraint is kept.
        assert_eq!(
            solver.check(&pool, &[pool.false_()], q).unwrap(),
            SatResult::Unsat
        );
        // A query without arrays (a model of the constraints alone) solves every group.
        let SatResult::Sat(model) = solver.check(&pool, &[y5, q], pool.true_()).unwrap() else {
            panic!("expected Sat");
        };
        assert_eq!((model.byte(x, 0), model.byte(y, 0)), (1, 5));
    }
}
