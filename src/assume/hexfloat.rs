//! Hexadecimal floating literals (`0x1.8p+1`) rounded exactly to `float` or `double`.

/// The bit pattern of the `float` (`bits` 32) or `double` (64) nearest to the hexadecimal
/// number `int.frac` times 2^`exp`, ties to even, exactly however many digits it has;
/// `None` when it is too large for the format.
pub(super) fn round_hex(int: &str, frac: &str, exp: i64, bits: u32) -> Option<u128> {
    let (exp_bits, man_bits) = if bits == 32 { (8u32, 23u32) } else { (11, 52) };
    let precision = i64::from(man_bits) + 1;
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let emin = 1 - bias;
    // The value is `m * 2^e`, plus something less than one unit of `m` when `sticky`: the
    // first 30 significant digits (120 bits) exactly, the rest only as whether any is not 0.
    let (mut m, mut e, mut sticky, mut kept_digits) = (0u128, exp, false, 0);
    for (k, c) in int.chars().chain(frac.chars()).enumerate() {
        let d = u128::from(c.to_digit(16).unwrap_or(0));
        let in_fraction = k >= int.len();
        if m == 0 && d == 0 {
            e -= if in_fraction { 4 } else { 0 };
        } else if kept_digits < 30 {
            m = m << 4 | d;
            kept_digits += 1;
            e -= if in_fraction { 4 } else { 0 };
        } else {
            sticky |= d != 0;
            e += if in_fraction { 0 } else { 4 };
        }
    }
    if m == 0 {
        return Some(0);
    }
    // The value lies in [2^top, 2^(top+1)); `q` is the exponent of its last significand
    // bit in the format (fixed at the subnormals' below the normal range).
    let top = e + i64::from(127 - m.leading_zeros());
    let q = top.max(emin) - (precision - 1);
    let shift = q - e;
    let rounded = if shift <= 0 {
        m << -shift
    } else if shift > 120 {
        // Less than half of the smallest unit: rounds to zero.
        0
    } else {
        let kept = m >> shift;
        let rest = m & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        kept + u128::from(up)
    };
    // Rounding up to 2^precision moves to the next binade.
    let (significand, q) = if rounded >> precision != 0 {
        (rounded >> 1, q + 1)
    } else {
        (rounded, q)
    };
    let hidden = 1u128 << (precision - 1);
    if significand < hidden {
        // Zero or subnormal: the exponent field is 0.
        return Some(significand);
    }
    let biased = q + precision - 1 + bias;
    if biased >= (1 << exp_bits) - 1 {
        return None;
    }
    Some((biased as u128) << man_bits | (significand - hidden))
}
