//! The interpreter's operations of undefined behaviour (`undefined.rs` holds the types and
//! the flags' conditions): a fresh value where an operation is undefined
//! ([`Executor::undefined_where`]), shifts by a count that may reach the width
//! ([`Executor::shift_value`]), and the record of where a poison-producing flag fails
//! ([`Executor::record_flagged`], [`link_absorbed`]).

use crate::exec::executor::Executor;
use crate::exec::state::State;
use crate::exec::undefined::{flag_conditions, flag_fails, FlaggedValue, UbMode, UndefinedValue};
use crate::exec::value::Value;
use crate::expr::{BinOp, ExprId};
use crate::ir::Flags;

/// Records where the expression pool's rewriting made an operand of a binary operation
/// disappear from its result (`add(add(a, b), c)` is kept as one canonical sum, without the
/// node `a + b`): a flagged value absorbed so still reaches what reads the result
/// (`State::flagged_links`). Only while some flag may fail on the path.
pub(super) fn link_absorbed(
    pool: &crate::expr::ExprPool,
    state: &mut State,
    (a, b): (Value, Value),
    r: Value,
) {
    if state.flagged.is_empty() {
        return;
    }
    let Value::Sym(r) = r else { return };
    for x in [a, b] {
        let Value::Sym(x) = x else { continue };
        if x != r && !pool.node(r).children().any(|c| c == x) {
            state.flagged_links.push((x, r));
        }
    }
}

/// The `width`-bit value of the fresh input `array`: its bytes little-endian, as a test
/// shows the value (`verdict.rs`).
fn value_of(pool: &crate::expr::ExprPool, array: crate::expr::ArrayId, width: u32) -> ExprId {
    let parts: Vec<ExprId> = (0..width.div_ceil(8)).map(|k| pool.sym(array, k)).collect();
    pool.trunc(pool.concat_bytes(&parts), width)
}

impl Executor<'_> {
    /// Records on `state` where a poison-producing flag of `op` on `a` and `b` fails
    /// ([`FlaggedValue`]), unless the operands' ranges or the path rule it out, and gives
    /// the operation's value. On symbolic operands the value stays the operator's (`result`):
    /// no fresh value enters the path's expressions (which would make every later query
    /// carry it); the crosscheck asks at the path's end whether an outcome or a branch reads
    /// it where a flag fails (`crosscheck/poison.rs`). On concrete operands whose flag fails
    /// the value is a fresh one of its own, recorded as failing everywhere: a constant's
    /// uses could not be told from the same constant's elsewhere, and this is what a concrete
    /// replay of a path does, so a replay weighs the poison as the check did.
    pub(crate) fn record_flagged(
        &mut self,
        state: &mut State,
        op: BinOp,
        flags: Flags,
        (a, b): (Value, Value),
        result: Value,
    ) -> Value {
        let pool = self.pool;
        let (node, cond, failing, fresh) = match (a, b, result) {
            (Value::Con { width, bits: x }, Value::Con { bits: y, .. }, _) => {
                match flag_fails(op, flags, width, x, y) {
                    Some(failing) => {
                        // The result's width: a cast's may differ from its operand's.
                        let array = pool.new_array("poison", result.width(pool).div_ceil(8));
                        let fresh = value_of(pool, array, result.width(pool));
                        (fresh, pool.true_(), failing, Some(array))
                    }
                    None => return result,
                }
            }
            (_, _, Value::Con { .. }) => return result,
            (_, _, Value::Sym(node)) => {
                // The conditions read the operation's own value, not `result`, which a
                // shift by at least the width may already have made undefined.
                let plain = self.binop(op, a, b).expr(pool);
                let constraints = &state.constraints;
                let bounds = |e: ExprId| constraints.signed_bounds(pool, e);
                let operands = (a.expr(pool), b.expr(pool));
                let conds = flag_conditions(pool, op, flags, operands, plain, &bounds);
                if conds.is_empty() {
                    return result;
                }
                let cond = pool.or_all(&conds.iter().map(|(c, _)| *c).collect::<Vec<_>>());
                if state
                    .constraints
                    .decide(pool, cond, &mut self.stats.constraints)
                    == Some(false)
                {
                    return result;
                }
                let failing = conds.iter().fold(Flags::NONE, |acc, (_, f)| Flags {
                    nsw: acc.nsw || f.nsw,
                    nuw: acc.nuw || f.nuw,
                    exact: acc.exact || f.exact,
                    disjoint: acc.disjoint || f.disjoint,
                    nneg: acc.nneg || f.nneg,
                });
                (node, cond, failing, None)
            }
        };
        state.flagged.push(FlaggedValue {
            node,
            cond,
            phase: state.phase,
            op,
            flags: failing,
            loc: state.loc,
            fresh,
            label: None,
        });
        Value::Sym(node)
    }

    /// `result`, recorded as poison where `cond` holds (`label` says what failed), as a
    /// failed flag is ([`Executor::record_flagged`]): weighed where the path ends. Where
    /// `cond` is certain, the value is a fresh one of its own.
    pub(crate) fn record_poison(
        &mut self,
        state: &mut State,
        result: Value,
        cond: ExprId,
        label: &'static str,
    ) -> Value {
        let pool = self.pool;
        let (node, cond, fresh) = match (pool.as_const(cond), result) {
            (Some(0), _) => return result,
            (Some(_), _) => {
                let array = pool.new_array("poison", result.width(pool).div_ceil(8));
                let fresh = value_of(pool, array, result.width(pool));
                (fresh, pool.true_(), Some(array))
            }
            (None, Value::Con { .. }) => return result,
            (None, Value::Sym(node)) => {
                let decided = state
                    .constraints
                    .decide(pool, cond, &mut self.stats.constraints);
                if decided == Some(false) {
                    return result;
                }
                (node, cond, None)
            }
        };
        state.flagged.push(FlaggedValue {
            node,
            cond,
            phase: state.phase,
            op: BinOp::And,
            flags: Flags::NONE,
            loc: state.loc,
            fresh,
            label: Some(label),
        });
        Value::Sym(node)
    }

    /// `v`, except where it lies outside the `ranges` LLVM gave it (`of`: what gave
    /// them): there it is poison. A loaded value becomes a fresh value there at once,
    /// recorded as undefined behaviour ([`Executor::undefined_where`]): it is often an input
    /// byte itself, which the results hold elsewhere too. A returned value, computed, is
    /// weighed where the path ends as a failed flag is ([`Executor::record_poison`]): its
    /// range is mostly one the optimizer derived from flags, and a fresh value in every
    /// result made every path's questions carry it.
    pub(crate) fn record_out_of_range(
        &mut self,
        state: &mut State,
        v: Value,
        ranges: &[(u128, u128)],
        of: crate::ir::RangeOf,
    ) -> Value {
        let pool = self.pool;
        let width = v.width(pool);
        let cond = match v {
            Value::Con { bits, .. } if crate::exec::undefined::in_ranges(bits, ranges) => {
                return v;
            }
            Value::Con { .. } => pool.true_(),
            Value::Sym(e) => {
                let inside: Vec<ExprId> = ranges
                    .iter()
                    .map(|&(lo, hi)| {
                        let (lo_c, hi_c) = (pool.constant(width, lo), pool.constant(width, hi));
                        if lo < hi {
                            pool.bool_and(pool.ule(lo_c, e), pool.ult(e, hi_c))
                        } else {
                            pool.bool_or(pool.ule(lo_c, e), pool.ult(e, hi_c))
                        }
                    })
                    .collect();
                let cond = pool.bool_not(pool.or_all(&inside));
                if pool.as_const(cond) == Some(0) {
                    return v;
                }
                cond
            }
        };
        if of == crate::ir::RangeOf::Return {
            return self.record_poison(state, v, cond, "return value outside its range attribute");
        }
        let ranges = crate::exec::undefined::describe_ranges(width, ranges);
        self.undefined_where(state, cond, v, &format!("{of} outside its range {ranges}"))
    }

    /// `value`, except where `cond` holds on `state`'s path: there a fresh symbolic value,
    /// recorded as undefined behaviour described by `what`. The path condition, or known
    /// bits, may show that `cond` never holds; then `value` is all there is.
    pub(crate) fn undefined_where(
        &mut self,
        state: &mut State,
        cond: ExprId,
        value: Value,
        what: &str,
    ) -> Value {
        let pool = self.pool;
        let decided = state
            .constraints
            .decide(pool, cond, &mut self.stats.constraints);
        if decided == Some(false) {
            return value;
        }
        let width = value.width(pool);
        let array = self.new_undefined(state, cond, width.div_ceil(8), what);
        let fresh = value_of(pool, array, width);
        let result = match decided {
            Some(true) => fresh,
            _ => pool.ite(cond, fresh, value.expr(pool)),
        };
        self.value(result)
    }

    /// A fresh input of `bytes` bytes for a value undefined behaviour gives where `cond`
    /// holds, recorded on `state` as `what` at the current location; a replayed test pins
    /// it to the bytes it recorded (`ExecConfig::undefined_values`).
    pub(crate) fn new_undefined(
        &mut self,
        state: &mut State,
        cond: ExprId,
        bytes: u32,
        what: &str,
    ) -> crate::expr::ArrayId {
        let pool = self.pool;
        let array = pool.new_array("undefined", bytes);
        let recorded = self.config.undefined_values.as_ref();
        let values = recorded.and_then(|v| v.get(state.undefined.len()));
        if let Some(values) = values {
            for (k, &byte) in values.iter().enumerate().take(bytes as usize) {
                let pinned = pool.eq(pool.sym(array, k as u32), pool.constant(8, byte as u128));
                state
                    .constraints
                    .add(pool, pinned, &mut self.stats.constraints);
            }
        }
        let loc = self.current_loc(state);
        state.undefined.push(UndefinedValue {
            array,
            cond,
            phase: state.phase,
            what: format!("{what} at {loc}"),
        });
        array
    }

    /// `a` shifted by `count` (`op` a shift), on `state`: under `--ub report` a fresh value
    /// where the count is at least the width; under `--ub machine` x86-64's value — the
    /// scalar instructions mask the count (`masks`), the vector ones (`vpsllvd`…) give zero
    /// or the sign beyond the width, as the engine's operator does.
    pub(super) fn shift_value(
        &mut self,
        state: &mut State,
        op: BinOp,
        a: Value,
        count: Value,
        masks: bool,
    ) -> Value {
        let pool = self.pool;
        let width = a.width(pool);
        match self.config.ub {
            UbMode::Machine if !masks => self.binop(op, a, count),
            UbMode::Machine => {
                let mask = match width {
                    w if w <= 32 => 31,
                    64 => 63,
                    // No x86 instruction shifts these at once: LLVM's meaning of the counts
                    // in range, and the engine's (zero or the sign) beyond.
                    _ => u128::MAX,
                };
                let count = match mask {
                    u128::MAX => count,
                    m => self.binop(BinOp::And, count, Value::concrete(width, m)),
                };
                self.binop(op, a, count)
            }
            UbMode::Report => {
                let defined = self.binop(op, a, count);
                if count_fits(self, count, width) {
                    return defined;
                }
                let too_far = pool.uge(count.expr(pool), pool.constant(width, width as u128));
                if pool.as_const(too_far) == Some(0) {
                    defined
                } else {
                    let name = match op {
                        BinOp::Shl => "shl",
                        BinOp::LShr => "lshr",
                        _ => "ashr",
                    };
                    let what = format!("{name} by at least {width} bits");
                    self.undefined_where(state, too_far, defined, &what)
                }
            }
        }
    }
}

/// Whether the known bits of `count` keep it below `width`.
fn count_fits(ex: &Executor<'_>, count: Value, width: u32) -> bool {
    match count {
        Value::Con { bits, .. } => bits < width as u128,
        Value::Sym(e) => {
            let known = ex.pool.known_bits(e);
            let max = !known.mask | known.value;
            crate::expr::mask(width, max) < width as u128
        }
    }
}
