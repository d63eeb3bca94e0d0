//! `setjmp`/`longjmp` in the engine (`src/exec/jump.rs`): whole programs built with
//! `xcheck cc` and function pairs in `tests/fixtures/jmp_*.c` — an error exit through
//! `longjmp` from nested calls, `setjmp` returning twice with a symbolic value, a jump to
//! the `setjmp` of a function that returned (a program error), a divergence only paths past
//! a `longjmp` show (confirmed natively, where musl's own `setjmp` runs), and the same under
//! state merging and sharding.
//!
//! Needs the bundled musl (`scripts/build-musl.sh`).

use crate::common::{compile_fixture, repo, stderr, stdout, xcheck};
use std::path::Path;

/// Builds `tests/fixtures/<fixture>.c` in `dir` as `<out>` and `<out>.bc` with `xcheck cc`.
fn cc(dir: &Path, fixture: &str, out: &str, defines: &[&str]) {
    let src = repo().join(format!("tests/fixtures/{fixture}.c"));
    let mut args = vec!["cc", "-O1", "-g", "-o", out];
    args.extend(defines);
    args.push(src.to_str().unwrap());
    let o = xcheck(dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `xcheck a.bc b.bc -o out ARGS…` in `dir`: exit code and stdout.
fn check(dir: &Path, a: &str, b: &str, out: &str, args: &[&str]) -> (Option<i32>, String) {
    let (abc, bbc) = (format!("{a}.bc"), format!("{b}.bc"));
    let mut all = vec![abc.as_str(), bbc.as_str(), "-j", "1", "-o", out];
    all.extend(args);
    let o = xcheck(dir, &all);
    (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
}

fn no_unknown_rows(text: &str) {
    assert!(!text.contains("unsupported"), "{text}");
    assert!(
        !text.contains("unknown 1") && !text.contains("UNKNOWN"),
        "{text}"
    );
}

#[test]
fn an_error_exit_through_longjmp_is_proved_and_a_divergence_past_it_replays_natively() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cc(d, "jmp_a", "a", &[]);
    cc(d, "jmp_b", "b", &[]);
    cc(d, "jmp_a", "c", &["-DTELL_X"]);
    // Every path of the longjmp version agrees with the return-code version.
    let (code, text) = check(d, "a", "b", "ab", &["--sym-stdin", "3"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("EQUIVALENT"), "{text}");
    no_unknown_rows(&text);
    // Only a path past the longjmp tells 'x' apart.
    let (code, text) = check(d, "c", "b", "cb", &["--sym-stdin", "3"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("exit 3") && text.contains("exit 1"), "{text}");
    assert!(!text.contains("NOT confirmed"), "{text}");
    no_unknown_rows(&text);
    // The engine's own replay (`xcheck replay`) runs the model again on the test's bytes.
    let again = xcheck(d, &["replay", "cb", "c.bc", "b.bc"]);
    let replayed = stdout(&again);
    assert_eq!(again.status.code(), Some(1), "{replayed}{}", stderr(&again));
    assert!(
        replayed.contains("\"bad x\\n\"") && replayed.contains("DIVERGED"),
        "{replayed}"
    );
    let native = xcheck(d, &["replay", "cb", "--native", "c", "b"]);
    let replayed = stdout(&native);
    assert_eq!(
        native.status.code(),
        Some(0),
        "{replayed}{}",
        stderr(&native)
    );
    assert!(replayed.contains("CONFIRMED natively"), "{replayed}");
    // Merged states and a shard's frontier keep their jump targets.
    let (code, text) = check(d, "a", "b", "merged", &["--merge", "--sym-stdin", "3"]);
    assert_eq!(code, Some(0), "{text}");
    no_unknown_rows(&text);
    for shard in ["1/2", "2/2"] {
        let out = format!("shard{}", &shard[..1]);
        let (code, text) = check(d, "c", "b", &out, &["--shard", shard, "--sym-stdin", "3"]);
        assert!(matches!(code, Some(0 | 1)), "{text}");
        no_unknown_rows(&text);
    }
}

#[test]
fn setjmp_returns_twice_with_a_symbolic_value_zero_read_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cc(d, "jmp_twice_a", "a", &[]);
    cc(d, "jmp_twice_b", "b", &[]);
    let (code, text) = check(d, "a", "b", "out", &["--sym-stdin", "1"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("EQUIVALENT"), "{text}");
    no_unknown_rows(&text);
}

#[test]
fn a_longjmp_to_a_returned_frame_is_a_program_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cc(d, "jmp_dead", "a", &[]);
    cc(d, "jmp_ok", "b", &[]);
    let (code, text) = check(d, "a", "b", "out", &["--sym-stdin", "1"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("ERROR (one side)"), "{text}");
    no_unknown_rows(&text);
    // The terminal's table shortens the failure; the report names it and where.
    let report = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(
        report.contains(
            "longjmp to a setjmp whose function returned (undefined behaviour) at jmp_dead.c:15"
        ),
        "{report}"
    );
}

#[test]
fn function_checks_jump_out_of_nested_calls() {
    let dir = tempfile::tempdir().unwrap();
    let bc = compile_fixture("jmp_fn.c", dir.path(), "-O1");
    let bc = bc.to_str().unwrap();
    let run = |spec: &str, out: &str| {
        let o = xcheck(
            dir.path(),
            &[bc, bc, "--function", spec, "-j", "1", "-o", out],
        );
        (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
    };
    let (code, text) = run("digits_jump=digits_plain", "proved");
    assert_eq!(code, Some(0), "{text}");
    no_unknown_rows(&text);
    // At -O0, states forked in a nested call merge while another leaves it by longjmp.
    let o0 = compile_fixture("jmp_fn.c", dir.path(), "-O0");
    let o0 = o0.to_str().unwrap();
    let spec = "classify_jump=classify_plain";
    let merged = xcheck(
        dir.path(),
        &[
            o0,
            o0,
            "--function",
            spec,
            "--merge",
            "-j",
            "1",
            "-o",
            "merged",
        ],
    );
    let text = stdout(&merged);
    assert_eq!(merged.status.code(), Some(0), "{text}{}", stderr(&merged));
    no_unknown_rows(&text);
    let csv = std::fs::read_to_string(dir.path().join("merged/report.csv")).unwrap();
    let most = csv
        .lines()
        .skip(1)
        .filter_map(|row| row.split(',').nth(2)?.parse::<u64>().ok())
        .max();
    assert!(most.is_some_and(|n| n > 1), "no merged row: {csv}");
    let (code, text) = run("digits_jump=digits_off", "off");
    assert_eq!(code, Some(1), "{text}");
    assert!(!text.contains("NOT confirmed"), "{text}");
    no_unknown_rows(&text);
    let spec = "digits_jump=digits_off";
    let native = xcheck(
        dir.path(),
        &["replay", "off", "--native", bc, bc, "--function", spec],
    );
    let replayed = stdout(&native);
    assert_eq!(
        native.status.code(),
        Some(0),
        "{replayed}{}",
        stderr(&native)
    );
    assert!(replayed.contains("CONFIRMED natively"), "{replayed}");
}
