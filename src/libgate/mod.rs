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
//! 3. else it is explored, in parallel with the others, its differences run natively on
//!    both builds (`native.rs`: only a natively confirmed difference counts), and its result
//!    stored.
//!
//! The results are the gate's `JobResult`s, so the gate's table, `summary.md`,
//! `report.html`, JUnit and `--json` writers serve them unchanged; how each was reached
//! ([`How`]) is in the job's note and in the report's notes.

pub mod aliases;
mod cache;
pub mod identical;
pub mod native;

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

/// Leaves out of `selected` what a library run does not check: what neither build exports
/// (`static`, internal linkage); with the reason, what only one build exports, and variadic
/// functions. Of the functions `skipped` names (`gate::select_functions` has applied the
/// globs), keeps those one build exports.
pub fn drop_unsupported(
    module: &Module,
    listings: &Listings,
    selected: Vec<String>,
    skipped: &mut Vec<Skipped>,
) -> Vec<String> {
    let exported = |l: &Listing, f: &str| l.defs.get(f).is_some_and(|d| d.exported);
    skipped.retain(|s| exported(&listings.a, &s.function) || exported(&listings.b, &s.function));
    selected
        .into_iter()
        .filter(|f| {
            let reason = match (exported(&listings.a, f), exported(&listings.b, f)) {
                // Internal in both builds: not part of the library's interface.
                (false, false) => return false,
                (true, false) => "exported by A only: internal (static) in B",
                (false, true) => "exported by B only: internal (static) in A",
                (true, true) => "",
            };
            let reason = if !reason.is_empty() {
                reason
            } else if crate::gate::is_variadic(module, f) {
                crate::gate::VARIADIC
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

/// `--buffer-size NAME=N` in a library run: sizes the parameter NAME of each function that
/// has one and is dropped from the other functions' checks. A NAME that no function of
/// `jobs` has is an error, found before any check runs (from the listings, so that a rerun
/// need not load the modules); the message names the option and the cause. Parameters are
/// named as a check names them: by debug information (A's, else B's), else `argI`.
pub fn fit_buffer_sizes(listings: &Listings, jobs: &mut [Job]) -> Result<(), String> {
    let mut fitted: Vec<(String, u32, bool)> = Vec::new();
    for job in jobs.iter_mut() {
        let names = param_names(listings, &job.check.a_name);
        job.check.param_sizes.retain(|(name, size)| {
            let has = names
                .iter()
                .enumerate()
                .any(|(i, p)| p == name || format!("arg{i}") == *name);
            match fitted.iter_mut().find(|(n, _, _)| n == name) {
                Some(entry) => entry.2 |= has,
                None => fitted.push((name.clone(), *size, has)),
            }
            has
        });
    }
    match fitted.iter().find(|(_, _, has)| !has) {
        Some((name, size, _)) => Err(format!(
            "--buffer-size {name}={size}: none of the {} checked has a parameter named '{name}'",
            crate::report::table::plural(jobs.len(), "function", "functions")
        )),
        None => Ok(()),
    }
}

/// The parameter names a check of function `f` uses: A's debug name, else B's, else `argI`.
fn param_names(listings: &Listings, f: &str) -> Vec<String> {
    fn params<'l>(l: &'l Listing, f: &str) -> &'l [Option<String>] {
        l.defs.get(f).map_or(&[], |d| &d.params)
    }
    let (a, b) = (params(&listings.a, f), params(&listings.b, f));
    (0..a.len().max(b.len()))
        .map(|i| {
            let name = |p: &[Option<String>]| p.get(i).cloned().flatten();
            name(a)
                .or_else(|| name(b))
                .unwrap_or_else(|| format!("arg{i}"))
        })
        .collect()
}

/// A job after the fast path and the cache: its result, or still to explore (with its key
/// in the cache, if there is one).
pub enum Settled {
    Done(Box<JobResult>, How),
    Todo(Box<Job>, Option<String>),
}

/// Settles what needs no exploring: identical functions are proved, cached results reused.
pub fn settle(
    listings: &Listings,
    jobs: Vec<Job>,
    fail_on: &[FailOn],
    options: &LibOptions,
) -> Vec<Settled> {
    let (la, lb) = (&listings.a, &listings.b);
    jobs.into_iter()
        .map(|job| {
            if options.identical && identical::identical(la, lb, &job.check.a_name) {
                let report = identical_report(&job);
                let (r, how) = finish(job, report, fail_on, How::IdenticalIr);
                return Settled::Done(Box::new(r), how);
            }
            let Some(dir) = &options.cache else {
                return Settled::Todo(Box::new(job), None);
            };
            let key = cache::key(la, lb, &job.check);
            match cache::load(dir, &key) {
                Some(mut report) => {
                    report.summary.notes.push(REUSED_NOTE.into());
                    let (r, how) = finish(job, report, fail_on, How::Cached);
                    Settled::Done(Box::new(r), how)
                }
                None => Settled::Todo(Box::new(job), Some(key)),
            }
        })
        .collect()
}

/// The results of settled jobs when none is left to explore.
pub fn all_done(settled: Vec<Settled>) -> Option<Vec<(JobResult, How)>> {
    settled
        .into_iter()
        .map(|s| match s {
            Settled::Done(r, how) => Some((*r, how)),
            Settled::Todo(..) => None,
        })
        .collect()
}

/// Runs the jobs of a library run: identical ones proved at once, cached ones reused, the
/// rest explored in parallel (`options.jobs` at once) and stored in the cache. Results keep
/// the jobs' order; each says how it was reached. `ended` is called with each explored
/// result as its check ends, for a live line.
pub fn run(
    module: &Module,
    listings: &Listings,
    jobs: Vec<Job>,
    fail_on: &[FailOn],
    options: &LibOptions,
    ended: &(dyn Fn(&JobResult) + Sync),
) -> crate::error::Result<Vec<(JobResult, How)>> {
    let settled = settle(listings, jobs, fail_on, options);
    let mut todo = Vec::new();
    let mut keys = Vec::new();
    for s in &settled {
        match s {
            Settled::Todo(job, key) => {
                keys.push(key.clone());
                todo.push((**job).clone());
            }
            // Proved by identical IR or reused: ended already.
            Settled::Done(result, _) => ended(result),
        }
    }
    let explore = || crate::gate::run_jobs(module, todo, fail_on, ended);
    let explored = if options.jobs > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(options.jobs)
            .build()
            .map_err(|e| crate::error::Error::Usage(format!("-j: {e}")))?
            .install(explore)
    } else {
        explore()
    };
    let mut explored = explored;
    for result in &mut explored {
        native::confirm(module, result, fail_on);
    }
    if let Some(dir) = &options.cache {
        for (result, key) in explored.iter().zip(&keys) {
            if let (Ok(report), Some(key)) = (&result.outcome, key) {
                if cacheable(report) {
                    cache::store(dir, key, report)?;
                }
            }
        }
    }
    let mut explored = explored.into_iter();
    Ok(settled
        .into_iter()
        .map(|s| match s {
            Settled::Done(r, how) => (*r, how),
            Settled::Todo(..) => (explored.next().expect("one result a job"), How::Explored),
        })
        .collect())
}

/// The functions a run pairs, read from the listings alone (without loading the modules):
/// every function both builds export that the globs select, sorted, and the exported
/// functions only one build defines. `None` when pairing needs the loaded modules: a name
/// one build exports and the other defines as internal, or a definition whose signature
/// the listing cannot vouch for (variadic, or a type the checks do not support).
pub fn pair_from_listings(
    listings: &Listings,
    (include, exclude): (&[String], &[String]),
) -> Option<(Vec<String>, Vec<Skipped>)> {
    let wanted = |f: &str| {
        (include.is_empty() || include.iter().any(|g| crate::config::glob_match(g, f)))
            && !exclude.iter().any(|g| crate::config::glob_match(g, f))
    };
    let function = |l: &'_ Listing, f: &str| {
        l.defs
            .get(f)
            .filter(|d| d.kind == identical::Kind::Function)
            .map(|d| d.exported)
    };
    let plain = |l: &Listing, f: &str| {
        let head = l.defs[f].text.lines().next().unwrap_or("");
        !["...", "half", "fp128", "bfloat", "<"]
            .iter()
            .any(|t| head.contains(t))
    };
    let mut names: Vec<&String> = listings
        .a
        .defs
        .keys()
        .chain(listings.b.defs.keys())
        .collect();
    names.sort();
    names.dedup();
    let (mut common, mut only_a, mut only_b) = (Vec::new(), Vec::new(), Vec::new());
    for f in names.into_iter().filter(|f| wanted(f)) {
        match (function(&listings.a, f), function(&listings.b, f)) {
            (Some(true), Some(true)) if plain(&listings.a, f) && plain(&listings.b, f) => {
                common.push(f.clone())
            }
            (Some(true), None) => only_a.push(f),
            (None, Some(true)) => only_b.push(f),
            (None | Some(false), None | Some(false)) => {}
            _ => return None,
        }
    }
    let skipped = only_a
        .into_iter()
        .map(|f| (f, "defined only in A"))
        .chain(only_b.into_iter().map(|f| (f, "defined only in B")))
        .map(|(f, reason)| Skipped {
            function: f.clone(),
            reason: reason.into(),
        })
        .collect();
    Some((common, skipped))
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
    let row = report
        .rows
        .iter()
        .find(|r| r.verdict.is_difference())
        .or_else(|| {
            report
                .rows
                .iter()
                .find(|r| r.detail.contains(native::NOT_NATIVELY))
        })?;
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
    const HEADERS: [&str; 7] = [
        "function",
        "verdict",
        "how",
        "paths",
        "time",
        "native",
        "first counterexample",
    ];
    let is_alias = |r: &JobResult| {
        r.job
            .note
            .as_deref()
            .is_some_and(|n| n.starts_with(aliases::NOTE))
    };
    // An alias's row says whose result it shows, and how that was reached.
    let how_cell = |r: &JobResult, how: How| match &r.job.note {
        Some(n) if is_alias(r) => format!("{n} ({})", how.label()),
        _ => how.label().to_string(),
    };
    let cells: Vec<Vec<String>> = results
        .iter()
        .map(|(r, how)| match &r.outcome {
            Ok(rep) => vec![
                r.job.label(),
                rep.summary.overall.to_string(),
                how_cell(r, *how),
                rep.summary.paths.to_string(),
                crate::report::format_ms(rep.summary.wall_time_ms),
                native::cell(rep),
                first_counterexample(rep).unwrap_or_default(),
            ],
            Err(e) => vec![
                r.job.label(),
                "ERROR".into(),
                how_cell(r, *how),
                "-".into(),
                "-".into(),
                String::new(),
                clip(e),
            ],
        })
        .collect();
    let mut out = format!("{title}\n\n");
    out.push_str(&crate::report::table::align(&HEADERS, &[false; 7], &cells));
    if !skipped.is_empty() {
        out.push_str("\nNot checked:\n");
        for s in skipped {
            out.push_str(&format!("  {}: {}\n", s.function, s.reason));
        }
    }
    // The counts are of functions; aliases are counted apart.
    let functions: Vec<&(JobResult, How)> = results.iter().filter(|(r, _)| !is_alias(r)).collect();
    let count = |o: Overall| {
        functions
            .iter()
            .filter(|(r, _)| r.outcome.as_ref().is_ok_and(|rep| rep.summary.overall == o))
            .count()
    };
    let how = |h: How| functions.iter().filter(|(_, x)| *x == h).count();
    let alias_rows = results.len() - functions.len();
    let aliases_part = if alias_rows > 0 {
        format!("; {alias_rows} aliases shown with their targets' results")
    } else {
        String::new()
    };
    out.push_str(&format!(
        "\n{} checked: {} proved ({} by identical IR), {} diverged, {} inconclusive, {} errors; {} explored, {} reused from the cache{aliases_part}; {} not checked\n",
        functions.len(),
        count(Overall::Equivalent),
        how(How::IdenticalIr),
        count(Overall::Diverged),
        count(Overall::Inconclusive),
        functions.iter().filter(|(r, _)| r.outcome.is_err()).count(),
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
