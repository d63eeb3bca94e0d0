//! The interpreter: the semantics of each instruction, written once.
//!
//! An instruction that cannot fork or end the path (with the operands it has) runs on the
//! state in place (`Executor::step_in_place`, which says [`Stepped`] `Ran` or `Owned`); the
//! interpreter's loop and [`Executor::step`] both run it, so the state is moved only for the
//! others. Those take the state by value and return it if it keeps running; a state that
//! forks leaves its siblings in `Executor::pending`, one that ends goes through
//! `Executor::finish`. Concrete operands are computed on integers directly.
//!
//! A shift whose count may reach the width goes to `undefined.rs`: its result there is a
//! fresh value (`--ub report`, function checks) or x86-64's (`--ub machine`, programs), never
//! a failure at the shift, because at -O2 clang emits such shifts speculatively under a
//! `select` that discards them. Division by zero, which is immediate undefined behaviour in
//! LLVM, is a checked error, and so is signed division of the minimum by -1 where x86-64
//! traps on it ([`overflow_traps`]).

use crate::exec::executor::{Executor, Exit, Offset, MAX_ALLOCATION};
use crate::exec::memory::ObjectKind;
use crate::exec::state::{State, Stepped, Termination};
use crate::exec::undefined::{is_shift, UbMode};
use crate::exec::value::Value;
use crate::expr::{eval_float, fold_binary, mask, to_signed, BinOp, ExprId, FpCmp, INDEX_WIDTH};
use crate::ir::*;

impl<'a> Executor<'a> {
    /// Executes the next instruction of `state`: in place when it cannot fork or end the
    /// path ([`Executor::step_in_place`]), otherwise by value ([`Executor::step_owned`]).
    pub fn step(&mut self, mut state: State) -> Option<State> {
        match self.step_in_place(&mut state) {
            Stepped::Ran => Some(state),
            Stepped::Owned => self.step_owned(state),
        }
    }

    /// Runs the next instruction of `state` on it in place, unless it may fork or end the
    /// path or the state may have to park at a merge point. The interpreter's loop calls
    /// this first and [`Executor::step_owned`] only when it says [`Stepped::Owned`], so that
    /// the state is not moved per instruction.
    pub(crate) fn step_in_place(&mut self, state: &mut State) -> Stepped {
        if state.frame().pc == 0 && !state.markers.is_empty() {
            return Stepped::Owned;
        }
        self.run_in_place(state)
    }

    /// The semantics of every instruction that cannot fork or end the path: arithmetic
    /// (division only by a nonzero constant), comparisons, casts, `select`, address
    /// arithmetic, aggregates, loads and stores at a concrete address wholly inside one
    /// writable object, and branches on a concrete condition.
    fn run_in_place(&mut self, state: &mut State) -> Stepped {
        let module = self.module;
        let frame = state.frame();
        let func = module.function(frame.func);
        let block = &func.blocks[frame.block.index()];
        let pc = frame.pc;
        if pc == block.insts.len() {
            let target = match &block.term {
                Terminator::Br(t) => *t,
                Terminator::CondBr { cond, then, els } => match self.operand(state, *cond) {
                    Value::Con { bits, .. } => {
                        if bits != 0 {
                            *then
                        } else {
                            *els
                        }
                    }
                    Value::Sym(_) => return Stepped::Owned,
                },
                Terminator::Switch {
                    value,
                    default,
                    cases,
                } => match self.operand(state, *value) {
                    Value::Con { bits, .. } => cases
                        .iter()
                        .find(|(k, _)| *k == bits)
                        .map_or(*default, |&(_, b)| b),
                    Value::Sym(_) => return Stepped::Owned,
                },
                _ => return Stepped::Owned,
            };
            let from = frame.block;
            self.count(state);
            state.loc = Some(block.term_loc);
            self.enter_block(state, from, target);
            return Stepped::Ran;
        }
        let result = match &block.insts[pc] {
            Inst::Binary {
                dst,
                op,
                lhs,
                rhs,
                flags,
            } => {
                let b = self.operand(state, *rhs);
                let may_trap = matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem)
                    && !matches!(b, Value::Con { width, bits }
                        if bits != 0 && !(overflow_traps(*op, width) && bits == mask(width, !0)));
                // A shift by a count that may reach the width: its result is undefined there.
                let may_overshift = is_shift(*op)
                    && !matches!(b, Value::Con { width, bits } if bits < width as u128);
                if may_trap || may_overshift {
                    return Stepped::Owned;
                }
                let a = self.operand(state, *lhs);
                let r = self.binop(*op, a, b);
                // A flag that may fail makes the result poison there (`--ub report`).
                let mut r = r;
                if self.config.ub == UbMode::Report {
                    if flags.any() {
                        state.loc = Some(block.locs[pc]);
                        r = self.record_flagged(state, *op, *flags, (a, b), r);
                    }
                    super::ub::link_absorbed(self.pool, state, (a, b), r);
                }
                Some((*dst, r))
            }
            Inst::ICmp {
                dst,
                pred,
                lhs,
                rhs,
            } => {
                let (a, b) = (self.operand(state, *lhs), self.operand(state, *rhs));
                Some((*dst, self.compare(*pred, a, b)))
            }
            Inst::Cast {
                dst,
                kind,
                src,
                width,
                flags,
            } => {
                let a = self.operand(state, *src);
                let mut r = self.cast(*kind, a, *width);
                // `zext nneg` of a negative value, a `trunc nuw`/`nsw` that changes the
                // value, are poison (`--ub report`).
                if flags.any() && self.config.ub == UbMode::Report {
                    state.loc = Some(block.locs[pc]);
                    let (op, b) = super::undefined::cast_flag_operands(*kind, *width);
                    let b = Value::concrete(a.width(self.pool), b);
                    r = self.record_flagged(state, op, *flags, (a, b), r);
                }
                Some((*dst, r))
            }
            Inst::Copy { dst, src } => Some((*dst, self.operand(state, *src))),
            Inst::Float {
                dst,
                op,
                args,
                width,
                flags,
            } => {
                let mut r = self.float(state, *op, args, *width);
                // A float converted to an integer that cannot hold it is poison (`--ub
                // report`; x86-64's integer indefinite otherwise).
                if matches!(op, FloatOp::ToSInt | FloatOp::ToUInt)
                    && self.config.ub == UbMode::Report
                {
                    state.loc = Some(block.locs[pc]);
                    r = self.conversion_poison(state, *op, args[0], *width, r);
                }
                // `uitofp nneg` of a negative value is poison (`--ub report`).
                if flags.nneg && self.config.ub == UbMode::Report {
                    state.loc = Some(block.locs[pc]);
                    let a = self.operand(state, args[0]);
                    let zero = Value::concrete(a.width(self.pool), 0);
                    let op = super::undefined::UITOFP_NNEG;
                    r = self.record_flagged(state, op, *flags, (a, zero), r);
                }
                Some((*dst, r))
            }
            Inst::Select {
                dst,
                cond,
                then,
                els,
            } => {
                let c = self.operand(state, *cond);
                let (t, e) = (self.operand(state, *then), self.operand(state, *els));
                Some((*dst, self.select(c, t, e)))
            }
            Inst::Gep {
                dst,
                base,
                offset,
                indices,
            } => Some((*dst, self.gep_value(state, *base, *offset, indices))),
            Inst::ExtractValue {
                dst,
                agg,
                lo,
                width,
            } => Some((*dst, self.extract(self.operand(state, *agg), *lo, *width))),
            Inst::InsertValue {
                dst,
                agg,
                value,
                lo,
                width,
            } => {
                let (a, v) = (self.operand(state, *agg), self.operand(state, *value));
                Some((*dst, self.insert_value(a, v, *lo, *width)))
            }
            // Outside its range the value is poison (`--ub report`); the machine keeps it.
            Inst::InRange { reg, ranges, of } => {
                if self.config.ub == UbMode::Report {
                    state.loc = Some(block.locs[pc]);
                    let v = self.operand(state, Operand::Reg(*reg));
                    Some((*reg, self.record_out_of_range(state, v, ranges, *of)))
                } else {
                    None
                }
            }
            // Any value: zero under `--ub machine`, a fresh one (by value) under `--ub report`.
            Inst::Poison { dst, width, .. } if self.config.ub == UbMode::Machine => {
                Some((*dst, Value::concrete(*width, 0)))
            }
            Inst::Load {
                dst,
                addr,
                bytes,
                width,
                pointer,
            } => {
                let Value::Con { bits, .. } = self.operand(state, *addr) else {
                    return Stepped::Owned;
                };
                let Some((object, contents)) = state.memory.find(bits as u64) else {
                    return Stepped::Owned;
                };
                let (size, offset) = (object.size, bits as u64 - object.address);
                if u64::from(*bytes) > size
                    || offset > size - u64::from(*bytes)
                    || contents.any_unwritten(offset as usize, *bytes as usize)
                {
                    return Stepped::Owned;
                }
                // Concrete bytes: one lookup, no expression.
                if let Some(v) = contents.concrete_value(offset as usize, *bytes as usize) {
                    Some((*dst, Value::concrete(*width, v)))
                } else {
                    let base = object.address;
                    let v = self.read(state, base, Offset::Concrete(offset), *bytes);
                    if *pointer && !v.is_concrete() {
                        // A symbolic pointer: `exec_load` decides whether the model can hold it.
                        return Stepped::Owned;
                    }
                    Some((*dst, self.resize(v, *width)))
                }
            }
            Inst::Store { value, addr, bytes } => {
                let Value::Con { bits, .. } = self.operand(state, *addr) else {
                    return Stepped::Owned;
                };
                let Some((object, _)) = state.memory.find(bits as u64) else {
                    return Stepped::Owned;
                };
                let (base, size, offset) =
                    (object.address, object.size, bits as u64 - object.address);
                if u64::from(*bytes) > size || offset > size - u64::from(*bytes) || object.read_only
                {
                    return Stepped::Owned;
                }
                let v = self.operand(state, *value);
                self.write(state, base, Offset::Concrete(offset), v, *bytes);
                None
            }
            _ => return Stepped::Owned,
        };
        self.count(state);
        state.loc = Some(block.locs[pc]);
        let frame = state.frame_mut();
        frame.pc += 1;
        if let Some((dst, v)) = result {
            frame.regs.set(dst.index(), v);
        }
        Stepped::Ran
    }

    /// Counts one instruction run by `state`.
    fn count(&mut self, state: &mut State) {
        state.instructions += 1;
        state.since_new_coverage += 1;
        self.stats.instructions += 1;
    }

    /// The instruction [`Executor::step_in_place`] left: one that may fork or end the path
    /// (or whose operands make it so, as a division by a symbolic value), run with the state
    /// by value; or the first of a block where the state may park at a merge point. The
    /// state is returned if it goes on; states it forked wait in `Executor::pending`.
    pub(crate) fn step_owned(&mut self, mut state: State) -> Option<State> {
        if state.frame().pc == 0 && !state.markers.is_empty() {
            // `step_in_place` left the block's first instruction for the merge point.
            state = self.maybe_park(state)?;
            if self.run_in_place(&mut state) == Stepped::Ran {
                return Some(state);
            }
        }
        let module = self.module;
        let frame = state.frame();
        let func = module.function(frame.func);
        let block = &func.blocks[frame.block.index()];
        let pc = frame.pc;
        self.count(&mut state);
        if pc == block.insts.len() {
            state.loc = Some(block.term_loc);
            return self.exec_terminator(state, &block.term);
        }
        state.loc = Some(block.locs[pc]);
        state.frame_mut().pc += 1;
        match &block.insts[pc] {
            Inst::Binary {
                dst,
                op,
                lhs,
                rhs,
                flags,
            } => self.exec_binary(state, *dst, *op, (*lhs, *rhs), *flags),
            Inst::Alloca { dst, size, count } => self.exec_alloca(state, *dst, *size, *count),
            Inst::Load {
                dst,
                addr,
                bytes,
                width,
                pointer,
            } => self.exec_load(state, *dst, *addr, *bytes, *width, *pointer),
            Inst::Store { value, addr, bytes } => self.exec_store(state, *value, *addr, *bytes),
            Inst::Call { dst, callee, args } => self.exec_call(state, *dst, callee, args),
            Inst::Intrinsic {
                dst,
                kind,
                args,
                width,
            } => self.exec_intrinsic(state, *dst, *kind, args, *width),
            Inst::Vector {
                dst,
                op,
                args,
                lanes,
                elem,
            } => self.exec_vector(state, *dst, *op, args, *lanes, *elem),
            Inst::ExtractElement {
                dst,
                vector,
                index,
                elem,
                lanes,
            } => self.exec_extract_element(state, *dst, *vector, *index, *elem, *lanes),
            Inst::InsertElement {
                dst,
                vector,
                value,
                index,
                elem,
                lanes,
            } => self.exec_insert_element(state, *dst, *vector, *value, *index, (*elem, *lanes)),
            Inst::Shuffle {
                dst,
                a,
                b,
                mask,
                elem,
                lanes,
            } => self.exec_shuffle(state, *dst, *a, *b, mask, (*elem, *lanes)),
            Inst::Reduce {
                dst,
                op,
                vector,
                start,
                elem,
                lanes,
            } => self.exec_reduce(state, *dst, (*op, *start), *vector, *elem, *lanes),
            Inst::Unsupported { what } => {
                self.unsupported(state, what);
                None
            }
            Inst::Poison {
                dst,
                width,
                poison,
                frozen,
            } => {
                let mut state = state;
                let what = match (*poison, *frozen) {
                    (_, true) => "frozen undef or poison (any value)",
                    (true, false) => "poison constant",
                    (false, false) => "undef constant",
                };
                let zero = Value::concrete(*width, 0);
                let v = self.undefined_where(&mut state, self.pool.true_(), zero, what);
                self.set(&mut state, *dst, v);
                Some(state)
            }
            Inst::ICmp { .. }
            | Inst::InRange { .. }
            | Inst::Cast { .. }
            | Inst::Copy { .. }
            | Inst::Float { .. }
            | Inst::Select { .. }
            | Inst::Gep { .. }
            | Inst::ExtractValue { .. }
            | Inst::InsertValue { .. } => {
                unreachable!("`run_in_place` runs every {:?}", block.insts[pc])
            }
        }
    }

    /// The value of an operand in the current frame.
    pub fn operand(&self, state: &State, op: Operand) -> Value {
        match op {
            Operand::Reg(r) => state.frame().regs.get(r.index()),
            Operand::Const(c) => {
                let k = self.module.constant(c);
                Value::Con {
                    width: k.width,
                    bits: k.value,
                }
            }
        }
    }

    pub fn set(&self, state: &mut State, dst: RegId, v: Value) {
        state.frame_mut().regs.set(dst.index(), v);
    }

    /// `e` as a value (concrete when it folded to a constant).
    pub fn value(&self, e: ExprId) -> Value {
        Value::from_expr(self.pool, e)
    }

    /// A binary operation [`Executor::run_in_place`] left: a division or remainder that may
    /// trap (the paths where it does fail: [`Executor::division_traps`]), a shift by a count
    /// that may reach the width ([`Executor::shift_value`]), or an operation whose
    /// poison-producing flags may fail (`--ub report`: [`Executor::record_flagged`]).
    fn exec_binary(
        &mut self,
        state: State,
        dst: RegId,
        op: BinOp,
        (lhs, rhs): (Operand, Operand),
        flags: Flags,
    ) -> Option<State> {
        let a = self.operand(&state, lhs);
        let b = self.operand(&state, rhs);
        let mut state = if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) {
            self.division_traps(state, op, a, b)?
        } else {
            state
        };
        let r = if is_shift(op) {
            self.shift_value(&mut state, op, a, b, true)
        } else {
            self.binop(op, a, b)
        };
        let mut r = r;
        if self.config.ub == UbMode::Report {
            if flags.any() {
                r = self.record_flagged(&mut state, op, flags, (a, b), r);
            }
            super::ub::link_absorbed(self.pool, &mut state, (a, b), r);
        }
        self.set(&mut state, dst, r);
        Some(state)
    }

    /// Fails the part of `state` where `op` on `a` and `b` traps on x86-64: a zero divisor,
    /// and for `sdiv`/`srem` of the widths `idiv` divides, the minimum divided by -1
    /// ([`overflow_traps`]); returns the rest, if any.
    pub(crate) fn division_traps(
        &mut self,
        state: State,
        op: BinOp,
        a: Value,
        b: Value,
    ) -> Option<State> {
        let pool = self.pool;
        let width = b.width(pool);
        let zero = pool.eq(b.expr(pool), pool.constant(width, 0));
        let state = self.fail_where(state, zero, Termination::DivByZero)?;
        if !overflow_traps(op, width) {
            return Some(state);
        }
        let min = pool.eq(a.expr(pool), pool.constant(width, 1 << (width - 1)));
        let minus_one = pool.eq(b.expr(pool), pool.constant(width, mask(width, !0)));
        self.fail_where(state, pool.and(min, minus_one), Termination::DivOverflow)
    }

    /// Fails the part of `state` where `cond` holds as `kind`; returns the rest, if any.
    fn fail_where(&mut self, state: State, cond: ExprId, kind: Termination) -> Option<State> {
        match self.pool.as_const(cond) {
            Some(0) => Some(state),
            Some(_) => {
                self.fail(state, kind);
                None
            }
            None => {
                let (bad, good) = self.branch(state, cond)?;
                if let Some(bad) = bad {
                    self.fail(bad, kind);
                }
                good
            }
        }
    }

    /// `op` on two values; concrete operands never build an expression.
    /// A floating-point instruction: on concrete operands computed on their bits without
    /// building an expression.
    fn float(&self, state: &State, op: FloatOp, args: &[Operand], width: u32) -> Value {
        let mut values = [Value::concrete(1, 0); 3];
        for (i, &arg) in args.iter().enumerate().take(3) {
            values[i] = self.operand(state, arg);
        }
        self.float_values(op, &values[..args.len().min(3)], width)
    }

    /// `r`, the `fptosi`/`fptoui` (`op`) of `arg` to `width` bits, recorded as poison where
    /// `arg` is NaN or out of the target's range ([`Executor::record_poison`]).
    fn conversion_poison(
        &mut self,
        state: &mut State,
        op: FloatOp,
        arg: Operand,
        width: u32,
        r: Value,
    ) -> Value {
        let pool = self.pool;
        let x = self.operand(state, arg);
        let fw = x.width(pool);
        let signed = op == FloatOp::ToSInt;
        let Some((lo, hi)) = super::undefined::conversion_bounds(fw, width, signed) else {
            return r;
        };
        let x = x.expr(pool);
        let inside = pool.bool_and(
            pool.fp_cmp(FpCmp::Lt, pool.constant(fw, lo), x),
            pool.fp_cmp(FpCmp::Lt, x, pool.constant(fw, hi)),
        );
        let label = if signed {
            "fptosi of a value out of range"
        } else {
            "fptoui of a value out of range"
        };
        self.record_poison(state, r, pool.bool_not(inside), label)
    }

    /// A floating-point operation on values (`width`: the result's width for conversions).
    pub(crate) fn float_values(&self, op: FloatOp, args: &[Value], width: u32) -> Value {
        let mut bits = [0u128; 3];
        let concrete = args.iter().zip(&mut bits).all(|(arg, b)| match *arg {
            Value::Con { bits: v, .. } => {
                *b = v;
                true
            }
            Value::Sym(_) => false,
        });
        if concrete {
            let from = args[0].width(self.pool);
            return Value::Con {
                width,
                bits: eval_float(op, from, width, &bits[..args.len()]),
            };
        }
        let pool = self.pool;
        let exprs: Vec<ExprId> = args.iter().map(|a| a.expr(pool)).collect();
        self.value(pool.build_float(op, &exprs, width))
    }

    pub fn binop(&self, op: BinOp, a: Value, b: Value) -> Value {
        match (a, b) {
            (Value::Con { width, bits: x }, Value::Con { bits: y, .. }) => {
                let w = if op.is_comparison() { 1 } else { width };
                Value::Con {
                    width: w,
                    bits: fold_binary(op, width, x, y),
                }
            }
            _ => {
                let pool = self.pool;
                let x = a.expr(pool);
                let y = b.expr(pool);
                self.value(pool.binary(op, x, y))
            }
        }
    }

    pub fn compare(&self, pred: Predicate, a: Value, b: Value) -> Value {
        if let (Value::Con { width, bits: x }, Value::Con { bits: y, .. }) = (a, b) {
            return Value::bool(pred.eval(width, x, y));
        }
        let pool = self.pool;
        let e = pred.build(pool, a.expr(pool), b.expr(pool));
        self.value(e)
    }

    pub fn cast(&self, kind: CastKind, v: Value, width: u32) -> Value {
        match v {
            Value::Con { width: from, bits } => match kind {
                CastKind::ZExt | CastKind::Trunc => Value::concrete(width, bits),
                CastKind::SExt => Value::concrete(width, to_signed(from, bits) as u128),
            },
            Value::Sym(e) => {
                let pool = self.pool;
                let r = match kind {
                    CastKind::ZExt => pool.zext(e, width),
                    CastKind::SExt => pool.sext(e, width),
                    CastKind::Trunc => pool.trunc(e, width),
                };
                self.value(r)
            }
        }
    }

    /// Resizes `v` to `width` bits by zero extension or truncation.
    pub fn resize(&self, v: Value, width: u32) -> Value {
        let from = v.width(self.pool);
        match from.cmp(&width) {
            std::cmp::Ordering::Less => self.cast(CastKind::ZExt, v, width),
            std::cmp::Ordering::Greater => self.cast(CastKind::Trunc, v, width),
            std::cmp::Ordering::Equal => v,
        }
    }

    pub fn extract(&self, v: Value, lo: u32, width: u32) -> Value {
        match v {
            Value::Con { bits, .. } => Value::concrete(width, bits >> lo),
            Value::Sym(e) => self.value(self.pool.extract(e, lo, width)),
        }
    }

    /// `agg` with bits `lo..lo + width` replaced by `v` (`insertvalue`).
    pub fn insert_value(&self, agg: Value, v: Value, lo: u32, width: u32) -> Value {
        let total = agg.width(self.pool);
        match (agg, v) {
            (Value::Con { bits: x, .. }, Value::Con { bits: y, .. }) => {
                let field = mask(width, u128::MAX) << lo;
                Value::concrete(total, (x & !field) | ((y << lo) & field))
            }
            _ => {
                let pool = self.pool;
                let (x, y) = (agg.expr(pool), v.expr(pool));
                let mut r = y;
                if lo > 0 {
                    r = pool.concat(r, pool.extract(x, 0, lo));
                }
                if lo + width < total {
                    r = pool.concat(pool.extract(x, lo + width, total - lo - width), r);
                }
                self.value(r)
            }
        }
    }

    fn exec_alloca(
        &mut self,
        state: State,
        dst: RegId,
        size: u64,
        count: Operand,
    ) -> Option<State> {
        // A symbolic count is taken one feasible value at a time, as allocation sizes are.
        let count = self.operand(&state, count);
        let (mut state, n) = self.split_on_value(state, count)?;
        let n = n as u64;
        let total = size.saturating_mul(n);
        if total > MAX_ALLOCATION {
            self.unsupported(state, "alloca larger than 1 GiB");
            return None;
        }
        let address = self.allocate_zeroed(&mut state, total, ObjectKind::Stack, "alloca");
        self.uninitialised(&mut state, address);
        state.frame_mut().allocas.push(address);
        self.set(&mut state, dst, Value::concrete(PTR_WIDTH, address as u128));
        Some(state)
    }

    fn exec_load(
        &mut self,
        state: State,
        dst: RegId,
        addr: Operand,
        bytes: u32,
        width: u32,
        pointer: bool,
    ) -> Option<State> {
        let a = self.operand(&state, addr);
        let targets = self.resolve(state, a, bytes as u64);
        self.each_target(targets, |ex, mut s, key, offset| {
            let mut v = ex.read(&s, key, offset, bytes);
            match (offset, ex.config.ub) {
                (Offset::Concrete(off), UbMode::Report) => {
                    v = ex.uninitialised_read(&mut s, key, off, bytes, v);
                }
                (Offset::Symbolic(index), UbMode::Report) => {
                    v = ex.uninitialised_read_at(&mut s, key, index, bytes, v);
                }
                _ => {}
            }
            if pointer && !v.is_concrete() {
                // A pointer made of input bytes (a pointer field of a parameter's buffer):
                // the engine makes up no objects for it to point to, so whatever it reached
                // would be an artefact of the model, on both sides alike.
                let input = s
                    .memory
                    .get(key)
                    .filter(|(o, _)| o.kind.is_input())
                    .map(|(o, _)| o.name.clone());
                if let Some(name) = input {
                    ex.unsupported(
                        s,
                        &format!(
                            "pointer read from {name}: pointers inside inputs are not modelled"
                        ),
                    );
                    return None;
                }
            }
            let v = ex.resize(v, width);
            ex.set(&mut s, dst, v);
            Some(s)
        })
    }

    fn exec_store(
        &mut self,
        state: State,
        value: Operand,
        addr: Operand,
        bytes: u32,
    ) -> Option<State> {
        let a = self.operand(&state, addr);
        let v = self.operand(&state, value);
        let targets = self.resolve(state, a, bytes as u64);
        self.each_target(targets, |ex, s, key, offset| {
            let mut s = ex.writable(s, key)?;
            ex.write(&mut s, key, offset, v, bytes);
            Some(s)
        })
    }

    /// `state` if object `key` may be written; otherwise the path ends as a write to
    /// read-only memory.
    pub(crate) fn writable(&mut self, state: State, key: u64) -> Option<State> {
        if state.memory.get(key).is_some_and(|(o, _)| o.read_only) {
            self.fail(
                state,
                Termination::Reported {
                    message: "write to read-only memory".into(),
                    suffix: "ptr".into(),
                },
            );
            return None;
        }
        Some(state)
    }

    /// Applies `f` to every resolved target; the first survivor continues, others are scheduled.
    pub fn each_target(
        &mut self,
        targets: Vec<(State, u64, Offset)>,
        mut f: impl FnMut(&mut Self, State, u64, Offset) -> Option<State>,
    ) -> Option<State> {
        let mut first = None;
        for (s, key, offset) in targets {
            if let Some(s) = f(self, s, key, offset) {
                if first.is_none() {
                    first = Some(s);
                } else {
                    self.pending.push(s);
                }
            }
        }
        first
    }

    /// Reads `bytes` bytes (little-endian) of object `key` at `offset`.
    pub fn read(&self, state: &State, key: u64, offset: Offset, bytes: u32) -> Value {
        let pool = self.pool;
        let (_, contents) = state.memory.get(key).expect("resolved object exists");
        if let Offset::Concrete(off) = offset {
            if let Some(bits) = contents.concrete_value(off as usize, bytes as usize) {
                return Value::concrete(bytes * 8, bits);
            }
        }
        let parts: Vec<Value> = match offset {
            Offset::Concrete(off) => contents.read_bytes(pool, off as usize, bytes as usize),
            Offset::Symbolic(off) => (0..bytes)
                .map(|k| {
                    let index = pool.add(off, pool.constant(INDEX_WIDTH, k as u128));
                    self.value(contents.read_symbolic(pool, index))
                })
                .collect(),
        };
        if parts.iter().all(Value::is_concrete) {
            let bits = parts
                .iter()
                .rev()
                .fold(0u128, |acc, v| (acc << 8) | v.as_concrete().unwrap_or(0));
            return Value::concrete(bytes * 8, bits);
        }
        let exprs: Vec<ExprId> = parts.iter().map(|v| v.expr(pool)).collect();
        self.value(pool.concat_bytes(&exprs))
    }

    /// Writes the low `bytes` bytes of `v` (little-endian) to object `key` at `offset`.
    pub fn write(&self, state: &mut State, key: u64, offset: Offset, v: Value, bytes: u32) {
        let pool = self.pool;
        let v = self.resize(v, bytes * 8);
        let contents = state.memory.get_mut(key).expect("resolved object exists");
        if let (Value::Con { bits, .. }, Offset::Concrete(off)) = (v, offset) {
            if contents.write_concrete(off as usize, bits, bytes as usize) {
                return;
            }
        }
        for k in 0..bytes {
            let byte = match v {
                Value::Con { bits, .. } => Value::concrete(8, bits >> (8 * k)),
                Value::Sym(e) => Value::from_expr(pool, pool.byte(e, k)),
            };
            match offset {
                Offset::Concrete(off) => contents.set_byte(pool, off as usize + k as usize, byte),
                Offset::Symbolic(off) => {
                    let index = pool.add(off, pool.constant(INDEX_WIDTH, k as u128));
                    contents.write_symbolic(pool, index, byte.expr(pool));
                }
            }
        }
    }

    /// `base + offset + Σ index × scale`, indices sign-extended to pointer width.
    pub(crate) fn gep_value(
        &self,
        state: &State,
        base: Operand,
        offset: i64,
        indices: &[GepIndex],
    ) -> Value {
        let mut acc = self.operand(state, base);
        if offset != 0 {
            acc = self.binop(BinOp::Add, acc, Value::concrete(PTR_WIDTH, offset as u128));
        }
        for gi in indices {
            let idx = self.operand(state, gi.index);
            let idx = if idx.width(self.pool) < PTR_WIDTH {
                self.cast(CastKind::SExt, idx, PTR_WIDTH)
            } else {
                self.resize(idx, PTR_WIDTH)
            };
            let scaled = self.binop(
                BinOp::Mul,
                idx,
                Value::concrete(PTR_WIDTH, gi.scale as u128),
            );
            acc = self.binop(BinOp::Add, acc, scaled);
        }
        acc
    }

    fn exec_terminator(&mut self, mut state: State, term: &Terminator) -> Option<State> {
        match term {
            Terminator::Br(_) => unreachable!("`run_in_place` runs every `br`"),
            Terminator::CondBr { cond, then, els } => {
                let from = state.frame().block;
                match self.operand(&state, *cond) {
                    Value::Con { .. } => unreachable!("`run_in_place` runs a concrete `br`"),
                    Value::Sym(c) => {
                        if !state.flagged.is_empty() {
                            state.branched.push(c);
                        }
                        let point = self.merge_point(&mut state);
                        let (mut yes, mut no) = self.branch_deferring(state, c)?;
                        if let (Some(y), Some(n), Some(point)) = (yes.as_mut(), no.as_mut(), point)
                        {
                            // An unchecked side runs on its own, later: no group waits for it.
                            if y.unchecked.is_none() && n.unchecked.is_none() {
                                self.start_merge_group(&mut [y, n], point);
                            }
                        }
                        let mut no = no.map(|mut s| {
                            self.enter_block(&mut s, from, *els);
                            s
                        });
                        match yes {
                            Some(mut s) => {
                                self.enter_block(&mut s, from, *then);
                                match no.take() {
                                    // An unchecked side waits (`Deferral`): the other runs.
                                    Some(n) if s.unchecked.is_some() => {
                                        self.pending.push(s);
                                        Some(n)
                                    }
                                    Some(n) => {
                                        self.pending.push(n);
                                        Some(s)
                                    }
                                    None => Some(s),
                                }
                            }
                            None => no,
                        }
                    }
                }
            }
            Terminator::Switch {
                value,
                default,
                cases,
            } => self.exec_switch(state, *value, *default, cases),
            Terminator::Ret(v) => {
                let v = v.map(|op| self.operand(&state, op));
                self.exec_return(state, v)
            }
            Terminator::Unreachable => {
                self.fail(state, Termination::Unreachable);
                None
            }
            Terminator::Unsupported { what } => {
                self.unsupported(state, what);
                None
            }
        }
    }

    /// A `switch` on a symbolic value (a concrete one runs in place).
    fn exec_switch(
        &mut self,
        mut state: State,
        value: Operand,
        default: BlockId,
        cases: &[(u128, BlockId)],
    ) -> Option<State> {
        let from = state.frame().block;
        let v = self.operand(&state, value);
        let pool = self.pool;
        let e = v.expr(pool);
        if !state.flagged.is_empty() && !v.is_concrete() {
            state.branched.push(e);
        }
        let w = pool.width(e);
        // Group case values by target so that each successor is explored once.
        let mut targets: Vec<(BlockId, ExprId)> = Vec::new();
        let mut none_matched = pool.true_();
        for &(k, block) in cases {
            let is = pool.eq(e, pool.constant(w, k));
            none_matched = pool.bool_and(none_matched, pool.bool_not(is));
            match targets.iter_mut().find(|(b, _)| *b == block) {
                Some((_, c)) => *c = pool.bool_or(*c, is),
                None => targets.push((block, is)),
            }
        }
        match targets.iter_mut().find(|(b, _)| *b == default) {
            Some((_, c)) => *c = pool.bool_or(*c, none_matched),
            None => targets.push((default, none_matched)),
        }
        let point = self.merge_point(&mut state);
        let mut rest = Some(state);
        let mut forked: Vec<(State, BlockId)> = Vec::new();
        let last = targets.len() - 1;
        for (i, (block, cond)) in targets.into_iter().enumerate() {
            let Some(s) = rest.take() else { break };
            let (yes, no) = if i == last {
                (Some(s), None)
            } else {
                self.branch(s, cond)?
            };
            if let Some(y) = yes {
                forked.push((y, block));
            }
            rest = no;
        }
        // The cases that were feasible meet again at the switch's join point, like the two
        // sides of a `br`.
        if let (true, Some(point)) = (forked.len() > 1, point) {
            let mut states: Vec<&mut State> = forked.iter_mut().map(|(s, _)| s).collect();
            self.start_merge_group(&mut states, point);
        }
        let mut result = None;
        for (mut s, block) in forked {
            self.enter_block(&mut s, from, block);
            if result.is_none() {
                result = Some(s);
            } else {
                self.pending.push(s);
            }
        }
        result
    }

    /// Moves to `target`, assigning its phis as of the edge from `from`.
    pub fn enter_block(&mut self, state: &mut State, from: BlockId, target: BlockId) {
        let module = self.module;
        let func_id = state.frame().func;
        let block = &module.function(func_id).blocks[target.index()];
        if !block.phis.is_empty() {
            let values: Vec<Value> = block
                .phis
                .iter()
                .map(|phi| {
                    let op = phi
                        .incoming
                        .iter()
                        .find(|(b, _)| *b == from)
                        .map(|&(_, op)| op);
                    op.map_or(Value::concrete(1, 0), |op| self.operand(state, op))
                })
                .collect();
            for (phi, v) in block.phis.iter().zip(values) {
                self.set(state, phi.dst, v);
            }
        }
        let frame = state.frame_mut();
        frame.block = target;
        frame.pc = 0;
        // A side not yet known to be feasible covers its block once its retry finds it so
        // (`defer.rs`).
        if state.unchecked.is_none() && self.cover(func_id, target) {
            state.since_new_coverage = 0;
        }
    }

    fn exec_return(&mut self, mut state: State, v: Option<Value>) -> Option<State> {
        let frame = state.stack.pop().expect("a running state has a frame");
        for &address in &frame.allocas {
            state.memory.remove(address);
        }
        if state.stack.is_empty() {
            self.finish(state, Exit::Returned(v));
            return None;
        }
        if self.config.summaries.is_some() {
            state = crate::exec::summary::unrolled_return(self, state, &frame, v)?;
        }
        if let (Some(dst), Some(v)) = (frame.ret_dst, v) {
            self.set(&mut state, dst, v);
        }
        Some(state)
    }

    fn exec_call(
        &mut self,
        state: State,
        dst: Option<RegId>,
        callee: &Callee,
        args: &[Operand],
    ) -> Option<State> {
        let values: Vec<Value> = args.iter().map(|&a| self.operand(&state, a)).collect();
        let target = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect(op) => {
                match self.operand(&state, *op) {
                    Value::Con { bits, .. } => match self.module.function_at(bits as u64) {
                        Some(f) => f,
                        None => {
                            // A pointer into a buffer the engine made up for an input (a
                            // function-pointer parameter) is a gap of the model, not a fault
                            // of the program: the path is unknown.
                            let input = state
                                .memory
                                .find(bits as u64)
                                .filter(|(o, _)| o.kind.is_input())
                                .map(|(o, _)| o.name.clone());
                            match input {
                            Some(name) => self.unsupported(
                                state,
                                &format!("call through {name}: function-pointer inputs are not modelled"),
                            ),
                            None => self.fail(state, Termination::BadCall),
                        }
                            return None;
                        }
                    },
                    Value::Sym(p) => return self.call_symbolic_pointer(state, p, dst, values),
                }
            }
        };
        let f = self.module.function(target);
        if f.is_declaration() {
            return self.call_special(state, target, dst, &values);
        }
        if !self.config.replaying {
            let summarized = self.config.summaries.as_ref();
            if let Some(index) = summarized.and_then(|s| s.at_call(&state, target)) {
                return crate::exec::summary::summary_call(
                    self, state, target, index, dst, &values,
                );
            }
        }
        if state.stack.len() >= 10_000 {
            self.unsupported(state, "call stack deeper than 10000 frames");
            return None;
        }
        let fixed = f.params.len();
        let is_var_arg = f.is_var_arg;
        let (mut state, values, copies) = self.byval_copies(state, target, values)?;
        self.push_call(&mut state, target, &values, dst);
        state.frame_mut().allocas.extend(copies);
        if is_var_arg {
            let extra = values.get(fixed..).unwrap_or(&[]);
            let area = self.varargs_object(&mut state, extra);
            let frame = state.frame_mut();
            frame.varargs = area;
            frame.allocas.push(area);
        }
        if self.cover(target, BlockId(0)) {
            state.since_new_coverage = 0;
        }
        Some(state)
    }

    /// The callee's own copies of the structs passed by value (`byval` parameters): each is
    /// a new stack object holding the bytes the caller's pointer points to, and the callee
    /// gets its address, so what it writes there is invisible to the caller (clang -O0
    /// passes a global struct as `byval @g` directly). Returns the arguments to pass and the
    /// objects to free when the call returns.
    fn byval_copies(
        &mut self,
        mut state: State,
        target: FuncId,
        mut values: Vec<Value>,
    ) -> Option<(State, Vec<Value>, Vec<u64>)> {
        let byval: Vec<(usize, u64)> = self
            .module
            .function(target)
            .params
            .iter()
            .enumerate()
            .filter(|(i, p)| p.pass == ParamPass::ByVal && *i < values.len())
            .map(|(i, p)| (i, p.pointee_size.unwrap_or(0)))
            .collect();
        let mut copies = Vec::new();
        for (i, size) in byval {
            if matches!(values[i], Value::Sym(_)) {
                self.unsupported(state, "a struct passed by value through a symbolic pointer");
                return None;
            }
            let address = self.allocate_zeroed(
                &mut state,
                size,
                ObjectKind::Stack,
                "argument passed by value",
            );
            let copy = Value::concrete(PTR_WIDTH, address as u128);
            let len = Value::concrete(PTR_WIDTH, size as u128);
            state = self.copy_memory(state, &[copy, values[i], len])?;
            values[i] = copy;
            copies.push(address);
        }
        Some((state, values, copies))
    }

    /// An indirect call through a symbolic pointer: one state per possible function.
    fn call_symbolic_pointer(
        &mut self,
        state: State,
        p: ExprId,
        dst: Option<RegId>,
        args: Vec<Value>,
    ) -> Option<State> {
        let pool = self.pool;
        let mut rest = state;
        let mut first: Option<State> = None;
        for _ in 0..self.config.max_pointer_targets {
            let model = match rest.model.clone() {
                Some(m) => m,
                None => {
                    self.unsupported(rest, "symbolic function pointer without a model");
                    return first;
                }
            };
            let example = pool.eval(p, &model);
            let is = pool.eq(p, pool.constant(PTR_WIDTH, example));
            let (yes, no) = self.branch(rest, is)?;
            if let Some(s) = yes {
                match self.module.function_at(example as u64) {
                    Some(f) => {
                        let f_decl = self.module.function(f).is_declaration();
                        let next = if f_decl {
                            self.call_special(s, f, dst, &args)
                        } else {
                            self.byval_copies(s, f, args.clone())
                                .map(|(mut s, values, copies)| {
                                    self.push_call(&mut s, f, &values, dst);
                                    s.frame_mut().allocas.extend(copies);
                                    s
                                })
                        };
                        if let Some(n) = next {
                            if first.is_none() {
                                first = Some(n);
                            } else {
                                self.pending.push(n);
                            }
                        }
                    }
                    None => self.fail(s, Termination::BadCall),
                }
            }
            match no {
                Some(n) => rest = n,
                None => return first,
            }
        }
        self.unsupported(rest, "symbolic function pointer with too many targets");
        first
    }
}

/// Whether `op` at `width` bits traps on x86-64 when its quotient overflows (the minimum
/// divided by -1, SIGFPE natively): `sdiv` and `srem` of the widths `idiv` divides (8, 16,
/// 32 and 64 bits). Other widths are divided after a sign extension to a wider register,
/// or by a library call (`__divti3`, `__modti3`) that wraps: `INT128_MIN / -1` is
/// `INT128_MIN` natively (measured with clang 14 and 19), as the engine computes it.
pub(crate) fn overflow_traps(op: BinOp, width: u32) -> bool {
    matches!(op, BinOp::SDiv | BinOp::SRem) && matches!(width, 8 | 16 | 32 | 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::executor::ExecConfig;
    use crate::expr::ExprPool;
    use crate::solver::{build_chain, SolverConfig};

    /// A module of one function `f` whose argument `x` is register 0 and whose one block runs
    /// `insts`, then returns `r0`.
    /// Constants: c0 = 3 (i32), c1 = 0 (i32), c2 = 2 (i32).
    fn module(insts: Vec<Inst>, num_regs: u32) -> Module {
        let locs = vec![LocId(0); insts.len()];
        Module {
            functions: vec![Function::for_tests(
                vec![Block {
                    phis: Vec::new(),
                    insts,
                    locs,
                    term: Terminator::Ret(Some(Operand::Reg(RegId(0)))),
                    term_loc: LocId(0),
                }],
                num_regs,
            )],
            globals: Vec::new(),
            constants: vec![
                Constant {
                    width: 32,
                    value: 3,
                },
                Constant {
                    width: 32,
                    value: 0,
                },
                Constant {
                    width: 32,
                    value: 2,
                },
            ],
            locs: vec!["f.c:1".into()],
            library: Default::default(),
            c_library: Vec::new(),
            source_files: Vec::new(),
        }
    }

    const X: Operand = Operand::Reg(RegId(0));
    const THREE: Operand = Operand::Const(ConstId(0));
    const ZERO: Operand = Operand::Const(ConstId(1));
    const TWO: Operand = Operand::Const(ConstId(2));

    /// Runs `module`'s instructions in place on argument `x`; the registers after each one
    /// ran, or the index of the first instruction that needs the state by value.
    fn run(module: &Module, pool: &ExprPool, x: Value) -> Result<Vec<Value>, usize> {
        let mut ex = Executor::new(
            module,
            pool,
            build_chain(&SolverConfig::default()),
            ExecConfig::default(),
        );
        let mut state = ex.initial_state();
        ex.push_call(&mut state, FuncId(0), &[x], None);
        let count = module.functions[0].blocks[0].insts.len();
        for i in 0..count {
            if ex.step_in_place(&mut state) == Stepped::Owned {
                return Err(i);
            }
        }
        Ok(state.frame().regs.to_vec())
    }

    fn arithmetic() -> Module {
        module(
            vec![
                // r1 = x * 3; r2 = r1 - 2; r3 = r2 <s 0; r4 = r3 ? x : r2; r5 = trunc r4 to 8
                Inst::Binary {
                    dst: RegId(1),
                    op: BinOp::Mul,
                    lhs: X,
                    rhs: THREE,
                    flags: Flags::NONE,
                },
                Inst::Binary {
                    dst: RegId(2),
                    op: BinOp::Sub,
                    lhs: Operand::Reg(RegId(1)),
                    rhs: TWO,
                    flags: Flags::NONE,
                },
                Inst::ICmp {
                    dst: RegId(3),
                    pred: Predicate::Slt,
                    lhs: Operand::Reg(RegId(2)),
                    rhs: ZERO,
                },
                Inst::Select {
                    dst: RegId(4),
                    cond: Operand::Reg(RegId(3)),
                    then: X,
                    els: Operand::Reg(RegId(2)),
                },
                Inst::Cast {
                    dst: RegId(5),
                    kind: CastKind::Trunc,
                    src: Operand::Reg(RegId(4)),
                    width: 8,
                    flags: Flags::NONE,
                },
            ],
            6,
        )
    }

    #[test]
    fn concrete_arithmetic_runs_in_place_with_wrapping_and_signed_compare() {
        let module = arithmetic();
        let pool = ExprPool::new();
        let regs = run(&module, &pool, Value::concrete(32, 100)).unwrap();
        assert_eq!(regs[1], Value::concrete(32, 300));
        assert_eq!(regs[2], Value::concrete(32, 298));
        assert_eq!(regs[3], Value::bool(false));
        assert_eq!(regs[4], Value::concrete(32, 298));
        assert_eq!(regs[5], Value::concrete(8, 298 & 0xff));
        // 0 * 3 - 2 wraps to -2: the signed compare takes the `then` side.
        let regs = run(&module, &pool, Value::concrete(32, 0)).unwrap();
        assert_eq!(regs[2], Value::concrete(32, (-2i32) as u32 as u128));
        assert_eq!(regs[3], Value::bool(true));
        assert_eq!(regs[4], Value::concrete(32, 0));
    }

    #[test]
    fn a_symbolic_operand_gives_the_expression_the_concrete_run_agrees_with() {
        let module = arithmetic();
        let pool = ExprPool::new();
        let array = pool.new_array("x", 4);
        let bytes: Vec<_> = (0..4).map(|i| pool.sym(array, i)).collect();
        let x = pool.concat_bytes(&bytes);
        let regs = run(&module, &pool, Value::Sym(x)).unwrap();
        for input in [0u32, 1, 100, 0x7fff_ffff, 0xdead_beef] {
            let concrete = run(&module, &pool, Value::concrete(32, input.into())).unwrap();
            let mut assignment = crate::expr::Assignment::new();
            assignment.set(array, input.to_le_bytes().to_vec());
            for r in 1..6 {
                let expected = concrete[r].as_concrete().unwrap();
                let got = pool.eval(regs[r].expr(&pool), &assignment);
                assert_eq!(got, expected, "r{r} at x = {input:#x}");
            }
        }
    }

    #[test]
    fn division_runs_in_place_only_by_a_nonzero_constant() {
        let by = |rhs| {
            module(
                vec![Inst::Binary {
                    dst: RegId(1),
                    op: BinOp::UDiv,
                    lhs: X,
                    rhs,
                    flags: Flags::NONE,
                }],
                2,
            )
        };
        let pool = ExprPool::new();
        let regs = run(&by(THREE), &pool, Value::concrete(32, 10)).unwrap();
        assert_eq!(regs[1], Value::concrete(32, 3));
        // A zero divisor ends the path, so the state is needed by value.
        assert_eq!(run(&by(ZERO), &pool, Value::concrete(32, 10)), Err(0));
        // So does a divisor that may be zero.
        let array = pool.new_array("d", 4);
        let bytes: Vec<_> = (0..4).map(|i| pool.sym(array, i)).collect();
        let d = Value::Sym(pool.concat_bytes(&bytes));
        let module = module(
            vec![Inst::Binary {
                dst: RegId(1),
                op: BinOp::UDiv,
                lhs: THREE,
                rhs: X,
                flags: Flags::NONE,
            }],
            2,
        );
        assert_eq!(run(&module, &pool, d), Err(0));
    }
}
