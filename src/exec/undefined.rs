//! Undefined behaviour: operations whose result the language leaves undefined on some
//! operands (a shift by at least the width, `ctlz`/`cttz` of zero under their poison flag).
//!
//! Under [`UbMode::Report`] such a result is a fresh symbolic value where the operation is
//! undefined (`ite(undefined, fresh, result)`), recorded on the state with the condition and
//! the place ([`UndefinedValue`]). Nothing is decided where it is made: a value the program
//! never uses (a shift LLVM hoisted above the test that guards it, then selected away)
//! leaves no trace in the results, while a result, branch or store that depends on it lets
//! the crosscheck see that the path's outcome rests on undefined behaviour. Under
//! [`UbMode::Machine`] each operation gets what x86-64 does instead (shift counts masked to
//! the register's width), which native replay can confirm.

use super::executor::Executor;
use super::state::State;
use super::value::Value;
use crate::expr::{ArrayId, BinOp, ExprId};
use crate::ir::{Operand, RegId};

/// What an operation with undefined results gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UbMode {
    /// A fresh symbolic value, recorded on the state: the verdict says when a result depends
    /// on one. Function checks' default.
    Report,
    /// What x86-64 computes: shift counts masked to 5 bits (6 for 64-bit operands). The
    /// engine's default, and always that of whole programs, whose results native replay
    /// confirms.
    #[default]
    Machine,
}

impl std::str::FromStr for UbMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "report" => Ok(UbMode::Report),
            "machine" => Ok(UbMode::Machine),
            other => Err(format!("'{other}': expected report or machine")),
        }
    }
}

/// A value undefined behaviour produced on a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndefinedValue {
    /// The fresh input that stands for it.
    pub array: ArrayId,
    /// When the operation was undefined (width 1).
    pub cond: ExprId,
    /// The side that ran it (`State::phase`).
    pub phase: u8,
    /// What it was and where: `shift by at least 32 bits at f.c:3`.
    pub what: String,
}

impl Executor<'_> {
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
        let bytes = width.div_ceil(8);
        let array = pool.new_array("undefined", bytes);
        let parts: Vec<ExprId> = (0..bytes).rev().map(|k| pool.sym(array, k)).collect();
        let fresh = pool.trunc(pool.concat_bytes(&parts), width);
        let recorded = self.config.undefined_values.as_ref();
        if let Some(bytes) = recorded.and_then(|v| v.get(state.undefined.len())) {
            for (k, &byte) in bytes.iter().enumerate().take(parts.len()) {
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
        let result = match decided {
            Some(true) => fresh,
            _ => pool.ite(cond, fresh, value.expr(pool)),
        };
        self.value(result)
    }

    /// A shift whose count may be at least the operand's width.
    pub(super) fn exec_shift(
        &mut self,
        mut state: State,
        dst: RegId,
        op: BinOp,
        lhs: Operand,
        rhs: Operand,
    ) -> Option<State> {
        let pool = self.pool;
        let a = self.operand(&state, lhs);
        let count = self.operand(&state, rhs);
        let width = a.width(pool);
        let result = match self.config.ub {
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
                let too_far = pool.uge(count.expr(pool), pool.constant(width, width as u128));
                if pool.as_const(too_far) == Some(0) || count_fits(self, count, width) {
                    defined
                } else {
                    let name = match op {
                        BinOp::Shl => "shl",
                        BinOp::LShr => "lshr",
                        _ => "ashr",
                    };
                    let what = format!("{name} by at least {width} bits");
                    self.undefined_where(&mut state, too_far, defined, &what)
                }
            }
        };
        self.set(&mut state, dst, result);
        Some(state)
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

/// Whether `op` is a shift, whose result is undefined for counts of at least the width.
pub fn is_shift(op: BinOp) -> bool {
    matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr)
}
