//! Register values: a concrete integer, or a symbolic expression.
//!
//! Instructions whose operands are all concrete compute on `u128`s and never touch the
//! expression pool; only a symbolic operand makes the result an expression.

use crate::expr::{mask, ExprId, ExprPool, Width};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A concrete value of `width` bits; `bits` is masked to the width.
    Con { width: Width, bits: u128 },
    /// A symbolic value (its width is the expression's).
    Sym(ExprId),
}

impl Value {
    pub fn concrete(width: Width, bits: u128) -> Self {
        Value::Con {
            width,
            bits: mask(width, bits),
        }
    }

    pub fn bool(b: bool) -> Self {
        Value::Con {
            width: 1,
            bits: b as u128,
        }
    }

    /// A value for `e`: concrete if the expression is a constant.
    pub fn from_expr(pool: &ExprPool, e: ExprId) -> Self {
        match pool.as_const(e) {
            Some(bits) => Value::Con {
                width: pool.width(e),
                bits,
            },
            None => Value::Sym(e),
        }
    }

    pub fn as_concrete(&self) -> Option<u128> {
        match *self {
            Value::Con { bits, .. } => Some(bits),
            Value::Sym(_) => None,
        }
    }

    pub fn is_concrete(&self) -> bool {
        matches!(self, Value::Con { .. })
    }

    pub fn width(&self, pool: &ExprPool) -> Width {
        match *self {
            Value::Con { width, .. } => width,
            Value::Sym(e) => pool.width(e),
        }
    }

    /// The value as an expression of `width` bits (the width is only used for constants
    /// whose recorded width is authoritative anyway; it documents the caller's expectation).
    pub fn to_expr(&self, pool: &ExprPool, width: Width) -> ExprId {
        match *self {
            Value::Con { width: w, bits } => {
                debug_assert_eq!(w, width, "value width mismatch");
                pool.constant(w, bits)
            }
            Value::Sym(e) => e,
        }
    }

    /// The value as an expression, whatever its width.
    pub fn expr(&self, pool: &ExprPool) -> ExprId {
        match *self {
            Value::Con { width, bits } => pool.constant(width, bits),
            Value::Sym(e) => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concrete_values_are_masked_to_their_width() {
        assert_eq!(Value::concrete(8, 0x1ff).as_concrete(), Some(0xff));
        assert_eq!(Value::concrete(1, 2).as_concrete(), Some(0));
        assert_eq!(
            Value::concrete(128, u128::MAX).as_concrete(),
            Some(u128::MAX)
        );
        assert_eq!(Value::bool(true), Value::concrete(1, 1));
    }

    #[test]
    fn constant_expressions_become_concrete_values_and_back() {
        let pool = ExprPool::new();
        let c = pool.constant(16, 0xbeef);
        let v = Value::from_expr(&pool, c);
        assert_eq!(v, Value::concrete(16, 0xbeef));
        assert_eq!(v.width(&pool), 16);
        assert_eq!(v.expr(&pool), c);
        assert_eq!(v.to_expr(&pool, 16), c);
    }

    #[test]
    fn symbolic_values_keep_their_expression() {
        let pool = ExprPool::new();
        let a = pool.new_array("x", 2);
        let e = pool.zext(pool.sym(a, 1), 24);
        let v = Value::from_expr(&pool, e);
        assert!(!v.is_concrete());
        assert_eq!(v.as_concrete(), None);
        assert_eq!(v.width(&pool), 24);
        assert_eq!(v.expr(&pool), e);
    }
}
