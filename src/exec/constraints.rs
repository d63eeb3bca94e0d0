//! The path condition, kept simplified: what it already implies answers questions without
//! the solver.
//!
//! Two facts are learned from each added constraint:
//! - **known bytes** (implied-value concretization): `eq(5, n[0])` fixes a symbolic byte,
//!   which is then substituted into every later query and into the other constraints
//!   (constraint-set simplification: `x < 10` becomes true once `x = 5` is known);
//! - **ranges**: comparisons of a term with a constant (possibly through `+ constant`)
//!   narrow the set of values the term can take; a branch whose condition is decided by the
//!   ranges needs no query, and a range that shrinks to one value becomes a known value.
//!
//! The defining equalities stay in the list, so that solver models respect them.

use crate::expr::pieces::{comparison_pieces, complement, full, shift, Pieces};
use crate::expr::subst::KnownBytes;
use crate::expr::{mask, to_signed, BinOp, ExprId, ExprPool, Node, UnOp};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// More intervals than this are not tracked (the set is then widened, which stays sound).
const MAX_PIECES: usize = 16;

#[derive(Clone, Debug, Default)]
pub struct ConstraintSet {
    list: Vec<ExprId>,
    /// The members of `list`, so that a condition already on the path (as when B tests
    /// what A tested) is decided without the solver.
    members: rustc_hash::FxHashSet<ExprId>,
    known: KnownBytes,
    /// The values each term may take; a set is shared between forked states until one of
    /// them narrows it.
    ranges: FxHashMap<ExprId, Arc<Pieces>>,
}

crate::counters::counters! {
    /// Counters of what the path condition answered without the solver (a check's report
    /// counters, in this order).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct ConstraintStats {
        /// Branch conditions or queries folded to a constant by known bytes.
        decided_by_substitution: u64 = "branches decided by known values",
        /// Branch conditions decided by ranges.
        decided_by_ranges: u64 = "branches decided by ranges",
        /// Symbolic bytes whose value became known.
        implied_values: u64 = "implied values",
        /// Constraints dropped because the others imply them.
        redundant: u64 = "redundant constraints dropped",
        /// Branch conditions decided because they (or their negation) are on the path
        /// already.
        decided_by_membership: u64 = "branches decided by the path condition",
    }
}

impl ConstraintSet {
    pub fn as_slice(&self) -> &[ExprId] {
        &self.list
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// `e` with every known byte substituted.
    pub fn simplify(&self, pool: &ExprPool, e: ExprId) -> ExprId {
        pool.substitute(e, &self.known, &mut FxHashMap::default())
    }

    /// The signed range of `term`'s values the path allows, when the path bounds it.
    pub fn signed_bounds(&self, pool: &ExprPool, term: ExprId) -> Option<(i128, i128)> {
        let pieces = self.ranges.get(&term)?;
        let w = pool.width(term);
        if w == 0 || w > 128 || pieces.is_empty() {
            return None;
        }
        let smin = 1u128 << (w - 1);
        let neg = pieces.iter().find(|p| p.1 >= smin).map(|p| p.0.max(smin));
        let neg_last = pieces.iter().rev().find(|p| p.1 >= smin).map(|p| p.1);
        let nonneg_first = pieces.iter().find(|p| p.0 < smin).map(|p| p.0);
        let nonneg = pieces
            .iter()
            .rev()
            .find(|p| p.0 < smin)
            .map(|p| p.1.min(smin - 1));
        let lo = match (neg, nonneg_first) {
            (Some(n), _) => to_signed(w, n),
            (None, Some(x)) => x as i128,
            _ => return None,
        };
        let hi = match (nonneg, neg_last) {
            (Some(x), _) => x as i128,
            (None, Some(n)) => to_signed(w, n),
            _ => return None,
        };
        Some((lo, hi))
    }

    /// Whether the path condition decides `cond` (width 1): `Some(value)` if it must have it.
    pub fn decide(
        &self,
        pool: &ExprPool,
        cond: ExprId,
        stats: &mut ConstraintStats,
    ) -> Option<bool> {
        self.decide_simplified(pool, self.simplify(pool, cond), stats)
    }

    /// [`decide`](Self::decide) for a condition already passed through [`simplify`](Self::simplify).
    pub fn decide_simplified(
        &self,
        pool: &ExprPool,
        c: ExprId,
        stats: &mut ConstraintStats,
    ) -> Option<bool> {
        if let Some(v) = pool.as_const(c) {
            stats.decided_by_substitution += 1;
            return Some(v != 0);
        }
        if self.members.contains(&c) {
            stats.decided_by_membership += 1;
            return Some(true);
        }
        let negated = match pool.node(c) {
            Node::Unary { op: UnOp::Not, arg } if pool.width(c) == 1 => arg,
            _ => pool.bool_not(c),
        };
        if self.members.contains(&negated) {
            stats.decided_by_membership += 1;
            return Some(false);
        }
        let (term, yes) = range_of(pool, c)?;
        let allowed = self.ranges.get(&term)?;
        let verdict = if is_subset(allowed, &yes) {
            Some(true)
        } else if intersect(allowed, &yes).is_empty() {
            Some(false)
        } else {
            None
        };
        if verdict.is_some() {
            stats.decided_by_ranges += 1;
        }
        verdict
    }

    /// Adds `c`, which the caller knows to be satisfiable together with the others.
    pub fn add(&mut self, pool: &ExprPool, c: ExprId, stats: &mut ConstraintStats) {
        let c = self.simplify(pool, c);
        match pool.as_const(c) {
            Some(0) => {
                // Cannot happen for a feasible path; keep the evidence for the solver.
                self.push(c);
                return;
            }
            Some(_) => {
                stats.redundant += 1;
                return;
            }
            None => {}
        }
        self.push(c);
        let top = c;
        let mut pending = vec![c];
        let mut learned_bytes = false;
        while let Some(c) = pending.pop() {
            match pool.node(c) {
                Node::Binary {
                    op: BinOp::And,
                    lhs,
                    rhs,
                } if pool.width(c) == 1 => {
                    pending.push(lhs);
                    pending.push(rhs);
                }
                Node::Binary {
                    op: BinOp::Eq,
                    lhs,
                    rhs,
                } if is_byte_equality(pool, lhs, rhs) => {
                    if let (Some(v), Node::Sym { array, offset }) =
                        (pool.as_const(lhs), pool.node(rhs))
                    {
                        if self.known.insert((array, offset), v as u8).is_none() {
                            stats.implied_values += 1;
                            learned_bytes = true;
                            // A byte fixed inside a conjunction keeps its own defining
                            // equality: the conjunction itself becomes true once the byte is
                            // substituted, and solver models must still respect the value.
                            if c != top {
                                self.push(c);
                            }
                        }
                    }
                }
                _ => {
                    if let Some((term, pieces)) = range_of(pool, c) {
                        let (was_single, narrowed) = self.narrow(pool, term, &pieces);
                        if let [(lo, hi)] = narrowed[..] {
                            if lo == hi && !was_single {
                                // One value left: an implied equality.
                                let eq = pool.eq(pool.constant(pool.width(term), lo), term);
                                if pool.as_const(eq).is_none() {
                                    self.push(eq);
                                    pending.push(eq);
                                }
                            }
                        }
                    }
                }
            }
        }
        if learned_bytes {
            self.resimplify(pool, stats);
        }
    }

    /// Rewrites every constraint with the known bytes, dropping those that became true, and
    /// recomputes the ranges over the rewritten terms.
    fn resimplify(&mut self, pool: &ExprPool, stats: &mut ConstraintStats) {
        let mut memo = FxHashMap::default();
        let mut kept = Vec::with_capacity(self.list.len());
        for &c in &self.list {
            if let Node::Binary {
                op: BinOp::Eq,
                lhs,
                rhs,
            } = pool.node(c)
            {
                if is_byte_equality(pool, lhs, rhs) {
                    kept.push(c);
                    continue;
                }
            }
            let s = pool.substitute(c, &self.known, &mut memo);
            if pool.as_const(s).is_some_and(|v| v != 0) {
                stats.redundant += 1;
            } else {
                kept.push(s);
            }
        }
        self.ranges.clear();
        for &c in &kept {
            if let Some((term, pieces)) = range_of(pool, c) {
                self.narrow(pool, term, &pieces);
            }
        }
        self.members = kept.iter().copied().collect();
        self.list = kept;
    }

    fn push(&mut self, c: ExprId) {
        self.list.push(c);
        self.members.insert(c);
    }
}

impl ConstraintSet {
    /// Intersects the values allowed for `term` with `pieces`; returns whether the term was
    /// already pinned to one value, and the narrowed set.
    fn narrow(&mut self, pool: &ExprPool, term: ExprId, pieces: &Pieces) -> (bool, Pieces) {
        let known = self.ranges.get(&term);
        let whole;
        let current: &Pieces = match known {
            Some(current) => current,
            None => {
                whole = full(pool.width(term));
                &whole
            }
        };
        let was_single = matches!(current[..], [(lo, hi)] if lo == hi);
        let narrowed = widen(intersect(current, pieces));
        if known.is_none() || narrowed != *current {
            self.ranges.insert(term, Arc::new(narrowed.clone()));
        }
        (was_single, narrowed)
    }
}

/// `eq(constant, byte)` that defines a known byte.
fn is_byte_equality(pool: &ExprPool, lhs: ExprId, rhs: ExprId) -> bool {
    pool.as_const(lhs).is_some() && matches!(pool.node(rhs), Node::Sym { .. })
}

/// The term a comparison with a constant constrains, and the values it allows for that term.
fn range_of(pool: &ExprPool, c: ExprId) -> Option<(ExprId, Pieces)> {
    let (negated, c) = match pool.node(c) {
        Node::Unary { op: UnOp::Not, arg } if pool.width(c) == 1 => (true, arg),
        _ => (false, c),
    };
    let (t, pieces) = comparison_pieces(pool, c)?;
    let w = pool.width(t);
    let pieces = if negated {
        complement(&pieces, mask(w, u128::MAX))
    } else {
        pieces
    };
    // Look through `d + e`: constrain `e` instead.
    if let Node::Binary {
        op: BinOp::Add,
        lhs,
        rhs,
    } = pool.node(t)
    {
        if let Some(d) = pool.as_const(lhs) {
            return Some((rhs, shift(&pieces, d, w)));
        }
    }
    Some((t, pieces))
}

fn intersect(a: &Pieces, b: &Pieces) -> Pieces {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo <= hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

fn is_subset(a: &Pieces, b: &Pieces) -> bool {
    intersect(a, b) == *a
}

/// Keeps at most `MAX_PIECES` pieces by joining the closest neighbours (a superset).
fn widen(mut p: Pieces) -> Pieces {
    while p.len() > MAX_PIECES {
        let (k, _) = p
            .windows(2)
            .enumerate()
            .min_by_key(|(_, w)| w[1].0 - w[0].1)
            .expect("more than one piece");
        p[k].1 = p[k + 1].1;
        p.remove(k + 1);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::pieces::signed_range;

    fn x32(pool: &ExprPool) -> ExprId {
        let n = pool.new_array("n", 4);
        let bytes: Vec<ExprId> = (0..4).map(|i| pool.sym(n, i)).collect();
        pool.concat_bytes(&bytes)
    }

    #[test]
    fn a_chain_of_bounds_pins_the_value() {
        let pool = ExprPool::new();
        let n = x32(&pool);
        let mut set = ConstraintSet::default();
        let mut stats = ConstraintStats::default();
        set.add(&pool, pool.ule(n, pool.constant(32, 16)), &mut stats);
        for k in 0..5u128 {
            let t = pool.add(n, pool.constant(32, mask(32, 0u128.wrapping_sub(k))));
            set.add(&pool, pool.ult(pool.constant(32, 1), t), &mut stats);
        }
        // n - 5 <= 1 with n - 4 > 1: n is 6.
        let t = pool.add(n, pool.constant(32, mask(32, 0u128.wrapping_sub(5))));
        set.add(&pool, pool.ule(t, pool.constant(32, 1)), &mut stats);
        let product = pool.mul(n, pool.add(n, pool.constant(32, 1)));
        assert_eq!(pool.as_const(set.simplify(&pool, product)), Some(42));
        assert_eq!(stats.implied_values, 4);
    }

    #[test]
    fn ranges_decide_branches() {
        let pool = ExprPool::new();
        let n = x32(&pool);
        let mut set = ConstraintSet::default();
        let mut stats = ConstraintStats::default();
        set.add(&pool, pool.ult(n, pool.constant(32, 10)), &mut stats);
        assert_eq!(
            set.decide(&pool, pool.ult(n, pool.constant(32, 20)), &mut stats),
            Some(true)
        );
        assert_eq!(
            set.decide(&pool, pool.ugt(n, pool.constant(32, 12)), &mut stats),
            Some(false)
        );
        assert_eq!(
            set.decide(&pool, pool.ult(n, pool.constant(32, 5)), &mut stats),
            None
        );
        assert_eq!(
            set.decide(&pool, pool.sge(n, pool.constant(32, 0)), &mut stats),
            Some(true)
        );
    }

    #[test]
    fn equalities_make_other_constraints_redundant() {
        let pool = ExprPool::new();
        let n = pool.new_array("c", 1);
        let c = pool.sym(n, 0);
        let mut set = ConstraintSet::default();
        let mut stats = ConstraintStats::default();
        set.add(&pool, pool.ult(c, pool.constant(8, 10)), &mut stats);
        set.add(&pool, pool.eq(pool.constant(8, 5), c), &mut stats);
        assert_eq!(set.len(), 1, "x < 10 became true once x = 5");
        assert_eq!(stats.redundant, 1);
    }

    #[test]
    fn a_pinned_term_that_is_not_bytes_is_learned_once() {
        let pool = ExprPool::new();
        let a = pool.new_array("a", 2);
        let t = pool.ite(
            pool.ult(pool.sym(a, 0), pool.sym(a, 1)),
            pool.sym(a, 0),
            pool.sym(a, 1),
        );
        let mut set = ConstraintSet::default();
        let mut stats = ConstraintStats::default();
        set.add(&pool, pool.ule(t, pool.constant(8, 5)), &mut stats);
        set.add(&pool, pool.ule(pool.constant(8, 5), t), &mut stats);
        set.add(&pool, pool.ule(t, pool.constant(8, 9)), &mut stats);
        assert_eq!(
            set.decide(&pool, pool.eq(t, pool.constant(8, 5)), &mut stats),
            Some(true)
        );
    }

    #[test]
    fn interval_helpers() {
        assert_eq!(complement(&vec![(2, 3)], 7), vec![(0, 1), (4, 7)]);
        assert_eq!(shift(&vec![(0, 1)], 1, 8), vec![(0, 0), (255, 255)]);
        assert_eq!(signed_range(8, 0xfe, 0x01), vec![(0, 1), (0xfe, 0xff)]);
        assert_eq!(
            widen((0..20).map(|i| (i * 4, i * 4 + 1)).collect()).len(),
            MAX_PIECES
        );
    }
}
