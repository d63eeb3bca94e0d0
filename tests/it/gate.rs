//! CI gating: --all-functions, --fail-on, --junit, --json and --config on a refactored library.

use crate::common::*;

fn modules(dir: &std::path::Path) -> (String, String) {
    let a = compile_fixture("gate_old.c", dir, "-O2");
    let b = compile_fixture("gate_new.c", dir, "-O2");
    (a.display().to_string(), b.display().to_string())
}

#[test]
fn all_functions_checks_common_functions_and_lists_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = modules(dir.path());
    let o = xcheck(
        dir.path(),
        &[&a, &b, "--all-functions", "--junit", "junit.xml"],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    for (function, verdict, gate) in [
        ("add_sat", "EQUIVALENT", "pass"),
        ("mix", "EQUIVALENT", "pass"),
        ("parse_digit", "NOT EQUIVALENT", "FAIL"),
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(function))
            .unwrap_or_else(|| panic!("no row for {function}: {out}"));
        assert!(
            line.contains(verdict) && line.trim_end().ends_with(gate),
            "{line}"
        );
    }
    assert!(out.contains("legacy_only: defined only in A"), "{out}");
    assert!(out.contains("brand_new: defined only in B"), "{out}");
    assert!(out.contains("widened: signature changed"), "{out}");
    let xml = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(
        xml.contains("tests=\"3\"") && xml.contains("failures=\"1\""),
        "{xml}"
    );
    assert!(
        xml.contains("<failure") && xml.contains("parse_digit"),
        "{xml}"
    );
}

#[test]
fn fail_on_and_filters_decide_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = modules(dir.path());
    let o = xcheck(
        dir.path(),
        &[&a, &b, "--all-functions", "--exclude", "parse_*"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = xcheck(
        dir.path(),
        &[&a, &b, "--all-functions", "--fail-on", "unknown"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "divergences do not fail when only unknown does: {}",
        stdout(&o)
    );
    let o = xcheck(
        dir.path(),
        &[&a, &b, "--all-functions", "--include", "nothing*"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no function left to check"),
        "{}",
        stderr(&o)
    );
    let o = xcheck(
        dir.path(),
        &[&a, &b, "--all-functions", "--fail-on", "sometimes"],
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn json_lines_have_one_object_per_function() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = modules(dir.path());
    let o = xcheck(dir.path(), &[&a, &b, "--all-functions", "--json"]);
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    let digit = lines
        .iter()
        .find(|l| l["function"] == "parse_digit")
        .unwrap();
    assert_eq!(digit["verdict"], "diverged");
    assert_eq!(digit["failed"], true);
    // The schema every mode shares (docs/json.md): the report's summary is nested.
    assert_eq!(digit["schema"], 1);
    assert_eq!(digit["mode"], "gate");
    assert_eq!(digit["summary"]["overall"], "diverged");
    assert!(digit["summary"]["diverged"].as_u64().unwrap() >= 1);
}

#[test]
fn config_file_with_an_accepted_difference_passes() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = modules(dir.path());
    let config = format!(
        r#"
[defaults]
max_time = "60s"

[[pair]]
a = "{a}"
b = "{b}"
all_functions = true
exclude = ["mix"]

  [[pair.function]]
  name = "parse_digit"
  accept = "diverged"
  note = "':' is accepted on purpose"

  [[pair.function]]
  name = "add_sat"
  assume = ["a > 0", "b > 0"]
"#
    );
    std::fs::write(dir.path().join("xcheck.toml"), config).unwrap();
    let o = xcheck(dir.path(), &["--config", "xcheck.toml", "--junit", "j.xml"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("pass (accepted)"), "{out}");
    assert!(
        !out.lines().any(|l| l.starts_with("mix")),
        "mix is excluded: {out}"
    );
    // A malformed config names its line and key.
    std::fs::write(
        dir.path().join("bad.toml"),
        "[[pair]]\na = \"x.bc\"\nb = \"y.bc\"\nall_functions = true\nmax_tim = \"5s\"\n",
    )
    .unwrap();
    let o = xcheck(dir.path(), &["--config", "bad.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("bad.toml:5") && err.contains("max_tim"),
        "{err}"
    );
}

#[test]
fn all_functions_checks_floating_point_functions() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("gate_fp_old.c", dir.path(), "-O2");
    let b = compile_fixture("gate_fp_new.c", dir.path(), "-O2");
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let row = |out: &str, function: &str| -> String {
        out.lines()
            .find(|l| l.starts_with(function))
            .unwrap_or_else(|| panic!("no row for {function}: {out}"))
            .to_string()
    };
    let o = xcheck(dir.path(), &[&a, &b, "--all-functions", "-o", "bits"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(row(&out, "scale").contains("EQUIVALENT"), "{out}");
    assert!(row(&out, "mid").contains("NOT EQUIVALENT"), "{out}");
    assert!(row(&out, "magnitude").contains("NOT EQUIVALENT"), "{out}");
    // long double (x87) is checked too: `x * 2` and `x + x` round alike.
    let widen = row(&out, "widen");
    assert!(
        widen.contains("EQUIVALENT") && !widen.contains("NOT"),
        "{out}"
    );
    // IEEE equality: the sign of a zero or a NaN no longer counts.
    let o = xcheck(
        dir.path(),
        &[
            &a,
            &b,
            "--all-functions",
            "--fp-equal",
            "ieee",
            "-o",
            "ieee",
        ],
    );
    let out = stdout(&o);
    let magnitude = row(&out, "magnitude");
    assert!(
        magnitude.contains("EQUIVALENT") && !magnitude.contains("NOT"),
        "{out}"
    );
}

/// `xcheck` with `GITHUB_ACTIONS` set to `github` (or removed), whatever the test runs in.
fn xcheck_in_ci(
    dir: &std::path::Path,
    args: &[&str],
    github: Option<&str>,
) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_xcheck"));
    cmd.current_dir(dir).args(args);
    match github {
        Some(v) => cmd.env("GITHUB_ACTIONS", v),
        None => cmd.env_remove("GITHUB_ACTIONS"),
    };
    cmd.output().expect("the xcheck binary runs")
}

// Issue 34: a line per check as it ends, and each FAIL row with its first counterexample.
#[test]
fn gate_prints_a_line_per_check_and_the_counterexample_of_each_failure() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = modules(dir.path());
    let o = xcheck_in_ci(dir.path(), &[&a, &b, "--all-functions"], None);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let live: Vec<&str> = err.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(live.len(), 3, "one line per check: {err}");
    for (k, line) in live.iter().enumerate() {
        assert!(line.starts_with(&format!("[{}/3] ", k + 1)), "{err}");
    }
    assert!(
        live.iter()
            .any(|l| l.contains("parse_digit: NOT EQUIVALENT: FAIL")),
        "{err}"
    );
    // The counterexample follows the FAIL row, and only that row.
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("parse_digit"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        lines[at + 1]
            .trim_start()
            .starts_with("counterexample (path ")
            && lines[at + 1].contains("c = "),
        "{out}"
    );
    assert!(lines[at + 2].trim() == "A: returns -1", "{out}");
    assert!(lines[at + 3].trim().starts_with("B: returns "), "{out}");
    assert_eq!(out.matches("counterexample").count(), 1, "{out}");
    assert!(
        !out.contains("::error"),
        "no annotations outside GitHub Actions: {out}"
    );
    // The gate's summary.md links its page (issue 34).
    let out_dir = dir.path().join("xcheck-out");
    let summary = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    assert!(summary.contains("[report.html](report.html)"), "{summary}");
    assert!(out_dir.join("report.html").is_file());
}

// Issue 34: INCONCLUSIVE reads "inconclusive" in the gate; `--fail-on unknown` decides its
// exit code in the gate and with --function alike (default: gate 0, --function 3).
#[test]
fn inconclusive_checks_read_inconclusive_and_fail_on_decides_their_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("gate_old.c", dir.path(), "-O0");
    let b = compile_fixture("gate_new.c", dir.path(), "-O0");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    // add_sat has three paths at -O0: two leave it undecided.
    let gate = [
        a,
        b,
        "--all-functions",
        "--include",
        "add_sat",
        "--max-paths",
        "2",
    ];
    let o = xcheck(dir.path(), &gate);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let row = out.lines().find(|l| l.starts_with("add_sat")).unwrap();
    assert!(
        row.contains("INCONCLUSIVE") && row.trim_end().ends_with("inconclusive"),
        "{out}"
    );
    assert!(out.contains("1 inconclusive"), "{out}");
    let o = xcheck(dir.path(), &[&gate[..], &["--fail-on", "unknown"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("FAIL"), "{}", stdout(&o));
    let one = [
        a,
        b,
        "--function",
        "add_sat",
        "--max-paths",
        "2",
        "--jobs",
        "1",
    ];
    assert_eq!(xcheck(dir.path(), &one).status.code(), Some(3));
    let o = xcheck(dir.path(), &[&one[..], &["--fail-on", "unknown"]].concat());
    assert_eq!(o.status.code(), Some(1));
    let o = xcheck(dir.path(), &[&one[..], &["--fail-on", "diverged"]].concat());
    assert_eq!(o.status.code(), Some(0));
}

// Issue 34: a config is checked in full before any check runs; every problem is reported,
// preconditions in C syntax.
#[test]
fn config_is_validated_in_full_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = modules(dir.path());
    let config = format!(
        r#"[[pair]]
a = "{a}"
b = "{b}"

  [[pair.function]]
  name = "add_sat"
  assume = ["lo <= high"]

  [[pair.function]]
  name = "parse_digit"

  [[pair.function]]
  name = "no_such_function"

[[pair]]
a = "missing.bc"
b = "{b}"
all_functions = true
"#
    );
    std::fs::write(dir.path().join("xcheck.toml"), config).unwrap();
    let o = xcheck_in_ci(dir.path(), &["--config", "xcheck.toml", "-o", "out"], None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{}{err}", stdout(&o));
    assert!(err.contains("3 problems in xcheck.toml"), "{err}");
    assert!(
        err.contains("xcheck.toml:5: pair 1, function add_sat: --assume 'lo <= high': unknown parameter 'lo'"),
        "{err}"
    );
    assert!(!err.contains("(<= lo high)"), "{err}");
    assert!(
        err.contains("xcheck.toml:12: pair 1, function no_such_function: ")
            && err.contains("no function 'no_such_function'"),
        "{err}"
    );
    assert!(err.contains("xcheck.toml:15: pair 2: missing.bc"), "{err}");
    // Nothing ran: parse_digit, which is fine, was not checked.
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(
        !err.lines().any(|l| l.starts_with('[')),
        "no check ended: {err}"
    );
    assert!(!dir.path().join("out").exists());
}

// Issue 34: --include and --exclude narrow a config's checks, entries included.
#[test]
fn include_and_exclude_narrow_a_config() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = modules(dir.path());
    let config = format!(
        "[[pair]]\na = \"{a}\"\nb = \"{b}\"\nall_functions = true\n\n  [[pair.function]]\n  name = \"add_sat\"\n  assume = [\"a > 0\"]\n"
    );
    std::fs::write(dir.path().join("xcheck.toml"), config).unwrap();
    let checked = |args: &[&str]| -> (Option<i32>, Vec<String>) {
        let o = xcheck(dir.path(), &[&["--config", "xcheck.toml"], args].concat());
        let out = stdout(&o);
        let names = ["add_sat", "mix", "parse_digit"]
            .into_iter()
            .filter(|f| out.lines().any(|l| l.starts_with(f)))
            .map(String::from)
            .collect();
        (o.status.code(), names)
    };
    assert_eq!(checked(&[]).1, ["add_sat", "mix", "parse_digit"]);
    assert_eq!(
        checked(&["--exclude", "parse_*"]),
        (Some(0), vec!["add_sat".into(), "mix".into()])
    );
    assert_eq!(
        checked(&["--include", "add_*"]),
        (Some(0), vec!["add_sat".into()])
    );
    assert_eq!(
        checked(&["--include", "*_*", "--exclude", "add*"]),
        (Some(1), vec!["parse_digit".into()])
    );
    let o = xcheck(dir.path(), &["--config", "xcheck.toml", "--include", "zzz"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no function left to check"),
        "{}",
        stderr(&o)
    );
}

// Issue 34: in GitHub Actions, each failing check is an `::error` annotation at the source
// line where its sides part.
#[test]
fn github_actions_get_an_annotation_per_failing_check() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("gate_old.c", dir.path(), "-O0");
    let b = compile_fixture("gate_new.c", dir.path(), "-O0");
    let args = [a.to_str().unwrap(), b.to_str().unwrap(), "--all-functions"];
    let o = xcheck_in_ci(dir.path(), &args, Some("true"));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let notes: Vec<&str> = out.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(notes.len(), 1, "one failing check: {out}");
    // parse_digit's sides part at the comparison with ':' on line 3 of gate_new.c.
    assert!(
        notes[0].starts_with("::error file=")
            && notes[0].contains("gate_new.c,line=3,title=xcheck%3A parse_digit::parse_digit is NOT EQUIVALENT for c = "),
        "{out}"
    );
    assert!(notes[0].contains("A: returns -1; B: returns "), "{out}");
    // With --json the annotations go to stderr, stdout keeps JSON lines only.
    let o = xcheck_in_ci(dir.path(), &[&args[..], &["--json"]].concat(), Some("true"));
    assert!(stderr(&o).contains("::error file="), "{}", stderr(&o));
    for line in stdout(&o).lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
    let o = xcheck_in_ci(dir.path(), &args, Some("false"));
    assert!(!stdout(&o).contains("::error"), "{}", stdout(&o));
}

/// Compiles C source text to bitcode in `dir`.
fn bitcode_of(dir: &std::path::Path, name: &str, source: &str) -> String {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).unwrap();
    let bc = dir.join(format!("{name}.bc"));
    let status = std::process::Command::new(xcheck::toolchain::CLANG)
        .args(["-c", "-emit-llvm", "-g", "-O1"])
        .arg(&c)
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap();
    assert!(status.success());
    bc.display().to_string()
}

// The functions not checked obey --include/--exclude as the checked ones do, and a variadic
// function with the same fixed parameters on both sides is named variadic, not changed.
#[test]
fn functions_not_checked_follow_the_globs_and_name_variadics() {
    let dir = tempfile::tempdir().unwrap();
    let common = "#include <stdarg.h>\n\
        int keep(int x) { return x + 1; }\n\
        int sum(int n, ...) { va_list ap; va_start(ap, n); int s = 0;\n\
          for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }\n";
    let a = bitcode_of(
        dir.path(),
        "a",
        &format!("{common}int only_a(int x) {{ return x; }}\n"),
    );
    let b = bitcode_of(
        dir.path(),
        "b",
        &format!("{common}int only_b(int x) {{ return x; }}\n"),
    );
    let o = xcheck(dir.path(), &[&a, &b, "--all-functions"]);
    let out = stdout(&o);
    assert!(out.contains("sum: variadic"), "{out}");
    assert!(!out.contains("sum: signature changed"), "{out}");
    assert!(out.contains("only_a: defined only in A"), "{out}");
    let o = xcheck(
        dir.path(),
        &[&a, &b, "--all-functions", "--include", "keep"],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.lines().any(|l| l.starts_with("keep")), "{out}");
    for other in ["sum", "only_a", "only_b"] {
        assert!(!out.contains(other), "{other} listed: {out}");
    }
}
