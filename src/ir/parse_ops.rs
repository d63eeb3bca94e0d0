//! The operations IR text names, read back: binary operators, predicates and casts by their
//! lower-case names, intrinsics and float, vector and reduction operations as Rust's `Debug`
//! wrote them. Each table lists every variant of its enum, so a variant added to the IR fails
//! to compile here until the parser knows it.

use super::parse_words::{Debug, Res};
use super::{
    BinOp, CastKind, FloatOp, FpBinOp, FpPred, FpUnOp, Intrinsic, Predicate, ReduceOp, VectorOp,
};
use std::fmt;

/// Every variant of a field-less enum; a variant added later fails to compile here until
/// it is listed.
macro_rules! all_variants {
    ($name:ident: $ty:ident [$($v:ident),* $(,)?]) => {
        pub(super) const $name: &[$ty] = &[$($ty::$v),*];
        const _: fn($ty) = |v| match v {
            $($ty::$v)|* => {}
        };
    };
}

all_variants!(ALL_BINOPS: BinOp [Add, Sub, Mul, UDiv, SDiv, URem, SRem, And, Or, Xor, Shl,
    LShr, AShr, Eq, Ult, Ule, Slt, Sle]);
all_variants!(ALL_PREDICATES: Predicate [Eq, Ne, Ugt, Uge, Ult, Ule, Sgt, Sge, Slt, Sle]);
all_variants!(ALL_FP_BINOPS: FpBinOp [Add, Sub, Mul, Div, Rem]);
all_variants!(ALL_FP_UNOPS: FpUnOp [Sqrt, RoundEven, Floor, Ceil, Trunc, Round]);
all_variants!(ALL_FP_PREDS: FpPred [False, Oeq, Ogt, Oge, Olt, Ole, One, Ord, Ueq, Ugt, Uge,
    Ult, Ule, Une, Uno, True]);
all_variants!(ALL_CASTS: CastKind [ZExt, SExt, Trunc]);

/// The variant of `all` whose lower-case `Debug` name is `word`.
pub(super) fn by_lower<T: fmt::Debug + Copy>(word: &str, all: &[T]) -> Option<T> {
    all.iter()
        .copied()
        .find(|v| format!("{v:?}").to_lowercase() == word)
}

pub(super) fn intrinsic(d: &Debug) -> Res<Intrinsic> {
    use Intrinsic::*;
    let signed = || d.flag("signed");
    Ok(match d.name() {
        "AddOverflow" => AddOverflow { signed: signed()? },
        "SubOverflow" => SubOverflow { signed: signed()? },
        "MulOverflow" => MulOverflow { signed: signed()? },
        "AddSat" => AddSat { signed: signed()? },
        "SubSat" => SubSat { signed: signed()? },
        "ThreeWayCmp" => ThreeWayCmp { signed: signed()? },
        "FpClass" => {
            let (_, mask) = d
                .args()
                .iter()
                .find(|(f, _)| f == "mask")
                .ok_or("FpClass lacks its mask")?;
            FpClass {
                mask: u16::try_from(mask.num()?).map_err(|_| "a mask of 16 bits")?,
            }
        }
        _ => d.unit(&[
            Memcpy,
            Memmove,
            Memset,
            Ctpop,
            Ctlz,
            Cttz,
            Bswap,
            Bitreverse,
            Fshl,
            Fshr,
            Abs,
            SMin,
            SMax,
            UMin,
            UMax,
            PassThrough,
            Trap,
            VaStart,
            VaCopy,
            LoadRelative,
        ])?,
    })
}

pub(super) fn float_op(d: &Debug) -> Res<FloatOp> {
    use FloatOp::*;
    Ok(match d.name() {
        "Binary" => Binary(d.arg(0)?.unit(ALL_FP_BINOPS)?),
        "Cmp" => Cmp(d.arg(0)?.unit(ALL_FP_PREDS)?),
        "Unary" => Unary(d.arg(0)?.unit(ALL_FP_UNOPS)?),
        _ => d.unit(&[
            Neg, Abs, CopySign, Fma, MulAdd, Min, Max, Convert, ToSInt, ToUInt, FromSInt, FromUInt,
        ])?,
    })
}

pub(super) fn vector_op(d: &Debug) -> Res<VectorOp> {
    let width = |i: usize| -> Res<u32> {
        u32::try_from(d.arg(i)?.num()?).map_err(|_| "a width of 32 bits".into())
    };
    Ok(match d.name() {
        "Binary" => VectorOp::Binary(d.arg(0)?.unit(ALL_BINOPS)?),
        "ICmp" => VectorOp::ICmp(d.arg(0)?.unit(ALL_PREDICATES)?),
        "Cast" => VectorOp::Cast(d.arg(0)?.unit(ALL_CASTS)?, width(1)?),
        "Select" => VectorOp::Select,
        "Intrinsic" => VectorOp::Intrinsic(intrinsic(d.arg(0)?)?),
        "Float" => VectorOp::Float(float_op(d.arg(0)?)?, width(1)?),
        other => return Err(format!("unknown vector operation '{other}'")),
    })
}

pub(super) fn reduce_op(d: &Debug) -> Res<ReduceOp> {
    use ReduceOp::*;
    Ok(match d.name() {
        "Ordered" => Ordered(d.arg(0)?.unit(ALL_FP_BINOPS)?),
        _ => d.unit(&[Add, Mul, And, Or, Xor, SMax, SMin, UMax, UMin])?,
    })
}
