//! The engine's own program representation, lowered once from LLVM by `lower`.
//!
//! Registers are numbered per function, blocks are resolved to indices, every constant
//! (including the address of a global or a function, which the loader fixes in advance)
//! is an integer in the module's constant table. The interpreter never calls LLVM.
//!
//! Values are bit-vectors of at most 128 bits (`lower` splits wider integers). Pointers are 64-bit integers. A first-class
//! aggregate (the `{iN, i1}` of `*.with.overflow`, a small struct) is one bit-vector laid out
//! as it would be in memory, so `extractvalue` is an extraction of bits.

pub mod parse;
mod parse_ops;
mod parse_same;
mod parse_words;
pub mod text;

use std::fmt;

/// Bits of a pointer.
pub const PTR_WIDTH: u32 = 64;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A function of the module.
    FuncId
);
id_type!(
    /// A block of one function.
    BlockId
);
id_type!(
    /// A virtual register of one function.
    RegId
);
id_type!(
    /// An entry of the module's constant table.
    ConstId
);
id_type!(
    /// A global variable of the module.
    GlobalId
);
id_type!(
    /// A source location in the module's location table.
    LocId
);

/// Which of the linked programs a symbol came from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Side {
    A,
    B,
    /// The third program of a three-way program check.
    C,
    /// The harness, or an external declaration shared by the sides.
    Shared,
}

impl Side {
    /// The checked sides in order: A, B and C (at most three programs are linked).
    pub const CHECKED: [Side; 3] = [Side::A, Side::B, Side::C];
}

/// Splits a linked name into its side and its name in the source module (the loader gives
/// what a side defines the prefix `A.`, `B.` or `C.`).
pub fn split_name(linked: &str) -> (Side, &str) {
    if let Some(rest) = linked.strip_prefix("A.") {
        (Side::A, rest)
    } else if let Some(rest) = linked.strip_prefix("B.") {
        (Side::B, rest)
    } else if let Some(rest) = linked.strip_prefix("C.") {
        (Side::C, rest)
    } else {
        (Side::Shared, linked)
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Side::A => f.write_str("A"),
            Side::B => f.write_str("B"),
            Side::C => f.write_str("C"),
            Side::Shared => f.write_str("shared"),
        }
    }
}

/// An instruction operand.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Operand {
    Reg(RegId),
    Const(ConstId),
}

/// A constant: an integer of a given width (pointers and folded constant expressions too).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Constant {
    pub width: u32,
    pub value: u128,
}

/// The operator of `Inst::Binary` and of `VectorOp::Binary`: the expression layer's own, so
/// that the interpreter folds and builds with it directly. Lowering gives only the arithmetic,
/// bitwise and shift operators; comparisons are `Inst::ICmp`.
pub use crate::expr::{BinOp, FloatOp, FpBinOp, FpPred, FpUnOp};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Predicate {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

impl Predicate {
    /// The comparison of two expressions (width 1).
    pub fn build(
        self,
        pool: &crate::expr::ExprPool,
        x: crate::expr::ExprId,
        y: crate::expr::ExprId,
    ) -> crate::expr::ExprId {
        match self {
            Predicate::Eq => pool.eq(x, y),
            Predicate::Ne => pool.ne(x, y),
            Predicate::Ugt => pool.ugt(x, y),
            Predicate::Uge => pool.uge(x, y),
            Predicate::Ult => pool.ult(x, y),
            Predicate::Ule => pool.ule(x, y),
            Predicate::Sgt => pool.sgt(x, y),
            Predicate::Sge => pool.sge(x, y),
            Predicate::Slt => pool.slt(x, y),
            Predicate::Sle => pool.sle(x, y),
        }
    }

    /// The comparison on concrete `width`-bit operands (constant folding and the
    /// interpreter).
    pub fn eval(self, width: u32, a: u128, b: u128) -> bool {
        use crate::expr::to_signed;
        match self {
            Predicate::Eq => a == b,
            Predicate::Ne => a != b,
            Predicate::Ugt => a > b,
            Predicate::Uge => a >= b,
            Predicate::Ult => a < b,
            Predicate::Ule => a <= b,
            Predicate::Sgt => to_signed(width, a) > to_signed(width, b),
            Predicate::Sge => to_signed(width, a) >= to_signed(width, b),
            Predicate::Slt => to_signed(width, a) < to_signed(width, b),
            Predicate::Sle => to_signed(width, a) <= to_signed(width, b),
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CastKind {
    ZExt,
    SExt,
    Trunc,
}

/// Intrinsics the interpreter implements directly.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Intrinsic {
    Memcpy,
    Memmove,
    Memset,
    /// `{iN, i1}` results: the arithmetic result and an overflow flag.
    AddOverflow {
        signed: bool,
    },
    SubOverflow {
        signed: bool,
    },
    MulOverflow {
        signed: bool,
    },
    /// Saturating arithmetic.
    AddSat {
        signed: bool,
    },
    SubSat {
        signed: bool,
    },
    Ctpop,
    Ctlz,
    Cttz,
    Bswap,
    Bitreverse,
    Fshl,
    Fshr,
    Abs,
    /// `llvm.scmp`/`llvm.ucmp`: -1, 0 or 1 as the first operand is less, equal or greater.
    ThreeWayCmp {
        signed: bool,
    },
    /// `llvm.is.fpclass`: whether a `float`/`double` is in one of the classes of the mask
    /// (bit 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -subnormal, 5 -0, 6 +0,
    /// 7 +subnormal, 8 +normal, 9 +inf).
    FpClass {
        mask: u16,
    },
    SMin,
    SMax,
    UMin,
    UMax,
    /// `llvm.expect`, `llvm.assume` and friends: the first operand passes through.
    PassThrough,
    /// `llvm.trap` and `llvm.debugtrap`.
    Trap,
    /// `llvm.va_start(list)`: points an x86-64 `va_list` at the caller's variadic arguments.
    VaStart,
    /// `llvm.va_copy(dst, src)`.
    VaCopy,
    /// `llvm.load.relative(base, offset)`: `base` plus the sign-extended 32-bit value at
    /// `base + offset` (clang's relative lookup tables of string pointers).
    LoadRelative,
}

/// An operation applied lane by lane to vectors.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VectorOp {
    Binary(BinOp),
    /// Lanes of the result have width 1.
    ICmp(Predicate),
    /// Lanes of the result have the given width.
    Cast(CastKind, u32),
    /// `select` with a vector condition: the first operand.
    Select,
    /// A pure intrinsic (`umin`, `abs`, `ctpop`…) applied to each lane.
    Intrinsic(Intrinsic),
    /// A floating-point operation on each lane; lanes of the result have the given width
    /// (1 for a comparison).
    Float(FloatOp, u32),
}

/// Horizontal reductions (`llvm.vector.reduce.*`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReduceOp {
    Add,
    Mul,
    And,
    Or,
    Xor,
    SMax,
    SMin,
    UMax,
    UMin,
    /// `fadd`/`fmul` without `reassoc`: the start value, then lane 0, lane 1… in order.
    Ordered(FpBinOp),
}

/// A callee.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Callee {
    Direct(FuncId),
    Indirect(Operand),
}

/// One `(offset × scale)` term of an address computation; the index is sign-extended.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct GepIndex {
    pub index: Operand,
    pub scale: u64,
}

/// LLVM's poison-producing flags of a binary operator: where a flag's condition fails
/// (`nsw`: the signed result overflows; `nuw`: the unsigned one; `exact`: a division or
/// right shift drops nonzero bits; `disjoint`: an `or`'s operands share a set bit), the
/// result is poison. The engine computes the unflagged value; `--ub report` makes it a
/// fresh value where a condition fails (`exec/undefined.rs`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Flags {
    pub nsw: bool,
    pub nuw: bool,
    pub exact: bool,
    pub disjoint: bool,
    /// `zext nneg`, `uitofp nneg`: the operand is not negative.
    pub nneg: bool,
}

impl Flags {
    /// No flag: the result is always the operator's.
    pub const NONE: Flags = Flags {
        nsw: false,
        nuw: false,
        exact: false,
        disjoint: false,
        nneg: false,
    };

    /// Whether any flag is set.
    pub fn any(self) -> bool {
        self.nsw || self.nuw || self.exact || self.disjoint || self.nneg
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Inst {
    Binary {
        dst: RegId,
        op: BinOp,
        lhs: Operand,
        rhs: Operand,
        /// Poison-producing flags ([`Flags::NONE`] for the lowering's own operations).
        flags: Flags,
    },
    ICmp {
        dst: RegId,
        pred: Predicate,
        lhs: Operand,
        rhs: Operand,
    },
    Cast {
        dst: RegId,
        kind: CastKind,
        src: Operand,
        width: u32,
        /// `nneg` of a `zext`, `nuw`/`nsw` of a `trunc` ([`Flags::NONE`] otherwise).
        flags: Flags,
    },
    /// A plain copy (bitcast, pointer casts between equal widths, freeze).
    Copy { dst: RegId, src: Operand },
    Select {
        dst: RegId,
        cond: Operand,
        then: Operand,
        els: Operand,
    },
    /// A stack object of `size × count` bytes.
    Alloca {
        dst: RegId,
        size: u64,
        count: Operand,
    },
    /// A little-endian load of `bytes` bytes, giving a value of `width` bits.
    Load {
        dst: RegId,
        addr: Operand,
        bytes: u32,
        width: u32,
        /// Whether the loaded value is a pointer.
        pointer: bool,
    },
    /// A little-endian store of the low `bytes` bytes of `value`.
    Store {
        value: Operand,
        addr: Operand,
        bytes: u32,
    },
    /// `dst = base + offset + Σ index × scale`.
    Gep {
        dst: RegId,
        base: Operand,
        offset: i64,
        indices: Vec<GepIndex>,
    },
    ExtractValue {
        dst: RegId,
        agg: Operand,
        lo: u32,
        width: u32,
    },
    InsertValue {
        dst: RegId,
        agg: Operand,
        value: Operand,
        lo: u32,
        width: u32,
    },
    Call {
        dst: Option<RegId>,
        callee: Callee,
        args: Vec<Operand>,
    },
    Intrinsic {
        dst: Option<RegId>,
        kind: Intrinsic,
        args: Vec<Operand>,
        width: u32,
    },
    /// `op` on each of `lanes` lanes of `elem` bits (the width of the operands' lanes;
    /// lane 0 is the least significant).
    Vector {
        dst: RegId,
        op: VectorOp,
        args: Vec<Operand>,
        lanes: u32,
        elem: u32,
    },
    ExtractElement {
        dst: RegId,
        vector: Operand,
        index: Operand,
        elem: u32,
        lanes: u32,
    },
    InsertElement {
        dst: RegId,
        vector: Operand,
        value: Operand,
        index: Operand,
        elem: u32,
        lanes: u32,
    },
    /// Lane `i` of the result is lane `mask[i]` of `a ++ b` (`None`: undefined, taken as 0).
    Shuffle {
        dst: RegId,
        a: Operand,
        b: Operand,
        mask: Vec<Option<u32>>,
        elem: u32,
        lanes: u32,
    },
    Reduce {
        dst: RegId,
        op: ReduceOp,
        vector: Operand,
        /// The value lane 0 is combined with first (ordered FP reductions).
        start: Option<Operand>,
        elem: u32,
        lanes: u32,
    },
    /// A floating-point instruction or intrinsic on the bit patterns of `float`s and
    /// `double`s (`width` is the result's width).
    Float {
        dst: RegId,
        op: FloatOp,
        args: Vec<Operand>,
        width: u32,
        /// `nneg` of a `uitofp` ([`Flags::NONE`] otherwise).
        flags: Flags,
    },
    /// The value of an `undef` or `poison` constant operand (`poison` says which) of
    /// `width` bits: any value, a fresh one under `--ub report` (recorded as undefined
    /// behaviour at the instruction's location, the use's), zero under `--ub machine`.
    /// The lowering puts these at the function's entry. A `freeze` of one (`frozen`) is
    /// one arbitrary value: no less open, named as such.
    Poison {
        dst: RegId,
        width: u32,
        poison: bool,
        frozen: bool,
    },
    /// A value LLVM says lies in `ranges` (each `[lo, hi)` of `width` bits, wrapping when
    /// `lo > hi`): the `!range` of a load, the `range` attribute of a function's return
    /// value. Where it lies outside, it is poison (`--ub report`: weighed as a failed flag
    /// is, `exec/ub.rs`); `reg` keeps its value.
    InRange {
        reg: RegId,
        ranges: Vec<(u128, u128)>,
        /// What promised the range.
        of: RangeOf,
    },
    /// Stops the path: the construct is outside what the engine models.
    Unsupported { what: String },
}

impl Inst {
    /// The register the instruction defines, if any (an `InRange` redefines its own).
    pub fn defined(&self) -> Option<RegId> {
        match self {
            Inst::InRange { reg, .. } => Some(*reg),
            Inst::Binary { dst, .. }
            | Inst::Poison { dst, .. }
            | Inst::ICmp { dst, .. }
            | Inst::Cast { dst, .. }
            | Inst::Copy { dst, .. }
            | Inst::Select { dst, .. }
            | Inst::Alloca { dst, .. }
            | Inst::Load { dst, .. }
            | Inst::Gep { dst, .. }
            | Inst::ExtractValue { dst, .. }
            | Inst::InsertValue { dst, .. }
            | Inst::Vector { dst, .. }
            | Inst::ExtractElement { dst, .. }
            | Inst::InsertElement { dst, .. }
            | Inst::Shuffle { dst, .. }
            | Inst::Reduce { dst, .. }
            | Inst::Float { dst, .. } => Some(*dst),
            Inst::Call { dst, .. } | Inst::Intrinsic { dst, .. } => *dst,
            Inst::Store { .. } | Inst::Unsupported { .. } => None,
        }
    }

    /// Every operand the instruction reads, in no particular order.
    pub fn operands(&self) -> Vec<Operand> {
        match self {
            Inst::Binary { lhs, rhs, .. } | Inst::ICmp { lhs, rhs, .. } => vec![*lhs, *rhs],
            Inst::Cast { src, .. } | Inst::Copy { src, .. } => vec![*src],
            Inst::Select {
                cond, then, els, ..
            } => vec![*cond, *then, *els],
            Inst::Alloca { count, .. } => vec![*count],
            Inst::Load { addr, .. } => vec![*addr],
            Inst::Store { value, addr, .. } => vec![*value, *addr],
            Inst::Gep { base, indices, .. } => std::iter::once(*base)
                .chain(indices.iter().map(|i| i.index))
                .collect(),
            Inst::ExtractValue { agg, .. } => vec![*agg],
            Inst::InsertValue { agg, value, .. } => vec![*agg, *value],
            Inst::Call { callee, args, .. } => {
                let mut v = args.clone();
                if let Callee::Indirect(op) = callee {
                    v.push(*op);
                }
                v
            }
            Inst::Intrinsic { args, .. } | Inst::Vector { args, .. } | Inst::Float { args, .. } => {
                args.clone()
            }
            Inst::ExtractElement { vector, index, .. } => vec![*vector, *index],
            Inst::InsertElement {
                vector,
                value,
                index,
                ..
            } => vec![*vector, *value, *index],
            Inst::Shuffle { a, b, .. } => vec![*a, *b],
            Inst::Reduce { vector, start, .. } => start.iter().copied().chain([*vector]).collect(),
            Inst::InRange { reg, .. } => vec![Operand::Reg(*reg)],
            Inst::Unsupported { .. } | Inst::Poison { .. } => Vec::new(),
        }
    }
}

/// What gave a value the range `Inst::InRange` checks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RangeOf {
    /// The `!range` metadata of a load.
    Load,
    /// The `range` attribute of the function's return value.
    Return,
}

impl std::fmt::Display for RangeOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RangeOf::Load => "load",
            RangeOf::Return => "return value",
        })
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Terminator {
    Br(BlockId),
    CondBr {
        cond: Operand,
        then: BlockId,
        els: BlockId,
    },
    Switch {
        value: Operand,
        default: BlockId,
        cases: Vec<(u128, BlockId)>,
    },
    Ret(Option<Operand>),
    Unreachable,
    Unsupported {
        what: String,
    },
}

/// `dst` takes the value of the operand paired with the predecessor the block was entered from.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Phi {
    pub dst: RegId,
    pub incoming: Vec<(BlockId, Operand)>,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Block {
    pub phis: Vec<Phi>,
    pub insts: Vec<Inst>,
    /// The source location of each instruction, parallel to `insts`.
    pub locs: Vec<LocId>,
    pub term: Terminator,
    pub term_loc: LocId,
}

/// A parameter of a function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Param {
    pub reg: RegId,
    pub width: u32,
    /// The source name, from debug info or the IR value name, if any.
    pub name: Option<String>,
    /// For a pointer parameter: the store size of the pointee, if it is sized (for the type
    /// of a `byval`/`sret` attribute, its allocation size: the caller's slot, C's `sizeof`).
    pub pointee_size: Option<u64>,
    /// For a pointer parameter: whether the pointee is not an aggregate (array or struct).
    pub pointee_is_scalar: bool,
    /// For a pointer parameter: whether the pointee is a struct ending in a flexible array
    /// member (C's `T data[]`, LLVM's `[0 x T]` as its last field), so that a caller's
    /// object extends past `pointee_size`.
    pub pointee_open: bool,
    pub is_pointer: bool,
    /// Whether the parameter is a `float` or a `double` (its width says which).
    pub float: bool,
    /// How the ABI uses a pointer parameter.
    pub pass: ParamPass,
    /// The parameter's C type, from debug information, if the module has it.
    pub source_type: Option<SourceType>,
}

/// A C type as debug information describes it (typedefs and qualifiers looked through).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceType {
    /// An integer type: `_Bool` (1 bit), `char`, `int`, `unsigned long`… with its width in
    /// bits and signedness; `name` is the name debug information gives it.
    Int {
        bits: u32,
        signed: bool,
        name: String,
    },
    /// A floating type: `float` (32 bits), `double` (64), `long double` (128 in debug
    /// information)…, with the name debug information gives it.
    Float { bits: u32, name: String },
    /// A pointer; the pointee when it is known and not `void`.
    Pointer(Option<Box<SourceType>>),
    /// Any other type (struct, enum without an underlying type…), named.
    Other(String),
}

/// How a parameter carries its value, as the C ABI lowered it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParamPass {
    /// An ordinary value (or an ordinary pointer).
    Direct,
    /// `byval`: a pointer to the callee's own copy of a struct passed by value; what the
    /// callee does to it is invisible to the caller.
    ByVal,
    /// `sret`: where the callee writes a struct it returns.
    StructReturn,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Function {
    /// The linked name (with the side prefix).
    pub name: String,
    /// The name in its own source module.
    pub source_name: String,
    pub side: Side,
    pub params: Vec<Param>,
    /// Width of the returned value; `None` for `void`.
    pub ret_width: Option<u32>,
    /// Whether the returned value is a pointer.
    pub ret_is_pointer: bool,
    /// Whether the returned value is a `float` or a `double`.
    pub ret_is_float: bool,
    /// For a returned aggregate (a struct, an array, a vector), its `float` and `double`
    /// fields: (lowest bit, width) in the value's bits, which are its memory layout.
    pub ret_float_fields: Vec<(u32, u32)>,
    pub is_var_arg: bool,
    /// Empty for a declaration.
    pub blocks: Vec<Block>,
    pub num_regs: u32,
    /// The address used for pointers to this function.
    pub address: u64,
    /// A textual signature used to check that two entry points match.
    pub signature: String,
}

impl Function {
    pub fn is_declaration(&self) -> bool {
        self.blocks.is_empty()
    }
}

#[cfg(test)]
impl Function {
    /// A function for unit tests: `A.f`, an `i32` result, no parameter records (the test
    /// passes the arguments), its `blocks` using `num_regs` registers.
    pub(crate) fn for_tests(blocks: Vec<Block>, num_regs: u32) -> Function {
        Function {
            name: "A.f".into(),
            source_name: "f".into(),
            side: Side::A,
            params: Vec::new(),
            ret_width: Some(32),
            ret_is_pointer: false,
            ret_is_float: false,
            ret_float_fields: Vec::new(),
            is_var_arg: false,
            blocks,
            num_regs,
            address: FUNCTION_BASE,
            signature: "i32 (i32)".into(),
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Global {
    pub name: String,
    pub source_name: String,
    pub side: Side,
    pub address: u64,
    pub size: u64,
    /// Initial bytes (zeroes for a declaration without initializer).
    pub init: Vec<u8>,
    pub is_constant: bool,
    /// Declared but not defined anywhere in the linked module.
    pub is_external: bool,
    /// Whether its type has pointers in it (its bytes hold addresses).
    pub holds_pointers: bool,
}

/// A linked, lowered module: both programs and the harness.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    pub globals: Vec<Global>,
    pub constants: Vec<Constant>,
    pub locs: Vec<String>,
    /// What the loader linked from musl's math library (function checks).
    pub library: Library,
    /// For each function (by `FuncId`), whether it is the C library's: its debug
    /// information names a musl source file (whole programs carry their musl). Empty
    /// when unknown.
    pub c_library: Vec<bool>,
    /// The source files debug locations name, per side: a location's text has the file's
    /// name only (`f.c:12`); this is where the file is.
    pub source_files: Vec<SourceFile>,
}

/// A source file of one side, as its debug information names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub side: Side,
    /// The name locations use (`f.c`).
    pub name: String,
    /// The path debug information gives, joined to its directory when relative.
    pub path: String,
}

/// What the loader linked from musl: the math functions a function check runs as musl's
/// code (`load/libm.rs`), the program-only sides of a program check (`load/musl.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Library {
    /// The linked names (`A.sin`, `B.__rem_pio2`, `A.specialcase`) of every function linked
    /// from musl's math library, each side its own copy, sorted.
    pub functions: Vec<String>,
    /// Those of them that other files can call (`A.sin`, not a file's static helper): what
    /// the report names.
    pub external: Vec<String>,
    /// The linked names of the global variables those functions brought (musl's own state,
    /// which starts from its initializers and is not compared), sorted.
    pub globals: Vec<String>,
    /// Why musl's math library could not be linked, when it could not (its build missing).
    pub unavailable: Option<String>,
    /// The sides of a whole-program check given as program-only bitcode, which the loader
    /// linked with the bundled musl (`load/musl.rs`).
    pub musl: Vec<MuslLink>,
}

/// One program-only side linked with the bundled musl at load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MuslLink {
    pub side: Side,
    /// How many members of musl's bitcode archive were linked.
    pub members: usize,
    /// Names the side uses that neither it nor musl defines (a call of one ends its path
    /// as unsupported, unless the engine or the POSIX model implements it).
    pub undefined: Vec<String>,
    /// Names whose musl member was left out because it also defines a name the side
    /// defines (the wanted name, and that name).
    pub clashes: Vec<(String, String)>,
}

impl Library {
    /// Whether the global of linked name `name` was linked from musl.
    pub fn has_global(&self, name: &str) -> bool {
        self.globals
            .binary_search_by(|g| g.as_str().cmp(name))
            .is_ok()
    }

    /// Whether the function of linked name `name` was linked from musl's math library.
    pub fn contains(&self, name: &str) -> bool {
        self.functions
            .binary_search_by(|f| f.as_str().cmp(name))
            .is_ok()
    }
}

impl Module {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    pub fn constant(&self, id: ConstId) -> Constant {
        self.constants[id.index()]
    }

    pub fn loc(&self, id: LocId) -> &str {
        &self.locs[id.index()]
    }

    /// Whether function `f` is the C library's (`c_library`).
    pub fn is_c_library(&self, f: FuncId) -> bool {
        self.c_library.get(f.index()).copied().unwrap_or(false)
    }

    /// The function whose linked name is `name`.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// The function defined on `side` under its original name `source_name`.
    pub fn function_on_side(&self, side: Side, source_name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.side == side && f.source_name == source_name)
            .map(|i| FuncId(i as u32))
    }

    /// The function whose address is `address`.
    pub fn function_at(&self, address: u64) -> Option<FuncId> {
        let index = address.checked_sub(FUNCTION_BASE)? / FUNCTION_STRIDE;
        if address != FUNCTION_BASE + index * FUNCTION_STRIDE {
            return None;
        }
        (index < self.functions.len() as u64).then_some(FuncId(index as u32))
    }

    /// Total number of instructions (terminators included), for statistics.
    pub fn instruction_count(&self) -> usize {
        self.functions
            .iter()
            .flat_map(|f| &f.blocks)
            .map(|b| b.insts.len() + b.phis.len() + 1)
            .sum()
    }
}

/// Function addresses: a region no object is ever placed in.
pub const FUNCTION_BASE: u64 = 0x1000_0000;
/// Distance between two function addresses.
pub const FUNCTION_STRIDE: u64 = 16;
/// First address of global variables; objects created at run time follow them.
pub const GLOBAL_BASE: u64 = 0x1_0000_0000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linked_names_say_their_side() {
        assert_eq!(split_name("A.main"), (Side::A, "main"));
        assert_eq!(split_name("B.A.x"), (Side::B, "A.x"));
        assert_eq!(split_name("C.main"), (Side::C, "main"));
        assert_eq!(split_name("memcpy"), (Side::Shared, "memcpy"));
        assert_eq!(split_name("A"), (Side::Shared, "A"));
    }

    #[test]
    fn predicates_compare_as_llvm_does_at_every_width() {
        use Predicate::*;
        // 0xff is -1 as an 8-bit signed value and 255 unsigned.
        assert!(Ugt.eval(8, 0xff, 1));
        assert!(Slt.eval(8, 0xff, 1));
        assert!(Sle.eval(8, 0x80, 0x7f));
        assert!(!Sge.eval(8, 0x80, 0));
        assert!(Uge.eval(8, 0x80, 0x80) && Ule.eval(8, 0x80, 0x80));
        assert!(Ult.eval(32, 0, 0xffff_ffff));
        assert!(Sgt.eval(32, 0, 0xffff_ffff));
        assert!(Eq.eval(1, 1, 1) && Ne.eval(1, 0, 1));
        // The sign bit of a 128-bit value.
        assert!(Slt.eval(128, 1 << 127, 0));
        assert!(Ugt.eval(128, 1 << 127, 0));
    }
}
