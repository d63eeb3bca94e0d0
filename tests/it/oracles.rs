//! Independent oracles on a small fixed sample: Csmith programs crosschecked at -O0 against
//! -O2 with no symbolic input must be proved equivalent and show the native binaries'
//! output (`scripts/csmith.sh`), and mutants of corpus references must be caught with tests
//! that diverge natively (`scripts/mutants.py`), and every file must be equivalent to itself
//! (`scripts/self-check.py`). The full runs are recorded in `reports/`.
//!
//! Needs the bundled musl (`scripts/build-musl.sh`) and, for the first test, Csmith with its
//! headers (Debian `csmith` and `libcsmith-dev`, installed by `scripts/install.sh`).

use crate::common::{repo, stderr, stdout, xcheck};
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
/// Fixtures `self_check_sample` builds and checks against themselves with `--all-functions`:
/// bit tricks, pointers in results (a table of literals too) and undefined behaviour.
const SELF_CHECK_FIXTURES: &str = "bits_a,r30_ptr_a,r30_self,r30_ub_a";

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
            "--fixtures",
            SELF_CHECK_FIXTURES,
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
    // 6 cases × 2 compilers × 2 levels × 2 files, at least, 3 programs' checks × 2 files,
    // and a function of each of 3 fixtures × 2 compilers × 2 levels, at least.
    assert!(rows.len() >= 48 + 6 + 12, "{rows:?}");
    assert!(
        rows.iter()
            .filter(|(check, _)| check.starts_with("fixtures-"))
            .count()
            >= 12,
        "{rows:?}"
    );
    for (check, class) in &rows {
        assert_eq!(class, "equivalent", "{check} against itself: {text}");
    }
}

/// The functions of `tests/fixtures/r30_self.c` built by `clang` at `opt`, checked with
/// `--all-functions` against a copy of the same file (a regression gate of an unchanged
/// file): each function's verdict, from the `--json` rows.
fn self_gate(clang: &str, opt: &str) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let (bc, copy) = (dir.path().join("self.bc"), dir.path().join("copy.bc"));
    let status = Command::new(clang)
        .args(["-c", "-emit-llvm", "-g", opt])
        .arg(repo().join("tests/fixtures/r30_self.c"))
        .arg("-o")
        .arg(&bc)
        .status()
        .expect("clang runs");
    assert!(status.success(), "{clang} {opt} failed");
    std::fs::copy(&bc, &copy).unwrap();
    let out = dir.path().join("out");
    let o = xcheck(
        dir.path(),
        &[
            bc.to_str().unwrap(),
            copy.to_str().unwrap(),
            "--all-functions",
            "--json",
            "--max-time",
            "30s",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let rows: Vec<(String, String)> = stdout(&o)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            let field = |k: &str| v[k].as_str().unwrap_or("?").to_string();
            (field("function"), field("verdict"))
        })
        .collect();
    assert!(!rows.is_empty(), "{clang} {opt}: no rows\n{}", stderr(&o));
    rows
}

/// Asserts that each of `functions` is EQUIVALENT to itself at -O0 and -O2 from clang-19
/// and clang-14; the message lists every build and function that is not.
fn assert_equivalent_to_themselves(functions: &[&str]) {
    let mut wrong = Vec::new();
    for clang in [xcheck::toolchain::CLANG, "clang-14"] {
        for opt in ["-O0", "-O2"] {
            let rows = self_gate(clang, opt);
            for f in functions {
                match rows.iter().find(|(name, _)| name == f) {
                    Some((_, verdict)) if verdict == "equivalent" => {}
                    Some((_, verdict)) => wrong.push(format!("{clang} {opt} {f}: {verdict}")),
                    None => wrong.push(format!("{clang} {opt} {f}: not checked")),
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "not equivalent to themselves:\n{}",
        wrong.join("\n")
    );
}

// See: #30. The red-team classes of a file against a copy of itself, as a regression gate
// of an unchanged file runs: a string literal, `&g[x & 3]`, a function pointer, `malloc`'d
// memory and a pointer into a parameter's buffer returned, and a pointer to a global stored
// into a global. Each lives at another engine address on each side.
#[test]
fn r30_pointer_classes_are_equivalent_to_themselves() {
    assert_equivalent_to_themselves(&["yesno", "elem", "pick", "fresh", "tail", "remember"]);
}

// See: #30. A pointer loaded from a constant table of string pointers (`names[x % 3]`):
// at -O0 the solver finds the two sides' `&"zero"[0]` different, which concrete replay does
// not confirm (INCONCLUSIVE); clang-19 at -O2 turns the table into `llvm.load.relative`,
// which is unsupported (INCONCLUSIVE). Neither is a wrong verdict; both must become
// EQUIVALENT.
#[test]
fn r30_a_pointer_from_a_table_of_literals_is_equivalent_to_itself() {
    assert_equivalent_to_themselves(&["name"]);
}
