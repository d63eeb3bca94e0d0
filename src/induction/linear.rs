//! Identities of the invariant's definitions: an equality whose sides have one polynomial
//! normal form modulo `2^w` (`expr::poly`) holds for every value of its atoms, so an
//! equality the definitions make an identity (`5·(i + 1) = 5·i + 5`, `r + a·(b - 1) =
//! (r - a) + a·b`) is decided here instead of by bit-blasting multipliers.

use crate::expr::poly::Normaliser;
use crate::expr::{BinOp, ExprId, ExprPool, Node};

/// Whether `a = b` holds for every value of their atoms (one polynomial normal form).
pub(super) fn identical(pool: &ExprPool, a: ExprId, b: ExprId) -> bool {
    Normaliser::new(pool).identical(a, b)
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

/// Whether the equalities `a` and `b` have one difference of their sides (`x = y` and
/// `x + k = y + k`): where `a` holds, so does `b`.
pub(super) fn same_difference(pool: &ExprPool, a: ExprId, b: ExprId) -> bool {
    let diff = |c: ExprId| match pool.node(c) {
        Node::Binary {
            op: BinOp::Eq,
            lhs,
            rhs,
        } if pool.width(lhs) > 1 => Some(pool.sub(lhs, rhs)),
        _ => None,
    };
    match (diff(a), diff(b)) {
        (Some(x), Some(y)) => pool.width(x) == pool.width(y) && identical(pool, x, y),
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
