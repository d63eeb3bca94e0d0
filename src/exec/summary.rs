//! Calls by summary (mutual summaries, as regression verification proves recursive and
//! calling code): a call of a function that `ExecConfig::summaries` names does not run its
//! body; it is one application of an uninterpreted function that both sides share.
//!
//! Which functions are summarized, and on what grounds, is decided before the run
//! (`crosscheck/summaries.rs`): a callee both sides define identically, or the entry
//! functions themselves where they call themselves (the induction hypothesis of the
//! mutual-summary rule). Such a callee reads nothing but its scalar arguments (and constant
//! data), writes no memory its caller can see and calls nothing else, so its outcome is a
//! function of its arguments alone.
//!
//! A summarized call's outcome is a fresh symbolic value per application, one byte saying
//! whether the call returns and the bytes of its result, unless an earlier application of
//! the same summary on the path (either side's) had the same argument expressions: then it
//! is that one's outcome. Against every earlier application with other arguments the path
//! gets Ackermann's constraint "equal arguments ⇒ equal outcomes". Where the call does not
//! return (it fails, or never ends), the side ends as [`Termination::Summarized`]; the
//! verdict takes two such ends for agreement only when the path implies that both are the
//! same application. A replay never summarizes: it runs the real bodies.

use crate::exec::executor::Executor;
use crate::exec::state::{AbstractedCall, Grounds, State, Termination};
use crate::exec::value::Value;
use crate::expr::ExprId;
use crate::ir::{FuncId, RegId};

/// The name under which a summary's applications are kept in `State::abstracted` (not a C
/// identifier, so never an `--abstract-calls` name).
fn key(index: usize) -> String {
    format!("summary #{index}")
}

/// Adds to `state` the application of summary `index` to `args` with outcome `outcome`
/// (its "returns" byte first), against every earlier one of the same summary: "equal
/// arguments ⇒ equal outcomes". Returns its index in `State::abstracted` (an earlier
/// application's, when one had the same argument expressions and `outcome` is `None`), the
/// outcome, and the state, or `None` when the constraints contradict the path.
fn apply(
    ex: &mut Executor<'_>,
    mut state: State,
    index: usize,
    args: Vec<ExprId>,
    outcome: Option<ExprId>,
    width: u32,
) -> Option<(State, usize, ExprId)> {
    let pool = ex.pool;
    let name = key(index);
    let same_shape = |c: &AbstractedCall| {
        c.name == name
            && c.args.len() == args.len()
            && c.args
                .iter()
                .zip(&args)
                .all(|(x, y)| pool.width(*x) == pool.width(*y))
    };
    if outcome.is_none() {
        let earlier = state
            .abstracted
            .iter()
            .enumerate()
            .find(|(_, c)| same_shape(c) && c.args == args)
            .map(|(i, c)| (i, c.result));
        if let Some((i, result)) = earlier {
            return Some((state, i, result));
        }
    }
    let outcome = match outcome {
        Some(outcome) => outcome,
        None => {
            // One byte for "returns" and the result's bytes, the same for every application
            // of this summary (the callee's on both sides has one type).
            let bytes = 1 + width.div_ceil(8);
            let summary = &ex.config.summaries.as_ref()?.list[index];
            let array = pool.new_array(&format!("{}.summary", summary.name), bytes);
            let mut bytes: Vec<ExprId> = (0..bytes).map(|i| pool.sym(array, i)).collect();
            if !summary.may_fail {
                bytes[0] = pool.constant(8, 1);
            }
            pool.concat_bytes(&bytes)
        }
    };
    let earlier = state.abstracted.iter().filter(|c| same_shape(c));
    let congruence = crate::exec::abstract_call::congruence(pool, earlier, &args, outcome);
    state.abstracted.push(AbstractedCall {
        name,
        args,
        result: outcome,
    });
    for c in congruence {
        state = ex.assume(state, c)?;
    }
    let call = state.abstracted.len() - 1;
    Some((state, call, outcome))
}

/// The end of a call that ran its body (`frame`, which returned `value`) while summaries
/// are on: when it is a recursive call run at a level [`Summaries::unroll`] leaves
/// unsummarized, its outcome is an application of the summary like any other (what the
/// real function gave on those arguments), so that the other side's summarized calls on
/// equal arguments give the same. Returns the state, or `None` when that contradicts the
/// path.
pub(crate) fn unrolled_return(
    ex: &mut Executor<'_>,
    state: State,
    frame: &crate::exec::state::Frame,
    value: Option<Value>,
) -> Option<State> {
    let summaries = ex.config.summaries.clone()?;
    let Some((index, summary)) = summaries.of(frame.func) else {
        return Some(state);
    };
    if summary.grounds != Grounds::Recursive {
        return Some(state);
    }
    let pool = ex.pool;
    let function = ex.module.function(frame.func);
    let width = function.ret_width.filter(|&w| w > 0).unwrap_or(0);
    let args: Vec<ExprId> = (0..function.params.len())
        .map(|r| frame.regs.get(function.params[r].reg.index()).expr(pool))
        .collect();
    let mut bytes = vec![pool.constant(8, 1)];
    if width > 0 {
        let Some(value) = value else {
            return Some(state);
        };
        let bits = value.expr(pool);
        let padded = width.div_ceil(8) * 8;
        let bits = if padded == width {
            bits
        } else {
            pool.zext(bits, padded)
        };
        bytes.extend((0..padded / 8).map(|i| pool.extract(bits, i * 8, 8)));
    }
    let outcome = pool.concat_bytes(&bytes);
    apply(ex, state, index, args, Some(outcome), width).map(|(state, _, _)| state)
}

/// A call of `func`, which summary `index` stands for, with `args`, whose result (if the
/// caller keeps it) goes to `dst`. Returns the state to keep running (the call returned),
/// or `None` when the path ended.
pub(crate) fn summary_call(
    ex: &mut Executor<'_>,
    state: State,
    func: FuncId,
    index: usize,
    dst: Option<RegId>,
    args: &[Value],
) -> Option<State> {
    let pool = ex.pool;
    let function = ex.module.function(func);
    let width = function.ret_width.filter(|&w| w > 0).unwrap_or(0);
    let args: Vec<ExprId> = args.iter().map(|a| a.expr(pool)).collect();
    let (state, call, outcome) = apply(ex, state, index, args, None, width)?;
    let total = pool.width(outcome);
    let returns_byte = pool.extract(outcome, 0, 8);
    let returns = pool.ne(returns_byte, pool.constant(8, 0));
    let (returned, ended) = if pool.as_const(returns) == Some(1) {
        (Some(state), None)
    } else {
        ex.branch(state, returns)?
    };
    if let Some(ended) = ended {
        let name = ex.config.summaries.as_ref()?.list[index].name.clone();
        ex.fail(ended, Termination::Summarized { name, call });
    }
    let mut state = returned?;
    if let (Some(dst), true) = (dst, width > 0) {
        let bits = pool.extract(outcome, 8, total - 8);
        let value = if total - 8 == width {
            bits
        } else {
            pool.extract(bits, 0, width)
        };
        ex.set(&mut state, dst, Value::from_expr(pool, value));
    }
    Some(state)
}
