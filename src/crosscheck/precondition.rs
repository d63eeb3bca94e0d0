//! `--assume` preconditions: the parsed C-like expression turned into a width-1 expression
//! over the symbolic parameters.
//!
//! Arithmetic is done on 64-bit signed integers (128 bits if a parameter is wider), as C
//! would after promotion to `long`; scalar parameters are sign-extended, buffer elements
//! (`s[4]`) are bytes read as `unsigned char`.

use crate::assume::{AssumeExpr, BinaryOp, UnaryOp};
use crate::expr::{ExprId, ExprPool};

/// What a name in a precondition stands for.
pub enum Binding {
    /// A scalar parameter's symbolic value.
    Scalar(ExprId),
    /// A buffer parameter's initial bytes.
    Buffer(Vec<ExprId>),
}

/// Builds the condition of `e`; `lookup` resolves parameter names and `argN` positions.
pub fn lower(
    pool: &ExprPool,
    e: &AssumeExpr,
    width: u32,
    lookup: &dyn Fn(&str) -> Option<Binding>,
) -> Result<ExprId, String> {
    let v = value(pool, e, width, lookup)?;
    Ok(pool.ne(v, pool.constant(width, 0)))
}

fn value(
    pool: &ExprPool,
    e: &AssumeExpr,
    w: u32,
    lookup: &dyn Fn(&str) -> Option<Binding>,
) -> Result<ExprId, String> {
    let bool_to_int = |b: ExprId| pool.zext(b, w);
    let truthy = |x: ExprId| pool.ne(x, pool.constant(w, 0));
    Ok(match e {
        AssumeExpr::Int(k) => pool.constant(w, *k as u128),
        AssumeExpr::Var(name) => match lookup(name) {
            Some(Binding::Scalar(x)) => {
                let xw = pool.width(x);
                if xw == 1 {
                    pool.zext(x, w)
                } else if xw < w {
                    pool.sext(x, w)
                } else {
                    pool.trunc(x, w)
                }
            }
            Some(Binding::Buffer(_)) => {
                return Err(format!("'{name}' is a buffer: index it, as in {name}[0]"))
            }
            None => return Err(format!("unknown parameter '{name}'")),
        },
        AssumeExpr::Index(name, index) => {
            let bytes = match lookup(name) {
                Some(Binding::Buffer(bytes)) => bytes,
                Some(Binding::Scalar(_)) => {
                    return Err(format!("'{name}' is not a buffer and cannot be indexed"))
                }
                None => return Err(format!("unknown parameter '{name}'")),
            };
            let i = value(pool, index, w, lookup)?;
            match pool.as_const(i) {
                Some(k) => {
                    let byte = bytes.get(k as usize).ok_or_else(|| {
                        format!("{name}[{k}] is outside the buffer of {} bytes", bytes.len())
                    })?;
                    pool.zext(*byte, w)
                }
                None => {
                    // A symbolic index selects among the bytes (0 outside the buffer).
                    let mut acc = pool.constant(w, 0);
                    for (k, byte) in bytes.iter().enumerate().rev() {
                        let is = pool.eq(i, pool.constant(w, k as u128));
                        acc = pool.ite(is, pool.zext(*byte, w), acc);
                    }
                    acc
                }
            }
        }
        AssumeExpr::Unary(op, a) => {
            let a = value(pool, a, w, lookup)?;
            match op {
                UnaryOp::Not => bool_to_int(pool.bool_not(truthy(a))),
                UnaryOp::Neg => pool.neg(a),
                UnaryOp::BitNot => pool.not(a),
            }
        }
        AssumeExpr::Binary(op, a, b) => {
            let a = value(pool, a, w, lookup)?;
            let b = value(pool, b, w, lookup)?;
            match op {
                BinaryOp::Mul => pool.mul(a, b),
                BinaryOp::Div => pool.sdiv(a, b),
                BinaryOp::Rem => pool.srem(a, b),
                BinaryOp::Add => pool.add(a, b),
                BinaryOp::Sub => pool.sub(a, b),
                BinaryOp::Shl => pool.shl(a, b),
                BinaryOp::Shr => pool.ashr(a, b),
                BinaryOp::Lt => bool_to_int(pool.slt(a, b)),
                BinaryOp::Le => bool_to_int(pool.sle(a, b)),
                BinaryOp::Gt => bool_to_int(pool.sgt(a, b)),
                BinaryOp::Ge => bool_to_int(pool.sge(a, b)),
                BinaryOp::Eq => bool_to_int(pool.eq(a, b)),
                BinaryOp::Ne => bool_to_int(pool.ne(a, b)),
                BinaryOp::BitAnd => pool.and(a, b),
                BinaryOp::BitXor => pool.xor(a, b),
                BinaryOp::BitOr => pool.or(a, b),
                BinaryOp::And => bool_to_int(pool.bool_and(truthy(a), truthy(b))),
                BinaryOp::Or => bool_to_int(pool.bool_or(truthy(a), truthy(b))),
            }
        }
    })
}
