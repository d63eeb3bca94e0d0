//! Sets of values as sorted, disjoint, inclusive unsigned intervals, and the set that a
//! comparison of a term with a constant allows for the term. The path condition
//! (`exec/constraints.rs`) keeps such sets per term; the solver's range layer reads bounds
//! from them.

use super::{mask, to_signed, BinOp, ExprId, ExprPool, Node};

/// Allowed values of a term: sorted, disjoint, inclusive unsigned intervals.
pub type Pieces = Vec<(u128, u128)>;

/// The term that the comparison `c` of a term with a constant constrains, and the values it
/// allows for that term (`None` when `c` is no such comparison).
pub fn comparison_pieces(pool: &ExprPool, c: ExprId) -> Option<(ExprId, Pieces)> {
    if let Node::FpCmp { op, lhs, rhs } = pool.node(c) {
        return float_comparison_pieces(pool, op, lhs, rhs);
    }
    let Node::Binary { op, lhs, rhs } = pool.node(c) else {
        return None;
    };
    if !op.is_comparison() {
        return None;
    }
    let w = pool.width(lhs);
    let max = mask(w, u128::MAX);
    let (k, t, const_left) = match (pool.as_const(lhs), pool.as_const(rhs)) {
        (Some(k), None) => (k, rhs, true),
        (None, Some(k)) => (k, lhs, false),
        _ => return None,
    };
    let smin = if w == 0 { 0 } else { 1u128 << (w - 1) };
    let pieces = match (op, const_left) {
        (BinOp::Eq, _) => vec![(k, k)],
        (BinOp::Ult, true) => {
            if k == max {
                vec![]
            } else {
                vec![(k + 1, max)]
            }
        }
        (BinOp::Ule, true) => vec![(k, max)],
        (BinOp::Ult, false) => {
            if k == 0 {
                vec![]
            } else {
                vec![(0, k - 1)]
            }
        }
        (BinOp::Ule, false) => vec![(0, k)],
        // Signed: t >s k, t >=s k, t <s k, t <=s k.
        (BinOp::Slt, true) => {
            if k == smin.wrapping_sub(1) & max {
                vec![]
            } else {
                signed_range(w, mask(w, k + 1), smin.wrapping_sub(1) & max)
            }
        }
        (BinOp::Sle, true) => signed_range(w, k, smin.wrapping_sub(1) & max),
        (BinOp::Slt, false) => {
            if k == smin {
                vec![]
            } else {
                signed_range(w, smin, mask(w, k.wrapping_sub(1)))
            }
        }
        (BinOp::Sle, false) => signed_range(w, smin, k),
        _ => return None,
    };
    Some((t, pieces))
}

/// The bit patterns of a `float` or `double` term that an ordered comparison with a
/// constant allows (false on NaN). In the unsigned order of bit patterns the positive
/// values run from +0 up to +inf and the negative ones from -0 up to -inf, so every such
/// set is at most two intervals: `x > 1.0` is `(bits(1.0), bits(+inf)]`, `x < 1.0` is
/// `[+0, bits(1.0))` with every negative value `[-0, -inf]`; ±0 are one value.
fn float_comparison_pieces(
    pool: &ExprPool,
    op: super::FpCmp,
    lhs: ExprId,
    rhs: ExprId,
) -> Option<(ExprId, Pieces)> {
    use super::FpCmp;
    let w = pool.width(lhs);
    if w != 32 && w != 64 {
        return None;
    }
    let (k, t, const_left) = match (pool.as_const(lhs), pool.as_const(rhs)) {
        (Some(k), None) => (k, rhs, true),
        (None, Some(k)) => (k, lhs, false),
        _ => return None,
    };
    let sign = 1u128 << (w - 1);
    let inf = super::fp_bits_of(w, f64::INFINITY);
    let magnitude = k & (sign - 1);
    if magnitude > inf {
        // A NaN constant: no ordered comparison holds.
        return Some((t, vec![]));
    }
    let zero = magnitude == 0;
    let negative = k & sign != 0 && !zero;
    let positives = (0, inf);
    let negatives = (sign, sign | inf);
    // The `x` with `x > k` (`strict`) or `x >= k`.
    let above = |strict: bool| -> Pieces {
        if zero {
            return if strict {
                vec![(1, inf)]
            } else {
                vec![positives, (sign, sign)]
            };
        }
        if negative {
            // Every positive value, and the negative ones smaller in magnitude.
            vec![positives, (sign, if strict { k - 1 } else { k })]
        } else if strict {
            if k == inf {
                vec![]
            } else {
                vec![(k + 1, inf)]
            }
        } else {
            vec![(k, inf)]
        }
    };
    // The `x` with `x < k` (`strict`) or `x <= k`.
    let below = |strict: bool| -> Pieces {
        if zero {
            return if strict {
                vec![(sign + 1, sign | inf)]
            } else {
                vec![(0, 0), negatives]
            };
        }
        if negative {
            let first = if strict { k + 1 } else { k };
            if first > (sign | inf) {
                vec![]
            } else {
                vec![(first, sign | inf)]
            }
        } else {
            vec![(0, if strict { k - 1 } else { k }), negatives]
        }
    };
    let pieces = match (op, const_left) {
        (FpCmp::Eq, _) if zero => vec![(0, 0), (sign, sign)],
        (FpCmp::Eq, _) => vec![(k, k)],
        // `k < x`, `k <= x`: `x` above `k`.
        (FpCmp::Lt, true) => above(true),
        (FpCmp::Le, true) => above(false),
        (FpCmp::Lt, false) => below(true),
        (FpCmp::Le, false) => below(false),
    };
    Some((t, normalize(pieces)))
}

/// Every value of `width` bits.
pub fn full(width: u32) -> Pieces {
    vec![(0, mask(width, u128::MAX))]
}

/// The unsigned pieces of the signed interval `[a, b]` (given as `w`-bit patterns, a ≤s b).
pub fn signed_range(w: u32, a: u128, b: u128) -> Pieces {
    let max = mask(w, u128::MAX);
    let (sa, sb) = (to_signed(w, a), to_signed(w, b));
    if sa > sb {
        return vec![];
    }
    if sa >= 0 || sb < 0 {
        vec![(a, b)]
    } else {
        normalize(vec![(a, max), (0, b)])
    }
}

/// `{ v - d : v ∈ pieces }` in `w` bits.
pub fn shift(pieces: &Pieces, d: u128, w: u32) -> Pieces {
    let max = mask(w, u128::MAX);
    let mut out = Vec::new();
    for &(lo, hi) in pieces {
        let (l, h) = (mask(w, lo.wrapping_sub(d)), mask(w, hi.wrapping_sub(d)));
        if l <= h {
            out.push((l, h));
        } else {
            out.push((l, max));
            out.push((0, h));
        }
    }
    normalize(out)
}

/// `v` sorted, with overlapping and adjacent intervals joined.
pub fn normalize(mut v: Pieces) -> Pieces {
    v.sort_unstable();
    let mut out: Pieces = Vec::with_capacity(v.len());
    for (lo, hi) in v {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// The values up to `max` that `p` leaves out.
pub fn complement(p: &Pieces, max: u128) -> Pieces {
    let mut out = Vec::new();
    let mut next = 0u128;
    let mut done = false;
    for &(lo, hi) in p {
        if lo > next {
            out.push((next, lo - 1));
        }
        if hi == max {
            done = true;
            break;
        }
        next = hi + 1;
    }
    if !done {
        out.push((next, max));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{fold_fp_cmp, fp_bits_of, FpCmp, Sort};

    // Float comparisons with a constant as sets of bit patterns: membership agrees with the
    // concrete comparison on the edges of the format and on random patterns, for constants
    // at every edge (±0, subnormals, ±inf, NaNs) and random ones, in both operand orders.
    #[test]
    fn float_comparisons_with_a_constant_are_the_bit_patterns_they_allow() {
        for w in [32u32, 64] {
            let sign = 1u128 << (w - 1);
            let inf = if w == 32 {
                0x7f80_0000u128
            } else {
                0x7ff0_0000_0000_0000
            };
            let max = mask(w, u128::MAX);
            let mut edges = vec![0, 1, 2, inf - 1, inf, inf + 1, sign - 1];
            let negated: Vec<u128> = edges.iter().map(|e| e | sign).collect();
            edges.extend(negated);
            edges.extend([fp_bits_of(w, 1.0), fp_bits_of(w, -0.25)]);
            let mut seed = 0x243F_6A88_85A3_08D3u64;
            let mut random = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                u128::from(seed) & max
            };
            let constants: Vec<u128> = edges
                .iter()
                .copied()
                .chain((0..20).map(|_| random()))
                .collect();
            let values: Vec<u128> = edges
                .iter()
                .copied()
                .chain((0..300).map(|_| random()))
                .collect();
            let pool = ExprPool::new();
            let a = pool.new_array("x", w / 8);
            let x = (1..w / 8).fold(pool.sym(a, 0), |acc, i| pool.concat(pool.sym(a, i), acc));
            for &k in &constants {
                let kc = pool.constant(w, k);
                for op in [FpCmp::Eq, FpCmp::Lt, FpCmp::Le] {
                    for const_left in [true, false] {
                        let (lhs, rhs) = if const_left { (kc, x) } else { (x, kc) };
                        let c = pool.intern(Node::FpCmp { op, lhs, rhs }, Sort::Bv(1));
                        let Some((t, pieces)) = comparison_pieces(&pool, c) else {
                            panic!("no pieces for {op:?} {k:#x}");
                        };
                        assert_eq!(t, x);
                        let near = [k, mask(w, k.wrapping_add(1)), mask(w, k.wrapping_sub(1))];
                        for &v in values.iter().chain(&near) {
                            let inside = pieces.iter().any(|&(lo, hi)| lo <= v && v <= hi);
                            let holds = if const_left {
                                fold_fp_cmp(op, w, k, v)
                            } else {
                                fold_fp_cmp(op, w, v, k)
                            };
                            assert_eq!(
                                inside, holds,
                                "w{w} {op:?} k={k:#x} const left {const_left} v={v:#x}"
                            );
                        }
                    }
                }
            }
        }
    }
}
