//! `xcheck suite DIR`: crosschecks every utility of a suite, each check a child process.

use crate::cli::{default_memory_cap, parse_compare, usage, Quit, SuiteArgs};
use crate::report::console;
use std::ffi::OsString;

/// The most checks `xcheck suite -j` runs at once.
const MAX_SUITE_JOBS: usize = 64;

/// Runs the suite's checks and returns its exit code.
pub(super) fn run(args: SuiteArgs, stop: &crate::stop::Stop) -> Result<i32, Quit> {
    let mut compare = parse_compare(&args.compare)?;
    compare.ignore_spacing = args.ignore_spacing;
    let known = match &args.mismatches {
        Some(path) => crate::suite::read_mismatches(path)?,
        None => Vec::new(),
    };
    if args.jobs == 0 || args.jobs > MAX_SUITE_JOBS {
        return Err(usage(format!(
            "-j: from 1 to {MAX_SUITE_JOBS} checks at once"
        )));
    }
    let exe = std::env::current_exe()
        .map_err(|e| usage(format!("cannot find this executable to run checks: {e}")))?;
    let mut check_args: Vec<OsString> = vec!["--compare".into(), args.compare.clone().into()];
    if args.ignore_spacing {
        check_args.push("--ignore-spacing".into());
    }
    // Checks that run at once share the memory a single check may take by default (half
    // the machine's), so that together they do not get the process killed by the kernel.
    let given = |o: &str| {
        args.check.iter().any(|a| {
            a.to_str()
                .is_some_and(|a| a == o || a.starts_with(&format!("{o}=")))
        })
    };
    if !given("--max-memory") {
        if let Some(cap) = default_memory_cap() {
            let mib = ((cap / args.jobs as u64) >> 20).max(1);
            check_args.extend(["--max-memory".into(), mib.to_string().into()]);
        }
    }
    check_args.extend(args.check.iter().cloned());
    let suite = crate::suite::Suite {
        exe,
        dir: args.dir,
        against: args.against,
        sides: args.sides,
        only: args.only,
        output_dir: args.output_dir.clone(),
        jobs: args.jobs,
        check_args,
        stop: stop.clone(),
        three: args.three,
        known,
        compare,
    };
    let report = suite.run()?;
    print!("{}", report.render_table());
    print!("{}", console::written_to(&args.output_dir));
    Ok(crate::suite::exit_code(&report))
}
