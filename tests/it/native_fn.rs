//! Native confirmation of function checks (`xcheck replay DIR --native A.bc B.bc --function
//! f`): every divergence of the floating-point corpus pairs (and of an integer pair) at -O0
//! and -O2 happens natively; a test whose inputs do not diverge natively, or a replay under
//! an equality that makes them equal, is not confirmed; a check that compares globals is
//! refused per test; bad inputs exit 2. Fixtures: a returned pointer (into the buffer, or
//! null), a write past a buffer's end (unknown in the engine), narrow integers.

use crate::common::*;
use crate::corpus::{build_corpora, build_dir, cases, Case};
use std::path::{Path, PathBuf};
use xcheck::ktest::KTest;

/// The bitcode of one corpus pair at one level, and its `--function` argument.
fn pair(name: &str, case: &Case, opt: &str) -> (PathBuf, PathBuf, String) {
    let dir = build_dir().join("corpora").join(name);
    let spec = match (&case.function, &case.a, &case.b) {
        (Some(f), _, _) => f.clone(),
        (None, Some(a), Some(b)) => format!("{a}={b}"),
        _ => panic!("{name}: case.toml needs `function` or `a` and `b`"),
    };
    (
        dir.join(format!("a.{opt}.bc")),
        dir.join(format!("b.{opt}.bc")),
        spec,
    )
}

/// Runs `xcheck replay OUT --native A B --function SPEC ARGS…`.
fn native_replay(
    out: &Path,
    (a, b, spec): &(PathBuf, PathBuf, String),
    args: &[String],
) -> std::process::Output {
    let mut argv: Vec<String> = vec![
        "replay".into(),
        out.display().to_string(),
        "--native".into(),
        a.display().to_string(),
        b.display().to_string(),
        "--function".into(),
        spec.clone(),
    ];
    argv.extend(args.iter().cloned());
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    xcheck(&repo(), &argv)
}

/// Runs the check of `pair` with `args` into `out`; its exit code.
fn check(out: &Path, (a, b, spec): &(PathBuf, PathBuf, String), args: &[String]) -> Option<i32> {
    let mut argv: Vec<String> = vec![
        a.display().to_string(),
        b.display().to_string(),
        "--function".into(),
        spec.clone(),
        "-o".into(),
        out.display().to_string(),
    ];
    argv.extend(args.iter().cloned());
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    xcheck(&repo(), &argv).status.code()
}

#[test]
fn every_fp_divergence_and_an_integer_one_reproduce_natively_at_o0_and_o2() {
    build_corpora();
    let mut failures = Vec::new();
    let mut confirmed = 0;
    for (name, case) in cases() {
        if !name.starts_with("fp_") && name != "clamp" {
            continue;
        }
        for c in case.check.iter().filter(|c| c.expect == "diverged") {
            for opt in ["O0", "O2"] {
                let label = format!("{name} {opt} {:?}", c.args);
                let out = tempfile::tempdir().unwrap();
                let pair = pair(&name, &case, opt);
                let code = check(out.path(), &pair, &c.args);
                if code != Some(1) {
                    failures.push(format!("{label}: the check exited {code:?}, not 1"));
                    continue;
                }
                let o = native_replay(out.path(), &pair, &c.args);
                let text = stdout(&o);
                let tests = text.matches("divergence CONFIRMED natively").count();
                if o.status.code() != Some(0) || tests == 0 {
                    failures.push(format!(
                        "{label}: native replay exited {:?}\n{text}{}",
                        o.status.code(),
                        stderr(&o)
                    ));
                }
                confirmed += tests;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} native confirmations failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(confirmed >= 30, "only {confirmed} divergences confirmed");
}

/// `negate` at -O0 diverged on `x = +0.0` (bit for bit); the directory of that run.
fn neg_zero_run() -> (tempfile::TempDir, (PathBuf, PathBuf, String), PathBuf) {
    build_corpora();
    let case = cases()
        .into_iter()
        .find(|(n, _)| n == "fp_neg_zero")
        .expect("corpora/fp_neg_zero")
        .1;
    let pair = pair("fp_neg_zero", &case, "O0");
    let out = tempfile::tempdir().unwrap();
    assert_eq!(check(out.path(), &pair, &[]), Some(1));
    let test = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "ktest"))
        .expect("a test");
    (out, pair, test)
}

// See: #11: a float parameter's round values are tried with the later float parameters
// free, concretely. madd's difference needs a product that rounds in `float`: no round
// value of x keeps the first model's y and z, and asking the solver took two 250 ms
// queries that ran out; now x is the first round value with a rounding product.
#[test]
fn a_float_difference_gets_a_round_operand_with_the_later_ones_free() {
    build_corpora();
    let (name, case) = cases()
        .into_iter()
        .find(|(n, _)| n == "fp_float_madd")
        .expect("the fp_float_madd case");
    for opt in ["O0", "O2"] {
        let out = tempfile::tempdir().unwrap();
        let pair = pair(&name, &case, opt);
        assert_eq!(check(out.path(), &pair, &[]), Some(1), "{opt}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap())
                .unwrap();
        let row = &report["rows"][0];
        assert_eq!(row["confirmed"], true, "{opt}: {row}");
        assert_eq!(
            row["inputs"][0]["display"], "3.0 (0x1.8p+1)",
            "{opt}: {row}"
        );
        let o = native_replay(out.path(), &pair, &[]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{opt}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
}

#[test]
fn inputs_that_agree_natively_are_not_confirmed() {
    let (out, pair, test) = neg_zero_run();
    let o = native_replay(out.path(), &pair, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("returns -0.0"), "{}", stdout(&o));

    // The same divergence, under an equality where -0.0 == +0.0: not confirmed.
    let ieee = ["--fp-equal".to_string(), "ieee".to_string()];
    let o = native_replay(out.path(), &pair, &ieee);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("NOT confirmed natively"),
        "{}",
        stdout(&o)
    );

    // A hand-made test with x = 1.0, which both sides negate alike.
    let mut k = KTest::read(&test).unwrap();
    k.objects[0].bytes = 1.0f64.to_le_bytes().to_vec();
    k.write(&test).unwrap();
    let o = native_replay(out.path(), &pair, &[]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("x = 1.0"), "{text}");
    assert!(text.contains("NOT confirmed natively"), "{text}");
}

#[test]
fn a_missing_function_or_a_bad_test_exits_2() {
    let (out, (a, b, _), test) = neg_zero_run();
    let o = native_replay(out.path(), &(a.clone(), b.clone(), "nosuch".into()), &[]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("nosuch"), "{}", stderr(&o));

    // A test whose object has the wrong size for the parameter.
    let mut k = KTest::read(&test).unwrap();
    k.objects[0].bytes = vec![0; 3];
    k.write(&test).unwrap();
    let o = native_replay(out.path(), &(a, b, "negate".into()), &[]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("3 bytes"), "{}", stderr(&o));
}

#[test]
fn a_check_that_compares_globals_is_not_supported_natively() {
    build_corpora();
    let case = cases()
        .into_iter()
        .find(|(n, _)| n == "day_of_year")
        .expect("corpora/day_of_year")
        .1;
    let pair = pair("day_of_year", &case, "O0");
    let out = tempfile::tempdir().unwrap();
    assert_eq!(check(out.path(), &pair, &[]), Some(1));
    let o = native_replay(out.path(), &pair, &[]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("cannot replay natively: the check compares global 'table'"),
        "{text}"
    );
    assert!(!text.contains("CONFIRMED"), "{text}");
}

#[test]
fn pointers_and_narrow_integers_reproduce_natively() {
    let dir = tempfile::tempdir().unwrap();
    for opt in ["-O0", "-O2"] {
        let a = compile_fixture("native_fn_a.c", dir.path(), opt);
        let b = compile_fixture("native_fn_b.c", dir.path(), opt);
        // `over` writes p[k] past the 8-byte buffer on A only: a caller may pass a bigger
        // buffer. Kept at 8 bytes (--buffer-cap 8), the engine leaves those paths unknown
        // (issue 30) and there is no test of them to replay (natively, the guard page after
        // the buffer makes A fault).
        let out = dir.path().join(format!("over{opt}"));
        let pair = (a.clone(), b.clone(), "over".to_string());
        let capped = ["--buffer-size", "8", "--buffer-cap", "8"].map(String::from);
        assert_eq!(check(&out, &pair, &capped), Some(3), "over {opt}");
        let report = std::fs::read_to_string(out.join("report.json")).unwrap();
        assert!(
            report.contains("parameter 'p' needs more than 8 bytes (--buffer-size)"),
            "over {opt}: {report}"
        );
        // Growing on demand, the buffer holds p[k]: A's write there is a difference of the
        // buffer, and natively (the driver makes the buffer as long as the test's) too.
        let out = dir.path().join(format!("over-grown{opt}"));
        let size = ["--buffer-size".to_string(), "8".to_string()];
        assert_eq!(check(&out, &pair, &size), Some(1), "over grown {opt}");
        let o = native_replay(&out, &pair, &size);
        let text = stdout(&o);
        assert_eq!(
            o.status.code(),
            Some(0),
            "over grown {opt}: {text}{}",
            stderr(&o)
        );
        assert!(
            text.contains("CONFIRMED natively"),
            "over grown {opt}: {text}"
        );
        assert!(!text.contains("NOT confirmed"), "over grown {opt}: {text}");
        for (function, a_says, b_says) in [
            ("find", "A: returns null", "B: returns s + 4"),
            ("narrow", "A: returns 1", "B: returns 2"),
        ] {
            let label = format!("{function} {opt}");
            let out = dir.path().join(format!("{function}{opt}"));
            let pair = (a.clone(), b.clone(), function.to_string());
            let size = ["--buffer-size".to_string(), "8".to_string()];
            assert_eq!(check(&out, &pair, &size), Some(1), "{label}");
            let o = native_replay(&out, &pair, &size);
            let text = stdout(&o);
            assert_eq!(o.status.code(), Some(0), "{label}: {text}{}", stderr(&o));
            assert!(
                text.contains(a_says) && text.contains(b_says),
                "{label}: {text}"
            );
        }
    }
}
