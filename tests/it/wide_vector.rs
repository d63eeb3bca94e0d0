//! Vectors wider than 128 bits (issue 14): the `<8 x i32>`, `<16 x i32>`, `<8 x float>`,
//! `<8 x double>` and `<8 x i64>` that clang-19's vectorizers make at plain `-O2` from
//! fixed-size loops, legalized lane by lane (`src/lower/wide_vector.rs`). Each function, end
//! to end through the binary, is proved equivalent to its own source at `-O0` and diverges
//! (confirmed) from a wrong variant; `wide_ops.ll`-style assembly covers what C does not make
//! directly (variable indices, shuffles joining halves, bitcasts to wide integers).

use crate::common::*;
use crate::llvm19::{assert_verdicts_with, body, check, clang19};
use std::path::Path;
use std::process::Command;

/// Asserts that `function` of `a` is proved equivalent to `reference` on paths that all
/// return (no error in both, which would hide the lanes), and diverges (confirmed on native
/// replay) from `wrong`; buffers have 128 bytes (the loops read up to 64).
fn assert_verdicts(dir: &Path, a: &Path, reference: &Path, wrong: &Path, function: &str) {
    assert_verdicts_with(dir, (a, reference, wrong), function, "128", true);
}

/// One function: a fragment its `-O2` IR must contain (the wide vector it is about), its
/// source, and a wrong variant.
struct Case {
    function: &'static str,
    construct: &'static str,
    source: &'static str,
    wrong: &'static str,
}

const PRELUDE: &str = "#include <stdint.h>\nstruct s8 { int v[8]; };\n";

const CASES: &[Case] = &[
    Case {
        function: "sum8",
        construct: "@llvm.vector.reduce.add.v8i32(<8 x i32>",
        source: "int sum8(const int *a) { int s = 0; for (int i = 0; i < 8; i++) s += a[i]; \
                 return s; }",
        wrong: "int sum8(const int *a) { int s = 0; for (int i = 0; i < 8; i++) s += a[i]; \
                return s + (a[6] == 77); }",
    },
    Case {
        function: "count16",
        construct: "<16 x i32>",
        source: "int count16(const int *a, int k) { int c = 0; \
                 for (int i = 0; i < 16; i++) c += a[i] == k; return c; }",
        wrong: "int count16(const int *a, int k) { int c = 0; \
                for (int i = 0; i < 15; i++) c += a[i] == k; return c; }",
    },
    Case {
        function: "byte_sum",
        construct: "<32 x i32>",
        source: "int byte_sum(const unsigned char *a) { int s = 0; \
                 for (int i = 0; i < 32; i++) s += a[i]; return s; }",
        wrong: "int byte_sum(const unsigned char *a) { int s = 0; \
                for (int i = 0; i < 32; i++) s += (signed char)a[i]; return s; }",
    },
    Case {
        function: "long_sum",
        construct: "<8 x i64>",
        source: "long long_sum(const long *a) { long s = 0; \
                 for (int i = 0; i < 8; i++) s += a[i]; return s; }",
        wrong: "long long_sum(const long *a) { long s = 0; \
                for (int i = 0; i < 8; i++) s += (int)a[i]; return s; }",
    },
    Case {
        function: "same8",
        construct: "<8 x i32>",
        source: "int same8(const struct s8 *a, const struct s8 *b) { int d = 0; \
                 for (int i = 0; i < 8; i++) d |= a->v[i] ^ b->v[i]; return d == 0; }",
        wrong: "int same8(const struct s8 *a, const struct s8 *b) { int d = 0; \
                for (int i = 0; i < 8; i++) d |= (a->v[i] ^ b->v[i]) & 0xffff; return d == 0; }",
    },
    Case {
        function: "above_half",
        construct: "fcmp ogt <8 x float>",
        source: "int above_half(const float *a) { int c = 0; \
                 for (int i = 0; i < 8; i++) c += a[i] > 0.5f; return c; }",
        wrong: "int above_half(const float *a) { int c = 0; \
                for (int i = 0; i < 8; i++) c += a[i] >= 0.5f; return c; }",
    },
    Case {
        function: "truncated_sum",
        construct: "fptosi <8 x float>",
        source: "int truncated_sum(const float *a) { int s = 0; \
                 for (int i = 0; i < 8; i++) s += (int)a[i]; return s; }",
        wrong: "int truncated_sum(const float *a) { int s = 0; \
                for (int i = 0; i < 8; i++) s += (int)(a[i] + 0.25f); return s; }",
    },
    Case {
        function: "doubled_sum",
        construct: "<8 x double>",
        source: "int doubled_sum(const double *a) { int s = 0; \
                 for (int i = 0; i < 8; i++) s += (int)(a[i] * 2.0); return s; }",
        wrong: "int doubled_sum(const double *a) { int s = 0; \
                for (int i = 0; i < 8; i++) s += (int)(a[i] + a[i] + 0.5); return s; }",
    },
    Case {
        function: "max8",
        construct: "@llvm.vector.reduce.smax.v8i32(<8 x i32>",
        source: "int max8(const int *a) { int m = a[0]; \
                 for (int i = 1; i < 8; i++) m = a[i] > m ? a[i] : m; return m; }",
        wrong: "int max8(const int *a) { int m = a[0]; \
                for (int i = 1; i < 8; i++) m = (unsigned)a[i] > (unsigned)m ? a[i] : m; \
                return m; }",
    },
];

#[test]
fn wide_vectors_from_plain_o2_are_checked_lane_by_lane() {
    let dir = tempfile::tempdir().unwrap();
    let join = |pick: fn(&Case) -> &'static str| {
        let mut text = PRELUDE.to_string();
        for case in CASES {
            text.push_str(pick(case));
            text.push('\n');
        }
        text
    };
    let (a, ll) = clang19(dir.path(), "opt", &join(|c| c.source), &["-O2"]);
    let plain = ["-O0", "-Xclang", "-disable-O0-optnone"];
    let (reference, _) = clang19(dir.path(), "ref", &join(|c| c.source), &plain);
    let (wrong, _) = clang19(dir.path(), "wrong", &join(|c| c.wrong), &plain);
    for case in CASES {
        assert!(
            body(&ll, case.function).contains(case.construct),
            "clang-19 -O2 no longer emits `{}` in {}:\n{}",
            case.construct,
            case.function,
            body(&ll, case.function)
        );
        assert_verdicts(dir.path(), &a, &reference, &wrong, case.function);
    }
}

/// What C at `-O2` does not make directly, in LLVM assembly: a shuffle joining two 128-bit
/// halves, `insertelement`/`extractelement` at a variable index, `bitcast` to lanes of
/// another width and to `i256`, a comparison whose `<8 x i1>` result selects, a per-lane
/// intrinsic, a `phi` of a wide vector in a loop, a wide load, `llvm.fabs` on lanes and
/// ordered `fadd` and `umax` reductions; and a call passing a wide vector (unsupported).
const ASSEMBLY: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i32 @pick(i32 %a, i32 %b, i32 %i) {
  %va = insertelement <4 x i32> <i32 1, i32 2, i32 3, i32 4>, i32 %a, i32 0
  %vb = insertelement <4 x i32> <i32 5, i32 6, i32 7, i32 8>, i32 %b, i32 3
  %v = shufflevector <4 x i32> %va, <4 x i32> %vb, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %j = and i32 %i, 7
  %w = insertelement <8 x i32> %v, i32 100, i32 %j
  %r = extractelement <8 x i32> %w, i32 %j
  %k = xor i32 %j, 7
  %s = extractelement <8 x i32> %w, i32 %k
  %t = add i32 %r, %s
  ret i32 %t
}
define i64 @halves(i64 %a, i64 %b, i64 %c, i64 %d) {
  %v0 = insertelement <4 x i64> poison, i64 %a, i32 0
  %v1 = insertelement <4 x i64> %v0, i64 %b, i32 1
  %v2 = insertelement <4 x i64> %v1, i64 %c, i32 2
  %v3 = insertelement <4 x i64> %v2, i64 %d, i32 3
  %w = bitcast <4 x i64> %v3 to <8 x i32>
  %x = extractelement <8 x i32> %w, i32 3
  %i = bitcast <4 x i64> %v3 to i256
  %sh = lshr i256 %i, 96
  %y = trunc i256 %sh to i64
  %z = zext i32 %x to i64
  %r = xor i64 %y, %z
  ret i64 %r
}
define i32 @lanes(i32 %a, i32 %b) {
entry:
  %va = insertelement <8 x i32> zeroinitializer, i32 %a, i32 5
  %vb = insertelement <8 x i32> <i32 9, i32 9, i32 9, i32 9, i32 9, i32 9, i32 9, i32 9>, i32 %b, i32 5
  %c = icmp ult <8 x i32> %va, %vb
  %m = select <8 x i1> %c, <8 x i32> %va, <8 x i32> %vb
  %p = call <8 x i32> @llvm.ctpop.v8i32(<8 x i32> %m)
  br label %loop
loop:
  %acc = phi <8 x i32> [ %p, %entry ], [ %n, %loop ]
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %n = add <8 x i32> %acc, %m
  %i1 = add i32 %i, 1
  %done = icmp eq i32 %i1, 2
  br i1 %done, label %exit, label %loop
exit:
  %r = call i32 @llvm.vector.reduce.umax.v8i32(<8 x i32> %n)
  ret i32 %r
}
define float @fdot(ptr %x) {
  %v = load <8 x float>, ptr %x, align 4
  %a = call <8 x float> @llvm.fabs.v8f32(<8 x float> %v)
  %r = call float @llvm.vector.reduce.fadd.v8f32(float 0.0, <8 x float> %a)
  ret float %r
}
declare <8 x i32> @llvm.ctpop.v8i32(<8 x i32>)
declare i32 @llvm.vector.reduce.umax.v8i32(<8 x i32>)
declare <8 x float> @llvm.fabs.v8f32(<8 x float>)
declare float @llvm.vector.reduce.fadd.v8f32(float, <8 x float>)
define i32 @ext(<8 x i32> %v) {
  %r = extractelement <8 x i32> %v, i32 0
  ret i32 %r
}
define i32 @callwide(i32 %a) {
  %v = insertelement <8 x i32> zeroinitializer, i32 %a, i32 0
  %r = call i32 @ext(<8 x i32> %v)
  ret i32 %r
}
"#;

const ASSEMBLY_REFERENCE: &str = r#"
#include <math.h>
#include <stdint.h>
int pick(int a, int b, int i) { int v[8] = {a, 2, 3, 4, 5, 6, 7, b}; int j = i & 7; v[j] = 100; return v[j] + v[j ^ 7]; }
int64_t halves(int64_t a, int64_t b, int64_t c, int64_t d) { uint64_t x = (uint64_t)b >> 32; uint64_t y = ((uint64_t)b >> 32) | ((uint64_t)c << 32); return (int64_t)(x ^ y); }
static unsigned pc(unsigned x) { return __builtin_popcount(x); }
int lanes(int a, int b) { unsigned m5 = (unsigned)a < (unsigned)b ? a : b; return pc(m5) + 2 * m5; }
float fdot(float *x) { float s = 0.0f; for (int i = 0; i < 8; i++) s += fabsf(x[i]); return s; }
int callwide(int a) { return a; }
"#;

const ASSEMBLY_WRONG: &str = r#"
#include <math.h>
#include <stdint.h>
int pick(int a, int b, int i) { int v[8] = {a, 2, 3, 4, 5, 6, 7, b}; int j = i & 7; v[j] = 100; return v[j] + v[j ^ 6]; }
int64_t halves(int64_t a, int64_t b, int64_t c, int64_t d) { uint64_t x = (uint64_t)b >> 32; uint64_t y = ((uint64_t)b >> 32) | ((uint64_t)c << 31); return (int64_t)(x ^ y); }
static unsigned pc(unsigned x) { return __builtin_popcount(x); }
int lanes(int a, int b) { unsigned m5 = (unsigned)a < (unsigned)b ? a : b; return pc(m5) + 2 * m5 + (b == 3); }
float fdot(float *x) { float s = 0.0f; for (int i = 0; i < 8; i++) s += i == 7 ? x[i] : fabsf(x[i]); return s; }
int callwide(int a) { return a; }
"#;

#[test]
fn wide_vector_assembly_is_checked_lane_by_lane() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("asm.ll");
    std::fs::write(&ll, ASSEMBLY).unwrap();
    let a = dir.path().join("asm.bc");
    let status = Command::new("llvm-as-19")
        .arg(&ll)
        .arg("-o")
        .arg(&a)
        .status()
        .expect("llvm-as-19 runs");
    assert!(status.success(), "llvm-as-19 failed");
    let plain = ["-O0", "-Xclang", "-disable-O0-optnone"];
    let (reference, _) = clang19(dir.path(), "ref", ASSEMBLY_REFERENCE, &plain);
    let (wrong, _) = clang19(dir.path(), "wrong", ASSEMBLY_WRONG, &plain);
    for function in ["pick", "halves", "lanes", "fdot"] {
        assert_verdicts(dir.path(), &a, &reference, &wrong, function);
    }
    // A wide vector passed to a call stops the path, named.
    let (_, out) = check(dir.path(), &a, &reference, "callwide", "128");
    let report = std::fs::read_to_string(dir.path().join("xcheck-out/report.json")).unwrap();
    assert!(
        out.contains("INCONCLUSIVE")
            && report
                .contains("unsupported: call passing or returning <8 x i32> (wider than 128 bits)"),
        "callwide: {out}"
    );
}

/// `set_b` of `tests/fixtures/wide_b.c` is vectorized into `<4 x i128>` at `-O2`
/// (`wide.rs` proves it at -O0 and -O2 without turning the vectorizers off).
#[test]
fn wide_b_set_b_is_a_wide_vector_at_o2() {
    let dir = tempfile::tempdir().unwrap();
    let bc = compile_fixture("wide_b.c", dir.path(), "-O2");
    let o = Command::new(xcheck::toolchain::LLVM_DIS)
        .arg(&bc)
        .arg("-o")
        .arg("-")
        .output()
        .expect("llvm-dis runs");
    let ll = String::from_utf8_lossy(&o.stdout);
    assert!(
        body(&ll, "set_b").contains("<4 x i128>"),
        "set_b is no longer vectorized:\n{}",
        body(&ll, "set_b")
    );
}
