//! `--assume` preconditions: the parsed C-like expression turned into a width-1 expression
//! over the symbolic inputs, with C's meaning.
//!
//! Every value has a C arithmetic type ([`CType`]): parameters the type debug information
//! gives them (a floating-point parameter is `float` or `double` by its LLVM type, or the
//! reading [`Binding`] says), literals the type C gives them, and the operators follow C
//! (LP64): integer promotion to `int`, the usual arithmetic conversions (`double` if an
//! operand is `double`, else `float` if one is `float`, else the integer rules, so `n > 10`
//! with `unsigned n` compares unsigned, `-1 < n` is false for every `n`, and `f < 0.1` with
//! `float f` compares in `double`), comparisons and logical operators give `int`, shifts take
//! the promoted left operand's type. Floating-point values are IEEE bit patterns and
//! operations on them are the engine's (x86-64, round to nearest even): `+ - * /` and unary
//! `-` (a sign flip); `< <= > >= ==` are false when an operand is NaN and `!=` is true; `!`,
//! `&&` and `||` take a floating value as true when it is `!= 0.0` (so a NaN is true).
//! `%`, `~`, shifts and the bitwise operators on a floating operand, and a floating index,
//! are errors, as in C. Two choices where C leaves the behaviour undefined:
//! - signed `+ - * << -` wrap (as with `-fwrapv`);
//! - integer division or remainder by zero, `INT_MIN / -1`, a shift by a negative amount or
//!   by the width or more, and an index outside a buffer make the precondition false for
//!   that input: such inputs are excluded. `&&` and `||` short-circuit as in C, so
//!   `d != 0 && n / d > 2` excludes nothing more than `d == 0`. Floating division by zero is
//!   defined (IEEE: an infinity or NaN) and excludes nothing.

use crate::assume::{AssumeExpr, BinaryOp, CType, UnaryOp};
use crate::expr::{ExprId, ExprPool, FpBinOp, FpPred};

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

/// Whether `v` compares unequal to zero, as C's conditions test it (`x != 0.0`, true for a
/// NaN, for a floating `v`).
fn truthy(pool: &ExprPool, v: Typed) -> ExprId {
    let zero = pool.constant(v.ty.bits(), 0);
    if v.ty.is_float() {
        pool.fp_pred(FpPred::Une, v.e, zero)
    } else {
        pool.ne(v.e, zero)
    }
}

/// An integer type of `bits` bits.
fn int_type(bits: u32, signed: bool) -> CType {
    CType::Int { bits, signed }
}

/// `v` converted to `to` as C converts arithmetic values: an integer extended by its own
/// signedness or truncated, an integer to the nearest floating value (`sitofp`/`uitofp`), a
/// floating value to the other format (`fpext`/`fptrunc`). No conversion from floating to
/// integer happens without casts, which the language does not have.
fn convert(pool: &ExprPool, v: Typed, to: CType) -> Typed {
    let (from, bits) = (v.ty.bits(), to.bits());
    let e = match (v.ty, to) {
        (CType::Float { .. }, _) => pool.fp_convert(v.e, bits),
        (CType::Int { signed, .. }, CType::Float { .. }) => pool.int_to_fp(v.e, bits, signed),
        (CType::Int { signed, .. }, CType::Int { .. }) if bits > from => {
            if signed {
                pool.sext(v.e, bits)
            } else {
                pool.zext(v.e, bits)
            }
        }
        _ if bits < from => pool.trunc(v.e, bits),
        _ => v.e,
    };
    Typed { e, ty: to }
}

/// Integer promotion: every integer type narrower than `int` becomes `int`.
fn promote(pool: &ExprPool, v: Typed) -> Typed {
    if !v.ty.is_float() && v.ty.bits() < 32 {
        convert(pool, v, CType::INT)
    } else {
        v
    }
}

/// The type the usual arithmetic conversions give two promoted operands.
fn common(a: CType, b: CType) -> CType {
    let (
        CType::Int {
            bits: ab,
            signed: asg,
        },
        CType::Int {
            bits: bb,
            signed: bsg,
        },
    ) = (a, b)
    else {
        // The wider floating type, or the floating one.
        return match (a, b) {
            (CType::Float { bits: x }, CType::Float { bits: y }) => CType::Float { bits: x.max(y) },
            (CType::Float { .. }, _) => a,
            _ => b,
        };
    };
    if asg == bsg {
        return if ab >= bb { a } else { b };
    }
    let (s, u) = if asg { (ab, bb) } else { (bb, ab) };
    if u >= s {
        int_type(u, false)
    } else {
        // The signed type is wider, so it holds every value of the unsigned one.
        int_type(s, true)
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
            AssumeExpr::Num(lit) => Lowered {
                v: Typed {
                    e: pool.constant(lit.ty.bits(), lit.value),
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
                let p = promote(pool, a.v);
                let e = match (op, p.ty.is_float()) {
                    (UnaryOp::Not, _) => self.int(pool.bool_not(truthy(pool, a.v))).e,
                    (UnaryOp::Neg, true) => pool.fp_neg(p.e),
                    (UnaryOp::Neg, false) => pool.neg(p.e),
                    (UnaryOp::BitNot, false) => pool.not(p.e),
                    (UnaryOp::BitNot, true) => {
                        return Err(format!("invalid operand to unary {op} ({})", p.ty.name()))
                    }
                };
                let ty = if *op == UnaryOp::Not {
                    CType::INT
                } else {
                    p.ty
                };
                Lowered {
                    v: Typed { e, ty },
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
        let elem_bits = elem.bits();
        let size = (elem_bits / 8).max(1) as usize;
        let elements: Vec<ExprId> = bytes
            .chunks_exact(size)
            .map(|chunk| {
                let whole = pool.concat_bytes(chunk);
                if elem_bits < 8 * size as u32 {
                    pool.trunc(whole, elem_bits)
                } else {
                    whole
                }
            })
            .collect();
        let i = self.value(index)?;
        let iv = promote(pool, i.v);
        if iv.ty.is_float() {
            return Err(format!(
                "the index of {name}[…] is a {}, not an integer",
                iv.ty.name()
            ));
        }
        let signed = iv.ty.signed();
        if let Some(k) = pool.as_const(iv.e) {
            let k = if signed {
                crate::expr::to_signed(iv.ty.bits(), k)
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
        let wide = convert(pool, iv, int_type(128, signed));
        let mut acc = pool.constant(elem_bits, 0);
        for (k, element) in elements.iter().enumerate().rev() {
            let is = pool.eq(wide.e, pool.constant(128, k as u128));
            acc = pool.ite(is, *element, acc);
        }
        let n = pool.constant(128, elements.len() as u128);
        let mut inside = pool.ult(wide.e, n);
        if signed {
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
        let integer_only = matches!(
            op,
            BinaryOp::Rem
                | BinaryOp::Shl
                | BinaryOp::Shr
                | BinaryOp::BitAnd
                | BinaryOp::BitXor
                | BinaryOp::BitOr
        );
        if integer_only && (x.ty.is_float() || y.ty.is_float()) {
            return Err(format!(
                "invalid operands to binary {op} ({} and {})",
                x.ty.name(),
                y.ty.name()
            ));
        }
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
                let bits = l.ty.bits();
                let r_signed = r.ty.signed();
                // The amount, compared in a width that holds it and the left width.
                let wide = convert(pool, r, int_type(128, r_signed));
                let mut ok = pool.ult(wide.e, pool.constant(128, bits as u128));
                if r_signed {
                    ok = pool.bool_and(ok, pool.sle(pool.constant(128, 0), wide.e));
                }
                let amount = convert(pool, r, int_type(bits, false)).e;
                let e = match (op, l.ty.signed()) {
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
                let v = if ty.is_float() {
                    self.float_binary(op, l, r, ty)
                } else {
                    self.int_binary(op, l, r, ty)
                };
                Lowered {
                    v: v.0,
                    defined: pool.bool_and(both, v.1),
                }
            }
        })
    }

    /// `l op r` on two integers of type `ty` (an arithmetic or comparison operator), and
    /// when it is defined.
    fn int_binary(&self, op: BinaryOp, l: ExprId, r: ExprId, ty: CType) -> (Typed, ExprId) {
        let pool = self.pool;
        let (bits, signed) = (ty.bits(), ty.signed());
        let arith = |e: ExprId| Typed { e, ty };
        let mut defined = pool.true_();
        let v = match op {
            BinaryOp::Mul => arith(pool.mul(l, r)),
            BinaryOp::Add => arith(pool.add(l, r)),
            BinaryOp::Sub => arith(pool.sub(l, r)),
            BinaryOp::BitAnd => arith(pool.and(l, r)),
            BinaryOp::BitXor => arith(pool.xor(l, r)),
            BinaryOp::BitOr => arith(pool.or(l, r)),
            BinaryOp::Div | BinaryOp::Rem => {
                let zero = pool.constant(bits, 0);
                let mut ok = pool.ne(r, zero);
                if signed {
                    let min = pool.constant(bits, 1u128 << (bits - 1));
                    let minus_one = pool.constant(bits, u128::MAX);
                    let overflow = pool.bool_and(pool.eq(l, min), pool.eq(r, minus_one));
                    ok = pool.bool_and(ok, pool.bool_not(overflow));
                }
                defined = ok;
                arith(match (op, signed) {
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
                self.int(match (strict, signed) {
                    (true, true) => pool.slt(l, r),
                    (true, false) => pool.ult(l, r),
                    (false, true) => pool.sle(l, r),
                    (false, false) => pool.ule(l, r),
                })
            }
            BinaryOp::Eq => self.int(pool.eq(l, r)),
            // `!=`; `&&`, `||` and the shifts never come here.
            _ => self.int(pool.ne(l, r)),
        };
        (v, defined)
    }

    /// `l op r` on two floating values of type `ty` (an arithmetic or comparison operator
    /// other than `%`); always defined.
    fn float_binary(&self, op: BinaryOp, l: ExprId, r: ExprId, ty: CType) -> (Typed, ExprId) {
        let pool = self.pool;
        let arith = |op| Typed {
            e: pool.fp_binary(op, l, r),
            ty,
        };
        let compare = |pred| self.int(pool.fp_pred(pred, l, r));
        let v = match op {
            BinaryOp::Mul => arith(FpBinOp::Mul),
            BinaryOp::Div => arith(FpBinOp::Div),
            BinaryOp::Add => arith(FpBinOp::Add),
            BinaryOp::Sub => arith(FpBinOp::Sub),
            BinaryOp::Lt => compare(FpPred::Olt),
            BinaryOp::Le => compare(FpPred::Ole),
            BinaryOp::Gt => compare(FpPred::Ogt),
            BinaryOp::Ge => compare(FpPred::Oge),
            BinaryOp::Eq => compare(FpPred::Oeq),
            // `!=`; the integer-only operators were refused before.
            _ => compare(FpPred::Une),
        };
        (v, pool.true_())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assume::parse_assume;

    /// Lowers `text` with the constant parameters `x` (a `double`), `f` (`float`), `n`
    /// (`int`), `u` (`unsigned int`, 0) and the buffer `p` of the two doubles `x` and
    /// `-x`; the condition folds to a constant.
    fn eval(text: &str, x: f64, f: f32, n: i32) -> Result<bool, String> {
        let pool = ExprPool::new();
        let lookup = |name: &str| {
            let scalar = |bits, value: u128, ty| {
                Some(Binding::Scalar {
                    value: pool.constant(bits, value),
                    ty,
                })
            };
            match name {
                "x" => scalar(64, u128::from(x.to_bits()), CType::DOUBLE),
                "f" => scalar(32, u128::from(f.to_bits()), CType::FLOAT),
                "n" => scalar(32, u128::from(n as u32), CType::INT),
                "u" => scalar(32, 0, CType::UINT),
                "p" => Some(Binding::Buffer {
                    bytes: [x, -x]
                        .iter()
                        .flat_map(|v| v.to_le_bytes())
                        .map(|b| pool.constant(8, u128::from(b)))
                        .collect(),
                    elem: CType::DOUBLE,
                }),
                _ => None,
            }
        };
        let e = parse_assume(text).map_err(|e| e.to_string())?;
        let c = lower(&pool, &e, &lookup)?;
        Ok(pool.as_const(c).expect("a constant condition") == 1)
    }

    #[track_caller]
    fn holds(text: &str, x: f64) -> bool {
        eval(text, x, 0.0, 0).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn comparisons_are_ieee_with_nan_unordered() {
        let nan = f64::NAN;
        for (text, inputs) in [
            ("x >= 0.0", [true, true, true, false, false]),
            ("x > 0.0 || x < 0.0", [false, false, true, true, false]),
            ("x == 0.0", [true, true, false, false, false]),
            ("x != x", [false, false, false, false, true]),
            ("x == x", [true, true, true, true, false]),
            ("!(x < 1.0)", [false, false, true, false, true]),
            ("x != 0.0", [false, false, true, true, true]),
            // Truthiness is `!= 0.0`: a NaN is true, both zeros false.
            ("x", [false, false, true, true, true]),
            ("!x", [true, true, false, false, false]),
            ("x && 1", [false, false, true, true, true]),
        ] {
            let got: Vec<bool> = [0.0, -0.0, 2.5, -1.0, nan]
                .into_iter()
                .map(|x| holds(text, x))
                .collect();
            assert_eq!(got, inputs, "{text} at 0.0, -0.0, 2.5, -1.0, NaN");
        }
        assert!(!holds("x < INFINITY", f64::INFINITY));
        assert!(holds("x == INFINITY && -x == -INFINITY", f64::INFINITY));
        assert!(holds("x != NAN && !(x == NAN)", 1.0));
        assert!(holds("x == 0x1.8p1 && x == 3.", 3.0));
    }

    #[test]
    fn arithmetic_and_negation() {
        // Unary minus flips the sign: `-0.0 < 0.0` is false, `-0.0 == 0.0` true.
        assert!(!holds("-x < 0.0", 0.0));
        assert!(holds("-x == 0.0", 0.0));
        assert!(holds(
            "-x == -2.5 && x * 2 == 5 && x / 2 == 1.25 && x - 3 == -0.5",
            2.5
        ));
        // Division by zero is defined: an infinity of the zero's sign.
        assert!(holds("1.0 / x > 0", 0.0));
        assert!(!holds("1.0 / x > 0", -0.0));
        assert!(holds("x / x != x / x", 0.0));
        assert!(holds("p[0] == x && p[1] == -x && p[1] < 0.5", 2.5));
    }

    /// C's usual arithmetic conversions: `double` over `float` over the integers.
    #[test]
    fn conversions_follow_c() {
        let with = |text: &str, f: f32, n: i32| eval(text, 0.0, f, n).unwrap();
        // 0.1f is above 0.1: a float compared with a double literal converts to double.
        assert!(!with("f < 0.1", 0.1, 0));
        assert!(with("f > 0.1", 0.1, 0));
        assert!(with("f == 0.1f", 0.1, 0));
        assert!(!with("f == 0.1", 0.1, 0));
        // float + float stays float, float + double is double.
        assert!(with("f + 1.0f == 1.0f", 1e-8, 0));
        assert!(!with("f + 1.0 == 1.0", 1e-8, 0));
        // An int meets a float in float: 16777217 rounds to 16777216 on both sides; in
        // double both are exact.
        assert!(with("n == 16777217.0f", 0.0, 16_777_217));
        assert!(with("n == 16777216.0f", 0.0, 16_777_217));
        assert!(with("n == 16777217.0", 0.0, 16_777_217));
        assert!(!with("n == 16777216.0", 0.0, 16_777_217));
        assert!(with("n + 0.5 > 2 && n / 2.0 == 1.5", 0.0, 3));
        assert!(with("-n < 0.0", 0.0, 3));
        // Unsigned to double keeps the value: `-1.0 < u` is true where `-1 < u` is not.
        assert!(with("-1.0 < u", 0.0, 0));
        assert!(!with("-1 < u", 0.0, 0));
        // A comparison gives int, whatever its operands.
        assert!(with("(f < 1.0) + (f < 2.0) == 2", 0.5, 0));
        assert!(with("INFINITY > 1e308 && NAN != NAN", 0.0, 0));
    }

    #[test]
    fn integer_only_operators_refuse_floating_operands() {
        for (text, message) in [
            (
                "x % 2 == 0",
                "invalid operands to binary % (double and int)",
            ),
            ("n % f", "invalid operands to binary % (int and float)"),
            ("x << 1", "invalid operands to binary << (double and int)"),
            ("1 >> f", "invalid operands to binary >> (int and float)"),
            ("n & 1.5", "invalid operands to binary & (int and double)"),
            (
                "(x | n) > 0",
                "invalid operands to binary | (double and int)",
            ),
            ("f ^ f", "invalid operands to binary ^ (float and float)"),
            ("~x", "invalid operand to unary ~ (double)"),
            ("p[x] > 0", "the index of p[…] is a double, not an integer"),
            (
                "p[0.0] > 0",
                "the index of p[…] is a double, not an integer",
            ),
        ] {
            assert_eq!(eval(text, 1.0, 1.0, 1), Err(message.to_string()), "{text}");
        }
    }
}
