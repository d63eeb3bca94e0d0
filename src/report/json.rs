//! `--json`: one schema for every mode. Each check prints one line (JSON Lines) with the same
//! fields, whatever the mode: a function check, a whole-program check, each function of a
//! gate run (`--all-functions`, `--config`) and `xcheck run`. The schema is documented in
//! `docs/json.md`; [`SCHEMA_VERSION`] changes when a field is removed or changes meaning.

use crate::report::schema;
use crate::report::{Overall, Report, Summary};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The version of the `--json` schema (field `schema` of every line).
pub const SCHEMA_VERSION: u32 = 1;

/// What kind of run printed a line.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// `xcheck A B --function f`.
    Function,
    /// `xcheck A B` (whole programs).
    Program,
    /// One function of `--all-functions` or `--config`.
    Gate,
    /// `xcheck run HARNESS`.
    Run,
}

/// What `xcheck run` found (field `run` of its line).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RunResult {
    /// Paths that ended.
    pub completed: usize,
    /// The errors found, each with its test.
    pub errors: Vec<RunError>,
    /// Why paths were left undecided.
    pub unknown: Vec<String>,
    /// Tests written.
    pub tests: usize,
    pub instructions: u64,
    /// Whether every path was explored.
    pub complete: bool,
    pub stop_reason: Option<String>,
}

/// One error `xcheck run` found.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RunError {
    pub test: PathBuf,
    pub what: String,
}

/// One line of `--json` output (see the module documentation).
#[derive(Clone, Debug, Serialize)]
pub struct JsonLine<'a> {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    pub mode: Mode,
    /// The pair of a `--config` file, from 1 (1 for other modes).
    pub pair: usize,
    /// `f`, or `f=g` when the names differ; null for programs and `run`.
    pub function: Option<String>,
    /// Side A's file (the harness of `run`).
    pub a: String,
    /// Side B's file; null for `run`.
    pub b: Option<String>,
    /// `equivalent`, `diverged`, `inconclusive`, or `error` when the check could not run;
    /// for `run`: `complete` (no error on any path), `errors_found`, `inconclusive`.
    pub verdict: &'static str,
    /// Whether the outcome fails the run (the `--fail-on` policy, else any verdict but
    /// `equivalent`/`complete`).
    pub failed: bool,
    /// Why the check could not run (verdict `error`).
    pub error: Option<&'a str>,
    /// The note of a function in a `--config` file.
    pub note: Option<&'a str>,
    /// Where the check's tests and reports are.
    pub out_dir: String,
    /// The report's summary, as in `report.json` (null for `run` and errors).
    pub summary: Option<schema::Summary>,
    /// What `xcheck run` found (null for the other modes).
    pub run: Option<&'a RunResult>,
}

/// The verdict word of a check's outcome.
fn verdict_of(summary: Option<&Summary>) -> &'static str {
    match summary.map(|s| s.overall) {
        Some(Overall::Equivalent) => "equivalent",
        Some(Overall::Diverged) => "diverged",
        Some(Overall::Inconclusive) => "inconclusive",
        None => "error",
    }
}

impl<'a> JsonLine<'a> {
    /// The line of one check: its report, or why it could not run.
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        mode: Mode,
        pair: usize,
        function: Option<String>,
        (a, b): (&Path, &Path),
        out_dir: &Path,
        outcome: Result<&'a Report, &'a str>,
        failed: bool,
        note: Option<&'a str>,
    ) -> Self {
        let summary = outcome.ok().map(|r| &r.summary);
        JsonLine {
            schema: SCHEMA_VERSION,
            mode,
            pair,
            function,
            a: a.display().to_string(),
            b: Some(b.display().to_string()),
            verdict: verdict_of(summary),
            failed,
            error: outcome.err(),
            note,
            out_dir: out_dir.display().to_string(),
            summary: summary.map(schema::Summary::from),
            run: None,
        }
    }

    /// The line of `xcheck run`.
    pub fn run(program: &Path, out_dir: &Path, run: &'a RunResult, exit_code: i32) -> Self {
        JsonLine {
            schema: SCHEMA_VERSION,
            mode: Mode::Run,
            pair: 1,
            function: None,
            a: program.display().to_string(),
            b: None,
            verdict: match exit_code {
                0 => "complete",
                1 => "errors_found",
                _ => "inconclusive",
            },
            failed: exit_code != 0,
            error: None,
            note: None,
            out_dir: out_dir.display().to_string(),
            summary: None,
            run: Some(run),
        }
    }

    /// The line as text (no newline).
    pub fn render(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_has_the_same_fields() {
        let report = crate::report::tests::sample_report();
        let (a, b, out) = (Path::new("a.bc"), Path::new("b.bc"), Path::new("out"));
        let run = RunResult {
            completed: 2,
            errors: vec![RunError {
                test: "out/test000001.ktest".into(),
                what: "division by zero".into(),
            }],
            unknown: vec![],
            tests: 2,
            instructions: 10,
            complete: true,
            stop_reason: None,
        };
        let lines = [
            JsonLine::check(
                Mode::Function,
                1,
                Some("f".into()),
                (a, b),
                out,
                Ok(&report),
                true,
                None,
            ),
            JsonLine::check(Mode::Program, 1, None, (a, b), out, Ok(&report), true, None),
            JsonLine::check(
                Mode::Gate,
                2,
                Some("f=g".into()),
                (a, b),
                out,
                Err("no function 'g' in b.bc"),
                true,
                Some("known"),
            ),
            JsonLine::run(a, out, &run, 1),
        ];
        let keys = |l: &JsonLine| -> Vec<String> {
            let v: serde_json::Value = serde_json::from_str(&l.render()).unwrap();
            assert_eq!(v["schema"], SCHEMA_VERSION);
            v.as_object().unwrap().keys().cloned().collect()
        };
        let first = keys(&lines[0]);
        for l in &lines {
            assert_eq!(keys(l), first);
        }
        let v: serde_json::Value = serde_json::from_str(&lines[2].render()).unwrap();
        assert_eq!(v["verdict"], "error");
        assert_eq!(v["summary"], serde_json::Value::Null);
        let v: serde_json::Value = serde_json::from_str(&lines[3].render()).unwrap();
        assert_eq!(v["verdict"], "errors_found");
        assert_eq!(v["run"]["errors"][0]["what"], "division by zero");
    }
}
