//! Merging without a flag: the states of a branch whose region is small and free of effects
//! meet again as one (an `if` per bit is one path), a divergence inside such a region is
//! still found and confirmed, and `--no-merge` reports every path on its own.

use crate::common::{compile_fixture, stderr, stdout, xcheck};
use serde_json::Value;
use std::path::Path;

/// The rows of `dir/report.json` and its summary.
fn report(dir: &Path) -> (Vec<Value>, Value) {
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let mut json: Value = serde_json::from_str(&text).unwrap();
    let rows = json["rows"].as_array().cloned().unwrap_or_default();
    (rows, json["summary"].take())
}

/// A counter of a report's summary.
fn counter(summary: &Value, name: &str) -> u64 {
    summary["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c[0] == name)
        .and_then(|c| c[1].as_u64())
        .unwrap_or_else(|| panic!("no counter {name}: {summary}"))
}

#[test]
fn an_if_per_bit_is_proved_against_swar_without_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("bits_a.c", dir.path(), "-O0");
    let b = compile_fixture("bits_b.c", dir.path(), "-O0");
    let o = xcheck(
        dir.path(),
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "popc",
            "-j",
            "1",
            "--max-time",
            "120s",
            "-o",
            "out",
        ],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("paths        : 1 (proved 1"), "{out}");
    let (rows, summary) = report(&dir.path().join("out"));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["merged_paths"], 1u64 << 32, "{rows:?}");
    // One merge per bit: the states of each `if` met again once.
    assert_eq!(counter(&summary, "merges"), 32, "{summary}");
    assert_eq!(counter(&summary, "paths merged away"), 32, "{summary}");
}

/// Runs `score` of `branchy_a.c` against `branchy_b.c` (at -O0, one `if` per byte; B differs
/// when the last byte is above 'm') into `dir/out`, with `extra` options.
fn branchy(dir: &Path, out: &str, extra: &[&str]) -> (Option<i32>, String) {
    let a = compile_fixture("branchy_a.c", dir, "-O0");
    let b = compile_fixture("branchy_b.c", dir, "-O0");
    let mut args = vec![
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--function",
        "score",
        "--buffer-size",
        "6",
        "-j",
        "1",
        "-o",
        out,
    ];
    args.extend(extra);
    let o = xcheck(dir, &args);
    (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
}

#[test]
fn a_divergence_inside_a_merged_region_is_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = branchy(dir.path(), "out", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(!text.contains("NOT confirmed"), "{text}");
    let (rows, summary) = report(&dir.path().join("out"));
    // Every `if` merged: one row stands for the paths, and it diverges.
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0]["merged_paths"].as_u64() > Some(1), "{rows:?}");
    assert_eq!(summary["diverged"], 1, "{summary}");
    assert!(counter(&summary, "merges") > 0, "{summary}");
    // Its counterexample (the solver's model of the merged path) makes B differ: the last
    // byte is above 'm', and the engine's replay of the test confirmed it.
    let ktest = rows[0]["ktest"].as_str().expect("the row has a test");
    let show = xcheck(dir.path(), &["show", &format!("out/{ktest}")]);
    assert_eq!(show.status.code(), Some(0), "{}", stderr(&show));
    let again = xcheck(
        dir.path(),
        &[
            "replay",
            &format!("out/{ktest}"),
            compile_fixture("branchy_a.c", dir.path(), "-O0")
                .to_str()
                .unwrap(),
            compile_fixture("branchy_b.c", dir.path(), "-O0")
                .to_str()
                .unwrap(),
            "--function",
            "score",
            "--buffer-size",
            "6",
        ],
    );
    let replayed = stdout(&again);
    assert_eq!(again.status.code(), Some(1), "{replayed}{}", stderr(&again));
    assert!(replayed.contains("DIVERGED"), "{replayed}");
}

#[test]
fn no_merge_reports_every_path_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = branchy(dir.path(), "off", &["--no-merge"]);
    assert_eq!(code, Some(1), "{text}");
    let (rows, summary) = report(&dir.path().join("off"));
    assert_eq!(rows.len(), 64, "{summary}");
    assert!(rows.iter().all(|r| r["merged_paths"] == 1), "{rows:?}");
    // B differs from A on every path where the last byte counts: half of them.
    assert_eq!(summary["diverged"], 32, "{summary}");
    assert_eq!(counter(&summary, "merges"), 0, "{summary}");
    // `--merge` (every join) and `--no-merge` contradict each other.
    let (code, text) = branchy(dir.path(), "both", &["--merge", "--no-merge"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("--no-merge"), "{text}");
}
