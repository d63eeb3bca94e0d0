//! The SMT backend: lowers expressions to Bitwuzla terms and decides them incrementally.
//!
//! This is the only file of the project that uses Bitwuzla. All foreign calls go through the
//! private [`Instance`] type, which owns one term manager, one options object and one solver.
//!
//! Design:
//! - **Incrementality.** One long-lived solver instance answers many queries: each check
//!   pushes a scope, asserts the constraints and the query, checks, and pops the scope at the
//!   start of the next check (so the model stays readable until then). Asserting rather than
//!   passing assumptions lets Bitwuzla preprocess the formula (measured: 10–20% faster on the
//!   corpus's arithmetic-heavy queries). A constraint shared by many queries (a path-condition
//!   prefix) is translated to terms once.
//! - **Translation memo.** Expressions are lowered by the traversal shared with Z3 (see
//!   `lowering.rs`: children first, sort-checked, with Boolean forms of width-1 expressions)
//!   into a memo from `ExprId` to term that persists across queries; this file supplies the
//!   term constructors.
//! - **Memory bound.** The memo, the term manager and the SAT solver's clause database only
//!   grow, so the instance is dropped and recreated (lazily, at the next query) after
//!   [`DEFAULT_RESET_INTERVAL`] checks, when the memo exceeds [`DEFAULT_MEMO_LIMIT`] terms,
//!   after an `Unknown` answer, and when the solver is handed a different pool. Both limits
//!   can be changed with [`BitwuzlaSolver::with_limits`].
//! - **Stopping.** Every instance has a termination callback that asks the solver's
//!   [`Stop`] token, so a running check returns `Unknown` soon after the run is interrupted
//!   or the check's deadline passes; the per-check time limit is Bitwuzla's own option. The
//!   callback also asks the solver's [`CancelFlag`] ([`BitwuzlaSolver::canceller`]), by which
//!   the portfolio ends one check that lost a race without stopping later ones.
//! - **Errors.** Bitwuzla's C API reports misuse through an abort callback that cannot return
//!   control to Rust (its default prints the message and exits the process), so every node is
//!   checked for well-sortedness before it is lowered and a malformed expression becomes
//!   [`SolverError::Backend`] instead of reaching the backend. Only an internal Bitwuzla
//!   failure on well-sorted input could still end the process.

use super::lowering::{Fp, Rounding, TermMemo, Terms};
use super::{
    assignment_from_bytes, symbolic_bytes, Answer, Cancel, CancelFlag, Memo, Recycled, SatResult,
    Solver, SolverError, SolverStats, CANCELLED,
};
use crate::expr::fp_format;
use crate::expr::{BinOp, ExprId, ExprPool, UnOp, Width, INDEX_WIDTH};
use crate::stop::Stop;
use bitwuzla_sys as bz;
use bz::{BitwuzlaKind, BitwuzlaSort, BitwuzlaTerm};
use rustc_hash::FxHashMap;
use std::ffi::{CStr, CString};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Checks after which the backend instance is recreated, to bound the memory of the
/// incremental SAT solver and of the translation memo.
pub const DEFAULT_RESET_INTERVAL: u64 = 500;

/// Memoised translations above which the backend instance is recreated at the next query.
pub const DEFAULT_MEMO_LIMIT: usize = 200_000;

/// The reason given by `SatResult::Unknown` when a check runs out of time.
pub const TIMEOUT: super::GiveUp = super::GiveUp::Timeout;

/// A [`Solver`] backed by one incremental Bitwuzla instance (see the module documentation).
pub struct BitwuzlaSolver {
    timeout: Option<Duration>,
    /// A shorter limit of the coming checks ([`Solver::set_time_limit`]), which the
    /// termination callback enforces.
    limit: Option<Duration>,
    /// Asked by the termination callback while a check runs.
    stop: Stop,
    /// Ends one check early (the portfolio's race), also asked by the termination callback.
    cancel: Arc<CancelFlag>,
    /// The instance, made at the first query after construction or after a reset.
    instance: Recycled<Instance>,
    stats: SolverStats,
}

impl BitwuzlaSolver {
    /// A solver whose every check is limited to `timeout` (`None`: no limit), with the default
    /// memory bounds. The backend is created lazily, so this cannot fail.
    pub fn new(timeout: Option<Duration>) -> Self {
        Self::with_limits(timeout, DEFAULT_RESET_INTERVAL, DEFAULT_MEMO_LIMIT)
    }

    /// Like [`BitwuzlaSolver::new`], recreating the backend instance after `reset_interval`
    /// checks or once its memo holds more than `memo_limit` terms.
    pub fn with_limits(timeout: Option<Duration>, reset_interval: u64, memo_limit: usize) -> Self {
        Self {
            timeout,
            limit: None,
            stop: Stop::default(),
            cancel: Arc::default(),
            instance: Recycled::new(reset_interval, memo_limit),
            stats: SolverStats::default(),
        }
    }

    /// The same solver, whose checks return `Unknown` as soon as `stop` says to stop.
    pub fn with_stop(mut self, stop: Stop) -> Self {
        self.stop = stop;
        self.instance.reset();
        self
    }

    /// The handle that cancels this solver's running check (or its next one) until rearmed.
    pub fn canceller(&self) -> Arc<dyn Cancel> {
        self.cancel.clone()
    }

    /// Drops the backend instance and its memo; the next query starts afresh.
    pub fn reset(&mut self) {
        self.instance.reset();
    }

    /// The number of expressions currently memoised (0 before the first query).
    pub fn memo_len(&self) -> usize {
        self.instance.memo_len()
    }
}

impl Solver for BitwuzlaSolver {
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let timeout = self.timeout;
        if let Some(why) = self.stop.reason() {
            // Not even started: the run is over (the path becomes unknown, never a guess).
            return Ok(SatResult::Unknown(why.into()));
        }
        if self.cancel.is_cancelled() {
            return Ok(SatResult::Unknown(CANCELLED));
        }
        let halt = Halt {
            stop: self.stop.clone(),
            cancel: self.cancel.clone(),
            until: std::cell::Cell::new(None),
        };
        let instance = self.instance.get(pool, || Instance::new(timeout, halt))?;
        let limit = self.limit.filter(|l| timeout.is_none_or(|t| *l < t));
        let mut assumptions = Vec::with_capacity(constraints.len() + 1);
        for &root in constraints.iter().chain(std::iter::once(&query)) {
            super::lowering::check_condition(pool, root)?;
            instance.lower(pool, root)?;
            assumptions.push(instance.bool_of(root)?);
        }
        let roots: Vec<ExprId> = constraints.iter().copied().chain([query]).collect();
        assumptions.extend(instance.definitions(pool, &roots)?);
        assumptions.sort_unstable();
        assumptions.dedup();

        let start = Instant::now();
        instance.halt.until.set(limit.map(|l| start + l));
        let result = instance.check_assuming(&assumptions);
        instance.halt.until.set(None);
        let result = result?;
        let elapsed = start.elapsed();

        let answer = match result {
            Answer::Sat => {
                let roots = constraints.iter().copied().chain(std::iter::once(query));
                let mut bytes = Vec::new();
                for (id, array, offset) in symbolic_bytes(pool, roots) {
                    bytes.push((array, offset, instance.byte_value(id)?));
                }
                SatResult::Sat(assignment_from_bytes(pool, bytes))
            }
            Answer::Unsat => SatResult::Unsat,
            Answer::Unknown => SatResult::Unknown(match (self.stop.reason(), timeout.or(limit)) {
                (Some(why), _) => why.into(),
                (None, _) if self.cancel.is_cancelled() => CANCELLED,
                (None, Some(_)) => TIMEOUT,
                (None, None) => super::GiveUp::Backend,
            }),
        };

        self.stats
            .count_backend_check(super::Backend::Bitwuzla, &answer, elapsed);
        if let SatResult::Unknown(_) = answer {
            // A check stopped by its time limit (or cancelled) leaves the SAT solver in a
            // state we do not want to build on; start the next query from a fresh instance.
            self.reset();
        }
        Ok(answer)
    }

    fn set_hint(&mut self, _hint: Option<std::sync::Arc<crate::expr::Assignment>>) {
        // A backend solves each query from scratch: a model of earlier ones is no use.
    }

    fn set_time_limit(&mut self, limit: Option<Duration>) {
        self.limit = limit;
    }

    fn stats(&self) -> SolverStats {
        SolverStats {
            backend_resets: self.instance.resets,
            ..self.stats
        }
    }
}

/// One Bitwuzla term manager, options object and solver, with the translation memo.
struct Instance {
    tm: *mut bz::BitwuzlaTermManager,
    options: *mut bz::BitwuzlaOptions,
    solver: *mut bz::Bitwuzla,
    bv_sorts: FxHashMap<Width, BitwuzlaSort>,
    array_sort: BitwuzlaSort,
    bool_true: BitwuzlaTerm,
    bool_false: BitwuzlaTerm,
    bv_one: BitwuzlaTerm,
    bv_zero: BitwuzlaTerm,
    /// The translation memo.
    memo: TermMemo<BitwuzlaTerm>,
    /// Checks run on this instance.
    checks: u64,
    /// Whether the last check's assertions are still pushed (popped before the next check,
    /// so that the model stays readable until then).
    pushed: bool,
    /// The state of the termination callback: boxed, so that its address stays the same
    /// while the solver holds it; dropped after the solver.
    halt: Box<Halt>,
}

/// What the termination callback asks: the run's stop token, the solver's cancel flag and
/// the end of the running check's shorter limit, if it has one.
struct Halt {
    stop: Stop,
    cancel: Arc<CancelFlag>,
    until: std::cell::Cell<Option<Instant>>,
}

/// Bitwuzla's termination callback: nonzero when the check must end.
unsafe extern "C" fn terminate(state: *mut std::os::raw::c_void) -> i32 {
    // SAFETY: `state` is the `Box<Halt>` of the instance (or of `check_smtlib`) whose solver
    // calls this; the box outlives the solver (see `Instance::drop`).
    let halt = unsafe { &*(state as *const Halt) };
    let late = halt.until.get().is_some_and(|end| Instant::now() >= end);
    i32::from(late || halt.stop.should_stop() || halt.cancel.is_cancelled())
}

// SAFETY: an `Instance` exclusively owns its term manager, options and solver; no other
// object holds these pointers, and every access goes through `&mut self` or `&self` of the
// one owning `BitwuzlaSolver`, so moving it to another thread cannot create concurrent
// access. Bitwuzla keeps no per-thread state tied to these objects: the C API's thread-local
// buffers only hold return values, which are copied out before the method that called the
// API returns. Solvers on different threads use different term managers, which Bitwuzla
// supports.
unsafe impl Send for Instance {}

impl Memo for Instance {
    fn checks(&self) -> u64 {
        self.checks
    }

    fn memo_len(&self) -> usize {
        self.memo.len()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the pointers were returned by the matching constructors, are deleted once,
        // and the solver is deleted before the term manager whose terms it uses.
        unsafe {
            if !self.solver.is_null() {
                bz::bitwuzla_delete(self.solver);
            }
            if !self.options.is_null() {
                bz::bitwuzla_options_delete(self.options);
            }
            if !self.tm.is_null() {
                bz::bitwuzla_term_manager_delete(self.tm);
            }
        }
    }
}

impl Instance {
    /// A fresh term manager and solver producing models, with a per-check time limit.
    fn new(timeout: Option<Duration>, halt: Halt) -> Result<Self, SolverError> {
        let mut instance = Instance {
            tm: std::ptr::null_mut(),
            options: std::ptr::null_mut(),
            solver: std::ptr::null_mut(),
            bv_sorts: FxHashMap::default(),
            array_sort: 0,
            bool_true: 0,
            bool_false: 0,
            bv_one: 0,
            bv_zero: 0,
            memo: TermMemo::default(),
            checks: 0,
            pushed: false,
            halt: Box::new(halt),
        };
        // SAFETY: constructors without preconditions; null results are checked below, and a
        // partially built instance is cleaned up by `Drop`.
        unsafe {
            instance.tm = bz::bitwuzla_term_manager_new();
            instance.options = bz::bitwuzla_options_new();
        }
        if instance.tm.is_null() || instance.options.is_null() {
            return Err(SolverError::Backend(
                "could not create a Bitwuzla term manager".into(),
            ));
        }
        // SAFETY: `options` and `tm` are live; the options set here are valid numeric
        // options of this Bitwuzla version.
        unsafe {
            bz::bitwuzla_set_option(instance.options, bz::BITWUZLA_OPT_PRODUCE_MODELS, 1);
            set_time_limit(instance.options, timeout);
            instance.solver = bz::bitwuzla_new(instance.tm, instance.options);
        }
        if instance.solver.is_null() {
            return Err(SolverError::Backend(
                "could not create a Bitwuzla solver".into(),
            ));
        }
        // SAFETY: `solver` is live; the state pointer is the instance's boxed token, which is
        // dropped only after the solver is deleted.
        unsafe {
            let state = &*instance.halt as *const Halt as *mut std::os::raw::c_void;
            bz::bitwuzla_set_termination_callback(instance.solver, Some(terminate), state);
        }
        // SAFETY: `tm` is live and the sorts passed are sorts of `tm`.
        unsafe {
            let bool_sort = bz::bitwuzla_mk_bool_sort(instance.tm);
            instance.bool_true = bz::bitwuzla_mk_true(instance.tm);
            instance.bool_false = bz::bitwuzla_mk_false(instance.tm);
            bz::bitwuzla_sort_release(bool_sort);
        }
        let bv1 = instance.bv_sort(1);
        let index = instance.bv_sort(INDEX_WIDTH);
        let byte = instance.bv_sort(8);
        // SAFETY: `tm` is live and the sorts are sorts of `tm`.
        unsafe {
            instance.bv_one = bz::bitwuzla_mk_bv_one(instance.tm, bv1);
            instance.bv_zero = bz::bitwuzla_mk_bv_zero(instance.tm, bv1);
            instance.array_sort = bz::bitwuzla_mk_array_sort(instance.tm, index, byte);
        }
        Ok(instance)
    }

    /// The bit-vector sort of `width` bits (`1 ..= MAX_WIDTH`, checked by the caller).
    fn bv_sort(&mut self, width: Width) -> BitwuzlaSort {
        let tm = self.tm;
        *self.bv_sorts.entry(width).or_insert_with(|| {
            // SAFETY: `tm` is live and `width` is positive.
            unsafe { bz::bitwuzla_mk_bv_sort(tm, u64::from(width)) }
        })
    }

    fn mk1(&self, kind: BitwuzlaKind, a: BitwuzlaTerm) -> BitwuzlaTerm {
        // SAFETY: `a` is a term of `tm` whose sort `lower` checked against `kind`.
        unsafe { bz::bitwuzla_mk_term1(self.tm, kind, a) }
    }

    fn mk2(&self, kind: BitwuzlaKind, a: BitwuzlaTerm, b: BitwuzlaTerm) -> BitwuzlaTerm {
        // SAFETY: `a` and `b` are terms of `tm` whose sorts `lower` checked against `kind`.
        unsafe { bz::bitwuzla_mk_term2(self.tm, kind, a, b) }
    }

    fn mk3(
        &self,
        kind: BitwuzlaKind,
        a: BitwuzlaTerm,
        b: BitwuzlaTerm,
        c: BitwuzlaTerm,
    ) -> BitwuzlaTerm {
        // SAFETY: the terms belong to `tm` and `lower` checked their sorts against `kind`.
        unsafe { bz::bitwuzla_mk_term3(self.tm, kind, a, b, c) }
    }

    /// Checks the conjunction of `assumptions` (Boolean terms of `tm`) in a fresh scope.
    fn check_assuming(&mut self, assumptions: &[BitwuzlaTerm]) -> Result<Answer, SolverError> {
        self.checks += 1;
        // SAFETY: `solver` is live and every term in `assumptions` is a Boolean term of its
        // term manager; the scope pushed here is popped by the next check or by dropping.
        let result = unsafe {
            if self.pushed {
                bz::bitwuzla_pop(self.solver, 1);
            }
            bz::bitwuzla_push(self.solver, 1);
            self.pushed = true;
            for &a in assumptions.iter() {
                bz::bitwuzla_assert(self.solver, a);
            }
            bz::bitwuzla_check_sat(self.solver)
        };
        match result {
            bz::BITWUZLA_SAT => Ok(Answer::Sat),
            bz::BITWUZLA_UNSAT => Ok(Answer::Unsat),
            bz::BITWUZLA_UNKNOWN => Ok(Answer::Unknown),
            other => Err(SolverError::Backend(format!(
                "unexpected check result {other}"
            ))),
        }
    }

    /// The value, in the current model, of the lowered symbolic byte `id`. Only valid right
    /// after a check that answered SAT.
    fn byte_value(&self, id: ExprId) -> Result<u8, SolverError> {
        let term = self.memo.term(id)?;
        // SAFETY: the last check answered SAT with model production on, and `term` is an
        // 8-bit term of this solver's term manager. The value string is copied before any
        // other call can overwrite Bitwuzla's buffer, and the value term is released once.
        let text = unsafe {
            let value = bz::bitwuzla_get_value(self.solver, term);
            let raw = bz::bitwuzla_term_value_get_str(value);
            let text = if raw.is_null() {
                None
            } else {
                Some(CStr::from_ptr(raw).to_string_lossy().into_owned())
            };
            bz::bitwuzla_term_release(value);
            text
        };
        let text = text.ok_or_else(|| SolverError::Backend("model value is missing".into()))?;
        u8::from_str_radix(&text, 2)
            .map_err(|e| SolverError::Backend(format!("model value {text:?} is not a byte: {e}")))
    }
}

impl Terms for Instance {
    type Term = BitwuzlaTerm;

    fn memo(&self) -> &TermMemo<BitwuzlaTerm> {
        &self.memo
    }

    fn memo_mut(&mut self) -> &mut TermMemo<BitwuzlaTerm> {
        &mut self.memo
    }

    fn bool_const(&mut self, value: bool) -> Result<BitwuzlaTerm, SolverError> {
        Ok(if value {
            self.bool_true
        } else {
            self.bool_false
        })
    }

    fn bv_const(&mut self, width: Width, value: u128) -> Result<BitwuzlaTerm, SolverError> {
        let sort = self.bv_sort(width);
        if let Ok(small) = u64::try_from(value) {
            // SAFETY: `sort` is a bit-vector sort of `tm` wide enough for `small`, since
            // constants are masked to their width.
            Ok(unsafe { bz::bitwuzla_mk_bv_value_uint64(self.tm, sort, small) })
        } else {
            let digits = CString::new(format!("{value:x}"))
                .map_err(|e| SolverError::Backend(e.to_string()))?;
            // SAFETY: `digits` is a NUL-terminated hexadecimal numeral that fits `sort`, since
            // constants are masked to their width.
            Ok(unsafe { bz::bitwuzla_mk_bv_value(self.tm, sort, digits.as_ptr(), 16) })
        }
    }

    fn byte_symbol(&mut self, name: &CStr) -> Result<BitwuzlaTerm, SolverError> {
        let sort = self.bv_sort(8);
        // SAFETY: `sort` belongs to `tm` and `name` is NUL-terminated; Bitwuzla copies it.
        Ok(unsafe { bz::bitwuzla_mk_const(self.tm, sort, name.as_ptr()) })
    }

    fn unary(&mut self, op: UnOp, a: BitwuzlaTerm) -> Result<BitwuzlaTerm, SolverError> {
        let kind = match op {
            UnOp::Not => bz::BITWUZLA_KIND_BV_NOT,
            UnOp::Neg => bz::BITWUZLA_KIND_BV_NEG,
        };
        Ok(self.mk1(kind, a))
    }

    fn not(&mut self, b: BitwuzlaTerm) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk1(bz::BITWUZLA_KIND_NOT, b))
    }

    fn equal(&mut self, l: BitwuzlaTerm, r: BitwuzlaTerm) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk2(bz::BITWUZLA_KIND_EQUAL, l, r))
    }

    fn binary(
        &mut self,
        op: BinOp,
        l: BitwuzlaTerm,
        r: BitwuzlaTerm,
    ) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk2(binary_kind(op), l, r))
    }

    fn logical(
        &mut self,
        op: BinOp,
        l: BitwuzlaTerm,
        r: BitwuzlaTerm,
    ) -> Result<BitwuzlaTerm, SolverError> {
        let kind = match op {
            BinOp::And => bz::BITWUZLA_KIND_AND,
            BinOp::Or => bz::BITWUZLA_KIND_OR,
            _ => bz::BITWUZLA_KIND_XOR,
        };
        Ok(self.mk2(kind, l, r))
    }

    fn ite(
        &mut self,
        c: BitwuzlaTerm,
        t: BitwuzlaTerm,
        e: BitwuzlaTerm,
    ) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk3(bz::BITWUZLA_KIND_ITE, c, t, e))
    }

    fn extract(
        &mut self,
        a: BitwuzlaTerm,
        hi: Width,
        lo: Width,
    ) -> Result<BitwuzlaTerm, SolverError> {
        let (hi, lo) = (u64::from(hi), u64::from(lo));
        // SAFETY: `a` is a bit-vector term of `tm` and `lo <= hi` are bits of it.
        Ok(unsafe {
            bz::bitwuzla_mk_term1_indexed2(self.tm, bz::BITWUZLA_KIND_BV_EXTRACT, a, hi, lo)
        })
    }

    fn extend(
        &mut self,
        signed: bool,
        a: BitwuzlaTerm,
        extra: Width,
    ) -> Result<BitwuzlaTerm, SolverError> {
        let kind = if signed {
            bz::BITWUZLA_KIND_BV_SIGN_EXTEND
        } else {
            bz::BITWUZLA_KIND_BV_ZERO_EXTEND
        };
        // SAFETY: `a` is a bit-vector term of `tm`; the extension is positive.
        Ok(unsafe { bz::bitwuzla_mk_term1_indexed1(self.tm, kind, a, u64::from(extra)) })
    }

    fn concat(&mut self, hi: BitwuzlaTerm, lo: BitwuzlaTerm) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk2(bz::BITWUZLA_KIND_BV_CONCAT, hi, lo))
    }

    fn const_array(&mut self, value: u8) -> Result<BitwuzlaTerm, SolverError> {
        let byte = self.bv_sort(8);
        // SAFETY: `byte` is a sort of `tm`, the value fits 8 bits, and the array sort has
        // `byte` elements.
        Ok(unsafe {
            let element = bz::bitwuzla_mk_bv_value_uint64(self.tm, byte, u64::from(value));
            bz::bitwuzla_mk_const_array(self.tm, self.array_sort, element)
        })
    }

    fn store(
        &mut self,
        array: BitwuzlaTerm,
        index: BitwuzlaTerm,
        value: BitwuzlaTerm,
    ) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk3(bz::BITWUZLA_KIND_ARRAY_STORE, array, index, value))
    }

    fn select(
        &mut self,
        array: BitwuzlaTerm,
        index: BitwuzlaTerm,
    ) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk2(bz::BITWUZLA_KIND_ARRAY_SELECT, array, index))
    }

    fn bv_of_bool(&mut self, b: BitwuzlaTerm) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk3(bz::BITWUZLA_KIND_ITE, b, self.bv_one, self.bv_zero))
    }

    fn bool_of_bv(&mut self, t: BitwuzlaTerm) -> Result<BitwuzlaTerm, SolverError> {
        Ok(self.mk2(bz::BITWUZLA_KIND_EQUAL, t, self.bv_one))
    }

    fn fresh_bv(&mut self, width: Width, name: &CStr) -> Result<BitwuzlaTerm, SolverError> {
        let sort = self.bv_sort(width);
        // SAFETY: `sort` belongs to `tm` and `name` is NUL-terminated; Bitwuzla copies it.
        Ok(unsafe { bz::bitwuzla_mk_const(self.tm, sort, name.as_ptr()) })
    }

    fn fp_of_bits(
        &mut self,
        bits: BitwuzlaTerm,
        width: Width,
    ) -> Result<BitwuzlaTerm, SolverError> {
        let (e, s) = fp_format(width);
        // SAFETY: `bits` is a bit-vector term of `tm` of `e + s` bits (sorts checked).
        Ok(unsafe {
            bz::bitwuzla_mk_term1_indexed2(
                self.tm,
                bz::BITWUZLA_KIND_FP_TO_FP_FROM_BV,
                bits,
                u64::from(e),
                u64::from(s),
            )
        })
    }

    fn fp(&mut self, op: Fp, args: &[BitwuzlaTerm]) -> Result<BitwuzlaTerm, SolverError> {
        if args.len() != op.arity() {
            return Err(SolverError::Backend(format!(
                "{op:?} of {} operands",
                args.len()
            )));
        }
        let rne = self.rounding(Rounding::NearestEven);
        let plain = |kind| (kind, false);
        let (kind, rounded) = match op {
            Fp::Add => (bz::BITWUZLA_KIND_FP_ADD, true),
            Fp::Sub => (bz::BITWUZLA_KIND_FP_SUB, true),
            Fp::Mul => (bz::BITWUZLA_KIND_FP_MUL, true),
            Fp::Div => (bz::BITWUZLA_KIND_FP_DIV, true),
            Fp::Sqrt => (bz::BITWUZLA_KIND_FP_SQRT, true),
            Fp::Fma => (bz::BITWUZLA_KIND_FP_FMA, true),
            Fp::Round(mode) => {
                let rm = self.rounding(mode);
                return Ok(self.mk2(bz::BITWUZLA_KIND_FP_RTI, rm, args[0]));
            }
            Fp::Rem => plain(bz::BITWUZLA_KIND_FP_REM),
            Fp::Neg => plain(bz::BITWUZLA_KIND_FP_NEG),
            Fp::Abs => plain(bz::BITWUZLA_KIND_FP_ABS),
            Fp::Eq => plain(bz::BITWUZLA_KIND_FP_EQUAL),
            Fp::Lt => plain(bz::BITWUZLA_KIND_FP_LT),
            Fp::Le => plain(bz::BITWUZLA_KIND_FP_LEQ),
            Fp::IsNan => plain(bz::BITWUZLA_KIND_FP_IS_NAN),
            Fp::IsZero => plain(bz::BITWUZLA_KIND_FP_IS_ZERO),
            Fp::IsNeg => plain(bz::BITWUZLA_KIND_FP_IS_NEG),
        };
        let mut all = Vec::with_capacity(4);
        if rounded {
            all.push(rne);
        }
        all.extend_from_slice(args);
        // SAFETY: the terms belong to `tm`, are of one floating-point sort (checked by the
        // lowering) after the rounding mode, and their number is the kind's arity.
        Ok(unsafe { bz::bitwuzla_mk_term(self.tm, kind, all.len() as u32, all.as_mut_ptr()) })
    }

    fn fp_convert(&mut self, a: BitwuzlaTerm, to: Width) -> Result<BitwuzlaTerm, SolverError> {
        let (e, s) = fp_format(to);
        let rne = self.rounding(Rounding::NearestEven);
        // SAFETY: `rne` is a rounding mode and `a` a floating-point term of `tm`.
        Ok(unsafe {
            bz::bitwuzla_mk_term2_indexed2(
                self.tm,
                bz::BITWUZLA_KIND_FP_TO_FP_FROM_FP,
                rne,
                a,
                u64::from(e),
                u64::from(s),
            )
        })
    }

    fn fp_to_sbv(&mut self, a: BitwuzlaTerm, width: Width) -> Result<BitwuzlaTerm, SolverError> {
        let rtz = self.rounding(Rounding::TowardZero);
        // SAFETY: `rtz` is a rounding mode and `a` a floating-point term of `tm`.
        Ok(unsafe {
            bz::bitwuzla_mk_term2_indexed1(
                self.tm,
                bz::BITWUZLA_KIND_FP_TO_SBV,
                rtz,
                a,
                u64::from(width),
            )
        })
    }

    fn fp_of_int(
        &mut self,
        a: BitwuzlaTerm,
        signed: bool,
        to: Width,
    ) -> Result<BitwuzlaTerm, SolverError> {
        let (e, s) = fp_format(to);
        let rne = self.rounding(Rounding::NearestEven);
        let kind = if signed {
            bz::BITWUZLA_KIND_FP_TO_FP_FROM_SBV
        } else {
            bz::BITWUZLA_KIND_FP_TO_FP_FROM_UBV
        };
        // SAFETY: `rne` is a rounding mode and `a` a bit-vector term of `tm`.
        Ok(unsafe {
            bz::bitwuzla_mk_term2_indexed2(self.tm, kind, rne, a, u64::from(e), u64::from(s))
        })
    }
}

impl Instance {
    /// The rounding-mode value `mode`.
    fn rounding(&self, mode: Rounding) -> BitwuzlaTerm {
        let rm = match mode {
            Rounding::NearestEven => bz::BITWUZLA_RM_RNE,
            Rounding::NearestAway => bz::BITWUZLA_RM_RNA,
            Rounding::TowardNegative => bz::BITWUZLA_RM_RTN,
            Rounding::TowardPositive => bz::BITWUZLA_RM_RTP,
            Rounding::TowardZero => bz::BITWUZLA_RM_RTZ,
        };
        // SAFETY: `tm` is live and `rm` a rounding mode of this version.
        unsafe { bz::bitwuzla_mk_rm_value(self.tm, rm) }
    }
}

/// Sets the per-check time limit of `options` (live), if there is one.
unsafe fn set_time_limit(options: *mut bz::BitwuzlaOptions, timeout: Option<Duration>) {
    if let Some(limit) = timeout {
        // A limit of 0 means "none" to Bitwuzla, so round up to 1 ms.
        let millis = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX).max(1);
        // SAFETY: the caller passes live options; the time limit is a numeric option.
        unsafe { bz::bitwuzla_set_option(options, bz::BITWUZLA_OPT_TIME_LIMIT_PER, millis) };
    }
}

/// Bitwuzla's SMT-LIB parser: in the vendored library, but not in `bitwuzla-sys`'s bindings.
#[repr(C)]
struct BitwuzlaParser {
    _private: [u8; 0],
}

extern "C" {
    fn bitwuzla_parser_new(
        tm: *mut bz::BitwuzlaTermManager,
        options: *mut bz::BitwuzlaOptions,
        language: *const std::os::raw::c_char,
        base: u8,
        outfile_name: *const std::os::raw::c_char,
    ) -> *mut BitwuzlaParser;
    fn bitwuzla_parser_delete(parser: *mut BitwuzlaParser);
    fn bitwuzla_parser_parse(
        parser: *mut BitwuzlaParser,
        input: *const std::os::raw::c_char,
        parse_only: bool,
        parse_file: bool,
        error_msg: *mut *const std::os::raw::c_char,
    );
    fn bitwuzla_parser_get_bitwuzla(parser: *mut BitwuzlaParser) -> *mut bz::Bitwuzla;
}

/// Decides an SMT-LIB 2 benchmark (the query log's form, [`super::querylog`]) with
/// Bitwuzla's own parser and a fresh solver limited to `timeout`; `check-sat` commands are
/// parsed, not run, and the one check happens after the whole text is read. The check ends
/// (`Unknown`) soon after `stop` is interrupted or its deadline passes.
pub fn check_smtlib(
    text: &str,
    timeout: Option<Duration>,
    stop: &Stop,
) -> Result<Answer, SolverError> {
    let input = CString::new(text)
        .map_err(|_| SolverError::Backend("the query contains a NUL byte".into()))?;
    /// The term manager, options and parser, deleted in the reverse order.
    struct Parts(
        *mut bz::BitwuzlaTermManager,
        *mut bz::BitwuzlaOptions,
        *mut BitwuzlaParser,
    );
    impl Drop for Parts {
        fn drop(&mut self) {
            // SAFETY: each pointer is null or was returned by its constructor, and is deleted
            // once; the parser (which owns its solver) goes before the options and terms.
            unsafe {
                if !self.2.is_null() {
                    bitwuzla_parser_delete(self.2);
                }
                if !self.1.is_null() {
                    bz::bitwuzla_options_delete(self.1);
                }
                if !self.0.is_null() {
                    bz::bitwuzla_term_manager_delete(self.0);
                }
            }
        }
    }
    // Declared before the parts, so that it outlives the solver that calls back with it.
    let halt = Box::new(Halt {
        stop: stop.clone(),
        cancel: Arc::default(),
        until: std::cell::Cell::new(None),
    });
    let mut parts = Parts(
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    // SAFETY: constructors without preconditions; the options are set before the parser
    // (and so its solver) is made from them, and every pointer is checked before use.
    unsafe {
        parts.0 = bz::bitwuzla_term_manager_new();
        parts.1 = bz::bitwuzla_options_new();
        if parts.0.is_null() || parts.1.is_null() {
            return Err(SolverError::Backend(
                "could not create a Bitwuzla term manager".into(),
            ));
        }
        set_time_limit(parts.1, timeout);
        // Only "<stdout>" is safe: Bitwuzla 0.7 keeps a pointer to the stream of any other
        // file after closing it. Parsing without running `check-sat` prints nothing.
        parts.2 = bitwuzla_parser_new(parts.0, parts.1, c"smt2".as_ptr(), 2, c"<stdout>".as_ptr());
    }
    if parts.2.is_null() {
        return Err(SolverError::Backend(
            "could not create a Bitwuzla parser".into(),
        ));
    }
    let mut error: *const std::os::raw::c_char = std::ptr::null();
    // SAFETY: the parser is live, the input is NUL-terminated, and the error message is
    // copied before the parser is used again.
    let failed = unsafe {
        bitwuzla_parser_parse(parts.2, input.as_ptr(), true, false, &mut error);
        (!error.is_null()).then(|| CStr::from_ptr(error).to_string_lossy().into_owned())
    };
    if let Some(message) = failed {
        return Err(SolverError::Backend(format!(
            "Bitwuzla cannot parse it: {message}"
        )));
    }
    // SAFETY: the parser is live and has made its solver while reading the commands.
    let result = unsafe {
        let solver = bitwuzla_parser_get_bitwuzla(parts.2);
        if solver.is_null() {
            return Err(SolverError::Backend("the query declares nothing".into()));
        }
        let state = &*halt as *const Halt as *mut std::os::raw::c_void;
        bz::bitwuzla_set_termination_callback(solver, Some(terminate), state);
        bz::bitwuzla_check_sat(solver)
    };
    match result {
        bz::BITWUZLA_SAT => Ok(Answer::Sat),
        bz::BITWUZLA_UNSAT => Ok(Answer::Unsat),
        _ => Ok(Answer::Unknown),
    }
}

/// The Bitwuzla kind of a bit-vector operator or comparison other than `Eq`.
fn binary_kind(op: BinOp) -> BitwuzlaKind {
    match op {
        BinOp::Add => bz::BITWUZLA_KIND_BV_ADD,
        BinOp::Sub => bz::BITWUZLA_KIND_BV_SUB,
        BinOp::Mul => bz::BITWUZLA_KIND_BV_MUL,
        BinOp::UDiv => bz::BITWUZLA_KIND_BV_UDIV,
        BinOp::SDiv => bz::BITWUZLA_KIND_BV_SDIV,
        BinOp::URem => bz::BITWUZLA_KIND_BV_UREM,
        BinOp::SRem => bz::BITWUZLA_KIND_BV_SREM,
        BinOp::And => bz::BITWUZLA_KIND_BV_AND,
        BinOp::Or => bz::BITWUZLA_KIND_BV_OR,
        BinOp::Xor => bz::BITWUZLA_KIND_BV_XOR,
        BinOp::Shl => bz::BITWUZLA_KIND_BV_SHL,
        BinOp::LShr => bz::BITWUZLA_KIND_BV_SHR,
        BinOp::AShr => bz::BITWUZLA_KIND_BV_ASHR,
        BinOp::Eq => bz::BITWUZLA_KIND_EQUAL,
        BinOp::Ult => bz::BITWUZLA_KIND_BV_ULT,
        BinOp::Ule => bz::BITWUZLA_KIND_BV_ULE,
        BinOp::Slt => bz::BITWUZLA_KIND_BV_SLT,
        BinOp::Sle => bz::BITWUZLA_KIND_BV_SLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{ArrayId, Assignment};

    fn solve(
        solver: &mut BitwuzlaSolver,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> SatResult {
        solver.check(pool, constraints, query).unwrap()
    }

    /// The model of a Sat answer, after checking it satisfies every root.
    fn model_of(
        result: SatResult,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Assignment {
        let SatResult::Sat(model) = result else {
            panic!("expected Sat, got {result:?}");
        };
        for &e in constraints.iter().chain([&query]) {
            assert_eq!(pool.eval(e, &model), 1, "{}", pool.to_sexp(e));
        }
        model
    }

    /// Factoring a 64-bit semiprime: `x * y = C` without overflow, `x, y > 1`. Hard for
    /// bit-blasting: nowhere near decided in seconds.
    fn factoring(pool: &ExprPool) -> ExprId {
        let (a, b) = (pool.new_array("x", 8), pool.new_array("y", 8));
        let (x, y) = (word(pool, a, 8), word(pool, b, 8));
        // 4294967291 · 4294967279, the two largest primes below 2^32.
        let c = pool.constant(128, 18446743979220271189);
        let product = pool.mul(pool.zext(x, 128), pool.zext(y, 128));
        let one = pool.constant(64, 1);
        pool.bool_and(
            pool.eq(product, c),
            pool.bool_and(pool.ugt(x, one), pool.ugt(y, one)),
        )
    }

    #[test]
    fn a_hard_query_ends_at_its_time_limit() {
        let pool = ExprPool::new();
        let q = factoring(&pool);
        let mut solver = BitwuzlaSolver::new(Some(Duration::from_millis(200)));
        let start = Instant::now();
        let result = solve(&mut solver, &pool, &[], q);
        assert_eq!(result, SatResult::Unknown(TIMEOUT));
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn a_running_check_returns_when_interrupted() {
        let pool = ExprPool::new();
        let q = factoring(&pool);
        let stop = Stop::new();
        let mut solver = BitwuzlaSolver::new(Some(Duration::from_secs(60))).with_stop(stop.clone());
        let start = Instant::now();
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                stop.interrupt();
            });
            solve(&mut solver, &pool, &[], q)
        });
        assert_eq!(result, SatResult::Unknown("interrupted".into()));
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        // Asked again, it does not even start.
        assert_eq!(
            solve(&mut solver, &pool, &[], q),
            SatResult::Unknown("interrupted".into())
        );
    }

    #[test]
    fn a_running_check_returns_at_the_deadline() {
        let pool = ExprPool::new();
        let q = factoring(&pool);
        let stop = Stop::new();
        let mut solver = BitwuzlaSolver::new(None).with_stop(stop.clone());
        let start = Instant::now();
        stop.set_deadline(start + Duration::from_millis(200));
        let result = solve(&mut solver, &pool, &[], q);
        assert_eq!(result, SatResult::Unknown("max-time reached".into()));
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(200) && took < Duration::from_secs(3),
            "{took:?}"
        );
    }

    /// `bytes` symbolic bytes of `array`, little endian, as one bit-vector.
    fn word(pool: &ExprPool, array: ArrayId, bytes: u32) -> ExprId {
        let syms: Vec<ExprId> = (0..bytes).map(|i| pool.sym(array, i)).collect();
        syms[1..]
            .iter()
            .fold(syms[0], |acc, &byte| pool.concat(byte, acc))
    }

    #[test]
    fn sat_and_unsat_with_models() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 2);
        let x0 = pool.sym(x, 0);
        let mut solver = BitwuzlaSolver::new(None);
        let q = pool.eq(pool.mul(x0, pool.constant(8, 3)), pool.constant(8, 12));
        let c = pool.ult(x0, pool.constant(8, 100));
        let model = model_of(solve(&mut solver, &pool, &[c], q), &pool, &[c], q);
        assert_eq!(model.get(x), Some(&[4, 0][..]));

        let impossible = pool.ult(x0, pool.constant(8, 4));
        assert_eq!(
            solve(&mut solver, &pool, &[c, impossible], q),
            SatResult::Unsat
        );
        let stats = solver.stats();
        assert_eq!(stats.backend_queries, 2);
        assert_eq!((stats.backend_sat, stats.backend_unsat), (1, 1));
    }

    #[test]
    fn wide_constants_and_widths() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 16);
        let value: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        let q = pool.eq(word(&pool, x, 16), pool.constant(128, value));
        let mut solver = BitwuzlaSolver::new(None);
        let model = model_of(solve(&mut solver, &pool, &[], q), &pool, &[], q);
        assert_eq!(model.get(x), Some(&value.to_le_bytes()[..]));

        // An expression the constructors cannot fold: a 128-bit sum compared with a wide
        // constant, sign extension, extraction.
        let y = pool.new_array("y", 8);
        let wide = pool.add(
            pool.sext(word(&pool, y, 8), 128),
            pool.constant(128, u128::MAX),
        );
        let q = pool.eq(wide, pool.constant(128, u128::MAX - 1));
        let model = model_of(solve(&mut solver, &pool, &[], q), &pool, &[], q);
        assert_eq!(model.get(y), Some(&[u8::MAX; 8][..]));
        let top = pool.extract(word(&pool, y, 8), 60, 4);
        let q = pool.eq(top, pool.constant(4, 0b1010));
        let model = model_of(solve(&mut solver, &pool, &[], q), &pool, &[], q);
        assert_eq!(model.byte(y, 7) >> 4, 0b1010);
    }

    #[test]
    fn booleans_mix_with_bit_vectors() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 2);
        let (a, b) = (pool.sym(x, 0), pool.sym(x, 1));
        let lt = pool.ult(a, b);
        let eq = pool.eq(a, pool.constant(8, 5));
        // A comparison used as a bit-vector: (zext (a < b)) + (a == 5) == 2.
        let sum = pool.add(pool.zext(lt, 8), pool.zext(eq, 8));
        let q = pool.eq(sum, pool.constant(8, 2));
        let mut solver = BitwuzlaSolver::new(None);
        let model = model_of(solve(&mut solver, &pool, &[], q), &pool, &[], q);
        assert_eq!(model.byte(x, 0), 5);
        assert!(model.byte(x, 1) > 5);

        // Width-1 logic and ite over comparisons.
        let either = pool.bool_or(pool.bool_and(lt, eq), pool.xor(lt, eq));
        let picked = pool.ite(either, a, b);
        let q = pool.bool_and(pool.bool_not(lt), pool.eq(picked, pool.constant(8, 9)));
        let model = model_of(solve(&mut solver, &pool, &[], q), &pool, &[], q);
        assert!(model.byte(x, 0) >= model.byte(x, 1));
    }

    #[test]
    fn symbolic_index_read_over_write() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 2);
        let (i, v) = (pool.zext(pool.sym(x, 0), 32), pool.sym(x, 1));
        let mem = pool.array_store(pool.array_const(0), i, v);
        let mem = pool.array_store(mem, pool.constant(32, 3), pool.constant(8, 7));
        let read = pool.array_read(mem, pool.constant(32, 200));
        let q = pool.eq(read, pool.constant(8, 99));
        let mut solver = BitwuzlaSolver::new(None);
        let model = model_of(solve(&mut solver, &pool, &[], q), &pool, &[], q);
        assert_eq!(model.get(x), Some(&[200, 99][..]));
        let overwritten = pool.eq(
            pool.array_read(mem, pool.constant(32, 3)),
            pool.constant(8, 8),
        );
        assert_eq!(
            solve(&mut solver, &pool, &[], overwritten),
            SatResult::Unsat
        );
    }

    #[test]
    fn models_cover_every_array_of_the_formula() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 3);
        let y = pool.new_array("y", u32::MAX);
        let c = pool.ule(pool.sym(y, 4), pool.constant(8, 200));
        let q = pool.eq(pool.sym(x, 1), pool.constant(8, 1));
        let mut solver = BitwuzlaSolver::new(None);
        let model = model_of(solve(&mut solver, &pool, &[c], q), &pool, &[c], q);
        assert_eq!(model.get(x).map(<[u8]>::len), Some(3));
        assert_eq!(model.get(y).map(<[u8]>::len), Some(5));
    }

    #[test]
    fn deep_expressions_do_not_overflow_the_stack() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 4);
        let before = pool.len();
        let mut e = pool.zext(pool.sym(x, 0), 32);
        for i in 0..5_000u32 {
            let step = pool.add(e, pool.constant(32, u128::from(i) + 1));
            e = pool.xor(step, pool.zext(pool.sym(x, i % 4), 32));
        }
        assert!(pool.len() - before > 10_000);
        let mut target = Assignment::new();
        target.set(x, vec![1, 2, 3, 4]);
        let q = pool.eq(e, pool.constant(32, pool.eval(e, &target)));
        // Pinning the inputs keeps the search trivial; the depth is what is tested.
        let pins: Vec<ExprId> = (0..4)
            .map(|i| pool.eq(pool.sym(x, i), pool.constant(8, u128::from(i) + 1)))
            .collect();
        let handle = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let mut solver = BitwuzlaSolver::new(None);
                let result = solver.check(&pool, &pins, q).unwrap();
                model_of(result, &pool, &pins, q);
                solver.memo_len()
            })
            .unwrap();
        assert!(handle.join().unwrap() > 10_000);
    }

    #[test]
    fn the_memo_persists_and_the_instance_is_recreated() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let x0 = pool.sym(x, 0);
        let mut solver = BitwuzlaSolver::with_limits(None, 2, usize::MAX);
        for k in 0..5u8 {
            let q = pool.eq(x0, pool.constant(8, u128::from(k)));
            let model = model_of(solve(&mut solver, &pool, &[], q), &pool, &[], q);
            assert_eq!(model.byte(x, 0), k);
            assert!(solver.memo_len() > 0);
        }
        assert_eq!(solver.stats().backend_resets, 2);

        let mut solver = BitwuzlaSolver::with_limits(None, 1000, 4);
        let deep = pool.ult(pool.add(pool.mul(x0, x0), x0), pool.constant(8, 3));
        solve(&mut solver, &pool, &[], deep);
        let memo = solver.memo_len();
        assert!(memo > 4);
        solve(&mut solver, &pool, &[], deep);
        assert_eq!(solver.memo_len(), memo);
        assert_eq!(solver.stats().backend_resets, 1);
    }

    #[test]
    fn each_live_pool_gets_a_fresh_memo() {
        let (first, second) = (ExprPool::new(), ExprPool::new());
        // Equal ids name different expressions in the two pools.
        let x = first.new_array("x", 1);
        let y = second.new_array("y", 1);
        second.constant(8, 77);
        let q1 = first.eq(first.sym(x, 0), first.constant(8, 3));
        let q2 = second.eq(second.sym(y, 0), second.constant(8, 4));
        let mut solver = BitwuzlaSolver::new(None);
        for _ in 0..2 {
            let model = model_of(solve(&mut solver, &first, &[], q1), &first, &[], q1);
            assert_eq!(model.byte(x, 0), 3);
            let model = model_of(solve(&mut solver, &second, &[], q2), &second, &[], q2);
            assert_eq!(model.byte(y, 0), 4);
        }
        solver.reset();
        assert_eq!(solver.memo_len(), 0);
        assert_eq!(solver.stats().backend_resets, 4);
    }

    #[test]
    fn constraints_must_be_conditions() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let mut solver = BitwuzlaSolver::new(None);
        let err = solver.check(&pool, &[pool.sym(x, 0)], pool.true_());
        assert!(matches!(err, Err(SolverError::Backend(_))));
    }

    #[test]
    fn a_hard_query_times_out() {
        let pool = ExprPool::new();
        let (p, q) = (pool.new_array("p", 8), pool.new_array("q", 8));
        let (a, b) = (
            pool.zext(word(&pool, p, 8), 128),
            pool.zext(word(&pool, q, 8), 128),
        );
        let one = pool.constant(128, 1);
        let constraints = [pool.ult(one, a), pool.ult(one, b)];
        // The product of the primes 4294967291 and 4294967279.
        let product = pool.eq(pool.mul(a, b), pool.constant(128, 18446743979220271189));
        let mut solver = BitwuzlaSolver::new(Some(Duration::from_millis(50)));
        let start = Instant::now();
        let result = solve(&mut solver, &pool, &constraints, product);
        assert_eq!(result, SatResult::Unknown(TIMEOUT));
        assert!(start.elapsed() < Duration::from_secs(20));
        assert_eq!(solver.stats().backend_unknown, 1);
        // The solver stays usable after a timeout.
        let easy = pool.eq(pool.sym(p, 0), pool.constant(8, 1));
        assert!(solve(&mut solver, &pool, &[], easy).is_sat());
    }
}
