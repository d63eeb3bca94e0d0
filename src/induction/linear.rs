//! Linear forms modulo `2^w`: an expression as a constant plus a sum of atoms (the
//! subexpressions that are not sums, differences, negations, or products and left shifts
//! by constants) times coefficients. Two expressions with one form are equal for every
//! value of the atoms, so an equality the invariant's definitions make an identity
//! (`5·(i + 1) = 5·i + 5`) is decided here instead of by bit-blasting two multipliers.

use crate::expr::{mask, BinOp, ExprId, ExprPool, Node, UnOp};
use std::collections::BTreeMap;

/// `constant + Σ coefficient · atom`, every number modulo `2^width`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Form {
    width: u32,
    constant: u128,
    terms: BTreeMap<ExprId, u128>,
}

impl Form {
    fn atom(width: u32, e: ExprId) -> Form {
        Form {
            width,
            constant: 0,
            terms: BTreeMap::from([(e, 1)]),
        }
    }

    fn scaled(mut self, k: u128) -> Form {
        let w = self.width;
        self.constant = mask(w, self.constant.wrapping_mul(k));
        for c in self.terms.values_mut() {
            *c = mask(w, c.wrapping_mul(k));
        }
        self.terms.retain(|_, c| *c != 0);
        self
    }

    fn plus(mut self, other: Form) -> Form {
        let w = self.width;
        self.constant = mask(w, self.constant.wrapping_add(other.constant));
        for (e, c) in other.terms {
            let t = self.terms.entry(e).or_insert(0);
            *t = mask(w, t.wrapping_add(c));
        }
        self.terms.retain(|_, c| *c != 0);
        self
    }
}

/// The linear form of `e`, with at most `budget` nodes visited.
fn form(pool: &ExprPool, e: ExprId, budget: &mut usize) -> Option<Form> {
    *budget = budget.checked_sub(1)?;
    let w = pool.width(e);
    if let Some(c) = pool.as_const(e) {
        return Some(Form {
            width: w,
            constant: c,
            terms: BTreeMap::new(),
        });
    }
    let ones = mask(w, u128::MAX);
    Some(match pool.node(e) {
        Node::Binary { op, lhs, rhs } => match op {
            BinOp::Add => form(pool, lhs, budget)?.plus(form(pool, rhs, budget)?),
            BinOp::Sub => form(pool, lhs, budget)?.plus(form(pool, rhs, budget)?.scaled(ones)),
            BinOp::Mul => match (pool.as_const(lhs), pool.as_const(rhs)) {
                (Some(k), _) => form(pool, rhs, budget)?.scaled(k),
                (_, Some(k)) => form(pool, lhs, budget)?.scaled(k),
                _ => Form::atom(w, e),
            },
            BinOp::Shl => match pool.as_const(rhs) {
                Some(k) if k < u128::from(w) => form(pool, lhs, budget)?.scaled(1u128 << k),
                _ => Form::atom(w, e),
            },
            _ => Form::atom(w, e),
        },
        Node::Unary { op: UnOp::Neg, arg } => form(pool, arg, budget)?.scaled(ones),
        _ => Form::atom(w, e),
    })
}

/// Whether `a = b` holds for every value of their atoms (both have the same linear form).
pub(super) fn identical(pool: &ExprPool, a: ExprId, b: ExprId) -> bool {
    let mut budget = 10_000;
    match (form(pool, a, &mut budget), form(pool, b, &mut budget)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Whether the condition `c` is an equality that holds for every value of its atoms.
pub(super) fn valid_equality(pool: &ExprPool, c: ExprId) -> bool {
    if pool.as_const(c) == Some(1) {
        return true;
    }
    match pool.node(c) {
        Node::Binary {
            op: BinOp::Eq,
            lhs,
            rhs,
        } => identical(pool, lhs, rhs),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_by_constants_distribute_and_sums_cancel() {
        let pool = ExprPool::new();
        let a = pool.new_array("i", 4);
        let b = pool.new_array("c", 4);
        let i = pool.concat_bytes(&(0..4).map(|k| pool.sym(a, k)).collect::<Vec<_>>());
        let c = pool.concat_bytes(&(0..4).map(|k| pool.sym(b, k)).collect::<Vec<_>>());
        let k = |v: u128| pool.constant(32, v);
        let lhs = pool.mul(k(5), pool.add(i, k(1)));
        let rhs = pool.add(pool.add(pool.mul(k(5), i), c), pool.sub(k(5), c));
        assert!(identical(&pool, lhs, rhs));
        assert!(!identical(&pool, lhs, pool.mul(k(5), i)));
        // i << 2 + i is 5·i; and -(c - i) is i - c.
        assert!(identical(
            &pool,
            pool.add(pool.shl(i, k(2)), i),
            pool.mul(k(5), i)
        ));
        assert!(identical(&pool, pool.neg(pool.sub(c, i)), pool.sub(i, c)));
        assert!(!identical(&pool, pool.mul(i, c), pool.mul(i, i)));
    }
}
