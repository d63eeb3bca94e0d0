//! Regression gating: many function pairs checked at once, in parallel, with a policy that
//! decides which outcomes fail the run (`--all-functions`, `--config`, `--fail-on`).
//!
//! Each module pair is loaded and linked once; its function checks run on all cores (each
//! with its own expression pool and solver), and their reports are gathered in a fixed
//! order, so the output does not depend on which check finished first.

pub mod report;

use crate::config::{fails, FailOn};
use crate::crosscheck::{check_loaded, pair_functions, FunctionCheck};
use crate::error::{Error, Result};
use crate::ir::Module;
use crate::report::json::{JsonLine, Mode};
use crate::report::{Overall, Report};
use rayon::prelude::*;
use report::{render_gate_table, GateRow};
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

pub use report::Skipped;

/// The functions two modules have in common, filtered by glob patterns, and those left out.
pub fn select_functions(
    module: &Module,
    include: &[String],
    exclude: &[String],
) -> (Vec<String>, Vec<Skipped>) {
    let pairing = pair_functions(module);
    let mut skipped = Vec::new();
    let wanted = |f: &String| selected_by(f, include, exclude);
    for f in pairing.only_a.iter().filter(|f| wanted(f)) {
        skipped.push(Skipped {
            function: f.clone(),
            reason: "defined only in A".into(),
        });
    }
    for f in pairing.only_b.iter().filter(|f| wanted(f)) {
        skipped.push(Skipped {
            function: f.clone(),
            reason: "defined only in B".into(),
        });
    }
    for (f, a, b) in pairing.changed.iter().filter(|(f, ..)| wanted(f)) {
        // Pairing refuses variadic functions; with the same fixed parameters that is the
        // reason, not a change.
        let reason = if a == b && is_variadic(module, f) {
            VARIADIC.to_string()
        } else {
            format!("signature changed: {a} → {b}")
        };
        skipped.push(Skipped {
            function: f.clone(),
            reason,
        });
    }
    let mut selected = Vec::new();
    for f in pairing.common {
        let id = module
            .function_on_side(crate::ir::Side::A, &f)
            .expect("paired functions exist");
        let func = module.function(id);
        let unsupported = func.params.iter().any(|p| p.width == 0) || func.ret_width == Some(0);
        if !selected_by(&f, include, exclude) {
            continue;
        }
        if unsupported {
            skipped.push(Skipped {
                function: f,
                reason:
                    "a parameter or the result has an unsupported type (half, fp128, a vector of floats…)"
                        .into(),
            });
        } else {
            selected.push(f);
        }
    }
    (selected, skipped)
}

/// Whether `f` is variadic on both sides of `module`.
pub fn is_variadic(module: &Module, f: &str) -> bool {
    [crate::ir::Side::A, crate::ir::Side::B]
        .into_iter()
        .all(|side| {
            module
                .function_on_side(side, f)
                .is_some_and(|id| module.function(id).is_var_arg)
        })
}

/// Why a variadic function is not checked.
pub const VARIADIC: &str = "variadic: the arguments after the fixed ones are not modelled";

/// Whether the glob patterns pick the function `name`: it matches an `include` pattern
/// (any name when there is none) and no `exclude` pattern.
pub fn selected_by(name: &str, include: &[String], exclude: &[String]) -> bool {
    (include.is_empty() || include.iter().any(|g| crate::config::glob_match(g, name)))
        && !exclude.iter().any(|g| crate::config::glob_match(g, name))
}

/// The checks of a gate run that belong to `shard` (all of them without one): the i-th
/// check of the run (from 0, `offset` being the place of this section's first) belongs to
/// shard `i mod N + 1`. Returns the checks kept, each with its place in the run.
pub fn shard_jobs(
    jobs: Vec<Job>,
    offset: usize,
    shard: Option<crate::exec::shard::Shard>,
) -> Vec<(usize, Job)> {
    jobs.into_iter()
        .enumerate()
        .map(|(j, job)| (offset + j, job))
        .filter(|(i, _)| shard.is_none_or(|s| s.owns(*i)))
        .collect()
}

/// The manifest a shard of a gate run writes (`report::MANIFEST`) into `out_dir`:
/// `labels` are every check's of the run, in order (their digest tells runs apart);
/// `places` give each result's place in the run, section by section.
pub fn write_manifest(
    out_dir: &Path,
    shard: crate::exec::shard::Shard,
    labels: &[String],
    sections: &[Section],
    places: &[Vec<usize>],
) -> Result<()> {
    use crate::gate::report::{GateEntry, GateManifest, GateSection, MANIFEST};
    let manifest = GateManifest {
        shard: crate::report::ShardInfo {
            index: shard.index + 1,
            count: shard.count,
            checks: true,
            frontier: 0,
            digest: crate::exec::shard::digest(labels.iter().map(|l| l.as_bytes())),
        },
        sections: sections
            .iter()
            .zip(places)
            .map(|(s, places)| GateSection {
                title: s.title.clone(),
                skipped: s.skipped.clone(),
                entries: s
                    .results
                    .iter()
                    .zip(places)
                    .map(|(r, &index)| GateEntry {
                        index,
                        label: r.job.label(),
                        dir: r
                            .job
                            .check
                            .out_dir
                            .strip_prefix(out_dir)
                            .unwrap_or(&r.job.check.out_dir)
                            .to_string_lossy()
                            .into_owned(),
                        failed: r.failed,
                        accepted: r.job.accept.is_some(),
                        error: r.outcome.as_ref().err().cloned(),
                    })
                    .collect(),
            })
            .collect(),
    };
    let path = out_dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| Error::Output {
        path: path.clone(),
        source: std::io::Error::other(e),
    })?;
    std::fs::create_dir_all(out_dir)
        .and_then(|()| crate::ktest::write_atomic(&path, text.as_bytes()))
        .map_err(|e| Error::Output { path, source: e })
}

/// Runs `jobs` (all on `module`) in parallel; each writes to its own `out_dir`. `ended` is
/// called with each result as its check ends (from the check's thread), for a live line.
///
/// A pair proved equivalent for all inputs may be summarized by the checks of its callers
/// (`FunctionCheck::proved`): jobs run in waves, a job after those whose A function it
/// reaches (a cycle's jobs together, in the last wave), and each proved pair is shared with
/// the later waves. Results keep the jobs' order.
pub fn run_jobs(
    module: &Module,
    jobs: Vec<Job>,
    fail_on: &[FailOn],
    ended: &(dyn Fn(&JobResult) + Sync),
) -> Vec<JobResult> {
    let proved = crate::crosscheck::ProvedPairs::default();
    let waves = waves(module, &jobs);
    let mut indexed: Vec<(usize, Job)> = jobs.into_iter().enumerate().collect();
    let mut results: Vec<(usize, JobResult)> = Vec::new();
    for wave in waves {
        let (now, later): (Vec<_>, Vec<_>) =
            indexed.into_iter().partition(|(i, _)| wave.contains(i));
        indexed = later;
        let done: Vec<(usize, JobResult)> = now
            .into_par_iter()
            .map(|(i, mut job)| {
                job.check.proved = proved.clone();
                let outcome = check_loaded(module, &job.check, Instant::now())
                    .map(|o| o.report)
                    .map_err(|e| e.to_string());
                let failed = match &outcome {
                    Ok(report) => {
                        proved.record(&job.check, report);
                        fails(report, fail_on, job.accept)
                    }
                    Err(_) => true,
                };
                let result = JobResult {
                    job,
                    outcome,
                    failed,
                };
                ended(&result);
                (i, result)
            })
            .collect();
        results.extend(done);
    }
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// The waves `run_jobs` runs `jobs` in, as sets of job indices: a job waits for the jobs
/// whose A function its own A function reaches (one wave, when no job calls another's).
fn waves(module: &Module, jobs: &[Job]) -> Vec<std::collections::BTreeSet<usize>> {
    use std::collections::BTreeSet;
    let entry = |j: &Job| module.function_on_side(crate::ir::Side::A, &j.check.a_name);
    let needs: Vec<BTreeSet<usize>> = jobs
        .iter()
        .enumerate()
        .map(|(i, job)| {
            let Some(f) = entry(job).filter(|_| job.check.summaries) else {
                return BTreeSet::new();
            };
            let (reached, _) = crate::crosscheck::globals::reachable(module, &[f]);
            jobs.iter()
                .enumerate()
                .filter(|&(k, other)| {
                    k != i && entry(other).is_some_and(|g| g != f && reached.contains(&g))
                })
                .map(|(k, _)| k)
                .collect()
        })
        .collect();
    let mut done: BTreeSet<usize> = BTreeSet::new();
    let mut waves = Vec::new();
    while done.len() < jobs.len() {
        let wave: BTreeSet<usize> = (0..jobs.len())
            .filter(|i| !done.contains(i) && needs[*i].iter().all(|k| done.contains(k)))
            .collect();
        let wave = if wave.is_empty() {
            (0..jobs.len()).filter(|i| !done.contains(i)).collect()
        } else {
            wave
        };
        done.extend(wave.iter().copied());
        waves.push(wave);
    }
    waves
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

impl JobResult {
    /// The row of the gate's table.
    pub fn row(&self) -> GateRow<'_> {
        GateRow {
            label: self.job.label(),
            outcome: self.outcome.as_ref().map_err(String::as_str),
            failed: self.failed,
            accepted: self.job.accept.is_some(),
        }
    }

    /// The `--json` line of this function, in pair `pair` (from 1), in mode `mode`.
    pub fn json(&self, mode: Mode, pair: usize) -> String {
        let c = &self.job.check;
        JsonLine::check(
            mode,
            pair,
            Some(self.job.label()),
            (&c.a_path, &c.b_path),
            &c.out_dir,
            self.outcome.as_ref().map_err(String::as_str),
            self.failed,
            self.job.note.as_deref(),
        )
        .render()
    }
}

/// The checks of one module pair: a title, each function's result and the functions left
/// out.
pub struct Section {
    pub title: String,
    pub results: Vec<JobResult>,
    pub skipped: Vec<Skipped>,
}

impl Section {
    /// The section as printed: the gate's table, or one `--json` line per function (`pair`
    /// counts from 1).
    pub fn render(&self, pair: usize, json: bool) -> String {
        if !json {
            let rows: Vec<GateRow<'_>> = self.results.iter().map(JobResult::row).collect();
            return render_gate_table(&self.title, &rows, &self.skipped);
        }
        let mut out = String::new();
        for r in &self.results {
            out.push_str(&r.json(Mode::Gate, pair));
            out.push('\n');
        }
        out
    }

    /// The functions whose check could not run, with why.
    pub fn errors(&self) -> impl Iterator<Item = (String, &str)> {
        self.results.iter().filter_map(|r| {
            r.outcome
                .as_ref()
                .err()
                .map(|e| (r.job.label(), e.as_str()))
        })
    }
}

/// Writes the JUnit file of a gate run (if asked for) and returns its exit code: 2 when a
/// check could not run, else 1 when one failed the policy, else 0.
pub fn finish(sections: &[Section], junit: Option<&Path>) -> Result<i32> {
    let mut cases = Vec::new();
    let mut any_failed = false;
    let mut any_error = false;
    for (i, section) in sections.iter().enumerate() {
        for r in &section.results {
            any_failed |= r.failed;
            match &r.outcome {
                Ok(report) => {
                    cases.push((format!("{}: {}", i + 1, r.job.label()), report, r.failed))
                }
                Err(_) => any_error = true,
            }
        }
    }
    if let Some(path) = junit {
        write_junit(path, &cases)?;
    }
    Ok(if any_error { 2 } else { any_failed as i32 })
}

/// Writes a JUnit file with one test case per check.
fn write_junit(path: &Path, cases: &[(String, &Report, bool)]) -> Result<()> {
    let xml = crate::report::junit::render_junit("xcheck", cases);
    crate::report::junit::write_junit(path, &xml).map_err(|e| Error::Output {
        path: path.to_path_buf(),
        source: e,
    })
}

/// Whether one check (a function or program check outside a gate run) fails the
/// `--fail-on` policy, if given; writes its JUnit file, if asked for; returns both with the
/// exit code (the policy's, else the verdict's).
pub fn judge(
    report: &Report,
    label: &str,
    fail_on: Option<&[FailOn]>,
    junit: Option<&Path>,
) -> Result<(Option<bool>, i32)> {
    let failed = fail_on.map(|f| fails(report, f, None));
    if let Some(path) = junit {
        let overall_failed = report.summary.overall != Overall::Equivalent;
        write_junit(
            path,
            &[(label.to_string(), report, failed.unwrap_or(overall_failed))],
        )?;
    }
    let code = match failed {
        Some(f) => f as i32,
        None => report.summary.overall.exit_code(),
    };
    Ok((failed, code))
}

/// The jobs of pair `i` (from 0) of a config file: its `[[pair.function]]` entries, then
/// (with `all_functions`) every other selected function, each with the file's defaults
/// under the entry's own settings. `base` carries the command line's engine and solver
/// settings, globals and `--ub` modes (its functions and paths are not used); results go under
/// `out_dir/pairN/`.
pub fn config_jobs(
    cfg: &crate::config::Config,
    i: usize,
    module: &Module,
    base: &FunctionCheck,
) -> (Vec<Job>, Vec<Skipped>) {
    let out_dir = &base.out_dir;
    let pair = &cfg.pairs[i];
    let make = |fa: &str, fb: &str, f: Option<&crate::config::FunctionConfig>| -> Job {
        let mut check = FunctionCheck::new(&pair.a, &pair.b, fa, fb);
        check.exec = base.exec.clone();
        check.exec.abstract_calls = pair
            .abstract_calls(&cfg.defaults, &base.exec.abstract_calls)
            .to_vec();
        check.solver = base.solver.clone();
        check.globals = base.globals;
        check.fp_equality = base.fp_equality;
        check.ub = base.ub;
        check.tests_per_kind = base.tests_per_kind;
        check.native = base.native.clone();
        check.buffer_cap = f
            .and_then(|f| f.buffer_cap)
            .or(cfg.defaults.buffer_cap)
            .unwrap_or(base.buffer_cap);
        check.buffer_offset = f
            .and_then(|f| f.buffer_offset)
            .or(cfg.defaults.buffer_offset)
            .or(base.buffer_offset);
        check.alias = f.and_then(|f| f.alias.clone()).or(base.alias.clone());
        let d = &cfg.defaults;
        check.buffer_size = f
            .and_then(|f| f.buffer_size)
            .or(d.buffer_size)
            .unwrap_or(check.buffer_size);
        if let Some(t) = f.and_then(|f| f.max_time).or(d.max_time) {
            check.exec.max_time = t;
        }
        if let Some(seed) = d.seed {
            check.exec.seed = seed;
        }
        if let Some(search) = d.search {
            check.exec.search = search;
        }
        if let Some(e) = f.and_then(|f| f.fp_equal).or(d.fp_equal) {
            check.fp_equality = e;
        }
        if let Some(f) = f {
            check.param_sizes = f.buffer_sizes.clone();
            check.assumes = f.assume.clone();
        }
        let label = if fa == fb {
            fa.to_string()
        } else {
            format!("{fa}={fb}")
        };
        check.out_dir = job_dir(out_dir, Some(i), &label);
        Job {
            check,
            accept: f.and_then(|f| f.accept),
            note: f.and_then(|f| f.note.clone()),
        }
    };
    let mut jobs = Vec::new();
    for f in &pair.functions {
        jobs.push(make(&f.a_name, &f.b_name, Some(f)));
    }
    let mut skipped = Vec::new();
    if pair.all_functions {
        let (selected, left_out) = select_functions(module, &pair.include, &pair.exclude);
        skipped = left_out;
        for name in selected {
            if !pair.functions.iter().any(|f| f.a_name == name) {
                jobs.push(make(&name, &name, None));
            }
        }
    }
    (jobs, skipped)
}

/// Loads a pair of modules for gating, with musl's math functions but those named in
/// `abstract_calls` (the same list as its jobs').
pub fn load_pair(a: &Path, b: &Path, abstract_calls: &[String]) -> Result<Module> {
    crate::load::load(a, Some(b), abstract_calls)
}

/// An error when filters leave nothing to check.
pub fn nothing_to_check(include: &[String], exclude: &[String]) -> Error {
    Error::Usage(format!(
        "no function left to check (include: [{}], exclude: [{}])",
        include.join(", "),
        exclude.join(", ")
    ))
}
