//! The machine's traps (issue 30): signed division of the minimum by -1 raises SIGFPE on
//! x86-64 at every optimisation level, as division by zero does, so a side that divides
//! where the other guards fails alone, and two sides that trap either way fail alike. Checked
//! on function pairs (`tests/fixtures/sdiv_{a,b}.c`) and whole programs
//! (`tests/fixtures/sdiv_prog.c`, with and without `-DGUARD`), from clang-14 and clang-19,
//! at -O0 and -O2, and replayed natively.

use crate::common::{repo, stderr, stdout, xcheck};
use crate::musl_link::musl_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compilers whose bitcode the checks read.
pub(crate) const COMPILERS: [&str; 2] = ["clang-14", xcheck::toolchain::CLANG];

/// Compiles `tests/fixtures/<name>` with `cc` at `opt` into `dir`, with `extra` flags (and
/// -O0 code left optimizable, as `compile_fixture` does).
pub(crate) fn compile(cc: &str, name: &str, dir: &Path, opt: &str, extra: &[&str]) -> PathBuf {
    let tag: String = extra
        .concat()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let out = dir.join(format!(
        "{}.{cc}.{opt}{tag}.bc",
        name.trim_end_matches(".c")
    ));
    let mut flags = vec!["-Xclang", "-disable-O0-optnone"];
    flags.extend_from_slice(extra);
    crate::common::compile_c(cc, name, &out, opt, &flags);
    out
}

/// Runs xcheck with `args` writing to `dir/out`; returns the exit code, the terminal's text
/// and the report.
pub(crate) fn run(
    dir: &Path,
    args: &[&str],
    out: &str,
) -> (Option<i32>, String, serde_json::Value) {
    let mut all = args.to_vec();
    all.extend(["-j", "1", "-o", out]);
    let o = xcheck(dir, &all);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    let report = std::fs::read_to_string(dir.join(out).join("report.json"))
        .unwrap_or_else(|e| panic!("{out}/report.json: {e}\n{text}"));
    (
        o.status.code(),
        text,
        serde_json::from_str(&report).unwrap(),
    )
}

/// The report's rows that are not proved.
pub(crate) fn other_rows(report: &serde_json::Value) -> Vec<&serde_json::Value> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] != "proved")
        .collect()
}

/// An input's bytes, by name, in a row.
pub(crate) fn input(row: &serde_json::Value, name: &str) -> Vec<u64> {
    row["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no input {name} in {row}"))["bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect()
}

// See: #30. `x / d` against the same with `d == -1` guarded was EQUIVALENT: the engine
// wrapped INT_MIN / -1. Now A fails alone at INT_MIN, -1, for int and long long quotients,
// an int remainder and a vector lane; __int128 division (`__divti3`) wraps natively and
// stays equivalent; a side that divides by zero where the other overflows fails alike.
#[test]
fn r30_signed_division_overflow_traps_in_function_checks() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for cc in COMPILERS {
        for opt in ["-O0", "-O2"] {
            let a = compile(cc, "sdiv_a.c", d, opt, &[]);
            let b = compile(cc, "sdiv_b.c", d, opt, &[]);
            let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
            for (f, width) in [("quot", 4), ("rem", 4), ("quot64", 8), ("vquot", 4)] {
                let at = format!("{cc} {opt} {f}");
                // Their sums may overflow on both sides alike (--ub report would say so); the
                // subject here is the trap.
                let args = [a, b, "--function", f, "--ub", "machine"];
                let (code, text, report) = run(d, &args, "out");
                assert_eq!(code, Some(1), "{at}: {text}");
                let rows = other_rows(&report);
                assert_eq!(rows.len(), 1, "{at}: {text}");
                let row = rows[0];
                assert_eq!(row["verdict"], "error_one", "{at}: {text}");
                assert_eq!(row["confirmed"], true, "{at}: {text}");
                let result_a = row["result_a"].as_str().unwrap();
                assert!(
                    result_a.starts_with("signed division overflow at sdiv_a.c"),
                    "{at}: {text}"
                );
                let mut min = vec![0; width];
                min[width - 1] = 0x80;
                assert_eq!(input(row, "x"), min, "{at}: {text}");
                assert_eq!(input(row, "d"), vec![0xff; width], "{at}: {text}");
                // A file against itself: both sides trap alike.
                let args = [a, a, "--function", f, "--ub", "machine"];
                let (code, text, report) = run(d, &args, "self");
                assert_eq!(code, Some(0), "{at} against itself: {text}");
                assert_eq!(
                    report["summary"]["errors_both"], 1,
                    "{at} against itself: {text}"
                );
            }
            let (code, text, report) = run(d, &[a, b, "--function", "quot128"], "out");
            assert_eq!(code, Some(0), "{cc} {opt} quot128: {text}");
            assert_eq!(other_rows(&report).len(), 0, "{cc} {opt} quot128: {text}");
            let (code, text, report) = run(d, &[a, b, "--function", "trap"], "out");
            assert_eq!(code, Some(0), "{cc} {opt} trap: {text}");
            let rows = other_rows(&report);
            assert_eq!(rows.len(), 1, "{cc} {opt} trap: {text}");
            assert_eq!(rows[0]["verdict"], "error_both", "{cc} {opt} trap: {text}");
            assert!(
                rows[0]["result_b"]
                    .as_str()
                    .unwrap()
                    .starts_with("division by zero"),
                "{cc} {opt} trap: {text}"
            );
        }
    }
}

// See: #30. The native executables agree with the engine: SIGFPE on A alone for the
// overflow, SIGFPE on both when B divides by zero instead.
#[test]
fn r30_signed_division_overflow_is_sigfpe_natively() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = compile(xcheck::toolchain::CLANG, "sdiv_a.c", d, "-O2", &[]);
    let b = compile(xcheck::toolchain::CLANG, "sdiv_b.c", d, "-O2", &[]);
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for (f, expect) in [
        ("quot", "=> divergence CONFIRMED natively"),
        ("trap", "=> agree natively, as the engine found"),
    ] {
        run(d, &[a, b, "--function", f], f);
        let o = xcheck(d, &["replay", f, "--function", f, "--native", a, b]);
        let text = format!("{}{}", stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(0), "{f}: {text}");
        assert!(
            text.contains("A: killed by signal 8 (SIGFPE)"),
            "{f}: {text}"
        );
        assert!(text.contains(expect), "{f}: {text}");
    }
}

// See: #30, the issue's own case: a program dividing stdin's first int by its second was
// EQUIVALENT (43 paths proved) to one guarding -1, while natively A dies of SIGFPE on
// `00000080 ffffffff`. Built by `xcheck cc` (clang-19) and as program-only bitcode by
// clang-14, at -O0 and -O2; the difference reproduces on the native binaries.
#[test]
fn r30_signed_division_overflow_traps_in_programs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let resource = Command::new("clang-14")
        .arg("-print-resource-dir")
        .output()
        .expect("clang-14 runs");
    let resource = String::from_utf8_lossy(&resource.stdout).trim().to_string();
    let musl_include = musl_dir().join("include");
    let src = repo().join("tests/fixtures/sdiv_prog.c");
    for opt in ["-O0", "-O2"] {
        let cc = |out: &str, guard: &[&str]| {
            let mut args = vec!["cc", opt, "-g", "-o", out];
            args.extend(guard);
            args.push(src.to_str().unwrap());
            let o = xcheck(d, &args);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            format!("{out}.bc")
        };
        let clang14 = |guard: &[&str]| {
            let mut flags = vec!["-std=c99", "--target=x86_64-linux-musl", "-nostdinc"];
            flags.extend(["-fno-stack-protector", "-isystem"]);
            flags.push(musl_include.to_str().unwrap());
            let builtin = format!("{resource}/include");
            flags.extend(["-isystem", &builtin]);
            flags.extend(guard);
            let bc = compile("clang-14", "sdiv_prog.c", d, opt, &flags);
            bc.to_str().unwrap().to_string()
        };
        let builds = [
            ("xcheck cc", cc("a", &[]), cc("b", &["-DGUARD"])),
            ("clang-14", clang14(&[]), clang14(&["-DGUARD"])),
        ];
        for (how, a, b) in &builds {
            let at = format!("{how} {opt}");
            let (code, text, report) = run(d, &[a, b, "--sym-stdin", "8"], "prog");
            assert_eq!(code, Some(1), "{at}: {text}");
            let rows = other_rows(&report);
            assert_eq!(rows.len(), 1, "{at}: {text}");
            assert_eq!(rows[0]["verdict"], "error_one", "{at}: {text}");
            assert_eq!(rows[0]["native"], true, "{at}: {text}");
            assert_eq!(
                input(rows[0], "stdin"),
                [0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff],
                "{at}: {text}"
            );
            let (code, text, report) = run(d, &[a, a, "--sym-stdin", "8"], "self");
            assert_eq!(code, Some(0), "{at} against itself: {text}");
            assert_eq!(
                report["summary"]["errors_both"], 1,
                "{at} against itself: {text}"
            );
        }
    }
}
