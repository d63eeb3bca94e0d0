//! The exploration loop: select a state, run it until it forks or ends, repeat.
//!
//! A [`Driver`] decides what a state's end means: the crosscheck driver starts side B
//! when side A ends and compares the two; the harness driver writes a test per path.

use crate::exec::constraints::ConstraintSet;
use crate::exec::memory::{MemoryObject, ObjectKind, ObjectState, PARAMETER_GAP};
use crate::exec::merge::{MergeMode, MergeStats, Merger, Resume};
use crate::exec::searcher::{self, SearchKind, Searcher};
pub use crate::exec::state::Exit;
use crate::exec::state::{Failure, Frame, SolverFailure, State, Stepped, Termination, Undecided};
use crate::exec::value::Value;
use crate::exec::waiting::{DeferMode, Deferral, DeferralStats, Deferred, Misses, Unanswered};
use crate::expr::{Assignment, ExprId, ExprPool};
use crate::ir::{BlockId, FuncId, Module, Side, GLOBAL_BASE};
use crate::progress::{Progress, Published, Snapshot, Tally};
use crate::solver::{SatResult, Solver};
use crate::stop::{Halt, Stop, StopReason};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Reacts to the end of a state's outermost call.
pub trait Driver {
    /// Called when `state`'s stack empties or its path fails. Returns the state to keep
    /// running (after pushing a new frame), or `None` when the path is finished.
    fn on_exit(&mut self, ex: &mut Executor<'_>, state: State, exit: Exit) -> Option<State>;

    /// How many paths ended in each kind of result so far, for the progress counters.
    fn tally(&self) -> Tally {
        Tally::default()
    }
}

/// Exploration options. Every field documents its default.
#[derive(Clone, Debug)]
pub struct ExecConfig {
    /// Stop exploring after this long. Default is no limit.
    pub max_time: Option<Duration>,
    /// Of the user's time limit, what `max_time` leaves for confirming what was found
    /// (the crosscheck's replays): the limit the user gave is `max_time` plus this.
    pub confirm_reserve: Duration,
    /// Stop after this many finished paths. Default is no limit.
    pub max_paths: Option<u64>,
    /// A path running longer than this many instructions ends as unknown. Default is 10 million.
    pub max_instructions_per_path: u64,
    /// Search strategy. Default is random-path interleaved with coverage-new.
    pub search: SearchKind,
    /// Seed of every random choice. Default is 0.
    pub seed: u64,
    /// Objects a symbolic pointer may point to before the path gives up. Default is 64.
    pub max_pointer_targets: usize,
    /// Counters the workers add their numbers to while exploring, for the front end to
    /// show (the engine draws nothing). Default is none.
    pub progress: Option<Progress>,
    /// Exploration workers (threads) for one check. Default is 1.
    pub jobs: usize,
    /// Concrete contents for the symbolic objects a path makes, in the order it makes them
    /// (replaying a test). Default is none: objects are symbolic.
    pub replay: Option<Arc<Vec<Vec<u8>>>>,
    /// Where the states of a branch are merged when they meet again. Default is `Auto`:
    /// at the joins of small effect-free regions.
    pub merge: MergeMode,
    /// Resident memory (bytes) above which live states are dropped (and counted), so that
    /// exploration stays within it. Default is no cap.
    pub max_memory: Option<u64>,
    /// The run's interrupt and the check's deadline: exploration stops when it says so, and
    /// sets its deadline from `max_time` when it starts. Default is a token never set.
    pub stop: Stop,
    /// Functions whose calls are uninterpreted (`--abstract-calls`): a call of a function
    /// without a body under one of these names goes to `abstract_call.rs`. Default is none.
    pub abstract_calls: Vec<String>,
    /// Functions whose calls are one uninterpreted function shared by both sides
    /// (`summary.rs`), when this run proves by summaries. Default is none.
    pub summaries: Option<Arc<crate::exec::Summaries>>,
    /// Whether this run replays a test with concrete inputs: an abstracted call then ends
    /// the path as unknown (the replay cannot run the real function). Default is false.
    pub replaying: bool,
    /// The part of the exploration tree this process explores (`--shard K/N`), which the
    /// crosscheck's exploration splits off with [`Executor::expand`]. Default is all of it.
    pub shard: Option<crate::exec::shard::Shard>,
    /// Branch sides whose query the solver does not answer quickly are put aside and
    /// decided later (`--defer-after`). Default is none: every query gets the solver's
    /// full limit at once.
    pub defer: Option<Deferral>,
    /// What operations with undefined results give (`undefined.rs`). Default is the
    /// machine's value.
    pub ub: crate::exec::UbMode,
    /// The values of undefined behaviour a replayed test recorded (its `undefined.N`
    /// objects), in the order the path makes them: each is pinned to its value, so that
    /// the replay takes the test's path. Default is none.
    pub undefined_values: Option<Arc<Vec<Vec<u8>>>>,
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            max_time: None,
            confirm_reserve: Duration::ZERO,
            max_paths: None,
            max_instructions_per_path: 10_000_000,
            search: SearchKind::Interleaved,
            seed: 0,
            max_pointer_targets: 64,
            progress: None,
            jobs: 1,
            merge: MergeMode::Auto,
            max_memory: None,
            replay: None,
            stop: Stop::default(),
            abstract_calls: Vec::new(),
            summaries: None,
            replaying: false,
            shard: None,
            defer: None,
            ub: crate::exec::UbMode::Machine,
            undefined_values: None,
        }
    }
}

crate::counters::counters! {
    /// Counters of one exploration. The labelled ones are a check's report counters, in this
    /// order (the deferral's come after the solver's, `crosscheck::counters`).
    #[derive(Clone, Debug, Default)]
    pub struct ExecStats {
        instructions: u64 = "instructions",
        forks: u64 = "forks",
        live_states_max: usize [max] = "live states (max)",
        /// States dropped to stay under `--max-memory`.
        dropped_for_memory: u64 = "states dropped for memory",
        /// What state merging did.
        merging: MergeStats = [nested],
        /// What the path conditions answered without the solver.
        constraints: crate::exec::constraints::ConstraintStats = [nested],
        /// Symbolic sizes (of memcpy, memset, writes) taken one value at a time.
        value_splits: u64 = "symbolic sizes split by value",
        /// Branches answered from a state's model without asking the solver.
        model_hits: u64 = "branch sides answered by the path's model",
        paths: u64,
        /// Program outputs compared byte for byte although spacing was to be ignored,
        /// because they held symbolic bytes.
        strict_outputs: u64,
        /// What the deferral of branch queries did ([`ExecConfig::defer`]).
        deferral: DeferralStats,
        /// System calls the POSIX model does not implement (answered ENOSYS), by number.
        unmodelled_syscalls: std::collections::BTreeMap<i64, u64>,
        /// Reads of each part of the environment the POSIX model pins
        /// (`__xc_note_pinned`), by its `XC_PINNED_*` code.
        pinned_reads: std::collections::BTreeMap<i64, u64>,
        /// Why exploration stopped early, if it did (the first worker's reason that has one).
        stop_reason: Option<Halt> [first],
        elapsed: Duration [not_added],
    }
}

/// Where and from what the states of a branch are merged.
pub(crate) struct MergePoint {
    join: BlockId,
    snapshot: ConstraintSet,
    log_len: usize,
    path_len: usize,
}

/// Which way a branch can go. With `unanswered`, the side that has no model is not known
/// to be infeasible, while the path's model showed the other side feasible: the solver gave
/// up on it (the reason), or its first try went unanswered ([`ExecConfig::defer`]) and it
/// goes on unchecked, not as unknown.
pub struct Feasible {
    pub yes: Option<Arc<Assignment>>,
    pub no: Option<Arc<Assignment>>,
    pub unanswered: Option<Unanswered>,
}

/// Resident memory of this process, from `/proc/self/statm` (Linux).
fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Returns memory the allocator holds but no longer uses to the system (glibc keeps it),
/// so that resident memory follows what the live states use.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// How often the progress counters are published (and the memory cap is checked).
const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// How many instructions a state runs before the searcher chooses again.
const SLICE: u32 = 10_000;

/// The largest object (and alignment, and memory copy) the engine makes.
pub(crate) const MAX_ALLOCATION: u64 = 1 << 30;

pub struct Executor<'a> {
    pub module: &'a Module,
    pub pool: &'a ExprPool,
    pub solver: Box<dyn Solver>,
    pub config: ExecConfig,
    pub stats: ExecStats,
    /// Blocks reached so far, per function.
    pub coverage: Vec<Vec<bool>>,
    /// States created by the current step, to be scheduled after it.
    pub(crate) pending: Vec<State>,
    /// States that ended during the current step, with how.
    pub(crate) pending_exits: Vec<(State, Exit)>,
    next_state_id: u64,
    /// Unsupported constructs met, with their locations (deduplicated, in order).
    pub unsupported: Vec<String>,
    /// States still live when exploration stopped (non-zero means it was incomplete).
    pub live_at_end: usize,
    /// Those states, not yet freed (see [`Leftover`]).
    pub leftover: Leftover,
    /// Where the paths forked, shared by a check's workers (`crosscheck/parting.rs`).
    pub fork_log: crate::exec::ForkLog,
    /// State merging, when on.
    pub merger: Option<Merger>,
    /// The index of each declared function's handler in `table.rs`'s table, by function
    /// id: filled by the first call of a function without a body (`call_special`).
    pub(crate) specials: std::sync::OnceLock<Vec<Option<u16>>>,
    /// When exploration began (the deadline counts from it), once it has.
    start: Option<Instant>,
    /// Whether the branch being decided may put its other side aside ([`Deferral`]): set
    /// by [`Executor::branch_deferring`] while exploring.
    pub(super) defer_next: bool,
    /// What queries that may wait do now ([`DeferMode`]).
    pub(super) defer_mode: DeferMode,
    /// Where first tries went unanswered ([`Misses`]).
    pub(super) misses: Misses,
    /// Whether the worker has states besides the one running, live or waiting (set before
    /// each slice): only then may a path's end wait ([`Executor::check_or_defer`]).
    pub(super) others_live: bool,
    /// The paths ended by every worker of the exploration, when it has several: the
    /// `--max-paths` limit counts them all.
    all_paths: Option<Arc<AtomicU64>>,
}

impl<'a> Executor<'a> {
    pub fn new(
        module: &'a Module,
        pool: &'a ExprPool,
        solver: Box<dyn Solver>,
        config: ExecConfig,
    ) -> Self {
        let merger = (config.merge != MergeMode::Off).then(|| Merger::new(config.merge));
        let coverage = module
            .functions
            .iter()
            .map(|f| vec![false; f.blocks.len()])
            .collect();
        Executor {
            module,
            pool,
            solver,
            config,
            stats: ExecStats::default(),
            coverage,
            pending: Vec::new(),
            pending_exits: Vec::new(),
            next_state_id: 0,
            unsupported: Vec::new(),
            live_at_end: 0,
            leftover: Leftover::default(),
            fork_log: Default::default(),
            merger,
            specials: std::sync::OnceLock::new(),
            start: None,
            defer_next: false,
            defer_mode: DeferMode::Off,
            misses: Misses::default(),
            others_live: false,
            all_paths: None,
        }
    }

    /// A state with every global allocated and initialised, and an empty stack.
    pub fn initial_state(&mut self) -> State {
        let mut state = State {
            id: self.fresh_id(),
            stack: Default::default(),
            memory: Default::default(),
            allocator: crate::exec::memory::Allocator::new(GLOBAL_BASE),
            constraints: Default::default(),
            model: Some(Arc::new(Assignment::new())),
            unchecked: None,
            deferred_exit: None,
            flush: Default::default(),
            inputs: Vec::new(),
            preferences: Arc::default(),
            instructions: 0,
            phase: 0,
            first: None,
            buffers: Vec::new(),
            second_start: u64::MAX,
            undefined: Vec::new(),
            flagged: Vec::new(),
            flagged_links: Vec::new(),
            branched: Vec::new(),
            path: Vec::new(),
            path_hash: 0,
            log: Vec::new(),
            markers: Vec::new(),
            loc: None,
            merged: 1,
            since_new_coverage: 0,
            outputs: Default::default(),
            first_outputs: Default::default(),
            second: None,
            abstracted: Vec::new(),
        };
        let mut end = GLOBAL_BASE;
        for g in &self.module.globals {
            end = end.max(g.address + g.size + 64);
            state.memory.insert(
                MemoryObject {
                    address: g.address,
                    size: g.size,
                    kind: ObjectKind::Global,
                    name: g.name.clone(),
                    read_only: g.is_constant,
                    growth: None,
                },
                ObjectState::from_bytes(g.init.clone()),
            );
        }
        state.allocator = crate::exec::memory::Allocator::new(end + 4096);
        state
    }

    pub fn fresh_id(&mut self) -> u64 {
        self.next_state_id += 1;
        self.next_state_id
    }

    /// Pushes a call of `func` with `args` on `state`'s stack.
    pub fn push_call(
        &self,
        state: &mut State,
        func: FuncId,
        args: &[Value],
        ret_dst: Option<crate::ir::RegId>,
    ) {
        let f = self.module.function(func);
        let mut regs = crate::exec::state::Regs::new(f.num_regs as usize);
        for (r, arg) in args.iter().enumerate().take(regs.len()) {
            regs.set(r, *arg);
        }
        state.stack.push(Frame {
            serial: 0,
            func,
            block: crate::ir::BlockId(0),
            pc: 0,
            regs,
            ret_dst,
            allocas: Vec::new(),
            varargs: 0,
        });
    }

    /// Allocates a zeroed object of `size` bytes in `state`, named `WHAT at LOCATION`, and
    /// returns its address.
    pub(crate) fn allocate_zeroed(
        &self,
        state: &mut State,
        size: u64,
        kind: ObjectKind,
        what: &str,
    ) -> u64 {
        let name = format!("{what} at {}", self.current_loc(state));
        self.allocate(state, size, kind, name, ObjectState::zeroed(size as usize))
    }

    /// Allocates an object in `state` and returns its address.
    pub fn allocate(
        &self,
        state: &mut State,
        size: u64,
        kind: ObjectKind,
        name: String,
        contents: ObjectState,
    ) -> u64 {
        let address = match kind {
            ObjectKind::Parameter => state.allocator.allocate_apart(size, PARAMETER_GAP),
            _ => state.allocator.allocate(size),
        };
        state.memory.insert(
            MemoryObject {
                address,
                size,
                kind,
                name,
                read_only: false,
                growth: None,
            },
            contents,
        );
        address
    }

    /// Explores from `initial` until every path ended or a limit was hit.
    pub fn run(&mut self, initial: State, driver: &mut dyn Driver) {
        self.run_worker(vec![initial], driver, None);
    }

    /// Starts the clock of this exploration, once: `max_time` counts from the first call.
    fn begin(&mut self) -> Instant {
        if let Some(start) = self.start {
            return start;
        }
        let start = Instant::now();
        self.start = Some(start);
        if let Some(max) = self.config.max_time {
            self.config.stop.set_deadline(start + max);
        }
        start
    }

    /// Hands the states that ended during the last step to `driver`, which may continue
    /// them (side B) or fork more; returns the states the step and the driver created.
    pub(super) fn settle(&mut self, driver: &mut dyn Driver) -> Vec<State> {
        let mut created = std::mem::take(&mut self.pending);
        loop {
            let exits = std::mem::take(&mut self.pending_exits);
            if exits.is_empty() {
                return created;
            }
            for (s, exit) in exits {
                match driver.on_exit(self, s, exit) {
                    Some(next) => created.push(next),
                    None => self.path_ended(),
                }
            }
            created.append(&mut self.pending);
        }
    }

    /// Expands the exploration tree from `initial` breadth-first, a slice or a fork at a
    /// time, without merging, until at least `target` states are live, none is, or a limit
    /// is hit; returns the live states in path order. The expansion depends only on the
    /// inputs and the options (not on time or threads), so every shard of a run
    /// (`--shard`) computes the same states. Paths that end meanwhile go to `driver`.
    pub fn expand(&mut self, initial: State, driver: &mut dyn Driver, target: usize) -> Vec<State> {
        self.begin();
        // States split at the frontier must not belong to a merge group that spans shards.
        let merger = self.merger.take();
        let mut queue = std::collections::VecDeque::from([initial]);
        while queue.len() < target {
            if let Some(reason) = self.limit_reached() {
                self.stats.stop_reason = Some(reason);
                break;
            }
            let Some(state) = queue.pop_front() else {
                break;
            };
            let survivor = self.run_slice(state);
            let created = self.settle(driver);
            queue.extend(survivor);
            queue.extend(created);
        }
        self.merger = merger;
        let mut frontier: Vec<State> = queue.into();
        frontier.sort_by(|x, y| x.path.cmp(&y.path));
        frontier
    }

    /// Explores from `initial` and, when its own states run out, from states other workers
    /// hand over through `shared`; hands states over when another worker is idle.
    pub fn run_worker(
        &mut self,
        initial: Vec<State>,
        driver: &mut dyn Driver,
        shared: Option<&WorkPool>,
    ) {
        let start = self.begin();
        self.all_paths = shared.map(WorkPool::paths);
        let mut searcher: Box<dyn Searcher> = searcher::new(self.config.search, self.config.seed);
        let mut table = StateTable::default();
        for state in initial {
            let slot = table.place(state);
            searcher.add(slot, None, &table.states);
        }
        let mut deferred = Deferred::default();
        if self.config.defer.is_some() {
            self.defer_mode = DeferMode::Explore;
        }
        let mut last_progress = Instant::now();
        let progress = self.config.progress.clone();
        let mut published = Published::default();
        loop {
            if table.live == 0 && !deferred.is_empty() {
                // Only waiting states are left here and no retry may run: a limit ended
                // the exploration (they end as unknown below).
                if let Some(reason) = self.limit_reached() {
                    self.stats.stop_reason = Some(reason);
                    if let Some(pool) = shared {
                        pool.stop();
                    }
                    break;
                }
            }
            if self.retry_due(&deferred, table.live, start.elapsed()) {
                for s in self.retry_oldest(&mut deferred, driver) {
                    let slot = table.place(s);
                    searcher.add(slot, None, &table.states);
                }
                continue;
            }
            let slot = match searcher.select(&table.states) {
                Some(slot) => slot,
                None => match shared.and_then(WorkPool::take) {
                    Some(state) => {
                        let slot = table.place(state);
                        searcher.add(slot, None, &table.states);
                        continue;
                    }
                    None => break,
                },
            };
            if let Some(reason) = self.limit_reached() {
                self.stats.stop_reason = Some(reason);
                if let Some(pool) = shared {
                    pool.stop();
                }
                break;
            }
            if shared.is_some_and(WorkPool::stopped) {
                break;
            }
            let state = table.states[slot]
                .take()
                .expect("searcher selected a live state");
            self.others_live = table.live > 1 || !deferred.is_empty();
            let survivor = self.run_slice(state);
            // Ended states go to the driver, which may continue them (side B) or fork more.
            let created = self.settle(driver);
            let ended = survivor.is_none();
            if let Some(s) = survivor {
                table.states[slot] = Some(s);
                searcher.ran(slot, &table.states);
            }
            for s in created {
                let Some(s) = deferred.unless_waiting(s) else {
                    continue;
                };
                let child = table.place(s);
                searcher.add(child, Some(slot), &table.states);
            }
            if ended {
                searcher.remove(slot, &table.states);
                table.release(slot);
            }
            // Another worker has nothing to do: hand it a state (not the one just run).
            if let Some(pool) = shared {
                while pool.hungry() && table.live > 1 {
                    // A state inside a merge group stays: the group's other states are
                    // parked or running here, and they meet in this worker's merger.
                    let Some(give) = (0..table.states.len()).rev().find(|&k| {
                        k != slot
                            && table.states[k]
                                .as_ref()
                                .is_some_and(|s| s.markers.is_empty())
                    }) else {
                        break;
                    };
                    searcher.remove(give, &table.states);
                    let state = table.states[give].take().expect("a live slot");
                    table.release(give);
                    pool.give(state);
                }
            }
            self.stats.live_states_max = self.stats.live_states_max.max(table.live);
            if last_progress.elapsed() >= PROGRESS_INTERVAL {
                last_progress = Instant::now();
                if let Some(p) = &progress {
                    p.publish(&mut published, self.snapshot(table.live, driver));
                }
                if self
                    .config
                    .max_memory
                    .is_some_and(|cap| resident_bytes().is_some_and(|rss| rss > cap))
                {
                    // Over the cap: drop a quarter of the other live states, newest first,
                    // and give the freed memory back to the system, so that the next
                    // measurement sees what the remaining states use (the allocator keeps
                    // freed pages otherwise, and every state would end up dropped).
                    let victims: Vec<usize> = (0..table.states.len())
                        .rev()
                        .filter(|&k| k != slot && table.states[k].is_some())
                        .take(table.live.div_ceil(4))
                        .collect();
                    for k in victims {
                        searcher.remove(k, &table.states);
                        let mut state = table.states[k].take().expect("a live slot");
                        table.release(k);
                        self.merge_leave(&mut state);
                        self.stats.dropped_for_memory += 1;
                    }
                    release_free_memory();
                }
            }
        }
        self.abandon(deferred, driver);
        if let Some(p) = &progress {
            // This worker's states are gone: its live count drops to zero.
            p.publish(&mut published, self.snapshot(0, driver));
        }
        if self.stats.stop_reason.is_none() && self.config.stop.should_stop() {
            // The last paths may have been cut short (a solver check stopped): say so.
            self.stats.stop_reason = self.limit_reached();
        }
        self.live_at_end = self.stats.dropped_for_memory as usize
            + table.live
            + shared.map_or(0, WorkPool::left)
            + self.merger.as_ref().map_or(0, |m| m.parked());
        self.stats.elapsed = start.elapsed();
        if table.live > 0 {
            // Freeing hundreds of thousands of states takes seconds, and freeing them while
            // the check writes its reports and replays its tests slows those down (the
            // allocator is shared): they wait in `leftover` for the caller to free them when
            // it is done, or for this executor's end.
            self.leftover.push(std::mem::take(&mut table.states));
        }
    }

    /// This worker's counts, for the shared progress counters.
    fn snapshot(&self, live: usize, driver: &dyn Driver) -> Snapshot {
        Snapshot {
            paths: self.stats.paths,
            instructions: self.stats.instructions,
            live: live as u64,
            tally: driver.tally(),
        }
    }

    pub(super) fn limit_reached(&self) -> Option<Halt> {
        match self.config.stop.reason() {
            Some(StopReason::Interrupted) => return Some(Halt::Interrupted),
            Some(StopReason::Deadline) => {
                return Some(match self.config.max_time {
                    Some(max) => Halt::MaxTime {
                        max,
                        reserve: self.config.confirm_reserve,
                    },
                    None => Halt::TimeBudget,
                })
            }
            None => {}
        }
        if let Some(max) = self.config.max_paths {
            let ended = self
                .all_paths
                .as_ref()
                .map_or(self.stats.paths, |all| all.load(Ordering::Relaxed));
            if ended >= max {
                return Some(Halt::MaxPaths(max));
            }
        }
        None
    }

    /// Runs `state` until it forks, ends or uses up its slice.
    fn run_slice(&mut self, mut state: State) -> Option<State> {
        for _ in 0..SLICE {
            if state.instructions >= self.config.max_instructions_per_path {
                let limit = self.config.max_instructions_per_path;
                self.finish(state, Exit::Unknown(Undecided::PathTooLong { limit }));
                return None;
            }
            if self.step_in_place(&mut state) == Stepped::Ran {
                continue;
            }
            let next = self.step_owned(state)?;
            state = next;
            if !self.pending.is_empty() || !self.pending_exits.is_empty() {
                return Some(state);
            }
        }
        Some(state)
    }

    /// Ends `state` with `exit`.
    pub fn finish(&mut self, mut state: State, exit: Exit) {
        self.merge_leave(&mut state);
        // Whatever called `exit` is gone: the driver may start another program on it.
        state.stack.clear();
        self.pending_exits.push((state, exit));
    }

    /// Runs `f` on the merge groups, when merging is on, with what merging needs of the
    /// executor.
    fn with_merger<R>(&mut self, f: impl FnOnce(&mut Merger, &mut Resume<'_>) -> R) -> Option<R> {
        let merger = self.merger.as_mut()?;
        let mut resume = Resume {
            pool: self.pool,
            pending: &mut self.pending,
            next_state_id: &mut self.next_state_id,
            stats: &mut self.stats.constraints,
            counts: &mut self.stats.merging,
        };
        Some(f(merger, &mut resume))
    }

    /// `state` ends: it leaves every merge group it belongs to.
    pub(crate) fn merge_leave(&mut self, state: &mut State) {
        self.with_merger(|merger, resume| merger.leave(state, resume));
    }

    /// `state` left the frames deeper than `depth` by `longjmp`: it leaves the merge groups
    /// that started in them.
    pub(crate) fn merge_leave_deeper(&mut self, state: &mut State, depth: usize) {
        self.with_merger(|merger, resume| merger.leave_deeper(state, depth, resume));
    }

    /// Parks `state` if it stands at the join block of its innermost merge group; returns
    /// it otherwise.
    pub(crate) fn maybe_park(&mut self, state: State) -> Option<State> {
        if self.merger.is_none() {
            return Some(state);
        }
        self.with_merger(|merger, resume| merger.maybe_park(state, resume))?
    }

    /// Before a symbolic `br` or `switch` of `state` forks: the block where its states will
    /// be merged, if they will, with what the group must remember of the state then (its
    /// path condition, and the lengths of its constraint log and path).
    pub(crate) fn merge_point(&mut self, state: &mut State) -> Option<MergePoint> {
        let merger = self.merger.as_mut()?;
        if state.markers.is_empty() {
            // No group reads the log from before this branch.
            state.log.clear();
        }
        let frame = state.frame();
        let func = (frame.func, self.module.function(frame.func));
        let join = merger.join(func, frame.block)?;
        Some(MergePoint {
            join,
            snapshot: state.constraints.clone(),
            log_len: state.log.len(),
            path_len: state.path.len(),
        })
    }

    /// After a `br` or a `switch` forked `states` out of one state: gives them a merge group
    /// that meets at `point` (from [`Executor::merge_point`]).
    pub(crate) fn start_merge_group(&mut self, states: &mut [&mut State], point: MergePoint) {
        if let Some(merger) = self.merger.as_mut() {
            merger.start_group(
                states,
                point.join,
                &point.snapshot,
                point.log_len,
                point.path_len,
            );
        }
    }

    /// Drops `state` silently (an assumption that cannot hold on it).
    pub fn drop_path(&mut self, mut state: State) {
        self.merge_leave(&mut state);
        self.path_ended();
    }

    /// Counts a path that ended, here and for the exploration's other workers.
    fn path_ended(&mut self) {
        self.stats.paths += 1;
        if let Some(all) = &self.all_paths {
            all.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Ends `state` as a program failure at the current location.
    pub fn fail(&mut self, state: State, kind: Termination) {
        let loc = self.current_loc(&state);
        let callers = self.call_sites(&state);
        self.finish(state, Exit::Failed(Failure { kind, loc, callers }));
    }

    /// The locations of the calls that are running in `state`, innermost first (a caller's
    /// next instruction follows its call).
    pub fn call_sites(&self, state: &State) -> Vec<String> {
        let frames = state.stack.len();
        let mut sites: Vec<String> = state
            .stack
            .iter()
            .take(frames.saturating_sub(1))
            .filter(|frame| frame.pc > 0)
            .map(|frame| {
                let block = &self.module.function(frame.func).blocks[frame.block.index()];
                let at = block
                    .locs
                    .get(frame.pc - 1)
                    .copied()
                    .unwrap_or(block.term_loc);
                self.module.loc(at).to_string()
            })
            .collect();
        sites.reverse();
        sites
    }

    /// Where `state` is as it forks (recorded in the [`ForkLog`]).
    fn fork_site(&self, state: &State) -> crate::exec::state::ForkSite {
        let module = self.module;
        let own = |f: FuncId| module.function(f).side != Side::Shared && !module.is_c_library(f);
        let func = state.stack.last().map(|f| f.func);
        let caller = match func {
            Some(f) if !own(f) => state
                .stack
                .iter()
                .filter(|frame| frame.pc > 0 && own(frame.func))
                .last()
                .map(|frame| {
                    let block = &module.function(frame.func).blocks[frame.block.index()];
                    let loc = block
                        .locs
                        .get(frame.pc - 1)
                        .copied()
                        .unwrap_or(block.term_loc);
                    (frame.func, loc)
                }),
            _ => None,
        };
        crate::exec::state::ForkSite {
            func,
            loc: state.loc,
            caller,
        }
    }

    /// Ends `state` as unknown at the current location, recording the construct.
    pub fn unsupported(&mut self, state: State, what: &str) {
        let loc = self.current_loc(&state);
        let why = Undecided::Unsupported {
            what: what.to_string(),
            loc,
        };
        let text = why.to_string();
        if !self.unsupported.contains(&text) {
            self.unsupported.push(text);
        }
        self.finish(state, Exit::Unknown(why));
    }

    /// Ends `state` as unknown because the solver could not answer, naming where.
    pub fn gave_up(&mut self, state: State, why: SolverFailure) {
        let loc = self.current_loc(&state);
        let why = Undecided::SolverGaveUp {
            why,
            loc: Some(loc),
        };
        self.finish(state, Exit::Unknown(why));
    }

    pub fn current_loc(&self, state: &State) -> String {
        match state.loc {
            Some(loc) => self.module.loc(loc).to_string(),
            None => "<entry>".to_string(),
        }
    }

    /// Which of `cond` and `¬cond` are satisfiable with `state`'s path condition.
    /// `Err` carries the reason when the solver could not tell.
    pub fn feasible(&mut self, state: &State, cond: ExprId) -> Result<Feasible, SolverFailure> {
        let pool = self.pool;
        let cond = state.constraints.simplify(pool, cond);
        if let Some(c) =
            state
                .constraints
                .decide_simplified(pool, cond, &mut self.stats.constraints)
        {
            let model = match &state.model {
                Some(m) => m.clone(),
                None => self
                    .check(state, pool.true_())?
                    .ok_or(SolverFailure::InfeasiblePath)?,
            };
            return Ok(if c {
                Feasible {
                    yes: Some(model),
                    no: None,
                    unanswered: None,
                }
            } else {
                Feasible {
                    yes: None,
                    no: Some(model),
                    unanswered: None,
                }
            });
        }
        let not = pool.bool_not(cond);
        // The current model answers one side for free. When the solver gives up on the
        // other, the side the model satisfies still goes on (only the other is unknown).
        if let Some(model) = &state.model {
            self.stats.model_hits += 1;
            let model = model.clone();
            let holds = pool.eval(cond, &model) != 0;
            // The model is known to fail the other side: ask the solver directly, within the
            // first try's limit when this branch may put its other side aside.
            let first_try = self.defer_next.then(|| self.first_try(state.loc)).flatten();
            let answer = self.check_within(state, if holds { not } else { cond }, false, first_try);
            if first_try.is_some() {
                self.first_try_ended(state.loc, answer.is_ok());
            }
            let (other, unanswered) = match answer {
                Ok(other) => (other, None),
                Err(u) => (None, Some(u)),
            };
            return Ok(if holds {
                Feasible {
                    yes: Some(model),
                    no: other,
                    unanswered,
                }
            } else {
                Feasible {
                    yes: other,
                    no: Some(model),
                    unanswered,
                }
            });
        }
        let yes = self.check(state, cond)?;
        let no = self.check(state, not)?;
        Ok(Feasible {
            yes,
            no,
            unanswered: None,
        })
    }

    /// A model of `state`'s constraints together with `query`, if satisfiable.
    pub fn check(
        &mut self,
        state: &State,
        query: ExprId,
    ) -> Result<Option<Arc<Assignment>>, SolverFailure> {
        self.check_unless_model(state, query, true)
    }

    /// [`Executor::check`], trying the path's own model first only if `try_model` (callers
    /// that know it fails the query skip the evaluation).
    pub(super) fn check_unless_model(
        &mut self,
        state: &State,
        query: ExprId,
        try_model: bool,
    ) -> Result<Option<Arc<Assignment>>, SolverFailure> {
        let query = state.constraints.simplify(self.pool, query);
        match self.pool.as_const(query) {
            Some(0) => {
                self.stats.constraints.decided_by_substitution += 1;
                return Ok(None);
            }
            Some(_) if state.model.is_some() => {
                self.stats.constraints.decided_by_substitution += 1;
                return Ok(state.model.clone());
            }
            _ => {}
        }
        // The path's own model may satisfy the query already (a divergence often does).
        if let Some(model) = state.model.as_ref().filter(|_| try_model) {
            if self.pool.eval(query, model) == 1 {
                self.stats.model_hits += 1;
                return Ok(Some(model.clone()));
            }
        }
        self.solver.set_hint(state.model.clone());
        let answer = self
            .solver
            .check(self.pool, state.constraints.as_slice(), query);
        self.solver.set_hint(None);
        match answer {
            Ok(SatResult::Sat(model)) => Ok(Some(Arc::new(model))),
            Ok(SatResult::Unsat) => Ok(None),
            Ok(SatResult::Unknown(why)) => Err(SolverFailure::GaveUp(why)),
            Err(e) => Err(SolverFailure::Failed(e)),
        }
    }

    /// Splits `state` on `cond`: returns the state where `cond` holds (if feasible) and
    /// the one where it does not (if feasible). The solver giving up ends the state.
    pub fn branch(
        &mut self,
        mut state: State,
        cond: ExprId,
    ) -> Option<(Option<State>, Option<State>)> {
        let f = match self.feasible(&state, cond) {
            Ok(f) => f,
            Err(why) => {
                self.gave_up(state, why);
                return None;
            }
        };
        if let Some(unanswered) = f.unanswered {
            // One side is feasible (the path's model), the solver gave up on the other: the
            // first goes on; the other ends as unknown, with no model (none is known to
            // reach it), or, deferred, goes on unchecked with the path's model as its hint.
            let holds = f.yes.is_some();
            let (yes, no) = self.split(state, cond);
            let (mut taken, mut other) = if holds { (yes, no) } else { (no, yes) };
            taken.model = f.yes.or(f.no);
            other.model = None;
            let other = match unanswered {
                Unanswered::GaveUp(why) => {
                    self.gave_up(other, why);
                    None
                }
                Unanswered::Later => {
                    self.stats.deferral.deferred += 1;
                    other.unchecked = taken.model.clone();
                    // It runs later, on its own: the merge groups it was in do not wait.
                    self.merge_leave(&mut other);
                    Some(other)
                }
            };
            return Some(if holds {
                (Some(taken), other)
            } else {
                (other, Some(taken))
            });
        }
        match (f.yes, f.no) {
            (Some(m), None) => {
                state.model = Some(m);
                Some((Some(state), None))
            }
            (None, Some(m)) => {
                state.model = Some(m);
                Some((None, Some(state)))
            }
            (Some(my), Some(mn)) => {
                let (mut state, mut other) = self.split(state, cond);
                state.model = Some(my);
                other.model = Some(mn);
                Some((Some(state), Some(other)))
            }
            (None, None) => {
                // The path condition itself is unsatisfiable: cannot happen for a live state.
                self.finish(state, Exit::Unknown(Undecided::InfeasiblePath));
                None
            }
        }
    }

    /// Forks `state` on `cond`: the state where it holds and the one where it does not,
    /// each with its constraint, path step and (when merging) log entry; models are the
    /// caller's.
    fn split(&mut self, mut state: State, cond: ExprId) -> (State, State) {
        self.stats.forks += 1;
        let mut other = state.fork();
        other.id = self.fresh_id();
        let not = self.pool.bool_not(cond);
        let stats = &mut self.stats.constraints;
        state.constraints.add(self.pool, cond, stats);
        other.constraints.add(self.pool, not, stats);
        state.path.push(1);
        other.path.push(0);
        let site = self.fork_site(&state);
        self.fork_log.record(state.path_hash, site);
        state.path_hash = crate::exec::state::path_step(state.path_hash, 1);
        other.path_hash = crate::exec::state::path_step(other.path_hash, 0);
        if let Some(merger) = self.merger.as_mut() {
            // Only merging reads the constraint log: it is kept when merging is on.
            state.log.push(cond);
            other.log.push(not);
            merger.fork(&state);
        }
        (state, other)
    }

    /// Adds `cond` to `state` (as `klee_assume` does). Returns `None` when the assumption
    /// contradicts the path, which silently ends it, as in KLEE.
    pub fn assume(&mut self, mut state: State, cond: ExprId) -> Option<State> {
        if let Some(model) = &state.model {
            if self.pool.eval(cond, model) != 0 {
                state
                    .constraints
                    .add(self.pool, cond, &mut self.stats.constraints);
                return Some(state);
            }
        }
        match self.check(&state, cond) {
            Ok(Some(model)) => {
                state
                    .constraints
                    .add(self.pool, cond, &mut self.stats.constraints);
                state.model = Some(model);
                Some(state)
            }
            Ok(None) => {
                self.drop_path(state);
                None
            }
            Err(why) => {
                self.gave_up(state, why);
                None
            }
        }
    }

    /// Marks `block` of `func` reached; returns whether it is the first time.
    pub fn cover(&mut self, func: FuncId, block: crate::ir::BlockId) -> bool {
        let slot = &mut self.coverage[func.index()][block.index()];
        let new = !*slot;
        *slot = true;
        new
    }
}

/// States shared between the workers of one exploration (`-j N`).
pub struct WorkPool {
    inner: Mutex<PoolInner>,
    ready: Condvar,
    /// Workers waiting for a state (mirrors `PoolInner::idle`, read without the lock).
    hungry: AtomicUsize,
    stopped: AtomicBool,
    /// Paths ended by all workers, for `--max-paths`.
    paths: Arc<AtomicU64>,
}

struct PoolInner {
    states: Vec<State>,
    idle: usize,
    workers: usize,
    done: bool,
}

impl WorkPool {
    /// A pool for `workers` workers holding `initial` (taken last first).
    pub fn new(workers: usize, mut initial: Vec<State>) -> Self {
        // Workers pop from the end: the first state in path order goes out first.
        initial.reverse();
        WorkPool {
            inner: Mutex::new(PoolInner {
                states: initial,
                idle: 0,
                workers,
                done: false,
            }),
            ready: Condvar::new(),
            hungry: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            paths: Arc::default(),
        }
    }

    /// A state to explore; `None` when every worker is idle and no state is left.
    fn take(&self) -> Option<State> {
        let mut inner = self.inner.lock().expect("work pool lock");
        inner.idle += 1;
        self.hungry.store(inner.idle, Ordering::Relaxed);
        loop {
            if let Some(s) = inner.states.pop() {
                inner.idle -= 1;
                self.hungry.store(inner.idle, Ordering::Relaxed);
                return Some(s);
            }
            if inner.done || inner.idle == inner.workers {
                inner.done = true;
                self.ready.notify_all();
                return None;
            }
            inner = self.ready.wait(inner).expect("work pool lock");
        }
    }

    fn give(&self, s: State) {
        let mut inner = self.inner.lock().expect("work pool lock");
        inner.states.push(s);
        // Until the waiting worker takes it, nobody else needs to give.
        self.hungry.store(
            inner.idle.saturating_sub(inner.states.len()),
            Ordering::Relaxed,
        );
        self.ready.notify_one();
    }

    fn hungry(&self) -> bool {
        self.hungry.load(Ordering::Relaxed) > 0
    }

    /// Ends the exploration for every worker (a limit was hit).
    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        let mut inner = self.inner.lock().expect("work pool lock");
        inner.done = true;
        self.ready.notify_all();
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    /// The count of paths every worker adds to.
    fn paths(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.paths)
    }

    /// States nobody explored.
    fn left(&self) -> usize {
        self.inner.lock().map(|i| i.states.len()).unwrap_or(0)
    }
}

/// States an exploration left when it stopped, freed on a thread of their own when this is
/// dropped: a caller keeps it until its reports and replays are done.
#[derive(Default)]
pub struct Leftover(Vec<Vec<Option<State>>>);

impl Leftover {
    pub fn push(&mut self, states: Vec<Option<State>>) {
        self.0.push(states);
    }

    /// Adds `other`'s states to these.
    pub fn append(&mut self, other: &mut Leftover) {
        self.0.append(&mut other.0);
    }
}

impl Drop for Leftover {
    fn drop(&mut self) {
        let states = std::mem::take(&mut self.0);
        if !states.is_empty() {
            std::thread::spawn(move || drop(states));
        }
    }
}

/// Live states by slot, with a free list so that slots are reused.
#[derive(Default)]
struct StateTable {
    states: Vec<Option<State>>,
    free: Vec<usize>,
    live: usize,
}

impl StateTable {
    fn place(&mut self, s: State) -> usize {
        self.live += 1;
        match self.free.pop() {
            Some(slot) => {
                self.states[slot] = Some(s);
                slot
            }
            None => {
                self.states.push(Some(s));
                self.states.len() - 1
            }
        }
    }

    fn release(&mut self, slot: usize) {
        self.states[slot] = None;
        self.free.push(slot);
        self.live -= 1;
    }
}

/// An offset inside an object.
#[derive(Copy, Clone, Debug)]
pub enum Offset {
    Concrete(u64),
    /// A 32-bit expression known to keep the access in bounds.
    Symbolic(ExprId),
}

/// `offset + i`.
pub(crate) fn offset_plus(ex: &Executor<'_>, offset: Offset, i: u64) -> Offset {
    match offset {
        Offset::Concrete(o) => Offset::Concrete(o + i),
        Offset::Symbolic(e) => {
            let pool = ex.pool;
            Offset::Symbolic(pool.add(e, pool.constant(crate::expr::INDEX_WIDTH, i as u128)))
        }
    }
}
