//! LLVM's opcodes, predicates and floating-point functions as the IR's operators, and the
//! tests of LLVM types the lowering asks.

use crate::ir::{BinOp, FloatOp, FpBinOp, FpPred, FpUnOp, Predicate};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};

/// Whether `ty` is `float`, `double` or `x86_fp80`.
pub(super) unsafe fn is_float_type(ty: LLVMTypeRef) -> bool {
    matches!(
        LLVMGetTypeKind(ty),
        LLVMTypeKind::LLVMFloatTypeKind
            | LLVMTypeKind::LLVMDoubleTypeKind
            | LLVMTypeKind::LLVMX86_FP80TypeKind
    )
}

/// The floating-point meaning of an instruction, if it has one.
pub(super) unsafe fn float_op(inst: LLVMValueRef, opcode: LLVMOpcode) -> Option<FloatOp> {
    use inkwell::llvm_sys::LLVMRealPredicate::*;
    use LLVMOpcode::*;
    Some(match opcode {
        LLVMFAdd => FloatOp::Binary(FpBinOp::Add),
        LLVMFSub => FloatOp::Binary(FpBinOp::Sub),
        LLVMFMul => FloatOp::Binary(FpBinOp::Mul),
        LLVMFDiv => FloatOp::Binary(FpBinOp::Div),
        LLVMFRem => FloatOp::Binary(FpBinOp::Rem),
        LLVMFNeg => FloatOp::Neg,
        LLVMFPExt | LLVMFPTrunc => FloatOp::Convert,
        LLVMFPToSI => FloatOp::ToSInt,
        LLVMFPToUI => FloatOp::ToUInt,
        LLVMSIToFP => FloatOp::FromSInt,
        LLVMUIToFP => FloatOp::FromUInt,
        LLVMFCmp => FloatOp::Cmp(match LLVMGetFCmpPredicate(inst) {
            LLVMRealPredicateFalse => FpPred::False,
            LLVMRealOEQ => FpPred::Oeq,
            LLVMRealOGT => FpPred::Ogt,
            LLVMRealOGE => FpPred::Oge,
            LLVMRealOLT => FpPred::Olt,
            LLVMRealOLE => FpPred::Ole,
            LLVMRealONE => FpPred::One,
            LLVMRealORD => FpPred::Ord,
            LLVMRealUNO => FpPred::Uno,
            LLVMRealUEQ => FpPred::Ueq,
            LLVMRealUGT => FpPred::Ugt,
            LLVMRealUGE => FpPred::Uge,
            LLVMRealULT => FpPred::Ult,
            LLVMRealULE => FpPred::Ule,
            LLVMRealUNE => FpPred::Une,
            LLVMRealPredicateTrue => FpPred::True,
        }),
        _ => return None,
    })
}

/// The floating-point operation of an intrinsic (`llvm.NAME.f64` without `llvm.`) or of a C
/// math function whose meaning is one IEEE operation (`sqrt`, `fabsf`, …), if it is one.
pub(crate) fn float_function(name: &str) -> Option<FloatOp> {
    let base = name.split('.').next().unwrap_or(name);
    let base = match base.strip_suffix('f') {
        Some(b)
            if matches!(
                b,
                "sqrt"
                    | "fabs"
                    | "floor"
                    | "ceil"
                    | "trunc"
                    | "round"
                    | "rint"
                    | "nearbyint"
                    | "fmin"
                    | "fmax"
                    | "copysign"
                    | "fma"
            ) =>
        {
            b
        }
        _ => base,
    };
    Some(match base {
        "sqrt" => FloatOp::Unary(FpUnOp::Sqrt),
        "fabs" => FloatOp::Abs,
        "floor" => FloatOp::Unary(FpUnOp::Floor),
        "ceil" => FloatOp::Unary(FpUnOp::Ceil),
        "trunc" => FloatOp::Unary(FpUnOp::Trunc),
        "round" => FloatOp::Unary(FpUnOp::Round),
        "rint" | "nearbyint" | "roundeven" => FloatOp::Unary(FpUnOp::RoundEven),
        "minnum" | "fmin" => FloatOp::Min,
        "maxnum" | "fmax" => FloatOp::Max,
        "copysign" => FloatOp::CopySign,
        "fma" => FloatOp::Fma,
        "fmuladd" => FloatOp::MulAdd,
        _ => return None,
    })
}

pub(super) fn binary_op(opcode: LLVMOpcode) -> Option<BinOp> {
    use LLVMOpcode::*;
    Some(match opcode {
        LLVMAdd => BinOp::Add,
        LLVMSub => BinOp::Sub,
        LLVMMul => BinOp::Mul,
        LLVMUDiv => BinOp::UDiv,
        LLVMSDiv => BinOp::SDiv,
        LLVMURem => BinOp::URem,
        LLVMSRem => BinOp::SRem,
        LLVMAnd => BinOp::And,
        LLVMOr => BinOp::Or,
        LLVMXor => BinOp::Xor,
        LLVMShl => BinOp::Shl,
        LLVMLShr => BinOp::LShr,
        LLVMAShr => BinOp::AShr,
        _ => return None,
    })
}

pub(super) fn predicate(p: LLVMIntPredicate) -> Predicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => Predicate::Eq,
        LLVMIntNE => Predicate::Ne,
        LLVMIntUGT => Predicate::Ugt,
        LLVMIntUGE => Predicate::Uge,
        LLVMIntULT => Predicate::Ult,
        LLVMIntULE => Predicate::Ule,
        LLVMIntSGT => Predicate::Sgt,
        LLVMIntSGE => Predicate::Sge,
        LLVMIntSLT => Predicate::Slt,
        LLVMIntSLE => Predicate::Sle,
    }
}

pub(super) fn opcode_name(op: LLVMOpcode) -> String {
    let raw = format!("{op:?}");
    raw.strip_prefix("LLVM").unwrap_or(&raw).to_lowercase()
}

/// Whether values of type `ty` contain pointers (at most 32 levels of nesting are looked at;
/// deeper ones are taken to).
pub(super) unsafe fn type_holds_pointers(ty: LLVMTypeRef, depth: u32) -> bool {
    if depth > 32 {
        return true;
    }
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMPointerTypeKind => true,
        LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
            type_holds_pointers(LLVMGetElementType(ty), depth + 1)
        }
        LLVMTypeKind::LLVMStructTypeKind => {
            let n = LLVMCountStructElementTypes(ty);
            (0..n).any(|i| type_holds_pointers(LLVMStructGetTypeAtIndex(ty, i), depth + 1))
        }
        _ => false,
    }
}
