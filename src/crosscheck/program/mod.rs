//! Whole-program crosschecking: two or three programs, each linked with its own C library,
//! run one after the other under one symbolic environment, and every path compares what
//! they wrote to stdout (and stderr, if asked) and how they ended.
//!
//! One state goes through the phases: the harness's `__xc_env_init` builds the symbolic
//! environment and the initial stack block (phase 0); A runs from its C library's entry
//! point to `exit` (1); `__xc_env_reset` restores files, offsets and argument strings to
//! their initial (symbolic) contents (2); B runs (3); with three programs, another reset (4)
//! and C (5). The verdict of a two-sided path asks whether `pc ∧ ¬(outA = outB)` is
//! satisfiable; a three-sided path asks it of all three, then, for each way three sides can
//! disagree (A, B or C the odd one out, or all three different) not yet found, for a model
//! of it, and makes a row for each way it found.

pub use super::classes::{quote, words_of};
mod three_way;

use super::program_inputs::{inputs_of, preferred_bytes};
use super::rows::{Decision, Replayed, RowDriver, Rows};
use super::{explore, Outcome};
use crate::env_options::{role, EnvOptions, Role};
use crate::error::{Error, Result};
use crate::exec::memory::{ObjectKind, ObjectState};
use crate::exec::{
    Driver, ExecConfig, Executor, Exit, SideOutcome, State, Termination, Unanswered, Value,
};
use crate::expr::{Assignment, ExprId, ExprPool};
use crate::ir::{BlockId, FuncId, Module, Side, FUNCTION_BASE, FUNCTION_STRIDE, PTR_WIDTH};
use crate::ktest::{KTest, KTestObject};
use crate::report::unknown::{ModelGap, Phase, Question};
use crate::report::{PathRow, PathVerdict, ThreeWay, UnknownReason};
use crate::solver::{build_chain, SolverConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What a path's verdict compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compare {
    pub stdout: bool,
    pub stderr: bool,
    pub exit: bool,
    /// The files the programs created, changed or removed (names, kinds, permissions and
    /// contents, as the POSIX model publishes them when a program ends).
    pub files: bool,
    /// Compare outputs line by line as words separated by spaces and tabs (so `"  3  4\n"`
    /// equals `"3 4\n"`). Applies where both outputs are concrete on the path; symbolic
    /// outputs are compared byte for byte (counted in the report).
    pub ignore_spacing: bool,
}

impl Default for Compare {
    fn default() -> Self {
        Compare {
            stdout: true,
            stderr: false,
            exit: true,
            files: true,
            ignore_spacing: false,
        }
    }
}

/// What to check. Every field documents its default.
#[derive(Clone, Debug)]
pub struct ProgramCheck {
    pub a_path: PathBuf,
    pub b_path: PathBuf,
    /// A third program (a three-way check), run after B on the same path. Default is none.
    pub c_path: Option<PathBuf>,
    /// `argv[0]` of the programs. Default is the file name of A up to its first dot.
    pub argv0: String,
    /// The environment options and concrete arguments, KLEE style (`--sym-args 0 2 2`,
    /// `--sym-stdin 8`, `-l`). Default is KLEE's coreutils environment
    /// ([`EnvOptions::default`]).
    pub env: EnvOptions,
    pub compare: Compare,
    pub exec: ExecConfig,
    pub solver: SolverConfig,
    /// Where tests and reports go. Default is `xcheck-out`.
    pub out_dir: PathBuf,
    /// How to run a test on the native executables, which confirm what concrete replay
    /// confirmed (three of a three-way check must agree as its row says): those beside the bitcode (`wc` for `wc.bc`, as `xcheck cc` writes them), or
    /// those the check builds for program-only bitcode. Default is none (the front end gives
    /// it: `replay::native_runner`).
    pub native: Option<super::NativeRunner>,
    /// The most `.ktest` files a kind of difference gets (`--tests-per-kind`; `None`: every
    /// one). Default is [`super::DEFAULT_TESTS_PER_KIND`].
    pub tests_per_kind: Option<usize>,
}

impl ProgramCheck {
    pub fn new(a: &Path, b: &Path) -> Self {
        ProgramCheck {
            a_path: a.to_path_buf(),
            b_path: b.to_path_buf(),
            c_path: None,
            argv0: default_argv0(a, b),
            env: EnvOptions::default(),
            compare: Compare::default(),
            exec: ExecConfig::default(),
            solver: SolverConfig::default(),
            out_dir: PathBuf::from("xcheck-out"),
            native: None,
            tests_per_kind: Some(super::DEFAULT_TESTS_PER_KIND),
        }
    }

    /// The bitcode files of the sides, A first.
    pub fn paths(&self) -> Vec<&Path> {
        [
            Some(self.a_path.as_path()),
            Some(self.b_path.as_path()),
            self.c_path.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The title of the check's report: the files, `  vs  ` between them.
    pub fn title(&self) -> String {
        let names: Vec<String> = self
            .paths()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        names.join("  vs  ")
    }

    /// The command line recorded in tests: `argv[0]` and the environment options.
    pub fn command_line(&self) -> Vec<String> {
        std::iter::once(self.argv0.clone())
            .chain(self.env.to_args())
            .collect()
    }
}

/// `argv[0]` when none is given: the name both files share (`wc` for `busybox-wc.bc` and
/// `coreutils-wc.bc`: multi-call programs such as busybox choose what to run by it), else
/// A's file name up to its first dot.
pub fn default_argv0(a: &Path, b: &Path) -> String {
    let stem = |p: &Path| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        name.split('.').next().unwrap_or("").to_string()
    };
    let (sa, sb) = (stem(a), stem(b));
    let last = |s: &str| s.rsplit(['-', '_']).next().unwrap_or("").to_string();
    let name = if sa == sb {
        sa
    } else if sa.contains(['-', '_']) && last(&sa) == last(&sb) {
        last(&sa)
    } else {
        sa
    };
    if name.is_empty() {
        "prog".into()
    } else {
        name
    }
}

/// Where a side starts: musl's `__libc_start_main(main, argc, argv, …)`.
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: FuncId,
    main: FuncId,
}

/// The functions a program check runs.
#[derive(Clone, Debug)]
struct Entries {
    init: FuncId,
    reset: FuncId,
    /// Side A's, B's and (three-way) C's.
    sides: Vec<Entry>,
}

fn entries(module: &Module, check: &ProgramCheck) -> Result<Entries> {
    let side_entry = |side: Side, path: &Path| -> Result<Entry> {
        let defined = |name: &str| {
            module
                .function_on_side(side, name)
                .filter(|&f| !module.function(f).is_declaration())
        };
        let Some(main) = defined("main") else {
            return Err(Error::input(
                path,
                "defines no 'main': not a whole program (to check functions, name one with --function f, or --all-functions)",
            ));
        };
        // The loader links a program-only side with the bundled musl or refuses it
        // (`load/musl.rs`); a side without `__libc_start_main` here has a `main` and
        // a C library without a start-up function.
        match defined("__libc_start_main") {
            Some(start) => Ok(Entry { start, main }),
            None => Err(Error::input(
                path,
                "has no __libc_start_main (its C library is not musl's): build it with `xcheck cc -o prog prog.c`, which links the bundled musl and writes prog.bc",
            )),
        }
    };
    let shared = |name: &str| -> Result<FuncId> {
        module
            .function_on_side(Side::Shared, name)
            .filter(|&f| !module.function(f).is_declaration())
            .ok_or_else(|| {
                Error::input(
                    "<harness>",
                    format!("the built-in POSIX model lacks '{name}'"),
                )
            })
    };
    Ok(Entries {
        init: shared("__xc_env_init")?,
        reset: shared("__xc_env_reset")?,
        sides: check
            .paths()
            .into_iter()
            .zip(Side::CHECKED)
            .map(|(path, side)| side_entry(side, path))
            .collect::<Result<_>>()?,
    })
}

/// What the report says of the sides given as program-only bitcode, which the loader
/// linked with the bundled musl: that it did, the native binary built for each into
/// `OUT/native/` for `xcheck replay --native` (or why there is none), and the names
/// neither the side nor musl defines that the engine does not implement.
fn auto_linked(module: &Module, check: &ProgramCheck) -> (Vec<String>, Vec<Option<PathBuf>>) {
    let paths = check.paths();
    let stem = |p: &Path| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_else(|| "prog".into());
        name.strip_suffix(".bc").unwrap_or(&name).to_string()
    };
    // Two different files of one name get their side's prefix.
    let clash = paths
        .iter()
        .enumerate()
        .any(|(i, p)| paths[..i].iter().any(|q| q != p && stem(q) == stem(p)));
    let mut notes = Vec::new();
    // What the native build of each input file gave: one build for both sides of `a.bc a.bc`.
    let mut built: std::collections::HashMap<&Path, (String, Option<PathBuf>)> = Default::default();
    let mut binaries: Vec<Option<PathBuf>> = vec![None; paths.len()];
    for link in &module.library.musl {
        let index = Side::CHECKED
            .iter()
            .position(|s| *s == link.side)
            .unwrap_or(0);
        let Some(&path) = paths.get(index) else {
            continue;
        };
        let name = if clash {
            format!("{}-{}", link.side, stem(path))
        } else {
            stem(path)
        };
        let (replay, binary) = built.entry(path).or_insert_with(|| {
            let native = check.out_dir.join("native").join(name);
            // A failed build must not leave an earlier run's binary behind.
            let _ = std::fs::remove_file(&native);
            let made = std::fs::create_dir_all(check.out_dir.join("native"))
                .map_err(|e| e.to_string())
                .and_then(|()| crate::load::build_native(path, &native));
            match made {
                Ok(()) => (
                    format!("native binary for replay: {}", native.display()),
                    Some(native),
                ),
                Err(why) => (
                    format!("no native binary ({why}): native replay is not possible for it"),
                    None,
                ),
            }
        });
        binaries[index] = binary.clone();
        notes.push(format!(
            "{} ({}) is program-only bitcode: linked with the bundled musl ({} archive members); {replay}",
            link.side,
            path.display(),
            link.members
        ));
        for (wanted, own) in &link.clashes {
            notes.push(format!(
                "{}: musl's {wanted} was not linked: its archive member also defines {own}, which the program defines (a static link would fail on the duplicate)",
                link.side
            ));
        }
        // Functions the engine and the POSIX model do not implement end a path that calls
        // them; undefined globals are zero-filled objects.
        let harness = |n: &str| {
            module
                .function_on_side(Side::Shared, n)
                .is_some_and(|f| !module.function(f).is_declaration())
        };
        let (functions, globals): (Vec<&str>, Vec<&str>) = link
            .undefined
            .iter()
            .map(String::as_str)
            .filter(|n| !crate::exec::has_handler(n) && !harness(n))
            .partition(|n| module.globals.iter().all(|g| g.source_name != *n));
        for (names, what) in [
            (functions, "a path that calls one ends unknown"),
            (globals, "read as zero-filled objects"),
        ] {
            if !names.is_empty() {
                notes.push(format!(
                    "{} uses what neither it nor musl defines: {} ({what})",
                    link.side,
                    names.join(", ")
                ));
            }
        }
    }
    (notes, binaries)
}

/// The native executable `xcheck cc` writes beside bitcode (`wc` for `wc.bc`), if there is one.
fn executable_beside(bc: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    if bc.extension()? != "bc" {
        return None;
    }
    let bin = bc.with_extension("");
    let meta = std::fs::metadata(&bin).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(bin)
}

/// Loads the programs and crosschecks them; writes tests and reports to `out_dir`.
pub fn check_programs(check: &ProgramCheck) -> Result<Outcome> {
    let started = Instant::now();
    let module = crate::load::load_programs(&check.paths())?;
    let entries = entries(&module, check)?;
    super::prepare_out_dir(&check.out_dir)?;
    let (musl_notes, built) = auto_linked(&module, check);
    let binaries: Option<Vec<PathBuf>> = check
        .paths()
        .iter()
        .zip(built)
        .map(|(path, built)| executable_beside(path).or(built))
        .collect();
    let native = match (binaries, &check.native) {
        (Some(binaries), Some(run)) => Some(super::NativeConfirm {
            binaries,
            run: run.clone(),
        }),
        _ => None,
    };
    let pool = crate::expr::ExprPool::new();
    let (exec, solver_config) =
        super::check_configs(&super::exploring(check.exec.clone()), &check.solver);
    let stop = exec.stop.clone();
    let mut ex = Executor::new(&module, &pool, build_chain(&solver_config), exec);
    let initial = initial_state(&mut ex, &entries, check);
    let title = check.title();
    let make_test = |row: &PathRow| test_of(check, row);
    let interim = |rows: &[PathRow]| super::interim_summary(title.clone(), rows, started);
    let recorder =
        // A shard writes every test: `xcheck merge` chooses them over every shard's rows.
        super::record::Recorder::new(
            &check.out_dir,
            &make_test,
            &interim,
            check.tests_per_kind.filter(|_| check.exec.shard.is_none()),
        );
    let mut explored = explore(
        ex,
        initial,
        &solver_config,
        || ProgramDriver::new(entries.clone(), check.compare),
        Some(&recorder),
    );
    let mut notes = explored.unsupported.clone();
    notes.insert(
        0,
        format!("environment: {}", check.command_line().join(" ")),
    );
    let c = check.compare;
    let compared: Vec<&str> = [
        (c.stdout, "stdout"),
        (c.stderr, "stderr"),
        (c.exit, "exit status"),
        (c.files, "files written"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, n)| *n)
    .collect();
    let spacing = if c.ignore_spacing {
        " (as words: spacing ignored)"
    } else {
        ""
    };
    notes.insert(1, format!("compared: {}{spacing}", compared.join(", ")));
    notes.extend(musl_notes);
    if explored.stats.strict_outputs > 0 {
        notes.push(format!(
            "{} outputs held symbolic bytes and were compared byte for byte, spacing included",
            explored.stats.strict_outputs
        ));
    }
    explored.assumptions = super::assumptions::of_programs(&explored.stats.pinned_reads);
    if !explored.stats.unmodelled_syscalls.is_empty() {
        let list: Vec<String> = explored
            .stats
            .unmodelled_syscalls
            .iter()
            .map(|(n, k)| match crate::exec::syscall_name(*n) {
                Some(name) => format!("{name} ({k}×)"),
                None => format!("system call {n} ({k}×)"),
            })
            .collect();
        notes.push(format!(
            "{}{}",
            crate::report::suite::UNMODELLED_NOTE,
            list.join(", ")
        ));
    }
    for side in &Side::CHECKED[..entries.sides.len()] {
        notes.push(super::coverage_note(&module, &explored.coverage, *side));
        let lines = super::line_coverage(&module, &explored.coverage, *side);
        explored.line_coverage.extend(lines);
    }
    if check.c_path.is_some() && native.is_none() {
        notes.push("three-way: no native executables beside the bitcode (FILE for FILE.bc): differences are confirmed by concrete replay in the engine only".into());
    }
    notes.extend(super::query_log_note(&solver_config));

    let mut replay_check = check.clone();
    (replay_check.exec, replay_check.solver) = super::replay_configs(
        &check.exec,
        &solver_config,
        check.exec.max_time.map(|m| started + m),
    );
    let confirm = super::Confirm {
        stop: replay_check.exec.stop.clone(),
        replay: &|t, route| Ok(engine_replay(&module, &entries, &replay_check, t, route)),
        abstracted: false,
        native: native.as_ref(),
        undefined: None,
    };
    let outcome = super::conclude(explored, &title, notes, started, &recorder, &stop, confirm);
    // Freeing the expressions and the program takes a while after a long run: another
    // thread does it, so that the verdict is out at once.
    std::thread::spawn(move || drop((pool, module)));
    outcome
}

/// The test of a row: the command line and the row's input objects.
fn test_of(check: &ProgramCheck, row: &PathRow) -> KTest {
    KTest {
        args: check.command_line(),
        sym_argvs: 0,
        sym_argv_len: 0,
        objects: row
            .inputs
            .iter()
            .map(|i| KTestObject {
                name: i.name.clone(),
                bytes: i.bytes.clone(),
            })
            .collect(),
    }
}

/// Replays a test concretely in the engine: the verdict of its single path, if decided.
fn engine_replay(
    module: &Module,
    entries: &Entries,
    check: &ProgramCheck,
    ktest: &KTest,
    route: bool,
) -> Option<Replayed> {
    let pool = crate::expr::ExprPool::new();
    let config = ExecConfig {
        search: crate::exec::SearchKind::Dfs,
        jobs: 1,
        merge: crate::exec::MergeMode::Off,
        replay: Some(Arc::new(
            ktest.objects.iter().map(|o| o.bytes.clone()).collect(),
        )),
        ..check.exec.clone()
    };
    let mut ex = Executor::new(module, &pool, build_chain(&check.solver), config);
    let initial = initial_state(&mut ex, entries, check);
    let mut driver = ProgramDriver::new(entries.clone(), check.compare);
    ex.run(initial, &mut driver);
    let sides = &Side::CHECKED[..entries.sides.len()];
    let lines = route.then(|| super::own_lines(module, &ex.coverage, sides));
    (driver.rows.replayed_verdict()).map(|r| Replayed {
        route: lines.unwrap_or_default(),
        ..r
    })
}

/// Replays every test of `dir` (or one test) in the engine and returns, per test, its
/// name, verdict and both sides' results.
/// Tests left when the run's stop token is interrupted are not replayed; the caller sees
/// fewer rows than tests.
pub fn replay_dir(check: &ProgramCheck, tests: &[PathBuf]) -> Result<Vec<(PathBuf, PathRow)>> {
    let module = crate::load::load_programs(&check.paths())?;
    let entries = entries(&module, check)?;
    let mut out = Vec::new();
    for path in tests {
        if check.exec.stop.interrupted() {
            break;
        }
        let ktest = KTest::read(path)?;
        let mut check = check.clone();
        if let Some((argv0, env)) = ktest.args.split_first() {
            check.argv0 = argv0.clone();
            check.env = EnvOptions::parse(env)
                .map_err(|e| Error::input(path, format!("its command line: {e}")))?;
        }
        // The model makes KLEE 3.x's objects: a test in an older layout is read in it.
        let objects = ktest.objects.iter();
        let (objects, _) =
            crate::env_options::model_layout(objects.map(|o| (o.name.as_str(), &o.bytes[..])))
                .map_err(|e| Error::input(path, format!("its objects: {e}")))?;
        let pool = crate::expr::ExprPool::new();
        let config = ExecConfig {
            search: crate::exec::SearchKind::Dfs,
            jobs: 1,
            replay: Some(Arc::new(objects.into_iter().map(|(_, b)| b).collect())),
            ..check.exec.clone()
        };
        let mut ex = Executor::new(&module, &pool, build_chain(&check.solver), config);
        let initial = initial_state(&mut ex, &entries, &check);
        let mut driver = ProgramDriver::new(entries.clone(), check.compare);
        ex.run(initial, &mut driver);
        match driver.rows.into_first() {
            Some(row) => out.push((path.clone(), row)),
            None if check.exec.stop.interrupted() => break,
            None => return Err(Error::input(path, "replay produced no result")),
        }
    }
    Ok(out)
}

/// A state about to run `__xc_env_init(argc, argv)` over the command line.
fn initial_state(ex: &mut Executor<'_>, entries: &Entries, check: &ProgramCheck) -> State {
    let mut state = ex.initial_state();
    let words = check.command_line();
    let mut pointers = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let mut bytes = w.as_bytes().to_vec();
        bytes.push(0);
        let size = bytes.len() as u64;
        pointers.push(ex.allocate(
            &mut state,
            size,
            ObjectKind::Heap,
            format!("environment option {i}"),
            ObjectState::from_bytes(bytes),
        ));
    }
    pointers.push(0);
    let table: Vec<u8> = pointers.iter().flat_map(|p| p.to_le_bytes()).collect();
    let argv = ex.allocate(
        &mut state,
        table.len() as u64,
        ObjectKind::Heap,
        "environment options".into(),
        ObjectState::from_bytes(table),
    );
    let args = [
        Value::concrete(32, words.len() as u128),
        Value::concrete(PTR_WIDTH, argv as u128),
    ];
    ex.push_call(&mut state, entries.init, &args, None);
    ex.cover(entries.init, BlockId(0));
    state
}

/// How one program ended, with what it wrote.
struct SideEnd {
    end: SideOutcome,
    outputs: [Arc<Vec<Value>>; crate::exec::OUTPUT_STREAMS],
}

pub(crate) struct ProgramDriver {
    entries: Entries,
    compare: Compare,
    /// Time left for making counterexamples readable.
    minimize_left: std::time::Duration,
    pub rows: Rows,
}

impl ProgramDriver {
    fn new(entries: Entries, compare: Compare) -> Self {
        ProgramDriver {
            entries,
            compare,
            minimize_left: super::minimize::TOTAL_BUDGET,
            rows: Rows::default(),
        }
    }

    /// Starts side `side` (0, 1 or 2) from the stack block at `block`.
    fn start_side(
        &mut self,
        ex: &mut Executor<'_>,
        mut state: State,
        side: usize,
        block: Option<Value>,
    ) -> Option<State> {
        let Some(block) = block.and_then(|b| b.as_concrete()).filter(|&b| b != 0) else {
            self.unknown(&state, UnknownReason::Model(ModelGap::NoArgumentBlock));
            return None;
        };
        let Some((object, contents)) = state.memory.find(block as u64) else {
            self.unknown(
                &state,
                UnknownReason::Model(ModelGap::ArgumentBlockNotInMemory),
            );
            return None;
        };
        let offset = (block as u64 - object.address) as usize;
        let argc = contents.concrete_value(offset, 8);
        let Some(argc) = argc else {
            self.unknown(&state, UnknownReason::Model(ModelGap::SymbolicArgc));
            return None;
        };
        let argv = Value::concrete(PTR_WIDTH, block + 8);
        let Entry { start, main } = self.entries.sides[side];
        // Phases 1, 3 and 5 run sides A, B and C.
        let f = ex.module.function(start);
        let main_ptr = FUNCTION_BASE + main.0 as u64 * FUNCTION_STRIDE;
        let args: Vec<Value> = f
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| match i {
                0 => Value::concrete(p.width, main_ptr as u128),
                1 => Value::concrete(p.width, argc & 0xffff_ffff),
                2 => argv,
                _ => Value::concrete(p.width, 0),
            })
            .collect();
        state.phase = 2 * side as u8 + 1;
        ex.push_call(&mut state, start, &args, None);
        ex.cover(start, BlockId(0));
        Some(state)
    }

    /// Ends `state`'s path as undecided, naming the phase it was in.
    fn unknown(&mut self, state: &State, why: UnknownReason) {
        self.rows.push(state, undecided(state, why));
    }

    /// Each compared part of two sides' ends: its name, its equality, and for an output
    /// compared byte for byte only because it is symbolic (under --ignore-spacing), its
    /// stream.
    fn parts(&self, ex: &mut Executor<'_>, state: &State, a: &SideEnd, b: &SideEnd) -> Vec<Part> {
        let pool = ex.pool;
        let mut parts: Vec<Part> = Vec::new();
        if self.compare.exit {
            parts.push(("exit status", same_end(ex, &a.end, &b.end), None));
        }
        for (k, on, what) in [
            (0, self.compare.stdout, "stdout"),
            (1, self.compare.stderr, "stderr"),
        ] {
            if on {
                let (x, y) = (&a.outputs[k], &b.outputs[k]);
                let (tx, ty) = if self.compare.ignore_spacing {
                    (fixed_text(ex, state, x), fixed_text(ex, state, y))
                } else {
                    (None, None)
                };
                let (same, strict) = match (self.compare.ignore_spacing, tx, ty) {
                    (true, Some(tx), Some(ty)) => {
                        (pool.bool_const(words_of(&tx) == words_of(&ty)), None)
                    }
                    (true, _, _) => (same_bytes(ex, x, y), Some(k)),
                    (false, _, _) => (same_bytes(ex, x, y), None),
                };
                parts.push((what, same, strict));
            }
        }
        if self.compare.files {
            parts.push(("files", same_bytes(ex, &a.outputs[2], &b.outputs[2]), None));
        }
        parts
    }

    /// Decides a path where both programs ended: its row, or `None` when the question
    /// whether they differ went unanswered in its first try (the path's end waits,
    /// `Executor::check_or_defer`).
    fn decide(
        &mut self,
        ex: &mut Executor<'_>,
        state: &State,
        a: &SideEnd,
        b: &SideEnd,
    ) -> Option<Decision> {
        let pool = ex.pool;
        let parts = self.parts(ex, state, a, b);
        let all = parts
            .iter()
            .fold(pool.true_(), |acc, (_, e, _)| pool.bool_and(acc, *e));
        let failed = |e: &SideOutcome| matches!(e, SideOutcome::Failed(_));
        let (fa, fb) = (failed(&a.end), failed(&b.end));
        let example = state.model.clone();
        let differing = match ex.check_or_defer(state, pool.bool_not(all)) {
            Ok(m) => m,
            Err(Unanswered::Later) => return None,
            Err(Unanswered::GaveUp(why)) => {
                let question = Question::SidesDiffer;
                return Some(undecided(
                    state,
                    UnknownReason::Asking {
                        why: why.to_string(),
                        question,
                    },
                ));
            }
        };
        // Counted once the path is decided (a path end that waits is compared again).
        ex.stats.strict_outputs += strict_parts(&parts);
        let Some(model) = differing else {
            let verdict = if fa && fb {
                PathVerdict::ErrorBoth
            } else {
                PathVerdict::Proved
            };
            // Failures on both sides count as agreement only when replay shows them: their
            // row needs a test, so an input.
            let example = match self.failure_example(ex, state, example, fa && fb) {
                Ok(m) => m,
                Err(why) => return Some(undecided(state, UnknownReason::Solver(why))),
            };
            let [result_a, result_b, detail] = match &example {
                Some(m) => [
                    describe(ex, a, m),
                    describe(ex, b, m),
                    if fa && fb {
                        "both fail the same way, with the same output".into()
                    } else {
                        String::new()
                    },
                ],
                None => ["?".into(), "?".into(), String::new()],
            };
            let inputs = match (&example, fa && fb) {
                (Some(m), true) => inputs_of(state, m),
                _ => Vec::new(),
            };
            return Some(Decision {
                verdict,
                inputs,
                result_a,
                result_b,
                detail,
                class: None,
                three: None,
                undefined: None,
            });
        };
        let model = Arc::new(complete_model(ex, state, &model));
        let objects = minimized_objects(ex, state);
        let goal = pool.bool_not(all);
        let model = super::minimize::minimize_objects(
            ex,
            state,
            goal,
            &objects,
            &preferred_bytes(state),
            model,
            &mut self.minimize_left,
        );
        // An output compared byte for byte that, for this input, differs only in
        // spacing is no divergence under --ignore-spacing; another input might be.
        let which: Vec<&str> = parts
            .iter()
            .filter(|part| part_differs(ex, part, a, b, &model))
            .map(|(w, _, _)| *w)
            .collect();
        let (verdict, inputs, detail) = if which.is_empty() {
            let why = UnknownReason::SpacingOnly { inputs: false };
            (PathVerdict::Unknown, Vec::new(), why.to_string())
        } else {
            let verdict = if fa != fb {
                PathVerdict::ErrorOne
            } else {
                PathVerdict::Diverged
            };
            let detail = format!(
                "{} differ{}",
                which.join(" and "),
                if which.len() == 1 && which[0] != "files" {
                    "s"
                } else {
                    ""
                }
            );
            (verdict, inputs_of(state, &model), detail)
        };
        let class = verdict.is_difference().then(|| class_of(ex, a, b, &model));
        Some(Decision {
            verdict,
            inputs,
            result_a: describe(ex, a, &model),
            result_b: describe(ex, b, &model),
            detail,
            class,
            three: None,
            undefined: None,
        })
    }

    /// The model a path's row shows (`example`, the path's own if known), completed; when
    /// every side fails (`all_fail`), the row needs a test, so a model is found if none is
    /// known, and it gives the inputs their preferred values where the path allows (a stat
    /// object's usual mode and times).
    fn failure_example(
        &mut self,
        ex: &mut Executor<'_>,
        state: &State,
        example: Option<Arc<Assignment>>,
        all_fail: bool,
    ) -> std::result::Result<Option<Arc<Assignment>>, String> {
        let pool = ex.pool;
        let example = match example {
            Some(m) if all_fail => Arc::new(complete_model(ex, state, &m)),
            None if all_fail => match ex.check(state, pool.true_()).map_err(|e| e.to_string())? {
                Some(m) => Arc::new(complete_model(ex, state, &m)),
                None => return Ok(None),
            },
            other => return Ok(other),
        };
        let left = &mut self.minimize_left;
        Ok(Some(super::minimize::preferred(
            ex,
            state,
            pool.true_(),
            &preferred_bytes(state),
            example,
            left,
        )))
    }

    /// How one side ended, with what it wrote; why the path is undecided if the engine
    /// gave up on it.
    fn side_end(state: &mut State, exit: Exit) -> Result<SideEnd, UnknownReason> {
        let end = match exit {
            Exit::Exited(status) | Exit::Returned(Some(status)) => SideOutcome::Exited(status),
            Exit::Returned(None) => SideOutcome::Exited(Value::concrete(32, 0)),
            // The model cannot say what the program does next (a wait no other process
            // could end, events it does not make): a gap of the model, which is never
            // agreement and never a difference.
            Exit::Failed(f) if f.kind.is_model_gap() => {
                return Err(UnknownReason::Model(ModelGap::CannotGoOn {
                    what: f.kind.describe(),
                    place: f.place(),
                }))
            }
            Exit::Failed(f) => SideOutcome::Failed(f),
            Exit::Silent => return Err(UnknownReason::SilentExit),
            Exit::Unknown(why) => return Err(UnknownReason::Engine(why.to_string())),
        };
        Ok(SideEnd {
            end,
            outputs: std::mem::take(&mut state.outputs),
        })
    }
}

/// A compared part of two sides' ends: its name, its equality, and for an output compared
/// byte for byte only because it is symbolic (under --ignore-spacing), its stream.
type Part = (&'static str, ExprId, Option<usize>);

/// Whether `part` of `a` and `b` differs for `model`'s inputs: its equality is false, and an
/// output compared byte for byte only because it is symbolic differs in more than spacing.
fn part_differs(
    ex: &Executor<'_>,
    (_, e, strict): &Part,
    a: &SideEnd,
    b: &SideEnd,
    model: &Assignment,
) -> bool {
    ex.pool.eval(*e, model) == 0
        && strict.is_none_or(|k| {
            let x = concrete_bytes(ex, &a.outputs[k], model);
            let y = concrete_bytes(ex, &b.outputs[k], model);
            words_of(&x) != words_of(&y)
        })
}

/// The input objects a counterexample is made readable in (arguments, stdin, files): their
/// bytes, and whether each is a string.
fn minimized_objects(ex: &Executor<'_>, state: &State) -> Vec<(Vec<Value>, bool)> {
    let pool = ex.pool;
    state
        .inputs
        .iter()
        .filter(|i| matches!(role(&i.name), Role::Arg | Role::Stdin | Role::File(_)))
        .map(|i| {
            let bytes = (0..i.size)
                .map(|k| Value::Sym(pool.sym(i.array, k)))
                .collect();
            (bytes, role(&i.name) == Role::Arg)
        })
        .collect()
}

/// The outputs among `parts` compared byte for byte only because they are symbolic
/// (`--ignore-spacing`), for the report's counter.
fn strict_parts(parts: &[Part]) -> u64 {
    parts.iter().filter(|p| p.2.is_some()).count() as u64
}

/// The row of a path the engine could not decide, naming the phase it was in.
fn undecided(state: &State, why: UnknownReason) -> Decision {
    let phase = match state.phase {
        0 => Phase::Environment,
        1 => Phase::A,
        2 | 4 => Phase::Reset,
        3 => Phase::B,
        _ => Phase::C,
    };
    Decision::unknown(
        "?".into(),
        "?".into(),
        UnknownReason::In(phase, Box::new(why)),
    )
}

impl Driver for ProgramDriver {
    fn tally(&self) -> crate::exec::Tally {
        self.rows.tally()
    }

    fn on_exit(&mut self, ex: &mut Executor<'_>, mut state: State, exit: Exit) -> Option<State> {
        match state.phase {
            0 | 2 | 4 => match exit {
                Exit::Returned(block) => {
                    let side = usize::from(state.phase / 2);
                    self.start_side(ex, state, side, block)
                }
                Exit::Failed(f) => {
                    let why = match &f.kind {
                        // The options were checked when parsed (env_options.rs): the model
                        // rejecting them is a gap of the model, not the user's error.
                        Termination::Reported { message, suffix } if suffix.starts_with("user") => {
                            ModelGap::RejectedEnvironment(message.clone())
                        }
                        other => ModelGap::Failed {
                            what: other.describe(),
                            place: f.place(),
                        },
                    };
                    self.unknown(&state, UnknownReason::Model(why));
                    None
                }
                Exit::Silent => None,
                Exit::Exited(_) => {
                    self.unknown(&state, UnknownReason::Model(ModelGap::Exited));
                    None
                }
                Exit::Unknown(why) => {
                    self.unknown(&state, UnknownReason::Engine(why.to_string()));
                    None
                }
            },
            1 => {
                let end = match Self::side_end(&mut state, exit) {
                    Ok(end) => end,
                    Err(why) => {
                        self.unknown(&state, why);
                        return None;
                    }
                };
                state.first = Some(end.end);
                state.first_outputs = end.outputs;
                state.phase = 2;
                ex.push_call(&mut state, self.entries.reset, &[], None);
                Some(state)
            }
            3 if self.entries.sides.len() == 3 => {
                let end = match Self::side_end(&mut state, exit) {
                    Ok(end) => end,
                    Err(why) => {
                        self.unknown(&state, why);
                        return None;
                    }
                };
                state.second = Some(Arc::new((end.end, end.outputs)));
                state.phase = 4;
                ex.push_call(&mut state, self.entries.reset, &[], None);
                Some(state)
            }
            _ => {
                // Kept in case the decision waits (the state is then handed back as it was).
                let kept = (exit.clone(), state.outputs.clone());
                let rows = match Self::side_end(&mut state, exit) {
                    Ok(last) => {
                        let a = SideEnd {
                            end: state.first.clone().expect("side A ended before B started"),
                            outputs: state.first_outputs.clone(),
                        };
                        let rows = match state.second.as_deref() {
                            Some((end, outputs)) => {
                                let b = SideEnd {
                                    end: end.clone(),
                                    outputs: outputs.clone(),
                                };
                                self.decide_three(ex, &state, [&a, &b, &last])
                            }
                            None => self.decide(ex, &state, &a, &last).map(|row| vec![row]),
                        };
                        let Some(rows) = rows else {
                            (state.outputs, state.deferred_exit) = (kept.1, Some(Box::new(kept.0)));
                            return Some(state);
                        };
                        rows
                    }
                    Err(why) => vec![undecided(&state, why)],
                };
                for row in rows {
                    self.rows.push(&state, row);
                }
                None
            }
        }
    }
}

impl RowDriver for ProgramDriver {
    fn rows(&self) -> &Rows {
        &self.rows
    }

    fn into_rows(self) -> Rows {
        self.rows
    }
}

/// `model` (which the solver may have restricted to the arrays of its query) extended with
/// the path's own model for every other array. Constraints over disjoint arrays are
/// independent, so the result satisfies the whole path condition.
fn complete_model(ex: &mut Executor<'_>, state: &State, model: &Assignment) -> Assignment {
    let base = match state.model.clone() {
        Some(m) => Some(m),
        None => ex.check(state, ex.pool.true_()).ok().flatten(),
    };
    let mut full = base.map(|m| (*m).clone()).unwrap_or_default();
    for (array, bytes) in model.iter() {
        full.set(array, bytes.to_vec());
    }
    full
}

/// `a` and `b` ended the same way: equal exit statuses (low 8 bits, as a parent sees
/// them), or the same failure.
fn same_end(ex: &Executor<'_>, a: &SideOutcome, b: &SideOutcome) -> ExprId {
    let pool = ex.pool;
    match (a, b) {
        (SideOutcome::Exited(x), SideOutcome::Exited(y)) => {
            let low = |v: &Value| pool.extract(v.expr(pool), 0, 8);
            pool.eq(low(x), low(y))
        }
        (SideOutcome::Failed(x), SideOutcome::Failed(y)) => {
            pool.bool_const(x.kind.same_kind(&y.kind))
        }
        _ => pool.false_(),
    }
}

/// The text of an output the path condition fixes: its bytes may be symbolic expressions
/// (a count printed in decimal) as long as only one value of each is possible on the path,
/// which one query settles. `None` when the output can vary on the path.
fn fixed_text(ex: &mut Executor<'_>, state: &State, bytes: &[Value]) -> Option<Vec<u8>> {
    if let Some(text) = bytes
        .iter()
        .map(|v| v.as_concrete().map(|b| b as u8))
        .collect::<Option<Vec<u8>>>()
    {
        return Some(text);
    }
    let pool = ex.pool;
    let model = match state.model.clone() {
        Some(m) => m,
        None => ex.check(state, pool.true_()).ok().flatten()?,
    };
    let text = concrete_bytes(ex, bytes, &model);
    let may_differ = bytes
        .iter()
        .zip(&text)
        .filter_map(|(b, &v)| match b {
            Value::Sym(e) => Some(pool.ne(*e, pool.constant(8, v as u128))),
            Value::Con { .. } => None,
        })
        .fold(pool.false_(), |acc, c| pool.bool_or(acc, c));
    match ex.check(state, may_differ) {
        Ok(None) => Some(text),
        _ => None,
    }
}

/// Two outputs are equal: the same length and the same bytes.
pub(super) fn same_bytes(ex: &Executor<'_>, a: &[Value], b: &[Value]) -> ExprId {
    let pool = ex.pool;
    if a.len() != b.len() {
        return pool.false_();
    }
    let eqs: Vec<ExprId> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| pool.eq(x.expr(pool), y.expr(pool)))
        .collect();
    pool.and_all(&eqs)
}

fn concrete_bytes(ex: &Executor<'_>, bytes: &[Value], model: &Assignment) -> Vec<u8> {
    bytes
        .iter()
        .map(|v| match v {
            Value::Con { bits, .. } => *bits as u8,
            Value::Sym(e) => ex.pool.eval(*e, model) as u8,
        })
        .collect()
}

/// What one side did for the inputs of `model`: how it ended (`exit 1`, or the failure
/// and its location), whether that is a failure, and its stdout and stderr.
fn observe(
    ex: &Executor<'_>,
    side: &SideEnd,
    model: &Assignment,
) -> (String, bool, Vec<u8>, Vec<u8>) {
    let (end, failed) = match &side.end {
        SideOutcome::Exited(v) => {
            let status = match v {
                Value::Con { bits, .. } => *bits,
                Value::Sym(e) => ex.pool.eval(*e, model),
            };
            (format!("exit {}", status & 0xff), false)
        }
        SideOutcome::Failed(f) => (format!("{} at {}", f.kind.describe(), f.place()), true),
        SideOutcome::Returned { .. } => ("returned".into(), false),
    };
    let out = concrete_bytes(ex, &side.outputs[0], model);
    let err = concrete_bytes(ex, &side.outputs[1], model);
    (end, failed, out, err)
}

/// `exit 1, stdout "3\n"` for the inputs of `model`, with the files it changed
/// (`, files xaa "1\n"`).
fn describe(ex: &Executor<'_>, side: &SideEnd, model: &Assignment) -> String {
    let (end, _, out, err) = observe(ex, side, model);
    let mut text = format!("{end}, stdout {}", quote(&out));
    if !err.is_empty() {
        text.push_str(&format!(", stderr {}", quote(&err)));
    }
    let files = concrete_bytes(ex, &side.outputs[2], model);
    if !files.is_empty() {
        text.push_str(&format!(", files {}", super::classes::files_text(&files)));
    }
    text
}

/// The divergence class (`classes.rs`) of what the two sides did for `model`'s inputs.
fn class_of(ex: &Executor<'_>, a: &SideEnd, b: &SideEnd, model: &Assignment) -> String {
    class_named(ex, a, b, model, ("A", "B"))
}

/// [`class_of`] with the sides named `names`: a three-way row's odd side against one of
/// the two that agree.
fn class_named(
    ex: &Executor<'_>,
    a: &SideEnd,
    b: &SideEnd,
    model: &Assignment,
    names: (&str, &str),
) -> String {
    let (ea, fa, oa, xa) = observe(ex, a, model);
    let (eb, fb, ob, xb) = observe(ex, b, model);
    let (files_a, files_b) = (
        concrete_bytes(ex, &a.outputs[2], model),
        concrete_bytes(ex, &b.outputs[2], model),
    );
    let side = |end, failed, stdout, stderr, files| super::classes::Observed {
        end,
        failed,
        stdout,
        stderr,
        files,
    };
    super::classes::classify_named(
        &side(&ea, fa, &oa, &xa, &files_a),
        &side(&eb, fb, &ob, &xb, &files_b),
        names,
    )
}

#[cfg(test)]
mod tests {
    use super::default_argv0;
    use std::path::Path;

    #[test]
    fn argv0_is_the_name_both_programs_share() {
        let name = |a: &str, b: &str| default_argv0(Path::new(a), Path::new(b));
        assert_eq!(name("build/busybox-wc.bc", "x/coreutils-wc.bc"), "wc");
        assert_eq!(name("old/cat.bc", "new/cat.bc"), "cat");
        assert_eq!(name("a.bc", "b.bc"), "a");
        assert_eq!(name("wc_a.bc", "wc_b.bc"), "wc_a");
    }
}
