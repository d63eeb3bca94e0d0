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
