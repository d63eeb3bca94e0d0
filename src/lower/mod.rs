//! Lowering a linked LLVM module into the engine's IR (`ir`).
//!
//! This is the only module besides `load` that touches LLVM. It numbers registers and
//! blocks, fixes the address of every global and function, folds constant expressions
//! (which then are plain integers), lays out global initializers as bytes, and maps each
//! instruction to an `ir::Inst`. Constructs the engine does not model (floating point,
//! vectors, exceptions, inline assembly) become `Inst::Unsupported` with their location, so
//! a path that reaches one stops with a clear reason instead of a wrong answer. Integers
//! wider than 128 bits are split into limbs of at most 128 bits (`wide.rs`), vectors wider
//! than 128 bits into one register per lane (`wide_vector.rs`).

mod contract;
mod debug;
mod intrinsics;
mod opcodes;
mod pointee;
mod promises;
mod wide;
mod wide_vector;

use crate::ir::*;
use debug::{
    assign_debug_names, di_pointee, di_type, md_operand, parse_di_local_variable, DebugParam,
};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
use inkwell::module::Module as LlvmModule;
pub(crate) use opcodes::float_function;
use opcodes::{binary_op, float_op, is_float_type, opcode_name, predicate, type_holds_pointers};
use promises::{flags, return_range};
use rustc_hash::FxHashMap;
use std::collections::HashSet;
use std::ffi::CStr;

/// A lowering failure: the module cannot be used at all (not a single path).
#[derive(Debug)]
pub struct LowerError {
    pub side: Side,
    pub msg: String,
}

/// Lowers `module`. Unsupported instructions do not fail; malformed modules do.
/// `param_names`: read parameters' source names from debug information (function checks
/// show them; reading them costs a walk over each function's metadata), except for the
/// functions named in `library` (linked from musl: nobody checks them).
pub fn lower(
    module: &LlvmModule<'_>,
    param_names: bool,
    library: &HashSet<String>,
) -> Result<Module, LowerError> {
    // SAFETY: every LLVM handle used below comes from `module`, which outlives this call,
    // and the C API calls are the documented accessors for the kinds of value checked.
    unsafe {
        // LLVM 19 may hold debug variables as records beside the instructions; the names of
        // parameters are read from `llvm.dbg.declare`/`llvm.dbg.value` calls.
        if LLVMIsNewDbgInfoFormat(module.as_mut_ptr()) != 0 {
            LLVMSetIsNewDbgInfoFormat(module.as_mut_ptr(), 0);
        }
        let mut l = Lowerer::new(module.as_mut_ptr());
        l.param_names = param_names;
        l.library = library.clone();
        l.run()
    }
}

struct Lowerer {
    llmod: LLVMModuleRef,
    td: LLVMTargetDataRef,
    out: Module,
    functions: FxHashMap<LLVMValueRef, FuncId>,
    globals: FxHashMap<LLVMValueRef, GlobalId>,
    const_ids: FxHashMap<Constant, ConstId>,
    loc_ids: FxHashMap<String, LocId>,
    param_names: bool,
    /// Functions whose parameter names are not read (linked from musl).
    library: HashSet<String>,
}

/// A value that is not a compile-time integer: why, for the message.
type ConstResult = Result<Constant, String>;

impl Lowerer {
    unsafe fn new(llmod: LLVMModuleRef) -> Self {
        Lowerer {
            llmod,
            td: LLVMGetModuleDataLayout(llmod),
            out: Module::default(),
            functions: FxHashMap::default(),
            globals: FxHashMap::default(),
            const_ids: FxHashMap::default(),
            loc_ids: FxHashMap::default(),
            param_names: true,
            library: HashSet::new(),
        }
    }

    unsafe fn run(mut self) -> Result<Module, LowerError> {
        self.declare_functions();
        self.declare_globals();
        self.init_globals()?;
        let funcs: Vec<(LLVMValueRef, FuncId)> = {
            let mut v: Vec<_> = self.functions.iter().map(|(&f, &id)| (f, id)).collect();
            v.sort_by_key(|&(_, id)| id);
            v
        };
        self.out.c_library = vec![false; self.out.functions.len()];
        for (f, id) in funcs {
            self.out.c_library[id.index()] = debug::in_c_library(f);
            if LLVMCountBasicBlocks(f) > 0 {
                let lowered = FunctionLowerer::new(&mut self, f).lower();
                let target = &mut self.out.functions[id.index()];
                target.blocks = lowered.blocks;
                target.num_regs = lowered.num_regs;
                assign_debug_names(&mut target.params, &lowered.param_names);
            }
        }
        Ok(self.out)
    }

    unsafe fn declare_functions(&mut self) {
        let mut f = LLVMGetFirstFunction(self.llmod);
        while !f.is_null() {
            let name = value_name(f);
            let (side, source) = split_name(&name);
            let id = FuncId(self.out.functions.len() as u32);
            let fty = LLVMGlobalGetValueType(f);
            let ret_ty = LLVMGetReturnType(fty);
            let ret_width = match LLVMGetTypeKind(ret_ty) {
                LLVMTypeKind::LLVMVoidTypeKind => None,
                _ => Some(self.width_of(ret_ty).unwrap_or(0)),
            };
            let nparams = LLVMCountParams(f);
            let mut params = Vec::new();
            for i in 0..nparams {
                let p = LLVMGetParam(f, i);
                let ty = LLVMTypeOf(p);
                let is_pointer = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind;
                let attribute = ["byval", "sret"]
                    .iter()
                    .find_map(|a| pointee::attribute_type(f, i, a));
                let pointee = attribute.or_else(|| pointee::indexed_type(p));
                let (pointee_size, pointee_is_scalar) = match (attribute, pointee) {
                    // The caller passes a slot of the type's allocation size, of any type.
                    (Some(t), _) if is_pointer => pointee::slot_shape(self.td, t),
                    (_, Some(t)) if is_pointer => pointee::shape(self.td, t),
                    _ => match pointee::dereferenceable(f, i) {
                        Some(n) if is_pointer => (Some(n), false),
                        _ => (None, true),
                    },
                };
                let pointee_open = is_pointer && pointee.is_some_and(|t| pointee::open_ended(t));
                let pname = value_name(p);
                let pass = if has_attribute(f, i + 1, "sret") {
                    ParamPass::StructReturn
                } else if has_attribute(f, i + 1, "byval") {
                    ParamPass::ByVal
                } else {
                    ParamPass::Direct
                };
                let name = match pass {
                    ParamPass::StructReturn => Some("result".to_string()),
                    _ => (!pname.is_empty()).then_some(pname),
                };
                params.push(Param {
                    reg: RegId(i),
                    width: self.width_of(ty).unwrap_or(0),
                    name,
                    pointee_size,
                    pointee_is_scalar,
                    pointee_open,
                    is_pointer,
                    float: is_float_type(ty),
                    pass,
                    source_type: None,
                });
            }
            let signature = type_string(fty);
            self.out.functions.push(Function {
                name: name.clone(),
                source_name: source.to_string(),
                side,
                params,
                ret_width,
                ret_is_pointer: LLVMGetTypeKind(ret_ty) == LLVMTypeKind::LLVMPointerTypeKind,
                ret_is_float: is_float_type(ret_ty),
                ret_float_fields: float_fields(self.td, ret_ty),
                is_var_arg: LLVMIsFunctionVarArg(fty) != 0,
                blocks: Vec::new(),
                num_regs: nparams,
                address: FUNCTION_BASE + id.0 as u64 * FUNCTION_STRIDE,
                signature,
            });
            self.functions.insert(f, id);
            f = LLVMGetNextFunction(f);
        }
    }

    unsafe fn declare_globals(&mut self) {
        let mut address = GLOBAL_BASE;
        let mut g = LLVMGetFirstGlobal(self.llmod);
        while !g.is_null() {
            let name = value_name(g);
            let (side, source) = split_name(&name);
            let ty = LLVMGlobalGetValueType(g);
            let size = if LLVMTypeIsSized(ty) != 0 {
                LLVMABISizeOfType(self.td, ty)
            } else {
                0
            };
            let align = (LLVMGetAlignment(g) as u64).max(16);
            address = address.div_ceil(align) * align;
            let id = GlobalId(self.out.globals.len() as u32);
            self.out.globals.push(Global {
                name: name.clone(),
                source_name: source.to_string(),
                side,
                address,
                size,
                init: vec![0; size as usize],
                is_constant: LLVMIsGlobalConstant(g) != 0,
                is_external: LLVMGetInitializer(g).is_null(),
                holds_pointers: type_holds_pointers(ty, 0),
            });
            self.globals.insert(g, id);
            // A red zone after each global, so that running off its end is detected.
            address += size.max(1) + 64;
            g = LLVMGetNextGlobal(g);
        }
    }

    unsafe fn init_globals(&mut self) -> Result<(), LowerError> {
        let globals: Vec<(LLVMValueRef, GlobalId)> =
            self.globals.iter().map(|(&g, &id)| (g, id)).collect();
        for (g, id) in globals {
            let init = LLVMGetInitializer(g);
            if init.is_null() {
                continue;
            }
            let mut bytes = vec![0u8; self.out.globals[id.index()].size as usize];
            self.write_const_bytes(init, &mut bytes, 0).map_err(|msg| {
                let global = &self.out.globals[id.index()];
                LowerError {
                    side: global.side,
                    msg: format!("initializer of global '{}': {msg}", global.source_name),
                }
            })?;
            self.out.globals[id.index()].init = bytes;
        }
        Ok(())
    }

    /// Lays out the constant `c` at `offset` of `out`, in memory order (little-endian).
    unsafe fn write_const_bytes(
        &self,
        c: LLVMValueRef,
        out: &mut [u8],
        offset: usize,
    ) -> Result<(), String> {
        let ty = LLVMTypeOf(c);
        let size = LLVMStoreSizeOfType(self.td, ty) as usize;
        if offset + size > out.len() {
            return Err("initializer larger than its global".into());
        }
        if !LLVMIsAConstantAggregateZero(c).is_null() || !LLVMIsAUndefValue(c).is_null() {
            return Ok(());
        }
        match LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(ty);
                for i in 0..n {
                    let elem = aggregate_element(c, i)?;
                    let off = LLVMOffsetOfElement(self.td, ty, i) as usize;
                    self.write_const_bytes(elem, out, offset + off)?;
                }
                Ok(())
            }
            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                let n = if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMArrayTypeKind {
                    LLVMGetArrayLength2(ty)
                } else {
                    LLVMGetVectorSize(ty) as u64
                };
                let stride = LLVMABISizeOfType(self.td, LLVMGetElementType(ty)) as usize;
                for i in 0..n {
                    let elem = aggregate_element(c, i as u32)?;
                    self.write_const_bytes(elem, out, offset + i as usize * stride)?;
                }
                Ok(())
            }
            LLVMTypeKind::LLVMIntegerTypeKind | LLVMTypeKind::LLVMPointerTypeKind => {
                let k = self.const_int(c)?;
                for (i, byte) in out[offset..offset + size].iter_mut().enumerate() {
                    *byte = if i < 16 {
                        (k.value >> (8 * i)) as u8
                    } else {
                        0
                    };
                }
                Ok(())
            }
            LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind => {
                let mut lossy = 0;
                let v = LLVMConstRealGetDouble(c, &mut lossy);
                let bits: u64 = if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMFloatTypeKind {
                    (v as f32).to_bits() as u64
                } else {
                    v.to_bits()
                };
                for (i, byte) in out[offset..offset + size].iter_mut().enumerate() {
                    *byte = (bits >> (8 * i)) as u8;
                }
                Ok(())
            }
            LLVMTypeKind::LLVMX86_FP80TypeKind => {
                let bits = x87_constant(c)?;
                for (i, byte) in out[offset..offset + size].iter_mut().enumerate() {
                    *byte = if i < 16 { (bits >> (8 * i)) as u8 } else { 0 };
                }
                Ok(())
            }
            other => Err(format!("constant of type kind {other:?} is not supported")),
        }
    }

    /// The integer value of a constant of integer or pointer type (folding expressions).
    unsafe fn const_int(&self, c: LLVMValueRef) -> ConstResult {
        let ty = LLVMTypeOf(c);
        let width = self.width_of(ty)?;
        if !LLVMIsAConstantInt(c).is_null() {
            return Ok(Constant {
                width,
                value: wide::const_int_limbs(c, width)?[0],
            });
        }
        if !LLVMIsAConstantPointerNull(c).is_null() || !LLVMIsAUndefValue(c).is_null() {
            return Ok(Constant { width, value: 0 });
        }
        if !LLVMIsAConstantAggregateZero(c).is_null() {
            return Ok(Constant { width, value: 0 });
        }
        if let Some(&id) = self.globals.get(&c) {
            return Ok(Constant {
                width,
                value: self.out.globals[id.index()].address as u128,
            });
        }
        if let Some(&id) = self.functions.get(&c) {
            return Ok(Constant {
                width,
                value: self.out.functions[id.index()].address as u128,
            });
        }
        if !LLVMIsAGlobalAlias(c).is_null() {
            let target = self.const_int(LLVMAliasGetAliasee(c))?;
            return Ok(Constant {
                width,
                value: target.value,
            });
        }
        // A vector constant with poison or undefined lanes is a `ConstantVector` (those lanes
        // read as zero bytes).
        if !LLVMIsAConstantStruct(c).is_null()
            || !LLVMIsAConstantArray(c).is_null()
            || !LLVMIsAConstantDataSequential(c).is_null()
            || !LLVMIsAConstantVector(c).is_null()
        {
            let size = LLVMStoreSizeOfType(self.td, ty) as usize;
            if size > 16 {
                return Err("aggregate constant wider than 128 bits".into());
            }
            let mut bytes = vec![0u8; size];
            self.write_const_bytes(c, &mut bytes, 0)?;
            let value = bytes
                .iter()
                .rev()
                .fold(0u128, |acc, &b| (acc << 8) | b as u128);
            return Ok(Constant { width, value });
        }
        if !LLVMIsAConstantExpr(c).is_null() {
            return self.const_expr(c, width);
        }
        if !LLVMIsAConstantFP(c).is_null() && width == crate::expr::X87_WIDTH {
            let value = x87_constant(c)?;
            return Ok(Constant { width, value });
        }
        if !LLVMIsAConstantFP(c).is_null() {
            let mut lossy = 0;
            let v = LLVMConstRealGetDouble(c, &mut lossy);
            let value = match width {
                32 => u128::from((v as f32).to_bits()),
                64 => u128::from(v.to_bits()),
                _ => return Err(format!("floating-point constant of {width} bits")),
            };
            return Ok(Constant { width, value });
        }
        Err(format!("constant '{}' cannot be folded", print_value(c)))
    }

    unsafe fn const_expr(&self, c: LLVMValueRef, width: u32) -> ConstResult {
        use LLVMOpcode::*;
        let op = |i| self.const_int(LLVMGetOperand(c, i));
        let mask = |v: u128| crate::expr::mask(width, v);
        let value = match LLVMGetConstOpcode(c) {
            LLVMBitCast | LLVMPtrToInt | LLVMIntToPtr | LLVMAddrSpaceCast | LLVMZExt
            | LLVMTrunc => mask(op(0)?.value),
            LLVMSExt => {
                let a = op(0)?;
                mask(crate::expr::to_signed(a.width, a.value) as u128)
            }
            LLVMGetElementPtr => {
                let base = op(0)?.value as u64;
                let n = LLVMGetNumOperands(c) as u32;
                let mut indices = Vec::new();
                for i in 1..n {
                    let k = op(i)?;
                    indices.push(crate::expr::to_signed(k.width, k.value) as i64);
                }
                let source = LLVMGetGEPSourceElementType(c);
                let offset = self.gep_const_offset(source, &indices)?;
                base.wrapping_add(offset as u64) as u128
            }
            LLVMAdd => mask(op(0)?.value.wrapping_add(op(1)?.value)),
            LLVMSub => mask(op(0)?.value.wrapping_sub(op(1)?.value)),
            LLVMMul => mask(op(0)?.value.wrapping_mul(op(1)?.value)),
            LLVMAnd => op(0)?.value & op(1)?.value,
            LLVMOr => op(0)?.value | op(1)?.value,
            LLVMXor => op(0)?.value ^ op(1)?.value,
            LLVMICmp => {
                let (a, b) = (op(0)?, op(1)?);
                predicate(LLVMGetICmpPredicate(c)).eval(a.width, a.value, b.value) as u128
            }
            LLVMSelect => {
                if op(0)?.value != 0 {
                    op(1)?.value
                } else {
                    op(2)?.value
                }
            }
            other => return Err(format!("constant expression {other:?} is not supported")),
        };
        Ok(Constant { width, value })
    }

    /// Byte offset of a GEP with all-constant indices over `source`.
    unsafe fn gep_const_offset(&self, source: LLVMTypeRef, indices: &[i64]) -> Result<i64, String> {
        let mut ty = source;
        let mut offset = 0i64;
        for (n, &idx) in indices.iter().enumerate() {
            if n == 0 {
                offset =
                    offset.wrapping_add(idx.wrapping_mul(LLVMABISizeOfType(self.td, ty) as i64));
                continue;
            }
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMStructTypeKind => {
                    offset += LLVMOffsetOfElement(self.td, ty, idx as u32) as i64;
                    ty = LLVMStructGetTypeAtIndex(ty, idx as u32);
                }
                LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                    ty = LLVMGetElementType(ty);
                    offset = offset
                        .wrapping_add(idx.wrapping_mul(LLVMABISizeOfType(self.td, ty) as i64));
                }
                other => return Err(format!("getelementptr into {other:?}")),
            }
        }
        Ok(offset)
    }

    /// Width in bits of a first-class value of type `ty`.
    unsafe fn width_of(&self, ty: LLVMTypeRef) -> Result<u32, String> {
        match LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMIntegerTypeKind => {
                let w = LLVMGetIntTypeWidth(ty);
                if w > crate::expr::MAX_WIDTH {
                    Err(format!("integer type i{w} is wider than 128 bits"))
                } else {
                    Ok(w)
                }
            }
            LLVMTypeKind::LLVMPointerTypeKind => Ok(PTR_WIDTH),
            LLVMTypeKind::LLVMStructTypeKind | LLVMTypeKind::LLVMArrayTypeKind => {
                let bits = LLVMStoreSizeOfType(self.td, ty) * 8;
                if bits == 0 || bits > crate::expr::MAX_WIDTH as u64 {
                    Err(format!("aggregate value of {bits} bits"))
                } else {
                    Ok(bits as u32)
                }
            }
            LLVMTypeKind::LLVMFloatTypeKind => Ok(32),
            LLVMTypeKind::LLVMDoubleTypeKind => Ok(64),
            LLVMTypeKind::LLVMX86_FP80TypeKind => Ok(crate::expr::X87_WIDTH),
            LLVMTypeKind::LLVMHalfTypeKind | LLVMTypeKind::LLVMBFloatTypeKind => {
                Err("half-precision floating point".into())
            }
            LLVMTypeKind::LLVMFP128TypeKind | LLVMTypeKind::LLVMPPC_FP128TypeKind => {
                Err("128-bit floating point".into())
            }
            LLVMTypeKind::LLVMVectorTypeKind => {
                let (lanes, elem) = self.vector_shape(ty)?;
                if lanes * elem > crate::expr::MAX_WIDTH {
                    Err(format!(
                        "vector of {lanes} × {elem} bits (wider than 128 bits)"
                    ))
                } else {
                    Ok(lanes * elem)
                }
            }
            other => Err(format!("values of type kind {other:?}")),
        }
    }

    /// Lanes and lane width of a vector of integers or pointers.
    unsafe fn vector_shape(&self, ty: LLVMTypeRef) -> Result<(u32, u32), String> {
        let elem = LLVMGetElementType(ty);
        let elem_width = match LLVMGetTypeKind(elem) {
            LLVMTypeKind::LLVMIntegerTypeKind => LLVMGetIntTypeWidth(elem),
            LLVMTypeKind::LLVMPointerTypeKind => PTR_WIDTH,
            LLVMTypeKind::LLVMFloatTypeKind => 32,
            LLVMTypeKind::LLVMDoubleTypeKind => 64,
            _ => return Err("vector of long double or half-precision floats".into()),
        };
        Ok((LLVMGetVectorSize(ty), elem_width))
    }

    fn constant(&mut self, k: Constant) -> ConstId {
        if let Some(&id) = self.const_ids.get(&k) {
            return id;
        }
        let id = ConstId(self.out.constants.len() as u32);
        self.out.constants.push(k);
        self.const_ids.insert(k, id);
        id
    }

    fn loc(&mut self, text: String) -> LocId {
        if let Some(&id) = self.loc_ids.get(&text) {
            return id;
        }
        let id = LocId(self.out.locs.len() as u32);
        self.out.locs.push(text.clone());
        self.loc_ids.insert(text, id);
        id
    }
}

/// The result of lowering one function body.
struct LoweredBody {
    blocks: Vec<Block>,
    num_regs: u32,
    /// `(argument number, source name)` from debug info, numbered from 1.
    param_names: Vec<DebugParam>,
}

struct FunctionLowerer<'a> {
    l: &'a mut Lowerer,
    func: LLVMValueRef,
    fname: String,
    /// Whose code the function is.
    side: Side,
    regs: FxHashMap<LLVMValueRef, RegId>,
    blocks: FxHashMap<LLVMBasicBlockRef, BlockId>,
    num_regs: u32,
    /// `(argument number, source name)` from debug info, numbered from 1.
    param_names: Vec<DebugParam>,
    /// Values whose debug variable was already read (each is printed once).
    described: rustc_hash::FxHashSet<LLVMValueRef>,
    /// Whether to read parameter names from debug information.
    names: bool,
    /// The limbs of values wider than 128 bits (`wide.rs`).
    wide: FxHashMap<LLVMValueRef, Vec<RegId>>,
    /// Whether the function's target features include FMA (`-mfma`,
    /// `target("fma")`): x86-64's backend then fuses `llvm.fmuladd` into one rounding.
    fused: bool,
    /// Whether the backend also fuses `contract` products into the sums that use them:
    /// under FMA in an optimised function (`contract.rs`).
    contracts: bool,
    /// The location of the instruction being lowered.
    loc: LocId,
    /// The `undef` and `poison` constant operands met, each given a register
    /// (`Inst::Poison`, put at the entry) with its use's location.
    poisons: Vec<(Inst, LocId)>,
    /// The ranges the function's `range` return attribute gives its return value.
    ret_range: Option<Vec<(u128, u128)>>,
}

/// The `float` and `double` fields of an aggregate type, as (lowest bit, width) in its
/// memory layout; empty for any other type (and past 64 fields).
unsafe fn float_fields(td: LLVMTargetDataRef, ty: LLVMTypeRef) -> Vec<(u32, u32)> {
    unsafe fn walk(
        td: LLVMTargetDataRef,
        ty: LLVMTypeRef,
        base: u64,
        out: &mut Vec<(u32, u32)>,
        depth: u32,
    ) {
        if out.len() > 64 || depth > 8 {
            return;
        }
        match LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMFloatTypeKind => out.push((base as u32, 32)),
            LLVMTypeKind::LLVMDoubleTypeKind => out.push((base as u32, 64)),
            LLVMTypeKind::LLVMStructTypeKind => {
                for i in 0..LLVMCountStructElementTypes(ty) {
                    let at = base + LLVMOffsetOfElement(td, ty, i) * 8;
                    walk(td, LLVMStructGetTypeAtIndex(ty, i), at, out, depth + 1);
                }
            }
            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                let elem = LLVMGetElementType(ty);
                let size = LLVMABISizeOfType(td, elem) * 8;
                let n = if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMArrayTypeKind {
                    LLVMGetArrayLength2(ty)
                } else {
                    LLVMGetVectorSize(ty) as u64
                };
                for k in 0..n.min(65) {
                    walk(td, elem, base + k * size, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if matches!(
        LLVMGetTypeKind(ty),
        LLVMTypeKind::LLVMStructTypeKind
            | LLVMTypeKind::LLVMArrayTypeKind
            | LLVMTypeKind::LLVMVectorTypeKind
    ) {
        walk(td, ty, 0, &mut out, 0);
    }
    if out.len() > 64 {
        out.clear();
    }
    out
}

/// Whether `func`'s `"target-features"` attribute turns on FMA (`+fma` or AMD's `+fma4`).
unsafe fn has_fma(func: LLVMValueRef) -> bool {
    let key = "target-features";
    let attr = LLVMGetStringAttributeAtIndex(
        func,
        inkwell::llvm_sys::LLVMAttributeFunctionIndex,
        key.as_ptr().cast(),
        key.len() as u32,
    );
    if attr.is_null() {
        return false;
    }
    let mut len = 0u32;
    let value = LLVMGetStringAttributeValue(attr, &mut len);
    if value.is_null() {
        return false;
    }
    let bytes = std::slice::from_raw_parts(value.cast::<u8>(), len as usize);
    String::from_utf8_lossy(bytes)
        .split(',')
        .any(|f| f == "+fma" || f == "+fma4")
}

/// An instruction that could not be lowered: the reason, reported when a path reaches it.
type InstResult = Result<Inst, String>;

impl<'a> FunctionLowerer<'a> {
    unsafe fn new(l: &'a mut Lowerer, func: LLVMValueRef) -> Self {
        let nparams = LLVMCountParams(func);
        let mut regs = FxHashMap::default();
        for i in 0..nparams {
            regs.insert(LLVMGetParam(func, i), RegId(i));
        }
        let linked = value_name(func);
        let (side, fname) = split_name(&linked);
        // Parameter names are shown for the checked functions only, never the harness's.
        let names = side != Side::Shared && !l.library.contains(&linked);
        FunctionLowerer {
            names,
            fname: fname.to_string(),
            side,
            l,
            func,
            regs,
            blocks: FxHashMap::default(),
            num_regs: nparams,
            param_names: Vec::new(),
            described: Default::default(),
            wide: FxHashMap::default(),
            fused: has_fma(func),
            contracts: has_fma(func) && !contract::is_optnone(func),
            loc: LocId(0),
            poisons: Vec::new(),
            ret_range: return_range(func),
        }
    }

    /// `op` as this function's code computes it: `llvm.fmuladd` fused under FMA.
    fn fused(&self, op: FloatOp) -> FloatOp {
        match op {
            FloatOp::MulAdd if self.fused => FloatOp::Fma,
            op => op,
        }
    }

    unsafe fn lower(mut self) -> LoweredBody {
        // First pass: number blocks and value-producing instructions.
        let mut bbs = Vec::new();
        let mut bb = LLVMGetFirstBasicBlock(self.func);
        while !bb.is_null() {
            self.blocks.insert(bb, BlockId(bbs.len() as u32));
            bbs.push(bb);
            let mut inst = LLVMGetFirstInstruction(bb);
            while !inst.is_null() {
                if LLVMGetTypeKind(LLVMTypeOf(inst)) != LLVMTypeKind::LLVMVoidTypeKind {
                    self.regs.insert(inst, RegId(self.num_regs));
                    self.num_regs += 1;
                }
                inst = LLVMGetNextInstruction(inst);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        let mut blocks: Vec<Block> = bbs.iter().map(|&bb| self.lower_block(bb)).collect();
        // The values of `undef` and `poison` operands are made at the entry, which
        // dominates every use (a phi's incoming value is read at the end of a predecessor).
        if let Some(entry) = blocks.first_mut() {
            let (insts, locs): (Vec<Inst>, Vec<LocId>) = self.poisons.drain(..).unzip();
            entry.insts.splice(0..0, insts);
            entry.locs.splice(0..0, locs);
        }
        LoweredBody {
            blocks,
            num_regs: self.num_regs,
            param_names: self.param_names,
        }
    }

    unsafe fn lower_block(&mut self, bb: LLVMBasicBlockRef) -> Block {
        let mut block = Block {
            phis: Vec::new(),
            insts: Vec::new(),
            locs: Vec::new(),
            term: Terminator::Unreachable,
            term_loc: LocId(0),
        };
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            let loc = self.location(inst);
            self.loc = loc;
            let opcode = LLVMGetInstructionOpcode(inst);
            if opcode == LLVMOpcode::LLVMPHI {
                let phis = if wide_vector::is_wide_vector(LLVMTypeOf(inst)) {
                    self.lower_vector_phis(inst)
                } else {
                    self.lower_phis(inst)
                };
                match phis {
                    Ok(phis) => block.phis.extend(phis),
                    Err(what) => {
                        block.insts.push(Inst::Unsupported { what });
                        block.locs.push(loc);
                    }
                }
            } else if LLVMIsATerminatorInst(inst).is_null() {
                self.note_debug_name(inst);
                let insts = if wide_vector::involves_wide_vector(inst) {
                    self.lower_wide_vector(inst, opcode)
                } else if let Some(fused) = self.contracted(inst, opcode) {
                    fused
                } else {
                    self.lower_insts(inst, opcode)
                };
                for lowered in insts {
                    if !matches!(
                        lowered,
                        Inst::Intrinsic {
                            kind: Intrinsic::PassThrough,
                            dst: None,
                            ..
                        }
                    ) {
                        block.insts.push(lowered);
                        block.locs.push(loc);
                    }
                }
                // A load's `!range`: the value is poison outside it.
                if let Some(check) = self.range_check(inst, opcode) {
                    block.insts.push(check);
                    block.locs.push(loc);
                }
            } else {
                // The function's `range` return attribute: a value returned outside it
                // is poison.
                if let Some(check) = self.range_check(inst, opcode) {
                    block.insts.push(check);
                    block.locs.push(loc);
                }
                block.term = self
                    .lower_terminator(inst, opcode)
                    .unwrap_or_else(|what| Terminator::Unsupported { what });
                block.term_loc = loc;
            }
            inst = LLVMGetNextInstruction(inst);
        }
        block
    }

    /// `file:line` of an instruction, or `function` when there is no debug info.
    unsafe fn location(&mut self, inst: LLVMValueRef) -> LocId {
        let mut len = 0u32;
        let file = LLVMGetDebugLocFilename(inst, &mut len);
        let text = if file.is_null() || len == 0 {
            format!("{}()", self.fname)
        } else {
            let bytes = std::slice::from_raw_parts(file as *const u8, len as usize);
            let name = String::from_utf8_lossy(bytes);
            let short = name.rsplit('/').next().unwrap_or(&name).to_string();
            // Where the file is, for the report's sources (`Module::source_files`).
            let side = self.side;
            let files = &mut self.l.out.source_files;
            if !files.iter().any(|f| f.side == side && f.name == short) {
                let path = debug::source_path(&name, inst);
                let name = short.clone();
                files.push(SourceFile { side, name, path });
            }
            format!("{short}:{}", LLVMGetDebugLocLine(inst))
        };
        self.l.loc(text)
    }

    /// Records a parameter's source name from `llvm.dbg.declare`/`llvm.dbg.value`.
    unsafe fn note_debug_name(&mut self, inst: LLVMValueRef) {
        if LLVMGetInstructionOpcode(inst) != LLVMOpcode::LLVMCall {
            return;
        }
        let callee = LLVMGetCalledValue(inst);
        let name = value_name(callee);
        if !self.names
            || !self.l.param_names
            || (name != "llvm.dbg.declare" && name != "llvm.dbg.value")
        {
            return;
        }
        // Printing the variable costs a walk over the function's metadata, so only
        // variables that can be parameters are printed: those describing an argument or
        // (at -O0) an alloca holding one.
        let described = LLVMGetOperand(inst, 0);
        // A node or a wrapped value; LLVM 19's `DIArgList` is neither and is not read.
        if LLVMIsAMDNode(described).is_null() || LLVMGetMDNodeNumOperands(described) != 1 {
            return;
        }
        let mut value: LLVMValueRef = std::ptr::null_mut();
        LLVMGetMDNodeOperands(described, &mut value);
        if value.is_null()
            || (LLVMIsAArgument(value).is_null() && LLVMIsAAllocaInst(value).is_null())
            || !self.described.insert(value)
        {
            return;
        }
        let variable = LLVMGetOperand(inst, 1);
        let var = print_value(variable);
        if let Some((name, arg)) = parse_di_local_variable(&var) {
            if arg >= 1 && !self.param_names.iter().any(|p| p.arg == arg) {
                // DILocalVariable's operands: scope, name, file, type.
                let ty = di_type(md_operand(variable, 3), 0);
                let pointee = di_pointee(md_operand(variable, 3));
                self.param_names.push(DebugParam {
                    arg,
                    name,
                    ty,
                    pointee,
                });
            }
        }
    }

    unsafe fn operand(&mut self, v: LLVMValueRef) -> Result<Operand, String> {
        if let Some(&r) = self.regs.get(&v) {
            if wide::is_wide(LLVMTypeOf(v)) || wide_vector::is_wide_vector(LLVMTypeOf(v)) {
                return Err(format!(
                    "{} used whole (wider than 128 bits)",
                    type_string(LLVMTypeOf(v))
                ));
            }
            return Ok(Operand::Reg(r));
        }
        if !LLVMIsAInstruction(v).is_null() || !LLVMIsAArgument(v).is_null() {
            return Err("operand defined outside its function".into());
        }
        if !LLVMIsAUndefValue(v).is_null() && !is_aggregate(LLVMTypeOf(v)) {
            // Any value: a register of its own (aggregates, whose undefined parts are
            // often padding, stay zero).
            let width = self.l.width_of(LLVMTypeOf(v))?;
            let dst = RegId(self.num_regs);
            self.num_regs += 1;
            let poison = !LLVMIsAPoisonValue(v).is_null();
            self.poisons.push((
                Inst::Poison {
                    dst,
                    width,
                    poison,
                    frozen: false,
                },
                self.loc,
            ));
            return Ok(Operand::Reg(dst));
        }
        let k = self.l.const_int(v)?;
        Ok(Operand::Const(self.l.constant(k)))
    }

    unsafe fn reg(&self, inst: LLVMValueRef) -> RegId {
        self.regs[&inst]
    }

    unsafe fn block(&self, bb: LLVMBasicBlockRef) -> BlockId {
        self.blocks[&bb]
    }

    unsafe fn lower_phi(&mut self, inst: LLVMValueRef) -> Result<Phi, String> {
        self.l.width_of(LLVMTypeOf(inst))?;
        let n = LLVMCountIncoming(inst);
        let mut incoming = Vec::with_capacity(n as usize);
        for i in 0..n {
            let v = self.operand(LLVMGetIncomingValue(inst, i))?;
            incoming.push((self.block(LLVMGetIncomingBlock(inst, i)), v));
        }
        Ok(Phi {
            dst: self.reg(inst),
            incoming,
        })
    }

    unsafe fn lower_terminator(
        &mut self,
        inst: LLVMValueRef,
        opcode: LLVMOpcode,
    ) -> Result<Terminator, String> {
        use LLVMOpcode::*;
        Ok(match opcode {
            LLVMRet => {
                if LLVMGetNumOperands(inst) == 0 {
                    Terminator::Ret(None)
                } else {
                    let v = LLVMGetOperand(inst, 0);
                    self.l.width_of(LLVMTypeOf(v))?;
                    Terminator::Ret(Some(self.operand(v)?))
                }
            }
            LLVMBr => {
                if LLVMIsConditional(inst) != 0 {
                    Terminator::CondBr {
                        cond: self.operand(LLVMGetCondition(inst))?,
                        then: self.block(LLVMGetSuccessor(inst, 0)),
                        els: self.block(LLVMGetSuccessor(inst, 1)),
                    }
                } else {
                    Terminator::Br(self.block(LLVMGetSuccessor(inst, 0)))
                }
            }
            LLVMSwitch => {
                let value = self.operand(LLVMGetOperand(inst, 0))?;
                let n = LLVMGetNumSuccessors(inst);
                let mut cases = Vec::new();
                for i in 1..n {
                    let k = self.l.const_int(LLVMGetOperand(inst, 2 * i))?;
                    cases.push((k.value, self.block(LLVMGetSuccessor(inst, i))));
                }
                Terminator::Switch {
                    value,
                    default: self.block(LLVMGetSwitchDefaultDest(inst)),
                    cases,
                }
            }
            LLVMUnreachable => Terminator::Unreachable,
            other => return Err(format!("terminator {}", opcode_name(other))),
        })
    }

    unsafe fn lower_inst(&mut self, inst: LLVMValueRef, opcode: LLVMOpcode) -> InstResult {
        use LLVMOpcode::*;
        let ty = LLVMTypeOf(inst);
        if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMVoidTypeKind {
            self.l
                .width_of(ty)
                .map_err(|e| format!("{} producing {e}", opcode_name(opcode)))?;
        }
        let first_is_vector = LLVMGetNumOperands(inst) > 0
            && LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(inst, 0)))
                == LLVMTypeKind::LLVMVectorTypeKind;
        let is_vector = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind || first_is_vector;
        if is_vector && opcode != LLVMCall && opcode != LLVMStore && opcode != LLVMLoad {
            return self.lower_vector(inst, opcode);
        }
        let op = |s: &mut Self, i: u32| s.operand(LLVMGetOperand(inst, i));
        if let Some(fop) = float_op(inst, opcode) {
            let n = LLVMGetNumOperands(inst) as u32;
            let mut args = Vec::with_capacity(n as usize);
            for i in 0..n {
                args.push(op(self, i)?);
            }
            return Ok(Inst::Float {
                dst: self.reg(inst),
                op: fop,
                args,
                width: self.l.width_of(ty)?,
                flags: flags(inst, opcode),
            });
        }
        if let Some(bop) = binary_op(opcode) {
            return Ok(Inst::Binary {
                dst: self.reg(inst),
                op: bop,
                lhs: op(self, 0)?,
                rhs: op(self, 1)?,
                flags: flags(inst, opcode),
            });
        }
        match opcode {
            LLVMICmp => {
                self.l.width_of(LLVMTypeOf(LLVMGetOperand(inst, 0)))?;
                Ok(Inst::ICmp {
                    dst: self.reg(inst),
                    pred: predicate(LLVMGetICmpPredicate(inst)),
                    lhs: op(self, 0)?,
                    rhs: op(self, 1)?,
                })
            }
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMIntToPtr => {
                let src_ty = LLVMTypeOf(LLVMGetOperand(inst, 0));
                let from = self.l.width_of(src_ty)?;
                let to = self.l.width_of(ty)?;
                let kind = match opcode {
                    LLVMSExt => CastKind::SExt,
                    _ if to > from => CastKind::ZExt,
                    _ if to < from => CastKind::Trunc,
                    _ => {
                        return Ok(Inst::Copy {
                            dst: self.reg(inst),
                            src: op(self, 0)?,
                        })
                    }
                };
                Ok(Inst::Cast {
                    dst: self.reg(inst),
                    kind,
                    src: op(self, 0)?,
                    width: to,
                    flags: flags(inst, opcode),
                })
            }
            LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze => {
                let operand = LLVMGetOperand(inst, 0);
                self.l.width_of(LLVMTypeOf(operand))?;
                let src = op(self, 0)?;
                // A frozen `undef` or `poison` is one arbitrary value: its register says so.
                if opcode == LLVMFreeze && !LLVMIsAUndefValue(operand).is_null() {
                    if let Some((Inst::Poison { frozen, .. }, _)) = self.poisons.last_mut() {
                        *frozen = true;
                    }
                }
                Ok(Inst::Copy {
                    dst: self.reg(inst),
                    src,
                })
            }
            LLVMSelect => {
                if LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(inst, 0)))
                    == LLVMTypeKind::LLVMVectorTypeKind
                {
                    return Err("select on vectors".into());
                }
                Ok(Inst::Select {
                    dst: self.reg(inst),
                    cond: op(self, 0)?,
                    then: op(self, 1)?,
                    els: op(self, 2)?,
                })
            }
            LLVMAlloca => {
                let allocated = LLVMGetAllocatedType(inst);
                if LLVMTypeIsSized(allocated) == 0 {
                    return Err("alloca of an unsized type".into());
                }
                Ok(Inst::Alloca {
                    dst: self.reg(inst),
                    size: LLVMABISizeOfType(self.l.td, allocated),
                    count: op(self, 0)?,
                })
            }
            LLVMLoad => {
                let width = self.l.width_of(ty)?;
                Ok(Inst::Load {
                    dst: self.reg(inst),
                    addr: op(self, 0)?,
                    bytes: LLVMStoreSizeOfType(self.l.td, ty) as u32,
                    width,
                    pointer: LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind,
                })
            }
            LLVMStore => {
                let vty = LLVMTypeOf(LLVMGetOperand(inst, 0));
                self.l.width_of(vty).map_err(|e| format!("store of {e}"))?;
                Ok(Inst::Store {
                    value: op(self, 0)?,
                    addr: op(self, 1)?,
                    bytes: LLVMStoreSizeOfType(self.l.td, vty) as u32,
                })
            }
            LLVMGetElementPtr => self.lower_gep(inst),
            LLVMExtractValue | LLVMInsertValue => self.lower_aggregate(inst, opcode),
            LLVMCall => self.lower_call(inst),
            LLVMFence => Ok(Inst::Intrinsic {
                dst: None,
                kind: Intrinsic::PassThrough,
                args: Vec::new(),
                width: 0,
            }),
            other => Err(format!("instruction '{}'", opcode_name(other))),
        }
    }

    /// Instructions over vectors of integers.
    unsafe fn lower_vector(&mut self, inst: LLVMValueRef, opcode: LLVMOpcode) -> InstResult {
        use LLVMOpcode::*;
        let ty = LLVMTypeOf(inst);
        let dst = self.reg(inst);
        let src_ty = LLVMTypeOf(LLVMGetOperand(inst, 0));
        let args = |s: &mut Self, n: u32| -> Result<Vec<Operand>, String> {
            (0..n).map(|i| s.operand(LLVMGetOperand(inst, i))).collect()
        };
        if let Some(fop) = float_op(inst, opcode) {
            let n = LLVMGetNumOperands(inst) as u32;
            let (_, to) = self.l.vector_shape(ty)?;
            self.l.width_of(ty)?;
            self.l.width_of(src_ty)?;
            let (lanes, elem) = self.l.vector_shape(src_ty)?;
            return Ok(Inst::Vector {
                dst,
                op: VectorOp::Float(fop, to),
                args: args(self, n)?,
                lanes,
                elem,
            });
        }
        let (op, shape_ty, n) = match (opcode, binary_op(opcode)) {
            (_, Some(bop)) => (VectorOp::Binary(bop), ty, 2),
            (LLVMICmp, _) => (
                VectorOp::ICmp(predicate(LLVMGetICmpPredicate(inst))),
                src_ty,
                2,
            ),
            (LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMIntToPtr, _) => {
                let (_, from) = self.l.vector_shape(src_ty)?;
                let (_, to) = self.l.vector_shape(ty)?;
                let kind = match opcode {
                    LLVMSExt => CastKind::SExt,
                    _ if to >= from => CastKind::ZExt,
                    _ => CastKind::Trunc,
                };
                (VectorOp::Cast(kind, to), src_ty, 1)
            }
            (LLVMBitCast | LLVMFreeze, _) => {
                self.l.width_of(src_ty)?;
                self.l.width_of(ty)?;
                return Ok(Inst::Copy {
                    dst,
                    src: self.operand(LLVMGetOperand(inst, 0))?,
                });
            }
            (LLVMSelect, _) => {
                if LLVMGetTypeKind(src_ty) != LLVMTypeKind::LLVMVectorTypeKind {
                    self.l.width_of(ty)?;
                    let a = args(self, 3)?;
                    return Ok(Inst::Select {
                        dst,
                        cond: a[0],
                        then: a[1],
                        els: a[2],
                    });
                }
                (VectorOp::Select, ty, 3)
            }
            (LLVMExtractElement, _) => {
                let (lanes, elem) = self.l.vector_shape(src_ty)?;
                self.l.width_of(src_ty)?;
                let a = args(self, 2)?;
                return Ok(Inst::ExtractElement {
                    dst,
                    vector: a[0],
                    index: a[1],
                    elem,
                    lanes,
                });
            }
            (LLVMInsertElement, _) => {
                let (lanes, elem) = self.l.vector_shape(ty)?;
                self.l.width_of(ty)?;
                let a = args(self, 3)?;
                return Ok(Inst::InsertElement {
                    dst,
                    vector: a[0],
                    value: a[1],
                    index: a[2],
                    elem,
                    lanes,
                });
            }
            (LLVMShuffleVector, _) => {
                let (_, elem) = self.l.vector_shape(ty)?;
                self.l.width_of(ty)?;
                self.l.width_of(src_ty)?;
                let n = LLVMGetNumMaskElements(inst);
                let undef = LLVMGetUndefMaskElem();
                let mask = (0..n)
                    .map(|i| {
                        let m = LLVMGetMaskValue(inst, i);
                        (m != undef && m >= 0).then_some(m as u32)
                    })
                    .collect();
                let a = args(self, 2)?;
                let (src_lanes, _) = self.l.vector_shape(src_ty)?;
                return Ok(Inst::Shuffle {
                    dst,
                    a: a[0],
                    b: a[1],
                    mask,
                    elem,
                    lanes: src_lanes,
                });
            }
            (other, _) => return Err(format!("instruction '{}' on vectors", opcode_name(other))),
        };
        self.l.width_of(ty)?;
        self.l.width_of(shape_ty)?;
        let (lanes, elem) = self.l.vector_shape(shape_ty)?;
        Ok(Inst::Vector {
            dst,
            op,
            args: args(self, n)?,
            lanes,
            elem,
        })
    }

    unsafe fn lower_gep(&mut self, inst: LLVMValueRef) -> InstResult {
        let base = self.operand(LLVMGetOperand(inst, 0))?;
        if LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMTypeKind::LLVMVectorTypeKind {
            return Err("getelementptr over vectors".into());
        }
        let mut ty = LLVMGetGEPSourceElementType(inst);
        let n = LLVMGetNumOperands(inst) as u32;
        let mut offset = 0i64;
        let mut indices = Vec::new();
        for i in 1..n {
            let v = LLVMGetOperand(inst, i);
            let scale;
            if i == 1 {
                scale = LLVMABISizeOfType(self.l.td, ty);
            } else {
                match LLVMGetTypeKind(ty) {
                    LLVMTypeKind::LLVMStructTypeKind => {
                        let k = self.l.const_int(v)?;
                        offset += LLVMOffsetOfElement(self.l.td, ty, k.value as u32) as i64;
                        ty = LLVMStructGetTypeAtIndex(ty, k.value as u32);
                        continue;
                    }
                    LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                        ty = LLVMGetElementType(ty);
                        scale = LLVMABISizeOfType(self.l.td, ty);
                    }
                    other => return Err(format!("getelementptr into {other:?}")),
                }
            }
            let index = self.operand(v)?;
            match index {
                Operand::Const(c) => {
                    let k = self.l.out.constant(c);
                    let idx = crate::expr::to_signed(k.width, k.value) as i64;
                    offset = offset.wrapping_add(idx.wrapping_mul(scale as i64));
                }
                Operand::Reg(_) => indices.push(GepIndex { index, scale }),
            }
        }
        Ok(Inst::Gep {
            dst: self.reg(inst),
            base,
            offset,
            indices,
        })
    }

    unsafe fn lower_aggregate(&mut self, inst: LLVMValueRef, opcode: LLVMOpcode) -> InstResult {
        let agg_v = LLVMGetOperand(inst, 0);
        let mut ty = LLVMTypeOf(agg_v);
        self.l.width_of(ty)?;
        let n = LLVMGetNumIndices(inst) as usize;
        let idx = std::slice::from_raw_parts(LLVMGetIndices(inst), n);
        let mut lo = 0u64;
        for &i in idx {
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMStructTypeKind => {
                    lo += LLVMOffsetOfElement(self.l.td, ty, i) * 8;
                    ty = LLVMStructGetTypeAtIndex(ty, i);
                }
                LLVMTypeKind::LLVMArrayTypeKind => {
                    ty = LLVMGetElementType(ty);
                    lo += i as u64 * LLVMABISizeOfType(self.l.td, ty) * 8;
                }
                other => return Err(format!("aggregate index into {other:?}")),
            }
        }
        let width = self.l.width_of(ty)?;
        let agg = self.operand(agg_v)?;
        if opcode == LLVMOpcode::LLVMExtractValue {
            Ok(Inst::ExtractValue {
                dst: self.reg(inst),
                agg,
                lo: lo as u32,
                width,
            })
        } else {
            Ok(Inst::InsertValue {
                dst: self.reg(inst),
                agg,
                value: self.operand(LLVMGetOperand(inst, 1))?,
                lo: lo as u32,
                width,
            })
        }
    }

    unsafe fn lower_call(&mut self, inst: LLVMValueRef) -> InstResult {
        let mut callee = LLVMGetCalledValue(inst);
        // Look through `bitcast (fn to other-fn-type)`, as emitted for K&R-style calls.
        while !LLVMIsAConstantExpr(callee).is_null()
            && LLVMGetConstOpcode(callee) == LLVMOpcode::LLVMBitCast
        {
            callee = LLVMGetOperand(callee, 0);
        }
        if !LLVMIsAInlineAsm(callee).is_null() {
            return self.lower_inline_asm(inst, callee);
        }
        let nargs = LLVMGetNumArgOperands(inst);
        let ty = LLVMTypeOf(inst);
        let dst = (LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMVoidTypeKind).then(|| self.reg(inst));
        let name = if LLVMIsAFunction(callee).is_null() {
            String::new()
        } else {
            value_name(callee)
        };
        if let Some(intrinsic) = name.strip_prefix("llvm.") {
            return self.lower_intrinsic_call(inst, intrinsic, dst, ty);
        }
        let mut args = Vec::with_capacity(nargs as usize);
        for i in 0..nargs {
            let v = LLVMGetOperand(inst, i);
            self.l
                .width_of(LLVMTypeOf(v))
                .map_err(|e| format!("call passing {e}"))?;
            args.push(self.operand(v)?);
        }
        // A C math function without a body whose meaning is one IEEE operation (clang keeps
        // `sqrt` a call for `errno`, which musl's math functions do not set), declared with
        // its C type: every operand and the result of one floating-point type.
        if !LLVMIsAFunction(callee).is_null() && LLVMCountBasicBlocks(callee) == 0 {
            let typed =
                is_float_type(ty) && (0..nargs).all(|i| LLVMTypeOf(LLVMGetOperand(inst, i)) == ty);
            if let (Some(op), Some(dst), true) =
                (float_function(crate::ir::split_name(&name).1), dst, typed)
            {
                if nargs as usize == op.arity() {
                    return Ok(Inst::Float {
                        dst,
                        op,
                        args,
                        width: self.l.width_of(ty)?,
                        flags: Flags::NONE,
                    });
                }
            }
        }
        let callee = match self.l.functions.get(&callee) {
            Some(&f) => Callee::Direct(f),
            None => Callee::Indirect(self.operand(callee)?),
        };
        Ok(Inst::Call { dst, callee, args })
    }

    /// Inline assembly with an empty template is a compiler barrier: `asm("" ::: "memory")`
    /// does nothing, and `asm("" : "+r"(x))` gives back its operand (musl and busybox use
    /// both to hide values from the optimizer). Any other assembly is unsupported.
    unsafe fn lower_inline_asm(&mut self, inst: LLVMValueRef, callee: LLVMValueRef) -> InstResult {
        let text = LLVMPrintValueToString(callee);
        let printed = CStr::from_ptr(text).to_string_lossy().into_owned();
        LLVMDisposeMessage(text);
        // Printed as `<type> asm [sideeffect] "<template>", "<constraints>"`.
        let template = printed
            .split_once(" asm ")
            .map(|(_, rest)| {
                rest.trim_start_matches("sideeffect ")
                    .trim_start_matches("alignstack ")
            })
            .and_then(|rest| rest.strip_prefix('"'))
            .and_then(|rest| rest.split_once('"'))
            .map(|(t, _)| t.to_string());
        let is_barrier = template
            .as_deref()
            .is_some_and(|t| t.trim().is_empty() || t.trim_start().starts_with('#'));
        if !is_barrier {
            return Err(format!(
                "inline assembly ({})",
                template.unwrap_or_else(|| "unreadable".into())
            ));
        }
        let nargs = LLVMGetNumArgOperands(inst);
        let ty = LLVMTypeOf(inst);
        if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVoidTypeKind {
            return Ok(Inst::Intrinsic {
                dst: None,
                kind: Intrinsic::PassThrough,
                args: Vec::new(),
                width: 0,
            });
        }
        if nargs == 1 && LLVMTypeOf(LLVMGetOperand(inst, 0)) == ty {
            return Ok(Inst::Copy {
                dst: self.reg(inst),
                src: self.operand(LLVMGetOperand(inst, 0))?,
            });
        }
        Err("inline assembly with outputs that are not its inputs".into())
    }
}

/// Whether attribute `name` is set at `index` of function `f` (1 = the first parameter).
unsafe fn has_attribute(f: LLVMValueRef, index: u32, name: &str) -> bool {
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
    kind != 0 && !LLVMGetEnumAttributeAtIndex(f, index, kind).is_null()
}

unsafe fn aggregate_element(c: LLVMValueRef, i: u32) -> Result<LLVMValueRef, String> {
    if !LLVMIsAConstantDataSequential(c).is_null() {
        return Ok(LLVMGetAggregateElement(c, i));
    }
    if !LLVMIsAConstantStruct(c).is_null()
        || !LLVMIsAConstantArray(c).is_null()
        || !LLVMIsAConstantVector(c).is_null()
    {
        return Ok(LLVMGetOperand(c, i));
    }
    Err(format!(
        "aggregate constant '{}' is not supported",
        print_value(c)
    ))
}

/// The operator of an integer binary instruction.
unsafe fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    let p = LLVMGetValueName2(v, &mut len);
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
}

pub(super) unsafe fn print_value(v: LLVMValueRef) -> String {
    let p = LLVMPrintValueToString(v);
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    LLVMDisposeMessage(p);
    s
}

unsafe fn type_string(t: LLVMTypeRef) -> String {
    let p = LLVMPrintTypeToString(t);
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    LLVMDisposeMessage(p);
    s
}

/// The 80-bit pattern of an `x86_fp80` constant, read from its printed form
/// (`x86_fp80 0xK3FFF8000000000000000`: LLVM prints these constants in hexadecimal only).
unsafe fn x87_constant(c: LLVMValueRef) -> Result<u128, String> {
    let text = print_value(c);
    text.rsplit_once("0xK")
        .and_then(|(_, hex)| u128::from_str_radix(hex.trim(), 16).ok())
        .ok_or_else(|| format!("cannot read constant '{text}'"))
}

/// Whether `ty` is a struct or an array.
unsafe fn is_aggregate(ty: LLVMTypeRef) -> bool {
    matches!(
        LLVMGetTypeKind(ty),
        LLVMTypeKind::LLVMStructTypeKind | LLVMTypeKind::LLVMArrayTypeKind
    )
}
