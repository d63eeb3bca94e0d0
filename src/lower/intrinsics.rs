//! Intrinsic calls as the IR's instructions: the table of the intrinsics the engine
//! implements (`Intrinsic`), their lanes on vectors, horizontal reductions, and the intrinsics
//! that become plain instructions (`ptrmask`, `objectsize`, `stacksave`).

use super::opcodes::float_function;
use super::{FunctionLowerer, InstResult};
use crate::ir::*;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMFastMathAllowReassoc, LLVMTypeKind};

impl FunctionLowerer<'_> {
    /// A call of intrinsic `llvm.NAME` (`name` without `llvm.`) returning `ty`.
    pub(super) unsafe fn lower_intrinsic_call(
        &mut self,
        inst: LLVMValueRef,
        name: &str,
        dst: Option<RegId>,
        ty: LLVMTypeRef,
    ) -> InstResult {
        let nargs = LLVMGetNumArgOperands(inst);
        let width = if dst.is_some() {
            self.l.width_of(ty)?
        } else {
            0
        };
        let mut args = Vec::new();
        for i in 0..nargs {
            let v = LLVMGetOperand(inst, i);
            if LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMTypeKind::LLVMMetadataTypeKind {
                continue;
            }
            args.push(self.operand(v)?);
        }
        let vector_arg = (0..nargs).any(|i| is_vector(LLVMGetOperand(inst, i)));
        if name.starts_with("vector.reduce.") || vector_arg {
            return self.lower_vector_intrinsic(name, inst, dst, args);
        }
        if let (Some(op), Some(dst)) = (float_function(name), dst) {
            if ![".f32", ".f64", ".f80"].iter().any(|s| name.ends_with(s)) {
                return Err(format!("intrinsic llvm.{name}"));
            }
            return Ok(Inst::Float {
                dst,
                op: self.fused(op),
                args,
                width,
                flags: Flags::NONE,
            });
        }
        self.lower_intrinsic(name, dst, args, width)
    }

    unsafe fn lower_vector_intrinsic(
        &mut self,
        name: &str,
        inst: LLVMValueRef,
        dst: Option<RegId>,
        args: Vec<Operand>,
    ) -> InstResult {
        let dst = dst.ok_or_else(|| format!("intrinsic llvm.{name} without result"))?;
        if let Some(rest) = name.strip_prefix("vector.reduce.") {
            return self.lower_reduce(name, rest, inst, dst, args);
        }
        let vty = LLVMTypeOf(LLVMGetOperand(inst, 0));
        self.l.width_of(vty)?;
        let (lanes, elem) = self.l.vector_shape(vty)?;
        // `llvm.vector.reverse` (`llvm.experimental.vector.reverse` before LLVM 19): lane i
        // of the result is lane `lanes - 1 - i` of the operand.
        if name.starts_with("vector.reverse.") || name.starts_with("experimental.vector.reverse.") {
            self.l.width_of(LLVMTypeOf(inst))?;
            return Ok(Inst::Shuffle {
                dst,
                a: args[0],
                b: args[0],
                mask: (0..lanes).rev().map(Some).collect(),
                elem,
                lanes,
            });
        }
        if let (Some(op), false) = (float_function(name), name.starts_with("vector.")) {
            return Ok(Inst::Vector {
                dst,
                op: VectorOp::Float(self.fused(op), elem),
                args,
                lanes,
                elem,
            });
        }
        // Scalar operands of a vector intrinsic (the `i1` of `ctlz`, `cttz` and `abs`) are
        // flags that do not change the result; the lanes come from the vector operands.
        let nargs = LLVMGetNumArgOperands(inst) as usize;
        let lane_args: Vec<Operand> = if args.len() == nargs {
            (0..nargs)
                .filter(|&i| is_vector(LLVMGetOperand(inst, i as u32)))
                .map(|i| args[i])
                .collect()
        } else {
            args.clone()
        };
        let result_elem = self.l.vector_shape(LLVMTypeOf(inst)).map(|(_, e)| e);
        let scalar = self.lower_intrinsic(name, Some(dst), args, elem)?;
        match scalar {
            Inst::Intrinsic { kind, .. }
                if !matches!(
                    kind,
                    Intrinsic::Memcpy
                        | Intrinsic::Memmove
                        | Intrinsic::Memset
                        | Intrinsic::Trap
                        | Intrinsic::VaStart
                        | Intrinsic::VaCopy
                        | Intrinsic::AddOverflow { .. }
                        | Intrinsic::SubOverflow { .. }
                        | Intrinsic::MulOverflow { .. }
                ) =>
            {
                self.l.width_of(LLVMTypeOf(inst))?;
                // `scmp`/`ucmp` lanes compute a result of the lanes' width only.
                if matches!(kind, Intrinsic::ThreeWayCmp { .. }) && result_elem != Ok(elem) {
                    return Err(format!("intrinsic llvm.{name} with a narrower result"));
                }
                Ok(Inst::Vector {
                    dst,
                    op: VectorOp::Intrinsic(kind),
                    args: lane_args,
                    lanes,
                    elem,
                })
            }
            _ => Err(format!("intrinsic llvm.{name} on vectors")),
        }
    }

    /// `llvm.vector.reduce.OP`: integer reductions in any order (they are associative);
    /// `fadd`/`fmul` only when ordered (no `reassoc` flag): the start value, then each lane
    /// from lane 0, with the scalar FP operation.
    unsafe fn lower_reduce(
        &mut self,
        name: &str,
        rest: &str,
        inst: LLVMValueRef,
        dst: RegId,
        args: Vec<Operand>,
    ) -> InstResult {
        let vector = *args
            .last()
            .ok_or_else(|| format!("llvm.{name} without operands"))?;
        let vty = LLVMTypeOf(LLVMGetOperand(inst, args.len() as u32 - 1));
        self.l.width_of(vty)?;
        let (lanes, elem) = self.l.vector_shape(vty)?;
        let op = reduce_op(name, rest, inst, elem, args.len())?;
        if let ReduceOp::Ordered(_) = op {
            return Ok(Inst::Reduce {
                dst,
                op,
                vector,
                start: Some(args[0]),
                elem,
                lanes,
            });
        }
        Ok(Inst::Reduce {
            dst,
            op,
            vector,
            start: None,
            elem,
            lanes,
        })
    }

    pub(super) fn lower_intrinsic(
        &mut self,
        name: &str,
        dst: Option<RegId>,
        args: Vec<Operand>,
        width: u32,
    ) -> InstResult {
        let base = name.split('.').next().unwrap_or(name);
        let kind = match base {
            "dbg" | "lifetime" | "assume" | "prefetch" | "donothing" | "var" | "annotation"
            | "stackrestore" | "sideeffect" | "invariant" => {
                return Ok(Inst::Intrinsic {
                    dst: None,
                    kind: Intrinsic::PassThrough,
                    args: Vec::new(),
                    width: 0,
                })
            }
            // Optimizer hints without a run-time meaning: aliasing scopes, and pointers
            // re-laundered for invariant groups (the pointer itself).
            "experimental" if name.starts_with("experimental.noalias.scope.decl") => {
                return Ok(Inst::Intrinsic {
                    dst: None,
                    kind: Intrinsic::PassThrough,
                    args: Vec::new(),
                    width: 0,
                })
            }
            "launder" | "strip" if name.contains("invariant.group") => Intrinsic::PassThrough,
            "va_start" => Intrinsic::VaStart,
            "va_copy" => Intrinsic::VaCopy,
            "load" if name.starts_with("load.relative.") => Intrinsic::LoadRelative,
            "va_end" => {
                return Ok(Inst::Intrinsic {
                    dst: None,
                    kind: Intrinsic::PassThrough,
                    args: Vec::new(),
                    width: 0,
                })
            }
            "memcpy" => Intrinsic::Memcpy,
            "memmove" => Intrinsic::Memmove,
            "memset" => Intrinsic::Memset,
            "sadd" | "uadd" | "ssub" | "usub" | "smul" | "umul"
                if name.contains("with.overflow") =>
            {
                let signed = base.starts_with('s');
                match &base[1..] {
                    "add" => Intrinsic::AddOverflow { signed },
                    "sub" => Intrinsic::SubOverflow { signed },
                    _ => Intrinsic::MulOverflow { signed },
                }
            }
            "sadd" | "uadd" if name.contains(".sat") => Intrinsic::AddSat {
                signed: base == "sadd",
            },
            "ssub" | "usub" if name.contains(".sat") => Intrinsic::SubSat {
                signed: base == "ssub",
            },
            "ctpop" => Intrinsic::Ctpop,
            "ctlz" => Intrinsic::Ctlz,
            "cttz" => Intrinsic::Cttz,
            "bswap" => Intrinsic::Bswap,
            "bitreverse" => Intrinsic::Bitreverse,
            "fshl" => Intrinsic::Fshl,
            "fshr" => Intrinsic::Fshr,
            "abs" => Intrinsic::Abs,
            "scmp" | "ucmp" => Intrinsic::ThreeWayCmp {
                signed: base == "scmp",
            },
            // `llvm.is.fpclass.f64(x, mask)`: the mask is a constant (`immarg`).
            "is" if name.starts_with("is.fpclass.") => {
                if !name.ends_with("f32") && !name.ends_with("f64") {
                    return Err(format!("intrinsic llvm.{name}"));
                }
                let mask = match args.get(1) {
                    Some(Operand::Const(c)) => self.l.out.constant(*c).value as u16 & 0x3ff,
                    _ => return Err(format!("intrinsic llvm.{name} with a variable mask")),
                };
                return Ok(Inst::Intrinsic {
                    dst,
                    kind: Intrinsic::FpClass { mask },
                    args: args[..1].to_vec(),
                    width,
                });
            }
            // The pointer with the bits cleared that the mask clears (x86-64 pointers are
            // plain 64-bit addresses, and the mask is as wide as the pointer).
            "ptrmask" => {
                let dst = dst.ok_or("ptrmask without result")?;
                if args.len() != 2 {
                    return Err(format!("intrinsic llvm.{name}"));
                }
                return Ok(Inst::Binary {
                    dst,
                    op: BinOp::And,
                    lhs: args[0],
                    rhs: args[1],
                    flags: Flags::NONE,
                });
            }
            "smin" => Intrinsic::SMin,
            "smax" => Intrinsic::SMax,
            "umin" => Intrinsic::UMin,
            "umax" => Intrinsic::UMax,
            // `llvm.threadlocal.address(@tls)`: one thread, so the variable's only instance.
            "expect" | "ptr" | "launder" | "strip" | "threadlocal" => Intrinsic::PassThrough,
            "trap" | "debugtrap" => Intrinsic::Trap,
            "objectsize" => {
                // Unknown size: -1 when asked for the maximum, 0 for the minimum.
                let dst = dst.ok_or("objectsize without result")?;
                let min = match args.get(1) {
                    Some(Operand::Const(c)) => self.l.out.constant(*c).value != 0,
                    _ => false,
                };
                let value = if min {
                    0
                } else {
                    crate::expr::mask(width, u128::MAX)
                };
                let c = self.l.constant(Constant { width, value });
                return Ok(Inst::Copy {
                    dst,
                    src: Operand::Const(c),
                });
            }
            "stacksave" => {
                let dst = dst.ok_or("stacksave without result")?;
                let c = self.l.constant(Constant { width, value: 0 });
                return Ok(Inst::Copy {
                    dst,
                    src: Operand::Const(c),
                });
            }
            _ => return Err(format!("intrinsic llvm.{name}")),
        };
        if kind == Intrinsic::PassThrough && dst.is_none() {
            return Ok(Inst::Intrinsic {
                dst: None,
                kind,
                args: Vec::new(),
                width: 0,
            });
        }
        Ok(Inst::Intrinsic {
            dst,
            kind,
            args,
            width,
        })
    }
}

/// Whether `v` is a vector.
unsafe fn is_vector(v: LLVMValueRef) -> bool {
    LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMTypeKind::LLVMVectorTypeKind
}

/// The operation of `llvm.vector.reduce.REST` (named `name`) over lanes of `elem` bits with
/// `nargs` arguments: the integer ones, or an ordered `fadd`/`fmul` (whose first argument is
/// the start value); a reassociating FP reduction is refused, its order of lanes unknown.
pub(super) unsafe fn reduce_op(
    name: &str,
    rest: &str,
    inst: LLVMValueRef,
    elem: u32,
    nargs: usize,
) -> Result<ReduceOp, String> {
    Ok(match rest.split('.').next().unwrap_or("") {
        "add" => ReduceOp::Add,
        "mul" => ReduceOp::Mul,
        "and" => ReduceOp::And,
        "or" => ReduceOp::Or,
        "xor" => ReduceOp::Xor,
        "smax" => ReduceOp::SMax,
        "smin" => ReduceOp::SMin,
        "umax" => ReduceOp::UMax,
        "umin" => ReduceOp::UMin,
        fp @ ("fadd" | "fmul") => {
            if !(elem == 32 || elem == 64) || nargs != 2 {
                return Err(format!("intrinsic llvm.{name}"));
            }
            let reassoc = LLVMCanValueUseFastMathFlags(inst) != 0
                && LLVMGetFastMathFlags(inst) & LLVMFastMathAllowReassoc != 0;
            if reassoc {
                return Err(format!(
                    "intrinsic llvm.{name} with reassoc (the order of the lanes is unknown)"
                ));
            }
            ReduceOp::Ordered(if fp == "fadd" {
                FpBinOp::Add
            } else {
                FpBinOp::Mul
            })
        }
        _ => return Err(format!("intrinsic llvm.{name}")),
    })
}
