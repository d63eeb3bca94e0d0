//! Floating point on bit patterns: the concrete semantics of the floating-point nodes, and the
//! builders that give LLVM's instructions their x86-64 meaning.
//!
//! Values are the IEEE 754 bit patterns of `float` (32 bits) and `double` (64 bits); there is
//! no floating-point sort in the expression language. The nodes (`Node::FpBinary`, …) are
//! IEEE operations in round-to-nearest-even whose NaN results are all the *default NaN*
//! (`default_nan`, x86's "QNaN floating-point indefinite": sign set, quiet bit set, zero
//! payload). What x86-64 (SSE2, no FMA) does besides is built here from those nodes and
//! bit operations, so that the solver lowering, constant folding and the interpreter share
//! one definition:
//! - an arithmetic operation with a NaN operand returns its first NaN operand, quietened;
//! - `fneg`, `fabs` and `copysign` change the sign bit only (no NaN is quietened);
//! - `floor`, `ceil`, `trunc`, `round`, `rint` return a NaN operand unchanged (musl's code);
//! - `minnum`/`maxnum` return the other operand when one is NaN and order `-0.0` below `+0.0`;
//! - `fptosi` to 32 or 64 bits gives `1 << (w - 1)` for NaN and out-of-range values
//!   (narrower targets go through 32 bits, as x86 code does), `fptoui` goes through the
//!   next wider signed conversion, or for 64 bits subtracts 2^63 first;
//! - `fpext`/`fptrunc` keep a NaN's sign and payload (shifted) and quieten it.
//!
//! `long double` (x87's 80-bit format) is a third format: its values have width 80 and
//! `x87.rs` decodes them into the IEEE form of width 79 that the nodes compute on (see
//! there); `super::eval_float`, [`ExprPool::build_float`] and every public builder here hand
//! operations on 80-bit values to that module.

use super::f79::{self as x87, IEEE as X87_IEEE, X87};
use super::{mask, BinOp, ExprId, ExprPool, FpBinOp, FpCmp, FpUnOp, Node, Width};

/// Whether `width` is the width of a format the floating-point nodes compute on (`float`,
/// `double`, and 79 for the IEEE form of x87's `long double`).
pub fn is_fp_width(width: Width) -> bool {
    width == 32 || width == 64 || width == X87_IEEE
}

/// The bit layout of a format: (exponent bits, significand bits without the hidden bit).
/// The IEEE exponent and significand sizes (the hidden bit included) of the format of
/// `width` (32, 64 or 79) bits, as SMT-LIB's `(_ FloatingPoint e s)` names them.
pub fn fp_format(width: Width) -> (u32, u32) {
    match width {
        32 => (8, 24),
        X87_IEEE => (15, 64),
        _ => (11, 53),
    }
}

/// The bit layout of a format: (exponent bits, significand bits without the hidden bit).
fn layout(width: Width) -> (u32, u32) {
    let (e, s) = fp_format(width);
    (e, s - 1)
}

/// The two floats next to the finite `float` or `double` bit pattern `bits` (one unit in
/// the last place above and below, through zero to the other sign); none for other widths,
/// infinities and NaNs.
pub fn fp_neighbours(w: Width, bits: u128) -> Vec<u128> {
    if w != 32 && w != 64 {
        return Vec::new();
    }
    let sign = 1u128 << (w - 1);
    let magnitude = bits & (sign - 1);
    if magnitude >= fp_bits_of(w, f64::INFINITY) {
        return Vec::new();
    }
    let away = (bits & sign) | (magnitude + 1);
    let toward = if magnitude == 0 {
        (bits ^ sign) | 1
    } else {
        (bits & sign) | (magnitude - 1)
    };
    vec![away, toward]
}

/// The bit pattern of `value` rounded to the format of `width` (32, 64, 79, or 80 for
/// `long double`) bits.
pub fn fp_bits_of(width: Width, value: f64) -> u128 {
    if width == X87 {
        x87::encode(x87::bits_of_f64(value))
    } else if width == X87_IEEE {
        x87::bits_of_f64(value)
    } else if width == 32 {
        u128::from((value as f32).to_bits())
    } else {
        u128::from(value.to_bits())
    }
}

fn sign_bit(width: Width) -> u128 {
    1u128 << (width - 1)
}

fn quiet_bit(width: Width) -> u128 {
    1u128 << (layout(width).1 - 1)
}

/// The exponent field all ones: the bit pattern of `+inf`.
fn infinity(width: Width) -> u128 {
    let (e, m) = layout(width);
    ((1u128 << e) - 1) << m
}

/// x86's default NaN of the format of `width` bits (`0xFFF8000000000000` for `double`).
pub fn default_nan(width: Width) -> u128 {
    sign_bit(width) | infinity(width) | quiet_bit(width)
}

/// A comparison predicate of LLVM's `fcmp` (the constant predicates included).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FpPred {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    Uno,
    True,
}

/// A float of either format, for the concrete folds.
#[derive(Copy, Clone)]
enum F {
    S(f32),
    D(f64),
}

impl F {
    fn of(width: Width, bits: u128) -> F {
        if width == 32 {
            F::S(f32::from_bits(bits as u32))
        } else {
            F::D(f64::from_bits(bits as u64))
        }
    }

    /// The bit pattern, NaN replaced by the default NaN.
    fn bits(self) -> u128 {
        match self {
            F::S(x) if x.is_nan() => default_nan(32),
            F::D(x) if x.is_nan() => default_nan(64),
            F::S(x) => u128::from(x.to_bits()),
            F::D(x) => u128::from(x.to_bits()),
        }
    }

    fn wide(self) -> f64 {
        match self {
            F::S(x) => f64::from(x),
            F::D(x) => x,
        }
    }
}

/// `$body` computed on the floats of `width` bits whose bit patterns are the `$bits`
/// (`float` for 32 bits, `double` for 64), as an `F`.
macro_rules! in_format {
    ($width:expr, [$($v:ident = $bits:expr),*], $body:expr) => {
        if $width == 32 {
            $(let $v = f32::from_bits($bits as u32);)*
            F::S($body)
        } else {
            $(let $v = f64::from_bits($bits as u64);)*
            F::D($body)
        }
    };
}

/// The raw binary operation `op` on two floats of `width` bits (`FpBinary`).
pub fn fold_fp_binary(op: FpBinOp, width: Width, a: u128, b: u128) -> u128 {
    if width == X87_IEEE {
        return x87::fold_binary(op, a, b);
    }
    in_format!(
        width,
        [x = a, y = b],
        match op {
            FpBinOp::Add => x + y,
            FpBinOp::Sub => x - y,
            FpBinOp::Mul => x * y,
            FpBinOp::Div => x / y,
            FpBinOp::Rem => x % y,
        }
    )
    .bits()
}

/// The raw unary operation `op` on a float of `width` bits (`FpUnary`).
pub fn fold_fp_unary(op: FpUnOp, width: Width, a: u128) -> u128 {
    if width == X87_IEEE {
        return x87::fold_unary(op, a);
    }
    in_format!(
        width,
        [v = a],
        match op {
            FpUnOp::Sqrt => v.sqrt(),
            FpUnOp::RoundEven => v.round_ties_even(),
            FpUnOp::Floor => v.floor(),
            FpUnOp::Ceil => v.ceil(),
            FpUnOp::Trunc => v.trunc(),
            FpUnOp::Round => v.round(),
        }
    )
    .bits()
}

/// `a * b + c` rounded once (`FpFma`).
pub fn fold_fp_fma(width: Width, a: u128, b: u128, c: u128) -> u128 {
    if width == X87_IEEE {
        return x87::fold_fma(a, b, c);
    }
    in_format!(width, [x = a, y = b, z = c], x.mul_add(y, z)).bits()
}

/// The ordered comparison `op` of two floats of `width` bits (`FpCmp`).
pub fn fold_fp_cmp(op: FpCmp, width: Width, a: u128, b: u128) -> bool {
    if width == X87_IEEE {
        return x87::fold_cmp(op, a, b);
    }
    // Widening to f64 is exact, so comparing there compares the floats themselves.
    let (x, y) = (F::of(width, a).wide(), F::of(width, b).wide());
    match op {
        FpCmp::Eq => x == y,
        FpCmp::Lt => x < y,
        FpCmp::Le => x <= y,
    }
}

/// A float of `from` bits converted to `to` bits, nearest even (`FpConvert`).
pub fn fold_fp_convert(from: Width, to: Width, a: u128) -> u128 {
    if from == X87_IEEE || to == X87_IEEE {
        return x87::fold_convert(from, to, a);
    }
    let r = match (F::of(from, a), to) {
        (F::S(x), 64) => F::D(f64::from(x)),
        (F::D(x), 32) => F::S(x as f32),
        (x, _) => x,
    };
    r.bits()
}

/// A float of `from` bits rounded toward zero to a `to`-bit signed integer; NaN and values
/// out of range give `1 << (to - 1)` (`FpToSInt`).
pub fn fold_fp_to_sint(from: Width, to: Width, a: u128) -> u128 {
    if from == X87_IEEE {
        return x87::fold_to_sint(to, a);
    }
    let t = F::of(from, a).wide().trunc();
    let bound = (to as f64 - 1.0).exp2();
    if t.is_nan() || t < -bound || t >= bound {
        sign_bit(to)
    } else {
        mask(to, t as i128 as u128)
    }
}

/// The `from`-bit integer `a` (signed or not) rounded to the nearest float of `to` bits
/// (`IntToFp`).
pub fn fold_int_to_fp(from: Width, to: Width, signed: bool, a: u128) -> u128 {
    if to == X87_IEEE {
        return x87::fold_from_int(from, signed, a);
    }
    let r = if signed {
        let v = super::to_signed(from, a);
        if to == 32 {
            F::S(v as f32)
        } else {
            F::D(v as f64)
        }
    } else if to == 32 {
        F::S(a as f32)
    } else {
        F::D(a as f64)
    };
    r.bits()
}

/// The most constant leaves an operation is pushed through (see [`ExprPool::lift1`]).
const LIFT_LEAVES: usize = 32;

impl ExprPool {
    // ---- Choices between constants ----

    /// `f` of an `ite` tree whose leaves are constants, as the same tree with `f` of each leaf
    /// (of `width` bits): `None` when a leaf is not a constant or the tree has more than
    /// [`LIFT_LEAVES`] leaves. Loops that choose between constants (a bisection's bounds,
    /// compiled to `select`s) then compute on constants, and both sides' choices become the
    /// same expression, with no floating point left for the solver.
    fn lift1(&self, e: ExprId, width: Width, f: &dyn Fn(u128) -> u128) -> Option<ExprId> {
        let mut leaves = 0;
        self.lift1_within(e, width, f, &mut leaves)
    }

    fn lift1_within(
        &self,
        e: ExprId,
        width: Width,
        f: &dyn Fn(u128) -> u128,
        leaves: &mut usize,
    ) -> Option<ExprId> {
        match self.node(e) {
            Node::Const { value, .. } => {
                *leaves += 1;
                (*leaves <= LIFT_LEAVES).then(|| self.constant(width, f(value)))
            }
            Node::Ite { cond, then, els } => {
                let t = self.lift1_within(then, width, f, leaves)?;
                let e = self.lift1_within(els, width, f, leaves)?;
                Some(self.ite(cond, t, e))
            }
            _ => None,
        }
    }

    /// `f` of two operands that are constants or `ite` trees of constants: one tree lifted
    /// when the other operand is a constant, or two trees on the same condition arm by arm.
    fn lift2(
        &self,
        a: ExprId,
        b: ExprId,
        width: Width,
        f: &dyn Fn(u128, u128) -> u128,
    ) -> Option<ExprId> {
        let mut leaves = 0;
        self.lift2_within(a, b, width, f, &mut leaves)
    }

    fn lift2_within(
        &self,
        a: ExprId,
        b: ExprId,
        width: Width,
        f: &dyn Fn(u128, u128) -> u128,
        leaves: &mut usize,
    ) -> Option<ExprId> {
        match (self.node(a), self.node(b)) {
            (Node::Const { value: x, .. }, Node::Const { value: y, .. }) => {
                *leaves += 1;
                (*leaves <= LIFT_LEAVES).then(|| self.constant(width, f(x, y)))
            }
            (Node::Const { value: x, .. }, Node::Ite { .. }) => {
                self.lift1_within(b, width, &|y| f(x, y), leaves)
            }
            (Node::Ite { .. }, Node::Const { value: y, .. }) => {
                self.lift1_within(a, width, &|x| f(x, y), leaves)
            }
            (
                Node::Ite {
                    cond: ca,
                    then: ta,
                    els: ea,
                },
                Node::Ite {
                    cond: cb,
                    then: tb,
                    els: eb,
                },
            ) if ca == cb => {
                let t = self.lift2_within(ta, tb, width, f, leaves)?;
                let e = self.lift2_within(ea, eb, width, f, leaves)?;
                Some(self.ite(ca, t, e))
            }
            _ => None,
        }
    }

    // ---- Raw nodes ----

    fn intern_bv(&self, node: Node, width: Width) -> ExprId {
        self.intern(node, super::Sort::Bv(width))
    }

    pub(super) fn fp_binary_raw(&self, op: FpBinOp, a: ExprId, b: ExprId) -> ExprId {
        let w = self.width(a);
        debug_assert!(is_fp_width(w) && self.width(b) == w);
        if let Some(lifted) = self.lift2(a, b, w, &|x, y| fold_fp_binary(op, w, x, y)) {
            return lifted;
        }
        // The raw sum and product do not depend on the operands' order (a NaN result is the
        // default NaN whatever the operands): one node for both orders.
        if matches!(op, FpBinOp::Add | FpBinOp::Mul) && b < a {
            return self.fp_binary_raw(op, b, a);
        }
        self.intern_bv(Node::FpBinary { op, lhs: a, rhs: b }, w)
    }

    pub(super) fn fp_unary_raw(&self, op: FpUnOp, a: ExprId) -> ExprId {
        let w = self.width(a);
        debug_assert!(is_fp_width(w));
        if let Some(lifted) = self.lift1(a, w, &|x| fold_fp_unary(op, w, x)) {
            return lifted;
        }
        self.intern_bv(Node::FpUnary { op, arg: a }, w)
    }

    /// The ordered comparison `op` (false when an operand is NaN).
    pub fn fp_cmp(&self, op: FpCmp, a: ExprId, b: ExprId) -> ExprId {
        let w = self.width(a);
        debug_assert!(is_fp_width(w) && self.width(b) == w);
        if let Some(lifted) = self.lift2(a, b, 1, &|x, y| u128::from(fold_fp_cmp(op, w, x, y))) {
            return lifted;
        }
        self.intern_bv(Node::FpCmp { op, lhs: a, rhs: b }, 1)
    }

    pub(super) fn fp_convert_raw(&self, a: ExprId, to: Width) -> ExprId {
        let w = self.width(a);
        if let Some(lifted) = self.lift1(a, to, &|x| fold_fp_convert(w, to, x)) {
            return lifted;
        }
        self.intern_bv(Node::FpConvert { arg: a, width: to }, to)
    }

    pub(super) fn fp_to_sint_raw(&self, a: ExprId, to: Width) -> ExprId {
        let w = self.width(a);
        if let Some(lifted) = self.lift1(a, to, &|x| fold_fp_to_sint(w, to, x)) {
            return lifted;
        }
        // The conversion rounds toward zero, so rounding toward zero first (`trunc`, raw
        // or with its NaN kept) changes nothing: a NaN or an out-of-range value stays one.
        if let Some(x) = self.truncated(a) {
            return self.fp_to_sint_raw(x, to);
        }
        self.intern_bv(Node::FpToSInt { arg: a, width: to }, to)
    }

    /// `x` when `a` is `trunc(x)`: the raw node, or [`ExprPool::fp_unary`]'s form that
    /// returns a NaN `x` unchanged.
    fn truncated(&self, a: ExprId) -> Option<ExprId> {
        let raw = |e: ExprId| match self.node(e) {
            Node::FpUnary {
                op: FpUnOp::Trunc,
                arg,
            } => Some(arg),
            _ => None,
        };
        if let Some(x) = raw(a) {
            return Some(x);
        }
        let Node::Ite { cond, then, els } = self.node(a) else {
            return None;
        };
        (raw(els) == Some(then) && self.fp_is_nan(then) == cond).then_some(then)
    }

    // ---- Bit-level facts ----

    /// Whether the float `a` is a NaN (width 1).
    pub fn fp_is_nan(&self, a: ExprId) -> ExprId {
        if let Node::IntToFp { .. } = self.node(a) {
            return self.false_();
        }
        let w = self.width(a);
        if w == X87 {
            return self.x87_is_nan(a);
        }
        let nan = |v: u128| u128::from(v & (sign_bit(w) - 1) > infinity(w));
        if let Some(lifted) = self.lift1(a, 1, &nan) {
            return lifted;
        }
        let magnitude = self.and(a, self.constant(w, sign_bit(w) - 1));
        self.ult(self.constant(w, infinity(w)), magnitude)
    }

    /// `a` with its quiet bit set.
    fn fp_quiet(&self, a: ExprId) -> ExprId {
        let w = self.width(a);
        self.or(a, self.constant(w, quiet_bit(w)))
    }

    /// `raw` unless one of `operands` is NaN: then the first NaN operand, quietened.
    fn fp_propagate(&self, operands: &[ExprId], raw: ExprId) -> ExprId {
        operands.iter().rev().fold(raw, |acc, &x| {
            let nan = self.fp_is_nan(x);
            if nan == self.false_() {
                acc
            } else {
                self.ite(nan, self.fp_quiet(x), acc)
            }
        })
    }

    // ---- LLVM's operations with x86-64 semantics ----

    /// `fadd`, `fsub`, `fmul`, `fdiv`, `frem`.
    ///
    /// A sum or difference of two integers converted to floats is exact when the result
    /// needs at most the format's significand bits: it is built as the conversion of the
    /// integer sum (never `-0.0`: an exact zero sum is `+0.0` in round-to-nearest, as the
    /// conversion of 0), which the solver decides without floating-point reasoning.
    pub fn fp_binary(&self, op: FpBinOp, a: ExprId, b: ExprId) -> ExprId {
        if self.width(a) == X87 {
            return self.build_x87(FloatOp::Binary(op), &[a, b], X87);
        }
        if let Some(exact) = self.exact_integer_sum(op, a, b) {
            return exact;
        }
        // `x * 2` is `x + x`, bit for bit: doubling is exact up to overflow, which both round
        // to the same infinity, and a NaN `x` comes back quietened either way.
        let two = |e: ExprId| self.as_const(e) == Some(fp_bits_of(self.width(e), 2.0));
        if op == FpBinOp::Mul && (two(a) || two(b)) {
            let x = if two(b) { a } else { b };
            return self.fp_binary(FpBinOp::Add, x, x);
        }
        self.fp_propagate(&[a, b], self.fp_binary_raw(op, a, b))
    }

    /// `a op b` as an integer conversion, when `op` is `+` or `-` on two integer conversions
    /// whose exact result the format represents.
    pub(super) fn exact_integer_sum(&self, op: FpBinOp, a: ExprId, b: ExprId) -> Option<ExprId> {
        if !matches!(op, FpBinOp::Add | FpBinOp::Sub) {
            return None;
        }
        let (
            Node::IntToFp {
                arg: x,
                width,
                signed: sx,
            },
            Node::IntToFp {
                arg: y, signed: sy, ..
            },
        ) = (self.node(a), self.node(b))
        else {
            return None;
        };
        let significand = layout(width).1 + 1;
        // |x| < 2^wx and |y| < 2^wy, so |x ± y| < 2^(max + 1).
        let (wx, wy) = (self.width(x), self.width(y));
        if wx.max(wy) + 1 > significand {
            return None;
        }
        let wide = |v: ExprId, signed: bool| {
            if signed {
                self.sext(v, 64)
            } else {
                self.zext(v, 64)
            }
        };
        let (x, y) = (wide(x, sx), wide(y, sy));
        let sum = if op == FpBinOp::Add {
            self.add(x, y)
        } else {
            self.sub(x, y)
        };
        Some(self.int_to_fp(sum, width, true))
    }

    pub(super) fn fp_fma_raw(&self, a: ExprId, b: ExprId, c: ExprId) -> ExprId {
        let w = self.width(a);
        match (self.as_const(a), self.as_const(b), self.as_const(c)) {
            (Some(x), Some(y), Some(z)) => self.constant(w, fold_fp_fma(w, x, y, z)),
            _ => self.intern_bv(Node::FpFma { a, b, c }, w),
        }
    }

    /// `llvm.fma`: `a * b + c` rounded once.
    pub fn fp_fma(&self, a: ExprId, b: ExprId, c: ExprId) -> ExprId {
        if self.width(a) == X87 {
            return self.build_x87(FloatOp::Fma, &[a, b, c], X87);
        }
        self.fp_propagate(&[a, b, c], self.fp_fma_raw(a, b, c))
    }

    /// `sqrt`, and the roundings to an integral value (a NaN comes back unchanged).
    pub fn fp_unary(&self, op: FpUnOp, a: ExprId) -> ExprId {
        if self.width(a) == X87 {
            return self.build_x87(FloatOp::Unary(op), &[a], X87);
        }
        let raw = self.fp_unary_raw(op, a);
        if op == FpUnOp::Sqrt {
            self.fp_propagate(&[a], raw)
        } else {
            self.ite(self.fp_is_nan(a), a, raw)
        }
    }

    /// `fneg`: the sign bit flipped.
    pub fn fp_neg(&self, a: ExprId) -> ExprId {
        let w = self.width(a);
        self.xor(a, self.constant(w, sign_bit(w)))
    }

    /// `llvm.fabs`: the sign bit cleared.
    pub fn fp_abs(&self, a: ExprId) -> ExprId {
        let w = self.width(a);
        self.and(a, self.constant(w, sign_bit(w) - 1))
    }

    /// `llvm.copysign`: the magnitude of `a` with the sign of `b`.
    pub fn fp_copysign(&self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.width(a);
        let sign = self.and(b, self.constant(w, sign_bit(w)));
        self.or(self.fp_abs(a), sign)
    }

    /// `fcmp pred a, b` (width 1).
    pub fn fp_pred(&self, pred: FpPred, a: ExprId, b: ExprId) -> ExprId {
        if self.width(a) == X87 {
            return self.build_x87(FloatOp::Cmp(pred), &[a, b], 1);
        }
        let uno = || self.bool_or(self.fp_is_nan(a), self.fp_is_nan(b));
        let lt = |x, y| self.fp_cmp(FpCmp::Lt, x, y);
        let le = |x, y| self.fp_cmp(FpCmp::Le, x, y);
        let eq = || self.fp_cmp(FpCmp::Eq, a, b);
        match pred {
            FpPred::False => self.false_(),
            FpPred::True => self.true_(),
            FpPred::Oeq => eq(),
            FpPred::Olt => lt(a, b),
            FpPred::Ole => le(a, b),
            FpPred::Ogt => lt(b, a),
            FpPred::Oge => le(b, a),
            FpPred::One => self.bool_or(lt(a, b), lt(b, a)),
            FpPred::Ord => self.bool_not(uno()),
            FpPred::Uno => uno(),
            FpPred::Ueq => self.bool_or(uno(), eq()),
            FpPred::Une => self.bool_not(eq()),
            FpPred::Ugt => self.bool_not(le(a, b)),
            FpPred::Uge => self.bool_not(lt(a, b)),
            FpPred::Ult => self.bool_not(le(b, a)),
            FpPred::Ule => self.bool_not(lt(b, a)),
        }
    }

    /// `llvm.minnum` (`max` false) or `llvm.maxnum` (`max` true): the other operand when
    /// one is NaN; `-0.0` is below `+0.0`.
    pub fn fp_min_max(&self, max: bool, a: ExprId, b: ExprId) -> ExprId {
        if self.width(a) == X87 {
            let op = if max { FloatOp::Max } else { FloatOp::Min };
            return self.build_x87(op, &[a, b], X87);
        }
        let (lo, hi) = if max { (b, a) } else { (a, b) };
        // Equal operands differ at most in the sign of a zero: min takes the set sign bit
        // (or), max the clear one (and).
        let equal = if max { self.and(a, b) } else { self.or(a, b) };
        let ordered = self.ite(
            self.fp_cmp(FpCmp::Lt, lo, hi),
            a,
            self.ite(self.fp_cmp(FpCmp::Lt, hi, lo), b, equal),
        );
        let b_nan = self.ite(self.fp_is_nan(b), a, ordered);
        self.ite(self.fp_is_nan(a), b, b_nan)
    }

    /// `fpext`/`fptrunc` of `a` to the format of `to` bits.
    ///
    /// `float` arithmetic done in `double` and rounded back (`(float)((double)x * y)`) is
    /// the `float` operation itself: a `double` holds `+ - * /` and `sqrt` of two `float`s
    /// precisely enough (53 ≥ 2·24 + 2 bits) that rounding twice gives the same value as
    /// rounding once (Figueroa), and NaNs come back as the `float` operation makes them.
    pub fn fp_convert(&self, a: ExprId, to: Width) -> ExprId {
        if (self.width(a) == X87) != (to == X87) {
            return self.build_x87(FloatOp::Convert, &[a], to);
        }
        let from = self.width(a);
        if from == to {
            return a;
        }
        if from == 64 && to == 32 {
            if let Some(narrow) = self.narrow_double_rounding(a) {
                return narrow;
            }
        }
        let raw = self.fp_convert_raw(a, to);
        // A NaN keeps its sign and the top bits of its payload, and is quietened.
        let (_, mf) = layout(from);
        let (_, mt) = layout(to);
        let payload = self.and(a, self.constant(from, (1u128 << mf) - 1));
        let moved = if mt > mf {
            self.shl(
                self.zext(payload, to),
                self.constant(to, u128::from(mt - mf)),
            )
        } else {
            self.trunc(
                self.lshr(payload, self.constant(from, u128::from(mf - mt))),
                to,
            )
        };
        let sign = self.extract(a, from - 1, 1);
        let sign = self.shl(self.zext(sign, to), self.constant(to, u128::from(to - 1)));
        let nan = self.or(
            self.or(sign, moved),
            self.constant(to, infinity(to) | quiet_bit(to)),
        );
        self.ite(self.fp_is_nan(a), nan, raw)
    }

    /// The `float` operation that `a` computes in `double` on `float` operands, if it is one
    /// (see [`ExprPool::fp_convert`]). The match is checked by rebuilding: `a` must be
    /// exactly the expression the builders make for the `double` operation.
    fn narrow_double_rounding(&self, a: ExprId) -> Option<ExprId> {
        let raw = self.strip_nan_tests(a);
        let widened = |e: ExprId| match self.node(self.strip_nan_tests(e)) {
            Node::FpConvert { arg, width: 64 } if self.width(arg) == 32 => {
                (self.fp_convert(arg, 64) == e).then_some(arg)
            }
            _ => None,
        };
        match self.node(raw) {
            Node::FpBinary { op, lhs, rhs } if op != FpBinOp::Rem => {
                let (x, y) = (widened(lhs)?, widened(rhs)?);
                (self.fp_binary(op, lhs, rhs) == a).then(|| self.fp_binary(op, x, y))
            }
            Node::FpUnary {
                op: FpUnOp::Sqrt,
                arg,
            } => {
                let x = widened(arg)?;
                (self.fp_unary(FpUnOp::Sqrt, arg) == a).then(|| self.fp_unary(FpUnOp::Sqrt, x))
            }
            _ => None,
        }
    }

    /// `e` without the `ite`s on NaN tests around it: the innermost `else` arm.
    fn strip_nan_tests(&self, mut e: ExprId) -> ExprId {
        while let Node::Ite { cond, els, .. } = self.node(e) {
            if self.nan_test_operand(cond).is_none() {
                break;
            }
            e = els;
        }
        e
    }

    /// The float `y` when `cond` is exactly `fp_is_nan(y)` (`ult(+inf, and(¬sign, y))`), the
    /// test that NaN propagation puts around an operation.
    pub fn nan_test_operand(&self, cond: ExprId) -> Option<ExprId> {
        let Node::Binary {
            op: super::BinOp::Ult,
            rhs: magnitude,
            ..
        } = self.node(cond)
        else {
            return None;
        };
        let Node::Binary {
            op: super::BinOp::And,
            rhs: y,
            ..
        } = self.node(magnitude)
        else {
            return None;
        };
        (is_fp_width(self.width(y)) && self.fp_is_nan(y) == cond).then_some(y)
    }

    /// `fptosi` to `width` bits, as x86-64 code computes it.
    pub fn fp_to_sint(&self, a: ExprId, width: Width) -> ExprId {
        if self.width(a) == X87 {
            return self.build_x87(FloatOp::ToSInt, &[a], width);
        }
        match width {
            32 | 64 => self.fp_to_sint_raw(a, width),
            w if w < 32 => self.trunc(self.fp_to_sint_raw(a, 32), w),
            w if w < 64 => self.trunc(self.fp_to_sint_raw(a, 64), w),
            w => self.fp_to_sint_raw(a, w),
        }
    }

    /// `fptoui` to `width` bits, as x86-64 code computes it.
    pub fn fp_to_uint(&self, a: ExprId, width: Width) -> ExprId {
        if self.width(a) == X87 {
            return self.build_x87(FloatOp::ToUInt, &[a], width);
        }
        match width {
            w if w < 32 => self.trunc(self.fp_to_sint_raw(a, 32), w),
            w if w < 64 => self.trunc(self.fp_to_sint_raw(a, 64), w),
            w => {
                // Below 2^(w-1) the signed conversion; above, the signed conversion of
                // `a - 2^(w-1)` with the top bit flipped (NaN takes this way too).
                let fw = self.width(a);
                let half = self.int_to_fp(self.constant(w, sign_bit(w)), fw, false);
                let low = self.fp_to_sint_raw(a, w);
                let high = self.xor(
                    self.fp_to_sint_raw(self.fp_binary(FpBinOp::Sub, a, half), w),
                    self.constant(w, sign_bit(w)),
                );
                self.ite(self.fp_cmp(FpCmp::Lt, a, half), low, high)
            }
        }
    }

    /// `sitofp` (`signed`) or `uitofp` of the integer `a` to the format of `to` bits.
    pub fn int_to_fp(&self, a: ExprId, to: Width, signed: bool) -> ExprId {
        if to == X87 {
            let op = if signed {
                FloatOp::FromSInt
            } else {
                FloatOp::FromUInt
            };
            return self.build_x87(op, &[a], X87);
        }
        let w = self.width(a);
        if let Some(x) = self.as_const(a) {
            return self.constant(to, fold_int_to_fp(w, to, signed, x));
        }
        self.intern_bv(
            Node::IntToFp {
                arg: a,
                width: to,
                signed,
            },
            to,
        )
    }

    /// Whether two floats are equal as IEEE `==` says, except that two NaNs are equal
    /// (`--fp-equal ieee`).
    pub fn fp_eq_or_both_nan(&self, a: ExprId, b: ExprId) -> ExprId {
        if self.width(a) == X87 {
            let (a, b) = (self.x87_decode(a).0, self.x87_decode(b).0);
            return self.fp_eq_or_both_nan(a, b);
        }
        let mut shown = rustc_hash::FxHashMap::default();
        if self.same_or_both_nan(a, b, NAN_EQUIVALENCE_DEPTH, &mut shown) {
            return self.true_();
        }
        let both = self.bool_and(self.fp_is_nan(a), self.fp_is_nan(b));
        self.bool_or(self.fp_cmp(FpCmp::Eq, a, b), both)
    }

    /// Whether the floats `a` and `b` are, on every input, both NaN or bit for bit the same
    /// (decided on their structure, looking `depth` operations deep; `false` means "not
    /// shown"). That holds for one expression, for the same raw operation on operands that
    /// are pairwise so (a NaN operand makes both results NaN; otherwise the operands, and so
    /// the results, are the same bits; the raw sum and product have one node for both
    /// operand orders), and for a raw operation and its NaN propagation (which returns a NaN
    /// operand instead of the default NaN). So `sqrt(x*x + y*y)` and `sqrt(y*y + x*x)` are
    /// equal under `--fp-equal ieee` without asking the solver, while their bits differ
    /// when `x` and `y` are NaNs with different payloads. `memo` holds the pairs compared.
    fn same_or_both_nan(
        &self,
        a: ExprId,
        b: ExprId,
        depth: u32,
        memo: &mut rustc_hash::FxHashMap<(ExprId, ExprId), bool>,
    ) -> bool {
        if a == b {
            return true;
        }
        if depth == 0 {
            return false;
        }
        if let Some(&known) = memo.get(&(a, b)) {
            return known;
        }
        let shown = self.same_or_both_nan_below(a, b, depth, memo);
        memo.insert((a, b), shown);
        shown
    }

    /// [`ExprPool::same_or_both_nan`] for two different expressions.
    fn same_or_both_nan_below(
        &self,
        a: ExprId,
        b: ExprId,
        depth: u32,
        memo: &mut rustc_hash::FxHashMap<(ExprId, ExprId), bool>,
    ) -> bool {
        let (a, b) = (self.nan_raw(a), self.nan_raw(b));
        if a == b {
            return true;
        }
        let mut same = |x: ExprId, y: ExprId| self.same_or_both_nan(x, y, depth - 1, memo);
        match (self.node(a), self.node(b)) {
            (
                Node::FpBinary { op, lhs, rhs },
                Node::FpBinary {
                    op: op2,
                    lhs: lhs2,
                    rhs: rhs2,
                },
            ) if op == op2 => {
                (same(lhs, lhs2) && same(rhs, rhs2))
                    || (matches!(op, FpBinOp::Add | FpBinOp::Mul)
                        && same(lhs, rhs2)
                        && same(rhs, lhs2))
            }
            (Node::FpUnary { op, arg }, Node::FpUnary { op: op2, arg: arg2 }) if op == op2 => {
                same(arg, arg2)
            }
            (
                Node::FpConvert { arg, width },
                Node::FpConvert {
                    arg: arg2,
                    width: width2,
                },
            ) if width == width2 && self.width(arg) == self.width(arg2) => same(arg, arg2),
            (
                Node::FpFma { a: x, b: y, c: z },
                Node::FpFma {
                    a: x2,
                    b: y2,
                    c: z2,
                },
            ) => same(z, z2) && ((same(x, x2) && same(y, y2)) || (same(x, y2) && same(y, x2))),
            _ => false,
        }
    }

    /// The raw operation under the NaN propagation that [`ExprPool::fp_propagate`] wraps
    /// around it, when every operand the propagation tests is an operand of that raw
    /// operation (so the two are both NaN or the same bits); else `e` itself.
    fn nan_raw(&self, e: ExprId) -> ExprId {
        let mut tested = Vec::new();
        let mut at = e;
        while let Node::Ite { cond, then, els } = self.node(at) {
            let Node::Binary {
                op: BinOp::Or,
                lhs,
                rhs,
            } = self.node(then)
            else {
                return e;
            };
            let x = if self.as_const(rhs).is_some() {
                lhs
            } else {
                rhs
            };
            if self.fp_quiet(x) != then || self.fp_is_nan(x) != cond {
                return e;
            }
            tested.push(x);
            at = els;
        }
        let operands: Vec<ExprId> = match self.node(at) {
            Node::FpBinary { lhs, rhs, .. } => vec![lhs, rhs],
            Node::FpUnary { arg, .. } | Node::FpConvert { arg, .. } => vec![arg],
            Node::FpFma { a, b, c } => vec![a, b, c],
            _ => return e,
        };
        if tested.iter().all(|x| operands.contains(x)) {
            at
        } else {
            e
        }
    }
}

/// How many operations deep [`ExprPool::fp_eq_or_both_nan`] compares two floats' structure.
const NAN_EQUIVALENCE_DEPTH: u32 = 12;

/// One of LLVM's floating-point instructions or intrinsics, as the IR and the interpreter
/// name it: [`eval_float`] computes it on concrete bit patterns, [`ExprPool::build_float`]
/// on expressions, with the same meaning (tested against each other).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatOp {
    /// `fadd`, `fsub`, `fmul`, `fdiv`, `frem`.
    Binary(FpBinOp),
    /// `fneg`.
    Neg,
    /// `llvm.fabs`.
    Abs,
    /// `llvm.copysign`.
    CopySign,
    /// `fcmp` (a width-1 result).
    Cmp(FpPred),
    /// `llvm.sqrt`, `llvm.floor`, `llvm.ceil`, `llvm.trunc`, `llvm.round`, `llvm.rint`,
    /// `llvm.nearbyint`.
    Unary(FpUnOp),
    /// `llvm.fma`: one rounding.
    Fma,
    /// `llvm.fmuladd`: a multiplication then an addition (x86-64 without FMA).
    MulAdd,
    /// `llvm.minnum`.
    Min,
    /// `llvm.maxnum`.
    Max,
    /// `fpext`, `fptrunc`.
    Convert,
    /// `fptosi`.
    ToSInt,
    /// `fptoui`.
    ToUInt,
    /// `sitofp`.
    FromSInt,
    /// `uitofp`.
    FromUInt,
}

impl FloatOp {
    /// The number of operands.
    pub fn arity(self) -> usize {
        match self {
            FloatOp::Binary(_)
            | FloatOp::CopySign
            | FloatOp::Cmp(_)
            | FloatOp::Min
            | FloatOp::Max => 2,
            FloatOp::Fma | FloatOp::MulAdd => 3,
            _ => 1,
        }
    }
}

/// Whether `op` with a first operand of `width` bits and a result of `to` bits computes on
/// `long double` values (`x87.rs` gives it its meaning).
pub fn is_x87(op: FloatOp, width: Width, to: Width) -> bool {
    match op {
        FloatOp::FromSInt | FloatOp::FromUInt => to == X87,
        FloatOp::Convert => width == X87 || to == X87,
        _ => width == X87,
    }
}

/// `minnum`/`maxnum` with x86-64's meaning (see the module comment) of the operands whose bit
/// patterns are `a`, `b` (one of them is the result, or for equal zeros their sign bits
/// combined: `-0.0` orders below `+0.0`) and whose values `x`, `y` `nan` tests and `lt`
/// orders: the other operand when one is NaN.
pub(super) fn min_max<T: Copy>(
    max: bool,
    (a, b): (u128, u128),
    (x, y): (T, T),
    nan: impl Fn(T) -> bool,
    lt: impl Fn(T, T) -> bool,
) -> u128 {
    let (lo, hi) = if max { (y, x) } else { (x, y) };
    if nan(x) {
        b
    } else if nan(y) || lt(lo, hi) {
        a
    } else if lt(hi, lo) {
        b
    } else if max {
        a & b
    } else {
        a | b
    }
}

/// `op` on concrete operands of `float` or `double` (see [`super::eval_float`], which
/// hands `long double` operations to `x87.rs`).
pub fn eval_ieee(op: FloatOp, width: Width, to: Width, args: &[u128]) -> u128 {
    let w = width;
    let nan = |v: u128| v & (sign_bit(w) - 1) > infinity(w);
    // The first NaN operand quietened, if there is one.
    let first_nan = |operands: &[u128]| {
        operands
            .iter()
            .find(|&&v| nan(v))
            .map(|&v| v | quiet_bit(w))
    };
    let a = args[0];
    let b = args.get(1).copied().unwrap_or(0);
    let lt = |x, y| fold_fp_cmp(FpCmp::Lt, w, x, y);
    let le = |x, y| fold_fp_cmp(FpCmp::Le, w, x, y);
    match op {
        FloatOp::Binary(bop) => first_nan(&[a, b]).unwrap_or_else(|| fold_fp_binary(bop, w, a, b)),
        FloatOp::Neg => a ^ sign_bit(w),
        FloatOp::Abs => a & (sign_bit(w) - 1),
        FloatOp::CopySign => (a & (sign_bit(w) - 1)) | (b & sign_bit(w)),
        FloatOp::Cmp(pred) => {
            let uno = nan(a) || nan(b);
            let eq = fold_fp_cmp(FpCmp::Eq, w, a, b);
            u128::from(match pred {
                FpPred::False => false,
                FpPred::True => true,
                FpPred::Oeq => eq,
                FpPred::Olt => lt(a, b),
                FpPred::Ole => le(a, b),
                FpPred::Ogt => lt(b, a),
                FpPred::Oge => le(b, a),
                FpPred::One => lt(a, b) || lt(b, a),
                FpPred::Ord => !uno,
                FpPred::Uno => uno,
                FpPred::Ueq => uno || eq,
                FpPred::Une => !eq,
                FpPred::Ugt => !le(a, b),
                FpPred::Uge => !lt(a, b),
                FpPred::Ult => !le(b, a),
                FpPred::Ule => !lt(b, a),
            })
        }
        FloatOp::Unary(FpUnOp::Sqrt) => {
            first_nan(&[a]).unwrap_or_else(|| fold_fp_unary(FpUnOp::Sqrt, w, a))
        }
        FloatOp::Unary(uop) => {
            if nan(a) {
                a
            } else {
                fold_fp_unary(uop, w, a)
            }
        }
        FloatOp::Fma => {
            let c = args[2];
            first_nan(&[a, b, c]).unwrap_or_else(|| fold_fp_fma(w, a, b, c))
        }
        FloatOp::MulAdd => {
            let product = eval_ieee(FloatOp::Binary(FpBinOp::Mul), w, w, &[a, b]);
            eval_ieee(FloatOp::Binary(FpBinOp::Add), w, w, &[product, args[2]])
        }
        FloatOp::Min | FloatOp::Max => min_max(op == FloatOp::Max, (a, b), (a, b), nan, lt),
        FloatOp::Convert => {
            if w == to {
                a
            } else if nan(a) {
                let (mf, mt) = (layout(w).1, layout(to).1);
                let payload = a & ((1u128 << mf) - 1);
                let moved = if mt > mf {
                    payload << (mt - mf)
                } else {
                    mask(to, payload >> (mf - mt))
                };
                let sign = if a & sign_bit(w) != 0 {
                    sign_bit(to)
                } else {
                    0
                };
                sign | moved | infinity(to) | quiet_bit(to)
            } else {
                fold_fp_convert(w, to, a)
            }
        }
        FloatOp::ToSInt => match to {
            32 | 64 => fold_fp_to_sint(w, to, a),
            t if t < 32 => mask(t, fold_fp_to_sint(w, 32, a)),
            t if t < 64 => mask(t, fold_fp_to_sint(w, 64, a)),
            t => fold_fp_to_sint(w, t, a),
        },
        FloatOp::ToUInt => match to {
            t if t < 32 => mask(t, fold_fp_to_sint(w, 32, a)),
            t if t < 64 => mask(t, fold_fp_to_sint(w, 64, a)),
            t => {
                let half = fold_int_to_fp(t, w, false, sign_bit(t));
                if lt(a, half) {
                    fold_fp_to_sint(w, t, a)
                } else {
                    let less = eval_ieee(FloatOp::Binary(FpBinOp::Sub), w, w, &[a, half]);
                    fold_fp_to_sint(w, t, less) ^ sign_bit(t)
                }
            }
        },
        FloatOp::FromSInt => fold_int_to_fp(w, to, true, a),
        FloatOp::FromUInt => fold_int_to_fp(w, to, false, a),
    }
}

impl ExprPool {
    /// `op` on expressions (see [`eval_float`] for `to`).
    pub fn build_float(&self, op: FloatOp, args: &[ExprId], to: Width) -> ExprId {
        let a = args[0];
        if is_x87(op, self.width(a), to) {
            return self.build_x87(op, args, to);
        }
        let b = args.get(1).copied().unwrap_or(a);
        match op {
            FloatOp::Binary(bop) => self.fp_binary(bop, a, b),
            FloatOp::Neg => self.fp_neg(a),
            FloatOp::Abs => self.fp_abs(a),
            FloatOp::CopySign => self.fp_copysign(a, b),
            FloatOp::Cmp(pred) => self.fp_pred(pred, a, b),
            FloatOp::Unary(uop) => self.fp_unary(uop, a),
            FloatOp::Fma => self.fp_fma(a, b, args[2]),
            FloatOp::MulAdd => {
                let product = self.fp_binary(FpBinOp::Mul, a, b);
                self.fp_binary(FpBinOp::Add, product, args[2])
            }
            FloatOp::Min => self.fp_min_max(false, a, b),
            FloatOp::Max => self.fp_min_max(true, a, b),
            FloatOp::Convert => self.fp_convert(a, to),
            FloatOp::ToSInt => self.fp_to_sint(a, to),
            FloatOp::ToUInt => self.fp_to_uint(a, to),
            FloatOp::FromSInt => self.int_to_fp(a, to, true),
            FloatOp::FromUInt => self.int_to_fp(a, to, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_neighbours_of_a_float_are_one_unit_away_through_zero() {
        let bits = |f: f64| u128::from(f.to_bits());
        let float = |b: u128| f64::from_bits(b as u64);
        for x in [
            1.0,
            -1.0,
            0.75,
            1e300,
            -3.5e-310,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            let n = fp_neighbours(64, bits(x));
            assert_eq!(n.len(), 2, "{x}");
            let (a, b) = (float(n[0]), float(n[1]));
            let (lo, hi) = (a.min(b), a.max(b));
            assert!(lo < x && x < hi, "{x}: {a} {b}");
            // Nothing lies between a value and its neighbours.
            assert_eq!(lo.to_bits().abs_diff(x.to_bits()), 1, "{x}");
        }
        let zero = fp_neighbours(32, 0);
        assert_eq!(
            zero.iter()
                .map(|&b| f32::from_bits(b as u32))
                .collect::<Vec<_>>(),
            [f32::from_bits(1), -f32::from_bits(1)]
        );
        assert!(fp_neighbours(64, bits(f64::INFINITY)).is_empty());
        assert!(fp_neighbours(64, bits(f64::NAN)).is_empty());
        assert!(fp_neighbours(80, 0).is_empty());
    }

    #[test]
    fn operations_on_choices_between_constants_are_choices_between_results() {
        let pool = ExprPool::new();
        let x = pool.new_array("c", 1);
        let c = pool.extract(pool.sym(x, 0), 0, 1);
        let d = |v: f64| pool.constant(64, u128::from(v.to_bits()));
        // lo = c ? 1.0 : 0.0, hi = c ? 2.0 : 1.0: both halves computed on constants.
        let (lo, hi) = (pool.ite(c, d(1.0), d(0.0)), pool.ite(c, d(2.0), d(1.0)));
        let mid = pool.fp_binary(FpBinOp::Div, pool.fp_binary(FpBinOp::Add, lo, hi), d(2.0));
        assert_eq!(mid, pool.ite(c, d(1.5), d(0.5)));
        let other = pool.fp_binary(
            FpBinOp::Add,
            lo,
            pool.fp_binary(FpBinOp::Mul, pool.fp_binary(FpBinOp::Sub, hi, lo), d(0.5)),
        );
        assert_eq!(other, mid);
        assert_eq!(pool.fp_is_nan(mid), pool.false_());
    }

    /// A double read from eight fresh input bytes, and its array.
    fn input_double(pool: &ExprPool, name: &str) -> (ExprId, crate::expr::ArrayId) {
        let array = pool.new_array(name, 8);
        let word = (1..8).fold(pool.sym(array, 0), |acc, i| {
            pool.concat(pool.sym(array, i), acc)
        });
        (word, array)
    }

    #[test]
    fn operands_swapped_under_nan_propagation_are_equal_unless_bits_are_compared() {
        let pool = ExprPool::new();
        let ((x, xa), (y, ya)) = (input_double(&pool, "x"), input_double(&pool, "y"));
        let square = |v: ExprId| pool.fp_binary(FpBinOp::Mul, v, v);
        let hypot = |p: ExprId, q: ExprId| {
            pool.fp_unary(
                FpUnOp::Sqrt,
                pool.fp_binary(FpBinOp::Add, square(p), square(q)),
            )
        };
        let (a, b) = (hypot(x, y), hypot(y, x));
        assert_ne!(a, b, "NaN payloads make the orders differ bit for bit");
        assert_eq!(pool.fp_eq_or_both_nan(a, b), pool.true_());
        // A difference is not commutative, and a copy of the sign is no raw operation.
        let (d, e) = (
            pool.fp_binary(FpBinOp::Sub, x, y),
            pool.fp_binary(FpBinOp::Sub, y, x),
        );
        assert_ne!(pool.fp_eq_or_both_nan(d, e), pool.true_());
        let (s, t) = (
            pool.build_float(FloatOp::CopySign, &[x, y], 64),
            pool.build_float(FloatOp::CopySign, &[y, x], 64),
        );
        assert_ne!(pool.fp_eq_or_both_nan(s, t), pool.true_());
        // The fold agrees with evaluation, NaNs with payloads and signed zeroes included.
        let values = [
            0.0f64.to_bits(),
            (-0.0f64).to_bits(),
            1.5f64.to_bits(),
            f64::NAN.to_bits(),
            f64::NAN.to_bits() | 1,
            f64::NAN.to_bits() | 1 << 63,
            f64::INFINITY.to_bits(),
            f64::MAX.to_bits(),
        ];
        for &p in &values {
            for &q in &values {
                let mut model = crate::expr::Assignment::default();
                for i in 0..8 {
                    model.set_byte(xa, i, (p >> (8 * i)) as u8);
                    model.set_byte(ya, i, (q >> (8 * i)) as u8);
                }
                let (va, vb) = (pool.eval(a, &model), pool.eval(b, &model));
                let nan = |v: u128| f64::from_bits(v as u64).is_nan();
                assert!(va == vb || (nan(va) && nan(vb)), "{p:#x} {q:#x}");
            }
        }
    }

    #[test]
    fn a_conversion_to_integer_of_a_truncated_float_is_the_conversion() {
        let pool = ExprPool::new();
        let (x, _) = input_double(&pool, "x");
        for to in [8, 32, 64] {
            let direct = pool.fp_to_sint(x, to);
            assert_eq!(pool.fp_to_sint(pool.fp_unary(FpUnOp::Trunc, x), to), direct);
            assert_eq!(
                pool.fp_to_sint(pool.fp_unary_raw(FpUnOp::Trunc, x), to),
                direct
            );
            // Another rounding is not the same conversion.
            assert_ne!(pool.fp_to_sint(pool.fp_unary(FpUnOp::Floor, x), to), direct);
        }
        // The identity on the concrete folds: NaNs, infinities, the ends of the range.
        let values = [
            0.5,
            -0.5,
            -1.5,
            2147483647.5,
            2147483648.0,
            -2147483648.9,
            -2147483649.0,
            9.3e18,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for v in values {
            let bits = u128::from(f64::to_bits(v));
            for to in [32, 64] {
                let truncated = fold_fp_unary(FpUnOp::Trunc, 64, bits);
                assert_eq!(
                    fold_fp_to_sint(64, to, truncated),
                    fold_fp_to_sint(64, to, bits),
                    "{v} to {to} bits"
                );
            }
        }
    }
}
