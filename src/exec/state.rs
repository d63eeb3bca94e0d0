//! One execution state: call stack, memory, path condition and the symbolic inputs.
//!
//! Forking clones a state ([`State::fork`]); the memory contents are shared copy-on-write
//! (`memory`), and so are the callers of the running frame ([`Stack`]) and the running
//! frame's registers, by chunks ([`Regs`]); the path condition is copied.

use crate::exec::constraints::ConstraintSet;
use crate::exec::memory::{AddressSpace, Allocator};
use crate::exec::value::Value;
use crate::expr::{ArrayId, Assignment};
use crate::ir::{BlockId, FuncId, LocId, RegId};
use std::sync::Arc;

/// Ways a path can stop other than by returning normally. One table: name and the suffix
/// of the file KLEE would write for it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// Division or remainder by zero.
    DivByZero,
    /// Signed division or remainder of the minimum by -1, whose quotient does not fit: x86-64's
    /// `idiv` traps on it as on a zero divisor (SIGFPE), so [`Termination::same_kind`] takes
    /// the two for one failure. KLEE's UBSan runtime reports it with suffix `overflow`.
    DivOverflow,

    /// A load or store outside every object.
    OutOfBounds,
    /// A load or store through a null pointer.
    NullPointer,
    /// A failed `assert` / `klee_assert`.
    AssertFail(String),
    /// `abort()`, `klee_abort()` or `llvm.trap`.
    Abort,
    /// `unreachable` was reached.
    Unreachable,
    /// `klee_report_error(file, line, message, suffix)`.
    Reported { message: String, suffix: String },
    /// `free` of something that is not a live heap object.
    BadFree,
    /// An indirect call through a value that is not a function.
    BadCall,
    /// The program was killed by this signal (`abort` raises SIGABRT).
    Signal(i32),
    /// A summarized call (`exec/summary.rs`) that does not return: it fails or never ends,
    /// as the real callee may on these arguments. `call` is the application's index in
    /// `State::abstracted`. Never an outcome of the program by itself: the verdict takes
    /// two such ends of one application for agreement, anything else as undecided.
    Summarized { name: String, call: usize },
}

impl Termination {
    /// A short description, used in reports.
    pub fn describe(&self) -> String {
        match self {
            Termination::DivByZero => "division by zero".into(),
            Termination::DivOverflow => "signed division overflow".into(),

            Termination::OutOfBounds => "out-of-bounds memory access".into(),
            Termination::NullPointer => "null pointer dereference".into(),
            Termination::AssertFail(what) => format!("assertion failed: {what}"),
            Termination::Abort => "abort".into(),
            Termination::Unreachable => "unreachable executed".into(),
            Termination::Reported { message, .. } => message.clone(),
            Termination::BadFree => "invalid free".into(),
            Termination::BadCall => "call through a non-function pointer".into(),
            Termination::Signal(sig) => format!("killed by signal {sig} ({})", signal_name(*sig)),
            Termination::Summarized { name, .. } => {
                format!("the summarized call of {name} does not return")
            }
        }
    }

    /// Suffix of the `.err` file KLEE writes for this kind.
    pub fn suffix(&self) -> &str {
        match self {
            Termination::DivByZero => "div",
            Termination::DivOverflow => "overflow",

            Termination::OutOfBounds | Termination::NullPointer => "ptr",
            Termination::AssertFail(_) => "assert",
            Termination::Abort => "abort",
            Termination::Unreachable | Termination::BadCall => "exec",
            Termination::Reported { suffix, .. } => suffix.trim_end_matches(".err"),
            Termination::BadFree => "free",
            Termination::Signal(6) => "abort",
            Termination::Signal(_) => "signal",
            Termination::Summarized { .. } => "summary",
        }
    }

    /// Same failure, ignoring details that may legitimately differ between two sides
    /// (an assertion's text, and where an invalid access lands: the two sides' objects
    /// live at different addresses, so one side's wild access may hit the null page where
    /// the other's lands just outside an object: both are memory errors; and which of the
    /// two division traps a side hit: both are SIGFPE natively).
    pub fn same_kind(&self, other: &Termination) -> bool {
        match (self, other) {
            (Termination::Signal(a), Termination::Signal(b)) => a == b,
            _ if self.is_memory_error() && other.is_memory_error() => true,
            _ if self.is_division_trap() && other.is_division_trap() => true,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }

    /// A failure the system-call model reports about itself (`klee_report_error` with
    /// suffix `model.err`): the program's next step is not modelled.
    pub fn is_model_gap(&self) -> bool {
        matches!(self, Termination::Reported { suffix, .. } if suffix == "model.err")
    }

    /// An access through an invalid pointer (KLEE's `ptr` class).
    pub fn is_memory_error(&self) -> bool {
        matches!(self, Termination::OutOfBounds | Termination::NullPointer)
    }

    /// A division the machine refuses (x86-64's divide error, SIGFPE natively).
    pub fn is_division_trap(&self) -> bool {
        matches!(self, Termination::DivByZero | Termination::DivOverflow)
    }
}

/// The usual name of a Linux signal number.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => "signal",
    }
}

/// A failure with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: Termination,
    pub loc: String,
    /// The call sites that led to `loc`, innermost first (a failure inside `memcpy` says
    /// which call of it failed).
    pub callers: Vec<String>,
}

/// How many call sites a failure's description names.
const CALLERS_SHOWN: usize = 3;

impl Failure {
    /// Where it failed: the location, then the call sites that led there, innermost first
    /// (`memcpy.c:122, called from split.c:140 < split.c:92 < main.c:12`).
    pub fn place(&self) -> String {
        if self.callers.is_empty() {
            return self.loc.clone();
        }
        let mut text = format!("{}, called from ", self.loc);
        let shown = self.callers.len().min(CALLERS_SHOWN);
        text.push_str(&self.callers[..shown].join(" < "));
        if self.callers.len() > shown {
            text.push_str(" < …");
        }
        text
    }
}

/// One activation record.
#[derive(Clone, Debug)]
pub struct Frame {
    /// This frame's number among the frames its state ever pushed (set by [`Stack::push`]):
    /// forked states keep their frames' numbers, and a later frame at the same depth gets a
    /// new one, so that a `jmp_buf` can name the frame of its `setjmp` (`exec/jump.rs`).
    pub serial: u64,
    pub func: FuncId,
    pub block: BlockId,
    /// Index of the next instruction in `block` (== len means the terminator).
    pub pc: usize,
    pub regs: Regs,
    /// Register of the caller that receives the return value.
    pub ret_dst: Option<RegId>,
    /// Stack objects to free on return.
    pub allocas: Vec<u64>,
    /// The object holding this call's variadic arguments (0: none).
    pub varargs: u64,
}

/// Registers per chunk of a register file.
const REG_CHUNK: usize = 16;

/// What a register holds before it is written.
const UNSET: Value = Value::Con { width: 1, bits: 0 };

/// One chunk of a register file.
#[derive(Clone, Debug)]
enum RegChunk {
    /// Never written: every register holds the 1-bit zero (nothing allocated).
    Zero,
    /// Written since the state last forked: the state's own, written in place.
    Owned(Box<[Value; REG_CHUNK]>),
    /// Shared with the states forked from the same one; the first write copies it (or takes
    /// it, when the other states let go of it already).
    Shared(Arc<[Value; REG_CHUNK]>),
}

/// A frame's registers, in chunks that forked states share until they write them: a fork
/// copies a pointer per chunk, and each state then copies the chunks it writes.
#[derive(Clone, Debug)]
pub struct Regs {
    chunks: Vec<RegChunk>,
    len: usize,
}

impl Regs {
    /// `len` registers, each holding the 1-bit zero.
    pub fn new(len: usize) -> Self {
        Regs {
            chunks: vec![RegChunk::Zero; len.div_ceil(REG_CHUNK)],
            len,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Register `r`'s value.
    #[inline]
    pub fn get(&self, r: usize) -> Value {
        debug_assert!(r < self.len, "register {r} of {}", self.len);
        match &self.chunks[r / REG_CHUNK] {
            RegChunk::Zero => UNSET,
            RegChunk::Owned(values) => values[r % REG_CHUNK],
            RegChunk::Shared(values) => values[r % REG_CHUNK],
        }
    }

    /// Sets register `r` (copying its chunk first if it is shared).
    #[inline]
    pub fn set(&mut self, r: usize, value: Value) {
        debug_assert!(r < self.len, "register {r} of {}", self.len);
        match &mut self.chunks[r / REG_CHUNK] {
            RegChunk::Owned(values) => values[r % REG_CHUNK] = value,
            _ => self.set_in_new_chunk(r, value),
        }
    }

    /// [`set`](Self::set) where the chunk is not yet the state's own: it is made so first.
    #[cold]
    #[inline(never)]
    fn set_in_new_chunk(&mut self, r: usize, value: Value) {
        let chunk = &mut self.chunks[r / REG_CHUNK];
        let mut values = match chunk {
            RegChunk::Shared(shared) => Box::new(**shared),
            _ => Box::new([UNSET; REG_CHUNK]),
        };
        values[r % REG_CHUNK] = value;
        *chunk = RegChunk::Owned(values);
    }

    /// Every register's value, in order.
    pub fn to_vec(&self) -> Vec<Value> {
        (0..self.len).map(|r| self.get(r)).collect()
    }

    /// Makes every chunk shared, so that a clone copies pointers, not values.
    pub fn share(&mut self) {
        for chunk in &mut self.chunks {
            if let RegChunk::Owned(values) = chunk {
                *chunk = RegChunk::Shared(Arc::new(**values));
            }
        }
    }
}

/// The call stack: the running frame, owned, over its callers, which forked states share
/// until one of them returns into a caller (that caller is then copied for it, if another
/// state still holds it). A fork copies the running frame and a pointer per caller, not
/// every caller's registers.
#[derive(Clone, Debug, Default)]
pub struct Stack {
    /// The callers of the running frame, outermost first.
    callers: Vec<Arc<Frame>>,
    /// The running frame (none when the stack is empty).
    top: Option<Frame>,
    /// How many frames were ever pushed (the last frame's serial number).
    pushed: u64,
}

impl Stack {
    /// Makes `frame` the running frame, numbered after every frame pushed before; the one
    /// running so far becomes its caller.
    pub fn push(&mut self, mut frame: Frame) {
        self.pushed += 1;
        frame.serial = self.pushed;
        if let Some(caller) = self.top.replace(frame) {
            self.callers.push(Arc::new(caller));
        }
    }

    /// Removes the running frame; its caller runs again (copied first if another state
    /// shares it).
    pub fn pop(&mut self) -> Option<Frame> {
        let top = self.top.take()?;
        self.top = self.callers.pop().map(Arc::unwrap_or_clone);
        Some(top)
    }

    pub fn len(&self) -> usize {
        self.callers.len() + usize::from(self.top.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.top.is_none()
    }

    /// Removes every frame; the numbering goes on (a frame pushed later is new).
    pub fn clear(&mut self) {
        self.callers.clear();
        self.top = None;
    }

    /// How many frames were ever pushed.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Numbers the frames pushed from now on after `n` too (a merged state continues after
    /// the highest number any of its members gave).
    pub fn number_after(&mut self, n: u64) {
        self.pushed = self.pushed.max(n);
    }

    /// Pops frames until `depth` are left, each as a return would (its stack objects are
    /// the caller's to free): the popped frames, innermost first.
    pub fn unwind_to(&mut self, depth: usize) -> Vec<Frame> {
        let mut popped = Vec::new();
        while self.len() > depth {
            popped.extend(self.pop());
        }
        popped
    }

    /// The running frame.
    pub fn last(&self) -> Option<&Frame> {
        self.top.as_ref()
    }

    pub fn last_mut(&mut self) -> Option<&mut Frame> {
        self.top.as_mut()
    }

    /// The frames, outermost first.
    pub fn iter(&self) -> impl Iterator<Item = &Frame> {
        self.callers.iter().map(|f| &**f).chain(self.top.as_ref())
    }

    /// The frames for writing, outermost first (each shared caller copied first).
    /// Lets clones share the running frame's registers until they write them (a fork's
    /// two states then copy only the chunks they write).
    pub fn share(&mut self) {
        if let Some(top) = &mut self.top {
            top.regs.share();
        }
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Frame> {
        self.callers
            .iter_mut()
            .map(Arc::make_mut)
            .chain(self.top.as_mut())
    }
}

impl std::ops::Index<usize> for Stack {
    type Output = Frame;

    /// Frame `depth`, the outermost being 0.
    fn index(&self, depth: usize) -> &Frame {
        match self.callers.get(depth) {
            Some(frame) => frame,
            None if depth == self.callers.len() => self.top.as_ref().expect("a frame at depth"),
            None => panic!("no frame at depth {depth}"),
        }
    }
}

/// A symbolic input created for this path: an array and the object it initialised, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolicInput {
    pub array: ArrayId,
    pub name: String,
    pub size: u32,
}

/// Everything the crosscheck driver remembers of side A while side B runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SideOutcome {
    Returned {
        value: Option<Value>,
        buffers: Vec<Vec<Value>>,
    },
    Exited(Value),
    Failed(Failure),
}

/// How side B of a three-way program check ended, with what it wrote to stdout and stderr
/// (kept while side C runs).
pub type SecondSide = (SideOutcome, [Arc<Vec<Value>>; OUTPUT_STREAMS]);

/// Where a path forked: the function and the source location of the branch, and when the
/// branch is in the C library or the model, the call in the program's own code it runs
/// for (its innermost frame of a function that is neither).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForkSite {
    pub func: Option<crate::ir::FuncId>,
    pub loc: Option<crate::ir::LocId>,
    pub caller: Option<(crate::ir::FuncId, crate::ir::LocId)>,
}

/// Where each branch of an exploration tree was taken, by the hash of the path that leads
/// to it ([`path_hash`]): one entry per fork, shared by the workers of a check, so that a
/// path's states carry no more than its hash.
#[derive(Clone, Debug, Default)]
pub struct ForkLog(Arc<std::sync::Mutex<rustc_hash::FxHashMap<u64, ForkSite>>>);

impl ForkLog {
    /// Records that the path whose hash is `path` forked at `site`.
    pub fn record(&self, path: u64, site: ForkSite) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path, site);
    }

    /// Where the path `path` (branch decisions) forked next, if it did.
    pub fn site_after(&self, path: &[u8]) -> Option<ForkSite> {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&path_hash(path)).copied()
    }
}

/// The hash of a path after one more branch decision `bit` (1: the condition held).
pub fn path_step(hash: u64, bit: u8) -> u64 {
    (hash ^ (u64::from(bit) + 1))
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(31)
}

/// The hash of the path `path` (branch decisions), as [`State::path_hash`] follows it.
pub fn path_hash(path: &[u8]) -> u64 {
    path.iter().fold(0, |h, &bit| path_step(h, bit))
}

/// One merge group a state belongs to (`exec/merge.rs`).
#[derive(Clone, Debug)]
pub struct MergeMarker {
    pub group: u64,
    /// The join block, and the stack depth at which it counts.
    pub block: BlockId,
    pub depth: usize,
    /// The path condition at the fork, and how long the constraint log and the path key were.
    pub snapshot: Arc<ConstraintSet>,
    pub log_len: usize,
    pub path_len: usize,
}

/// Where a function check is in flushing the stdout of the running side (its musl's
/// buffered bytes) once the side has ended.
#[derive(Clone, Debug, Default)]
pub enum Flush {
    /// The side runs (or ended without stdout to flush).
    #[default]
    Before,
    /// The flush runs; how the side ended, taken up again when the flush returns.
    Running(Box<Exit>),
    /// The side's stdout is flushed: its end is being decided (again, if the decision
    /// waited).
    Done,
}

/// How a path (or one side of it) ended.
#[derive(Clone, Debug)]
pub enum Exit {
    /// The outermost function returned (with its value, unless `void`).
    Returned(Option<Value>),
    /// The program failed; any input reaching this point fails the same way.
    Failed(Failure),
    /// The program called `exit(status)`.
    Exited(Value),
    /// `klee_silent_exit`: the path ends without a test.
    Silent,
    /// The engine could not continue: an unsupported construct, a solver timeout, a limit.
    Unknown(Undecided),
}

/// Why the engine ended a path undecided ([`Exit::Unknown`]). Its `Display` is the text a
/// report's row and `xcheck run`'s summary show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// The path ran `max_instructions_per_path` instructions without ending.
    PathTooLong { limit: u64 },
    /// A construct the engine does not model (`what`), at a location.
    Unsupported { what: String, loc: String },
    /// The solver gave up or failed, at a location when the path was at one.
    SolverGaveUp {
        why: SolverFailure,
        loc: Option<String>,
    },
    /// The path condition of a live state was unsatisfiable (never expected).
    InfeasiblePath,
    /// A replayed test has no object for the one the program makes, named.
    ReplayMissingObject { name: String },
    /// A replayed test's object has `test` bytes where the program makes `program`.
    ReplayObjectSize {
        name: String,
        test: usize,
        program: u64,
    },
    /// A call of an abstracted function (`--abstract-calls`) during a replay, which cannot
    /// run the real function.
    AbstractedCallInReplay { name: String, loc: String },
}

/// Why the solver left a question of the engine unanswered. Its `Display` is the text
/// reports show (`solver gave up (timeout)`, `solver error: …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolverFailure {
    /// The solver answered unknown.
    GaveUp(crate::solver::GiveUp),
    /// The solver failed.
    Failed(crate::solver::SolverError),
    /// A waiting question (`what`: a branch query, or empty for a path's last question) was
    /// unanswered in its first try of `first_try` (`--defer-after`) and not retried before
    /// exploration stopped.
    NotRetried {
        what: &'static str,
        first_try: std::time::Duration,
    },
    /// The path condition of a live state was unsatisfiable (never expected).
    InfeasiblePath,
}

impl std::fmt::Display for SolverFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolverFailure::GaveUp(why) => write!(f, "solver gave up ({why})"),
            SolverFailure::Failed(e) => write!(f, "solver error: {e}"),
            SolverFailure::NotRetried { what, first_try } => write!(
                f,
                "solver gave up ({what}unanswered in its first try, --defer-after {}s, not \
                 retried before exploration stopped)",
                first_try.as_secs_f64()
            ),
            SolverFailure::InfeasiblePath => f.write_str("infeasible path condition"),
        }
    }
}

impl std::fmt::Display for Undecided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undecided::PathTooLong { limit } => write!(f, "path longer than {limit} instructions"),
            Undecided::Unsupported { what, loc } => write!(f, "unsupported: {what} at {loc}"),
            Undecided::SolverGaveUp {
                why,
                loc: Some(loc),
            } => write!(f, "{why} at {loc}"),
            Undecided::SolverGaveUp { why, loc: None } => write!(f, "{why}"),
            Undecided::InfeasiblePath => f.write_str("infeasible path condition"),
            Undecided::ReplayMissingObject { name } => {
                write!(f, "the test has no object for '{name}'")
            }
            Undecided::ReplayObjectSize {
                name,
                test,
                program,
            } => write!(
                f,
                "the test's object for '{name}' has {test} bytes, the program makes {program}"
            ),
            Undecided::AbstractedCallInReplay { name, loc } => write!(
                f,
                "abstracted call of {name} at {loc}: a replay cannot run the real function"
            ),
        }
    }
}

#[derive(Clone, Debug)]
pub struct State {
    pub id: u64,
    pub stack: Stack,
    pub memory: AddressSpace,
    pub allocator: Allocator,
    /// The path condition: every expression has width 1 and holds on this path.
    pub constraints: ConstraintSet,
    /// A model of `constraints`, when one is known (answers many branches without a query).
    pub model: Option<Arc<Assignment>>,
    /// Set when the side of the last branch this state took is not known to be feasible:
    /// its query ran past the first try ([`crate::exec::Deferral`]). The state has no
    /// `model` and waits in its worker's deferred queue until a check with the solver's
    /// full limit decides it; this is the model of the path before that branch, which
    /// completes the parts of the model that the branch does not touch.
    pub unchecked: Option<Arc<Assignment>>,
    /// Set when a driver could not decide this state's end in the first try of its
    /// question (`Executor::check_or_defer`): the exit it was deciding, handed to it again
    /// when the state's turn comes. The state is as the driver received it.
    pub deferred_exit: Option<Box<Exit>>,
    /// Where a function check is in flushing the running side's stdout at its end
    /// (`crosscheck/verdict.rs`).
    pub flush: Flush,
    pub inputs: Vec<SymbolicInput>,
    /// Values the tests of this path should give the inputs when the path allows them
    /// (`klee_prefer_cex`: width-1 conditions, tried in order when a test is made).
    /// Shared between forks: only the environment's setup adds to them.
    pub preferences: Arc<Vec<crate::expr::ExprId>>,
    /// Instructions executed on this path.
    pub instructions: u64,
    /// Which program is running (function checks: 0 = A, 1 = B; program checks count
    /// phases, `program.rs`) and what A ended with.
    pub phase: u8,
    pub first: Option<SideOutcome>,
    /// Addresses of the buffers passed to the side now running (crosscheck mode).
    pub buffers: Vec<u64>,
    /// The first address handed out once side B started (function checks): the objects
    /// made while running are A's below it and B's from it.
    pub second_start: u64,
    /// The values undefined behaviour produced on this path (`undefined.rs`).
    pub undefined: Vec<crate::exec::UndefinedValue>,
    /// The operations whose poison-producing flags may fail on this path (`undefined.rs`).
    pub flagged: Vec<crate::exec::FlaggedValue>,
    /// Operands the expression pool's rewriting absorbed into a result, in the order they
    /// were met (`step.rs: link_absorbed`): a flagged value reaches whatever its absorber
    /// reaches.
    pub flagged_links: Vec<(crate::expr::ExprId, crate::expr::ExprId)>,
    /// The symbolic branch conditions and switch values met once some flag may fail, as
    /// computed (the path condition keeps only what it does not already imply): a branch
    /// on poison is undefined behaviour (`crosscheck/poison.rs`).
    pub branched: Vec<crate::expr::ExprId>,
    /// The branch decisions that led here (1: the condition held), which names the path
    /// independently of the order in which paths were explored.
    pub path: Vec<u8>,
    /// The hash of `path` ([`path_hash`]), which names this path in the [`ForkLog`].
    pub path_hash: u64,
    /// Every constraint added to this path by a fork, as added (for state merging; empty
    /// when merging is off).
    pub log: Vec<crate::expr::ExprId>,
    /// The merge groups this state belongs to, innermost last.
    pub markers: Vec<MergeMarker>,
    /// The location of the instruction being executed, for messages.
    pub loc: Option<LocId>,
    /// Number of paths this state stands for (more than 1 after merging).
    pub merged: u64,
    /// Instructions since this state last reached a block never reached before.
    pub since_new_coverage: u64,
    /// Bytes the running program wrote to stdout (0) and stderr (1), and the record of the
    /// files it changed (2, which the POSIX model writes at its end), shared between forks
    /// until one of them writes.
    pub outputs: [Arc<Vec<Value>>; OUTPUT_STREAMS],
    /// What side A wrote, kept while side B runs (program checks).
    pub first_outputs: [Arc<Vec<Value>>; OUTPUT_STREAMS],
    /// How side B ended and what it wrote, kept while side C runs (three-way program
    /// checks); `None` otherwise.
    pub second: Option<Arc<SecondSide>>,
    /// The calls of abstracted functions (`--abstract-calls`) on this path, both sides'.
    pub abstracted: Vec<AbstractedCall>,
}

/// The streams a program's outputs are kept in: stdout, stderr, the files it changed.
pub const OUTPUT_STREAMS: usize = 3;

/// One call of an uninterpreted function on a path: the function's name without its side,
/// the arguments and the result.
#[derive(Clone, Debug)]
pub struct AbstractedCall {
    pub name: String,
    pub args: Vec<crate::expr::ExprId>,
    pub result: crate::expr::ExprId,
}

// The summaries of a run by summaries (`summary.rs` runs their calls).

/// Why a function's calls are summarized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grounds {
    /// Both sides define it with the same instructions, up to the names of what it uses.
    Identical,
    /// The entry functions' calls of themselves: the induction hypothesis.
    Recursive,
    /// A pair a check of the same run proved equivalent for all inputs.
    Proved,
}

impl std::fmt::Display for Grounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Grounds::Identical => "identical",
            Grounds::Recursive => "recursive",
            Grounds::Proved => "proved equivalent in this run",
        })
    }
}

/// One uninterpreted function standing for a callee of both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The callee's name (side A's source name).
    pub name: String,
    pub grounds: Grounds,
    /// The functions whose calls it stands for (one per side, or only one side's).
    pub functions: Vec<crate::ir::FuncId>,
    /// Whether a call may fail (a division, an access the rules cannot show in bounds,
    /// `unreachable`…), here or in what it calls: then an application's outcome says
    /// whether it returns. A call that cannot fail returns unless it never ends, which the
    /// proof's assumption that both sides terminate leaves out.
    pub may_fail: bool,
}

/// The summaries of one run: which functions' calls are uninterpreted, and by which
/// summary. Default is none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summaries {
    pub list: Vec<Summary>,
    /// How many levels of recursive calls run their bodies before the deeper ones are
    /// summarized (0: every recursive call is summarized). A body that runs is the real
    /// function, so any level is sound; a level unrolled lets a pair whose base cases
    /// differ (one side returns at `n == 2` where the other recurses) line up.
    pub unroll: u32,
    /// What the proofs of the pairs summarized on grounds [`Grounds::Proved`] assumed of
    /// their own summaries, which a proof resting on them assumes too.
    pub inherited: Vec<String>,
}

impl Summaries {
    /// The summary standing for calls of `func`, with its index.
    pub fn of(&self, func: crate::ir::FuncId) -> Option<(usize, &Summary)> {
        self.list
            .iter()
            .enumerate()
            .find(|(_, s)| s.functions.contains(&func))
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The summary a call of `target` from `state` goes to, if it is summarized there: a
    /// recursive call only below the levels [`Summaries::unroll`] runs.
    pub(crate) fn at_call(&self, state: &State, target: crate::ir::FuncId) -> Option<usize> {
        let (index, summary) = self.of(target)?;
        if summary.grounds == Grounds::Recursive {
            let running = state
                .stack
                .iter()
                .filter(|frame| summary.functions.contains(&frame.func))
                .count();
            if running <= self.unroll as usize {
                return None;
            }
        }
        Some(index)
    }
}

/// What the interpreter did with a state it borrowed for one instruction
/// (`Executor::step_in_place`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Stepped {
    /// The instruction ran; the state goes on from the next one.
    Ran,
    /// The instruction may fork or end the path, or the state may park at a merge point:
    /// nothing changed, and `Executor::step` takes the state by value.
    Owned,
}

impl State {
    /// A copy of this state for the other side of a branch: both share the running frame's
    /// registers, the callers, the memory and the outputs until they write them.
    pub fn fork(&mut self) -> State {
        self.stack.share();
        self.clone()
    }

    pub fn frame(&self) -> &Frame {
        self.stack.last().expect("a running state has a frame")
    }

    pub fn frame_mut(&mut self) -> &mut Frame {
        self.stack.last_mut().expect("a running state has a frame")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_klee_suffix() {
        let cases = [
            (Termination::DivByZero, "div"),
            (Termination::DivOverflow, "overflow"),
            (Termination::OutOfBounds, "ptr"),
            (Termination::NullPointer, "ptr"),
            (Termination::AssertFail("x > 0".into()), "assert"),
            (Termination::Abort, "abort"),
            (Termination::Unreachable, "exec"),
            (Termination::BadCall, "exec"),
            (Termination::BadFree, "free"),
            (Termination::Signal(6), "abort"),
            (Termination::Signal(11), "signal"),
            (
                Termination::Reported {
                    message: "m".into(),
                    suffix: "overflow.err".into(),
                },
                "overflow",
            ),
        ];
        for (kind, suffix) in cases {
            assert_eq!(kind.suffix(), suffix, "{kind:?}");
        }
    }

    #[test]
    fn same_kind_ignores_details_but_not_kinds() {
        let assert_a = Termination::AssertFail("a".into());
        let assert_b = Termination::AssertFail("b".into());
        assert!(assert_a.same_kind(&assert_b));
        // Where a wild access lands differs between the sides: both are memory errors.
        assert!(Termination::OutOfBounds.same_kind(&Termination::NullPointer));
        assert!(!Termination::OutOfBounds.same_kind(&Termination::DivByZero));
        // Both division traps are SIGFPE natively.
        assert!(Termination::DivByZero.same_kind(&Termination::DivOverflow));
        assert!(Termination::DivOverflow.same_kind(&Termination::DivByZero));
        assert!(!Termination::DivOverflow.same_kind(&Termination::OutOfBounds));
        assert!(Termination::Signal(11).same_kind(&Termination::Signal(11)));
        assert!(!Termination::Signal(11).same_kind(&Termination::Signal(6)));
        assert!(!Termination::Abort.same_kind(&Termination::Signal(6)));
    }

    #[test]
    fn descriptions_name_the_signal() {
        assert_eq!(
            Termination::Signal(11).describe(),
            "killed by signal 11 (SIGSEGV)"
        );
        assert_eq!(signal_name(64), "signal");
        assert_eq!(
            Termination::AssertFail("n < 4".into()).describe(),
            "assertion failed: n < 4"
        );
    }

    fn frame(func: u32, regs: usize) -> Frame {
        Frame {
            serial: 0,
            func: FuncId(func),
            block: BlockId(0),
            pc: 0,
            regs: Regs::new(regs),
            ret_dst: None,
            allocas: Vec::new(),
            varargs: 0,
        }
    }

    /// Forked register files and stacks share what neither wrote, and a write on one side
    /// (to a running frame or, after a return, to a shared caller) never shows on the other.
    #[test]
    fn forked_stacks_keep_their_own_values() {
        let v = |n: u128| Value::concrete(32, n);
        let mut stack = Stack::default();
        stack.push(frame(1, 40));
        for r in 0..40 {
            stack.last_mut().unwrap().regs.set(r, v(r as u128));
        }
        stack.push(frame(2, 3));
        stack.last_mut().unwrap().regs.set(2, v(7));
        stack.share();
        let mut other = stack.clone();
        other.last_mut().unwrap().regs.set(2, v(8));
        stack.last_mut().unwrap().regs.set(0, v(9));
        let unset = Value::concrete(1, 0);
        assert_eq!(stack.last().unwrap().regs.to_vec(), [v(9), unset, v(7)]);
        assert_eq!(other.last().unwrap().regs.to_vec(), [unset, unset, v(8)]);
        // Both return into the caller they share, and write it differently.
        assert_eq!(stack.pop().map(|f| f.func), Some(FuncId(2)));
        assert_eq!(other.pop().map(|f| f.func), Some(FuncId(2)));
        stack.last_mut().unwrap().regs.set(17, v(100));
        other.last_mut().unwrap().regs.set(39, v(200));
        let (mine, theirs) = (stack.last().unwrap(), other.last().unwrap());
        assert_eq!((mine.regs.get(17), mine.regs.get(39)), (v(100), v(39)));
        assert_eq!((theirs.regs.get(17), theirs.regs.get(39)), (v(17), v(200)));
        assert_eq!((stack.len(), stack[0].func), (1, FuncId(1)));
        assert!(stack.pop().is_some() && stack.is_empty() && stack.pop().is_none());
    }

    /// Frames are numbered in push order: a fork keeps the numbers, a frame pushed after a
    /// return at the same depth gets a new one, and so does one pushed after `clear`.
    #[test]
    fn frame_serials_survive_forks_and_are_never_reused() {
        let mut stack = Stack::default();
        stack.push(frame(1, 1));
        stack.push(frame(2, 1));
        assert_eq!(stack.iter().map(|f| f.serial).collect::<Vec<_>>(), [1, 2]);
        stack.share();
        let mut other = stack.clone();
        assert_eq!(other.last().map(|f| f.serial), Some(2));
        stack.pop();
        stack.push(frame(2, 1));
        assert_eq!(
            stack.last().map(|f| f.serial),
            Some(3),
            "same depth, new frame"
        );
        assert_eq!(other.last().map(|f| f.serial), Some(2));
        let popped = other.unwind_to(1);
        assert_eq!(popped.iter().map(|f| f.serial).collect::<Vec<_>>(), [2]);
        assert_eq!(other.len(), 1);
        stack.clear();
        stack.push(frame(1, 1));
        assert_eq!(stack.last().map(|f| f.serial), Some(4));
        other.number_after(10);
        other.push(frame(3, 1));
        assert_eq!(other.last().map(|f| f.serial), Some(11));
    }
}
