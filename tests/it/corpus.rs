//! Every pair of `corpora/` at -O0 and -O2, compiled by clang-19 and by clang-14, and with
//! side A from clang-14 against side B from clang-19 (a compiler upgrade): the verdict
//! matches `case.toml`, every counterexample was confirmed by concrete replay, and
//! `xcheck replay` reproduces it.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(serde::Deserialize)]
pub(crate) struct Case {
    pub(crate) function: Option<String>,
    pub(crate) a: Option<String>,
    pub(crate) b: Option<String>,
    pub(crate) check: Vec<Check>,
}

#[derive(serde::Deserialize)]
pub(crate) struct Check {
    #[serde(default)]
    pub(crate) args: Vec<String>,
    pub(crate) expect: String,
}

pub(crate) fn build_dir() -> PathBuf {
    std::env::var_os("XCHECK_BUILD_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("build"))
}

/// Builds the corpus once per test process: the tests of this file run in parallel, and two
/// runs of the script must not write the same files at once.
pub(crate) fn build_corpora() {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        let status = Command::new("bash")
            .arg(repo().join("scripts/build-corpora.sh"))
            .status()
            .expect("bash runs");
        assert!(status.success(), "scripts/build-corpora.sh failed");
    });
}

pub(crate) fn cases() -> Vec<(String, Case)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(repo().join("corpora")).unwrap() {
        let dir = entry.unwrap().path();
        let toml_path = dir.join("case.toml");
        if !toml_path.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&toml_path).unwrap();
        let case: Case =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", toml_path.display()));
        assert!(
            !case.check.is_empty(),
            "{} has no [[check]]: every case must expect something",
            toml_path.display()
        );
        out.push((
            dir.file_name().unwrap().to_string_lossy().into_owned(),
            case,
        ));
    }
    out.sort_by(|x, y| x.0.cmp(&y.0));
    assert!(
        out.len() >= 15,
        "the corpus must have at least 15 pairs, found {}",
        out.len()
    );
    out
}

fn expected_code(expect: &str) -> i32 {
    match expect {
        "equivalent" => 0,
        "diverged" => 1,
        "inconclusive" => 3,
        other => panic!("unknown expectation '{other}'"),
    }
}

/// The corpus directory of each compiler (`scripts/build-corpora.sh`).
const CLANG19: &str = "corpora";
const CLANG14: &str = "corpora-clang14";

fn run_check(name: &str, case: &Case, check: &Check, opt: &str, out: &Path) -> Vec<String> {
    run_check_from(name, case, check, opt, (CLANG19, CLANG19), out)
}

/// Runs one check with side A from the corpus directory `from.0` and B from `from.1`.
fn run_check_from(
    name: &str,
    case: &Case,
    check: &Check,
    opt: &str,
    from: (&str, &str),
    out: &Path,
) -> Vec<String> {
    let mut failures = Vec::new();
    let a = build_dir()
        .join(from.0)
        .join(name)
        .join(format!("a.{opt}.bc"));
    let b = build_dir()
        .join(from.1)
        .join(name)
        .join(format!("b.{opt}.bc"));
    let spec = match (&case.function, &case.a, &case.b) {
        (Some(f), _, _) => f.clone(),
        (None, Some(a), Some(b)) => format!("{a}={b}"),
        _ => panic!("{name}: case.toml needs `function` or `a` and `b`"),
    };
    let mut args: Vec<String> = vec![
        a.display().to_string(),
        b.display().to_string(),
        "--function".into(),
        spec.clone(),
        "-o".into(),
    ];
    args.push(out.display().to_string());
    args.extend(check.args.iter().cloned());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = xcheck(&repo(), &argv);
    let label = if from == (CLANG19, CLANG19) {
        format!("{name} {opt} {:?}", check.args)
    } else {
        format!(
            "{name} {opt} {:?} (A from {}, B from {})",
            check.args, from.0, from.1
        )
    };
    let want = expected_code(&check.expect);
    if o.status.code() != Some(want) {
        failures.push(format!(
            "{label}: expected {} (exit {want}), got exit {:?}\n{}{}",
            check.expect,
            o.status.code(),
            stdout(&o),
            stderr(&o)
        ));
        return failures;
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let rows = report["rows"].as_array().unwrap();
    for row in rows {
        if !row["ktest"].is_null() && row["confirmed"] != serde_json::Value::Bool(true) {
            failures.push(format!(
                "{label}: row {} was not confirmed by concrete replay",
                row["id"]
            ));
        }
    }
    if check.expect == "diverged" {
        // Replay every test of the run through the command line: each must still differ or fail.
        let mut replay: Vec<String> = vec![
            "replay".into(),
            out.display().to_string(),
            a.display().to_string(),
            b.display().to_string(),
            "--function".into(),
            spec,
        ];
        let mut it = check.args.iter();
        while let Some(x) = it.next() {
            if x == "--buffer-size" || x == "--assume" {
                replay.push(x.clone());
                replay.push(it.next().unwrap().clone());
            }
        }
        let argv: Vec<&str> = replay.iter().map(String::as_str).collect();
        let o = xcheck(&repo(), &argv);
        if o.status.code() != Some(1) {
            failures.push(format!(
                "{label}: replay of the counterexamples did not show a difference\n{}{}",
                stdout(&o),
                stderr(&o)
            ));
        }
    }
    failures
}

/// Runs every check of the corpus at `levels` with the sides from `from`.
fn check_all(levels: &[&str], from: (&str, &str)) {
    build_corpora();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, case) in cases() {
        for check in &case.check {
            for opt in levels {
                let out = tempfile::tempdir().unwrap();
                failures.extend(run_check_from(&name, &case, check, opt, from, out.path()));
                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} corpus checks failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_corpus_verdict_holds_at_o0_and_o2() {
    check_all(&["O0", "O2"], (CLANG19, CLANG19));
}

// See: #14, bitcode from today's compilers: clang-14 bitcode, upgraded by LLVM 19's reader,
// keeps every verdict.
#[test]
fn every_corpus_verdict_holds_for_clang14_bitcode_at_o0_and_o2() {
    check_all(&["O0", "O2"], (CLANG14, CLANG14));
}

// See: #14. A compiler upgrade: the old build (clang-14) against the new (clang-19).
#[test]
fn every_corpus_verdict_holds_from_clang14_against_clang19() {
    check_all(&["O0", "O2"], (CLANG14, CLANG19));
}

/// The value of the report counter `name` in `out/report.json` (0 when it is not listed).
fn counter(out: &Path, name: &str) -> u64 {
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    report["summary"]["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pair| pair[0] == name)
        .map_or(0, |pair| pair[1].as_u64().unwrap())
}

/// Runs the first check of each of `names` at -O0 with `extra` arguments added; every verdict
/// must still hold. Returns the failures and the output directories.
fn run_with(names: &[&str], extra: &[&str]) -> (Vec<String>, Vec<tempfile::TempDir>) {
    build_corpora();
    let (mut failures, mut outs) = (Vec::new(), Vec::new());
    for (name, case) in cases() {
        if !names.contains(&name.as_str()) {
            continue;
        }
        let mut check = Check {
            args: case.check[0].args.clone(),
            expect: case.check[0].expect.clone(),
        };
        check.args.extend(extra.iter().map(|s| s.to_string()));
        let out = tempfile::tempdir().unwrap();
        failures.extend(run_check(&name, &case, &check, "O0", out.path()));
        outs.push(out);
    }
    assert_eq!(outs.len(), names.len(), "a corpus pair is missing");
    (failures, outs)
}

/// Pairs whose checks reach the backend: one divergence, two proofs over memory.
const SOLVER_PAIRS: [&str; 3] = ["checked_add", "array_max", "memcmp"];

/// The cross-check compares every answer of the backend and of the layers that answer
/// without it: range rewriting, enumeration and boundary models.
#[test]
fn cross_checked_runs_keep_their_verdicts_and_compare_every_answer_below_them() {
    let (failures, outs) = run_with(&SOLVER_PAIRS, &["--cross-check-solver"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let mut compared = 0;
    for out in &outs {
        let answers = counter(out.path(), "backend queries")
            + counter(out.path(), "enumerated")
            + counter(out.path(), "ranges: decided unsat")
            + counter(out.path(), "boundary models");
        let checked = counter(out.path(), "cross-check: answers compared");
        let unknown = counter(out.path(), "cross-check: not compared (unknown)");
        assert_eq!(checked + unknown, answers, "{}", out.path().display());
        assert_eq!(counter(out.path(), "cross-check: disagreements"), 0);
        compared += checked;
    }
    assert!(compared > 20, "only {compared} answers compared");
}

#[test]
fn z3_as_the_backend_gives_the_same_verdicts() {
    let (failures, outs) = run_with(&SOLVER_PAIRS, &["--solver", "z3"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let answers: u64 = outs
        .iter()
        .map(|out| counter(out.path(), "backend queries"))
        .sum();
    assert!(answers > 20, "only {answers} backend answers");
}

#[test]
fn the_portfolio_gives_the_same_verdicts_and_counts_each_backend() {
    let (failures, outs) = run_with(&SOLVER_PAIRS, &["--solver", "portfolio"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let (mut bitwuzla, mut z3) = (0, 0);
    for out in &outs {
        let path = out.path();
        let answers = [
            counter(path, "portfolio: bitwuzla answers"),
            counter(path, "portfolio: z3 answers"),
        ];
        // Every answer is a check of one backend; a check is cancelled only in a race.
        let checks = counter(path, "backend queries");
        assert!(answers[0] + answers[1] <= checks, "{}", path.display());
        let cancelled = counter(path, "portfolio: checks cancelled");
        assert!(cancelled <= counter(path, "portfolio: races"));
        (bitwuzla, z3) = (bitwuzla + answers[0], z3 + answers[1]);
    }
    assert!(
        bitwuzla + z3 > 20,
        "only {bitwuzla} + {z3} portfolio answers"
    );
}

#[test]
fn logged_queries_replay_with_both_backends_without_mismatch() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("queries.smt2");
    // Boundary models answer most of checked_add's branch queries without the backend;
    // the log is about the backend's queries.
    let (failures, _outs) = run_with(
        &["checked_add"],
        &[
            "--log-queries",
            log.to_str().unwrap(),
            "--no-boundary-models",
        ],
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let text = std::fs::read_to_string(&log).unwrap();
    let logged = text.matches("\n; query ").count();
    assert!(logged >= 5, "only {logged} queries logged:\n{text}");
    let o = xcheck(
        &repo(),
        &["query", log.to_str().unwrap(), "--solver", "both"],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.ends_with(&format!("{logged} queries replayed, 0 mismatches\n")),
        "{out}"
    );
    assert_eq!(out.matches("; bitwuzla ").count(), logged, "{out}");
    assert_eq!(out.matches("; z3 ").count(), logged, "{out}");
}

/// The paths of the check whose report is in `out`.
fn paths(out: &Path) -> u64 {
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    report["summary"]["paths"].as_u64().unwrap()
}

/// Function checks with many branches keep their verdicts, counterexamples and path counts
/// when nearly every query waits (`--defer-after` of a microsecond: the branch side the
/// path's model does not take is split off unchecked, and a path's end whose question,
/// do the results differ, goes unanswered is handed back; both are retried with the full
/// limit).
#[test]
fn function_checks_keep_their_verdicts_when_queries_wait() {
    let names = [
        "day_of_year",
        "is_pow2",
        "memchr",
        "fp_bisect_le",
        "checksum_bound",
    ];
    let (failures, waiting) = run_with(&names, &["--defer-after", "0.001ms"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let (failures, at_once) = run_with(&names, &["--defer-after", "0"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let count =
        |outs: &[tempfile::TempDir]| -> Vec<u64> { outs.iter().map(|o| paths(o.path())).collect() };
    assert_eq!(count(&waiting), count(&at_once), "paths of {names:?}");
    let waited = |what: &str| -> u64 { waiting.iter().map(|o| counter(o.path(), what)).sum() };
    assert!(waited("deferred branch sides") > 0, "no branch side waited");
    assert!(waited("deferred path ends") > 0, "no path end waited");
}
