//! The interpreter's fast path: instructions that cannot fork or end the path run on the
//! state in place (moving a whole state per instruction costs more than most instructions).
//! Everything else falls back to `Executor::step`.

use crate::exec::executor::{Executor, Offset};
use crate::exec::state::State;
use crate::exec::value::Value;
use crate::expr::BinOp;
use crate::ir::{Inst, Terminator};

impl<'a> Executor<'a> {
    /// Runs the next instruction of `state` if it is one the fast path handles; returns
    /// whether it did.
    pub(crate) fn step_in_place(&mut self, state: &mut State) -> bool {
        let module = self.module;
        let frame = state.frame();
        if frame.pc == 0 && !state.markers.is_empty() {
            return false; // The state may have to park at a merge point.
        }
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
                    Value::Sym(_) => return false,
                },
                _ => return false,
            };
            let from = frame.block;
            self.count(state);
            state.loc = Some(block.term_loc);
            self.enter_block(state, from, target);
            return true;
        }
        let result = match &block.insts[pc] {
            Inst::Binary { dst, op, lhs, rhs } => {
                let op = super::step::expr_op(*op);
                let b = self.operand(state, *rhs);
                let may_trap = matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem)
                    && !matches!(b, Value::Con { bits, .. } if bits != 0);
                if may_trap {
                    return false;
                }
                let a = self.operand(state, *lhs);
                Some((*dst, self.binop(op, a, b)))
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
            } => Some((*dst, self.cast(*kind, self.operand(state, *src), *width))),
            Inst::Copy { dst, src } => Some((*dst, self.operand(state, *src))),
            Inst::Select {
                dst,
                cond,
                then,
                els,
            } => {
                let c = self.operand(state, *cond);
                Some((
                    *dst,
                    self.select(c, self.operand(state, *then), self.operand(state, *els)),
                ))
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
            Inst::Load {
                dst,
                addr,
                bytes,
                width,
                pointer,
            } => {
                let Value::Con { bits, .. } = self.operand(state, *addr) else {
                    return false;
                };
                let Some((base, offset)) = in_bounds(state, bits as u64, *bytes as u64) else {
                    return false;
                };
                let v = self.read(state, base, Offset::Concrete(offset), *bytes);
                if *pointer && !v.is_concrete() {
                    // A symbolic pointer: `step` decides whether the model can hold it.
                    return false;
                }
                Some((*dst, self.resize(v, *width)))
            }
            Inst::Store { value, addr, bytes } => {
                let Value::Con { bits, .. } = self.operand(state, *addr) else {
                    return false;
                };
                let Some((base, offset)) = in_bounds(state, bits as u64, *bytes as u64) else {
                    return false;
                };
                if state.memory.get(base).is_some_and(|(o, _)| o.read_only) {
                    return false;
                }
                let v = self.operand(state, *value);
                self.write(state, base, Offset::Concrete(offset), v, *bytes);
                None
            }
            _ => return false,
        };
        self.count(state);
        state.loc = Some(block.locs[pc]);
        let frame = state.frame_mut();
        frame.pc += 1;
        if let Some((dst, v)) = result {
            frame.regs[dst.index()] = v;
        }
        true
    }

    fn count(&mut self, state: &mut State) {
        state.instructions += 1;
        state.since_new_coverage += 1;
        self.stats.instructions += 1;
    }
}

/// The object and offset of an access of `bytes` bytes at `address`, if wholly inside one.
fn in_bounds(state: &State, address: u64, bytes: u64) -> Option<(u64, u64)> {
    let (object, _) = state.memory.find(address)?;
    let offset = address - object.address;
    (bytes <= object.size && offset <= object.size - bytes).then_some((object.address, offset))
}
