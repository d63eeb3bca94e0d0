//! Boundary models: a branch on an input compared with a constant (`n < 16`, `c > 0.25`,
//! `mid * mid < c` once `mid` is known) asks whether the side the path's model does not take
//! is feasible. Its answer is usually at a boundary of the constants the input is compared
//! with: this layer moves each such input of the caller's model (the hint, see
//! [`Solver::set_hint`]) to the boundaries of its comparisons (`k - 1`, `k`, `k + 1`; for a
//! float, `k` and its two neighbours in the format) and evaluates the constraints and the
//! query there. A candidate under which all of them hold is the answer (`Sat`) without the
//! backend; otherwise the query goes on unchanged.
//!
//! An input here is a value read straight from input bytes: one byte, or consecutive bytes
//! of one array read as a little-endian integer (the bits of an `int` or a `double`
//! parameter), possibly plus a constant. Only the hint's bytes of that one input change, so
//! a candidate is tried by patching at most 16 bytes and evaluating.
//!
//! Soundness. The layer answers only `Sat`, with a model under which every constraint and
//! the query evaluate to true (the validation layer checks it again); `Unsat` and `Unknown`
//! come only from below. The work is bounded: at most [`MAX_INPUTS`] inputs and
//! [`MAX_CANDIDATES`] evaluations per query.

use super::layer::{wraps_inner, Layer};
use super::{fill_missing_arrays, SatResult, Solver, SolverError, SolverStats};
use crate::expr::{fp_neighbours, mask, ArrayId, Assignment, BinOp, ExprId, ExprPool, Node, UnOp};
use std::sync::Arc;

/// Inputs whose boundaries one query tries.
const MAX_INPUTS: usize = 4;
/// Candidate models one query evaluates.
const MAX_CANDIDATES: usize = 48;
/// Boolean nodes walked to find the comparisons of one query.
const MAX_WALK: usize = 256;

/// A [`Solver`] layer that answers from the hint moved to the boundaries of its comparisons.
pub struct BoundarySolver {
    inner: Box<dyn Solver>,
    hint: Option<Arc<Assignment>>,
    answered: u64,
}

impl BoundarySolver {
    pub fn new(inner: Box<dyn Solver>) -> Self {
        BoundarySolver {
            inner,
            hint: None,
            answered: 0,
        }
    }
}

/// An input compared with constants: its bytes (low byte first) and the values tried.
struct Input {
    places: Vec<(ArrayId, u32)>,
    candidates: Vec<u128>,
}

/// The bytes (low byte first) that `e` reads as one little-endian value, and the constant
/// added to them (`d + x`), when `e` is such a value.
fn plain_value(pool: &ExprPool, e: ExprId) -> Option<(Vec<(ArrayId, u32)>, u128)> {
    let (e, offset) = match pool.node(e) {
        Node::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => (rhs, pool.as_const(lhs)?),
        _ => (e, 0),
    };
    // The bytes from the least significant: a concatenation's low part first.
    let mut places = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match pool.node(x) {
            Node::Concat { hi, lo } => stack.extend([hi, lo]),
            Node::Sym { array, offset } => places.push((array, offset)),
            _ => return None,
        }
        if places.len() + stack.len() > 16 {
            return None;
        }
    }
    let consecutive = places
        .windows(2)
        .all(|p| p[0].0 == p[1].0 && p[0].1.checked_add(1) == Some(p[1].1));
    (consecutive && places.len() <= 16).then_some((places, offset))
}

/// The inputs that `roots` compare with constants, in the order first met, with the
/// boundaries of those comparisons.
fn inputs_of(pool: &ExprPool, roots: &[ExprId]) -> Vec<Input> {
    let mut inputs: Vec<Input> = Vec::new();
    let mut add = |places: Vec<(ArrayId, u32)>, values: &[u128]| {
        let i = match inputs.iter().position(|x| x.places == places) {
            Some(i) => i,
            None if inputs.len() < MAX_INPUTS => {
                inputs.push(Input {
                    places,
                    candidates: Vec::new(),
                });
                inputs.len() - 1
            }
            None => return,
        };
        for &v in values {
            if !inputs[i].candidates.contains(&v) {
                inputs[i].candidates.push(v);
            }
        }
    };
    // Reversed, so that the first root (the query) is walked first.
    let mut stack: Vec<ExprId> = roots.iter().rev().copied().collect();
    let mut walked = 0;
    while let Some(e) = stack.pop() {
        walked += 1;
        if walked > MAX_WALK {
            break;
        }
        match pool.node(e) {
            Node::Unary {
                op: UnOp::Not, arg, ..
            } if pool.width(e) == 1 => stack.push(arg),
            Node::Binary { op, lhs, rhs }
                if pool.width(e) == 1 && matches!(op, BinOp::And | BinOp::Or) =>
            {
                stack.extend([rhs, lhs]);
            }
            Node::Binary { op, lhs, rhs } if op.is_comparison() => {
                let w = pool.width(lhs);
                let (k, t) = match (pool.as_const(lhs), pool.as_const(rhs)) {
                    (Some(k), None) => (k, rhs),
                    (None, Some(k)) => (k, lhs),
                    _ => continue,
                };
                if let Some((places, d)) = plain_value(pool, t) {
                    if places.len() * 8 != w as usize {
                        continue;
                    }
                    // `d + x` against `k`: `x` against `k - d`.
                    let k = mask(w, k.wrapping_sub(d));
                    let values = [k, mask(w, k.wrapping_add(1)), mask(w, k.wrapping_sub(1))];
                    add(places, &values);
                }
            }
            Node::FpCmp { lhs, rhs, .. } => {
                let w = pool.width(lhs);
                let (k, t) = match (pool.as_const(lhs), pool.as_const(rhs)) {
                    (Some(k), None) => (k, rhs),
                    (None, Some(k)) => (k, lhs),
                    _ => continue,
                };
                if let Some((places, 0)) = plain_value(pool, t) {
                    if places.len() * 8 != w as usize {
                        continue;
                    }
                    let mut values = vec![k];
                    values.extend(fp_neighbours(w, k));
                    add(places, &values);
                }
            }
            _ => {}
        }
    }
    inputs
}

impl Layer for BoundarySolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let Some(hint) = self.hint.clone() else {
            return self.inner.check(pool, constraints, query);
        };
        // The query's comparisons first: it is the branch the hint does not take.
        let mut roots = vec![query];
        roots.extend_from_slice(constraints);
        let inputs = inputs_of(pool, &roots);
        if inputs.is_empty() {
            return self.inner.check(pool, constraints, query);
        }
        let mut model = (*hint).clone();
        let mut tried = 0;
        for input in &inputs {
            let saved: Vec<u8> = input
                .places
                .iter()
                .map(|&(a, o)| model.byte(a, o))
                .collect();
            for &value in &input.candidates {
                tried += 1;
                if tried > MAX_CANDIDATES {
                    return self.inner.check(pool, constraints, query);
                }
                for (i, &(array, offset)) in input.places.iter().enumerate() {
                    model.set_byte(array, offset, (value >> (8 * i)) as u8);
                }
                if pool.eval(query, &model) == 1
                    && pool.eval_all(constraints, &model).iter().all(|&v| v == 1)
                {
                    self.answered += 1;
                    fill_missing_arrays(pool, &mut model, &roots);
                    return Ok(SatResult::Sat(model));
                }
            }
            for (&(array, offset), &b) in input.places.iter().zip(&saved) {
                model.set_byte(array, offset, b);
            }
        }
        self.inner.check(pool, constraints, query)
    }

    fn keep_hint(&mut self, hint: &Option<Arc<Assignment>>) {
        self.hint = hint.clone();
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.boundary_models += self.answered;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{fp_bits_of, FloatOp, FpPred};

    /// A backend that only counts the checks that reach it, answering `Unknown`.
    struct Counting(u64);

    impl Solver for Counting {
        fn check(
            &mut self,
            _pool: &ExprPool,
            _constraints: &[ExprId],
            _query: ExprId,
        ) -> Result<SatResult, SolverError> {
            self.0 += 1;
            Ok(SatResult::Unknown("below".into()))
        }

        fn stats(&self) -> SolverStats {
            SolverStats {
                backend_queries: self.0,
                ..SolverStats::default()
            }
        }
        fn set_hint(&mut self, _hint: Option<std::sync::Arc<crate::expr::Assignment>>) {}

        fn set_time_limit(&mut self, _limit: Option<std::time::Duration>) {}
    }

    fn model_of(array: ArrayId, bytes: &[u8]) -> Arc<Assignment> {
        let mut m = Assignment::new();
        m.set(array, bytes.to_vec());
        Arc::new(m)
    }

    // A branch's other side at a boundary of its constants: `x < 10` from a model with
    // x = 50 under `x > 3` (the answer is 9 or 10's other neighbour), and a double `c`
    // between two constants from a model outside them; an unsatisfiable side and a query
    // without such comparisons go below, as does every query without a hint.
    #[test]
    fn the_other_side_of_a_comparison_is_found_at_its_boundary() {
        let pool = ExprPool::new();
        let a = pool.new_array("x", 4);
        let x = (1..4).fold(pool.sym(a, 0), |acc, i| pool.concat(pool.sym(a, i), acc));
        let k = |v: u128| pool.constant(32, v);
        let mut solver = BoundarySolver::new(Box::new(Counting(0)));
        solver.set_hint(Some(model_of(a, &50u32.to_le_bytes())));
        let above_three = pool.ult(k(3), x);
        let below_ten = pool.ult(x, k(10));
        match solver.check(&pool, &[above_three], below_ten).unwrap() {
            SatResult::Sat(m) => {
                let v = pool.eval(x, &m);
                assert!(v > 3 && v < 10, "{v}");
            }
            other => panic!("{other:?}"),
        }
        // x < 3 and x > 3: no boundary holds both, and the layer never says unsat.
        let below_three = pool.ult(x, k(3));
        assert!(matches!(
            solver.check(&pool, &[above_three], below_three).unwrap(),
            SatResult::Unknown(_)
        ));
        assert_eq!(solver.stats().backend_queries, 1);
        assert_eq!(solver.stats().boundary_models, 1);

        let c = pool.new_array("c", 8);
        let cv = (1..8).fold(pool.sym(c, 0), |acc, i| pool.concat(pool.sym(c, i), acc));
        let d = |f: f64| pool.constant(64, fp_bits_of(64, f));
        let lt = |l: ExprId, r: ExprId| pool.build_float(FloatOp::Cmp(FpPred::Olt), &[l, r], 64);
        solver.set_hint(Some(model_of(c, &2.0f64.to_le_bytes())));
        let above = lt(d(0.25), cv);
        let below = lt(cv, d(0.5));
        match solver.check(&pool, &[above], below).unwrap() {
            SatResult::Sat(m) => {
                let v = f64::from_bits(pool.eval(cv, &m) as u64);
                assert!(v > 0.25 && v < 0.5, "{v}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(solver.stats().backend_queries, 1);
        solver.set_hint(None);
        assert!(matches!(
            solver.check(&pool, &[above], below).unwrap(),
            SatResult::Unknown(_)
        ));
        assert_eq!(solver.stats().backend_queries, 2);
    }
}
