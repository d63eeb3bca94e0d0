//! Calls of the functions named by `--abstract-calls`: uninterpreted functions, where equal
//! arguments give equal results, so that a refactoring that keeps its math calls can be
//! proved without reasoning inside them.
//!
//! `table.rs` sends here every call of a function without a body whose name is in
//! `ExecConfig::abstract_calls` (the loader then left musl's code of that function out).

use crate::exec::executor::{Executor, Exit};
use crate::exec::state::State;
use crate::exec::value::Value;
use crate::ir::{self, FuncId, RegId};

/// A call of the abstracted function `func` with `args`, whose result (if the caller keeps
/// it) goes to `dst`. Returns the state to keep running, or `None` when the path ended.
///
/// For now the path ends as unknown, with a note.
pub(crate) fn abstract_call(
    ex: &mut Executor<'_>,
    state: State,
    func: FuncId,
    dst: Option<RegId>,
    args: &[Value],
) -> Option<State> {
    let _ = (dst, args);
    let name = ir::split_name(&ex.module.function(func).name).1;
    let loc = ex.current_loc(&state);
    let text = format!("abstracted call of {name} (not implemented yet) at {loc}");
    if !ex.unsupported.contains(&text) {
        ex.unsupported.push(text.clone());
    }
    ex.finish(state, Exit::Unknown(text));
    None
}
