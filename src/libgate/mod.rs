//! Whole libraries, version against version (`xcheck lib OLD NEW`): the gate's function
//! checks, with a fast path for functions whose IR did not change and a cache of results.
//!
//! Each exported function both builds define with the same signature is one gate job
//! (`gate::select_functions` pairs them and names the functions left out). Before a job
//! runs:
//! 1. if the function is identical up to renaming in both builds, with everything it
//!    reaches (`identical.rs` states the rule), it is proved without exploring;
//! 2. else, with `--cache DIR`, a result stored for the same normalised IR of both sides
//!    (everything each reaches) and the same options is reused;
//! 3. else it is explored, in parallel with the others, and its result stored.
//!
//! The results are the gate's `JobResult`s, so the gate's table, `summary.md`,
//! `report.html`, JUnit and `--json` writers serve them unchanged; how each was reached
//! ([`How`]) is in the job's note and in the report's notes.

mod cache;
pub mod identical;

use crate::config::FailOn;
use crate::gate::{Job, JobResult, Skipped};
use crate::ir::Module;
use crate::report::{Overall, Report, Summary};
use identical::Listing;
use std::path::{Path, PathBuf};

/// How a function's result was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// Its IR, and that of everything it reaches, is identical up to renaming.
    IdenticalIr,
    /// Explored now.
    Explored,
    /// Reused from the cache (explored by an earlier run).
    Cached,
}

impl How {
    pub fn label(self) -> &'static str {
        match self {
            How::IdenticalIr => "identical IR",
            How::Explored => "explored",
            How::Cached => "cached",
        }
    }
}

/// The rule of the fast path, as the report states it.
pub const IDENTICAL_RULE: &str = "proved by identical IR: the function and everything it reaches (callees, globals with their initialisers, aliases) are the same LLVM IR in both builds after dropping debug information and comments, renaming local values, inlining named types, attribute groups and metadata, and pairing global symbols one to one (exported definitions and external declarations by name, internal ones by position); the same instructions over the same memory compute the same results on every input";

/// The note a reused result's report carries.
const REUSED_NOTE: &str =
    "reused from the cache (--cache): explored by an earlier run on the same IR and options";

/// The options of a library run.
#[derive(Clone, Debug, Default)]
pub struct LibOptions {
    /// Where results are stored and reused (`--cache DIR`).
    pub cache: Option<PathBuf>,
    /// Whether the identical-IR fast path is taken (`--no-identical` turns it off).
    pub identical: bool,
    /// Functions checked at once (`-j`); 0 for one a core.
    pub jobs: usize,
}

/// Both builds' listings (`identical.rs`), read once for the fast path, the cache and the
/// linkage of each function.
pub struct Listings {
    pub a: Listing,
    pub b: Listing,
}

impl Listings {
    pub fn read(a: &Path, b: &Path) -> crate::error::Result<Listings> {
        Ok(Listings {
            a: Listing::of_bitcode(a).map_err(crate::error::Error::Usage)?,
            b: Listing::of_bitcode(b).map_err(crate::error::Error::Usage)?,
        })
    }
}

/// Leaves out of `selected` what a library run does not check, each with the reason: what
/// is not exported (`static`, internal linkage) in either build, and variadic functions
/// (which `gate::select_functions` reports as a changed signature). Of the functions
/// `skipped` names, keeps those the globs select that one build exports.
pub fn drop_unsupported(
    module: &Module,
    listings: &Listings,
    (include, exclude): (&[String], &[String]),
    selected: Vec<String>,
    skipped: &mut Vec<Skipped>,
) -> Vec<String> {
    let exported = |l: &Listing, f: &str| l.defs.get(f).is_some_and(|d| d.exported);
    let wanted = |f: &str| {
        (include.is_empty() || include.iter().any(|g| crate::config::glob_match(g, f)))
            && !exclude.iter().any(|g| crate::config::glob_match(g, f))
    };
    skipped.retain(|s| {
        wanted(&s.function)
            && (exported(&listings.a, &s.function) || exported(&listings.b, &s.function))
    });
    let variadic = |f: &str| {
        module
            .function_on_side(crate::ir::Side::A, f)
            .is_some_and(|id| module.function(id).is_var_arg)
            && module
                .function_on_side(crate::ir::Side::B, f)
                .is_some_and(|id| module.function(id).is_var_arg)
    };
    const VARIADIC: &str = "variadic: the arguments after the fixed ones are not modelled";
    for s in skipped.iter_mut() {
        if s.reason.starts_with("signature changed") && variadic(&s.function) {
            s.reason = VARIADIC.into();
        }
    }
    selected
        .into_iter()
        .filter(|f| {
            let reason = if !exported(&listings.a, f) || !exported(&listings.b, f) {
                "not exported (internal linkage) in one build or both"
            } else if variadic(f) {
                VARIADIC
            } else {
                return true;
            };
            skipped.push(Skipped {
                function: f.clone(),
                reason: reason.into(),
            });
            false
        })
        .collect()
}

/// Runs the jobs of a library run: identical ones proved at once, cached ones reused, the
/// rest explored in parallel. Results keep the jobs' order; each says how it was reached.
pub fn run(
    module: &Module,
    listings: &Listings,
    jobs: Vec<Job>,
    fail_on: &[FailOn],
    options: &LibOptions,
) -> crate::error::Result<Vec<(JobResult, How)>> {
    let mut done: Vec<Option<(JobResult, How)>> = Vec::new();
    let mut todo = Vec::new();
    let mut keys = Vec::new();
    for job in jobs {
        let name = job.check.a_name.clone();
        let (la, lb) = (&listings.a, &listings.b);
        if options.identical && identical::identical(la, lb, &name) {
            let report = identical_report(&job);
            done.push(Some(finish(job, report, fail_on, How::IdenticalIr)));
            continue;
        }
        if let Some(dir) = &options.cache {
            let key = cache::key(la, lb, &job.check);
            if let Some(mut report) = cache::load(dir, &key) {
                report.summary.notes.push(REUSED_NOTE.into());
                done.push(Some(finish(job, report, fail_on, How::Cached)));
                continue;
            }
            keys.push((todo.len(), key));
        }
        done.push(None);
        todo.push(job);
    }
    let explore = || crate::gate::run_jobs(module, todo, fail_on);
    let explored = if options.jobs > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(options.jobs)
            .build()
            .map_err(|e| crate::error::Error::Usage(format!("-j: {e}")))?
            .install(explore)
    } else {
        explore()
    };
    if let Some(dir) = &options.cache {
        for (i, key) in &keys {
            if let Ok(report) = &explored[*i].outcome {
                if cacheable(report) {
                    cache::store(dir, key, report)?;
                }
            }
        }
    }
    let mut explored = explored.into_iter();
    Ok(done
        .into_iter()
        .map(|d| d.unwrap_or_else(|| (explored.next().expect("one result a job"), How::Explored)))
        .collect())
}

/// Whether a result may be reused: an interrupted run's is not (it would stay inconclusive).
fn cacheable(report: &Report) -> bool {
    report.summary.stop_reason.as_deref() != Some("interrupted")
}

fn finish(mut job: Job, report: Report, fail_on: &[FailOn], how: How) -> (JobResult, How) {
    let failed = crate::config::fails(&report, fail_on, job.accept);
    job.note = Some(how.label().to_string());
    let result = JobResult {
        job,
        outcome: Ok(report),
        failed,
    };
    (result, how)
}

/// The report of a function proved by identical IR: no path explored, equivalent.
fn identical_report(job: &Job) -> Report {
    let mut summary = Summary::of_rows(job.label(), &[], true);
    summary.overall = Overall::Equivalent;
    summary.notes.push(IDENTICAL_RULE.to_string());
    Report {
        summary,
        rows: Vec::new(),
    }
}

/// The first counterexample of a report, one line: the inputs of its first difference and
/// both results, and whether native replay reproduced it.
pub fn first_counterexample(report: &Report) -> Option<String> {
    let row = report.rows.iter().find(|r| r.verdict.is_difference())?;
    let inputs: Vec<String> = row
        .inputs
        .iter()
        .map(|i| format!("{}={}", i.name, i.display))
        .collect();
    let mut line = format!(
        "{} → A {} / B {}",
        inputs.join(", "),
        row.result_a,
        row.result_b
    );
    let native = match row.native {
        crate::report::replay::NativeReplay::Reproduced => " (confirmed natively)",
        crate::report::replay::NativeReplay::NotReproduced => " (NOT reproduced natively)",
        crate::report::replay::NativeReplay::NotRun if row.is_confirmed_difference() => {
            " (confirmed by concrete replay)"
        }
        crate::report::replay::NativeReplay::NotRun => "",
    };
    line.push_str(native);
    Some(clip(&line))
}

/// The library run's table: each function with its verdict, how it was reached and its
/// first counterexample; the functions not checked with their reasons; the counts.
pub fn render_table(title: &str, results: &[(JobResult, How)], skipped: &[Skipped]) -> String {
    const HEADERS: [&str; 6] = [
        "function",
        "verdict",
        "how",
        "paths",
        "time",
        "first counterexample",
    ];
    let cells: Vec<Vec<String>> = results
        .iter()
        .map(|(r, how)| match &r.outcome {
            Ok(rep) => vec![
                r.job.label(),
                rep.summary.overall.to_string(),
                how.label().to_string(),
                rep.summary.paths.to_string(),
                crate::report::format_ms(rep.summary.wall_time_ms),
                first_counterexample(rep).unwrap_or_default(),
            ],
            Err(e) => vec![
                r.job.label(),
                "ERROR".into(),
                how.label().into(),
                "-".into(),
                "-".into(),
                clip(e),
            ],
        })
        .collect();
    let mut out = format!("{title}\n\n");
    out.push_str(&crate::report::table::align(&HEADERS, &[false; 6], &cells));
    if !skipped.is_empty() {
        out.push_str("\nNot checked:\n");
        for s in skipped {
            out.push_str(&format!("  {}: {}\n", s.function, s.reason));
        }
    }
    let count = |o: Overall| {
        results
            .iter()
            .filter(|(r, _)| r.outcome.as_ref().is_ok_and(|rep| rep.summary.overall == o))
            .count()
    };
    let how = |h: How| results.iter().filter(|(_, x)| *x == h).count();
    out.push_str(&format!(
        "\n{} checked: {} proved ({} by identical IR), {} diverged, {} inconclusive, {} errors; {} explored, {} reused from the cache; {} not checked\n",
        results.len(),
        count(Overall::Equivalent),
        how(How::IdenticalIr),
        count(Overall::Diverged),
        count(Overall::Inconclusive),
        results.iter().filter(|(r, _)| r.outcome.is_err()).count(),
        how(How::Explored),
        how(How::Cached),
        skipped.len()
    ));
    if how(How::IdenticalIr) > 0 {
        out.push_str(&format!("Rule: {IDENTICAL_RULE}.\n"));
    }
    out
}

/// A cell's text on one line, at most 160 characters.
fn clip(text: &str) -> String {
    let line = crate::report::table::one_line(text);
    match line.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}
