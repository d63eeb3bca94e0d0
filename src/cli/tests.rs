//! Unit tests of the command line's validation: each rule refuses its bad value with one
//! line that names the option, and the same command line without it is accepted.

use super::*;
use crate::stop::Stop;

/// The message of a refused command line (a usage error is one line).
fn message(e: Quit) -> String {
    match e {
        Quit::Error(Error::Usage(m)) => {
            assert!(!m.contains('\n'), "a usage error on several lines: {m}");
            m
        }
        Quit::Error(other) => format!("not a usage error: {other}"),
        Quit::Code(n) => format!("clap printed and exits {n}"),
    }
}

/// Parses `xcheck a.bc b.bc WORDS…` as a check.
fn check(words: &[&str]) -> Result<(CheckArgs, Vec<String>), Quit> {
    let args = ["xcheck", "a.bc", "b.bc"]
        .iter()
        .chain(words)
        .map(OsString::from)
        .collect();
    match parse(args, &Stop::new())? {
        Command::Check(args, env) => Ok((*args, env)),
        _ => panic!("not a check: {words:?}"),
    }
}

/// A function check of `f` built from `xcheck a.bc b.bc WORDS…`: every validation a check's
/// command line goes through (engine, parameters, shard, jobs).
fn validated(words: &[&str]) -> Result<(), Quit> {
    let (args, _) = check(words)?;
    base_check(&args, Path::new("a.bc"), Path::new("b.bc"), "f", "f")?;
    shard_of(&args)?;
    jobs_of(&args.engine)?;
    parse_compare(&args.compare)?;
    Ok(())
}

/// `words` are refused with a message containing `cause`.
fn refused(words: &[&str], cause: &str) {
    let e = validated(words)
        .err()
        .unwrap_or_else(|| panic!("{words:?} accepted"));
    let m = message(e);
    assert!(m.contains(cause), "{words:?}: '{m}' does not say '{cause}'");
}

#[test]
fn a_plain_check_is_accepted() {
    assert!(validated(&["--function", "f"]).is_ok());
    let ok = [
        &["--jobs", "4"][..],
        &[
            "--buffer-size",
            "32",
            "--buffer-size",
            "p=8",
            "--buffer-cap",
            "64",
        ],
        &[
            "--max-time",
            "10s",
            "--solver-timeout",
            "0",
            "--defer-after",
            "2s",
        ],
        &["--search", "dfs", "--max-memory", "0"],
        &[
            "--ub",
            "machine",
            "--fp-equal",
            "ieee",
            "--globals",
            "initial",
        ],
        &["--fp-tolerance", "ulp:2", "--abstract-calls", "g,h"],
        &[
            "--shard",
            "1/2",
            "--shard-frontier",
            "4",
            "--compare",
            "stdout,exit",
        ],
    ];
    for words in ok {
        if let Err(e) = validated(words) {
            panic!("{words:?} refused: {}", message(e));
        }
    }
}

#[test]
fn each_engine_option_refuses_a_bad_value() {
    refused(&["--search", "sideways"], "--search");
    refused(&["--max-time", "soon"], "--max-time");
    refused(&["--solver-timeout", "x"], "--solver-timeout");
    refused(&["--defer-after", "x"], "--defer-after");
    refused(
        &["--max-memory", &format!("{}", MAX_MEMORY_MIB + 1)],
        "--max-memory",
    );
    refused(&["--solver", "cvc5"], "--solver");
    refused(
        &["--solver", "portfolio", "--cross-check-solver"],
        "--cross-check-solver",
    );
    refused(&["--jobs", "0"], "--jobs must be at least 1");
    refused(&["--jobs", &format!("{}", MAX_JOBS + 1)], "--jobs");
}

#[test]
fn each_parameter_option_refuses_a_bad_value() {
    refused(&["--buffer-size", "many"], "--buffer-size 'many'");
    refused(&["--buffer-size", "p=x"], "--buffer-size 'p=x'");
    refused(&["--buffer-size", "0"], "--buffer-size '0'");
    refused(
        &["--buffer-cap", &format!("{}", MAX_BUFFER_CAP + 1)],
        "--buffer-cap",
    );
    refused(&["--fp-equal", "roughly"], "--fp-equal");
    refused(&["--fp-tolerance", "ulp:x"], "--fp-tolerance");
    refused(&["--ub", "ignore"], "--ub");
    refused(&["--globals", "frozen"], "--globals");
    refused(&["--abstract-calls", ",,"], "--abstract-calls");
}

#[test]
fn program_and_shard_options_refuse_bad_values() {
    refused(
        &["--compare", "stdout,colour"],
        "--compare: unknown 'colour'",
    );
    refused(&["--shard", "3/2"], "--shard");
    refused(
        &["--shard", "1/2", "--shard-frontier", "0"],
        "--shard-frontier 0",
    );
}

#[test]
fn function_names_need_both_sides() {
    assert_eq!(
        function_names(" f = g ").ok(),
        Some(("f".to_string(), "g".to_string()))
    );
    for bad in ["", "=g", "f=", " = "] {
        let m = message(function_names(bad).unwrap_err());
        assert!(m.contains("expected f or f=g"), "{bad}: {m}");
    }
}

/// clap's own refusals are one line with its suggestion; `--tests-per-kind 0` is out of
/// its range; options after `--` that are xcheck's are refused, the programs' are kept.
#[test]
fn clap_errors_and_misplaced_options_are_one_line() {
    let m = message(check(&["--jbos", "2"]).expect_err("refused"));
    assert!(m.contains("did you mean '--jobs'?"), "{m}");
    let m = message(check(&["--tests-per-kind", "0"]).expect_err("refused"));
    assert!(m.contains("--tests-per-kind"), "{m}");
    let m = message(check(&["--", "-c", "--max-time", "90"]).expect_err("refused"));
    assert!(
        m.contains("'--max-time'") && m.contains("before '--'"),
        "{m}"
    );
    let (_, env) = check(&["--sym-stdin", "4", "--", "--help", "-x"]).unwrap_or_else(|e| {
        panic!("{}", message(e));
    });
    assert_eq!(env, ["--sym-stdin", "4", "--help", "-x"]);
}

#[test]
fn lib_needs_two_builds() {
    let args = ["xcheck", "lib", "old.so.bc"]
        .iter()
        .map(OsString::from)
        .collect();
    let m = message(parse(args, &Stop::new()).err().expect("refused"));
    assert!(m.contains("required") && m.contains("<B>"), "{m}");
}
