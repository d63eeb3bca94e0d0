//! The second SMT backend: lowers expressions to Z3 terms, as a cross-check of Bitwuzla or as
//! the backend itself (`--solver z3`).
//!
//! This is the only file of the project that uses Z3. All foreign calls go through the
//! private [`Context`] type, which owns one reference-counted Z3 context.
//!
//! Design:
//! - **One solver per query.** Each check makes a fresh Z3 solver, asserts the constraints and
//!   the query and checks once: a `QF_BV` solver (bit-blasting tactics) when no array
//!   operation occurs, Z3's simple solver (its SMT core, complete for arrays with constant
//!   arrays, which the `QF_ABV` tactic is not) otherwise. Terms live in the context, so a
//!   constraint shared by many queries is still translated once. Measured on the corpus
//!   (`--solver z3`, popcount left out): 19.1 s of solver time with a logic-specific solver,
//!   21.9 s with the simple solver alone, 43.1 s with Z3's default solver, which spends about
//!   50 ms per query choosing a strategy.
//! - **Translation memo.** Expressions are lowered by the traversal shared with Bitwuzla (see
//!   `lowering.rs`: children first, sort-checked, with Boolean forms of width-1 expressions)
//!   into a memo from `ExprId` to term that persists across queries; this file supplies the
//!   term constructors, each of which takes one reference to the term it makes.
//! - **Memory bound.** The context is dropped and recreated (lazily) after
//!   [`DEFAULT_RESET_INTERVAL`] checks, when the memo exceeds [`DEFAULT_MEMO_LIMIT`] terms,
//!   and when the solver is handed a different pool.
//! - **Limits.** A time limit becomes Z3's `timeout` parameter (milliseconds); an
//!   [`Z3Interrupt`] handle stops a running check from another thread (`Z3_interrupt`) and
//!   makes every later check answer `Unknown("interrupted")` at once; its [`Cancel`] side
//!   (the portfolio's race) stops the running check, or the next one, until rearmed.
//! - **Errors.** Every node's sorts are checked before it is lowered, and Z3's error handler
//!   is replaced by one that only records the error: a failed call returns null, which
//!   becomes [`SolverError::Backend`] with Z3's message. Nothing reaches Z3's default
//!   handler, which would end the process.

use super::lowering::{Fp, Rounding, TermMemo, Terms};
use super::{
    assignment_from_bytes, children, symbolic_bytes, Answer, Cancel, Memo, Recycled, SatResult,
    Solver, SolverError, SolverStats, CANCELLED, DEFAULT_MEMO_LIMIT, DEFAULT_RESET_INTERVAL,
    TIMEOUT,
};
use crate::expr::fp_format;
use crate::expr::{BinOp, ExprId, ExprPool, Node, UnOp, Width, INDEX_WIDTH};
use crate::stop::Stop;
use rustc_hash::FxHashMap;
use std::ffi::{CStr, CString};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use z3_sys as z;

/// The reason given by `SatResult::Unknown` when a check was stopped by [`Z3Interrupt`].
pub const INTERRUPTED: super::GiveUp = super::GiveUp::Stopped(crate::stop::StopReason::Interrupted);

/// A [`Solver`] backed by Z3 (see the module documentation).
pub struct Z3Solver {
    timeout: Option<Duration>,
    /// A shorter limit of the coming checks ([`Solver::set_time_limit`]).
    limit: Option<Duration>,
    /// The context, made at the first query after construction or after a reset.
    context: Recycled<Context>,
    interrupt: Z3Interrupt,
    /// The run's stop token: its deadline bounds each check, its interrupt stops one running.
    stop: Stop,
    /// The thread that watches `stop`, if any; it ends when the solver is dropped.
    watching: Watch,
    stats: SolverStats,
}

/// A thread that interrupts a [`Z3Interrupt`] once a [`Stop`] token is interrupted; dropping
/// the guard ends the thread. Without the thread (it could not be spawned) an interrupt
/// still stops every later check, and the time limit ends a running one.
#[derive(Default)]
struct Watch(Option<Arc<std::sync::atomic::AtomicBool>>);

impl Watch {
    fn start(stop: Stop, interrupt: Z3Interrupt) -> Self {
        let alive = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let flag = alive.clone();
        let spawned = std::thread::Builder::new()
            .name("z3-stop".into())
            .spawn(move || {
                while flag.load(std::sync::atomic::Ordering::Relaxed) {
                    if stop.interrupted() {
                        interrupt.interrupt();
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            });
        Watch(spawned.is_ok().then_some(alive))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(alive) = &self.0 {
            alive.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Stops the checks of one [`Z3Solver`] from another thread. Cloning shares the handle.
#[derive(Clone, Default)]
pub struct Z3Interrupt {
    shared: Arc<Mutex<InterruptState>>,
}

#[derive(Default)]
struct InterruptState {
    /// Set once by [`Z3Interrupt::interrupt`]; every later check answers at once.
    stopped: bool,
    /// Set by [`Cancel::cancel`], cleared by [`Cancel::rearm`].
    cancelled: bool,
    /// The context of the check running now, if any.
    running: Option<RawContext>,
}

/// A context pointer that may be handed to `Z3_interrupt` from another thread.
#[derive(Clone, Copy)]
struct RawContext(z::Z3_context);

// SAFETY: the pointer is only used for `Z3_interrupt`, which Z3 documents as callable from
// another thread while the context runs a check; it is set and cleared under the mutex by the
// thread that owns the context, which clears it before the context can be deleted.
unsafe impl Send for RawContext {}

impl Z3Interrupt {
    /// Stops the running check, if any (it answers `Unknown("interrupted")`), and makes every
    /// later check of the solver answer the same without solving.
    pub fn interrupt(&self) {
        let mut state = lock(&self.shared);
        state.stopped = true;
        if let Some(RawContext(ctx)) = state.running {
            // SAFETY: `ctx` is live: the owning thread clears `running` under this mutex
            // before it deletes the context.
            unsafe { z::Z3_interrupt(ctx) };
        }
    }

    /// Whether [`Z3Interrupt::interrupt`] was called.
    pub fn is_interrupted(&self) -> bool {
        lock(&self.shared).stopped
    }
}

impl InterruptState {
    /// Why checks must not run now, if so: the interrupt first, then a cancel.
    fn halted(&self) -> Option<super::GiveUp> {
        (self.stopped || self.cancelled).then_some(if self.stopped {
            INTERRUPTED
        } else {
            CANCELLED
        })
    }
}

impl Cancel for Z3Interrupt {
    fn cancel(&self) {
        let mut state = lock(&self.shared);
        state.cancelled = true;
        if let Some(RawContext(ctx)) = state.running {
            // SAFETY: as in `interrupt`. Z3 forgets an interrupt when its check ends.
            unsafe { z::Z3_interrupt(ctx) };
        }
    }

    fn rearm(&self) {
        lock(&self.shared).cancelled = false;
    }
}

/// The state behind the mutex; a panic elsewhere cannot leave it inconsistent (two plain
/// fields), so a poisoned lock is used as it is.
fn lock(shared: &Mutex<InterruptState>) -> MutexGuard<'_, InterruptState> {
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Z3Solver {
    /// A solver whose every check is limited to `timeout` (`None`: no limit), with the default
    /// memory bounds. The context is created lazily, so this cannot fail.
    pub fn new(timeout: Option<Duration>) -> Self {
        Self::with_limits(timeout, DEFAULT_RESET_INTERVAL, DEFAULT_MEMO_LIMIT)
    }

    /// Like [`Z3Solver::new`], recreating the context after `reset_interval` checks or once
    /// its memo holds more than `memo_limit` terms.
    pub fn with_limits(timeout: Option<Duration>, reset_interval: u64, memo_limit: usize) -> Self {
        Self {
            timeout,
            limit: None,
            context: Recycled::new(reset_interval, memo_limit),
            interrupt: Z3Interrupt::default(),
            stop: Stop::default(),
            watching: Watch::default(),
            stats: SolverStats::default(),
        }
    }

    /// The same solver, stopped by `stop`: no check starts once it says stop, a check is
    /// limited to the time before its deadline, and its interrupt stops a running check
    /// (a thread polls it every 20 ms while the solver lives; Z3 has no callback to ask).
    pub fn with_stop(mut self, stop: Stop) -> Self {
        self.watching = Watch::start(stop.clone(), self.interrupt.clone());
        self.stop = stop;
        self
    }

    /// The handle that stops this solver's checks from another thread.
    pub fn interrupt_handle(&self) -> Z3Interrupt {
        self.interrupt.clone()
    }

    /// The handle that cancels this solver's running check (or its next one) until rearmed.
    pub fn canceller(&self) -> Arc<dyn Cancel> {
        Arc::new(self.interrupt.clone())
    }

    /// Drops the context and its memo; the next query starts afresh.
    pub fn reset(&mut self) {
        self.context.reset();
    }

    /// The number of expressions currently memoised (0 before the first query).
    pub fn memo_len(&self) -> usize {
        self.context.memo_len()
    }
}

impl Solver for Z3Solver {
    fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        if let Some(why) = lock(&self.interrupt.shared).halted() {
            self.stats.backend_unknown += 1;
            return Ok(SatResult::Unknown(why));
        }
        if let Some(why) = self.stop.reason() {
            self.stats.backend_unknown += 1;
            return Ok(SatResult::Unknown(why.into()));
        }
        // The query's own limit, a shorter one set for it, or the time left if sooner.
        let left = self
            .stop
            .deadline()
            .map(|d| d.saturating_duration_since(Instant::now()));
        let timeout = [self.timeout, self.limit, left].into_iter().flatten().min();
        let interrupt = self.interrupt.clone();
        let context = self.context.get(pool, Context::new)?;
        let mut assertions = Vec::with_capacity(constraints.len() + 1);
        let mut arrays = false;
        let mut floats = false;
        for &root in constraints.iter().chain(std::iter::once(&query)) {
            super::lowering::check_condition(pool, root)?;
            context.lower(pool, root)?;
            assertions.push(context.bool_of(root)?);
            arrays |= context.with_arrays.contains(&root);
            floats |= context.with_floats.contains(&root);
        }
        let all: Vec<ExprId> = constraints.iter().copied().chain([query]).collect();
        assertions.extend(context.definitions(pool, &all)?);
        assertions.sort_unstable();
        assertions.dedup();

        let start = Instant::now();
        let roots = (constraints, query);
        let logic = Logic { arrays, floats };
        let answer = context.check(pool, &assertions, roots, logic, timeout, &interrupt);
        let elapsed = start.elapsed();
        let answer = answer?;
        self.stats
            .count_backend_check(super::Backend::Z3, &answer, elapsed);
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
            backend_resets: self.context.resets,
            ..self.stats
        }
    }
}

/// Ignores an error: the failed call returns null, and the caller reads the error code.
extern "C" fn record_error(_ctx: z::Z3_context, _code: z::ErrorCode) {}

/// One reference-counted Z3 context with the translation memo. Every term the memo holds has
/// one reference taken when it was made; deleting the context releases them all.
struct Context {
    ctx: z::Z3_context,
    bv_sorts: FxHashMap<Width, z::Z3_sort>,
    fp_sorts: FxHashMap<Width, z::Z3_sort>,
    array_sort: z::Z3_sort,
    bv_one: z::Z3_ast,
    bv_zero: z::Z3_ast,
    /// The translation memo.
    memo: TermMemo<z::Z3_ast>,
    /// The lowered expressions that contain an array operation.
    with_arrays: rustc_hash::FxHashSet<ExprId>,
    /// The lowered expressions that reach a floating-point node.
    with_floats: rustc_hash::FxHashSet<ExprId>,
    /// Checks run on this context.
    checks: u64,
}

// SAFETY: a `Context` exclusively owns its Z3 context; every access goes through the one
// owning `Z3Solver` (`&mut self` or `&self`), so moving it to another thread cannot create
// concurrent access. The only call made from elsewhere is `Z3_interrupt` (see `RawContext`).
unsafe impl Send for Context {}

impl Memo for Context {
    fn checks(&self) -> u64 {
        self.checks
    }

    fn memo_len(&self) -> usize {
        self.memo.len()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: `ctx` was returned by `Z3_mk_context_rc` and is deleted once; solvers,
        // models and parameters made by `check` were released before it returned.
        unsafe { z::Z3_del_context(self.ctx) };
    }
}

impl Context {
    /// A fresh context producing models, whose errors are recorded instead of aborting.
    fn new() -> Result<Self, SolverError> {
        // SAFETY: the configuration is used once and deleted; the parameter names and values
        // are NUL-terminated literals Z3 knows.
        let ctx = unsafe {
            let cfg = z::Z3_mk_config();
            if cfg.is_null() {
                return Err(SolverError::Backend(
                    "could not create a Z3 configuration".into(),
                ));
            }
            z::Z3_set_param_value(cfg, c"model".as_ptr(), c"true".as_ptr());
            let ctx = z::Z3_mk_context_rc(cfg);
            z::Z3_del_config(cfg);
            ctx
        };
        if ctx.is_null() {
            return Err(SolverError::Backend("could not create a Z3 context".into()));
        }
        // SAFETY: `ctx` is live; `record_error` has the handler's signature and never unwinds.
        unsafe { z::Z3_set_error_handler(ctx, Some(record_error)) };
        let mut context = Context {
            ctx,
            bv_sorts: FxHashMap::default(),
            fp_sorts: FxHashMap::default(),
            array_sort: std::ptr::null_mut(),
            bv_one: std::ptr::null_mut(),
            bv_zero: std::ptr::null_mut(),
            memo: TermMemo::default(),
            with_arrays: Default::default(),
            with_floats: Default::default(),
            checks: 0,
        };
        let bv1 = context.bv_sort(1)?;
        let index = context.bv_sort(INDEX_WIDTH)?;
        let byte = context.bv_sort(8)?;
        // SAFETY: `ctx` is live and the sorts are sorts of `ctx`.
        unsafe {
            context.bv_one = context.keep(z::Z3_mk_unsigned_int64(ctx, 1, bv1))?;
            context.bv_zero = context.keep(z::Z3_mk_unsigned_int64(ctx, 0, bv1))?;
            let array = z::Z3_mk_array_sort(ctx, index, byte);
            context.array_sort = context.keep_sort(array)?;
        }
        Ok(context)
    }

    /// The message of the context's last error.
    fn error(&self, what: &str) -> SolverError {
        // SAFETY: `ctx` is live; the message is a static string of Z3's, copied at once.
        let message = unsafe {
            let code = z::Z3_get_error_code(self.ctx);
            let raw = z::Z3_get_error_msg(self.ctx, code);
            if raw.is_null() {
                format!("{code:?}")
            } else {
                CStr::from_ptr(raw).to_string_lossy().into_owned()
            }
        };
        SolverError::Backend(format!("Z3 failed to {what}: {message}"))
    }

    /// Takes a reference to a freshly made term, or reports the error that made it null.
    fn keep(&self, ast: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        if ast.is_null() {
            return Err(self.error("build a term"));
        }
        // SAFETY: `ast` is a live term of `ctx` (just returned by it).
        unsafe { z::Z3_inc_ref(self.ctx, ast) };
        Ok(ast)
    }

    /// [`Context::keep`] for a sort (a sort is a term to Z3's reference counting).
    fn keep_sort(&self, sort: z::Z3_sort) -> Result<z::Z3_sort, SolverError> {
        if sort.is_null() {
            return Err(self.error("build a sort"));
        }
        // SAFETY: `sort` is a live sort of `ctx`, and sorts are ASTs.
        unsafe { z::Z3_inc_ref(self.ctx, z::Z3_sort_to_ast(self.ctx, sort)) };
        Ok(sort)
    }

    /// The bit-vector sort of `width` bits (`1 ..= MAX_WIDTH`, checked by the caller).
    fn bv_sort(&mut self, width: Width) -> Result<z::Z3_sort, SolverError> {
        if let Some(&sort) = self.bv_sorts.get(&width) {
            return Ok(sort);
        }
        // SAFETY: `ctx` is live and `width` is positive.
        let sort = self.keep_sort(unsafe { z::Z3_mk_bv_sort(self.ctx, width) })?;
        self.bv_sorts.insert(width, sort);
        Ok(sort)
    }

    /// Checks the conjunction of `assertions` (Boolean terms of `ctx`) with a fresh solver,
    /// and reads the model's value of every symbolic byte of the roots on Sat.
    fn check(
        &mut self,
        pool: &ExprPool,
        assertions: &[z::Z3_ast],
        (constraints, query): (&[ExprId], ExprId),
        logic: Logic,
        timeout: Option<Duration>,
        interrupt: &Z3Interrupt,
    ) -> Result<SatResult, SolverError> {
        self.checks += 1;
        let ctx = self.ctx;
        let mut handles = self.solver(logic, timeout)?;
        let solver = handles.solver;
        // SAFETY: `ctx` and `solver` are live and every assertion is a Boolean term of `ctx`.
        unsafe {
            for &a in assertions {
                z::Z3_solver_assert(ctx, solver, a);
            }
        }
        {
            let mut state = lock(&interrupt.shared);
            if let Some(why) = state.halted() {
                return Ok(SatResult::Unknown(why));
            }
            state.running = Some(RawContext(ctx));
        }
        // SAFETY: as above; the check may be interrupted from another thread.
        let result = unsafe { z::Z3_solver_check(ctx, solver) };
        let halted = {
            let mut state = lock(&interrupt.shared);
            state.running = None;
            state.halted()
        };
        match result {
            z::Z3_L_TRUE => {
                // SAFETY: the check answered Sat with model production on.
                handles.model = unsafe { z::Z3_solver_get_model(ctx, solver) };
                if handles.model.is_null() {
                    return Err(self.error("produce a model"));
                }
                unsafe { z::Z3_model_inc_ref(ctx, handles.model) };
                let roots = constraints.iter().copied().chain(std::iter::once(query));
                let mut bytes = Vec::new();
                for (id, array, offset) in symbolic_bytes(pool, roots) {
                    bytes.push((array, offset, self.byte_value(handles.model, id)?));
                }
                Ok(SatResult::Sat(assignment_from_bytes(pool, bytes)))
            }
            z::Z3_L_FALSE => Ok(SatResult::Unsat),
            _ if halted.is_some() => Ok(SatResult::Unknown(halted.unwrap_or(INTERRUPTED))),
            _ => {
                // SAFETY: `solver` is live; the reason is copied at once.
                let reason = unsafe {
                    let raw = z::Z3_solver_get_reason_unknown(ctx, solver);
                    if raw.is_null() {
                        String::new()
                    } else {
                        CStr::from_ptr(raw).to_string_lossy().into_owned()
                    }
                };
                let timed_out = timeout.is_some()
                    && (reason.contains("timeout") || reason.contains("canceled"));
                Ok(SatResult::Unknown(if timed_out {
                    TIMEOUT
                } else {
                    super::GiveUp::Z3(reason)
                }))
            }
        }
    }

    /// A fresh solver limited to `timeout`: Z3's simple solver when `arrays` (its SMT core,
    /// complete for arrays with constant arrays), else a `QF_BV` one.
    fn solver(&self, logic: Logic, timeout: Option<Duration>) -> Result<Handles, SolverError> {
        let ctx = self.ctx;
        // SAFETY: `ctx` is live; the solver and parameters are referenced while used, and the
        // solver is released by `Handles::drop`.
        let solver = unsafe {
            if logic.floats {
                // The default solver: its preprocessing bit-blasts floating point, which the
                // simple solver's lazy FP theory takes seconds for.
                z::Z3_mk_solver(ctx)
            } else if logic.arrays {
                z::Z3_mk_simple_solver(ctx)
            } else {
                z::Z3_mk_solver_for_logic(ctx, z::Z3_mk_string_symbol(ctx, c"QF_BV".as_ptr()))
            }
        };
        if solver.is_null() {
            return Err(self.error("create a solver"));
        }
        let handles = Handles {
            ctx,
            solver,
            model: std::ptr::null_mut(),
        };
        // SAFETY: as above.
        unsafe {
            z::Z3_solver_inc_ref(ctx, solver);
            let params = z::Z3_mk_params(ctx);
            z::Z3_params_inc_ref(ctx, params);
            // Z3 would otherwise install its own SIGINT handler while a check runs, which
            // ends the check and swallows the signal: the run's stop token would never hear
            // of the user's Ctrl-C. Stopping is the `Z3Interrupt`'s job.
            let ctrl_c = z::Z3_mk_string_symbol(ctx, c"ctrl_c".as_ptr());
            z::Z3_params_set_bool(ctx, params, ctrl_c, false);
            if let Some(limit) = timeout {
                // Z3 reads a timeout of 0 as none, so round up to 1 ms.
                let millis = u32::try_from(limit.as_millis()).unwrap_or(u32::MAX).max(1);
                let key = z::Z3_mk_string_symbol(ctx, c"timeout".as_ptr());
                z::Z3_params_set_uint(ctx, params, key, millis);
            }
            z::Z3_solver_set_params(ctx, solver, params);
            z::Z3_params_dec_ref(ctx, params);
        }
        Ok(handles)
    }

    /// The value of the lowered symbolic byte `id` in `model` (completed: a byte the model
    /// leaves free reads as Z3's default).
    fn byte_value(&self, model: z::Z3_model, id: ExprId) -> Result<u8, SolverError> {
        let term = self.memo.term(id)?;
        let mut value: z::Z3_ast = std::ptr::null_mut();
        let mut number = 0u64;
        // SAFETY: `model` is a live model of `ctx` and `term` an 8-bit term of `ctx`; the
        // evaluated term is referenced while its number is read, then released.
        let ok = unsafe {
            if !z::Z3_model_eval(self.ctx, model, term, true, &mut value) || value.is_null() {
                false
            } else {
                z::Z3_inc_ref(self.ctx, value);
                let ok = z::Z3_get_numeral_uint64(self.ctx, value, &mut number);
                z::Z3_dec_ref(self.ctx, value);
                ok
            }
        };
        if !ok {
            return Err(self.error("evaluate a symbolic byte in the model"));
        }
        u8::try_from(number)
            .map_err(|_| SolverError::Backend(format!("Z3 model value {number} is not a byte")))
    }
}

// SAFETY (every block below): `ctx` is live, every operand is a term of `ctx` from the memo,
// and `check_sorts` established that the operands' sorts fit the operator.
impl Terms for Context {
    type Term = z::Z3_ast;

    fn memo(&self) -> &TermMemo<z::Z3_ast> {
        &self.memo
    }

    fn memo_mut(&mut self) -> &mut TermMemo<z::Z3_ast> {
        &mut self.memo
    }

    fn lowered(&mut self, id: ExprId, node: &Node) {
        let array_node = matches!(
            node,
            Node::ArrayConst { .. } | Node::ArrayStore { .. } | Node::ArrayRead { .. }
        );
        if array_node || children(node).any(|c| self.with_arrays.contains(&c)) {
            self.with_arrays.insert(id);
        }
        let float_node = matches!(
            node,
            Node::FpBinary { .. }
                | Node::FpUnary { .. }
                | Node::FpFma { .. }
                | Node::FpCmp { .. }
                | Node::FpConvert { .. }
                | Node::FpToSInt { .. }
                | Node::IntToFp { .. }
        );
        if float_node || children(node).any(|c| self.with_floats.contains(&c)) {
            self.with_floats.insert(id);
        }
    }

    fn bool_const(&mut self, value: bool) -> Result<z::Z3_ast, SolverError> {
        let ctx = self.ctx;
        self.keep(unsafe {
            if value {
                z::Z3_mk_true(ctx)
            } else {
                z::Z3_mk_false(ctx)
            }
        })
    }

    fn bv_const(&mut self, width: Width, value: u128) -> Result<z::Z3_ast, SolverError> {
        let sort = self.bv_sort(width)?;
        let ast = if let Ok(small) = u64::try_from(value) {
            unsafe { z::Z3_mk_unsigned_int64(self.ctx, small, sort) }
        } else {
            let digits =
                CString::new(value.to_string()).map_err(|e| SolverError::Backend(e.to_string()))?;
            unsafe { z::Z3_mk_numeral(self.ctx, digits.as_ptr(), sort) }
        };
        self.keep(ast)
    }

    fn byte_symbol(&mut self, name: &CStr) -> Result<z::Z3_ast, SolverError> {
        let sort = self.bv_sort(8)?;
        let ctx = self.ctx;
        self.keep(unsafe { z::Z3_mk_const(ctx, z::Z3_mk_string_symbol(ctx, name.as_ptr()), sort) })
    }

    fn unary(&mut self, op: UnOp, a: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        self.keep(match op {
            UnOp::Not => unsafe { z::Z3_mk_bvnot(self.ctx, a) },
            UnOp::Neg => unsafe { z::Z3_mk_bvneg(self.ctx, a) },
        })
    }

    fn not(&mut self, b: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { z::Z3_mk_not(self.ctx, b) })
    }

    fn equal(&mut self, l: z::Z3_ast, r: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { z::Z3_mk_eq(self.ctx, l, r) })
    }

    fn binary(&mut self, op: BinOp, l: z::Z3_ast, r: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { binary_fn(op)(self.ctx, l, r) })
    }

    fn logical(&mut self, op: BinOp, l: z::Z3_ast, r: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        let both = [l, r];
        self.keep(match op {
            BinOp::And => unsafe { z::Z3_mk_and(self.ctx, 2, both.as_ptr()) },
            BinOp::Or => unsafe { z::Z3_mk_or(self.ctx, 2, both.as_ptr()) },
            _ => unsafe { z::Z3_mk_xor(self.ctx, l, r) },
        })
    }

    fn ite(&mut self, c: z::Z3_ast, t: z::Z3_ast, e: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { z::Z3_mk_ite(self.ctx, c, t, e) })
    }

    fn extract(&mut self, a: z::Z3_ast, hi: Width, lo: Width) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { z::Z3_mk_extract(self.ctx, hi, lo, a) })
    }

    fn extend(
        &mut self,
        signed: bool,
        a: z::Z3_ast,
        extra: Width,
    ) -> Result<z::Z3_ast, SolverError> {
        self.keep(if signed {
            unsafe { z::Z3_mk_sign_ext(self.ctx, extra, a) }
        } else {
            unsafe { z::Z3_mk_zero_ext(self.ctx, extra, a) }
        })
    }

    fn concat(&mut self, hi: z::Z3_ast, lo: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { z::Z3_mk_concat(self.ctx, hi, lo) })
    }

    fn const_array(&mut self, value: u8) -> Result<z::Z3_ast, SolverError> {
        let byte = self.bv_sort(8)?;
        let index = self.bv_sort(INDEX_WIDTH)?;
        let element =
            self.keep(unsafe { z::Z3_mk_unsigned_int64(self.ctx, u64::from(value), byte) })?;
        self.keep(unsafe { z::Z3_mk_const_array(self.ctx, index, element) })
    }

    fn store(
        &mut self,
        array: z::Z3_ast,
        index: z::Z3_ast,
        value: z::Z3_ast,
    ) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { z::Z3_mk_store(self.ctx, array, index, value) })
    }

    fn select(&mut self, array: z::Z3_ast, index: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { z::Z3_mk_select(self.ctx, array, index) })
    }

    fn bv_of_bool(&mut self, b: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        // The branches are width-1 bit-vectors.
        self.keep(unsafe { z::Z3_mk_ite(self.ctx, b, self.bv_one, self.bv_zero) })
    }

    fn bool_of_bv(&mut self, t: z::Z3_ast) -> Result<z::Z3_ast, SolverError> {
        self.keep(unsafe { z::Z3_mk_eq(self.ctx, t, self.bv_one) })
    }

    fn fresh_bv(&mut self, width: Width, name: &CStr) -> Result<z::Z3_ast, SolverError> {
        let sort = self.bv_sort(width)?;
        let ctx = self.ctx;
        self.keep(unsafe { z::Z3_mk_const(ctx, z::Z3_mk_string_symbol(ctx, name.as_ptr()), sort) })
    }

    fn fp_of_bits(&mut self, bits: z::Z3_ast, width: Width) -> Result<z::Z3_ast, SolverError> {
        let sort = self.fp_sort(width)?;
        self.keep(unsafe { z::Z3_mk_fpa_to_fp_bv(self.ctx, bits, sort) })
    }

    fn fp(&mut self, op: Fp, args: &[z::Z3_ast]) -> Result<z::Z3_ast, SolverError> {
        if args.len() != op.arity() {
            return Err(SolverError::Backend(format!(
                "{op:?} of {} operands",
                args.len()
            )));
        }
        let ctx = self.ctx;
        let rne = self.rounding(Rounding::NearestEven)?;
        let a = args[0];
        let b = args.get(1).copied().unwrap_or(a);
        let ast = unsafe {
            match op {
                Fp::Add => z::Z3_mk_fpa_add(ctx, rne, a, b),
                Fp::Sub => z::Z3_mk_fpa_sub(ctx, rne, a, b),
                Fp::Mul => z::Z3_mk_fpa_mul(ctx, rne, a, b),
                Fp::Div => z::Z3_mk_fpa_div(ctx, rne, a, b),
                Fp::Rem => z::Z3_mk_fpa_rem(ctx, a, b),
                Fp::Sqrt => z::Z3_mk_fpa_sqrt(ctx, rne, a),
                Fp::Fma => z::Z3_mk_fpa_fma(ctx, rne, a, b, args[2]),
                Fp::Round(mode) => {
                    let rm = self.rounding(mode)?;
                    z::Z3_mk_fpa_round_to_integral(ctx, rm, a)
                }
                Fp::Neg => z::Z3_mk_fpa_neg(ctx, a),
                Fp::Abs => z::Z3_mk_fpa_abs(ctx, a),
                Fp::Eq => z::Z3_mk_fpa_eq(ctx, a, b),
                Fp::Lt => z::Z3_mk_fpa_lt(ctx, a, b),
                Fp::Le => z::Z3_mk_fpa_leq(ctx, a, b),
                Fp::IsNan => z::Z3_mk_fpa_is_nan(ctx, a),
                Fp::IsZero => z::Z3_mk_fpa_is_zero(ctx, a),
                Fp::IsNeg => z::Z3_mk_fpa_is_negative(ctx, a),
            }
        };
        self.keep(ast)
    }

    fn fp_convert(&mut self, a: z::Z3_ast, to: Width) -> Result<z::Z3_ast, SolverError> {
        let sort = self.fp_sort(to)?;
        let rne = self.rounding(Rounding::NearestEven)?;
        self.keep(unsafe { z::Z3_mk_fpa_to_fp_float(self.ctx, rne, a, sort) })
    }

    fn fp_to_sbv(&mut self, a: z::Z3_ast, width: Width) -> Result<z::Z3_ast, SolverError> {
        let rtz = self.rounding(Rounding::TowardZero)?;
        self.keep(unsafe { z::Z3_mk_fpa_to_sbv(self.ctx, rtz, a, width) })
    }

    fn fp_of_int(
        &mut self,
        a: z::Z3_ast,
        signed: bool,
        to: Width,
    ) -> Result<z::Z3_ast, SolverError> {
        let sort = self.fp_sort(to)?;
        let rne = self.rounding(Rounding::NearestEven)?;
        self.keep(unsafe {
            if signed {
                z::Z3_mk_fpa_to_fp_signed(self.ctx, rne, a, sort)
            } else {
                z::Z3_mk_fpa_to_fp_unsigned(self.ctx, rne, a, sort)
            }
        })
    }
}

impl Context {
    /// The floating-point sort of `width` (32 or 64) bits.
    fn fp_sort(&mut self, width: Width) -> Result<z::Z3_sort, SolverError> {
        if let Some(&sort) = self.fp_sorts.get(&width) {
            return Ok(sort);
        }
        let (e, s) = fp_format(width);
        let sort = self.keep_sort(unsafe { z::Z3_mk_fpa_sort(self.ctx, e, s) })?;
        self.fp_sorts.insert(width, sort);
        Ok(sort)
    }

    /// The rounding-mode value `mode`.
    fn rounding(&self, mode: Rounding) -> Result<z::Z3_ast, SolverError> {
        let ctx = self.ctx;
        self.keep(unsafe {
            match mode {
                Rounding::NearestEven => z::Z3_mk_fpa_rne(ctx),
                Rounding::NearestAway => z::Z3_mk_fpa_rna(ctx),
                Rounding::TowardNegative => z::Z3_mk_fpa_rtn(ctx),
                Rounding::TowardPositive => z::Z3_mk_fpa_rtp(ctx),
                Rounding::TowardZero => z::Z3_mk_fpa_rtz(ctx),
            }
        })
    }
}

/// What a query needs of Z3's solvers.
#[derive(Copy, Clone)]
struct Logic {
    /// An array operation occurs.
    arrays: bool,
    /// A floating-point operation occurs.
    floats: bool,
}

/// The solver and model of one check, released when the check returns.
struct Handles {
    ctx: z::Z3_context,
    solver: z::Z3_solver,
    model: z::Z3_model,
}

impl Drop for Handles {
    fn drop(&mut self) {
        // SAFETY: both were referenced once by `Context::check` (the model only if non-null)
        // and are released once, before the context is deleted.
        unsafe {
            if !self.model.is_null() {
                z::Z3_model_dec_ref(self.ctx, self.model);
            }
            z::Z3_solver_dec_ref(self.ctx, self.solver);
        }
    }
}

type MkBinary = unsafe extern "C" fn(z::Z3_context, z::Z3_ast, z::Z3_ast) -> z::Z3_ast;

/// The Z3 constructor of a bit-vector operator or comparison (`Eq` on bit-vectors).
fn binary_fn(op: BinOp) -> MkBinary {
    match op {
        BinOp::Add => z::Z3_mk_bvadd,
        BinOp::Sub => z::Z3_mk_bvsub,
        BinOp::Mul => z::Z3_mk_bvmul,
        BinOp::UDiv => z::Z3_mk_bvudiv,
        BinOp::SDiv => z::Z3_mk_bvsdiv,
        BinOp::URem => z::Z3_mk_bvurem,
        BinOp::SRem => z::Z3_mk_bvsrem,
        BinOp::And => z::Z3_mk_bvand,
        BinOp::Or => z::Z3_mk_bvor,
        BinOp::Xor => z::Z3_mk_bvxor,
        BinOp::Shl => z::Z3_mk_bvshl,
        BinOp::LShr => z::Z3_mk_bvlshr,
        BinOp::AShr => z::Z3_mk_bvashr,
        BinOp::Eq => z::Z3_mk_eq,
        BinOp::Ult => z::Z3_mk_bvult,
        BinOp::Ule => z::Z3_mk_bvule,
        BinOp::Slt => z::Z3_mk_bvslt,
        BinOp::Sle => z::Z3_mk_bvsle,
    }
}

/// `constraints ∧ query` as an SMT-LIB 2 benchmark (shared subterms as `let`s), for the files
/// that record a solver disagreement. Symbolic bytes are constants named `ARRAY[OFFSET]`. The
/// logic is `QF_BV`, or `ALL` when an array operation occurs: constant arrays are outside
/// `QF_ABV`, and Z3's own parser rejects them there.
pub fn smtlib(
    pool: &ExprPool,
    constraints: &[ExprId],
    query: ExprId,
) -> Result<String, SolverError> {
    SmtlibPrinter::default().print(pool, constraints, query)
}

/// Prints queries as [`smtlib`] does, keeping one Z3 context and its translation memo across
/// queries (bounded as [`Z3Solver`]'s): the query log prints every backend query.
pub struct SmtlibPrinter {
    context: Recycled<Context>,
}

impl Default for SmtlibPrinter {
    fn default() -> Self {
        Self {
            context: Recycled::new(DEFAULT_RESET_INTERVAL, DEFAULT_MEMO_LIMIT),
        }
    }
}

impl SmtlibPrinter {
    /// `constraints ∧ query` as an SMT-LIB 2 benchmark.
    pub fn print(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<String, SolverError> {
        let context = self.context.get(pool, Context::new)?;
        context.checks += 1;
        context.smtlib(pool, constraints, query)
    }
}

impl Context {
    /// [`smtlib`] in this context.
    fn smtlib(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<String, SolverError> {
        let mut assumptions = Vec::with_capacity(constraints.len());
        let mut arrays = false;
        for &root in constraints.iter().chain(std::iter::once(&query)) {
            super::lowering::check_condition(pool, root)?;
            self.lower(pool, root)?;
            assumptions.push(self.bool_of(root)?);
            arrays |= self.with_arrays.contains(&root) || self.with_floats.contains(&root);
        }
        // The definitions of floating-point results go first: the last term is the query.
        let all: Vec<ExprId> = constraints.iter().copied().chain([query]).collect();
        let definitions = self.definitions(pool, &all)?;
        let query_term = assumptions.pop();
        assumptions.extend(definitions);
        assumptions.extend(query_term);
        let logic = if arrays { c"ALL" } else { c"QF_BV" };
        let formula = assumptions.pop().unwrap_or(self.bv_one);
        let count = u32::try_from(assumptions.len())
            .map_err(|_| SolverError::Backend("too many constraints to print".into()))?;
        // SAFETY: `ctx` is live, the strings are NUL-terminated, and the terms are Boolean terms
        // of `ctx`; the returned text is copied before the context is used again.
        let text = unsafe {
            let raw = z::Z3_benchmark_to_smtlib_string(
                self.ctx,
                c"xcheck query".as_ptr(),
                logic.as_ptr(),
                c"unknown".as_ptr(),
                c"".as_ptr(),
                count,
                assumptions.as_ptr(),
                formula,
            );
            if raw.is_null() {
                None
            } else {
                Some(CStr::from_ptr(raw).to_string_lossy().into_owned())
            }
        };
        text.ok_or_else(|| self.error("print the query as SMT-LIB"))
    }
}

/// Decides an SMT-LIB 2 benchmark (the query log's form, [`super::querylog`]) with Z3's own
/// parser and a fresh solver limited to `timeout`, chosen as [`Z3Solver`] chooses it: the
/// simple solver when the text has arrays. An interrupt of `stop` ends the check (`Unknown`).
pub fn check_smtlib(
    text: &str,
    timeout: Option<Duration>,
    stop: &Stop,
) -> Result<Answer, SolverError> {
    let input = CString::new(text)
        .map_err(|_| SolverError::Backend("the query contains a NUL byte".into()))?;
    let context = Context::new()?;
    let ctx = context.ctx;
    // SAFETY: `ctx` is live and the input NUL-terminated; the vector is referenced while used
    // and released below, and its elements are Boolean terms of `ctx`.
    let assertions = unsafe {
        let v = z::Z3_parse_smtlib2_string(
            ctx,
            input.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        );
        if v.is_null() || z::Z3_get_error_code(ctx) != z::ErrorCode::OK {
            return Err(context.error("parse the query"));
        }
        z::Z3_ast_vector_inc_ref(ctx, v);
        v
    };
    let logic = Logic {
        arrays: text.contains("Array"),
        floats: text.contains("FloatingPoint"),
    };
    let handles = context.solver(logic, timeout)?;
    // SAFETY: as above; the solver is live until `handles` drops.
    unsafe {
        for i in 0..z::Z3_ast_vector_size(ctx, assertions) {
            z::Z3_solver_assert(
                ctx,
                handles.solver,
                z::Z3_ast_vector_get(ctx, assertions, i),
            );
        }
        z::Z3_ast_vector_dec_ref(ctx, assertions);
    }
    let interrupt = Z3Interrupt::default();
    let _watch = Watch::start(stop.clone(), interrupt.clone());
    {
        let mut state = lock(&interrupt.shared);
        if state.stopped || stop.interrupted() {
            return Ok(Answer::Unknown);
        }
        state.running = Some(RawContext(ctx));
    }
    // SAFETY: as above; the check may be interrupted from the watching thread, which only
    // sees the context while `running` holds it.
    let result = unsafe { z::Z3_solver_check(ctx, handles.solver) };
    lock(&interrupt.shared).running = None;
    Ok(match result {
        z::Z3_L_TRUE => Answer::Sat,
        z::Z3_L_FALSE => Answer::Unsat,
        _ => Answer::Unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{ArrayId, Assignment};
    use crate::solver::BitwuzlaSolver;

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

    /// `bytes` symbolic bytes of `array`, little endian, as one bit-vector.
    fn word(pool: &ExprPool, array: ArrayId, bytes: u32) -> ExprId {
        let syms: Vec<ExprId> = (0..bytes).map(|i| pool.sym(array, i)).collect();
        pool.concat_bytes(&syms)
    }

    #[test]
    fn sat_and_unsat_with_models() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 2);
        let x0 = pool.sym(x, 0);
        let mut solver = Z3Solver::new(None);
        let q = pool.eq(pool.mul(x0, pool.constant(8, 3)), pool.constant(8, 12));
        let c = pool.ult(x0, pool.constant(8, 100));
        let result = solver.check(&pool, &[c], q).unwrap();
        let model = model_of(result, &pool, &[c], q);
        assert_eq!(model.get(x), Some(&[4, 0][..]));
        let impossible = pool.ult(x0, pool.constant(8, 4));
        assert_eq!(
            solver.check(&pool, &[c, impossible], q).unwrap(),
            SatResult::Unsat
        );
        let stats = solver.stats();
        assert_eq!(stats.backend_queries, 2);
        assert_eq!((stats.backend_sat, stats.backend_unsat), (1, 1));
    }

    #[test]
    fn wide_constants_arrays_and_booleans() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 16);
        let value: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        let q = pool.eq(word(&pool, x, 16), pool.constant(128, value));
        let mut solver = Z3Solver::new(None);
        let model = model_of(solver.check(&pool, &[], q).unwrap(), &pool, &[], q);
        assert_eq!(model.get(x), Some(&value.to_le_bytes()[..]));

        // A symbolic index written then read back, as memory in array mode is.
        let y = pool.new_array("y", 2);
        let (i, v) = (pool.zext(pool.sym(y, 0), 32), pool.sym(y, 1));
        let mem = pool.array_store(pool.array_const(0), i, v);
        let mem = pool.array_store(mem, pool.constant(32, 3), pool.constant(8, 7));
        let q = pool.eq(
            pool.array_read(mem, pool.constant(32, 200)),
            pool.constant(8, 99),
        );
        let model = model_of(solver.check(&pool, &[], q).unwrap(), &pool, &[], q);
        assert_eq!(model.get(y), Some(&[200, 99][..]));
        let overwritten = pool.eq(
            pool.array_read(mem, pool.constant(32, 3)),
            pool.constant(8, 8),
        );
        assert_eq!(
            solver.check(&pool, &[], overwritten).unwrap(),
            SatResult::Unsat
        );

        // Width-1 logic and ite over comparisons, and a comparison used as a number.
        let (a, b) = (pool.sym(y, 0), pool.sym(y, 1));
        let (lt, eq) = (pool.ult(a, b), pool.eq(a, pool.constant(8, 5)));
        let sum = pool.add(pool.zext(lt, 8), pool.zext(eq, 8));
        let q = pool.eq(sum, pool.constant(8, 2));
        let model = model_of(solver.check(&pool, &[], q).unwrap(), &pool, &[], q);
        assert_eq!(model.byte(y, 0), 5);
        let either = pool.bool_or(pool.bool_and(lt, eq), pool.xor(lt, eq));
        let picked = pool.ite(either, a, b);
        let q = pool.bool_and(pool.bool_not(lt), pool.eq(picked, pool.constant(8, 9)));
        model_of(solver.check(&pool, &[], q).unwrap(), &pool, &[], q);
    }

    #[test]
    fn malformed_expressions_are_errors() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let mut solver = Z3Solver::new(None);
        let err = solver.check(&pool, &[pool.sym(x, 0)], pool.true_());
        assert!(matches!(err, Err(SolverError::Backend(_))), "{err:?}");
    }

    /// 64-bit factors of a 128-bit product of two primes: hard for every solver.
    fn factoring(pool: &ExprPool) -> (Vec<ExprId>, ExprId) {
        let (p, q) = (pool.new_array("p", 8), pool.new_array("q", 8));
        let (a, b) = (
            pool.zext(word(pool, p, 8), 128),
            pool.zext(word(pool, q, 8), 128),
        );
        let one = pool.constant(128, 1);
        let constraints = vec![pool.ult(one, a), pool.ult(one, b)];
        // The product of the primes 4294967291 and 4294967279.
        let product = pool.eq(pool.mul(a, b), pool.constant(128, 18446743979220271189));
        (constraints, product)
    }

    #[test]
    fn a_hard_query_times_out_and_the_solver_stays_usable() {
        let pool = ExprPool::new();
        let (constraints, product) = factoring(&pool);
        let mut solver = Z3Solver::new(Some(Duration::from_millis(100)));
        let start = Instant::now();
        let result = solver.check(&pool, &constraints, product).unwrap();
        assert_eq!(result, SatResult::Unknown(TIMEOUT));
        assert!(start.elapsed() < Duration::from_secs(20));
        let easy = pool.eq(pool.sym(pool.new_array("e", 1), 0), pool.constant(8, 1));
        assert!(solver.check(&pool, &[], easy).unwrap().is_sat());
    }

    #[test]
    fn an_interrupt_stops_a_running_check_and_every_later_one() {
        let pool = ExprPool::new();
        let (constraints, product) = factoring(&pool);
        let mut solver = Z3Solver::new(None);
        let handle = solver.interrupt_handle();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            handle.interrupt();
        });
        let start = Instant::now();
        let result = solver.check(&pool, &constraints, product).unwrap();
        stopper.join().unwrap();
        assert_eq!(result, SatResult::Unknown(INTERRUPTED));
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
        let easy = pool.eq(pool.sym(pool.new_array("e", 1), 0), pool.constant(8, 1));
        assert_eq!(
            solver.check(&pool, &[], easy).unwrap(),
            SatResult::Unknown(INTERRUPTED)
        );
    }

    #[test]
    fn the_runs_stop_token_ends_a_running_check() {
        let pool = ExprPool::new();
        let (constraints, product) = factoring(&pool);
        // Interrupted (Ctrl-C, SIGTERM): the watcher thread interrupts Z3.
        let stop = Stop::new();
        let mut solver = Z3Solver::new(None).with_stop(stop.clone());
        let start = Instant::now();
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                stop.interrupt();
            });
            solver.check(&pool, &constraints, product).unwrap()
        });
        assert_eq!(result, SatResult::Unknown(INTERRUPTED));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        // The deadline of the run (`--max-time`) bounds a check without a limit of its own.
        let stop = Stop::new();
        let mut solver = Z3Solver::new(None).with_stop(stop.clone());
        let start = Instant::now();
        stop.set_deadline(start + Duration::from_millis(300));
        let result = solver.check(&pool, &constraints, product).unwrap();
        assert!(matches!(result, SatResult::Unknown(_)), "{result:?}");
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        // Past the deadline, no check starts.
        let easy = pool.eq(pool.sym(pool.new_array("e", 1), 0), pool.constant(8, 1));
        assert_eq!(
            solver.check(&pool, &[], easy).unwrap(),
            SatResult::Unknown("max-time reached".into())
        );
    }

    #[test]
    fn the_memo_persists_and_the_context_is_recreated() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let x0 = pool.sym(x, 0);
        let mut solver = Z3Solver::with_limits(None, 2, usize::MAX);
        for k in 0..5u8 {
            let q = pool.eq(x0, pool.constant(8, u128::from(k)));
            let model = model_of(solver.check(&pool, &[], q).unwrap(), &pool, &[], q);
            assert_eq!(model.byte(x, 0), k);
            assert!(solver.memo_len() > 0);
        }
        assert_eq!(solver.stats().backend_resets, 2);
        let other = ExprPool::new();
        let y = other.new_array("y", 1);
        let q = other.eq(other.sym(y, 0), other.constant(8, 4));
        let model = model_of(solver.check(&other, &[], q).unwrap(), &other, &[], q);
        assert_eq!(model.byte(y, 0), 4);
        assert_eq!(solver.stats().backend_resets, 3);
    }

    #[test]
    fn queries_print_as_smtlib() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 2);
        let c = pool.ult(pool.sym(x, 0), pool.constant(8, 9));
        let q = pool.eq(
            pool.mul(pool.sym(x, 0), pool.sym(x, 1)),
            pool.constant(8, 12),
        );
        let text = smtlib(&pool, &[c], q).unwrap();
        for needle in [
            "declare-fun",
            "bvmul",
            "bvult",
            "(check-sat)",
            "(set-logic QF_BV)",
        ] {
            assert!(text.contains(needle), "{needle} missing from {text}");
        }
    }

    use crate::solver::SplitMix as Rng;

    /// The operator classes the generator covers; each must be produced by the property test.
    const CLASSES: [&str; 10] = [
        "arithmetic",
        "division",
        "bitwise",
        "shift",
        "comparison",
        "unary",
        "ite",
        "extract/extend",
        "concat",
        "array",
    ];

    /// A random expression of `width` bits over the bytes of `x` (16 of them) and constants;
    /// `used` counts the operator classes built.
    fn random_expr(
        pool: &ExprPool,
        x: ArrayId,
        rng: &mut Rng,
        width: Width,
        depth: u32,
        used: &mut [u32; CLASSES.len()],
    ) -> ExprId {
        if depth == 0 || rng.below(5) == 0 {
            return if rng.below(3) == 0 {
                pool.constant(width, crate::expr::mask(width, rng.wide()))
            } else {
                let first = rng.below(16) as u32;
                let bytes: Vec<ExprId> = (0..width.div_ceil(8))
                    .map(|i| pool.sym(x, (first + i) % 16))
                    .collect();
                pool.extract(pool.concat_bytes(&bytes), 0, width)
            };
        }
        let d = depth - 1;
        let sub = |rng: &mut Rng, w: Width, used: &mut [u32; CLASSES.len()]| {
            random_expr(pool, x, rng, w, d, used)
        };
        let class = if width == 1 {
            [4, 4, 6, 2, 5][rng.below(5) as usize]
        } else {
            rng.below(CLASSES.len() as u64) as usize
        };
        used[class] += 1;
        match class {
            0..=3 => {
                let ops: &[BinOp] = match class {
                    0 => &[BinOp::Add, BinOp::Sub, BinOp::Mul],
                    1 => &[BinOp::UDiv, BinOp::SDiv, BinOp::URem, BinOp::SRem],
                    2 => &[BinOp::And, BinOp::Or, BinOp::Xor],
                    _ => &[BinOp::Shl, BinOp::LShr, BinOp::AShr],
                };
                let op = ops[rng.below(ops.len() as u64) as usize];
                let (a, b) = (sub(rng, width, used), sub(rng, width, used));
                pool.binary(op, a, b)
            }
            4 => {
                let ops = [BinOp::Eq, BinOp::Ult, BinOp::Ule, BinOp::Slt, BinOp::Sle];
                let op = ops[rng.below(5) as usize];
                let w = [8, 16, 32, 64, 128, 3][rng.below(6) as usize];
                let cmp = pool.binary(op, sub(rng, w, used), sub(rng, w, used));
                pool.zext(cmp, width)
            }
            5 => {
                let op = if rng.below(2) == 0 {
                    UnOp::Not
                } else {
                    UnOp::Neg
                };
                pool.unary(op, sub(rng, width, used))
            }
            6 => {
                let cond = sub(rng, 1, used);
                pool.ite(cond, sub(rng, width, used), sub(rng, width, used))
            }
            7 => {
                let wider = (width + 1 + rng.below(24) as u32).min(128);
                let narrower = 1 + rng.below(u64::from(width)) as u32;
                match rng.below(3) {
                    0 if wider > width => {
                        let lo = rng.below(u64::from(wider - width + 1)) as u32;
                        pool.extract(sub(rng, wider, used), lo, width)
                    }
                    1 => pool.zext(sub(rng, narrower, used), width),
                    _ => pool.sext(sub(rng, narrower, used), width),
                }
            }
            8 => {
                let hi = 1 + rng.below(u64::from(width - 1)) as u32;
                pool.concat(sub(rng, hi, used), sub(rng, width - hi, used))
            }
            _ => {
                // A read of memory written at symbolic and constant offsets.
                let mut mem = pool.array_const(rng.below(256) as u8);
                for _ in 0..1 + rng.below(3) {
                    let index = pool.zext(pool.extract(sub(rng, 8, used), 0, 3), 32);
                    mem = pool.array_store(mem, index, sub(rng, 8, used));
                }
                let index = pool.zext(pool.extract(sub(rng, 8, used), 0, 3), 32);
                let read = pool.zext(pool.array_read(mem, index), width.max(8));
                pool.extract(read, 0, width)
            }
        }
    }

    /// Expressions the property test builds (about 15 of each operator class).
    const ROUNDS: usize = 120;

    /// Random expressions over pinned inputs: Z3 and Bitwuzla must both find the value that
    /// `expr::eval` computes (Sat with exactly the pinned bytes) and no other (Unsat), and
    /// must agree with each other on free questions about the same expressions.
    #[test]
    fn random_expressions_agree_with_eval_and_with_bitwuzla() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 16);
        let mut rng = Rng(0x5eed);
        // Pinned questions are easy and get no time limit; free questions over 128-bit
        // division can be hard, and an unknown answer to them is skipped.
        let limit = Some(Duration::from_secs(2));
        let (mut z3, mut bitwuzla) = (Z3Solver::new(None), BitwuzlaSolver::new(None));
        let (mut z3_free, mut bitwuzla_free) = (Z3Solver::new(limit), BitwuzlaSolver::new(limit));
        let mut used = [0u32; CLASSES.len()];
        let (mut compared, mut free_unsat) = (0, 0);
        for round in 0..ROUNDS {
            let width = [1, 8, 16, 32, 64, 128, 5, 13][rng.below(8) as usize];
            let e = random_expr(&pool, x, &mut rng, width, 3, &mut used);
            let bytes: Vec<u8> = (0..16).map(|_| rng.below(256) as u8).collect();
            let mut input = Assignment::new();
            input.set(x, bytes.clone());
            let value = pool.eval(e, &input);
            let pins: Vec<ExprId> = (0..16)
                .map(|i| {
                    pool.eq(
                        pool.sym(x, i),
                        pool.constant(8, u128::from(bytes[i as usize])),
                    )
                })
                .collect();
            let is_value = pool.eq(e, pool.constant(width, value));
            let label = format!("round {round}: {}", pool.to_sexp(e));
            for (name, solver) in [
                ("z3", &mut z3 as &mut dyn Solver),
                ("bitwuzla", &mut bitwuzla),
            ] {
                match solver.check(&pool, &pins, is_value).unwrap() {
                    SatResult::Sat(model) => {
                        assert_eq!(model.get(x), Some(&bytes[..]), "{name} {label}")
                    }
                    other => panic!("{name} answers {other:?} for the value, {label}"),
                }
                let other = pool.bool_not(is_value);
                let answer = solver.check(&pool, &pins, other).unwrap();
                assert_eq!(answer, SatResult::Unsat, "{name} {label}");
            }
            // A free question: can `e` be below a random bound? Both must agree when both
            // answer, and every model must hold.
            let bound = pool.constant(width, crate::expr::mask(width, rng.wide()));
            let free = pool.ult(e, bound);
            let answers: Vec<SatResult> = [&mut z3_free as &mut dyn Solver, &mut bitwuzla_free]
                .into_iter()
                .map(|s| s.check(&pool, &[], free).unwrap())
                .collect();
            for answer in &answers {
                if let SatResult::Sat(model) = answer {
                    assert_eq!(pool.eval(free, model), 1, "{label}");
                }
            }
            if answers.iter().all(|a| !matches!(a, SatResult::Unknown(_))) {
                assert_eq!(answers[0].is_sat(), answers[1].is_sat(), "{label}");
                compared += 1;
                free_unsat += usize::from(answers[0].is_unsat());
            }
        }
        eprintln!("classes {used:?}, {compared} free questions compared, {free_unsat} unsat");
        for (class, count) in CLASSES.iter().zip(used) {
            assert!(count >= 10, "class {class} built only {count} times");
        }
        assert!(
            compared >= ROUNDS * 4 / 5 && free_unsat > 0,
            "{compared} {free_unsat}"
        );
    }
}
