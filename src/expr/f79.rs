//! The x87 80-bit extended format (`long double` on x86-64, LLVM's `x86_fp80`) as numbers:
//! its two bit layouts and the concrete IEEE arithmetic on it.
//!
//! A `long double` value is its 80-bit pattern in x87 layout (width [`X87`]): sign (bit 79),
//! 15-bit exponent (bits 64..79), an *explicit* integer bit (bit 63) and 63 fraction bits;
//! in memory it takes 10 bytes (16 with alignment). The floating-point nodes compute on the
//! IEEE interchange form of the same format (width [`IEEE`] = 79: sign, 15-bit exponent, 63
//! fraction bits, the integer bit hidden; SMT-LIB's `(_ FloatingPoint 15 64)`). [`decode`]
//! and [`encode`] go between the two (`x87.rs` says how each encoding reads).
//!
//! The folds of the 79-bit nodes use `rustc_apfloat`'s IEEE arithmetic (a port of LLVM's
//! APFloat) with this format's parameters; the square root, which it lacks, is computed here
//! on integers.

use super::{mask, FpBinOp, FpCmp, FpUnOp, Width};
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

pub(super) const FRACTION: u128 = (1 << 63) - 1;
pub(super) const EXPONENT_MAX: u128 = 0x7fff;
pub(super) const INTEGER_BIT: u128 = 1 << 63;

/// The default NaN in the 79-bit form.
pub(super) const DEFAULT_NAN_79: u128 = (1 << 78) | (EXPONENT_MAX << 63) | (1 << 62);

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

pub(super) fn is_nan_79(q: u128) -> bool {
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
    // x86's default NaNs of `float` and `double`.
    let nan = |w: Width| {
        if w == 32 {
            0xffc0_0000
        } else {
            0xfff8_0000_0000_0000
        }
    };
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
        // The default NaN, `0xFFFF_C000_0000_0000_0000` in x87 layout.
        assert_eq!(encode(DEFAULT_NAN_79), 0xffff_c000_0000_0000_0000);
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
}
