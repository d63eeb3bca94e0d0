//! Constraint independence (as in KLEE): constraints that share no symbolic input byte with
//! the query, directly or through other constraints, cannot change whether the query is
//! satisfiable, so they are left out of the backend query. Like KLEE's independent element
//! sets, the unit is the byte: symbolic inputs are only ever read byte by byte (`Sym`
//! leaves; reads at symbolic indices go through stores of such bytes), so two constraints on
//! different bytes of one input are independent. Small queries then stay small, which lets
//! the enumeration layer below decide those over one or two bytes.
//!
//! Soundness of the model. Leaving constraints out would make the returned model satisfy only
//! the constraints that were kept, and the callers (and the validation layer) expect a model
//! of the full constraint set. So, on `Sat`, this layer evaluates every dropped group of
//! constraints (a connected component of the "shares a byte" relation) under the model:
//! - a group that holds there keeps the model's values (0 for bytes it does not give);
//! - a group that holds under the caller's hint (the path's own model) or one of the last
//!   few full models this layer returned (taking only the group's bytes from it) gets
//!   those values: consecutive queries usually come from the same path, whose other groups
//!   an earlier model already satisfies;
//! - any other group is solved on its own (query `true`); its bytes are disjoint from those
//!   of the kept formula and of every other group, so patching them into the model keeps
//!   everything else true, and an `Unsat` group makes the whole formula `Unsat` (an
//!   `Unknown` one makes it `Unknown`).
//!
//! The answer is therefore exactly the answer for the full formula, and the model assigns
//! every array the full formula mentions. Constraints that mention no byte at all are
//! always kept (they are cheap, and a false one decides the query).

use super::layer::{wraps_inner, Layer};
use super::{
    fill_missing_arrays, model_len, pool_key, symbolic_bytes, SatResult, Solver, SolverError,
    SolverStats,
};
use crate::expr::{ArrayId, Assignment, ExprId, ExprPool};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A symbolic input byte: an array and an offset.
type Byte = (ArrayId, u32);

/// Expressions whose bytes are memoised before the memo is emptied.
const BYTES_MEMO_LIMIT: usize = 1 << 20;

/// A [`Solver`] layer that drops constraints independent of the query.
pub struct IndependenceSolver {
    inner: Box<dyn Solver>,
    /// The bytes of each constraint and query seen, since finding them walks the expression.
    bytes: FxHashMap<ExprId, Arc<[Byte]>>,
    pool: usize,
    dropped: u64,
    completions: u64,
    /// Groups completed from `recent` instead of a backend query.
    recent_hits: u64,
    /// The last full models returned, newest last.
    recent: std::collections::VecDeque<Arc<Assignment>>,
    /// The caller's model of the constraints (see [`Solver::set_hint`]), tried first.
    hint: Option<Arc<Assignment>>,
}

/// Full models kept to complete dropped groups.
const RECENT_MODELS: usize = 8;

/// One group of dropped constraints and the bytes they mention.
#[derive(Default)]
struct Group {
    constraints: Vec<ExprId>,
    bytes: FxHashSet<Byte>,
}

impl Group {
    /// The group's bytes in a fixed order.
    fn sorted_bytes(&self) -> Vec<Byte> {
        let mut bytes: Vec<Byte> = self.bytes.iter().copied().collect();
        bytes.sort_unstable();
        bytes
    }
}

/// Sets one byte of `model`, giving its array its model length first if it has none.
fn set_byte(pool: &ExprPool, model: &mut Assignment, (array, offset): Byte, value: u8) {
    if model.get(array).is_none() {
        model.set(array, vec![0; model_len(pool, array, offset)]);
    }
    model.set_byte(array, offset, value);
}

impl IndependenceSolver {
    /// Drops independent constraints before asking `inner`.
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self {
            inner,
            bytes: FxHashMap::default(),
            pool: 0,
            dropped: 0,
            completions: 0,
            recent_hits: 0,
            recent: Default::default(),
            hint: None,
        }
    }

    /// The bytes `e` mentions, sorted, memoised.
    fn bytes_of(&mut self, pool: &ExprPool, e: ExprId) -> Arc<[Byte]> {
        if let Some(bytes) = self.bytes.get(&e) {
            return Arc::clone(bytes);
        }
        if self.bytes.len() >= BYTES_MEMO_LIMIT {
            self.bytes.clear();
        }
        let mut found: Vec<Byte> = symbolic_bytes(pool, [e])
            .into_iter()
            .map(|(_, array, offset)| (array, offset))
            .collect();
        found.sort_unstable();
        let bytes: Arc<[Byte]> = found.into();
        self.bytes.insert(e, Arc::clone(&bytes));
        bytes
    }
}

impl IndependenceSolver {
    /// Keeps `model` among the recent ones and returns it.
    fn remember(&mut self, model: Assignment) -> Assignment {
        if self.recent.len() == RECENT_MODELS {
            self.recent.pop_front();
        }
        self.recent.push_back(Arc::new(model.clone()));
        model
    }
}

/// Union-find over bytes, with path halving.
#[derive(Default)]
struct Components {
    parent: FxHashMap<Byte, Byte>,
}

impl Components {
    fn find(&mut self, mut a: Byte) -> Byte {
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

    fn union_all(&mut self, bytes: &[Byte]) {
        if let Some((&first, rest)) = bytes.split_first() {
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

impl Layer for IndependenceSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let key = pool_key(pool);
        if key != self.pool {
            self.bytes.clear();
            self.pool = key;
        }

        let mut components = Components::default();
        let query_bytes = self.bytes_of(pool, query);
        components.union_all(&query_bytes);
        let constraint_bytes: Vec<Arc<[Byte]>> = constraints
            .iter()
            .map(|&c| self.bytes_of(pool, c))
            .collect();
        for bytes in &constraint_bytes {
            components.union_all(bytes);
        }
        let relevant: FxHashSet<Byte> = query_bytes.iter().map(|&b| components.find(b)).collect();

        let mut kept = Vec::with_capacity(constraints.len());
        // Keyed by component root, so groups are solved in a deterministic order.
        let mut groups: BTreeMap<Byte, Group> = BTreeMap::new();
        for (&c, bytes) in constraints.iter().zip(&constraint_bytes) {
            let Some(&first) = bytes.first() else {
                kept.push(c);
                continue;
            };
            let root = components.find(first);
            if relevant.contains(&root) {
                kept.push(c);
            } else {
                let group = groups.entry(root).or_default();
                group.constraints.push(c);
                group.bytes.extend(bytes.iter().copied());
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
        // Usually the caller's model (the path's) satisfies every dropped group: one
        // evaluation of all of them with their bytes taken from it.
        if let Some(hint) = &self.hint {
            let mut candidate = model.clone();
            let mut dropped = Vec::new();
            for group in groups.values() {
                for &b in &group.bytes {
                    set_byte(pool, &mut candidate, b, hint.byte(b.0, b.1));
                }
                dropped.extend_from_slice(&group.constraints);
            }
            if pool.eval_all(&dropped, &candidate).iter().all(|&v| v == 1) {
                self.recent_hits += groups.len() as u64;
                return Ok(SatResult::Sat(self.remember(candidate)));
            }
        }
        for group in groups.into_values() {
            let holds = pool
                .eval_all(&group.constraints, &model)
                .iter()
                .all(|&v| v == 1);
            if holds {
                fill_missing_arrays(pool, &mut model, &group.constraints);
                continue;
            }
            let bytes = group.sorted_bytes();
            let from_recent = self
                .hint
                .iter()
                .chain(self.recent.iter().rev())
                .find_map(|old| {
                    let mut candidate = model.clone();
                    for &b in &bytes {
                        set_byte(pool, &mut candidate, b, old.byte(b.0, b.1));
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
                    for &b in &bytes {
                        set_byte(pool, &mut model, b, part.byte(b.0, b.1));
                    }
                }
                other => return Ok(other),
            }
        }
        Ok(SatResult::Sat(self.remember(model)))
    }

    fn keep_hint(&mut self, hint: &Option<Arc<Assignment>>) {
        self.hint = hint.clone();
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.independence_dropped += self.dropped;
        stats.independence_completions += self.completions;
        stats.independence_recent_hits += self.recent_hits;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn bytes_of_one_input_are_independent() {
        let pool = ExprPool::new();
        let s = pool.new_array("stdin", 4);
        let q = pool.eq(pool.sym(s, 0), pool.constant(8, b' ' as u128));
        let on_1 = pool.eq(pool.sym(s, 1), pool.constant(8, b'\n' as u128));
        let on_2_3 = pool.ult(pool.sym(s, 2), pool.sym(s, 3));
        let mut solver = IndependenceSolver::new(Box::new(BitwuzlaSolver::new(None)));
        let SatResult::Sat(model) = solver.check(&pool, &[on_1, on_2_3], q).unwrap() else {
            panic!("expected Sat");
        };
        assert_eq!(solver.stats().independence_dropped, 2);
        // The model satisfies the dropped constraints too, at the array's full length.
        assert_eq!(model.get(s).map(<[u8]>::len), Some(4));
        for c in [q, on_1, on_2_3] {
            assert_eq!(pool.eval(c, &model), 1, "{}", pool.to_sexp(c));
        }
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
