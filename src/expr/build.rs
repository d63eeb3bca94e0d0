//! Simplifying constructors: the only way expressions are built.
//!
//! Every constructor folds constants, puts its result in the canonical form described in
//! `mod.rs`, and applies a set of cheap local rewrites (identities, linear arithmetic,
//! extract/concat merging, reads through stores). Each rewrite rule produces an
//! expression equal to its input under every assignment; the unit tests below and the
//! property tests in `tests/it/expr_props.rs` check that against concrete evaluation.
//!
//! A node is interned only when no rule applies to it, and the rules depend only on the
//! node's operator and operands. Rebuilding an interned node from its operands therefore
//! gives the same id back, which is what lets `parse_sexp(to_sexp(e))` return `e`.
//!
//! Constructors check operand sorts with `debug_assert!` only: callers must pass
//! well-sorted operands (the parser checks sorts itself before it calls them).

use super::eval::{fold_binary, fold_unary, ones, sign_extend};
use super::poly::{has_product, Normaliser};
use super::{
    mask, ArrayId, BinOp, ExprId, ExprPool, Node, Sort, UnOp, Width, INDEX_WIDTH, MAX_WIDTH,
};

/// Most operations deep [`ExprPool::extract`] takes low bits through (see `narrowed`).
/// Expressions are built bottom-up, so each extract meets operands already in narrow form;
/// the depth only has to reach through the promotions of one C expression.
const NARROW_DEPTH: u32 = 3;

/// How deep within sums [`ExprPool::eq`] looks for a product of two values before it
/// compares the polynomial normal forms of its sides.
const PRODUCT_DEPTH: u32 = 6;

/// `n` if `value` is `2^n` with `n > 0`.
fn log2_exact(value: u128) -> Option<u32> {
    (value.is_power_of_two() && value > 1).then_some(value.trailing_zeros())
}

impl ExprPool {
    // ---- Leaves ----

    /// The constant `value` (masked) of `width` bits.
    pub fn constant(&self, width: Width, value: u128) -> ExprId {
        debug_assert!((1..=MAX_WIDTH).contains(&width), "bad width {width}");
        let value = mask(width, value);
        self.intern(Node::Const { width, value }, Sort::Bv(width))
    }

    /// The width-1 constant for `b`.
    pub fn bool_const(&self, b: bool) -> ExprId {
        self.constant(1, u128::from(b))
    }

    pub fn true_(&self) -> ExprId {
        self.bool_const(true)
    }

    pub fn false_(&self) -> ExprId {
        self.bool_const(false)
    }

    /// The constant 0 of `width` bits.
    pub fn zero(&self, width: Width) -> ExprId {
        self.constant(width, 0)
    }

    /// The constant of `width` bits with every bit set.
    pub fn all_ones(&self, width: Width) -> ExprId {
        self.constant(width, ones(width))
    }

    /// Byte `offset` of the symbolic input `array` (width 8).
    pub fn sym(&self, array: ArrayId, offset: u32) -> ExprId {
        self.intern(Node::Sym { array, offset }, Sort::Bv(8))
    }

    // ---- Operators ----

    /// `(c, x)` when `id` is `op` applied to the constant `c` and `x`.
    fn const_lhs(&self, id: ExprId, op: BinOp) -> Option<(u128, ExprId)> {
        match self.node(id) {
            Node::Binary { op: o, lhs, rhs } if o == op => Some((self.as_const(lhs)?, rhs)),
            _ => None,
        }
    }

    /// `x` when `id` is `op` applied to `x`.
    fn unary_arg(&self, id: ExprId, op: UnOp) -> Option<ExprId> {
        match self.node(id) {
            Node::Unary { op: o, arg } if o == op => Some(arg),
            _ => None,
        }
    }

    /// `op` applied to `a`.
    pub fn unary(&self, op: UnOp, a: ExprId) -> ExprId {
        debug_assert!(matches!(self.sort(a), Sort::Bv(_)), "unary of an array");
        let w = self.width(a);
        if let Some(v) = self.as_const(a) {
            return self.constant(w, fold_unary(op, w, v));
        }
        // In one bit, negation changes nothing.
        if w == 1 && op == UnOp::Neg {
            return a;
        }
        match (op, self.node(a)) {
            // Both operators are involutions.
            (_, Node::Unary { op: o, arg }) if o == op => return arg,
            // Negated comparisons swap to the opposite comparison.
            (UnOp::Not, Node::Binary { op, lhs, rhs }) => {
                let flipped = match op {
                    BinOp::Ult => Some(BinOp::Ule),
                    BinOp::Ule => Some(BinOp::Ult),
                    BinOp::Slt => Some(BinOp::Sle),
                    BinOp::Sle => Some(BinOp::Slt),
                    _ => None,
                };
                if let Some(flipped) = flipped {
                    return self.binary(flipped, rhs, lhs);
                }
                // !(c ^ x) = !c ^ x.
                if let Some((c, x)) = self.const_lhs(a, BinOp::Xor) {
                    return self.xor(self.constant(w, !c), x);
                }
            }
            (UnOp::Neg, Node::Binary { op, lhs, rhs }) => {
                if op == BinOp::Sub {
                    return self.sub(rhs, lhs);
                }
                // -(c + x) = (-c) - x.
                if let Some((c, x)) = self.const_lhs(a, BinOp::Add) {
                    return self.sub(self.constant(w, c.wrapping_neg()), x);
                }
            }
            _ => {}
        }
        self.intern(Node::Unary { op, arg: a }, Sort::Bv(w))
    }

    /// `op` applied to `a` and `b`: the general entry point of every binary operator.
    pub fn binary(&self, op: BinOp, a: ExprId, b: ExprId) -> ExprId {
        debug_assert!(matches!(self.sort(a), Sort::Bv(_)), "binary of an array");
        let w = self.width(a);
        debug_assert_eq!(
            self.sort(b),
            Sort::Bv(w),
            "binary operands of unequal sorts"
        );
        let result_width = if op.is_comparison() { 1 } else { w };
        let (mut a, mut b) = (a, b);
        let (mut ca, mut cb) = (self.as_const(a), self.as_const(b));
        if let (Some(x), Some(y)) = (ca, cb) {
            return self.constant(result_width, fold_binary(op, w, x, y));
        }
        // In one bit, addition and subtraction are exclusive or, and multiplication is and.
        if w == 1 {
            match op {
                BinOp::Add | BinOp::Sub => return self.xor(a, b),
                BinOp::Mul => return self.and(a, b),
                _ => {}
            }
        }
        // Canonical order: a constant on the left, otherwise the smaller id on the left.
        if op.is_commutative() && (cb.is_some() || (ca.is_none() && b < a)) {
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut ca, &mut cb);
        }
        let simplified = match op {
            BinOp::Add => self.simplify_add(w, a, ca, b),
            BinOp::Sub => self.simplify_sub(w, a, ca, b, cb),
            BinOp::Mul => self.simplify_mul(w, ca, b),
            BinOp::And | BinOp::Or | BinOp::Xor => self.simplify_bitwise(op, w, a, ca, b),
            BinOp::Shl | BinOp::LShr | BinOp::AShr => self.simplify_shift(op, w, a, ca, cb),
            BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem => {
                self.simplify_division(op, w, a, ca, b, cb)
            }
            BinOp::Eq => self.simplify_eq(w, a, ca, b),
            BinOp::Ult | BinOp::Ule | BinOp::Slt | BinOp::Sle => {
                self.simplify_order(op, w, a, ca, b, cb)
            }
        };
        simplified.unwrap_or_else(|| {
            self.intern(Node::Binary { op, lhs: a, rhs: b }, Sort::Bv(result_width))
        })
    }

    /// `a + b`, with any constant on the left.
    fn simplify_add(&self, w: Width, a: ExprId, ca: Option<u128>, b: ExprId) -> Option<ExprId> {
        if ca == Some(0) {
            return Some(b);
        }
        // Terms that cancel: x + -y = x - y.
        if let Some(y) = self.unary_arg(b, UnOp::Neg) {
            return Some(self.sub(a, y));
        }
        if let Some(c) = ca {
            // c1 + (c2 + x) = (c1 + c2) + x, and c1 + (c2 - x) = (c1 + c2) - x.
            for op in [BinOp::Add, BinOp::Sub] {
                if let Some((c2, x)) = self.const_lhs(b, op) {
                    return Some(self.binary(op, self.constant(w, c.wrapping_add(c2)), x));
                }
            }
            return None;
        }
        if let Some(y) = self.unary_arg(a, UnOp::Neg) {
            return Some(self.sub(b, y));
        }
        // Constants move outwards: (c + x) + y = c + (x + y).
        for (side, other) in [(a, b), (b, a)] {
            if let Some((c, x)) = self.const_lhs(side, BinOp::Add) {
                return Some(self.add(self.constant(w, c), self.add(x, other)));
            }
        }
        self.normalize_sum(w, a, b)
    }

    /// `a - b`.
    fn simplify_sub(
        &self,
        w: Width,
        a: ExprId,
        ca: Option<u128>,
        b: ExprId,
        cb: Option<u128>,
    ) -> Option<ExprId> {
        if a == b {
            return Some(self.zero(w));
        }
        // x - c = (-c) + x.
        if let Some(c) = cb {
            return Some(self.add(self.constant(w, c.wrapping_neg()), a));
        }
        if ca == Some(0) {
            return Some(self.neg(b));
        }
        // c1 - (c2 - y) = (c1 - c2) + y.
        if let (Some(c), Some((c2, y))) = (ca, self.const_lhs(b, BinOp::Sub)) {
            return Some(self.add(self.constant(w, c.wrapping_sub(c2)), y));
        }
        // x - -y = x + y.
        if let Some(y) = self.unary_arg(b, UnOp::Neg) {
            return Some(self.add(a, y));
        }
        // x - (c + y) = (-c) + (x - y).
        if let Some((c, y)) = self.const_lhs(b, BinOp::Add) {
            return Some(self.add(self.constant(w, c.wrapping_neg()), self.sub(a, y)));
        }
        // (c + x) - y = c + (x - y).
        if let Some((c, x)) = self.const_lhs(a, BinOp::Add) {
            return Some(self.add(self.constant(w, c), self.sub(x, b)));
        }
        None
    }

    /// `c * b`, with any constant on the left.
    fn simplify_mul(&self, w: Width, ca: Option<u128>, b: ExprId) -> Option<ExprId> {
        // Products are not sorted as sums are: the solver took the factorial pair four times
        // slower with its products sorted.
        let c = ca?;
        if c == 0 {
            return Some(self.zero(w));
        }
        if c == 1 {
            return Some(b);
        }
        if c == ones(w) {
            return Some(self.neg(b));
        }
        if let Some(n) = log2_exact(c) {
            return Some(self.shl(b, self.constant(w, u128::from(n))));
        }
        // c1 * (c2 * x) = (c1 * c2) * x.
        let (c2, x) = self.const_lhs(b, BinOp::Mul)?;
        Some(self.mul(self.constant(w, c.wrapping_mul(c2)), x))
    }

    /// `a & b`, `a | b` or `a ^ b`, with any constant on the left.
    fn simplify_bitwise(
        &self,
        op: BinOp,
        w: Width,
        a: ExprId,
        ca: Option<u128>,
        b: ExprId,
    ) -> Option<ExprId> {
        let all = ones(w);
        if a == b {
            return Some(if op == BinOp::Xor { self.zero(w) } else { a });
        }
        if let Some(c) = ca {
            match (op, c) {
                (BinOp::And, 0) => return Some(a),
                (BinOp::Or | BinOp::Xor, 0) => return Some(b),
                (BinOp::And, c) if c == all => return Some(b),
                (BinOp::Or, c) if c == all => return Some(a),
                (BinOp::Xor, c) if c == all => return Some(self.not(b)),
                _ => {}
            }
            // c1 op (c2 op x) = (c1 op c2) op x.
            let (c2, x) = self.const_lhs(b, op)?;
            let folded = self.constant(w, fold_binary(op, w, c, c2));
            return Some(self.binary(op, folded, x));
        }
        // x op !x.
        if self.unary_arg(a, UnOp::Not) == Some(b) || self.unary_arg(b, UnOp::Not) == Some(a) {
            return Some(match op {
                BinOp::And => self.zero(w),
                _ => self.all_ones(w),
            });
        }
        if op == BinOp::Xor {
            if let Some(select) = self.branchless_select(a, b) {
                return Some(select);
            }
        }
        // Bitwise chains are left as built: sorting Kernighan's `x & (x - 1)` chains made the
        // popcount pair twice as slow in the solver.
        None
    }

    /// `a << b`, `a >>u b` or `a >>s b`.
    fn simplify_shift(
        &self,
        op: BinOp,
        w: Width,
        a: ExprId,
        ca: Option<u128>,
        cb: Option<u128>,
    ) -> Option<ExprId> {
        if ca == Some(0) || (op == BinOp::AShr && ca == Some(ones(w))) {
            return Some(a);
        }
        let n = cb?;
        if n == 0 {
            return Some(a);
        }
        if n >= u128::from(w) {
            return Some(match op {
                // Every bit becomes the sign bit.
                BinOp::AShr => self.sext(self.extract(a, w - 1, 1), w),
                _ => self.zero(w),
            });
        }
        if op == BinOp::LShr && n + 8 == u128::from(w) {
            if let Some(count) = self.swar_popcount(w, a) {
                return Some(count);
            }
        }
        // (x << c1) << c2 = x << (c1 + c2), and likewise for logical right shifts.
        if op != BinOp::AShr {
            if let Node::Binary {
                op: inner,
                lhs,
                rhs,
            } = self.node(a)
            {
                if inner == op {
                    if let Some(m) = self.as_const(rhs) {
                        return Some(self.binary(op, lhs, self.constant(w, n + m)));
                    }
                }
            }
        }
        None
    }

    /// `a / b` or `a % b`, signed or unsigned.
    fn simplify_division(
        &self,
        op: BinOp,
        w: Width,
        a: ExprId,
        ca: Option<u128>,
        b: ExprId,
        cb: Option<u128>,
    ) -> Option<ExprId> {
        let is_rem = matches!(op, BinOp::URem | BinOp::SRem);
        // x % x is 0, and so is 0 % y, even when y is 0.
        if is_rem && (a == b || ca == Some(0)) {
            return Some(self.zero(w));
        }
        // x % (1 << k) = x & ((1 << k) - 1), for every k: when k is the width or more, the
        // divisor is 0 and both sides are x.
        if op == BinOp::URem {
            if let Some((1, _)) = self.const_lhs(b, BinOp::Shl) {
                return Some(self.and(a, self.add(self.all_ones(w), b)));
            }
        }
        // Signed division of two non-negative values is unsigned division (SMT-LIB defines
        // the signed operators that way, for a zero divisor too).
        if matches!(op, BinOp::SDiv | BinOp::SRem)
            && self.sign_bit_clear(a)
            && self.sign_bit_clear(b)
        {
            let unsigned = if is_rem { BinOp::URem } else { BinOp::UDiv };
            return Some(self.binary(unsigned, a, b));
        }
        // Unsigned division of zero-extended values is done in their own width: bit-blasted
        // dividers grow with the square of the width.
        if matches!(op, BinOp::UDiv | BinOp::URem) && !matches!(cb, Some(0 | 1)) {
            let n = self.significant_width(a).max(self.significant_width(b));
            if n < w {
                let narrow = self.binary(op, self.trunc(a, n), self.trunc(b, n));
                let wide = self.zext(narrow, w);
                // x % 0 = x in any width, but x / 0 is all ones of the wide width.
                return Some(if is_rem || cb.is_some() {
                    wide
                } else {
                    self.ite(self.eq(b, self.zero(w)), self.all_ones(w), wide)
                });
            }
        }
        let c = cb?;
        let all = ones(w);
        match (op, c) {
            (BinOp::UDiv, 0) => Some(self.all_ones(w)),
            (BinOp::URem | BinOp::SRem, 0) | (BinOp::UDiv | BinOp::SDiv, 1) => Some(a),
            (BinOp::URem | BinOp::SRem, 1) => Some(self.zero(w)),
            (BinOp::SRem, c) if c == all => Some(self.zero(w)),
            (BinOp::SDiv, c) if c == all => Some(self.neg(a)),
            (BinOp::UDiv, c) => {
                log2_exact(c).map(|n| self.lshr(a, self.constant(w, u128::from(n))))
            }
            (BinOp::URem, c) => log2_exact(c).map(|_| self.and(self.constant(w, c - 1), a)),
            _ => None,
        }
    }

    /// `a == b`, with any constant on the left.
    fn simplify_eq(&self, w: Width, a: ExprId, ca: Option<u128>, b: ExprId) -> Option<ExprId> {
        if a == b {
            return Some(self.true_());
        }
        // Products the linear rules leave alone: one polynomial normal form, or a constant
        // apart (Horner's rule against the expanded polynomial).
        if w > 1 && (has_product(self, a, PRODUCT_DEPTH) || has_product(self, b, PRODUCT_DEPTH)) {
            if let Some(same) = Normaliser::new(self).compare(a, b) {
                return Some(self.bool_const(same));
            }
        }
        let c = ca?;
        if w == 1 {
            return Some(if c == 1 { b } else { self.not(b) });
        }
        // Solve c1 = c2 + x, c1 = c2 - x, c1 = c2 ^ x, c1 = !x and c1 = -x for x, in a loop
        // rather than by recursion since such chains can be long.
        let (mut c, mut x) = (c, b);
        loop {
            let (solved, inner) = match self.node(x) {
                Node::Binary { op, rhs, .. } => {
                    let Some((c2, _)) = self.const_lhs(x, op) else {
                        break;
                    };
                    let solved = match op {
                        BinOp::Add => c.wrapping_sub(c2),
                        BinOp::Sub => c2.wrapping_sub(c),
                        BinOp::Xor => c ^ c2,
                        _ => break,
                    };
                    (solved, rhs)
                }
                Node::Unary { op, arg } => (fold_unary(op, w, c), arg),
                _ => break,
            };
            c = mask(w, solved);
            x = inner;
        }
        if x != b {
            return Some(self.eq(self.constant(w, c), x));
        }
        if c == 0 {
            if let Some(bound) = self.cleared_bits_are_zero(b) {
                return Some(bound);
            }
        }
        match self.node(b) {
            Node::ZExt { arg, .. } => {
                let aw = self.width(arg);
                Some(if mask(aw, c) == c {
                    self.eq(self.constant(aw, c), arg)
                } else {
                    self.false_()
                })
            }
            Node::SExt { arg, .. } => {
                let aw = self.width(arg);
                Some(if sign_extend(aw, w, mask(aw, c)) == c {
                    self.eq(self.constant(aw, c), arg)
                } else {
                    self.false_()
                })
            }
            // A concatenation equals a constant when both halves do.
            Node::Concat { hi, lo } => {
                let lw = self.width(lo);
                let high = self.eq(self.constant(w - lw, c >> lw), hi);
                Some(self.and(high, self.eq(self.constant(lw, c), lo)))
            }
            _ => None,
        }
    }

    /// `a < b` or `a <= b`, signed or unsigned.
    fn simplify_order(
        &self,
        op: BinOp,
        w: Width,
        a: ExprId,
        ca: Option<u128>,
        b: ExprId,
        cb: Option<u128>,
    ) -> Option<ExprId> {
        let strict = matches!(op, BinOp::Ult | BinOp::Slt);
        if a == b {
            return Some(self.bool_const(!strict));
        }
        let (min, max) = match op {
            BinOp::Ult | BinOp::Ule => (0, ones(w)),
            _ => (1 << (w - 1), mask(w, (1 << (w - 1)) - 1)),
        };
        match (strict, ca, cb) {
            // Nothing is below the minimum or above the maximum.
            (true, _, Some(c)) if c == min => Some(self.false_()),
            (true, Some(c), _) if c == max => Some(self.false_()),
            (false, Some(c), _) if c == min => Some(self.true_()),
            (false, _, Some(c)) if c == max => Some(self.true_()),
            // Only the minimum is at most the minimum; only the maximum is above the rest.
            (false, _, Some(c)) if c == min => Some(self.eq(b, a)),
            (false, Some(c), _) if c == max => Some(self.eq(a, b)),
            (true, Some(c), _) if c == min => Some(self.ne(a, b)),
            (true, _, Some(c)) if c == max => Some(self.ne(a, b)),
            _ => None,
        }
    }

    pub fn add(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Add, a, b)
    }

    pub fn sub(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Sub, a, b)
    }

    pub fn mul(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Mul, a, b)
    }

    pub fn udiv(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::UDiv, a, b)
    }

    pub fn sdiv(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::SDiv, a, b)
    }

    pub fn urem(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::URem, a, b)
    }

    pub fn srem(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::SRem, a, b)
    }

    pub fn and(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::And, a, b)
    }

    pub fn or(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Or, a, b)
    }

    pub fn xor(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Xor, a, b)
    }

    pub fn shl(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Shl, a, b)
    }

    pub fn lshr(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::LShr, a, b)
    }

    pub fn ashr(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::AShr, a, b)
    }

    pub fn eq(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Eq, a, b)
    }

    /// `!(a == b)`.
    pub fn ne(&self, a: ExprId, b: ExprId) -> ExprId {
        self.not(self.eq(a, b))
    }

    pub fn ult(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Ult, a, b)
    }

    pub fn ule(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Ule, a, b)
    }

    /// `b <u a`.
    pub fn ugt(&self, a: ExprId, b: ExprId) -> ExprId {
        self.ult(b, a)
    }

    /// `b <=u a`.
    pub fn uge(&self, a: ExprId, b: ExprId) -> ExprId {
        self.ule(b, a)
    }

    pub fn slt(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Slt, a, b)
    }

    pub fn sle(&self, a: ExprId, b: ExprId) -> ExprId {
        self.binary(BinOp::Sle, a, b)
    }

    /// `b <s a`.
    pub fn sgt(&self, a: ExprId, b: ExprId) -> ExprId {
        self.slt(b, a)
    }

    /// `b <=s a`.
    pub fn sge(&self, a: ExprId, b: ExprId) -> ExprId {
        self.sle(b, a)
    }

    /// Bitwise complement.
    pub fn not(&self, a: ExprId) -> ExprId {
        self.unary(UnOp::Not, a)
    }

    /// Two's complement negation.
    pub fn neg(&self, a: ExprId) -> ExprId {
        self.unary(UnOp::Neg, a)
    }

    // ---- Booleans (width 1) ----

    pub fn bool_and(&self, a: ExprId, b: ExprId) -> ExprId {
        debug_assert_eq!(self.sort(a), Sort::Bv(1), "bool_and of a non-boolean");
        self.and(a, b)
    }

    pub fn bool_or(&self, a: ExprId, b: ExprId) -> ExprId {
        debug_assert_eq!(self.sort(a), Sort::Bv(1), "bool_or of a non-boolean");
        self.or(a, b)
    }

    pub fn bool_not(&self, a: ExprId) -> ExprId {
        debug_assert_eq!(self.sort(a), Sort::Bv(1), "bool_not of a non-boolean");
        self.not(a)
    }

    /// `!a | b`.
    pub fn implies(&self, a: ExprId, b: ExprId) -> ExprId {
        self.bool_or(self.bool_not(a), b)
    }

    /// The conjunction of `conds` (true when empty).
    pub fn and_all(&self, conds: &[ExprId]) -> ExprId {
        conds
            .iter()
            .fold(self.true_(), |acc, &c| self.bool_and(acc, c))
    }

    /// The disjunction of `conds` (false when empty).
    pub fn or_all(&self, conds: &[ExprId]) -> ExprId {
        conds
            .iter()
            .fold(self.false_(), |acc, &c| self.bool_or(acc, c))
    }

    /// `cond ? then : els`, where `cond` has width 1 and the arms have equal sorts.
    pub fn ite(&self, cond: ExprId, then: ExprId, els: ExprId) -> ExprId {
        debug_assert_eq!(
            self.sort(cond),
            Sort::Bv(1),
            "ite condition must be a boolean"
        );
        let sort = self.sort(then);
        debug_assert_eq!(self.sort(els), sort, "ite arms of unequal sorts");
        if let Some(c) = self.as_const(cond) {
            return if c == 1 { then } else { els };
        }
        if then == els {
            return then;
        }
        if let Node::Unary { op: UnOp::Not, arg } = self.node(cond) {
            return self.ite(arg, els, then);
        }
        if sort == Sort::Bv(1) {
            match (self.as_const(then), self.as_const(els)) {
                (Some(1), _) => return self.or(cond, els),
                (Some(_), _) => return self.and(self.not(cond), els),
                (_, Some(0)) => return self.and(cond, then),
                (_, Some(_)) => return self.or(self.not(cond), then),
                _ => {}
            }
        }
        // An arm that tests the same condition again knows its outcome.
        if let Node::Ite {
            cond: c, then: t, ..
        } = self.node(then)
        {
            if c == cond {
                return self.ite(cond, t, els);
            }
        }
        if let Node::Ite {
            cond: c, els: e, ..
        } = self.node(els)
        {
            if c == cond {
                return self.ite(cond, then, e);
            }
        }
        if let Some(chain) = self.min_max_chain(cond, then, els) {
            return chain;
        }
        self.intern(Node::Ite { cond, then, els }, sort)
    }

    // ---- Widths ----

    /// Bits `lo .. lo + width` of `a`.
    pub fn extract(&self, a: ExprId, lo: u32, width: Width) -> ExprId {
        let aw = self.width(a);
        debug_assert!(
            width >= 1 && lo.checked_add(width).is_some_and(|end| end <= aw),
            "extract {lo}+{width} out of a {aw}-bit value"
        );
        if lo == 0 && width == aw {
            return a;
        }
        match self.node(a) {
            Node::Const { value, .. } => self.constant(width, value >> lo),
            Node::Extract { arg, lo: inner, .. } => self.extract(arg, inner + lo, width),
            Node::Concat { hi, lo: low } => {
                let lw = self.width(low);
                if lo + width <= lw {
                    self.extract(low, lo, width)
                } else if lo >= lw {
                    self.extract(hi, lo - lw, width)
                } else {
                    // The bits straddle both halves: extract from each and concatenate.
                    let high = self.extract(hi, 0, lo + width - lw);
                    self.concat(high, self.extract(low, lo, lw - lo))
                }
            }
            Node::ZExt { arg, .. } => self.extract_extension(arg, false, lo, width),
            Node::SExt { arg, .. } => self.extract_extension(arg, true, lo, width),
            Node::Binary { .. } | Node::Unary { .. } => self
                .narrowed(a, lo, width, NARROW_DEPTH)
                .unwrap_or_else(|| {
                    self.intern(Node::Extract { arg: a, lo, width }, Sort::Bv(width))
                }),
            _ => self.intern(Node::Extract { arg: a, lo, width }, Sort::Bv(width)),
        }
    }

    /// Bits `lo .. lo + width` of `a` computed at their own width, when that costs no new
    /// wide operation: the low bits of a sum, difference, product, negation or left shift
    /// depend only on the operands' low bits, and any bits of a bitwise operation only on
    /// the operands' same bits (right shifts are kept: they are how a bit is followed to
    /// its word). So C's promotions (`(uint8_t)(n - 1)` is the low byte of a
    /// 32-bit difference of a zero extension) come back to the narrow arithmetic they stand
    /// for, and a chain of them stays one operation deep instead of nesting. `None` when an
    /// operand has no such narrow form (the operation is then kept wide), or deeper than
    /// `depth` operations (which bounds the work on shared subterms).
    fn narrowed(&self, a: ExprId, lo: u32, width: Width, depth: u32) -> Option<ExprId> {
        let aw = self.width(a);
        if lo == 0 && width == aw {
            return Some(a);
        }
        match self.node(a) {
            // Not a concatenation: an input word is the concatenation of its bytes, and
            // rewrites that follow a bit to its word (`rewrite.rs`) must still find the word.
            Node::Const { .. } | Node::Extract { .. } | Node::ZExt { .. } | Node::SExt { .. } => {
                Some(self.extract(a, lo, width))
            }
            Node::Unary { op, arg } if depth > 0 && (lo == 0 || op == UnOp::Not) => {
                let arg = self.narrowed(arg, lo, width, depth - 1)?;
                Some(self.unary(op, arg))
            }
            Node::Binary { op, lhs, rhs } if depth > 0 => match op {
                BinOp::And | BinOp::Or | BinOp::Xor => {
                    let l = self.narrowed(lhs, lo, width, depth - 1)?;
                    let r = self.narrowed(rhs, lo, width, depth - 1)?;
                    Some(self.binary(op, l, r))
                }
                BinOp::Add | BinOp::Sub | BinOp::Mul if lo == 0 => {
                    let l = self.narrowed(lhs, 0, width, depth - 1)?;
                    let r = self.narrowed(rhs, 0, width, depth - 1)?;
                    Some(self.binary(op, l, r))
                }
                BinOp::Shl if lo == 0 => {
                    let shift = self.as_const(rhs)?;
                    if shift >= u128::from(width) {
                        return Some(self.zero(width));
                    }
                    let l = self.narrowed(lhs, 0, width, depth - 1)?;
                    Some(self.shl(l, self.constant(width, shift)))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Bits `lo .. lo + width` of `arg` zero- or sign-extended (to at least that many bits).
    fn extract_extension(&self, arg: ExprId, signed: bool, lo: u32, width: Width) -> ExprId {
        let ow = self.width(arg);
        if lo + width <= ow {
            return self.extract(arg, lo, width);
        }
        if lo >= ow && !signed {
            return self.zero(width);
        }
        // Some extension bits: extend the original bits that remain (at least the sign bit).
        let kept = if lo >= ow {
            self.extract(arg, ow - 1, 1)
        } else {
            self.extract(arg, lo, ow - lo)
        };
        if signed {
            self.sext(kept, width)
        } else {
            self.zext(kept, width)
        }
    }

    /// `a` zero-extended to `width` bits (at least its own width).
    pub fn zext(&self, a: ExprId, width: Width) -> ExprId {
        let aw = self.width(a);
        debug_assert!(aw <= width && width <= MAX_WIDTH, "zext {aw} to {width}");
        if width == aw {
            return a;
        }
        match self.node(a) {
            Node::Const { value, .. } => self.constant(width, value),
            Node::ZExt { arg, .. } => self.zext(arg, width),
            _ => self.intern(Node::ZExt { arg: a, width }, Sort::Bv(width)),
        }
    }

    /// `a` sign-extended to `width` bits (at least its own width).
    pub fn sext(&self, a: ExprId, width: Width) -> ExprId {
        let aw = self.width(a);
        debug_assert!(aw <= width && width <= MAX_WIDTH, "sext {aw} to {width}");
        if width == aw {
            return a;
        }
        match self.node(a) {
            Node::Const { value, .. } => self.constant(width, sign_extend(aw, width, value)),
            Node::SExt { arg, .. } => self.sext(arg, width),
            // A zero extension has a clear sign bit.
            Node::ZExt { arg, .. } => self.zext(arg, width),
            _ => self.intern(Node::SExt { arg: a, width }, Sort::Bv(width)),
        }
    }

    /// The low `width` bits of `a`.
    pub fn trunc(&self, a: ExprId, width: Width) -> ExprId {
        self.extract(a, 0, width)
    }

    /// Byte `i` of `a`, counting from the least significant.
    pub fn byte(&self, a: ExprId, i: u32) -> ExprId {
        self.extract(a, 8 * i, 8)
    }

    /// `hi` and `lo` side by side, `hi` in the most significant bits.
    ///
    /// Concatenations are kept right-nested (`concat(a, concat(b, c))`), and adjacent
    /// extracts of one value merge back, so splitting a value into bytes and joining them
    /// again gives the value back.
    pub fn concat(&self, hi: ExprId, lo: ExprId) -> ExprId {
        let (hw, lw) = (self.width(hi), self.width(lo));
        debug_assert!(hw + lw <= MAX_WIDTH, "concat of {hw} and {lw} bits");
        let w = hw + lw;
        let (nh, nl) = (self.node(hi), self.node(lo));
        if let (Node::Const { value: h, .. }, Node::Const { value: l, .. }) = (nh, nl) {
            return self.constant(w, (h << lw) | l);
        }
        if let Node::Concat { hi: hh, lo: hl } = nh {
            return self.concat(hh, self.concat(hl, lo));
        }
        if let Some(merged) = self.merge_adjacent(nh, nl) {
            return merged;
        }
        // The bits above the low ones of a value whose low bits `extract` narrowed (the
        // bytes of a stored product, loaded back): the value's low bits again.
        if let Node::Extract { arg, lo: at, .. } = nh {
            if at == lw && !matches!(nl, Node::Extract { .. }) && self.extract(arg, 0, lw) == lo {
                return self.extract(arg, 0, w);
            }
        }
        if let Node::Concat { hi: lh, lo: ll } = nl {
            let merged = match (nh, self.node(lh)) {
                (Node::Const { value: h, .. }, Node::Const { value: l, .. }) => {
                    Some(self.constant(hw + self.width(lh), (h << self.width(lh)) | l))
                }
                (nh, nlh) => self.merge_adjacent(nh, nlh),
            };
            if let Some(merged) = merged {
                return self.concat(merged, ll);
            }
        }
        if nh
            == (Node::Const {
                width: hw,
                value: 0,
            })
        {
            return self.zext(lo, w);
        }
        // Copies of the sign bit of `lo` above it: its sign extension.
        let sign_copies = match nh {
            Node::SExt { arg, .. } if self.width(arg) == 1 => Some(arg),
            Node::Extract { width: 1, .. } => Some(hi),
            _ => None,
        };
        if sign_copies.is_some_and(|bit| bit == self.extract(lo, lw - 1, 1)) {
            return self.sext(lo, w);
        }
        self.intern(Node::Concat { hi, lo }, Sort::Bv(w))
    }

    /// `concat(hi, lo)` as one extract when both are adjacent extracts of one value.
    fn merge_adjacent(&self, hi: Node, lo: Node) -> Option<ExprId> {
        match (hi, lo) {
            (
                Node::Extract {
                    arg: a,
                    lo: hl,
                    width: hw,
                },
                Node::Extract {
                    arg: b,
                    lo: ll,
                    width: lw,
                },
            ) if a == b && hl == ll + lw => Some(self.extract(a, ll, hw + lw)),
            _ => None,
        }
    }

    /// The little-endian value of `bytes`: element 0 is the least significant byte.
    ///
    /// # Panics
    /// If `bytes` is empty.
    pub fn concat_bytes(&self, bytes: &[ExprId]) -> ExprId {
        let (&first, rest) = bytes
            .split_first()
            .expect("concat_bytes needs at least one byte");
        rest.iter().fold(first, |acc, &b| self.concat(b, acc))
    }

    // ---- Arrays ----

    /// The array whose every byte is `value`.
    pub fn array_const(&self, value: u8) -> ExprId {
        self.intern(Node::ArrayConst { value }, Sort::Array)
    }

    /// `array` with the byte at `index` (width [`INDEX_WIDTH`]) replaced by `value` (width 8).
    pub fn array_store(&self, array: ExprId, index: ExprId, value: ExprId) -> ExprId {
        debug_assert_eq!(self.sort(array), Sort::Array, "store into a non-array");
        debug_assert_eq!(self.sort(index), Sort::Bv(INDEX_WIDTH), "store index width");
        debug_assert_eq!(self.sort(value), Sort::Bv(8), "store value width");
        match self.node(array) {
            // A store to the same index hides the earlier one.
            Node::ArrayStore {
                array: inner,
                index: at,
                ..
            } if at == index => return self.array_store(inner, index, value),
            Node::ArrayConst { value: c } if self.as_const(value) == Some(u128::from(c)) => {
                return array
            }
            _ => {}
        }
        // Storing back what is already there changes nothing.
        if self.node(value) == (Node::ArrayRead { array, index }) {
            return array;
        }
        self.intern(
            Node::ArrayStore {
                array,
                index,
                value,
            },
            Sort::Array,
        )
    }

    /// The byte at `index` (width [`INDEX_WIDTH`]) of `array`.
    ///
    /// The read skips stores to constant indices that differ from a constant `index`.
    pub fn array_read(&self, array: ExprId, index: ExprId) -> ExprId {
        debug_assert_eq!(self.sort(array), Sort::Array, "read from a non-array");
        debug_assert_eq!(self.sort(index), Sort::Bv(INDEX_WIDTH), "read index width");
        let wanted = self.as_const(index);
        let mut cur = array;
        loop {
            match self.node(cur) {
                Node::ArrayConst { value } => return self.constant(8, u128::from(value)),
                Node::ArrayStore {
                    array: inner,
                    index: at,
                    value,
                } => {
                    if at == index {
                        return value;
                    }
                    match (wanted, self.as_const(at)) {
                        (Some(_), Some(_)) => cur = inner,
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        self.intern(Node::ArrayRead { array: cur, index }, Sort::Bv(8))
    }
}

#[cfg(test)]
#[path = "build_tests.rs"]
mod tests;
