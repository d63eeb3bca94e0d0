//! Results people look at (issue 34): `summary.md` beside every report, small whatever the
//! check found, with each kind's example given in full.

use crate::common::{compile_fixture, stderr, stdout, xcheck};
use crate::programs::{build_programs, program};
use std::path::Path;

/// The most bytes `summary.md` may take.
const SUMMARY_CAP: usize = 8 * 1024;

/// Reads `dir/report.json`.
fn report_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// The row numbered `id` of a report.
fn row(report: &serde_json::Value, id: u64) -> &serde_json::Value {
    let rows = report["rows"].as_array().unwrap();
    rows.iter().find(|r| r["id"] == id).unwrap()
}

/// Checks the summary of the report in `out`: under the cap, linking the full report, and
/// each kind it shows with its example's inputs in full (scalars first) and both results.
fn check_summary(out: &Path) -> String {
    let summary = std::fs::read_to_string(out.join("summary.md")).expect("summary.md written");
    assert!(summary.len() <= SUMMARY_CAP, "{} bytes", summary.len());
    assert!(summary.contains("[report.md](report.md)"), "{summary}");
    let report = report_json(out);
    let verdict = match report["summary"]["overall"].as_str().unwrap() {
        "diverged" => "**NOT EQUIVALENT",
        "equivalent" => "**EQUIVALENT",
        _ => "**INCONCLUSIVE",
    };
    assert!(summary.contains(verdict), "{summary}");
    for class in report["summary"]["classes"].as_array().unwrap() {
        let example = row(&report, class["example"].as_u64().unwrap());
        let test = example["ktest"].as_str().unwrap();
        if !summary.contains(&format!("[{test}]({test})")) {
            continue; // a kind left out for the size (counted in the summary)
        }
        let mut inputs: Vec<(bool, String)> = example["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let display = i["display"].as_str().unwrap();
                let bytes = i["bytes"].as_array().unwrap().len();
                let scalar = bytes <= 16 && !display.starts_with(['"', '{']);
                (
                    !scalar,
                    format!("{} = {display}\n", i["name"].as_str().unwrap()),
                )
            })
            .collect();
        inputs.sort_by_key(|(buffer, _)| *buffer);
        let listed: String = inputs.into_iter().map(|(_, line)| line).collect();
        let a = format!("A: {}\n", example["result_a"].as_str().unwrap());
        let b = format!("B: {}\n", example["result_b"].as_str().unwrap());
        assert!(
            summary.contains(&format!("{listed}{a}{b}")),
            "{listed}{a}{b} not in {summary}"
        );
    }
    summary
}

// A function check whose differences are thousands of paths of three kinds: the summary
// stays a few kilobytes while report.md grows past a megabyte, and names each kind's
// example's inputs in full (the count `n` before the 48-byte buffer `s` it follows).
#[test]
fn r34_summary_of_thousands_of_differences_is_small_and_complete() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("many_a.c", dir.path(), "-O0");
    let b = compile_fixture("many_b.c", dir.path(), "-O0");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let args = [
        a,
        b,
        "--function",
        "tally",
        "--buffer-size",
        "48",
        "--no-merge",
    ];
    let o = xcheck(dir.path(), &[&args[..], &["-o", "out"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = dir.path().join("out");
    let summary = check_summary(&out);
    let report = report_json(&out);
    let differences = report["summary"]["diverged"].as_u64().unwrap()
        + report["summary"]["errors_one"].as_u64().unwrap();
    assert!(differences > 500, "{differences}");
    assert!(
        summary.contains("## Differences by kind (4 kinds)"),
        "{summary}"
    );
    assert!(summary.contains("\nn = 77\ns = \""), "{summary}");
    let md = std::fs::metadata(out.join("report.md")).unwrap().len();
    assert!(md > 100 * summary.len() as u64, "report.md {md} bytes");
}

// A program check writes one too, its environment's inputs listed whole.
#[test]
fn r34_a_program_check_writes_a_summary() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (program("echo", "a"), program("echo", "b"));
    let (a, b) = (format!("{}.bc", a.display()), format!("{}.bc", b.display()));
    let (a, b) = (a.as_str(), b.as_str());
    let args = [a, b, "-j", "1", "--sym-args", "0", "2", "2", "-o", "out"];
    let o = xcheck(dir.path(), &args);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let summary = check_summary(&dir.path().join("out"));
    assert!(summary.contains("\nn_args = "), "{summary}");
}
