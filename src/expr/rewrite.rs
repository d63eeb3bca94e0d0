//! Rewrites of the simplifying constructors that look deeper than one node: sums sorted
//! into one shape, minima and maxima of several values as one tree, Kernighan's
//! cleared-bits test as a popcount bound, the branch-free select idiom, the SWAR popcount
//! as the popcount tree,
//! and the cheap bit-level facts (a clear
//! sign bit, the significant width) that let division narrow. `build.rs` calls them; each
//! looks a bounded distance into its operands, so building a node stays cheap.

use super::{mask, BinOp, ExprId, ExprPool, Node, Sort, UnOp, Width};

/// Most terms of a sum that is kept sorted; longer sums are left as built, so that building
/// one costs at most this much.
const CHAIN_LIMIT: usize = 32;

/// Levels of structure that order the terms of a sum.
const KEY_DEPTH: u32 = 3;

/// Levels below a multiplication searched for the input of a SWAR popcount.
const SWAR_DEPTH: usize = 8;

/// Which of the four minima and maxima an `ite` computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MinMax {
    signed: bool,
    max: bool,
}

impl ExprPool {
    /// The operands of the chain of `op` rooted at `e`, appended to `out`; `false` when
    /// there are more than [`CHAIN_LIMIT`] (then `out` is incomplete). A node of `op`
    /// whose left operand is a constant is an operand itself: constants stay outside chains.
    pub(super) fn chain_terms(&self, op: BinOp, e: ExprId, out: &mut Vec<ExprId>) -> bool {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match self.node(e) {
                Node::Binary { op: o, lhs, rhs } if o == op && self.as_const(lhs).is_none() => {
                    stack.push(rhs);
                    stack.push(lhs);
                }
                _ => out.push(e),
            }
            if out.len() + stack.len() > CHAIN_LIMIT {
                return false;
            }
        }
        true
    }

    /// `a + b` when either operand is itself a sum: the terms of both, sorted by structure
    /// and nested to the right, so that sums of the same terms are the same expression
    /// whatever order and grouping they were computed in. `None` when neither is a sum, or
    /// the sum would have more than [`CHAIN_LIMIT`] terms (then it is kept as built).
    pub(super) fn normalize_sum(&self, w: Width, a: ExprId, b: ExprId) -> Option<ExprId> {
        let op = BinOp::Add;
        let is_chain = |e: ExprId| {
            matches!(self.node(e), Node::Binary { op: o, lhs, .. }
                if o == op && self.as_const(lhs).is_none())
        };
        if !is_chain(a) && !is_chain(b) {
            return None;
        }
        let mut terms = Vec::new();
        if !self.chain_terms(op, a, &mut terms) || !self.chain_terms(op, b, &mut terms) {
            return None;
        }
        if let Some(count) = self.sum_of_all_bits(w, &terms) {
            return Some(count);
        }
        // Sorted by structure, not by id: ids depend on the order in which parallel
        // workers built expressions, and the sum's shape must not (it shapes the solver's
        // models, hence the tests written). Equal keys fall back to ids.
        let mut keyed: Vec<(u64, ExprId)> = terms
            .iter()
            .map(|&t| (self.structural_key(t, KEY_DEPTH), t))
            .collect();
        keyed.sort_unstable();
        let terms: Vec<ExprId> = keyed.into_iter().map(|(_, t)| t).collect();
        // At least three terms: a sum and another term, or two sums.
        let n = terms.len();
        let innermost = self.binary(op, terms[n - 2], terms[n - 1]);
        // The rest is built without the constructors: every suffix of a sorted sum is
        // canonical already.
        Some(terms[..n - 2].iter().rev().fold(innermost, |acc, &t| {
            self.intern(
                Node::Binary {
                    op,
                    lhs: t,
                    rhs: acc,
                },
                Sort::Bv(w),
            )
        }))
    }

    /// A sum whose terms are every bit of one value `x`, each `i` once, whatever their
    /// spelling (`zext(x[i])`, `(x >> i) & 1`, `x & 1`, `x >> 31`, `(x & 8) >> 3`, …: a term
    /// whose other bits are known zero and whose bit 0 is bit `i` of `x`): `popcount(x)`,
    /// as the tree of pairwise sums. Sorted, such a sum is a chain of one addition per bit
    /// in an order unrelated to the bits, which the solver cannot relate to another popcount
    /// (a 32-term loop against SWAR stayed undecided for minutes); the tree is exact and is
    /// what SWAR computes.
    fn sum_of_all_bits(&self, w: Width, terms: &[ExprId]) -> Option<ExprId> {
        let bit = |t: ExprId| -> Option<(ExprId, u32)> {
            // Only bit 0 may be set.
            let known = self.known_bits(t);
            if known.mask & !known.value & mask(w, !1) != mask(w, !1) {
                return None;
            }
            let (x, i) = self.bit_source(t, 0);
            (x != t).then_some((x, i))
        };
        let (x, _) = bit(*terms.first()?)?;
        let n = self.width(x);
        if terms.len() != n as usize || !n.is_power_of_two() || n < 2 || n > w {
            return None;
        }
        let mut seen = vec![false; n as usize];
        for &t in terms {
            let (y, i) = bit(t)?;
            if y != x || i >= n || std::mem::replace(&mut seen[i as usize], true) {
                return None;
            }
        }
        let count = self.popcount(x);
        Some(if n == w { count } else { self.zext(count, w) })
    }

    /// The value and bit that bit `j` of `e` copies, through shifts and extractions by
    /// constants, masks that keep the bit, and extensions below their top: `(e, j)` itself
    /// when no such operator is on top. A concatenation is a value of its own here (an
    /// input word is the concatenation of its bytes, and its bits must stay its bits).
    fn bit_source(&self, e: ExprId, j: u32) -> (ExprId, u32) {
        let (mut e, mut j) = (e, j);
        loop {
            let next = match self.node(e) {
                Node::ZExt { arg, .. } | Node::SExt { arg, .. } if j < self.width(arg) => {
                    Some((arg, j))
                }
                Node::Extract { arg, lo, .. } => Some((arg, lo + j)),
                Node::Binary { op, lhs, rhs } => {
                    let k = self.as_const(rhs).and_then(|k| u32::try_from(k).ok());
                    let w = self.width(e);
                    match (op, k) {
                        (BinOp::LShr, Some(k)) if j + k < w => Some((lhs, j + k)),
                        (BinOp::Shl, Some(k)) if j >= k => Some((lhs, j - k)),
                        (BinOp::And, _) => {
                            // The mask keeps bit `j`: the other operand's bit.
                            match (self.as_const(lhs), self.as_const(rhs)) {
                                (Some(m), None) if m >> j & 1 == 1 => Some((rhs, j)),
                                (None, Some(m)) if m >> j & 1 == 1 => Some((lhs, j)),
                                _ => None,
                            }
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            match next {
                Some(n) => (e, j) = n,
                None => return (e, j),
            }
        }
    }

    /// The number of set bits of `x` (whose width is a power of two, at least 2) as the
    /// logarithmic tree of pairwise sums: fields of 1, 2, 4… bits added in place (SWAR).
    pub fn popcount(&self, x: ExprId) -> ExprId {
        let w = self.width(x);
        debug_assert!(w.is_power_of_two() && w >= 2);
        let mut acc = x;
        let mut span = 1;
        while span < w {
            // Every other field of `span` bits: 0x55…, 0x33…, 0x0f0f….
            let mask =
                (0..w / (2 * span)).fold(0u128, |m, k| m | ((1u128 << span) - 1) << (2 * span * k));
            let m = self.constant(w, mask);
            let high = self.lshr(acc, self.constant(w, span as u128));
            acc = self.add(self.and(acc, m), self.and(high, m));
            span *= 2;
        }
        acc
    }

    /// `popcount(x) <= k` when `e` is `x` with its lowest set bit cleared `k` times
    /// (`y & (y - 1)` nested `k ≥ 2` deep, Kernighan's loop) and `e == 0` is being built:
    /// clearing the lowest set bit `k` times leaves zero exactly when `x` has at most `k`
    /// set bits. Kernighan's loop ends on path `k` with `k` such tests, which the solver
    /// relates to another popcount only by bit-blasting `k` borrow chains (the corpus pair
    /// against SWAR asked 33 such questions at up to 150 ms each); as bounds on one
    /// popcount they are ranges of one expression, which the path condition and the range
    /// layer decide without the solver. LLVM's loop-idiom pass recognizes the same loop as
    /// `ctpop`. `None` for other expressions and for widths that are not a power of two.
    pub(super) fn cleared_bits_are_zero(&self, e: ExprId) -> Option<ExprId> {
        let w = self.width(e);
        if !w.is_power_of_two() || w < 2 {
            return None;
        }
        let minus_one = mask(w, u128::MAX);
        // Whether `d` is `y - 1` (built as `-1 + y`).
        let decrement_of = |d: ExprId, y: ExprId| {
            matches!(self.node(d), Node::Binary { op: BinOp::Add, lhs, rhs }
                if rhs == y && self.as_const(lhs) == Some(minus_one))
        };
        let (mut x, mut k) = (e, 0u32);
        while let Node::Binary {
            op: BinOp::And,
            lhs,
            rhs,
        } = self.node(x)
        {
            x = if decrement_of(rhs, lhs) {
                lhs
            } else if decrement_of(lhs, rhs) {
                rhs
            } else {
                break;
            };
            k += 1;
        }
        // One clearing is left as written: `y & (y - 1) == 0` (at most one bit set) is
        // cheaper to bit-blast than a popcount tree, and the range layer reads it as such
        // (a remainder by `y` is then a mask).
        if k < 2 {
            return None;
        }
        Some(if k >= w {
            self.true_()
        } else {
            self.ule(self.popcount(x), self.constant(w, u128::from(k)))
        })
    }

    /// The popcount of `x` when `m >> (w - 8)` (the shift being built) is the SWAR popcount
    /// of `x` as C code writes it: `x - ((x >> 1) & 0x55…)` (or the sum
    /// `(x & 0x55…) + ((x >> 1) & 0x55…)`), then `(x & 0x33…) + ((x >> 2) & 0x33…)`, then
    /// `(x + (x >> 4)) & 0x0f0f…`, whose bytes are summed into the top byte by a
    /// multiplication with `0x0101…`. The result is [`ExprPool::popcount`]'s tree, which is
    /// what LLVM makes of this code at -O2 (`ctpop`) and what the solver decides several
    /// times faster: the subtraction and the multiplier leave carry chains to bit-blast.
    /// Recognized by building the idiom from each `X` of a `X >> 1` below `m` and comparing
    /// the node (hash-consing makes equal constructions one node), for widths 32 and 64.
    pub(super) fn swar_popcount(&self, w: Width, m: ExprId) -> Option<ExprId> {
        if w != 32 && w != 64 {
            return None;
        }
        let every = |byte: u128| (0..w / 8).fold(0u128, |acc, k| acc | byte << (8 * k));
        let (ones, bytes) = (every(0x01), every(0x0f));
        let Node::Binary {
            op: BinOp::Mul,
            lhs,
            rhs: sums,
        } = self.node(m)
        else {
            return None;
        };
        if self.as_const(lhs) != Some(ones) {
            return None;
        }
        // The candidates: every `X` of an `X >> 1` a few levels below the multiplication.
        let mut candidates = Vec::new();
        let mut level = vec![sums];
        for _ in 0..SWAR_DEPTH {
            let mut next = Vec::new();
            for e in level {
                if let Node::Binary { op, lhs, rhs } = self.node(e) {
                    if op == BinOp::LShr && self.as_const(rhs) == Some(1) {
                        candidates.push(lhs);
                    }
                    next.extend([lhs, rhs]);
                }
            }
            level = next;
        }
        candidates.sort_unstable();
        candidates.dedup();
        let k = |v: u128| self.constant(w, v);
        let (m1, m2) = (k(every(0x55)), k(every(0x33)));
        for x in candidates {
            let half = self.and(self.lshr(x, k(1)), m1);
            for pairs in [self.sub(x, half), self.add(self.and(x, m1), half)] {
                let quads = self.add(self.and(pairs, m2), self.and(self.lshr(pairs, k(2)), m2));
                let nibbles = self.and(self.add(quads, self.lshr(quads, k(4))), k(bytes));
                if self.mul(k(ones), nibbles) == m {
                    return Some(self.popcount(x));
                }
            }
        }
        None
    }

    /// The kind and operands of `ite(cond, then, els)` when it is a minimum or maximum of
    /// two values: `cond` is `a < b` or `a <= b` (signed or unsigned) and the arms are `a`
    /// and `b`, the larger (`b` when `cond`) for a maximum, the smaller for a minimum. Ties
    /// give equal values either way, so both comparisons mean the same.
    fn min_max_of(
        &self,
        cond: ExprId,
        then: ExprId,
        els: ExprId,
    ) -> Option<(MinMax, ExprId, ExprId)> {
        let Node::Binary { op, lhs, rhs } = self.node(cond) else {
            return None;
        };
        let signed = match op {
            BinOp::Slt | BinOp::Sle => true,
            BinOp::Ult | BinOp::Ule => false,
            _ => return None,
        };
        let max = if (then, els) == (rhs, lhs) {
            true
        } else if (then, els) == (lhs, rhs) {
            false
        } else {
            return None;
        };
        Some((MinMax { signed, max }, lhs, rhs))
    }

    /// A minimum or maximum (`ite(cond, then, els)`, see `min_max_of`) of values that are
    /// themselves such minima or maxima of the same kind, as one canonical tree: the
    /// operands of the whole tree, without repeats, in the order of the inputs they read
    /// (then by structure), paired level by level, `op(op(t0, t1), op(t2, t3))`, each pair
    /// `ite(a < b, b, a)` for a maximum (`ite(a < b, a, b)` for a minimum). So the linear
    /// scan LLVM's `vector.reduce.smax` makes and a tournament of branch-free maxima are one
    /// expression, and the solver is not asked whether they differ. `None` when `ite` is no
    /// minimum or maximum, has fewer than three distinct operands, or more than
    /// [`CHAIN_LIMIT`].
    pub(super) fn min_max_chain(&self, cond: ExprId, then: ExprId, els: ExprId) -> Option<ExprId> {
        let (kind, a, b) = self.min_max_of(cond, then, els)?;
        let mut terms = Vec::new();
        let mut stack = vec![b, a];
        while let Some(e) = stack.pop() {
            match self.node(e) {
                Node::Ite { cond, then, els } => match self.min_max_of(cond, then, els) {
                    Some((k, x, y)) if k == kind => stack.extend([y, x]),
                    _ => terms.push(e),
                },
                _ => terms.push(e),
            }
            if terms.len() + stack.len() > CHAIN_LIMIT {
                return None;
            }
        }
        // Two values are left as built: their two orders are the only shapes, which the
        // solver relates at once (measured: clamp's `min(max(x, lo), hi)` took the solver 9 ms
        // as built and 4 or 25 ms, by address layout, reordered). Counted before any key is
        // computed: most minima and maxima the interpreter builds are of two values.
        terms.sort_unstable();
        terms.dedup();
        if terms.len() < 3 {
            return None;
        }
        // In the order of the inputs they read (the program's order: `a[0]`, `a[1]`, …),
        // then by structure, so that the tree below pairs neighbours as source code does.
        let mut keyed: Vec<((u32, u32), u64, ExprId)> = terms
            .iter()
            .map(|&t| {
                let first = self
                    .first_input_byte(t, KEY_DEPTH + 3)
                    .unwrap_or((u32::MAX, 0));
                (first, self.structural_key(t, KEY_DEPTH), t)
            })
            .collect();
        keyed.sort_unstable();
        let terms: Vec<ExprId> = keyed.into_iter().map(|(_, _, t)| t).collect();
        let sort = self.sort(then);
        let step = |acc: ExprId, t: ExprId| -> ExprId {
            let less = if kind.signed {
                self.slt(acc, t)
            } else {
                self.ult(acc, t)
            };
            let (then, els) = if kind.max { (t, acc) } else { (acc, t) };
            match self.as_const(less) {
                Some(c) => {
                    if c != 0 {
                        then
                    } else {
                        els
                    }
                }
                None => self.intern(
                    Node::Ite {
                        cond: less,
                        then,
                        els,
                    },
                    sort,
                ),
            }
        };
        // A balanced tree of pairs, level by level: shallower for the solver than a chain.
        let mut level = terms;
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|p| if p.len() == 2 { step(p[0], p[1]) } else { p[0] })
                .collect();
        }
        Some(level[0])
    }

    /// The condition `c` when `m` is all ones exactly when `c` holds: `-zext(c)` or
    /// `sext(c)` of a one-bit `c`.
    pub(super) fn mask_of_condition(&self, m: ExprId) -> Option<ExprId> {
        let arg = match self.node(m) {
            Node::Unary { op: UnOp::Neg, arg } => match self.node(arg) {
                Node::ZExt { arg, .. } => arg,
                _ => return None,
            },
            Node::SExt { arg, .. } => arg,
            _ => return None,
        };
        (self.width(arg) == 1).then_some(arg)
    }

    /// The branch-free select `x ^ ((x ^ y) & -c)` (in any operand order) as `ite(c, y, x)`:
    /// the mask is all ones when `c` holds, which gives `y`, and zero otherwise, which gives
    /// `x`.
    pub(super) fn branchless_select(&self, a: ExprId, b: ExprId) -> Option<ExprId> {
        for (x, masked) in [(a, b), (b, a)] {
            let Node::Binary {
                op: BinOp::And,
                lhs,
                rhs,
            } = self.node(masked)
            else {
                continue;
            };
            for (diff, mask) in [(lhs, rhs), (rhs, lhs)] {
                let Some(c) = self.mask_of_condition(mask) else {
                    continue;
                };
                if let Node::Binary {
                    op: BinOp::Xor,
                    lhs: p,
                    rhs: q,
                } = self.node(diff)
                {
                    if p == x {
                        return Some(self.ite(c, q, x));
                    }
                    if q == x {
                        return Some(self.ite(c, p, x));
                    }
                }
            }
        }
        None
    }

    /// The first input byte (array, offset) among the leaves of the top `depth` levels of
    /// `e`, if any.
    fn first_input_byte(&self, e: ExprId, depth: u32) -> Option<(u32, u32)> {
        match self.node(e) {
            Node::Sym { array, offset } => Some((array.0, offset)),
            node if depth > 0 => super::eval::children(node)
                .filter_map(|c| self.first_input_byte(c, depth - 1))
                .min(),
            _ => None,
        }
    }

    /// A hash of the top `depth` levels of `e`'s structure that does not depend on ids.
    pub(super) fn structural_key(&self, e: ExprId, depth: u32) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        let node = self.node(e);
        std::mem::discriminant(&node).hash(&mut h);
        self.width(e).hash(&mut h);
        match node {
            Node::Const { value, .. } => value.hash(&mut h),
            Node::Sym { array, offset } => (array.0, offset).hash(&mut h),
            Node::Unary { op, .. } => (op as u8).hash(&mut h),
            Node::Binary { op, .. } => (op as u8).hash(&mut h),
            Node::Extract { lo, .. } => lo.hash(&mut h),
            Node::ArrayConst { value } => value.hash(&mut h),
            _ => {}
        }
        if depth > 0 {
            for c in super::eval::children(node) {
                self.structural_key(c, depth - 1).hash(&mut h);
            }
        }
        h.finish()
    }

    /// Whether the most significant bit of `e` is 0 under every assignment (looking at most
    /// a few operators deep, so that the cost stays constant on large DAGs).
    pub(super) fn sign_bit_clear(&self, e: ExprId) -> bool {
        self.sign_bit_clear_within(e, 4)
    }

    pub(super) fn sign_bit_clear_within(&self, e: ExprId, depth: u32) -> bool {
        let w = self.width(e);
        let deeper = |x: ExprId| depth > 0 && self.sign_bit_clear_within(x, depth - 1);
        match self.node(e) {
            Node::Const { value, .. } => value >> (w - 1) == 0,
            Node::ZExt { arg, .. } => self.width(arg) < w,
            Node::Binary { op, lhs, rhs } => match op {
                BinOp::And => deeper(lhs) || deeper(rhs),
                BinOp::Or => deeper(lhs) && deeper(rhs),
                // x % y is x when y = 0, and below y otherwise.
                BinOp::URem => deeper(lhs),
                BinOp::LShr => self.as_const(rhs).is_some_and(|n| n > 0),
                _ => false,
            },
            _ => false,
        }
    }

    /// The fewest low bits of `e` that hold its value when the rest are known zero: the
    /// width before a zero extension, the length of a constant, otherwise all of them.
    pub(super) fn significant_width(&self, e: ExprId) -> Width {
        match self.node(e) {
            Node::ZExt { arg, .. } => self.width(arg),
            Node::Const { value, .. } => (128 - value.leading_zeros()).max(1),
            _ => self.width(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::mask;

    fn bytes(pool: &ExprPool, n: u32) -> Vec<ExprId> {
        let a = pool.new_array("x", n);
        (0..n).map(|i| pool.zext(pool.sym(a, i), 32)).collect()
    }

    #[test]
    fn sums_of_the_same_terms_are_one_expression_whatever_the_order() {
        let pool = ExprPool::new();
        let t = bytes(&pool, 4);
        let left = pool.add(pool.add(pool.add(t[0], t[1]), t[2]), t[3]);
        let right = pool.add(t[3], pool.add(t[1], pool.add(t[2], t[0])));
        let paired = pool.add(pool.add(t[2], t[3]), pool.add(t[0], t[1]));
        assert_eq!(left, right);
        assert_eq!(left, paired);
    }

    #[test]
    fn a_constant_stays_outside_the_sorted_chain() {
        let pool = ExprPool::new();
        let t = bytes(&pool, 3);
        let c = pool.constant(32, 7);
        let one = pool.add(c, pool.add(t[0], pool.add(t[1], t[2])));
        let two = pool.add(pool.add(t[2], c), pool.add(t[1], t[0]));
        assert_eq!(one, two);
        // The constant is the left operand of the outermost add, which makes that node a
        // term of its own: a chain never has a constant among its terms.
        let Node::Binary { lhs, rhs, .. } = pool.node(one) else {
            panic!("not an add: {}", pool.to_sexp(one));
        };
        assert_eq!(lhs, c);
        let mut terms = Vec::new();
        assert!(pool.chain_terms(BinOp::Add, one, &mut terms));
        assert_eq!(terms, [one]);
        terms.clear();
        assert!(pool.chain_terms(BinOp::Add, rhs, &mut terms));
        assert_eq!(terms.len(), 3);
    }

    #[test]
    fn chains_longer_than_the_limit_are_left_as_built() {
        let pool = ExprPool::new();
        let t = bytes(&pool, CHAIN_LIMIT as u32 + 2);
        let forward = t[1..].iter().fold(t[0], |acc, &x| pool.add(acc, x));
        let backward = t[..t.len() - 1]
            .iter()
            .rev()
            .fold(t[t.len() - 1], |acc, &x| pool.add(acc, x));
        let mut terms = Vec::new();
        assert!(!pool.chain_terms(BinOp::Add, forward, &mut terms));
        // Past the limit the sums are not normalized, so the two orders differ.
        assert_ne!(forward, backward);
    }

    // See: #11, never slower than KLEE: a sum of every bit of a value is its popcount tree,
    // whatever the order and form of its terms, and the tree counts exactly.
    #[test]
    fn a_sum_of_every_bit_is_the_popcount_tree() {
        let pool = ExprPool::new();
        let a = pool.new_array("x", 4);
        let x = (1..4).fold(pool.zext(pool.sym(a, 0), 32), |acc, i| {
            let byte = pool.zext(pool.sym(a, i), 32);
            pool.or(acc, pool.shl(byte, pool.constant(32, 8 * i as u128)))
        });
        let one = pool.constant(32, 1);
        let shifted = (0..32).fold(pool.constant(32, 0), |acc, i| {
            let b = pool.and(pool.lshr(x, pool.constant(32, i)), one);
            pool.add(acc, b)
        });
        let extracted = (0..32).rev().fold(pool.constant(32, 0), |acc, i| {
            pool.add(pool.zext(pool.extract(x, i, 1), 32), acc)
        });
        assert_eq!(shifted, pool.popcount(x));
        assert_eq!(extracted, pool.popcount(x));
        // The spellings -O2 leaves after unrolling, mixed in one sum: `x & 1` (no shift),
        // `x >> 31` (no mask), `(x & 2^i) >> i`, `(x << (31 - i)) >> 31`.
        let k = |v: u32| pool.constant(32, u128::from(v));
        let mixed = (0..32u32).fold(pool.constant(32, 0), |acc, i| {
            let b = match i % 4 {
                _ if i == 0 => pool.and(x, one),
                _ if i == 31 => pool.lshr(x, k(31)),
                0 => pool.lshr(pool.and(x, k(1 << i)), k(i)),
                1 => pool.lshr(pool.shl(x, k(31 - i)), k(31)),
                _ => pool.and(pool.lshr(x, k(i)), one),
            };
            pool.add(b, acc)
        });
        assert_eq!(mixed, pool.popcount(x));
        // A term with another bit possibly set is not a bit: `(x >> 30)` is two.
        let wide = (0..31u32).fold(pool.lshr(x, k(30)), |acc, i| {
            pool.add(acc, pool.and(pool.lshr(x, k(i)), one))
        });
        assert_ne!(wide, pool.popcount(x));
        // 31 of the 32 bits, or one bit twice, is not a popcount.
        let partial = (0..31).fold(pool.constant(32, 0), |acc, i| {
            pool.add(acc, pool.zext(pool.extract(x, i, 1), 32))
        });
        assert_ne!(partial, pool.popcount(x));
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = (rng >> 16) as u32;
            let mut model = crate::expr::Assignment::new();
            model.set(a, v.to_le_bytes().to_vec());
            assert_eq!(
                pool.eval(pool.popcount(x), &model),
                v.count_ones() as u128,
                "{v:#x}"
            );
        }
    }

    // See: #11, the corpus's popcount (Kernighan against SWAR): testing the value left after
    // clearing the lowest set bit k times against zero is a bound on one popcount, and the
    // bound means exactly what the test means, on every 8-bit value and every depth.
    #[test]
    fn clearing_the_lowest_bit_k_times_leaves_zero_when_at_most_k_bits_are_set() {
        let pool = ExprPool::new();
        let a = pool.new_array("x", 1);
        let x = pool.sym(a, 0);
        let minus_one = pool.constant(8, 0xff);
        let zero = pool.constant(8, 0);
        let mut cleared = x;
        for k in 1..=9u32 {
            // One clearing stays as written (the range layer reads `y & (y - 1) == 0`).
            // Both operand orders of the `and` and of the decrement, as LLVM writes them.
            cleared = if k % 2 == 0 {
                pool.and(cleared, pool.add(cleared, minus_one))
            } else {
                pool.and(pool.add(minus_one, cleared), cleared)
            };
            let test = pool.eq(cleared, zero);
            if k == 1 {
                assert!(
                    matches!(pool.node(test), Node::Binary { op: BinOp::Eq, .. }),
                    "{}",
                    pool.to_sexp(test)
                );
            } else if k < 8 {
                assert_eq!(
                    test,
                    pool.ule(pool.popcount(x), pool.constant(8, u128::from(k))),
                    "depth {k}"
                );
            } else {
                assert_eq!(test, pool.true_(), "depth {k}");
            }
            for v in 0..=255u8 {
                let mut model = crate::expr::Assignment::new();
                model.set(a, vec![v]);
                let mut y = v;
                for _ in 0..k {
                    y &= y.wrapping_sub(1);
                }
                assert_eq!(
                    pool.eval(test, &model),
                    u128::from(y == 0),
                    "{v:#x} depth {k}"
                );
            }
        }
        // Another decrement, or a mask of two values, is not the idiom.
        let b = pool.new_array("y", 1);
        let y = pool.sym(b, 0);
        let other = pool.and(x, pool.add(pool.constant(8, 0xfe), x));
        let mixed = pool.and(x, pool.add(minus_one, y));
        for e in [other, mixed] {
            assert!(
                matches!(
                    pool.node(pool.eq(e, zero)),
                    Node::Binary { op: BinOp::Eq, .. }
                ),
                "{}",
                pool.to_sexp(e)
            );
        }
    }

    // See: #11, min/max query shapes: a linear scan (LLVM's `vector.reduce.smax`: `smax(x,
    // y)` is `ite(y < x, x, y)`) and a tournament of branch-free maxima (`ite(x < y, y, x)`)
    // of the same four values are one expression, for each of the four kinds; every shape
    // computes what it says on random inputs; other kinds inside stay terms.
    #[test]
    fn minima_and_maxima_of_the_same_values_are_one_expression_whatever_the_shape() {
        let pool = ExprPool::new();
        let a = pool.new_array("v", 4);
        let v: Vec<ExprId> = (0..4).map(|i| pool.sym(a, i)).collect();
        type Pick = fn(&ExprPool, ExprId, ExprId) -> ExprId;
        type Kind = (Pick, Pick, fn(u8, u8) -> u8);
        let kinds: [Kind; 4] = [
            (
                |p, x, y| p.ite(p.slt(y, x), x, y),
                |p, x, y| p.ite(p.slt(x, y), y, x),
                |x, y| (x as i8).max(y as i8) as u8,
            ),
            (
                |p, x, y| p.ite(p.slt(x, y), x, y),
                |p, x, y| p.ite(p.sle(y, x), y, x),
                |x, y| (x as i8).min(y as i8) as u8,
            ),
            (
                |p, x, y| p.ite(p.ult(y, x), x, y),
                |p, x, y| p.ite(p.ule(x, y), y, x),
                |x, y| x.max(y),
            ),
            (
                |p, x, y| p.ite(p.ult(x, y), x, y),
                |p, x, y| p.ite(p.ult(y, x), y, x),
                |x, y| x.min(y),
            ),
        ];
        for (scan_step, pair, reference) in kinds {
            let scan = v[1..].iter().fold(v[0], |acc, &x| scan_step(&pool, acc, x));
            let tournament = pair(&pool, pair(&pool, v[0], v[1]), pair(&pool, v[2], v[3]));
            let reversed = pair(&pool, v[3], pair(&pool, v[2], pair(&pool, v[1], v[0])));
            assert_eq!(scan, tournament);
            assert_eq!(scan, reversed);
            assert_eq!(pair(&pool, scan, v[2]), scan, "a repeated value");
            // Two values stay as built.
            assert_ne!(scan_step(&pool, v[0], v[1]), pair(&pool, v[0], v[1]));
            let mut seed = 0x9E37_79B9u64;
            for _ in 0..300 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let bytes = seed.to_le_bytes()[..4].to_vec();
                let mut model = crate::expr::Assignment::new();
                model.set(a, bytes.clone());
                let expected = bytes[1..].iter().fold(bytes[0], |m, &x| reference(m, x));
                assert_eq!(pool.eval(scan, &model), u128::from(expected), "{bytes:?}");
            }
        }
        // A maximum of minima keeps the minima as its terms.
        let min01 = pool.ite(pool.slt(v[0], v[1]), v[0], v[1]);
        let max = pool.ite(pool.slt(min01, v[2]), v[2], min01);
        let Node::Ite { cond, then, els } = pool.node(max) else {
            panic!("{}", pool.to_sexp(max));
        };
        assert!([then, els].contains(&min01) && [then, els].contains(&v[2]));
        assert!(matches!(
            pool.node(cond),
            Node::Binary { op: BinOp::Slt, .. }
        ));
    }

    #[test]
    fn the_branch_free_select_idiom_is_an_ite() {
        let pool = ExprPool::new();
        let a = pool.new_array("v", 9);
        let x = pool.zext(pool.sym(a, 0), 32);
        let y = pool.zext(pool.sym(a, 1), 32);
        let c = pool.eq(pool.sym(a, 2), pool.constant(8, 0));
        let mask = pool.neg(pool.zext(c, 32));
        let idiom = pool.xor(x, pool.and(pool.xor(x, y), mask));
        assert_eq!(idiom, pool.ite(c, y, x));
        let sext_mask = pool.sext(c, 32);
        let swapped = pool.xor(pool.and(sext_mask, pool.xor(y, x)), x);
        assert_eq!(swapped, pool.ite(c, y, x));
    }

    #[test]
    fn only_masks_of_one_bit_conditions_are_conditions() {
        let pool = ExprPool::new();
        let a = pool.new_array("v", 2);
        let byte = pool.sym(a, 0);
        let c = pool.eq(byte, pool.constant(8, 3));
        assert_eq!(pool.mask_of_condition(pool.sext(c, 32)), Some(c));
        assert_eq!(pool.mask_of_condition(pool.sext(byte, 32)), None);
        assert_eq!(pool.mask_of_condition(pool.neg(pool.zext(byte, 32))), None);
    }

    /// The SWAR popcount of `x` as C writes it (the first step as a difference, or as a sum
    /// when `sum`), built in the interpreter's order; `shift` is the final shift (`w - 8`
    /// makes the idiom).
    fn swar(pool: &ExprPool, x: ExprId, sum: bool, bytes_mask: u128, shift: u128) -> ExprId {
        let w = pool.width(x);
        let every = |byte: u128| (0..w / 8).fold(0u128, |acc, k| acc | byte << (8 * k));
        let k = |v: u128| pool.constant(w, v);
        let half = pool.and(pool.lshr(x, k(1)), k(every(0x55)));
        let pairs = if sum {
            pool.add(pool.and(x, k(every(0x55))), half)
        } else {
            pool.sub(x, half)
        };
        let quads = pool.add(
            pool.and(pairs, k(every(0x33))),
            pool.and(pool.lshr(pairs, k(2)), k(every(0x33))),
        );
        let nibbles = pool.and(pool.add(quads, pool.lshr(quads, k(4))), k(bytes_mask));
        pool.lshr(pool.mul(nibbles, k(every(0x01))), k(shift))
    }

    #[test]
    fn the_swar_popcount_is_the_popcount_tree() {
        let pool = ExprPool::new();
        for w in [32u32, 64] {
            let a = pool.new_array("x", w / 8);
            let x = (1..w / 8).fold(pool.sym(a, 0), |acc, i| pool.concat(pool.sym(a, i), acc));
            let every = |byte: u128| (0..w / 8).fold(0u128, |acc, k| acc | byte << (8 * k));
            for sum in [false, true] {
                let e = swar(&pool, x, sum, every(0x0f), u128::from(w - 8));
                assert_eq!(e, pool.popcount(x), "width {w}, sum {sum}");
            }
            // Another mask or shift is not the idiom: built as written, it computes what
            // it says.
            let other = swar(&pool, x, false, every(0x07), u128::from(w - 8));
            let shifted = swar(&pool, x, false, every(0x0f), u128::from(w - 16));
            assert_ne!(other, pool.popcount(x));
            let mut seed = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..200 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let v = u128::from(seed) & mask(w, u128::MAX);
                let mut model = crate::expr::Assignment::default();
                for i in 0..w / 8 {
                    model.set_byte(a, i, (v >> (8 * i)) as u8);
                }
                assert_eq!(
                    pool.eval(pool.popcount(x), &model),
                    u128::from(v.count_ones())
                );
                // The reference: the same steps on the concrete value, in u128 arithmetic.
                let m = mask(w, u128::MAX);
                let reference = |bytes_mask: u128, shift: u32| {
                    let pairs = v.wrapping_sub((v >> 1) & every(0x55)) & m;
                    let quads = (pairs & every(0x33)) + ((pairs >> 2) & every(0x33));
                    let nibbles = (quads + (quads >> 4)) & bytes_mask;
                    (nibbles.wrapping_mul(every(0x01)) & m) >> shift
                };
                assert_eq!(reference(every(0x0f), w - 8), u128::from(v.count_ones()));
                assert_eq!(pool.eval(other, &model), reference(every(0x07), w - 8));
                assert_eq!(pool.eval(shifted, &model), reference(every(0x0f), w - 16));
            }
        }
    }
}
