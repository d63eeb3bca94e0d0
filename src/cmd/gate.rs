//! The gate's modes of a check: every function both modules define (`--all-functions`) or
//! the jobs of a config file (`--config`), in parallel; one table, `summary.md`, JUnit.

use crate::cli::{
    abstract_calls_of, base_check, engine_config, globals_of, shard_of, tests_per_kind_of, usage,
    CheckArgs, Exit,
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
) -> Result<i32, Exit> {
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
        return Err(Exit::Error(gate::nothing_to_check(
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
    let results = gate::run_jobs(&module, jobs, &fail_on);
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
) -> Result<Vec<gate::Job>, Exit> {
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
) -> Result<i32, Exit> {
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
    let (mut labels, mut places) = (Vec::new(), Vec::new());
    let mut sections = Vec::new();
    for (i, pair) in cfg.pairs.iter().enumerate() {
        let abstract_calls = pair.abstract_calls(&cfg.defaults, &base.exec.abstract_calls);
        let module = gate::load_pair(&pair.a, &pair.b, abstract_calls)?;
        let (jobs, skipped) = gate::config_jobs(&cfg, i, &module, &base);
        if jobs.is_empty() {
            eprintln!(
                "xcheck: warning: {}: pair {} selects no function",
                path.display(),
                i + 1
            );
            return Err(Exit::Error(gate::nothing_to_check(
                &pair.include,
                &pair.exclude,
            )));
        }
        let offset = labels.len();
        labels.extend(jobs.iter().map(gate::Job::label));
        let (mine, jobs): (Vec<usize>, Vec<gate::Job>) =
            gate::shard_jobs(jobs, offset, shard).into_iter().unzip();
        places.push(mine);
        let results = gate::run_jobs(&module, jobs, &fail_on);
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

/// Prints the gate's results, writes its `summary.md`, `report.html` and JUnit, and decides the exit code.
fn finish_gate(args: &CheckArgs, sections: Vec<gate::Section>) -> Result<i32, Exit> {
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
) -> Result<i32, Exit> {
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
