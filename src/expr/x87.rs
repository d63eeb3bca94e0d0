//! `long double` on x86-64 (LLVM's `x86_fp80`): the x87 80-bit extended format, its
//! decoding into an IEEE format the floating-point nodes and the solvers know, and the
//! builders and concrete semantics of LLVM's instructions on it, with the x87's meaning.
//!
//! A `long double` value is its 80-bit pattern in x87 layout (width [`X87`]): sign (bit 79),
//! 15-bit exponent (bits 64..79), an *explicit* integer bit (bit 63) and 63 fraction bits;
//! in memory it takes 10 bytes (16 with alignment). The floating-point nodes never see it:
//! they compute on the IEEE interchange form of the same format (width [`IEEE`] = 79: sign,
//! 15-bit exponent, 63 fraction bits, the integer bit hidden; SMT-LIB's
//! `(_ FloatingPoint 15 64)`). [`decode`] turns an operand into that form and [`encode`]
//! turns a result back:
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
//! indefinite is `0x8000`) and truncates.
//!
//! The concrete folds of the 79-bit nodes use `rustc_apfloat`'s IEEE arithmetic (a port of
//! LLVM's APFloat) with this format's parameters; the square root, which it lacks, is
//! computed here on integers.

use super::float::{
    fold_fp_binary, fold_fp_cmp, fold_fp_fma, fold_fp_unary, fold_int_to_fp, FloatOp,
};
use super::{mask, ExprId, ExprPool, FpBinOp, FpCmp, FpUnOp, Width};
use rustc_apfloat::ieee::{Double, IeeeFloat, Semantics, Single};
use rustc_apfloat::{Float, FloatConvert, Round, Status};
use std::cmp::Ordering;

/// The width of a `long double` value: its x87 bit pattern.
pub const X87: Width = 80;

/// The width of the IEEE interchange form of the x87 format, on which the nodes compute.
pub const IEEE: Width = 79;

/// The parameters of the x87 format as an IEEE interchange format.
pub struct Ieee79;

impl Semantics for Ieee79 {
    const BITS: usize = IEEE as usize;
    const EXP_BITS: usize = 15;
}

/// A number of the x87 format.
type F79 = IeeeFloat<Ieee79>;

const FRACTION: u128 = (1 << 63) - 1;
const EXPONENT_MAX: u128 = 0x7fff;
const INTEGER_BIT: u128 = 1 << 63;

/// The default NaN in the 79-bit form.
const DEFAULT_NAN_79: u128 = (1 << 78) | (EXPONENT_MAX << 63) | (1 << 62);

/// The default NaN in x87 layout (`0xFFFF_C000_0000_0000_0000`).
pub const DEFAULT_NAN_80: u128 = (0xffff << 64) | (3 << 62);

/// Whether the 80-bit pattern `p` is an unsupported encoding (unnormal, pseudo-infinity,
/// pseudo-NaN).
pub fn invalid_bits(p: u128) -> bool {
    let e = (p >> 64) & EXPONENT_MAX;
    e != 0 && p & INTEGER_BIT == 0
}

/// The 79-bit form of the 80-bit pattern `p` (see the module's documentation).
pub fn decode(p: u128) -> u128 {
    let s = (p >> 79) & 1;
    let e = (p >> 64) & EXPONENT_MAX;
    let i = (p >> 63) & 1;
    let f = p & FRACTION;
    if e == 0 {
        (s << 78) | (i << 63) | f
    } else if i == 0 {
        DEFAULT_NAN_79
    } else {
        (s << 78) | (e << 63) | f
    }
}

/// The canonical 80-bit pattern of the 79-bit form `q`.
pub fn encode(q: u128) -> u128 {
    let se = (q >> 63) & 0xffff;
    let e = se & EXPONENT_MAX;
    (se << 64) | (u128::from(e != 0) << 63) | (q & FRACTION)
}

fn is_nan_79(q: u128) -> bool {
    q & ((1 << 78) - 1) > EXPONENT_MAX << 63
}

fn f79(bits: u128) -> F79 {
    F79::from_bits(bits)
}

/// The bits of `x`, a NaN replaced by the default NaN (the nodes' convention).
fn bits79(x: F79) -> u128 {
    if x.is_nan() {
        DEFAULT_NAN_79
    } else {
        x.to_bits()
    }
}

/// The 79-bit form of `value` (exact: every `double` is an x87 number).
pub fn bits_of_f64(value: f64) -> u128 {
    let d = Double::from_bits(u128::from(value.to_bits()));
    bits79(d.convert(&mut false).value)
}

// ---- The folds of the 79-bit nodes ----

/// `op` on two numbers of the 79-bit form.
pub fn fold_binary(op: FpBinOp, a: u128, b: u128) -> u128 {
    let (x, y) = (f79(a), f79(b));
    bits79(match op {
        FpBinOp::Add => (x + y).value,
        FpBinOp::Sub => (x - y).value,
        FpBinOp::Mul => (x * y).value,
        FpBinOp::Div => (x / y).value,
        FpBinOp::Rem => x.c_fmod(y).value,
    })
}

/// `op` on a number of the 79-bit form.
pub fn fold_unary(op: FpUnOp, a: u128) -> u128 {
    let x = f79(a);
    let round = |mode| bits79(x.round_to_integral(mode).value);
    match op {
        FpUnOp::Sqrt => sqrt(a),
        FpUnOp::RoundEven => round(Round::NearestTiesToEven),
        FpUnOp::Floor => round(Round::TowardNegative),
        FpUnOp::Ceil => round(Round::TowardPositive),
        FpUnOp::Trunc => round(Round::TowardZero),
        FpUnOp::Round => round(Round::NearestTiesToAway),
    }
}

/// The square root of a number of the 79-bit form, rounded to nearest even.
fn sqrt(a: u128) -> u128 {
    let x = f79(a);
    if x.is_nan() || (x.is_negative() && !x.is_zero()) {
        return DEFAULT_NAN_79;
    }
    if x.is_zero() || x.is_infinite() {
        return a;
    }
    // x = m · 2^k with an integer significand m (the integer bit explicit), made even in k.
    let e = ((a >> 63) & EXPONENT_MAX) as i64;
    let (mut m, mut k) = if e == 0 {
        (a & FRACTION, 1 - 16383 - 63)
    } else {
        ((a & FRACTION) | INTEGER_BIT, e - 16383 - 63)
    };
    if k % 2 != 0 {
        m <<= 1;
        k -= 1;
    }
    // sqrt(m · 2^68) has at least 34 bits and, m being normalised below, at least 66: the
    // floor of it with a sticky bit below rounds as the exact root does.
    let shift = 2 * (m.leading_zeros() as i64 / 2) - 2 * 31;
    let (m, k) = if shift > 0 {
        (m << shift, k - shift)
    } else {
        (m, k)
    };
    let (root, exact) = isqrt_shifted(m, 68);
    let wide = (root << 1) | u128::from(!exact);
    let r = F79::from_u128(wide).value;
    bits79(r.scalbn(((k - 68) / 2 - 1) as i32))
}

/// The integer square root of `m · 2^shift` (`shift` even, `m < 2^66`), and whether it is
/// exact: the digit-by-digit method, two bits of the radicand at a time.
fn isqrt_shifted(m: u128, shift: u32) -> (u128, bool) {
    let (mut rem, mut root) = (0u128, 0u128);
    for i in (0..(66 + shift) / 2).rev() {
        let at = 2 * i;
        let pair = if at >= shift {
            (m >> (at - shift)) & 3
        } else {
            0
        };
        rem = (rem << 2) | pair;
        let trial = (root << 2) | 1;
        root <<= 1;
        if rem >= trial {
            rem -= trial;
            root |= 1;
        }
    }
    (root, rem == 0)
}

/// `a * b + c` rounded once on the 79-bit form.
pub fn fold_fma(a: u128, b: u128, c: u128) -> u128 {
    bits79(f79(a).mul_add(f79(b), f79(c)).value)
}

/// The ordered comparison `op` on the 79-bit form.
pub fn fold_cmp(op: FpCmp, a: u128, b: u128) -> bool {
    let order = f79(a).partial_cmp(&f79(b));
    match op {
        FpCmp::Eq => order == Some(Ordering::Equal),
        FpCmp::Lt => order == Some(Ordering::Less),
        FpCmp::Le => matches!(order, Some(Ordering::Less | Ordering::Equal)),
    }
}

/// A conversion between the 79-bit form and `float`/`double` (nearest even, NaN the
/// default NaN).
pub fn fold_convert(from: Width, to: Width, a: u128) -> u128 {
    let nan = |w: Width| super::float::default_nan(w);
    match (from, to) {
        (IEEE, 32) => {
            let r: Single = f79(a).convert(&mut false).value;
            if r.is_nan() {
                nan(32)
            } else {
                r.to_bits()
            }
        }
        (IEEE, 64) => {
            let r: Double = f79(a).convert(&mut false).value;
            if r.is_nan() {
                nan(64)
            } else {
                r.to_bits()
            }
        }
        (32, IEEE) => bits79(Single::from_bits(a).convert(&mut false).value),
        (64, IEEE) => bits79(Double::from_bits(a).convert(&mut false).value),
        _ => a,
    }
}

/// The 79-bit form rounded toward zero to a `to`-bit signed integer; NaN and values out of
/// range give `1 << (to - 1)`.
pub fn fold_to_sint(to: Width, a: u128) -> u128 {
    let r = f79(a).to_i128(to as usize);
    if r.status.contains(Status::INVALID_OP) {
        1 << (to - 1)
    } else {
        mask(to, r.value as u128)
    }
}

/// The `from`-bit integer `a` (signed or not) rounded to the 79-bit form.
pub fn fold_from_int(from: Width, signed: bool, a: u128) -> u128 {
    let r = if signed {
        F79::from_i128(super::to_signed(from, a)).value
    } else {
        F79::from_u128(a).value
    };
    bits79(r)
}

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
        FloatOp::Cmp(pred) => super::eval_float(FloatOp::Cmp(pred), IEEE, 1, &[d(a), d(b)]),
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
        FloatOp::Min | FloatOp::Max => {
            let (x, y) = (d(a), d(b));
            let max = op == FloatOp::Max;
            let (lo, hi) = if max { (y, x) } else { (x, y) };
            let lt = |p, q| fold_fp_cmp(FpCmp::Lt, IEEE, p, q);
            if is_nan_79(x) {
                b
            } else if is_nan_79(y) || lt(lo, hi) {
                a
            } else if lt(hi, lo) {
                b
            } else if max {
                a & b
            } else {
                a | b
            }
        }
        FloatOp::Convert => match (width, to) {
            (X87, X87) => a,
            (X87, _) => super::eval_float(FloatOp::Convert, IEEE, to, &[d(a)]),
            _ => encode(super::eval_float(FloatOp::Convert, width, IEEE, &[a])),
        },
        FloatOp::ToSInt if to <= 16 => mask(to, fold_to_sint(16, d(a))),
        FloatOp::ToSInt | FloatOp::ToUInt => super::eval_float(op, IEEE, to, &[d(a)]),
        FloatOp::FromSInt => encode(fold_int_to_fp(width, IEEE, true, a)),
        FloatOp::FromUInt => encode(fold_int_to_fp(width, IEEE, false, a)),
    }
}

/// Whether `op` with operands of `width` bits and a result of `to` bits computes on
/// `long double` values.
pub fn is_x87(op: FloatOp, width: Width, to: Width) -> bool {
    match op {
        FloatOp::FromSInt | FloatOp::FromUInt => to == X87,
        FloatOp::Convert => width == X87 || to == X87,
        _ => width == X87,
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
    fn decoding_reads_every_class_of_encoding() {
        // 1.0, a pseudo-denormal (read with exponent 1), an unnormal, a pseudo-infinity.
        assert_eq!(decode(0x3fff_8000_0000_0000_0000), 0x3fff << 63);
        assert_eq!(decode(0x8000_0000_0000_0001), (1 << 63) | 1);
        assert_eq!(decode(0x3fff_4000_0000_0000_0000), DEFAULT_NAN_79);
        assert_eq!(decode(0x7fff_0000_0000_0000_0000), DEFAULT_NAN_79);
        assert_eq!(
            encode(decode(0x3fff_8000_0000_0000_0000)),
            0x3fff_8000_0000_0000_0000
        );
        assert_eq!(encode(DEFAULT_NAN_79), DEFAULT_NAN_80);
    }

    #[test]
    fn square_roots_round_to_nearest() {
        let two = bits_of_f64(2.0);
        // sqrt(2) in x87 precision: 0x3FFF_B504_F333_F9DE_6484 (rounded up from ...6484|5...).
        assert_eq!(encode(sqrt(two)), 0x3fff_b504_f333_f9de_6484);
        assert_eq!(sqrt(bits_of_f64(9.0)), bits_of_f64(3.0));
        // The smallest denormal, 2^-16445: its root is 2^-8222.5.
        let root = f79(sqrt(1));
        let back = (root * root).value;
        assert!(back.to_bits() <= 2 && !back.is_zero());
    }

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
