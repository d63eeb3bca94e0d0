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
