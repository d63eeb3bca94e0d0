//! Independent oracles on a small fixed sample: Csmith programs crosschecked at -O0 against
//! -O2 with no symbolic input must be proved equivalent and show the native binaries'
//! output (`scripts/csmith.sh`), and mutants of corpus references must be caught with tests
//! that diverge natively (`scripts/mutants.py`). The full runs are recorded in `reports/`.
//!
//! Needs the bundled musl (`scripts/build-musl.sh`) and, for the first test, Csmith with its
//! headers (Debian `csmith` and `libcsmith-dev`, installed by `scripts/install.sh`).

use crate::common::repo;
use std::path::Path;
use std::process::Command;

/// Consecutive seeds whose programs run in well under a second natively and in the engine
/// (reports/csmith-2026-11-24.md).
const CSMITH_SEEDS: std::ops::RangeInclusive<u32> = 4..=6;

/// Seeds of Csmith programs with floating point (`--float`): 9, 11 and 12 compute with floats
/// (Csmith's `safe_*_func_float`), and every one hashes its float globals' bytes, so the
/// engine's loads, stores, constants and operations must match the native bits
/// (reports/csmith-float-2026-11-24.md).
const CSMITH_FLOAT_SEEDS: std::ops::RangeInclusive<u32> = 9..=12;

/// Mutants of three corpus references (`scripts/mutants.py --list` names them) and what
/// each must give: a negated condition, a dropped `break` and an off-by-one loop bound (a read
/// past the buffer, which faults natively too) are caught; `x < 0` → `x <= 0` in `abs` and
/// `len > 8` → `len >= 8` in `checksum_bound` cannot change a result and must be proved.
const MUTANTS: &[(&str, &str)] = &[
    ("abs-01", "caught"),
    ("abs-02", "equivalent"),
    ("parse_perm-12", "caught"),
    ("checksum_bound-05", "equivalent"),
    ("checksum_bound-07", "caught"),
];

/// The rows of a results.tsv written by the scripts: (first column, column `class`).
fn results(path: &Path, class: usize) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} not written: {e}", path.display()));
    text.lines()
        .skip(1)
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let col = |i: usize| cols.get(i).copied().unwrap_or_default().to_string();
            (col(0), col(class))
        })
        .collect()
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn csmith_programs_are_proved_equivalent_across_optimisation_levels_and_print_the_native_output() {
    csmith_sample(CSMITH_SEEDS, &[]);
}

#[test]
fn csmith_programs_with_floating_point_print_the_native_bits() {
    csmith_sample(CSMITH_FLOAT_SEEDS, &["--float"]);
}

/// Runs `scripts/csmith.sh` on `seeds` with `extra` options: every seed must pass.
fn csmith_sample(seeds: std::ops::RangeInclusive<u32>, extra: &[&str]) {
    if !have("csmith") || !Path::new("/usr/include/csmith/csmith.h").exists() {
        eprintln!("skipped: csmith or its headers are not installed (scripts/install.sh installs csmith and libcsmith-dev)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (first, last) = (seeds.start(), seeds.end());
    let out = Command::new("bash")
        .arg(repo().join("scripts/csmith.sh"))
        .args(["--seeds", &format!("{first}..{last}"), "-o"])
        .arg(dir.path())
        .args(["--native-limit", "5"])
        .args(extra)
        .env("XCHECK_BIN", env!("CARGO_BIN_EXE_xcheck"))
        .output()
        .expect("bash runs");
    let log = String::from_utf8_lossy(&out.stderr);
    let rows = results(&dir.path().join("results.tsv"), 1);
    for seed in seeds.clone() {
        let class = rows
            .iter()
            .find(|(s, _)| *s == seed.to_string())
            .map(|(_, c)| c.as_str());
        assert_eq!(class, Some("pass"), "seed {seed}:\n{log}");
    }
    assert_eq!(rows.len(), seeds.count(), "{log}");
    assert!(out.status.success(), "{log}");
}

#[test]
fn mutants_of_corpus_references_are_caught_with_tests_that_diverge_natively() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<&str> = MUTANTS.iter().map(|(id, _)| *id).collect();
    let out = Command::new("python3")
        .arg(repo().join("scripts/mutants.py"))
        .arg("-o")
        .arg(dir.path())
        .args([
            "--mutants",
            &ids.join(","),
            "abs",
            "parse_perm",
            "checksum_bound",
        ])
        .env("XCHECK_BIN", env!("CARGO_BIN_EXE_xcheck"))
        .output()
        .expect("python3 runs");
    let log = String::from_utf8_lossy(&out.stderr);
    let rows = results(&dir.path().join("results.tsv"), 2);
    assert_eq!(rows.len(), MUTANTS.len(), "{log}");
    for (id, want) in MUTANTS {
        let got = rows.iter().find(|(m, _)| m == id).map(|(_, c)| c.as_str());
        assert_eq!(got, Some(*want), "{id}:\n{log}");
    }
    assert!(out.status.success(), "{log}");
}

/// Csmith seed 69 found it: clang -O0 passes a global struct by value as `byval @g`, and the
/// engine let the callee write `g` itself, so the -O0 program printed 0 where it prints 2.
#[test]
fn a_struct_passed_by_value_is_the_callees_own_copy() {
    let dir = tempfile::tempdir().unwrap();
    let src = repo().join("tests/fixtures/byval_global.c");
    for level in ["-O0", "-O2"] {
        let out = crate::common::xcheck(
            dir.path(),
            &[
                "cc",
                level,
                "-o",
                &format!("p{level}"),
                src.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{}", crate::common::stderr(&out));
    }
    let native = Command::new(dir.path().join("p-O0")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&native.stdout), "2\n");
    let out = crate::common::xcheck(
        dir.path(),
        &["p-O0.bc", "p-O2.bc", "--sym-files", "0", "0", "-j", "1"],
    );
    let text = crate::common::stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(r#"exit 0, stdout "2\n"  exit 0, stdout "2\n""#),
        "{text}"
    );
}

/// Corpus cases and program pairs whose files `self_check_sample` checks against
/// themselves: pointers into buffers (`memchr`, `strlen`), floating point (`fp_nan_min`),
/// wide tables (`crc32_sliced`), and programs that print and read stdin.
const SELF_CHECK_CASES: &str = "memchr,strlen,fp_nan_min,crc32_sliced,popcount,mod";
const SELF_CHECK_PROGRAMS: &str = "echo,wc_l,head_n";

// See: #30. Every file against itself is EQUIVALENT (scripts/self-check.py; the whole run
// is in reports/self-check-2026-11-28.md): a sample, at both levels from both compilers.
#[test]
fn every_file_of_a_sample_is_equivalent_to_itself() {
    crate::corpus::build_corpora();
    crate::programs::build_programs();
    let out = tempfile::tempdir().unwrap();
    let o = Command::new("python3")
        .arg(repo().join("scripts/self-check.py"))
        .args(["-o", out.path().to_str().unwrap(), "--max-time", "60s"])
        .args([
            "--cases",
            SELF_CHECK_CASES,
            "--programs",
            SELF_CHECK_PROGRAMS,
        ])
        .env("XCHECK_BIN", env!("CARGO_BIN_EXE_xcheck"))
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = results(&out.path().join("results.tsv"), 1);
    // 6 cases × 2 compilers × 2 levels × 2 files, at least, and 3 programs' checks × 2 files.
    assert!(rows.len() >= 48 + 6, "{rows:?}");
    for (check, class) in &rows {
        assert_eq!(class, "equivalent", "{check} against itself: {text}");
    }
}
