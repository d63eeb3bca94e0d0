//! Function-level equivalence: run A and then B on the same symbolic arguments in one
//! state, and decide per path whether their results must be equal.
//!
//! Per path: A runs to its end; its return value and the final bytes of every buffer passed
//! to it are kept; B then runs from fresh buffers holding the same symbolic bytes, under A's
//! path condition; the path's verdict compares the two (`verdict`). Every divergence found
//! is replayed concretely in the engine before it is reported as confirmed (`engine_replay`).

mod assumptions;
mod check;
pub mod classes;
pub mod float;
pub mod globals;
mod inductive;
mod minimize;
mod outcome;
mod parting;
mod pointers;
mod poison;
mod precondition;
pub mod program;
mod program_inputs;
mod record;
mod rows;
mod setup;
mod show;
mod summaries;
mod verdict;

use check::tests_capped;
pub use check::{
    BufferOffset, FunctionCheck, ProvedPair, ProvedPairs, BUFFER_ALIGN, DEFAULT_BUFFER_CAP,
    DEFAULT_TESTS_PER_KIND,
};
pub(crate) use record::write_reports;
pub use setup::{signature, validate, Alias, ParamSpec, Signature, OFFSET_SUFFIX};
pub use show::{display_buffer, display_int, display_unsigned};

use crate::error::{Error, Result};
use crate::exec::{ExecConfig, Executor, WorkPool};
use crate::expr::{ExprId, ExprPool};
use crate::ir::{Module, Side};
use crate::ktest::KTest;
use crate::report::{Overall, PathRow, PathVerdict, Report, Summary};
use crate::solver::{build_chain, SolverConfig};
pub use float::FpEquality;
use rows::RowDriver;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The result of a check: the report, and the tests written.
pub struct Outcome {
    pub report: Report,
    pub tests: Vec<PathBuf>,
}

/// Loads both modules and checks the pair; writes tests and reports to `out_dir`.
pub fn check_functions(check: &FunctionCheck) -> Result<Outcome> {
    let started = Instant::now();
    let module = crate::load::load(
        &check.a_path,
        Some(&check.b_path),
        &check.exec.abstract_calls,
    )?;
    check_loaded(&module, check, started)
}

/// Checks one function pair of an already linked module (`started`: when the work began,
/// for the reported wall time).
pub fn check_loaded(module: &Module, check: &FunctionCheck, started: Instant) -> Result<Outcome> {
    let check = &check.engine_ub();
    let signature = setup::signature(module, check)?;
    let pool = ExprPool::new();
    let preconditions = setup::parse_preconditions(&check.assumes)?;
    prepare_out_dir(&check.out_dir)?;

    let (mut exec, solver_config) = check_configs(&exploring(check.exec.clone()), &check.solver);
    let stop = exec.stop.clone();
    let plan = if check.summaries {
        summaries::plan(module, signature.a, signature.b, &check.proved.list())
    } else {
        Default::default()
    };
    let mut by_summary = None;
    let mut summary_notes = Vec::new();
    if !plan.is_empty() {
        let began = Instant::now();
        let sum_pool = ExprPool::new();
        let run = summaries::run(
            module,
            &sum_pool,
            &signature,
            &preconditions,
            (&exec, &solver_config),
            &plan,
            &|stop, args| {
                verdict::CrossDriver::new(&signature, check.compare_buffers, args).summarizing(stop)
            },
        )?;
        match run {
            Ok((explored, used)) => by_summary = Some((explored, used)),
            Err(why) => {
                summary_notes.push(format!(
                    "{}: the run with them did not prove every path ({why}), so the check \
                     explored without them",
                    summaries::note(&plan)
                ));
                exec.max_time = exec.max_time.map(|m| m.saturating_sub(began.elapsed()));
            }
        }
    }
    let solver = build_chain(&solver_config);
    let mut ex = Executor::new(module, &pool, solver, exec);
    let (initial, args) =
        setup::initial_state(&mut ex, &signature, setup::Inputs::Symbolic, &preconditions)?;
    // A check the summaries decided needs no induction.
    let induction = if by_summary.is_some() {
        None
    } else {
        let trying = Instant::now();
        let params: Vec<ExprId> = args.values.iter().map(|v| v.expr(&pool)).collect();
        let pre = initial.constraints.as_slice().to_vec();
        let sides = (signature.a, signature.b);
        let found = inductive::attempt(&ex, check, sides, (&params, &pre), &solver_config);
        // The attempt's time is the check's; a proof leaves exploration a short look.
        let max = &mut ex.config.max_time;
        *max = max.map(|m| m.saturating_sub(trying.elapsed()));
        if found.as_ref().is_some_and(|f| f.proof.is_some()) {
            *max = Some(max.map_or(inductive::AFTER_PROOF, |m| m.min(inductive::AFTER_PROOF)));
        }
        found
    };
    let title = format!(
        "{}:{}  vs  {}:{}",
        check.a_path.display(),
        check.a_name,
        check.b_path.display(),
        check.b_name
    );
    let make_test = |row: &PathRow| setup::ktest_of(check, &signature, &row.inputs);
    let interim = |rows: &[PathRow]| interim_summary(title.clone(), rows, started);
    let recorder = record::Recorder::new(&check.out_dir, &make_test, &interim, tests_capped(check));
    let mut used = None;
    let mut explored = match by_summary {
        Some((explored, summaries)) => {
            used = Some(summaries);
            explored
        }
        None => explore(
            ex,
            initial,
            &solver_config,
            || verdict::CrossDriver::new(&signature, check.compare_buffers, args.clone()),
            Some(&recorder),
        ),
    };
    explored.assumptions = assumptions::of_function(check, &signature);
    let mut notes = explored.unsupported.clone();
    if let Some(used) = &used {
        explored.assumptions.extend(summaries::assumptions(used));
        notes.push(summaries::note(used));
    }
    notes.extend(summary_notes);
    if let Some(found) = induction {
        let finished = explored.stats.stop_reason.is_none() && explored.live_at_end == 0;
        if found.proof.is_some() || !finished {
            notes.extend(found.notes);
        }
        explored.proof = found.proof;
    }
    notes.extend(library_notes(
        module,
        &signature,
        &check.exec.abstract_calls,
    ));
    notes.extend(setup::reading_notes(&signature, &preconditions));
    notes.extend(setup::buffer_notes(module, &signature));
    notes.extend(signature.globals.notes.iter().cloned());
    for side in [Side::A, Side::B] {
        notes.push(coverage_note(module, &explored.coverage, side));
        let lines = line_coverage(module, &explored.coverage, side);
        explored.line_coverage.extend(lines);
    }
    notes.extend(query_log_note(&solver_config));
    notes.extend(explored.solver_stats.answered_note());
    let mut replay_check = check.clone();
    (replay_check.exec, replay_check.solver) = replay_configs(
        &check.exec,
        &solver_config,
        check.exec.max_time.map(|m| started + m),
    );
    let built_native = std::sync::OnceLock::new();
    let confirm = Confirm {
        stop: replay_check.exec.stop.clone(),
        replay: &|ktest, route| engine_replay(module, &replay_check, &signature, ktest, route),
        abstracted: !check.exec.abstract_calls.is_empty(),
        native: None,
        undefined: Some(&|ktest| {
            let Some(native) = &check.native else {
                return Ok(None);
            };
            let stop = &replay_check.exec.stop;
            if stop.should_stop() {
                return Ok(None);
            }
            // Built once, on the first such row (compiling both sides takes a second).
            let built = built_native.get_or_init(|| (native.0)(check, &signature));
            let run = built.as_ref().map_err(Clone::clone)?;
            let left = stop.deadline().map_or(NATIVE_TIMEOUT, |d| {
                d.saturating_duration_since(Instant::now())
            });
            Ok(run(ktest, left.min(NATIVE_TIMEOUT), stop))
        }),
    };
    conclude(explored, &title, notes, started, &recorder, &stop, confirm)
}

/// What the report says about the library functions the pair reaches: those run as musl's
/// code (each side its own copy), those `--abstract-calls` names, and calls musl's math
/// library could have served when its build is missing.
fn library_notes(module: &Module, signature: &Signature, abstract_calls: &[String]) -> Vec<String> {
    use std::collections::BTreeSet;
    let (reached, _) = globals::reachable(module, &[signature.a, signature.b]);
    let reached: Vec<&crate::ir::Function> = reached.iter().map(|&f| module.function(f)).collect();
    let mut notes = Vec::new();
    let linked_on = |side: Side| -> BTreeSet<&str> {
        reached
            .iter()
            .filter(|f| f.side == side && module.library.external.contains(&f.name))
            .map(|f| f.source_name.as_str())
            .collect()
    };
    let (a, b) = (linked_on(Side::A), linked_on(Side::B));
    let list = |names: &BTreeSet<&str>| names.iter().copied().collect::<Vec<_>>().join(", ");
    if a == b && !a.is_empty() {
        notes.push(format!(
            "C library functions run as musl's code (each side its own copy): {}",
            list(&a)
        ));
    } else if a != b {
        let side = |s: Side, names: &BTreeSet<&str>| {
            let names = if names.is_empty() {
                "none".to_string()
            } else {
                list(names)
            };
            format!("{s}: {names}")
        };
        notes.push(format!(
            "C library functions run as musl's code: {}; {}",
            side(Side::A, &a),
            side(Side::B, &b)
        ));
    }
    let declared = |name: &str| {
        reached
            .iter()
            .any(|f| f.is_declaration() && f.source_name == name)
    };
    if let Some(why) = &module.library.unavailable {
        let missing: BTreeSet<&str> = reached
            .iter()
            .filter(|f| f.is_declaration() && !crate::exec::has_handler(&f.source_name))
            .map(|f| f.source_name.as_str())
            .filter(|n| !abstract_calls.iter().any(|a| a == n))
            .collect();
        if !missing.is_empty() {
            notes.push(format!(
                "musl was not linked ({why}): {} not run as code",
                list(&missing)
            ));
        }
    }
    if !abstract_calls.is_empty() {
        notes.push(format!(
            "abstracted calls: {} (uninterpreted: equal arguments give equal results; a proof holds for any such function, a divergence through them cannot be confirmed by replay)",
            abstract_calls.join(", ")
        ));
    }
    for name in abstract_calls {
        if declared(name) {
            continue;
        }
        let defined: Vec<String> = reached
            .iter()
            .filter(|f| !f.is_declaration() && f.source_name == *name)
            .map(|f| f.side.to_string())
            .collect();
        notes.push(match defined.len() {
            0 => format!("--abstract-calls {name}: neither side calls it"),
            1 => format!(
                "--abstract-calls {name}: side {} defines it, so its body runs",
                defined[0]
            ),
            _ => format!("--abstract-calls {name}: both sides define it, so their bodies run"),
        });
    }
    notes
}

/// How the tests of a check are confirmed: each replayed concretely in a fresh engine.
pub(crate) struct Confirm<'r> {
    /// The replays' stop token (from [`replay_configs`]).
    pub stop: crate::stop::Stop,
    /// The verdict of a test's single path when replayed, if decided; with the lines each
    /// side ran when the second argument asks for them (`report::Route`).
    pub replay: &'r (dyn Fn(&KTest, bool) -> Result<Option<rows::Replayed>> + Sync),
    /// Whether the check abstracts calls, which a replay cannot run.
    pub abstracted: bool,
    /// Runs a test on native executables, for a row concrete replay confirmed.
    pub native: Option<&'r NativeConfirm>,
    /// Runs the test of a row resting on one side's undefined behaviour on native
    /// executables once concrete replay confirmed it: whether the sides differ there
    /// (`None`: not run), or why the executables cannot be built.
    pub undefined: Option<&'r UndefinedNative<'r>>,
}

/// Runs a test on native executables: whether the sides differ (`None`: not run), or why
/// they cannot be built.
pub(crate) type UndefinedNative<'r> =
    dyn Fn(&KTest) -> std::result::Result<Option<bool>, String> + Sync + 'r;

/// How a test runs on native executables (given by the front end, which may run them:
/// `crosscheck` does not import `native/`): whether the executables do what the engine said
/// of a row, given its test, its verdict, which sides agree (a three-way check's `C
/// differs`…), the time the runs may take and the executables (two, or three). `None`: the test could not run natively (failure injection, an executable
/// that would not start, a run out of time).
#[derive(Clone)]
#[allow(clippy::type_complexity)]
pub struct NativeRunner(
    pub  Arc<
        dyn Fn(
                &KTest,
                PathVerdict,
                Option<crate::report::Agreement>,
                Duration,
                &crate::stop::Stop,
                &[PathBuf],
            ) -> crate::report::NativeReplay
            + Send
            + Sync,
    >,
);

impl std::fmt::Debug for NativeRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NativeRunner")
    }
}

/// How a function check runs a test on native executables of its pair: whether the two
/// sides' ends differ there, within a time and until a stop; `None` when it could not run.
pub type NativeDiffer = dyn Fn(&KTest, Duration, &crate::stop::Stop) -> Option<bool> + Send + Sync;

/// Builds a function check's native executables (given by the front end, which can build
/// them: `crosscheck` does not import `native/`), once the check has a row resting on one
/// side's undefined behaviour, which only the machine can show to differ: how to run a test
/// on them, or why they cannot be built.
#[derive(Clone)]
#[allow(clippy::type_complexity)]
pub struct NativeFunctions(
    pub  Arc<
        dyn Fn(&FunctionCheck, &Signature) -> std::result::Result<Box<NativeDiffer>, String>
            + Send
            + Sync,
    >,
);

impl std::fmt::Debug for NativeFunctions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NativeFunctions")
    }
}

/// A program check's native executables (built by `xcheck cc` beside their bitcode, or by
/// the check for program-only bitcode) and how to run a test on them.
#[derive(Clone, Debug)]
pub struct NativeConfirm {
    /// The executables, side A first (two, or three for a three-way check).
    pub binaries: Vec<PathBuf>,
    pub run: NativeRunner,
}

/// How long one native run may take at most.
const NATIVE_TIMEOUT: Duration = Duration::from_secs(10);

/// A note when the query log (`--log-queries`) could not be written to the end.
pub(crate) fn query_log_note(solver: &crate::solver::SolverConfig) -> Option<String> {
    let error = solver.log.as_ref()?.write_error()?;
    Some(format!("query log incomplete: writing {error}"))
}

/// The end every check shares once exploration is over (`stop`: the check's own token,
/// `notes`: the check's notes). The tests first, numbered in path order, all on disk with
/// the report before the slower confirmation; then every test replayed, on every core,
/// within the time left (the simplest test of each kind of difference first); then the
/// report again, with what replay confirmed.
pub(crate) fn conclude(
    mut explored: Explored,
    title: &str,
    mut notes: Vec<String>,
    started: Instant,
    recorder: &record::Recorder<'_>,
    stop: &crate::stop::Stop,
    confirm: Confirm<'_>,
) -> Result<Outcome> {
    let summarizing = Instant::now();
    let rows = std::mem::take(&mut explored.rows);
    let summary = explored.summary(title.into(), &rows, notes.clone(), started);
    let summarizing = summarizing.elapsed();
    let mut report = Report { summary, rows };
    let (tests, writing) = recorder.finish(&mut report)?;
    reserve_for_reports(&confirm.stop, summarizing + writing);

    // The simplest test of each kind of difference is replayed first, then the others in
    // path order: when the time left does not cover every replay, each kind still gets
    // its confirmation.
    let examples: std::collections::HashSet<usize> =
        crate::report::divergence_classes(&report.rows)
            .iter()
            .map(|c| c.example)
            .collect();
    // Every row with a test is replayed, its file written or not (`--tests-per-kind`).
    let mut written: Vec<(usize, KTest)> = report
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| record::needs_test(r))
        .map(|(i, r)| (i, recorder.test_of(r)))
        .collect();
    written.sort_by_key(|(i, _)| (!examples.contains(&report.rows[*i].id), *i));
    // A test index, its replayed verdict, what native replay showed, and why native
    // executables could not be built.
    type Replayed = (
        usize,
        Option<rows::Replayed>,
        crate::report::NativeReplay,
        Option<String>,
    );
    let replayed: Vec<Replayed> = {
        use rayon::prelude::*;
        let rows = &report.rows;
        let replay_one = |(i, ktest): &(usize, KTest)| -> Result<Replayed> {
            let verdict = if confirm.stop.should_stop() {
                None
            } else {
                (confirm.replay)(ktest, examples.contains(&rows[*i].id))?
            };
            let row = &rows[*i];
            let (native, unbuilt) = match (confirm.native, confirm.undefined, &verdict) {
                (_, Some(undefined), Some(v)) if row.undefined.is_some() && v.agrees_with(row) => {
                    match undefined(ktest) {
                        Ok(Some(differ)) => (crate::report::NativeReplay::of(differ), None),
                        Ok(None) => (crate::report::NativeReplay::NotRun, None),
                        Err(why) => (crate::report::NativeReplay::NotRun, Some(why)),
                    }
                }
                (Some(native), _, Some(v))
                    if v.agrees_with(row) && v.verdict != PathVerdict::Proved =>
                {
                    (native_replay(native, &confirm.stop, ktest, v), None)
                }
                _ => (crate::report::NativeReplay::NotRun, None),
            };
            Ok((*i, verdict, native, unbuilt))
        };
        if written.len() < 2 {
            // One test or none: no thread pool to start (its threads spin a while on a
            // 2-core machine, longer than a small check's replay).
            written.iter().map(replay_one).collect::<Result<_>>()?
        } else {
            // par_bridge hands the tests out in this order (par_iter would split the list in
            // halves and start the second half at once).
            written
                .iter()
                .par_bridge()
                .map(replay_one)
                .collect::<Result<_>>()?
        }
    };
    let mut not_replayed = Vec::new();
    let mut unbuilt = None;
    let mut routes = Vec::new();
    for (i, mut verdict, native, why) in replayed {
        let row = &mut report.rows[i];
        if let Some(v) = verdict.as_mut().filter(|v| !v.route.is_empty()) {
            let sides = std::mem::take(&mut v.route);
            let parting = row
                .parts_at
                .as_deref()
                .and_then(|at| route_mark(at, &sides));
            routes.push(crate::report::Route {
                row: row.id,
                sides,
                parting,
            });
        }
        if verdict.is_none() && confirm.stop.should_stop() {
            // A row whose test was not written (past --tests-per-kind) is named by its path.
            not_replayed.push(
                row.ktest
                    .clone()
                    .unwrap_or_else(|| format!("path {}", row.id)),
            );
        } else {
            row.confirmed = crate::report::Replay::of(verdict.is_some_and(|v| v.agrees_with(row)));
            row.native = native;
            row.differs_natively();
        }
        unbuilt = unbuilt.or(why);
    }
    notes.extend(native_note(confirm.native, &report.rows));
    notes.extend(undefined_native_note(&report.rows, unbuilt));
    if report
        .rows
        .iter()
        .any(|r| r.confirmed == crate::report::Replay::NotConfirmed)
    {
        notes.push(
            if !confirm.abstracted {
                "a difference did not reproduce in concrete replay: it is reported but not counted (an engine bug)".into()
            } else {
                "a difference did not reproduce in concrete replay: it is reported but not counted (replay cannot run abstracted calls; otherwise an engine bug)".into()
            },
        );
    }
    notes.extend(not_replayed_note(stop, &not_replayed));
    notes.extend(report.unwritten_note(recorder.tests_per_kind()));
    report.summary = explored.summary(title.into(), &report.rows, notes, started);
    let shown: std::collections::HashSet<usize> =
        report.summary.classes.iter().map(|c| c.example).collect();
    routes.retain(|r| shown.contains(&r.row));
    routes.sort_by_key(|r| r.row);
    report.summary.routes = routes;
    record::write_reports(recorder.dir(), &report)?;
    // The states exploration left are freed now, on a thread of their own.
    drop(std::mem::take(&mut explored.leftover));
    Ok(Outcome { report, tests })
}

/// Moves the replays' deadline earlier by `writing` (the time the report took to summarize
/// and write once, not the wait for the tests still being written), half as much again, and
/// [`EXIT_ALLOWANCE`]: after replay the report is summarized and written again, with what
/// replay confirmed, and the terminal summary printed, so that a long run still ends by its
/// limit. (A quarter more was too little: 120 s checks of busybox against coreutils `cut`
/// ended at 121.1 s alone and at 121.9 s two at a time, 24,000 rows written in 1.2 s.)
fn reserve_for_reports(stop: &crate::stop::Stop, writing: std::time::Duration) {
    if let Some(at) = stop.deadline() {
        let reserve = writing + writing / 2 + EXIT_ALLOWANCE;
        stop.set_deadline(at.checked_sub(reserve).unwrap_or_else(Instant::now));
    }
}

/// Time kept after the last writing of a check's report: printing its summary, and the
/// process's exit.
const EXIT_ALLOWANCE: Duration = Duration::from_millis(300);

/// Runs a test on the native executables within the time its replays have left.
fn native_replay(
    native: &NativeConfirm,
    stop: &crate::stop::Stop,
    ktest: &KTest,
    replayed: &rows::Replayed,
) -> crate::report::NativeReplay {
    if stop.should_stop() {
        return crate::report::NativeReplay::NotRun;
    }
    let left = stop.deadline().map_or(NATIVE_TIMEOUT, |d| {
        d.saturating_duration_since(Instant::now())
    });
    let (verdict, agreement) = (replayed.verdict.clone(), replayed.agreement);
    let timeout = left.min(NATIVE_TIMEOUT);
    (native.run.0)(ktest, verdict, agreement, timeout, stop, &native.binaries)
}

/// What native replay showed, for the report's notes: how many of the rows concrete replay
/// confirmed the executables reproduced (the others are not counted), and how many they did
/// not run (time, or a test they cannot run).
fn native_note(native: Option<&NativeConfirm>, rows: &[PathRow]) -> Option<String> {
    let native = native?;
    let (mut total, mut ran, mut agreed) = (0, 0, 0);
    for row in rows.iter().filter(|r| r.confirmed.is_confirmed()) {
        if row.verdict == PathVerdict::Proved {
            continue;
        }
        total += 1;
        if let Some(ok) = row.native.as_bool() {
            ran += 1;
            agreed += usize::from(ok);
        }
    }
    if total == 0 {
        return None;
    }
    let names: Vec<String> = native
        .binaries
        .iter()
        .map(|b| b.display().to_string())
        .collect();
    let names = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let mut text = format!("native replay on {names}: {agreed} of {ran} rows reproduced");
    if agreed < ran {
        text.push_str(&format!(
            ", {} did not (reported, not counted: the engine or its model differs from the executables)",
            ran - agreed
        ));
    }
    if ran < total {
        text.push_str(&format!(
            "; {} not run natively (time, or tests that cannot run natively)",
            total - ran
        ));
    }
    Some(text)
}

/// What native replay showed of the rows resting on one side's undefined behaviour, for
/// the report's notes: how many differ natively (now differences), how many agree there (still
/// unknown), how many were not run; or why the executables could not be built (`unbuilt`).
fn undefined_native_note(rows: &[PathRow], unbuilt: Option<String>) -> Option<String> {
    let on_undefined: Vec<&PathRow> = rows.iter().filter(|r| r.undefined.is_some()).collect();
    if on_undefined.is_empty() {
        return None;
    }
    let n = on_undefined.len();
    let rows_word = |k: usize| if k == 1 { "row" } else { "rows" };
    if let Some(why) = unbuilt {
        return Some(format!(
            "{n} {} rest on one side's undefined behaviour and stay unknown: native executables of the pair could not be built ({why})",
            rows_word(n)
        ));
    }
    let differ = on_undefined
        .iter()
        .filter(|r| r.verdict == PathVerdict::Diverged)
        .count();
    let agree = on_undefined
        .iter()
        .filter(|r| r.verdict == PathVerdict::Unknown && r.native.refuted())
        .count();
    let mut text = format!(
        "{n} {} rest on one side's undefined behaviour; run natively, {differ} differ (counted as differences), {agree} agree (unknown)",
        rows_word(n)
    );
    let not_run = n - differ - agree;
    if not_run > 0 {
        text.push_str(&format!(", {not_run} not run (unknown)"));
    }
    Some(text)
}

/// Time the concrete replays of a check may take once its exploration was stopped (by an
/// interrupt or its deadline), or past its deadline: they confirm what was found, and the
/// run still ends within about a second of the limit.
pub(crate) const REPLAY_BUDGET: std::time::Duration = std::time::Duration::from_millis(500);

/// The configurations of one check's exploration: its own stop token (the run's interrupt,
/// a deadline of its own), in both.
pub fn check_configs(exec: &ExecConfig, solver: &SolverConfig) -> (ExecConfig, SolverConfig) {
    let stop = exec.stop.for_check();
    (
        ExecConfig {
            stop: stop.clone(),
            ..exec.clone()
        },
        SolverConfig {
            stop,
            ..solver.clone()
        },
    )
}

/// The share of a check's `--max-time` kept for confirming what exploration found (writing
/// the tests, replaying them): a tenth, at most 10 s. Exploration stops that much earlier,
/// so that a run stopped by its limit still has its differences confirmed, and ends by it.
pub(crate) fn confirmation_reserve(max_time: Duration) -> Duration {
    (max_time / 10).min(Duration::from_secs(10))
}

/// The exploration configuration of a check whose whole run `exec.max_time` limits:
/// exploration ends [`confirmation_reserve`] earlier.
pub(crate) fn exploring(mut exec: ExecConfig) -> ExecConfig {
    if let Some(m) = exec.max_time {
        exec.confirm_reserve = confirmation_reserve(m);
        exec.max_time = Some(m - exec.confirm_reserve);
    }
    exec
}

/// The configurations of the replays that confirm a check's tests, from the check's own
/// (`exec` as given, `solver` from [`check_configs`]): no time limit of their own, but a
/// stop token that allows [`REPLAY_BUDGET`] after the check stopped, or until `limit` (the
/// check's start plus its `--max-time`) when that is later and the run was not interrupted.
/// Replays are not exploration: they add nothing to the progress counters.
pub(crate) fn replay_configs(
    exec: &ExecConfig,
    solver: &SolverConfig,
    limit: Option<Instant>,
) -> (ExecConfig, SolverConfig) {
    let stop = solver.stop.after(REPLAY_BUDGET);
    if let (Some(limit), false) = (limit, solver.stop.interrupted()) {
        stop.extend_deadline(limit);
    }
    (
        ExecConfig {
            stop: stop.clone(),
            max_time: None,
            progress: None,
            shard: None,
            ..exec.clone()
        },
        SolverConfig {
            stop,
            ..solver.clone()
        },
    )
}

/// The note naming the tests that were not replayed because the run was stopped.
pub(crate) fn not_replayed_note(stop: &crate::stop::Stop, names: &[String]) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let why = match stop.reason() {
        Some(crate::stop::StopReason::Interrupted) => "interrupted",
        _ => "time limit",
    };
    // A long run may leave thousands: the note names the first few (the report's rows
    // name every one).
    const NAMED: usize = 10;
    let mut listed = names[..names.len().min(NAMED)].join(", ");
    if names.len() > NAMED {
        listed.push_str(&format!(" and {} more", names.len() - NAMED));
    }
    Some(format!(
        "{} not replayed ({why}): {listed}; whether they reproduce is not known (xcheck replay checks them)",
        if names.len() == 1 { "1 test".to_string() } else { format!("{} tests", names.len()) }
    ))
}

/// The summary of a report written while the check still runs (or of a run that was
/// killed before it ended).
fn interim_summary(title: String, rows: &[PathRow], started: Instant) -> Summary {
    let explored = Explored {
        rows: Vec::new(),
        stats: crate::exec::ExecStats {
            stop_reason: Some(crate::stop::Halt::StillRunning),
            ..Default::default()
        },
        solver_stats: Default::default(),
        unsupported: Vec::new(),
        coverage: Vec::new(),
        live_at_end: 0,
        shard: None,
        leftover: Default::default(),
        assumptions: Vec::new(),
        line_coverage: Vec::new(),
        proof: None,
    };
    let mut summary = explored.summary(title, rows, Vec::new(), started);
    summary.notes = vec![
        "written while the check ran: exploration is not finished, tests are numbered in the order found, and none is replayed yet".into(),
    ];
    summary
}

/// Creates the output directory, and removes the tests and reports an earlier run left
/// there, so that the directory holds exactly this run's (other files are left alone).
pub fn prepare_out_dir(dir: &Path) -> Result<()> {
    let err = |e: std::io::Error| Error::Output {
        path: dir.to_path_buf(),
        source: e,
    };
    std::fs::create_dir_all(dir).map_err(err)?;
    for entry in std::fs::read_dir(dir).map_err(err)? {
        let path = entry.map_err(err)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let is_report = crate::report::files::REPORT_FILES.contains(&name);
        // A test's error description, as `xcheck run` writes it: `test000001.ptr.err`.
        let is_err = name.ends_with(".err")
            && name
                .split_once('.')
                .is_some_and(|(stem, _)| record::is_test_file_name(&format!("{stem}.ktest")));
        if record::is_test_file_name(name) || is_report || is_err {
            std::fs::remove_file(&path).map_err(|e| Error::Output {
                path: path.clone(),
                source: e,
            })?;
        }
    }
    Ok(())
}

/// What an exploration found, over all its workers.
pub(crate) struct Explored {
    /// Rows in path order, numbered from 1.
    pub rows: Vec<PathRow>,
    pub stats: crate::exec::ExecStats,
    pub solver_stats: crate::solver::SolverStats,
    pub unsupported: Vec<String>,
    pub coverage: Vec<Vec<bool>>,
    pub live_at_end: usize,
    /// This shard's part of a sharded run (`--shard`), if it is one.
    pub shard: Option<crate::report::ShardInfo>,
    /// The states left when exploration stopped: freed once the check is concluded.
    pub leftover: crate::exec::Leftover,
    /// What the check's verdict rests on (`Summary::assumptions`), set by the check.
    pub assumptions: Vec<String>,
    /// Each side's source lines run over all paths (`Summary::coverage`), set by the check.
    pub line_coverage: Vec<crate::report::SideCoverage>,
    /// A proof for every input the check found besides exploration (`Summary::proof`).
    pub proof: Option<String>,
}

/// What one exploration worker found, handed back when it ends; the first worker's absorbs
/// the others'.
struct WorkerFound {
    stats: crate::exec::ExecStats,
    solver_stats: crate::solver::SolverStats,
    unsupported: Vec<String>,
    coverage: Vec<Vec<bool>>,
    live_at_end: usize,
    /// Its rows, each with its path (branch decisions), in the order made.
    rows: Vec<(Vec<u8>, PathRow)>,
    /// The states it left when exploration stopped.
    leftover: crate::exec::Leftover,
}

impl WorkerFound {
    /// What `ex` found, with the `rows` its driver made (its solver is the caller's to free).
    fn of(ex: &mut Executor<'_>, rows: rows::Rows) -> Self {
        WorkerFound {
            stats: ex.stats.clone(),
            solver_stats: ex.solver.stats(),
            unsupported: ex.unsupported.clone(),
            coverage: ex.coverage.clone(),
            live_at_end: ex.live_at_end,
            rows: rows.into_parts(),
            leftover: std::mem::take(&mut ex.leftover),
        }
    }

    /// Adds what another worker found: counters summed, notes once, coverage joined.
    fn absorb(&mut self, mut other: WorkerFound) {
        self.leftover.append(&mut other.leftover);
        self.stats.add(&other.stats);
        self.solver_stats.add(&other.solver_stats);
        for note in other.unsupported {
            if !self.unsupported.contains(&note) {
                self.unsupported.push(note);
            }
        }
        for (mine, theirs) in self.coverage.iter_mut().zip(other.coverage) {
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m |= t;
            }
        }
        self.live_at_end = self.live_at_end.max(other.live_at_end);
        self.rows.extend(other.rows);
    }
}

/// Frees a worker's solver (its backend's terms, its caches: a large heap after a long
/// run) on a thread of its own, so that the check goes on to its reports at once.
fn free_later(solver: Box<dyn crate::solver::Solver>) {
    std::thread::spawn(move || drop(solver));
}

/// Shard `shard` of a check (`--shard K/N`): expands the exploration tree from
/// `initial` to its frontier (the same in every shard), and returns this shard's frontier
/// states (every N-th in path order, from the K-th) with what its report says of the split.
/// Paths that end before the frontier belong to shard 1: `driver` (which records) sees them
/// there, a driver of its own that records nothing in the others.
fn split<D: RowDriver>(
    ex: &mut Executor<'_>,
    initial: crate::exec::State,
    shard: crate::exec::shard::Shard,
    make_driver: &dyn Fn() -> D,
    driver: &mut record::Recording<'_, '_, D>,
) -> (Vec<crate::exec::State>, crate::report::ShardInfo) {
    let target = shard.frontier_target();
    let frontier = if shard.count == 1 {
        // One shard is the whole run: nothing to split.
        vec![initial]
    } else if shard.index == 0 {
        ex.expand(initial, driver, target)
    } else {
        let mut forget = record::Recording::new(make_driver(), None);
        ex.expand(initial, &mut forget, target)
    };
    let info = crate::report::ShardInfo {
        index: shard.index + 1,
        count: shard.count,
        checks: false,
        frontier: if shard.count == 1 { 0 } else { frontier.len() },
        digest: crate::exec::shard::digest(frontier.iter().map(|s| s.path.as_slice())),
    };
    let mine = frontier
        .into_iter()
        .enumerate()
        .filter(|(i, _)| shard.owns(*i))
        .map(|(_, s)| s)
        .collect();
    (mine, info)
}

/// Explores from `initial` with `ex` and, for `-j N`, N-1 more workers (each with its own
/// solver chain and driver) sharing the pool and the module.
/// Every row is handed to `recorder` (if any) as soon as a worker makes it, and the
/// recorder's reports are rewritten while exploring.
pub(crate) fn explore<'m, D, F>(
    mut ex: Executor<'m>,
    initial: crate::exec::State,
    solver: &SolverConfig,
    make_driver: F,
    recorder: Option<&record::Recorder<'_>>,
) -> Explored
where
    D: RowDriver,
    F: Fn() -> D + Sync,
{
    let jobs = ex.config.jobs.max(1);
    let mut driver = record::Recording::new(make_driver(), recorder);
    let done = record::Done::default();
    let mut shard_info = None;
    // The states the workers share (`-j N`), made once the first states are known.
    let shared = std::sync::OnceLock::new();
    let others = std::thread::scope(|scope| {
        if let Some(recorder) = recorder {
            let done = &done;
            scope.spawn(move || recorder.flush_until(done));
        }
        let states = match ex.config.shard {
            None => vec![initial],
            Some(shard) => {
                let (states, info) = split(&mut ex, initial, shard, &make_driver, &mut driver);
                if let Some(recorder) = recorder {
                    recorder.set_shard(info.clone());
                }
                shard_info = Some(info);
                states
            }
        };
        let mut others = Vec::new();
        if jobs == 1 {
            ex.run_worker(states, &mut driver, None);
        } else {
            let work = shared.get_or_init(|| WorkPool::new(jobs, states));
            let (module, pool, config) = (ex.module, ex.pool, ex.config.clone());
            let handles: Vec<_> = (1..jobs)
                .map(|_| {
                    let (make_driver, config) = (&make_driver, config.clone());
                    let fork_log = ex.fork_log.clone();
                    scope.spawn(move || {
                        let mut ex = Executor::new(module, pool, build_chain(solver), config);
                        ex.fork_log = fork_log;
                        let mut driver = record::Recording::new(make_driver(), recorder);
                        ex.run_worker(Vec::new(), &mut driver, Some(work));
                        let found = WorkerFound::of(&mut ex, driver.inner.into_rows());
                        free_later(ex.solver);
                        found
                    })
                })
                .collect();
            ex.run_worker(Vec::new(), &mut driver, Some(work));
            others = handles
                .into_iter()
                .map(|h| h.join().expect("an exploration worker panicked"))
                .collect::<Vec<_>>();
        }
        done.set();
        others
    });
    let mut found = WorkerFound::of(&mut ex, driver.inner.into_rows());
    free_later(ex.solver);
    for other in others {
        found.absorb(other);
    }
    let WorkerFound {
        stats,
        solver_stats,
        unsupported,
        coverage,
        live_at_end,
        rows: mut keyed,
        leftover,
    } = found;
    // Rows in path order, whatever order the paths were explored in.
    keyed.sort_by(|x, y| x.0.cmp(&y.0));
    parting::mark(&mut keyed, ex.module, &ex.fork_log);
    let mut rows: Vec<PathRow> = keyed
        .into_iter()
        .map(|(key, mut row)| {
            // A shard's rows carry their paths, for `xcheck merge` to order them.
            if shard_info.is_some() {
                row.path = Some(crate::exec::shard::path_text(&key));
            }
            row
        })
        .collect();
    for (i, row) in rows.iter_mut().enumerate() {
        row.id = i + 1;
    }
    Explored {
        shard: shard_info,
        leftover,
        rows,
        stats,
        solver_stats,
        unsupported,
        coverage,
        live_at_end,
        assumptions: Vec::new(),
        line_coverage: Vec::new(),
        proof: None,
    }
}

impl Explored {
    /// The summary of a run whose final rows are `rows`; adds the notes every run has
    /// (states dropped, why exploration stopped) to `notes`.
    pub(crate) fn summary(
        &self,
        title: String,
        rows: &[PathRow],
        mut notes: Vec<String>,
        started: Instant,
    ) -> Summary {
        let stats = &self.stats;
        let complete = stats.stop_reason.is_none() && self.live_at_end == 0;
        if stats.dropped_for_memory > 0 {
            notes.push(format!(
                "{} states were dropped to stay under --max-memory: exploration is incomplete",
                stats.dropped_for_memory
            ));
        }
        if let Some(why) = &stats.stop_reason {
            notes.push(format!(
                "exploration stopped: {why}; {} states were still live",
                self.live_at_end
            ));
        }
        if let Some(info) = &self.shard {
            notes.push(info.note());
        }
        let mut of_rows = Summary::of_rows(title, rows, complete);
        if let Some(proof) = &self.proof {
            of_rows.with_proof(proof, &mut notes);
        }
        if rows.is_empty() && complete {
            if self.shard.is_some() {
                // A shard's part of the tree may hold no path (every path ended before the
                // frontier, or fewer frontier states than shards): nothing in it differs.
                // `xcheck merge` judges the whole run from all the shards' rows.
                of_rows.overall = Overall::Equivalent;
            } else {
                notes.push(
                    "no path reached the end of both sides: nothing was compared, so equivalence is not shown"
                        .to_string(),
                );
            }
        }
        Summary {
            instructions: stats.instructions,
            queries: self.solver_stats.queries,
            solver_time_ms: self.solver_stats.backend_time.as_millis() as u64,
            wall_time_ms: started.elapsed().as_millis() as u64,
            stop_reason: stats.stop_reason.map(|h| h.to_string()),
            assumptions: self.assumptions.clone(),
            coverage: self.line_coverage.clone(),
            notes,
            counters: counters(stats, &self.solver_stats),
            shard: self.shard.clone(),
            ..of_rows
        }
    }
}

/// Runs both sides concretely on the inputs of `ktest` and returns the verdict of that
/// single path (`None` if the replay itself could not finish), with the lines each side ran
/// when `route` asks for them.
pub(crate) fn engine_replay(
    module: &Module,
    check: &FunctionCheck,
    signature: &Signature,
    ktest: &KTest,
    route: bool,
) -> Result<Option<rows::Replayed>> {
    let pool = ExprPool::new();
    let solver = build_chain(&check.solver);
    let mut ex = Executor::new(
        module,
        &pool,
        solver,
        ExecConfig {
            search: crate::exec::SearchKind::Dfs,
            replaying: true,
            undefined_values: undefined_values(ktest),
            ..check.exec.clone()
        },
    );
    let (initial, args) =
        setup::initial_state(&mut ex, signature, setup::Inputs::Concrete(ktest), &[])?;
    let mut driver = verdict::CrossDriver::new(signature, check.compare_buffers, args);
    ex.run(initial, &mut driver);
    Ok(driver.rows.replayed_verdict().map(|mut r| {
        if route {
            r.route = own_lines(module, &ex.coverage, &[Side::A, Side::B]);
        }
        r
    }))
}

/// The values of undefined behaviour a test recorded, in order (`setup::UNDEFINED_OBJECT`).
fn undefined_values(ktest: &KTest) -> Option<Arc<Vec<Vec<u8>>>> {
    let values: Vec<Vec<u8>> = ktest
        .objects
        .iter()
        .filter(|o| o.name.starts_with(setup::UNDEFINED_OBJECT))
        .map(|o| o.bytes.clone())
        .collect();
    (!values.is_empty()).then(|| Arc::new(values))
}

/// Replays a `.ktest` file against a pair and returns the per-side results as text.
pub fn engine_replay_file(
    check: &FunctionCheck,
    ktest_path: &Path,
) -> Result<(PathVerdict, String, String)> {
    let check = &check.engine_ub();
    let ktest = KTest::read(ktest_path)?;
    let module = crate::load::load(
        &check.a_path,
        Some(&check.b_path),
        &check.exec.abstract_calls,
    )?;
    let signature = setup::signature(&module, check)?;
    let pool = ExprPool::new();
    let mut ex = Executor::new(
        &module,
        &pool,
        build_chain(&check.solver),
        ExecConfig {
            replaying: true,
            undefined_values: undefined_values(&ktest),
            ..check.exec.clone()
        },
    );
    let (initial, args) =
        setup::initial_state(&mut ex, &signature, setup::Inputs::Concrete(&ktest), &[])
            .map_err(|e| Error::input(ktest_path, e.to_string()))?;
    let mut driver = verdict::CrossDriver::new(&signature, check.compare_buffers, args);
    ex.run(initial, &mut driver);
    match driver.rows.into_first() {
        Some(row) => Ok((row.verdict, row.result_a, row.result_b)),
        None => Err(Error::input(ktest_path, "replay produced no result")),
    }
}

/// The matched entry points of `check` (both files loaded and linked as a check does),
/// for a native replay that builds its own driver from them.
pub fn signature_of(check: &FunctionCheck) -> Result<Signature> {
    let module = crate::load::load(
        &check.a_path,
        Some(&check.b_path),
        &check.exec.abstract_calls,
    )?;
    setup::signature(&module, check)
}

/// The counters reported with a check: what each layer answered, what reached the backend.
fn counters(stats: &crate::exec::ExecStats, s: &crate::solver::SolverStats) -> Vec<(String, u64)> {
    stats
        .labelled()
        .into_iter()
        // The solver's, the cross-check's only with --cross-check-solver.
        .chain(s.labelled())
        // Only when a query went unanswered in its first try (`--defer-after`).
        .chain(stats.deferral.labelled())
        .map(|(k, v)| (k.to_string(), v))
        // Only with --solver portfolio (named by the solver module).
        .chain(s.portfolio_counters())
        .collect()
}

/// "coverage A: 14/16 lines (88%) in 2 functions": source lines reached on one side, over
/// the functions of that side that ran at all.
fn coverage_note(module: &Module, coverage: &[Vec<bool>], side: Side) -> String {
    let mut all = std::collections::BTreeSet::new();
    let mut reached = std::collections::BTreeSet::new();
    let mut functions = 0;
    for (f, covered) in module.functions.iter().zip(coverage) {
        // The side's own code: musl's math functions linked into it are not.
        if f.side != side || !covered.iter().any(|&c| c) || module.library.contains(&f.name) {
            continue;
        }
        functions += 1;
        for (block, &hit) in f.blocks.iter().zip(covered) {
            for &loc in block.locs.iter().chain(std::iter::once(&block.term_loc)) {
                let text = module.loc(loc);
                if text.ends_with(')') {
                    continue; // No debug location.
                }
                all.insert(loc);
                if hit {
                    reached.insert(loc);
                }
            }
        }
    }
    if all.is_empty() {
        return format!("coverage {side}: no line information (compile with -g)");
    }
    format!(
        "coverage {side}: {}/{} lines ({}%) in {functions} function{}",
        reached.len(),
        all.len(),
        reached.len() * 100 / all.len(),
        if functions == 1 { "" } else { "s" }
    )
}

/// `side`'s line coverage over all paths (`None` without debug information): the lines of
/// the functions of its own code some path entered, as [`coverage_note`] counts them.
fn line_coverage(
    module: &Module,
    coverage: &[Vec<bool>],
    side: Side,
) -> Option<crate::report::SideCoverage> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut files: BTreeMap<String, (BTreeSet<u32>, BTreeSet<u32>)> = BTreeMap::new();
    for (f, covered) in module.functions.iter().zip(coverage) {
        if f.side != side || !covered.iter().any(|&c| c) || module.library.contains(&f.name) {
            continue;
        }
        for (block, &hit) in f.blocks.iter().zip(covered) {
            for &loc in block.locs.iter().chain(std::iter::once(&block.term_loc)) {
                let Some((file, line)) = file_line(module.loc(loc)) else {
                    continue; // No debug location.
                };
                let entry = files.entry(file.to_string()).or_default();
                entry.0.insert(line);
                if hit {
                    entry.1.insert(line);
                }
            }
        }
    }
    (!files.is_empty()).then(|| crate::report::SideCoverage {
        side: side.to_string(),
        files: files
            .into_iter()
            .map(|(file, (lines, reached))| crate::report::FileCoverage {
                path: (module.source_files.iter())
                    .find(|f| f.side == side && f.name == file)
                    .map(|f| f.path.clone()),
                file,
                lines: lines.into_iter().collect(),
                reached: reached.into_iter().collect(),
            })
            .collect(),
    })
}

/// Each of `sides`' line coverage by `coverage` (blocks reached per function): over all
/// paths, or on one replayed test (a `report::Route`).
pub(crate) fn side_lines(
    module: &Module,
    coverage: &[Vec<bool>],
    sides: &[Side],
) -> Vec<crate::report::SideCoverage> {
    (sides.iter())
        .filter_map(|&side| line_coverage(module, coverage, side))
        .collect()
}

/// [`side_lines`] of the program's own code: a whole program's C library (its musl, which
/// would bury a route's lines under `printf`'s) left out.
pub(crate) fn own_lines(
    module: &Module,
    coverage: &[Vec<bool>],
    sides: &[Side],
) -> Vec<crate::report::SideCoverage> {
    let own: Vec<Vec<bool>> = (coverage.iter().enumerate())
        .map(|(i, blocks)| {
            let c_library = module.c_library.get(i).copied().unwrap_or(false);
            blocks.iter().map(|&hit| hit && !c_library).collect()
        })
        .collect();
    side_lines(module, &own, sides)
}

/// The source line of a route where the sides part, from the row's `parts_at`
/// (`B wc.c:123 (wc_main)`, or a library's or the model's branch `…, called from
/// echo.c:40 (main)`): the first of the branch's place and its caller's that is a line with
/// code of the side that took it (of any side for the model's), as the route shows them.
fn route_mark(
    parts_at: &str,
    sides: &[crate::report::SideCoverage],
) -> Option<crate::report::RouteMark> {
    let (who, rest) = parts_at.split_once(' ')?;
    let place = rest.split(' ').next();
    let caller = rest
        .split_once(", called from ")
        .and_then(|(_, c)| c.split(' ').next());
    for loc in [place, caller].into_iter().flatten() {
        let Some((file, line)) = file_line(loc) else {
            continue;
        };
        let found = sides.iter().find(|s| {
            (s.side == who || !matches!(who, "A" | "B" | "C"))
                && (s.files.iter()).any(|f| f.file == file && f.lines.binary_search(&line).is_ok())
        });
        if let Some(side) = found {
            return Some(crate::report::RouteMark {
                side: side.side.clone(),
                file: file.to_string(),
                line,
            });
        }
    }
    None
}

/// The file and line of a debug location's text (`f.c:12`, `f.c:12:7`); `None` for a
/// location without debug information (`(…)`).
pub fn file_line(text: &str) -> Option<(&str, u32)> {
    if text.ends_with(')') {
        return None;
    }
    let numeric = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let (head, last) = text.rsplit_once(':')?;
    let (file, line) = match head.rsplit_once(':') {
        Some((file, line)) if numeric(line) && numeric(last) => (file, line),
        _ => (head, last),
    };
    let line = line.parse().ok().filter(|_| numeric(line))?;
    (!file.is_empty()).then_some((file, line))
}

/// How the functions of two linked modules pair up by name and signature.
#[derive(Clone, Debug, Default)]
pub struct FunctionPairing {
    /// Defined on both sides with the same signature, sorted.
    pub common: Vec<String>,
    /// Defined only in A.
    pub only_a: Vec<String>,
    /// Defined only in B.
    pub only_b: Vec<String>,
    /// Defined on both sides with different signatures: name, A's, B's.
    pub changed: Vec<(String, String, String)>,
}

/// Pairs the externally visible and internal functions both sides define (not the harness's).
pub fn pair_functions(module: &Module) -> FunctionPairing {
    let defined = |side: Side| -> Vec<&crate::ir::Function> {
        let mut v: Vec<_> = module
            .functions
            .iter()
            .filter(|f| f.side == side && !f.is_declaration())
            .filter(|f| !module.library.contains(&f.name))
            .collect();
        v.sort_by(|x, y| x.source_name.cmp(&y.source_name));
        v
    };
    let (a, b) = (defined(Side::A), defined(Side::B));
    let shape = |f: &crate::ir::Function| -> (Vec<(u32, bool)>, Option<u32>, bool, bool) {
        (
            f.params.iter().map(|p| (p.width, p.is_pointer)).collect(),
            f.ret_width,
            f.ret_is_pointer,
            f.is_var_arg,
        )
    };
    let mut out = FunctionPairing::default();
    for fa in &a {
        match b.iter().find(|fb| fb.source_name == fa.source_name) {
            Some(fb) if shape(fa) == shape(fb) && !fa.is_var_arg => {
                out.common.push(fa.source_name.clone())
            }
            Some(fb) => out.changed.push((
                fa.source_name.clone(),
                fa.signature.clone(),
                fb.signature.clone(),
            )),
            None => out.only_a.push(fa.source_name.clone()),
        }
    }
    out.only_b = b
        .iter()
        .filter(|fb| !a.iter().any(|fa| fa.source_name == fb.source_name))
        .map(|f| f.source_name.clone())
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{outcomes, FailOn};
    use crate::report::Overall;

    fn row(verdict: PathVerdict, confirmed: Option<bool>) -> PathRow {
        PathRow {
            confirmed: confirmed.into(),
            ..crate::report::tests::bare_row(1, verdict)
        }
    }

    #[test]
    fn debug_locations_give_file_and_line() {
        assert_eq!(file_line("f.c:12"), Some(("f.c", 12)));
        assert_eq!(file_line("abs.c:3:9"), Some(("abs.c", 3)));
        assert_eq!(file_line("f()"), None);
        assert_eq!(file_line(":3"), None);
        assert_eq!(file_line("f.c:x"), None);
    }

    #[test]
    fn replay_ends_early_enough_to_write_the_report_again() {
        let stop = crate::stop::Stop::new();
        let limit = Instant::now() + std::time::Duration::from_secs(60);
        stop.set_deadline(limit);
        reserve_for_reports(&stop, std::time::Duration::from_secs(4));
        // The writing, half as much again, and the exit allowance.
        assert_eq!(
            stop.deadline()
                .map(|d| (limit.duration_since(d).as_secs_f64() * 10.0).round()),
            Some(63.0)
        );
        // A writing longer than the time left stops replay at once.
        reserve_for_reports(&stop, std::time::Duration::from_secs(3600));
        assert!(stop.should_stop());
        // Without a limit there is nothing to move.
        let free = crate::stop::Stop::new();
        reserve_for_reports(&free, std::time::Duration::from_secs(3));
        assert_eq!(free.deadline(), None);
    }

    fn summarize(rows: &[PathRow]) -> Summary {
        let explored = Explored {
            rows: Vec::new(),
            stats: Default::default(),
            solver_stats: Default::default(),
            unsupported: Vec::new(),
            coverage: Vec::new(),
            live_at_end: 0,
            shard: None,
            leftover: Default::default(),
            assumptions: Vec::new(),
            line_coverage: Vec::new(),
            proof: None,
        };
        explored.summary("t".into(), rows, Vec::new(), Instant::now())
    }

    // See: #10, wrong verdict 5: a divergence that replay does not reproduce never makes
    // the run NOT EQUIVALENT (exit 1); it leaves it inconclusive.
    #[test]
    fn unconfirmed_differences_are_not_divergences() {
        for verdict in [PathVerdict::Diverged, PathVerdict::ErrorOne] {
            for confirmed in [Some(false), None] {
                let rows = [
                    row(PathVerdict::Proved, None),
                    row(verdict.clone(), confirmed),
                ];
                let s = summarize(&rows);
                assert_eq!(
                    s.overall,
                    Overall::Inconclusive,
                    "{verdict:?} {confirmed:?}"
                );
                assert_eq!((s.diverged, s.errors_one, s.unconfirmed), (0, 0, 1));
                let report = Report {
                    summary: s,
                    rows: rows.to_vec(),
                };
                assert_eq!(outcomes(&report), vec![FailOn::Unknown]);
            }
            let rows = [row(verdict.clone(), Some(true)), row(verdict, Some(false))];
            let s = summarize(&rows);
            assert_eq!(s.overall, Overall::Diverged);
            assert_eq!(s.unconfirmed, 1);
        }
    }
}
