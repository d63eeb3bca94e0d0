//! Verdicts a reviewer can rely on: each test is one of the wrong verdicts of issue 10
//! (`// See: #10`), run end to end through the binary on `tests/fixtures/r10_{a,b}.c`.

use crate::common::*;
use std::path::{Path, PathBuf};

/// Compiles the pair once per test (at `opt`) and returns A's and B's bitcode.
fn pair(dir: &Path, opt: &str) -> (PathBuf, PathBuf) {
    (
        compile_fixture("r10_a.c", dir, opt),
        compile_fixture("r10_b.c", dir, opt),
    )
}

/// Runs `xcheck A B --function f ARGS…` and returns the exit code, stdout and the report.
fn check(
    dir: &Path,
    f: &str,
    args: &[&str],
    opt: &str,
) -> (Option<i32>, String, serde_json::Value) {
    let (a, b) = pair(dir, opt);
    let mut all = vec![a.to_str().unwrap(), b.to_str().unwrap(), "--function", f];
    all.extend_from_slice(args);
    let o = xcheck(dir, &all);
    let out = format!("{}{}", stdout(&o), stderr(&o));
    let report = std::fs::read_to_string(dir.join("xcheck-out/report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (o.status.code(), out, report)
}

fn summary<'r>(report: &'r serde_json::Value, key: &str) -> &'r serde_json::Value {
    &report["summary"][key]
}

/// The report's first diverged row.
fn diverged_row(report: &serde_json::Value) -> &serde_json::Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["verdict"] == "diverged")
        .expect("a divergence")
}

// See: #10, wrong verdict 1. n = 3000000000 satisfies `n > 10` for an unsigned n.
#[test]
fn r10_assume_reads_unsigned_parameters_as_unsigned() {
    for opt in ["-O0", "-O2"] {
        let dir = tempfile::tempdir().unwrap();
        let (code, out, report) = check(dir.path(), "ui", &["--assume", "n > 10"], opt);
        assert_eq!(code, Some(1), "{opt}: {out}");
        let row = diverged_row(&report);
        let n = u32::from_le_bytes(
            row["inputs"][0]["bytes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_u64().unwrap() as u8)
                .collect::<Vec<_>>()
                .try_into()
                .unwrap(),
        );
        assert!(
            n >= 1 << 31,
            "{opt}: n = {n} does not reach B's extra branch"
        );
        assert_eq!(row["confirmed"], true, "{opt}");
    }
}

// See: #10, wrong verdict 1, the other way round: `n < 12` admitted n = 0x80000000.
#[test]
fn r10_unsigned_bound_keeps_a_recursion_finite() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, report) = check(dir.path(), "ur", &["--assume", "n < 12"], "-O0");
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(summary(&report, "proved"), 12, "{out}");
}

// See: #10, wrong verdict 2. A literal that fits no C type is an error, as in C.
#[test]
fn r10_literal_that_fits_no_c_type_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, _) = check(
        dir.path(),
        "ui",
        &["--assume", "n < 18446744073709551616"],
        "-O0",
    );
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("fits no C integer type"), "{out}");
    assert_eq!(out.trim_end().lines().count(), 1, "{out}");
}

// See: #10, wrong verdict 3. A global the function writes is an output.
#[test]
fn r10_a_written_global_is_compared() {
    for globals in ["symbolic", "initial"] {
        let dir = tempfile::tempdir().unwrap();
        let (code, out, report) = check(dir.path(), "bump", &["--globals", globals], "-O0");
        assert_eq!(code, Some(1), "--globals {globals}: {out}");
        assert!(out.contains("global 'counter' differs"), "{out}");
        let notes = summary(&report, "notes").to_string();
        assert!(notes.contains("globals 'counter'"), "{notes}");
    }
}

// See: #10, wrong verdict 3. A global the function reads is an input (by default).
#[test]
fn r10_a_read_global_is_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, report) = check(dir.path(), "pick", &[], "-O2");
    assert_eq!(code, Some(1), "{out}");
    let row = diverged_row(&report);
    let inputs = row["inputs"].to_string();
    assert!(inputs.contains("global.mode"), "{inputs}");
    // The test carries the global, and replaying it reproduces the divergence.
    let ktest = dir
        .path()
        .join("xcheck-out")
        .join(row["ktest"].as_str().unwrap());
    let shown = xcheck(dir.path(), &["show", ktest.to_str().unwrap()]);
    assert!(stdout(&shown).contains("global.mode"), "{}", stdout(&shown));
    // From its initializer (0), `mode` makes both return -x.
    let dir = tempfile::tempdir().unwrap();
    let (code, out, _) = check(dir.path(), "pick", &["--globals", "initial"], "-O2");
    assert_eq!(code, Some(0), "{out}");
}

// See: #10, wrong verdict 4. Both sides failing in the engine's model is not agreement.
#[test]
fn r10_function_pointer_parameter_is_unknown_not_equivalent() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, report) = check(dir.path(), "call", &[], "-O0");
    assert_eq!(code, Some(3), "{out}");
    assert_eq!(summary(&report, "errors_both"), 0, "{out}");
    assert!(
        out.contains("function-pointer inputs are not modelled"),
        "{out}"
    );
}

// See: #10, wrong verdict 5. The same undefined behaviour on both sides is an error in
// both, not a divergence; no path reads another object through the table's pointer.
#[test]
fn r10_same_out_of_bounds_read_is_an_error_in_both() {
    for opt in ["-O0", "-O2"] {
        let dir = tempfile::tempdir().unwrap();
        let (code, out, report) = check(dir.path(), "lut", &[], opt);
        assert_eq!(code, Some(0), "{opt}: {out}");
        assert!(
            summary(&report, "errors_both").as_u64().unwrap() >= 1,
            "{opt}: {out}"
        );
        assert_eq!(summary(&report, "diverged"), 0, "{opt}: {out}");
        assert_eq!(summary(&report, "errors_one"), 0, "{opt}: {out}");
    }
}

// See: #10, wrong verdict 4: a pointer field of a parameter's buffer points wherever its
// symbolic bytes say, on each side into different objects; that is the model's gap.
#[test]
fn r10_pointer_inside_an_input_is_unknown_not_a_verdict() {
    for opt in ["-O0", "-O2"] {
        let dir = tempfile::tempdir().unwrap();
        let (code, out, report) = check(dir.path(), "second", &[], opt);
        assert_eq!(code, Some(3), "{opt}: {out}");
        assert_eq!(summary(&report, "errors_both"), 0, "{opt}: {out}");
        assert!(
            out.contains("pointers inside inputs are not modelled"),
            "{opt}: {out}"
        );
    }
}

// See: #10, wrong verdict 3, in CI gating: the config file's `globals` default, and the
// command line's `--globals` over it.
#[test]
fn r10_config_file_sets_how_globals_start() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), "-O2");
    let config = |globals: &str| {
        format!(
            "[defaults]\n{globals}\n[[pair]]\na = \"{}\"\nb = \"{}\"\n[[pair.function]]\nname = \"pick\"\n",
            a.display(),
            b.display()
        )
    };
    let run = |text: String, extra: &[&str]| {
        std::fs::write(dir.path().join("gate.toml"), text).unwrap();
        let mut args = vec!["--config", "gate.toml"];
        args.extend_from_slice(extra);
        let o = xcheck(dir.path(), &args);
        (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
    };
    let (code, out) = run(config(""), &[]);
    assert_eq!(code, Some(1), "symbolic by default: {out}");
    let (code, out) = run(config("globals = \"initial\""), &[]);
    assert_eq!(code, Some(0), "from the initializers: {out}");
    let (code, out) = run(config("globals = \"initial\""), &["--globals", "symbolic"]);
    assert_eq!(code, Some(1), "the command line wins: {out}");
}
