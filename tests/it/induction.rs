//! Loop pairs whose trip count an input sets, proved for every trip count by induction over
//! the two loops (`// See: #33`), and the pairs that must never be: a difference past any
//! bound exploration reaches, a side that may loop for ever where the other returns, and
//! signed arithmetic that may overflow under `--ub report`.

use crate::trust::{build, check};

const FOR_ALL: &str = "proved for all inputs (by induction over the loop at induct_a.c:";

/// Runs `body` on the pair built at -O0 by both compilers (-O2 folds or unrolls these
/// loops, and exploration decides what it folds).
fn each_o0(mut body: impl FnMut(&std::path::Path, &std::path::Path, &std::path::Path, &str)) {
    for clang in ["clang-14", "clang-19"] {
        let dir = tempfile::tempdir().unwrap();
        let a = build(clang, "induct_a.c", dir.path(), "-O0");
        let b = build(clang, "induct_b.c", dir.path(), "-O0");
        body(dir.path(), &a, &b, clang);
    }
}

// See: #33. The regression-verification pair (strength reduction), a count up against a
// count down, a branch in the body against a select, and a loop unrolled by two (two
// iterations of A to one of B): EQUIVALENT for every input, where exploration alone ends
// at its time limit.
#[test]
fn r33_loop_pairs_are_proved_for_every_trip_count() {
    each_o0(|dir, a, b, clang| {
        for f in ["strength", "countdown", "branchy", "unrolled"] {
            let (code, out, report) = check(dir, a, b, f, &["--max-time", "20"]);
            assert_eq!(code, 0, "{clang} {f}: {out}");
            assert!(out.contains(FOR_ALL), "{clang} {f}: {out}");
            assert!(report.contains("\"proof\""), "{clang} {f}: {report}");
            assert!(out.contains("inductive invariant"), "{clang} {f}: {out}");
        }
    });
}

// See: #33. Never a proof where the sides differ: on the 77,778th iteration only, or where
// A loops for ever (n = UINT_MAX) and B returns; nor where signed overflow may happen
// under `--ub report`, which `--ub machine` (wrapping) then proves.
#[test]
fn r33_differences_past_the_bound_and_nontermination_are_never_proved() {
    each_o0(|dir, a, b, clang| {
        for (f, why) in [
            ("near", "the results may differ once both sides return"),
            ("nonterm", "the side still looping may not return"),
            (
                "strength_int",
                "undefined behaviour (or a trap) is not ruled out",
            ),
        ] {
            let (code, out, _) = check(dir, a, b, f, &["--max-time", "6"]);
            assert_eq!(code, 3, "{clang} {f}: {out}");
            assert!(!out.contains(FOR_ALL), "{clang} {f}: {out}");
            assert!(out.contains(why), "{clang} {f}: {out}");
            if f == "strength_int" {
                let wrapping = "with overflow wrapping (--ub machine), induction over the loop";
                assert!(out.contains(wrapping), "{clang} {f}: {out}");
            }
        }
        // Forgetting the odd iteration: a confirmed difference, never a proof.
        let (code, out, _) = check(dir, a, b, "unrolled_bad", &["--max-time", "3"]);
        assert_eq!(code, 1, "{clang} unrolled_bad: {out}");
        assert!(!out.contains(FOR_ALL), "{clang} unrolled_bad: {out}");
        let machine = ["--max-time", "20", "--ub", "machine"];
        let (code, out, _) = check(dir, a, b, "strength_int", &machine);
        assert_eq!(code, 0, "{clang} strength_int --ub machine: {out}");
        assert!(
            out.contains(FOR_ALL),
            "{clang} strength_int --ub machine: {out}"
        );
    });
}

// See: #33. Each file against itself stays EQUIVALENT, by induction or by exploration.
#[test]
fn r33_each_loop_against_itself_is_equivalent() {
    each_o0(|dir, a, _, clang| {
        for f in [
            "strength",
            "countdown",
            "branchy",
            "near",
            "nonterm",
            "unrolled",
        ] {
            let (code, out, _) = check(dir, a, a, f, &["--max-time", "20"]);
            assert_eq!(code, 0, "{clang} {f} against itself: {out}");
        }
    });
}
