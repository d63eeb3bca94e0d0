//! Native confirmation of a library run's differences: a function whose check found a
//! difference that concrete replay confirmed is compiled from both builds' bitcode into one
//! native driver (`native::function`: every symbol of each build renamed apart, the
//! function called with the test's bytes), and the written test of each difference row is
//! run on it, both sides in their own processes.
//!
//! A library run counts a difference only when the machine shows it: a function is NOT
//! EQUIVALENT when at least one of its difference rows is reproduced natively. A row the
//! executables run without reproducing it is unconfirmed (as in every check). When no row
//! of the function could be run natively (the signature has no native form, a build or link
//! failed, no test was written, time), its differences are turned into unknown rows that
//! say so, and the function is inconclusive: an unconfirmed difference never fails the gate.

use crate::config::FailOn;
use crate::gate::JobResult;
use crate::ir::Module;
use crate::ktest::KTest;
use crate::report::{NativeReplay, PathVerdict, Report, Summary};
use std::time::Duration;

/// What a difference row turned unknown says.
pub const NOT_NATIVELY: &str = "confirmed by concrete replay, not natively";

/// The start of the note of a function none of whose differences could run natively.
const NOT_RUN_NOTE: &str =
    "xcheck lib: its differences were confirmed by concrete replay but could not run natively (";

/// How long one side of one test may run natively.
const TIMEOUT: Duration = Duration::from_secs(10);

/// What a function's native replay showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Native {
    /// No difference to confirm.
    Nothing,
    /// `reproduced` of `ran` difference rows reproduced natively (of `rows` in all).
    Ran {
        reproduced: usize,
        ran: usize,
        rows: usize,
    },
    /// None could run, and why.
    NotRun(String),
}

impl Native {
    /// The table's cell.
    pub fn label(&self) -> String {
        match self {
            Native::Nothing => String::new(),
            Native::Ran { reproduced: 0, .. } => "NOT reproduced natively".into(),
            Native::Ran {
                reproduced,
                ran,
                rows,
            } if ran == rows => format!("confirmed natively ({reproduced} of {ran} rows)"),
            Native::Ran {
                reproduced,
                ran,
                rows,
            } => format!(
                "confirmed natively ({reproduced} of {ran} rows run; {} without a written test)",
                rows - ran
            ),
            Native::NotRun(why) => format!("not confirmed natively: {why}"),
        }
    }
}

/// The note a report carries about its native replay.
fn note(native: &Native) -> Option<String> {
    match native {
        Native::Nothing => None,
        Native::Ran { .. } => Some(format!(
            "xcheck lib: {} on both builds' native code (clang-19, the tests' bytes as the check's parameters)",
            native.label()
        )),
        Native::NotRun(why) => Some(format!(
            "{NOT_RUN_NOTE}{why}); a library run counts only natively confirmed differences, so they are unknown here"
        )),
    }
}

/// Runs the difference rows of `result` natively (its report's rows and summary updated,
/// and whether the policy fails it) and says what it showed.
pub fn confirm(module: &Module, result: &mut JobResult, fail_on: &[FailOn]) -> Native {
    let Ok(report) = &mut result.outcome else {
        return Native::Nothing;
    };
    let rows: Vec<usize> = (0..report.rows.len())
        .filter(|&i| {
            let r = &report.rows[i];
            r.verdict.is_difference() && r.confirmed.is_confirmed()
        })
        .collect();
    if rows.is_empty() {
        return Native::Nothing;
    }
    let check = &result.job.check;
    let native = match run_rows(module, check, report, &rows) {
        Ok((reproduced, ran)) if ran > 0 => Native::Ran {
            reproduced,
            ran,
            rows: rows.len(),
        },
        Ok(_) => Native::NotRun("no difference row has a written test".into()),
        Err(why) => Native::NotRun(why),
    };
    if let Native::NotRun(why) = &native {
        for &i in &rows {
            let row = &mut report.rows[i];
            row.detail = format!("{} ({NOT_NATIVELY}: {why})", row.detail);
            row.verdict = PathVerdict::Unknown;
        }
    }
    recount(report);
    report.summary.notes.extend(note(&native));
    result.failed = crate::config::fails(report, fail_on, result.job.accept);
    // The check's own reports (report.json, summary.md…) say what native replay showed.
    if let Err(e) = crate::crosscheck::write_reports(&check.out_dir, report) {
        report
            .summary
            .notes
            .push(format!("xcheck lib: the reports were not rewritten: {e}"));
    }
    native
}

/// Builds the function's native driver and runs the rows' written tests on it: how many
/// reproduced and how many ran; an error says why nothing could run.
fn run_rows(
    module: &Module,
    check: &crate::crosscheck::FunctionCheck,
    report: &mut Report,
    rows: &[usize],
) -> Result<(usize, usize), String> {
    use crate::native::function;
    let sig = crate::crosscheck::signature(module, check).map_err(|e| e.to_string())?;
    function::supported(&sig).map_err(|u| u.to_string())?;
    let tests: Vec<(usize, std::path::PathBuf)> = rows
        .iter()
        .filter_map(|&i| {
            let name = report.rows[i].ktest.as_ref()?;
            let path = check.out_dir.join(name);
            path.is_file().then_some((i, path))
        })
        .collect();
    if tests.is_empty() {
        return Ok((0, 0));
    }
    let build = function::build(
        (&check.a_path, &check.a_name),
        (&check.b_path, &check.b_name),
        &sig,
        check.compare_buffers,
    )
    .map_err(|e| e.to_string())?;
    let stop = check.exec.stop.after(TIMEOUT * 2);
    let (mut reproduced, mut ran) = (0, 0);
    let mut first_error = None;
    for (i, path) in tests {
        let outcome = KTest::read(&path).map_err(|e| e.to_string()).and_then(|t| {
            build
                .run(&path, &t, TIMEOUT, &stop)
                .map_err(|e| e.to_string())
        });
        match outcome {
            Ok(run) if !timed_out(&run) => {
                ran += 1;
                reproduced += usize::from(run.differ);
                report.rows[i].native = NativeReplay::of(run.differ);
            }
            Ok(_) => first_error = first_error.or(Some("a side ran out of time".to_string())),
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    match (ran, first_error) {
        (0, Some(e)) => Err(e),
        _ => Ok((reproduced, ran)),
    }
}

fn timed_out(run: &crate::native::function::FnRun) -> bool {
    use crate::native::function::FnEnd;
    run.a == FnEnd::TimedOut || run.b == FnEnd::TimedOut
}

/// The summary's counts and verdict from the rows again, the rest of it kept.
fn recount(report: &mut Report) {
    let s = &report.summary;
    let fresh = Summary::of_rows(s.title.clone(), &report.rows, s.complete);
    let s = &mut report.summary;
    s.overall = match (fresh.overall, s.proof.is_some()) {
        // A proof for every input stands unless a confirmed difference contradicts it.
        (crate::report::Overall::Inconclusive, true) => s.overall,
        (o, _) => o,
    };
    s.diverged = fresh.diverged;
    s.errors_one = fresh.errors_one;
    s.unconfirmed = fresh.unconfirmed;
    s.not_replayed = fresh.not_replayed;
    s.unknown = fresh.unknown;
    s.classes = fresh.classes;
}

/// What native replay showed of a function's report (explored now or reused from the
/// cache), for the table's `native` column: empty when it had no difference to confirm.
pub fn cell(report: &Report) -> String {
    let differences = || report.rows.iter().filter(|r| r.verdict.is_difference());
    let rows = differences().count();
    if rows > 0 {
        let ran = differences().filter(|r| !r.native.is_not_run()).count();
        let reproduced = differences()
            .filter(|r| r.native == NativeReplay::Reproduced)
            .count();
        if ran == 0 {
            return "not run natively".into();
        }
        return Native::Ran {
            reproduced,
            ran,
            rows,
        }
        .label();
    }
    report
        .summary
        .notes
        .iter()
        .find_map(|n| n.strip_prefix(NOT_RUN_NOTE))
        .and_then(|rest| rest.split_once("); a library run"))
        .map(|(why, _)| Native::NotRun(why.to_string()).label())
        .unwrap_or_default()
}
