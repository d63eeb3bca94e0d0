//! musl's math library linked as code into function checks, and `--abstract-calls`.
//!
//! Needs the bundled musl (`scripts/build-musl.sh`, which `scripts/test.sh` runs first). The
//! fixtures call math functions that take and return integers (`fegetround`, `fesetround`)
//! or call `sin` through an integer-typed pointer, so that the paths run into musl's code
//! whatever the engine does with floating point.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Both sides, at -O0.
fn pair(dir: &Path) -> (String, String) {
    let a = compile_fixture("libm_a.c", dir, "-O0");
    let b = compile_fixture("libm_b.c", dir, "-O0");
    (a.display().to_string(), b.display().to_string())
}

/// Runs xcheck in `dir` with `XCHECK_MUSL_DIR` set to `musl` (`None`: as found).
fn xcheck_musl(dir: &Path, musl: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xcheck"));
    cmd.current_dir(dir).args(args);
    if let Some(musl) = musl {
        cmd.env("XCHECK_MUSL_DIR", musl);
    }
    cmd.output().expect("the xcheck binary runs")
}

/// The notes of `out/report.json`.
fn notes(out: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let report: Value = serde_json::from_str(&text).unwrap();
    report["summary"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// The note starting with `prefix`, if any.
fn note<'n>(notes: &'n [String], prefix: &str) -> Option<&'n str> {
    notes
        .iter()
        .find(|n| n.starts_with(prefix))
        .map(String::as_str)
}

const LINKED: &str = "C library functions run as musl's code (each side its own copy): ";

/// Runs the check of `function` and returns its exit code and notes.
fn check(dir: &Path, musl: Option<&Path>, function: &str, extra: &[&str]) -> (i32, Vec<String>) {
    let (a, b) = pair(dir);
    let out: PathBuf = dir.join(format!("out-{function}"));
    let out_text = out.display().to_string();
    // `through_sin` explores musl's sin on a symbolic double until the limit: the notes,
    // not the verdict, are what these tests look at.
    let mut args = vec![&a[..], &b, "--function", function, "--max-time", "8s"];
    args.extend(["-o", &out_text]);
    args.extend(extra);
    let o = xcheck_musl(dir, musl, &args);
    let code = o.status.code().unwrap_or(-1);
    assert!(code != 2, "{}{}", stdout(&o), stderr(&o));
    (code, notes(&out))
}

#[test]
fn math_calls_run_musls_code_on_each_side() {
    let dir = tempfile::tempdir().unwrap();
    // fesetround needs __fesetround from another member: linked too, and the pair is
    // proved, where the calls were undefined before.
    let (code, notes) = check(dir.path(), None, "rounding", &[]);
    assert_eq!(
        note(&notes, LINKED),
        Some(format!("{LINKED}__fesetround, fegetround, fesetround").as_str()),
        "{notes:?}"
    );
    assert_eq!(code, 0, "{notes:?}");
    assert!(
        !notes.iter().any(|n| n.contains("undefined function")),
        "{notes:?}"
    );

    // sin runs as musl's code: no path ends at an undefined `sin`, and a path that ends as
    // unsupported ends inside musl's sin (its source, sin.c), not at the fixture's call.
    let (_, notes) = check(dir.path(), None, "through_sin", &[]);
    let linked = note(&notes, LINKED).unwrap_or_else(|| panic!("{notes:?}"));
    // sin and its helpers (__sin, __cos, __rem_pio2…), now that their floating point runs.
    let names: Vec<&str> = linked.rsplit(": ").next().unwrap().split(", ").collect();
    assert!(
        names.contains(&"sin") && names.contains(&"__sin"),
        "{linked}"
    );
    assert!(!notes.iter().any(|n| n.contains("'sin'")), "{notes:?}");
    for n in notes.iter().filter(|n| n.starts_with("unsupported:")) {
        assert!(n.contains(" at sin.c:"), "{n}");
    }
}

#[test]
fn other_calls_keep_their_behaviour() {
    let dir = tempfile::tempdir().unwrap();
    // rand is in musl's libc but not its math library: it stays undefined.
    let (code, notes) = check(dir.path(), None, "random_plus", &[]);
    assert_eq!(code, 3, "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("unsupported: call to undefined function 'rand'")),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|n| n.contains("musl")), "{notes:?}");

    // Without musl's build: a function calling no library function is checked as before,
    // one that calls math functions says which and why they did not run.
    let missing = dir.path().join("no-musl");
    let (code, notes) = check(dir.path(), Some(&missing), "plain", &[]);
    assert_eq!(code, 0, "{notes:?}");
    assert!(!notes.iter().any(|n| n.contains("musl")), "{notes:?}");
    let (code, notes) = check(dir.path(), Some(&missing), "rounding", &[]);
    assert_eq!(code, 3, "{notes:?}");
    let why = note(&notes, "musl was not linked").unwrap_or_else(|| panic!("{notes:?}"));
    assert!(
        why.contains(&missing.join("lib/libc.a").display().to_string())
            && why.contains("scripts/build-musl.sh")
            && why.ends_with("fegetround, fesetround not run as code"),
        "{why}"
    );
    assert!(note(&notes, LINKED).is_none(), "{notes:?}");
}

#[test]
fn abstracted_calls_reach_their_hook_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let (code, notes) = check(
        dir.path(),
        None,
        "rounding",
        &["--abstract-calls", "fegetround, cos,fegetround"],
    );
    assert_eq!(code, 3, "{notes:?}");
    // fegetround's result is uninterpreted; the path goes on to fesetround, whose helper
    // `__fesetround` (in fenv.c, left out with fegetround) is undefined.
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("unsupported: call to undefined function '__fesetround'")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("abstracted calls: fegetround, cos (uninterpreted")),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"--abstract-calls cos: neither side calls it".to_string()),
        "{notes:?}"
    );
    // musl's fenv.c defines fegetround: it is not linked, and fesetround still is.
    assert_eq!(
        note(&notes, LINKED),
        Some(format!("{LINKED}fesetround").as_str())
    );
}

#[test]
fn bad_abstract_calls_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path());
    for (list, why) in [
        ("sin,co s", "'co s' is not a C function name"),
        ("1sin", "'1sin' is not a C function name"),
        ("sin,,cos", "an empty function name"),
        ("", "an empty function name"),
    ] {
        let o = xcheck(
            dir.path(),
            &[&a, &b, "--function", "plain", "--abstract-calls", list],
        );
        assert_eq!(o.status.code(), Some(2), "{list}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!("xcheck: error: --abstract-calls: {why}\n")
        );
    }
    let o = xcheck(dir.path(), &[&a, &b, "--abstract-calls", "sin"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("--abstract-calls apply to function checks"));
}

#[test]
fn gate_jobs_link_once_and_note_what_each_function_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path());
    let o = xcheck(
        dir.path(),
        &[
            &a,
            &b,
            "--all-functions",
            "--include",
            "r*",
            "--max-time",
            "60s",
            "-o",
            "all",
        ],
    );
    assert!(o.status.code() != Some(2), "{}", stderr(&o));
    let rounding = notes(&dir.path().join("all/rounding"));
    let random = notes(&dir.path().join("all/random_plus"));
    assert!(note(&rounding, LINKED).is_some(), "{rounding:?}");
    assert!(note(&random, LINKED).is_none(), "{random:?}");
    // musl's functions, defined on both sides now, are not functions to check.
    let o = xcheck(
        dir.path(),
        &[&a, &b, "--all-functions", "--max-time", "8s", "-o", "every"],
    );
    let out = stdout(&o);
    assert!(
        out.contains("4 checked") && out.contains("0 not checked"),
        "{out}"
    );
    let musl = ["sin", "__sin", "fegetround", "fesetround", "__fesetround"];
    let mut first_words = out.lines().filter_map(|l| l.split_whitespace().next());
    assert!(!first_words.any(|w| musl.contains(&w)), "{out}");
    assert!(!out.contains("defined only"), "{out}");
    // Coverage counts the sides' own lines: rounding's one line each, not musl's.
    for side in ["A", "B"] {
        let text = format!("coverage {side}: 1/1 lines (100%) in 1 function");
        assert!(rounding.contains(&text), "{rounding:?}");
    }

    // The config key: the file's default over the command line's, a pair's over both.
    let config = format!(
        "[defaults]\nabstract_calls = \"fesetround\"\n\n[[pair]]\na = \"{a}\"\nb = \"{b}\"\n\n  [[pair.function]]\n  name = \"rounding\"\n"
    );
    std::fs::write(dir.path().join("xcheck.toml"), &config).unwrap();
    let args = [
        "--config",
        "xcheck.toml",
        "-o",
        "cfg",
        "--abstract-calls",
        "cos",
    ];
    let o = xcheck(dir.path(), &args);
    assert!(o.status.code() != Some(2), "{}", stderr(&o));
    let notes_cfg = notes(&dir.path().join("cfg/pair1/rounding"));
    assert!(
        notes_cfg
            .iter()
            .any(|n| n.starts_with("abstracted calls: fesetround (")),
        "{notes_cfg:?}"
    );
    let pair_list = config.replace("b = \"", "abstract_calls = [\"fegetround\"]\nb = \"");
    std::fs::write(dir.path().join("xcheck.toml"), pair_list).unwrap();
    let o = xcheck(dir.path(), &args);
    assert!(o.status.code() != Some(2), "{}", stderr(&o));
    let notes_pair = notes(&dir.path().join("cfg/pair1/rounding"));
    assert!(
        notes_pair
            .iter()
            .any(|n| n.starts_with("abstracted calls: fegetround (")),
        "{notes_pair:?}"
    );
}

/// The exit code and the table's rows of `a` against `b` (`wave`) with `extra` options.
fn wave(dir: &Path, a: &str, b: &str, extra: &[&str]) -> (i32, String) {
    let (a, b) = (
        compile_fixture(a, dir, "-O0").display().to_string(),
        compile_fixture(b, dir, "-O0").display().to_string(),
    );
    let mut args = vec![
        a.as_str(),
        b.as_str(),
        "--function",
        "wave",
        "--output-dir",
        "out",
    ];
    args.extend_from_slice(extra);
    let _ = std::fs::remove_dir_all(dir.join("out"));
    let o = xcheck(dir, &args);
    (o.status.code().unwrap_or(-1), stdout(&o))
}

#[test]
fn abstracted_calls_are_uninterpreted_functions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let abstracted = ["--abstract-calls", "sin,cos"];
    // sin(x)*2 + cos(y) against cos(y) + (s + s): the same for any sin and cos, up to which
    // NaN comes back when both results are NaN.
    let ieee = [&abstracted[..], &["--fp-equal", "ieee"]].concat();
    let (code, text) = wave(dir, "abstract_a.c", "abstract_b.c", &ieee);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("abstracted calls: sin, cos"), "{text}");
    // Bit for bit, two different NaN payloads of sin(x) and cos(y) make the sums differ, for
    // some sin and cos: a difference the replay cannot run, so never a confirmed one.
    let (code, text) = wave(dir, "abstract_a.c", "abstract_b.c", &abstracted);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("NOT confirmed"), "{text}");
    assert!(
        text.contains("replay cannot run abstracted calls"),
        "{text}"
    );
    // sin(y) where sin(x) was meant: found, equally unconfirmed.
    let (code, text) = wave(dir, "abstract_a.c", "abstract_c.c", &ieee);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("DIVERGED"), "{text}");
}
