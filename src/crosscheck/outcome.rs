//! How a side's outcome is shown in a function check's rows: its return value (as an
//! integer, a float, a pointer or an aggregate's float fields), its buffers and globals,
//! and what it wrote to stdout.

use super::float::display_float;
use super::pointers;
use super::show::display_int;
use crate::exec::{Executor, SideOutcome, State, Value};
use crate::expr::{mask, Assignment};

/// A byte of a side's memory or output with its symbolic part evaluated in `model`.
pub(super) fn concrete_byte(ex: &Executor<'_>, v: Value, model: &Assignment) -> u8 {
    match v {
        Value::Con { bits, .. } => bits as u8,
        Value::Sym(e) => ex.pool.eval(e, model) as u8,
    }
}

/// How a return value is shown.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shown<'f> {
    Int,
    Float,
    /// By what it points to (`pointers::describe_pointer`).
    Pointer,
    /// An aggregate with these `float`/`double` fields (lowest bit, width): each shown as a
    /// float, then the other bits when any is set.
    Fields(&'f [(u32, u32)]),
}

/// A result as text, with symbolic parts shown as `<symbolic>`.
/// `out` is what the side wrote to stdout, shown after a return or an exit.
pub(super) fn describe(
    ex: &Executor<'_>,
    state: &State,
    o: &SideOutcome,
    shown: Shown<'_>,
    out: &[Value],
) -> String {
    let value = |v: &Value| match v {
        Value::Con { width, bits } => display_value(ex, state, *width, *bits, shown),
        Value::Sym(_) => "<symbolic>".to_string(),
    };
    let text = match o {
        SideOutcome::Returned { value: Some(v), .. } => format!("returns {}", value(v)),
        SideOutcome::Returned { value: None, .. } => "returns".to_string(),
        SideOutcome::Exited(v) => format!("exit({})", value(v)),
        SideOutcome::Failed(f) => return format!("{} at {}", f.kind.describe(), f.place()),
    };
    let bytes: Option<Vec<u8>> = out
        .iter()
        .map(|v| v.as_concrete().map(|b| b as u8))
        .collect();
    match bytes {
        _ if out.is_empty() => text,
        Some(bytes) => format!("{text}, stdout {}", super::classes::quote(&bytes)),
        None => format!("{text}, stdout <symbolic, {} bytes>", out.len()),
    }
}

/// A result with every symbolic part evaluated in `model`.
pub(super) fn concrete_outcome(
    ex: &Executor<'_>,
    state: &State,
    o: &SideOutcome,
    model: &Assignment,
    labels: &[(String, Option<crate::assume::CType>)],
    shown: Shown<'_>,
    out: &[Value],
) -> String {
    let value = |v: &Value, shown: Shown<'_>| match v {
        Value::Con { width, bits } => display_value(ex, state, *width, *bits, shown),
        Value::Sym(e) => {
            display_value(ex, state, ex.pool.width(*e), ex.pool.eval(*e, model), shown)
        }
    };
    let text = match o {
        SideOutcome::Returned { value: v, buffers } => {
            let mut text = match v {
                Some(v) => format!("returns {}", value(v, shown)),
                None => "returns".to_string(),
            };
            for (b, (label, elements)) in buffers.iter().zip(labels) {
                let bytes: Vec<u8> = b.iter().map(|x| concrete_byte(ex, *x, model)).collect();
                // By the elements' type, else bytes with the pointers among them named.
                let shown = elements
                    .and_then(|ty| super::show::display_elements(&bytes, ty))
                    .unwrap_or_else(|| {
                        pointers::display_memory(ex.module, state, ex.pool, b, &bytes)
                    });
                text.push_str(&format!(", {label} {shown}"));
            }
            text
        }
        SideOutcome::Exited(v) => format!("exit({})", value(v, Shown::Int)),
        SideOutcome::Failed(f) => return format!("{} at {}", f.kind.describe(), f.place()),
    };
    if out.is_empty() {
        return text;
    }
    let bytes: Vec<u8> = out.iter().map(|x| concrete_byte(ex, *x, model)).collect();
    format!("{text}, stdout {}", super::classes::quote(&bytes))
}

/// A returned value: a float as [`display_float`] shows it, a pointer by what it points
/// to, else as [`display_int`].
fn display_value(
    ex: &Executor<'_>,
    state: &State,
    width: u32,
    bits: u128,
    shown: Shown<'_>,
) -> String {
    match shown {
        Shown::Fields(fields) => {
            let mut rest = mask(width, bits);
            let shown: Vec<String> = fields
                .iter()
                .map(|&(lo, w)| {
                    rest &= !(mask(w, u128::MAX) << lo);
                    display_float(w, mask(w, bits >> lo))
                })
                .collect();
            let mut text = format!("{{{}}}", shown.join(", "));
            if rest != 0 {
                text.push_str(&format!(" (other bits 0x{rest:x})"));
            }
            text
        }
        Shown::Float => display_float(width, bits),
        Shown::Pointer => pointers::describe_pointer(ex.module, state, bits as u64),
        Shown::Int => pointers::display_words(ex.module, state, width, bits)
            .unwrap_or_else(|| display_int(width, bits)),
    }
}
