//! Output inside function checks (issue 33): `printf`, `puts`, `putchar`, `fputs`/`fputc` to
//! stdout run as musl's code and write to the function's stdout, compared like a return
//! value: a difference only in what is printed is a confirmed divergence (in the engine and
//! natively) with both outputs shown; the same text printed by other means is equivalent.
//! The pairs are `tests/fixtures/stdout_{a,b}.c`, at -O0 and -O2.

use super::common::{compile_fixture, stdout, xcheck};
use std::path::Path;

/// Runs `xcheck A B --function f` in `dir`: its exit code and report.md.
fn check(dir: &Path, a: &Path, b: &Path, function: &str, out: &str) -> (i32, String) {
    let args = [
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--function",
        function,
        "--max-time",
        "120",
        "-o",
        out,
    ];
    let o = xcheck(dir, &args);
    let report = std::fs::read_to_string(dir.join(out).join("report.md")).unwrap_or_default();
    (o.status.code().unwrap_or(-1), report + &stdout(&o))
}

#[test]
fn printed_output_is_compared_like_a_return_value() {
    for opt in ["-O0", "-O2"] {
        let dir = tempfile::tempdir().unwrap();
        let a = compile_fixture("stdout_a.c", dir.path(), opt);
        let b = compile_fixture("stdout_b.c", dir.path(), opt);

        // Only the label's text differs: a divergence, confirmed, both outputs shown.
        let (code, report) = check(dir.path(), &a, &b, "label", "label");
        assert_eq!(code, 1, "{opt}: {report}");
        assert!(report.contains("stdout differs"), "{opt}: {report}");
        assert!(report.contains("(confirmed)"), "{opt}: {report}");
        assert!(
            report.contains(r#"stdout "x=0\n""#) && report.contains(r#"stdout "x = 0\n""#),
            "{opt}: both outputs shown: {report}"
        );
        // Native replay (an executable built from both bitcode files) sees the same.
        let o = xcheck(
            dir.path(),
            &[
                "replay",
                "label",
                "--function",
                "label",
                "--native",
                a.to_str().unwrap(),
                b.to_str().unwrap(),
            ],
        );
        let native = stdout(&o);
        assert!(
            native.contains("divergence CONFIRMED natively") && !native.contains("NOT"),
            "{opt}: {native}"
        );
        assert!(native.contains(r#"stdout "x = "#), "{opt}: {native}");

        // The same text by printf against putchar, fputc, fputs: equivalent.
        for function in ["digits", "even"] {
            let (code, report) = check(dir.path(), &a, &b, function, function);
            assert_eq!(code, 0, "{opt} {function}: {report}");
        }
        // A file against itself, printing a symbolic int in full: equivalent.
        let (code, report) = check(dir.path(), &a, &a, "label", "self");
        assert_eq!(code, 0, "{opt}: {report}");
    }
}
