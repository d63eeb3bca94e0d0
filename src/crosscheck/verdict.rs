//! The crosscheck driver: starts B when A ends, then decides the path's verdict.
//!
//! - Both returned: `pc ⇒ (retA = retB ∧ bufA = bufB)` is checked by asking whether
//!   `pc ∧ ¬(…)` is satisfiable: unsatisfiable proves the path, a model is a divergence.
//! - Both failed the same way: agreement (`ErrorBoth`); differently: a divergence.
//! - One failed: `ErrorOne`, a divergence whatever the input on this path.
//! - The engine gave up on either side: `Unknown`, with the reason.

use super::float::display_float;
use super::rows::{Decision, RowDriver, Rows};
use super::setup::{make_buffer, Arguments, Signature};
use crate::exec::{Driver, Executor, Exit, SideOutcome, State, Unanswered, Value};
use crate::expr::{mask, to_signed, Assignment, ExprId, ExprPool};
use crate::report::{InputValue, PathVerdict};
use std::sync::Arc;

pub struct CrossDriver<'s> {
    sig: &'s Signature,
    compare_buffers: bool,
    args: Arguments,
    pub(crate) rows: Rows,
    /// Time left for making counterexamples readable.
    minimize_left: std::time::Duration,
}

impl<'s> CrossDriver<'s> {
    pub fn new(sig: &'s Signature, compare_buffers: bool, args: Arguments) -> Self {
        CrossDriver {
            sig,
            compare_buffers,
            args,
            rows: Rows::default(),
            minimize_left: super::minimize::TOTAL_BUDGET,
        }
    }

    /// What side A or B ended with, reading its buffers' final bytes.
    fn outcome(&self, ex: &Executor<'_>, state: &State, exit: Exit) -> Result<SideOutcome, String> {
        match exit {
            Exit::Returned(value) => {
                let buffers = state
                    .buffers
                    .iter()
                    .map(|&address| match state.memory.get(address) {
                        Some((_, contents)) => contents.read_bytes(ex.pool, 0, contents.size()),
                        None => Vec::new(),
                    })
                    .collect();
                Ok(SideOutcome::Returned { value, buffers })
            }
            Exit::Exited(status) => Ok(SideOutcome::Exited(status)),
            Exit::Failed(f) => Ok(SideOutcome::Failed(f)),
            Exit::Silent => Err("klee_silent_exit".into()),
            Exit::Unknown(why) => Err(why),
        }
    }

    /// The concrete inputs of a model, one per parameter, then one per global input.
    fn inputs(&self, ex: &Executor<'_>, _state: &State, model: &Assignment) -> Vec<InputValue> {
        let globals = self
            .sig
            .globals
            .shared
            .iter()
            .zip(&self.args.globals)
            .filter(|(g, _)| g.input)
            .map(|(g, bytes)| {
                let concrete: Vec<u8> =
                    bytes.iter().map(|b| concrete_byte(ex, *b, model)).collect();
                InputValue {
                    name: g.object_name(),
                    display: display_buffer(&concrete),
                    bytes: concrete,
                }
            });
        let params: Vec<InputValue> = self
            .sig
            .params
            .iter()
            .zip(&self.args.bytes)
            .map(|(p, bytes)| {
                let concrete: Vec<u8> =
                    bytes.iter().map(|b| concrete_byte(ex, *b, model)).collect();
                let display = match p.buffer {
                    Some(_) => display_buffer(&concrete),
                    None => {
                        let bits = concrete
                            .iter()
                            .rev()
                            .fold(0u128, |acc, &b| (acc << 8) | b as u128);
                        let (ty, _) = p.assume_type();
                        if p.float {
                            display_float(p.width, mask(p.width, bits))
                        } else if ty.signed() {
                            display_int(p.width, mask(p.width, bits))
                        } else {
                            display_unsigned(mask(p.width, bits))
                        }
                    }
                };
                InputValue {
                    name: p.name.clone(),
                    bytes: concrete,
                    display,
                }
            })
            .collect();
        params.into_iter().chain(globals).collect()
    }

    /// Starts side B on `state`: fresh buffers with the initial bytes, the same scalars.
    fn start_b(&self, ex: &mut Executor<'_>, mut state: State) -> State {
        let mut values = Vec::new();
        let mut buffers = Vec::new();
        for ((p, value), bytes) in self
            .sig
            .params
            .iter()
            .zip(&self.args.values)
            .zip(&self.args.bytes)
        {
            if p.buffer.is_some() {
                let address = make_buffer(ex, &mut state, &p.name, bytes);
                buffers.push(address);
                values.push(Value::concrete(crate::ir::PTR_WIDTH, address as u128));
            } else {
                values.push(*value);
            }
        }
        buffers.extend(self.sig.globals.shared.iter().map(|g| g.b));
        state.buffers = buffers;
        state.phase = 1;
        ex.push_call(&mut state, self.sig.b, &values, None);
        ex.cover(self.sig.b, crate::ir::BlockId(0));
        state
    }

    /// A pointer returned by B, translated to the same offset in A's buffer when it points
    /// into one of B's buffers (the two sides' buffers live at different addresses).
    fn pointer_in_a(&self, ex: &Executor<'_>, state: &State, v: Value) -> Value {
        let pool = ex.pool;
        let a_buffers: Vec<u64> = self
            .sig
            .params
            .iter()
            .zip(&self.args.values)
            .filter(|(p, _)| p.buffer.is_some())
            .map(|(_, v)| v.as_concrete().unwrap_or(0) as u64)
            .collect();
        let sizes = self.sig.params.iter().filter_map(|p| p.buffer);
        let mut e = v.expr(pool);
        for ((&b_base, &a_base), size) in state.buffers.iter().zip(&a_buffers).zip(sizes) {
            let lo = pool.constant(64, b_base as u128);
            // One past the end is a valid pointer too.
            let hi = pool.constant(64, (b_base + size as u64) as u128);
            let inside = pool.bool_and(pool.ule(lo, e), pool.ule(e, hi));
            let moved = pool.add(pool.sub(e, lo), pool.constant(64, a_base as u128));
            e = pool.ite(inside, moved, e);
        }
        Value::from_expr(pool, e)
    }

    /// The memory a returning side leaves, in the order of `SideOutcome::Returned`'s
    /// buffers: each buffer parameter, then each shared global; with its label and whether
    /// it is compared (buffers unless `--compare-buffers false` or `byval`, globals always).
    fn memory_outputs(&self) -> Vec<(String, bool)> {
        let buffers = self
            .sig
            .params
            .iter()
            .filter(|p| p.buffer.is_some())
            .map(|p| {
                (
                    format!("buffer '{}'", p.name),
                    p.compared && self.compare_buffers,
                )
            });
        let globals = self
            .sig
            .globals
            .shared
            .iter()
            .map(|g| (format!("global '{}'", g.name), true));
        buffers.chain(globals).collect()
    }

    /// Decides a path where both sides ended: its row. A row that shows inputs shows a
    /// readable model: of the path condition when the outcomes differ whatever the input,
    /// of a difference of the results otherwise (the results are then shown for it).
    /// `None` when the question whether the results differ went unanswered in its first
    /// try: the path's end waits.
    fn decide(
        &mut self,
        ex: &mut Executor<'_>,
        state: &State,
        a: &SideOutcome,
        b: &SideOutcome,
    ) -> Option<Decision> {
        use SideOutcome::Failed;
        let float = self.sig.ret_is_float;
        let results = (describe(ex, a, float), describe(ex, b, float));
        let (verdict, detail, model, (result_a, result_b)) = match (a, b) {
            (Failed(fa), Failed(fb)) if fa.kind.same_kind(&fb.kind) => {
                let detail = format!(
                    "both fail: {} (A at {}, B at {})",
                    fa.kind.describe(),
                    fa.loc,
                    fb.loc
                );
                let model = self.any_model(ex, state);
                (PathVerdict::ErrorBoth, detail, model, results)
            }
            (Failed(fa), Failed(fb)) => {
                let detail = format!(
                    "A: {} at {}; B: {} at {}",
                    fa.kind.describe(),
                    fa.loc,
                    fb.kind.describe(),
                    fb.loc
                );
                let model = self.any_model(ex, state);
                (PathVerdict::Diverged, detail, model, results)
            }
            (Failed(f), _) | (_, Failed(f)) => {
                let side = if matches!(a, Failed(_)) { "A" } else { "B" };
                let detail = format!("only {side} fails: {} at {}", f.kind.describe(), f.place());
                let model = self.any_model(ex, state);
                (PathVerdict::ErrorOne, detail, model, results)
            }
            _ => match self.difference_terms(ex, state, a, b) {
                None => {
                    let detail = "one side returns, the other exits".to_string();
                    let model = self.any_model(ex, state);
                    (PathVerdict::Diverged, detail, model, results)
                }
                Some(terms) => match self.difference(ex, state, &terms) {
                    Ok(None) => (PathVerdict::Proved, String::new(), None, results),
                    Err(Unanswered::Later) => return None,
                    Err(Unanswered::GaveUp(why)) => (
                        PathVerdict::Unknown,
                        format!("{why} asking whether the results differ"),
                        None,
                        results,
                    ),
                    Ok(Some((model, detail))) => {
                        let shown = self.results_on(ex, a, b, &model);
                        (PathVerdict::Diverged, detail, Some(model), shown)
                    }
                },
            },
        };
        // A failure row shows the other side's result on the row's inputs, not `<symbolic>`.
        let (result_a, result_b) = match (&model, &verdict) {
            (Some(m), PathVerdict::ErrorOne | PathVerdict::ErrorBoth) => {
                self.results_on(ex, a, b, m)
            }
            _ => (result_a, result_b),
        };
        let inputs = match &model {
            Some(m) => self.inputs(ex, state, m),
            None => Vec::new(),
        };
        Some(Decision {
            verdict,
            inputs,
            result_a,
            result_b,
            detail,
            class: None,
            three: None,
        })
    }

    /// Both sides' results with every symbolic part evaluated in `model`.
    fn results_on(
        &self,
        ex: &Executor<'_>,
        a: &SideOutcome,
        b: &SideOutcome,
        model: &Assignment,
    ) -> (String, String) {
        let labels: Vec<String> = self.memory_outputs().into_iter().map(|(l, _)| l).collect();
        let float = self.sig.ret_is_float;
        (
            concrete_outcome(ex, a, model, &labels, float),
            concrete_outcome(ex, b, model, &labels, float),
        )
    }

    /// The ways two returns (or two exits) may differ, each with its name: the return
    /// value, each compared buffer and global, the exit status. `None` when one side
    /// returned and the other exited.
    fn difference_terms(
        &self,
        ex: &Executor<'_>,
        state: &State,
        a: &SideOutcome,
        b: &SideOutcome,
    ) -> Option<Vec<(String, ExprId)>> {
        let pool = ex.pool;
        let mut terms: Vec<(String, ExprId)> = Vec::new();
        match (a, b) {
            (
                SideOutcome::Returned {
                    value: va,
                    buffers: ba,
                },
                SideOutcome::Returned {
                    value: vb,
                    buffers: bb,
                },
            ) => {
                if let (Some(x), Some(y)) = (va, vb) {
                    let y = if self.sig.ret_is_pointer {
                        self.pointer_in_a(ex, state, *y)
                    } else {
                        *y
                    };
                    let (x, y) = (x.expr(pool), y.expr(pool));
                    let differ = if self.sig.ret_is_float {
                        self.sig.fp_equality.differ(pool, x, y)
                    } else {
                        pool.ne(x, y)
                    };
                    terms.push(("return value".into(), differ));
                }
                for (((name, compared), xa), xb) in
                    self.memory_outputs().into_iter().zip(ba).zip(bb)
                {
                    if !compared {
                        continue;
                    }
                    let diffs: Vec<ExprId> = xa
                        .iter()
                        .zip(xb)
                        .map(|(x, y)| pool.ne(x.expr(pool), y.expr(pool)))
                        .collect();
                    terms.push((name, pool.or_all(&diffs)));
                }
            }
            (SideOutcome::Exited(x), SideOutcome::Exited(y)) => {
                terms.push(("exit status".into(), pool.ne(x.expr(pool), y.expr(pool))));
            }
            _ => return None,
        }
        Some(terms)
    }

    /// Whether the `terms` may differ on the path: a readable model of a difference with
    /// what differs in it (`None`: equal on every input of the path), or why the solver
    /// could not tell, or that the question waits (`Executor::check_or_defer`).
    fn difference(
        &mut self,
        ex: &mut Executor<'_>,
        state: &State,
        terms: &[(String, ExprId)],
    ) -> Result<Option<(Arc<Assignment>, String)>, Unanswered> {
        let pool = ex.pool;
        let differ = pool.or_all(&terms.iter().map(|(_, t)| *t).collect::<Vec<_>>());
        if pool.as_const(differ) == Some(0) {
            return Ok(None);
        }
        let sampled = sample_difference(pool, state, differ, self.sig, &self.args);
        let model = match sampled {
            Some(model) => model,
            None => match ex.check_or_defer(state, differ)? {
                Some(model) => model,
                None => return Ok(None),
            },
        };
        let model = super::minimize::minimize(
            ex,
            state,
            differ,
            self.sig,
            &self.args,
            model,
            &mut self.minimize_left,
        );
        let what: Vec<&str> = terms
            .iter()
            .filter(|(_, t)| pool.eval(*t, &model) != 0)
            .map(|(n, _)| n.as_str())
            .collect();
        let detail = format!(
            "{} differ{}",
            what.join(", "),
            if what.len() == 1 { "s" } else { "" }
        );
        Ok(Some((model, detail)))
    }

    /// A model of the path condition (any input that follows this path), made readable.
    fn any_model(&mut self, ex: &mut Executor<'_>, state: &State) -> Option<Arc<Assignment>> {
        let model = match &state.model {
            Some(m) => m.clone(),
            None => ex.check(state, ex.pool.true_()).ok().flatten()?,
        };
        let goal = ex.pool.true_();
        Some(super::minimize::minimize(
            ex,
            state,
            goal,
            self.sig,
            &self.args,
            model,
            &mut self.minimize_left,
        ))
    }
}

impl Driver for CrossDriver<'_> {
    fn tally(&self) -> crate::exec::Tally {
        self.rows.tally()
    }

    fn on_exit(&mut self, ex: &mut Executor<'_>, mut state: State, exit: Exit) -> Option<State> {
        // Kept in case the decision waits (the state is then handed back as it was).
        let kept = exit.clone();
        let outcome = match self.outcome(ex, &state, exit) {
            Ok(o) => o,
            Err(why) => {
                let side = if state.phase == 0 { "A" } else { "B" };
                let (a, b) = if state.phase == 0 {
                    ("?".to_string(), "not run".to_string())
                } else {
                    (
                        state
                            .first
                            .as_ref()
                            .map_or("?".into(), |o| describe(ex, o, self.sig.ret_is_float)),
                        "?".to_string(),
                    )
                };
                let row = Decision::unknown(a, b, format!("{side}: {why}"));
                self.rows.push(&state, row);
                return None;
            }
        };
        if state.phase == 0 {
            state.first = Some(outcome);
            return Some(self.start_b(ex, state));
        }
        let a = state.first.as_ref().expect("side A ended before B started");
        let Some(row) = self.decide(ex, &state, a, &outcome) else {
            state.deferred_exit = Some(Box::new(kept));
            return Some(state);
        };
        self.rows.push(&state, row);
        None
    }
}

impl RowDriver for CrossDriver<'_> {
    fn rows(&self) -> &Rows {
        &self.rows
    }

    fn into_rows(self) -> Rows {
        self.rows
    }
}

fn concrete_byte(ex: &Executor<'_>, v: Value, model: &Assignment) -> u8 {
    match v {
        Value::Con { bits, .. } => bits as u8,
        Value::Sym(e) => ex.pool.eval(e, model) as u8,
    }
}

/// Concrete values tried for the float parameters before the solver is asked whether the
/// results may differ: a difference of floating-point code usually shows on most inputs,
/// while the solver's search through bit-blasted multipliers may take seconds. A model
/// found here satisfies the path condition and the difference by concrete evaluation, as
/// any model the engine uses; `None` (nothing found) leaves the question to the solver.
fn sample_difference(
    pool: &ExprPool,
    state: &crate::exec::State,
    differ: ExprId,
    sig: &Signature,
    args: &Arguments,
) -> Option<std::sync::Arc<crate::expr::Assignment>> {
    // The input bytes of every float parameter.
    let floats: Vec<(u32, Vec<(crate::expr::ArrayId, u32)>)> = sig
        .params
        .iter()
        .zip(&args.bytes)
        .filter(|(p, _)| p.float && p.buffer.is_none())
        .filter_map(|(p, bytes)| {
            super::float::input_places(pool, bytes).map(|places| (p.width, places))
        })
        .collect();
    if floats.is_empty() {
        return None;
    }
    let base = state.model.as_deref().cloned().unwrap_or_default();
    let mut all = state.constraints.as_slice().to_vec();
    all.push(differ);
    let widths: Vec<u32> = floats.iter().map(|(w, _)| *w).collect();
    for values in super::float::samples(&widths) {
        let mut model = base.clone();
        for ((_, places), value) in floats.iter().zip(values) {
            for (array, offset, byte) in super::float::patch(places, value) {
                model.set_byte(array, offset, byte);
            }
        }
        if pool.eval_all(&all, &model).iter().all(|&v| v == 1) {
            return Some(std::sync::Arc::new(model));
        }
    }
    None
}

/// A result as text, with symbolic parts shown as `<symbolic>`.
fn describe(ex: &Executor<'_>, o: &SideOutcome, float: bool) -> String {
    let value = |v: &Value| match v {
        Value::Con { width, bits } => display_value(*width, *bits, float),
        Value::Sym(_) => "<symbolic>".to_string(),
    };
    match o {
        SideOutcome::Returned { value: Some(v), .. } => format!("returns {}", value(v)),
        SideOutcome::Returned { value: None, .. } => "returns".to_string(),
        SideOutcome::Exited(v) => format!("exit({})", value(v)),
        SideOutcome::Failed(f) => {
            let _ = ex;
            format!("{} at {}", f.kind.describe(), f.place())
        }
    }
}

/// A result with every symbolic part evaluated in `model`.
fn concrete_outcome(
    ex: &Executor<'_>,
    o: &SideOutcome,
    model: &Assignment,
    labels: &[String],
    float: bool,
) -> String {
    let value = |v: &Value, float: bool| match v {
        Value::Con { width, bits } => display_value(*width, *bits, float),
        Value::Sym(e) => display_value(ex.pool.width(*e), ex.pool.eval(*e, model), float),
    };
    match o {
        SideOutcome::Returned { value: v, buffers } => {
            let mut text = match v {
                Some(v) => format!("returns {}", value(v, float)),
                None => "returns".to_string(),
            };
            for (b, label) in buffers.iter().zip(labels) {
                let bytes: Vec<u8> = b.iter().map(|x| concrete_byte(ex, *x, model)).collect();
                text.push_str(&format!(", {label} {}", display_buffer(&bytes)));
            }
            text
        }
        SideOutcome::Exited(v) => format!("exit({})", value(v, false)),
        SideOutcome::Failed(f) => format!("{} at {}", f.kind.describe(), f.place()),
    }
}

/// A returned value: a float as [`display_float`] shows it, else as [`display_int`].
fn display_value(width: u32, bits: u128, float: bool) -> String {
    if float {
        display_float(width, bits)
    } else {
        display_int(width, bits)
    }
}

/// An integer as C would print it: signed when negative as signed, with its hex for large values.
pub fn display_int(width: u32, bits: u128) -> String {
    if width == 1 {
        return bits.to_string();
    }
    let signed = to_signed(width, bits);
    if signed < 0 {
        format!("{signed}")
    } else if bits >= 0x10000 {
        format!("{bits} (0x{bits:x})")
    } else {
        bits.to_string()
    }
}

/// An unsigned integer as C would print it, with its hex for large values.
pub fn display_unsigned(bits: u128) -> String {
    if bits >= 0x10000 {
        format!("{bits} (0x{bits:x})")
    } else {
        bits.to_string()
    }
}

/// A buffer as a C string literal.
pub fn display_buffer(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0 => s.push_str("\\0"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('"');
    s
}
