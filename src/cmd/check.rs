//! A check of two bitcode files: a function pair (`--function`), two or three whole
//! programs, or a gate's functions (`--all-functions`, `--config`: `cmd/gate.rs`); judged by
//! `--fail-on`, printed as a table or a `--json` line.

use crate::cli::{
    base_check, engine_config, function_names, jobs_of, parse_compare, shard_of, tests_per_kind_of,
    usage, CheckArgs, Quit,
};
use crate::config::{parse_fail_on, FailOn};
use crate::crosscheck::check_functions;
use crate::crosscheck::program::ProgramCheck;
use crate::env_options::EnvOptions;
use crate::gate;
use crate::report::json::{JsonLine, Mode};
use crate::report::progress::Bar;
use crate::report::{console, render_table, render_table_limited, TERMINAL_ROWS};
use std::path::Path;

/// Runs the check the arguments describe and returns its exit code.
pub(super) fn run(args: CheckArgs, env: Vec<String>) -> Result<i32, Quit> {
    let fail_on = match &args.fail_on {
        Some(list) => Some(parse_fail_on(list).map_err(|m| usage(format!("--fail-on: {m}")))?),
        None => None,
    };
    if let Some(path) = &args.config {
        return super::gate::config(&args, path, fail_on);
    }
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        return Err(usage("give two bitcode files, or --config FILE".into()));
    };
    if let Some(c) = &args.c {
        if args.all_functions || args.function.is_some() {
            return Err(usage(format!(
                "{}: three bitcode files make a three-way program check; --function and --all-functions compare two",
                c.display()
            )));
        }
    }
    if !env.is_empty() && (args.all_functions || args.function.is_some()) {
        return Err(usage(format!(
            "'{}' is an option of whole-program checks; it does not apply to --function or --all-functions",
            env[0]
        )));
    }
    if args.all_functions {
        return super::gate::all_functions(&args, a, b, fail_on);
    }
    let Some(spec) = &args.function else {
        return check_programs(&args, a, b, env, fail_on);
    };
    let (fa, fb) = function_names(spec)?;
    let mut check = base_check(&args, a, b, &fa, &fb)?;
    check.native = Some(crate::native::replay::native_functions());
    check.out_dir = args.output_dir.clone();
    check.exec.jobs = jobs_of(&args.engine)?;
    check.exec.shard = shard_of(&args)?;
    let bar = Bar::start(!args.json);
    check.exec.progress = bar.as_ref().map(|(p, _)| p.clone());
    let outcome = check_functions(&check);
    drop(bar);
    let report = outcome?.report;
    let function = if fa == fb { fa } else { format!("{fa}={fb}") };
    finish_check(&args, Some(function), &report, fail_on.as_deref())
}

/// `xcheck A B [ENV…]`: crosschecks two whole programs.
fn check_programs(
    args: &CheckArgs,
    a: &Path,
    b: &Path,
    env: Vec<String>,
    fail_on: Option<Vec<FailOn>>,
) -> Result<i32, Quit> {
    if !args.params.assume.is_empty()
        || !args.params.buffer_size.is_empty()
        || args.params.buffer_cap.is_some()
        || args.params.buffer_offset.is_some()
        || args.params.alias.is_some()
        || args.params.abstract_calls.is_some()
    {
        return Err(usage(
            "--assume, --buffer-size, --buffer-cap, --buffer-offset, --alias and --abstract-calls apply to function checks (--function)"
                .into(),
        ));
    }
    let mut check = ProgramCheck::new(a, b);
    check.c_path = args.c.clone();
    if let Some(name) = &args.argv0 {
        check.argv0 = name.clone();
    }
    if !env.is_empty() {
        check.env = EnvOptions::parse(&env).map_err(|e| usage(e.to_string()))?;
    }
    let mut compare = parse_compare(&args.compare)?;
    if args.ignore_exit_code {
        compare.exit = false;
    }
    compare.ignore_spacing = args.ignore_spacing;
    check.compare = compare;
    check.native = Some(crate::native::replay::native_runner(compare));
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    check.exec = exec;
    check.solver = solver;
    check.out_dir = args.output_dir.clone();
    check.tests_per_kind = tests_per_kind_of(args.all_tests, args.tests_per_kind);
    check.exec.jobs = jobs_of(&args.engine)?;
    check.exec.shard = shard_of(args)?;
    let bar = Bar::start(!args.json);
    check.exec.progress = bar.as_ref().map(|(p, _)| p.clone());
    let outcome = crate::crosscheck::program::check_programs(&check);
    drop(bar);
    let report = outcome?.report;
    finish_check(args, None, &report, fail_on.as_deref())
}

/// Judges one function check (`function` given) or program check by the `--fail-on`
/// policy, writes its JUnit file, prints its `--json` line or its table, and returns the
/// exit code.
fn finish_check(
    args: &CheckArgs,
    function: Option<String>,
    report: &crate::report::Report,
    fail_on: Option<&[FailOn]>,
) -> Result<i32, Quit> {
    let (mode, label) = match &function {
        Some(f) => (Mode::Function, f.as_str()),
        None => (Mode::Program, "main"),
    };
    let (failed, code) = gate::judge(report, label, fail_on, args.junit.as_deref())?;
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        return Err(usage("give two bitcode files, or --config FILE".into()));
    };
    // In GitHub Actions, an annotation at the source line where the sides part when the
    // check fails (on stderr with --json, whose stdout is the JSON line).
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        let row = gate::report::GateRow {
            label: function
                .clone()
                .unwrap_or_else(|| report.summary.title.clone()),
            outcome: Ok(report),
            failed: failed.unwrap_or(code != 0),
            accepted: false,
        };
        if let Some(line) = gate::report::github_annotation(&row, b) {
            if args.json {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        }
    }
    if args.json {
        let line = JsonLine::check(
            mode,
            1,
            function,
            (a, b),
            &args.output_dir,
            Ok(report),
            failed.unwrap_or(code != 0),
            None,
        );
        println!("{}", line.render());
        return Ok(code);
    }
    match mode {
        Mode::Program => print!("{}", render_table_limited(report, TERMINAL_ROWS)),
        _ => print!("{}", render_table(report)),
    }
    print!("{}", console::written_to(&args.output_dir));
    Ok(code)
}
