//! `long double` on x86-64 (LLVM's `x86_fp80`): the x87 80-bit extended format, its
//! decoding into an IEEE format the floating-point nodes and the solvers know, and the
//! builders and concrete semantics of LLVM's instructions on it, with the x87's meaning.
//!
//! A `long double` value is its 80-bit pattern in x87 layout (`f79.rs`); the floating-point
//! nodes never see it: they compute on the IEEE form of width 79. `decode` turns an operand
//! into that form and `encode` turns a result back:
//! - a canonical encoding (integer bit set exactly when the exponent is not zero) is the
//!   number it names;
//! - a *pseudo-denormal* (exponent 0, integer bit set) is read as the x87 reads it, as the
//!   normal number of exponent 1 with the same fraction;
//! - an *unnormal* (exponent neither 0 nor all ones, integer bit clear), a *pseudo-infinity*
//!   or a *pseudo-NaN* (exponent all ones, integer bit clear) is an invalid operand, as on
//!   every x87 since the 387: it decodes to the default NaN, and an arithmetic operation
//!   with such an operand returns the default NaN whatever its other operands are;
//! - results are always canonical.
//!
//! NaN results follow the x87 (checked against the hardware by `tests/it/float80.rs`):
//! an arithmetic operation with one NaN operand returns it quietened; with two, the one with
//! the larger significand (a quiet NaN's is larger than a signalling one's), quietened, and
//! of two with equal significands the positive one; invalid operations give the default NaN
//! `0xFFFF_C000_0000_0000_0000`. `fneg`, `fabs` and `copysign` change the sign bit of the
//! 80-bit pattern only. `sqrt` and the roundings to an integer (x87 `fsqrt`, `frndint`)
//! return a NaN operand quietened. Conversions keep a NaN's sign and the top bits of its
//! payload and quieten it (x87 `fld`/`fst`). `fptosi`/`fptoui` are those of `float.rs` on
//! the decoded value (the x87 `fistp` gives the same "integer indefinite"), except that
//! `fptosi` to 16 bits or fewer converts to 16 bits (`fistp` has a 16-bit form, whose
//! indefinite is `0x8000`) and truncates. `fma` (a C library function on the x87) combines
//! its NaN operands left to right as two operations would; `minnum`/`maxnum` return an
//! operand's own 80 bits. `llvm.round` is `roundl`, a library function (no x87 instruction):
//! the engine's meaning on invalid encodings (the default NaN) is not glibc's, which reads
//! their bits as numbers (the native test leaves that case out).
//!
//! A product of two converted integers (or of one and a positive integer constant) whose
//! result the 64-bit significand holds is built as the conversion of the integer product,
//! and a sum of two as that of the integer sum (`float.rs`): exact, with no floating-point
//! reasoning left for the solver (musl's `strtod` computes `sign * (long double)x` and
//! `1e9 * y + x`).

use super::f79::{
    decode, encode, fold_to_sint, invalid_bits, is_nan_79, DEFAULT_NAN_79, FRACTION, IEEE, X87,
};
use super::float::{
    eval_ieee, fold_fp_binary, fold_fp_cmp, fold_fp_fma, fold_fp_unary, fold_int_to_fp, min_max,
};
use super::{mask, ExprId, ExprPool, FloatOp, FpBinOp, FpCmp, Node, Width};
use std::cmp::Ordering;

// ---- Concrete semantics of the instructions ----

/// The NaN an x87 arithmetic operation returns for the 79-bit operands `a` and `b`, at
/// least one a NaN: the only NaN, or the one with the larger significand (the positive one
/// of equal significands), quietened.
fn nan_of_two(a: u128, b: u128) -> u128 {
    let quiet = 1 << 62;
    match (is_nan_79(a), is_nan_79(b)) {
        (true, false) => a | quiet,
        (false, true) => b | quiet,
        _ => match (a & FRACTION).cmp(&(b & FRACTION)) {
            Ordering::Greater => a | quiet,
            Ordering::Less => b | quiet,
            Ordering::Equal => (a & b) | quiet,
        },
    }
}

/// The NaN result of an x87 operation on the 80-bit `operands`, if there is one: the default
/// NaN when one is an invalid encoding, else the NaNs combined left to right.
fn x87_nan(operands: &[u128]) -> Option<u128> {
    if operands.iter().any(|&p| invalid_bits(p)) {
        return Some(DEFAULT_NAN_79);
    }
    // The first NaN is compared unquietened: a quiet NaN beats a signalling one.
    let nan = operands
        .iter()
        .map(|&p| decode(p))
        .fold(None, |acc: Option<u128>, q| match acc {
            Some(n) if is_nan_79(q) => Some(nan_of_two(n, q)),
            None if is_nan_79(q) => Some(q),
            other => other,
        });
    nan.map(|n| n | (1 << 62))
}

/// `op` on concrete operands when an operand or the result is a `long double` (see
/// [`super::eval_float`] for `width` and `to`).
pub fn eval(op: FloatOp, width: Width, to: Width, args: &[u128]) -> u128 {
    let a = args[0];
    let b = args.get(1).copied().unwrap_or(0);
    let sign = 1u128 << 79;
    let d = decode;
    match op {
        FloatOp::Binary(bop) => {
            encode(x87_nan(&[a, b]).unwrap_or_else(|| fold_fp_binary(bop, IEEE, d(a), d(b))))
        }
        FloatOp::Neg => a ^ sign,
        FloatOp::Abs => a & (sign - 1),
        FloatOp::CopySign => (a & (sign - 1)) | (b & sign),
        FloatOp::Cmp(pred) => eval_ieee(FloatOp::Cmp(pred), IEEE, 1, &[d(a), d(b)]),
        FloatOp::Unary(uop) => {
            encode(x87_nan(&[a]).unwrap_or_else(|| fold_fp_unary(uop, IEEE, d(a))))
        }
        FloatOp::Fma => {
            let c = args[2];
            encode(x87_nan(&[a, b, c]).unwrap_or_else(|| fold_fp_fma(IEEE, d(a), d(b), d(c))))
        }
        FloatOp::MulAdd => {
            let product = eval(FloatOp::Binary(FpBinOp::Mul), X87, X87, &[a, b]);
            eval(FloatOp::Binary(FpBinOp::Add), X87, X87, &[product, args[2]])
        }
        FloatOp::Min | FloatOp::Max => min_max(
            op == FloatOp::Max,
            (a, b),
            (d(a), d(b)),
            is_nan_79,
            |p, q| fold_fp_cmp(FpCmp::Lt, IEEE, p, q),
        ),
        FloatOp::Convert => match (width, to) {
            (X87, X87) => a,
            (X87, _) => eval_ieee(FloatOp::Convert, IEEE, to, &[d(a)]),
            _ => encode(eval_ieee(FloatOp::Convert, width, IEEE, &[a])),
        },
        FloatOp::ToSInt if to <= 16 => mask(to, fold_to_sint(16, d(a))),
        FloatOp::ToSInt | FloatOp::ToUInt => eval_ieee(op, IEEE, to, &[d(a)]),
        FloatOp::FromSInt => encode(fold_int_to_fp(width, IEEE, true, a)),
        FloatOp::FromUInt => encode(fold_int_to_fp(width, IEEE, false, a)),
    }
}

// ---- Expressions ----

impl ExprPool {
    /// The 79-bit form of the 80-bit `a` and whether `a` is an invalid encoding (width 1).
    /// A value this module encoded decodes to what was encoded, with no test left.
    pub fn x87_decode(&self, a: ExprId) -> (ExprId, ExprId) {
        if let Some(p) = self.as_const(a) {
            return (
                self.constant(IEEE, decode(p)),
                self.constant(1, u128::from(invalid_bits(p))),
            );
        }
        let candidate = self.concat(self.extract(a, 64, 16), self.extract(a, 0, 63));
        if self.x87_encode(candidate) == a {
            return (candidate, self.false_());
        }
        let s = self.extract(a, 79, 1);
        let e = self.extract(a, 64, 15);
        let i = self.extract(a, 63, 1);
        let f = self.extract(a, 0, 63);
        let exponent_zero = self.eq(e, self.constant(15, 0));
        let low = self.concat(s, self.concat(self.zext(i, 15), f));
        let invalid = self.bool_and(
            self.bool_not(exponent_zero),
            self.eq(i, self.constant(1, 0)),
        );
        let q = self.ite(
            exponent_zero,
            low,
            self.ite(invalid, self.constant(IEEE, DEFAULT_NAN_79), candidate),
        );
        (q, invalid)
    }

    /// The canonical 80-bit pattern of the 79-bit `q`.
    pub fn x87_encode(&self, q: ExprId) -> ExprId {
        if let Some(v) = self.as_const(q) {
            return self.constant(X87, encode(v));
        }
        let se = self.extract(q, 63, 16);
        let e = self.extract(q, 63, 15);
        let integer = self.bool_not(self.eq(e, self.constant(15, 0)));
        self.concat(se, self.concat(integer, self.extract(q, 0, 63)))
    }

    /// Whether the 80-bit `a` is a NaN as the x87 reads it (an invalid encoding is).
    pub fn x87_is_nan(&self, a: ExprId) -> ExprId {
        self.fp_is_nan(self.x87_decode(a).0)
    }

    /// The NaN an x87 operation returns for the 79-bit operands `x` and `y` when at least
    /// one is a NaN (see [`nan_of_two`]).
    fn x87_nan_of_two(&self, x: ExprId, y: ExprId) -> ExprId {
        let quiet = |v: ExprId| self.or(v, self.constant(IEEE, 1 << 62));
        let (nx, ny) = (self.fp_is_nan(x), self.fp_is_nan(y));
        let (fx, fy) = (self.extract(x, 0, 63), self.extract(y, 0, 63));
        let both = self.ite(
            self.ult(fy, fx),
            quiet(x),
            self.ite(self.ult(fx, fy), quiet(y), quiet(self.and(x, y))),
        );
        self.ite(nx, self.ite(ny, both, quiet(x)), quiet(y))
    }

    /// `raw` (79-bit) unless an operand is invalid or a NaN: then x87's NaN (see
    /// [`x87_nan`]); `operands` are the decoded operands with their invalid tests.
    fn x87_propagate(&self, operands: &[(ExprId, ExprId)], raw: ExprId) -> ExprId {
        // The NaN of the operands so far and whether there is one, left to right.
        let mut nan: Option<(ExprId, ExprId)> = None;
        for &(q, _) in operands {
            let is_nan = self.fp_is_nan(q);
            if is_nan == self.false_() {
                continue;
            }
            nan = Some(match nan {
                // The first NaN is compared unquietened (see `x87_nan`).
                None => (q, is_nan),
                Some((n, any)) => (
                    self.ite(is_nan, self.x87_nan_of_two(n, q), n),
                    self.bool_or(any, is_nan),
                ),
            });
        }
        let Some((n, any)) = nan else {
            return raw;
        };
        let invalid = operands
            .iter()
            .fold(self.false_(), |acc, &(_, inv)| self.bool_or(acc, inv));
        let result = self.ite(any, self.or(n, self.constant(IEEE, 1 << 62)), raw);
        self.ite(invalid, self.constant(IEEE, DEFAULT_NAN_79), result)
    }

    /// The integer the 79-bit `q` converts, if it is an integer conversion (the integer and
    /// whether it is signed) or a positive integer constant below 2^63 (as a constant of as
    /// many bits as it needs, unsigned).
    fn integer_operand(&self, q: ExprId) -> Option<(ExprId, bool)> {
        match self.node(q) {
            Node::IntToFp {
                arg,
                width: IEEE,
                signed,
            } => Some((arg, signed)),
            Node::Const { value, .. } => {
                let n = fold_to_sint(64, value);
                let exact = fold_int_to_fp(64, IEEE, true, n) == value;
                let bits = 128 - n.leading_zeros();
                (exact && (1..64).contains(&bits)).then(|| (self.constant(bits, n), false))
            }
            _ => None,
        }
    }

    /// `x * y` on the 79-bit form as the conversion of an integer product, when both are
    /// integers (see [`ExprPool::integer_operand`]) whose product the 64-bit significand
    /// holds: exact, and no floating-point reasoning left for the solver. A zero product with
    /// a negative factor is `-0.0`. musl's `strtod` computes so (`sign * (long double)x[0]`,
    /// `1e9 * y`).
    fn exact_integer_product(&self, x: ExprId, y: ExprId) -> Option<ExprId> {
        let (a, sa) = self.integer_operand(x)?;
        let (b, sb) = self.integer_operand(y)?;
        // |a| < 2^width unsigned, |a| <= 2^(width - 1) signed: the product's magnitude is
        // below 2^bits, or 2^bits itself when both are signed (their minimums).
        let bits = (self.width(a) - u32::from(sa)) + (self.width(b) - u32::from(sb));
        let w = bits + 1 + u32::from(sa && sb);
        if w > 64 {
            return None;
        }
        let ext = |v: ExprId, signed: bool| {
            if signed {
                self.sext(v, w)
            } else {
                self.zext(v, w)
            }
        };
        let product = self.mul(ext(a, sa), ext(b, sb));
        let converted = self.int_to_fp(product, IEEE, true);
        let negative = |v: ExprId, signed: bool| {
            if signed {
                self.slt(v, self.zero(self.width(v)))
            } else {
                self.false_()
            }
        };
        let negative_zero = self.bool_and(
            self.eq(product, self.zero(w)),
            self.bool_or(negative(a, sa), negative(b, sb)),
        );
        Some(self.ite(negative_zero, self.constant(IEEE, 1 << 78), converted))
    }

    /// `op` on expressions when it computes on `long double` values (see [`is_x87`]).
    pub(super) fn build_x87(&self, op: FloatOp, args: &[ExprId], to: Width) -> ExprId {
        let a = args[0];
        let b = args.get(1).copied().unwrap_or(a);
        let sign = self.constant(X87, 1 << 79);
        let magnitude = self.constant(X87, (1 << 79) - 1);
        let w = self.width(a);
        match op {
            FloatOp::Binary(bop) => {
                let (da, db) = (self.x87_decode(a), self.x87_decode(b));
                let exact = match bop {
                    FpBinOp::Mul => self.exact_integer_product(da.0, db.0),
                    _ => self.exact_integer_sum(bop, da.0, db.0),
                };
                if let Some(e) = exact {
                    return self.x87_encode(e);
                }
                let raw = self.fp_binary_raw(bop, da.0, db.0);
                self.x87_encode(self.x87_propagate(&[da, db], raw))
            }
            FloatOp::Neg => self.xor(a, sign),
            FloatOp::Abs => self.and(a, magnitude),
            FloatOp::CopySign => self.or(self.and(a, magnitude), self.and(b, sign)),
            FloatOp::Cmp(pred) => {
                let (da, db) = (self.x87_decode(a).0, self.x87_decode(b).0);
                self.fp_pred(pred, da, db)
            }
            FloatOp::Unary(uop) => {
                let da = self.x87_decode(a);
                let raw = self.fp_unary_raw(uop, da.0);
                self.x87_encode(self.x87_propagate(&[da], raw))
            }
            FloatOp::Fma => {
                let ds = [
                    self.x87_decode(a),
                    self.x87_decode(b),
                    self.x87_decode(args[2]),
                ];
                let raw = self.fp_fma_raw(ds[0].0, ds[1].0, ds[2].0);
                self.x87_encode(self.x87_propagate(&ds, raw))
            }
            FloatOp::MulAdd => {
                let product = self.build_x87(FloatOp::Binary(FpBinOp::Mul), &[a, b], X87);
                self.build_x87(FloatOp::Binary(FpBinOp::Add), &[product, args[2]], X87)
            }
            FloatOp::Min | FloatOp::Max => {
                let max = op == FloatOp::Max;
                let (x, y) = (self.x87_decode(a).0, self.x87_decode(b).0);
                let (lo, hi) = if max { (y, x) } else { (x, y) };
                let equal = if max { self.and(a, b) } else { self.or(a, b) };
                let ordered = self.ite(
                    self.fp_cmp(FpCmp::Lt, lo, hi),
                    a,
                    self.ite(self.fp_cmp(FpCmp::Lt, hi, lo), b, equal),
                );
                let y_nan = self.ite(self.fp_is_nan(y), a, ordered);
                self.ite(self.fp_is_nan(x), b, y_nan)
            }
            FloatOp::Convert => match (w, to) {
                (X87, X87) => a,
                (X87, _) => self.fp_convert(self.x87_decode(a).0, to),
                _ => self.x87_encode(self.fp_convert(a, IEEE)),
            },
            FloatOp::ToSInt if to <= 16 => {
                self.trunc(self.fp_to_sint_raw(self.x87_decode(a).0, 16), to)
            }
            FloatOp::ToSInt => self.fp_to_sint(self.x87_decode(a).0, to),
            FloatOp::ToUInt => self.fp_to_uint(self.x87_decode(a).0, to),
            FloatOp::FromSInt => self.x87_encode(self.int_to_fp(a, IEEE, true)),
            FloatOp::FromUInt => self.x87_encode(self.int_to_fp(a, IEEE, false)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_this_module_encoded_decode_without_tests() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 8);
        let d = pool.int_to_fp(pool.sym(x, 0), IEEE, true);
        let encoded = pool.x87_encode(d);
        assert_eq!(pool.x87_decode(encoded), (d, pool.false_()));
        // Split into bytes and joined again, as a store and a load do.
        let bytes: Vec<ExprId> = (0..10).rev().map(|i| pool.byte(encoded, i)).collect();
        let joined = bytes[1..]
            .iter()
            .fold(bytes[0], |acc, &b| pool.concat(acc, b));
        assert_eq!(pool.x87_decode(joined).0, d);
    }
}
