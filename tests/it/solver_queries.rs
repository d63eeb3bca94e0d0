//! Data-driven solver tests: every `tests/data/queries/*.query` file is one satisfiability
//! question for the full solver chain, with the expected answer.
//!
//! File format, one item per line (blank lines and lines starting with `#` are ignored):
//! - `array: NAME SIZE` (optional, 0..n) registers an input array with its size before any
//!   expression is parsed; arrays not declared get size `u32::MAX` from the parser;
//! - `constraint: SEXP` (0..n) is one path constraint;
//! - `query: SEXP` (exactly one) is the query;
//! - `expect: sat` or `expect: unsat` (exactly one) is the expected answer;
//! - `model: SEXP` (optional, 0..n, only with `expect: sat`) must evaluate to 1 under the
//!   returned model, to pin down the bytes a unique solution must have.
//!
//! Every file is solved by the default chain and by a bare backend (no cache, no independence,
//! validation on), each with Bitwuzla and with Z3, and by both chains with the other backend
//! cross-checking every answer (`--cross-check-solver`); every answer must match the
//! expectation. The test fails if the directory has no query file or if any file lacks a
//! query or an expectation.

use std::path::{Path, PathBuf};
use xcheck::expr::{ExprId, ExprPool};
use xcheck::solver::{build_chain, Backend, SatResult, SolverConfig, SolverStats};

/// One parsed query file.
struct QueryFile {
    pool: ExprPool,
    constraints: Vec<ExprId>,
    query: ExprId,
    expect_sat: bool,
    model_checks: Vec<ExprId>,
}

fn parse_file(path: &Path) -> Result<QueryFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let pool = ExprPool::new();
    let mut constraints = Vec::new();
    let mut query = None;
    let mut expect = None;
    let mut model_checks = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |message: String| format!("line {}: {message}", number + 1);
        let (key, value) = line
            .split_once(':')
            .ok_or_else(|| at(format!("expected `key: value`, found {line:?}")))?;
        let value = value.trim();
        let parse = |text: &str| {
            pool.parse_sexp(text)
                .map_err(|e| at(format!("cannot parse {text:?}: {e}")))
        };
        match key.trim() {
            "array" => {
                let (name, size) = value
                    .split_once(' ')
                    .and_then(|(name, size)| Some((name, size.trim().parse::<u32>().ok()?)))
                    .ok_or_else(|| at(format!("expected `array: NAME SIZE`, found {value:?}")))?;
                pool.new_array(name, size);
            }
            "constraint" => constraints.push(parse(value)?),
            "query" if query.is_some() => return Err(at("a second `query:` line".into())),
            "query" => query = Some(parse(value)?),
            "expect" if expect.is_some() => return Err(at("a second `expect:` line".into())),
            "expect" => {
                expect = Some(match value {
                    "sat" => true,
                    "unsat" => false,
                    other => return Err(at(format!("expected sat or unsat, found {other:?}"))),
                })
            }
            "model" => model_checks.push(parse(value)?),
            other => return Err(at(format!("unknown key {other:?}"))),
        }
    }
    let query = query.ok_or("no `query:` line")?;
    let expect_sat = expect.ok_or("no `expect:` line")?;
    if !expect_sat && !model_checks.is_empty() {
        return Err("`model:` lines need `expect: sat`".into());
    }
    Ok(QueryFile {
        pool,
        constraints,
        query,
        expect_sat,
        model_checks,
    })
}

/// Solves `file` with the chain configured by `cfg` and checks the answer; returns the
/// chain's counters.
fn run(file: &QueryFile, cfg: &SolverConfig) -> Result<SolverStats, String> {
    let mut solver = build_chain(cfg);
    let result = solver
        .check(&file.pool, &file.constraints, file.query)
        .map_err(|e| format!("solver error: {e}"))?;
    match (result, file.expect_sat) {
        (SatResult::Sat(model), true) => {
            for &check in &file.model_checks {
                if file.pool.eval(check, &model) != 1 {
                    return Err(format!(
                        "model {model:?} fails `model: {}`",
                        file.pool.to_sexp(check)
                    ));
                }
            }
            Ok(solver.stats())
        }
        (SatResult::Unsat, false) => Ok(solver.stats()),
        (other, expect_sat) => Err(format!(
            "expected {}, got {other:?}",
            if expect_sat { "sat" } else { "unsat" }
        )),
    }
}

fn query_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/queries");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "query"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_query_file_gets_its_expected_answer() {
    let files = query_files();
    assert!(!files.is_empty(), "no .query files in tests/data/queries");
    let bare = SolverConfig {
        cache: false,
        cex_cache: false,
        independence: false,
        ranges: false,
        enumerate: false,
        ..SolverConfig::default()
    };
    let disagreements = tempfile::tempdir().unwrap();
    let mut configs = Vec::new();
    for backend in Backend::ALL {
        let name = backend.name();
        let chain = SolverConfig {
            backend,
            ..SolverConfig::default()
        };
        let bare = SolverConfig {
            backend,
            ..bare.clone()
        };
        let cross_check = Some(disagreements.path().to_path_buf());
        let checked_chain = SolverConfig {
            cross_check: cross_check.clone(),
            ..chain.clone()
        };
        let checked_bare = SolverConfig {
            cross_check,
            ..bare.clone()
        };
        configs.push((format!("{name}, default chain"), chain));
        configs.push((format!("{name}, bare"), bare));
        configs.push((
            format!("{name}, default chain, cross-checked"),
            checked_chain,
        ));
        configs.push((format!("{name}, bare, cross-checked"), checked_bare));
    }
    let mut failures = Vec::new();
    let mut totals = SolverStats::default();
    let (mut sat, mut unsat) = (0, 0);
    for path in &files {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let file = match parse_file(path) {
            Ok(file) => file,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        for (label, cfg) in &configs {
            match run(&file, cfg) {
                Ok(stats) => totals.add(&stats),
                Err(e) => failures.push(format!("{name} ({label}): {e}")),
            }
        }
        if file.expect_sat {
            sat += 1;
        } else {
            unsat += 1;
        }
    }
    let written = std::fs::read_dir(disagreements.path()).unwrap().count();
    assert_eq!(written, 0, "the cross-check wrote disagreement files");
    assert!(
        failures.is_empty(),
        "{} of {} query files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    // Most files reach a backend in the bare configurations, so the cross-check must have
    // compared many answers.
    assert_eq!(totals.crosscheck_disagreements, 0);
    assert!(
        totals.crosscheck_queries >= files.len() as u64,
        "only {} answers cross-checked",
        totals.crosscheck_queries
    );
    eprintln!(
        "{} query files checked: {sat} sat, {unsat} unsat; {} answers cross-checked",
        files.len(),
        totals.crosscheck_queries
    );
}
