//! What a pointer parameter points to. Pointers are opaque (LLVM 15 and later, and older
//! bitcode once LLVM 19's reader has upgraded it), so the pointee comes from what the
//! function says about it: the type of a `byval`/`sret` attribute (of any type: its
//! allocation size is the caller's slot), else how the body
//! indexes the pointer (`getelementptr` over a struct or an array, directly or through the
//! stack slot -O0 spills the parameter to), else a `dereferenceable(N)` attribute. Debug
//! information, read later, has the last word for ordinary pointers (`debug.rs`).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// The type a `byval(T)`/`sret(T)`-style type attribute of parameter `index` (from 0)
/// carries.
pub(super) unsafe fn attribute_type(
    f: LLVMValueRef,
    index: u32,
    name: &str,
) -> Option<LLVMTypeRef> {
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
    if kind == 0 {
        return None;
    }
    let attr = LLVMGetEnumAttributeAtIndex(f, index + 1, kind);
    if attr.is_null() || LLVMIsTypeAttribute(attr) == 0 {
        return None;
    }
    let ty = LLVMGetTypeAttributeValue(attr);
    (!ty.is_null()).then_some(ty)
}

/// `N` of a `dereferenceable(N)` attribute on parameter `index` (from 0): the caller
/// promises that many bytes behind the pointer.
pub(super) unsafe fn dereferenceable(f: LLVMValueRef, index: u32) -> Option<u64> {
    let name = "dereferenceable";
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
    let attr = LLVMGetEnumAttributeAtIndex(f, index + 1, kind);
    (kind != 0 && !attr.is_null()).then(|| LLVMGetEnumAttributeValue(attr))
}

/// The aggregate type the body indexes parameter `p` as: the source element type of the
/// first `getelementptr` with a field or element index whose base is `p`, or a value
/// loaded from a stack slot `p` was stored to.
pub(super) unsafe fn indexed_type(p: LLVMValueRef) -> Option<LLVMTypeRef> {
    let mut bases = vec![p];
    let mut use_ = LLVMGetFirstUse(p);
    while !use_.is_null() {
        let user = LLVMGetUser(use_);
        // `store ptr %p, ptr %slot`: the slot's loads are the parameter too.
        if is_instruction(user, LLVMOpcode::LLVMStore)
            && LLVMGetInstructionOpcode(user) == LLVMOpcode::LLVMStore
            && LLVMGetOperand(user, 0) == p
            && !LLVMIsAAllocaInst(LLVMGetOperand(user, 1)).is_null()
        {
            let mut slot_use = LLVMGetFirstUse(LLVMGetOperand(user, 1));
            while !slot_use.is_null() {
                let load = LLVMGetUser(slot_use);
                if is_instruction(load, LLVMOpcode::LLVMLoad) {
                    bases.push(load);
                }
                slot_use = LLVMGetNextUse(slot_use);
            }
        }
        use_ = LLVMGetNextUse(use_);
    }
    for base in bases {
        let mut use_ = LLVMGetFirstUse(base);
        while !use_.is_null() {
            let user = LLVMGetUser(use_);
            if is_instruction(user, LLVMOpcode::LLVMGetElementPtr)
                && LLVMGetOperand(user, 0) == base
                && LLVMGetNumOperands(user) > 2
            {
                let ty = LLVMGetGEPSourceElementType(user);
                if is_aggregate(ty) {
                    return Some(ty);
                }
            }
            use_ = LLVMGetNextUse(use_);
        }
    }
    None
}

/// `(store size, whether it is a scalar)` of a pointee type, `(None, true)` when unsized.
pub(super) unsafe fn shape(td: LLVMTargetDataRef, ty: LLVMTypeRef) -> (Option<u64>, bool) {
    let sized = LLVMTypeIsSized(ty) != 0;
    (
        sized.then(|| LLVMStoreSizeOfType(td, ty)),
        !is_aggregate(ty),
    )
}

/// `(allocation size, whether it is a scalar)` of the type of a `byval`/`sret` attribute:
/// the slot a caller passes, padding included (C's `sizeof`: 16 bytes for an `x86_fp80`,
/// whose store size is 10), `(None, true)` when unsized.
pub(super) unsafe fn slot_shape(td: LLVMTargetDataRef, ty: LLVMTypeRef) -> (Option<u64>, bool) {
    let sized = LLVMTypeIsSized(ty) != 0;
    (sized.then(|| LLVMABISizeOfType(td, ty)), !is_aggregate(ty))
}

/// Whether `ty` is a struct whose last field is an array of no elements: how clang lays out
/// a flexible array member (`int data[]`), so that objects of the type are larger.
pub(super) unsafe fn open_ended(ty: LLVMTypeRef) -> bool {
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMStructTypeKind {
        return false;
    }
    let n = LLVMCountStructElementTypes(ty);
    if n == 0 {
        return false;
    }
    let last = LLVMStructGetTypeAtIndex(ty, n - 1);
    LLVMGetTypeKind(last) == LLVMTypeKind::LLVMArrayTypeKind && LLVMGetArrayLength2(last) == 0
}

/// Whether `v` is an instruction with opcode `op` (constant expressions are users too).
unsafe fn is_instruction(v: LLVMValueRef, op: LLVMOpcode) -> bool {
    !LLVMIsAInstruction(v).is_null() && LLVMGetInstructionOpcode(v) == op
}

unsafe fn is_aggregate(ty: LLVMTypeRef) -> bool {
    matches!(
        LLVMGetTypeKind(ty),
        LLVMTypeKind::LLVMStructTypeKind | LLVMTypeKind::LLVMArrayTypeKind
    )
}
