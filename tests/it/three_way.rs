//! Three-way program checks (`xcheck a.bc b.bc c.bc`): three small programs built with
//! `xcheck cc` in the test (one odd side, all equal, all different), the rows' agreement and
//! odd side, a test per disagreement confirmed in the engine and on the native executables,
//! and the usage errors.
//!
//! Needs the bundled musl (`scripts/build-musl.sh`), as `programs.rs` does.

use crate::common::{stderr, stdout, xcheck};
use std::path::Path;
use std::process::Command;
use xcheck::ktest::KTest;

/// A program that prints `expr` (over `c`, the first byte of argv[1], or 0) and a newline,
/// and exits with `status` (an expression over `c` too).
fn source(expr: &str, status: &str) -> String {
    format!(
        "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {{\n  int c = argc > 1 ? (unsigned char)argv[1][0] : 0;\n  putchar({expr});\n  putchar(10);\n  return {status};\n}}\n"
    )
}

/// Builds `name` from `src` in `dir` with `xcheck cc`: the native executable and `name.bc`.
fn build(dir: &Path, name: &str, src: &str) {
    std::fs::write(dir.join(format!("{name}.c")), src).unwrap();
    let c = format!("{name}.c");
    let o = xcheck(dir, &["cc", "-O1", "-o", name, &c]);
    assert_eq!(o.status.code(), Some(0), "xcheck cc {name}: {}", stderr(&o));
}

/// Runs the three-way check of a, b and c in `dir` on one symbolic argument of one byte;
/// returns the exit code and report.json.
fn check(dir: &Path, out: &str) -> (Option<i32>, serde_json::Value) {
    let o = xcheck(
        dir,
        &[
            "a.bc",
            "b.bc",
            "c.bc",
            "-j",
            "1",
            "-o",
            out,
            "--sym-arg",
            "1",
        ],
    );
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.join(out).join("report.json")).unwrap();
    (o.status.code(), serde_json::from_str(&text).unwrap())
}

/// The rows of `report` that are differences.
fn differences(report: &serde_json::Value) -> Vec<&serde_json::Value> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| matches!(r["verdict"].as_str(), Some("diverged" | "error_one")))
        .collect()
}

/// What the native executable `name` in `dir` prints and exits with on the argument of the
/// test at `test`.
fn native(dir: &Path, name: &str, test: &Path) -> (Vec<u8>, Option<i32>) {
    let ktest = KTest::read(test).unwrap();
    let arg = ktest
        .objects
        .iter()
        .find(|o| o.name == "arg00")
        .map(|o| o.bytes.clone())
        .unwrap();
    let end = arg.iter().position(|&b| b == 0).unwrap_or(arg.len());
    use std::os::unix::ffi::OsStrExt;
    let run = Command::new(dir.join(name))
        .arg(std::ffi::OsStr::from_bytes(&arg[..end]))
        .output()
        .unwrap();
    (run.stdout, run.status.code())
}

#[test]
fn the_odd_side_is_named_and_each_difference_is_confirmed_natively() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A and B agree (written differently); C exits 2 on 'x' and prints 'y' as 'z'.
    build(d, "a", &source("c", "c == 'x'"));
    build(d, "b", &source("c + 0", "c == 'x' ? 1 : 0"));
    build(d, "c", &source("c == 'y' ? 'z' : c", "c == 'x' ? 2 : 0"));
    let (code, report) = check(d, "out");
    assert_eq!(code, Some(1), "{report:#}");
    let diffs = differences(&report);
    assert!(!diffs.is_empty(), "{report:#}");
    for row in &diffs {
        assert_eq!(row["three"]["agreement"], "C differs", "{row:#}");
        assert_eq!(row["three"]["odd"], "C", "{row:#}");
        assert_eq!(row["confirmed"], true, "{row:#}");
        assert_eq!(row["native"], true, "{row:#}");
        assert!(row["class"].as_str().unwrap().starts_with("C differs: "));
        // The test reproduces on the native executables: A and B agree, C does not.
        let test = d.join("out").join(row["ktest"].as_str().unwrap());
        let (a, b, c) = (
            native(d, "a", &test),
            native(d, "b", &test),
            native(d, "c", &test),
        );
        assert_eq!(a, b, "{row:#}");
        assert_ne!(a, c, "{row:#}");
    }
    let odd = &report["summary"]["odd_one_out"];
    assert_eq!(odd[2]["side"], "C");
    assert_eq!(odd[2]["paths"], diffs.len());
    assert_eq!(
        (odd[0]["paths"].as_u64(), odd[1]["paths"].as_u64()),
        (Some(0), Some(0))
    );
    // report.csv carries C's result and the agreement in its last two columns.
    let csv = std::fs::read_to_string(d.join("out/report.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(",result_c,agreement"), "{header}");
    assert!(
        csv.lines().filter(|l| l.ends_with(",C differs")).count() == diffs.len(),
        "{csv}"
    );
    let text = stdout(&xcheck(d, &["replay", "out", "a.bc", "b.bc", "c.bc"]));
    assert!(text.contains("C differs"), "{text}");
    // report.html, a program check's page, has C's column and the agreement, and its links
    // are files beside it.
    let page = std::fs::read_to_string(d.join("out/report.html")).unwrap();
    assert!(page.contains("<th>C</th><th>agreement</th>"), "{page}");
    assert!(page.contains("<td>C differs</td>"), "{page}");
    crate::html::links_resolve(&page, &d.join("out"));

    // With C's executable replaced by A's, the native runs all agree where the engine says
    // C differs: no difference is counted, and the run is inconclusive.
    std::fs::copy(d.join("a"), d.join("c")).unwrap();
    let (code, report) = check(d, "swapped");
    assert_eq!(code, Some(3), "{report:#}");
    for row in differences(&report) {
        assert_eq!(row["native"], false, "{row:#}");
    }
    assert_eq!(report["summary"]["odd_one_out"][2]["paths"], 0);
}

#[test]
fn three_equal_programs_are_proved_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // All three abort on 'q': failures of all three, confirmed natively.
    build(d, "a", &source("c == 'q' ? (abort(), 0) : c", "c == 'x'"));
    build(
        d,
        "b",
        &source("c == 'q' ? (abort(), 0) : c | 0", "c == 'x' ? 1 : 0"),
    );
    build(
        d,
        "c",
        &source("c == 'q' ? (abort(), 0) : c ^ 0", "c != 'x' ? 0 : 1"),
    );
    let (code, report) = check(d, "out");
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["summary"]["overall"], "equivalent");
    let rows = report["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["verdict"] == "proved"), "{report:#}");
    assert!(
        rows.iter().any(|r| r["verdict"] == "error_both"),
        "{report:#}"
    );
    for row in rows {
        assert_eq!(row["three"]["agreement"], "all agree", "{row:#}");
        if row["verdict"] == "error_both" {
            assert!(row["ktest"].is_string(), "{row:#}");
            assert_eq!(row["native"], true, "{row:#}");
        } else {
            assert_eq!(row["verdict"], "proved", "{row:#}");
            assert!(row["ktest"].is_null(), "{row:#}");
        }
    }
}

#[test]
fn three_different_programs_get_a_test_per_disagreement() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // On one path: B alone differs for an even byte with bit 1 clear, C alone for a byte
    // with both low bits set, all three for bit 1 set and bit 0 clear.
    build(d, "a", &source("c", "0"));
    build(d, "b", &source("c | 1", "0"));
    build(d, "c", &source("c & ~2", "0"));
    let (code, report) = check(d, "out");
    assert_eq!(code, Some(1), "{report:#}");
    let diffs = differences(&report);
    let kinds: std::collections::BTreeSet<&str> = diffs
        .iter()
        .map(|r| r["three"]["agreement"].as_str().unwrap())
        .collect();
    // Every way of disagreeing the path has is found (A alone differing is impossible).
    let want: std::collections::BTreeSet<&str> = ["all differ", "B differs", "C differs"]
        .into_iter()
        .collect();
    assert_eq!(kinds, want);
    let tests: std::collections::BTreeSet<&str> =
        diffs.iter().map(|r| r["ktest"].as_str().unwrap()).collect();
    assert_eq!(tests.len(), diffs.len(), "one test per disagreement");
    for row in &diffs {
        assert_eq!(row["confirmed"], true, "{row:#}");
        assert_eq!(row["native"], true, "{row:#}");
        let test = d.join("out").join(row["ktest"].as_str().unwrap());
        let runs = ["a", "b", "c"].map(|n| native(d, n, &test).0);
        let agree = (runs[0] == runs[1], runs[0] == runs[2], runs[1] == runs[2]);
        let want = match row["three"]["agreement"].as_str().unwrap() {
            "all differ" => (false, false, false),
            "A differs" => (false, false, true),
            "B differs" => (false, true, false),
            "C differs" => (true, false, false),
            other => panic!("agreement {other}"),
        };
        assert_eq!(agree, want, "{row:#}");
    }
    // `xcheck replay --native` with three binaries says the same, and fails where the
    // binaries do not agree as the engine found (C replaced by A).
    let o = xcheck(d, &["replay", "out", "--native", "a", "b", "c"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("natively, as the engine found"));
    let o = xcheck(d, &["replay", "out", "--native", "a", "b", "a"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("NOT confirmed"), "{}", stdout(&o));
}

#[test]
fn three_files_with_function_and_two_side_reports_keep_their_shape() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build(d, "a", &source("c", "0"));
    build(d, "b", &source("c", "0"));
    build(d, "c", &source("c", "0"));
    let o = xcheck(d, &["a.bc", "b.bc", "c.bc", "--function", "main"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("c.bc") && err.contains("three-way"), "{err}");
    let o = xcheck(d, &["a.bc", "b.bc", "c.bc", "a.bc"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A two-sided program check writes no three-way fields.
    let o = xcheck(d, &["a.bc", "b.bc", "-o", "two", "--sym-arg", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let json = std::fs::read_to_string(d.join("two/report.json")).unwrap();
    assert!(!json.contains("\"three\"") && !json.contains("odd_one_out"));
}

#[test]
fn a_suite_with_three_makes_one_three_way_check_per_utility() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Utility `u` from three implementations (toybox alone differs on 'y'), utility `v`
    // from two: a pair.
    let utils = d.join("utils");
    std::fs::create_dir(&utils).unwrap();
    build(&utils, "coreutils-u", &source("c", "0"));
    build(&utils, "busybox-u", &source("c + 0", "0"));
    build(&utils, "toybox-u", &source("c == 'y' ? 'z' : c", "0"));
    build(&utils, "coreutils-v", &source("c", "0"));
    build(&utils, "busybox-v", &source("c", "0"));
    let o = xcheck(
        d,
        &[
            "suite",
            "utils",
            "--three",
            "-o",
            "out",
            "--",
            "--sym-arg",
            "1",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("out/suite.json")).unwrap()).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{report:#}");
    let (u, v) = (&rows[0], &rows[1]);
    assert_eq!(
        (u["utility"].as_str(), u["side"].as_str()),
        (Some("u"), Some("busybox+toybox"))
    );
    assert_eq!(u["overall"], "diverged");
    let diverged = u["diverged"].as_u64().unwrap();
    assert!(diverged > 0);
    assert_eq!(u["native_confirmed"].as_u64(), Some(diverged));
    let kind = u["kinds"][0][0].as_str().unwrap();
    assert!(kind.starts_with("toybox differs: "), "{kind}");
    assert!(!kind.contains(" C "), "{kind}");
    assert_eq!(
        (v["utility"].as_str(), v["side"].as_str()),
        (Some("v"), Some("busybox"))
    );
    assert_eq!(v["overall"], "equivalent");
    let three = d.join("out/busybox-coreutils-toybox/u/report.json");
    assert!(three.exists());
}
