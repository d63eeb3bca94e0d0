//! `long double` (LLVM's `x86_fp80`): the solvers' meaning of every floating-point builder on
//! 80-bit values equals concrete evaluation's, on special encodings (the non-canonical ones
//! included) and random ones, for Bitwuzla and Z3; and concrete evaluation equals the x87
//! itself, bit for bit, on a program compiled natively that runs the same operations on the
//! same bit patterns.

use crate::common::Rng;
use crate::float::{assert_solvers_agree, Inputs};
use xcheck::expr::{eval_float, ExprId, ExprPool, FloatOp, FpBinOp, FpPred, FpUnOp};

const PREDS: [FpPred; 14] = [
    FpPred::Oeq,
    FpPred::Ogt,
    FpPred::Oge,
    FpPred::Olt,
    FpPred::Ole,
    FpPred::One,
    FpPred::Ord,
    FpPred::Ueq,
    FpPred::Ugt,
    FpPred::Uge,
    FpPred::Ult,
    FpPred::Ule,
    FpPred::Une,
    FpPred::Uno,
];

const UNARY: [FpUnOp; 6] = [
    FpUnOp::Sqrt,
    FpUnOp::RoundEven,
    FpUnOp::Floor,
    FpUnOp::Ceil,
    FpUnOp::Trunc,
    FpUnOp::Round,
];

const BINARY: [FpBinOp; 5] = [
    FpBinOp::Add,
    FpBinOp::Sub,
    FpBinOp::Mul,
    FpBinOp::Div,
    FpBinOp::Rem,
];

/// The 80-bit pattern of the `double` `v` (exact).
fn ld(v: f64) -> u128 {
    eval_float(FloatOp::Convert, 64, 80, &[u128::from(v.to_bits())])
}

/// Special encodings, the non-canonical ones included, then random ones (a fixed seed):
/// canonical patterns, raw patterns, and moderate values.
fn operands(random: usize) -> Vec<u128> {
    let mut values: Vec<u128> = vec![
        0,
        1 << 79,                    // -0.0
        0x3fff_8000_0000_0000_0000, // 1.0
        0xbfff_8000_0000_0000_0000, // -1.0
        0x3ffe_8000_0000_0000_0000, // 0.5
        0x4000_a000_0000_0000_0000, // 2.5
        0x3fff_8000_0000_0000_0001, // 1 + ulp
        0x7fff_8000_0000_0000_0000, // +inf
        0xffff_8000_0000_0000_0000, // -inf
        0x7fff_c000_0000_0000_0000, // quiet NaN
        0xffff_c000_0000_0000_0000, // the default NaN
        0x7fff_c000_0000_0000_0123, // quiet NaN with a payload
        0xffff_8000_0000_0000_0005, // negative signalling NaN
        0x7fff_8000_0000_0000_0003, // signalling NaN
        1,                          // smallest denormal
        0x0000_7fff_ffff_ffff_ffff, // largest denormal
        0x0001_8000_0000_0000_0000, // smallest normal
        0x0000_8000_0000_0000_0001, // pseudo-denormal
        0x3fff_4000_0000_0000_0000, // unnormal
        0x7fff_0000_0000_0000_0000, // pseudo-infinity
        0x7fff_4000_0000_0000_0005, // pseudo-NaN
        0x7ffe_ffff_ffff_ffff_ffff, // largest finite
        0x403e_8000_0000_0000_0000, // 2^63
        0x403f_8000_0000_0000_0000, // 2^64
        ld(-2147483648.5),          // just below i32's range
        ld(1e19),                   // between 2^63 and 2^64
        0x3ffe_ffff_ffff_ffff_ffff, // the largest number below 1
    ];
    let mut rng = Rng(0x5eed_0080);
    for _ in 0..random {
        let raw = (u128::from(rng.next()) << 16) | u128::from(rng.next() as u16);
        values.push(raw);
        // Canonical: the integer bit set exactly when the exponent is not zero.
        let e = (raw >> 64) & 0x7fff;
        values.push((raw & !(1 << 63)) | (u128::from(e != 0) << 63));
        let moderate = (rng.next() % 20000) as f64 / 7.0 - 1400.0;
        let third = eval_float(
            FloatOp::Binary(FpBinOp::Div),
            80,
            80,
            &[ld(moderate), ld(3.0)],
        );
        values.push(third);
    }
    values
}

/// The `double` and `float` operands of the conversions to `long double`.
fn narrow_operands() -> Vec<(u32, u128)> {
    let doubles: [u64; 9] = [
        0,
        1 << 63,
        0x3ff0_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        0x7ff0_0000_0000_0123, // signalling NaN
        0xfff8_0000_0000_0001,
        1,
        0x7fef_ffff_ffff_ffff,
        0x3fb9_9999_9999_999a, // 0.1
    ];
    let floats: [u32; 6] = [
        0x8000_0000,
        0x7f80_0001,
        0xffc0_0000,
        1,
        0x7f7f_ffff,
        0x3dcc_cccd,
    ];
    doubles
        .iter()
        .map(|&d| (64, u128::from(d)))
        .chain(floats.iter().map(|&f| (32, u128::from(f))))
        .collect()
}

/// One check: `op` built on symbolic operands pinned to `args` (of `widths`) against
/// concrete evaluation, which the builder must also give on constant operands.
fn check(
    inputs: &mut Inputs,
    checks: &mut Vec<(ExprId, u128)>,
    op: FloatOp,
    widths: &[u32],
    to: u32,
    args: &[u128],
) {
    let concrete = eval_float(op, widths[0], to, args);
    let p = ExprPool::new();
    let consts: Vec<ExprId> = args
        .iter()
        .zip(widths)
        .map(|(&v, &w)| p.constant(w, v))
        .collect();
    assert_eq!(
        p.as_const(p.build_float(op, &consts, to)),
        Some(concrete),
        "{op:?} of {args:x?} folded"
    );
    let syms: Vec<ExprId> = args
        .iter()
        .zip(widths)
        .map(|(&v, &w)| inputs.operand(w, v))
        .collect();
    let e = inputs.pool.build_float(op, &syms, to);
    let e = if inputs.pool.width(e) < 8 {
        inputs.pool.zext(e, 8)
    } else {
        e
    };
    checks.push((e, concrete));
}

#[test]
fn solvers_agree_with_concrete_evaluation_on_arithmetic() {
    let values = operands(3);
    let mut inputs = Inputs::new();
    let mut checks = Vec::new();
    for (i, &x) in values.iter().enumerate() {
        for (j, &y) in values.iter().enumerate() {
            if (i * 3 + j) % 11 != 0 {
                continue;
            }
            let op = FloatOp::Binary(BINARY[(i + j) % BINARY.len()]);
            check(&mut inputs, &mut checks, op, &[80, 80], 80, &[x, y]);
        }
    }
    // Every pair of NaNs and invalid encodings (which NaN wins), and chains of operations
    // (a result decoded again without tests).
    let nans: Vec<u128> = values[9..21]
        .iter()
        .copied()
        .filter(|&v| v & (0x7fff << 64) == 0x7fff << 64 || v == 0x3fff_4000_0000_0000_0000)
        .collect();
    for (i, &x) in nans.iter().enumerate() {
        for &y in &nans {
            let op = FloatOp::Binary(BINARY[i % 4]);
            check(&mut inputs, &mut checks, op, &[80, 80], 80, &[x, y]);
        }
    }
    for (i, &x) in values.iter().enumerate().step_by(3) {
        let (y, z) = (
            values[(i * 7 + 2) % values.len()],
            values[(i + 5) % values.len()],
        );
        let concrete = {
            let sum = eval_float(FloatOp::Binary(FpBinOp::Add), 80, 80, &[x, y]);
            eval_float(FloatOp::Binary(FpBinOp::Mul), 80, 80, &[sum, z])
        };
        let (a, b, c) = (
            inputs.operand(80, x),
            inputs.operand(80, y),
            inputs.operand(80, z),
        );
        let pool = &inputs.pool;
        let sum = pool.build_float(FloatOp::Binary(FpBinOp::Add), &[a, b], 80);
        checks.push((
            pool.build_float(FloatOp::Binary(FpBinOp::Mul), &[sum, c], 80),
            concrete,
        ));
    }
    // Products and sums of converted integers (built as integer arithmetic), signed and
    // unsigned, with constants (`1e9 * y + x`, as musl's strtod), zeros of both signs.
    let ints: [(u32, bool, u128); 6] = [
        (32, true, 0xffff_ffff), // -1
        (32, false, 0),
        (32, true, 0x8000_0000),
        (32, false, 0xffff_ffff),
        (16, true, 0x8001),
        (8, false, 200),
    ];
    let billion = ld(1e9);
    for (i, &(wx, sx, x)) in ints.iter().enumerate() {
        for &(wy, sy, y) in &ints[i..] {
            let from = |s: bool| {
                if s {
                    FloatOp::FromSInt
                } else {
                    FloatOp::FromUInt
                }
            };
            let (cx, cy) = (
                eval_float(from(sx), wx, 80, &[x]),
                eval_float(from(sy), wy, 80, &[y]),
            );
            let mul = FloatOp::Binary(FpBinOp::Mul);
            let add = FloatOp::Binary(FpBinOp::Add);
            let product = eval_float(mul, 80, 80, &[cx, cy]);
            let scaled = eval_float(mul, 80, 80, &[billion, cx]);
            let concrete = [product, eval_float(add, 80, 80, &[scaled, cy])];
            let (a, b) = (inputs.operand(wx, x), inputs.operand(wy, y));
            let pool = &inputs.pool;
            let (fa, fb) = (
                pool.build_float(from(sx), &[a], 80),
                pool.build_float(from(sy), &[b], 80),
            );
            let p = pool.build_float(mul, &[fa, fb], 80);
            let k = pool.build_float(mul, &[pool.constant(80, billion), fa], 80);
            let sum = pool.build_float(add, &[k, fb], 80);
            checks.push((p, concrete[0]));
            checks.push((sum, concrete[1]));
        }
    }
    assert_solvers_agree("long double arithmetic", &inputs, &checks);
}

#[test]
fn solvers_agree_with_concrete_evaluation_on_the_other_operations() {
    let values = operands(3);
    let mut inputs = Inputs::new();
    let mut checks = Vec::new();
    let n = values.len();
    for (i, &x) in values.iter().enumerate() {
        let y = values[(i * 5 + 3) % n];
        let z = values[(i * 11 + 1) % n];
        let mut one = |op: FloatOp, widths: &[u32], to: u32, args: &[u128]| {
            check(&mut inputs, &mut checks, op, widths, to, args)
        };
        one(FloatOp::Cmp(PREDS[i % PREDS.len()]), &[80, 80], 1, &[x, y]);
        one(
            FloatOp::Cmp(PREDS[(i + 7) % PREDS.len()]),
            &[80, 80],
            1,
            &[x, x],
        );
        one(FloatOp::Unary(UNARY[i % UNARY.len()]), &[80], 80, &[x]);
        one(FloatOp::Neg, &[80], 80, &[x]);
        one(FloatOp::Abs, &[80], 80, &[x]);
        one(FloatOp::CopySign, &[80, 80], 80, &[x, y]);
        let max = if i % 2 == 0 {
            FloatOp::Max
        } else {
            FloatOp::Min
        };
        one(max, &[80, 80], 80, &[x, y]);
        if i % 3 == 0 {
            one(FloatOp::MulAdd, &[80, 80, 80], 80, &[x, y, z]);
        }
        if i % 4 == 1 {
            one(FloatOp::Fma, &[80, 80, 80], 80, &[x, y, z]);
        }
        one(FloatOp::Convert, &[80], [32, 64][i % 2], &[x]);
        let to = [8, 16, 32, 64][i % 4];
        one(FloatOp::ToSInt, &[80], to, &[x]);
        one(FloatOp::ToUInt, &[80], to, &[x]);
        let from = [8, 16, 32, 64, 128][i % 5];
        let int = if from == 128 {
            x << 40
        } else {
            x & ((1u128 << from) - 1)
        };
        one(FloatOp::FromSInt, &[from], 80, &[int]);
        one(FloatOp::FromUInt, &[from], 80, &[int]);
    }
    for (w, v) in narrow_operands() {
        check(&mut inputs, &mut checks, FloatOp::Convert, &[w], 80, &[v]);
    }
    assert_solvers_agree("long double operations", &inputs, &checks);
}

/// The C expression of each predicate on `a` and `b`, as `fcmp` means it.
const C_PREDS: [&str; 14] = [
    "a == b",
    "a > b",
    "a >= b",
    "a < b",
    "a <= b",
    "(a < b || a > b)",
    "!__builtin_isunordered(a, b)",
    "!(a < b || a > b)",
    "!(a <= b)",
    "!(a < b)",
    "!(a >= b)",
    "!(a > b)",
    "a != b",
    "__builtin_isunordered(a, b)",
];

/// A C program that runs the operations of [`expected_lines`] natively on `values`, one
/// result a line.
fn native_program(values: &[u128], narrow: &[(u32, u128)]) -> String {
    let list = |f: &dyn Fn(u128) -> String, vs: &[u128]| {
        vs.iter().map(|&v| f(v)).collect::<Vec<_>>().join(", ")
    };
    let doubles: Vec<u128> = narrow.iter().filter(|p| p.0 == 64).map(|p| p.1).collect();
    let floats: Vec<u128> = narrow.iter().filter(|p| p.0 == 32).map(|p| p.1).collect();
    format!(
        r#"#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
static const uint64_t LO[] = {{{lo}}};
static const uint16_t HI[] = {{{hi}}};
static const uint64_t D[] = {{{d}}};
static const uint32_t F[] = {{{f}}};
#define N (sizeof LO / sizeof LO[0])
static long double get(unsigned i) {{
    long double x = 0;
    memcpy(&x, &LO[i], 8);
    memcpy((char *)&x + 8, &HI[i], 2);
    return x;
}}
static void put(long double x) {{
    uint64_t lo; uint16_t hi;
    memcpy(&lo, &x, 8);
    memcpy(&hi, (char *)&x + 8, 2);
    printf("%04x%016llx\n", hi, (unsigned long long)lo);
}}
int main(void) {{
    for (unsigned i = 0; i < N; i++) for (unsigned j = 0; j < N; j++) {{
        volatile long double a = get(i), b = get(j);
        put(a + b); put(a - b); put(a * b); put(a / b); put(fmodl(a, b));
        printf("{pred_fmt}\n", {preds});
    }}
    for (unsigned i = 0; i < N; i++) {{
        volatile long double a = get(i);
        put(-a); put(__builtin_fabsl(a)); put(__builtin_sqrtl(a)); put(__builtin_rintl(a));
        put(__builtin_floorl(a)); put(__builtin_ceill(a)); put(__builtin_truncl(a));
        put(__builtin_roundl(a));
        double d = a; float f = a; uint64_t db; uint32_t fb;
        memcpy(&db, &d, 8); memcpy(&fb, &f, 4);
        printf("%llx %x\n", (unsigned long long)db, fb);
        printf("%llx %x %x %x\n", (unsigned long long)(long long)a, (unsigned)(int)a,
               (unsigned)(unsigned short)(short)a, (unsigned)(unsigned char)(signed char)a);
        printf("%llx %x %x %x\n", (unsigned long long)a, (unsigned)a,
               (unsigned)(unsigned short)a, (unsigned)(unsigned char)a);
        uint64_t n = LO[i];
        put((long double)(long long)n); put((long double)n);
        put((long double)(int)n); put((long double)(unsigned)n);
        put((long double)(signed char)n); put((long double)(unsigned char)n);
    }}
    for (unsigned i = 0; i < sizeof D / sizeof D[0]; i++) {{
        double d; memcpy(&d, &D[i], 8); volatile double v = d; put((long double)v);
    }}
    for (unsigned i = 0; i < sizeof F / sizeof F[0]; i++) {{
        float f; memcpy(&f, &F[i], 4); volatile float v = f; put((long double)v);
    }}
    return 0;
}}
"#,
        lo = list(&|v| format!("{:#x}ULL", v as u64), values),
        hi = list(&|v| format!("{:#x}", (v >> 64) as u16), values),
        d = list(&|v| format!("{v:#x}ULL"), &doubles),
        f = list(&|v| format!("{v:#x}U"), &floats),
        pred_fmt = "%d".repeat(C_PREDS.len()),
        preds = C_PREDS.join(", "),
    )
}

/// Whether `v` is an encoding the x87 refuses (unnormal, pseudo-infinity, pseudo-NaN).
fn invalid(v: u128) -> bool {
    (v >> 64) & 0x7fff != 0 && v & (1 << 63) == 0
}

/// What the engine computes for each line of [`native_program`]'s output, with a label.
fn expected_lines(values: &[u128], narrow: &[(u32, u128)]) -> Vec<(String, String)> {
    let x80 = |v: u128| format!("{:04x}{:016x}", (v >> 64) as u16, v as u64);
    let mut lines = Vec::new();
    for &a in values {
        for &b in values {
            for op in BINARY {
                let r = eval_float(FloatOp::Binary(op), 80, 80, &[a, b]);
                lines.push((format!("{op:?} {} {}", x80(a), x80(b)), x80(r)));
            }
            let preds: String = PREDS
                .iter()
                .map(|&p| eval_float(FloatOp::Cmp(p), 80, 1, &[a, b]).to_string())
                .collect();
            lines.push((format!("fcmp {} {}", x80(a), x80(b)), preds));
        }
    }
    for &a in values {
        let one = |op: FloatOp, to: u32| eval_float(op, 80, to, &[a]);
        let mut unary = vec![(FloatOp::Neg, "neg"), (FloatOp::Abs, "fabs")];
        for (op, name) in [
            (FpUnOp::Sqrt, "sqrt"),
            (FpUnOp::RoundEven, "rint"),
            (FpUnOp::Floor, "floor"),
            (FpUnOp::Ceil, "ceil"),
            (FpUnOp::Trunc, "trunc"),
            (FpUnOp::Round, "round"),
        ] {
            unary.push((FloatOp::Unary(op), name));
        }
        for (op, name) in unary {
            // `roundl` is the C library's, which reads an invalid encoding its own way (the
            // x87 has no such instruction); the others are x87 instructions.
            let library = name == "round" && invalid(a);
            let r = if library {
                "library".into()
            } else {
                x80(one(op, 80))
            };
            lines.push((format!("{name} {}", x80(a)), r));
        }
        let convert = format!(
            "{:x} {:x}",
            one(FloatOp::Convert, 64),
            one(FloatOp::Convert, 32)
        );
        lines.push((format!("fptrunc {}", x80(a)), convert));
        for op in [FloatOp::ToSInt, FloatOp::ToUInt] {
            let ints = [64, 32, 16, 8]
                .map(|w| format!("{:x}", one(op, w)))
                .join(" ");
            lines.push((format!("{op:?} {}", x80(a)), ints));
        }
        let n = a & u128::from(u64::MAX);
        for (from, signed) in [
            (64, true),
            (64, false),
            (32, true),
            (32, false),
            (8, true),
            (8, false),
        ] {
            let op = if signed {
                FloatOp::FromSInt
            } else {
                FloatOp::FromUInt
            };
            let r = eval_float(op, from, 80, &[n & ((1u128 << from) - 1)]);
            lines.push((format!("{op:?} i{from} {n:x}"), x80(r)));
        }
    }
    for &(w, v) in narrow
        .iter()
        .filter(|p| p.0 == 64)
        .chain(narrow.iter().filter(|p| p.0 == 32))
    {
        let r = eval_float(FloatOp::Convert, w, 80, &[v]);
        lines.push((format!("fpext f{w} {v:x}"), x80(r)));
    }
    lines
}

#[test]
fn concrete_evaluation_is_the_x87_s_arithmetic() {
    let dir = tempfile::tempdir().unwrap();
    let values = operands(4);
    let narrow = narrow_operands();
    let source = dir.path().join("x87.c");
    std::fs::write(&source, native_program(&values, &narrow)).unwrap();
    let exe = dir.path().join("x87");
    let built = std::process::Command::new(xcheck::toolchain::CLANG)
        .args(["-O0", "-fno-math-errno", "-ffp-contract=off"])
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .status()
        .expect("clang runs");
    assert!(built.success(), "the native program did not build");
    let out = std::process::Command::new(&exe).output().expect("it runs");
    let native = String::from_utf8(out.stdout).unwrap();
    let native: Vec<&str> = native.lines().collect();
    let expected = expected_lines(&values, &narrow);
    assert_eq!(native.len(), expected.len(), "one line per operation");
    let wrong: Vec<String> = expected
        .iter()
        .zip(&native)
        .filter(|((_, want), got)| want != *got && want != "library")
        .map(|((what, want), got)| format!("{what}: engine {want}, x87 {got}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} results differ:\n{}",
        wrong.len(),
        expected.len(),
        wrong
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// `xcheck cc` of `tests/fixtures/long_double.c` with `defines` into `dir/out`.
fn cc(dir: &std::path::Path, out: &str, defines: &[&str]) {
    use crate::common::{repo, stderr, xcheck};
    let src = repo().join("tests/fixtures/long_double.c");
    let mut args = vec!["cc", "-O1", "-o", out];
    args.extend(defines);
    args.push(src.to_str().unwrap());
    let o = xcheck(dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn whole_programs_in_long_double_get_the_native_verdicts() {
    use crate::common::{stdout, xcheck};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cc(d, "exact_ld", &["-DLONG"]);
    cc(d, "exact_d", &[]);
    cc(d, "inverse_ld", &["-DLONG", "-DINVERSE"]);
    cc(d, "inverse_d", &["-DINVERSE"]);
    let run = |a: &str, b: &str| {
        let o = xcheck(
            d,
            &[
                &format!("{a}.bc"),
                &format!("{b}.bc"),
                "--sym-stdin",
                "1",
                "-o",
                &format!("out_{a}"),
            ],
        );
        (o.status.code(), stdout(&o))
    };
    // Exact in both precisions: equivalent.
    let (code, out) = run("exact_ld", "exact_d");
    assert_eq!(code, Some(0), "{out}");
    // (1 / c) * c == 1 differs between the precisions: every divergence reproduced natively.
    let (code, out) = run("inverse_ld", "inverse_d");
    assert_eq!(code, Some(1), "{out}");
    let reproduced = out
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("- native replay on inverse_ld and inverse_d: ")
        })
        .unwrap_or_else(|| panic!("no native replay line:\n{out}"));
    let (done, all) = reproduced
        .trim_end_matches(" rows reproduced")
        .split_once(" of ")
        .unwrap();
    assert!(done == all && done != "0", "{out}");
}
