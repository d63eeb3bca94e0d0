//! `xcheck suite`: every utility of a directory against the reference implementation, one
//! table, each difference replayed natively; errors of one check stay in its row.

use crate::common::{stderr, stdout, xcheck};
use crate::programs::{build_programs, program};
use std::path::Path;

/// A suite directory: `IMPL-UTIL.bc` and `IMPL-UTIL` for side a (the reference) and b of
/// each program pair, as links to the built programs.
pub(crate) fn suite_dir(dir: &Path, pairs: &[&str]) -> std::path::PathBuf {
    let suite = dir.join("utils");
    std::fs::create_dir_all(&suite).unwrap();
    for name in pairs {
        for side in ["a", "b"] {
            let native = program(name, side);
            std::os::unix::fs::symlink(&native, suite.join(format!("{side}-{name}"))).unwrap();
            std::os::unix::fs::symlink(
                native.with_extension("bc"),
                suite.join(format!("{side}-{name}.bc")),
            )
            .unwrap();
        }
    }
    suite
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_suite_gives_one_row_per_utility_with_native_confirmations_and_kinds() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_dir(dir.path(), &["wc_w", "echo_same"]);
    let out = dir.path().join("out");
    let o = xcheck(
        dir.path(),
        &[
            "suite",
            suite.to_str().unwrap(),
            "--against",
            "a",
            "-o",
            out.to_str().unwrap(),
            "-j",
            "2",
            "--",
            "--sym-args",
            "0",
            "1",
            "2",
            "--sym-stdin",
            "3",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let table = stdout(&o);
    assert!(
        table.contains("2 checks against a: 1 not equivalent, 1 equivalent"),
        "{table}"
    );
    let report = json(&out.join("suite.json"));
    let rows = report["rows"].as_array().unwrap();
    // In utility order, whatever order the two checks finished in.
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["utility"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo_same", "wc_w"]);
    let (same, wc) = (&rows[0], &rows[1]);
    assert_eq!(same["overall"], "equivalent");
    assert_eq!(same["native_replayed"], 0);
    assert_eq!(wc["overall"], "diverged");
    let diverged = wc["diverged"].as_u64().unwrap();
    assert!(diverged > 0);
    // Every confirmed difference was replayed on the native executables, and reproduced.
    assert_eq!(wc["native_replayed"].as_u64(), Some(diverged));
    assert_eq!(wc["native_confirmed"].as_u64(), Some(diverged));
    // wc -w counts words differently: the outputs differ in a number only.
    let kinds = wc["kinds"].as_array().unwrap();
    assert_eq!(kinds[0][0], "stdout: numbers differ", "{kinds:?}");
    assert_eq!(kinds[0][1].as_u64(), Some(diverged));
    // Each check has its own report, the same the check alone writes.
    let check = json(&out.join("b-vs-a/wc_w/report.json"));
    assert_eq!(
        check["summary"]["classes"][0]["class"],
        "stdout: numbers differ"
    );
    assert!(std::fs::read_to_string(out.join("suite.md"))
        .unwrap()
        .contains("| wc_w | b | NOT EQUIVALENT |"));
}

#[test]
fn a_check_that_cannot_run_is_an_error_row_and_bad_options_are_usage_errors() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_dir(dir.path(), &["echo_same"]);
    std::fs::write(suite.join("a-broken.bc"), b"not bitcode").unwrap();
    std::fs::write(suite.join("b-broken.bc"), b"not bitcode").unwrap();
    let out = dir.path().join("out");
    let run = |extra: &[&str]| {
        let mut args = vec!["suite", suite.to_str().unwrap(), "--against", "a", "-o"];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(extra);
        xcheck(dir.path(), &args)
    };
    let o = run(&["--", "--sym-args", "0", "1", "2"]);
    // No difference, but one check gave no verdict: inconclusive.
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let report = json(&out.join("suite.json"));
    let broken = &report["rows"][0];
    assert_eq!(broken["utility"], "broken");
    assert!(broken["overall"].is_null());
    let error = broken["error"].as_str().unwrap();
    assert!(
        error.starts_with(suite.join("b-broken.bc").to_str().unwrap())
            && error.contains("not an LLVM bitcode file"),
        "{error}"
    );
    assert_eq!(report["rows"][1]["overall"], "equivalent");

    for (extra, needle) in [
        (&["--only", "nope"][..], "--only nope: no a-nope.bc"),
        (&["-j", "0"][..], "-j: from 1 to"),
        (&["--compare", "stdout,colour"][..], "--compare"),
        (&["--sides", "zz"][..], "no utility both zz and a provide"),
    ] {
        let o = run(extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(needle) && err.lines().count() == 1,
            "{extra:?}: {err}"
        );
    }
}

#[test]
fn an_interrupt_stops_the_running_checks_with_their_reports_and_starts_no_more() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_dir(dir.path(), &["wc_w", "wc_l"]);
    let out = dir.path().join("out");
    // Each check alone runs far longer than the test waits.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_xcheck"))
        .args(["suite", suite.to_str().unwrap(), "--against", "a", "-o"])
        .arg(&out)
        .args(["--", "--sym-stdin", "40", "--max-time", "600"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2000));
    // The suite only: it passes the stop on to its running check.
    let sent = std::process::Command::new("kill")
        .args(["-s", "INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the suite did not stop"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(
        matches!(status.code(), Some(1 | 3)),
        "exit code {:?}",
        status.code()
    );
    let report = json(&out.join("suite.json"));
    assert_eq!(report["stopped"], true);
    assert_eq!(report["planned"], 2);
    // The first check (wc_l) was stopped with its report; the second never started.
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["utility"], "wc_l");
    let check = json(&out.join("b-vs-a/wc_l/report.json"));
    let reason = check["summary"]["stop_reason"].as_str().unwrap_or("");
    assert!(reason.contains("interrupted"), "{reason}");
    assert!(!out.join("b-vs-a/wc_w").exists());
}

#[test]
fn mismatches_reported_before_are_looked_up_in_the_checks_and_run_natively() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_dir(dir.path(), &["echo", "echo_same"]);
    let list = dir.path().join("known.toml");
    std::fs::write(
        &list,
        r#"
[[mismatch]]
utility = "echo"
args = ["--"]
reported = "one prints --, the other ends its options there"

[[mismatch]]
utility = "echo"
args = ["-nnn"]
reported = "one takes -nnn as an option"

[[mismatch]]
utility = "echo"
args = ["--", "--"]
reported = "one prints both, the other only the second"

[[mismatch]]
utility = "echo_same"
args = ["-n"]
reported = "fixed since"

[[mismatch]]
utility = "ls"
args = []
reported = "not in this suite"
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = |list: &Path| {
        xcheck(
            dir.path(),
            &[
                "suite",
                suite.to_str().unwrap(),
                "--against",
                "a",
                "-o",
                out.to_str().unwrap(),
                "-j",
                "2",
                "--mismatches",
                list.to_str().unwrap(),
                "--",
                "--sym-args",
                "0",
                "2",
                "2",
            ],
        )
    };
    let o = run(&list);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let report = json(&out.join("suite.json"));
    let known: Vec<&serde_json::Value> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["known"].as_array().into_iter().flatten())
        .chain(report["known_unchecked"].as_array().unwrap())
        .collect();
    let by = |command: &str| {
        *known
            .iter()
            .find(|k| k["command"] == command)
            .unwrap_or_else(|| panic!("{command}: {known:?}"))
    };
    // Rediscovered: a difference row whose test has exactly that command line, confirmed on
    // the executables, which still differ on it.
    let dashes = by("echo --");
    assert_eq!(dashes["differs_natively"], true, "{dashes}");
    assert!(
        dashes["found"].as_str().unwrap().contains(".ktest"),
        "{dashes}"
    );
    assert_eq!(dashes["confirmed_natively"], true, "{dashes}");
    // No test has exactly this command line (its path's test holds other arguments), but
    // the exploration was complete and covers it: replayed in the engine, the sides differ
    // as they do natively.
    let both = by("echo -- --");
    assert_eq!(both["differs_natively"], true, "{both}");
    let found = both["found"].as_str().unwrap_or_default();
    assert!(found.contains("complete exploration"), "{both}");
    assert!(found.contains("differs"), "{both}");
    assert_eq!(both["confirmed_natively"], true, "{both}");
    // Out of reach of two-character arguments, though the executables differ on it.
    let long = by("echo -nnn");
    assert_eq!(long["differs_natively"], true, "{long}");
    assert!(long["found"].is_null());
    assert!(long["note"].as_str().unwrap().contains("outside"), "{long}");
    // The executables agree on it now, and the check found nothing there.
    let same = by("echo_same -n");
    assert_eq!(same["differs_natively"], false, "{same}");
    assert!(same["found"].is_null());
    let ls = by("ls");
    assert_eq!(ls["side"], "");
    assert!(std::fs::read_to_string(out.join("suite.md"))
        .unwrap()
        .contains("| `echo --` |"));
    assert!(
        stdout(&o).contains(
            "mismatches reported before: 5 looked up, 3 still differ natively, 2 of those rediscovered"
        ),
        "{}",
        stdout(&o)
    );

    // A list that is not one is a usage error naming the file.
    std::fs::write(&list, "[[mismatch]]\nutility = 3\n").unwrap();
    let o = run(&list);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("known.toml"), "{err}");
}
