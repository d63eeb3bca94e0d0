//! Directory listing and pipes in the system-call model, through whole programs: a program
//! listing its directory with `readdir` is proved equivalent to one using `scandir`, and one
//! that hides a file it made is found diverged with the listing in its outputs; a program
//! passing stdin through a pipe of its own is proved equivalent to one that reads the pipe a
//! byte at a time, and one that changes what goes through the pipe is found diverged. Every
//! difference reproduces on the native executables, and no system call is left unmodelled.

use crate::common::{repo, stderr, stdout, xcheck};
use std::path::Path;
use xcheck::report::suite::UNMODELLED_NOTE;

pub(crate) fn cc(dir: &Path, fixture: &str, out: &str, defines: &[&str]) {
    let src = repo().join("tests/fixtures").join(fixture);
    let mut args = vec!["cc", "-O1", "-g", "-o", out];
    args.extend(defines);
    args.push(src.to_str().unwrap());
    let o = xcheck(dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Checks a against b with `env`; returns the exit code, the terminal text and report.json.
pub(crate) fn check(
    dir: &Path,
    a: &str,
    b: &str,
    out: &str,
    env: &[&str],
) -> (i32, String, serde_json::Value) {
    let (abc, bbc) = (format!("{a}.bc"), format!("{b}.bc"));
    let mut args = vec![abc.as_str(), bbc.as_str(), "-j", "1", "-o", out, "--"];
    args.extend(env);
    let o = xcheck(dir, &args);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    let report = std::fs::read_to_string(dir.join(out).join("report.json"))
        .unwrap_or_else(|e| panic!("{out}/report.json: {e}\n{text}"));
    (
        o.status.code().unwrap_or(-1),
        text,
        serde_json::from_str(&report).unwrap(),
    )
}

/// Every diverged row reproduced on the native executables beside the bitcode.
pub(crate) fn natively_confirmed(report: &serde_json::Value, text: &str) -> usize {
    let rows = report["rows"].as_array().unwrap();
    let diverged: Vec<_> = rows.iter().filter(|r| r["verdict"] == "diverged").collect();
    for row in &diverged {
        assert_eq!(
            row["native"], true,
            "row {} not reproduced\n{text}",
            row["id"]
        );
    }
    diverged.len()
}

#[test]
fn a_directory_listing_is_modelled_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cc(d, "dirlist.c", "readdir", &[]);
    cc(d, "dirlist.c", "scandir", &["-DSCANDIR"]);
    cc(d, "dirlist.c", "hide", &["-DHIDE_MADE"]);
    let env = ["--sym-files", "2", "3", "--sym-stdin", "2"];

    let (code, text, _) = check(d, "readdir", "scandir", "same", &env);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("verdict      : EQUIVALENT"), "{text}");
    assert!(!text.contains(UNMODELLED_NOTE), "{text}");

    // The variant hides "made" from its listing: it differs exactly when stdin makes it, and
    // the outputs show the listing (with A removed or not).
    let (code, text, report) = check(d, "readdir", "hide", "hide-out", &env);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("verdict      : NOT EQUIVALENT"), "{text}");
    assert!(!text.contains(UNMODELLED_NOTE), "{text}");
    assert!(natively_confirmed(&report, &text) >= 1, "{text}");
    // Rows of the outputs A printed: the listing with "made" (and A, unless removed).
    let listings: Vec<&str> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "diverged")
        .filter_map(|r| r["result_a"].as_str())
        .collect();
    assert_eq!(listings.len(), 2, "{text}");
    assert!(
        listings
            .iter()
            .any(|r| r.contains(r#"stdout ".\n..\nA\nB\nmade\n""#)),
        "{listings:?}"
    );
    assert!(
        listings
            .iter()
            .any(|r| r.contains(r#"stdout ".\n..\nB\nmade\n""#)),
        "{listings:?}"
    );
    // The native executables, run in a real directory holding A and B, print the same
    // listings as the model gave.
    let native = xcheck(d, &["replay", "hide-out", "--native", "readdir", "hide"]);
    let native_text = stdout(&native);
    assert_eq!(native.status.code(), Some(0), "{native_text}");
    for listing in [
        r#"A: exit 0, stdout ".\n..\nA\nB\nmade\n""#,
        r#"A: exit 0, stdout ".\n..\nB\nmade\n""#,
    ] {
        assert!(native_text.contains(listing), "{listing}\n{native_text}");
    }
}

#[test]
fn a_pipe_carries_symbolic_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cc(d, "pipethrough.c", "pipe", &[]);
    cc(d, "pipethrough.c", "bytewise", &["-DBYTEWISE"]);
    cc(d, "pipethrough.c", "xtoy", &["-DXTOY"]);
    let env = ["--sym-stdin", "3"];

    let (code, text, _) = check(d, "pipe", "bytewise", "same", &env);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("verdict      : EQUIVALENT"), "{text}");
    assert!(!text.contains(UNMODELLED_NOTE), "{text}");
    assert!(!text.contains("block forever"), "{text}");

    // What goes through the pipe differs when stdin holds an 'x': found and reproduced.
    let (code, text, report) = check(d, "pipe", "xtoy", "differ", &env);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("verdict      : NOT EQUIVALENT"), "{text}");
    assert!(natively_confirmed(&report, &text) >= 1, "{text}");
    // Exactly the inputs holding an 'x' differ, and A printed the 'x' where B printed 'y'.
    for row in report["rows"].as_array().unwrap() {
        let stdin = row["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == "stdin")
            .and_then(|i| i["bytes"].as_array())
            .map(|b| b.iter().any(|v| v == b'x'))
            .unwrap_or(false);
        assert_eq!(row["verdict"] == "diverged", stdin, "{row}");
    }
    let rows = report["rows"].as_array().unwrap();
    let printed = |r: &serde_json::Value, side: &str| {
        let text = r[side].as_str().unwrap_or("");
        text.strip_prefix("exit 0, stdout ").map(str::to_owned)
    };
    assert!(
        rows.iter().any(|r| matches!(
            (printed(r, "result_a"), printed(r, "result_b")),
            (Some(a), Some(b)) if a.contains('x') && a.replace('x', "y") == b
        )),
        "{text}"
    );
}

/// A wait no other process could end, or events the model does not make, leave the path
/// unknown on both sides: never "both fail the same way" (which counted as agreement).
#[test]
fn a_gap_of_the_model_on_both_sides_is_unknown_not_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, define) in [("pipe", "-DPIPE"), ("inotify", "-DINOTIFY")] {
        cc(d, "waitforever.c", name, &[define]);
        let out = format!("{name}-out");
        let (code, text, report) = check(d, name, name, &out, &["--sym-stdin", "1"]);
        assert_eq!(code, 3, "{text}");
        let rows = report["rows"].as_array().unwrap();
        let unknown: Vec<_> = rows.iter().filter(|r| r["verdict"] == "unknown").collect();
        assert_eq!(unknown.len(), 1, "{text}");
        let detail = unknown[0]["detail"].as_str().unwrap();
        assert!(detail.contains("the POSIX model cannot go on"), "{detail}");
        assert!(
            rows.iter()
                .all(|r| r["verdict"] == "proved" || r["verdict"] == "unknown"),
            "{text}"
        );
    }
}
