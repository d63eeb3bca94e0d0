//! The gate's modes of a check: every function both modules define (`--all-functions`) or
//! the jobs of a config file (`--config`), in parallel; one table, `summary.md`, JUnit.

use crate::cli::{
    abstract_calls_of, base_check, engine_config, globals_of, shard_of, tests_per_kind_of, usage,
    CheckArgs, Quit,
};
use crate::config::FailOn;
use crate::crosscheck::FunctionCheck;
use crate::error::Error;
use crate::gate;
use std::path::Path;

/// `--all-functions`: every function both modules define with the same signature.
pub(super) fn all_functions(
    args: &CheckArgs,
    a: &Path,
    b: &Path,
    fail_on: Option<Vec<FailOn>>,
) -> Result<i32, Quit> {
    if !args.params.assume.is_empty() {
        return Err(usage("--assume names parameters of one function: use it with --function, or per function in --config".into()));
    }
    let abstract_calls = match &args.params.abstract_calls {
        Some(list) => abstract_calls_of(list)?,
        None => Vec::new(),
    };
    let module = gate::load_pair(a, b, &abstract_calls)?;
    let (selected, skipped) = gate::select_functions(&module, &args.include, &args.exclude);
    if selected.is_empty() {
        eprintln!(
            "xcheck: warning: no function to check in {} and {}",
            a.display(),
            b.display()
        );
        return Err(Quit::Error(gate::nothing_to_check(
            &args.include,
            &args.exclude,
        )));
    }
    let jobs = function_jobs(args, a, b, &selected)?;
    let fail_on = fail_on.unwrap_or_else(|| crate::config::DEFAULT_FAIL_ON.to_vec());
    let shard = shard_of(args)?;
    let labels: Vec<String> = jobs.iter().map(gate::Job::label).collect();
    let (places, jobs): (Vec<usize>, Vec<gate::Job>) =
        gate::shard_jobs(jobs, 0, shard).into_iter().unzip();
    let results = gate::run_jobs(&module, jobs, &fail_on, &live_lines(places.len()));
    let title = format!("{}  vs  {}", a.display(), b.display());
    let sections = vec![gate::Section {
        title,
        results,
        skipped,
    }];
    if let Some(shard) = shard {
        gate::write_manifest(&args.output_dir, shard, &labels, &sections, &[places])?;
    }
    finish_gate(args, sections)
}

/// The jobs of `--all-functions` (and of `xcheck lib`): each function of `selected` with the
/// command line's settings, native replay of the rows resting on undefined behaviour, and its
/// own output directory.
pub(super) fn function_jobs(
    args: &CheckArgs,
    a: &Path,
    b: &Path,
    selected: &[String],
) -> Result<Vec<gate::Job>, Quit> {
    let mut jobs = Vec::new();
    for f in selected {
        let mut check = base_check(args, a, b, f, f)?;
        check.native = Some(crate::native::replay::native_functions());
        check.out_dir = gate::job_dir(&args.output_dir, None, f);
        jobs.push(gate::Job {
            check,
            accept: None,
            note: None,
        });
    }
    Ok(jobs)
}

/// `--config FILE`: the jobs of the file's pairs.
pub(super) fn config(
    args: &CheckArgs,
    path: &Path,
    fail_on: Option<Vec<FailOn>>,
) -> Result<i32, Quit> {
    let cfg = crate::config::load_config(path).map_err(|e| Error::Usage(e.to_string()))?;
    let fail_on = fail_on.unwrap_or_else(|| cfg.fail_on());
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    // The command line's --globals, else the file's, else symbolic.
    let globals = globals_of(&args.params)?
        .or(cfg.defaults.globals)
        .unwrap_or_default();
    // The command line's settings for every job; config_jobs puts the file's over them.
    let mut base = FunctionCheck::new(path, path, "", "");
    (base.exec, base.solver, base.globals) = (exec, solver, globals);
    if let Some(list) = &args.params.abstract_calls {
        base.exec.abstract_calls = abstract_calls_of(list)?;
    }
    base.out_dir = args.output_dir.clone();
    if let Some(mode) = &args.params.ub {
        base.ub = mode.parse().map_err(|m| usage(format!("--ub {m}")))?;
    }
    base.tests_per_kind = tests_per_kind_of(args.all_tests, args.tests_per_kind);
    base.native = Some(crate::native::replay::native_functions());
    let shard = shard_of(args)?;
    // Every pair's modules, functions and preconditions are checked before any check runs,
    // and every problem found is reported.
    let mut planned = Vec::new();
    let mut problems = Vec::new();
    for (i, pair) in cfg.pairs.iter().enumerate() {
        let at = format!("{}:{}: pair {}", path.display(), pair.line, i + 1);
        let abstract_calls = pair.abstract_calls(&cfg.defaults, &base.exec.abstract_calls);
        let module = match gate::load_pair(&pair.a, &pair.b, abstract_calls) {
            Ok(module) => module,
            Err(e) => {
                problems.push(format!("{at}: {e}"));
                continue;
            }
        };
        let (jobs, skipped) = gate::config_jobs(&cfg, i, &module, &base);
        // The command line's --include and --exclude narrow every pair's checks.
        let jobs: Vec<gate::Job> = jobs
            .into_iter()
            .filter(|j| gate::selected_by(&j.check.a_name, &args.include, &args.exclude))
            .collect();
        for job in &jobs {
            if let Err(e) = crate::crosscheck::validate(&module, &job.check) {
                let line = pair
                    .function(&job.check.a_name, &job.check.b_name)
                    .map_or(pair.line, |f| f.line);
                problems.push(format!(
                    "{}:{line}: pair {}, function {}: {e}",
                    path.display(),
                    i + 1,
                    job.label()
                ));
            }
        }
        if jobs.is_empty() {
            let filtered = !args.include.is_empty() || !args.exclude.is_empty();
            if !filtered {
                problems.push(format!(
                    "{at}: {}",
                    gate::nothing_to_check(&pair.include, &pair.exclude)
                ));
            }
            continue;
        }
        planned.push((i, pair, module, jobs, skipped));
    }
    if let [problem] = &problems[..] {
        // One problem, on one line as every error is.
        return Err(Quit::Error(Error::Usage(problem.clone())));
    }
    if !problems.is_empty() {
        return Err(Quit::Error(Error::Usage(format!(
            "{} in {} (nothing was checked):\n  {}",
            crate::report::table::plural(problems.len(), "problem", "problems"),
            path.display(),
            problems.join("\n  ")
        ))));
    }
    if planned.is_empty() {
        return Err(Quit::Error(gate::nothing_to_check(
            &args.include,
            &args.exclude,
        )));
    }
    let total: usize = planned.iter().map(|p| p.3.len()).sum();
    let (mut labels, mut places) = (Vec::new(), Vec::new());
    let mut runs = Vec::new();
    for (i, pair, module, jobs, skipped) in planned {
        let offset = labels.len();
        labels.extend(jobs.iter().map(gate::Job::label));
        let (mine, jobs): (Vec<usize>, Vec<gate::Job>) =
            gate::shard_jobs(jobs, offset, shard).into_iter().unzip();
        places.push(mine);
        runs.push((i, pair, module, jobs, skipped));
    }
    let mine: usize = runs.iter().map(|r| r.3.len()).sum();
    let live = live_lines(if shard.is_some() { mine } else { total });
    let mut sections = Vec::new();
    for (i, pair, module, jobs, skipped) in runs {
        let results = gate::run_jobs(&module, jobs, &fail_on, &live);
        sections.push(gate::Section {
            title: format!(
                "pair {}: {}  vs  {}",
                i + 1,
                pair.a.display(),
                pair.b.display()
            ),
            results,
            skipped,
        });
    }
    if let Some(shard) = shard {
        gate::write_manifest(&args.output_dir, shard, &labels, &sections, &places)?;
    }
    finish_gate(args, sections)
}

/// What prints a line on stderr as each check of a gate run of `total` checks ends.
pub(super) fn live_lines(total: usize) -> impl Fn(&gate::JobResult) + Sync {
    let done = std::sync::atomic::AtomicUsize::new(0);
    move |result| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        eprintln!(
            "{}",
            crate::gate::report::finished_line(n, total, &result.row())
        );
    }
}

/// Prints the gate's results, writes its `summary.md`, `report.html` and JUnit, and decides the exit code.
fn finish_gate(args: &CheckArgs, sections: Vec<gate::Section>) -> Result<i32, Quit> {
    for (i, section) in sections.iter().enumerate() {
        print!("{}", section.render(i + 1, args.json));
        for (label, e) in section.errors() {
            eprintln!("xcheck: error: {label}: {e}");
        }
    }
    write_gate_outputs(args, &sections)
}

/// Writes the gate's `summary.md`, `report.html` and JUnit, and decides the exit code.
pub(super) fn write_gate_outputs(
    args: &CheckArgs,
    sections: &[gate::Section],
) -> Result<i32, Quit> {
    // In GitHub Actions, one annotation per check that failed the gate (on stderr with
    // --json, whose stdout is JSON lines).
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        for r in sections.iter().flat_map(|s| &s.results) {
            let bitcode = &r.job.check.b_path;
            if let Some(line) = crate::gate::report::github_annotation(&r.row(), bitcode) {
                if args.json {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
            }
        }
    }
    let out = &args.output_dir;
    let parts: Vec<crate::gate::report::GateSummaryPart<'_>> = sections
        .iter()
        .map(|s| crate::gate::report::GateSummaryPart {
            title: s.title.clone(),
            rows: s
                .results
                .iter()
                .map(|r| {
                    let dir = r
                        .job
                        .check
                        .out_dir
                        .strip_prefix(out)
                        .unwrap_or(&r.job.check.out_dir);
                    (r.row(), dir.display().to_string())
                })
                .collect(),
            skipped: &s.skipped,
        })
        .collect();
    crate::gate::report::write_gate_summary(out, &parts).map_err(|e| Error::Output {
        path: out.join("summary.md"),
        source: e,
    })?;
    crate::gate::report::write_gate_html(out, &parts).map_err(|e| Error::Output {
        path: out.join("report.html"),
        source: e,
    })?;
    Ok(gate::finish(sections, args.junit.as_deref())?)
}
