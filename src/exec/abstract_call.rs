//! Calls of the functions named by `--abstract-calls`: uninterpreted functions, where equal
//! arguments give equal results, so that a refactoring that keeps its math calls can be
//! proved without reasoning inside them.
//!
//! `table.rs` sends here every call of a function without a body whose name is in
//! `ExecConfig::abstract_calls` (the loader then left musl's code of that function out).
//!
//! A call's result is a fresh symbolic value, one per call (an input array named
//! `NAME.result`), unless an earlier call of the same function on the path, on either side,
//! had the same argument expressions: then it is that call's result. For every earlier call
//! with other arguments the path gets the constraint "equal arguments ⇒ equal results"
//! (Ackermann's reduction), which any real (deterministic) function satisfies: a proof
//! holds for every implementation of the function, the real one included. A divergence may
//! rest on results the real function never gives, so a replay, which cannot run the real
//! function, does not confirm it (`ExecConfig::replaying`).

use crate::exec::executor::{Executor, Exit};
use crate::exec::state::Undecided;
use crate::exec::state::{AbstractedCall, State};
use crate::exec::value::Value;
use crate::expr::ExprId;
use crate::ir::{self, FuncId, RegId};

/// A call of the abstracted function `func` with `args`, whose result (if the caller keeps
/// it) goes to `dst`. Returns the state to keep running, or `None` when the path ended.
pub(crate) fn abstract_call(
    ex: &mut Executor<'_>,
    mut state: State,
    func: FuncId,
    dst: Option<RegId>,
    args: &[Value],
) -> Option<State> {
    let function = ex.module.function(func);
    let name = ir::split_name(&function.name).1.to_string();
    if ex.config.replaying {
        let loc = ex.current_loc(&state);
        let why = Undecided::AbstractedCallInReplay { name, loc };
        ex.finish(state, Exit::Unknown(why));
        return None;
    }
    let Some(width) = function.ret_width.filter(|&w| w > 0 && w % 8 == 0) else {
        // No result: an uninterpreted call without one has no effect to compare.
        return Some(state);
    };
    let pool = ex.pool;
    let args: Vec<ExprId> = args.iter().map(|a| a.expr(pool)).collect();
    let same_shape = |c: &AbstractedCall| {
        c.name == name
            && c.args.len() == args.len()
            && c.args
                .iter()
                .zip(&args)
                .all(|(x, y)| pool.width(*x) == pool.width(*y))
            && pool.width(c.result) == width
    };
    let result = match state
        .abstracted
        .iter()
        .find(|c| same_shape(c) && c.args == args)
    {
        Some(earlier) => earlier.result,
        None => {
            let array = pool.new_array(&format!("{name}.result"), width / 8);
            let bytes: Vec<ExprId> = (0..width / 8).map(|i| pool.sym(array, i)).collect();
            let result = pool.concat_bytes(&bytes);
            let earlier = state.abstracted.iter().filter(|c| same_shape(c));
            let congruence = congruence(pool, earlier, &args, result);
            state.abstracted.push(AbstractedCall { name, args, result });
            for c in congruence {
                state = ex.assume(state, c)?;
            }
            result
        }
    };
    if let Some(dst) = dst {
        ex.set(&mut state, dst, Value::from_expr(pool, result));
    }
    Some(state)
}

/// Ackermann's constraints of a new application (`args`, `result`) against the `earlier`
/// ones of the same function: "equal arguments ⇒ equal results" for each (results of
/// another width are left out: they are not of the same function).
pub(crate) fn congruence<'c>(
    pool: &crate::expr::ExprPool,
    earlier: impl Iterator<Item = &'c AbstractedCall>,
    args: &[ExprId],
    result: ExprId,
) -> Vec<ExprId> {
    earlier
        .filter(|c| pool.width(c.result) == pool.width(result))
        .map(|c| {
            let equal: Vec<ExprId> = c
                .args
                .iter()
                .zip(args)
                .map(|(&x, &y)| pool.eq(x, y))
                .collect();
            pool.implies(pool.and_all(&equal), pool.eq(c.result, result))
        })
        .collect()
}
