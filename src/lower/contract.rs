//! Floating-point contraction as x86-64's instruction selection does it under FMA.
//!
//! With `-ffp-contract=fast` (or `-ffast-math`) clang writes `a * b + c` as an `fmul` and an
//! `fadd` that both carry the `contract` flag, and leaves fusing them to the backend. In a
//! function whose target features include FMA and that is optimised (no `optnone`: at -O0
//! the fast instruction selector takes the instructions one by one), the backend's DAG
//! combiner turns `fadd contract (fmul contract x, y), z` into one rounding when the product
//! has no other use and lives in the same block: `fma(x, y, z)`; `fsub` gives
//! `fma(x, y, -z)` with the product first and `fma(-x, y, z)` with it second. With two
//! candidate products, the first operand's is fused. Lowering follows it, so a contracted
//! `a * b + c` and `fma(a, b, c)` are equal where the machine makes them equal.
//!
//! Not followed: products behind an `fneg` or an `fpext`, and vectors wider than 128 bits
//! (`wide_vector.rs` lowers those lane by lane, unfused). The negation is an `fneg` before
//! the `fma`, as for `fma(a, b, -c)` in C; the machine folds it into `vfmsub`/`vfnmadd`,
//! which return a NaN operand with its own sign (both forms alike), so a NaN's sign may
//! differ from the machine's there.

use super::FunctionLowerer;
use crate::ir::{FloatOp, Inst, Operand, RegId, VectorOp};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// Whether `func` carries `optnone` (clang's -O0), under which the backend fuses nothing
/// but `llvm.fmuladd`.
pub(super) unsafe fn is_optnone(func: LLVMValueRef) -> bool {
    let name = "optnone";
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
    kind != 0
        && !LLVMGetEnumAttributeAtIndex(func, inkwell::llvm_sys::LLVMAttributeFunctionIndex, kind)
            .is_null()
}

/// Whether `inst` is a floating-point instruction with the `contract` flag.
unsafe fn contractable(inst: LLVMValueRef) -> bool {
    LLVMCanValueUseFastMathFlags(inst) != 0
        && LLVMGetFastMathFlags(inst) & inkwell::llvm_sys::LLVMFastMathAllowContract != 0
}

/// Whether `v` has exactly one use.
unsafe fn one_use(v: LLVMValueRef) -> bool {
    let first = LLVMGetFirstUse(v);
    !first.is_null() && LLVMGetNextUse(first).is_null()
}

/// The scalar or vector shape (lanes, lane width) of a `float` or `double` value of type
/// `ty` that fits one register of at most 128 bits; `None` for other types.
unsafe fn fusable_shape(ty: LLVMTypeRef) -> Option<(u32, u32)> {
    let (lanes, elem) = match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMVectorTypeKind => (LLVMGetVectorSize(ty), LLVMGetElementType(ty)),
        _ => (0, ty),
    };
    let width = match LLVMGetTypeKind(elem) {
        LLVMTypeKind::LLVMFloatTypeKind => 32,
        LLVMTypeKind::LLVMDoubleTypeKind => 64,
        _ => return None,
    };
    (lanes.max(1) * width <= 128).then_some((lanes, width))
}

impl FunctionLowerer<'_> {
    /// `inst` as one fused multiply-add when the backend fuses it (see the module comment),
    /// else `None`.
    pub(super) unsafe fn contracted(
        &mut self,
        inst: LLVMValueRef,
        opcode: LLVMOpcode,
    ) -> Option<Vec<Inst>> {
        use LLVMOpcode::*;
        if !self.contracts || !matches!(opcode, LLVMFAdd | LLVMFSub) || !contractable(inst) {
            return None;
        }
        let shape = fusable_shape(LLVMTypeOf(inst))?;
        let block = LLVMGetInstructionParent(inst);
        let product = |v: LLVMValueRef| {
            !LLVMIsAInstruction(v).is_null()
                && LLVMGetInstructionOpcode(v) == LLVMFMul
                && LLVMGetInstructionParent(v) == block
                && contractable(v)
                && one_use(v)
        };
        let k = (0..2).find(|&k| product(LLVMGetOperand(inst, k)))?;
        let lowered = self.fused_inst(inst, opcode == LLVMFSub, k, shape);
        Some(lowered.unwrap_or_else(|what| vec![Inst::Unsupported { what }]))
    }

    /// The instructions of `inst` fused with its operand `k`, a product.
    unsafe fn fused_inst(
        &mut self,
        inst: LLVMValueRef,
        sub: bool,
        k: u32,
        (lanes, width): (u32, u32),
    ) -> Result<Vec<Inst>, String> {
        let mul = LLVMGetOperand(inst, k);
        let x = self.operand(LLVMGetOperand(mul, 0))?;
        let y = self.operand(LLVMGetOperand(mul, 1))?;
        let z = self.operand(LLVMGetOperand(inst, 1 - k))?;
        let mut out = Vec::new();
        let args = match (sub, k) {
            (false, _) => vec![x, y, z],
            (true, 0) => vec![x, y, self.negated(z, lanes, width, &mut out)],
            (true, _) => vec![self.negated(x, lanes, width, &mut out), y, z],
        };
        out.push(self.float_inst(self.reg(inst), FloatOp::Fma, args, lanes, width));
        Ok(out)
    }

    /// `-v` in a new register, its instruction added to `out`.
    fn negated(&mut self, v: Operand, lanes: u32, width: u32, out: &mut Vec<Inst>) -> Operand {
        let dst = RegId(self.num_regs);
        self.num_regs += 1;
        out.push(self.float_inst(dst, FloatOp::Neg, vec![v], lanes, width));
        Operand::Reg(dst)
    }

    /// A scalar floating-point instruction, or one on each of `lanes` lanes (`lanes > 0`).
    fn float_inst(
        &self,
        dst: RegId,
        op: FloatOp,
        args: Vec<Operand>,
        lanes: u32,
        width: u32,
    ) -> Inst {
        if lanes == 0 {
            return Inst::Float {
                dst,
                op,
                args,
                width,
                flags: crate::ir::Flags::NONE,
            };
        }
        Inst::Vector {
            dst,
            op: VectorOp::Float(op, width),
            args,
            lanes,
            elem: width,
        }
    }
}
