//! Polynomials modulo `2^w`: an expression as a sum of monomials (products of atoms, the
//! subexpressions that are not sums, differences, negations, products or left shifts by
//! constants) with coefficients modulo `2^w`. Two expressions with one normal form are
//! equal for every value of their atoms, whatever their spelling: Horner's rule against the
//! expanded polynomial, `5·(i + 1)` against `5·i + 5`, `r + a·(b - 1)` against `r + a·b - a`.
//! Deciding such an identity here costs a walk of the two expressions, where bit-blasting
//! their multipliers may not finish.
//!
//! The normal form is exact: every rule is an identity of the ring `ℤ/2^w`. It is not
//! complete (a nonzero polynomial can vanish on every input, as `2^(w-1)·x·(x + 1)` does),
//! so a different form proves nothing either way, except a nonzero constant difference.

use super::{mask, BinOp, ExprId, ExprPool, Node, UnOp};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// A product of atoms, sorted, with repetition (`x·x·y`); empty for the constant monomial.
type Monomial = Vec<ExprId>;

/// Most monomials a normal form may hold: products of sums expand, and a form that grows
/// beyond this is abandoned.
const MAX_TERMS: usize = 64;
/// Highest degree of a monomial.
const MAX_DEGREE: usize = 8;
/// Most expression nodes one normalisation visits (shared nodes are visited once).
const MAX_NODES: usize = 4096;

/// `Σ coefficient · monomial`, every coefficient nonzero modulo `2^width`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poly {
    width: u32,
    terms: BTreeMap<Monomial, u128>,
}

impl Poly {
    fn constant(width: u32, c: u128) -> Poly {
        let mut terms = BTreeMap::new();
        if mask(width, c) != 0 {
            terms.insert(Vec::new(), mask(width, c));
        }
        Poly { width, terms }
    }

    fn atom(width: u32, e: ExprId) -> Poly {
        Poly {
            width,
            terms: BTreeMap::from([(vec![e], 1)]),
        }
    }

    /// The constant this polynomial is, if it has no other monomial.
    pub fn as_constant(&self) -> Option<u128> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    fn scaled(mut self, k: u128) -> Poly {
        let w = self.width;
        for c in self.terms.values_mut() {
            *c = mask(w, c.wrapping_mul(k));
        }
        self.terms.retain(|_, c| *c != 0);
        self
    }

    fn plus(mut self, other: &Poly) -> Option<Poly> {
        let w = self.width;
        for (m, &c) in &other.terms {
            let t = self.terms.entry(m.clone()).or_insert(0);
            *t = mask(w, t.wrapping_add(c));
        }
        self.terms.retain(|_, c| *c != 0);
        (self.terms.len() <= MAX_TERMS).then_some(self)
    }

    /// `self - other`.
    pub fn minus(self, other: &Poly) -> Option<Poly> {
        self.plus(&other.clone().scaled(mask(other.width, u128::MAX)))
    }

    fn times(&self, other: &Poly) -> Option<Poly> {
        let w = self.width;
        if self.terms.len().saturating_mul(other.terms.len()) > MAX_TERMS * MAX_TERMS {
            return None;
        }
        let mut terms: BTreeMap<Monomial, u128> = BTreeMap::new();
        for (m1, &c1) in &self.terms {
            for (m2, &c2) in &other.terms {
                if m1.len() + m2.len() > MAX_DEGREE {
                    return None;
                }
                let mut m: Monomial = m1.iter().chain(m2).copied().collect();
                m.sort_unstable();
                let t = terms.entry(m).or_insert(0);
                *t = mask(w, t.wrapping_add(c1.wrapping_mul(c2)));
            }
        }
        terms.retain(|_, c| *c != 0);
        (terms.len() <= MAX_TERMS).then_some(Poly { width: w, terms })
    }
}

/// Normal forms of expressions, shared subexpressions normalised once.
pub struct Normaliser<'p> {
    pool: &'p ExprPool,
    memo: FxHashMap<ExprId, Option<Poly>>,
    visits: usize,
}

impl<'p> Normaliser<'p> {
    pub fn new(pool: &'p ExprPool) -> Self {
        Normaliser {
            pool,
            memo: FxHashMap::default(),
            visits: 0,
        }
    }

    /// The normal form of `e`, or `None` when it grows beyond the limits.
    pub fn poly(&mut self, e: ExprId) -> Option<Poly> {
        if let Some(p) = self.memo.get(&e) {
            return p.clone();
        }
        self.visits += 1;
        if self.visits > MAX_NODES {
            return None;
        }
        let p = self.compute(e);
        self.memo.insert(e, p.clone());
        p
    }

    fn compute(&mut self, e: ExprId) -> Option<Poly> {
        let pool = self.pool;
        let w = pool.width(e);
        if let Some(c) = pool.as_const(e) {
            return Some(Poly::constant(w, c));
        }
        let ones = mask(w, u128::MAX);
        match pool.node(e) {
            Node::Binary { op, lhs, rhs } => match op {
                BinOp::Add => self.poly(lhs)?.plus(&self.poly(rhs)?),
                BinOp::Sub => self.poly(lhs)?.minus(&self.poly(rhs)?),
                BinOp::Mul => {
                    let l = self.poly(lhs)?;
                    l.times(&self.poly(rhs)?)
                }
                BinOp::Shl => match pool.as_const(rhs) {
                    Some(k) if k < u128::from(w) => Some(self.poly(lhs)?.scaled(1u128 << k)),
                    _ => Some(Poly::atom(w, e)),
                },
                _ => Some(Poly::atom(w, e)),
            },
            Node::Unary { op: UnOp::Neg, arg } => Some(self.poly(arg)?.scaled(ones)),
            Node::Unary { op: UnOp::Not, arg } => {
                // ~x = -x - 1.
                self.poly(arg)?.scaled(ones).plus(&Poly::constant(w, ones))
            }
            _ => Some(Poly::atom(w, e)),
        }
    }

    /// Whether `a = b` for every value of their atoms: one normal form. `false` says
    /// nothing.
    pub fn identical(&mut self, a: ExprId, b: ExprId) -> bool {
        if a == b {
            return true;
        }
        match (self.poly(a), self.poly(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// `Some(true)` when `a = b` for every value of the atoms, `Some(false)` when `a - b` is
    /// a nonzero constant (so they differ for every value), `None` otherwise.
    pub fn compare(&mut self, a: ExprId, b: ExprId) -> Option<bool> {
        let d = self.poly(a)?.minus(&self.poly(b)?)?;
        match d.as_constant()? {
            0 => Some(true),
            _ => Some(false),
        }
    }
}

/// Whether `e` is a product of two non-constant values somewhere within its sums: the
/// terms the builder's linear rules leave unnormalised, where a polynomial normal form
/// can decide what they cannot.
pub fn has_product(pool: &ExprPool, e: ExprId, depth: u32) -> bool {
    match pool.node(e) {
        Node::Binary { op, lhs, rhs } => match op {
            BinOp::Mul => pool.as_const(lhs).is_none() && pool.as_const(rhs).is_none(),
            BinOp::Add | BinOp::Sub | BinOp::Shl if depth > 0 => {
                has_product(pool, lhs, depth - 1) || has_product(pool, rhs, depth - 1)
            }
            _ => false,
        },
        Node::Unary { arg, .. } if depth > 0 => has_product(pool, arg, depth - 1),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(pool: &ExprPool, name: &str) -> ExprId {
        let a = pool.new_array(name, 4);
        pool.concat_bytes(&(0..4).map(|k| pool.sym(a, k)).collect::<Vec<_>>())
    }

    #[test]
    fn horner_and_expanded_polynomials_are_one_form() {
        let pool = ExprPool::new();
        let x = word(&pool, "x");
        let k = |v: i64| pool.constant(32, v as u128);
        // ((((7x - 3)x + 0)x + 2)x + 11)x - 5
        let mut h = pool.sub(pool.mul(k(7), x), k(3));
        for c in [0, 2, 11] {
            h = pool.add(pool.mul(h, x), k(c));
        }
        let horner = pool.sub(pool.mul(h, x), k(5));
        let x2 = pool.mul(x, x);
        let x4 = pool.mul(x2, x2);
        let x5 = pool.mul(x4, x);
        let terms = [
            pool.mul(k(7), x5),
            pool.neg(pool.mul(k(3), x4)),
            pool.mul(k(2), x2),
            pool.mul(k(11), x),
            k(-5),
        ];
        let expanded = terms.iter().fold(k(0), |s, &t| pool.add(s, t));
        let mut n = Normaliser::new(&pool);
        assert!(n.identical(horner, expanded));
        assert_eq!(n.compare(horner, expanded), Some(true));
        // One coefficient off: not the same form, and not a constant difference.
        let off = pool.add(expanded, x2);
        assert!(!n.identical(horner, off));
        assert_eq!(n.compare(horner, off), None);
        // A constant apart: they differ everywhere.
        assert_eq!(n.compare(horner, pool.add(expanded, k(1))), Some(false));
    }

    #[test]
    fn products_distribute_shifts_scale_and_complements_negate() {
        let pool = ExprPool::new();
        let (r, a, b) = (word(&pool, "r"), word(&pool, "a"), word(&pool, "b"));
        let k = |v: u128| pool.constant(32, v);
        let mut n = Normaliser::new(&pool);
        // r + a·(b - 1) = (r - a) + a·b
        let lhs = pool.add(r, pool.mul(a, pool.sub(b, k(1))));
        let rhs = pool.add(pool.sub(r, a), pool.mul(b, a));
        assert!(n.identical(lhs, rhs));
        // (a << 3)·b = 8·a·b, and ~a = -a - 1.
        assert!(n.identical(
            pool.mul(pool.shl(a, k(3)), b),
            pool.mul(k(8), pool.mul(a, b))
        ));
        assert!(n.identical(pool.not(a), pool.sub(pool.neg(a), k(1))));
        assert!(!n.identical(pool.mul(a, b), pool.mul(a, a)));
        // Atoms are opaque: a / b is not expanded, but equal atoms cancel.
        let q = pool.udiv(a, b);
        assert!(n.identical(pool.add(pool.mul(q, b), r), pool.add(r, pool.mul(b, q))));
    }

    #[test]
    fn expansion_beyond_the_limits_gives_up() {
        let pool = ExprPool::new();
        let vars: Vec<ExprId> = (0..14).map(|i| word(&pool, &format!("v{i}"))).collect();
        // (v0 + v1)(v2 + v3)…: six factors make 64 monomials, the limit; a seventh is
        // beyond it.
        let mut p = pool.constant(32, 1);
        let mut n = Normaliser::new(&pool);
        for (i, pair) in vars.chunks(2).enumerate() {
            p = pool.mul(p, pool.add(pair[0], pair[1]));
            let form = n.poly(p);
            assert_eq!(form.is_some(), i < 6, "{} factors", i + 1);
        }
    }
}
