//! Undefined behaviour: values the language leaves undefined — operations on some operands
//! (a shift by at least the width, `ctlz`/`cttz` of zero under their poison flag, an
//! operation whose poison-producing flag fails: [`flag_fails`], [`flag_conditions`]),
//! `undef` and `poison` constants, and loads of memory never written.
//!
//! Under [`UbMode::Report`] a shift's, a count's, a constant's or an unwritten byte's value
//! is a fresh symbolic value where it is undefined (`ite(undefined, fresh, result)`),
//! recorded on the state with the condition and the place ([`UndefinedValue`]). An
//! operation whose flag may fail keeps the operator's value instead, with where the flag
//! fails recorded ([`FlaggedValue`]): flags are on most of a program's arithmetic, and a
//! fresh value in each sum would make every later query carry it; the crosscheck weighs
//! them where the path ends (`crosscheck/poison.rs`). Nothing is decided where it is made:
//! a value the program never uses (a shift LLVM hoisted above the test that guards it, then
//! selected away) leaves no trace in the results, while a result, branch or store that
//! depends on it lets the crosscheck see that the path's outcome rests on undefined
//! behaviour. Under [`UbMode::Machine`] each operation gets what x86-64 does instead (shift
//! counts masked to the register's width, wrapped results), which native replay can
//! confirm. The operations live with the interpreter (`ub.rs`: `undefined_where`,
//! `shift_value`, `record_flagged`; `special.rs`: `uninitialised_read`); this file holds
//! the types and the flags' conditions.

use crate::expr::{mask, to_signed, ArrayId, BinOp, ExprId, ExprPool, Node};
use crate::ir::Flags;

/// What an operation with undefined results gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UbMode {
    /// A fresh symbolic value, recorded on the state: the verdict says when a result depends
    /// on one. Function checks' default.
    Report,
    /// What x86-64 computes: shift counts masked to 5 bits (6 for 64-bit operands). The
    /// engine's default, and always that of whole programs, whose results native replay
    /// confirms.
    #[default]
    Machine,
}

impl std::str::FromStr for UbMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "report" => Ok(UbMode::Report),
            "machine" => Ok(UbMode::Machine),
            other => Err(format!("'{other}': expected report or machine")),
        }
    }
}

/// A value undefined behaviour produced on a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndefinedValue {
    /// The fresh input that stands for it.
    pub array: ArrayId,
    /// When the operation was undefined (width 1).
    pub cond: ExprId,
    /// The side that ran it (`State::phase`).
    pub phase: u8,
    /// What it was and where: `shift by at least 32 bits at f.c:3`.
    pub what: String,
}

/// An operation on symbolic operands whose poison-producing flag may fail on the path
/// (`--ub report`). Its value stays the operator's — no fresh value enters the path's
/// expressions, so queries during exploration cost what they cost without flags — and the
/// crosscheck asks, where a path ends, whether an outcome or a branch reads `node` where
/// `cond` holds (`crosscheck/poison.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlaggedValue {
    /// The operation's value, as the path's expressions hold it: the operator's, or for a
    /// flag that failed on concrete operands a fresh value of its own (`ub.rs`).
    pub node: ExprId,
    /// When a flag fails (width 1).
    pub cond: ExprId,
    /// The side that ran it (`State::phase`).
    pub phase: u8,
    /// The operation and which of its flags may fail.
    pub op: BinOp,
    pub flags: Flags,
    /// Where it ran.
    pub loc: Option<crate::ir::LocId>,
    /// The fresh input `node` is made of, for a flag that failed on concrete operands: a
    /// value of undefined behaviour, free wherever a difference is asked to rest on one.
    pub fresh: Option<crate::expr::ArrayId>,
    /// What fails when it is no flag of `op`: a conversion out of range.
    pub label: Option<&'static str>,
}

impl FlaggedValue {
    /// What may fail: `signed overflow in add (nsw)`.
    pub fn what(&self) -> String {
        match self.label {
            Some(label) => label.to_string(),
            None => describe_flags(self.op, self.flags),
        }
    }
}

/// The bit patterns `(L, H)` of two floats of `fw` bits (32 or 64) such that `fptosi`
/// (`signed`) or `fptoui` to `w` bits has a value exactly for the `x` with `L < x < H`:
/// the conversion rounds toward zero, so `x` must lie above the target's least value minus
/// one and below its greatest plus one. `L` is the largest float at most that bound, `H`
/// the bound itself (a power of two) or infinity.
pub fn conversion_bounds(fw: u32, w: u32, signed: bool) -> Option<(u128, u128)> {
    if w == 0 || w > 128 {
        return None;
    }
    let top = if signed { w - 1 } else { w };
    // The least value minus one is exact below the mantissa's width; above it, the float
    // just below the least value stands for it.
    macro_rules! bounds {
        ($float:ty, $mantissa:expr) => {{
            let hi = (2.0 as $float).powi(top as i32);
            let lo = if !signed {
                -1.0
            } else if top < $mantissa {
                -hi - 1.0
            } else {
                (-hi).next_down()
            };
            Some((u128::from(lo.to_bits()), u128::from(hi.to_bits())))
        }};
    }
    match fw {
        64 => bounds!(f64, 53),
        32 => bounds!(f32, 24),
        _ => None,
    }
}

/// Ranges as LLVM writes them, signed: `[0, 2)`, `[-1, 1)`, joined by "or".
pub fn describe_ranges(width: u32, ranges: &[(u128, u128)]) -> String {
    let text: Vec<String> = ranges
        .iter()
        .map(|&(lo, hi)| format!("[{}, {})", to_signed(width, lo), to_signed(width, hi)))
        .collect();
    text.join(" or ")
}

/// Whether the `width`-bit `x` lies in one of `ranges` (`[lo, hi)`, wrapping when
/// `lo > hi`).
pub fn in_ranges(x: u128, ranges: &[(u128, u128)]) -> bool {
    ranges.iter().any(|&(lo, hi)| {
        if lo < hi {
            lo <= x && x < hi
        } else {
            x >= lo || x < hi
        }
    })
}

/// The operator a `uitofp nneg`'s flag is recorded under ([`Executor::record_flagged`]
/// takes a binary operation), with the operand and 0: `xor` carries no flag in LLVM, so
/// its `nneg` means the conversion's.
pub const UITOFP_NNEG: BinOp = BinOp::Xor;

/// The operator a cast's flags are recorded under, and its second operand: `zext nneg` as
/// `or` with 0 (whose `disjoint` never fails), `trunc nuw`/`nsw` as `and` with the width
/// the value is truncated to (`and` carries no flag in LLVM, so its `nuw`/`nsw` mean the
/// truncation's).
pub fn cast_flag_operands(kind: crate::ir::CastKind, to: u32) -> (BinOp, u128) {
    match kind {
        crate::ir::CastKind::Trunc => (BinOp::And, to as u128),
        _ => (BinOp::Or, 0),
    }
}

/// Whether `op` is a shift, whose result is undefined for counts of at least the width.
pub fn is_shift(op: BinOp) -> bool {
    matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr)
}

/// What a failed flag of `op` is called: `signed overflow in add`.
fn flag_name(op: BinOp, flag: Flag) -> String {
    let name = match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Shl => "shl",
        BinOp::UDiv => "udiv",
        BinOp::SDiv => "sdiv",
        BinOp::LShr => "lshr",
        BinOp::AShr => "ashr",
        BinOp::Or => "or",
        _ => "operation",
    };
    match flag {
        Flag::Nsw if op == BinOp::And => "trunc changing a signed value (nsw)".to_string(),
        Flag::Nuw if op == BinOp::And => "trunc changing an unsigned value (nuw)".to_string(),
        Flag::NNeg if op == UITOFP_NNEG => "uitofp of a negative value (nneg)".to_string(),
        Flag::Nsw => format!("signed overflow in {name} (nsw)"),
        Flag::Nuw => format!("unsigned overflow in {name} (nuw)"),
        Flag::Exact => format!("inexact {name} (exact)"),
        Flag::Disjoint => format!("{name} of operands with a common bit (disjoint)"),
        Flag::NNeg => "zext of a negative value (nneg)".to_string(),
    }
}

/// One poison-producing flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag {
    Nsw,
    Nuw,
    Exact,
    Disjoint,
    /// `zext nneg`: carried by a cast, whose operand is `a` (`op` is not consulted).
    NNeg,
}

impl Flag {
    /// The flags with only this one set.
    fn alone(self) -> Flags {
        Flags {
            nsw: self == Flag::Nsw,
            nuw: self == Flag::Nuw,
            exact: self == Flag::Exact,
            disjoint: self == Flag::Disjoint,
            nneg: self == Flag::NNeg,
        }
    }
}

/// The flags of `flags` that `op` can carry, in a fixed order.
fn flags_of(op: BinOp, flags: Flags) -> impl Iterator<Item = Flag> {
    let can = move |f: Flag| match f {
        Flag::Nsw => {
            flags.nsw
                && matches!(
                    op,
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::And
                )
        }
        Flag::Nuw => {
            flags.nuw
                && matches!(
                    op,
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::And
                )
        }
        Flag::Exact => {
            flags.exact && matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::LShr | BinOp::AShr)
        }
        Flag::Disjoint => flags.disjoint && op == BinOp::Or,
        Flag::NNeg => flags.nneg,
    };
    [
        Flag::Nsw,
        Flag::Nuw,
        Flag::Exact,
        Flag::Disjoint,
        Flag::NNeg,
    ]
    .into_iter()
    .filter(move |&f| can(f))
}

/// The first flag of `op` (with `flags`) that fails on the concrete `a` and `b` of `width`
/// bits, named: the result is poison. Computed on integers, without expressions (the
/// interpreter asks this of every flagged operation on concrete operands). A shift by at
/// least the width and a division by zero are not flags' failures (`step.rs` handles them).
pub fn flag_fails(op: BinOp, flags: Flags, width: u32, a: u128, b: u128) -> Option<Flags> {
    let m = mask(width, u128::MAX);
    let sign = |x: u128| (x >> (width - 1)) & 1 == 1;
    let (min, max) = (to_signed(width, 1 << (width - 1)), to_signed(width, m >> 1));
    let fails = |f: Flag| match (op, f) {
        (_, Flag::NNeg) => sign(a),
        // A truncation to `b` bits (`cast_flag_operands`).
        (BinOp::And, Flag::Nuw) => b < width as u128 && a >> b != 0,
        (BinOp::And, Flag::Nsw) => {
            b < width as u128 && {
                let low = a & mask(b as u32, u128::MAX);
                mask(width, to_signed(b as u32, low) as u128) != a
            }
        }
        (BinOp::Add, Flag::Nsw) => {
            let r = a.wrapping_add(b) & m;
            sign((a ^ r) & (b ^ r))
        }
        (BinOp::Add, Flag::Nuw) => a.wrapping_add(b) & m < a,
        (BinOp::Sub, Flag::Nsw) => {
            let r = a.wrapping_sub(b) & m;
            sign((a ^ b) & (a ^ r))
        }
        (BinOp::Sub, Flag::Nuw) => a < b,
        (BinOp::Mul, Flag::Nuw) => a.checked_mul(b).is_none_or(|p| p > m),
        (BinOp::Mul, Flag::Nsw) => to_signed(width, a)
            .checked_mul(to_signed(width, b))
            .is_none_or(|p| p < min || p > max),
        (BinOp::Shl, _) if b >= width as u128 => false,
        (BinOp::Shl, Flag::Nuw) => ((a << b) & m) >> b != a,
        (BinOp::Shl, Flag::Nsw) => {
            let r = (a << b) & m;
            mask(width, (to_signed(width, r) >> b) as u128) != a
        }
        (BinOp::UDiv, _) => b != 0 && !a.is_multiple_of(b),
        (BinOp::SDiv, _) => {
            b != 0
                && to_signed(width, a)
                    .checked_rem(to_signed(width, b))
                    .is_some_and(|r| r != 0)
        }
        (BinOp::LShr | BinOp::AShr, _) => b < width as u128 && a & ((1u128 << b) - 1) != 0,
        (BinOp::Or, _) => a & b != 0,
        _ => false,
    };
    flags_of(op, flags).find(|&f| fails(f)).map(Flag::alone)
}

/// What the failing `flags` of `op` are called: `signed overflow in add (nsw)`, joined
/// by "or".
pub fn describe_flags(op: BinOp, flags: Flags) -> String {
    let names: Vec<String> = flags_of(op, flags).map(|f| flag_name(op, f)).collect();
    names.join(" or ")
}

/// Where each flag of `op` (with `flags`) fails on `a` and `b` and makes `result` poison,
/// named; flags whose failure the operands' structure (known bits, sign extensions) rules
/// out give nothing, and no expression is built for them.
pub fn flag_conditions(
    pool: &ExprPool,
    op: BinOp,
    flags: Flags,
    (a, b): (ExprId, ExprId),
    result: ExprId,
    bounds: &Bounds<'_>,
) -> Vec<(ExprId, Flags)> {
    let width = pool.width(a);
    let m = mask(width, u128::MAX);
    let (ua, ub) = (
        urange(pool, a, width, bounds),
        urange(pool, b, width, bounds),
    );
    let (sa, sb) = (
        srange(pool, a, width, bounds),
        srange(pool, b, width, bounds),
    );
    let (min, max) = (to_signed(width, 1 << (width - 1)), to_signed(width, m >> 1));
    let fits = |lo: Option<i128>, hi: Option<i128>| {
        lo.zip(hi).is_some_and(|(lo, hi)| lo >= min && hi <= max)
    };
    let sign_set = |x: ExprId| pool.slt(x, pool.zero(width));
    let mut out = Vec::new();
    for f in flags_of(op, flags) {
        let cond = match (op, f) {
            (BinOp::Add, Flag::Nsw) => {
                if fits(sa.0.checked_add(sb.0), sa.1.checked_add(sb.1)) {
                    continue;
                }
                let (ar, br) = (pool.xor(a, result), pool.xor(b, result));
                sign_set(pool.and(ar, br))
            }
            (BinOp::Add, Flag::Nuw) => {
                if ua.1.checked_add(ub.1).is_some_and(|s| s <= m) {
                    continue;
                }
                pool.ult(result, a)
            }
            (BinOp::Sub, Flag::Nsw) => {
                if fits(sa.0.checked_sub(sb.1), sa.1.checked_sub(sb.0)) {
                    continue;
                }
                sign_set(pool.and(pool.xor(a, b), pool.xor(a, result)))
            }
            (BinOp::Sub, Flag::Nuw) => {
                if ua.0 >= ub.1 {
                    continue;
                }
                pool.ult(a, b)
            }
            (BinOp::Mul, Flag::Nuw) => {
                if ua.1.checked_mul(ub.1).is_some_and(|p| p <= m) {
                    continue;
                }
                if width <= 64 {
                    let p = pool.mul(pool.zext(a, 2 * width), pool.zext(b, 2 * width));
                    pool.ugt(p, pool.constant(2 * width, m))
                } else {
                    let nonzero = pool.ne(b, pool.zero(width));
                    pool.bool_and(nonzero, pool.ne(pool.udiv(result, b), a))
                }
            }
            (BinOp::Mul, Flag::Nsw) => {
                let corners = [sa.0, sa.1]
                    .into_iter()
                    .flat_map(|x| [sb.0, sb.1].into_iter().map(move |y| x.checked_mul(y)));
                let corners: Option<Vec<i128>> = corners.collect();
                if corners.is_some_and(|c| c.iter().all(|&p| p >= min && p <= max)) {
                    continue;
                }
                if width <= 64 {
                    let p = pool.mul(pool.sext(a, 2 * width), pool.sext(b, 2 * width));
                    pool.ne(pool.sext(pool.trunc(p, width), 2 * width), p)
                } else {
                    let nonzero = pool.ne(b, pool.zero(width));
                    let wrong = pool.ne(pool.sdiv(result, b), a);
                    let min_by_minus_one = pool.bool_and(
                        pool.eq(b, pool.all_ones(width)),
                        pool.eq(a, pool.constant(width, 1 << (width - 1))),
                    );
                    pool.bool_or(pool.bool_and(nonzero, wrong), min_by_minus_one)
                }
            }
            (BinOp::Shl, _) => {
                let back = if f == Flag::Nuw {
                    pool.lshr(result, b)
                } else {
                    pool.ashr(result, b)
                };
                let in_range = pool.ult(b, pool.constant(width, width as u128));
                pool.bool_and(in_range, pool.ne(back, a))
            }
            (BinOp::UDiv, _) => pool.ne(pool.urem(a, b), pool.zero(width)),
            (BinOp::SDiv, _) => pool.ne(pool.srem(a, b), pool.zero(width)),
            (BinOp::LShr | BinOp::AShr, _) => {
                let dropped = pool.sub(
                    pool.shl(pool.constant(width, 1), b),
                    pool.constant(width, 1),
                );
                let in_range = pool.ult(b, pool.constant(width, width as u128));
                pool.bool_and(in_range, pool.ne(pool.and(a, dropped), pool.zero(width)))
            }
            (_, Flag::NNeg) => {
                if sa.0 >= 0 {
                    continue;
                }
                sign_set(a)
            }
            // A truncation to `b` bits (`cast_flag_operands`): poison where the bits it
            // drops are not all zero (`nuw`) or not all copies of its sign (`nsw`).
            (BinOp::And, _) => {
                let Some(to) = pool.as_const(b).map(|t| t as u32).filter(|&t| t < width) else {
                    continue;
                };
                let narrow = pool.trunc(a, to);
                if f == Flag::Nuw {
                    if ua.1 >> to == 0 {
                        continue;
                    }
                    pool.ne(pool.zext(narrow, width), a)
                } else {
                    let half = 1i128 << (to - 1);
                    if sa.0 >= -half && sa.1 < half {
                        continue;
                    }
                    pool.ne(pool.sext(narrow, width), a)
                }
            }
            (BinOp::Or, _) => {
                let (ka, kb) = (pool.known_bits(a), pool.known_bits(b));
                if (ka.value | !ka.mask) & (kb.value | !kb.mask) & m == 0 {
                    continue;
                }
                pool.ne(pool.and(a, b), pool.zero(width))
            }
            _ => continue,
        };
        if pool.as_const(cond) != Some(0) {
            out.push((cond, f.alone()));
        }
    }
    out
}

/// The signed range of a term that the path condition bounds (`ConstraintSet::signed_bounds`).
pub type Bounds<'a> = dyn Fn(ExprId) -> Option<(i128, i128)> + 'a;

/// The unsigned range of `e`: its signed range when that is nonnegative, else what its
/// known bits allow.
fn urange(pool: &ExprPool, e: ExprId, width: u32, bounds: &Bounds<'_>) -> (u128, u128) {
    match srange(pool, e, width, bounds) {
        (lo, hi) if lo >= 0 => (lo as u128, hi as u128),
        _ => bits_range(pool, e, width),
    }
}

/// The unsigned range of `e` that its known bits allow.
fn bits_range(pool: &ExprPool, e: ExprId, width: u32) -> (u128, u128) {
    let k = pool.known_bits(e);
    let m = mask(width, u128::MAX);
    (k.value & k.mask & m, (k.value | !k.mask) & m)
}

/// How deep [`srange`] looks into an expression.
const RANGE_DEPTH: u32 = 24;

/// The signed range of `e` (of `width` bits) that its structure allows: extensions keep
/// their operand's range, quotients and remainders are no larger than their operands,
/// sums and `ite`s combine their operands' ranges; otherwise its known bits'. At -O0, C's
/// promotions make most flagged operations act on extended narrow values, whose overflow
/// this rules out without building a condition.
fn srange(pool: &ExprPool, e: ExprId, width: u32, bounds: &Bounds<'_>) -> (i128, i128) {
    let mut seen = rustc_hash::FxHashMap::default();
    srange_at(pool, e, width, bounds, RANGE_DEPTH, &mut seen)
}

/// Ranges already computed, by expression (each node of a shared structure once).
type Seen = rustc_hash::FxHashMap<ExprId, (i128, i128)>;

fn srange_at(
    pool: &ExprPool,
    e: ExprId,
    width: u32,
    bounds: &Bounds<'_>,
    depth: u32,
    seen: &mut Seen,
) -> (i128, i128) {
    if let Some(&r) = seen.get(&e) {
        return r;
    }
    let (lo, hi) = srange_structural(pool, e, width, bounds, depth, seen);
    let r = match bounds(e) {
        Some((plo, phi)) if plo.max(lo) <= phi.min(hi) => (plo.max(lo), phi.min(hi)),
        _ => (lo, hi),
    };
    seen.insert(e, r);
    r
}

/// [`srange_at`] without the path's bounds of `e` itself.
fn srange_structural(
    pool: &ExprPool,
    e: ExprId,
    width: u32,
    bounds: &Bounds<'_>,
    depth: u32,
    seen: &mut Seen,
) -> (i128, i128) {
    let (min, max) = (
        to_signed(width, 1 << (width - 1)),
        to_signed(width, mask(width, u128::MAX) >> 1),
    );
    let from_bits = || {
        let (lo, hi) = bits_range(pool, e, width);
        let sign = 1u128 << (width - 1);
        let low = if hi & sign != 0 { lo | sign } else { lo };
        let high = if lo & sign == 0 { hi & !sign } else { hi };
        (to_signed(width, low), to_signed(width, high))
    };
    if depth == 0 || width < 2 {
        return from_bits();
    }
    let mut sub = |x: ExprId| srange_at(pool, x, pool.width(x), bounds, depth - 1, seen);
    let within = |lo: Option<i128>, hi: Option<i128>| match (lo, hi) {
        (Some(lo), Some(hi)) if lo >= min && hi <= max => Some((lo, hi)),
        _ => None,
    };
    let structural = match pool.node(e) {
        Node::SExt { arg, .. } => Some(sub(arg)),
        Node::ZExt { arg, .. } => {
            let w = pool.width(arg);
            let (lo, hi) = sub(arg);
            if lo >= 0 {
                Some((lo, hi))
            } else {
                Some((0, mask(w, u128::MAX) as i128))
            }
        }
        Node::Ite { then, els, .. } => {
            let ((a, b), (c, d)) = (sub(then), sub(els));
            Some((a.min(c), b.max(d)))
        }
        Node::Binary { op, lhs, rhs } => {
            let ((a, b), (c, d)) = (sub(lhs), sub(rhs));
            match op {
                BinOp::Add => within(a.checked_add(c), b.checked_add(d)),
                BinOp::Sub => within(a.checked_sub(d), b.checked_sub(c)),
                BinOp::Mul => {
                    let corners: Option<Vec<i128>> = [a, b]
                        .iter()
                        .flat_map(|&x| [c, d].map(|y| x.checked_mul(y)))
                        .collect();
                    corners.and_then(|k| within(k.iter().min().copied(), k.iter().max().copied()))
                }
                // |a / b| <= |a|, with the sign of either; the minimum over -1 wraps.
                BinOp::SDiv if a > min => {
                    let m = a.abs().max(b.abs());
                    Some((-m, m))
                }
                BinOp::UDiv if a >= 0 => Some((0, b)),
                BinOp::SRem if a > min && c > min => {
                    let m = a.abs().max(b.abs()).min((c.abs().max(d.abs()) - 1).max(0));
                    Some((if a < 0 { -m } else { 0 }, if b > 0 { m } else { 0 }))
                }
                BinOp::URem if a >= 0 && c >= 0 => Some((0, b.min((d - 1).max(0)))),
                _ => None,
            }
        }
        _ => None,
    };
    // Known bits are asked of the outermost expression and of those without structure
    // here only (each asks a bounded depth itself).
    match structural {
        Some((lo, hi)) if depth == RANGE_DEPTH => {
            let (blo, bhi) = from_bits();
            (lo.max(blo), hi.min(bhi))
        }
        Some(range) => range,
        None => from_bits(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Assignment;

    /// A truncation's `nuw`/`nsw` (recorded as `and` with the target width,
    /// `cast_flag_operands`): the symbolic condition holds exactly where the concrete check
    /// says the flag fails, which is where zero- or sign-extending the result back does not
    /// give the operand, for every 16-bit operand truncated to 8, 1 and 15 bits.
    #[test]
    fn trunc_flags_fail_where_extending_back_changes_the_value() {
        let pool = ExprPool::new();
        let xa = pool.new_array("x", 2);
        let x = pool.concat_bytes(&[pool.sym(xa, 0), pool.sym(xa, 1)]);
        for to in [8u32, 1, 15] {
            let (op, b) = cast_flag_operands(crate::ir::CastKind::Trunc, to);
            for (flags, back) in [
                (
                    Flags {
                        nuw: true,
                        ..Flags::NONE
                    },
                    false,
                ),
                (
                    Flags {
                        nsw: true,
                        ..Flags::NONE
                    },
                    true,
                ),
            ] {
                let none = |_: ExprId| None;
                let y = pool.constant(16, b);
                let r = pool.trunc(x, to);
                let conds = flag_conditions(&pool, op, flags, (x, y), r, &none);
                let cond = pool.or_all(&conds.iter().map(|c| c.0).collect::<Vec<_>>());
                for a in (0..65536u128)
                    .step_by(7)
                    .chain([0x7f, 0x80, 0xff, 0xff80, 0xffff])
                {
                    let low = a & mask(to, u128::MAX);
                    let extended = if back {
                        mask(16, to_signed(to, low) as u128)
                    } else {
                        low
                    };
                    let fails = flag_fails(op, flags, 16, a, b).is_some();
                    assert_eq!(fails, extended != a, "to {to} {flags:?} a={a:#x}");
                    let mut m = Assignment::new();
                    m.set_byte(xa, 0, a as u8);
                    m.set_byte(xa, 1, (a >> 8) as u8);
                    assert_eq!(
                        pool.eval(cond, &m) == 1,
                        fails,
                        "to {to} {flags:?} a={a:#x}"
                    );
                }
            }
        }
        let nuw = Flags {
            nuw: true,
            ..Flags::NONE
        };
        assert_eq!(
            describe_flags(BinOp::And, nuw),
            "trunc changing an unsigned value (nuw)"
        );
        let nneg = Flags {
            nneg: true,
            ..Flags::NONE
        };
        assert_eq!(
            describe_flags(UITOFP_NNEG, nneg),
            "uitofp of a negative value (nneg)"
        );
    }

    /// The symbolic conditions of every flag of every operator hold exactly where the
    /// concrete check says the flag fails, at 8 bits (operands on a grid with every
    /// boundary) and at 128 bits (where products are checked by division).
    #[test]
    fn flag_conditions_agree_with_the_concrete_check() {
        let single = [
            Flags {
                nsw: true,
                ..Flags::NONE
            },
            Flags {
                nuw: true,
                ..Flags::NONE
            },
            Flags {
                exact: true,
                ..Flags::NONE
            },
            Flags {
                disjoint: true,
                ..Flags::NONE
            },
        ];
        let ops = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Shl,
            BinOp::UDiv,
            BinOp::SDiv,
            BinOp::LShr,
            BinOp::AShr,
            BinOp::Or,
        ];
        let small: Vec<u128> = (0..256)
            .filter(|v| v % 5 == 0 || v % 64 < 3 || v % 64 > 61)
            .collect();
        let big: Vec<u128> = vec![
            0,
            1,
            2,
            3,
            5,
            127,
            u128::MAX,
            u128::MAX - 1,
            1 << 127,
            (1 << 127) + 1,
            (1 << 127) - 1,
            1 << 64,
            (1 << 64) - 1,
            3 << 100,
            12_345_678_901_234_567_890_123,
        ];
        for (width, values) in [(8u32, small), (128, big)] {
            let pool = ExprPool::new();
            let bytes = width / 8;
            let (xa, ya) = (pool.new_array("x", bytes), pool.new_array("y", bytes));
            let value =
                |a| pool.concat_bytes(&(0..bytes).map(|k| pool.sym(a, k)).collect::<Vec<_>>());
            let (x, y) = (value(xa), value(ya));
            let none = |_: ExprId| None;
            for op in ops {
                for flags in single {
                    let r = pool.binary(op, x, y);
                    let conds = flag_conditions(&pool, op, flags, (x, y), r, &none);
                    let cond = pool.or_all(&conds.iter().map(|c| c.0).collect::<Vec<_>>());
                    for &a in &values {
                        for &b in &values {
                            if matches!(op, BinOp::UDiv | BinOp::SDiv) && b == 0 {
                                continue;
                            }
                            let mut m = Assignment::new();
                            m.set(xa, a.to_le_bytes()[..bytes as usize].to_vec());
                            m.set(ya, b.to_le_bytes()[..bytes as usize].to_vec());
                            let concrete = flag_fails(op, flags, width, a, b).is_some();
                            assert_eq!(
                                pool.eval(cond, &m) != 0,
                                concrete,
                                "{op:?} {flags:?} at {width} bits on {a:#x}, {b:#x}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Operands whose ranges keep the result in range build no condition: sign-extended
    /// bytes summed in 32 bits, and a term the path bounds.
    #[test]
    fn ranges_rule_out_overflow_without_a_condition() {
        let pool = ExprPool::new();
        let (xa, ya) = (pool.new_array("x", 1), pool.new_array("y", 4));
        let x = pool.sext(pool.sym(xa, 0), 32);
        let y = pool.concat_bytes(&(0..4).map(|k| pool.sym(ya, k)).collect::<Vec<_>>());
        let nsw = Flags {
            nsw: true,
            ..Flags::NONE
        };
        let none = |_: ExprId| None;
        let conds = |a, b, bounds: &Bounds<'_>| {
            flag_conditions(&pool, BinOp::Add, nsw, (a, b), pool.add(a, b), bounds).len()
        };
        assert_eq!(conds(x, x, &none), 0);
        assert_eq!(conds(x, y, &none), 1);
        let bounded = |e: ExprId| (e == y).then_some((1, 31));
        assert_eq!(conds(x, y, &bounded), 0);
    }
}
