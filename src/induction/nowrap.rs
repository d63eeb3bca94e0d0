//! Extensions of sums that do not wrap: under a loop's guard a counter's step does not
//! overflow (`i < n` keeps `i + 1` from wrapping), so `zext(i + 1)` is `zext(i) + 1` there
//! and a 64-bit invariant over a 32-bit counter becomes a polynomial identity
//! ([`super::linear`]) instead of a bit-blasted multiplier.
//!
//! Each rewrite is justified by a query: the premise (the invariant and the step's guard)
//! must rule out that the extended sum differs from the sum of the extended parts. A
//! rewrite the solver does not confirm is not made, so the result equals the input on
//! every state the premise allows.

use crate::expr::{BinOp, ExprId, ExprPool, Node};
use rustc_hash::FxHashMap;

/// Most rewrites one expression is checked for (each costs a query).
const MAX_CHECKS: usize = 24;

/// Splits extensions of sums under one premise; what it split (or kept) is remembered, so
/// the conditions of one step share their queries.
pub(super) struct Widener<'a> {
    pool: &'a ExprPool,
    memo: FxHashMap<ExprId, ExprId>,
    checks: usize,
}

impl<'a> Widener<'a> {
    pub fn new(pool: &'a ExprPool) -> Self {
        Widener {
            pool,
            memo: FxHashMap::default(),
            checks: 0,
        }
    }

    /// `e` with each extension of a sum or difference (`zext(x + y)`, `sext(x - y)`)
    /// replaced by the sum or difference of the extensions wherever `wraps` shows it cannot
    /// wrap: `wraps(c)` asks whether the condition `c` (the rewrite changes the value) is
    /// possible under the premise. `Err` is the caller's (a query that failed).
    pub fn widen<E>(
        &mut self,
        e: ExprId,
        wraps: &mut dyn FnMut(ExprId) -> Result<bool, E>,
    ) -> Result<ExprId, E> {
        self.checks = 0;
        self.walk(e, wraps)
    }

    fn walk<E>(
        &mut self,
        e: ExprId,
        wraps: &mut dyn FnMut(ExprId) -> Result<bool, E>,
    ) -> Result<ExprId, E> {
        if let Some(&r) = self.memo.get(&e) {
            return Ok(r);
        }
        let pool = self.pool;
        let node = pool.node(e);
        let r = match node {
            Node::ZExt { arg, width } | Node::SExt { arg, width } => {
                let signed = matches!(node, Node::SExt { .. });
                let arg = self.walk(arg, wraps)?;
                let whole = extend(pool, arg, width, signed);
                match self.split(arg, width, signed, wraps)? {
                    Some(parts) => parts,
                    None => whole,
                }
            }
            Node::Const { .. } | Node::Sym { .. } | Node::ArrayConst { .. } => e,
            _ => {
                let mut kids = Vec::new();
                for c in node.children() {
                    kids.push((c, self.walk(c, wraps)?));
                }
                if kids.iter().all(|(c, n)| c == n) {
                    e
                } else {
                    let map: FxHashMap<ExprId, ExprId> = kids.into_iter().collect();
                    pool.rebuild(node, &|c| map[&c])
                }
            }
        };
        self.memo.insert(e, r);
        Ok(r)
    }

    /// `ext(arg)` as the sum or difference of the extended operands of `arg`, when `arg`
    /// is one and the premise shows it does not wrap; the operands split likewise.
    fn split<E>(
        &mut self,
        arg: ExprId,
        width: u32,
        signed: bool,
        wraps: &mut dyn FnMut(ExprId) -> Result<bool, E>,
    ) -> Result<Option<ExprId>, E> {
        let pool = self.pool;
        let Node::Binary { op, lhs, rhs } = pool.node(arg) else {
            return Ok(None);
        };
        if !matches!(op, BinOp::Add | BinOp::Sub) || self.checks >= MAX_CHECKS {
            return Ok(None);
        }
        // A sum keeps its constant first: read it as `x + c`.
        let (lhs, rhs) = if op == BinOp::Add && pool.as_const(lhs).is_some() {
            (rhs, lhs)
        } else {
            (lhs, rhs)
        };
        let whole = extend(pool, arg, width, signed);
        let x = extend(pool, lhs, width, signed);
        // The readings of the operation on the wide values: `x + c` with a constant whose
        // top bit is set is, unsigned, most often `x - (-c)` (a counter going down).
        let mut readings = Vec::new();
        match op {
            BinOp::Add => {
                readings.push((BinOp::Add, rhs));
                if !signed && pool.as_const(rhs).is_some() {
                    readings.push((BinOp::Sub, pool.neg(rhs)));
                }
            }
            _ => readings.push((BinOp::Sub, rhs)),
        }
        for (op, y) in readings {
            if pool.as_const(y) == Some(0) {
                continue;
            }
            let y_wide = extend(pool, y, width, signed);
            let candidate = pool.binary(op, x, y_wide);
            if candidate == whole {
                return Ok(Some(whole));
            }
            self.checks += 1;
            if !wraps(pool.ne(whole, candidate))? {
                // The operands may split again (`zext(n - i + 1)`).
                let l = self.split_or_keep(lhs, width, signed, wraps)?;
                let r = self.split_or_keep(y, width, signed, wraps)?;
                return Ok(Some(pool.binary(op, l, r)));
            }
            if self.checks >= MAX_CHECKS {
                break;
            }
        }
        Ok(None)
    }

    fn split_or_keep<E>(
        &mut self,
        e: ExprId,
        width: u32,
        signed: bool,
        wraps: &mut dyn FnMut(ExprId) -> Result<bool, E>,
    ) -> Result<ExprId, E> {
        Ok(self
            .split(e, width, signed, wraps)?
            .unwrap_or_else(|| extend(self.pool, e, width, signed)))
    }
}

fn extend(pool: &ExprPool, e: ExprId, width: u32, signed: bool) -> ExprId {
    if pool.width(e) == width {
        e
    } else if signed {
        pool.sext(e, width)
    } else {
        pool.zext(e, width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Assignment;

    /// One rewrite under its own premise.
    fn widen<E>(
        pool: &ExprPool,
        e: ExprId,
        wraps: &mut dyn FnMut(ExprId) -> Result<bool, E>,
    ) -> Result<ExprId, E> {
        Widener::new(pool).widen(e, wraps)
    }

    fn var(pool: &ExprPool, name: &str) -> (ExprId, crate::expr::ArrayId) {
        let a = pool.new_array(name, 4);
        let bytes: Vec<ExprId> = (0..4).map(|k| pool.sym(a, k)).collect();
        (pool.concat_bytes(&bytes), a)
    }

    /// Whether `c` holds for some value of `i` and `n` below 2^10 or near the top, with
    /// `premise`: a small exhaustive stand-in for the solver.
    fn possible(
        pool: &ExprPool,
        vars: &[(ExprId, crate::expr::ArrayId)],
        premise: ExprId,
        c: ExprId,
    ) -> bool {
        let values: Vec<u32> = (0..64).chain([u32::MAX - 1, u32::MAX, 1 << 31]).collect();
        for &x in &values {
            for &y in &values {
                let mut asg = Assignment::new();
                asg.set(vars[0].1, x.to_le_bytes().to_vec());
                asg.set(vars[1].1, y.to_le_bytes().to_vec());
                if pool.eval_bool(premise, &asg) && pool.eval_bool(c, &asg) {
                    return true;
                }
            }
        }
        false
    }

    #[test]
    fn a_guarded_step_splits_and_an_unguarded_one_does_not() {
        let pool = ExprPool::new();
        let (i, ia) = var(&pool, "i");
        let (n, na) = var(&pool, "n");
        let vars = [(i, ia), (n, na)];
        let one = pool.constant(32, 1);
        let e = pool.zext(pool.add(i, one), 64);
        let guarded = pool.ult(i, n);
        let got = widen::<()>(&pool, e, &mut |c| Ok(possible(&pool, &vars, guarded, c))).unwrap();
        assert_eq!(got, pool.add(pool.zext(i, 64), pool.constant(64, 1)));
        let open = pool.true_();
        let kept = widen::<()>(&pool, e, &mut |c| Ok(possible(&pool, &vars, open, c))).unwrap();
        assert_eq!(kept, e);
    }

    #[test]
    fn a_counter_down_and_a_nested_difference_split() {
        let pool = ExprPool::new();
        let (i, ia) = var(&pool, "i");
        let (n, na) = var(&pool, "n");
        let vars = [(i, ia), (n, na)];
        // i > 0: zext(i - 1) = zext(i) - 1.
        let down = pool.zext(pool.sub(i, pool.constant(32, 1)), 64);
        let positive = pool.ult(pool.constant(32, 0), i);
        let got = widen::<()>(&pool, down, &mut |c| {
            Ok(possible(&pool, &vars, positive, c))
        })
        .unwrap();
        assert_eq!(got, pool.sub(pool.zext(i, 64), pool.constant(64, 1)));
        // i < n: zext(n - i) = zext(n) - zext(i).
        let diff = pool.zext(pool.sub(n, i), 64);
        let below = pool.ult(i, n);
        let got = widen::<()>(&pool, diff, &mut |c| Ok(possible(&pool, &vars, below, c))).unwrap();
        assert_eq!(got, pool.sub(pool.zext(n, 64), pool.zext(i, 64)));
        // Every rewrite keeps the value where the premise holds.
        let mut asg = Assignment::new();
        asg.set(ia, 7u32.to_le_bytes().to_vec());
        asg.set(na, 9u32.to_le_bytes().to_vec());
        assert_eq!(pool.eval(got, &asg), pool.eval(diff, &asg));
    }
}
