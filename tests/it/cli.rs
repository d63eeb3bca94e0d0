//! The command line: exit codes, and one clear line on stderr for every kind of bad input.

use crate::common::*;

/// Asserts a usage/input error: exit 2, exactly one line on stderr containing `needle`.
fn assert_error(o: &std::process::Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected, got: {err}"
    );
    assert!(err.contains(needle), "'{needle}' not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn equivalent_pair_exits_0_and_writes_reports() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    let b = compile_fixture("pair_b.c", dir.path(), "-O0");
    let o = xcheck(
        dir.path(),
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "twice",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("EQUIVALENT"), "{}", stdout(&o));
    for f in [
        "report.md",
        "report.csv",
        "report.json",
        "summary.md",
        "report.html",
    ] {
        assert!(
            dir.path().join("xcheck-out").join(f).exists(),
            "{f} missing"
        );
    }
}

#[test]
fn json_of_a_function_check_has_the_shared_schema() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    let b = compile_fixture("pair_b.c", dir.path(), "-O0");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let o = xcheck(dir.path(), &[a, b, "--function", "twice", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["mode"], "function");
    assert_eq!(v["function"], "twice");
    assert_eq!(v["verdict"], "equivalent");
    assert_eq!(v["failed"], false);
    assert_eq!(v["summary"]["overall"], "equivalent");
    assert!(v["summary"]["paths"].as_u64().unwrap() >= 1);
    assert_eq!(v["run"], serde_json::Value::Null);
}

#[test]
fn not_bitcode_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    std::fs::write(dir.path().join("text.bc"), "int f(void) { return 0; }\n").unwrap();
    let o = xcheck(
        dir.path(),
        &[a.to_str().unwrap(), "text.bc", "--function", "twice"],
    );
    assert_error(&o, "text.bc: not an LLVM bitcode file");
}

#[test]
fn missing_file_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    let o = xcheck(
        dir.path(),
        &[a.to_str().unwrap(), "nope.bc", "--function", "twice"],
    );
    assert_error(&o, "nope.bc: cannot read");
}

#[test]
fn missing_function_names_the_file_and_lists_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    let b = compile_fixture("pair_b.c", dir.path(), "-O0");
    let o = xcheck(
        dir.path(),
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "twice=thrice",
        ],
    );
    assert_error(
        &o,
        "no function 'thrice' is defined here (defined: clamp, twice)",
    );
}

#[test]
fn signature_mismatch_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    let b = compile_fixture("pair_b.c", dir.path(), "-O0");
    let o = xcheck(
        dir.path(),
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "clamp",
        ],
    );
    assert_error(
        &o,
        "signature of 'clamp' (i64 (i64)) does not match 'clamp'",
    );
}

#[test]
fn bad_assume_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    let b = compile_fixture("pair_b.c", dir.path(), "-O0");
    let args = [
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--function",
        "twice",
        "--assume",
    ];
    let o = xcheck(dir.path(), &[&args[..], &["x < (3"]].concat());
    assert_error(&o, "--assume 'x < (3': column");
    let o = xcheck(dir.path(), &[&args[..], &["y > 3"]].concat());
    assert_error(&o, "unknown parameter 'y'");
    let o = xcheck(dir.path(), &[&args[..], &["x > 3 && x < 2"]].concat());
    assert_error(&o, "preconditions contradict each other");
}

#[test]
fn truncated_ktest_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let good = repo().join("tests/data/ktest/one_object.ktest");
    let bytes = std::fs::read(good).unwrap();
    std::fs::write(dir.path().join("cut.ktest"), &bytes[..bytes.len() - 3]).unwrap();
    let o = xcheck(dir.path(), &["show", "cut.ktest"]);
    assert_error(&o, "cut.ktest: ");
    assert!(stderr(&o).contains("truncated"), "{}", stderr(&o));
}

#[test]
fn show_prints_a_klee_ktest() {
    let o = xcheck(&repo(), &["show", "tests/data/ktest/one_object.ktest"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("num objects: 1"), "{out}");
    assert!(out.contains("object 0: name: 'a'"), "{out}");
}

#[test]
fn bad_options_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = xcheck(
        dir.path(),
        &["a.bc", "b.bc", "--function", "f", "--max-time", "soon"],
    );
    assert_error(&o, "--max-time 'soon'");
    let o = xcheck(
        dir.path(),
        &["a.bc", "b.bc", "--function", "f", "--search", "sideways"],
    );
    assert_error(&o, "unknown search 'sideways'");
    let o = xcheck(
        dir.path(),
        &["a.bc", "b.bc", "--function", "f", "--buffer-size", "0"],
    );
    assert_error(
        &o,
        "--buffer-size '0': 0 is not a buffer size (1 to 1048576 bytes)",
    );
    let o = xcheck(
        dir.path(),
        &[
            "a.bc",
            "b.bc",
            "--function",
            "f",
            "--fp-tolerance",
            "rel:-1",
        ],
    );
    assert_error(
        &o,
        "--fp-tolerance '-1' is not a finite non-negative number",
    );
    let o = xcheck(
        dir.path(),
        &["a.bc", "b.bc", "--function", "f", "--fp-equal", "close"],
    );
    assert_error(&o, "--fp-equal 'close': expected bits or ieee");
    // One duration syntax: `0s` is "no limit" where a limit takes it, else an error.
    let o = xcheck(dir.path(), &["query", "q.smt2", "--timeout", "soon"]);
    assert_error(&o, "--timeout 'soon' is not a duration");
    let o = xcheck(
        dir.path(),
        &["replay", "t", "--native", "a", "b", "--timeout", "0s"],
    );
    assert_error(&o, "--timeout '0s': must be positive");
    let o = xcheck(dir.path(), &["query", "q.smt2", "--solver", "cvc5"]);
    assert_error(
        &o,
        "--solver: unknown solver 'cvc5' (expected bitwuzla, z3 or both)",
    );
}

/// A query log written by hand: two queries, both unsatisfiable; the second records the
/// wrong answer when `wrong`.
fn hand_made_log(wrong: bool) -> String {
    let second = if wrong { "sat" } else { "unsat" };
    format!(
        "; xcheck query log
; query 1: unsat in 0.100 ms by bitwuzla
(set-logic QF_BV)
(declare-fun x () (_ BitVec 8))
(assert (bvult x #x05))
(assert (bvugt x #x07))
(check-sat)
; query 2: {second} in 0.200 ms by z3
(set-logic ALL)
(declare-fun m () (Array (_ BitVec 32) (_ BitVec 8)))
(assert (not (= (select (store m #x00000001 #x2a) #x00000001) #x2a)))
(check-sat)
"
    )
}

#[test]
fn query_logs_replay_and_flag_mismatches() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("q.smt2");
    std::fs::write(&log, hand_made_log(false)).unwrap();
    let o = xcheck(dir.path(), &["query", "q.smt2"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("query 2 (line 8): logged unsat in 0.200 ms by z3; bitwuzla unsat in "),
        "{out}"
    );
    assert!(out.ends_with("2 queries replayed, 0 mismatches\n"), "{out}");

    std::fs::write(&log, hand_made_log(true)).unwrap();
    for solver in ["bitwuzla", "z3", "both"] {
        let o = xcheck(dir.path(), &["query", "q.smt2", "--solver", solver]);
        assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
        let out = stdout(&o);
        assert_eq!(out.matches("MISMATCH").count(), 1, "{out}");
        assert!(out.ends_with("2 queries replayed, 1 mismatch\n"), "{out}");
    }

    // A corrupt log is one error line naming the file and line.
    let corrupt = hand_made_log(false).replace("(assert (bvugt x #x07))", "(assert (bvugt x");
    std::fs::write(&log, corrupt).unwrap();
    let o = xcheck(dir.path(), &["query", "q.smt2", "--solver", "z3"]);
    assert_error(&o, "q.smt2:2: query 1: z3: ");
    let o = xcheck(dir.path(), &["query", "q.smt2", "--solver", "bitwuzla"]);
    assert_error(&o, "q.smt2:2: query 1: bitwuzla: ");
    std::fs::write(&log, "(check-sat)\n").unwrap();
    let o = xcheck(dir.path(), &["query", "q.smt2"]);
    assert_error(&o, "q.smt2:1: not a query log");
    let o = xcheck(dir.path(), &["query", "missing.smt2"]);
    assert_error(&o, "missing.smt2: cannot read");
}

#[test]
fn harness_run_writes_a_test_per_path_and_an_err_file() {
    let dir = tempfile::tempdir().unwrap();
    let h = compile_fixture("harness.c", dir.path(), "-O0");
    let o = xcheck(dir.path(), &["run", h.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("assertion failed: x != 42"), "{out}");
    let errs: Vec<_> = std::fs::read_dir(dir.path().join("xcheck-out"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".assert.err"))
        .collect();
    assert_eq!(errs.len(), 1);
    // The failing test holds x = 42.
    let ktest = errs[0]
        .path()
        .to_string_lossy()
        .replace(".assert.err", ".ktest");
    let t = xcheck::ktest::KTest::read(&ktest).unwrap();
    assert_eq!(t.objects[0].name, "x");
    assert_eq!(t.objects[0].bytes, 42i32.to_le_bytes());
}

#[test]
fn json_of_a_harness_run_has_the_shared_schema() {
    let dir = tempfile::tempdir().unwrap();
    let h = compile_fixture("harness.c", dir.path(), "-O0");
    let o = xcheck(dir.path(), &["run", h.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["mode"], "run");
    assert_eq!(v["verdict"], "errors_found");
    assert_eq!(v["summary"], serde_json::Value::Null);
    let what = v["run"]["errors"][0]["what"].as_str().unwrap();
    assert!(what.contains("assertion failed: x != 42"), "{what}");
}

#[test]
fn vectorized_code_is_checked_lane_by_lane() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("vec_a.c", dir.path(), "-O2");
    let b = compile_fixture("vec_b.c", dir.path(), "-O2");
    // The test is only meaningful if clang really vectorized A.
    let ll = std::process::Command::new(xcheck::toolchain::LLVM_DIS)
        .arg(&a)
        .arg("-o")
        .arg("-")
        .output()
        .unwrap();
    let ll = String::from_utf8_lossy(&ll.stdout);
    assert!(
        ll.contains("<16 x i8>") && ll.contains("<4 x i32>"),
        "clang did not vectorize the fixture"
    );
    for (function, code) in [("count_a", 0), ("affine", 0), ("max4", 1)] {
        let o = xcheck(
            dir.path(),
            &[
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "--function",
                function,
            ],
        );
        assert_eq!(
            o.status.code(),
            Some(code),
            "{function}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(!stdout(&o).contains("unsupported"), "{}", stdout(&o));
    }
}

#[test]
fn parallel_exploration_gives_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("branchy_a.c", dir.path(), "-O0");
    let b = compile_fixture("branchy_b.c", dir.path(), "-O0");
    let run = |jobs: &str| {
        let o = xcheck(
            dir.path(),
            &[
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "--function",
                "score",
                "--buffer-size",
                "6",
                // The 64 paths on their own, for the workers to share.
                "--no-merge",
                "-j",
                jobs,
                "-o",
                jobs,
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
        // Everything but timings and the output directory must be equal.
        stdout(&o)
            .lines()
            .filter(|l| {
                !l.starts_with("wall time")
                    && !l.starts_with("solver time")
                    && !l.starts_with("Tests and reports")
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let one = run("1");
    assert!(
        one.iter().any(|l| l.starts_with("paths        : 64")),
        "{one:?}"
    );
    assert_eq!(one, run("2"));
}

#[test]
fn progress_counters_are_totals_over_the_workers() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("branchy_a.c", dir.path(), "-O0");
    let b = compile_fixture("branchy_b.c", dir.path(), "-O0");
    let mut check = xcheck::crosscheck::FunctionCheck::new(&a, &b, "score", "score");
    check.buffer_size = 6;
    check.out_dir = dir.path().join("out");
    check.exec.jobs = 2;
    // The 64 paths on their own, for both workers to count.
    check.exec.merge = xcheck::exec::MergeMode::Off;
    let progress = xcheck::exec::Progress::new();
    check.exec.progress = Some(progress.clone());
    let report = xcheck::crosscheck::check_functions(&check).unwrap().report;
    let total = progress.snapshot();
    // What the front end's bar shows at the end: every path of both workers, no state
    // left, and the rows' verdicts (confirming replays count nothing).
    assert_eq!(total.paths, 64);
    assert_eq!(total.live, 0);
    let s = &report.summary;
    assert_eq!(total.tally.proved, (s.proved + s.errors_both) as u64);
    assert_eq!(
        total.tally.diverged,
        (s.diverged + s.errors_one + s.unconfirmed) as u64
    );
    assert!(total.tally.diverged > 0);
    assert_eq!(total.instructions, s.instructions);
}

#[test]
fn merging_proves_a_branch_per_bit_in_one_row() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("bits_a.c", dir.path(), "-O0");
    let b = compile_fixture("bits_b.c", dir.path(), "-O0");
    // Merge groups stay in the worker that made them, so -j 2 merges the same way.
    for jobs in ["1", "2"] {
        let o = xcheck(
            dir.path(),
            &[
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "--function",
                "popc",
                "--merge",
                "-j",
                jobs,
                "--max-time",
                "120s",
            ],
        );
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "-j {jobs}: {out}{}", stderr(&o));
        assert!(
            out.contains("paths        : 1 (proved 1"),
            "-j {jobs}: {out}"
        );
        assert!(
            out.contains("4294967296"),
            "the row stands for 2^32 paths (-j {jobs}): {out}"
        );
    }
}

#[test]
fn merging_joins_the_cases_of_a_switch() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("fields_a.c", dir.path(), "-O0");
    let b = compile_fixture("fields_b.c", dir.path(), "-O0");
    let o = xcheck(
        dir.path(),
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "pairs",
            "--merge",
            "--max-time",
            "120s",
        ],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("paths        : 1 (proved 1"), "{out}");
    // Cases 1 and 2 share a block: three successors per switch, 3^8 paths.
    assert!(out.contains("6561"), "the row stands for 3^8 paths: {out}");
}

#[test]
fn a_bitwise_checksum_equals_its_table_driven_form() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("crc_a.c", dir.path(), "-O0");
    let b = compile_fixture("crc_b.c", dir.path(), "-O0");
    let args = [
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--function",
        "crc8",
        "--buffer-size",
        "4",
        "--merge",
    ];
    let o = xcheck(dir.path(), &args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("paths        : 1 (proved 1"), "{out}");
}

#[test]
fn a_symbolic_memcpy_length_is_split_by_value_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("copy_a.c", dir.path(), "-O1");
    let b = compile_fixture("copy_b.c", dir.path(), "-O1");
    let args = [
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--function",
        "copy_prefix",
        "--buffer-size",
        "8",
        "-j",
        "1",
    ];
    let o = xcheck(dir.path(), &args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(!out.contains("unknown 1"), "{out}");
    let paths: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("paths        : "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(paths >= 8, "one path per length at least: {out}");
}

#[test]
fn an_unknown_solver_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = xcheck(
        dir.path(),
        &["a.bc", "b.bc", "--function", "f", "--solver", "cvc5"],
    );
    assert_error(&o, "--solver: unknown solver 'cvc5'");
    // The portfolio races the two solvers; it is not cross-checked, and not replayed.
    let o = xcheck(
        dir.path(),
        &[
            "a.bc",
            "b.bc",
            "--function",
            "f",
            "--solver",
            "portfolio",
            "--cross-check-solver",
        ],
    );
    assert_error(&o, "--cross-check-solver: not with --solver portfolio");
    let o = xcheck(dir.path(), &["query", "q.smt2", "--solver", "portfolio"]);
    assert_error(
        &o,
        "--solver: unknown solver 'portfolio' (expected bitwuzla, z3 or both)",
    );
}

/// A row where one side fails shows the other side's result on the row's inputs: the trap
/// at x == 7 against `x + 1` is shown as "returns 8", not as a symbolic value.
#[test]
fn a_failure_on_one_side_shows_the_other_sides_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = compile_fixture("trap_at_seven.c", d, "-O0");
    let b = compile_fixture("trap_at_seven.c", d, "-DTRAP");
    let out = d.join("out");
    let o = xcheck(
        d,
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "next",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let row = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["verdict"] == "error_one")
        .expect("a row where only B fails");
    assert_eq!(row["result_a"], "returns 8", "{row}");
    assert!(
        row["detail"].as_str().unwrap().contains("only B fails"),
        "{row}"
    );
}

// See: #30. Everything after `--` is the programs' arguments: an option of xcheck there
// (`--max-time 90`) was passed to both programs, which printed their usage and agreed. It
// is a usage error naming it; `--help` and options xcheck does not define stay the
// programs', and KLEE's environment options may still be mixed in.
#[test]
fn r30_xcheck_options_after_the_double_dash_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "a.bc",
        "b.bc",
        "--",
        "-c",
        "--sym-arg",
        "3",
        "--sym-stdin",
        "4",
    ];
    let mut with = args.to_vec();
    with.extend(["--max-time", "90"]);
    assert_error(&xcheck(dir.path(), &with), "'--max-time' after '--'");
    let mut with = args.to_vec();
    with.push("--function=f");
    assert_error(&xcheck(dir.path(), &with), "'--function=f' after '--'");
    // Not misplaced: the files are missing, which is the error reported.
    let mut with = args.to_vec();
    with.extend(["--help", "--bytes=3"]);
    let o = xcheck(dir.path(), &with);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("after '--'"), "{}", stderr(&o));
}

// Issue 34: C source, LLVM assembly or an object file given as bitcode is one line naming
// what the file is and the command that makes bitcode of it.
#[test]
fn r34_source_assembly_and_objects_get_the_command_that_makes_bitcode() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    let a = a.to_str().unwrap();
    let src = repo().join("tests/fixtures/pair_b.c");
    std::fs::copy(&src, dir.path().join("f.c")).unwrap();
    for (flag, file) in [("-S", "f.ll"), ("-c", "f.o")] {
        let mut clang = std::process::Command::new(xcheck::toolchain::CLANG);
        if file == "f.ll" {
            clang.arg("-emit-llvm");
        }
        let status = clang
            .args([flag, "f.c", "-o", file])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
    }
    let clang = xcheck::toolchain::CLANG;
    let cases = [
        (
            "f.c",
            format!("it is text (C source?); make bitcode with `{clang} -c -emit-llvm -g f.c -o f.bc` (or `xcheck cc -o prog f.c`"),
        ),
        (
            "f.ll",
            format!("it is LLVM assembly; make bitcode with `{clang} -c -emit-llvm f.ll -o f.bc`"),
        ),
        (
            "f.o",
            format!("it is an object file, executable or archive; build bitcode from its sources: `{clang} -c -emit-llvm -g f.c -o f.bc`"),
        ),
    ];
    for (file, hint) in cases {
        let o = xcheck(dir.path(), &[a, file, "--function", "twice"]);
        assert_error(&o, &format!("{file}: not an LLVM bitcode file"));
        assert_error(&o, &hint);
    }
}

// Issue 34: a mistyped option gets clap's suggestion, still on one line.
#[test]
fn r34_a_mistyped_option_gets_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("pair_a.c", dir.path(), "-O0");
    let a = a.to_str().unwrap();
    let o = xcheck(dir.path(), &[a, a, "--functoin", "twice"]);
    assert_error(
        &o,
        "unexpected argument '--functoin' found; did you mean '--function'?",
    );
    let o = xcheck(
        dir.path(),
        &[a, a, "--function", "twice", "--test-per-kind", "3"],
    );
    assert_error(&o, "did you mean '--tests-per-kind'?");
}

// Issue 34: `xcheck cc --help` is xcheck's help (what the wrapper adds, what a link writes),
// not clang's.
#[test]
fn r34_cc_help_is_xchecks() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--help", "-h"] {
        let o = xcheck(dir.path(), &["cc", flag]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.contains("Usage: xcheck cc [CLANG OPTIONS] FILE..."),
            "{out}"
        );
        assert!(out.contains("OUT.bc"), "{out}");
        assert!(!out.contains("OVERVIEW: clang"), "{out}");
    }
}
