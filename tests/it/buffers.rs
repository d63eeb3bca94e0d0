//! The buffers a function check passes its pointer parameters (issue 30): the size a caller
//! passes, for a `byval`/`sret` slot of any type and for a struct ending in a flexible array
//! member (`tests/fixtures/bufsize_{a,b}.c`: each pair differs only in the last bytes of the
//! buffer, which a 16-byte or struct-sized buffer leaves out, as an error in both). Checked
//! with `--ub machine`: their sums overflow, and the subject is the buffers (`poison.rs`).

use crate::common::{stderr, stdout, xcheck};
use crate::traps::{compile, input, other_rows, run, COMPILERS};

// See: #30. `unsigned _BitInt(200)` by value (clang-19 passes it `byval(i256)` and returns
// it `sret(i256)`) and a 32-byte vector by value got 16-byte buffers: both sides read past
// them, an error in both, EQUIVALENT. Now the slot's 32 bytes: the difference in the last
// bytes is found, and each file against itself is proved without an error.
#[test]
fn r30_byval_and_sret_buffers_have_their_type_size() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for cc in COMPILERS {
        for opt in ["-O0", "-O2"] {
            let a = compile(cc, "bufsize_a.c", d, opt, &[]);
            let b = compile(cc, "bufsize_b.c", d, opt, &[]);
            let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
            // clang-14 has no `_BitInt` wider than 128 bits.
            let functions: &[&str] = if cc == "clang-14" {
                &["vsum"]
            } else {
                &["big", "vsum"]
            };
            for f in functions {
                let at = format!("{cc} {opt} {f}");
                let (code, text, report) =
                    run(d, &[a, b, "--function", f, "--ub", "machine"], "out");
                assert_eq!(code, Some(1), "{at}: {text}");
                let rows = other_rows(&report);
                assert!(
                    rows.iter().all(|r| r["verdict"] == "diverged"),
                    "{at}: {text}"
                );
                // The parameter is the last input (named `x` or, without its debug
                // record at -O2, `arg0`); `big`'s `sret` buffer comes first.
                let inputs = rows[0]["inputs"].as_array().unwrap();
                let x: Vec<u64> = inputs.last().unwrap()["bytes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b.as_u64().unwrap())
                    .collect();
                assert_eq!(x.len(), 32, "{at}: {text}");
                if *f == "big" {
                    // x >> 190 == 1023: the top bits of the 25th byte on.
                    assert_eq!((x[23] >> 6, x[24]), (3, 0xff), "{at}: {text}");
                } else {
                    // x[7] == 12345, in the buffer's last four bytes.
                    assert_eq!(x[28..], [0x39, 0x30, 0, 0], "{at}: {text}");
                }
                let (code, text, report) =
                    run(d, &[a, a, "--function", f, "--ub", "machine"], "self");
                assert_eq!(code, Some(0), "{at} against itself: {text}");
                assert_eq!(
                    report["summary"]["errors_both"], 0,
                    "{at} against itself: {text}"
                );
            }
        }
    }
}

// See: #30. A struct with a flexible array member passed by pointer got only the struct's
// bytes (debug information gives `struct flex`, 4 bytes): reading `data[3]` failed on both
// sides. Now the struct's bytes plus `--buffer-size` for the array, said in the notes.
#[test]
fn r30_a_flexible_array_member_gets_buffer_size_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for cc in COMPILERS {
        for opt in ["-O0", "-O2"] {
            let at = format!("{cc} {opt}");
            let a = compile(cc, "bufsize_a.c", d, opt, &[]);
            let b = compile(cc, "bufsize_b.c", d, opt, &[]);
            let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
            let (code, text, report) = run(
                d,
                &[a, b, "--function", "sumflex", "--ub", "machine"],
                "out",
            );
            assert_eq!(code, Some(1), "{at}: {text}");
            assert!(
                text.contains(
                    "buffer 'f': 20 bytes, the struct's 4 and 16 for the flexible array member"
                ),
                "{at}: {text}"
            );
            let rows = other_rows(&report);
            assert!(
                rows.iter().all(|r| r["verdict"] == "diverged"),
                "{at}: {text}"
            );
            let f = input(rows[0], "f");
            assert_eq!(f.len(), 20, "{at}: {text}");
            assert_eq!(f[16..], [77, 0, 0, 0], "{at}: {text}");
            let args = [
                a,
                a,
                "--function",
                "sumflex",
                "--buffer-size",
                "32",
                "--ub",
                "machine",
            ];
            let (code, text, report) = run(d, &args, "self");
            assert_eq!(code, Some(0), "{at} against itself: {text}");
            assert_eq!(
                report["summary"]["errors_both"], 0,
                "{at} against itself: {text}"
            );
            assert!(
                text.contains("buffer 'f': 36 bytes, the struct's 4 and 32"),
                "{at}: {text}"
            );
        }
    }
    // Without debug information, clang-14's -O0 indexes the parameter as `{ i32, [0 x i32] }`.
    let a = d.join("flex_nodebug.bc");
    let src = crate::common::repo().join("tests/fixtures/bufsize_a.c");
    let ok = std::process::Command::new("clang-14")
        .args(["-c", "-emit-llvm", "-O0", "-Xclang", "-disable-O0-optnone"])
        .arg(&src)
        .arg("-o")
        .arg(&a)
        .status()
        .expect("clang-14 runs");
    assert!(ok.success());
    let a = a.to_str().unwrap();
    let o = xcheck(
        d,
        &[
            a,
            a,
            "--function",
            "sumflex",
            "-o",
            "plain",
            "--ub",
            "machine",
        ],
    );
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("buffer 'arg0': 20 bytes"), "{text}");
}

// See: #30. `((int *)p)[5]` against the same plus 1: both sides read past the harness's
// 16-byte buffer, "errors in both", EQUIVALENT with 0 paths proved. A caller could pass a
// bigger buffer (or a pointer into an array, for `p[-1]`), so the path is unknown with the
// reason, in the row and the notes, and the check INCONCLUSIVE; with a buffer big enough
// the difference is found.
#[test]
fn r30_a_path_that_needs_a_bigger_parameter_buffer_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let needs_more = "parameter 'p' needs more than 16 bytes (--buffer-size)";
    let before = "parameter 'p' accessed before its start";
    for cc in COMPILERS {
        for opt in ["-O0", "-O2"] {
            let a = compile(cc, "overrun_a.c", d, opt, &[]);
            let b = compile(cc, "overrun_b.c", d, opt, &[]);
            let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
            for (f, why) in [("past", needs_more), ("before", before)] {
                let at = format!("{cc} {opt} {f}");
                for (other, name) in [(b, "B"), (a, "itself")] {
                    // No growth: the buffer keeps its 16 bytes.
                    let args = [
                        a,
                        other,
                        "--function",
                        f,
                        "--buffer-cap",
                        "16",
                        "--ub",
                        "machine",
                    ];
                    let (code, text, report) = run(d, &args, "out");
                    assert_eq!(code, Some(3), "{at} against {name}: {text}");
                    assert_eq!(report["summary"]["overall"], "inconclusive", "{at}: {text}");
                    assert_eq!(report["summary"]["errors_both"], 0, "{at}: {text}");
                    assert_eq!(report["summary"]["proved"], 0, "{at}: {text}");
                    let rows = other_rows(&report);
                    assert!(!rows.is_empty(), "{at}: {text}");
                    for row in rows {
                        assert_eq!(row["verdict"], "unknown", "{at}: {text}");
                        let detail = row["detail"].as_str().unwrap();
                        assert!(detail.contains(why), "{at}: {detail}");
                    }
                    let notes = report["summary"]["notes"].to_string();
                    assert!(notes.contains(why), "{at}: {notes}");
                }
            }
            // A buffer of 24 bytes holds p[5]: the difference is found.
            let args = [a, b, "--function", "past", "--buffer-size", "24"];
            let (code, text, _) = run(d, &args, "out");
            assert_eq!(code, Some(1), "{cc} {opt} past with 24 bytes: {text}");
            // A symbolic index: the difference inside the buffer is found, the paths past
            // it are unknown (a divergence still decides the verdict).
            let (code, text, report) = run(d, &[a, b, "--function", "at"], "out");
            assert_eq!(code, Some(1), "{cc} {opt} at: {text}");
            assert_eq!(report["summary"]["errors_both"], 0, "{cc} {opt} at: {text}");
            assert!(
                report["summary"]["unknown"].as_u64().unwrap() >= 1,
                "{cc} {opt} at: {text}"
            );
            let at_cap = "parameter 'p' needs more than 256 bytes (--buffer-cap)";
            assert!(text.contains(at_cap), "{cc} {opt} at: {text}");
        }
    }
}

// A buffer of the default size grows on demand when a side reads or writes past it (a
// caller may pass a bigger one), up to --buffer-cap: reads far into it are compared, a
// write one byte further is a difference of the buffer (the other side's byte there is the
// input's), a loop over 48 bytes finds the byte the other side skips; each file against
// itself is EQUIVALENT, and the tests hold the grown bytes, confirmed by replay.
#[test]
fn r30_a_parameter_buffer_grows_on_demand_up_to_its_cap() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for cc in COMPILERS {
        for opt in ["-O0", "-O2"] {
            let a = compile(cc, "grow_a.c", d, opt, &[]);
            let b = compile(cc, "grow_b.c", d, opt, &[]);
            let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
            for f in ["reads_far", "writes_far", "first_zero"] {
                let at = format!("{cc} {opt} {f}");
                let (code, text, report) = run(d, &[a, a, "--function", f], "self");
                assert_eq!(code, Some(0), "{at} against itself: {text}");
                assert!(
                    report["summary"]["proved"].as_u64().unwrap() >= 1,
                    "{at}: {text}"
                );
                assert!(
                    text.contains("up to 256 bytes (--buffer-cap)"),
                    "{at}: {text}"
                );
            }
            let at = format!("{cc} {opt}");
            let (code, text, _) = run(d, &[a, b, "--function", "reads_far"], "reads");
            assert_eq!(code, Some(0), "{at} reads_far: {text}");
            for f in ["writes_far", "first_zero"] {
                let (code, text, report) = run(d, &[a, b, "--function", f], "out");
                assert_eq!(code, Some(1), "{at} {f}: {text}");
                assert_eq!(report["summary"]["unknown"], 0, "{at} {f}: {text}");
                let rows = other_rows(&report);
                let row = rows.iter().find(|r| r["verdict"] == "diverged").unwrap();
                assert_eq!(row["confirmed"], true, "{at} {f}: {text}");
                // The test holds the bytes the path used past the first 16.
                let p = input(row, "p");
                assert!(p.len() > 16, "{at} {f}: {} bytes", p.len());
                if f == "writes_far" {
                    assert!(
                        row["detail"].as_str().unwrap().contains("buffer 'p'"),
                        "{text}"
                    );
                }
            }
            // Capped at 32 bytes, the loop's paths past it are unknown.
            let args = [a, b, "--function", "first_zero", "--buffer-cap", "32"];
            let (code, text, report) = run(d, &args, "capped");
            assert_eq!(code, Some(3), "{at} first_zero capped: {text}");
            assert_eq!(report["summary"]["diverged"], 0, "{at}: {text}");
            let needs = "parameter 'p' needs more than 32 bytes (--buffer-cap)";
            assert!(text.contains(needs), "{at} first_zero capped: {text}");
        }
    }
    let o = xcheck(
        d,
        &["x.bc", "y.bc", "--function", "f", "--buffer-cap", "70000"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--buffer-cap 70000: at most 65536"),
        "{}",
        stderr(&o)
    );
}

// Word-at-a-time code has a prologue for a misaligned start that a buffer at a 16-byte
// boundary never runs: a bug planted there is EQUIVALENT with the default placement, found
// under --buffer-offset any (the offset an input, `s.offset`, which preconditions read the
// buffer through), confirmed by replay in the engine and natively, and at a fixed offset
// that runs it. Each file against itself stays EQUIVALENT; a test made with an offset is not
// replayed without one.
#[test]
fn r30_buffer_offset_runs_the_misaligned_prologue() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nul = ["--assume", "s[6] == 0"];
    for cc in COMPILERS {
        for opt in ["-O0", "-O2"] {
            let a = compile(cc, "misaligned_a.c", d, opt, &[]);
            let b = compile(cc, "misaligned_b.c", d, opt, &[]);
            let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
            let at = format!("{cc} {opt}");
            let with = |extra: &[&'static str]| -> Vec<&str> {
                let mut args = vec![a, b, "--function", "wlen"];
                args.extend(nul);
                args.extend(extra);
                args
            };
            let (code, text, _) = run(d, &with(&[]), "aligned");
            assert_eq!(code, Some(0), "{at} aligned: {text}");
            assert!(text.contains("at a 16-byte boundary"), "{at}: {text}");
            let (code, text, report) = run(d, &with(&["--buffer-offset", "any"]), "any");
            assert_eq!(code, Some(1), "{at} any: {text}");
            assert!(
                text.contains("'s.offset'; --buffer-offset any"),
                "{at}: {text}"
            );
            let rows = other_rows(&report);
            let row = rows.iter().find(|r| r["verdict"] == "diverged").unwrap();
            assert_eq!(row["confirmed"], true, "{at}: {text}");
            let offset = input(row, "s.offset");
            assert!((1..=4).contains(&offset[0]), "{at}: offset {offset:?}");
            let out = d.join("any");
            let out = out.to_str().unwrap();
            let args = ["replay", out, "--native", a, b, "--function", "wlen"];
            let o = xcheck(d, &[&args[..], &["--buffer-offset", "any"]].concat());
            let native = stdout(&o);
            assert!(
                native.contains("CONFIRMED natively"),
                "{at}: {native}{}",
                stderr(&o)
            );
            assert!(!native.contains("NOT confirmed"), "{at}: {native}");
            let o = xcheck(d, &args);
            assert_eq!(o.status.code(), Some(2), "{at}: {}", stdout(&o));
            assert!(
                stderr(&o).contains("made with --buffer-offset"),
                "{}",
                stderr(&o)
            );
            let (code, text, _) = run(d, &with(&["--buffer-offset", "1"]), "one");
            assert_eq!(code, Some(1), "{at} offset 1: {text}");
            let (code, text, _) = run(d, &with(&["--buffer-offset", "5"]), "five");
            assert_eq!(code, Some(0), "{at} offset 5: {text}");
            let mut own = vec![a, a, "--function", "wlen", "--buffer-offset", "any"];
            own.extend(nul);
            let (code, text, _) = run(d, &own, "self");
            assert_eq!(code, Some(0), "{at} against itself: {text}");
        }
    }
    let o = xcheck(
        d,
        &["x.bc", "y.bc", "--function", "f", "--buffer-offset", "16"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("expected any or an offset from 0 to 15"),
        "{}",
        stderr(&o)
    );
}

// Pointer parameters never alias unless asked: the report says so. Under --alias they
// point into one object at offsets that are inputs (`a.offset`, `b.offset`), so stores
// reordered across them, or a read moved above a write, differ where they overlap,
// confirmed by replay; each file against itself stays EQUIVALENT. Native replay says it
// cannot place them; a group of one, or --alias with --buffer-offset, is a usage error.
#[test]
fn r30_alias_puts_pointer_parameters_into_one_object() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for cc in COMPILERS {
        for opt in ["-O0", "-O2"] {
            let a = compile(cc, "alias_a.c", d, opt, &[]);
            let b = compile(cc, "alias_b.c", d, opt, &[]);
            let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
            for f in ["set", "rw"] {
                let at = format!("{cc} {opt} {f}");
                let (code, text, _) = run(d, &[a, b, "--function", f], "apart");
                assert_eq!(code, Some(0), "{at} apart: {text}");
                assert!(
                    text.contains("aliasing between them is not explored"),
                    "{text}"
                );
                let (code, text, report) = run(d, &[a, b, "--function", f, "--alias"], "alias");
                assert_eq!(code, Some(1), "{at} --alias: {text}");
                assert!(text.contains("point into one object of 32 bytes"), "{text}");
                let rows = other_rows(&report);
                let row = rows.iter().find(|r| r["verdict"] == "diverged").unwrap();
                assert_eq!(row["confirmed"], true, "{at}: {text}");
                let (x, y) = (input(row, "a.offset"), input(row, "b.offset"));
                let at_ = |v: &[u64]| v.iter().rev().fold(0, |acc, b| acc << 8 | b);
                let (x, y) = (at_(&x), at_(&y));
                assert!(
                    x.abs_diff(y) < 4,
                    "{at}: offsets {x} and {y} do not overlap"
                );
                let args = [a, a, "--function", f, "--alias", "a,b"];
                let (code, text, _) = run(d, &args, "self");
                assert_eq!(code, Some(0), "{at} against itself: {text}");
            }
            let out = d.join("alias");
            let out = out.to_str().unwrap();
            let args = [
                "replay",
                out,
                "--native",
                a,
                b,
                "--function",
                "rw",
                "--alias",
            ];
            let o = xcheck(d, &args);
            let text = format!("{}{}", stdout(&o), stderr(&o));
            assert!(text.contains("(--alias)"), "{cc} {opt}: {text}");
            assert!(!text.contains("CONFIRMED"), "{cc} {opt}: {text}");
            let o = xcheck(d, &[a, b, "--function", "set", "--alias", "a"]);
            assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
            assert!(
                stderr(&o).contains("needs two pointer parameters"),
                "{}",
                stderr(&o)
            );
            let args = [
                a,
                b,
                "--function",
                "set",
                "--alias",
                "--buffer-offset",
                "any",
            ];
            let o = xcheck(d, &args);
            assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
            assert!(stderr(&o).contains("do not go together"), "{}", stderr(&o));
        }
    }
}
