//! Results people look at (issue 34): `summary.md` beside every report, small whatever the
//! check found, with each kind's example given in full.

use crate::common::{compile_fixture, stderr, stdout, test_files, xcheck};
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
pub(crate) fn check_summary(out: &Path) -> String {
    let summary = std::fs::read_to_string(out.join("summary.md")).expect("summary.md written");
    assert!(summary.len() <= SUMMARY_CAP, "{} bytes", summary.len());
    assert!(summary.contains("[report.md](report.md)"), "{summary}");
    // The page it links is there (issue 34).
    assert!(summary.contains("[report.html](report.html)"), "{summary}");
    assert!(out.join("report.html").is_file());
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

/// The options of the check of `tally` (`many_a.c` against `many_b.c`: hundreds of
/// differing paths of four kinds) that its replay takes too.
const TALLY: [&str; 4] = ["--function", "tally", "--buffer-size", "48"];

/// Builds `tally`'s two sides in `dir` and checks them into `dir/out` with `options`;
/// returns the two bitcode files and the output directory.
fn check_many(dir: &Path, options: &[&str]) -> (String, String, std::path::PathBuf) {
    let side = |c: &str| {
        let bc = compile_fixture(c, dir, "-O0");
        bc.to_str().unwrap().to_string()
    };
    let (a, b) = (side("many_a.c"), side("many_b.c"));
    let args = [
        &[a.as_str(), b.as_str()],
        &TALLY[..],
        &["--no-merge"],
        options,
    ]
    .concat();
    let o = xcheck(dir, &[&args[..], &["-o", "out"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    (a, b, dir.join("out"))
}

// A function check whose differences are hundreds of paths: the summary stays a few
// kilobytes while report.md is most of a megabyte, and names each kind's example's inputs
// in full (the count `n` before the 48-byte buffer `s` it follows). Each kind gets 10 test
// files, its example among them; the counts stay those of every row, the report says how
// many tests were not written, and the directory replays.
#[test]
fn r34_summary_and_tests_of_hundreds_of_differences_are_small_and_complete() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = check_many(dir.path(), &[]);
    let summary = check_summary(&out);
    let report = report_json(&out);
    let s = &report["summary"];
    let differences = s["diverged"].as_u64().unwrap() + s["errors_one"].as_u64().unwrap();
    assert!(differences > 500, "{differences}");
    assert!(
        summary.contains("## Differences by kind (4 kinds)"),
        "{summary}"
    );
    assert!(summary.contains("\nn = 77\ns = \""), "{summary}");
    let md = std::fs::metadata(out.join("report.md")).unwrap().len();
    assert!(md > 100 * summary.len() as u64, "report.md {md} bytes");

    let classes = s["classes"].as_array().unwrap();
    let tests = test_files(&out);
    let capped: u64 = classes
        .iter()
        .map(|c| c["rows"].as_u64().unwrap().min(10))
        .sum();
    assert_eq!(tests.len() as u64, capped);
    for c in classes {
        let example = row(&report, c["example"].as_u64().unwrap());
        let test = example["ktest"].as_str().expect("the example has a test");
        assert!(tests.contains(&test.to_string()), "{test}");
        assert_eq!(c["confirmed"], c["rows"], "{c}");
    }
    let unwritten = differences - capped;
    let note = format!("{unwritten} tests were not written (--tests-per-kind 10");
    let notes = s["notes"].to_string();
    assert!(notes.contains(&note), "{notes}");
    assert!(
        summary.contains(&format!("{unwritten} tests were not written")),
        "{summary}"
    );
    // Every test the report names is there, and replays as the report says.
    let replay = [&["replay", "out", a.as_str(), b.as_str()], &TALLY[..]].concat();
    let o = xcheck(dir.path(), &replay);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        stdout(&o).matches(".ktest: ").count(),
        tests.len(),
        "{}",
        stdout(&o)
    );

    // --all-tests writes one per difference, with the same counts.
    let all = tempfile::tempdir().unwrap();
    let (_, _, out_all) = check_many(all.path(), &["--all-tests"]);
    assert_eq!(test_files(&out_all).len() as u64, differences);
    assert_eq!(report_json(&out_all)["summary"]["classes"], s["classes"]);
}

/// Checks the `summary.md` of the gate run in `out`: under the cap, a row per function
/// linking that function's own summary (which exists), and the verdict of every one.
pub(crate) fn check_gate_summary(out: &Path) -> String {
    let summary = std::fs::read_to_string(out.join("summary.md")).expect("summary.md written");
    assert!(summary.len() <= SUMMARY_CAP, "{} bytes", summary.len());
    let links: Vec<&str> = summary
        .split("](")
        .skip(1)
        .map(|rest| &rest[..rest.find(')').unwrap()])
        .collect();
    assert!(!links.is_empty(), "{summary}");
    for link in links {
        assert!(out.join(link).is_file(), "{link} in {summary}");
    }
    summary
}

// Issue 34: in GitHub Actions a single check that fails is an `::error` annotation too, at
// the source line where its sides part (route_b.c:9, the comparison with 1000), the file
// named relative to the checked-out repository (`GITHUB_WORKSPACE`) as its route found it;
// none outside GitHub Actions or when the check passes.
#[test]
fn r34_a_function_check_is_annotated_in_github_actions() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("route_a.c", dir.path(), "-O0");
    let b = compile_fixture("route_b.c", dir.path(), "-O0");
    let run = |github: &str, extra: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_xcheck"));
        cmd.current_dir(dir.path())
            .args([a.to_str().unwrap(), b.to_str().unwrap()])
            .args(["--function", "classify"])
            .args(extra)
            .env("GITHUB_ACTIONS", github)
            .env("GITHUB_WORKSPACE", crate::common::repo());
        cmd.output().expect("the xcheck binary runs")
    };
    let o = run("true", &[]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let notes: Vec<&str> = out.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(notes.len(), 1, "{out}");
    assert!(
        notes[0].starts_with(
            "::error file=tests/fixtures/route_b.c,line=9,title=xcheck%3A classify::classify is NOT EQUIVALENT for x = 1000: A: returns 1; B: returns 2"
        ),
        "{out}"
    );
    assert!(!stdout(&run("false", &[])).contains("::error"));
    // A passing check has none.
    let o = run("true", &["--assume", "x != 1000"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("::"), "{}", stdout(&o));
}

// Issue 34: a `long *` buffer is shown as longs and a `short *` one as shorts (their
// elements' types from debug information), in the inputs and the results of every format;
// report.json keeps the raw bytes beside the typed text.
#[test]
fn r34_buffers_are_shown_by_their_elements_type_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("typed_a.c", dir.path(), "-O1");
    let b = compile_fixture("typed_b.c", dir.path(), "-O1");
    let o = xcheck(
        dir.path(),
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "negate",
            "--buffer-size",
            "v=16",
            "--buffer-size",
            "w=4",
            "-o",
            "out",
        ],
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
    let out = dir.path().join("out");
    let report = report_json(&out);
    let example = report["summary"]["classes"][0]["example"].as_u64().unwrap();
    let row = row(&report, example);
    let input = |name: &str| {
        let inputs = row["inputs"].as_array().unwrap();
        inputs.iter().find(|i| i["name"] == name).unwrap().clone()
    };
    let (v, w) = (input("v"), input("w"));
    // The raw bytes, and the typed text: v[1] is 7 on the example.
    let bytes: Vec<u8> = (v["bytes"].as_array().unwrap().iter())
        .map(|b| b.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(bytes.len(), 16);
    let first = i64::from_le_bytes(bytes[..8].try_into().unwrap());
    let v_text = format!("{{{first}, 7}}");
    assert_eq!(v["display"], v_text.as_str(), "{row}");
    let w_text = w["display"].as_str().unwrap().to_string();
    let shorts: Vec<&str> = (w_text.strip_prefix('{').and_then(|t| t.strip_suffix('}')))
        .unwrap_or_else(|| panic!("{w_text}"))
        .split(", ")
        .collect();
    assert_eq!(shorts.len(), 2, "{w_text}");
    for s in shorts {
        s.parse::<i16>().unwrap_or_else(|_| panic!("{w_text}"));
    }
    // The results: A's v[1] is -7, B's 0.
    let a_v = format!("buffer 'v' {{{}, -7}}", first.wrapping_neg());
    let b_v = format!("buffer 'v' {{{}, 0}}", first.wrapping_neg());
    assert!(row["result_a"].as_str().unwrap().contains(&a_v), "{row}");
    assert!(row["result_b"].as_str().unwrap().contains(&b_v), "{row}");
    let csv = std::fs::read_to_string(out.join("report.csv")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for (format, shown) in [
        ("text", &text),
        ("csv", &csv),
        ("md", &md),
        ("summary.md", &summary),
        ("html", &html),
    ] {
        for want in [&v_text, &w_text, &a_v, &b_v] {
            assert!(
                shown.contains(want.as_str()),
                "{format} lacks {want}: {shown}"
            );
        }
    }
}
