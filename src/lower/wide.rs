//! Integers wider than 128 bits (clang's `i160` loads of packed bit-fields), legalized into
//! limbs of at most 128 bits.
//!
//! The engine's values are bit-vectors of at most 128 bits, so a value of type `iN` with
//! N > 128 lives in ⌈N/128⌉ registers: limb `i` holds bits `[128·i, 128·i + wᵢ)`, every limb
//! 128 bits wide but the last. The register the first pass gave the instruction is limb 0;
//! the others are allocated when the value is first named (a φ can use a value before its
//! definition). Each wide instruction becomes a short sequence of narrow ones:
//! `load`/`store` limb by limb at offsets of 16 bytes, `and`/`or`/`xor` and `select` limb by
//! limb, `add`/`sub` with a carry, `icmp` lexicographically from the top limb, and shifts by
//! constant amounts and `trunc`/`zext`/`sext` as extractions of a bit range (`extract`),
//! the one primitive that moves bits between limbs. What is left (`mul`, division, shifts by
//! a variable amount, calls and returns of wide values, wide constant expressions) stays
//! `Inst::Unsupported`, naming the operation and the type.

use super::{opcode_name, predicate, print_value, FunctionLowerer};
use crate::ir::*;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::LLVMStoreSizeOfType;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// Bits of a full limb.
const LIMB: u32 = 128;

/// The widths of the limbs of an `n`-bit value (one limb when `n` ≤ 128).
pub fn limb_widths(n: u32) -> Vec<u32> {
    let mut widths = vec![LIMB; n.div_ceil(LIMB).max(1) as usize - 1];
    widths.push(n - LIMB * widths.len() as u32);
    widths
}

/// Whether `ty` is an integer type wider than the engine's values.
pub(super) unsafe fn is_wide(ty: LLVMTypeRef) -> bool {
    LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMIntegerTypeKind
        && LLVMGetIntTypeWidth(ty) > crate::expr::MAX_WIDTH
}

/// The bits of an integer given by its limbs: narrow values are one limb.
#[derive(Clone, Debug)]
pub(super) struct Limbs {
    pub(super) ops: Vec<Operand>,
    pub(super) widths: Vec<u32>,
}

/// The value of a `ConstantInt` of `width` bits as limbs (`limb_widths(width)`), read from
/// its printed decimal form `iN <decimal>` when it is wider than 64 bits.
pub(super) unsafe fn const_int_limbs(c: LLVMValueRef, width: u32) -> Result<Vec<u128>, String> {
    if width <= 64 {
        return Ok(vec![LLVMConstIntGetZExtValue(c) as u128]);
    }
    let text = print_value(c);
    let digits = text.rsplit(' ').next().unwrap_or("");
    decimal_limbs(digits, width).ok_or_else(|| format!("cannot read constant '{text}'"))
}

/// A decimal literal (with an optional `-`) as the limbs of a `width`-bit two's complement
/// value; `None` when it is not one.
pub fn decimal_limbs(text: &str, width: u32) -> Option<Vec<u128>> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Little-endian 64-bit words, one more than the width needs (higher digits are dropped).
    let mut words = vec![0u64; width.div_ceil(64) as usize + 1];
    for d in digits.bytes() {
        let mut carry = (d - b'0') as u128;
        for w in words.iter_mut() {
            let v = *w as u128 * 10 + carry;
            *w = v as u64;
            carry = v >> 64;
        }
    }
    if negative {
        let mut carry = 1u128;
        for w in words.iter_mut() {
            let v = (!*w) as u128 + carry;
            *w = v as u64;
            carry = v >> 64;
        }
    }
    let mut limbs = Vec::new();
    for (i, w) in limb_widths(width).into_iter().enumerate() {
        let value = words[2 * i] as u128 | (*words.get(2 * i + 1).unwrap_or(&0) as u128) << 64;
        limbs.push(crate::expr::mask(w, value));
    }
    Some(limbs)
}

/// Where the bits of an extraction come from: limb `index`, moved by `shift` bits towards
/// the top of the result (negative: towards the bottom).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub index: usize,
    pub shift: i64,
}

/// The pieces whose union is bits `[lo, lo + w)` of a value with limbs `widths` (bits below
/// 0 are zero; bits above the top are zero, or copies of the sign bit when `signed`).
/// A piece of the top limb of a signed value is sign-extended; its shift towards the
/// bottom never exceeds the limb's width less one, which leaves copies of the sign bit.
pub fn pieces(widths: &[u32], lo: i64, w: u32, signed: bool) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut start = 0i64;
    for (index, &lw) in widths.iter().enumerate() {
        let top = index + 1 == widths.len();
        // The limb's bit 0 lands at bit `d` of the result.
        let d = start - lo;
        start += lw as i64;
        if d >= w as i64 {
            continue;
        }
        let shift = if signed && top {
            d.max(1 - lw as i64)
        } else if d + lw as i64 <= 0 {
            continue;
        } else {
            d
        };
        out.push(Piece { index, shift });
    }
    out
}

/// One wide instruction's expansion.
pub(super) struct Emit<'f, 'a> {
    pub(super) f: &'f mut FunctionLowerer<'a>,
    pub(super) out: Vec<Inst>,
}

impl FunctionLowerer<'_> {
    /// Lowers a `phi`: one per limb when its type is wide.
    pub(super) unsafe fn lower_phis(&mut self, inst: LLVMValueRef) -> Result<Vec<Phi>, String> {
        let ty = LLVMTypeOf(inst);
        if !is_wide(ty) {
            return Ok(vec![self.lower_phi(inst)?]);
        }
        let dst = self.wide_regs(inst, LLVMGetIntTypeWidth(ty));
        let mut phis: Vec<Phi> = dst
            .iter()
            .map(|&dst| Phi {
                dst,
                incoming: Vec::new(),
            })
            .collect();
        for i in 0..LLVMCountIncoming(inst) {
            let block = self.block(LLVMGetIncomingBlock(inst, i));
            let limbs = self.limbs(LLVMGetIncomingValue(inst, i))?;
            for (phi, op) in phis.iter_mut().zip(limbs.ops) {
                phi.incoming.push((block, op));
            }
        }
        Ok(phis)
    }

    /// Lowers a non-terminator: several instructions when it produces or reads a wide integer.
    pub(super) unsafe fn lower_insts(
        &mut self,
        inst: LLVMValueRef,
        opcode: LLVMOpcode,
    ) -> Vec<Inst> {
        let wide = is_wide(LLVMTypeOf(inst))
            || (0..LLVMGetNumOperands(inst) as u32)
                .any(|i| is_wide(LLVMTypeOf(LLVMGetOperand(inst, i))));
        let lowered = if wide {
            let mut e = Emit {
                f: self,
                out: Vec::new(),
            };
            e.lower(inst, opcode).map(|()| e.out)
        } else {
            self.lower_inst(inst, opcode).map(|i| vec![i])
        };
        lowered.unwrap_or_else(|what| vec![Inst::Unsupported { what }])
    }

    /// The registers of the limbs of the wide value `v` of `n` bits.
    pub(super) fn wide_regs(&mut self, v: LLVMValueRef, n: u32) -> Vec<RegId> {
        if let Some(regs) = self.wide.get(&v) {
            return regs.clone();
        }
        let mut regs = vec![self.regs[&v]];
        for _ in 1..limb_widths(n).len() {
            regs.push(RegId(self.num_regs));
            self.num_regs += 1;
        }
        self.wide.insert(v, regs.clone());
        regs
    }

    /// The limbs of an integer operand of any width.
    pub(super) unsafe fn limbs(&mut self, v: LLVMValueRef) -> Result<Limbs, String> {
        let ty = LLVMTypeOf(v);
        if !is_wide(ty) {
            let width = self.l.width_of(ty)?;
            return Ok(Limbs {
                ops: vec![self.operand(v)?],
                widths: vec![width],
            });
        }
        let n = LLVMGetIntTypeWidth(ty);
        let widths = limb_widths(n);
        if self.regs.contains_key(&v) {
            if !LLVMIsAArgument(v).is_null() {
                return Err(format!("parameter of type i{n} (wider than 128 bits)"));
            }
            let ops = self.wide_regs(v, n).into_iter().map(Operand::Reg).collect();
            return Ok(Limbs { ops, widths });
        }
        let values = if !LLVMIsAConstantInt(v).is_null() {
            const_int_limbs(v, n)?
        } else if !LLVMIsAUndefValue(v).is_null() || !LLVMIsAConstantAggregateZero(v).is_null() {
            vec![0; widths.len()]
        } else {
            return Err(format!(
                "constant '{}' of type i{n} (wider than 128 bits)",
                print_value(v)
            ));
        };
        let ops = values
            .into_iter()
            .zip(&widths)
            .map(|(value, &width)| Operand::Const(self.l.constant(Constant { width, value })))
            .collect();
        Ok(Limbs { ops, widths })
    }
}

impl Emit<'_, '_> {
    pub(super) fn temp(&mut self) -> RegId {
        let r = RegId(self.f.num_regs);
        self.f.num_regs += 1;
        r
    }

    pub(super) fn constant(&mut self, width: u32, value: u128) -> Operand {
        Operand::Const(self.f.l.constant(Constant { width, value }))
    }

    /// `lhs op rhs` into a new register (or `dst`).
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        lhs: Operand,
        rhs: Operand,
        dst: Option<RegId>,
    ) -> Operand {
        let dst = dst.unwrap_or_else(|| self.temp());
        self.out.push(Inst::Binary {
            dst,
            op,
            lhs,
            rhs,
            flags: Flags::NONE,
        });
        Operand::Reg(dst)
    }

    pub(super) fn icmp(&mut self, pred: Predicate, lhs: Operand, rhs: Operand) -> Operand {
        let dst = self.temp();
        self.out.push(Inst::ICmp {
            dst,
            pred,
            lhs,
            rhs,
        });
        Operand::Reg(dst)
    }

    /// `src` of `from` bits as `to` bits (zero- or sign-extended, or truncated).
    fn resize(&mut self, src: Operand, from: u32, to: u32, signed: bool) -> Operand {
        let kind = match from.cmp(&to) {
            std::cmp::Ordering::Equal => return src,
            std::cmp::Ordering::Greater => CastKind::Trunc,
            std::cmp::Ordering::Less if signed => CastKind::SExt,
            std::cmp::Ordering::Less => CastKind::ZExt,
        };
        let dst = self.temp();
        self.out.push(Inst::Cast {
            dst,
            kind,
            src,
            width: to,
            flags: Flags::NONE,
        });
        Operand::Reg(dst)
    }

    /// Bits `[lo, lo + w)` of `src` into `dst` (see `pieces`).
    pub(super) fn extract(&mut self, src: &Limbs, lo: i64, w: u32, signed: bool, dst: RegId) {
        let mut acc: Option<Operand> = None;
        for Piece { index, shift } in pieces(&src.widths, lo, w, signed) {
            let lw = src.widths[index];
            let top_signed = signed && index + 1 == src.widths.len();
            let mut v = src.ops[index];
            if shift < 0 {
                let op = if top_signed { BinOp::AShr } else { BinOp::LShr };
                let amount = self.constant(lw, shift.unsigned_abs() as u128);
                v = self.binary(op, v, amount, None);
            }
            v = self.resize(v, lw, w, top_signed);
            if shift > 0 {
                let amount = self.constant(w, shift as u128);
                v = self.binary(BinOp::Shl, v, amount, None);
            }
            acc = Some(match acc {
                None => v,
                Some(a) => self.binary(BinOp::Or, a, v, None),
            });
        }
        let src = acc.unwrap_or_else(|| self.constant(w, 0));
        self.out.push(Inst::Copy { dst, src });
    }

    unsafe fn lower(&mut self, inst: LLVMValueRef, opcode: LLVMOpcode) -> Result<(), String> {
        use LLVMOpcode::*;
        let ty = LLVMTypeOf(inst);
        let op = |i| LLVMGetOperand(inst, i);
        // The widest integer the instruction names, for messages.
        let n = (0..LLVMGetNumOperands(inst) as u32)
            .map(|i| LLVMTypeOf(op(i)))
            .chain(std::iter::once(ty))
            .filter(|&t| is_wide(t))
            .map(|t| LLVMGetIntTypeWidth(t))
            .max()
            .unwrap_or(0);
        let unsupported = || format!("{} on i{n} (wider than 128 bits)", opcode_name(opcode));
        match opcode {
            LLVMLoad if is_wide(ty) => {
                let addr = self.f.operand(op(0))?;
                let size = LLVMStoreSizeOfType(self.f.l.td, ty) as u32;
                let dst = self.f.wide_regs(inst, n);
                for (i, (&dst, width)) in dst.iter().zip(limb_widths(n)).enumerate() {
                    let addr = self.limb_address(addr, i);
                    self.out.push(Inst::Load {
                        dst,
                        addr,
                        bytes: (size - 16 * i as u32).min(16),
                        width,
                        pointer: false,
                    });
                }
            }
            LLVMStore if is_wide(LLVMTypeOf(op(0))) => {
                let value = self.f.limbs(op(0))?;
                let addr = self.f.operand(op(1))?;
                let size = LLVMStoreSizeOfType(self.f.l.td, LLVMTypeOf(op(0))) as u32;
                for (i, &v) in value.ops.iter().enumerate() {
                    let addr = self.limb_address(addr, i);
                    self.out.push(Inst::Store {
                        value: v,
                        addr,
                        bytes: (size - 16 * i as u32).min(16),
                    });
                }
            }
            LLVMAnd | LLVMOr | LLVMXor | LLVMAdd | LLVMSub => {
                let (a, b) = (self.f.limbs(op(0))?, self.f.limbs(op(1))?);
                let dst = self.f.wide_regs(inst, n);
                match opcode {
                    LLVMAdd => self.add(&a, &b, &dst, false),
                    LLVMSub => self.add(&a, &b, &dst, true),
                    _ => {
                        let bop = match opcode {
                            LLVMAnd => BinOp::And,
                            LLVMOr => BinOp::Or,
                            _ => BinOp::Xor,
                        };
                        for ((&dst, &x), &y) in dst.iter().zip(&a.ops).zip(&b.ops) {
                            self.binary(bop, x, y, Some(dst));
                        }
                    }
                }
            }
            LLVMShl | LLVMLShr | LLVMAShr => {
                let a = self.f.limbs(op(0))?;
                let amount = self.f.limbs(op(1))?;
                let amount = match amount.ops[..] {
                    [Operand::Const(lo), ref rest @ ..]
                        if rest.iter().all(|r| {
                            matches!(r, Operand::Const(c) if self.f.l.out.constant(*c).value == 0)
                        }) =>
                    {
                        self.f.l.out.constant(lo).value.min(n as u128) as i64
                    }
                    _ => {
                        return Err(format!(
                            "{} of i{n} by a variable amount (wider than 128 bits)",
                            opcode_name(opcode)
                        ))
                    }
                };
                let dst = self.f.wide_regs(inst, n);
                let mut lo = 0i64;
                for (&dst, w) in dst.iter().zip(limb_widths(n)) {
                    match opcode {
                        LLVMShl => self.extract(&a, lo - amount, w, false, dst),
                        LLVMLShr => self.extract(&a, lo + amount, w, false, dst),
                        _ => self.extract(&a, lo + amount, w, true, dst),
                    }
                    lo += w as i64;
                }
            }
            LLVMTrunc | LLVMZExt | LLVMSExt => {
                let a = self.f.limbs(op(0))?;
                let to = LLVMGetIntTypeWidth(ty);
                let dst = if is_wide(ty) {
                    self.f.wide_regs(inst, to)
                } else {
                    vec![self.f.reg(inst)]
                };
                let mut lo = 0i64;
                for (&dst, w) in dst.iter().zip(limb_widths(to)) {
                    self.extract(&a, lo, w, opcode == LLVMSExt, dst);
                    lo += w as i64;
                }
            }
            LLVMICmp => {
                let (a, b) = (self.f.limbs(op(0))?, self.f.limbs(op(1))?);
                let pred = predicate(LLVMGetICmpPredicate(inst));
                let result = self.compare(pred, &a, &b);
                let dst = self.f.reg(inst);
                self.out.push(Inst::Copy { dst, src: result });
            }
            LLVMSelect if is_wide(ty) && !is_vector(LLVMTypeOf(op(0))) => {
                let cond = self.f.operand(op(0))?;
                let (a, b) = (self.f.limbs(op(1))?, self.f.limbs(op(2))?);
                let dst = self.f.wide_regs(inst, n);
                for (i, &dst) in dst.iter().enumerate() {
                    self.out.push(Inst::Select {
                        dst,
                        cond,
                        then: a.ops[i],
                        els: b.ops[i],
                    });
                }
            }
            LLVMBitCast | LLVMFreeze if is_wide(ty) && is_wide(LLVMTypeOf(op(0))) => {
                let a = self.f.limbs(op(0))?;
                let dst = self.f.wide_regs(inst, n);
                for (&dst, &src) in dst.iter().zip(&a.ops) {
                    self.out.push(Inst::Copy { dst, src });
                }
            }
            _ => return Err(unsupported()),
        }
        Ok(())
    }

    /// The address of limb `i` of a wide value in memory at `addr` (16 bytes a limb).
    pub(super) fn limb_address(&mut self, addr: Operand, i: usize) -> Operand {
        if i == 0 {
            return addr;
        }
        let dst = self.temp();
        self.out.push(Inst::Gep {
            dst,
            base: addr,
            offset: 16 * i as i64,
            indices: Vec::new(),
        });
        Operand::Reg(dst)
    }

    /// `a + b` (or `a - b`) into `dst`, limb by limb with a carry (a borrow).
    fn add(&mut self, a: &Limbs, b: &Limbs, dst: &[RegId], subtract: bool) {
        let op = if subtract { BinOp::Sub } else { BinOp::Add };
        let mut carry: Option<Operand> = None;
        for i in 0..dst.len() {
            let w = a.widths[i];
            let last = i + 1 == dst.len();
            // The first limb's sum is final; the others still take the carry.
            let first = carry.is_none().then_some(dst[i]);
            let partial = self.binary(op, a.ops[i], b.ops[i], first);
            // Out of this limb: a + b wrapped (the sum is below a), a - b borrowed (a < b).
            let mut out = (!last).then(|| {
                let (x, y) = if subtract {
                    (a.ops[i], b.ops[i])
                } else {
                    (partial, a.ops[i])
                };
                self.icmp(Predicate::Ult, x, y)
            });
            if let Some(c) = carry {
                let c = self.resize(c, 1, w, false);
                let total = self.binary(op, partial, c, Some(dst[i]));
                if !last {
                    // Adding (subtracting) the carry wrapped: the total is below (the
                    // partial result is below) the carry.
                    let (x, y) = if subtract { (partial, c) } else { (total, c) };
                    let again = self.icmp(Predicate::Ult, x, y);
                    out = out.map(|o| self.binary(BinOp::Or, o, again, None));
                }
            }
            carry = out;
        }
    }

    /// `a pred b` on limbs as an `i1`: equality limb by limb, orders lexicographically from
    /// the top limb (signed there for signed predicates, unsigned below).
    fn compare(&mut self, pred: Predicate, a: &Limbs, b: &Limbs) -> Operand {
        use Predicate::*;
        let k = a.ops.len();
        if matches!(pred, Eq | Ne) {
            let joint = if pred == Eq { BinOp::And } else { BinOp::Or };
            // A wide integer has at least two limbs.
            let mut acc = self.icmp(pred, a.ops[0], b.ops[0]);
            for i in 1..k {
                let c = self.icmp(pred, a.ops[i], b.ops[i]);
                acc = self.binary(joint, acc, c, None);
            }
            return acc;
        }
        let unsigned = |p: Predicate| match p {
            Sgt => Ugt,
            Sge => Uge,
            Slt => Ult,
            Sle => Ule,
            p => p,
        };
        let strict = |p: Predicate| match p {
            Uge => Ugt,
            Ule => Ult,
            Sge => Sgt,
            Sle => Slt,
            p => p,
        };
        // The lowest limb decides with the predicate itself; each limb above decides
        // strictly, or defers to the limbs below when equal.
        let mut acc = self.icmp(
            if k == 1 { pred } else { unsigned(pred) },
            a.ops[0],
            b.ops[0],
        );
        for i in 1..k {
            let p = if i + 1 == k {
                strict(pred)
            } else {
                strict(unsigned(pred))
            };
            let decided = self.icmp(p, a.ops[i], b.ops[i]);
            let equal = self.icmp(Eq, a.ops[i], b.ops[i]);
            let deferred = self.binary(BinOp::And, equal, acc, None);
            acc = self.binary(BinOp::Or, decided, deferred, None);
        }
        acc
    }
}

unsafe fn is_vector(ty: LLVMTypeRef) -> bool {
    LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limb_widths_cover_the_value() {
        assert_eq!(limb_widths(8), vec![8]);
        assert_eq!(limb_widths(128), vec![128]);
        assert_eq!(limb_widths(160), vec![128, 32]);
        assert_eq!(limb_widths(256), vec![128, 128]);
        assert_eq!(limb_widths(257), vec![128, 128, 1]);
    }

    #[test]
    fn pieces_name_the_limbs_an_extraction_reads() {
        let p = |index, shift| Piece { index, shift };
        // Bits 60..188 of an i160: limb 0 moved down 60, limb 1 up 68.
        assert_eq!(
            pieces(&[128, 32], 60, 128, false),
            vec![p(0, -60), p(1, 68)]
        );
        // Bits 170..298 of an i160 lie above it: zero, or its sign bit (limb 1 down 31).
        assert_eq!(pieces(&[128, 32], 170, 128, false), vec![]);
        assert_eq!(pieces(&[128, 32], 170, 128, true), vec![p(1, -31)]);
        assert_eq!(pieces(&[128, 32], 130, 128, false), vec![p(1, -2)]);
        // A shift left by 3: the top limb's bits 0..5 land above bit 125 of the result.
        assert_eq!(pieces(&[128, 72], -3, 128, false), vec![p(0, 3)]);
        assert_eq!(
            pieces(&[128, 72], 125, 72, false),
            vec![p(0, -125), p(1, 3)]
        );
    }

    #[test]
    fn decimal_literals_become_limbs() {
        assert_eq!(decimal_limbs("5", 160), Some(vec![5, 0]));
        let big = (1u128 << 120).to_string();
        assert_eq!(decimal_limbs(&big, 160), Some(vec![1 << 120, 0]));
        // 2^140 + 7.
        assert_eq!(
            decimal_limbs("1393796574908163946345982392040522594123783", 160),
            Some(vec![7, 1 << 12])
        );
        assert_eq!(
            decimal_limbs("-1", 160),
            Some(vec![u128::MAX, u32::MAX as u128])
        );
        assert_eq!(decimal_limbs("12a", 160), None);
        assert_eq!(decimal_limbs("", 160), None);
    }
}
