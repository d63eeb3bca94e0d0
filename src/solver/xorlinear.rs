//! XOR-linear normal form: every bit of a term as an exclusive or of *atoms* (input bits, and
//! bits of sub-terms that are not XOR-linear) and a constant, over GF(2). A query whose form
//! is the constant false is unsatisfiable whatever the atoms' values; the range layer
//! (`ranges.rs`) answers it `Unsat` before the backend.
//!
//! CRC-like code is linear over GF(2) in its inputs however it is spelled: bit by bit with
//! `(c >> 1) ^ (poly & -(c & 1))`, byte by byte through a table, or eight bytes at a time
//! through zlib's braided tables. Bit-blasted, the two spellings of a 47-byte CRC-32 are a
//! miter no SAT solver finishes; in this form both sides are the same 32 sums of input bits.
//! The rules are general bit-vector algebra, not idioms:
//! - `xor`, `not`, shifts and multiplications by constants, extractions, extensions and
//!   concatenations move or combine forms;
//! - `and`/`or` bits with a constant operand bit (or equal operand bits) keep a form;
//! - sums propagate their carry while it has a form (no carry, or carry equal to a bit);
//! - `ite(c, t, e)` bit by bit is `e ^ (c & (t ^ e))`, a form wherever `t ^ e` is constant:
//!   a read of a constant table at a symbolic index (a decision tree over the index bits)
//!   collapses to a form exactly when the table is affine, as CRC tables are;
//! - `a = b` is true when `a ^ b` is zero, false when a bit of it is the constant one, and
//!   `1 ^ d` when only one bit `d` of it is not constant zero.
//!
//! Any other bit is a fresh atom standing for that bit's value, so the analysis is sound for
//! every term and complete only for the affine ones. Forms are interned sorted sets of atoms (atom 0 the
//! constant one), memoized per expression across queries, and bounded by [`WORD_BUDGET`].

use crate::expr::{BinOp, ExprId, ExprPool, Node, UnOp};
use rustc_hash::FxHashMap;

/// The most atoms (4 bytes each) all interned forms may hold together, with an overhead of
/// 4 per form: about 64 MiB. Beyond it the analysis of the query gives up and the memo is
/// dropped.
pub const WORD_BUDGET: usize = 16 << 20;

/// The most expressions one query may add to the memo before the analysis gives up.
pub const NODE_BUDGET: usize = 400_000;

/// A form's id: 0 is the constant zero, 1 the constant one.
type Form = u32;
const ZERO: Form = 0;
const ONE: Form = 1;

/// The forms of every bit of the expressions seen so far (see the module's documentation).
#[derive(Default)]
pub struct XorForms {
    pool: Option<usize>,
    /// Interned forms: the sorted atoms whose exclusive or they are, atom 0 the constant one.
    forms: Vec<Box<[u32]>>,
    index: FxHashMap<Box<[u32]>, Form>,
    /// The form of each bit of an expression, least significant first.
    bits: FxHashMap<ExprId, Box<[Form]>>,
    atoms: u32,
    /// What each atom stands for: bit `j` of expression `e`, or `None` for a bit of an
    /// intermediate value (a partial product), indexed by atom - 1. Read by the tests.
    origins: Vec<Option<(ExprId, u32)>>,
    /// Input bits the constraints fix (see [`fixed_bits`]), by symbol node and bit: the
    /// forms above were computed with them, so the memo is dropped when they change.
    fixed: FxHashMap<(ExprId, u32), bool>,
    /// Atoms held by all interned forms together, and their overhead.
    words: usize,
}

/// The analysis ran out of its budget.
struct OverBudget;

impl XorForms {
    pub fn new() -> Self {
        let mut x = XorForms::default();
        x.reset();
        x
    }

    fn reset(&mut self) {
        self.forms.clear();
        self.index.clear();
        self.bits.clear();
        self.atoms = 0;
        self.origins.clear();
        self.words = 0;
        self.intern(Box::new([]));
        self.intern(Box::new([0]));
    }

    fn intern(&mut self, words: Box<[u32]>) -> Form {
        if let Some(&f) = self.index.get(&words) {
            return f;
        }
        let f = self.forms.len() as Form;
        self.words += words.len() + 4;
        self.forms.push(words.clone());
        self.index.insert(words, f);
        f
    }

    fn xor(&mut self, a: Form, b: Form) -> Form {
        if a == ZERO {
            return b;
        }
        if b == ZERO {
            return a;
        }
        if a == b {
            return ZERO;
        }
        let (x, y) = (&self.forms[a as usize], &self.forms[b as usize]);
        let mut w = Vec::with_capacity(x.len() + y.len());
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => {
                    w.push(x[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    w.push(y[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
            }
        }
        w.extend_from_slice(&x[i..]);
        w.extend_from_slice(&y[j..]);
        self.intern(w.into_boxed_slice())
    }

    fn atom(&mut self, origin: Option<(ExprId, u32)>) -> Form {
        self.origins.push(origin);
        self.atoms += 1;
        self.intern(Box::new([self.atoms]))
    }

    /// Fresh atoms for bits `from..from + n` of `x`.
    fn atoms_n(&mut self, x: ExprId, from: u32, n: u32) -> Vec<Form> {
        (from..from + n).map(|j| self.atom(Some((x, j)))).collect()
    }

    fn and_bit(&mut self, a: Form, b: Form) -> Option<Form> {
        match (a, b) {
            (ZERO, _) | (_, ZERO) => Some(ZERO),
            (ONE, x) | (x, ONE) => Some(x),
            _ if a == b => Some(a),
            _ if self.xor(a, b) == ONE => Some(ZERO),
            _ => None,
        }
    }

    fn or_bit(&mut self, a: Form, b: Form) -> Option<Form> {
        match (a, b) {
            (ONE, _) | (_, ONE) => Some(ONE),
            (ZERO, x) | (x, ZERO) => Some(x),
            _ if a == b => Some(a),
            _ if self.xor(a, b) == ONE => Some(ONE),
            _ => None,
        }
    }

    /// The majority of three bits (a sum's carry), when it has a form.
    fn maj(&mut self, a: Form, b: Form, c: Form) -> Option<Form> {
        for (x, y, z) in [(a, b, c), (a, c, b), (b, c, a)] {
            if x == y {
                return Some(x);
            }
            if self.xor(x, y) == ONE {
                return Some(z);
            }
        }
        for (x, y, z) in [(a, b, c), (b, a, c), (c, a, b)] {
            if x == ZERO {
                return self.and_bit(y, z);
            }
            if x == ONE {
                return self.or_bit(y, z);
            }
        }
        None
    }

    /// `a + b + carry` bit by bit, the value of `x` (`None`: an intermediate value); the
    /// bits above a carry without a form are atoms.
    fn add(&mut self, x: Option<ExprId>, a: &[Form], b: &[Form], mut carry: Form) -> Vec<Form> {
        let mut out = Vec::with_capacity(a.len());
        for j in 0..a.len() {
            let s = self.xor(a[j], b[j]);
            out.push(self.xor(s, carry));
            match self.maj(a[j], b[j], carry) {
                Some(c) => carry = c,
                None => {
                    for k in j + 1..a.len() {
                        let atom = self.atom(x.map(|x| (x, k as u32)));
                        out.push(atom);
                    }
                    break;
                }
            }
        }
        out
    }

    fn not(&mut self, a: &[Form]) -> Vec<Form> {
        a.iter().map(|&f| self.xor(f, ONE)).collect()
    }

    /// Is `e` (width 1) false under every assignment that satisfies `constraints`? `None`
    /// when the analysis ran out of its budget.
    pub fn always_false(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        e: ExprId,
    ) -> Option<bool> {
        let key = super::pool_key(pool);
        let fixed = fixed_bits(pool, constraints);
        if self.pool != Some(key) || self.words > WORD_BUDGET || fixed != self.fixed {
            self.reset();
            self.pool = Some(key);
            self.fixed = fixed;
        }
        match self.forms_of(pool, e) {
            Ok(bits) => Some(bits.len() == 1 && bits[0] == ZERO),
            Err(OverBudget) => {
                self.reset();
                None
            }
        }
    }

    /// The forms of every bit of `e`, computed children first without recursion.
    fn forms_of(&mut self, pool: &ExprPool, e: ExprId) -> Result<Box<[Form]>, OverBudget> {
        let mut stack = vec![(e, false)];
        let mut added = 0usize;
        while let Some((x, expanded)) = stack.pop() {
            if self.bits.contains_key(&x) {
                continue;
            }
            let node = pool.node(x);
            if !expanded {
                stack.push((x, true));
                for c in operands(pool, &node) {
                    if !self.bits.contains_key(&c) {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            added += 1;
            if added > NODE_BUDGET || self.words > WORD_BUDGET {
                return Err(OverBudget);
            }
            let bits = self.compute(pool, x, &node);
            debug_assert_eq!(bits.len(), pool.width(x) as usize);
            self.words += bits.len() + 4;
            self.bits.insert(x, bits.into_boxed_slice());
        }
        Ok(self.bits[&e].clone())
    }

    fn get(&self, e: ExprId) -> Vec<Form> {
        self.bits[&e].to_vec()
    }

    /// The forms of `x`'s bits, its operands' (as [`operands`] lists them) known.
    fn compute(&mut self, pool: &ExprPool, x: ExprId, node: &Node) -> Vec<Form> {
        let width = pool.width(x);
        match *node {
            Node::Const { value, .. } => (0..width)
                .map(|j| if value >> j & 1 == 1 { ONE } else { ZERO })
                .collect(),
            Node::Sym { .. } => (0..width)
                .map(|j| match self.fixed.get(&(x, j)) {
                    Some(&b) => Form::from(b),
                    None => self.atom(Some((x, j))),
                })
                .collect(),
            Node::Unary { op: UnOp::Not, arg } => {
                let a = self.get(arg);
                self.not(&a)
            }
            Node::Unary { op: UnOp::Neg, arg } => {
                let a = self.get(arg);
                let n = self.not(&a);
                let zero = vec![ZERO; n.len()];
                self.add(Some(x), &n, &zero, ONE)
            }
            Node::Binary { op, lhs, rhs } => self.binary(pool, x, op, lhs, rhs),
            Node::Ite { cond, then, els } => {
                let c = self.get(cond)[0];
                let (t, e) = (self.get(then), self.get(els));
                match c {
                    ONE => t,
                    ZERO => e,
                    _ => (0..t.len())
                        .map(|j| {
                            let d = self.xor(t[j], e[j]);
                            match self.and_bit(c, d) {
                                Some(cd) => self.xor(e[j], cd),
                                None => self.atom(Some((x, j as u32))),
                            }
                        })
                        .collect(),
                }
            }
            Node::Extract { arg, lo, width } => {
                self.bits[&arg][lo as usize..(lo + width) as usize].to_vec()
            }
            Node::ZExt { arg, width } => {
                let mut a = self.get(arg);
                a.resize(width as usize, ZERO);
                a
            }
            Node::SExt { arg, width } => {
                let mut a = self.get(arg);
                let top = *a.last().expect("a width of at least 1");
                a.resize(width as usize, top);
                a
            }
            Node::Concat { hi, lo } => {
                let mut a = self.get(lo);
                a.extend(self.get(hi));
                a
            }
            _ => self.atoms_n(x, 0, width),
        }
    }

    fn binary(
        &mut self,
        pool: &ExprPool,
        x: ExprId,
        op: BinOp,
        lhs: ExprId,
        rhs: ExprId,
    ) -> Vec<Form> {
        let width = pool.width(x);
        let w = width as usize;
        let amount = |e: ExprId| pool.as_const(e);
        match op {
            BinOp::Xor => {
                let (a, b) = (self.get(lhs), self.get(rhs));
                (0..w).map(|j| self.xor(a[j], b[j])).collect()
            }
            BinOp::And | BinOp::Or => {
                let (a, b) = (self.get(lhs), self.get(rhs));
                (0..w)
                    .map(|j| {
                        let f = if op == BinOp::And {
                            self.and_bit(a[j], b[j])
                        } else {
                            self.or_bit(a[j], b[j])
                        };
                        f.unwrap_or_else(|| self.atom(Some((x, j as u32))))
                    })
                    .collect()
            }
            BinOp::Add => {
                let (a, b) = (self.get(lhs), self.get(rhs));
                self.add(Some(x), &a, &b, ZERO)
            }
            BinOp::Sub => {
                let (a, b) = (self.get(lhs), self.get(rhs));
                let nb = self.not(&b);
                self.add(Some(x), &a, &nb, ONE)
            }
            BinOp::Mul => {
                let (a, c) = match (amount(lhs), amount(rhs)) {
                    (_, Some(c)) => (self.get(lhs), c),
                    (Some(c), _) => (self.get(rhs), c),
                    _ => return self.atoms_n(x, 0, width),
                };
                let mut acc = vec![ZERO; w];
                let terms: Vec<usize> = (0..w).filter(|&k| c >> k & 1 == 1).collect();
                for (i, &k) in terms.iter().enumerate() {
                    let mut shifted = vec![ZERO; k];
                    shifted.extend_from_slice(&a[..w - k]);
                    let last = (i + 1 == terms.len()).then_some(x);
                    acc = self.add(last, &acc, &shifted, ZERO);
                }
                acc
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let Some(k) = amount(rhs) else {
                    return self.atoms_n(x, 0, width);
                };
                let a = self.get(lhs);
                let k = k.min(w as u128) as usize;
                match op {
                    BinOp::Shl => {
                        let mut out = vec![ZERO; k];
                        out.extend_from_slice(&a[..w - k]);
                        out
                    }
                    _ => {
                        let fill = if op == BinOp::AShr { a[w - 1] } else { ZERO };
                        let mut out = a[k..].to_vec();
                        out.resize(w, fill);
                        out
                    }
                }
            }
            BinOp::Eq => {
                let (a, b) = (self.get(lhs), self.get(rhs));
                let d: Vec<Form> = (0..a.len()).map(|j| self.xor(a[j], b[j])).collect();
                if d.contains(&ONE) {
                    return vec![ZERO];
                }
                let open: Vec<Form> = d.into_iter().filter(|&f| f != ZERO).collect();
                match open[..] {
                    [] => vec![ONE],
                    [f] => vec![self.xor(f, ONE)],
                    _ => vec![self.atom(Some((x, 0)))],
                }
            }
            _ => self.atoms_n(x, 0, width),
        }
    }
}

/// The operands whose forms [`XorForms::compute`] reads for `node` (none for a node whose
/// bits are atoms).
fn operands(pool: &ExprPool, node: &Node) -> Vec<ExprId> {
    match *node {
        Node::Unary {
            op: UnOp::Not | UnOp::Neg,
            arg,
        } => vec![arg],
        Node::Binary { op, lhs, rhs } => match op {
            BinOp::Xor | BinOp::And | BinOp::Or | BinOp::Add | BinOp::Sub | BinOp::Eq => {
                vec![lhs, rhs]
            }
            BinOp::Mul => match (pool.as_const(lhs), pool.as_const(rhs)) {
                (_, Some(_)) => vec![lhs],
                (Some(_), _) => vec![rhs],
                _ => vec![],
            },
            BinOp::Shl | BinOp::LShr | BinOp::AShr if pool.as_const(rhs).is_some() => vec![lhs],
            _ => vec![],
        },
        Node::Ite { cond, then, els } => vec![cond, then, els],
        Node::Extract { arg, .. } | Node::ZExt { arg, .. } | Node::SExt { arg, .. } => vec![arg],
        Node::Concat { hi, lo } => vec![hi, lo],
        _ => vec![],
    }
}

/// The input bits the constraints fix to a constant: of a value wired from input bytes
/// (concatenations, extensions, extractions), every bit of `x = K`, and the bits above the
/// highest one of `K` in `x <= K` or `x < K` (also as `K >= x`, `K > x`). Conjunctions are
/// split; the forms are computed with these bits as constants.
fn fixed_bits(pool: &ExprPool, constraints: &[ExprId]) -> FxHashMap<(ExprId, u32), bool> {
    let mut fixed = FxHashMap::default();
    let mut todo = constraints.to_vec();
    while let Some(c) = todo.pop() {
        let Node::Binary { op, lhs, rhs } = pool.node(c) else {
            continue;
        };
        let width = pool.width(lhs);
        let (x, bits) = match (op, pool.as_const(lhs), pool.as_const(rhs)) {
            (BinOp::And, _, _) if pool.width(c) == 1 => {
                todo.extend([lhs, rhs]);
                continue;
            }
            (BinOp::Eq, Some(k), None) | (BinOp::Eq, None, Some(k)) => {
                let x = if pool.as_const(lhs).is_some() {
                    rhs
                } else {
                    lhs
                };
                (
                    x,
                    (0..width).map(|j| (j, k >> j & 1 == 1)).collect::<Vec<_>>(),
                )
            }
            (BinOp::Ule | BinOp::Ult, None, Some(k)) => {
                let max = if op == BinOp::Ult {
                    match k.checked_sub(1) {
                        Some(m) => m,
                        None => continue,
                    }
                } else {
                    k
                };
                let top = 128 - max.leading_zeros();
                (lhs, (top..width).map(|j| (j, false)).collect())
            }
            _ => continue,
        };
        for (j, b) in bits {
            if let Some(bit) = wired(pool, x, j) {
                fixed.insert(bit, b);
            }
        }
    }
    fixed
}

/// The input bit (symbol node and bit) that bit `j` of `x` copies, when `x` only moves bits.
fn wired(pool: &ExprPool, x: ExprId, j: u32) -> Option<(ExprId, u32)> {
    match pool.node(x) {
        Node::Sym { .. } => Some((x, j)),
        Node::Concat { hi, lo } => {
            let w = pool.width(lo);
            if j < w {
                wired(pool, lo, j)
            } else {
                wired(pool, hi, j - w)
            }
        }
        Node::ZExt { arg, .. } if j < pool.width(arg) => wired(pool, arg, j),
        Node::Extract { arg, lo, .. } => wired(pool, arg, lo + j),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Assignment;

    use crate::solver::SplitMix as Rng;

    /// A random 16-bit term over the leaves, mostly of the operators the forms follow.
    fn term(pool: &ExprPool, rng: &mut Rng, leaves: &[ExprId], depth: u32) -> ExprId {
        let k = |rng: &mut Rng| pool.constant(16, u128::from(rng.next() as u16));
        if depth == 0 || rng.below(5) == 0 {
            return if rng.below(4) == 0 {
                k(rng)
            } else {
                leaves[rng.below(leaves.len() as u64) as usize]
            };
        }
        let a = term(pool, rng, leaves, depth - 1);
        let b = term(pool, rng, leaves, depth - 1);
        let small = |rng: &mut Rng| pool.constant(16, u128::from(rng.below(17)));
        match rng.below(16) {
            0 | 1 => pool.xor(a, b),
            2 => pool.and(a, k(rng)),
            3 => pool.or(a, k(rng)),
            4 => pool.and(a, b),
            5 => pool.add(a, b),
            6 => pool.sub(a, b),
            7 => pool.mul(a, k(rng)),
            8 => pool.shl(a, small(rng)),
            9 => pool.lshr(a, small(rng)),
            10 => pool.ashr(a, small(rng)),
            11 => pool.neg(pool.and(a, pool.constant(16, 1))),
            12 => pool.not(a),
            13 => {
                let bit = pool.extract(a, rng.below(16) as u32, 1);
                pool.ite(pool.eq(bit, pool.constant(1, 0)), b, pool.xor(b, k(rng)))
            }
            14 => pool.concat(pool.extract(a, 8, 8), pool.extract(b, 0, 8)),
            _ => pool.ite(pool.eq(a, b), a, k(rng)),
        }
    }

    /// Random terms over two input bytes: every bit of every sub-term whose form is over
    /// atoms that stand for known bits equals the exclusive or of those bits (on 3,856 of
    /// the inputs the constraint allows); a query found always false has no input of all
    /// 65,536 satisfying it and its constraint.
    #[test]
    fn forms_agree_with_evaluation_on_every_input() {
        let (mut checked, mut decided, mut fixed_used) = (0, 0, 0);
        for case in 0..150u64 {
            let pool = ExprPool::new();
            let input = pool.new_array("in", 2);
            let (x, y) = (pool.sym(input, 0), pool.sym(input, 1));
            let xy = pool.concat(y, x);
            let mut rng = Rng(case);
            let leaves = [
                xy,
                pool.zext(x, 16),
                pool.zext(y, 16),
                pool.xor(xy, pool.shl(xy, pool.constant(16, 3))),
            ];
            let a = term(&pool, &mut rng, &leaves, 5);
            // b: a respelled through identities, or (a quarter) a changed
            let b = match rng.below(4) {
                0 => pool.xor(pool.xor(a, xy), xy),
                1 => pool.sub(pool.or(a, xy), pool.and(a, xy)),
                2 => term(&pool, &mut rng, &leaves, 3),
                _ => pool.xor(
                    a,
                    pool.ite(
                        pool.eq(x, pool.constant(8, 7)),
                        pool.constant(16, 4),
                        pool.constant(16, 0),
                    ),
                ),
            };
            let constraint = match rng.below(3) {
                0 => pool.ule(
                    pool.zext(y, 16),
                    pool.constant(16, u128::from(rng.below(64))),
                ),
                1 => pool.eq(x, pool.constant(8, u128::from(rng.below(256)))),
                _ => pool.true_(),
            };
            let query = pool.bool_not(pool.eq(a, b));
            let mut forms = XorForms::new();
            let verdict = forms.always_false(&pool, &[constraint], query);
            fixed_used += usize::from(!forms.fixed.is_empty());
            let mut sat = false;
            let nodes: Vec<(ExprId, Box<[Form]>)> =
                forms.bits.iter().map(|(&e, f)| (e, f.clone())).collect();
            for v in 0..=u16::MAX {
                let mut m = Assignment::new();
                m.set(input, v.to_le_bytes().to_vec());
                let holds = pool.eval_bool(constraint, &m);
                sat |= holds && pool.eval_bool(query, &m);
                // every bit of every sub-term on a seventeenth of the inputs (the test's time)
                if !holds || v % 17 != 0 {
                    continue;
                }
                for (e, bits) in &nodes {
                    let value = pool.eval(*e, &m);
                    for (j, &f) in bits.iter().enumerate() {
                        let mut expected = false;
                        let mut known = true;
                        for &atom in forms.forms[f as usize].iter() {
                            if atom == 0 {
                                expected ^= true;
                                continue;
                            }
                            match forms.origins[atom as usize - 1] {
                                Some((o, k)) => expected ^= pool.eval(o, &m) >> k & 1 == 1,
                                None => known = false,
                            }
                        }
                        if known {
                            checked += 1;
                            assert_eq!(
                                value >> j & 1 == 1,
                                expected,
                                "case {case}, input {v:#x}, bit {j} of {}",
                                pool.to_sexp(*e)
                            );
                        }
                    }
                }
            }
            if verdict == Some(true) {
                decided += 1;
                assert!(!sat, "case {case}: found false, but an input satisfies it");
            }
        }
        eprintln!("{checked} bit values checked, {decided} of 150 queries decided, {fixed_used} with fixed bits");
        assert!(decided >= 30, "only {decided} decided");
        assert!(fixed_used >= 30, "fixed bits used in only {fixed_used}");
    }

    /// A CRC-32 byte step bit by bit against the same step by a 256-entry table read at a
    /// symbolic index (as the engine reads a constant table: a decision tree over the
    /// index bits): the same form. A table changed in one entry is not affine, and the
    /// query is left to the solver.
    #[test]
    fn a_table_crc_step_is_the_bitwise_step() {
        let table: Vec<u32> = (0..256u32)
            .map(|n| {
                (0..8).fold(n, |c, _| {
                    if c & 1 == 1 {
                        0xedb8_8320 ^ (c >> 1)
                    } else {
                        c >> 1
                    }
                })
            })
            .collect();
        for broken in [false, true] {
            let pool = ExprPool::new();
            let crc = pool.concat_bytes(
                &(0..4)
                    .map(|i| pool.sym(pool.new_array(&format!("c{i}"), 1), 0))
                    .collect::<Vec<_>>(),
            );
            let byte = pool.sym(pool.new_array("b", 1), 0);
            let mut c = pool.xor(crc, pool.zext(byte, 32));
            for _ in 0..8 {
                let low = pool.and(c, pool.constant(32, 1));
                let mask = pool.and(pool.neg(low), pool.constant(32, 0xedb8_8320));
                c = pool.xor(pool.lshr(c, pool.constant(32, 1)), mask);
            }
            let index = pool.extract(pool.xor(crc, pool.zext(byte, 32)), 0, 8);
            // the decision tree over the index bits, most significant first
            fn tree(pool: &ExprPool, index: ExprId, t: &[u32], bit: u32, base: usize) -> ExprId {
                if bit == 0 {
                    return pool.constant(32, u128::from(t[base]));
                }
                let half = 1 << (bit - 1);
                let set = pool.eq(pool.extract(index, bit - 1, 1), pool.constant(1, 1));
                pool.ite(
                    set,
                    tree(pool, index, t, bit - 1, base + half),
                    tree(pool, index, t, bit - 1, base),
                )
            }
            let mut t = table.clone();
            if broken {
                t[77] ^= 1;
            }
            let looked_up = pool.xor(
                tree(&pool, index, &t, 8, 0),
                pool.lshr(crc, pool.constant(32, 8)),
            );
            let query = pool.bool_not(pool.eq(c, looked_up));
            let mut forms = XorForms::new();
            assert_eq!(forms.always_false(&pool, &[], query), Some(!broken));
        }
    }
}
