//! Resolving memory accesses: which object a pointer reaches on each part of a path, and
//! what an access outside every object is — a failure, or, past a parameter's buffer, growth
//! on demand (`memory::Growth`) or a gap of the model (the path is unknown).

use crate::exec::executor::Executor;
use crate::exec::executor::Offset;
use crate::exec::memory::{MemoryObject, ObjectKind, PARAMETER_GAP};
use crate::exec::state::{State, Termination};
use crate::exec::value::Value;
use crate::expr::{BinOp, ExprId, ExprPool, Node, INDEX_WIDTH};
use std::sync::Arc;

impl Executor<'_> {
    /// Grows the parameter's buffer `object` on `state` so that its first `end` bytes exist:
    /// to the next power of two at least `end` (and at least twice its size), at most its cap
    /// ([`crate::exec::memory::Growth`]). `Err` with why the path is unknown when the buffer
    /// does not grow or `end` is past its cap.
    fn grow(&self, state: &mut State, object: &MemoryObject, end: u64) -> Result<(), String> {
        let Some(growth) = object.growth else {
            return Err(object.outside(false));
        };
        if end > growth.cap {
            let mut at_cap = object.clone();
            at_cap.size = growth.cap;
            return Err(at_cap.outside(false));
        }
        let size = end.next_power_of_two().max(object.size * 2).min(growth.cap);
        let bytes: Vec<Value> = (object.size..size)
            .map(|k| Value::Sym(self.pool.sym(growth.array, k as u32)))
            .collect();
        state.memory.grow(self.pool, object.address, &bytes);
        Ok(())
    }

    /// Resolves a memory access of `bytes` bytes at `addr`: every state in the result can
    /// access object `key` at the returned offset. States where the access is invalid are
    /// ended as failures; the current state is consumed.
    pub fn resolve(&mut self, state: State, addr: Value, bytes: u64) -> Vec<(State, u64, Offset)> {
        match addr {
            Value::Con { bits, .. } => {
                let address = bits as u64;
                let found = state.memory.find(address).map(|(o, _)| (o.address, o.size));
                match found {
                    Some((base, size))
                        if address - base <= size.saturating_sub(bytes) && bytes <= size =>
                    {
                        vec![(state, base, Offset::Concrete(address - base))]
                    }
                    _ => match growing_parameter(&state, address) {
                        // Past the end of a parameter's buffer that may grow.
                        Some(object) => {
                            let mut state = state;
                            let end = address - object.address + bytes;
                            match self.grow(&mut state, &object, end) {
                                Ok(()) => self.resolve(state, addr, bytes),
                                Err(why) => {
                                    self.unsupported(state, &why);
                                    Vec::new()
                                }
                            }
                        }
                        None => {
                            let kind = if address < 4096 {
                                Termination::NullPointer
                            } else {
                                Termination::OutOfBounds
                            };
                            self.fail_access(state, Some(address), bytes, kind);
                            Vec::new()
                        }
                    },
                }
            }
            Value::Sym(p) => self.resolve_symbolic(state, p, bytes),
        }
    }

    fn resolve_symbolic(
        &mut self,
        state: State,
        p: ExprId,
        bytes: u64,
    ) -> Vec<(State, u64, Offset)> {
        let pool = self.pool;
        let mut results = Vec::new();
        if let Some((base, size)) = provenance(pool, &state, p) {
            // `base + offset`: the pointer was made from this object's address, so it may
            // only access this object. Where it lands elsewhere is a memory error on any
            // layout, not a read of whatever object happens to lie there (the two sides'
            // objects live at different addresses).
            let Some((good, bad)) = self.branch(state, in_bounds(pool, p, base, size, bytes))
            else {
                return results;
            };
            if let Some(good) = good {
                results.push((good, base, symbolic_offset(pool, p, base)));
            }
            if let Some(bad) = bad {
                if let Some(object) = bad.memory.parameter_at(base) {
                    if object.growth.is_some() {
                        // Past the end it grows (then the access is resolved again);
                        // before the start it is a pointer into an array.
                        let past = pool.ule(pool.constant(64, base as u128), p);
                        let Some((past, before)) = self.branch(bad, past) else {
                            return results;
                        };
                        if let Some(mut past) = past {
                            match self.grow(&mut past, &object, size + 1) {
                                Ok(()) => results.extend(self.resolve_symbolic(past, p, bytes)),
                                Err(why) => self.unsupported(past, &why),
                            }
                        }
                        if let Some(before) = before {
                            self.unsupported(before, &object.outside(true));
                        }
                        return results;
                    }
                    // Whatever the offset, some caller passes a buffer it fits.
                    let example = self.example(&bad, p);
                    let before = example.is_some_and(|a| a < base);
                    self.unsupported(bad, &object.outside(before));
                } else {
                    self.fail(bad, Termination::OutOfBounds);
                }
            }
            return results;
        }
        let mut rest = state;
        let mut targets = 0usize;
        loop {
            // An address the pointer may take on the rest of the path.
            let model = match rest.model.clone() {
                Some(m) => m,
                None => match self.check(&rest, pool.true_()) {
                    Ok(Some(m)) => m,
                    Ok(None) => return results,
                    Err(why) => {
                        self.gave_up(rest, why);
                        return results;
                    }
                },
            };
            let example = pool.eval(p, &model) as u64;
            let object = rest.memory.find(example).map(|(o, _)| (o.address, o.size));
            let Some((base, size)) = object else {
                // Outside every object: that part of the path fails (a null or wild pointer);
                // the pointer may still reach objects on the rest.
                let in_some = rest
                    .memory
                    .objects()
                    .map(|(o, _)| inside(pool, p, o.address, o.size))
                    .fold(pool.false_(), |acc, c| pool.bool_or(acc, c));
                let Some((yes, no)) = self.branch(rest, in_some) else {
                    return results;
                };
                if let Some(no) = no {
                    let null = pool.eq(p, pool.constant(64, 0));
                    let kind = match self.check(&no, null) {
                        Ok(Some(_)) => Termination::NullPointer,
                        _ => Termination::OutOfBounds,
                    };
                    let example = self.example(&no, p);
                    self.fail_access(no, example, bytes, kind);
                }
                match yes {
                    Some(s) => {
                        rest = s;
                        continue;
                    }
                    None => return results,
                }
            };
            targets += 1;
            if targets > self.config.max_pointer_targets {
                self.unsupported(rest, "symbolic pointer with too many possible targets");
                return results;
            }
            let inside = inside(pool, p, base, size);
            // Three regions: in bounds, overlapping the end of this object, elsewhere.
            let Some((good, other)) = self.branch(rest, in_bounds(pool, p, base, size, bytes))
            else {
                return results;
            };
            if let Some(good) = good {
                results.push((good, base, symbolic_offset(pool, p, base)));
            }
            let Some(other) = other else { return results };
            let Some((overlap, elsewhere)) = self.branch(other, inside) else {
                return results;
            };
            if let Some(mut overlap) = overlap {
                match overlap.memory.parameter_at(base) {
                    // Growing when it may, else unknown: a caller may pass a bigger buffer.
                    Some(object) => match self.grow(&mut overlap, &object, size + 1) {
                        Ok(()) => results.extend(self.resolve_symbolic(overlap, p, bytes)),
                        Err(why) => self.unsupported(overlap, &why),
                    },
                    None => self.fail(overlap, Termination::OutOfBounds),
                }
            }
            match elsewhere {
                Some(s) => rest = s,
                None => return results,
            }
        }
    }

    /// Ends `state`, whose access of `bytes` bytes at `address` fits no object, as unknown
    /// when it lies within [`PARAMETER_GAP`] of a parameter's buffer (a caller could pass a
    /// buffer it fits: [`ObjectKind::Parameter`]), else as the failure `kind`.
    fn fail_access(&mut self, state: State, address: Option<u64>, bytes: u64, kind: Termination) {
        match address.and_then(|a| state.memory.parameter_gap(a, bytes)) {
            Some(why) => self.unsupported(state, &why),
            None => self.fail(state, kind),
        }
    }

    /// An address the pointer `p` takes on `state`: its model's, else a new one's.
    fn example(&mut self, state: &State, p: ExprId) -> Option<u64> {
        let model = match state.model.clone() {
            Some(m) => m,
            None => self.check(state, self.pool.true_()).ok().flatten()?,
        };
        Some(self.pool.eval(p, &model) as u64)
    }
}

/// The object a symbolic pointer `c + offset` was derived from: the one whose bytes, or
/// whose one-past-the-end address, the constant term `c` names (objects are separated by
/// red zones, so at most one does). `None` for pointers of any other shape.
fn provenance(pool: &ExprPool, state: &State, p: ExprId) -> Option<(u64, u64)> {
    let Node::Binary {
        op: BinOp::Add,
        lhs,
        ..
    } = pool.node(p)
    else {
        return None;
    };
    let c = pool.as_const(lhs)? as u64;
    if let Some((o, _)) = state.memory.find(c) {
        return Some((o.address, o.size));
    }
    let (o, _) = state.memory.find(c.checked_sub(1)?)?;
    (o.address + o.size == c).then_some((o.address, o.size))
}

/// The parameter's buffer that may grow ([`crate::exec::memory::Growth`]) whose free space
/// after it `address` lies in (or the buffer itself, for an access overrunning its end).
fn growing_parameter(state: &State, address: u64) -> Option<Arc<MemoryObject>> {
    let c = state.memory.find_before(address)?;
    (c.growth.is_some() && c.kind == ObjectKind::Parameter && address - c.address < PARAMETER_GAP)
        .then(|| c.clone())
}

/// An access of `bytes` bytes at `p` lies within the object `[base, base + size)`.
fn in_bounds(pool: &ExprPool, p: ExprId, base: u64, size: u64, bytes: u64) -> ExprId {
    if bytes > size {
        return pool.false_();
    }
    pool.bool_and(
        pool.ule(pool.constant(64, base as u128), p),
        pool.ule(p, pool.constant(64, (base + size - bytes) as u128)),
    )
}

/// The offset of `p` in the object at `base`.
fn symbolic_offset(pool: &ExprPool, p: ExprId, base: u64) -> Offset {
    Offset::Symbolic(pool.trunc(pool.sub(p, pool.constant(64, base as u128)), INDEX_WIDTH))
}

/// `p` points into the object `[base, base + size)`.
fn inside(pool: &ExprPool, p: ExprId, base: u64, size: u64) -> ExprId {
    let lo = pool.constant(64, base as u128);
    let hi = pool.constant(64, (base + size.max(1)) as u128);
    pool.bool_and(pool.ule(lo, p), pool.ult(p, hi))
}
