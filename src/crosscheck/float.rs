//! Floating-point results: what "equal" means for them (`--fp-equal`, `--fp-tolerance`),
//! how values are shown (decimal and C's `%a`, NaN, infinities and subnormals named), and the
//! round values minimization tries first.

use crate::expr::{fp_bits_of, ExprId, ExprPool, FloatOp, FpBinOp, FpPred};
use std::fmt;

/// When two floating-point results count as equal.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum FpEquality {
    /// The same bit pattern: `-0.0` differs from `+0.0`, NaN payloads and signs count.
    #[default]
    Bits,
    /// IEEE `==`, except that two NaNs are equal (`-0.0 == +0.0`).
    Ieee,
    /// IEEE-equal as above, or both finite and within a tolerance.
    Tolerance(Tolerance),
}

/// How far apart two finite results may be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// At most `n` representable values apart (`-0.0` and `+0.0` are both 0).
    Ulp(u64),
    /// `|a - b| <= e` (the difference computed in the results' format).
    Abs(f64),
    /// `|a - b| <= e * max(|a|, |b|)` (computed in the results' format).
    Rel(f64),
}

// The tolerances are finite numbers (the parsers refuse NaN), so `==` is an equivalence.
impl Eq for Tolerance {}
impl Eq for FpEquality {}

impl FpEquality {
    /// Parses `--fp-equal` (`bits` or `ieee`).
    pub fn parse_mode(text: &str) -> Result<FpEquality, String> {
        match text {
            "bits" => Ok(FpEquality::Bits),
            "ieee" => Ok(FpEquality::Ieee),
            other => Err(format!("'{other}': expected bits or ieee")),
        }
    }

    /// Parses `--fp-tolerance` (`ulp:N`, `abs:E` or `rel:E`).
    pub fn parse_tolerance(text: &str) -> Result<FpEquality, String> {
        let (kind, value) = text
            .split_once(':')
            .ok_or_else(|| format!("'{text}': expected ulp:N, abs:E or rel:E"))?;
        let number = || -> Result<f64, String> {
            let v: f64 = value
                .parse()
                .map_err(|_| format!("'{value}' is not a number"))?;
            if v.is_finite() && v >= 0.0 {
                Ok(v)
            } else {
                Err(format!("'{value}' is not a finite non-negative number"))
            }
        };
        let tolerance = match kind {
            "ulp" => Tolerance::Ulp(
                value
                    .parse()
                    .map_err(|_| format!("'{value}' is not a whole number of ulps"))?,
            ),
            "abs" => Tolerance::Abs(number()?),
            "rel" => Tolerance::Rel(number()?),
            other => return Err(format!("'{other}': expected ulp, abs or rel")),
        };
        Ok(FpEquality::Tolerance(tolerance))
    }

    /// The condition (width 1) under which the floats `x` and `y` (of one width) do NOT count
    /// as equal.
    pub fn differ(self, pool: &ExprPool, x: ExprId, y: ExprId) -> ExprId {
        let same = match self {
            FpEquality::Bits => return pool.ne(x, y),
            FpEquality::Ieee => pool.fp_eq_or_both_nan(x, y),
            FpEquality::Tolerance(t) => {
                let exact = pool.fp_eq_or_both_nan(x, y);
                let finite = |v| {
                    let w = pool.width(v);
                    let magnitude = pool.fp_abs(v);
                    pool.ult(magnitude, pool.constant(w, fp_bits_of(w, f64::INFINITY)))
                };
                let both_finite = pool.bool_and(finite(x), finite(y));
                pool.bool_or(exact, pool.bool_and(both_finite, within(pool, t, x, y)))
            }
        };
        pool.bool_not(same)
    }
}

impl fmt::Display for FpEquality {
    /// The mode as the report names it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FpEquality::Bits => write!(f, "bit-identical"),
            FpEquality::Ieee => write!(f, "IEEE == (NaN equals NaN)"),
            FpEquality::Tolerance(Tolerance::Ulp(n)) => write!(f, "within {n} ulp"),
            FpEquality::Tolerance(Tolerance::Abs(e)) => write!(f, "within {e:e} absolute"),
            FpEquality::Tolerance(Tolerance::Rel(e)) => write!(f, "within {e:e} relative"),
        }
    }
}

/// `e` as a constant of the format of `width` bits (rounded to nearest).
fn constant(pool: &ExprPool, width: u32, e: f64) -> ExprId {
    pool.constant(width, fp_bits_of(width, e))
}

/// Whether the finite floats `x` and `y` are within the tolerance `t`.
fn within(pool: &ExprPool, t: Tolerance, x: ExprId, y: ExprId) -> ExprId {
    let w = pool.width(x);
    let float = |op, args: &[ExprId]| pool.build_float(op, args, w);
    match t {
        Tolerance::Ulp(n) => {
            // Sign and magnitude as one ordered integer: -m for negative values.
            let ordered = |v: ExprId| {
                let magnitude = pool.zext(pool.fp_abs(v), 128);
                let negative = pool.extract(v, w - 1, 1);
                pool.ite(negative, pool.neg(magnitude), magnitude)
            };
            let d = pool.sub(ordered(x), ordered(y));
            let zero = pool.zero(128);
            let distance = pool.ite(pool.slt(d, zero), pool.neg(d), d);
            pool.ule(distance, pool.constant(128, u128::from(n)))
        }
        Tolerance::Abs(e) => {
            let d = float(
                FloatOp::Abs,
                &[float(FloatOp::Binary(FpBinOp::Sub), &[x, y])],
            );
            float(FloatOp::Cmp(FpPred::Ole), &[d, constant(pool, w, e)])
        }
        Tolerance::Rel(e) => {
            let d = float(
                FloatOp::Abs,
                &[float(FloatOp::Binary(FpBinOp::Sub), &[x, y])],
            );
            let larger = float(
                FloatOp::Max,
                &[float(FloatOp::Abs, &[x]), float(FloatOp::Abs, &[y])],
            );
            let bound = float(
                FloatOp::Binary(FpBinOp::Mul),
                &[constant(pool, w, e), larger],
            );
            float(FloatOp::Cmp(FpPred::Ole), &[d, bound])
        }
    }
}

/// A float of `width` (32 or 64) bits as people read it: the shortest decimal that reads
/// back as it, and its exact hexadecimal form as C's `%a` prints it; NaN with its sign and
/// payload, infinities, and subnormals named.
pub fn display_float(width: u32, bits: u128) -> String {
    if width == crate::expr::X87_WIDTH {
        return display_long_double(bits);
    }
    let (value, payload_bits) = if width == 32 {
        (f64::from(f32::from_bits(bits as u32)), 23)
    } else {
        (f64::from_bits(bits as u64), 52)
    };
    let negative = bits >> (width - 1) & 1 == 1;
    let sign = if negative { "-" } else { "" };
    if value.is_nan() {
        let payload = bits & ((1u128 << payload_bits) - 1);
        return format!("{sign}NaN (0x{bits:x}, payload 0x{payload:x})");
    }
    if value.is_infinite() {
        return format!("{sign}inf");
    }
    let decimal = if value == 0.0 || (1e-4..1e16).contains(&value.abs()) {
        let text = if width == 32 {
            format!("{}", f32::from_bits(bits as u32))
        } else {
            format!("{value}")
        };
        if text.contains('.') {
            text
        } else {
            format!("{text}.0")
        }
    } else if width == 32 {
        format!("{:e}", f32::from_bits(bits as u32))
    } else {
        format!("{value:e}")
    };
    let subnormal = if width == 32 {
        f32::from_bits(bits as u32).is_subnormal()
    } else {
        value.is_subnormal()
    };
    let note = if subnormal { ", subnormal" } else { "" };
    format!("{decimal} ({}{note})", hex_float(value))
}

/// A `long double` (x87 80-bit pattern) as people read it: the nearest `double` in decimal
/// (`≈` when it is not the same number) and the 80 bits in hexadecimal; a NaN (an encoding
/// the x87 refuses included) with its sign.
fn display_long_double(bits: u128) -> String {
    use crate::expr::{eval_float, FloatOp};
    let sign = if bits >> 79 & 1 == 1 { "-" } else { "" };
    let nearest = eval_float(FloatOp::Convert, 80, 64, &[bits]);
    let value = f64::from_bits(nearest as u64);
    if value.is_nan() {
        return format!("{sign}NaN (0x{bits:020x})");
    }
    let exact = eval_float(FloatOp::Convert, 64, 80, &[nearest]) == bits;
    let approx = if exact { "" } else { "≈" };
    let decimal = display_float(64, nearest);
    let decimal = decimal.split(" (").next().unwrap_or(&decimal);
    format!("{approx}{decimal} (long double 0x{bits:020x})")
}

/// A double as C's `printf("%a")` prints it (glibc's form: subnormals as `0x0.…p-1022`).
pub fn hex_float(value: f64) -> String {
    let bits = value.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let mantissa = bits & ((1u64 << 52) - 1);
    let (lead, exp) = match exponent {
        0 if mantissa == 0 => return format!("{sign}0x0p+0"),
        0 => (0, -1022),
        e => (1, e - 1023),
    };
    let mut digits = format!("{mantissa:013x}");
    while digits.ends_with('0') {
        digits.pop();
    }
    let dot = if digits.is_empty() { "" } else { "." };
    let exp_sign = if exp >= 0 { "+" } else { "" };
    format!("{sign}0x{lead}{dot}{digits}p{exp_sign}{exp}")
}

/// The input byte (array and offset) each of `bytes` is, if every one is a plain input
/// byte: a value made of them can be changed by patching a model.
pub(super) fn input_places(
    pool: &ExprPool,
    bytes: &[crate::exec::Value],
) -> Option<Vec<(crate::expr::ArrayId, u32)>> {
    bytes
        .iter()
        .map(|b| match b {
            crate::exec::Value::Sym(e) => match pool.node(*e) {
                crate::expr::Node::Sym { array, offset } => Some((array, offset)),
                _ => None,
            },
            crate::exec::Value::Con { .. } => None,
        })
        .collect()
}

/// The bytes of `places` (little-endian) set to `value`, as `(array, offset, byte)`.
pub(super) fn patch(
    places: &[(crate::expr::ArrayId, u32)],
    value: u128,
) -> Vec<(crate::expr::ArrayId, u32, u8)> {
    places
        .iter()
        .enumerate()
        .map(|(i, &(array, offset))| (array, offset, (value >> (8 * i)) as u8))
        .collect()
}

/// Round values minimization tries for a float of `width` bits, simplest first, then the
/// values at the edges of the format: a large value whose square overflows, the largest
/// finite value, the smallest normal and subnormal ones, and NaNs whose payload or sign
/// differ from the default NaN's (observable: an operation on two NaNs returns the first
/// one's).
pub fn round_values(width: u32) -> Vec<u128> {
    let mut values = simple_values(width);
    values.extend(edge_values(width));
    values.extend(other_nans(width));
    values
}

/// The values sampling tries for a float of `width` bits: those of [`round_values`], with
/// the other NaNs right after the default one, since sampling also pairs each value with the
/// next, and two NaNs with different payloads are what tells `x + y` from `y + x`.
pub fn sample_values(width: u32) -> Vec<u128> {
    let mut values = simple_values(width);
    values.extend(other_nans(width));
    values.extend(edge_values(width));
    values
}

/// How many seeded random tuples [`samples`] gives after the round ones.
const RANDOM_SAMPLES: usize = 30;

/// Deterministic value tuples for floats of `widths` bits, tried concretely where a
/// difference is searched for: [`round_samples`], then [`random_samples`].
pub(super) fn samples(widths: &[u32]) -> impl Iterator<Item = Vec<u128>> + '_ {
    round_samples(widths).chain(random_samples(widths))
}

/// Every value of [`sample_values`] with every float of `widths` bits at the same one,
/// then each paired with the next.
pub(super) fn round_samples(widths: &[u32]) -> impl Iterator<Item = Vec<u128>> + '_ {
    let round: Vec<Vec<u128>> = widths.iter().map(|&w| sample_values(w)).collect();
    let rounds = 2 * round.iter().map(Vec::len).max().unwrap_or(0);
    (0..rounds).map(move |k| {
        round
            .iter()
            .enumerate()
            .map(|(i, round)| {
                let n = round.len();
                // A float with fewer values than another repeats its last pairing.
                round[(k.min(2 * n - 1) + i * (k.min(2 * n - 1) / n)) % n]
            })
            .collect()
    })
}

/// [`RANDOM_SAMPLES`] seeded moderate values for floats of `widths` bits: random signs,
/// magnitudes from 2^-8 to 2^8, the same sequence every time.
pub(super) fn random_samples(widths: &[u32]) -> impl Iterator<Item = Vec<u128>> + '_ {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    (0..RANDOM_SAMPLES).map(move |_| {
        widths
            .iter()
            .map(|&width| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let v =
                    ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2f64.powi((seed % 17) as i32 - 8);
                fp_bits_of(width, if seed & 1 == 1 { -v } else { v })
            })
            .collect()
    })
}

/// A NaN with payload 1 and the default NaN negated (none for formats other than float and
/// double).
fn other_nans(width: u32) -> Vec<u128> {
    match width {
        32 => {
            let nan = u128::from(f32::NAN.to_bits());
            vec![nan | 1, nan | 1 << 31]
        }
        64 => {
            let nan = u128::from(f64::NAN.to_bits());
            vec![nan | 1, nan | 1 << 63]
        }
        _ => Vec::new(),
    }
}

/// Large and tiny values: ±10^200 (±10^30 for float), the largest finite value, the smallest
/// normal and the smallest subnormal one (none for formats other than float and double).
fn edge_values(width: u32) -> Vec<u128> {
    match width {
        32 => [
            1e30f32,
            -1e30,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
        ]
        .iter()
        .map(|v| u128::from(v.to_bits()))
        .collect(),
        64 => [
            1e200f64,
            -1e200,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
        ]
        .iter()
        .map(|v| u128::from(v.to_bits()))
        .collect(),
        _ => Vec::new(),
    }
}

/// The simplest values of a float of `width` bits, simplest first.
fn simple_values(width: u32) -> Vec<u128> {
    let doubles = [
        0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
        0.5,
        -0.5,
        3.0,
        10.0,
        -10.0,
        0.25,
        100.0,
        -0.0,
        1e6,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    doubles.iter().map(|&d| fp_bits_of(width, d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_show_as_decimal_and_as_c_prints_hex() {
        assert_eq!(display_float(64, 1.5f64.to_bits().into()), "1.5 (0x1.8p+0)");
        assert_eq!(
            display_float(64, (-0.0f64).to_bits().into()),
            "-0.0 (-0x0p+0)"
        );
        assert_eq!(
            display_float(64, 0.1f64.to_bits().into()),
            "0.1 (0x1.999999999999ap-4)"
        );
        assert_eq!(
            display_float(64, 1e300f64.to_bits().into()),
            "1e300 (0x1.7e43c8800759cp+996)"
        );
        assert_eq!(
            display_float(64, 1),
            "5e-324 (0x0.0000000000001p-1022, subnormal)"
        );
        assert_eq!(
            display_float(64, 0xFFF8_0000_0000_0000),
            "-NaN (0xfff8000000000000, payload 0x8000000000000)"
        );
        assert_eq!(display_float(64, f64::INFINITY.to_bits().into()), "inf");
        assert_eq!(
            display_float(32, 0.1f32.to_bits().into()),
            "0.1 (0x1.99999ap-4)"
        );
        assert_eq!(display_float(32, 1), "1e-45 (0x1p-149, subnormal)");
    }

    #[test]
    fn options_parse_and_reject_nonsense() {
        assert_eq!(FpEquality::parse_mode("ieee"), Ok(FpEquality::Ieee));
        assert!(FpEquality::parse_mode("close").is_err());
        assert_eq!(
            FpEquality::parse_tolerance("ulp:4"),
            Ok(FpEquality::Tolerance(Tolerance::Ulp(4)))
        );
        assert_eq!(
            FpEquality::parse_tolerance("rel:1e-12"),
            Ok(FpEquality::Tolerance(Tolerance::Rel(1e-12)))
        );
        for bad in [
            "ulp:-1", "abs:nan", "rel:-1", "abs", "near:1", "ulp:1.5", "abs:inf",
        ] {
            assert!(FpEquality::parse_tolerance(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn each_mode_says_when_two_floats_differ() {
        let pool = ExprPool::new();
        let d = |v: f64| pool.constant(64, u128::from(v.to_bits()));
        let differ = |mode: FpEquality, x: f64, y: f64| {
            pool.as_const(mode.differ(&pool, d(x), d(y))) == Some(1)
        };
        assert!(differ(FpEquality::Bits, 0.0, -0.0));
        assert!(!differ(FpEquality::Ieee, 0.0, -0.0));
        assert!(!differ(FpEquality::Ieee, f64::NAN, -f64::NAN));
        assert!(differ(FpEquality::Ieee, f64::NAN, 1.0));
        let ulp = FpEquality::Tolerance(Tolerance::Ulp(1));
        assert!(!differ(ulp, 1.0, f64::from_bits(1.0f64.to_bits() + 1)));
        assert!(differ(ulp, 1.0, f64::from_bits(1.0f64.to_bits() + 2)));
        assert!(!differ(ulp, f64::from_bits(1), -f64::from_bits(0)));
        assert!(differ(ulp, f64::MAX, f64::INFINITY));
        let rel = FpEquality::Tolerance(Tolerance::Rel(1e-12));
        assert!(!differ(rel, 1.0, 1.0 + 1e-13));
        assert!(differ(rel, 1.0, 1.0 + 1e-11));
        assert!(!differ(rel, f64::INFINITY, f64::INFINITY));
        let abs = FpEquality::Tolerance(Tolerance::Abs(0.5));
        assert!(!differ(abs, 1.0, 1.4));
        assert!(differ(abs, 1.0, 1.6));
    }
}
