//! Regression gating: many function pairs checked at once, in parallel, with a policy that
//! decides which outcomes fail the run (`--all-functions`, `--config`, `--fail-on`).
//!
//! Each module pair is loaded and linked once; its function checks run on all cores (each
//! with its own expression pool and solver), and their reports are gathered in a fixed
//! order, so the output does not depend on which check finished first.

use crate::config::{fails, FailOn};
use crate::crosscheck::{check_loaded, pair_functions, FunctionCheck};
use crate::error::{Error, Result};
use crate::ir::Module;
use crate::report::{Overall, Report};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One function pair to check, with how its outcome is judged.
#[derive(Clone, Debug)]
pub struct Job {
    pub check: FunctionCheck,
    /// An outcome that does not fail the run for this function.
    pub accept: Option<FailOn>,
    pub note: Option<String>,
}

impl Job {
    /// `f`, or `f=g` when the names differ.
    pub fn label(&self) -> String {
        if self.check.a_name == self.check.b_name {
            self.check.a_name.clone()
        } else {
            format!("{}={}", self.check.a_name, self.check.b_name)
        }
    }
}

/// The result of one job.
pub struct JobResult {
    pub job: Job,
    /// The report, or why the check could not run (a missing function, a bad precondition).
    pub outcome: std::result::Result<Report, String>,
    /// Whether the policy fails the run on this result.
    pub failed: bool,
}

/// A function left out, and why.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Skipped {
    pub function: String,
    pub reason: String,
}

/// The functions two modules have in common, filtered by glob patterns, and those left out.
pub fn select_functions(
    module: &Module,
    include: &[String],
    exclude: &[String],
) -> (Vec<String>, Vec<Skipped>) {
    let pairing = pair_functions(module);
    let mut skipped = Vec::new();
    for f in &pairing.only_a {
        skipped.push(Skipped {
            function: f.clone(),
            reason: "defined only in A".into(),
        });
    }
    for f in &pairing.only_b {
        skipped.push(Skipped {
            function: f.clone(),
            reason: "defined only in B".into(),
        });
    }
    for (f, a, b) in &pairing.changed {
        skipped.push(Skipped {
            function: f.clone(),
            reason: format!("signature changed: {a} → {b}"),
        });
    }
    let mut selected = Vec::new();
    for f in pairing.common {
        let id = module
            .function_on_side(crate::ir::Side::A, &f)
            .expect("paired functions exist");
        let func = module.function(id);
        let unsupported = func.params.iter().any(|p| p.width == 0) || func.ret_width == Some(0);
        let included =
            include.is_empty() || include.iter().any(|g| crate::config::glob_match(g, &f));
        let excluded = exclude.iter().any(|g| crate::config::glob_match(g, &f));
        if !included || excluded {
            continue;
        }
        if unsupported {
            skipped.push(Skipped {
                function: f,
                reason:
                    "a parameter or the result has an unsupported type (floating point, vector)"
                        .into(),
            });
        } else {
            selected.push(f);
        }
    }
    (selected, skipped)
}

/// Runs `jobs` (all on `module`) in parallel; each writes to its own `out_dir`.
pub fn run_jobs(module: &Module, jobs: Vec<Job>, fail_on: &[FailOn]) -> Vec<JobResult> {
    jobs.into_par_iter()
        .map(|job| {
            let outcome = check_loaded(module, &job.check, Instant::now())
                .map(|o| o.report)
                .map_err(|e| e.to_string());
            let failed = match &outcome {
                Ok(report) => fails(report, fail_on, job.accept),
                Err(_) => true,
            };
            JobResult {
                job,
                outcome,
                failed,
            }
        })
        .collect()
}

/// A directory name for a job's results.
pub fn job_dir(base: &Path, pair_index: Option<usize>, label: &str) -> PathBuf {
    let clean: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match pair_index {
        Some(i) => base.join(format!("pair{}", i + 1)).join(clean),
        None => base.join(clean),
    }
}

/// One line of `--json` output: the job, and its report's summary fields when it ran.
#[derive(Serialize)]
pub struct JsonLine<'a> {
    pub pair: usize,
    pub function: String,
    /// `equivalent`, `diverged`, `inconclusive`, or `error` when the check could not run.
    pub verdict: &'a str,
    pub failed: bool,
    pub error: Option<&'a str>,
    pub note: Option<&'a str>,
    pub out_dir: String,
    #[serde(flatten)]
    pub summary: Option<&'a crate::report::Summary>,
}

pub fn json_line(pair: usize, r: &JobResult) -> String {
    let summary = r.outcome.as_ref().ok().map(|report| &report.summary);
    let verdict = match summary.map(|s| s.overall) {
        Some(Overall::Equivalent) => "equivalent",
        Some(Overall::Diverged) => "diverged",
        Some(Overall::Inconclusive) => "inconclusive",
        None => "error",
    };
    let line = JsonLine {
        pair,
        function: r.job.label(),
        verdict,
        failed: r.failed,
        error: r.outcome.as_ref().err().map(String::as_str),
        note: r.job.note.as_deref(),
        out_dir: r.job.check.out_dir.display().to_string(),
        summary,
    };
    serde_json::to_string(&line).unwrap_or_default()
}

/// The gate's table: one row per function, then the functions left out.
pub fn render_gate_table(title: &str, results: &[JobResult], skipped: &[Skipped]) -> String {
    let mut rows: Vec<[String; 8]> = vec![[
        "function".into(),
        "verdict".into(),
        "paths".into(),
        "proved".into(),
        "diverged".into(),
        "unknown".into(),
        "time".into(),
        "gate".into(),
    ]];
    for r in results {
        let gate = if r.failed {
            "FAIL"
        } else if r.job.accept.is_some() && r.outcome.is_ok() {
            "pass (accepted)"
        } else {
            "pass"
        };
        let row = match &r.outcome {
            Ok(rep) => {
                let s = &rep.summary;
                [
                    r.job.label(),
                    s.overall.to_string(),
                    s.paths.to_string(),
                    s.proved.to_string(),
                    (s.diverged + s.errors_one).to_string(),
                    s.unknown.to_string(),
                    crate::report::format_ms(s.wall_time_ms),
                    gate.to_string(),
                ]
            }
            Err(e) => [
                r.job.label(),
                format!("ERROR: {e}"),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
                gate.to_string(),
            ],
        };
        rows.push(row);
    }
    let widths: Vec<usize> = (0..8)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = format!("{title}\n\n");
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&rule.join("  "));
            out.push('\n');
        }
    }
    if !skipped.is_empty() {
        out.push_str("\nNot checked:\n");
        for s in skipped {
            out.push_str(&format!("  {}: {}\n", s.function, s.reason));
        }
    }
    let failed = results.iter().filter(|r| r.failed).count();
    out.push_str(&format!(
        "\n{} checked, {} failed the gate, {} not checked\n",
        results.len(),
        failed,
        skipped.len()
    ));
    out
}

/// Loads a pair of modules for gating.
pub fn load_pair(a: &Path, b: &Path) -> Result<Module> {
    crate::load::load(a, Some(b))
}

/// An error when filters leave nothing to check.
pub fn nothing_to_check(include: &[String], exclude: &[String]) -> Error {
    Error::Usage(format!(
        "no function left to check (include: [{}], exclude: [{}])",
        include.join(", "),
        exclude.join(", ")
    ))
}
