//! `xcheck lib OLD NEW` on a small hand-made library in two versions (tests/fixtures/lib_v1.c,
//! lib_v2.c): identical IR proved at once, the rest explored, the unpaired listed with their
//! reasons, and a rerun with `--cache` reusing every explored result.

use crate::common::*;

/// A fresh directory with both versions' bitcode in it.
fn versions() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    // -O0 keeps each version's IR as written (no canonicalisation makes the rewritten
    // functions alike), so that only the unchanged ones are identical.
    let a = compile_fixture("lib_v1.c", dir.path(), "-O0");
    let b = compile_fixture("lib_v2.c", dir.path(), "-O0");
    let (a, b) = (a.display().to_string(), b.display().to_string());
    (dir, a, b)
}

/// The table's row of `function`.
fn row<'a>(out: &'a str, function: &str) -> &'a str {
    out.lines()
        .find(|l| l.split_whitespace().next() == Some(function))
        .unwrap_or_else(|| panic!("no row for {function}:\n{out}"))
}

#[test]
fn lib_pairs_functions_proves_identical_ir_and_lists_the_rest() {
    let (dir, a, b) = versions();
    let o = xcheck(
        dir.path(),
        &[
            "lib",
            &a,
            &b,
            "--max-time",
            "20",
            "-j",
            "2",
            "--junit",
            "junit.xml",
        ],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    for (function, verdict, how) in [
        ("unchanged", "EQUIVALENT", "identical IR"),
        ("low_bits", "EQUIVALENT", "explored"),
        ("clamp", "NOT EQUIVALENT", "explored"),
        // Its own IR is unchanged, but it calls the changed clamp.
        ("clamp_plus", "NOT EQUIVALENT", "explored"),
    ] {
        let line = row(&out, function);
        assert!(line.contains(verdict) && line.contains(how), "{line}");
    }
    // The first counterexample is in the row: an x of at least 100, run natively on both
    // builds.
    assert!(row(&out, "clamp").contains("x="), "{}", row(&out, "clamp"));
    assert!(
        row(&out, "clamp").contains("confirmed natively (")
            && row(&out, "clamp").contains("(confirmed natively)"),
        "{}",
        row(&out, "clamp")
    );
    // The alias is paired by its own name, with its target's result.
    let alias = row(&out, "clamp_alias");
    assert!(
        alias.contains("NOT EQUIVALENT") && alias.contains("alias of clamp"),
        "{alias}"
    );
    // A difference the machine cannot run (a struct passed in memory) is not counted.
    let byval = row(&out, "first_of");
    assert!(
        byval.contains("INCONCLUSIVE") && byval.contains("not confirmed natively"),
        "{byval}"
    );
    assert!(out.contains("legacy_only: defined only in A"), "{out}");
    assert!(out.contains("brand_new: defined only in B"), "{out}");
    assert!(out.contains("widened: signature changed"), "{out}");
    assert!(out.contains("sum_n: variadic"), "{out}");
    assert!(
        out.contains("5 checked: 2 proved (1 by identical IR), 2 diverged, 1 inconclusive"),
        "{out}"
    );
    assert!(
        out.contains("1 aliases shown with their targets' results"),
        "{out}"
    );
    assert!(out.contains("Rule: proved by identical IR"), "{out}");
    let xml = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(xml.contains("tests=\"6\""), "{xml}");
    let html = std::fs::read_to_string(dir.path().join("xcheck-out/report.html")).unwrap();
    assert!(
        html.contains("unchanged") && html.contains("widened"),
        "{html}"
    );
}

#[test]
fn no_identical_explores_every_function() {
    let (dir, a, b) = versions();
    let o = xcheck(
        dir.path(),
        &["lib", &a, &b, "--no-identical", "--include", "unchanged"],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let line = row(&out, "unchanged");
    assert!(
        line.contains("EQUIVALENT") && line.contains("explored"),
        "{line}"
    );
}

#[test]
fn a_rerun_with_the_cache_reuses_every_explored_result() {
    let (dir, a, b) = versions();
    let args = [
        "lib",
        &a,
        &b,
        "--cache",
        "cache",
        "--max-time",
        "20",
        "--json",
    ];
    let first = xcheck(dir.path(), &args);
    let second = xcheck(dir.path(), &args);
    let (one, two) = (stdout(&first), stdout(&second));
    assert_eq!(first.status.code(), Some(1), "{one}{}", stderr(&first));
    assert_eq!(second.status.code(), Some(1), "{two}{}", stderr(&second));
    let count = |text: &str, note: &str| text.matches(note).count();
    assert_eq!(count(&one, "\"cached\""), 0, "{one}");
    assert_eq!(count(&two, "\"cached\""), 4, "{two}");
    assert_eq!(count(&two, "\"identical IR\""), 1, "{two}");
    // The same verdicts, line by line, but for the note.
    let verdicts = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                format!("{} {}", v["function"], v["verdict"])
            })
            .collect()
    };
    assert_eq!(verdicts(&one), verdicts(&two));
    // A changed option is another key: nothing reused.
    let mut changed = args.to_vec();
    changed.extend(["--buffer-size", "8"]);
    let third = stdout(&xcheck(dir.path(), &changed));
    assert_eq!(count(&third, "\"cached\""), 0, "{third}");
}

#[test]
fn a_rerun_on_unchanged_builds_lists_the_same_functions_without_loading() {
    let (dir, a, b) = versions();
    // Without the variadic and the retyped function, every function of the rerun is
    // identical or cached: the listings pair them (the modules are not loaded).
    let args = [
        "lib",
        &a,
        &b,
        "--cache",
        "cache",
        "--exclude",
        "sum_n",
        "--exclude",
        "widened",
    ];
    let first = stdout(&xcheck(dir.path(), &args));
    let second = stdout(&xcheck(dir.path(), &args));
    assert!(first.contains("4 explored, 0 reused"), "{first}");
    assert!(second.contains("0 explored, 4 reused"), "{second}");
    let rows = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains("EQUIVALENT") || l.contains("defined only"))
            .map(|l| l.replace("cached  ", "explored"))
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(rows(&first), rows(&second), "{first}\n{second}");
    assert!(
        second.contains("legacy_only: defined only in A"),
        "{second}"
    );
    assert!(second.contains("brand_new: defined only in B"), "{second}");
}

#[test]
fn an_unconfirmed_difference_never_fails_the_run() {
    // first_of differs in the engine and in concrete replay, but has no native form: the run
    // is inconclusive, never exit 1.
    let (dir, a, b) = versions();
    let o = xcheck(
        dir.path(),
        &["lib", &a, &b, "--include", "first_of", "--max-time", "20"],
    );
    let out = stdout(&o);
    assert_ne!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(row(&out, "first_of").contains("INCONCLUSIVE"), "{out}");
    let report = std::fs::read_to_string(dir.path().join("xcheck-out/first_of/report.json"))
        .unwrap_or_default();
    assert!(report.contains("not natively"), "{report}");
}

#[test]
fn a_buffer_size_no_function_has_is_an_error_before_any_check() {
    // Before, every check ran first and each function without the parameter ended in an
    // error of its own.
    // Both ways of pairing: with the modules loaded (the variadic sum_n needs them), and
    // from the listings alone (as a rerun on unchanged builds pairs them).
    for listings_only in [false, true] {
        let (dir, a, b) = versions();
        let mut args = vec![
            "lib",
            &a,
            &b,
            "--buffer-size",
            "nosuch=4",
            "--max-time",
            "20",
        ];
        if listings_only {
            args.extend(["--exclude", "sum_n", "--exclude", "widened"]);
        }
        let o = xcheck(dir.path(), &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{}{err}", stdout(&o));
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("--buffer-size nosuch=4")
                && err.contains("has a parameter named 'nosuch'"),
            "{err}"
        );
        // Nothing ran: no table, no report.
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        assert!(!dir.path().join("xcheck-out").exists());
    }
}

#[test]
fn a_named_buffer_size_applies_to_the_functions_that_have_the_parameter() {
    // clamp has an `x`, first_of has none: first_of is checked without it, not an error.
    let (dir, a, b) = versions();
    let o = xcheck(
        dir.path(),
        &[
            "lib",
            &a,
            &b,
            "--buffer-size",
            "x=8",
            "--include",
            "clamp",
            "--include",
            "first_of",
            "--max-time",
            "20",
        ],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(row(&out, "clamp").contains("NOT EQUIVALENT"), "{out}");
    assert!(row(&out, "first_of").contains("INCONCLUSIVE"), "{out}");
}
