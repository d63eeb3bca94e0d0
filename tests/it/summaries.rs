//! Calls and recursion by summary (#33): a callee both sides define identically, and the
//! entries' recursive calls, are one uninterpreted function of both sides; a proof by
//! summaries states its assumption, a difference is found and confirmed without them.

use crate::common::{compile_c, xcheck};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Compiles both fixtures with `cc` at `opt` into `dir`.
fn pair(dir: &Path, cc: &str, opt: &str) -> (String, String) {
    let out = |side: &str| -> PathBuf {
        let out = dir.join(format!("summaries_{side}.{cc}{opt}.bc"));
        if !out.exists() {
            compile_c(cc, &format!("summaries_{side}.c"), &out, opt, &[]);
        }
        out
    };
    (
        out("a").display().to_string(),
        out("b").display().to_string(),
    )
}

/// The check of `function` (A against B, or A against itself): exit code, notes,
/// assumptions.
fn check(
    dir: &Path,
    (a, b): (&str, &str),
    function: &str,
    extra: &[&str],
) -> (i32, Vec<String>, Vec<String>) {
    let out = dir.join(format!("out-{function}-{}", extra.len()));
    let out_text = out.display().to_string();
    let mut args = vec![
        a,
        b,
        "--function",
        function,
        "--max-time",
        "10s",
        "-o",
        &out_text,
    ];
    args.extend(extra);
    let o = xcheck(dir, &args);
    let code = o.status.code().unwrap_or(-1);
    let text = std::fs::read_to_string(out.join("report.json")).unwrap_or_default();
    let report: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let list = |key: &str| -> Vec<String> {
        report["summary"][key]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|n| n.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    (code, list("notes"), list("assumptions"))
}

const PARTIAL: &str = "recursive calls summarized (";
const CLANGS: [&str; 2] = [xcheck::toolchain::CLANG, "clang-14"];

#[test]
fn recursive_refactors_are_proved_assuming_termination() {
    let dir = tempfile::tempdir().unwrap();
    for cc in CLANGS {
        let (a, b) = pair(dir.path(), cc, "-O0");
        for function in ["fib", "sum", "ack"] {
            let (code, notes, assumed) = check(dir.path(), (&a, &b), function, &[]);
            let what = format!("{cc} -O0 {function}: {notes:?} {assumed:?}");
            assert_eq!(code, 0, "{what}");
            assert!(
                assumed
                    .iter()
                    .any(|n| n.starts_with(&format!("{PARTIAL}{function})"))
                        && n.contains("partial equivalence, assuming both terminate")),
                "{what}"
            );
            assert!(
                notes
                    .iter()
                    .any(|n| n.starts_with("calls summarized: ") && n.contains("(recursive)")),
                "{what}"
            );
        }
        // Optimized, the recursions become loops (sum) or loops around calls: never a
        // difference, whether the summaries prove them or not.
        let (a, b) = pair(dir.path(), cc, "-O2");
        for function in ["fib", "sum", "ack"] {
            let (code, notes, _) = check(dir.path(), (&a, &b), function, &[]);
            assert!(code == 0 || code == 3, "{cc} -O2 {function}: {notes:?}");
        }
    }
}

#[test]
fn recursion_past_the_frame_limit_needs_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), xcheck::toolchain::CLANG, "-O0");
    let (code, notes, assumed) = check(dir.path(), (&a, &b), "sum", &["--no-summaries"]);
    assert_eq!(code, 3, "{notes:?}");
    assert!(!notes.iter().any(|n| n.contains("summarized")), "{notes:?}");
    assert!(
        !assumed.iter().any(|n| n.contains("summarized")),
        "{assumed:?}"
    );
    let (code, _, assumed) = check(dir.path(), (&a, &b), "sum", &[]);
    assert_eq!(code, 0, "{assumed:?}");
}

#[test]
fn a_shared_helper_on_equal_arguments_is_one_function() {
    let dir = tempfile::tempdir().unwrap();
    for cc in CLANGS {
        let (a, b) = pair(dir.path(), cc, "-O0");
        let (code, notes, assumed) = check(dir.path(), (&a, &b), "helper", &[]);
        assert_eq!(code, 0, "{notes:?}");
        assert!(
            notes.contains(&"calls summarized: sq (identical on both sides)".to_string()),
            "{notes:?}"
        );
        assert!(
            assumed
                .iter()
                .any(|n| n.starts_with("calls of sq summarized")),
            "{assumed:?}"
        );
        let (a, b) = pair(dir.path(), cc, "-O2");
        let (code, notes, _) = check(dir.path(), (&a, &b), "helper", &[]);
        assert_eq!(code, 0, "{cc} -O2: {notes:?}");
    }
}

#[test]
fn a_recursive_difference_is_found_without_the_summary_and_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    for cc in CLANGS {
        for opt in ["-O0", "-O2"] {
            let (a, b) = pair(dir.path(), cc, opt);
            let (code, notes, assumed) = check(dir.path(), (&a, &b), "bad", &[]);
            let what = format!("{cc} {opt}: {notes:?}");
            assert_eq!(code, 1, "{what}");
            assert!(!assumed.iter().any(|n| n.starts_with(PARTIAL)), "{what}");
            if opt == "-O0" {
                assert!(
                    notes
                        .iter()
                        .any(|n| n.starts_with("calls summarized: bad's recursive")
                            && n.contains("so the check explored without them")),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn helpers_with_effects_are_not_summarized() {
    let dir = tempfile::tempdir().unwrap();
    for opt in ["-O0", "-O2"] {
        let (a, b) = pair(dir.path(), xcheck::toolchain::CLANG, opt);
        // One uninterpreted `next()` would make A's second call B's only one: equivalent.
        let (code, notes, _) = check(dir.path(), (&a, &b), "twice", &[]);
        assert_eq!(code, 1, "{opt}: {notes:?}");
        assert!(!notes.iter().any(|n| n.contains("summarized")), "{notes:?}");
        let (code, notes, _) = check(dir.path(), (&a, &b), "bump", &[]);
        assert_eq!(code, 0, "{opt}: {notes:?}");
        assert!(!notes.iter().any(|n| n.contains("summarized")), "{notes:?}");
    }
}

#[test]
fn a_file_against_itself_is_equivalent() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = pair(dir.path(), xcheck::toolchain::CLANG, "-O0");
    for function in ["fib", "sum", "ack", "bad", "helper"] {
        let (code, notes, _) = check(dir.path(), (&a, &a), function, &[]);
        assert_eq!(code, 0, "{function}: {notes:?}");
    }
}

#[test]
fn a_gate_reuses_the_pairs_it_proved() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), xcheck::toolchain::CLANG, "-O0");
    let out = dir.path().join("gate");
    let out_text = out.display().to_string();
    let args = [
        &a[..],
        &b,
        "--all-functions",
        "--include",
        "dbl*",
        "-o",
        &out_text,
    ];
    let o = xcheck(dir.path(), &args);
    assert_eq!(o.status.code(), Some(0), "{}", crate::common::stdout(&o));
    let text = std::fs::read_to_string(out.join("dbl_user/report.json")).unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    let notes = report["summary"]["notes"].to_string();
    assert!(
        notes.contains("calls summarized: dbl (proved equivalent in this run)"),
        "{notes}"
    );
    let assumed = report["summary"]["assumptions"].to_string();
    assert!(
        assumed.contains("calls of dbl summarized (proved equivalent"),
        "{assumed}"
    );
}
