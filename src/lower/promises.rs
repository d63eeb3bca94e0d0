//! What LLVM promises about values, read from the module: the poison-producing flags of
//! an instruction (`nsw`, `nuw`, `exact`, `disjoint`, `nneg`), the `!range` metadata of a
//! load and the `range` attribute of a function's return value. Where a promise fails, the
//! value is poison; the engine weighs that as undefined behaviour (`exec/ub.rs`).

use super::{print_value, FunctionLowerer};
use crate::ir::{Flags, Inst, RangeOf};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// The poison-producing flags of the binary instruction `inst` (each asked only of the
/// opcodes that can carry it: LLVM's accessors assume their instruction class).
pub(super) unsafe fn flags(inst: LLVMValueRef, opcode: LLVMOpcode) -> Flags {
    use LLVMOpcode::*;
    let mut flags = Flags::NONE;
    match opcode {
        LLVMAdd | LLVMSub | LLVMMul | LLVMShl => {
            flags.nsw = LLVMGetNSW(inst) != 0;
            flags.nuw = LLVMGetNUW(inst) != 0;
        }
        LLVMUDiv | LLVMSDiv | LLVMLShr | LLVMAShr => flags.exact = LLVMGetExact(inst) != 0,
        LLVMOr => flags.disjoint = LLVMGetIsDisjoint(inst) != 0,
        // `trunc nuw`/`nsw` (LLVM 19 on): poison where the truncation changes the value.
        LLVMTrunc => {
            flags.nsw = LLVMGetNSW(inst) != 0;
            flags.nuw = LLVMGetNUW(inst) != 0;
        }
        // `zext nneg` (LLVM 18 on), `uitofp nneg` (LLVM 19 on): poison where the operand is
        // negative.
        LLVMZExt | LLVMUIToFP => flags.nneg = LLVMGetNNeg(inst) != 0,
        _ => {}
    }
    flags
}

/// The ranges of the `!range` metadata of `inst`, a load of an integer of at most 64 bits
/// (each `[lo, hi)`, wrapping when `lo > hi`); `None` without it.
unsafe fn range_metadata(inst: LLVMValueRef) -> Option<Vec<(u128, u128)>> {
    let ty = LLVMTypeOf(inst);
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMIntegerTypeKind || LLVMGetIntTypeWidth(ty) > 64 {
        return None;
    }
    let name = "range";
    let kind = LLVMGetMDKindID(name.as_ptr() as *const _, name.len() as u32);
    let md = LLVMGetMetadata(inst, kind);
    if md.is_null() {
        return None;
    }
    let n = LLVMGetMDNodeNumOperands(md) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    LLVMGetMDNodeOperands(md, ops.as_mut_ptr());
    let mut ranges = Vec::new();
    for pair in ops.chunks_exact(2) {
        if pair
            .iter()
            .any(|v| v.is_null() || LLVMIsAConstantInt(*v).is_null())
        {
            return None;
        }
        let bound = |v: LLVMValueRef| LLVMConstIntGetZExtValue(v) as u128;
        ranges.push((bound(pair[0]), bound(pair[1])));
    }
    (!ranges.is_empty()).then_some(ranges)
}

/// The range of the `range` attribute of `func`'s return value (LLVM 19 on: `define
/// range(i32 -1, 1) i32 @f(…)`), read from its printed header (the C API reads no range
/// attribute's bounds); `None` without it.
pub(super) unsafe fn return_range(func: LLVMValueRef) -> Option<Vec<(u128, u128)>> {
    let name = "range";
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
    if kind == 0 || LLVMGetEnumAttributeAtIndex(func, 0, kind).is_null() {
        return None;
    }
    let text = print_value(func);
    let header = text.lines().find(|l| l.starts_with("define"))?;
    parse_range_attribute(header.split_once('@')?.0)
}

/// The range of the first `range(iN lo, hi)` in `text`, its bounds as `N`-bit values.
fn parse_range_attribute(text: &str) -> Option<Vec<(u128, u128)>> {
    let inner = text.split_once("range(")?.1.split_once(')')?.0;
    let (ty, bounds) = inner.trim().split_once(' ')?;
    let width: u32 = ty.strip_prefix('i')?.parse().ok()?;
    if width == 0 || width > 128 {
        return None;
    }
    let (lo, hi) = bounds.split_once(',')?;
    let bound = |t: &str| {
        let v: i128 = t.trim().parse().ok()?;
        Some(crate::expr::mask(width, v as u128))
    };
    Some(vec![(bound(lo)?, bound(hi)?)])
}

impl FunctionLowerer<'_> {
    /// The check of the range LLVM gives the value `inst` defines or returns: a load's
    /// `!range`, the function's `range` return attribute at a `ret` (`Inst::InRange`).
    pub(super) unsafe fn range_check(
        &self,
        inst: LLVMValueRef,
        opcode: LLVMOpcode,
    ) -> Option<Inst> {
        let (value, ranges, of) = match opcode {
            LLVMOpcode::LLVMLoad => (inst, range_metadata(inst)?, RangeOf::Load),
            LLVMOpcode::LLVMRet if LLVMGetNumOperands(inst) == 1 => (
                LLVMGetOperand(inst, 0),
                self.ret_range.clone()?,
                RangeOf::Return,
            ),
            _ => return None,
        };
        let reg = *self.regs.get(&value)?;
        Some(Inst::InRange { reg, ranges, of })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounds of a `range` attribute as LLVM prints them, signed, become values of the
    /// attribute's width; anything else is no range.
    #[test]
    fn range_attributes_are_read_as_their_width() {
        let m32 = u128::from(u32::MAX);
        assert_eq!(
            parse_range_attribute("define noundef range(i32 -1, 1) i32 "),
            Some(vec![(m32, 1)])
        );
        assert_eq!(
            parse_range_attribute("define range(i8 0, 2) i8 "),
            Some(vec![(0, 2)])
        );
        assert_eq!(
            parse_range_attribute("define range(i32 -2147483647, -2147483648) i32 "),
            Some(vec![(0x8000_0001, 0x8000_0000)])
        );
        assert_eq!(parse_range_attribute("define i32 "), None);
        assert_eq!(parse_range_attribute("define range(float 0, 1) "), None);
    }
}
