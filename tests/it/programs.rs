//! Whole programs: every pair of `corpora/programs` gets its expected verdict, every
//! divergence is confirmed in the engine and again on the native binaries, and bad
//! inputs (no C library, no `main`, bad environment options) are one-line errors.
//!
//! Needs the bundled musl (`scripts/build-musl.sh`, which `scripts/test.sh` runs first).

use crate::common::{repo, stderr, stdout, xcheck};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Once;
use xcheck::env_options::pinned_stat;
use xcheck::ktest::{KTest, KTestObject};

#[derive(serde::Deserialize)]
struct Case {
    check: Vec<Check>,
}

#[derive(serde::Deserialize)]
struct Check {
    args: Vec<String>,
    expect: String,
}

fn build_dir() -> PathBuf {
    std::env::var_os("XCHECK_BUILD_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("build"))
}

static BUILD: Once = Once::new();

/// Builds every program pair with this test run's own `xcheck cc`.
pub(crate) fn build_programs() {
    BUILD.call_once(|| {
        let status = Command::new("bash")
            .arg(repo().join("scripts/build-programs.sh"))
            .env("XCHECK_BIN", env!("CARGO_BIN_EXE_xcheck"))
            .status()
            .expect("bash runs");
        assert!(
            status.success(),
            "scripts/build-programs.sh failed (is build/musl built? run scripts/build-musl.sh)"
        );
    });
}

/// The checks of program pair `name` (its `case.toml`).
fn case_of(name: &str) -> Case {
    let path = repo().join("corpora/programs").join(name).join("case.toml");
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The command line of one check of pair `name`: its two bitcode files, one thread,
/// `options`, the output directory `out`, then the check's environment options.
fn pair_args(name: &str, options: &[&str], out: &std::path::Path, check: &Check) -> Vec<String> {
    let (a, b) = (program(name, "a"), program(name, "b"));
    let mut args = vec![
        format!("{}.bc", a.display()),
        format!("{}.bc", b.display()),
        "-j".into(),
        "1".into(),
    ];
    args.extend(options.iter().map(|o| o.to_string()));
    args.extend(["-o".into(), out.display().to_string(), "--".into()]);
    args.extend(check.args.iter().cloned());
    args
}

pub(crate) fn program(name: &str, side: &str) -> PathBuf {
    build_dir().join("programs").join(name).join(side)
}

#[test]
fn every_program_pair_gets_its_verdict_and_divergences_reproduce_natively() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(repo().join("corpora/programs"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("case.toml").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 5, "at least five program pairs");
    let mut failures = Vec::new();
    let (mut diverged, mut equivalent) = (0, 0);
    for name in &names {
        for (i, check) in case_of(name).check.iter().enumerate() {
            let out = dir.path().join(format!("{name}-{i}"));
            let (a, b) = (program(name, "a"), program(name, "b"));
            let args = pair_args(name, &[], &out, check);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = xcheck(dir.path(), &refs);
            let text = stdout(&o);
            let label = format!("{name} {:?}", check.args);
            let (want_code, want_line) = match check.expect.as_str() {
                "equivalent" => (0, "verdict      : EQUIVALENT"),
                "diverged" => (1, "verdict      : NOT EQUIVALENT"),
                // Rows the native executables do not reproduce: not counted either way.
                "inconclusive" => (3, "verdict      : INCONCLUSIVE"),
                other => panic!("{label}: unknown expectation {other}"),
            };
            if o.status.code() != Some(want_code) || !text.contains(want_line) {
                failures.push(format!(
                    "{label}: exit {:?}\n{text}{}",
                    o.status.code(),
                    stderr(&o)
                ));
                continue;
            }
            if (want_code != 3 && text.contains("NOT confirmed")) || text.contains("unknown 1") {
                failures.push(format!("{label}: unconfirmed or unknown rows\n{text}"));
            }
            // The check replayed its rows on the executables beside the bitcode itself: every
            // difference reproduced; only an inconclusive case has rows that did not.
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
                    .unwrap();
            let rows = report["rows"].as_array().unwrap();
            for row in rows {
                let difference = matches!(row["verdict"].as_str(), Some("diverged" | "error_one"));
                if difference && row["native"] != true {
                    failures.push(format!(
                        "{label}: row {} not reproduced natively",
                        row["id"]
                    ));
                }
                if row["native"] == false && want_code != 3 {
                    failures.push(format!("{label}: row {} natively different", row["id"]));
                }
            }
            if want_code == 3 && !rows.iter().any(|r| r["native"] == false) {
                failures.push(format!(
                    "{label}: no row left unreproduced natively\n{text}"
                ));
            }
            if want_code == 1 {
                diverged += 1;
                let native = xcheck(
                    dir.path(),
                    &[
                        "replay",
                        out.to_str().unwrap(),
                        "--native",
                        a.to_str().unwrap(),
                        b.to_str().unwrap(),
                    ],
                );
                let report = stdout(&native);
                if native.status.code() != Some(0) || !report.contains("CONFIRMED natively") {
                    failures.push(format!(
                        "{label}: native replay\n{report}{}",
                        stderr(&native)
                    ));
                }
            } else {
                equivalent += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        diverged >= 3 && equivalent >= 3,
        "both kinds of verdict are covered"
    );
}

/// Every query waiting (`--defer-after` of a microsecond: nearly every backend query goes
/// unanswered in its first try, so branch sides are split off unchecked and path ends are
/// handed back, then all retried with the full limit) changes no verdict and no count of
/// any program pair.
#[test]
fn queries_that_wait_change_no_verdict_of_the_program_pairs() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let (mut sides, mut ends) = (0, 0);
    let mut failures = Vec::new();
    for name in ["argparse", "echo", "head_n", "tr_upper", "wc_w"] {
        for (i, check) in case_of(name).check.iter().enumerate() {
            let run = |defer: &str| {
                let out = dir.path().join(format!("{name}-{i}-{defer}"));
                let args = pair_args(name, &["--defer-after", defer], &out, check);
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                let o = xcheck(dir.path(), &refs);
                let json: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(out.join("report.json")).unwrap(),
                )
                .unwrap();
                let s = &json["summary"];
                let counter = |k: &str| {
                    s["counters"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|c| c[0] == k)
                        .map_or(0, |c| c[1].as_u64().unwrap())
                };
                let seen =
                    ["overall", "paths", "proved", "diverged", "unknown"].map(|k| s[k].to_string());
                let waited = (
                    counter("deferred branch sides"),
                    counter("deferred path ends"),
                );
                ((o.status.code(), seen), waited)
            };
            let (at_once, _) = run("0");
            let (waiting, (s, e)) = run("0.001ms");
            sides += s;
            ends += e;
            if at_once != waiting {
                failures.push(format!(
                    "{name} {:?}: {at_once:?} vs {waiting:?}",
                    check.args
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        sides > 0 && ends > 0,
        "nothing waited: {sides} sides, {ends} ends"
    );
}

#[test]
fn a_divergence_test_names_klee_objects_and_replays_in_the_engine() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (program("wc_w", "a"), program("wc_w", "b"));
    let (abc, bbc) = (format!("{}.bc", a.display()), format!("{}.bc", b.display()));
    let (an, bn) = (a.to_str().unwrap(), b.to_str().unwrap());
    let o = xcheck(
        dir.path(),
        &[
            &abc,
            &bbc,
            "-j",
            "1",
            "--sym-files",
            "1",
            "2",
            "--sym-stdin",
            "3",
            "-o",
            "out",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let show = xcheck(dir.path(), &["show", "out/test000001.ktest"]);
    let shown = stdout(&show);
    assert!(shown.contains("name: 'stdin'"), "{shown}");
    // KLEE 3.x's objects, in its order, with the model's pinned stat values.
    let test = KTest::read(dir.path().join("out/test000001.ktest")).unwrap();
    let layout: Vec<(&str, usize)> = test
        .objects
        .iter()
        .map(|o| (o.name.as_str(), o.bytes.len()))
        .collect();
    assert_eq!(
        layout,
        [
            ("A_data", 2),
            ("A_data_stat", 144),
            ("stdin", 3),
            ("stdin_stat", 144)
        ]
    );
    assert_eq!(test.objects[1].bytes, pinned_stat(2, 10));
    assert_eq!(test.objects[3].bytes, pinned_stat(3, 9));

    // The test replays in the engine and natively, and so do the same inputs written in
    // xcheck's former layout and in KLEE 2.x's (whose stat values are not the model's).
    let object = |name: &str, bytes: &[u8]| KTestObject {
        name: name.into(),
        bytes: bytes.to_vec(),
    };
    let (file, stdin) = (&test.objects[0].bytes, &test.objects[2].bytes);
    let version = 1u32.to_le_bytes();
    let mut klee2_stat = pinned_stat(2, 1234);
    klee2_stat[24..28].copy_from_slice(&0o100600u32.to_le_bytes());
    let layouts = [
        ("new", test.objects.clone()),
        (
            "old",
            vec![
                object("A-data", file),
                object("stdin", stdin),
                object("model_version", &version),
            ],
        ),
        (
            "klee2",
            vec![
                object("A-data", file),
                object("A-data-stat", &klee2_stat),
                object("stdin", stdin),
                object("stdin-stat", &klee2_stat),
                object("model_version", &version),
            ],
        ),
    ];
    for (name, objects) in layouts {
        let sub = dir.path().join(name);
        std::fs::create_dir(&sub).unwrap();
        let t = KTest {
            objects,
            ..test.clone()
        };
        t.write(sub.join("test000001.ktest")).unwrap();
        let replay = xcheck(dir.path(), &["replay", name, &abc, &bbc]);
        let replayed = stdout(&replay);
        assert_eq!(
            replay.status.code(),
            Some(1),
            "{name}: {replayed}{}",
            stderr(&replay)
        );
        assert!(replayed.contains("DIVERGED"), "{name}: {replayed}");
        let native = xcheck(dir.path(), &["replay", name, "--native", an, bn]);
        let report = stdout(&native);
        assert_eq!(native.status.code(), Some(0), "{name}: {report}");
        assert!(report.contains("CONFIRMED natively"), "{name}: {report}");
    }

    // An inconsistent test (a stat object of 4 bytes) is a one-line error.
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    let mut objects = test.objects.clone();
    objects[1].bytes.truncate(4);
    let t = KTest {
        objects,
        ..test.clone()
    };
    t.write(bad.join("test000001.ktest")).unwrap();
    let replay = xcheck(dir.path(), &["replay", "bad", &abc, &bbc]);
    let err = stderr(&replay);
    assert_eq!(replay.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("'A_data_stat' has 4 bytes, not 144"), "{err}");
}

#[test]
fn a_symbolic_file_name_matches_the_symbolic_file_or_fails() {
    let dir = tempfile::tempdir().unwrap();
    for side in ["a", "b"] {
        let src = repo().join(format!("tests/fixtures/fcat_{side}.c"));
        let o = xcheck(
            dir.path(),
            &["cc", "-O1", "-o", side, src.to_str().unwrap()],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    // argv[1] is one symbolic character: it names file A on one path and nothing on the
    // other, where the two programs exit with different statuses.
    let o = xcheck(
        dir.path(),
        &[
            "a.bc",
            "b.bc",
            "-j",
            "1",
            "-o",
            "out",
            "--sym-arg",
            "1",
            "--sym-files",
            "1",
            "3",
        ],
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("proved"),
        "the path that opens A agrees: {text}"
    );
    assert!(text.contains("exit 1") && text.contains("exit 3"), "{text}");
    assert!(!text.contains("NOT confirmed"), "{text}");
    let native = xcheck(dir.path(), &["replay", "out", "--native", "a", "b"]);
    assert_eq!(native.status.code(), Some(0), "{}", stdout(&native));

    // With --max-fail, system calls may fail: KLEE's counters are objects of the tests, the
    // engine replays them, and native replay says it cannot inject the failures.
    let o = xcheck(
        dir.path(),
        &[
            "a.bc",
            "b.bc",
            "-j",
            "1",
            "-o",
            "fail",
            "--sym-arg",
            "1",
            "--sym-files",
            "1",
            "2",
            "--max-fail",
            "1",
        ],
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(!text.contains("NOT confirmed"), "{text}");
    let shown = stdout(&xcheck(dir.path(), &["show", "fail/test000001.ktest"]));
    assert!(shown.contains("name: 'read_fail'"), "{shown}");
    let native = xcheck(dir.path(), &["replay", "fail", "--native", "a", "b"]);
    assert_eq!(native.status.code(), Some(1));
    assert!(stdout(&native).contains("cannot replay natively: uses --max-fail"));
}

#[test]
fn ignore_spacing_compares_words_and_native_replay_agrees() {
    let dir = tempfile::tempdir().unwrap();
    for side in ["a", "b"] {
        let src = repo().join(format!("tests/fixtures/pad_{side}.c"));
        let o = xcheck(
            dir.path(),
            &["cc", "-O1", "-o", side, src.to_str().unwrap()],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let strict = xcheck(
        dir.path(),
        &[
            "a.bc",
            "b.bc",
            "-j",
            "1",
            "-o",
            "strict",
            "--sym-stdin",
            "2",
        ],
    );
    assert_eq!(strict.status.code(), Some(1), "{}", stdout(&strict));
    let native = xcheck(dir.path(), &["replay", "strict", "--native", "a", "b"]);
    assert_eq!(native.status.code(), Some(0), "{}", stdout(&native));
    let words = xcheck(
        dir.path(),
        &[
            "a.bc",
            "b.bc",
            "-j",
            "1",
            "-o",
            "words",
            "--ignore-spacing",
            "--sym-stdin",
            "2",
        ],
    );
    let text = stdout(&words);
    assert_eq!(words.status.code(), Some(0), "{text}");
    assert!(text.contains("spacing ignored"), "{text}");
}

#[test]
fn a_program_without_musl_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("hello.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nint main(void) { printf(\"hi\\n\"); return 0; }\n",
    )
    .unwrap();
    let bc = dir.path().join("hello.bc");
    let ok = Command::new(xcheck::toolchain::CLANG)
        .args(["-c", "-emit-llvm", "-O2", "-D_FORTIFY_SOURCE=2"])
        .arg(&src)
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap();
    assert!(ok.success());
    let o = xcheck(dir.path(), &["hello.bc", "hello.bc", "--sym-stdin", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("hello.bc") && err.contains("glibc") && err.contains("linux-gnu"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_module_without_main_or_a_bad_option_is_a_usage_error() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let fixture = crate::common::compile_fixture("pair_a.c", dir.path(), "-O1");
    let f = fixture.to_str().unwrap();
    let o = xcheck(dir.path(), &[f, f, "--sym-stdin", "1"]);
    assert_eq!(o.status.code(), Some(2));
    // Issue 34: it says how to check a function instead.
    assert!(
        stderr(&o).contains("defines no 'main': not a whole program (to check functions, name one with --function f"),
        "{}",
        stderr(&o)
    );

    let a = format!("{}.bc", program("wc_l", "a").display());
    let bad = xcheck(dir.path(), &[&a, &a, "--sym-args", "3", "1", "2"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("MIN is larger than MAX"),
        "{}",
        stderr(&bad)
    );

    let fn_mix = xcheck(
        dir.path(),
        &[&a, &a, "--function", "main", "--sym-stdin", "2"],
    );
    assert_eq!(fn_mix.status.code(), Some(2));
    assert!(
        stderr(&fn_mix).contains("whole-program"),
        "{}",
        stderr(&fn_mix)
    );
}

#[test]
fn xcheck_cc_writes_a_native_binary_and_its_bitcode() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("p.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nint main(int argc, char **argv) { printf(\"%d\\n\", argc); return argc - 1; }\n",
    )
    .unwrap();
    let o = xcheck(dir.path(), &["cc", "-O1", "-o", "p", "p.c"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.path().join("p.bc").exists());
    let run = Command::new(dir.path().join("p"))
        .arg("x")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "2\n");
    assert_eq!(run.status.code(), Some(1));

    let broken = dir.path().join("q.c");
    std::fs::write(&broken, "int main(void) { return undeclared; }\n").unwrap();
    let o = xcheck(dir.path(), &["cc", "-o", "q", "q.c"]);
    assert_ne!(o.status.code(), Some(0));
}

/// The files a program writes are compared (`--compare` has `files` by default): two programs
/// that print the same but write different bytes to a file differ, natively too; without
/// `files` they agree.
#[test]
fn files_the_programs_write_are_compared() {
    let dir = tempfile::tempdir().unwrap();
    for side in ["a", "b"] {
        std::fs::copy(
            repo().join(format!("tests/fixtures/files_{side}.c")),
            dir.path().join(format!("{side}.c")),
        )
        .unwrap();
        let o = xcheck(dir.path(), &["cc", "-O1", "-o", side, &format!("{side}.c")]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let o = xcheck(dir.path(), &["a.bc", "b.bc", "--sym-stdin", "2"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
    assert!(text.contains("files: text differs"), "{text}");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("xcheck-out/report.json")).unwrap(),
    )
    .unwrap();
    let rows = report["rows"].as_array().unwrap();
    let diverged: Vec<_> = rows.iter().filter(|r| r["verdict"] == "diverged").collect();
    assert!(!diverged.is_empty(), "{text}");
    for row in diverged {
        assert_eq!(row["native"], true, "{row}");
        let stdin = &row["inputs"][0];
        assert_eq!(stdin["name"], "stdin");
        assert!(
            stdin["bytes"].as_array().unwrap().contains(&b'x'.into()),
            "{row}"
        );
        assert!(
            row["result_a"].as_str().unwrap().contains("files copy"),
            "{row}"
        );
    }
    let o = xcheck(
        dir.path(),
        &[
            "a.bc",
            "b.bc",
            "--sym-stdin",
            "2",
            "--compare",
            "stdout,exit",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn a_symbolic_name_can_name_the_root_directory() {
    // A reports a directory when reading fails with EISDIR, B when fstat says so, in other
    // words: they differ only on a directory argument, which a one-character symbolic name
    // reaches as "/" or "." (as `cksum /` does in the KLEE paper).
    let a = "#include <errno.h>\n#include <fcntl.h>\n#include <stdio.h>\n#include <unistd.h>\nint main(int argc, char **argv) {\n  char c;\n  int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;\n  if (fd < 0)\n    return 1;\n  if (read(fd, &c, 1) < 0 && errno == EISDIR)\n    puts(\"dir\");\n  return 0;\n}\n";
    let b = "#include <fcntl.h>\n#include <stdio.h>\n#include <sys/stat.h>\nint main(int argc, char **argv) {\n  struct stat st;\n  int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;\n  if (fd < 0)\n    return 1;\n  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))\n    puts(\"directory\");\n  return 0;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    for (side, src) in [("a", a), ("b", b)] {
        std::fs::write(dir.path().join(format!("{side}.c")), src).unwrap();
        let o = xcheck(dir.path(), &["cc", "-O1", "-o", side, &format!("{side}.c")]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let o = xcheck(
        dir.path(),
        &[
            "a.bc",
            "b.bc",
            "-j",
            "1",
            "--sym-arg",
            "1",
            "--sym-files",
            "1",
            "2",
        ],
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("xcheck-out/report.json")).unwrap(),
    )
    .unwrap();
    let mut names = Vec::new();
    for row in report["rows"].as_array().unwrap() {
        if row["verdict"] == "diverged" {
            assert_eq!(row["native"], true, "{row}");
            names.push(row["inputs"][0]["display"].as_str().unwrap().to_string());
        }
    }
    // One path stands for both names of the root.
    assert!(!names.is_empty(), "{text}");
    assert!(
        names.iter().all(|n| n == "\"/\"" || n == "\".\""),
        "{names:?}"
    );
}

#[test]
fn a_kind_of_difference_names_the_branch_where_it_leaves_agreement() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (program("echo", "a"), program("echo", "b"));
    let (abc, bbc) = (format!("{}.bc", a.display()), format!("{}.bc", b.display()));
    let o = xcheck(
        dir.path(),
        &[
            &abc,
            &bbc,
            "-j",
            "1",
            "--sym-args",
            "0",
            "2",
            "2",
            "-o",
            "out",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    // B treats "--" as the end of its options, A prints it: every difference leaves the
    // paths where they agree at B's comparison of an argument with "--" (a branch of the C
    // library's strcmp, named with the call in B's own code).
    let source = std::fs::read_to_string(repo().join("corpora/programs/echo/b.c")).unwrap();
    let line = 1 + source
        .lines()
        .position(|l| l.contains("strcmp(argv[first], \"--\")"))
        .expect("b.c compares an argument with \"--\"");
    let call = format!("called from b.c:{line} (main)");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/report.json")).unwrap())
            .unwrap();
    let classes = report["summary"]["classes"].as_array().unwrap();
    assert!(!classes.is_empty());
    for class in classes {
        let first = class["partings"][0]["at"].as_str().unwrap_or_default();
        assert!(first.starts_with("B ") && first.contains(&call), "{class}");
    }
    // Every difference row names it; no agreeing row names a branch.
    for row in report["rows"].as_array().unwrap() {
        let at = row["parts_at"].as_str();
        match row["verdict"].as_str() {
            Some("proved") => assert!(at.is_none(), "{row}"),
            _ => assert!(at.is_some_and(|t| t.contains(&call)), "{row}"),
        }
    }
    assert!(
        stdout(&o).contains("leaves agreement at B "),
        "{}",
        stdout(&o)
    );
    let md = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    assert!(md.contains(&call), "{md}");
    // Issue 34: summary.md too, its examples' environment inputs whole.
    let summary = crate::reports::check_summary(&dir.path().join("out"));
    assert!(summary.contains("\nn_args = "), "{summary}");
}
