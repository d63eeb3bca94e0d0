//! Hash-consed bit-vector and array expressions: the engine's symbolic values.
//!
//! Every expression lives in an [`ExprPool`] and is named by an [`ExprId`]. Structurally
//! equal expressions get the same id (hash-consing), so equality of ids is equality of
//! expressions and caches can key on ids. Children are always created before their parents,
//! so an id is greater than the ids of its children.
//!
//! Booleans are bit-vectors of width 1 (`1` is true).
//!
//! Canonical-form rules kept by the simplifying constructors in `build.rs`:
//! - a constant operand of a commutative operator is always on the left; otherwise the
//!   operand with the smaller id is, except in chains;
//! - chains of `+` over more than two non-constant operands are flattened,
//!   sorted by structure and nested to the right (`a + (b + (c + d))`), so that sums of the
//!   same terms are one expression whatever order they were added in;
//! - `ne`, `ugt`, `uge`, `sgt`, `sge` do not exist as nodes: they are built from
//!   `eq`, `ult`, `ule`, `slt`, `sle` by negation or by swapping operands;
//! - a node whose operands are all constants is folded to a constant;
//! - `Const` values are always masked to their width.
//!
//! Semantics follow SMT-LIB's `QF_ABV`: `udiv x 0` is all ones, `urem x 0` is `x`,
//! `sdiv`/`srem` by 0 follow the SMT-LIB definitions, shifts by at least the width give 0
//! (all sign bits for `ashr`). The engine checks for division by zero before it divides.
//!
//! Adding an expression kind: the `Node` variant, its constructor in `build.rs`, its
//! evaluation in `eval.rs`, its text form in `sexp.rs`, its lowering in the solver
//! backend (`solver/`), and a test in each.

mod build;
mod eval;
mod f79;
mod float;
mod known;
pub mod pieces;
pub mod poly;
mod rewrite;
mod sexp;
mod store;
pub mod subst;
mod x87;

pub use eval::{fold_binary, fold_unary, sign_extend, Assignment};
pub use f79::{IEEE as X87_IEEE_WIDTH, X87 as X87_WIDTH};
pub use float::{
    default_nan, fold_fp_binary, fold_fp_cmp, fold_fp_convert, fold_fp_fma, fold_fp_to_sint,
    fold_fp_unary, fold_int_to_fp, fp_bits_of, fp_format, fp_neighbours, is_fp_width, FloatOp,
    FpPred,
};
pub use known::KnownBits;
pub use sexp::ParseError;

use rustc_hash::FxHashMap;

/// One of LLVM's floating-point instructions on concrete operands: `width` is the first
/// operand's width, `to` the result's (`Convert`, the conversions to and from integers;
/// otherwise ignored). `float` and `double` are `float.rs`'s, `long double` `x87.rs`'s.
pub fn eval_float(op: FloatOp, width: Width, to: Width, args: &[u128]) -> u128 {
    if float::is_x87(op, width, to) {
        x87::eval(op, width, to, args)
    } else {
        float::eval_ieee(op, width, to, args)
    }
}
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

/// Width of a bit-vector in bits, from 1 to [`MAX_WIDTH`].
pub type Width = u32;

/// The widest bit-vector the engine represents.
pub const MAX_WIDTH: Width = 128;

/// Width of the index of every array expression (byte offsets inside one object).
pub const INDEX_WIDTH: Width = 32;

/// Names one expression of an [`ExprPool`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ExprId(u32);

impl ExprId {
    /// The position of this expression in its pool.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Names one symbolic input array (a `klee_make_symbolic` object) of an [`ExprPool`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ArrayId(pub u32);

/// A symbolic input: a named array of bytes, each byte free unless constrained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayInfo {
    pub name: String,
    pub size: u32,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum UnOp {
    /// Bitwise complement.
    Not,
    /// Two's complement negation.
    Neg,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
    /// Comparisons give width 1.
    Eq,
    Ult,
    Ule,
    Slt,
    Sle,
}

impl BinOp {
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Eq
        )
    }
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ult | BinOp::Ule | BinOp::Slt | BinOp::Sle
        )
    }
}

/// An IEEE 754 binary operation in round-to-nearest-even (`Rem` is C's `fmod`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FpBinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// An IEEE 754 unary operation: the square root (nearest even) and the roundings to an
/// integral value (`RoundEven` is `rint`/`nearbyint`, `Round` rounds ties away from zero).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FpUnOp {
    Sqrt,
    RoundEven,
    Floor,
    Ceil,
    Trunc,
    Round,
}

/// An ordered floating-point comparison: false when an operand is NaN; `Eq` says
/// `-0.0 == +0.0`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FpCmp {
    Eq,
    Lt,
    Le,
}

/// One expression node. Children are ids into the same pool.
///
/// Floating-point nodes work on the IEEE bit patterns of `float` (width 32) and `double`
/// (width 64) values and give bit patterns: there is no floating-point sort. They are the
/// "raw" operations, whose every NaN result is the default NaN of x86 (`default_nan`);
/// the builders of `float.rs` wrap them with the propagation of NaN operands.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// A constant; `value` is masked to `width`.
    Const {
        width: Width,
        value: u128,
    },
    /// Byte `offset` of the symbolic input `array` (width 8).
    Sym {
        array: ArrayId,
        offset: u32,
    },
    Unary {
        op: UnOp,
        arg: ExprId,
    },
    Binary {
        op: BinOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `cond` has width 1; `then` and `els` have equal widths.
    Ite {
        cond: ExprId,
        then: ExprId,
        els: ExprId,
    },
    /// Bits `lo .. lo + width` of `arg`.
    Extract {
        arg: ExprId,
        lo: u32,
        width: Width,
    },
    ZExt {
        arg: ExprId,
        width: Width,
    },
    SExt {
        arg: ExprId,
        width: Width,
    },
    /// `hi` forms the most significant bits.
    Concat {
        hi: ExprId,
        lo: ExprId,
    },
    /// An array of bytes (index width [`INDEX_WIDTH`]) whose every element is `value`.
    ArrayConst {
        value: u8,
    },
    /// `array` with element `index` replaced by the byte `value`.
    ArrayStore {
        array: ExprId,
        index: ExprId,
        value: ExprId,
    },
    /// The byte at `index` of `array` (width 8).
    ArrayRead {
        array: ExprId,
        index: ExprId,
    },
    /// `op` on two floats of one format; a NaN result is the default NaN.
    FpBinary {
        op: FpBinOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `op` on a float; a NaN result is the default NaN.
    FpUnary {
        op: FpUnOp,
        arg: ExprId,
    },
    /// `a * b + c` rounded once; a NaN result is the default NaN.
    FpFma {
        a: ExprId,
        b: ExprId,
        c: ExprId,
    },
    /// An ordered comparison (false when an operand is NaN), width 1.
    FpCmp {
        op: FpCmp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// A float converted to the format of `width` bits (nearest even); NaN gives the
    /// default NaN.
    FpConvert {
        arg: ExprId,
        width: Width,
    },
    /// A float rounded toward zero to a signed integer of `width` bits; NaN and values out
    /// of range give `1 << (width - 1)` (x86's "integer indefinite").
    FpToSInt {
        arg: ExprId,
        width: Width,
    },
    /// An integer (signed or unsigned) rounded to the nearest float of `width` bits.
    IntToFp {
        arg: ExprId,
        width: Width,
        signed: bool,
    },
}

impl Node {
    /// The children of this node, in operand order.
    pub fn children(self) -> impl DoubleEndedIterator<Item = ExprId> {
        let slots = match self {
            Node::Const { .. } | Node::Sym { .. } | Node::ArrayConst { .. } => [None, None, None],
            Node::Unary { arg, .. }
            | Node::Extract { arg, .. }
            | Node::ZExt { arg, .. }
            | Node::SExt { arg, .. }
            | Node::FpUnary { arg, .. }
            | Node::FpConvert { arg, .. }
            | Node::FpToSInt { arg, .. }
            | Node::IntToFp { arg, .. } => [Some(arg), None, None],
            Node::Binary { lhs, rhs, .. }
            | Node::FpBinary { lhs, rhs, .. }
            | Node::FpCmp { lhs, rhs, .. } => [Some(lhs), Some(rhs), None],
            Node::Concat { hi, lo } => [Some(hi), Some(lo), None],
            Node::ArrayRead { array, index } => [Some(array), Some(index), None],
            Node::Ite { cond, then, els } => [Some(cond), Some(then), Some(els)],
            Node::FpFma { a, b, c } => [Some(a), Some(b), Some(c)],
            Node::ArrayStore {
                array,
                index,
                value,
            } => [Some(array), Some(index), Some(value)],
        };
        slots.into_iter().flatten()
    }
}

/// The sort of an expression.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Sort {
    Bv(Width),
    /// Array from [`INDEX_WIDTH`]-bit indices to bytes.
    Array,
}

/// The symbolic input arrays of a pool (rarely written: a lock is cheap here).
#[derive(Default)]
struct Inner {
    arrays: Vec<ArrayInfo>,
    array_names: FxHashMap<String, ArrayId>,
}

/// The store of all expressions of one exploration. Shared by reference; reading a node
/// takes no lock and interning locks one of several shards, so that workers on several
/// threads may build and read expressions without waiting for each other.
pub struct ExprPool {
    nodes: store::NodeStore,
    inner: RwLock<Inner>,
    id: u64,
}

/// Source of pool identities: no two pools of a process share one.
static NEXT_POOL_ID: AtomicU64 = AtomicU64::new(1);

impl Default for ExprPool {
    fn default() -> Self {
        ExprPool {
            nodes: store::NodeStore::default(),
            inner: RwLock::default(),
            id: NEXT_POOL_ID.fetch_add(1, Ordering::Relaxed),
        }
    }
}

impl ExprPool {
    pub fn new() -> Self {
        Self::default()
    }

    /// A number no other pool of this process has: caches keyed by `ExprId` key on it too.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The node named by `id`.
    pub fn node(&self, id: ExprId) -> Node {
        self.nodes.get(id).0
    }

    /// The sort of `id`.
    pub fn sort(&self, id: ExprId) -> Sort {
        self.nodes.get(id).1
    }

    /// The width of a bit-vector expression (0 for an array).
    pub fn width(&self, id: ExprId) -> Width {
        match self.sort(id) {
            Sort::Bv(w) => w,
            Sort::Array => 0,
        }
    }

    /// The value of a constant expression.
    pub fn as_const(&self, id: ExprId) -> Option<u128> {
        match self.node(id) {
            Node::Const { value, .. } => Some(value),
            _ => None,
        }
    }

    /// Number of distinct expressions built so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Registers a new symbolic input array. A name already taken gets a numeric suffix
    /// (`x`, `x_1`, `x_2`, …), so every array has a unique name.
    pub fn new_array(&self, name: &str, size: u32) -> ArrayId {
        let mut inner = self.inner.write().expect("expression pool lock");
        let mut unique = name.to_string();
        let mut n = 1;
        while inner.array_names.contains_key(&unique) {
            unique = format!("{name}_{n}");
            n += 1;
        }
        let id = ArrayId(inner.arrays.len() as u32);
        inner.arrays.push(ArrayInfo {
            name: unique.clone(),
            size,
        });
        inner.array_names.insert(unique, id);
        id
    }

    /// The array named `name`, if one was registered.
    pub fn array_by_name(&self, name: &str) -> Option<ArrayId> {
        self.inner
            .read()
            .expect("expression pool lock")
            .array_names
            .get(name)
            .copied()
    }

    pub fn array_info(&self, array: ArrayId) -> ArrayInfo {
        self.inner.read().expect("expression pool lock").arrays[array.0 as usize].clone()
    }

    /// All arrays registered so far, in creation order.
    pub fn arrays(&self) -> Vec<ArrayId> {
        let n = self
            .inner
            .read()
            .expect("expression pool lock")
            .arrays
            .len();
        (0..n as u32).map(ArrayId).collect()
    }

    /// Interns `node` without simplifying it. Callers must have checked its sorts;
    /// use the constructors of `build.rs` instead.
    fn intern(&self, node: Node, sort: Sort) -> ExprId {
        self.nodes.intern(node, sort)
    }
}

/// `value` truncated to `width` bits.
pub fn mask(width: Width, value: u128) -> u128 {
    if width >= 128 {
        value
    } else {
        value & ((1u128 << width) - 1)
    }
}

/// `value` (of `width` bits) sign-extended to an `i128`.
pub fn to_signed(width: Width, value: u128) -> i128 {
    if width >= 128 {
        value as i128
    } else {
        let shift = 128 - width;
        ((value << shift) as i128) >> shift
    }
}
