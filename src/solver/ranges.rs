//! Range rewriting: the constraints of a query bound the values of its terms, and within
//! those bounds expensive operators have cheaper equivalents. This layer rewrites the query
//! (never the constraints) before passing it on:
//!
//! - a sign extension of a value whose sign bit is 0 is a zero extension;
//! - signed division, remainder and comparison of non-negative values are unsigned;
//! - unsigned division and remainder of values that fit in `n` bits are done in `n` bits
//!   (bit-blasted dividers grow with the square of their width);
//! - an order or equality comparison whose operand ranges decide it is a constant;
//! - `x % y` is `x & (y - 1)` when the constraints say `y & (y - 1) = 0` (at most one bit of
//!   `y` set: a power of two, or 0, where both are `x`), as in `mod` against an optimized
//!   `mod` that masks powers of two: no divider is left to bit-blast.
//!
//! Bounds come from constraints that compare a term with a constant (`x ≤ 200`, `x ≠ 0`,
//! `(x = 0) ∨ (0x20 ≤ x ≤ 0x7e)`, conjunctions of those) and from the operators themselves
//! (interval arithmetic: a zero extension of a byte is below 256, `x % y` is at most `x`).
//!
//! Soundness. Every assignment that satisfies the constraints gives each term a value within
//! its computed interval, so on those assignments the rewritten query has the value of the
//! original. The constraints are passed on unchanged, so `constraints ∧ rewritten` and
//! `constraints ∧ query` have the same models. (Rewriting a constraint with the bounds it
//! provides itself would be circular, which is why only the query is rewritten.)

use super::layer::{wraps_inner, Layer};
use super::xorlinear::XorForms;
use super::{SatResult, Solver, SolverError, SolverStats};
use crate::expr::pieces::{comparison_pieces, complement};
use crate::expr::{mask, BinOp, ExprId, ExprPool, Node, UnOp, Width};
use rustc_hash::FxHashMap;

/// An unsigned interval `[lo, hi]` of values of one width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Interval {
    pub(super) lo: u128,
    pub(super) hi: u128,
}

impl Interval {
    fn full(w: Width) -> Self {
        Interval {
            lo: 0,
            hi: mask(w, u128::MAX),
        }
    }

    fn point(v: u128) -> Self {
        Interval { lo: v, hi: v }
    }

    pub(super) fn meet(self, other: Self) -> Option<Self> {
        let (lo, hi) = (self.lo.max(other.lo), self.hi.min(other.hi));
        (lo <= hi).then_some(Interval { lo, hi })
    }

    fn hull(self, other: Self) -> Self {
        Interval {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// Bits needed for every value of the interval (at least 1).
    pub(super) fn bits(self) -> Width {
        (128 - self.hi.leading_zeros()).max(1)
    }

    /// Whether every value has its bit `w - 1` clear.
    fn non_negative(self, w: Width) -> bool {
        self.bits() < w
    }
}

/// `2^k - 1` for the smallest `k` with `v ≤ 2^k - 1`.
fn fill_below(v: u128) -> u128 {
    if v == 0 {
        0
    } else {
        u128::MAX >> v.leading_zeros()
    }
}

/// The bounds that a set of constraints puts on terms.
#[derive(Default)]
struct Bounds {
    known: FxHashMap<ExprId, Interval>,
    /// Terms with at most one bit set (`y & (y - 1) = 0` holds).
    one_bit: rustc_hash::FxHashSet<ExprId>,
}

impl Bounds {
    fn from_constraints(pool: &ExprPool, constraints: &[ExprId]) -> Self {
        let mut bounds = Bounds::default();
        for &c in constraints {
            bounds.one_bit.extend(one_bit_terms(pool, c));
            for (term, interval) in facts(pool, c, true) {
                let entry = bounds
                    .known
                    .entry(term)
                    .or_insert_with(|| Interval::full(pool.width(term)));
                // An empty meet means the constraints contradict each other; keep the
                // narrower fact (the query is unsatisfiable either way).
                *entry = entry.meet(interval).unwrap_or(interval);
            }
        }
        bounds
    }
}

/// The terms `y` that `c` (a conjunction that holds) says have at most one bit set, in the
/// spellings of that test: `y & (y - 1) = 0`, `y & -y = y`, `popcount(y) = 1` or `<= 1`,
/// `y = 1 << k`.
fn one_bit_terms(pool: &ExprPool, c: ExprId) -> Vec<ExprId> {
    let mut out = Vec::new();
    let mut stack = vec![c];
    while let Some(c) = stack.pop() {
        let Node::Binary { op, lhs, rhs } = pool.node(c) else {
            continue;
        };
        match op {
            BinOp::And if pool.width(c) == 1 => stack.extend([lhs, rhs]),
            BinOp::Eq => {
                for (one, other) in [(lhs, rhs), (rhs, lhs)] {
                    out.extend(one_bit_equal(pool, one, other));
                }
            }
            // popcount(y) <= 1, popcount(y) < 2
            BinOp::Ule | BinOp::Ult => {
                let limit = if op == BinOp::Ule { 1 } else { 2 };
                if pool.as_const(rhs) == Some(limit) {
                    out.extend(popcount_input(pool, lhs));
                }
            }
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The `y` that `one = other` says has at most one bit set, for `one` on the left of one of
/// the spellings.
fn one_bit_equal(pool: &ExprPool, one: ExprId, other: ExprId) -> Option<ExprId> {
    let is_and = |e: ExprId| match pool.node(e) {
        Node::Binary {
            op: BinOp::And,
            lhs,
            rhs,
        } => Some((lhs, rhs)),
        _ => None,
    };
    let negation_of = |e: ExprId, y: ExprId| {
        matches!(pool.node(e), Node::Unary { op: UnOp::Neg, arg } if arg == y)
            || matches!(pool.node(e), Node::Binary { op: BinOp::Sub, lhs, rhs } if rhs == y && pool.as_const(lhs) == Some(0))
    };
    match pool.as_const(one) {
        // y & (y - 1) = 0
        Some(0) => {
            let (p, q) = is_and(other)?;
            if is_minus_one_of(pool, q, p) {
                Some(p)
            } else if is_minus_one_of(pool, p, q) {
                Some(q)
            } else {
                None
            }
        }
        // popcount(y) = 1
        Some(1) => popcount_input(pool, other),
        Some(_) => None,
        None => {
            // y & -y = y
            if let Some((p, q)) = is_and(other) {
                if (p == one && negation_of(q, one)) || (q == one && negation_of(p, one)) {
                    return Some(one);
                }
            }
            // y = 1 << k (0 for k past the width: still at most one bit)
            match pool.node(other) {
                Node::Binary {
                    op: BinOp::Shl,
                    lhs,
                    ..
                } if pool.as_const(lhs) == Some(1) => Some(one),
                _ => None,
            }
        }
    }
}

/// The `y` of which `e` is the popcount tree ([`ExprPool::popcount`], also what a sum of
/// every bit and a SWAR popcount become): found by walking down the tree's accumulator,
/// and confirmed by building the tree of `y` (hash-consing gives the same id).
fn popcount_input(pool: &ExprPool, e: ExprId) -> Option<ExprId> {
    // `ctpop` of a narrower value, zero-extended to the result's width.
    let e = match pool.node(e) {
        Node::ZExt { arg, .. } => arg,
        _ => e,
    };
    let w = pool.width(e);
    if !w.is_power_of_two() || w < 2 {
        return None;
    }
    // Each level is `(acc & m) + ((acc >> s) & m)`: the masked operand that is no shift.
    let mut acc = e;
    for _ in 0..w.trailing_zeros() {
        let Node::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } = pool.node(acc)
        else {
            return None;
        };
        acc = [lhs, rhs]
            .into_iter()
            .find_map(|half| match pool.node(half) {
                Node::Binary {
                    op: BinOp::And,
                    lhs,
                    rhs,
                } => {
                    let x = if pool.as_const(lhs).is_some() {
                        rhs
                    } else {
                        lhs
                    };
                    (!matches!(
                        pool.node(x),
                        Node::Binary {
                            op: BinOp::LShr,
                            ..
                        }
                    ))
                    .then_some(x)
                }
                _ => None,
            })?;
    }
    (pool.width(acc) == pool.width(e) && pool.popcount(acc) == e).then_some(acc)
}

/// Whether `e` is `y - 1` (`y + all ones`, in either order).
fn is_minus_one_of(pool: &ExprPool, e: ExprId, y: ExprId) -> bool {
    let Node::Binary {
        op: BinOp::Add,
        lhs,
        rhs,
    } = pool.node(e)
    else {
        return false;
    };
    let all_ones = |c: ExprId| matches!(pool.node(c), Node::Const { value, .. } if value == mask(pool.width(c), u128::MAX));
    (lhs == y && all_ones(rhs)) || (rhs == y && all_ones(lhs))
}

/// What `c` (or its negation, when `holds` is false) says about the values of terms:
/// `(term, interval)` pairs that all hold whenever `c` has that truth value.
fn facts(pool: &ExprPool, c: ExprId, holds: bool) -> Vec<(ExprId, Interval)> {
    facts_within(pool, c, holds, DISJUNCTION_DEPTH)
}

/// Levels below an `ite`'s side recomputed with the bound its condition puts on a value.
const ASSUMING_DEPTH: u32 = 6;

/// Most moduli tried for one query's equalities by congruence (`congruence.rs`).
const MODULI_LIMIT: usize = 8;

/// Most intervals under a bound computed for one query.
const ASSUMED_BUDGET: u32 = 1 << 16;

/// Most multiples of a constant divisor a dividend may span for its division or remainder
/// to become compare-and-subtract.
const MULTIPLES_LIMIT: u128 = 8;

/// Nested disjunctions looked into; conjunctions, however long, are walked with a stack.
const DISJUNCTION_DEPTH: u32 = 8;

fn facts_within(pool: &ExprPool, c: ExprId, holds: bool, depth: u32) -> Vec<(ExprId, Interval)> {
    let mut all = Vec::new();
    let mut stack = vec![(c, holds)];
    while let Some((c, holds)) = stack.pop() {
        match pool.node(c) {
            Node::Unary { op: UnOp::Not, arg } => stack.push((arg, !holds)),
            Node::Binary {
                op: op @ (BinOp::And | BinOp::Or),
                lhs,
                rhs,
            } if pool.width(c) == 1 => {
                if (op == BinOp::And) == holds {
                    // A conjunction that holds, or a disjunction that fails: every part's
                    // facts.
                    stack.push((lhs, holds));
                    stack.push((rhs, holds));
                } else if depth > 0 {
                    // One side or the other: the hull of what both say about a shared term.
                    let left = facts_within(pool, lhs, holds, depth - 1);
                    let right = facts_within(pool, rhs, holds, depth - 1);
                    all.extend(either(left, right));
                }
            }
            Node::Binary { op, .. } if op.is_comparison() => {
                all.extend(comparison_fact(pool, c, holds));
            }
            _ => {}
        }
    }
    all
}

/// The facts that hold when the facts of `left` or those of `right` hold: for each term
/// both constrain, the hull of the two intervals.
fn either(
    left: Vec<(ExprId, Interval)>,
    right: Vec<(ExprId, Interval)>,
) -> impl Iterator<Item = (ExprId, Interval)> {
    let mut per_term: FxHashMap<ExprId, (Option<Interval>, Option<Interval>)> =
        FxHashMap::default();
    for (t, i) in left {
        let e = per_term.entry(t).or_default();
        e.0 = Some(e.0.map_or(i, |j| j.meet(i).unwrap_or(i)));
    }
    for (t, i) in right {
        let e = per_term.entry(t).or_default();
        e.1 = Some(e.1.map_or(i, |j| j.meet(i).unwrap_or(i)));
    }
    per_term.into_iter().filter_map(|(t, sides)| match sides {
        (Some(a), Some(b)) => Some((t, a.hull(b))),
        _ => None,
    })
}

/// The interval a comparison of a term with a constant allows for the term (the hull of
/// the values [`comparison_pieces`] gives), when it holds or, if not `holds`, when it fails.
fn comparison_fact(pool: &ExprPool, c: ExprId, holds: bool) -> Option<(ExprId, Interval)> {
    let (term, pieces) = comparison_pieces(pool, c)?;
    let pieces = if holds {
        pieces
    } else {
        complement(&pieces, mask(pool.width(term), u128::MAX))
    };
    let (&(lo, _), &(_, hi)) = (pieces.first()?, pieces.last()?);
    Some((term, Interval { lo, hi }))
}

/// One rewriting of one query: intervals and rewritten forms, memoised per node.
pub(super) struct Rewriter<'p> {
    pub(super) pool: &'p ExprPool,
    bounds: &'p Bounds,
    /// The query being rewritten.
    root: ExprId,
    /// The moduli its reductions suggest, for equalities by congruence: found when the
    /// first equality needs them.
    moduli: Option<Vec<u128>>,
    intervals: FxHashMap<ExprId, Interval>,
    /// Intervals under a bound on one value: `(e, x, x's interval, depth)`.
    assumed: FxHashMap<(ExprId, ExprId, Interval, u32), Interval>,
    /// Intervals under a bound still to be computed for this query (each builds one entry
    /// of `assumed`); past it, a node's own interval stands.
    assumed_budget: u32,
    rewritten: FxHashMap<ExprId, ExprId>,
}

impl<'p> Rewriter<'p> {
    /// The interval of values `e` takes on every assignment that satisfies the constraints.
    pub(super) fn interval(&mut self, e: ExprId) -> Interval {
        if let Some(&i) = self.intervals.get(&e) {
            return i;
        }
        let pool = self.pool;
        let w = pool.width(e);
        let full = Interval::full(w);
        let max = full.hi;
        let structural = match pool.node(e) {
            Node::Const { value, .. } => Interval::point(value),
            Node::Sym { .. } => full,
            Node::ZExt { arg, .. } => self.interval(arg),
            Node::SExt { arg, .. } => {
                let i = self.interval(arg);
                if i.non_negative(pool.width(arg)) {
                    i
                } else {
                    full
                }
            }
            Node::Extract { arg, lo: 0, width } => {
                let i = self.interval(arg);
                if i.bits() <= width {
                    i
                } else {
                    full
                }
            }
            Node::Concat { hi, lo } => {
                let lw = pool.width(lo);
                let h = self.interval(hi);
                let l = self.interval(lo);
                Interval {
                    lo: (h.lo << lw) | l.lo,
                    hi: (h.hi << lw) | l.hi,
                }
            }
            Node::Ite { cond, then, els } => {
                let (mut t, mut f) = (self.interval(then), self.interval(els));
                // Each side is bounded as if the value the condition compares had the
                // comparison's bound on that side: `umin(n, 16)` is `ite(n <u 16, n, 16)`,
                // at most 16, and the conditional subtraction `ite(x >=u c, x - c, x)` of
                // a value `x <= 2c - 1` is below `c`.
                if let Some((x, yes, no)) = self.unsigned_split(cond) {
                    if yes.lo <= yes.hi {
                        t = self.interval_assuming(then, x, yes, ASSUMING_DEPTH);
                    }
                    if no.lo <= no.hi {
                        f = self.interval_assuming(els, x, no, ASSUMING_DEPTH);
                    }
                }
                t.hull(f)
            }
            Node::Binary { op, lhs, rhs } if !op.is_comparison() => {
                let (a, b) = (self.interval(lhs), self.interval(rhs));
                binary_interval(op, w, a, b).unwrap_or(full)
            }
            Node::Binary { .. } | Node::Unary { .. } if w == 1 => full,
            _ => full,
        };
        let i = match self.bounds.known.get(&e) {
            Some(&k) => structural.meet(k).unwrap_or(k),
            None => structural,
        };
        debug_assert!(i.hi <= max);
        self.intervals.insert(e, i);
        i
    }

    /// The interval of `e` on the assignments where `x` lies in `ix` (and the constraints
    /// hold): `e`'s own interval, narrowed by recomputing the operators on the path from
    /// `e` down to `x`, at most `depth` levels deep.
    pub(super) fn interval_assuming(
        &mut self,
        e: ExprId,
        x: ExprId,
        ix: Interval,
        depth: u32,
    ) -> Interval {
        let base = self.interval(e);
        if e == x {
            return base.meet(ix).unwrap_or(base);
        }
        if depth == 0 || self.assumed_budget == 0 {
            return base;
        }
        if let Some(&i) = self.assumed.get(&(e, x, ix, depth)) {
            return i;
        }
        self.assumed_budget -= 1;
        let i = self.narrow_assuming(e, x, ix, depth, base);
        self.assumed.insert((e, x, ix, depth), i);
        i
    }

    fn narrow_assuming(
        &mut self,
        e: ExprId,
        x: ExprId,
        ix: Interval,
        depth: u32,
        base: Interval,
    ) -> Interval {
        let pool = self.pool;
        let w = pool.width(e);
        let narrowed = match pool.node(e) {
            Node::ZExt { arg, .. } => self.interval_assuming(arg, x, ix, depth - 1),
            Node::Extract { arg, lo: 0, width } => {
                let i = self.interval_assuming(arg, x, ix, depth - 1);
                if i.bits() <= width {
                    i
                } else {
                    return base;
                }
            }
            Node::Binary { op, lhs, rhs } if !op.is_comparison() => {
                let a = self.interval_assuming(lhs, x, ix, depth - 1);
                let b = self.interval_assuming(rhs, x, ix, depth - 1);
                match binary_interval(op, w, a, b) {
                    Some(i) => i,
                    None => return base,
                }
            }
            Node::Ite { cond, then, els } => {
                // A condition on the same `x` narrows each side further; a side it
                // leaves no value of `x` for is never taken.
                // A chain of comparisons of the same `x` (`x / c` by compare-and-subtract)
                // is followed to its end: its length does not count against `depth`.
                let (yes, no, down) = match self.unsigned_split(cond) {
                    Some((y, yes, no)) if y == x => (yes.meet(ix), no.meet(ix), depth),
                    _ => (Some(ix), Some(ix), depth - 1),
                };
                let t = yes.map(|i| self.interval_assuming(then, x, i, down));
                let f = no.map(|i| self.interval_assuming(els, x, i, down));
                match (t, f) {
                    (Some(t), Some(f)) => t.hull(f),
                    (Some(one), None) | (None, Some(one)) => one,
                    (None, None) => return base,
                }
            }
            _ => return base,
        };
        // Both hold where `x` lies in `ix`; an empty meet means no such assignment.
        base.meet(narrowed).unwrap_or(base)
    }

    /// Whether `a = b` under the constraints by congruence modulo one of the moduli the
    /// query suggests (`congruence.rs`).
    fn equal_by_congruence(&mut self, a: ExprId, b: ExprId) -> bool {
        let moduli = match self.moduli.take() {
            Some(m) => m,
            None => moduli(self.pool, self.root),
        };
        let proved = !moduli.is_empty() && self.congruent(a, b, &moduli);
        self.moduli = Some(moduli);
        proved
    }

    /// Whether a divisor in `ib` is one constant `c > 0` and a dividend in `ia` spans at
    /// most [`MULTIPLES_LIMIT`] multiples of it (`x / c` takes at most that many values
    /// besides its least).
    fn few_multiples(&self, ia: Interval, ib: Interval) -> bool {
        ib.lo == ib.hi && ib.lo > 0 && ia.hi / ib.lo - ia.lo / ib.lo <= MULTIPLES_LIMIT
    }

    /// For `cond` an unsigned comparison of a value `x` with a constant: `x` and the
    /// intervals `x` lies in when `cond` holds and when it does not.
    pub(super) fn unsigned_split(&self, cond: ExprId) -> Option<(ExprId, Interval, Interval)> {
        let pool = self.pool;
        let Node::Binary { op, lhs, rhs } = pool.node(cond) else {
            return None;
        };
        let (x, c, const_first) = match (pool.as_const(lhs), pool.as_const(rhs)) {
            (None, Some(c)) => (lhs, c, false),
            (Some(c), None) => (rhs, c, true),
            _ => return None,
        };
        let max = Interval::full(pool.width(x)).hi;
        let upto = |hi: Option<u128>| hi.map(|hi| Interval { lo: 0, hi });
        let from = |lo: Option<u128>| {
            lo.filter(|&lo| lo <= max)
                .map(|lo| Interval { lo, hi: max })
        };
        let (yes, no) = match (op, const_first) {
            // x < c | x >= c
            (BinOp::Ult, false) => (upto(c.checked_sub(1)), from(Some(c))),
            // x <= c | x > c
            (BinOp::Ule, false) => (upto(Some(c)), from(c.checked_add(1))),
            // c < x | x <= c
            (BinOp::Ult, true) => (from(c.checked_add(1)), upto(Some(c))),
            // c <= x | x < c
            (BinOp::Ule, true) => (from(Some(c)), upto(c.checked_sub(1))),
            _ => return None,
        };
        // An empty side (`x <u 0`) bounds nothing here: its branch is never taken, and
        // the other side's interval stands.
        let empty = Interval { lo: 1, hi: 0 };
        Some((x, yes.unwrap_or(empty), no.unwrap_or(empty)))
    }

    /// `e` rewritten: equal to `e` on every assignment that satisfies the constraints.
    fn rewrite(&mut self, root: ExprId) -> ExprId {
        // Children first, with an explicit stack: queries can be deep.
        let mut stack = vec![(root, false)];
        while let Some((e, expanded)) = stack.pop() {
            if self.rewritten.contains_key(&e) {
                continue;
            }
            let node = self.pool.node(e);
            if !expanded {
                stack.push((e, true));
                for c in super::children(&node) {
                    if !self.rewritten.contains_key(&c) {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            // Intervals are computed here, children first, so that `interval` never
            // recurses deeply.
            self.interval(e);
            let r = self.rewrite_node(e, node);
            self.rewritten.insert(e, r);
        }
        self.rewritten[&root]
    }

    /// One node whose children are rewritten already.
    fn rewrite_node(&mut self, e: ExprId, node: Node) -> ExprId {
        let pool = self.pool;
        let new = |s: &Self, c: ExprId| s.rewritten.get(&c).copied().unwrap_or(c);
        match node {
            Node::SExt { arg, width } => {
                let a = new(self, arg);
                if self.interval(arg).non_negative(pool.width(arg)) {
                    pool.zext(a, width)
                } else {
                    pool.sext(a, width)
                }
            }
            Node::Binary { op, lhs, rhs } => {
                let (a, b) = (new(self, lhs), new(self, rhs));
                let w = pool.width(lhs);
                let (ia, ib) = (self.interval(lhs), self.interval(rhs));
                let both_non_negative = ia.non_negative(w) && ib.non_negative(w);
                let op = match op {
                    BinOp::SDiv if both_non_negative => BinOp::UDiv,
                    BinOp::SRem if both_non_negative => BinOp::URem,
                    BinOp::Slt if both_non_negative => BinOp::Ult,
                    BinOp::Sle if both_non_negative => BinOp::Ule,
                    op => op,
                };
                match op {
                    BinOp::Ult if ia.hi < ib.lo => pool.true_(),
                    BinOp::Ult if ia.lo >= ib.hi => pool.false_(),
                    BinOp::Ule if ia.hi <= ib.lo => pool.true_(),
                    BinOp::Ule if ia.lo > ib.hi => pool.false_(),
                    BinOp::Eq if ia.meet(ib).is_none() => pool.false_(),
                    BinOp::Eq if self.equal_by_congruence(a, b) => pool.true_(),
                    // x % y for y with at most one bit set: x & (y - 1) (x when y = 0).
                    BinOp::URem if self.bounds.one_bit.contains(&rhs) => {
                        pool.and(a, pool.add(b, pool.all_ones(w)))
                    }
                    BinOp::UDiv | BinOp::URem if self.few_multiples(ia, ib) => {
                        by_subtraction(pool, op, a, ia, ib.lo)
                    }
                    BinOp::UDiv | BinOp::URem => {
                        let n = ia.bits().max(ib.bits());
                        if n < w {
                            let narrow = pool.binary(op, pool.trunc(a, n), pool.trunc(b, n));
                            let wide = pool.zext(narrow, w);
                            // x % 0 = x in every width; x / 0 is all ones of its own width.
                            if op == BinOp::URem || ib.lo > 0 {
                                wide
                            } else {
                                pool.ite(pool.eq(b, pool.zero(w)), pool.all_ones(w), wide)
                            }
                        } else {
                            pool.binary(op, a, b)
                        }
                    }
                    op => pool.binary(op, a, b),
                }
            }
            _ => {
                let map = |c: ExprId| new(self, c);
                if super::children(&node).all(|c| map(c) == c) {
                    e
                } else {
                    pool.rebuild(node, &map)
                }
            }
        }
    }
}

/// `x / c` or `x % c` for a constant `c > 0` and `x` in `ix`, where `ix` spans at most
/// [`MULTIPLES_LIMIT`] multiples of `c`: compare-and-subtract. The quotient is the number of
/// multiples `k c` with `k c <= x` (counted from `lo / c`, which every `x` reaches), the
/// remainder `x - q c`. A bit-blasted divider relates to nothing else in a query (zlib's
/// `adler32` subtracts its modulus conditionally where a textbook loop takes `% 65521`);
/// comparisons and subtractions relate to sums and to each other.
fn by_subtraction(pool: &ExprPool, op: BinOp, x: ExprId, ix: Interval, c: u128) -> ExprId {
    let w = pool.width(x);
    let k = |v: u128| pool.constant(w, v);
    let (first, last) = (ix.lo / c, ix.hi / c);
    let mut out = match op {
        BinOp::UDiv => k(first),
        _ => pool.sub(x, k(first * c)),
    };
    for m in first + 1..=last {
        let reached = pool.ule(k(m * c), x);
        let value = match op {
            BinOp::UDiv => k(m),
            _ => pool.sub(x, k(m * c)),
        };
        out = pool.ite(reached, value, out);
    }
    out
}

/// The moduli a query's reductions suggest: constant divisors of remainders, and the
/// constant `c` of each conditional subtraction `ite(x >= c, x - c, _)`, smallest first.
fn moduli(pool: &ExprPool, root: ExprId) -> Vec<u128> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![root];
    let mut out = Vec::new();
    while let Some(e) = stack.pop() {
        if !seen.insert(e) {
            continue;
        }
        let node = pool.node(e);
        match node {
            Node::Binary {
                op: BinOp::URem,
                rhs,
                ..
            } => out.extend(pool.as_const(rhs)),
            // `x + (2^w - c)`, taken where `x >= c`: `x - c`.
            Node::Ite { then, .. } => {
                if let Node::Binary {
                    op: BinOp::Add,
                    lhs,
                    rhs,
                } = pool.node(then)
                {
                    let w = pool.width(then);
                    let k = pool.as_const(lhs).or_else(|| pool.as_const(rhs));
                    out.extend(k.filter(|&k| k != 0).map(|k| mask(w, k.wrapping_neg())));
                }
            }
            _ => {}
        }
        stack.extend(super::children(&node));
    }
    out.retain(|&p| p > 1 && p <= u128::from(u64::MAX));
    out.sort_unstable();
    out.dedup();
    out.truncate(MODULI_LIMIT);
    out
}

/// The interval of `a op b` for operand intervals `a` and `b` of width `w`, when it is
/// narrower than the full range.
fn binary_interval(op: BinOp, w: Width, a: Interval, b: Interval) -> Option<Interval> {
    let max = mask(w, u128::MAX);
    let modulo = |lo: u128, hi: u128, wraps_lo: bool, wraps_hi: bool| {
        // Both ends wrapped the same number of times: the interval survives, shifted.
        (wraps_lo == wraps_hi).then(|| Interval {
            lo: mask(w, lo),
            hi: mask(w, hi),
        })
    };
    match op {
        BinOp::Add => {
            let lo = a.lo.checked_add(b.lo)?;
            let hi = a.hi.checked_add(b.hi)?;
            modulo(lo, hi, lo > max, hi > max)
        }
        BinOp::Sub => {
            if a.lo >= b.hi {
                Some(Interval {
                    lo: a.lo - b.hi,
                    hi: a.hi - b.lo,
                })
            } else if a.hi < b.lo {
                modulo(a.lo.wrapping_sub(b.hi), a.hi.wrapping_sub(b.lo), true, true)
            } else {
                None
            }
        }
        BinOp::Mul => {
            let hi = a.hi.checked_mul(b.hi).filter(|&v| v <= max)?;
            Some(Interval {
                lo: a.lo * b.lo,
                hi,
            })
        }
        BinOp::And => Some(Interval {
            lo: 0,
            hi: a.hi.min(b.hi),
        }),
        BinOp::Or => Some(Interval {
            lo: a.lo.max(b.lo),
            hi: fill_below(a.hi.max(b.hi)),
        }),
        BinOp::Xor => Some(Interval {
            lo: 0,
            hi: fill_below(a.hi.max(b.hi)),
        }),
        BinOp::UDiv if b.lo > 0 => Some(Interval {
            lo: a.lo / b.hi,
            hi: a.hi / b.lo,
        }),
        // x % 0 = x, and x % y < y otherwise.
        BinOp::URem => Some(Interval {
            lo: 0,
            hi: if b.lo > 0 { a.hi.min(b.hi - 1) } else { a.hi },
        }),
        BinOp::LShr if b.lo == b.hi && b.lo < u128::from(w) => Some(Interval {
            lo: a.lo >> b.lo,
            hi: a.hi >> b.lo,
        }),
        BinOp::Shl if b.lo == b.hi && b.lo < u128::from(w) => {
            let hi = a.hi << b.lo;
            (hi >> b.lo == a.hi && hi <= max).then_some(Interval {
                lo: a.lo << b.lo,
                hi,
            })
        }
        _ => None,
    }
}

/// `e` rewritten with the bounds `constraints` imply: equal to `e` under every assignment
/// that satisfies all of them (what the [`RangeSolver`] does to each query).
pub fn rewrite_with_bounds(pool: &ExprPool, constraints: &[ExprId], e: ExprId) -> ExprId {
    let bounds = Bounds::from_constraints(pool, constraints);
    Rewriter {
        pool,
        bounds: &bounds,
        root: e,
        moduli: None,
        intervals: FxHashMap::default(),
        assumed: FxHashMap::default(),
        assumed_budget: ASSUMED_BUDGET,
        rewritten: FxHashMap::default(),
    }
    .rewrite(e)
}

/// A [`Solver`] layer that rewrites each query with the bounds its constraints imply.
pub struct RangeSolver {
    inner: Box<dyn Solver>,
    rewritten: u64,
    decided: u64,
    /// The XOR-linear forms of the terms seen (`xorlinear.rs`), kept across queries.
    xor: XorForms,
    xor_decided: u64,
}

impl RangeSolver {
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self {
            inner,
            rewritten: 0,
            decided: 0,
            xor: XorForms::new(),
            xor_decided: 0,
        }
    }
}

impl Layer for RangeSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let new = rewrite_with_bounds(pool, constraints, query);
        if new != query {
            self.rewritten += 1;
            if pool.as_const(new) == Some(0) {
                self.decided += 1;
                return Ok(SatResult::Unsat);
            }
        }
        if self.xor.always_false(pool, constraints, new) == Some(true) {
            self.xor_decided += 1;
            return Ok(SatResult::Unsat);
        }
        self.inner.check(pool, constraints, new)
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.ranges_rewritten += self.rewritten;
        stats.ranges_unsat += self.decided;
        stats.xor_linear_unsat += self.xor_decided;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{build_chain, SolverConfig};

    use super::rewrite_with_bounds as rewrite;

    #[test]
    fn a_bounded_byte_sign_extends_like_it_zero_extends() {
        let pool = ExprPool::new();
        let b = pool.sym(pool.new_array("s", 1), 0);
        let printable = pool.bool_or(
            pool.eq(b, pool.constant(8, 0)),
            pool.bool_and(
                pool.ule(pool.constant(8, 0x20), b),
                pool.ule(b, pool.constant(8, 0x7e)),
            ),
        );
        let h = |ext: ExprId| pool.add(pool.mul(pool.constant(32, 33), ext), ext);
        let differ = pool.ne(h(pool.sext(b, 32)), h(pool.zext(b, 32)));
        assert_eq!(rewrite(&pool, &[printable], differ), pool.false_());
        // Without the bound, the sign extension stays.
        assert_eq!(rewrite(&pool, &[], differ), differ);
    }

    #[test]
    fn division_of_bounded_values_is_narrow_and_unsigned() {
        let pool = ExprPool::new();
        let (n, d) = (
            pool.sym(pool.new_array("n", 1), 0),
            pool.sym(pool.new_array("d", 1), 0),
        );
        let nonzero = |x: ExprId| pool.ne(x, pool.constant(8, 0));
        let minus_one = pool.add(pool.constant(32, u128::from(u32::MAX)), pool.zext(n, 32));
        let q = pool.sdiv(minus_one, pool.zext(d, 32));
        let query = pool.eq(q, pool.constant(32, 3));
        let new = rewrite(&pool, &[nonzero(n), nonzero(d)], query);
        let text = pool.to_sexp(new);
        assert!(!text.contains("sdiv"), "{text}");
        assert!(text.contains("udiv"), "{text}");
        // Rewritten or not, the chain gives the same answers.
        let mut solver = build_chain(&SolverConfig::default());
        let r = solver
            .check(&pool, &[nonzero(n), nonzero(d)], query)
            .unwrap();
        let SatResult::Sat(model) = r else {
            panic!("expected a model")
        };
        assert_eq!(pool.eval(query, &model), 1);
        // n = 0 would make the left side -1: without `n ≠ 0` nothing changes.
        assert!(pool
            .to_sexp(rewrite(&pool, &[nonzero(d)], query))
            .contains("sdiv"));
    }

    #[test]
    fn bounds_decide_comparisons() {
        let pool = ExprPool::new();
        let x = pool.sym(pool.new_array("x", 1), 0);
        let below = pool.ult(x, pool.constant(8, 10));
        let q = pool.ult(pool.zext(x, 32), pool.constant(32, 20));
        assert_eq!(rewrite(&pool, &[below], q), pool.true_());
        let q = pool.eq(pool.zext(x, 32), pool.constant(32, 300));
        assert_eq!(rewrite(&pool, &[], q), pool.false_());
    }

    // `umin(n, 16)` and `umax(n, 16)` as LLVM's intrinsics are built: the comparison bounds
    // the side that is `n`, so a bound on the result is decided without the solver.
    #[test]
    fn a_minimum_or_maximum_with_a_constant_is_bounded_by_it() {
        let pool = ExprPool::new();
        let n = pool.zext(pool.sym(pool.new_array("n", 1), 0), 32);
        let k = |v: u128| pool.constant(32, v);
        let umin = pool.ite(pool.ult(n, k(16)), n, k(16));
        assert_eq!(rewrite(&pool, &[], pool.ult(k(16), umin)), pool.false_());
        let umax = pool.ite(pool.ult(k(16), n), n, k(16));
        assert_eq!(rewrite(&pool, &[], pool.ult(umax, k(16))), pool.false_());
        // `x <=u c` and its complement the same way; a bound the value can exceed stays.
        let at_most = pool.ite(pool.ule(n, k(20)), n, k(7));
        assert_eq!(rewrite(&pool, &[], pool.ult(k(20), at_most)), pool.false_());
        let q = pool.ult(k(10), umin);
        assert_eq!(rewrite(&pool, &[], q), q);
    }

    // The spellings of "at most one bit set" (KLEE's tutorial writes `(y & -y) == y`, others
    // `__builtin_popcount(y) == 1` or `y == 1 << k`) all make the remainder a mask; each is
    // checked against every 8-bit value to imply what the rewriting takes it to mean.
    #[test]
    fn every_spelling_of_one_bit_makes_the_remainder_a_mask() {
        let pool = ExprPool::new();
        let (ax, ay, ak) = (
            pool.new_array("x", 1),
            pool.new_array("y", 1),
            pool.new_array("k", 1),
        );
        let (x, y, k) = (pool.sym(ax, 0), pool.sym(ay, 0), pool.sym(ak, 0));
        let c = |v: u128| pool.constant(8, v);
        let y_minus_one = pool.add(y, pool.all_ones(8));
        let spellings = [
            pool.eq(pool.and(y, y_minus_one), c(0)),
            pool.eq(pool.and(y, pool.neg(y)), y),
            pool.eq(y, pool.and(pool.sub(c(0), y), y)),
            pool.eq(pool.popcount(y), c(1)),
            pool.ule(pool.popcount(y), c(1)),
            pool.ult(pool.popcount(y), c(2)),
            pool.eq(y, pool.shl(c(1), k)),
        ];
        let differ = pool.ne(pool.urem(x, y), pool.and(x, y_minus_one));
        for (i, &spelling) in spellings.iter().enumerate() {
            let fact = pool.bool_and(spelling, pool.ne(y, c(0)));
            assert_eq!(
                rewrite(&pool, &[fact], differ),
                pool.false_(),
                "spelling {i}"
            );
            for yv in 0..=255u8 {
                for kv in 0..=9u8 {
                    let mut a = crate::expr::Assignment::new();
                    a.set(ay, vec![yv]);
                    a.set(ak, vec![kv]);
                    if pool.eval_bool(spelling, &a) {
                        assert!(yv.count_ones() <= 1, "spelling {i} holds for {yv}");
                    }
                }
            }
        }
        // Two bits allowed is not one.
        let two = pool.ule(pool.popcount(y), c(2));
        assert_eq!(rewrite(&pool, &[two], differ), differ);
    }

    // `mod` against an optimized `mod` that masks powers of two: under `y & (y - 1) = 0`
    // the remainder is the mask, so the query is decided without a divider; every value of
    // an 8-bit `y` (0 and the powers of two included) agrees with the rewriting.
    #[test]
    fn remainder_by_one_bit_is_a_mask() {
        let pool = ExprPool::new();
        let (x, y) = (
            pool.sym(pool.new_array("x", 1), 0),
            pool.sym(pool.new_array("y", 1), 0),
        );
        let y_minus_one = pool.add(y, pool.all_ones(8));
        let one_bit = pool.eq(pool.and(y, y_minus_one), pool.constant(8, 0));
        let masked = pool.and(x, y_minus_one);
        let differ = pool.ne(pool.urem(x, y), masked);
        assert_eq!(rewrite(&pool, &[one_bit], differ), pool.false_());
        // Without the constraint the remainder stays.
        assert_eq!(rewrite(&pool, &[], differ), differ);
        for yv in 0..=255u8 {
            if yv & yv.wrapping_sub(1) != 0 {
                continue;
            }
            for xv in 0..=255u8 {
                let expected = if yv == 0 { xv } else { xv % yv };
                assert_eq!(xv & yv.wrapping_sub(1), expected, "{xv} % {yv}");
            }
        }
    }
}
