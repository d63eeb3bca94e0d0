//! `xcheck replay`: reruns tests concretely — in the engine on the bitcode files (function
//! and program tests), or natively on binaries (`--native`: `xcheck cc` builds of whole
//! programs, two or three of them, or a generated driver around the two functions).

use crate::cli::{
    apply_params, function_names, parse_compare, parse_duration, usage, Quit, ReplayArgs,
};
use crate::crosscheck::program::ProgramCheck;
use crate::crosscheck::{engine_replay_file, FunctionCheck};
use crate::error::Error;
use crate::ktest::KTest;
use crate::report::console;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(super) fn run(args: ReplayArgs) -> Result<i32, Quit> {
    // Options are checked before anything is read.
    let timeout = parse_duration("--timeout", &args.timeout)?;
    let mut compare = parse_compare(&args.compare)?;
    compare.ignore_spacing = args.ignore_spacing;
    let tests = crate::native::replay::tests_of(&args.test)?;
    if tests.is_empty() {
        // A run that found no divergence wrote no test: nothing to confirm.
        print!("{}", console::no_tests(&args.test));
        return Ok(0);
    }
    if let Some(bins) = &args.native {
        if bins.len() == 3 {
            if args.function.is_some() {
                return Err(usage(format!(
                    "--native {}: three binaries replay the tests of a three-way program check; --function compares two",
                    bins[2].display()
                )));
            }
            return native_three(&args, bins, &tests, compare, timeout);
        }
        if let Some(function) = &args.function {
            return native_function(&args, (&bins[0], &bins[1]), function, &tests, timeout);
        }
        return native_pair(&args, (&bins[0], &bins[1]), &tests, compare, timeout);
    }
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        return Err(usage(
            "give two bitcode files (A.bc B.bc), or --native A B for native binaries".into(),
        ));
    };
    let Some(function) = &args.function else {
        // Whole-program tests, replayed in the engine.
        let mut check = ProgramCheck::new(a, b);
        check.c_path = args.c.clone();
        check.compare = compare;
        check.exec.stop = args.stop.clone();
        check.solver.stop = args.stop.clone();
        let rows = crate::crosscheck::program::replay_dir(&check, &tests)?;
        let replayed = rows.len();
        let mut differ = false;
        for (t, row) in rows {
            differ |= row.verdict.is_difference();
            let verdict = row.verdict.to_string();
            let detail = match &row.three {
                Some(three) => format!("C: {}; {}", three.result_c, row.detail),
                None => row.detail.clone(),
            };
            print!(
                "{}",
                console::engine_replay(&t, &row.result_a, &row.result_b, &verdict, &detail)
            );
        }
        if replayed < tests.len() {
            return Ok(interrupted_replay(tests.len() - replayed));
        }
        return Ok(differ as i32);
    };
    if let Some(c) = &args.c {
        return Err(usage(format!(
            "{}: three bitcode files replay the tests of a three-way program check; --function compares two",
            c.display()
        )));
    }
    let (fa, fb) = function_names(function)?;
    let mut check = FunctionCheck::new(a, b, &fa, &fb);
    apply_params(&mut check, &args.params)?;
    check.exec.stop = args.stop.clone();
    check.solver.stop = args.stop.clone();
    let mut differ = false;
    for (i, t) in tests.iter().enumerate() {
        if args.stop.interrupted() {
            return Ok(interrupted_replay(tests.len() - i));
        }
        let (verdict, a, b) = engine_replay_file(&check, t)?;
        differ |= verdict.is_difference();
        print!(
            "{}",
            console::engine_replay(t, &a.to_string(), &b.to_string(), &verdict.to_string(), "")
        );
    }
    Ok(if differ { 1 } else { 0 })
}

/// A test's file name, as a report names it.
fn test_name(test: &Path) -> String {
    test.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every binary a native replay names must exist.
fn native_binaries_exist<P: AsRef<Path>>(bins: impl IntoIterator<Item = P>) -> Result<(), Quit> {
    for bin in bins {
        if !bin.as_ref().is_file() {
            return Err(Quit::Error(Error::input(
                bin.as_ref(),
                "no such native binary",
            )));
        }
    }
    Ok(())
}

/// `xcheck replay DIR --native A B`: runs both binaries on every test and says whether
/// each divergence the engine reported happens natively. Exit 0 only when all do.
fn native_pair(
    args: &ReplayArgs,
    (a, b): (&Path, &Path),
    tests: &[PathBuf],
    compare: crate::crosscheck::program::Compare,
    timeout: Duration,
) -> Result<i32, Quit> {
    use crate::crosscheck::program::quote;
    use crate::native::replay::NativeOutcome;
    native_binaries_exist([a, b])?;
    // Which tests the report calls divergences (all of them when there is no report).
    let expected = crate::native::replay::divergent_tests(&args.test);
    let mut all_confirmed = true;
    for (i, t) in tests.iter().enumerate() {
        if args.stop.interrupted() {
            return Ok(interrupted_replay(tests.len() - i));
        }
        let name = test_name(t);
        let divergent = expected.as_ref().is_none_or(|set| set.contains(&name));
        let outcome = crate::native::replay::native_replay_pair(
            t,
            (a, b),
            compare,
            timeout,
            &args.stop,
            divergent,
        )?;
        all_confirmed &= outcome.as_engine_said();
        match &outcome {
            NativeOutcome::Impossible { why, .. } => {
                print!("{}", console::native_impossible(t, why))
            }
            NativeOutcome::Ran {
                env,
                a,
                b,
                divergent,
                differ,
            } => {
                let argv: Vec<String> = env.argv.iter().map(|x| quote(x)).collect();
                print!(
                    "{}",
                    console::native_replay(&console::NativeEntry {
                        test: t,
                        argv: argv.join(" "),
                        stdin: quote(&env.stdin),
                        a: (a.end(), quote(&a.stdout)),
                        b: (b.end(), quote(&b.stdout)),
                        divergent: *divergent,
                        differ: *differ,
                    })
                );
            }
        }
    }
    Ok(if all_confirmed { 0 } else { 1 })
}

/// `xcheck replay DIR --native A B C`: runs the three binaries on every test and says
/// whether they agree as the engine found (`C differs`…, from the directory's report.json).
/// Exit 0 only when all do.
fn native_three(
    args: &ReplayArgs,
    bins: &[PathBuf],
    tests: &[PathBuf],
    compare: crate::crosscheck::program::Compare,
    timeout: Duration,
) -> Result<i32, Quit> {
    use crate::crosscheck::program::quote;
    native_binaries_exist(bins)?;
    let expected = crate::native::replay::three_way_agreements(&args.test).unwrap_or_default();
    let mut all_confirmed = true;
    for (i, t) in tests.iter().enumerate() {
        if args.stop.interrupted() {
            return Ok(interrupted_replay(tests.len() - i));
        }
        let name = test_name(t);
        let engine = expected.get(&name);
        match crate::native::replay::native_replay_three(t, bins, compare, timeout, &args.stop)? {
            Err(why) => {
                all_confirmed = false;
                print!("{}", console::native_impossible(t, &why));
            }
            Ok(run) => {
                let argv: Vec<String> = run.env.argv.iter().map(|x| quote(x)).collect();
                let mut text = format!(
                    "{}: argv {}, stdin {}\n",
                    t.display(),
                    argv.join(" "),
                    quote(&run.env.stdin)
                );
                for (side, r) in ["A", "B", "C"].iter().zip(&run.runs) {
                    text.push_str(&format!(
                        "  {side}: {}, stdout {}\n",
                        r.end(),
                        quote(&r.stdout)
                    ));
                }
                let status = match engine {
                    Some(e) if *e == run.agreement => {
                        format!("{} natively, as the engine found", run.agreement)
                    }
                    Some(e) => {
                        all_confirmed = false;
                        format!(
                            "{} natively, the engine found {e}: NOT confirmed (engine or model bug)",
                            run.agreement
                        )
                    }
                    None => {
                        all_confirmed = false;
                        format!(
                            "{} natively (not a three-way test of report.json)",
                            run.agreement
                        )
                    }
                };
                println!("{text}  => {status}");
            }
        }
    }
    Ok(if all_confirmed { 0 } else { 1 })
}

/// `xcheck replay DIR --native A.bc B.bc --function f[=g]`: builds one native executable
/// of the pair, runs both sides on every test and says whether each divergence the engine
/// reported happens natively. Exit 0 only when all do.
fn native_function(
    args: &ReplayArgs,
    (a, b): (&Path, &Path),
    function: &str,
    tests: &[PathBuf],
    timeout: Duration,
) -> Result<i32, Quit> {
    use crate::native::function;
    let (fa, fb) = function_names(function)?;
    let mut check = FunctionCheck::new(a, b, &fa, &fb);
    apply_params(&mut check, &args.params)?;
    let sig = crate::crosscheck::signature_of(&check)?;
    let expected = crate::native::replay::divergent_tests(&args.test);
    let divergent = |t: &Path| {
        let name = test_name(t);
        expected.as_ref().is_none_or(|set| set.contains(&name))
    };
    if let Err(why) = function::supported(&sig) {
        // Every test says why; a reported divergence is then not confirmed.
        for t in tests {
            print!("{}", console::native_impossible(t, &why));
        }
        return Ok(tests.iter().any(|t| divergent(t)) as i32);
    }
    let started = std::time::Instant::now();
    let build = function::build((a, &fa), (b, &fb), &sig, check.compare_buffers)?;
    let built = started.elapsed();
    // The tests run on every core (each run is mostly process start-up); printed in order.
    use rayon::prelude::*;
    let runs: Vec<Option<Result<crate::native::function::FnRun, Error>>> = tests
        .par_iter()
        .map(|t| {
            (!args.stop.interrupted()).then(|| {
                let ktest = KTest::read(t).map_err(Error::from)?;
                build.run(t, &ktest, timeout, &args.stop)
            })
        })
        .collect();
    let mut all_confirmed = true;
    for (i, (t, run)) in tests.iter().zip(runs).enumerate() {
        let Some(run) = run else {
            return Ok(interrupted_replay(tests.len() - i));
        };
        let run = run?;
        let divergent = divergent(t);
        all_confirmed &= divergent == run.differ;
        let (da, db) = (build.describe(&run.a), build.describe(&run.b));
        print!(
            "{}",
            console::native_function_replay(t, &run.inputs, (&da, &db), divergent, run.differ)
        );
    }
    eprintln!(
        "native: built in {:.2}s, {} test{} run in {:.2}s",
        built.as_secs_f64(),
        tests.len(),
        if tests.len() == 1 { "" } else { "s" },
        (started.elapsed() - built).as_secs_f64()
    );
    Ok(if all_confirmed { 0 } else { 1 })
}

/// Says that a replay was interrupted with `left` tests to go; returns exit code 3.
fn interrupted_replay(left: usize) -> i32 {
    print!("{}", console::interrupted_replay(left));
    3
}
