//! The translation of expressions to SMT terms that the Bitwuzla and Z3 backends share.
//!
//! A backend supplies its term constructors through [`Terms`]; everything else is here, once:
//! - **Traversal.** [`Terms::lower`] lowers an expression and everything below it that is not
//!   memoised yet, children first, with an explicit work stack (no recursion, so 10k-deep
//!   expressions are fine), into a [`TermMemo`] that persists across queries.
//! - **Sort checking.** Every node is checked for well-sortedness ([`check_sorts`]) before
//!   any constructor sees it, so a malformed expression is a [`SolverError::Backend`] and
//!   never reaches a backend's C API (Bitwuzla aborts the process on misuse).
//! - **Booleans.** Width-1 expressions have a bit-vector form (`#b1` is true) and, when it is
//!   cheap to derive (comparisons, constants, and `not`/`and`/`or`/`xor`/`eq`/`ite` over such
//!   forms), a Boolean form too. Conditions use the Boolean form ([`Terms::bool_of`]), or
//!   `(= t #b1)` when there is none, so sorts always match.
//!
//! - **Floating point.** Floating-point nodes work on IEEE bit patterns. Their operands become
//!   terms of the FP theory (`to_fp` of the bits, or directly the FP term of an operand that
//!   is itself a floating-point node), and their results become bits again through a fresh
//!   bit-vector constant `v` defined by `(or (fp.isNaN r) (= ((_ to_fp e s) v) r))`, the
//!   result being `(ite (fp.isNaN r) DEFAULT_NAN v)`: SMT-LIB has no `fp.to_ieee_bv`, and
//!   the definition makes `v` the one pattern of a non-NaN `r`. The definitions of the
//!   nodes a query reaches go with the query ([`Terms::definitions`]).
//!
//! The generic code is monomorphised per backend, so it costs what the hand-written
//! translations did.

use super::{children, SolverError};
use crate::expr::{
    default_nan, fp_bits_of, is_fp_width, BinOp, ExprId, ExprPool, FpBinOp, FpCmp, FpUnOp, Node,
    Sort, UnOp, Width, INDEX_WIDTH, MAX_WIDTH,
};
use rustc_hash::FxHashMap;
use std::ffi::{CStr, CString};

/// The translation memo of one backend instance: the terms of the lowered expressions.
pub(super) struct TermMemo<T> {
    /// The term of every lowered expression: a bit-vector or an array.
    terms: FxHashMap<ExprId, T>,
    /// The Boolean form of width-1 expressions, where one has been built.
    bools: FxHashMap<ExprId, T>,
    /// The floating-point term of floating-point nodes and of their operands.
    floats: FxHashMap<ExprId, T>,
    /// The definition of the bits of each floating-point node's result.
    definitions: FxHashMap<ExprId, T>,
}

impl<T> Default for TermMemo<T> {
    fn default() -> Self {
        Self {
            terms: FxHashMap::default(),
            bools: FxHashMap::default(),
            floats: FxHashMap::default(),
            definitions: FxHashMap::default(),
        }
    }
}

/// A floating-point operation of a backend: operands and result of one format, rounding to
/// nearest even where the operation rounds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Fp {
    Add,
    Sub,
    Mul,
    Div,
    /// IEEE `remainder` (the quotient rounded to nearest even).
    Rem,
    Sqrt,
    /// `a * b + c` rounded once.
    Fma,
    /// `roundToIntegral` in the given rounding mode.
    Round(Rounding),
    Neg,
    Abs,
    /// Boolean: IEEE equality (`-0 = +0`, false with a NaN).
    Eq,
    /// Boolean: ordered less-than.
    Lt,
    /// Boolean: ordered less-or-equal.
    Le,
    /// Boolean.
    IsNan,
    /// Boolean.
    IsZero,
    /// Boolean: negative, zero or not (false for NaN).
    IsNeg,
}

impl Fp {
    /// The number of operands.
    pub(super) fn arity(self) -> usize {
        match self {
            Fp::Add | Fp::Sub | Fp::Mul | Fp::Div | Fp::Rem | Fp::Eq | Fp::Lt | Fp::Le => 2,
            Fp::Fma => 3,
            _ => 1,
        }
    }
}

/// An IEEE rounding mode.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Rounding {
    NearestEven,
    NearestAway,
    TowardNegative,
    TowardPositive,
    TowardZero,
}

impl<T: Copy> TermMemo<T> {
    /// The number of lowered expressions.
    pub(super) fn len(&self) -> usize {
        self.terms.len()
    }

    /// The term of an already lowered expression.
    pub(super) fn term(&self, id: ExprId) -> Result<T, SolverError> {
        self.terms.get(&id).copied().ok_or_else(|| {
            SolverError::Backend(format!("expression {} was not lowered", id.index()))
        })
    }

    /// The Boolean form of the lowered expression `id`, if one was built.
    fn boolean(&self, id: ExprId) -> Option<T> {
        self.bools.get(&id).copied()
    }
}

/// A backend's term constructors, and the shared translation built on them.
///
/// Each constructor gets terms of the backend's own making whose sorts [`check_sorts`] has
/// checked against the operator, and returns a term the backend keeps alive as long as its
/// memo.
pub(super) trait Terms {
    /// A term handle of the backend.
    type Term: Copy;

    /// The translation memo.
    fn memo(&self) -> &TermMemo<Self::Term>;
    /// The translation memo, to add to.
    fn memo_mut(&mut self) -> &mut TermMemo<Self::Term>;
    /// Told of every node after its term is memoised (its children's were memoised before).
    fn lowered(&mut self, _id: ExprId, _node: &Node) {}

    /// The Boolean constant `value`.
    fn bool_const(&mut self, value: bool) -> Result<Self::Term, SolverError>;
    /// The bit-vector constant `value` (masked to `width`, which is `1 ..= MAX_WIDTH`).
    fn bv_const(&mut self, width: Width, value: u128) -> Result<Self::Term, SolverError>;
    /// A fresh 8-bit constant named `name`.
    fn byte_symbol(&mut self, name: &CStr) -> Result<Self::Term, SolverError>;
    /// A bit-vector unary operator.
    fn unary(&mut self, op: UnOp, a: Self::Term) -> Result<Self::Term, SolverError>;
    /// The negation of a Boolean term.
    fn not(&mut self, b: Self::Term) -> Result<Self::Term, SolverError>;
    /// The Boolean `(= l r)` of two terms of one sort.
    fn equal(&mut self, l: Self::Term, r: Self::Term) -> Result<Self::Term, SolverError>;
    /// The bit-vector operator or comparison `op` other than `Eq` (a comparison is Boolean).
    fn binary(
        &mut self,
        op: BinOp,
        l: Self::Term,
        r: Self::Term,
    ) -> Result<Self::Term, SolverError>;
    /// The Boolean connective `op` (`And`, `Or` or `Xor`) of two Boolean terms.
    fn logical(
        &mut self,
        op: BinOp,
        l: Self::Term,
        r: Self::Term,
    ) -> Result<Self::Term, SolverError>;
    /// `ite(c, t, e)` for a Boolean `c` and branches of one sort.
    fn ite(
        &mut self,
        c: Self::Term,
        t: Self::Term,
        e: Self::Term,
    ) -> Result<Self::Term, SolverError>;
    /// Bits `hi ..= lo` of a bit-vector.
    fn extract(&mut self, a: Self::Term, hi: Width, lo: Width) -> Result<Self::Term, SolverError>;
    /// A bit-vector extended by `extra` (positive) bits, with its sign bit when `signed`.
    fn extend(
        &mut self,
        signed: bool,
        a: Self::Term,
        extra: Width,
    ) -> Result<Self::Term, SolverError>;
    /// The concatenation of two bit-vectors, `hi` in the high bits.
    fn concat(&mut self, hi: Self::Term, lo: Self::Term) -> Result<Self::Term, SolverError>;
    /// The array from `INDEX_WIDTH`-bit indices whose every byte is `value`.
    fn const_array(&mut self, value: u8) -> Result<Self::Term, SolverError>;
    /// The array `array` with the byte at `index` replaced by `value`.
    fn store(
        &mut self,
        array: Self::Term,
        index: Self::Term,
        value: Self::Term,
    ) -> Result<Self::Term, SolverError>;
    /// The byte of `array` at `index`.
    fn select(&mut self, array: Self::Term, index: Self::Term) -> Result<Self::Term, SolverError>;
    /// The bit-vector form `ite(b, #b1, #b0)` of a Boolean term.
    fn bv_of_bool(&mut self, b: Self::Term) -> Result<Self::Term, SolverError>;
    /// The Boolean form `(= t #b1)` of a width-1 bit-vector.
    fn bool_of_bv(&mut self, t: Self::Term) -> Result<Self::Term, SolverError>;
    /// A fresh bit-vector constant of `width` bits named `name`.
    fn fresh_bv(&mut self, width: Width, name: &CStr) -> Result<Self::Term, SolverError>;
    /// `(_ to_fp e s)` of an IEEE bit pattern of `width` (32 or 64) bits.
    fn fp_of_bits(&mut self, bits: Self::Term, width: Width) -> Result<Self::Term, SolverError>;
    /// The floating-point operation `op` on `args` (`op.arity()` terms of one format).
    fn fp(&mut self, op: Fp, args: &[Self::Term]) -> Result<Self::Term, SolverError>;
    /// A float converted to the format of `to` bits, nearest even.
    fn fp_convert(&mut self, a: Self::Term, to: Width) -> Result<Self::Term, SolverError>;
    /// A float rounded toward zero to a signed integer of `width` bits (unspecified out of
    /// range).
    fn fp_to_sbv(&mut self, a: Self::Term, width: Width) -> Result<Self::Term, SolverError>;
    /// An integer bit-vector (signed or not) rounded to the nearest float of `to` bits.
    fn fp_of_int(
        &mut self,
        a: Self::Term,
        signed: bool,
        to: Width,
    ) -> Result<Self::Term, SolverError>;

    /// The floating-point term of the lowered float expression `id` of `width` bits.
    ///
    /// The value of a floating-point node is its floating-point term; an `ite` of floats is
    /// the `ite` of their values; and where an `ite` propagates a NaN operand `y`
    /// (`ite(isnan(y), y or quiet(y), …)`), the first arm is a NaN whatever its payload, so
    /// the value is `ite(isnan(y), NaN, …)`. Chains of operations thus stay in the FP
    /// theory; other expressions are converted from their bits (`to_fp`).
    fn float_of(
        &mut self,
        pool: &ExprPool,
        id: ExprId,
        width: Width,
    ) -> Result<Self::Term, SolverError> {
        self.float_within(pool, id, width, 32)
    }

    /// [`Terms::float_of`], looking through at most `depth` nested `ite`s.
    fn float_within(
        &mut self,
        pool: &ExprPool,
        id: ExprId,
        width: Width,
        depth: u32,
    ) -> Result<Self::Term, SolverError> {
        if let Some(&f) = self.memo().floats.get(&id) {
            return Ok(f);
        }
        let f = match pool.node(id) {
            Node::Ite { cond, then, els } if depth > 0 => {
                let c = self.bool_of(cond)?;
                let t = if propagates_nan(pool, cond, then) {
                    let nan = self.bv_const(width, default_nan(width))?;
                    self.fp_of_bits(nan, width)?
                } else {
                    self.float_within(pool, then, width, depth - 1)?
                };
                let e = self.float_within(pool, els, width, depth - 1)?;
                self.ite(c, t, e)?
            }
            _ => self.fp_of_bits(self.memo().term(id)?, width)?,
        };
        self.memo_mut().floats.insert(id, f);
        Ok(f)
    }

    /// The bits of the float `f` of `width` bits, the result of node `id`: a fresh constant
    /// defined by `f` (see the module's documentation), the default NaN when `f` is NaN.
    fn bits_of_float(
        &mut self,
        id: ExprId,
        f: Self::Term,
        width: Width,
    ) -> Result<Self::Term, SolverError> {
        let name = CString::new(format!("fp!{}", id.index()))
            .map_err(|e| SolverError::Backend(e.to_string()))?;
        let v = self.fresh_bv(width, &name)?;
        let nan = self.fp(Fp::IsNan, &[f])?;
        let back = self.fp_of_bits(v, width)?;
        let same = self.equal(back, f)?;
        let definition = self.logical(BinOp::Or, nan, same)?;
        let memo = self.memo_mut();
        memo.floats.insert(id, f);
        memo.definitions.insert(id, definition);
        let default = self.bv_const(width, default_nan(width))?;
        self.ite(nan, default, v)
    }

    /// C's `fmod` from IEEE `remainder`: where the remainder's sign differs from the
    /// dividend's, the truncated quotient is one less in magnitude, so `|b|` is added back
    /// with the dividend's sign (exactly: the result is representable).
    fn fmod(&mut self, a: Self::Term, b: Self::Term) -> Result<Self::Term, SolverError> {
        let r = self.fp(Fp::Rem, &[a, b])?;
        let r_zero = self.fp(Fp::IsZero, &[r])?;
        let r_neg = self.fp(Fp::IsNeg, &[r])?;
        let a_neg = self.fp(Fp::IsNeg, &[a])?;
        let signs_differ = self.logical(BinOp::Xor, r_neg, a_neg)?;
        let nonzero = self.not(r_zero)?;
        let fix = self.logical(BinOp::And, nonzero, signs_differ)?;
        let magnitude = self.fp(Fp::Abs, &[b])?;
        let negative = self.fp(Fp::Neg, &[magnitude])?;
        let step = self.ite(a_neg, negative, magnitude)?;
        let fixed = self.fp(Fp::Add, &[r, step])?;
        self.ite(fix, fixed, r)
    }

    /// `fptosi` with x86's answer `1 << (width - 1)` for NaN and values out of range.
    fn float_to_sint(
        &mut self,
        a: Self::Term,
        from: Width,
        width: Width,
    ) -> Result<Self::Term, SolverError> {
        let t = self.fp(Fp::Round(Rounding::TowardZero), &[a])?;
        let lo = self.bv_const(from, fp_bits_of(from, -(f64::from(width - 1)).exp2()))?;
        let lo = self.fp_of_bits(lo, from)?;
        let hi = self.bv_const(from, fp_bits_of(from, f64::from(width - 1).exp2()))?;
        let hi = self.fp_of_bits(hi, from)?;
        let above_lo = self.fp(Fp::Le, &[lo, t])?;
        let below_hi = self.fp(Fp::Lt, &[t, hi])?;
        // Both comparisons are false for NaN.
        let valid = self.logical(BinOp::And, above_lo, below_hi)?;
        let converted = self.fp_to_sbv(a, width)?;
        let indefinite = self.bv_const(width, 1u128 << (width - 1))?;
        self.ite(valid, converted, indefinite)
    }

    /// The definitions of the floating-point results that `roots` reach (none without
    /// floating point), to be asserted with them.
    fn definitions(
        &self,
        pool: &ExprPool,
        roots: &[ExprId],
    ) -> Result<Vec<Self::Term>, SolverError> {
        let defined = &self.memo().definitions;
        if defined.is_empty() {
            return Ok(Vec::new());
        }
        let mut seen: rustc_hash::FxHashSet<ExprId> = rustc_hash::FxHashSet::default();
        let mut stack = roots.to_vec();
        let mut found = Vec::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if let Some(&d) = defined.get(&id) {
                found.push(d);
            }
            stack.extend(children(&pool.node(id)));
        }
        Ok(found)
    }

    /// Lowers `root` and everything below it that is not memoised yet, children first, with
    /// an explicit stack.
    fn lower(&mut self, pool: &ExprPool, root: ExprId) -> Result<(), SolverError> {
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if self.memo().terms.contains_key(&id) {
                continue;
            }
            let node = pool.node(id);
            if expanded {
                check_sorts(pool, id, node)?;
                self.lower_node(pool, id, node)?;
            } else {
                // Everything pushed after `(id, true)` is lowered before it is popped again.
                stack.push((id, true));
                let memo = self.memo();
                stack.extend(
                    children(&node)
                        .filter(|c| !memo.terms.contains_key(c))
                        .map(|c| (c, false)),
                );
            }
        }
        Ok(())
    }

    /// The Boolean form of the lowered width-1 expression `id`, built as `(= t #b1)` if
    /// lowering did not provide one.
    fn bool_of(&mut self, id: ExprId) -> Result<Self::Term, SolverError> {
        if let Some(b) = self.memo().boolean(id) {
            return Ok(b);
        }
        let b = self.bool_of_bv(self.memo().term(id)?)?;
        self.memo_mut().bools.insert(id, b);
        Ok(b)
    }

    /// Lowers one well-sorted node whose children are all lowered.
    fn lower_node(&mut self, pool: &ExprPool, id: ExprId, node: Node) -> Result<(), SolverError> {
        let mut boolean = None;
        let term = match node {
            Node::Const { width, value } => {
                if width == 1 {
                    boolean = Some(self.bool_const(value & 1 == 1)?);
                }
                self.bv_const(width, value)?
            }
            Node::Sym { array, offset } => {
                let name = format!("{}[{offset}]", pool.array_info(array).name);
                let symbol = CString::new(name.replace('\0', "?"))
                    .map_err(|e| SolverError::Backend(e.to_string()))?;
                self.byte_symbol(&symbol)?
            }
            Node::Unary { op, arg } => {
                let a = self.memo().term(arg)?;
                if op == UnOp::Not {
                    if let Some(b) = self.memo().boolean(arg) {
                        boolean = Some(self.not(b)?);
                    }
                }
                self.unary(op, a)?
            }
            Node::Binary { op, lhs, rhs } => {
                let memo = self.memo();
                let (l, r) = (memo.term(lhs)?, memo.term(rhs)?);
                let (lb, rb) = (memo.boolean(lhs), memo.boolean(rhs));
                if op.is_comparison() {
                    let cmp = match (op, lb, rb) {
                        (BinOp::Eq, Some(lb), Some(rb)) => self.equal(lb, rb)?,
                        (BinOp::Eq, _, _) => self.equal(l, r)?,
                        _ => self.binary(op, l, r)?,
                    };
                    boolean = Some(cmp);
                    self.bv_of_bool(cmp)?
                } else {
                    if let (BinOp::And | BinOp::Or | BinOp::Xor, Some(lb), Some(rb)) = (op, lb, rb)
                    {
                        boolean = Some(self.logical(op, lb, rb)?);
                    }
                    self.binary(op, l, r)?
                }
            }
            Node::Ite { cond, then, els } => {
                let c = self.bool_of(cond)?;
                let memo = self.memo();
                if let (Some(tb), Some(eb)) = (memo.boolean(then), memo.boolean(els)) {
                    boolean = Some(self.ite(c, tb, eb)?);
                }
                let memo = self.memo();
                let (t, e) = (memo.term(then)?, memo.term(els)?);
                self.ite(c, t, e)?
            }
            Node::Extract { arg, lo, width } => {
                let a = self.memo().term(arg)?;
                self.extract(a, lo + width - 1, lo)?
            }
            Node::ZExt { arg, width } | Node::SExt { arg, width } => {
                let a = self.memo().term(arg)?;
                let extra = width - pool.width(arg);
                if extra == 0 {
                    a
                } else {
                    self.extend(matches!(node, Node::SExt { .. }), a, extra)?
                }
            }
            Node::Concat { hi, lo } => {
                let memo = self.memo();
                let (h, l) = (memo.term(hi)?, memo.term(lo)?);
                self.concat(h, l)?
            }
            Node::ArrayConst { value } => self.const_array(value)?,
            Node::ArrayStore {
                array,
                index,
                value,
            } => {
                let memo = self.memo();
                let (a, i, v) = (memo.term(array)?, memo.term(index)?, memo.term(value)?);
                self.store(a, i, v)?
            }
            Node::ArrayRead { array, index } => {
                let memo = self.memo();
                let (a, i) = (memo.term(array)?, memo.term(index)?);
                self.select(a, i)?
            }
            Node::FpBinary { op, lhs, rhs } => {
                let w = pool.width(lhs);
                let (a, b) = (self.float_of(pool, lhs, w)?, self.float_of(pool, rhs, w)?);
                let f = match op {
                    FpBinOp::Add => self.fp(Fp::Add, &[a, b])?,
                    FpBinOp::Sub => self.fp(Fp::Sub, &[a, b])?,
                    FpBinOp::Mul => self.fp(Fp::Mul, &[a, b])?,
                    FpBinOp::Div => self.fp(Fp::Div, &[a, b])?,
                    FpBinOp::Rem => self.fmod(a, b)?,
                };
                self.bits_of_float(id, f, w)?
            }
            Node::FpUnary { op, arg } => {
                let w = pool.width(arg);
                let a = self.float_of(pool, arg, w)?;
                let op = match op {
                    FpUnOp::Sqrt => Fp::Sqrt,
                    FpUnOp::RoundEven => Fp::Round(Rounding::NearestEven),
                    FpUnOp::Floor => Fp::Round(Rounding::TowardNegative),
                    FpUnOp::Ceil => Fp::Round(Rounding::TowardPositive),
                    FpUnOp::Trunc => Fp::Round(Rounding::TowardZero),
                    FpUnOp::Round => Fp::Round(Rounding::NearestAway),
                };
                let f = self.fp(op, &[a])?;
                self.bits_of_float(id, f, w)?
            }
            Node::FpFma { a, b, c } => {
                let w = pool.width(a);
                let args = [
                    self.float_of(pool, a, w)?,
                    self.float_of(pool, b, w)?,
                    self.float_of(pool, c, w)?,
                ];
                let f = self.fp(Fp::Fma, &args)?;
                self.bits_of_float(id, f, w)?
            }
            Node::FpCmp { op, lhs, rhs } => {
                let w = pool.width(lhs);
                let (a, b) = (self.float_of(pool, lhs, w)?, self.float_of(pool, rhs, w)?);
                let op = match op {
                    FpCmp::Eq => Fp::Eq,
                    FpCmp::Lt => Fp::Lt,
                    FpCmp::Le => Fp::Le,
                };
                let cmp = self.fp(op, &[a, b])?;
                boolean = Some(cmp);
                self.bv_of_bool(cmp)?
            }
            Node::FpConvert { arg, width } => {
                let a = self.float_of(pool, arg, pool.width(arg))?;
                let f = self.fp_convert(a, width)?;
                self.bits_of_float(id, f, width)?
            }
            Node::FpToSInt { arg, width } => {
                let from = pool.width(arg);
                let a = self.float_of(pool, arg, from)?;
                self.float_to_sint(a, from, width)?
            }
            Node::IntToFp { arg, width, signed } => {
                let a = self.memo().term(arg)?;
                let f = self.fp_of_int(a, signed, width)?;
                self.bits_of_float(id, f, width)?
            }
        };
        self.memo_mut().terms.insert(id, term);
        self.lowered(id, &node);
        if let Some(b) = boolean {
            self.memo_mut().bools.insert(id, b);
        }
        Ok(())
    }
}

/// Whether `then` is a NaN whenever `cond` holds, because `cond` is the NaN test of a float
/// `y` and `then` is `y` or `y` quietened.
fn propagates_nan(pool: &ExprPool, cond: ExprId, then: ExprId) -> bool {
    let Some(y) = pool.nan_test_operand(cond) else {
        return false;
    };
    then == y || matches!(pool.node(then), Node::Binary { op: BinOp::Or, rhs, .. } if rhs == y)
}

/// Checks that `root`, a constraint or query handed to a backend, is a width-1 condition.
pub(super) fn check_condition(pool: &ExprPool, root: ExprId) -> Result<(), SolverError> {
    match pool.sort(root) {
        Sort::Bv(1) => Ok(()),
        sort => Err(SolverError::Backend(format!(
            "expression {} is not a width-1 condition (sort {sort:?})",
            root.index()
        ))),
    }
}

/// Checks that the operands of `node` have the sorts its operator needs, so that a malformed
/// expression is an error here and never reaches a backend.
pub(super) fn check_sorts(pool: &ExprPool, id: ExprId, node: Node) -> Result<(), SolverError> {
    let bv = |e: ExprId| match pool.sort(e) {
        Sort::Bv(w) => Some(w),
        Sort::Array => None,
    };
    let problem = match node {
        Node::Const { width, .. } if width == 0 || width > MAX_WIDTH => {
            Some("constant width out of range")
        }
        Node::Unary { arg, .. } if bv(arg).is_none() => Some("unary operator on an array"),
        Node::Binary { op, lhs, rhs } => {
            let same = pool.sort(lhs) == pool.sort(rhs);
            if !same || (op != BinOp::Eq && bv(lhs).is_none()) {
                Some("operands of different sorts")
            } else {
                None
            }
        }
        Node::Ite { cond, then, els } => {
            if pool.sort(cond) != Sort::Bv(1) {
                Some("condition is not width 1")
            } else if pool.sort(then) != pool.sort(els) {
                Some("branches of different sorts")
            } else {
                None
            }
        }
        Node::Extract { arg, lo, width } => match bv(arg) {
            None => Some("extract from an array"),
            Some(w) if width == 0 || u64::from(lo) + u64::from(width) > u64::from(w) => {
                Some("extracted bits out of range")
            }
            Some(_) => None,
        },
        Node::ZExt { arg, width } | Node::SExt { arg, width } => match bv(arg) {
            None => Some("extension of an array"),
            Some(w) if width < w || width > MAX_WIDTH => Some("extension to a narrower width"),
            Some(_) => None,
        },
        Node::Concat { hi, lo } if bv(hi).is_none() || bv(lo).is_none() => {
            Some("concatenation of an array")
        }
        Node::ArrayStore {
            array,
            index,
            value,
        } if pool.sort(array) != Sort::Array
            || pool.sort(index) != Sort::Bv(INDEX_WIDTH)
            || pool.sort(value) != Sort::Bv(8) =>
        {
            Some("store with operands of wrong sorts")
        }
        Node::ArrayRead { array, index }
            if pool.sort(array) != Sort::Array || pool.sort(index) != Sort::Bv(INDEX_WIDTH) =>
        {
            Some("read with operands of wrong sorts")
        }
        Node::FpBinary { lhs, rhs, .. } | Node::FpCmp { lhs, rhs, .. }
            if !bv(lhs).is_some_and(is_fp_width) || pool.sort(lhs) != pool.sort(rhs) =>
        {
            Some("floating-point operands of wrong sorts")
        }
        Node::FpFma { a, b, c }
            if !bv(a).is_some_and(is_fp_width)
                || pool.sort(a) != pool.sort(b)
                || pool.sort(a) != pool.sort(c) =>
        {
            Some("floating-point operands of wrong sorts")
        }
        Node::FpUnary { arg, .. } | Node::FpToSInt { arg, .. }
            if !bv(arg).is_some_and(is_fp_width) =>
        {
            Some("floating-point operand of a wrong sort")
        }
        Node::FpConvert { arg, width }
            if !bv(arg).is_some_and(is_fp_width) || !is_fp_width(width) =>
        {
            Some("floating-point conversion of wrong sorts")
        }
        Node::FpToSInt { width, .. } if width == 0 || width > MAX_WIDTH => {
            Some("conversion to an integer of no width")
        }
        Node::IntToFp { arg, width, .. } if bv(arg).is_none() || !is_fp_width(width) => {
            Some("integer conversion of wrong sorts")
        }
        _ => None,
    };
    match problem {
        Some(what) => Err(SolverError::Backend(format!(
            "malformed expression {} ({what}): {node:?}",
            id.index()
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A backend whose terms are SMT-LIB texts (handles are indices into `texts`).
    #[derive(Default)]
    struct Text {
        memo: TermMemo<usize>,
        texts: Vec<String>,
    }

    impl Text {
        fn make(&mut self, text: String) -> Result<usize, SolverError> {
            self.texts.push(text);
            Ok(self.texts.len() - 1)
        }

        fn app(&mut self, head: &str, args: &[usize]) -> Result<usize, SolverError> {
            let args: Vec<&str> = args.iter().map(|&a| self.texts[a].as_str()).collect();
            self.make(format!("({head} {})", args.join(" ")))
        }

        fn text(&self, t: usize) -> &str {
            &self.texts[t]
        }
    }

    impl Terms for Text {
        type Term = usize;

        fn memo(&self) -> &TermMemo<usize> {
            &self.memo
        }

        fn memo_mut(&mut self) -> &mut TermMemo<usize> {
            &mut self.memo
        }

        fn bool_const(&mut self, value: bool) -> Result<usize, SolverError> {
            self.make(value.to_string())
        }

        fn bv_const(&mut self, width: Width, value: u128) -> Result<usize, SolverError> {
            self.make(format!("(_ bv{value} {width})"))
        }

        fn byte_symbol(&mut self, name: &CStr) -> Result<usize, SolverError> {
            self.make(name.to_string_lossy().into_owned())
        }

        fn unary(&mut self, op: UnOp, a: usize) -> Result<usize, SolverError> {
            self.app(&format!("bv{op:?}"), &[a])
        }

        fn not(&mut self, b: usize) -> Result<usize, SolverError> {
            self.app("not", &[b])
        }

        fn equal(&mut self, l: usize, r: usize) -> Result<usize, SolverError> {
            self.app("=", &[l, r])
        }

        fn binary(&mut self, op: BinOp, l: usize, r: usize) -> Result<usize, SolverError> {
            self.app(&format!("bv{op:?}"), &[l, r])
        }

        fn logical(&mut self, op: BinOp, l: usize, r: usize) -> Result<usize, SolverError> {
            self.app(&format!("{op:?}"), &[l, r])
        }

        fn ite(&mut self, c: usize, t: usize, e: usize) -> Result<usize, SolverError> {
            self.app("ite", &[c, t, e])
        }

        fn extract(&mut self, a: usize, hi: Width, lo: Width) -> Result<usize, SolverError> {
            self.app(&format!("(_ extract {hi} {lo})"), &[a])
        }

        fn extend(&mut self, signed: bool, a: usize, extra: Width) -> Result<usize, SolverError> {
            self.app(&format!("(_ ext signed={signed} {extra})"), &[a])
        }

        fn concat(&mut self, hi: usize, lo: usize) -> Result<usize, SolverError> {
            self.app("concat", &[hi, lo])
        }

        fn const_array(&mut self, value: u8) -> Result<usize, SolverError> {
            self.make(format!("(const {value})"))
        }

        fn store(
            &mut self,
            array: usize,
            index: usize,
            value: usize,
        ) -> Result<usize, SolverError> {
            self.app("store", &[array, index, value])
        }

        fn select(&mut self, array: usize, index: usize) -> Result<usize, SolverError> {
            self.app("select", &[array, index])
        }

        fn bv_of_bool(&mut self, b: usize) -> Result<usize, SolverError> {
            self.app("bv", &[b])
        }

        fn bool_of_bv(&mut self, t: usize) -> Result<usize, SolverError> {
            self.app("bool", &[t])
        }

        fn fresh_bv(&mut self, width: Width, name: &CStr) -> Result<usize, SolverError> {
            self.make(format!("{}:{width}", name.to_string_lossy()))
        }

        fn fp_of_bits(&mut self, bits: usize, width: Width) -> Result<usize, SolverError> {
            self.app(&format!("to_fp{width}"), &[bits])
        }

        fn fp(&mut self, op: Fp, args: &[usize]) -> Result<usize, SolverError> {
            self.app(&format!("fp.{op:?}"), args)
        }

        fn fp_convert(&mut self, a: usize, to: Width) -> Result<usize, SolverError> {
            self.app(&format!("to_fp{to}"), &[a])
        }

        fn fp_to_sbv(&mut self, a: usize, width: Width) -> Result<usize, SolverError> {
            self.app(&format!("fp.to_sbv{width}"), &[a])
        }

        fn fp_of_int(&mut self, a: usize, signed: bool, to: Width) -> Result<usize, SolverError> {
            self.app(&format!("to_fp{to} signed={signed}"), &[a])
        }
    }

    #[test]
    fn float_results_are_defined_bits_and_chains_stay_floats() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 8);
        let bytes: Vec<ExprId> = (0..8).map(|i| pool.sym(x, i)).collect();
        let a = pool.concat_bytes(&bytes);
        let sum = pool.fp_binary(FpBinOp::Add, a, a);
        let twice = pool.fp_binary(FpBinOp::Mul, sum, sum);
        let mut text = Text::default();
        text.lower(&pool, twice).unwrap();
        // The product's operands are the sum's floating-point term, not its bits again.
        let Node::Ite { els, .. } = pool.node(twice) else {
            panic!(
                "NaN operands are propagated by an ite: {}",
                pool.to_sexp(twice)
            );
        };
        let product = text
            .text(text.memo().floats[&els_raw(&pool, els)])
            .to_string();
        assert!(product.starts_with("(fp.Mul (ite "), "{product}");
        assert!(product.contains("(fp.Add (to_fp64 (concat"), "{product}");
        assert!(!product.contains("(to_fp64 (ite"), "{product}");
        // Each floating-point result has its definition, and a query reaching it gets it.
        let defs = text.definitions(&pool, &[twice]).unwrap();
        assert_eq!(defs.len(), 2);
        assert!(text.definitions(&pool, &[a]).unwrap().is_empty());
    }

    /// The innermost `else` arm of nested `ite`s: the raw node under the NaN propagation.
    fn els_raw(pool: &ExprPool, mut e: ExprId) -> ExprId {
        while let Node::Ite { els, .. } = pool.node(e) {
            e = els;
        }
        e
    }

    #[test]
    fn conditions_use_the_boolean_form_where_there_is_one() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 2);
        let (a, b) = (pool.sym(x, 0), pool.sym(x, 1));
        let less = pool.ult(a, b);
        let chosen = pool.ite(less, a, b);
        let bit = pool.extract(a, 0, 1);
        let mut text = Text::default();
        text.lower(&pool, chosen).unwrap();
        text.lower(&pool, bit).unwrap();
        let term = text.memo().term(chosen).unwrap();
        assert_eq!(text.text(term), "(ite (bvUlt x[0] x[1]) x[0] x[1])");
        let cond = text.bool_of(less).unwrap();
        assert_eq!(text.text(cond), "(bvUlt x[0] x[1])");
        let cond = text.bool_of(bit).unwrap();
        assert_eq!(text.text(cond), "(bool ((_ extract 0 0) x[0]))");
        // Each expression is built once: lowering again makes no term.
        let made = text.texts.len();
        text.lower(&pool, chosen).unwrap();
        assert_eq!(text.texts.len(), made);
        assert_eq!(text.memo().len(), 5);
    }

    #[test]
    fn malformed_nodes_are_errors_naming_the_problem() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let byte = pool.sym(x, 0);
        let bit = pool.extract(byte, 0, 1);
        let sum = Node::Binary {
            op: BinOp::Add,
            lhs: byte,
            rhs: bit,
        };
        let err = check_sorts(&pool, byte, sum).unwrap_err().to_string();
        assert!(err.contains("operands of different sorts"), "{err}");
        let wide = Node::Extract {
            arg: byte,
            lo: 4,
            width: 8,
        };
        let err = check_sorts(&pool, byte, wide).unwrap_err().to_string();
        assert!(err.contains("extracted bits out of range"), "{err}");
        assert!(check_sorts(&pool, bit, pool.node(bit)).is_ok());
    }
}
