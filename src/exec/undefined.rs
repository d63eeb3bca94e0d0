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
//! the register's width), which native replay can confirm. The operations live with the
//! interpreter (`step.rs`: `undefined_where`, `exec_shift`); this file holds the types.

use crate::expr::{ArrayId, BinOp, ExprId};

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

/// Whether `op` is a shift, whose result is undefined for counts of at least the width.
pub fn is_shift(op: BinOp) -> bool {
    matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr)
}
