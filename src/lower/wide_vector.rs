//! Vectors wider than 128 bits (`<8 x i32>`, `<4 x i64>`, `<4 x i128>`… that clang's loop
//! and SLP vectorizers make at `-O2`), legalized into one register per lane.
//!
//! The engine's values are bit-vectors of at most 128 bits, so a vector of more bits lives in
//! one register per lane: the register the first pass gave the instruction is lane 0, the
//! others are allocated when the value is first named (as the limbs of wide integers,
//! `wide.rs`). Each instruction that produces or reads such a vector becomes the scalar
//! instructions of its lanes: element-wise integer and floating-point operations,
//! comparisons, casts and `select`, intrinsics lane by lane (through the scalar lowering),
//! `extractelement`/`insertelement` (a chain of `select`s for a variable index),
//! `shufflevector` (copies), `phi` (one a lane), `load`/`store` (one a lane at its byte
//! offset), `bitcast` to and from wide integers or vectors of other lanes (bit ranges of the
//! parts, `Emit::extract`) and reductions (a fold over the lanes). Vectors of at most 128
//! bits that such instructions read or produce (an `<8 x i1>` comparison result, the halves
//! a shuffle joins) are split into lanes with `extractelement` and joined with
//! `insertelement`. What is left (lanes that are not whole bytes in memory, wide vectors
//! passed to or returned from calls, parameters and constant expressions of wide vectors)
//! stays `Inst::Unsupported`, naming the operation and the type.

use super::intrinsics::reduce_op;
use super::wide::{limb_widths, Emit, Limbs};
use super::{
    aggregate_element, binary_op, float_op, opcode_name, predicate, type_string, FunctionLowerer,
};
use crate::ir::*;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// Whether `ty` is a vector of more than 128 bits.
pub(super) unsafe fn is_wide_vector(ty: LLVMTypeRef) -> bool {
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMVectorTypeKind {
        return false;
    }
    let elem = LLVMGetElementType(ty);
    let bits = match LLVMGetTypeKind(elem) {
        LLVMTypeKind::LLVMIntegerTypeKind => LLVMGetIntTypeWidth(elem),
        LLVMTypeKind::LLVMPointerTypeKind => PTR_WIDTH,
        LLVMTypeKind::LLVMFloatTypeKind => 32,
        LLVMTypeKind::LLVMDoubleTypeKind => 64,
        _ => 128,
    };
    u64::from(LLVMGetVectorSize(ty)) * u64::from(bits) > u64::from(crate::expr::MAX_WIDTH)
}

/// Whether `inst` produces or reads a vector of more than 128 bits.
pub(super) unsafe fn involves_wide_vector(inst: LLVMValueRef) -> bool {
    is_wide_vector(LLVMTypeOf(inst))
        || (0..LLVMGetNumOperands(inst) as u32)
            .any(|i| is_wide_vector(LLVMTypeOf(LLVMGetOperand(inst, i))))
}

unsafe fn is_vector(ty: LLVMTypeRef) -> bool {
    LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind
}

impl FunctionLowerer<'_> {
    /// Lowers an instruction that produces or reads a vector wider than 128 bits.
    pub(super) unsafe fn lower_wide_vector(
        &mut self,
        inst: LLVMValueRef,
        opcode: LLVMOpcode,
    ) -> Vec<Inst> {
        let mut e = Emit {
            f: self,
            out: Vec::new(),
        };
        match e.wide_vector(inst, opcode) {
            Ok(()) => e.out,
            Err(what) => vec![Inst::Unsupported { what }],
        }
    }

    /// A `phi` of a wide vector: one a lane.
    pub(super) unsafe fn lower_vector_phis(
        &mut self,
        inst: LLVMValueRef,
    ) -> Result<Vec<Phi>, String> {
        let (lanes, _) = self.l.vector_shape(LLVMTypeOf(inst))?;
        let mut phis: Vec<Phi> = self
            .lane_regs(inst, lanes)
            .into_iter()
            .map(|dst| Phi {
                dst,
                incoming: Vec::new(),
            })
            .collect();
        for i in 0..LLVMCountIncoming(inst) {
            let block = self.block(LLVMGetIncomingBlock(inst, i));
            let v = LLVMGetIncomingValue(inst, i);
            if !LLVMIsAArgument(v).is_null() {
                return Err(format!(
                    "parameter of type {} (wider than 128 bits)",
                    type_string(LLVMTypeOf(v))
                ));
            }
            let ops = if self.regs.contains_key(&v) {
                self.lane_regs(v, lanes)
                    .into_iter()
                    .map(Operand::Reg)
                    .collect()
            } else {
                self.constant_lanes(v)?
            };
            for (phi, op) in phis.iter_mut().zip(ops) {
                phi.incoming.push((block, op));
            }
        }
        Ok(phis)
    }

    /// The registers of the lanes of the wide vector `v`.
    fn lane_regs(&mut self, v: LLVMValueRef, lanes: u32) -> Vec<RegId> {
        if let Some(regs) = self.wide.get(&v) {
            return regs.clone();
        }
        let mut regs = vec![self.regs[&v]];
        for _ in 1..lanes {
            regs.push(RegId(self.num_regs));
            self.num_regs += 1;
        }
        self.wide.insert(v, regs.clone());
        regs
    }

    /// The lanes of a constant wide vector.
    unsafe fn constant_lanes(&mut self, v: LLVMValueRef) -> Result<Vec<Operand>, String> {
        let ty = LLVMTypeOf(v);
        let (lanes, elem) = self.l.vector_shape(ty)?;
        let zero = !LLVMIsAUndefValue(v).is_null() || !LLVMIsAConstantAggregateZero(v).is_null();
        let mut ops = Vec::with_capacity(lanes as usize);
        for i in 0..lanes {
            let k = if zero {
                Constant {
                    width: elem,
                    value: 0,
                }
            } else if !LLVMIsAConstantDataSequential(v).is_null()
                || !LLVMIsAConstantVector(v).is_null()
            {
                self.l.const_int(aggregate_element(v, i)?)?
            } else {
                return Err(format!(
                    "{} constant '{}' (wider than 128 bits)",
                    type_string(ty),
                    super::print_value(v)
                ));
            };
            ops.push(Operand::Const(self.l.constant(k)));
        }
        Ok(ops)
    }
}

impl Emit<'_, '_> {
    /// The lanes of vector operand `v`, each `elem` bits wide.
    unsafe fn lanes(&mut self, v: LLVMValueRef) -> Result<Limbs, String> {
        let ty = LLVMTypeOf(v);
        let (lanes, elem) = self.f.l.vector_shape(ty)?;
        let widths = vec![elem; lanes as usize];
        if !is_wide_vector(ty) {
            let whole = self.f.operand(v)?;
            let ops = (0..lanes)
                .map(|i| {
                    let dst = self.temp();
                    let index = self.constant(32, i as u128);
                    self.out.push(Inst::ExtractElement {
                        dst,
                        vector: whole,
                        index,
                        elem,
                        lanes,
                    });
                    Operand::Reg(dst)
                })
                .collect();
            return Ok(Limbs { ops, widths });
        }
        if !LLVMIsAArgument(v).is_null() {
            return Err(format!(
                "parameter of type {} (wider than 128 bits)",
                type_string(ty)
            ));
        }
        let ops = if self.f.regs.contains_key(&v) {
            let regs = self.f.lane_regs(v, lanes);
            regs.into_iter().map(Operand::Reg).collect()
        } else {
            self.f.constant_lanes(v)?
        };
        Ok(Limbs { ops, widths })
    }

    /// The registers the lanes of vector result `inst` go to: its own when it is wide, new
    /// ones joined by `finish` otherwise.
    unsafe fn dest(&mut self, inst: LLVMValueRef) -> Result<Vec<RegId>, String> {
        let ty = LLVMTypeOf(inst);
        let (lanes, _) = self.f.l.vector_shape(ty)?;
        if is_wide_vector(ty) {
            return Ok(self.f.lane_regs(inst, lanes));
        }
        self.f.l.width_of(ty)?;
        Ok((0..lanes).map(|_| self.temp()).collect())
    }

    /// Joins the lanes `regs` into the register of `inst` when its vector has at most 128
    /// bits (its lanes were computed apart).
    unsafe fn finish(&mut self, inst: LLVMValueRef, regs: &[RegId]) -> Result<(), String> {
        let ty = LLVMTypeOf(inst);
        if is_wide_vector(ty) {
            return Ok(());
        }
        let (lanes, elem) = self.f.l.vector_shape(ty)?;
        let mut acc = self.constant(lanes * elem, 0);
        for (i, &r) in regs.iter().enumerate() {
            let index = self.constant(32, i as u128);
            let dst = if i + 1 == regs.len() {
                self.f.reg(inst)
            } else {
                self.temp()
            };
            self.out.push(Inst::InsertElement {
                dst,
                vector: acc,
                value: Operand::Reg(r),
                index,
                elem,
                lanes,
            });
            acc = Operand::Reg(dst);
        }
        Ok(())
    }

    /// `base + offset` into a new register.
    fn offset(&mut self, base: Operand, offset: i64) -> Operand {
        if offset == 0 {
            return base;
        }
        let dst = self.temp();
        self.out.push(Inst::Gep {
            dst,
            base,
            offset,
            indices: Vec::new(),
        });
        Operand::Reg(dst)
    }

    /// The lanes of every operand of `inst` in `0..n` that is a vector (`None` for the
    /// others).
    unsafe fn operand_lanes(
        &mut self,
        inst: LLVMValueRef,
        n: u32,
    ) -> Result<Vec<Option<Limbs>>, String> {
        (0..n)
            .map(|i| {
                let v = LLVMGetOperand(inst, i);
                if is_vector(LLVMTypeOf(v)) {
                    self.lanes(v).map(Some)
                } else {
                    Ok(None)
                }
            })
            .collect()
    }

    unsafe fn wide_vector(&mut self, inst: LLVMValueRef, opcode: LLVMOpcode) -> Result<(), String> {
        use LLVMOpcode::*;
        let ty = LLVMTypeOf(inst);
        let op = |i| LLVMGetOperand(inst, i);
        // The widest vector the instruction names, for messages.
        let named = (0..LLVMGetNumOperands(inst) as u32)
            .map(|i| LLVMTypeOf(op(i)))
            .chain(std::iter::once(ty))
            .find(|&t| is_wide_vector(t))
            .map(|t| type_string(t))
            .unwrap_or_default();
        let unsupported = || format!("{} on {named} (wider than 128 bits)", opcode_name(opcode));
        let result_elem = if is_vector(ty) {
            self.f.l.vector_shape(ty)?.1
        } else {
            0
        };
        match opcode {
            LLVMLoad => {
                let (lanes, elem) = self.f.l.vector_shape(ty)?;
                if elem % 8 != 0 {
                    return Err(format!("load of {named} (lanes not whole bytes)"));
                }
                let addr = self.f.operand(op(0))?;
                let pointer =
                    LLVMGetTypeKind(LLVMGetElementType(ty)) == LLVMTypeKind::LLVMPointerTypeKind;
                let dst = self.f.lane_regs(inst, lanes);
                for (i, &dst) in dst.iter().enumerate() {
                    let addr = self.offset(addr, i as i64 * (elem / 8) as i64);
                    self.out.push(Inst::Load {
                        dst,
                        addr,
                        bytes: elem / 8,
                        width: elem,
                        pointer,
                    });
                }
            }
            LLVMStore => {
                let value = self.lanes(op(0))?;
                let elem = value.widths[0];
                if elem % 8 != 0 {
                    return Err(format!("store of {named} (lanes not whole bytes)"));
                }
                let addr = self.f.operand(op(1))?;
                for (i, &v) in value.ops.iter().enumerate() {
                    let addr = self.offset(addr, i as i64 * (elem / 8) as i64);
                    self.out.push(Inst::Store {
                        value: v,
                        addr,
                        bytes: elem / 8,
                    });
                }
            }
            _ if float_op(inst, opcode).is_some() => {
                let fop = float_op(inst, opcode).unwrap_or(FloatOp::Neg);
                let n = LLVMGetNumOperands(inst) as u32;
                let args = self.operand_lanes(inst, n)?;
                let dst = self.dest(inst)?;
                for (i, &d) in dst.iter().enumerate() {
                    let args = args
                        .iter()
                        .map(|a| a.as_ref().map(|l| l.ops[i]).ok_or_else(unsupported))
                        .collect::<Result<_, _>>()?;
                    self.out.push(Inst::Float {
                        dst: d,
                        op: fop,
                        args,
                        width: result_elem,
                        flags: super::flags(inst, opcode),
                    });
                }
                self.finish(inst, &dst)?;
            }
            _ if binary_op(opcode).is_some() => {
                let bop = binary_op(opcode).unwrap_or(BinOp::Add);
                let (a, b) = (self.lanes(op(0))?, self.lanes(op(1))?);
                let dst = self.dest(inst)?;
                for (i, &d) in dst.iter().enumerate() {
                    self.binary(bop, a.ops[i], b.ops[i], Some(d));
                }
                self.finish(inst, &dst)?;
            }
            LLVMICmp => {
                let pred = predicate(LLVMGetICmpPredicate(inst));
                let (a, b) = (self.lanes(op(0))?, self.lanes(op(1))?);
                let dst = self.dest(inst)?;
                for (i, &d) in dst.iter().enumerate() {
                    self.out.push(Inst::ICmp {
                        dst: d,
                        pred,
                        lhs: a.ops[i],
                        rhs: b.ops[i],
                    });
                }
                self.finish(inst, &dst)?;
            }
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMIntToPtr => {
                let a = self.lanes(op(0))?;
                let from = a.widths[0];
                let dst = self.dest(inst)?;
                for (i, &d) in dst.iter().enumerate() {
                    let kind = match opcode {
                        LLVMSExt => Some(CastKind::SExt),
                        _ if result_elem > from => Some(CastKind::ZExt),
                        _ if result_elem < from => Some(CastKind::Trunc),
                        _ => None,
                    };
                    self.out.push(match kind {
                        Some(kind) => Inst::Cast {
                            dst: d,
                            kind,
                            src: a.ops[i],
                            width: result_elem,
                            flags: super::flags(inst, opcode),
                        },
                        None => Inst::Copy {
                            dst: d,
                            src: a.ops[i],
                        },
                    });
                }
                self.finish(inst, &dst)?;
            }
            LLVMBitCast | LLVMFreeze => self.bitcast(inst)?,
            LLVMSelect => {
                let cond_v = op(0);
                let cond = if is_vector(LLVMTypeOf(cond_v)) {
                    Err(self.lanes(cond_v)?)
                } else {
                    Ok(self.f.operand(cond_v)?)
                };
                let (a, b) = (self.lanes(op(1))?, self.lanes(op(2))?);
                let dst = self.dest(inst)?;
                for (i, &d) in dst.iter().enumerate() {
                    let cond = match &cond {
                        Ok(c) => *c,
                        Err(lanes) => lanes.ops[i],
                    };
                    self.out.push(Inst::Select {
                        dst: d,
                        cond,
                        then: a.ops[i],
                        els: b.ops[i],
                    });
                }
                self.finish(inst, &dst)?;
            }
            LLVMExtractElement => {
                let v = self.lanes(op(0))?;
                let index = self.f.operand(op(1))?;
                let iw = self.f.l.width_of(LLVMTypeOf(op(1)))?;
                let dst = self.f.reg(inst);
                let src = self.pick(&v, index, iw);
                self.out.push(Inst::Copy { dst, src });
            }
            LLVMInsertElement => {
                let v = self.lanes(op(0))?;
                let value = self.f.operand(op(1))?;
                let index = self.f.operand(op(2))?;
                let iw = self.f.l.width_of(LLVMTypeOf(op(2)))?;
                let dst = self.dest(inst)?;
                for (i, &d) in dst.iter().enumerate() {
                    let src = match index {
                        Operand::Const(c) => {
                            if self.f.l.out.constant(c).value == i as u128 {
                                value
                            } else {
                                v.ops[i]
                            }
                        }
                        Operand::Reg(_) => {
                            let k = self.constant(iw, i as u128);
                            let hit = self.icmp(Predicate::Eq, index, k);
                            let t = self.temp();
                            self.out.push(Inst::Select {
                                dst: t,
                                cond: hit,
                                then: value,
                                els: v.ops[i],
                            });
                            Operand::Reg(t)
                        }
                    };
                    self.out.push(Inst::Copy { dst: d, src });
                }
                self.finish(inst, &dst)?;
            }
            LLVMShuffleVector => {
                let (a, b) = (self.lanes(op(0))?, self.lanes(op(1))?);
                let both: Vec<Operand> = a.ops.iter().chain(&b.ops).copied().collect();
                let dst = self.dest(inst)?;
                let undef = LLVMGetUndefMaskElem();
                for (i, &d) in dst.iter().enumerate() {
                    let m = LLVMGetMaskValue(inst, i as u32);
                    let src = if m == undef || m < 0 || m as usize >= both.len() {
                        self.constant(result_elem, 0)
                    } else {
                        both[m as usize]
                    };
                    self.out.push(Inst::Copy { dst: d, src });
                }
                self.finish(inst, &dst)?;
            }
            LLVMCall => {
                let callee = LLVMGetCalledValue(inst);
                let name = if LLVMIsAFunction(callee).is_null() {
                    String::new()
                } else {
                    super::value_name(callee)
                };
                match name.strip_prefix("llvm.") {
                    Some(intrinsic) => self.intrinsic(inst, intrinsic)?,
                    None => {
                        return Err(format!(
                            "call passing or returning {named} (wider than 128 bits)"
                        ))
                    }
                }
            }
            _ => return Err(unsupported()),
        }
        Ok(())
    }

    /// Lane `index` of `v`: the lane itself for a constant index (0 out of range, where the
    /// result is poison), a chain of `select`s for a variable one (of `iw` bits).
    fn pick(&mut self, v: &Limbs, index: Operand, iw: u32) -> Operand {
        let elem = v.widths[0];
        match index {
            Operand::Const(c) => {
                let i = self.f.l.out.constant(c).value;
                match v.ops.get(i as usize) {
                    Some(&op) if i < v.ops.len() as u128 => op,
                    _ => self.constant(elem, 0),
                }
            }
            Operand::Reg(_) => {
                let mut acc = v.ops[0];
                for (i, &lane) in v.ops.iter().enumerate().skip(1) {
                    let k = self.constant(iw, i as u128);
                    let hit = self.icmp(Predicate::Eq, index, k);
                    let t = self.temp();
                    self.out.push(Inst::Select {
                        dst: t,
                        cond: hit,
                        then: lane,
                        els: acc,
                    });
                    acc = Operand::Reg(t);
                }
                acc
            }
        }
    }

    /// `bitcast` (and `freeze`) between a wide vector and a vector of other lanes or a wide
    /// integer: each part of the result is a bit range of the operand's parts.
    unsafe fn bitcast(&mut self, inst: LLVMValueRef) -> Result<(), String> {
        let v = LLVMGetOperand(inst, 0);
        let src = if is_vector(LLVMTypeOf(v)) {
            self.lanes(v)?
        } else {
            self.f.limbs(v)?
        };
        let ty = LLVMTypeOf(inst);
        let (dst, widths) = if is_vector(ty) {
            let (lanes, elem) = self.f.l.vector_shape(ty)?;
            (self.dest(inst)?, vec![elem; lanes as usize])
        } else if super::wide::is_wide(ty) {
            let n = LLVMGetIntTypeWidth(ty);
            (self.f.wide_regs(inst, n), limb_widths(n))
        } else {
            return Err(format!(
                "bitcast of {} to {}",
                type_string(LLVMTypeOf(v)),
                type_string(ty)
            ));
        };
        if src.widths == widths {
            for (&d, &s) in dst.iter().zip(&src.ops) {
                self.out.push(Inst::Copy { dst: d, src: s });
            }
        } else {
            let mut lo = 0i64;
            for (&d, &w) in dst.iter().zip(&widths) {
                self.extract(&src, lo, w, false, d);
                lo += w as i64;
            }
        }
        if is_vector(ty) {
            self.finish(inst, &dst)?;
        }
        Ok(())
    }

    /// A call of intrinsic `llvm.NAME` with a wide vector operand or result: reductions fold
    /// the lanes; the others apply the scalar intrinsic to each lane.
    unsafe fn intrinsic(&mut self, inst: LLVMValueRef, name: &str) -> Result<(), String> {
        let nargs = LLVMGetNumArgOperands(inst);
        let ty = LLVMTypeOf(inst);
        if let Some(rest) = name.strip_prefix("vector.reduce.") {
            return self.reduce(inst, name, rest);
        }
        if !is_vector(ty) {
            return Err(format!("intrinsic llvm.{name} on vectors"));
        }
        let (_, result_elem) = self.f.l.vector_shape(ty)?;
        if name.starts_with("vector.reverse.") || name.starts_with("experimental.vector.reverse.") {
            let a = self.lanes(LLVMGetOperand(inst, 0))?;
            let dst = self.dest(inst)?;
            for (&d, &s) in dst.iter().zip(a.ops.iter().rev()) {
                self.out.push(Inst::Copy { dst: d, src: s });
            }
            return self.finish(inst, &dst);
        }
        if name.starts_with("vector.") || name.starts_with("experimental.") {
            return Err(format!("intrinsic llvm.{name} on vectors"));
        }
        let mut args: Vec<Option<Limbs>> = Vec::new();
        let mut scalars: Vec<Option<Operand>> = Vec::new();
        for i in 0..nargs {
            let v = LLVMGetOperand(inst, i);
            if LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMTypeKind::LLVMMetadataTypeKind {
                continue;
            }
            if is_vector(LLVMTypeOf(v)) {
                args.push(Some(self.lanes(v)?));
                scalars.push(None);
            } else {
                args.push(None);
                scalars.push(Some(self.f.operand(v)?));
            }
        }
        let float = super::float_function(name).map(|op| self.f.fused(op));
        let dst = self.dest(inst)?;
        for (i, &d) in dst.iter().enumerate() {
            let lane_args: Vec<Operand> = args
                .iter()
                .zip(&scalars)
                .filter_map(|(a, s)| a.as_ref().map(|l| l.ops[i]).or(*s))
                .collect();
            if let Some(op) = float {
                self.out.push(Inst::Float {
                    dst: d,
                    op,
                    args: lane_args,
                    width: result_elem,
                    flags: Flags::NONE,
                });
                continue;
            }
            match self
                .f
                .lower_intrinsic(name, Some(d), lane_args, result_elem)?
            {
                lane @ Inst::Intrinsic {
                    kind:
                        Intrinsic::AddSat { .. }
                        | Intrinsic::SubSat { .. }
                        | Intrinsic::Ctpop
                        | Intrinsic::Ctlz
                        | Intrinsic::Cttz
                        | Intrinsic::Bswap
                        | Intrinsic::Bitreverse
                        | Intrinsic::Fshl
                        | Intrinsic::Fshr
                        | Intrinsic::Abs
                        | Intrinsic::ThreeWayCmp { .. }
                        | Intrinsic::FpClass { .. }
                        | Intrinsic::SMin
                        | Intrinsic::SMax
                        | Intrinsic::UMin
                        | Intrinsic::UMax,
                    ..
                } => self.out.push(lane),
                _ => return Err(format!("intrinsic llvm.{name} on vectors")),
            }
        }
        self.finish(inst, &dst)
    }

    /// `llvm.vector.reduce.OP` over a wide vector: the lanes folded from lane 0 (integer
    /// reductions are associative; `fadd`/`fmul` only when ordered, from the start value).
    unsafe fn reduce(&mut self, inst: LLVMValueRef, name: &str, rest: &str) -> Result<(), String> {
        let nargs = LLVMGetNumArgOperands(inst);
        let v = self.lanes(LLVMGetOperand(inst, nargs - 1))?;
        let elem = v.widths[0];
        let dst = self.f.reg(inst);
        let how: Result<BinOp, Intrinsic> = match reduce_op(name, rest, inst, elem, nargs as usize)?
        {
            ReduceOp::Add => Ok(BinOp::Add),
            ReduceOp::Mul => Ok(BinOp::Mul),
            ReduceOp::And => Ok(BinOp::And),
            ReduceOp::Or => Ok(BinOp::Or),
            ReduceOp::Xor => Ok(BinOp::Xor),
            ReduceOp::SMax => Err(Intrinsic::SMax),
            ReduceOp::SMin => Err(Intrinsic::SMin),
            ReduceOp::UMax => Err(Intrinsic::UMax),
            ReduceOp::UMin => Err(Intrinsic::UMin),
            ReduceOp::Ordered(op) => {
                let op = FloatOp::Binary(op);
                let mut acc = self.f.operand(LLVMGetOperand(inst, 0))?;
                for &lane in &v.ops {
                    let t = self.temp();
                    self.out.push(Inst::Float {
                        dst: t,
                        op,
                        args: vec![acc, lane],
                        width: elem,
                        flags: Flags::NONE,
                    });
                    acc = Operand::Reg(t);
                }
                self.out.push(Inst::Copy { dst, src: acc });
                return Ok(());
            }
        };
        let mut acc = v.ops[0];
        for &lane in &v.ops[1..] {
            acc = match how {
                Ok(bop) => self.binary(bop, acc, lane, None),
                Err(kind) => {
                    let t = self.temp();
                    self.out.push(Inst::Intrinsic {
                        dst: Some(t),
                        kind,
                        args: vec![acc, lane],
                        width: elem,
                    });
                    Operand::Reg(t)
                }
            };
        }
        self.out.push(Inst::Copy { dst, src: acc });
        Ok(())
    }
}
