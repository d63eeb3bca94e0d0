//! `--assume` preconditions: the parsed C-like expression turned into a width-1 expression
//! over the symbolic inputs, with C's meaning.
//!
//! Every value has a C integer type ([`CType`]): parameters the type debug information
//! gives them (or the reading [`Binding`] says), literals the type C gives them, and the
//! operators follow C (LP64): integer promotion to `int`, the usual arithmetic conversions
//! (so `n > 10` with `unsigned n` compares unsigned, and `-1 < n` is false for every `n`),
//! comparisons and logical operators give `int`, shifts take the promoted left operand's
//! type. Two choices where C leaves the behaviour undefined:
//! - signed `+ - * << -` wrap (as with `-fwrapv`);
//! - division or remainder by zero, `INT_MIN / -1`, a shift by a negative amount or by the
//!   width or more, and an index outside a buffer make the precondition false for that
//!   input: such inputs are excluded. `&&` and `||` short-circuit as in C, so
//!   `d != 0 && n / d > 2` excludes nothing more than `d == 0`.

use crate::assume::{AssumeExpr, BinaryOp, CType, UnaryOp};
use crate::expr::{ExprId, ExprPool};

/// What a name in a precondition stands for.
pub enum Binding {
    /// A scalar parameter's symbolic value (of the type's width) and its C type.
    Scalar { value: ExprId, ty: CType },
    /// A buffer parameter's initial bytes, read as elements of `elem` (`s[i]` is element
    /// `i`, little-endian).
    Buffer { bytes: Vec<ExprId>, elem: CType },
}

/// A value with its C type; `e` has the type's width.
#[derive(Clone, Copy)]
struct Typed {
    e: ExprId,
    ty: CType,
}

/// A value and the condition under which computing it was defined.
struct Lowered {
    v: Typed,
    defined: ExprId,
}

/// Builds the condition of `e`; `lookup` resolves parameter names and `argN` positions.
pub fn lower(
    pool: &ExprPool,
    e: &AssumeExpr,
    lookup: &dyn Fn(&str) -> Option<Binding>,
) -> Result<ExprId, String> {
    let l = Lower { pool, lookup }.value(e)?;
    Ok(pool.bool_and(l.defined, truthy(pool, l.v)))
}

struct Lower<'a> {
    pool: &'a ExprPool,
    lookup: &'a dyn Fn(&str) -> Option<Binding>,
}

fn truthy(pool: &ExprPool, v: Typed) -> ExprId {
    pool.ne(v.e, pool.constant(v.ty.bits, 0))
}

/// `v` converted to `to` as C converts integers: extended by its own signedness, or
/// truncated.
fn convert(pool: &ExprPool, v: Typed, to: CType) -> Typed {
    let from = v.ty.bits;
    let e = if to.bits > from {
        if v.ty.signed {
            pool.sext(v.e, to.bits)
        } else {
            pool.zext(v.e, to.bits)
        }
    } else if to.bits < from {
        pool.trunc(v.e, to.bits)
    } else {
        v.e
    };
    Typed { e, ty: to }
}

/// Integer promotion: every type narrower than `int` becomes `int`.
fn promote(pool: &ExprPool, v: Typed) -> Typed {
    if v.ty.bits < 32 {
        convert(pool, v, CType::INT)
    } else {
        v
    }
}

/// The type the usual arithmetic conversions give two promoted operands.
fn common(a: CType, b: CType) -> CType {
    if a.signed == b.signed {
        return if a.bits >= b.bits { a } else { b };
    }
    let (s, u) = if a.signed { (a, b) } else { (b, a) };
    if u.bits >= s.bits {
        u
    } else {
        // The signed type is wider, so it holds every value of the unsigned one.
        s
    }
}

impl Lower<'_> {
    fn int(&self, cond: ExprId) -> Typed {
        Typed {
            e: self.pool.zext(cond, 32),
            ty: CType::INT,
        }
    }

    fn value(&self, e: &AssumeExpr) -> Result<Lowered, String> {
        let pool = self.pool;
        let defined = pool.true_();
        Ok(match e {
            AssumeExpr::Int(lit) => Lowered {
                v: Typed {
                    e: pool.constant(lit.ty.bits, lit.value),
                    ty: lit.ty,
                },
                defined,
            },
            AssumeExpr::Var(name) => match (self.lookup)(name) {
                Some(Binding::Scalar { value, ty }) => Lowered {
                    v: Typed { e: value, ty },
                    defined,
                },
                Some(Binding::Buffer { .. }) => {
                    return Err(format!("'{name}' is a buffer: index it, as in {name}[0]"))
                }
                None => return Err(format!("unknown parameter '{name}'")),
            },
            AssumeExpr::Index(name, index) => self.index(name, index)?,
            AssumeExpr::Unary(op, a) => {
                let a = self.value(a)?;
                let v = match op {
                    UnaryOp::Not => self.int(pool.bool_not(truthy(pool, a.v))),
                    UnaryOp::Neg => {
                        let p = promote(pool, a.v);
                        Typed {
                            e: pool.neg(p.e),
                            ty: p.ty,
                        }
                    }
                    UnaryOp::BitNot => {
                        let p = promote(pool, a.v);
                        Typed {
                            e: pool.not(p.e),
                            ty: p.ty,
                        }
                    }
                };
                Lowered {
                    v,
                    defined: a.defined,
                }
            }
            AssumeExpr::Binary(op, a, b) => {
                let a = self.value(a)?;
                self.binary(*op, a, b)?
            }
            AssumeExpr::Chain(first, rest) => {
                let mut acc = self.value(first)?;
                for (op, b) in rest {
                    acc = self.binary(*op, acc, b)?;
                }
                acc
            }
        })
    }

    /// Element `index` of buffer `name`.
    fn index(&self, name: &str, index: &AssumeExpr) -> Result<Lowered, String> {
        let pool = self.pool;
        let (bytes, elem) = match (self.lookup)(name) {
            Some(Binding::Buffer { bytes, elem }) => (bytes, elem),
            Some(Binding::Scalar { .. }) => {
                return Err(format!("'{name}' is not a buffer and cannot be indexed"))
            }
            None => return Err(format!("unknown parameter '{name}'")),
        };
        let size = (elem.bits / 8).max(1) as usize;
        let elements: Vec<ExprId> = bytes
            .chunks_exact(size)
            .map(|chunk| {
                let whole = pool.concat_bytes(chunk);
                if elem.bits < 8 * size as u32 {
                    pool.trunc(whole, elem.bits)
                } else {
                    whole
                }
            })
            .collect();
        let i = self.value(index)?;
        let iv = promote(pool, i.v);
        if let Some(k) = pool.as_const(iv.e) {
            let k = if iv.ty.signed {
                crate::expr::to_signed(iv.ty.bits, k)
            } else {
                k as i128
            };
            let element = usize::try_from(k).ok().and_then(|k| elements.get(k));
            let element = element.ok_or_else(|| {
                format!(
                    "{name}[{k}] is outside the buffer of {} element{}",
                    elements.len(),
                    if elements.len() == 1 { "" } else { "s" }
                )
            })?;
            return Ok(Lowered {
                v: Typed {
                    e: *element,
                    ty: elem,
                },
                defined: i.defined,
            });
        }
        // A symbolic index selects among the elements; outside the buffer there is no
        // element, and the input is excluded.
        let wide = convert(
            pool,
            iv,
            CType {
                bits: 128,
                signed: iv.ty.signed,
            },
        );
        let mut acc = pool.constant(elem.bits, 0);
        for (k, element) in elements.iter().enumerate().rev() {
            let is = pool.eq(wide.e, pool.constant(128, k as u128));
            acc = pool.ite(is, *element, acc);
        }
        let n = pool.constant(128, elements.len() as u128);
        let mut inside = pool.ult(wide.e, n);
        if iv.ty.signed {
            inside = pool.bool_and(inside, pool.sle(pool.constant(128, 0), wide.e));
        }
        Ok(Lowered {
            v: Typed { e: acc, ty: elem },
            defined: pool.bool_and(i.defined, inside),
        })
    }

    /// `a op b`, with `b` still to lower (so that `&&` and `||` can short-circuit).
    fn binary(&self, op: BinaryOp, a: Lowered, b: &AssumeExpr) -> Result<Lowered, String> {
        let pool = self.pool;
        let b = self.value(b)?;
        let both = pool.bool_and(a.defined, b.defined);
        let (x, y) = (a.v, b.v);
        Ok(match op {
            BinaryOp::And => Lowered {
                v: self.int(pool.bool_and(truthy(pool, x), truthy(pool, y))),
                // B is evaluated only where A holds.
                defined: pool.bool_and(
                    a.defined,
                    pool.bool_or(pool.bool_not(truthy(pool, x)), b.defined),
                ),
            },
            BinaryOp::Or => Lowered {
                v: self.int(pool.bool_or(truthy(pool, x), truthy(pool, y))),
                defined: pool.bool_and(a.defined, pool.bool_or(truthy(pool, x), b.defined)),
            },
            BinaryOp::Shl | BinaryOp::Shr => {
                let l = promote(pool, x);
                let r = promote(pool, y);
                let bits = l.ty.bits;
                // The amount, compared in a width that holds it and the left width.
                let wide = convert(
                    pool,
                    r,
                    CType {
                        bits: 128,
                        signed: r.ty.signed,
                    },
                );
                let mut ok = pool.ult(wide.e, pool.constant(128, bits as u128));
                if r.ty.signed {
                    ok = pool.bool_and(ok, pool.sle(pool.constant(128, 0), wide.e));
                }
                let amount = convert(
                    pool,
                    r,
                    CType {
                        bits,
                        signed: false,
                    },
                )
                .e;
                let e = match (op, l.ty.signed) {
                    (BinaryOp::Shl, _) => pool.shl(l.e, amount),
                    (_, true) => pool.ashr(l.e, amount),
                    (_, false) => pool.lshr(l.e, amount),
                };
                Lowered {
                    v: Typed { e, ty: l.ty },
                    defined: pool.bool_and(both, ok),
                }
            }
            _ => {
                let (px, py) = (promote(pool, x), promote(pool, y));
                let ty = common(px.ty, py.ty);
                let (l, r) = (convert(pool, px, ty).e, convert(pool, py, ty).e);
                let arith = |e: ExprId| Typed { e, ty };
                let mut defined = both;
                let v = match op {
                    BinaryOp::Mul => arith(pool.mul(l, r)),
                    BinaryOp::Add => arith(pool.add(l, r)),
                    BinaryOp::Sub => arith(pool.sub(l, r)),
                    BinaryOp::BitAnd => arith(pool.and(l, r)),
                    BinaryOp::BitXor => arith(pool.xor(l, r)),
                    BinaryOp::BitOr => arith(pool.or(l, r)),
                    BinaryOp::Div | BinaryOp::Rem => {
                        let zero = pool.constant(ty.bits, 0);
                        let mut ok = pool.ne(r, zero);
                        if ty.signed {
                            let min = pool.constant(ty.bits, 1u128 << (ty.bits - 1));
                            let minus_one = pool.constant(ty.bits, u128::MAX);
                            let overflow = pool.bool_and(pool.eq(l, min), pool.eq(r, minus_one));
                            ok = pool.bool_and(ok, pool.bool_not(overflow));
                        }
                        defined = pool.bool_and(defined, ok);
                        arith(match (op, ty.signed) {
                            (BinaryOp::Div, true) => pool.sdiv(l, r),
                            (BinaryOp::Div, false) => pool.udiv(l, r),
                            (_, true) => pool.srem(l, r),
                            (_, false) => pool.urem(l, r),
                        })
                    }
                    BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                        let (l, r, strict) = match op {
                            BinaryOp::Lt => (l, r, true),
                            BinaryOp::Le => (l, r, false),
                            BinaryOp::Gt => (r, l, true),
                            _ => (r, l, false),
                        };
                        self.int(match (strict, ty.signed) {
                            (true, true) => pool.slt(l, r),
                            (true, false) => pool.ult(l, r),
                            (false, true) => pool.sle(l, r),
                            (false, false) => pool.ule(l, r),
                        })
                    }
                    BinaryOp::Eq => self.int(pool.eq(l, r)),
                    BinaryOp::Ne => self.int(pool.ne(l, r)),
                    BinaryOp::And | BinaryOp::Or | BinaryOp::Shl | BinaryOp::Shr => {
                        unreachable!("handled above")
                    }
                };
                Lowered { v, defined }
            }
        })
    }
}
