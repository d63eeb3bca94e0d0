//! Limits that hold and nothing found is lost: `--max-time`, SIGINT and SIGTERM stop a
//! check within a second or so with its reports written; `kill -9` leaves a directory whose
//! report lists only tests that exist; `xcheck replay DIR` refuses a report whose tests are
//! gone. Wall-clock bounds are generous (a loaded 2-core machine): these are behaviour
//! tests, not benchmarks.

use crate::common::*;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Compiles both sides of the limit fixtures into `dir`.
fn fixtures(dir: &Path) -> (String, String) {
    let a = compile_fixture("limits_a.c", dir, "-O0");
    let b = compile_fixture("limits_b.c", dir, "-O0");
    (
        a.to_str().unwrap().to_string(),
        b.to_str().unwrap().to_string(),
    )
}

fn spawn(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_xcheck"))
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the xcheck binary runs")
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on a child this test started and has not reaped yet.
    let r = unsafe { libc::kill(child.id() as i32, sig) };
    assert_eq!(r, 0, "kill failed");
}

/// Waits for `child` at most `limit`; kills it and fails the test if it is still running.
fn wait_at_most(child: &mut Child, limit: Duration) -> (Option<i32>, Duration) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code(), start.elapsed());
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running {limit:?} after it was asked to stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The parsed `report.json` of `out`, after checking that every test it lists exists.
fn report_with_tests(out: &Path) -> (serde_json::Value, Vec<String>) {
    let path = out.join("report.json");
    let text = std::fs::read_to_string(&path).expect("report.json is written");
    let json: serde_json::Value = serde_json::from_str(&text).expect("report.json parses");
    let mut tests = Vec::new();
    for row in json["rows"].as_array().expect("rows") {
        if let Some(name) = row["ktest"].as_str() {
            assert!(out.join(name).is_file(), "{name} is listed but missing");
            tests.push(name.to_string());
        }
    }
    (json, tests)
}

#[test]
fn an_endless_loop_stops_at_max_time_with_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = fixtures(dir.path());
    let mut child = spawn(
        dir.path(),
        &[
            &a,
            &b,
            "--function",
            "halve",
            "--max-time",
            "1",
            "-o",
            "out",
        ],
    );
    let (code, took) = wait_at_most(&mut child, Duration::from_secs(20));
    assert!(
        took < Duration::from_secs(5),
        "took {took:?} for --max-time 1"
    );
    assert!(matches!(code, Some(1) | Some(3)), "exit {code:?}");
    let (json, _) = report_with_tests(&dir.path().join("out"));
    assert_eq!(json["summary"]["complete"], false);
    let reason = json["summary"]["stop_reason"].as_str().unwrap_or("");
    assert!(reason.contains("max-time"), "stop reason: {reason}");
}

/// Starts a check of `thirds` (divergences found one by one, slowly) into `out`.
fn spawn_thirds(dir: &Path, a: &str, b: &str) -> Child {
    let args = ["--function", "thirds", "--max-time", "120", "-o", "out"];
    spawn(dir, &[&[a, b][..], &args].concat())
}

/// Sends `sig` to a running check of `thirds` (divergences found one by one, slowly) and
/// checks how it ends.
fn stopped_by(sig: i32) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = fixtures(dir.path());
    let mut child = spawn_thirds(dir.path(), &a, &b);
    std::thread::sleep(Duration::from_millis(2500));
    signal(&child, sig);
    let (code, took) = wait_at_most(&mut child, Duration::from_secs(20));
    assert!(took < Duration::from_secs(5), "took {took:?} to stop");
    let out = dir.path().join("out");
    let (json, tests) = report_with_tests(&out);
    assert_eq!(
        test_files(&out),
        tests,
        "the directory holds exactly the listed tests"
    );
    let reason = json["summary"]["stop_reason"].as_str().unwrap_or("");
    assert!(reason.contains("interrupted"), "stop reason: {reason}");
    let rows = json["rows"].as_array().unwrap();
    // What the interrupt stopped is not an engine bug: nothing is marked NOT confirmed.
    assert!(
        rows.iter().all(|r| r["confirmed"] != false),
        "a row is marked NOT confirmed after an interrupt"
    );
    let confirmed = rows
        .iter()
        .any(|r| r["verdict"] == "diverged" && r["confirmed"] == true);
    assert_eq!(code, Some(if confirmed { 1 } else { 3 }));
}

#[test]
fn sigint_stops_a_check_with_its_reports() {
    stopped_by(libc::SIGINT);
}

#[test]
fn sigterm_stops_a_check_with_its_reports() {
    stopped_by(libc::SIGTERM);
}

#[test]
fn a_second_sigint_ends_the_process_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = fixtures(dir.path());
    // The orderly stop the first signal starts takes about 35 ms on this fixture: on a busy
    // machine it may end before the second signal is delivered (the process may already be
    // inside its exit when `try_wait` still sees it running), and then the second signal
    // tests nothing. Such an attempt ends with the orderly stop's code and is repeated; if
    // the second signal never ended the process, every attempt does, and the test fails.
    let mut orderly = Vec::new();
    for _ in 0..5 {
        let mut child = spawn_thirds(dir.path(), &a, &b);
        std::thread::sleep(Duration::from_millis(2500));
        signal(&child, libc::SIGINT);
        // Long enough for the first signal to be delivered on its own (two pending
        // SIGINTs are one).
        std::thread::sleep(Duration::from_millis(2));
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            orderly.push(status.code());
            continue;
        }
        signal(&child, libc::SIGINT);
        let (code, took) = wait_at_most(&mut child, Duration::from_secs(20));
        assert!(took < Duration::from_secs(2), "took {took:?} to end");
        // Ended by the second signal (128 + SIGINT), not by the orderly stop of the first.
        if code == Some(128 + libc::SIGINT) {
            return;
        }
        orderly.push(code);
    }
    panic!(
        "in five attempts the process ended by the orderly stop, not by the second signal: \
         exit codes {orderly:?}"
    );
}

#[test]
fn sigkill_leaves_a_report_listing_only_tests_that_exist() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = fixtures(dir.path());
    let out = dir.path().join("out");
    // An earlier run's results: a rerun must not leave them described or lying around.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(
        out.join("report.json"),
        r#"{"summary": {"title": "an earlier run"}, "rows": [{"ktest": "test000009.ktest"}]}"#,
    )
    .unwrap();
    std::fs::write(out.join("test000009.ktest"), b"KTEST").unwrap();
    let mut child = spawn_thirds(dir.path(), &a, &b);
    // Wait for the first tests, then give the reports their second to catch up.
    let start = Instant::now();
    let found: Vec<String> = loop {
        let found: Vec<String> = test_files(&out)
            .into_iter()
            .filter(|n| n.starts_with("found"))
            .collect();
        if !found.is_empty() {
            break found;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no test was written within a minute"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, libc::SIGKILL);
    let _ = child.wait();
    let (json, tests) = report_with_tests(&out);
    assert_ne!(json["summary"]["title"], "an earlier run");
    assert!(!out.join("test000009.ktest").exists());
    for name in &found {
        assert!(
            tests.contains(name),
            "{name} was found but is not in the report"
        );
    }
}

#[test]
fn replay_of_a_directory_missing_a_listed_test_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = fixtures(dir.path());
    let o = xcheck(dir.path(), &[&a, &b, "--function", "quick", "-o", "out"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = dir.path().join("out");
    let (_, tests) = report_with_tests(&out);
    assert_eq!(tests, ["test000001.ktest", "test000002.ktest"]);
    let replay = |dir: &Path| xcheck(dir, &["replay", "out", &a, &b, "--function", "quick"]);
    let o = replay(dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    std::fs::remove_file(out.join(&tests[1])).unwrap();
    let o = replay(dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("test000002.ktest") && err.contains("missing"),
        "{err}"
    );
}

/// A query log whose one query is hard for both solvers: a 128-bit product of two factors
/// in (1, 2^64) equal to the product of the primes 2^61 - 1 and 10^18 + 3.
fn hard_query_log(dir: &Path) -> std::path::PathBuf {
    let n: u128 = ((1u128 << 61) - 1) * 1_000_000_000_000_000_003;
    let bound = 1u128 << 64;
    let log = format!(
        "; xcheck query log\n; query 1: sat in 1 ms by bitwuzla\n\
         (set-logic QF_BV)\n\
         (declare-fun x () (_ BitVec 128))\n(declare-fun y () (_ BitVec 128))\n\
         (assert (bvugt x (_ bv1 128)))\n(assert (bvugt y (_ bv1 128)))\n\
         (assert (bvult x (_ bv{bound} 128)))\n(assert (bvult y (_ bv{bound} 128)))\n\
         (assert (= (bvmul x y) (_ bv{n} 128)))\n(check-sat)\n"
    );
    let path = dir.join("hard.smt2");
    std::fs::write(&path, log).unwrap();
    path
}

#[test]
fn sigint_stops_a_query_replay_inside_a_solver_check() {
    let dir = tempfile::tempdir().unwrap();
    let log = hard_query_log(dir.path());
    for solver in ["bitwuzla", "z3"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_xcheck"))
            .current_dir(dir.path())
            .args(["query", log.to_str().unwrap(), "--solver", solver])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the xcheck binary runs");
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            child.try_wait().unwrap().is_none(),
            "{solver}: the hard query was decided in 1.5 s; the test needs a harder one"
        );
        signal(&child, libc::SIGINT);
        let (code, took) = wait_at_most(&mut child, Duration::from_secs(5));
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            code,
            Some(3),
            "{solver}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            took < Duration::from_secs(3),
            "{solver}: stopped after {took:?}"
        );
        assert!(
            text.contains("interrupted: 1 of 1 queries not replayed"),
            "{solver}: {text}"
        );
    }
}

/// Builds the sleeper pair (every path differs; one sleeps natively, on both sides) in `dir`
/// and starts its check with `options`, one symbolic stdin byte, into `out`.
fn spawn_sleepers(dir: &Path, options: &[&str]) -> Child {
    crate::dirpipe::cc(dir, "sleeper.c", "a", &["-DSIDE=\"a\""]);
    crate::dirpipe::cc(dir, "sleeper.c", "b", &["-DSIDE=\"b\""]);
    let mut args = vec!["a.bc", "b.bc", "-j", "1", "-o", "out"];
    args.extend(options);
    args.extend(["--", "--sym-stdin", "1"]);
    spawn(dir, &args)
}

/// The rows of `out`'s report: (the first stdin byte is 's', natively reproduced).
fn sleeper_rows(out: &Path) -> Vec<(bool, serde_json::Value)> {
    let (json, _) = report_with_tests(out);
    json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let stdin = r["inputs"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|i| i["name"] == "stdin")
                .and_then(|i| i["bytes"].as_array().and_then(|b| b.first().cloned()));
            (stdin == Some(serde_json::json!(b's')), r["native"].clone())
        })
        .collect()
}

/// Native replay ends by the check's limit even when every executable would run on: a side
/// out of time ends the test's native replay (the other side used to wait as long again, and
/// a 120 s check of toybox `tail` against coreutils ended at 129 s).
#[test]
fn native_replay_of_programs_that_hang_ends_by_max_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut child = spawn_sleepers(d, &["--max-time", "6"]);
    let (code, took) = wait_at_most(&mut child, Duration::from_secs(30));
    assert!(
        took < Duration::from_secs(8),
        "took {took:?} for --max-time 6"
    );
    let rows = sleeper_rows(&d.join("out"));
    assert!(
        rows.iter().any(|(sleeps, _)| *sleeps),
        "no sleeping path: {rows:?}"
    );
    for (sleeps, native) in &rows {
        let want = if *sleeps {
            serde_json::Value::Null
        } else {
            serde_json::json!(true)
        };
        assert_eq!(native, &want, "{rows:?}");
    }
    assert_eq!(code, Some(1), "the paths that do not sleep are confirmed");
}

/// An interrupt stops a native run at once, not at the run's own timeout (10 s).
#[test]
fn sigint_stops_a_native_replay() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut child = spawn_sleepers(d, &[]);
    // Exploration and the engine's replays take well under this; the native replay of the
    // sleeping path then runs for up to 10 s per side.
    std::thread::sleep(Duration::from_millis(3000));
    signal(&child, libc::SIGINT);
    let (_, took) = wait_at_most(&mut child, Duration::from_secs(30));
    assert!(took < Duration::from_secs(3), "took {took:?} to stop");
    let rows = sleeper_rows(&d.join("out"));
    assert!(
        rows.iter().any(|(sleeps, _)| *sleeps),
        "no sleeping path: {rows:?}"
    );
}

/// A branch side the solver gives up on ends as unknown, alone: the side the path's model
/// takes goes on (it used to end with it, as one unknown row, whatever followed).
#[test]
fn a_branch_side_the_solver_gives_up_on_does_not_end_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = compile_fixture("hardhash.c", d, "-O0");
    let a = a.to_str().unwrap();
    let mut child = spawn(
        d,
        &[
            a,
            a,
            "--function",
            "classify",
            "--solver-timeout",
            "1s",
            "-o",
            "out",
        ],
    );
    let (code, _) = wait_at_most(&mut child, Duration::from_secs(120));
    let (json, _) = report_with_tests(&d.join("out"));
    let rows = json["rows"].as_array().unwrap();
    let timeouts = rows
        .iter()
        .filter(|r| {
            r["verdict"] == "unknown" && r["detail"].as_str().unwrap_or("").contains("timeout")
        })
        .count();
    assert!(timeouts >= 1, "no side given up on: {rows:?}");
    // Both parities of `a`, after the undecided branch.
    for ret in ["returns 2", "returns 4"] {
        assert!(
            rows.iter()
                .any(|r| r["verdict"] == "proved" && r["result_a"] == ret),
            "no proved row that {ret}: {rows:?}"
        );
    }
    assert_eq!(code, Some(3), "undecided paths make the check inconclusive");
}

/// A branch side whose query the solver does not answer within the first try
/// (`--defer-after`, 1 s by default) waits while the other paths run: a difference after
/// the hard branch is found although the hard query alone would take the whole time left.
/// With `--defer-after 0` the same check spends its time on that query and finds nothing.
#[test]
fn a_hard_branch_query_waits_while_the_other_paths_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = compile_fixture("hardhash.c", d, "-O0");
    let b = compile_fixture("hardhash.c", d, "-DEVEN=5");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec![a, b, "--function", "classify", "--solver-timeout", "60s"];
        args.extend(["--max-time", "8", "-o", out]);
        args.extend(extra);
        let mut child = spawn(d, &args);
        let (code, took) = wait_at_most(&mut child, Duration::from_secs(60));
        let (json, _) = report_with_tests(&d.join(out));
        let diverged = json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["verdict"] == "diverged")
            .map(|r| (r["result_a"].to_string(), r["result_b"].to_string()))
            .collect::<Vec<_>>();
        (code, took, diverged, json)
    };
    let (code, took, diverged, json) = run("deferring", &[]);
    assert_eq!(code, Some(1), "{json}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert_eq!(
        diverged,
        [("\"returns 4\"".to_string(), "\"returns 5\"".to_string())],
        "{json}"
    );
    let counters = json["summary"]["counters"].to_string();
    assert!(counters.contains("deferred branch sides"), "{counters}");
    // The side never decided is unknown, with where its branch is.
    assert!(
        json["rows"].as_array().unwrap().iter().any(|r| {
            let detail = r["detail"].as_str().unwrap_or("");
            r["verdict"] == "unknown" && detail.contains("hardhash.c:")
        }),
        "{json}"
    );
    let (code, _, diverged, json) = run("at-once", &["--defer-after", "0"]);
    assert_eq!(code, Some(3), "{json}");
    assert!(diverged.is_empty(), "{json}");
}

/// `--max-paths` counts the paths of every thread together: echo's pair, 123 paths under
/// `--sym-args 0 2 2`, stopped at 40 ends with 40 rows with one thread and about 40 with
/// two (a path the other thread was finishing may end too), not 40 per thread.
#[test]
fn max_paths_counts_the_paths_of_every_thread() {
    crate::programs::build_programs();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b) = (
        crate::programs::program("echo", "a.bc"),
        crate::programs::program("echo", "b.bc"),
    );
    for (jobs, most) in [("1", 40), ("2", 42)] {
        let out = d.join(format!("j{jobs}"));
        let o = xcheck(
            d,
            &[
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "-j",
                jobs,
                "--max-paths",
                "40",
                "--defer-after",
                "0",
                "-o",
                out.to_str().unwrap(),
                "--",
                "--sym-args",
                "0",
                "2",
                "2",
            ],
        );
        assert!(matches!(o.status.code(), Some(1 | 3)), "{}", stderr(&o));
        let (json, _) = report_with_tests(&out);
        let rows = json["rows"].as_array().unwrap().len();
        assert!((40..=most).contains(&rows), "-j {jobs}: {rows} rows");
        let why = json["summary"]["stop_reason"].as_str().unwrap_or("");
        assert!(why.starts_with("max-paths 40"), "-j {jobs}: {why}");
    }
}
