//! Deterministic shards (`--shard K/N`) and `xcheck merge`: N shards run one after another
//! on this machine, merged, give the report one unsharded run gives (the same rows in the
//! same order with the same verdicts, tests and exit code), for function checks, whole
//! programs and gate runs; a shard that stopped early makes the merge inconclusive; what
//! merge refuses is one line and exit 2.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// The rows of `dir/report.json` as the fields a merge must reproduce; `inputs`: with the
/// counterexamples' bytes and the results they give.
fn rows(dir: &Path, inputs: bool) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut keep = serde_json::Map::new();
            let mut fields = vec![
                "id",
                "verdict",
                "merged_paths",
                "detail",
                "ktest",
                "confirmed",
            ];
            if inputs {
                fields.extend(["inputs", "result_a", "result_b"]);
            }
            for f in fields {
                keep.insert(f.into(), r[f].clone());
            }
            Value::Object(keep)
        })
        .collect()
}

fn summary(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    report["summary"].clone()
}

/// The verdict fields of a summary.
fn verdict_of(s: &Value) -> Vec<Value> {
    [
        "overall",
        "complete",
        "paths",
        "proved",
        "diverged",
        "errors_both",
        "errors_one",
        "unconfirmed",
        "unknown",
    ]
    .iter()
    .map(|f| s[*f].clone())
    .collect()
}

/// Runs `args` unsharded into `full`, then as `n` shards split at `frontier` states per
/// shard, merges them into `merged`, and checks that the merge equals the unsharded run.
fn shards_merge_to_one_run(dir: &Path, args: &[&str], n: u32, frontier: &str, inputs: bool) {
    let run = |extra: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(extra);
        xcheck(dir, &all)
    };
    let full = run(&["-o", "full"]);
    let code = full.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{}{}",
        stdout(&full),
        stderr(&full)
    );
    let mut shard_dirs = Vec::new();
    let mut digests = std::collections::BTreeSet::new();
    for k in 1..=n {
        let out = format!("s{n}_{k}");
        let spec = format!("{k}/{n}");
        let o = run(&["-o", &out, "--shard", &spec, "--shard-frontier", frontier]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        let s = summary(&dir.join(&out));
        assert_eq!(s["shard"]["index"], k, "{s}");
        digests.insert(s["shard"]["digest"].to_string());
        shard_dirs.push(out);
    }
    assert_eq!(
        digests.len(),
        1,
        "every shard split the same tree: {digests:?}"
    );
    let merged = format!("merged{n}");
    let mut margs: Vec<&str> = vec!["merge"];
    // In reverse: the order of the directories does not matter.
    margs.extend(shard_dirs.iter().rev().map(String::as_str));
    margs.extend(["-o", &merged]);
    let m = xcheck(dir, &margs);
    assert_eq!(m.status.code(), code, "{}{}", stdout(&m), stderr(&m));
    let (full_dir, merged_dir) = (dir.join("full"), dir.join(&merged));
    assert_eq!(
        verdict_of(&summary(&merged_dir)),
        verdict_of(&summary(&full_dir)),
        "{n} shards"
    );
    assert_eq!(
        rows(&merged_dir, inputs),
        rows(&full_dir, inputs),
        "{n} shards"
    );
    // The tests the rows name are there, and no other.
    let tests = test_files;
    assert_eq!(tests(&merged_dir), tests(&full_dir));
    if inputs {
        for name in tests(&full_dir) {
            let read = |d: &Path| std::fs::read(d.join(&name)).unwrap();
            assert_eq!(read(&merged_dir), read(&full_dir), "{name}");
        }
    }
}

/// The check every function test here runs: `score`, one branch per byte of a 6-byte
/// buffer (64 paths), without merging: the paths are what the shards split (a frontier is
/// expanded without merging, so a merged run's rows would not be the shards' rows).
const SCORE: [&str; 5] = ["--function", "score", "--buffer-size", "6", "--no-merge"];

/// `score`'s A (`branchy_a.c` at -O0) and a B in `dir`: `branchy_b.c` (which differs from
/// A on some paths) or, with `same`, A's source at -O2.
fn score_pair(dir: &Path, same: bool) -> (String, String) {
    let a = compile_fixture("branchy_a.c", dir, "-O0");
    let b = if same {
        compile_fixture("branchy_a.c", dir, "-O2")
    } else {
        compile_fixture("branchy_b.c", dir, "-O0")
    };
    (a.display().to_string(), b.display().to_string())
}

#[test]
fn function_shards_merge_into_the_unsharded_report() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = score_pair(dir.path(), false);
    let args = [[a.as_str(), b.as_str()].as_slice(), &SCORE, &["-j", "1"]].concat();
    for n in [1, 2, 4, 7] {
        shards_merge_to_one_run(dir.path(), &args, n, "3", true);
    }
    // With the default frontier (16 states per shard) as well.
    shards_merge_to_one_run(dir.path(), &args, 2, "16", true);
    let s = summary(&dir.path().join("full"));
    assert_eq!(s["paths"], 64, "{s}");
}

#[test]
fn program_shards_merge_into_the_unsharded_report() {
    crate::programs::build_programs();
    let dir = tempfile::tempdir().unwrap();
    for (name, env) in [
        (
            "wc_w",
            &["--sym-args", "0", "1", "2", "--sym-stdin", "4"][..],
        ),
        ("wc_l", &["--sym-stdin", "4"][..]),
    ] {
        let a = crate::programs::program(name, "a.bc");
        let b = crate::programs::program(name, "b.bc");
        let mut args = vec![a.to_str().unwrap(), b.to_str().unwrap(), "-j", "2"];
        args.extend(env);
        let sub = dir.path().join(name);
        std::fs::create_dir_all(&sub).unwrap();
        for n in [2, 4, 7] {
            // A program's counterexample bytes are the solver's choice (Bitwuzla's models
            // may differ from one process to the next): compared are the rows' paths,
            // verdicts, details, tests and confirmations.
            shards_merge_to_one_run(&sub, &args, n, "2", false);
        }
    }
}

#[test]
fn a_shard_that_stopped_early_leaves_the_merge_inconclusive_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = score_pair(dir.path(), true);
    let base = [
        [a.as_str(), b.as_str()].as_slice(),
        &SCORE,
        &["--shard-frontier", "2"],
    ]
    .concat();
    let run = |k: &str, extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend(["--shard", k, "-o", k.split('/').next().unwrap()]);
        args.extend(extra);
        xcheck(dir.path(), &args)
    };
    assert_eq!(run("1/2", &[]).status.code(), Some(0));
    let stopped = run("2/2", &["--max-paths", "1"]);
    assert_eq!(stopped.status.code(), Some(3), "{}", stdout(&stopped));
    let m = xcheck(dir.path(), &["merge", "1", "2", "-o", "m"]);
    assert_eq!(m.status.code(), Some(3), "{}{}", stdout(&m), stderr(&m));
    let s = summary(&dir.path().join("m"));
    assert_eq!(s["overall"], "inconclusive");
    assert_eq!(s["complete"], false);
    let why = s["stop_reason"].as_str().unwrap();
    assert!(why.starts_with("shard 2/2: max-paths 1"), "{why}");
    // Unsharded, the pair is equivalent: both shards complete give exit 0.
    assert_eq!(run("2/2", &[]).status.code(), Some(0));
    let m = xcheck(dir.path(), &["merge", "2", "1", "-o", "m"]);
    assert_eq!(m.status.code(), Some(0), "{}", stdout(&m));
    assert_eq!(summary(&dir.path().join("m"))["overall"], "equivalent");
}

#[test]
fn merge_refuses_what_is_not_one_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = score_pair(dir.path(), false);
    let check = |out: &str, shard: Option<&str>| {
        let mut args = [[a.as_str(), b.as_str()].as_slice(), &SCORE, &["-o", out]].concat();
        if let Some(k) = shard {
            args.extend(["--shard", k]);
        }
        xcheck(dir.path(), &args)
    };
    check("s1", Some("1/3"));
    check("s2", Some("2/3"));
    check("s3", Some("3/3"));
    check("plain", None);
    check("s2of2", Some("2/2"));
    let merge = |args: &[&str]| {
        let mut all = vec!["merge"];
        all.extend(args);
        let o = xcheck(dir.path(), &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        err
    };
    assert!(merge(&["s1", "s3", "-o", "m"]).contains("shard 2/3 missing"));
    assert!(merge(&["s1", "s2", "s2", "s3", "-o", "m"]).contains("given twice"));
    assert!(merge(&["s1", "s2", "s2of2", "-o", "m"]).contains("split into 2 shards"));
    assert!(merge(&["s1", "s2", "plain", "-o", "m"]).contains("not a shard's report"));
    assert!(merge(&["s1", "s2", "s3", "-o", "s2"]).contains("another directory"));
    assert!(merge(&["s1", "s2", "nowhere", "-o", "m"]).contains("nowhere"));
    std::fs::write(dir.path().join("s3/report.json"), "{").unwrap();
    assert!(merge(&["s1", "s2", "s3", "-o", "m"]).contains("not a report xcheck wrote"));
    // Bad --shard values are usage errors.
    for bad in ["0/3", "4/3", "3", "auto"] {
        let o = check("x", Some(bad));
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("--shard"), "{}", stderr(&o));
    }
}

#[test]
fn auto_reads_the_batch_engines_index() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = score_pair(dir.path(), false);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_xcheck"))
        .current_dir(dir.path())
        .args([&a, &b])
        .args(SCORE)
        .args(["--shard", "auto"])
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let s = summary(&dir.path().join("xcheck-out"));
    assert_eq!(
        (&s["shard"]["index"], &s["shard"]["count"]),
        (&2.into(), &3.into())
    );
}

#[test]
fn gate_shards_split_whole_checks_and_merge_into_one_gate() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("gate_old.c", dir.path(), "-O2");
    let b = compile_fixture("gate_new.c", dir.path(), "-O2");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let gate = |extra: &[&str]| {
        let mut args = vec![a, b, "--all-functions"];
        args.extend(extra);
        xcheck(dir.path(), &args)
    };
    let full = gate(&["-o", "full", "--junit", "full.xml"]);
    assert_eq!(full.status.code(), Some(1), "{}", stdout(&full));
    let table = |text: &str| -> Vec<String> {
        // The rows and totals, without times.
        // (The rule under the header is as wide as the widest time: left out too.)
        text.lines()
            .filter(|l| !l.starts_with("Tests and reports"))
            .filter(|l| !l.starts_with("---"))
            .map(|l| {
                // A time is a number and its unit: both go.
                let words: Vec<&str> = l.split_whitespace().collect();
                let unit = |w: Option<&&str>| matches!(w, Some(&"ms" | &"s" | &"min"));
                (0..words.len())
                    .filter(|&i| !unit(words.get(i)) && !unit(words.get(i + 1)))
                    .map(|i| words[i])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let mut dirs = Vec::new();
    let mut checked = 0;
    for k in 1..=2 {
        let out = format!("g{k}");
        let o = gate(&["-o", &out, "--shard", &format!("{k}/2")]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(&out).join("shard.json")).unwrap(),
        )
        .unwrap();
        checked += manifest["sections"][0]["entries"].as_array().unwrap().len();
        dirs.push(out);
    }
    assert_eq!(checked, 3, "every function is checked by one shard");
    let m = xcheck(
        dir.path(),
        &[
            "merge",
            &dirs[1],
            &dirs[0],
            "-o",
            "merged",
            "--junit",
            "merged.xml",
        ],
    );
    assert_eq!(m.status.code(), Some(1), "{}{}", stdout(&m), stderr(&m));
    assert_eq!(table(&stdout(&m)), table(&stdout(&full)));
    for f in ["add_sat", "mix", "parse_digit"] {
        assert_eq!(
            rows(&dir.path().join("merged").join(f), false),
            rows(&dir.path().join("full").join(f), false),
            "{f}"
        );
    }
    let xml = std::fs::read_to_string(dir.path().join("merged.xml")).unwrap();
    assert!(
        xml.contains("tests=\"3\"") && xml.contains("failures=\"1\""),
        "{xml}"
    );
    // The merge writes the gate's summary.md as the unsharded run does (issue 34).
    let summary = crate::reports::check_gate_summary(&dir.path().join("full"));
    assert!(
        summary.contains("\nc = 58\nA: returns -1\nB: returns 10\n"),
        "{summary}"
    );
    assert_eq!(
        crate::reports::check_gate_summary(&dir.path().join("merged")),
        summary
    );
    // And its report.html, whose links are files of the merged directory.
    let merged = dir.path().join("merged");
    let page = std::fs::read_to_string(merged.join("report.html")).unwrap();
    assert_eq!(
        crate::html::links_resolve(&page, &merged).len(),
        4,
        "{page}"
    );
}
