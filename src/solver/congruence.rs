//! Equalities of values reduced modulo a constant, decided by congruence: two values that
//! both lie in one window of `p` consecutive integers, and are congruent modulo `p`, are
//! equal. Checksums and modular arithmetic reduce their sums in different places (zlib's
//! `adler32` adds up to 5552 bytes before one `% 65521` and subtracts the modulus
//! conditionally elsewhere; a textbook loop reduces after every byte): bit-blasted, the two
//! reductions relate to each other only through the carries of every adder, and the solvers'
//! time grows tenfold per byte (three bytes: 14 s for Bitwuzla, over 30 s for Z3). As linear
//! forms modulo `p` they are the same sum.
//!
//! The linear form of a value is a sum of coefficients times opaque terms plus a constant,
//! all modulo `p`, congruent to the value on every assignment that satisfies the
//! constraints. It is built by these rules, each exact only where the bounds say so:
//!
//! - a sum, a difference, a product by a constant and a left shift by a constant: the forms
//!   combined, corrected by `2^w` times the number of wraps, which the operands' bounds must
//!   fix (no wrap, or the same number of wraps at both ends);
//! - a zero extension, and a low extraction or mask that keeps every bit the bounds allow;
//! - `x % c` for a constant multiple `c` of `p`: the form of `x`;
//! - `ite(cond, t, f)` whose two sides have the same form, each side bounded by what the
//!   condition says (the conditional subtraction `ite(x >= p, x - p, x)` is `x`);
//! - anything else is an opaque term, equal only to itself (hash-consing makes equal terms
//!   one id).
//!
//! An equality `a = b` also splits into fields: it holds exactly when the low `k` bits and
//! the high bits are equal, for a `k` at which either side packs a field with a shift
//! (`lo | (hi << k)`); the split is pushed through bitwise operators, `ite`s, shifts and
//! sums whose low fields cannot carry, so that `(b << 16) | a` exposes `a` and `b`.
//!
//! Soundness. Bounds hold on every assignment that satisfies the constraints (see
//! `ranges.rs`), so on those assignments each form is congruent to its value; two values
//! in a window narrower than `p` whose forms are equal are equal. Only such proved
//! equalities are replaced (by true), so the rewritten query is equivalent to the original
//! under the constraints. A form that cannot be built makes the equality stay as it is.

use super::ranges::{Interval, Rewriter};
use crate::expr::{mask, BinOp, ExprId, Node};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Levels below an `ite` side at which the condition's bound still narrows the operands.
const CONTEXT_DEPTH: u32 = 6;

/// Most nodes whose forms one equality may build; a bigger value stays as it is.
const NODE_LIMIT: usize = 4096;

/// Levels of field splitting of one equality.
const FIELD_DEPTH: u32 = 2;

/// Levels below an equality's operands searched for the shifts that pack fields.
const SHIFT_SEARCH_DEPTH: u32 = 4;

/// Levels a split is pushed down through operators.
const SPLIT_DEPTH: u32 = 8;

/// A value modulo `p`: `Σ coefficient · term + constant`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Form {
    terms: BTreeMap<ExprId, u128>,
    constant: u128,
}

/// `a · b mod p` for `a, b < p ≤ 2^64`.
fn mul_mod(a: u128, b: u128, p: u128) -> u128 {
    (a % p) * (b % p) % p
}

/// `2^k mod p`.
fn pow2_mod(k: u32, p: u128) -> u128 {
    (0..k).fold(1 % p, |acc, _| (acc * 2) % p)
}

impl Form {
    fn constant(v: u128, p: u128) -> Self {
        Form {
            terms: BTreeMap::new(),
            constant: v % p,
        }
    }

    fn term(e: ExprId, p: u128) -> Self {
        Form {
            terms: BTreeMap::from([(e, 1 % p)]),
            constant: 0,
        }
    }

    /// `self + k · other`.
    fn add_scaled(mut self, other: &Form, k: u128, p: u128) -> Self {
        for (&t, &c) in &other.terms {
            let slot = self.terms.entry(t).or_insert(0);
            *slot = (*slot + mul_mod(c, k, p)) % p;
            if *slot == 0 {
                self.terms.remove(&t);
            }
        }
        self.constant = (self.constant + mul_mod(other.constant, k, p)) % p;
        self
    }

    fn scaled(&self, k: u128, p: u128) -> Self {
        Form::constant(0, p).add_scaled(self, k, p)
    }

    fn plus_constant(mut self, k: u128, p: u128) -> Self {
        self.constant = (self.constant + k % p) % p;
        self
    }
}

/// The bound a form was built under: `x` in `[lo, hi]`, for `depth` more levels.
type Context = Option<(ExprId, u128, u128, u32)>;

/// Linear forms modulo one `p`, for one query.
struct Forms<'r, 'p> {
    ranges: &'r mut Rewriter<'p>,
    p: u128,
    /// Forms of nodes, by the context they were built in.
    memo: FxHashMap<(ExprId, Context), Option<Form>>,
    built: usize,
}

impl Forms<'_, '_> {
    /// The form of `e`, with `x` in `ix` on the way down (`ctx`, for `depth` more levels).
    fn form(&mut self, e: ExprId, ctx: Option<(ExprId, Interval)>, depth: u32) -> Option<Form> {
        let ctx = ctx.filter(|_| depth > 0);
        let key = (e, ctx.map(|(x, i)| (x, i.lo, i.hi, depth)));
        if let Some(f) = self.memo.get(&key) {
            return f.clone();
        }
        self.built += 1;
        if self.built > NODE_LIMIT {
            return None;
        }
        let f = self.build(e, ctx, depth);
        self.memo.insert(key, f.clone());
        f
    }

    fn interval(&mut self, e: ExprId, ctx: Option<(ExprId, Interval)>, depth: u32) -> Interval {
        match ctx {
            Some((x, ix)) if depth > 0 => self.ranges.interval_assuming(e, x, ix, depth),
            _ => self.ranges.interval(e),
        }
    }

    fn build(&mut self, e: ExprId, ctx: Option<(ExprId, Interval)>, depth: u32) -> Option<Form> {
        let pool = self.ranges.pool;
        let p = self.p;
        let w = pool.width(e);
        let down = depth.saturating_sub(1);
        let max = mask(w, u128::MAX);
        // `2^w mod p`: what one wrap of a `w`-bit operation takes away.
        let wrap = pow2_mod(w, p);
        let opaque = || Some(Form::term(e, p));
        match pool.node(e) {
            Node::Const { value, .. } => Some(Form::constant(value, p)),
            Node::ZExt { arg, .. } => self.form(arg, ctx, down),
            Node::Extract { arg, lo: 0, width } => {
                if self.interval(arg, ctx, down).bits() <= width {
                    self.form(arg, ctx, down)
                } else {
                    opaque()
                }
            }
            Node::Ite { cond, then, els } => {
                let Some((x, yes, no)) = self.ranges.unsigned_split(cond) else {
                    let (t, f) = (self.form(then, ctx, down), self.form(els, ctx, down));
                    return if t.is_some() && t == f { t } else { opaque() };
                };
                // Within a context on the same `x`, both bounds hold; a side left with no
                // value of `x` is never taken, and its form does not matter.
                let (yes, no) = match ctx {
                    Some((cx, cix)) if cx == x => (yes.meet(cix), no.meet(cix)),
                    _ => (
                        Some(yes).filter(|i| i.lo <= i.hi),
                        Some(no).filter(|i| i.lo <= i.hi),
                    ),
                };
                let t = yes.map(|i| self.form(then, Some((x, i)), CONTEXT_DEPTH));
                let f = no.map(|i| self.form(els, Some((x, i)), CONTEXT_DEPTH));
                match (t, f) {
                    (Some(Some(t)), Some(Some(f))) if t == f => Some(t),
                    (None, Some(Some(one))) | (Some(Some(one)), None) => Some(one),
                    _ => opaque(),
                }
            }
            Node::Binary { op, lhs, rhs } => {
                let (ia, ib) = (self.interval(lhs, ctx, down), self.interval(rhs, ctx, down));
                match op {
                    BinOp::Add => {
                        let (Some(lo), Some(hi)) =
                            (ia.lo.checked_add(ib.lo), ia.hi.checked_add(ib.hi))
                        else {
                            return opaque();
                        };
                        // Wraps of the sum: the same number at both ends, or the form is
                        // not linear. (At 128 bits the checked sums show there are none.)
                        let wraps = |v: u128| if w < 128 { v >> w } else { 0 };
                        let wraps = match (wraps(lo), wraps(hi)) {
                            (l, h) if l == h => l,
                            _ => return opaque(),
                        };
                        let (fa, fb) = (self.form(lhs, ctx, down)?, self.form(rhs, ctx, down)?);
                        let sum = fa.add_scaled(&fb, 1, p);
                        Some(sum.plus_constant(p - mul_mod(wrap, wraps, p), p))
                    }
                    BinOp::Sub if ia.lo >= ib.hi => {
                        let (fa, fb) = (self.form(lhs, ctx, down)?, self.form(rhs, ctx, down)?);
                        Some(fa.add_scaled(&fb, p - 1 % p, p))
                    }
                    BinOp::Mul | BinOp::Shl => {
                        let (x, ix, k) = match (op, pool.as_const(lhs), pool.as_const(rhs)) {
                            (BinOp::Mul, Some(k), _) => (rhs, ib, k),
                            (BinOp::Mul, _, Some(k)) => (lhs, ia, k),
                            (BinOp::Shl, _, Some(s)) if s < u128::from(w) => (lhs, ia, 1u128 << s),
                            _ => return opaque(),
                        };
                        if ix.hi.checked_mul(k).is_none_or(|v| v > max) {
                            return opaque();
                        }
                        Some(self.form(x, ctx, down)?.scaled(k, p))
                    }
                    BinOp::And => {
                        // A mask that keeps every bit the other operand can have.
                        let (x, ix, m) = match (pool.as_const(lhs), pool.as_const(rhs)) {
                            (Some(m), _) => (rhs, ib, m),
                            (_, Some(m)) => (lhs, ia, m),
                            _ => return opaque(),
                        };
                        if m == max || (m & (m + 1) == 0 && ix.hi <= m) {
                            self.form(x, ctx, down)
                        } else {
                            opaque()
                        }
                    }
                    BinOp::URem => match pool.as_const(rhs) {
                        Some(c) if c > 0 && c % p == 0 => self.form(lhs, ctx, down),
                        _ => opaque(),
                    },
                    _ => opaque(),
                }
            }
            _ => opaque(),
        }
    }
}

impl Rewriter<'_> {
    /// Whether `a = b` on every assignment that satisfies the constraints, by congruence
    /// modulo one of `moduli`, or field by field.
    pub(super) fn congruent(&mut self, a: ExprId, b: ExprId, moduli: &[u128]) -> bool {
        self.congruent_within(a, b, moduli, FIELD_DEPTH)
    }

    fn congruent_within(&mut self, a: ExprId, b: ExprId, moduli: &[u128], depth: u32) -> bool {
        if a == b {
            return true;
        }
        let (ia, ib) = (self.interval(a), self.interval(b));
        let (lo, hi) = (ia.lo.min(ib.lo), ia.hi.max(ib.hi));
        let by_form = moduli.iter().any(|&p| {
            if hi - lo >= p {
                return false;
            }
            let mut forms = Forms {
                ranges: self,
                p,
                memo: FxHashMap::default(),
                built: 0,
            };
            let fa = forms.form(a, None, 0);
            fa.is_some() && fa == forms.form(b, None, 0)
        });
        if by_form || depth == 0 {
            return by_form;
        }
        // Field by field: `a = b` exactly when their low `k` bits and their high bits are
        // equal, for the `k` at which either packs a field with a shift.
        let w = self.pool.width(a);
        let mut shifts = Vec::new();
        self.shifts(a, SHIFT_SEARCH_DEPTH, &mut shifts);
        self.shifts(b, SHIFT_SEARCH_DEPTH, &mut shifts);
        shifts.sort_unstable();
        shifts.dedup();
        shifts.into_iter().filter(|&k| k > 0 && k < w).any(|k| {
            let (la, ha) = self.split(a, k, SPLIT_DEPTH);
            let (lb, hb) = self.split(b, k, SPLIT_DEPTH);
            self.congruent_within(la, lb, moduli, depth - 1)
                && self.congruent_within(ha, hb, moduli, depth - 1)
        })
    }

    /// The constant amounts of left shifts near the top of `e` (through bitwise operators,
    /// sums and `ite`s).
    fn shifts(&self, e: ExprId, depth: u32, out: &mut Vec<u32>) {
        if depth == 0 {
            return;
        }
        match self.pool.node(e) {
            Node::Binary {
                op: BinOp::Shl,
                rhs,
                ..
            } => out.extend(self.pool.as_const(rhs).and_then(|k| u32::try_from(k).ok())),
            Node::Binary {
                op: BinOp::Or | BinOp::Xor | BinOp::And | BinOp::Add,
                lhs,
                rhs,
            } => {
                self.shifts(lhs, depth - 1, out);
                self.shifts(rhs, depth - 1, out);
            }
            Node::Ite { then, els, .. } => {
                self.shifts(then, depth - 1, out);
                self.shifts(els, depth - 1, out);
            }
            _ => {}
        }
    }

    /// `e`'s bits `0..k` and bits `k..w` as values of `k` and `w - k` bits, pushed through
    /// bitwise operators, `ite`s, left shifts and sums whose low fields cannot carry, so
    /// that each field's reductions stay visible to the forms.
    fn split(&mut self, e: ExprId, k: u32, depth: u32) -> (ExprId, ExprId) {
        let pool = self.pool;
        let w = pool.width(e);
        let plain = |s: &mut Self| {
            if s.interval(e).bits() <= k {
                (pool.extract(e, 0, k), pool.zero(w - k))
            } else {
                (pool.extract(e, 0, k), pool.extract(e, k, w - k))
            }
        };
        if depth == 0 || self.interval(e).bits() <= k {
            return plain(self);
        }
        match pool.node(e) {
            Node::Binary {
                op: op @ (BinOp::Or | BinOp::Xor | BinOp::And | BinOp::Add),
                lhs,
                rhs,
            } => {
                let (la, ha) = self.split(lhs, k, depth - 1);
                let (lb, hb) = self.split(rhs, k, depth - 1);
                if op == BinOp::Add {
                    // The low fields' sum must stay below 2^k: no carry into the high one.
                    let (ia, ib) = (self.interval(la), self.interval(lb));
                    if ia.hi.checked_add(ib.hi).is_none_or(|s| s >> k != 0) {
                        return plain(self);
                    }
                }
                (pool.binary(op, la, lb), pool.binary(op, ha, hb))
            }
            Node::Binary {
                op: BinOp::Shl,
                lhs,
                rhs,
            } => match pool.as_const(rhs) {
                Some(s) if s >= u128::from(k) && s < u128::from(w) => {
                    let up = pool.shl(lhs, pool.constant(w, s - u128::from(k)));
                    (pool.zero(k), pool.extract(up, 0, w - k))
                }
                _ => plain(self),
            },
            Node::Ite { cond, then, els } => {
                let (lt, ht) = self.split(then, k, depth - 1);
                let (lf, hf) = self.split(els, k, depth - 1);
                (pool.ite(cond, lt, lf), pool.ite(cond, ht, hf))
            }
            _ => plain(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::{Assignment, ExprId, ExprPool};
    use crate::solver::rewrite_with_bounds;

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// A sum reduced modulo `p` once (`urem`), against the same terms reduced after every
    /// addition in one of several spellings, sometimes changed so that they differ, packed
    /// into fields or not: wherever the rewriting replaces the query, the new query has the
    /// old one's value on every input that satisfies the constraints (two input bytes, the
    /// first exhaustively). Enough of them must be proved for the check to mean something.
    #[test]
    fn congruence_proofs_agree_with_evaluation() {
        let pool = ExprPool::new();
        let (ax, ay) = (pool.new_array("x", 1), pool.new_array("y", 1));
        let (x, y) = (pool.sym(ax, 0), pool.sym(ay, 0));
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut proved, mut cases) = (0, 0);
        for case in 0..400 {
            // A quarter at 8 bits, where the sums wrap.
            let w = if case % 4 == 0 { 8 } else { 16 };
            let k = |v: u64| pool.constant(w, u128::from(v) & ((1 << w) - 1));
            let ext = |v: ExprId| if w == 8 { v } else { pool.zext(v, w) };
            let p = [3, 7, 10, 100, 251, 255][rng.below(6) as usize];
            let n = 1 + rng.below(4);
            let terms: Vec<ExprId> = (0..n)
                .map(|_| match rng.below(5) {
                    0 => ext(x),
                    1 => ext(y),
                    2 => pool.mul(ext(x), k(1 + rng.below(5))),
                    3 => pool.shl(ext(y), k(rng.below(3))),
                    _ => k(rng.below(300)),
                })
                .collect();
            let reduce = |rng: &mut Rng, v: ExprId, p: u64| match rng.below(4) {
                0 => pool.urem(v, k(p)),
                1 => pool.ite(pool.ule(k(p), v), pool.sub(v, k(p)), v),
                2 => pool.ite(pool.ult(k(p - 1), v), pool.add(v, k((1 << w) - p)), v),
                _ => pool.urem(pool.urem(v, k(p)), k(p)),
            };
            let once = pool.urem(terms.iter().fold(k(0), |acc, &t| pool.add(acc, t)), k(p));
            let mut running = k(0);
            let wrong = rng.below(4) == 0;
            for (i, &t) in terms.iter().enumerate() {
                let t = if wrong && i == 0 {
                    pool.add(t, k(1))
                } else {
                    t
                };
                let q = if wrong && i == 1 { p + 1 } else { p };
                running = reduce(&mut rng, pool.add(running, t), q);
            }
            // The running reductions of a sum over 2p are not all below p: a wrong case too.
            let last = pool.urem(running, k(p));
            let running = if rng.below(2) == 0 { last } else { running };
            let (a, b) = if w == 16 && rng.below(3) == 0 {
                let pack = |lo: ExprId, hi: ExprId| pool.or(lo, pool.shl(hi, k(8)));
                (pack(once, running), pack(running, once))
            } else {
                (once, running)
            };
            let constraints = match rng.below(3) {
                0 => vec![],
                1 => vec![pool.ult(x, pool.constant(8, u128::from(1 + rng.below(255))))],
                _ => vec![
                    pool.ult(x, pool.constant(8, u128::from(1 + rng.below(100)))),
                    pool.ule(y, pool.constant(8, u128::from(rng.below(256)))),
                ],
            };
            let query = pool.ne(a, b);
            let new = rewrite_with_bounds(&pool, &constraints, query);
            cases += 1;
            if new == pool.false_() {
                proved += 1;
            }
            if new == query {
                continue;
            }
            for xv in 0..=255u8 {
                for yv in [0u8, 1, 2, 7, 64, 99, 100, 127, 128, 200, 250, 254, 255] {
                    let mut asg = Assignment::new();
                    asg.set(ax, vec![xv]);
                    asg.set(ay, vec![yv]);
                    if constraints.iter().all(|&c| pool.eval_bool(c, &asg)) {
                        assert_eq!(
                            pool.eval(new, &asg),
                            pool.eval(query, &asg),
                            "x = {xv}, y = {yv}: {} rewritten to {}",
                            pool.to_sexp(query),
                            pool.to_sexp(new)
                        );
                    }
                }
            }
        }
        assert!(proved * 10 >= cases, "only {proved} of {cases} proved");
    }
}
