//! The crosscheck driver: starts B when A ends, then decides the path's verdict.
//!
//! - Both returned: `pc ⇒ (retA = retB ∧ bufA = bufB)` is checked by asking whether
//!   `pc ∧ ¬(…)` is satisfiable: unsatisfiable proves the path, a model is a divergence.
//! - Both failed the same way: agreement (`ErrorBoth`); differently: a divergence.
//! - One failed: `ErrorOne`, a divergence whatever the input on this path.
//! - The engine gave up on either side: `Unknown`, with the reason.

use super::float::display_float;
use super::outcome::{concrete_byte, concrete_outcome, describe, Shown};
use super::pointers::{self, Span};
use super::rows::{Decision, RowDriver, Rows};
use super::setup::{at_offset, input_byte, make_buffer, Arguments, Signature, OFFSET_SUFFIX};
use super::show::{display_buffer, display_int, display_unsigned};
use crate::exec::{
    Driver, Executor, Exit, Flush, SideOutcome, SolverFailure, State, Unanswered, Value,
};
use crate::expr::{mask, Assignment, ExprId, ExprPool};
use crate::ir::PTR_WIDTH;
use crate::report::unknown::{Phase, Question};
use crate::report::{InputValue, PathVerdict, UnknownReason};
use std::sync::Arc;

pub struct CrossDriver<'s> {
    sig: &'s Signature,
    compare_buffers: bool,
    args: Arguments,
    pub(crate) rows: Rows,
    /// Time left for making counterexamples readable.
    minimize_left: std::time::Duration,
    /// The module's globals and functions of B with their counterparts in A, made on the
    /// first pointer compared.
    module_spans: std::sync::OnceLock<Vec<Span>>,
    /// The values of undefined behaviour the row being decided rests on (its finding's):
    /// the only ones its test records bytes of.
    named: std::collections::HashSet<crate::expr::ArrayId>,
    /// The one side's undefined behaviour the row being decided rests on
    /// (`PathRow::undefined`).
    undefined: Option<String>,
    /// In a run by summaries (`summaries.rs`), its stop token: the first row that is not
    /// proved ends that run, whose only use is a proof.
    summarizing: Option<crate::stop::Stop>,
}

impl<'s> CrossDriver<'s> {
    pub fn new(sig: &'s Signature, compare_buffers: bool, args: Arguments) -> Self {
        CrossDriver {
            sig,
            compare_buffers,
            args,
            rows: Rows::default(),
            minimize_left: super::minimize::TOTAL_BUDGET,
            module_spans: std::sync::OnceLock::new(),
            named: Default::default(),
            undefined: None,
            summarizing: None,
        }
    }

    /// The driver of a run by summaries, which `stop` ends on its first row not proved
    /// (its counterexamples are not minimized: they are never reported).
    pub(crate) fn summarizing(mut self, stop: crate::stop::Stop) -> Self {
        self.summarizing = Some(stop);
        self.minimize_left = std::time::Duration::ZERO;
        self
    }

    /// Keeps a path's row; in a run by summaries, a row not proved ends the run.
    fn push(&mut self, state: &State, row: Decision) {
        if let (Some(stop), false) = (&self.summarizing, row.verdict == PathVerdict::Proved) {
            stop.set_deadline(std::time::Instant::now());
        }
        self.rows.push(state, row);
    }

    /// What side A or B ended with, reading its buffers' final bytes.
    fn outcome(
        &self,
        ex: &Executor<'_>,
        state: &State,
        exit: Exit,
    ) -> Result<SideOutcome, UnknownReason> {
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
            Exit::Silent => Err(UnknownReason::SilentExit),
            Exit::Unknown(why) => Err(UnknownReason::Engine(why.to_string())),
        }
    }

    /// The concrete inputs of a model, one per parameter, then one per global input.
    fn inputs(&self, ex: &Executor<'_>, state: &State, model: &Assignment) -> Vec<InputValue> {
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
            .enumerate()
            .flat_map(|(i, p)| {
                // A buffer that grew on the path has its grown bytes.
                let concrete: Vec<u8> = (0..super::setup::buffer_len(state, &self.args, i))
                    .map(|k| concrete_byte(ex, input_byte(ex, &self.args, i, k), model))
                    .collect();
                // Under --buffer-offset or --alias, where the buffer starts in its object:
                // the buffer is shown from there, the offset as an input of its own (4
                // bytes under --alias); an aliased buffer's bytes are its group's first's.
                let offset = self.args.offsets[i].map(|o| concrete_value(ex, o, model));
                let start = offset.map_or(0, |o| o as usize).min(concrete.len());
                let display = match p.buffer {
                    Some(_) => p.display_buffer(&concrete[start..]),
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
                let width = if p.alias.is_some() { 4 } else { 1 };
                let offset = offset.map(|o| InputValue {
                    name: format!("{}{OFFSET_SUFFIX}", p.name),
                    bytes: o.to_le_bytes()[..width].to_vec(),
                    display: o.to_string(),
                });
                let own = p.alias.is_none_or(|a| a.leader == i);
                let bytes = own.then(|| InputValue {
                    name: p.name.clone(),
                    bytes: concrete,
                    display,
                });
                bytes.into_iter().chain(offset)
            })
            .collect();
        // The values undefined behaviour gave on the path, so that replay takes it: those
        // of the operations undefined on this input, in the order they ran, which is the
        // order a concrete replay makes them in (it makes one only where the operation is
        // undefined).
        let happened = state
            .undefined
            .iter()
            .filter(|u| ex.pool.eval(u.cond, model) != 0);
        // Only the values the row's undefined behaviour rests on get bytes: a replay pins
        // those (its pins read them, as the row did); the others are made in their place,
        // unpinned, and matter to the replay only as they did to the row (not at all, or
        // through every value they may take).
        let undefined = happened.enumerate().map(|(k, u)| {
            let size = if self.named.contains(&u.array) {
                ex.pool.array_info(u.array).size
            } else {
                0
            };
            let bytes: Vec<u8> = (0..size)
                .map(|i| ex.pool.eval(ex.pool.sym(u.array, i), model) as u8)
                .collect();
            let bits = bytes
                .iter()
                .rev()
                .fold(0u128, |acc, &b| (acc << 8) | b as u128);
            InputValue {
                name: format!("{}{k}", super::setup::UNDEFINED_OBJECT),
                display: if size == 0 {
                    "any (not recorded)".to_string()
                } else {
                    format!("0x{bits:x}")
                },
                bytes,
            }
        });
        // Positions count (the k-th value made is the k-th recorded); those past the last
        // recorded one are left out.
        let mut undefined: Vec<InputValue> = undefined.collect();
        let recorded = undefined.iter().rposition(|u| !u.bytes.is_empty());
        undefined.truncate(recorded.map_or(0, |k| k + 1));
        params.into_iter().chain(globals).chain(undefined).collect()
    }

    /// Starts side B on `state`: fresh buffers with the initial bytes, the same scalars.
    fn start_b(&self, ex: &mut Executor<'_>, mut state: State) -> State {
        state.second_start = state.allocator.next_address();
        let mut values = Vec::new();
        let mut buffers = Vec::new();
        for (i, ((p, value), bytes)) in self
            .sig
            .params
            .iter()
            .zip(&self.args.values)
            .zip(&self.args.bytes)
            .enumerate()
        {
            if p.buffer.is_some() {
                let growth = self.args.growth[i];
                // An aliased buffer points into its group's object, made once.
                let shared = p.alias.filter(|a| a.leader != i);
                let address = match shared {
                    Some(a) => buffers[super::setup::buffer_index(self.sig, a.leader)],
                    None => make_buffer(ex, &mut state, &p.name, bytes, growth),
                };
                buffers.push(address);
                values.push(at_offset(ex, address, self.args.offsets[i]));
            } else {
                values.push(*value);
            }
        }
        buffers.extend(self.sig.globals.shared.iter().map(|g| g.b));
        state.buffers = buffers;
        // A global the two sides share (errno) starts B as it started A.
        for (g, bytes) in self.sig.globals.shared.iter().zip(&self.args.globals) {
            if g.a != g.b {
                continue;
            }
            let init = ex.module.globals.iter().find(|m| m.address == g.b);
            if let Some(contents) = state.memory.get_mut(g.b) {
                for k in 0..g.size as usize {
                    let byte = match bytes.get(k) {
                        Some(b) => *b,
                        None => Value::concrete(8, init.map_or(0, |m| m.init[k]) as u128),
                    };
                    contents.set_byte(ex.pool, k, byte);
                }
            }
        }
        state.phase = 1;
        ex.push_call(&mut state, self.sig.b, &values, None);
        ex.cover(self.sig.b, crate::ir::BlockId(0));
        state
    }

    /// Whether two returned aggregates with `float`/`double` fields differ: each such field
    /// as `--fp-equal` says, the other bits as bits. `None` when the return is no such
    /// aggregate, or when floats are compared bit for bit anyway.
    fn fields_differ(&self, pool: &ExprPool, x: ExprId, y: ExprId) -> Option<ExprId> {
        let fields = &self.sig.ret_float_fields;
        let width = pool.width(x);
        if fields.is_empty() || self.sig.fp_equality == super::FpEquality::Bits || width > 128 {
            return None;
        }
        let mut others = mask(width, u128::MAX);
        let mut parts = Vec::new();
        for &(lo, w) in fields {
            if lo + w > width {
                return None;
            }
            others &= !(mask(w, u128::MAX) << lo);
            let (a, b) = (pool.extract(x, lo, w), pool.extract(y, lo, w));
            parts.push(self.sig.fp_equality.differ(pool, a, b));
        }
        if others != 0 {
            let m = pool.constant(width, others);
            parts.push(pool.ne(pool.and(x, m), pool.and(y, m)));
        }
        Some(pool.or_all(&parts))
    }

    /// B's objects with their counterparts in A on this path (`pointers.rs`).
    fn spans(&self, ex: &Executor<'_>, state: &State) -> Vec<Span> {
        let mut spans = self
            .module_spans
            .get_or_init(|| pointers::module_spans(ex.module))
            .clone();
        // A's buffer objects (an aliased group's once per member), each of its first size.
        let a_buffers: Vec<pointers::Extent> = self
            .sig
            .params
            .iter()
            .filter(|p| p.buffer.is_some())
            .zip(&self.args.bases)
            .map(|(p, &base)| (base, u64::from(p.object_size())))
            .collect();
        spans.extend(pointers::path_spans(state, &a_buffers, state.second_start));
        spans.sort_by_key(|s| s.b);
        spans
    }

    /// For each pointer of A compared with B's (`roots`: the memory that holds it, `None` for
    /// the return value; the pointer): each
    /// heap object of A that it may point into, whether that object's contents differ from
    /// its counterpart's in B (the bytes both have; words that may be addresses compared as
    /// pointers, whose heap objects are compared in turn), named after the object and what
    /// reaches it. An object reached twice is compared under its first route only.
    fn reached_objects(
        &self,
        ex: &Executor<'_>,
        state: &State,
        mover: &pointers::Mover<'_, impl Fn() -> Vec<Span>>,
        roots: Vec<(Option<String>, ExprId)>,
    ) -> Vec<(String, ExprId)> {
        let pool = ex.pool;
        let mut terms = Vec::new();
        if roots.is_empty() {
            return terms;
        }
        let pairs = pointers::heap_pairs(state, state.second_start);
        let mut seen = vec![false; pairs.len()];
        // What reaches the pointer, the pointer, and when the route to it is taken.
        let mut work: Vec<(Option<String>, ExprId, ExprId)> = roots
            .into_iter()
            .rev()
            .map(|(via, x)| (via, x, pool.true_()))
            .collect();
        while let Some((via, x, route)) = work.pop() {
            for (k, &((a, a_size), (b, b_size))) in pairs.iter().enumerate() {
                let lo = pool.constant(64, a as u128);
                let hi = pool.constant(64, (a + a_size) as u128);
                let inside = pool.bool_and(route, pool.bool_and(pool.ule(lo, x), pool.ule(x, hi)));
                if seen[k] || pool.as_const(inside) == Some(0) {
                    continue;
                }
                seen[k] = true;
                let (Some((object, xa)), Some((_, xb))) =
                    (state.memory.find(a), state.memory.find(b))
                else {
                    continue;
                };
                let n = a_size.min(b_size) as usize;
                let compared =
                    mover.compare(&xa.read_bytes(pool, 0, n), &xb.read_bytes(pool, 0, n));
                let name = match &via {
                    None => format!("returned object ({})", object.name),
                    Some(memory) => format!("object ({}) reached from {memory}", object.name),
                };
                terms.push((name, pool.bool_and(inside, pool.or_all(&compared.differ))));
                for p in compared.pointers.into_iter().rev() {
                    work.push((via.clone(), p, inside));
                }
            }
        }
        terms
    }

    /// How each of `memory_outputs` grows on demand (buffers only: `memory::Growth`).
    fn growing_buffers(&self) -> impl Iterator<Item = Option<crate::exec::memory::Growth>> + '_ {
        let buffers = self
            .sig
            .params
            .iter()
            .zip(&self.args.growth)
            .filter(|(p, _)| p.buffer.is_some())
            .map(|(_, g)| *g);
        buffers.chain(std::iter::repeat(None))
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
                // A group of aliased buffers is one object, compared as its first's.
                let shared = p
                    .alias
                    .is_some_and(|a| self.sig.params[a.leader].name != p.name);
                (
                    format!("buffer '{}'", p.name),
                    p.compared && self.compare_buffers && !shared,
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
        self.named.clear();
        self.undefined = None;
        let shown = self.shown();
        let (out_a, out_b) = (&state.first_outputs[0], &state.outputs[0]);
        let results = (
            describe(ex, state, a, shown, out_a),
            describe(ex, state, b, shown, out_b),
        );
        if let Some(decided) = super::summaries::summarized_ends(ex, state, a, b, &results) {
            return Some(decided);
        }
        let (verdict, detail, model, (result_a, result_b)) = match (a, b) {
            (Failed(fa), Failed(fb)) if fa.kind.same_kind(&fb.kind) => {
                let detail = format!(
                    "both fail: {} (A at {}, B at {})",
                    fa.kind.describe(),
                    fa.loc,
                    fb.loc
                );
                self.failure_row(ex, state, PathVerdict::ErrorBoth, detail, results)?
            }
            (Failed(fa), Failed(fb)) => {
                let detail = format!(
                    "A: {} at {}; B: {} at {}",
                    fa.kind.describe(),
                    fa.loc,
                    fb.kind.describe(),
                    fb.loc
                );
                self.failure_row(ex, state, PathVerdict::Diverged, detail, results)?
            }
            (Failed(f), _) | (_, Failed(f)) => {
                let side = if matches!(a, Failed(_)) { "A" } else { "B" };
                let detail = format!("only {side} fails: {} at {}", f.kind.describe(), f.place());
                self.failure_row(ex, state, PathVerdict::ErrorOne, detail, results)?
            }
            _ => match self.difference_terms(ex, state, a, b) {
                None => {
                    let detail = "one side returns, the other exits".to_string();
                    let model = self.any_model(ex, state);
                    (PathVerdict::Diverged, detail, model, results)
                }
                Some(terms) => match self.difference(ex, state, &terms, (a, b)) {
                    Ok(None) => match self.poison_under_proof(ex, state, a, b) {
                        Ok(None) => (PathVerdict::Proved, String::new(), None, results),
                        Ok(Some((model, ub, outcome))) => {
                            self.undefined = ub.one_side();
                            let (verdict, detail) = ub.row(outcome);
                            let results = self.results_on(ex, state, a, b, &model);
                            (verdict, detail, Some(model), results)
                        }
                        Err(Unanswered::Later) => return None,
                        Err(Unanswered::GaveUp(why)) => (
                            PathVerdict::Unknown,
                            UnknownReason::Asking {
                                why: why.to_string(),
                                question: Question::RestOnPoison,
                            }
                            .to_string(),
                            None,
                            results,
                        ),
                    },
                    Ok(Some(Found::Undefined(model, ub))) => {
                        self.named = ub.arrays.iter().copied().collect();
                        self.undefined = ub.one_side();
                        let (verdict, detail) = ub.row("the results differ");
                        let results = self.results_on(ex, state, a, b, &model);
                        (verdict, detail, Some(model), results)
                    }
                    Err(Unanswered::Later) => return None,
                    Err(Unanswered::GaveUp(why)) => (
                        PathVerdict::Unknown,
                        UnknownReason::Asking {
                            why: why.to_string(),
                            question: Question::ResultsDiffer,
                        }
                        .to_string(),
                        None,
                        results,
                    ),
                    Ok(Some(Found::Defined(model, detail))) => {
                        let results = self.results_on(ex, state, a, b, &model);
                        (PathVerdict::Diverged, detail, Some(model), results)
                    }
                },
            },
        };
        // A failure row shows the other side's result on the row's inputs, not `<symbolic>`.
        let (result_a, result_b) = match (&model, &verdict) {
            (Some(m), PathVerdict::ErrorOne | PathVerdict::ErrorBoth) => {
                self.results_on(ex, state, a, b, m)
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
            undefined: self.undefined.take(),
        })
    }

    /// The results differ, with the flagged values each side's results read fresh where
    /// their flags fail (`poison.rs`); `None` when the path has none.
    fn fresh_goal(
        &self,
        ex: &Executor<'_>,
        state: &State,
        (a, b): (&SideOutcome, &SideOutcome),
        poisoned: &mut super::poison::Poisoned<'_>,
    ) -> Option<ExprId> {
        if state.flagged.is_empty() {
            return None;
        }
        let pool = ex.pool;
        let in_a = poisoned.reaching_outcome(0, a);
        let in_b = poisoned.reaching_outcome(1, b);
        if in_a.is_empty() && in_b.is_empty() {
            return None;
        }
        let a = poisoned.outcome(a, &in_a);
        let b = poisoned.outcome(b, &in_b);
        let terms = self.difference_terms(ex, state, &a, &b)?;
        Some(pool.or_all(&terms.iter().map(|(_, t)| *t).collect::<Vec<_>>()))
    }

    /// Whether the results both sides agree on (`difference` found none) rest on the
    /// poison of an operation whose flag fails (`poison.rs`): a branch of the path that
    /// read one where it fails, or results that differ once each side's flagged values
    /// they read may be any value there. A model where they do, the operations it rests on,
    /// and what it makes happen.
    #[allow(clippy::type_complexity)]
    fn poison_under_proof(
        &mut self,
        ex: &mut Executor<'_>,
        state: &State,
        a: &SideOutcome,
        b: &SideOutcome,
    ) -> Result<Option<(Arc<Assignment>, UbFinding, &'static str)>, Unanswered> {
        if state.flagged.is_empty() {
            return Ok(None);
        }
        let pool = ex.pool;
        let active = |indices: &[usize], m: &Assignment| -> Vec<&crate::exec::FlaggedValue> {
            let all: Vec<&crate::exec::FlaggedValue> =
                indices.iter().map(|&i| &state.flagged[i]).collect();
            let on: Vec<&crate::exec::FlaggedValue> = all
                .iter()
                .copied()
                .filter(|f| pool.eval(f.cond, m) != 0)
                .collect();
            if on.is_empty() {
                all
            } else {
                on
            }
        };
        // A flag that failed on concrete operands is undefined behaviour the path certainly
        // ran into; its poison may be read where no expression shows it any more (a
        // comparison of it the pool folded), as in a concrete replay of a test, which must
        // decide such a path as the check did.
        let certain: Vec<usize> = (0..state.flagged.len())
            .filter(|&i| pool.as_const(state.flagged[i].cond) == Some(1))
            .collect();
        if !certain.is_empty() {
            if let Some(m) = ex.check_or_defer(state, pool.true_())? {
                let finding = UbFinding::of_flagged(ex, &active(&certain, &m));
                return Ok(Some((m, finding, "the path runs")));
            }
        }
        let mut poisoned = super::poison::Poisoned::new(pool, state);
        let branches = poisoned.branch_events();
        if !branches.is_empty() {
            let on_poison = poisoned.branch_poison(&branches);
            if pool.as_const(on_poison) != Some(0) {
                if let Some(m) = ex.check_or_defer(state, on_poison)? {
                    let finding = UbFinding::of_flagged(ex, &active(&branches, &m));
                    return Ok(Some((m, finding, "the path is taken")));
                }
            }
        }
        let in_a = poisoned.reaching_outcome(0, a);
        let in_b = poisoned.reaching_outcome(1, b);
        if in_a.is_empty() && in_b.is_empty() {
            return Ok(None);
        }
        // Whether any of them can fail on the path at all, before the results are made
        // again with fresh values (a product chain with fresh values in it is hard for the
        // solver; an optimizer's flags it proved, which ranges do not see, seldom are).
        let conds: Vec<ExprId> = in_a
            .iter()
            .chain(&in_b)
            .map(|&i| state.flagged[i].cond)
            .collect();
        if ex.check_or_defer(state, pool.or_all(&conds))?.is_none() {
            return Ok(None);
        }
        let (fresh_a, fresh_b) = (poisoned.outcome(a, &in_a), poisoned.outcome(b, &in_b));
        let Some(terms) = self.difference_terms(ex, state, &fresh_a, &fresh_b) else {
            return Ok(None);
        };
        let differ = pool.or_all(&terms.iter().map(|(_, t)| *t).collect::<Vec<_>>());
        if pool.as_const(differ) == Some(0) {
            return Ok(None);
        }
        let Some(m) = ex.check_or_defer(state, differ)? else {
            return Ok(None);
        };
        // The sides whose own results the poison changes on the model: an operation
        // computed before a `select` that drops it reaches its side's results and changes
        // nothing.
        let free = fresh_inputs(state, &poisoned);
        let by_a = side_changes(ex, (a, &fresh_a), &free, &m);
        let by_b = side_changes(ex, (b, &fresh_b), &free, &m);
        let both: Vec<usize> = match (by_a, by_b) {
            (true, false) => in_a,
            (false, true) => in_b,
            _ => in_a.iter().chain(&in_b).copied().collect(),
        };
        let finding = UbFinding::of_flagged(ex, &active(&both, &m));
        Ok(Some((m, finding, "the results differ")))
    }

    /// Both sides' results with every symbolic part evaluated in `model`.
    fn results_on(
        &self,
        ex: &Executor<'_>,
        state: &State,
        a: &SideOutcome,
        b: &SideOutcome,
        model: &Assignment,
    ) -> (String, String) {
        // Each output's label and the type of its elements (debug information's).
        let elements = (self.sig.params.iter())
            .filter(|p| p.buffer.is_some())
            .map(|p| p.typed_elements())
            .chain(std::iter::repeat(None));
        let labels: Vec<(String, Option<crate::assume::CType>)> = (self.memory_outputs())
            .into_iter()
            .map(|(l, _)| l)
            .zip(elements)
            .collect();
        let shown = self.shown();
        (
            concrete_outcome(ex, state, a, model, &labels, shown, &state.first_outputs[0]),
            concrete_outcome(ex, state, b, model, &labels, shown, &state.outputs[0]),
        )
    }

    /// How the return value is shown.
    fn shown(&self) -> Shown<'_> {
        if self.sig.ret_is_float {
            Shown::Float
        } else if self.sig.ret_is_pointer {
            Shown::Pointer
        } else if !self.sig.ret_float_fields.is_empty()
            && self.sig.ret_width.is_some_and(|w| w <= 128)
        {
            Shown::Fields(&self.sig.ret_float_fields)
        } else {
            Shown::Int
        }
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
        let mover = pointers::Mover::new(pool, || self.spans(ex, state));
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
                // Pointers of A compared with B's, for the heap objects they reach.
                let mut roots: Vec<(Option<String>, ExprId)> = Vec::new();
                if let (Some(x), Some(y)) = (va, vb) {
                    let (x, y) = (x.expr(pool), y.expr(pool));
                    let differ = if self.sig.ret_is_float {
                        self.sig.fp_equality.differ(pool, x, y)
                    } else if let Some(d) = self.fields_differ(pool, x, y) {
                        d
                    } else if self.sig.ret_is_pointer {
                        roots.push((None, x));
                        pool.ne(x, pointers::b_to_a(pool, mover.spans(), y))
                    } else if let Some(words) = mover.compare_words(x, y) {
                        roots.extend(words.pointers.into_iter().map(|p| (None, p)));
                        pool.or_all(&words.differ)
                    } else {
                        pool.ne(x, y)
                    };
                    terms.push(("return value".into(), differ));
                }
                let growing = self.growing_buffers();
                for ((((name, compared), xa), xb), growth) in self
                    .memory_outputs()
                    .into_iter()
                    .zip(ba)
                    .zip(bb)
                    .zip(growing)
                {
                    if !compared {
                        continue;
                    }
                    // A buffer one side grew further: the other side's bytes past its own
                    // end are the input's, which it never touched.
                    let (xa, xb) = padded(pool, xa, xb, growth);
                    let memory = mover.compare(&xa, &xb);
                    roots.extend(memory.pointers.into_iter().map(|p| (Some(name.clone()), p)));
                    terms.push((name, pool.or_all(&memory.differ)));
                }
                terms.extend(self.reached_objects(ex, state, &mover, roots));
            }
            (SideOutcome::Exited(x), SideOutcome::Exited(y)) => {
                terms.push(("exit status".into(), pool.ne(x.expr(pool), y.expr(pool))));
            }
            _ => return None,
        }
        terms.extend(stdout_differs(ex, state).map(|t| ("stdout".to_string(), t)));
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
        sides: (&SideOutcome, &SideOutcome),
    ) -> Result<Option<Found>, Unanswered> {
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
        let fresh = |ex: &Executor<'_>, poisoned: &mut super::poison::Poisoned<'_>| {
            self.fresh_goal(ex, state, sides, poisoned)
        };
        let goals = (Some(&fresh as &FreshGoal<'_>), Some(sides));
        let (model, differ) = match defined_model(ex, state, differ, goals, model)? {
            Ok(found) => found,
            Err((model, ub)) => return Ok(Some(Found::Undefined(model, ub))),
        };
        let minimized = super::minimize::minimize(
            ex,
            state,
            differ,
            self.sig,
            &self.args,
            model.clone(),
            &mut self.minimize_left,
        );
        // The goal without undefined behaviour must still hold on the readable model.
        let model = if pool.eval(differ, &minimized) == 1 {
            minimized
        } else {
            model
        };
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
        Ok(Some(Found::Defined(model, detail)))
    }

    /// The row of a path where a side failed (`verdict`, `detail`): shown on a readable
    /// model of the path; unless the path needs a value of undefined behaviour to be taken,
    /// when the row says so instead. `None` when the question waits.
    fn failure_row(
        &mut self,
        ex: &mut Executor<'_>,
        state: &State,
        verdict: PathVerdict,
        detail: String,
        results: (String, String),
    ) -> Option<RowParts> {
        let Some(model) = self.any_model(ex, state) else {
            return Some((verdict, detail, None, results));
        };
        if state.undefined.is_empty() {
            return Some((verdict, detail, Some(model), results));
        }
        match defined_model(ex, state, ex.pool.true_(), (None, None), model.clone()) {
            Ok(Ok(_)) => Some((verdict, detail, Some(model), results)),
            Ok(Err((model, ub))) => {
                self.named = ub.arrays.iter().copied().collect();
                self.undefined = ub.one_side();
                let (verdict, ub_detail) = ub.row(&detail);
                Some((verdict, ub_detail, Some(model), results))
            }
            Err(Unanswered::Later) => None,
            Err(Unanswered::GaveUp(why)) => Some((
                PathVerdict::Unknown,
                UnknownReason::Asking {
                    why: why.to_string(),
                    question: Question::NeedsUndefined(detail),
                }
                .to_string(),
                None,
                results,
            )),
        }
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
        let exit = match std::mem::take(&mut state.flush) {
            // The side's stdout was flushed: its own end is taken up again, unless the
            // flush could not run (a gap of the model), which ends the side unknown.
            Flush::Running(ended) => {
                state.flush = Flush::Done;
                match exit {
                    Exit::Returned(_) => *ended,
                    other => other,
                }
            }
            Flush::Done => {
                state.flush = Flush::Done;
                exit
            }
            Flush::Before => {
                let flush = self.sig.stdout[usize::from(state.phase.min(1))];
                match flush {
                    // A side that returned or called `exit` writes out what its stdout
                    // holds, as the native program would; a crash loses it.
                    Some(flush) if matches!(exit, Exit::Returned(_) | Exit::Exited(_)) => {
                        state.flush = Flush::Running(Box::new(exit));
                        let pointer = |a: u64| Value::concrete(PTR_WIDTH, u128::from(a));
                        let args = [pointer(flush.file), pointer(0), pointer(0)];
                        ex.push_call(&mut state, flush.write, &args, None);
                        return Some(state);
                    }
                    _ => exit,
                }
            }
        };
        // Kept in case the decision waits (the state is then handed back as it was).
        let kept = exit.clone();
        let outcome = match self.outcome(ex, &state, exit) {
            Ok(o) => o,
            Err(why) => {
                let side = if state.phase == 0 { Phase::A } else { Phase::B };
                let (a, b) = if state.phase == 0 {
                    ("?".to_string(), "not run".to_string())
                } else {
                    (
                        state.first.as_ref().map_or("?".into(), |o| {
                            describe(ex, &state, o, self.shown(), &state.first_outputs[0])
                        }),
                        "?".to_string(),
                    )
                };
                let row = Decision::unknown(a, b, UnknownReason::In(side, Box::new(why)));
                self.push(&state, row);
                return None;
            }
        };
        if state.phase == 0 {
            state.first = Some(outcome);
            state.flush = Flush::Before;
            state.first_outputs = std::mem::take(&mut state.outputs);
            return Some(self.start_b(ex, state));
        }
        let a = state.first.as_ref().expect("side A ended before B started");
        let Some(row) = self.decide(ex, &state, a, &outcome) else {
            state.deferred_exit = Some(Box::new(kept));
            return Some(state);
        };
        self.push(&state, row);
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

/// A row's verdict, detail, model and both sides' results, as `decide` assembles them.
type RowParts = (
    PathVerdict,
    String,
    Option<Arc<Assignment>>,
    (String, String),
);

/// What a path's difference came to.
enum Found {
    /// A model where the results differ, and what differs.
    Defined(Arc<Assignment>, String),
    /// The results differ only through values of undefined behaviour (`exec/undefined.rs`):
    /// a model where they do, and which.
    Undefined(Arc<Assignment>, UbFinding),
}

/// The undefined behaviour a path's outcome depends on.
struct UbFinding {
    /// The sides whose undefined values it depends on (`State::phase`: 0 is A).
    phases: std::collections::BTreeSet<u8>,
    /// What each was and where, with its side.
    what: Vec<String>,
    /// The fresh inputs that stand for them.
    arrays: Vec<crate::expr::ArrayId>,
}

/// How many operations a row names (a loop may overflow on each of its iterations).
const MAX_NAMED: usize = 4;

/// How a side is named in a row: `A` or `B` (`State::phase`).
fn side_name(phase: u8) -> &'static str {
    if phase == 0 {
        "A"
    } else {
        "B"
    }
}

impl UbFinding {
    /// The finding of operations whose poison-producing flags fail: their sides, each
    /// named with its place.
    fn of_flagged(ex: &Executor<'_>, flagged: &[&crate::exec::FlaggedValue]) -> UbFinding {
        let mut what: Vec<String> = flagged
            .iter()
            .map(|f| {
                let at = f
                    .loc
                    .map_or("<entry>".to_string(), |l| ex.module.loc(l).to_string());
                format!("{}: {} at {at}", side_name(f.phase), f.what())
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        what.retain(|w| seen.insert(w.clone()));
        if what.len() > MAX_NAMED {
            let more = what.len() - MAX_NAMED;
            what.truncate(MAX_NAMED);
            what.push(format!("{more} more"));
        }
        UbFinding {
            phases: flagged.iter().map(|f| f.phase).collect(),
            what,
            arrays: Vec::new(),
        }
    }

    /// `other`'s sides and operations added to these.
    fn add(&mut self, other: UbFinding) {
        self.phases.extend(other.phases);
        for w in other.what {
            if !self.what.contains(&w) {
                self.what.push(w);
            }
        }
        self.arrays.extend(other.arrays);
    }

    /// What one side's undefined behaviour was, when only one side's is read: native
    /// executables may show the difference it leaves undecided (`PathRow::undefined`).
    fn one_side(&self) -> Option<String> {
        (self.phases.len() == 1).then(|| self.what.join("; "))
    }

    /// The row of a path whose `outcome` (what would otherwise be reported) needs the
    /// values: agreement when both sides have undefined behaviour on it (as when both
    /// fail), else unknown, naming it.
    fn row(&self, outcome: &str) -> (PathVerdict, String) {
        let what = self.what.join("; ");
        if self.phases.len() > 1 {
            let detail = format!("both sides have undefined behaviour: {what}");
            (PathVerdict::ErrorBoth, detail)
        } else {
            let outcome = outcome.to_string();
            let detail = UnknownReason::UndefinedValue { what, outcome }.to_string();
            (PathVerdict::Unknown, detail)
        }
    }
}

/// The goal of a path's difference with the flagged values each side's results read made
/// fresh (`CrossDriver::fresh_goal`), built only when asked: most differences are found
/// without undefined behaviour, and never need it.
type FreshGoal<'a> = dyn Fn(&Executor<'_>, &mut super::poison::Poisoned<'_>) -> Option<ExprId> + 'a;

/// `model` of `goal` on `state`'s path, checked against the undefined behaviour of the
/// path: the model and the goal to keep (`goal` and no undefined operation whose value the
/// path condition or `goal` reads) when one exists without using such a value; the model
/// and what it used when none does.
#[allow(clippy::type_complexity)]
fn defined_model(
    ex: &mut Executor<'_>,
    state: &State,
    goal: ExprId,
    (fresh, sides): (Option<&FreshGoal<'_>>, Option<(&SideOutcome, &SideOutcome)>),
    model: Arc<Assignment>,
) -> Result<Result<(Arc<Assignment>, ExprId), (Arc<Assignment>, UbFinding)>, Unanswered> {
    if state.undefined.is_empty() && state.flagged.is_empty() {
        return Ok(Ok((model, goal)));
    }
    let pool = ex.pool;
    let mut roots = state.constraints.as_slice().to_vec();
    roots.push(goal);
    let mut read: std::collections::HashSet<crate::expr::ArrayId> = Default::default();
    if !state.undefined.is_empty() {
        for &c in &roots {
            read.extend(pool.arrays_in(c));
        }
    }
    let used: Vec<&crate::exec::UndefinedValue> = state
        .undefined
        .iter()
        .filter(|u| read.contains(&u.array))
        .collect();
    let active: Vec<&&crate::exec::UndefinedValue> = used
        .iter()
        .filter(|u| pool.eval(u.cond, &model) != 0)
        .collect();
    // Operations whose flags may fail, read by the goal or a branch (`poison.rs`).
    let mut poisoned = super::poison::Poisoned::new(pool, state);
    let flagged_used: Vec<&crate::exec::FlaggedValue> = poisoned
        .reaching(&roots)
        .into_iter()
        .map(|i| &state.flagged[i])
        .collect();
    let flagged_active: Vec<&crate::exec::FlaggedValue> = flagged_used
        .iter()
        .copied()
        .filter(|f| pool.eval(f.cond, &model) != 0)
        .collect();
    let conds: Vec<ExprId> = used
        .iter()
        .map(|u| u.cond)
        .chain(flagged_used.iter().map(|f| f.cond))
        .collect();
    let defined = pool.bool_and(goal, pool.bool_not(pool.or_all(&conds)));
    // The goal kept is the defined one: a readable model made from this one must not move
    // onto undefined behaviour.
    if active.is_empty() && flagged_active.is_empty() {
        return Ok(Ok((model, defined)));
    }
    // Whether the difference found holds whatever values the undefined behaviour gives is
    // the cheap question (its other inputs fixed), but it sees poison only through the
    // expressions it walks, and a sum the pool rewrote can hide one there (day_of_year's
    // table, whose concrete replay then found the poison the check had not). So it comes
    // first only where every value read is a conversion's (`record_poison`: a node the
    // pool does not rewrite into another, so the walk is exact); otherwise a model without
    // undefined behaviour is sought first, a question of the whole path, which may be hard
    // (a float conversion's bounds: 270 ms where the difference took 6).
    let exact = active.is_empty() && flagged_active.iter().all(|f| f.label.is_some());
    if exact && !depends_on_undefined(ex, state, (goal, fresh), &mut poisoned, &model)? {
        return Ok(Ok((model, goal)));
    }
    match ex.check(state, defined) {
        Ok(Some(m)) => Ok(Ok((m, defined))),
        Ok(None) if !depends_on_undefined(ex, state, (goal, fresh), &mut poisoned, &model)? => {
            Ok(Ok((model, goal)))
        }
        Ok(None) if active.is_empty() => {
            let flagged_active =
                own_poison(ex, state, sides, &mut poisoned, &model, flagged_active);
            Ok(Err((model, UbFinding::of_flagged(ex, &flagged_active))))
        }
        Ok(None) => {
            // Named: the values the outcome changes with (a value selected away on this
            // model, though read, is not), else all that were made here.
            let mut all = state.constraints.as_slice().to_vec();
            all.push(goal);
            let holds = |m: &Assignment| pool.eval_all(&all, m).iter().all(|&v| v == 1);
            // Tried for each: zero, all ones, each byte flipped, and the other values'
            // (a result that is one side's value against the other's changes with either).
            let bytes_of = |u: &crate::exec::UndefinedValue| -> Vec<u8> {
                let size = pool.array_info(u.array).size;
                (0..size)
                    .map(|k| pool.eval(pool.sym(u.array, k), &model) as u8)
                    .collect()
            };
            // Whether some try of `u`'s bytes makes `changed` true.
            let any_try = |u: &crate::exec::UndefinedValue,
                           changed: &dyn Fn(&Assignment) -> bool| {
                let own = bytes_of(u);
                let mut tries: Vec<Vec<u8>> = vec![
                    vec![0; own.len()],
                    vec![0xff; own.len()],
                    own.iter().map(|b| !b).collect(),
                ];
                tries.extend(active.iter().map(|o| bytes_of(o)));
                tries.iter().filter(|t| **t != own).any(|t| {
                    let mut m = (*model).clone();
                    for (k, &b) in t.iter().enumerate().take(own.len()) {
                        m.set_byte(u.array, k as u32, b);
                    }
                    changed(&m)
                })
            };
            let decisive = |u: &crate::exec::UndefinedValue| any_try(u, &|m| !holds(m));
            let named: Vec<&&crate::exec::UndefinedValue> =
                active.iter().copied().filter(|u| decisive(u)).collect();
            // The sides with undefined behaviour here: a named value's, and every side whose
            // own results change with one of its values (against itself a file has it on
            // both, though a difference changes with either alone). A value selected away
            // changes nothing.
            let mut phases: std::collections::BTreeSet<u8> =
                named.iter().map(|u| u.phase).collect();
            if let Some((a, b)) = sides {
                let outcomes = [
                    super::poison::outcome_roots(pool, a),
                    super::poison::outcome_roots(pool, b),
                ];
                for u in &active {
                    let roots = &outcomes[usize::from(u.phase.min(1))];
                    let before = pool.eval_all(roots, &model);
                    if !phases.contains(&u.phase)
                        && any_try(u, &|m| pool.eval_all(roots, m) != before)
                    {
                        phases.insert(u.phase);
                    }
                }
            }
            if phases.is_empty() {
                phases = active.iter().map(|u| u.phase).collect();
            }
            let active = if named.is_empty() {
                active.clone()
            } else {
                named
            };
            let mut what: Vec<String> = active
                .iter()
                .map(|u| format!("{}: {}", side_name(u.phase), u.what))
                .collect();
            what.dedup();
            let arrays = active.iter().map(|u| u.array).collect();
            let mut finding = UbFinding {
                phases,
                what,
                arrays,
            };
            let flagged_active =
                own_poison(ex, state, sides, &mut poisoned, &model, flagged_active);
            finding.add(UbFinding::of_flagged(ex, &flagged_active));
            Ok(Err((model, finding)))
        }
        Err(why) => Err(Unanswered::GaveUp(why)),
    }
}

/// Each byte of the inputs `arrays` equal to its value in `model`: the other inputs fixed,
/// for a question about values of undefined behaviour alone.
fn pinned_to(
    pool: &ExprPool,
    arrays: &std::collections::BTreeSet<crate::expr::ArrayId>,
    model: &Assignment,
) -> Vec<ExprId> {
    arrays
        .iter()
        .flat_map(|&a| {
            (0..pool.array_info(a).size).map(move |k| {
                let byte = pool.eval(pool.sym(a, k), model);
                pool.eq(pool.sym(a, k), pool.constant(8, byte))
            })
        })
        .collect()
}

/// The inputs that stand for values of undefined behaviour on `state`'s path: its
/// undefined values, the fresh values of flags that failed on concrete operands, and those
/// `poisoned` made.
fn fresh_inputs(
    state: &State,
    poisoned: &super::poison::Poisoned<'_>,
) -> std::collections::HashSet<crate::expr::ArrayId> {
    state
        .undefined
        .iter()
        .map(|u| u.array)
        .chain(poisoned.arrays())
        .chain(state.flagged.iter().filter_map(|f| f.fresh))
        .collect()
}

/// Whether a side's results `fresh` (its `plain` results with values of undefined
/// behaviour, the inputs `free`, in them) can differ from `plain` with every other input as
/// in `model`: whether that side's own undefined behaviour shows in its results. A solver
/// that cannot tell counts as yes.
fn side_changes(
    ex: &mut Executor<'_>,
    (plain, fresh): (&SideOutcome, &SideOutcome),
    free: &std::collections::HashSet<crate::expr::ArrayId>,
    model: &Assignment,
) -> bool {
    let pool = ex.pool;
    let (plain, fresh) = (
        super::poison::outcome_roots(pool, plain),
        super::poison::outcome_roots(pool, fresh),
    );
    if plain.len() != fresh.len() {
        return true;
    }
    let differ: Vec<ExprId> = plain
        .iter()
        .zip(&fresh)
        .filter(|(p, f)| p != f)
        .map(|(&p, &f)| pool.ne(p, f))
        .collect();
    if differ.is_empty() {
        return false;
    }
    let differ = pool.or_all(&differ);
    let inputs: std::collections::BTreeSet<crate::expr::ArrayId> = pool
        .arrays_in(differ)
        .into_iter()
        .filter(|a| !free.contains(a))
        .collect();
    let pinned = pinned_to(pool, &inputs, model);
    !matches!(
        ex.solver.check(pool, &pinned, differ),
        Ok(crate::solver::SatResult::Unsat)
    )
}

/// Of the flagged operations `flagged` (whose flags fail on `model`), those of the sides
/// whose own results their poison can change (`sides`: both sides' outcomes; with the
/// side's flagged values fresh where they fail, [`side_changes`]). An operation computed
/// before a `select` that drops it changes nothing. All of them when no side's results change (a branch read them) or the outcomes
/// are not known.
fn own_poison<'f>(
    ex: &mut Executor<'_>,
    state: &State,
    sides: Option<(&SideOutcome, &SideOutcome)>,
    poisoned: &mut super::poison::Poisoned<'_>,
    model: &Assignment,
    flagged: Vec<&'f crate::exec::FlaggedValue>,
) -> Vec<&'f crate::exec::FlaggedValue> {
    let Some((a, b)) = sides else {
        return flagged;
    };
    let mut changed = std::collections::BTreeSet::new();
    for (phase, side) in [(0u8, a), (1u8, b)] {
        let events = poisoned.reaching_outcome(phase, side);
        if events.is_empty() {
            continue;
        }
        let fresh = poisoned.outcome(side, &events);
        let free = fresh_inputs(state, poisoned);
        if side_changes(ex, (side, &fresh), &free, model) {
            changed.insert(phase);
        }
    }
    if changed.is_empty() {
        return flagged;
    }
    // A side that branched on its poison has it whatever its results.
    let branched: Vec<&crate::exec::FlaggedValue> = poisoned
        .branch_events()
        .into_iter()
        .map(|i| poisoned.flagged(i))
        .collect();
    flagged
        .into_iter()
        .filter(|f| changed.contains(&f.phase) || branched.iter().any(|b| std::ptr::eq(*b, *f)))
        .collect()
}

/// Whether `model`'s outcome (`state`'s path and `goal`, or the goal with each side's
/// flagged values fresh, `fresh`, made here as it is needed) rests on the values of
/// undefined behaviour in it: whether, with every other input fixed to `model`'s bytes,
/// some of those values leave the path or make the goal false, or a branch reads poison.
/// A value that only occurs in the results' structure (an `undef` operand of a `select` the path never takes, a lane a
/// shuffle drops) does not make a difference undefined.
fn depends_on_undefined(
    ex: &mut Executor<'_>,
    state: &State,
    (goal, fresh): (ExprId, Option<&FreshGoal<'_>>),
    poisoned: &mut super::poison::Poisoned<'_>,
    model: &Assignment,
) -> Result<bool, Unanswered> {
    let pool = ex.pool;
    // The outcome with every value of undefined behaviour it reads free: the fresh values
    // of `undefined`, and the flagged ones made fresh where their flags fail (`poison.rs`).
    let fresh_goal = fresh.and_then(|f| f(ex, poisoned)).unwrap_or(goal);
    let mut outcome = state.constraints.as_slice().to_vec();
    outcome.push(fresh_goal);
    // It changes where a branch read poison, or the goal fails for some value of it.
    let branches = poisoned.branch_events();
    let changes = pool.bool_or(
        poisoned.branch_poison(&branches),
        pool.bool_not(pool.and_all(&outcome)),
    );
    let free = fresh_inputs(state, poisoned);
    let mut inputs: std::collections::BTreeSet<crate::expr::ArrayId> = Default::default();
    for &e in outcome.iter().chain([&changes]) {
        inputs.extend(pool.arrays_in(e).into_iter().filter(|a| !free.contains(a)));
    }
    let pinned = pinned_to(pool, &inputs, model);
    match ex.solver.check(pool, &pinned, changes) {
        Ok(crate::solver::SatResult::Sat(_)) => Ok(true),
        Ok(crate::solver::SatResult::Unsat) => Ok(false),
        Ok(crate::solver::SatResult::Unknown(why)) => {
            Err(Unanswered::GaveUp(SolverFailure::GaveUp(why)))
        }
        Err(e) => Err(Unanswered::GaveUp(SolverFailure::Failed(e))),
    }
}

/// Two sides' final bytes of one buffer, the shorter made as long as the other: a side's
/// bytes past its own end are the input's (`growth`), which it never touched.
fn padded(
    pool: &ExprPool,
    xa: &[Value],
    xb: &[Value],
    growth: Option<crate::exec::memory::Growth>,
) -> (Vec<Value>, Vec<Value>) {
    let n = xa.len().max(xb.len());
    let pad = |x: &[Value]| -> Vec<Value> {
        (0..n)
            .map(|k| super::setup::grown_byte(pool, x, k, growth))
            .collect()
    };
    (pad(xa), pad(xb))
}

fn concrete_value(ex: &Executor<'_>, v: Value, model: &Assignment) -> u64 {
    match v {
        Value::Con { bits, .. } => bits as u64,
        Value::Sym(e) => ex.pool.eval(e, model) as u64,
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

/// Whether the sides' stdout differ (A's kept in `first_outputs` while B runs); `None`
/// when neither wrote any.
fn stdout_differs(ex: &Executor<'_>, state: &State) -> Option<ExprId> {
    let (a, b) = (&state.first_outputs[0], &state.outputs[0]);
    if a.is_empty() && b.is_empty() {
        return None;
    }
    Some(ex.pool.bool_not(super::program::same_bytes(ex, a, b)))
}
