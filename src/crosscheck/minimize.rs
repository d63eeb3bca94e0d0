//! Counterexamples a person can read: among the inputs that reach the same outcome, prefer
//! small numbers and printable (or zero) bytes, by asking the solver for preferred models.
//!
//! Each scalar parameter in turn gets the smallest magnitude the path allows (an
//! exponential then binary search on `|x| ≤ B`), preferring a non-negative value — a float
//! gets the first "round" value the path allows (0, ±1, ±2, 0.5, …, ±inf, NaN, then large,
//! tiny and other NaN values; once the solver leaves one of them undecided the rest are not
//! asked), else a whole number of moderate size (else, unless that question went unanswered,
//! any value of that size), and after two unanswered queries floats are only tried
//! concretely; then the
//! buffers are asked to hold only printable characters and zeroes, and as many zeroes as
//! possible at their end. Every step keeps what the previous ones fixed, so the result still
//! reaches the same outcome. The work is bounded by a query budget and a time budget; what
//! is not minimized in time keeps the solver's first answer.
//!
//! Each preference is first tried concretely: the model with the preferred byte values
//! patched in is evaluated on the path condition and everything fixed so far, and adopted
//! without a query if it satisfies them. Only preferences that no candidate value meets go
//! to the solver. (Proving that none can be met is what is expensive: a divergence that
//! needs a byte above 0x7f makes "every byte printable" unsatisfiable, and with
//! multiplications on the path that proof can take the solver longer than the whole
//! exploration.) A float's round values are tried with the later float parameters free
//! too (they are not minimized yet): a difference between two float computations often
//! needs one inexact operand beside the round one. A float that is the path's only input
//! and whose two neighbours in its format leave the path is kept as it is: the path pins
//! it, and the solver would only prove so.

use super::float::{input_places, patch, random_samples, round_samples, round_values};
use super::setup::{Arguments, Signature};
use crate::exec::{Executor, State, Value};
use crate::expr::{mask, ArrayId, Assignment, ExprId, ExprPool, FloatOp, FpPred, FpUnOp, Node};
use crate::solver::{build_chain, symbolic_bytes, SatResult, Solver, SolverConfig};
use crate::stop::Stop;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Queries one minimization may ask.
const QUERY_BUDGET: u32 = 48;
/// Time one minimization may take.
const TIME_BUDGET: Duration = Duration::from_secs(2);
/// Time all the minimizations of one check may take together; later counterexamples keep
/// the solver's first answer.
pub const TOTAL_BUDGET: Duration = Duration::from_secs(10);

/// Time limit of one minimization query: a preference that is hard to decide is skipped.
const QUERY_TIMEOUT: Duration = Duration::from_millis(250);

/// Concrete evaluations one float parameter's round values may take together with samples
/// of the later float parameters (each evaluates the path condition and the difference;
/// a few microseconds for the usual numerical function).
const LATER_SAMPLE_TRIES: u32 = 2048;

/// Unanswered queries after which a minimization asks the solver nothing more about floats
/// (their round values are still tried concretely): questions about the same floating-point
/// operations that ran out of time twice will mostly run out of time again.
const FLOAT_UNANSWERED_LIMIT: u32 = 2;

/// Byte values tried, in order, for a byte of a function's buffer that should be readable.
const CANDIDATES: [u8; 4] = [b'a', b'0', b' ', b'A'];
/// The same for a program's arguments, stdin and files. A digit comes first: concrete
/// replay looks names up in the working directory, where one-letter files (a program
/// called `a`) are more common than files called `0`, and a symbolic name that matched no
/// symbolic file was explored as naming nothing.
const TEXT_CANDIDATES: [u8; 4] = [b'0', b'a', b' ', b'A'];

struct Search<'e> {
    pool: &'e ExprPool,
    /// A solver of its own, with a short time limit per query.
    solver: Box<dyn Solver>,
    state: &'e State,
    /// What must keep holding: the outcome and every preference fixed so far.
    fixed: Vec<ExprId>,
    model: Arc<Assignment>,
    queries: u32,
    /// Whether [`Search::restart`] ran.
    restarted: bool,
    /// Whether the last query went unanswered (its time limit passed).
    unanswered: bool,
    /// How many queries went unanswered.
    unanswered_total: u32,
    start: Instant,
    limit: Duration,
    /// The run's stop token: minimization ends (keeping what it has) when it says to stop.
    stop: Stop,
}

impl<'e> Search<'e> {
    /// A search from `model` (which satisfies the path and `goal`), within `budget`.
    fn new(
        pool: &'e ExprPool,
        state: &'e State,
        goal: ExprId,
        model: Arc<Assignment>,
        budget: Duration,
        stop: &Stop,
    ) -> Self {
        let config = SolverConfig {
            timeout: Some(QUERY_TIMEOUT),
            stop: stop.clone(),
            ..SolverConfig::default()
        };
        Search {
            pool,
            solver: build_chain(&config),
            state,
            fixed: vec![goal],
            model,
            queries: 0,
            restarted: false,
            unanswered: false,
            unanswered_total: 0,
            start: Instant::now(),
            limit: TIME_BUDGET.min(budget),
            stop: stop.clone(),
        }
    }

    /// Starts over, once, from a model that depends only on the path and what is fixed: the
    /// path's own model depends on which queries the worker that found it answered before
    /// (caches, recent models), and patching it would make the tests written depend on
    /// scheduling. A fresh solver gives the same model for the same question. Keeps the
    /// current model if the solver does not answer in time.
    fn restart(&mut self) {
        if self.restarted {
            return;
        }
        self.restarted = true;
        self.queries += 1;
        let fixed = self.fixed.clone();
        if let Some(model) = self.check_all(&fixed) {
            self.model = model;
        }
    }

    fn exhausted(&self) -> bool {
        self.queries >= QUERY_BUDGET
            || self.start.elapsed() >= self.limit
            || self.stop.should_stop()
    }

    /// Adopts `wish` if some input satisfies it together with everything fixed so far.
    fn try_wish(&mut self, wish: ExprId) -> bool {
        self.unanswered = false;
        if self.exhausted() {
            return false;
        }
        let pool = self.pool;
        if pool.eval(wish, &self.model) != 0 {
            self.fixed.push(wish);
            return true;
        }
        // A wish that the path condition's known values and ranges exclude needs no query.
        let mut stats = crate::exec::constraints::ConstraintStats::default();
        if self.state.constraints.decide(pool, wish, &mut stats) == Some(false) {
            return false;
        }
        self.queries += 1;
        let mut all = self.fixed.clone();
        all.push(wish);
        match self.check_all(&all) {
            Some(model) => {
                self.model = model;
                self.fixed.push(wish);
                true
            }
            None => false,
        }
    }

    /// Adopts the model with `changes` patched in, and fixes `wish`, if that model satisfies
    /// the path condition and everything fixed so far (no query).
    fn try_bytes(&mut self, changes: &[(ArrayId, u32, u8)], wish: ExprId) -> bool {
        match self.patched(changes, &[wish]) {
            Some(model) => {
                self.model = Arc::new(model);
                self.fixed.push(wish);
                true
            }
            None => false,
        }
    }

    /// Whether the model with `changes` patched in satisfies the path condition and
    /// everything fixed so far (no query, nothing adopted).
    fn holds_with(&self, changes: &[(ArrayId, u32, u8)]) -> bool {
        self.patched(changes, &[]).is_some()
    }

    /// The model with `changes` patched in, if it satisfies the path condition, everything
    /// fixed so far and `more`.
    fn patched(&self, changes: &[(ArrayId, u32, u8)], more: &[ExprId]) -> Option<Assignment> {
        let mut model = (*self.model).clone();
        for &(array, offset, value) in changes {
            model.set_byte(array, offset, value);
        }
        let mut all = self.state.constraints.as_slice().to_vec();
        all.extend_from_slice(&self.fixed);
        all.extend_from_slice(more);
        self.pool
            .eval_all(&all, &model)
            .iter()
            .all(|&v| v == 1)
            .then_some(model)
    }

    /// A model of the path condition and every one of `extra`; `None` when there is none or
    /// the solver did not answer in time.
    fn check_all(&mut self, extra: &[ExprId]) -> Option<Arc<Assignment>> {
        let pool = self.pool;
        let mut rest = Vec::with_capacity(extra.len());
        for &e in extra {
            let e = self.state.constraints.simplify(pool, e);
            match pool.as_const(e) {
                Some(0) => return None,
                Some(_) => {}
                None => rest.push(e),
            }
        }
        // The goal (first) is the query: the range layer rewrites the query with the bounds
        // that the wishes, now constraints, put on the input bytes.
        let query = if rest.is_empty() {
            pool.true_()
        } else {
            rest.remove(0)
        };
        let mut all = self.state.constraints.as_slice().to_vec();
        all.extend(rest);
        let answer = self.solver.check(pool, &all, query);
        self.unanswered = !matches!(answer, Ok(SatResult::Sat(_) | SatResult::Unsat));
        self.unanswered_total += u32::from(self.unanswered);
        match answer {
            Ok(SatResult::Sat(model)) => Some(Arc::new(model)),
            _ => None,
        }
    }
}

/// A model of `state` ∧ `goal` with small, readable parameter values (starting from `model`,
/// which must satisfy both).
pub fn minimize(
    ex: &Executor<'_>,
    state: &State,
    goal: ExprId,
    sig: &Signature,
    args: &Arguments,
    model: Arc<Assignment>,
    budget: &mut Duration,
) -> Arc<Assignment> {
    let (pool, stop) = (ex.pool, &ex.config.stop);
    if budget.is_zero() || stop.should_stop() {
        return model;
    }
    let mut search = Search::new(pool, state, goal, model, *budget, stop);
    // The input bytes of each float parameter that can be patched (`None` for the rest).
    let float_places: Vec<Option<FloatPlaces>> = sig
        .params
        .iter()
        .zip(&args.bytes)
        .map(|(p, bytes)| {
            let places = input_places(pool, bytes)?;
            (p.float && p.buffer.is_none() && places.len() * 8 == p.width as usize)
                .then_some((p.width, places))
        })
        .collect();
    for (i, (p, (value, bytes))) in sig
        .params
        .iter()
        .zip(args.values.iter().zip(&args.bytes))
        .enumerate()
    {
        match p.buffer {
            None => {
                if let Value::Sym(v) = value {
                    if p.float {
                        let later: Vec<_> = float_places[i + 1..].iter().flatten().collect();
                        round_float(&mut search, pool, *v, bytes, &later);
                    } else {
                        smallest_magnitude(&mut search, pool, *v);
                    }
                }
            }
            Some(_) => readable_bytes(&mut search, pool, bytes),
        }
    }
    *budget = budget.saturating_sub(search.start.elapsed());
    search.model
}

/// A model of `state` ∧ `goal` whose input objects hold readable bytes: printable
/// characters, newlines and tabs (and, for strings, zeroes at their end). Used for whole
/// programs, whose inputs are argument strings, stdin and file contents.
pub fn minimize_objects(
    ex: &Executor<'_>,
    state: &State,
    goal: ExprId,
    objects: &[(Vec<Value>, bool)],
    hint: &[(ArrayId, u32, u8)],
    model: Arc<Assignment>,
    budget: &mut Duration,
) -> Arc<Assignment> {
    let (pool, stop) = (ex.pool, &ex.config.stop);
    if budget.is_zero() || stop.should_stop() {
        return model;
    }
    let mut search = Search::new(pool, state, goal, model, *budget, stop);
    keep_preferences(&mut search, hint);
    for (bytes, is_string) in objects {
        text_bytes(&mut search, pool, bytes, *is_string);
    }
    *budget = budget.saturating_sub(search.start.elapsed());
    search.model
}

/// Adopts the path's preferences (`klee_prefer_cex`): all at once, with no query, when the
/// model with `hint` patched in (bytes the inputs preferably hold) satisfies them with the
/// path and what is fixed; otherwise one by one, in order, each as a wish.
fn keep_preferences(search: &mut Search<'_>, hint: &[(ArrayId, u32, u8)]) {
    let prefs = &search.state.preferences[..];
    if prefs.is_empty() {
        return;
    }
    let all = search.pool.and_all(prefs);
    if search.try_bytes(hint, all) {
        return;
    }
    for &wish in prefs {
        search.try_wish(wish);
    }
}

/// A model of `state` ∧ `goal` that satisfies as many of the path's preferences
/// (`klee_prefer_cex`), in order, as it allows, starting from `model` (which must satisfy
/// both): `model` itself when it satisfies them all, else as [`keep_preferences`] finds it
/// (`hint` patched in when that does, with no query).
pub fn preferred(
    ex: &Executor<'_>,
    state: &State,
    goal: ExprId,
    hint: &[(ArrayId, u32, u8)],
    model: Arc<Assignment>,
    budget: &mut Duration,
) -> Arc<Assignment> {
    let (pool, stop) = (ex.pool, &ex.config.stop);
    let held = pool.eval_all(&state.preferences, &model);
    if held.iter().all(|&v| v == 1) || budget.is_zero() || stop.should_stop() {
        return model;
    }
    // The search's solver chain makes no backend instance until it is asked.
    let mut search = Search::new(pool, state, goal, model, *budget, stop);
    keep_preferences(&mut search, hint);
    *budget = budget.saturating_sub(search.start.elapsed());
    search.model
}

/// Narrows `v` to the smallest magnitude possible, then prefers it non-negative.
fn smallest_magnitude(search: &mut Search<'_>, pool: &ExprPool, v: ExprId) {
    let w = pool.width(v);
    let magnitude = if w == 1 {
        v
    } else {
        let negative = pool.slt(v, pool.constant(w, 0));
        pool.ite(negative, pool.neg(v), v)
    };
    let at_most = |p: u128| magnitude_at_most(pool, v, magnitude, p);
    let current = |s: &Search<'_>| pool.eval(magnitude, &s.model);
    // `hi` is always feasible; `lo - 1` never is (or `lo` is 0).
    let mut hi = current(search);
    let mut lo = 0u128;
    let mut probe = 0u128;
    while probe < hi && !search.exhausted() {
        let wish = at_most(probe);
        if search.try_wish(wish) {
            hi = current(search);
            break;
        }
        lo = probe + 1;
        probe = probe
            .saturating_mul(2)
            .saturating_add(1)
            .min(mask(w, u128::MAX));
    }
    while lo < hi && !search.exhausted() {
        let mid = lo + (hi - lo) / 2;
        if search.try_wish(at_most(mid)) {
            hi = current(search);
        } else {
            lo = mid + 1;
        }
    }
    // What was found stays fixed for the later parameters' queries, also when no probe ran
    // (the value was already 0) or none succeeded: the wish holds in the model, so fixing it
    // asks nothing. (A solver's model for a later wish could otherwise move it again.)
    search.try_wish(at_most(hi));
    if w > 1 {
        search.try_wish(pool.sge(v, pool.constant(w, 0)));
    }
}

/// `|v| <= p` (`magnitude` is `|v|`, unsigned), as `v + p <=u 2p` where that means the
/// same (`p` below the sign bit: the sum wraps `v` in `[-p, p]` onto `[0, 2p]`): one
/// comparison of `v` with constants, which the path condition's ranges of `v` decide
/// without a query when they exclude it, and which needs no negation or `ite`.
fn magnitude_at_most(pool: &ExprPool, v: ExprId, magnitude: ExprId, p: u128) -> ExprId {
    let w = pool.width(v);
    if w > 1 && p < 1u128 << (w - 1) {
        let k = |c: u128| pool.constant(w, c);
        pool.ule(pool.add(k(p), v), k(2 * p))
    } else {
        pool.ule(magnitude, pool.constant(w, p))
    }
}

/// Prefers a round value for the float `v` (whose input bytes are `bytes`): the first of
/// [`round_values`] the path allows (tried concretely: `v` alone, then together with the
/// samples of the `later` float parameters, which are not minimized yet and may
/// change; then the simplest through the solver), else a whole number of magnitude at
/// most 10^6, else any value of that size; the solver is not asked once
/// [`FLOAT_UNANSWERED_LIMIT`] queries went unanswered.
fn round_float(
    search: &mut Search<'_>,
    pool: &ExprPool,
    v: ExprId,
    bytes: &[Value],
    later: &[&FloatPlaces],
) {
    let w = pool.width(v);
    let candidates = round_values(w);
    let places = input_places(pool, bytes).filter(|p| p.len() * 8 == w as usize);
    if let Some(places) = &places {
        for &c in &candidates {
            if search.try_bytes(&patch(places, c), pool.eq(v, pool.constant(w, c))) {
                return;
            }
        }
        // A difference between floating-point computations often needs inexact operands
        // besides the round one (a product that rounds): the later parameters take the
        // values a difference is sampled with, moderate random ones first (a difference on
        // ordinary numbers before one through infinities and NaNs), a bounded number of
        // evaluations in all.
        let widths: Vec<u32> = later.iter().map(|(w, _)| *w).collect();
        let mut tries = 0;
        let random: Vec<Vec<u128>> = random_samples(&widths).collect();
        let round: Vec<Vec<u128>> = round_samples(&widths).collect();
        for pass in [random, round].iter().filter(|_| !later.is_empty()) {
            for (&c, values) in candidates
                .iter()
                .flat_map(|c| pass.iter().map(move |values| (c, values)))
            {
                tries += 1;
                if tries > LATER_SAMPLE_TRIES || search.exhausted() {
                    break;
                }
                let mut changes = patch(places, c);
                for ((_, other), &value) in later.iter().zip(values) {
                    changes.extend(patch(other, value));
                }
                if search.try_bytes(&changes, pool.eq(v, pool.constant(w, c))) {
                    return;
                }
            }
        }
    }
    // When the path and what is fixed read no input besides `v`'s bytes, the tries above
    // decided every round value exactly, and the solver would only repeat them.
    let alone = places.as_ref().is_some_and(|places| {
        let roots = search
            .state
            .constraints
            .as_slice()
            .iter()
            .chain(&search.fixed);
        symbolic_bytes(pool, roots.copied())
            .iter()
            .all(|&(_, array, offset)| places.contains(&(array, offset)))
    });
    if search.unanswered_total >= FLOAT_UNANSWERED_LIMIT {
        return;
    }
    // Alone on the path, a value whose neighbours in its format both leave the path (a
    // divergence at `c == mid * mid`) is kept: the solver would mostly prove that no whole
    // number is left, a query per counterexample.
    if let (true, Some(places)) = (alone, &places) {
        let value = pool.eval(v, &search.model);
        let neighbours = crate::expr::fp_neighbours(w, value);
        if !neighbours.is_empty()
            && neighbours
                .iter()
                .all(|&n| !search.holds_with(&patch(places, n)))
        {
            return;
        }
    }
    // The simplest values through the solver; once one of these questions goes unanswered,
    // the others (the same question about another constant) are not asked.
    for &c in candidates.iter().take(if alone { 0 } else { 3 }) {
        if search.try_wish(pool.eq(v, pool.constant(w, c))) {
            return;
        }
        if search.unanswered {
            break;
        }
    }
    let million = crate::expr::fp_bits_of(w, 1e6);
    let moderate = pool.build_float(
        FloatOp::Cmp(FpPred::Ole),
        &[pool.fp_abs(v), pool.constant(w, million)],
        w,
    );
    let whole = pool.eq(pool.fp_unary(FpUnOp::Trunc, v), v);
    // A whole number is asked for first; when that question goes unanswered, the weaker one
    // (about the same float operations) is not asked either.
    if search.unanswered_total >= FLOAT_UNANSWERED_LIMIT {
        return;
    }
    if !search.try_wish(pool.bool_and(moderate, whole)) && !search.unanswered {
        search.try_wish(moderate);
    }
}

/// A float parameter's width and input bytes (little-endian).
type FloatPlaces = (u32, Vec<(ArrayId, u32)>);

/// Prefers printable bytes and zeroes, then zeroes at the end of the buffer.
fn readable_bytes(search: &mut Search<'_>, pool: &ExprPool, bytes: &[Value]) {
    prefer_bytes(search, pool, bytes, false, true);
}

/// Prefers printable bytes, newlines and tabs; zeroes only in strings, at their end.
fn text_bytes(search: &mut Search<'_>, pool: &ExprPool, bytes: &[Value], is_string: bool) {
    prefer_bytes(search, pool, bytes, true, is_string);
}

fn prefer_bytes(
    search: &mut Search<'_>,
    pool: &ExprPool,
    bytes: &[Value],
    whitespace: bool,
    trailing_zeroes: bool,
) {
    let syms: Vec<ExprId> = bytes
        .iter()
        .filter_map(|b| {
            if let Value::Sym(e) = b {
                Some(*e)
            } else {
                None
            }
        })
        .collect();
    if syms.is_empty() {
        return;
    }
    // The input byte each expression is, when it is one (it can be patched concretely).
    let plain: Vec<Option<(ArrayId, u32)>> = syms
        .iter()
        .map(|&e| match pool.node(e) {
            Node::Sym { array, offset } => Some((array, offset)),
            _ => None,
        })
        .collect();
    let readable: Vec<ExprId> = syms
        .iter()
        .map(|&b| {
            let printable = pool.bool_and(
                pool.ule(pool.constant(8, 0x20), b),
                pool.ule(b, pool.constant(8, 0x7e)),
            );
            let other = if whitespace {
                pool.bool_or(
                    pool.eq(b, pool.constant(8, b'\n' as u128)),
                    pool.eq(b, pool.constant(8, b'\t' as u128)),
                )
            } else {
                pool.eq(b, pool.constant(8, 0))
            };
            pool.bool_or(other, printable)
        })
        .collect();
    let unreadable = |s: &Search<'_>| -> Vec<usize> {
        (0..readable.len())
            .filter(|&i| pool.eval(readable[i], &s.model) == 0)
            .collect()
    };
    let candidates = if whitespace {
        TEXT_CANDIDATES
    } else {
        CANDIDATES
    };
    let all = pool.and_all(&readable);
    let mut bad = unreadable(search);
    if !bad.is_empty() && !search.restarted {
        // About to patch the model: first make it one that does not depend on scheduling.
        search.restart();
        bad = unreadable(search);
    }
    // All at once, concretely: every unreadable byte becomes the same candidate.
    let patchable: Vec<(ArrayId, u32)> = bad.iter().filter_map(|&i| plain[i]).collect();
    let mut done = bad.is_empty() && search.try_bytes(&[], all);
    if !done && patchable.len() == bad.len() {
        for c in candidates {
            let changes: Vec<_> = patchable.iter().map(|&(a, o)| (a, o, c)).collect();
            if search.try_bytes(&changes, all) {
                done = true;
                break;
            }
        }
    }
    if !done {
        // Byte by byte, concretely.
        for &i in &bad {
            if let Some((a, o)) = plain[i] {
                for c in candidates {
                    if search.try_bytes(&[(a, o, c)], readable[i]) {
                        break;
                    }
                }
            }
        }
        // Keep the bytes that are readable now readable in later steps. (Fixed before the
        // solver is asked about the rest: their bounds let the range layer simplify the
        // question, often to a constant.)
        let kept: Vec<ExprId> = readable
            .iter()
            .copied()
            .filter(|&r| pool.eval(r, &search.model) == 1)
            .collect();
        search.fixed.push(pool.and_all(&kept));
        // What no candidate could make readable goes to the solver, as far as the budget
        // allows: first all together, then one by one.
        let rest: Vec<ExprId> = unreadable(search).iter().map(|&i| readable[i]).collect();
        if !rest.is_empty() && !search.try_wish(pool.and_all(&rest)) && rest.len() > 1 {
            for r in rest {
                search.try_wish(r);
            }
        }
    }
    if !trailing_zeroes {
        return;
    }
    // Zeroes from the end, as long as they are allowed.
    for (&b, &p) in syms.iter().zip(&plain).rev() {
        if search.exhausted() {
            break;
        }
        let zero = pool.eq(b, pool.constant(8, 0));
        let concrete = p.is_some_and(|(a, o)| search.try_bytes(&[(a, o, 0)], zero));
        if !concrete && !search.try_wish(zero) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::magnitude_at_most;
    use crate::expr::{Assignment, ExprPool};

    #[test]
    fn a_bound_on_the_magnitude_means_what_the_absolute_value_says() {
        let pool = ExprPool::new();
        let a = pool.new_array("v", 1);
        let v = pool.sym(a, 0);
        let negative = pool.slt(v, pool.constant(8, 0));
        let magnitude = pool.ite(negative, pool.neg(v), v);
        for p in [0u128, 1, 2, 5, 63, 127, 128, 200, 255] {
            let bound = magnitude_at_most(&pool, v, magnitude, p);
            for x in 0..=255u8 {
                let mut model = Assignment::new();
                model.set(a, vec![x]);
                let abs = u128::from((x as i8).unsigned_abs());
                assert_eq!(
                    pool.eval(bound, &model),
                    u128::from(abs <= p),
                    "|{}| <= {p}",
                    x as i8
                );
            }
        }
    }
}
