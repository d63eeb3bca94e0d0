//! `xcheck replay`: which tests a replay runs (one file, or a directory's tests checked
//! against its `report.json`), and the native replay of one whole-program test against
//! what the engine reported for it. Printing is `report/console.rs`'s.

use crate::crosscheck::program::Compare;
use crate::crosscheck::{FunctionCheck, NativeDiffer, NativeFunctions, NativeRunner, Signature};
use crate::error::{Error, Result};
use crate::ktest::KTest;
use crate::native::{NativeEnv, NativeRun, ReplayError};
use crate::report::{Agreement, NativeReplay, PathVerdict};
use crate::stop::Stop;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The tests named by a replay command: one file, or every `.ktest` of a directory (which
/// must hold every test its `report.json` lists).
pub fn tests_of(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| Error::input(path, format!("cannot read directory: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ktest"))
        .collect();
    v.sort();
    let report = path.join("report.json");
    if report.exists() {
        let listed = report_tests(&report)?;
        let missing: Vec<&String> = listed.iter().filter(|n| !path.join(n).exists()).collect();
        if let Some(first) = missing.first() {
            return Err(Error::input(
                &report,
                format!(
                    "lists {} test{} missing from the directory (first: {first})",
                    missing.len(),
                    if missing.len() == 1 { "" } else { "s" }
                ),
            ));
        }
    }
    if v.is_empty() && !report.exists() {
        return Err(Error::input(
            path,
            "contains neither .ktest files nor a report.json",
        ));
    }
    Ok(v)
}

/// The names of the tests that `report.json` lists, for any row.
fn report_tests(report: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(report)
        .map_err(|e| Error::input(report, format!("cannot read: {e}")))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::input(report, format!("not a report: {e}")))?;
    let rows = json
        .get("rows")
        .and_then(|r| r.as_array())
        .ok_or_else(|| Error::input(report, "not a report: no 'rows' list"))?;
    Ok(rows
        .iter()
        .filter_map(|r| r.get("ktest").and_then(|k| k.as_str()).map(String::from))
        .collect())
}

/// The names of the tests that the `report.json` beside `test` (a test or a directory)
/// lists for rows that differ; `None` without a readable report.
pub fn divergent_tests(test: &Path) -> Option<BTreeSet<String>> {
    let dir = if test.is_dir() {
        test.to_path_buf()
    } else {
        test.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let report = dir.join("report.json");
    let limit = crate::input::MAX_REPORT_BYTES;
    let text = crate::input::read_text_limited(&report, limit, "reports").ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let rows = json.get("rows")?.as_array()?;
    Some(
        rows.iter()
            .filter(|r| {
                matches!(
                    r.get("verdict").and_then(|v| v.as_str()),
                    Some("diverged") | Some("error_one")
                )
            })
            .filter_map(|r| r.get("ktest").and_then(|k| k.as_str()).map(String::from))
            .collect(),
    )
}

/// What the native replay of one test showed.
pub enum NativeOutcome {
    /// The test cannot run natively (failure injection, a missing object…).
    Impossible { why: ReplayError, divergent: bool },
    /// Both binaries ran.
    Ran {
        env: Box<NativeEnv>,
        a: NativeRun,
        b: NativeRun,
        /// Whether the engine reported the test as a divergence.
        divergent: bool,
        /// Whether the runs differ in what `compare` looks at.
        differ: bool,
    },
}

impl NativeOutcome {
    /// Whether the native runs agree with the engine's verdict (a test that cannot run
    /// agrees only when the engine did not call it a divergence).
    pub fn as_engine_said(&self) -> bool {
        match self {
            NativeOutcome::Impossible { divergent, .. } => !divergent,
            NativeOutcome::Ran {
                divergent, differ, ..
            } => divergent == differ,
        }
    }
}

/// How a program check runs a test on its native executables (two, or three for a
/// three-way check): all run on the test's environment; two are judged by
/// [`native_agrees`], three must agree as the engine's row says (`C differs`…).
pub fn native_runner(compare: Compare) -> NativeRunner {
    NativeRunner(Arc::new(
        move |ktest: &KTest,
              verdict: PathVerdict,
              agreement: Option<Agreement>,
              timeout: Duration,
              stop: &Stop,
              bins: &[PathBuf]| {
            NativeReplay::from(native_answer(
                ktest, verdict, agreement, timeout, stop, bins, compare,
            ))
        },
    ))
}

/// How a function check runs the tests of rows resting on one side's undefined behaviour:
/// both sides compiled from their bitcode into one native driver (`native/function.rs`),
/// built once per check that has such a row; whether the sides' ends differ on a test.
pub fn native_functions() -> NativeFunctions {
    NativeFunctions(Arc::new(|check: &FunctionCheck, sig: &Signature| {
        use crate::native::function;
        function::supported(sig).map_err(|u| u.to_string())?;
        let build = function::build(
            (&check.a_path, &check.a_name),
            (&check.b_path, &check.b_name),
            sig,
            check.compare_buffers,
        )
        .map_err(|e| e.to_string())?;
        // Run twice: what undefined behaviour leaves in a register may be an address,
        // another in every process; a side that ends otherwise the second time shows no
        // difference of the pair's.
        let run = move |ktest: &KTest, timeout: Duration, stop: &Stop| -> Option<bool> {
            let first = build.run(Path::new("test"), ktest, timeout, stop).ok()?;
            let again = build.run(Path::new("test"), ktest, timeout, stop).ok()?;
            let timed_out = |end: &function::FnEnd| *end == function::FnEnd::TimedOut;
            let steady = first.a == again.a && first.b == again.b;
            (steady && !timed_out(&first.a) && !timed_out(&first.b)).then_some(first.differ)
        };
        Ok(Box::new(run) as Box<NativeDiffer>)
    }))
}

/// Whether the native executables `bins` do on `ktest` what the engine said of it (its
/// `verdict`, and for three its `agreement`); `None` when they cannot run it in `timeout`.
fn native_answer(
    ktest: &KTest,
    verdict: PathVerdict,
    agreement: Option<Agreement>,
    timeout: Duration,
    stop: &Stop,
    bins: &[PathBuf],
    compare: Compare,
) -> Option<bool> {
    let env = crate::native::env_of(ktest).ok()?;
    // One side out of time decides: the others are not run (each would wait as
    // long again past the check's limit).
    let mut runs = Vec::with_capacity(bins.len());
    for bin in bins {
        let run = crate::native::run_native(bin, &env, timeout, stop).ok()?;
        if run.timed_out {
            return None;
        }
        runs.push(run);
    }
    Some(match runs.as_slice() {
        [a, b] => native_agrees(a, b, compare, verdict),
        _ if verdict == PathVerdict::ErrorBoth => runs
            .iter()
            .all(|r| r.signal.is_some() && !crate::native::differ(r, &runs[0], compare)),
        _ => agreement == Some(agreement_of_runs(&runs, compare)),
    })
}

/// Whether two native runs show what the engine said of a test: a difference when they
/// differ; failures of both sides when both were killed, by the same signal.
pub fn native_agrees(a: &NativeRun, b: &NativeRun, compare: Compare, verdict: PathVerdict) -> bool {
    let differ = crate::native::differ(a, b, compare);
    match verdict {
        PathVerdict::ErrorBoth => !differ && a.signal.is_some() && b.signal.is_some(),
        _ => differ,
    }
}

/// Runs binaries `a` and `b` on the test at `path` (each at most `timeout`, and until
/// `stop` says to stop); `divergent` says whether the engine
/// reported it as a divergence.
pub fn native_replay_pair(
    path: &Path,
    (a, b): (&Path, &Path),
    compare: Compare,
    timeout: Duration,
    stop: &Stop,
    divergent: bool,
) -> Result<NativeOutcome> {
    let ktest = KTest::read(path)?;
    let env = match crate::native::env_of(&ktest) {
        Ok(env) => env,
        Err(why) => return Ok(NativeOutcome::Impossible { why, divergent }),
    };
    let run = |bin: &Path| {
        crate::native::run_native(bin, &env, timeout, stop)
            .map_err(|e| Error::input(bin, format!("cannot run: {e}")))
    };
    let (ra, rb) = (run(a)?, run(b)?);
    let differ = crate::native::differ(&ra, &rb, compare);
    Ok(NativeOutcome::Ran {
        env: Box::new(env),
        a: ra,
        b: rb,
        divergent,
        differ,
    })
}

/// Which of three native runs agree (`C differs`…).
fn agreement_of_runs(runs: &[NativeRun], compare: Compare) -> Agreement {
    let same = |x: usize, y: usize| !crate::native::differ(&runs[x], &runs[y], compare);
    Agreement::of(same(0, 1), same(0, 2), same(1, 2))
}

/// What the native replay of a three-way test showed.
pub struct NativeThree {
    pub env: NativeEnv,
    pub runs: Vec<NativeRun>,
    /// Which sides agree natively.
    pub agreement: Agreement,
}

/// Runs the three binaries `bins` (A, B, C) on the test at `path`: `Err` of the reason when
/// the test cannot run natively.
pub fn native_replay_three(
    path: &Path,
    bins: &[PathBuf],
    compare: Compare,
    timeout: Duration,
    stop: &Stop,
) -> Result<std::result::Result<NativeThree, ReplayError>> {
    let ktest = KTest::read(path)?;
    let env = match crate::native::env_of(&ktest) {
        Ok(env) => env,
        Err(why) => return Ok(Err(why)),
    };
    let runs = bins
        .iter()
        .map(|bin| {
            crate::native::run_native(bin, &env, timeout, stop)
                .map_err(|e| Error::input(bin, format!("cannot run: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let agreement = agreement_of_runs(&runs, compare);
    Ok(Ok(NativeThree {
        env,
        runs,
        agreement,
    }))
}

/// Which sides agree on each test, by test name, as the `report.json` beside `test` (a
/// test or a directory) says for a three-way check's rows; `None` without a readable report.
pub fn three_way_agreements(test: &Path) -> Option<std::collections::HashMap<String, Agreement>> {
    let dir = if test.is_dir() {
        test.to_path_buf()
    } else {
        test.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let limit = crate::input::MAX_REPORT_BYTES;
    let text = crate::input::read_text_limited(&dir.join("report.json"), limit, "reports").ok()?;
    let report = crate::report::schema::parse(&text).ok()?;
    Some(
        report
            .rows
            .into_iter()
            .filter_map(|r| Some((r.ktest?, r.three?.agreement)))
            .collect(),
    )
}
