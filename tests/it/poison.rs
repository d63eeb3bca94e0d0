//! Values the language leaves undefined are undefined behaviour, reported and never given
//! a convenient value (`// See: #30`): the result of an operation whose poison-producing
//! flag fails (`nsw`, `nuw`, `exact`, `disjoint`), `undef` and `poison` constants, and
//! loads of memory never written. A pair that differs only through such a value is
//! inconclusive naming it; a file against itself stays equivalent (both sides have the
//! undefined behaviour); `--ub machine` gives x86-64's value (wrapped, zero) instead.

use crate::trust::{build, check, differs_only_natively, each_build};

// See: #30. `a + b` at -O0 and -O2 is `add nsw`: on overflow, the result is poison, which
// the unsigned (wrapping) side defines. So is `a * 3` (`mul nsw`).
#[test]
fn r30_signed_overflow_is_reported_never_wrapped() {
    each_build("r30_poison_a.c", "r30_poison_b.c", |dir, a, b, build| {
        for (f, what) in [
            ("add", "signed overflow in add (nsw) at r30_poison_a.c:3"),
            ("scale", "signed overflow in mul (nsw) at r30_poison_a.c:4"),
        ] {
            let (code, out, report) = check(dir, a, b, f, &[]);
            assert_eq!(code, 3, "{build} {f}: {out}");
            assert!(
                report.contains(&format!("undefined behaviour: A: {what}")),
                "{build} {f}: {report}"
            );
            assert!(
                !report.contains("B: signed"),
                "{build} {f}: B named: {report}"
            );
            let (code, out, report) = check(dir, a, a, f, &[]);
            assert_eq!(code, 0, "{build} {f} against itself: {out}");
            assert!(
                report.contains("both sides have undefined behaviour"),
                "{build} {f} against itself: {report}"
            );
            let (code, out, _) = check(dir, a, b, f, &["--ub", "machine"]);
            assert_eq!(code, 0, "{build} {f} --ub machine: {out}");
        }
    });
}

// See: #30. One side's undefined behaviour is a difference only where the machine shows
// one: the test of such a row runs on native executables of the pair. `x + 1 < x` (-O0)
// wraps natively and differs from B's 0 at INT_MAX; A's `a + b` wraps natively to B's
// unsigned sum, which stays undecided; -O2 folds the comparison to false.
#[test]
fn r30_one_sides_undefined_behaviour_differs_where_native_runs_show_it() {
    each_build("r30_poison_a.c", "r30_poison_b.c", |dir, a, b, build| {
        let (code, out, report) = check(dir, a, b, "wraps", &[]);
        if build.ends_with("-O2") {
            assert_eq!(code, 0, "{build} wraps: {out}");
        } else {
            assert_eq!(code, 1, "{build} wraps: {out}");
            let what = "undefined behaviour: A: signed overflow in add (nsw) at \
                        r30_poison_a.c:30; the native executables differ on these inputs";
            assert!(report.contains(what), "{build} wraps: {report}");
            let compact: String = report.split_whitespace().collect();
            assert!(
                compact.contains("\"confirmed\":true,\"native\":true"),
                "{build} wraps: {report}"
            );
            assert!(
                out.contains("run natively, 1 differ (counted as differences), 0 agree"),
                "{build} wraps: {out}"
            );
        }
        let (code, out, _) = check(dir, a, a, "wraps", &[]);
        assert_eq!(code, 0, "{build} wraps against itself: {out}");
        let (code, out, _) = check(dir, a, b, "add", &[]);
        assert_eq!(code, 3, "{build} add: {out}");
        assert!(
            out.contains("run natively, 0 differ (counted as differences), 1 agree (unknown)"),
            "{build} add: {out}"
        );
    });
}

// See: #30. `int x; if (c) x = 1; return x;` reads an uninitialised local when `c` is 0
// (at -O0; at -O2 clang gives `x` a value of its choosing, 1, which differs).
#[test]
fn r30_uninitialised_reads_are_reported_never_zero() {
    each_build("r30_poison_a.c", "r30_poison_b.c", |dir, a, b, build| {
        let (code, out, report) = check(dir, a, b, "maybe", &[]);
        if build.ends_with("-O2") {
            assert_eq!(code, 1, "{build} maybe: {out}");
            return;
        }
        differs_only_natively(code, &out, &format!("{build} maybe"));
        // The alloca has no line of its own at -O0: it is named by its function.
        let what = "undefined behaviour: A: read of uninitialised memory (alloca at maybe()) \
                    at r30_poison_a.c:9";
        assert!(report.contains(what), "{build} maybe: {report}");
        let (code, out, _) = check(dir, a, a, "maybe", &[]);
        assert_eq!(code, 0, "{build} maybe against itself: {out}");
        let (code, out, _) = check(dir, a, b, "maybe", &["--ub", "machine"]);
        assert_eq!(code, 0, "{build} maybe --ub machine: {out}");
    });
}

// See: #30. A `ret` of `poison`, a phi with an `undef` incoming value and a `freeze` of
// `poison` (one arbitrary value, not zero), written as IR (clang folds them away from C);
// a poison operand that is in the results' structure but not their value where they
// differ leaves a real difference.
#[test]
fn r30_undef_and_poison_constants_are_reported_never_zero() {
    for clang in [xcheck::toolchain::CLANG, "clang-14"] {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let a = build(clang, "r30_poison_a.ll", dir, "-O0");
        let b = build(clang, "r30_poison_b.ll", dir, "-O0");
        // Under --ub machine, the constant is 0: `retp` then differs at x = 7, `phiu` agrees.
        for (f, what, machine) in [
            ("retp", "poison constant at retp()", 1),
            ("phiu", "undef constant at phiu()", 0),
            ("frz", "frozen undef or poison (any value) at frz()", 0),
        ] {
            // Natively the poison is whatever the register held: a difference where the
            // executables show one, else undecided.
            let (code, out, report) = check(dir, &a, &b, f, &[]);
            differs_only_natively(code, &out, &format!("{clang} {f}"));
            assert!(
                report.contains(&format!("undefined behaviour: A: {what}")),
                "{clang} {f}: {report}"
            );
            let (code, out, _) = check(dir, &a, &a, f, &[]);
            assert_eq!(code, 0, "{clang} {f} against itself: {out}");
            let (code, out, _) = check(dir, &a, &b, f, &["--ub", "machine"]);
            assert_eq!(code, machine, "{clang} {f} --ub machine: {out}");
        }
        let (code, out, report) = check(dir, &a, &b, "unread", &[]);
        assert_eq!(code, 1, "{clang} unread: {out}");
        let compact: String = report.split_whitespace().collect();
        assert!(
            compact.contains("\"confirmed\":true"),
            "{clang} unread: {report}"
        );
        let (code, out, _) = check(dir, &a, &a, "unread", &[]);
        assert_eq!(code, 0, "{clang} unread against itself: {out}");
    }
}

// See: #30. Poison-producing flags are weighed where a path ends, not where they run
// (`crosscheck/poison.rs`): an addition -O2 computes before a select that drops it is no
// finding where it is dropped; an overflow inside a sum the expression pool keeps as one
// canonical sum is still read; a branch on an overflowed value (-O0) is undefined
// behaviour whatever the results, while -O2, which folded the test, differs natively.
#[test]
fn r30_poison_is_weighed_where_it_is_read() {
    each_build("r30_poison_a.c", "r30_poison_b.c", |dir, a, b, build| {
        let assume = ["--assume", "x < 100 || c == 0"];
        let (code, out, _) = check(dir, a, b, "sel", &assume);
        assert_eq!(code, 0, "{build} sel, overflow only where dropped: {out}");
        for f in ["sel", "sum3"] {
            let (code, out, report) = check(dir, a, b, f, &[]);
            assert_eq!(code, 3, "{build} {f}: {out}");
            // (clang-19 -O2 also says the result is never INT_MIN, `range`, which the
            // overflow breaks too.)
            assert!(
                report.contains("undefined behaviour: A: ")
                    && report.contains("A: signed overflow in add (nsw)"),
                "{build} {f}: {report}"
            );
        }
        let (code, out, report) = check(dir, a, b, "grows", &[]);
        if build.ends_with("-O2") {
            assert_eq!(code, 1, "{build} grows: {out}");
        } else {
            assert_eq!(code, 3, "{build} grows: {out}");
            assert!(
                report.contains("the path is taken only through the value it gives"),
                "{build} grows: {report}"
            );
        }
        for f in ["sel", "sum3", "grows"] {
            let (code, out, _) = check(dir, a, a, f, &[]);
            assert_eq!(code, 0, "{build} {f} against itself: {out}");
        }
    });
}

// See: #30. `zext nneg` (LLVM 18 on: clang-19's bitcode) of a negative value is poison:
// against a sign extension, which agrees where the operand is not negative, the pair
// differs where the native executables show it (they zero-extend); under --ub machine
// `zext` and `sext` differ at negative x. So for `trunc nuw`/`nsw` and `uitofp nneg`.
#[test]
fn r30_zext_nneg_of_a_negative_value_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let a = build(xcheck::toolchain::CLANG, "r30_nneg_a.ll", dir, "-O0");
    let b = build(xcheck::toolchain::CLANG, "r30_nneg_b.ll", dir, "-O0");
    // Natively `zext` gives 2^31 where B's `sext` gives -2^31: the machine shows the
    // difference.
    let (code, out, report) = check(dir, &a, &b, "nneg", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        report.contains(
            "undefined behaviour: A: zext of a negative value (nneg) at nneg(); the native \
             executables differ on these inputs"
        ),
        "{report}"
    );
    let (code, out, _) = check(dir, &a, &a, "nneg", &[]);
    assert_eq!(code, 0, "against itself: {out}");
    let (code, out, _) = check(dir, &a, &b, "nneg", &["--ub", "machine"]);
    assert_eq!(code, 1, "--ub machine: {out}");
    // `trunc nuw`/`nsw` and `uitofp nneg` (LLVM 19 on): the flags' failures are named; the
    // executables truncate alike and convert `uitofp nneg` as signed, so nothing differs
    // natively and the rows stay undecided; under --ub machine only the conversion differs.
    for (f, what, machine) in [
        (
            "trnuw",
            "trunc changing an unsigned value (nuw) at trnuw()",
            0,
        ),
        ("trnsw", "trunc changing a signed value (nsw) at trnsw()", 0),
        ("uif", "uitofp of a negative value (nneg) at uif()", 1),
    ] {
        let (code, out, report) = check(dir, &a, &b, f, &[]);
        assert_eq!(code, 3, "{f}: {out}");
        assert!(
            report.contains(&format!("undefined behaviour: A: {what}")),
            "{f}: {report}"
        );
        assert!(
            out.contains("0 differ (counted as differences), 1 agree"),
            "{f}: {out}"
        );
        let (code, out, _) = check(dir, &a, &a, f, &[]);
        assert_eq!(code, 0, "{f} against itself: {out}");
        let (code, out, _) = check(dir, &a, &b, f, &["--ub", "machine"]);
        assert_eq!(code, machine, "{f} --ub machine: {out}");
    }
}

// See: #30. A read at a symbolic index that may land on never-written bytes of a local
// array is undefined behaviour where it does (it read zero before, and the pair against a
// zero-initialised array was equivalent while natively it reads stack garbage).
#[test]
fn r30_uninitialised_reads_at_a_symbolic_index_are_reported() {
    each_build("r30_poison_a.c", "r30_poison_b.c", |dir, a, b, build| {
        // `pickbig`'s array has 396 bytes never written, in one run.
        for f in ["pick", "pickbig"] {
            let (code, out, report) = check(dir, a, b, f, &[]);
            differs_only_natively(code, &out, &format!("{build} {f}"));
            assert!(
                report.contains("undefined behaviour: A: read of uninitialised memory"),
                "{build} {f}: {report}"
            );
            let (code, out, _) = check(dir, a, a, f, &[]);
            assert_eq!(code, 0, "{build} {f} against itself: {out}");
            let (code, out, _) = check(dir, a, b, f, &["--ub", "machine"]);
            assert_eq!(code, 0, "{build} {f} --ub machine: {out}");
        }
    });
}

// See: #30. A value outside the range LLVM gave it is poison: a load's `!range` (every
// load of a `_Bool` clang optimizes) and a return value's `range` attribute (LLVM 19). A
// `_Bool` holding 2 reads as 0 at -O0 (its low bit) and as 2 at -O2: the optimized side's
// undefined behaviour, which the native executables show; a return value outside its
// range, which they do not.
#[test]
fn r30_values_outside_their_ranges_are_undefined() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let a = build(xcheck::toolchain::CLANG, "r30_range_a.ll", dir, "-O0");
    let b = build(xcheck::toolchain::CLANG, "r30_range_b.ll", dir, "-O0");
    for (f, what, code_ab, machine) in [
        ("ldb", "A: load outside its range [0, 2)", 1, 1),
        ("rr", "A: return value outside its range attribute", 3, 0),
    ] {
        let (code, out, report) = check(dir, &a, &b, f, &[]);
        assert_eq!(code, code_ab, "{f}: {out}");
        assert!(
            report.contains(&format!("undefined behaviour: {what}")),
            "{f}: {report}"
        );
        let (code, out, _) = check(dir, &a, &a, f, &[]);
        assert_eq!(code, 0, "{f} against itself: {out}");
        let (code, out, _) = check(dir, &a, &b, f, &["--ub", "machine"]);
        assert_eq!(code, machine, "{f} --ub machine: {out}");
    }
    for clang in [xcheck::toolchain::CLANG, "clang-14"] {
        let o0 = build(clang, "r30_poison_a.c", dir, "-O0");
        let o2 = build(clang, "r30_poison_b.c", dir, "-O2");
        let (code, out, report) = check(dir, &o0, &o2, "getb", &[]);
        assert_eq!(code, 1, "{clang} getb -O0 against -O2: {out}");
        assert!(
            report.contains("undefined behaviour: B: load outside its range [0, 2)"),
            "{clang} getb: {report}"
        );
        assert!(out.contains("(confirmed natively)"), "{clang} getb: {out}");
        let (code, out, _) = check(dir, &o2, &o2, "getb", &[]);
        assert_eq!(code, 0, "{clang} getb -O2 against itself: {out}");
    }
}

// See: #30. `fptosi`/`fptoui` of a NaN or of a value the integer cannot hold is poison,
// never x86-64's integer indefinite: against a side that gives that value by itself the
// pair is undecided (the executables agree); against one that gives 0 for a negative
// float, the executables differ. A speculated conversion -O2 selects away is no finding.
#[test]
fn r30_float_conversions_out_of_range_are_undefined() {
    each_build("r30_conv_a.c", "r30_conv_b.c", |dir, a, b, build| {
        let (code, out, report) = check(dir, a, b, "toint", &[]);
        assert_eq!(code, 3, "{build} toint: {out}");
        assert!(
            report.contains("undefined behaviour: A: fptosi of a value out of range"),
            "{build} toint: {report}"
        );
        assert!(!report.contains("B: fptosi"), "{build} toint: {report}");
        let (code, out, report) = check(dir, a, b, "touns", &[]);
        differs_only_natively(code, &out, &format!("{build} touns"));
        assert!(
            report.contains("undefined behaviour: A: fptoui of a value out of range"),
            "{build} touns: {report}"
        );
        for (f, machine) in [("toint", 0), ("touns", 1)] {
            let (code, out, _) = check(dir, a, a, f, &[]);
            assert_eq!(code, 0, "{build} {f} against itself: {out}");
            let (code, out, _) = check(dir, a, b, f, &["--ub", "machine"]);
            assert_eq!(code, machine, "{build} {f} --ub machine: {out}");
        }
    });
}
