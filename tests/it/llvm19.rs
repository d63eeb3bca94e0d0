//! What LLVM 15 to 19 added to the IR that clang-19 emits at -O2 (issue 14): flags
//! (`nneg`, `disjoint`, `trunc nuw nsw`), `llvm.assume` with an operand bundle,
//! `llvm.is.fpclass`, `llvm.ptrmask`, `llvm.threadlocal.address`, `memset`/`memcpy.inline`,
//! integer intrinsics on scalars and vectors, `llvm.vector.reduce.*` (ordered `fadd`/`fmul`
//! too), `llvm.vector.reverse` and `llvm.scmp`/`ucmp`. Each construct, end to end through the
//! binary, is proved equivalent to a plain reference and diverges (confirmed) from a wrong
//! variant.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One construct: the function, a fragment its optimized IR must contain (so that the test
/// checks the construct and not something clang happened to emit instead), and the
/// function's optimized source, plain reference and wrong variant.
struct Case {
    function: &'static str,
    construct: &'static str,
    optimized: &'static str,
    reference: &'static str,
    wrong: &'static str,
}

const PRELUDE: &str = "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n\
     struct s16 { char b[16]; };\nstruct v4 { int v[4]; };\nstruct v8 { int v[8]; };\n\
     _Thread_local int counter;\n\
     static inline uint64_t bits(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }\n\
     static inline uint32_t fbits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }\n";

const CASES: &[Case] = &[
    Case {
        function: "fpc_snan",
        construct: "@llvm.is.fpclass.f64(double %0, i32 1)",
        optimized: "int fpc_snan(double x) { return __builtin_isfpclass(x, 1); }",
        reference: "int fpc_snan(double x) { uint64_t m = bits(x) << 1; \
                    return m > (0x7ffull << 53) && !(m & (1ull << 52)); }",
        wrong: "int fpc_snan(double x) { return x != x; }",
    },
    Case {
        function: "fpc_qnan",
        construct: "@llvm.is.fpclass.f64(double %0, i32 2)",
        optimized: "int fpc_qnan(double x) { return __builtin_isfpclass(x, 2); }",
        reference: "int fpc_qnan(double x) { uint64_t m = bits(x) << 1; \
                    return m > (0x7ffull << 53) && (m & (1ull << 52)); }",
        wrong: "int fpc_qnan(double x) { return x != x; }",
    },
    Case {
        function: "fpc_neg",
        construct: "@llvm.is.fpclass.f32(float %0, i32 60)",
        optimized: "int fpc_neg(float x) { return __builtin_isfpclass(x, 0x3c); }",
        reference: "int fpc_neg(float x) { uint32_t u = fbits(x); \
                    return (u >> 31) && (u << 1) <= (0xffu << 24); }",
        wrong: "int fpc_neg(float x) { return x < 0; }",
    },
    Case {
        function: "fpc_nonneg_finite",
        construct: "@llvm.is.fpclass.f64(double %0, i32 448)",
        optimized: "int fpc_nonneg_finite(double x) { return __builtin_isfpclass(x, 0x1c0); }",
        reference: "int fpc_nonneg_finite(double x) { uint64_t u = bits(x); \
                    return !(u >> 63) && u < (0x7ffull << 52); }",
        wrong: "int fpc_nonneg_finite(double x) { return x >= 0 && x < INFINITY; }",
    },
    Case {
        function: "is_normal",
        construct: "@llvm.is.fpclass.f64",
        optimized: "int is_normal(double x) { return isnormal(x); }",
        reference: "int is_normal(double x) { uint64_t e = (bits(x) >> 52) & 0x7ff; \
                    return e != 0 && e != 0x7ff; }",
        wrong: "int is_normal(double x) { uint64_t e = (bits(x) >> 52) & 0x7ff; \
                return e != 0x7ff; }",
    },
    Case {
        function: "align_down",
        construct: "@llvm.ptrmask.p0.i64",
        optimized: "char *align_down(char *p, int i) \
                    { return __builtin_align_down(p + (i & 15), 16); }",
        reference: "char *align_down(char *p, int i) \
                    { char *q = p + (i & 15); return q - ((uintptr_t)q & 15); }",
        wrong: "char *align_down(char *p, int i) \
                { char *q = p + (i & 15); return q - ((uintptr_t)q & 7); }",
    },
    Case {
        function: "tls",
        construct: "@llvm.threadlocal.address.p0",
        optimized: "int tls(int x) { counter += x; return counter; }",
        reference: "int tls(int x) { int c = counter; counter = c + x; return c + x; }",
        wrong: "int tls(int x) { counter += x; return counter + (x == 5); }",
    },
    Case {
        function: "set_inline",
        construct: "@llvm.memset.inline.p0.i64",
        optimized: "void set_inline(struct s16 *p) { __builtin_memset_inline(p->b, 0, 16); }",
        reference: "void set_inline(struct s16 *p) { for (int i = 0; i < 16; i++) p->b[i] = 0; }",
        wrong: "void set_inline(struct s16 *p) { for (int i = 0; i < 15; i++) p->b[i] = 0; }",
    },
    Case {
        function: "copy_inline",
        construct: "@llvm.memcpy.inline.p0.p0.i64",
        optimized: "void copy_inline(struct s16 *p, const struct s16 *q) \
                    { __builtin_memcpy_inline(p->b, q->b, 16); }",
        reference: "void copy_inline(struct s16 *p, const struct s16 *q) \
                    { for (int i = 0; i < 16; i++) p->b[i] = q->b[i]; }",
        wrong: "void copy_inline(struct s16 *p, const struct s16 *q) \
                { for (int i = 1; i < 16; i++) p->b[i] = q->b[i]; }",
    },
    Case {
        function: "assume_bundle",
        construct: "@llvm.assume(i1 true) [ \"align\"(ptr %0, i64 16) ]",
        optimized: "int assume_bundle(struct s16 *p) \
                    { char *q = __builtin_assume_aligned(p->b, 16); return q[0] + q[15]; }",
        reference: "int assume_bundle(struct s16 *p) { return p->b[15] + p->b[0]; }",
        wrong: "int assume_bundle(struct s16 *p) { return p->b[14] + p->b[0]; }",
    },
    Case {
        function: "zext_nneg",
        construct: "zext nneg",
        optimized: "long zext_nneg(int i) { if (i < 0) return 0; \
                    return (long)(unsigned long)(unsigned)i * 3; }",
        reference: "long zext_nneg(int i) { if (i < 0) return 0; return (long)i * 3; }",
        wrong: "long zext_nneg(int i) { if (i < 0) return 0; return (long)(i * 3); }",
    },
    Case {
        function: "or_disjoint",
        construct: "or disjoint",
        optimized: "int or_disjoint(int a) { return (a << 4) | 3; }",
        reference: "int or_disjoint(int a) { return (int)((unsigned)a * 16 + 3); }",
        wrong: "int or_disjoint(int a) { return (int)((unsigned)a * 16 + 3) & 0x7fffffff; }",
    },
    Case {
        function: "vector_abs",
        construct: "@llvm.abs.v4i32",
        optimized: "void vector_abs(struct v8 *a) \
                    { for (int i = 0; i < 8; i++) a->v[i] = a->v[i] < 0 ? -a->v[i] : a->v[i]; }",
        reference: "void vector_abs(struct v8 *a) \
                    { for (int i = 0; i < 8; i++) if (a->v[i] < 0) a->v[i] = -(unsigned)a->v[i]; }",
        wrong: "void vector_abs(struct v8 *a) \
                { for (int i = 0; i < 7; i++) if (a->v[i] < 0) a->v[i] = -(unsigned)a->v[i]; }",
    },
    Case {
        function: "vector_clz",
        construct: "@llvm.ctlz.v4i32(<4 x i32> %3, i1 true)",
        optimized: "void vector_clz(struct v8 *a) \
                    { for (int i = 0; i < 8; i++) a->v[i] = __builtin_clz(a->v[i] | 1); }",
        reference: "void vector_clz(struct v8 *a) { for (int i = 0; i < 8; i++) \
                    { unsigned x = a->v[i] | 1; a->v[i] = __builtin_clz(x); } }",
        wrong: "void vector_clz(struct v8 *a) { for (int i = 0; i < 8; i++) \
                { unsigned x = a->v[i] | 1; a->v[i] = __builtin_ctz(x); } }",
    },
    Case {
        function: "reduce_add",
        construct: "@llvm.vector.reduce.add.v4i32",
        optimized: "int reduce_add(const struct v4 *a) \
                    { int s = 0; for (int i = 0; i < 4; i++) s += a->v[i]; return s; }",
        reference: "int reduce_add(const struct v4 *a) { unsigned s = 0; \
                    for (int i = 3; i >= 0; i--) s += (unsigned)a->v[i]; return (int)s; }",
        wrong: "int reduce_add(const struct v4 *a) { unsigned s = 0; \
                for (int i = 3; i >= 0; i--) s += (unsigned)a->v[i] & ~1u; return (int)s; }",
    },
    Case {
        function: "reduce_xor",
        construct: "@llvm.vector.reduce.xor.v4i32",
        optimized: "int reduce_xor(const struct v4 *a) \
                    { int s = 0; for (int i = 0; i < 4; i++) s ^= a->v[i]; return s; }",
        reference: "int reduce_xor(const struct v4 *a) \
                    { return (a->v[0] ^ a->v[2]) ^ (a->v[1] ^ a->v[3]); }",
        wrong: "int reduce_xor(const struct v4 *a) \
                { return (a->v[0] | a->v[2]) ^ (a->v[1] ^ a->v[3]); }",
    },
    Case {
        function: "reduce_and",
        construct: "@llvm.vector.reduce.and.v4i32",
        optimized: "int reduce_and(const struct v4 *a) \
                    { int s = -1; for (int i = 0; i < 4; i++) s &= a->v[i]; return s; }",
        reference: "int reduce_and(const struct v4 *a) \
                    { return a->v[3] & a->v[2] & a->v[1] & a->v[0]; }",
        wrong: "int reduce_and(const struct v4 *a) { return a->v[3] & a->v[2] & a->v[1]; }",
    },
    Case {
        function: "reduce_popcount",
        construct: "@llvm.ctpop.v4i32",
        optimized: "int reduce_popcount(const struct v4 *a) { int s = 0; \
                    for (int i = 0; i < 4; i++) s += __builtin_popcount(a->v[i]); return s; }",
        reference: "int reduce_popcount(const struct v4 *a) { int s = 0; \
                    for (int i = 0; i < 4; i++) s += __builtin_popcount(a->v[i]); return s; }",
        wrong: "int reduce_popcount(const struct v4 *a) { int s = 0; \
                for (int i = 0; i < 4; i++) s += __builtin_popcount(a->v[i] & 0x7fffffff); \
                return s; }",
    },
];

/// Compiles C `text` with clang-19 to `dir/name.bc` with `flags`, and returns the bitcode and
/// its disassembly.
pub(crate) fn clang19(dir: &Path, name: &str, text: &str, flags: &[&str]) -> (PathBuf, String) {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, text).unwrap();
    let bc = dir.join(format!("{name}.bc"));
    let status = Command::new("clang-19")
        .args([
            "-c",
            "-emit-llvm",
            "-g",
            "-w",
            "-target",
            "x86_64-unknown-linux-gnu",
        ])
        .args(flags)
        .arg(&src)
        .arg("-o")
        .arg(&bc)
        .status()
        .expect("clang-19 runs (scripts/install.sh installs it)");
    assert!(status.success(), "clang-19 failed on {name}.c");
    (bc.clone(), disassemble(&bc))
}

fn disassemble(bc: &Path) -> String {
    let o = Command::new("llvm-dis-19")
        .arg(bc)
        .arg("-o")
        .arg("-")
        .output()
        .expect("llvm-dis-19 runs");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The text of function `f`'s definition in disassembly `ll`.
pub(crate) fn body<'t>(ll: &'t str, f: &str) -> &'t str {
    let start = ll
        .find(&format!(" @{f}("))
        .unwrap_or_else(|| panic!("no function {f} in the optimized IR"));
    let end = ll[start..].find("\n}").map_or(ll.len(), |e| start + e);
    &ll[start..end]
}

/// Checks `a` against `b` on `function` with buffers of `buffer` bytes; returns the exit code
/// and the output.
pub(crate) fn check(
    dir: &Path,
    a: &Path,
    b: &Path,
    function: &str,
    buffer: &str,
) -> (Option<i32>, String) {
    let o = xcheck(
        dir,
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            function,
            "--buffer-size",
            buffer,
            // The constructs, not undefined behaviour (`poison.rs`): `counter++` at -O2 is
            // `add nsw`, which only one side of a pair may carry.
            "--ub",
            "machine",
        ],
    );
    (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
}

/// Asserts that `function` of `a` is proved equivalent to `reference` and diverges (confirmed
/// on native replay of the input) from `wrong`, with buffers of `buffer` bytes; `all_return`:
/// and that no path of the proof errs on both sides (which would hide what it is about).
pub(crate) fn assert_verdicts_with(
    dir: &Path,
    (a, reference, wrong): (&Path, &Path, &Path),
    function: &str,
    buffer: &str,
    all_return: bool,
) {
    let (code, out) = check(dir, a, reference, function, buffer);
    assert!(
        code == Some(0)
            && out.contains("EQUIVALENT")
            && (!all_return || out.contains("errors in both 0,")),
        "{function} against its reference: {out}"
    );
    let (code, out) = check(dir, a, wrong, function, buffer);
    assert!(
        code == Some(1) && out.contains("DIVERGED") && out.contains("(confirmed)"),
        "{function} against its wrong variant: {out}"
    );
}

/// [`assert_verdicts_with`] with buffers of 32 bytes.
fn assert_verdicts(dir: &Path, a: &Path, reference: &Path, wrong: &Path, function: &str) {
    assert_verdicts_with(dir, (a, reference, wrong), function, "32", false);
}

#[test]
fn constructs_clang19_emits_at_o2_are_checked_exactly() {
    let dir = tempfile::tempdir().unwrap();
    // Plain -O2: the vectorizers run, as they do for users.
    let (a, ll) = clang19(dir.path(), "opt", &joined(|c| c.optimized), &["-O2"]);
    let plain = ["-O0", "-Xclang", "-disable-O0-optnone"];
    let (reference, _) = clang19(dir.path(), "ref", &joined(|c| c.reference), &plain);
    let (wrong, _) = clang19(dir.path(), "wrong", &joined(|c| c.wrong), &plain);
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

/// Constructs clang-19 does not emit from C, written as LLVM assembly: `llvm.scmp`/`ucmp` (new
/// in LLVM 19) on scalars and vectors, ordered `llvm.vector.reduce.fadd`/`fmul` with a start
/// value, `llvm.is.fpclass` on a vector, `llvm.vector.reverse`, and `trunc nuw nsw` (new in 19), `zext nneg`,
/// `or disjoint` and `freeze` together.
const ASSEMBLY: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i8 @scmp(i32 %a, i32 %b) {
  %r = call i8 @llvm.scmp.i8.i32(i32 %a, i32 %b)
  ret i8 %r
}
define i32 @ucmp(i32 %a, i32 %b) {
  %r = call i32 @llvm.ucmp.i32.i32(i32 %a, i32 %b)
  ret i32 %r
}
define i32 @vscmp(i32 %a, i32 %b) {
  %va = insertelement <4 x i32> zeroinitializer, i32 %a, i32 1
  %vb = insertelement <4 x i32> zeroinitializer, i32 %b, i32 1
  %c = call <4 x i32> @llvm.scmp.v4i32.v4i32(<4 x i32> %va, <4 x i32> %vb)
  %r = extractelement <4 x i32> %c, i32 1
  ret i32 %r
}
define float @fsum(float %s, float %a, float %b, float %c, float %d) {
  %v0 = insertelement <4 x float> poison, float %a, i32 0
  %v1 = insertelement <4 x float> %v0, float %b, i32 1
  %v2 = insertelement <4 x float> %v1, float %c, i32 2
  %v3 = insertelement <4 x float> %v2, float %d, i32 3
  %r = call float @llvm.vector.reduce.fadd.v4f32(float %s, <4 x float> %v3)
  ret float %r
}
define double @fprod(double %s, double %a, double %b) {
  %v0 = insertelement <2 x double> poison, double %a, i32 0
  %v1 = insertelement <2 x double> %v0, double %b, i32 1
  %r = call double @llvm.vector.reduce.fmul.v2f64(double %s, <2 x double> %v1)
  ret double %r
}
define float @fsum_reassoc(float %s, float %a, float %b, float %c, float %d) {
  %v0 = insertelement <4 x float> poison, float %a, i32 0
  %v1 = insertelement <4 x float> %v0, float %b, i32 1
  %v2 = insertelement <4 x float> %v1, float %c, i32 2
  %v3 = insertelement <4 x float> %v2, float %d, i32 3
  %r = call reassoc float @llvm.vector.reduce.fadd.v4f32(float %s, <4 x float> %v3)
  ret float %r
}
define i1 @vclass(double %a, double %b) {
  %v0 = insertelement <2 x double> poison, double %a, i32 0
  %v1 = insertelement <2 x double> %v0, double %b, i32 1
  %c = call <2 x i1> @llvm.is.fpclass.v2f64(<2 x double> %v1, i32 516)
  %x = extractelement <2 x i1> %c, i32 0
  %y = extractelement <2 x i1> %c, i32 1
  %r = and i1 %x, %y
  ret i1 %r
}
define i16 @flags(i32 %x, i8 %y) {
  %m = and i32 %x, 1023
  %t = trunc nuw nsw i32 %m to i16
  %z = zext nneg i8 %y to i16
  %s = shl i16 %t, 4
  %o = or disjoint i16 %s, 3
  %f = freeze i16 %o
  %r = add nuw i16 %f, %z
  ret i16 %r
}
define i32 @vrev(i32 %a, i32 %b) {
  %v0 = insertelement <4 x i32> zeroinitializer, i32 %a, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %b, i32 1
  %r = call <4 x i32> @llvm.vector.reverse.v4i32(<4 x i32> %v1)
  %x = extractelement <4 x i32> %r, i32 3
  %y = extractelement <4 x i32> %r, i32 2
  %s = shl i32 %x, 1
  %t = sub i32 %s, %y
  ret i32 %t
}
declare <4 x i32> @llvm.vector.reverse.v4i32(<4 x i32>)
declare i8 @llvm.scmp.i8.i32(i32, i32)
declare i32 @llvm.ucmp.i32.i32(i32, i32)
declare <4 x i32> @llvm.scmp.v4i32.v4i32(<4 x i32>, <4 x i32>)
declare float @llvm.vector.reduce.fadd.v4f32(float, <4 x float>)
declare double @llvm.vector.reduce.fmul.v2f64(double, <2 x double>)
declare <2 x i1> @llvm.is.fpclass.v2f64(<2 x double>, i32)
"#;

const ASSEMBLY_REFERENCE: &str = "#include <math.h>\n\
    signed char scmp(int a, int b) { return (a > b) - (a < b); }\n\
    int ucmp(unsigned a, unsigned b) { return (a > b) - (a < b); }\n\
    int vscmp(int a, int b) { return (a > b) - (a < b); }\n\
    float fsum(float s, float a, float b, float c, float d) { return (((s + a) + b) + c) + d; }\n\
    double fprod(double s, double a, double b) { return (s * a) * b; }\n\
    float fsum_reassoc(float s, float a, float b, float c, float d) \
    { return (((s + a) + b) + c) + d; }\n\
    _Bool vclass(double a, double b) { return fabs(a) == INFINITY && fabs(b) == INFINITY; }\n\
    unsigned short flags(unsigned x, unsigned char y) \
    { return (unsigned short)((((x & 1023) << 4) | 3) + y); }\n\
    int vrev(int a, int b) { return (int)((unsigned)a * 2 - (unsigned)b); }\n";

const ASSEMBLY_WRONG: &str = "#include <math.h>\n\
    signed char scmp(int a, int b) { return (a > b) - (a <= b); }\n\
    int ucmp(unsigned a, unsigned b) { return ((int)a > (int)b) - ((int)a < (int)b); }\n\
    int vscmp(int a, int b) { return (a >= b) - (a < b); }\n\
    float fsum(float s, float a, float b, float c, float d) { return s + ((a + b) + (c + d)); }\n\
    double fprod(double s, double a, double b) { return s * (a * b); }\n\
    float fsum_reassoc(float s, float a, float b, float c, float d) \
    { return s + ((a + b) + (c + d)); }\n\
    _Bool vclass(double a, double b) { return a == INFINITY && fabs(b) == INFINITY; }\n\
    unsigned short flags(unsigned x, unsigned char y) \
    { return (unsigned short)((((x & 2047) << 4) | 3) + y); }\n\
    int vrev(int a, int b) { return (int)((unsigned)b * 2 - (unsigned)a); }\n";

#[test]
fn llvm19_assembly_constructs_are_checked_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let a = assemble(dir.path());
    let plain = ["-O0", "-Xclang", "-disable-O0-optnone"];
    let (reference, _) = clang19(dir.path(), "ref", ASSEMBLY_REFERENCE, &plain);
    let (wrong, _) = clang19(dir.path(), "wrong", ASSEMBLY_WRONG, &plain);
    for function in [
        "scmp", "ucmp", "vscmp", "fsum", "fprod", "vclass", "flags", "vrev",
    ] {
        assert_verdicts(dir.path(), &a, &reference, &wrong, function);
    }
    // A reassociating reduction may add the lanes in any order: no verdict, and the report
    // names the construct and where it is.
    let (code, out) = check(dir.path(), &a, &reference, "fsum_reassoc", "32");
    let report = std::fs::read_to_string(dir.path().join("xcheck-out/report.json")).unwrap();
    assert!(code == Some(3) && out.contains("unknown"), "{out}");
    assert!(
        report.contains("unsupported: intrinsic llvm.vector.reduce.fadd.v4f32 with reassoc")
            && report.contains("at fsum_reassoc()"),
        "{report}"
    );
}

/// The bitcode files of this file's constructs, built into `dir` (for the lowering's round
/// trip and snapshots, `lowering.rs`): the C cases at -O2 (`opt`) and their references and
/// wrong variants at -O0, the assembly (`asm`) and its reference and wrong variant.
pub(crate) fn fixtures(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let plain = ["-O0", "-Xclang", "-disable-O0-optnone"];
    let asm = assemble(dir);
    vec![
        (
            "opt",
            clang19(dir, "opt", &joined(|c| c.optimized), &["-O2"]).0,
        ),
        (
            "ref",
            clang19(dir, "ref", &joined(|c| c.reference), &plain).0,
        ),
        (
            "wrong",
            clang19(dir, "wrong", &joined(|c| c.wrong), &plain).0,
        ),
        ("asm", asm),
        (
            "asm_ref",
            clang19(dir, "asm_ref", ASSEMBLY_REFERENCE, &plain).0,
        ),
        (
            "asm_wrong",
            clang19(dir, "asm_wrong", ASSEMBLY_WRONG, &plain).0,
        ),
    ]
}

/// The C cases' `pick`ed sources after the prelude, one file.
fn joined(pick: fn(&Case) -> &'static str) -> String {
    let mut text = PRELUDE.to_string();
    for case in CASES {
        text.push_str(pick(case));
        text.push('\n');
    }
    text
}

/// [`ASSEMBLY`] assembled to `dir/asm.bc`.
fn assemble(dir: &Path) -> PathBuf {
    let ll = dir.join("asm.ll");
    std::fs::write(&ll, ASSEMBLY).unwrap();
    let bc = dir.join("asm.bc");
    let status = Command::new("llvm-as-19")
        .arg(&ll)
        .arg("-o")
        .arg(&bc)
        .status()
        .expect("llvm-as-19 runs");
    assert!(status.success(), "llvm-as-19 failed");
    bc
}
