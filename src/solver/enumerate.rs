//! Exhaustive enumeration for queries over few input bytes.
//!
//! A query whose constraints and query mention at most [`MAX_BYTES`] symbolic bytes has at
//! most 65,536 candidate inputs. CDCL is at its worst on exactly such formulas when they hold
//! dividers or multipliers: proving `n / d + (n % d ≠ 0) = 1 + (n - 1) / d` over two bytes
//! takes Bitwuzla about 180 ms, while evaluating it on every pair of bytes takes a few
//! milliseconds. This layer compiles the formula once into a straight-line program and runs it
//! on every input, when that costs at most [`MAX_STEPS`] operations; otherwise, or when the
//! formula uses arrays, it passes the query on.
//!
//! The answer is exact: `Unsat` only after every input failed, and a model is an input on
//! which every constraint and the query evaluated to 1 (the validating layer re-checks it).

use super::{
    assignment_from_bytes, fill_missing_arrays, symbolic_bytes, SatResult, Solver, SolverError,
    SolverStats,
};
use crate::expr::{fold_binary, fold_unary, mask, BinOp, ExprId, ExprPool, Node, UnOp, Width};
use rustc_hash::FxHashMap;

/// Most symbolic bytes a query may mention to be enumerated.
const MAX_BYTES: usize = 2;
/// Most operations (inputs × program length) one enumeration may take.
const MAX_STEPS: u64 = 1 << 23;

/// One operation of the compiled program; operands index earlier results.
#[derive(Clone, Copy)]
enum Op {
    Const(u128),
    Input(usize),
    Unary(UnOp, Width, usize),
    Binary(BinOp, Width, usize, usize),
    Ite(usize, usize, usize),
    Extract(usize, u32, Width),
    SExt(usize, Width, Width),
    Concat(usize, Width, usize),
    /// The operand itself (a zero extension).
    Copy(usize),
}

/// The formula as a program: `ops` in evaluation order, and the results that must be 1.
struct Program {
    ops: Vec<Op>,
    roots: Vec<usize>,
    inputs: Vec<(crate::expr::ArrayId, u32)>,
}

impl Program {
    /// Compiles `roots`, or `None` when they use arrays or mention too many bytes.
    fn compile(pool: &ExprPool, roots: &[ExprId]) -> Option<Self> {
        let bytes = symbolic_bytes(pool, roots.iter().copied());
        if bytes.len() > MAX_BYTES {
            return None;
        }
        let inputs: Vec<_> = bytes.iter().map(|&(_, a, o)| (a, o)).collect();
        let input_of: FxHashMap<ExprId, usize> = bytes
            .iter()
            .enumerate()
            .map(|(i, &(id, _, _))| (id, i))
            .collect();
        // Post-order over the DAG, children first.
        let mut slot: FxHashMap<ExprId, usize> = FxHashMap::default();
        let mut ops = Vec::new();
        let mut stack: Vec<(ExprId, bool)> = roots.iter().map(|&r| (r, false)).collect();
        while let Some((id, expanded)) = stack.pop() {
            if slot.contains_key(&id) {
                continue;
            }
            let node = pool.node(id);
            if !expanded {
                stack.push((id, true));
                stack.extend(
                    super::children(&node)
                        .filter(|c| !slot.contains_key(c))
                        .map(|c| (c, false)),
                );
                continue;
            }
            let s = |c: ExprId| slot[&c];
            let op = match node {
                Node::Const { value, .. } => Op::Const(value),
                Node::Sym { .. } => Op::Input(input_of[&id]),
                Node::Unary { op, arg } => Op::Unary(op, pool.width(arg), s(arg)),
                Node::Binary { op, lhs, rhs } => Op::Binary(op, pool.width(lhs), s(lhs), s(rhs)),
                Node::Ite { cond, then, els } => Op::Ite(s(cond), s(then), s(els)),
                Node::Extract { arg, lo, width } => Op::Extract(s(arg), lo, width),
                Node::ZExt { arg, .. } => Op::Copy(s(arg)),
                Node::SExt { arg, width } => Op::SExt(s(arg), pool.width(arg), width),
                Node::Concat { hi, lo } => Op::Concat(s(hi), pool.width(lo), s(lo)),
                // Arrays, and floating point (its values span at least four input bytes).
                Node::ArrayConst { .. }
                | Node::ArrayStore { .. }
                | Node::ArrayRead { .. }
                | Node::FpBinary { .. }
                | Node::FpUnary { .. }
                | Node::FpFma { .. }
                | Node::FpCmp { .. }
                | Node::FpConvert { .. }
                | Node::FpToSInt { .. }
                | Node::IntToFp { .. } => return None,
            };
            slot.insert(id, ops.len());
            ops.push(op);
        }
        let roots = roots.iter().map(|r| slot[r]).collect();
        Some(Program { ops, roots, inputs })
    }

    /// The operations one enumeration runs.
    fn cost(&self) -> u64 {
        (1u64 << (8 * self.inputs.len())) * self.ops.len() as u64
    }

    /// The first input (bytes in `inputs` order) on which every root is 1.
    fn search(&self) -> Option<Vec<u8>> {
        let n = self.inputs.len();
        let mut values = vec![0u128; self.ops.len()];
        for candidate in 0u32..(1u32 << (8 * n)) {
            let byte = |i: usize| u128::from((candidate >> (8 * i)) as u8);
            for (k, op) in self.ops.iter().enumerate() {
                values[k] = match *op {
                    Op::Const(v) => v,
                    Op::Input(i) => byte(i),
                    Op::Unary(op, w, a) => fold_unary(op, w, values[a]),
                    Op::Binary(op, w, a, b) => fold_binary(op, w, values[a], values[b]),
                    Op::Ite(c, t, e) => {
                        if values[c] == 1 {
                            values[t]
                        } else {
                            values[e]
                        }
                    }
                    Op::Extract(a, lo, w) => mask(w, values[a] >> lo),
                    Op::SExt(a, from, to) => {
                        let v = values[a];
                        if (v >> (from - 1)) & 1 == 1 {
                            mask(to, v | !mask(from, u128::MAX))
                        } else {
                            v
                        }
                    }
                    Op::Concat(hi, lw, lo) => (values[hi] << lw) | values[lo],
                    Op::Copy(a) => values[a],
                };
            }
            if self.roots.iter().all(|&r| values[r] == 1) {
                return Some((0..n).map(|i| (candidate >> (8 * i)) as u8).collect());
            }
        }
        None
    }
}

/// A [`Solver`] layer that decides queries over few input bytes by trying every input.
pub struct EnumeratingSolver {
    inner: Box<dyn Solver>,
    decided: u64,
}

impl EnumeratingSolver {
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self { inner, decided: 0 }
    }
}

impl Solver for EnumeratingSolver {
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let mut roots = constraints.to_vec();
        roots.push(query);
        let program = match Program::compile(pool, &roots) {
            Some(p) if p.cost() <= MAX_STEPS => p,
            _ => return self.inner.check(pool, constraints, query),
        };
        self.decided += 1;
        Ok(match program.search() {
            None => SatResult::Unsat,
            Some(values) => {
                let bytes = program
                    .inputs
                    .iter()
                    .zip(values)
                    .map(|(&(array, offset), v)| (array, offset, v));
                let mut model = assignment_from_bytes(pool, bytes);
                fill_missing_arrays(pool, &mut model, &roots);
                SatResult::Sat(model)
            }
        })
    }

    fn set_hint(&mut self, hint: Option<std::sync::Arc<crate::expr::Assignment>>) {
        self.inner.set_hint(hint);
    }

    fn set_time_limit(&mut self, limit: Option<std::time::Duration>) {
        self.inner.set_time_limit(limit);
    }

    fn stats(&self) -> SolverStats {
        let mut stats = self.inner.stats();
        stats.enumerated += self.decided;
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::BitwuzlaSolver;

    /// Every answer of the enumeration agrees with Bitwuzla's, on formulas with one and two
    /// bytes, signed and unsigned operators, satisfiable and not.
    #[test]
    fn enumeration_agrees_with_bitwuzla() {
        let pool = ExprPool::new();
        let (n, d) = (
            pool.sym(pool.new_array("n", 1), 0),
            pool.sym(pool.new_array("d", 1), 0),
        );
        let (n32, d32) = (pool.zext(n, 32), pool.zext(d, 32));
        let nonzero = |x: ExprId| pool.ne(x, pool.constant(8, 0));
        let ceil_a = pool.add(
            pool.constant(32, 1),
            pool.sdiv(pool.sub(n32, pool.constant(32, 1)), d32),
        );
        let ceil_b = pool.add(
            pool.udiv(n32, d32),
            pool.zext(pool.ne(pool.urem(n32, d32), pool.constant(32, 0)), 32),
        );
        let cases = [
            (vec![nonzero(n), nonzero(d)], pool.ne(ceil_a, ceil_b), false),
            (vec![nonzero(d)], pool.ne(ceil_a, ceil_b), true),
            (
                vec![],
                pool.slt(pool.sext(n, 16), pool.constant(16, 0xff80)),
                false,
            ),
            (
                vec![pool.ult(n, pool.constant(8, 7))],
                pool.eq(pool.mul(n32, d32), pool.constant(32, 1000)),
                true,
            ),
            (
                vec![],
                pool.eq(pool.concat(n, d), pool.constant(16, 0x1234)),
                true,
            ),
        ];
        for (constraints, query, expect_sat) in cases {
            let mut bitwuzla = BitwuzlaSolver::new(None);
            let reference = bitwuzla.check(&pool, &constraints, query).unwrap();
            let mut enumerating = EnumeratingSolver::new(Box::new(BitwuzlaSolver::new(None)));
            let answer = enumerating.check(&pool, &constraints, query).unwrap();
            assert_eq!(enumerating.stats().enumerated, 1, "not enumerated");
            assert_eq!(reference.is_sat(), expect_sat, "{}", pool.to_sexp(query));
            assert_eq!(answer.is_sat(), expect_sat, "{}", pool.to_sexp(query));
            if let SatResult::Sat(model) = answer {
                for &c in constraints.iter().chain([&query]) {
                    assert_eq!(pool.eval(c, &model), 1, "{}", pool.to_sexp(c));
                }
            }
        }
    }

    #[test]
    fn three_bytes_go_to_the_next_layer() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 3);
        let sum = pool.add(pool.add(pool.sym(x, 0), pool.sym(x, 1)), pool.sym(x, 2));
        let mut solver = EnumeratingSolver::new(Box::new(BitwuzlaSolver::new(None)));
        let answer = solver
            .check(&pool, &[], pool.eq(sum, pool.constant(8, 7)))
            .unwrap();
        assert!(answer.is_sat());
        assert_eq!(solver.stats().enumerated, 0);
        assert_eq!(solver.stats().backend_queries, 1);
    }
}
