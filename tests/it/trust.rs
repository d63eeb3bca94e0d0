//! Verdicts that rest on nothing unstated (`// See: #30`): pointers in results and in
//! memory compared by what they point to, and undefined behaviour reported rather than given
//! a value. Each fixture pair is built at -O0 and -O2 by clang-19 and clang-14.

use crate::common::*;
use std::path::{Path, PathBuf};

const OPTS: [&str; 2] = ["-O0", "-O2"];
const COMPILERS: [&str; 2] = [xcheck::toolchain::CLANG, "clang-14"];

/// `tests/fixtures/NAME` compiled by `clang` at `opt` into `dir`.
pub(crate) fn build(clang: &str, name: &str, dir: &Path, opt: &str) -> PathBuf {
    build_with(clang, name, dir, opt, &[])
}

/// `tests/fixtures/NAME` compiled by `clang` at `opt` with `flags` into `dir` (-O0 code
/// keeps `optnone`, as clang leaves it).
fn build_with(clang: &str, name: &str, dir: &Path, opt: &str, flags: &[&str]) -> PathBuf {
    let tag = flags.join("");
    let out = dir.join(format!(
        "{}.{opt}{tag}.{clang}.bc",
        name.trim_end_matches(".c")
    ));
    compile_c(clang, name, &out, opt, flags);
    out
}

/// A check of a pair where only A has undefined behaviour (memory never written, a poison
/// constant, a shift by the width): what the machine gives there is whatever the stack or
/// a register held, or x86-64's own answer, so the pair differs where its native
/// executables show it on the row's inputs (exit 1) and is undecided otherwise (exit 3),
/// and the report says which.
pub(crate) fn differs_only_natively(code: i32, out: &str, what: &str) {
    match code {
        1 => assert!(
            out.contains("the native executables differ on these inputs"),
            "{what}: {out}"
        ),
        3 => assert!(
            out.contains(" 0 differ (counted as differences)"),
            "{what}: {out}"
        ),
        _ => panic!("{what}: exit {code}: {out}"),
    }
}

/// `xcheck A B --function f ARGS…` in `dir`: the exit code, the output and the report.
pub(crate) fn check(
    dir: &Path,
    a: &Path,
    b: &Path,
    f: &str,
    args: &[&str],
) -> (i32, String, String) {
    let out = dir.join(format!("out-{f}"));
    let mut all = vec![
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--function",
        f,
        "-o",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let o = xcheck(dir, &all);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    let report = std::fs::read_to_string(out.join("report.json")).unwrap_or_default();
    (o.status.code().unwrap_or(-1), text, report)
}

/// Runs `body` on the pair `a`/`b` of fixtures built by each compiler at each level.
pub(crate) fn each_build(a: &str, b: &str, mut body: impl FnMut(&Path, &Path, &Path, &str)) {
    for clang in COMPILERS {
        for opt in OPTS {
            let dir = tempfile::tempdir().unwrap();
            let (fa, fb) = (
                build(clang, a, dir.path(), opt),
                build(clang, b, dir.path(), opt),
            );
            body(dir.path(), &fa, &fb, &format!("{clang} {opt}"));
        }
    }
}

const POINTER_FUNCTIONS: [&str; 8] = [
    "yesno", "literal", "elem", "elem2", "pick", "dup", "mid", "h1",
];

// See: #30. A pointer to a string literal, a global, a function, a heap object or into a
// parameter's buffer lives at another engine address on each side: a file against itself
// is equivalent all the same.
#[test]
fn r30_pointer_results_of_a_file_against_itself_are_equivalent() {
    each_build("r30_ptr_a.c", "r30_ptr_b.c", |dir, a, _, build| {
        for f in POINTER_FUNCTIONS {
            let (code, out, _) = check(dir, a, a, f, &[]);
            assert_eq!(code, 0, "{build} {f}: {out}");
        }
    });
}

// See: #30. Pointers to corresponding objects at the same offset are equal whatever the
// compiler named the objects; other pointers differ, shown by what they point to.
#[test]
fn r30_pointers_are_equal_by_object_and_offset_and_shown_by_name() {
    each_build("r30_ptr_a.c", "r30_ptr_b.c", |dir, a, b, build| {
        for f in ["yesno", "elem", "mid"] {
            let (code, out, _) = check(dir, a, b, f, &[]);
            assert_eq!(code, 0, "{build} {f}: {out}");
        }
        let shown = [
            ("literal", "&\\\"no\\\"[0]"),
            ("elem2", "&g+4"),
            ("pick", "&h2"),
            ("dup", "returned object"),
        ];
        for (f, text) in shown {
            let (code, out, report) = check(dir, a, b, f, &[]);
            assert_eq!(code, 1, "{build} {f}: {out}");
            assert!(report.contains(text), "{build} {f}: no {text} in {report}");
            assert!(
                !report.contains("0x1"),
                "{build} {f}: an address shown: {report}"
            );
        }
    });
}

const MEMORY_FUNCTIONS: [&str; 13] = [
    "table",
    "store_pick",
    "store_table",
    "store_literal",
    "get_last",
    "store_elem",
    "store_heap",
    "end_of",
    "fill",
    "out_heap",
    "ret_pair",
    "ret_big",
    "store_private",
];

// See: #30. A pointer stored in a global, written into a parameter's buffer, or returned
// in a struct (in registers or through `sret`) is another engine address on each side,
// and so are heap blocks reached through one and constant tables of pointers (one read at
// a symbolic index is a pointer whose upper bytes alone are known): a file against itself
// is equivalent.
#[test]
fn r30_pointers_in_memory_of_a_file_against_itself_are_equivalent() {
    each_build("r30_mem_a.c", "r30_mem_b.c", |dir, a, _, build| {
        for f in MEMORY_FUNCTIONS {
            let (code, out, _) = check(dir, a, a, f, &[]);
            assert_eq!(code, 0, "{build} {f}: {out}");
        }
    });
}

// See: #30. Pointers in memory to other objects (another literal, another global, a
// global of B's alone, another offset of a parameter's buffer) or to heap blocks of other
// contents differ, confirmed by replay, and are shown by what they point to.
#[test]
fn r30_pointers_in_memory_differ_by_object_and_are_shown_by_name() {
    each_build("r30_mem_a.c", "r30_mem_b.c", |dir, a, b, build| {
        for f in ["get_last", "table", "store_table"] {
            let (code, out, _) = check(dir, a, b, f, &[]);
            assert_eq!(code, 0, "{build} {f}: {out}");
        }
        let shown: [(&str, &[&str]); 10] = [
            ("store_pick", &["{&\\\"a\\\"[0]}", "{&\\\"bc\\\"[0]}"]),
            (
                "store_literal",
                &["global 'last' {&\\\"no\\\"[0]}", "{&\\\"yes\\\"[0]}"],
            ),
            ("store_elem", &["global 'cur' {&g", "global 'cur' {&h"]),
            (
                "store_private",
                &["global 'cur' {&g", "global 'cur' {&mine"],
            ),
            ("store_heap", &["reached from global 'block' differs"]),
            (
                "end_of",
                &["buffer 'end' {&s[2], ", "buffer 'end' {&s[3], "],
            ),
            (
                "fill",
                &["buffer 'o' {&\\\"a\\\"[0], ", "buffer 'o' {&\\\"b\\\"[0], "],
            ),
            ("out_heap", &["reached from buffer 'out' differs"]),
            (
                "ret_pair",
                &["returns {&\\\"no\\\"[0], ", "returns {&\\\"yes\\\"[0], "],
            ),
            ("ret_big", &["buffer 'result' {&\\\"no\\\"[0], "]),
        ];
        for (f, texts) in shown {
            let (code, out, report) = check(dir, a, b, f, &[]);
            assert_eq!(code, 1, "{build} {f}: {out}");
            for text in texts {
                assert!(report.contains(text), "{build} {f}: no {text} in {report}");
            }
            assert!(
                report.contains("\"confirmed\": true") && !report.contains("\"confirmed\": false"),
                "{build} {f}: not confirmed by replay: {report}"
            );
            assert!(
                !report.contains("0x1"),
                "{build} {f}: an address shown: {report}"
            );
        }
    });
}

// See: #30. A result that depends on a shift by the width or more, or on `ctlz` of zero,
// is undefined behaviour named with its place: inconclusive against a defined side unless
// the native executables differ on its inputs (x86-64 masks the count),
// agreement against itself, and a shift LLVM speculates and then selects away is no
// finding. `--ub machine` gives x86-64's values instead, and the difference shows.
#[test]
fn r30_undefined_behaviour_is_reported_never_given_a_value() {
    each_build("r30_ub_a.c", "r30_ub_b.c", |dir, a, b, build| {
        for f in ["shl", "guarded", "clz", "branch", "vshl"] {
            let (code, out, _) = check(dir, a, a, f, &[]);
            assert_eq!(code, 0, "{build} {f} against itself: {out}");
        }
        // A vector shift's lanes: each a shift of its own (x86-64's vpsllvd gives zero
        // beyond the width, which the guarded side computes).
        let (code, out, report) = check(dir, a, b, "vshl", &[]);
        assert_eq!(code, 3, "{build} vshl: {out}");
        assert!(
            report.contains("shl by at least 32 bits"),
            "{build}: {report}"
        );
        let (code, out, _) = check(dir, a, b, "vshl", &["--ub", "machine"]);
        assert_eq!(code, 0, "{build} vshl --ub machine: {out}");
        let (code, out, _) = check(dir, a, b, "guarded", &[]);
        assert_eq!(code, 0, "{build} guarded: {out}");
        for (f, what) in [
            ("shl", "shl by at least 32 bits"),
            ("branch", "shl by at least 32 bits"),
            ("clz", "ctlz of zero"),
        ] {
            let (code, out, report) = check(dir, a, b, f, &[]);
            differs_only_natively(code, &out, &format!("{build} {f}"));
            assert!(
                report.contains("undefined behaviour: A: ") && report.contains(what),
                "{build} {f}: {report}"
            );
            assert!(!report.contains("B: shl"), "{build} {f}: B named: {report}");
        }
        for f in ["shl", "branch"] {
            let (code, out, _) = check(dir, a, b, f, &["--ub", "machine"]);
            assert_eq!(code, 1, "{build} {f} --ub machine: {out}");
        }
    });
}

// See: #30. A function check links musl's code for the C library functions a side calls
// (`strtol`, `strerror`), and errno is an input and an effect: reading it no longer ends
// the path, and a side that sets another errno differs.
#[test]
fn r30_function_checks_run_the_c_library_and_compare_errno() {
    each_build("r30_libc_a.c", "r30_libc_b.c", |dir, a, b, build| {
        // `s` a string of up to two characters, so that strtol stays in its buffer.
        let string = ["--buffer-size", "3", "--assume", "s[2] == 0"];
        for (f, args) in [("conv", &string[..]), ("err", &[]), ("msg", &[])] {
            let (code, out, report) = check(dir, a, a, f, args);
            assert_eq!(code, 0, "{build} {f} against itself: {out}");
            assert!(
                !report.contains("undefined function"),
                "{build} {f}: {report}"
            );
        }
        let (code, out, report) = check(dir, a, b, "err", &[]);
        assert_eq!(code, 1, "{build} err: {out}");
        assert!(
            report.contains("global 'errno' differs"),
            "{build}: {report}"
        );
        // musl's strtol sets EINVAL on "", which the hand-written loop does not.
        let (code, out, report) = check(dir, a, b, "conv", &string);
        assert_eq!(code, 1, "{build} conv: {out}");
        assert!(
            report.contains("C library functions run as musl's code"),
            "{report}"
        );
    });
}

// See: #30. Under `-mfma` x86-64 computes `llvm.fmuladd` with one rounding, as `fma` does:
// the two are equivalent there, and differ (on a product that rounds) without it.
#[test]
fn r30_target_features_decide_fmuladd() {
    for clang in COMPILERS {
        for opt in OPTS {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            let fused = |name| build_with(clang, name, d, opt, &["-mfma"]);
            let (a, b) = (fused("r30_fma_a.c"), fused("r30_fma_b.c"));
            let (code, out, _) = check(d, &a, &b, "madd", &[]);
            assert_eq!(code, 0, "{clang} {opt} -mfma: {out}");
            let (a, b) = (
                build(clang, "r30_fma_a.c", d, opt),
                build(clang, "r30_fma_b.c", d, opt),
            );
            let (code, out, _) = check(d, &a, &b, "madd", &[]);
            assert_eq!(code, 1, "{clang} {opt}: {out}");
        }
    }
}

// See: #30. `--fp-equal ieee` compares each float field of a returned struct as a float
// (-0.0 equals +0.0), and its other fields as bits; the fields are shown as floats.
#[test]
fn r30_fp_equality_applies_to_the_float_fields_of_a_returned_struct() {
    each_build("r30_fields_a.c", "r30_fields_b.c", |dir, a, b, build| {
        let (code, out, report) = check(dir, a, b, "neg", &[]);
        assert_eq!(code, 1, "{build} neg, bits: {out}");
        assert!(
            report.contains("{-0.0 (-0x0p+0), 0.0 (0x0p+0)}"),
            "{build}: {report}"
        );
        let (code, out, _) = check(dir, a, b, "neg", &["--fp-equal", "ieee"]);
        assert_eq!(code, 0, "{build} neg, ieee: {out}");
        // The integer field still counts: n = 5 differs. (`--ub machine`: the struct's
        // padding is never written at -O0, and reads of it are undefined behaviour.)
        let ieee = ["--fp-equal", "ieee", "--ub", "machine"];
        let (code, out, _) = check(dir, a, b, "pair", &ieee);
        assert_eq!(code, 1, "{build} pair, ieee: {out}");
    });
}

/// `xcheck replay OUT --native A B --function f`: its output, which says per test whether
/// the divergence happens natively.
fn native_replay(dir: &Path, a: &Path, b: &Path, f: &str) -> String {
    let out = dir.join(format!("out-{f}"));
    let o = xcheck(
        dir,
        &[
            "replay",
            out.to_str().unwrap(),
            "--native",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            f,
        ],
    );
    format!("{}{}", stdout(&o), stderr(&o))
}

const FMA_FUNCTIONS: [&str; 4] = ["madd", "msub", "nmadd", "fmadd"];

// See: #30. `-ffp-contract=fast` leaves contraction to the backend: an `fmul` and an
// `fadd`/`fsub` marked `contract`, which x86-64 fuses under FMA in an optimised function
// (the product used once, in the same block) and not at -O0. `-ffp-contract=on` (clang's
// default) writes `llvm.fmuladd`, fused under FMA at every level. Each verdict the engine
// gives is the machine's: equivalent where both sides are one `vfmadd`, and otherwise a
// difference that native replay confirms.
#[test]
fn r30_contraction_follows_the_backend_and_differences_reproduce_natively() {
    for clang in COMPILERS {
        for opt in OPTS {
            for (flags, fused) in [
                (&["-mfma", "-ffp-contract=on"][..], true),
                (&["-mfma", "-ffp-contract=fast"][..], opt == "-O2"),
                (&["-ffp-contract=fast"][..], false),
            ] {
                let dir = tempfile::tempdir().unwrap();
                let d = dir.path();
                let a = build_with(clang, "r30_fma_a.c", d, opt, flags);
                let b = build_with(clang, "r30_fma_b.c", d, opt, flags);
                for f in FMA_FUNCTIONS {
                    let build = format!("{clang} {opt} {flags:?} {f}");
                    let (code, out, _) = check(d, &a, &b, f, &[]);
                    if fused {
                        assert_eq!(code, 0, "{build}: {out}");
                        continue;
                    }
                    assert_eq!(code, 1, "{build}: {out}");
                    let native = native_replay(d, &a, &b, f);
                    assert!(
                        native.contains("divergence CONFIRMED natively")
                            && !native.contains("NOT confirmed"),
                        "{build}: {native}"
                    );
                }
            }
        }
    }
}
