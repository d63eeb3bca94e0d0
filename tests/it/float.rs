//! Floating point: the solvers' meaning of every floating-point builder equals concrete
//! evaluation's (the interpreter's and constant folding's), on special and random operands,
//! for Bitwuzla and Z3; and the concrete folds equal the hardware's IEEE arithmetic.

use xcheck::expr::{ExprId, ExprPool, FpBinOp, FpPred, FpUnOp, Node};
use xcheck::solver::{build_chain, Backend, SatResult, SolverConfig};

/// Special values of a format, then a few random ones (a fixed seed).
fn operands(width: u32) -> Vec<u128> {
    let specials64: [u64; 16] = [
        0,
        1 << 63,               // -0.0
        0x3FF0_0000_0000_0000, // 1.0
        0xBFF0_0000_0000_0000, // -1.0
        0x3FE0_0000_0000_0000, // 0.5
        0x4004_0000_0000_0000, // 2.5
        0x7FF0_0000_0000_0000, // +inf
        0xFFF0_0000_0000_0000, // -inf
        0x7FF8_0000_0000_0000, // quiet NaN
        0xFFF4_0000_0000_0001, // negative signalling NaN with a payload
        1,                     // smallest subnormal
        0x000F_FFFF_FFFF_FFFF, // largest subnormal
        0x7FEF_FFFF_FFFF_FFFF, // largest finite
        0x43E0_0000_0000_0000, // 2^63
        0xC1E0_0000_0020_0000, // -2^31 - 1
        0x4330_0000_0000_0001, // 2^52 + 1
    ];
    let specials32: [u32; 14] = [
        0,
        1 << 31,
        0x3F80_0000,
        0xBF80_0000,
        0x3F00_0000,
        0x4020_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFA0_0001,
        1,
        0x007F_FFFF,
        0x7F7F_FFFF,
        0x4F00_0000, // 2^31
    ];
    let mut values: Vec<u128> = if width == 32 {
        specials32.iter().map(|&v| u128::from(v)).collect()
    } else {
        specials64.iter().map(|&v| u128::from(v)).collect()
    };
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..6 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let bits = u128::from(state >> (64 - width));
        values.push(bits);
        // A moderate value too: random bits are mostly huge or tiny.
        let moderate = (state % 2000) as f64 / 7.0 - 140.0;
        values.push(if width == 32 {
            u128::from((moderate as f32).to_bits())
        } else {
            u128::from(moderate.to_bits())
        });
    }
    values
}

/// One symbolic operand of `width` bits per entry of `values`, each constrained to its value.
pub(crate) struct Inputs {
    pub(crate) pool: ExprPool,
    pub(crate) constraints: Vec<ExprId>,
}

impl Inputs {
    pub(crate) fn new() -> Self {
        Inputs {
            pool: ExprPool::new(),
            constraints: Vec::new(),
        }
    }

    /// A fresh symbolic operand equal to `value`.
    pub(crate) fn operand(&mut self, width: u32, value: u128) -> ExprId {
        let pool = &self.pool;
        let array = pool.new_array("v", width / 8);
        let bytes: Vec<ExprId> = (0..width / 8).map(|i| pool.sym(array, i)).collect();
        let e = pool.concat_bytes(&bytes);
        self.constraints
            .push(pool.eq(e, pool.constant(width, value)));
        e
    }
}

/// The constraints of `inputs` on the arrays that `roots` read.
fn constraints_of(inputs: &Inputs, roots: impl Iterator<Item = ExprId>) -> Vec<ExprId> {
    let pool = &inputs.pool;
    let arrays = |roots: Vec<ExprId>| {
        let mut seen = std::collections::HashSet::new();
        let mut found = std::collections::HashSet::new();
        let mut stack = roots;
        while let Some(e) = stack.pop() {
            if seen.insert(e) {
                if let Node::Sym { array, .. } = pool.node(e) {
                    found.insert(array);
                }
                stack.extend(pool.node(e).children());
            }
        }
        found
    };
    let wanted = arrays(roots.collect());
    inputs
        .constraints
        .iter()
        .copied()
        .filter(|&c| arrays(vec![c]).iter().any(|a| wanted.contains(a)))
        .collect()
}

/// Asserts that no backend finds `e != value` for any pair of `checks` under `inputs`:
/// the solver's meaning of each expression is the concrete one.
pub(crate) fn assert_solvers_agree(what: &str, inputs: &Inputs, checks: &[(ExprId, u128)]) {
    let pool = &inputs.pool;
    for chunk in checks.chunks(8) {
        let differs: Vec<ExprId> = chunk
            .iter()
            .map(|&(e, v)| pool.ne(e, pool.constant(pool.width(e), v)))
            .collect();
        let query = pool.or_all(&differs);
        let constraints = constraints_of(inputs, chunk.iter().map(|&(e, _)| e));
        if let Ok(dir) = std::env::var("XC_FLOAT_DUMP") {
            let text = xcheck::solver::smtlib(pool, &constraints, query).unwrap();
            let n = std::fs::read_dir(&dir).unwrap().count();
            std::fs::write(format!("{dir}/q{n}.smt2"), text).unwrap();
        }
        for backend in Backend::ALL {
            let cfg = SolverConfig {
                backend,
                cache: false,
                cex_cache: false,
                independence: false,
                ranges: false,
                enumerate: false,
                ..SolverConfig::default()
            };
            let mut solver = build_chain(&cfg);
            let t0 = std::time::Instant::now();
            let r = solver.check(pool, &constraints, query);
            if std::env::var("XC_FLOAT_TIME").is_ok() {
                eprintln!("{what} {} {:?}", backend.name(), t0.elapsed());
            }
            match r {
                Ok(SatResult::Unsat) => {}
                other => {
                    let first = chunk
                        .iter()
                        .find(|&&(e, v)| {
                            pool.eval(e, &xcheck::expr::Assignment::new()) != v
                                || matches!(
                                    build_chain(&cfg).check(
                                        pool,
                                        &constraints,
                                        pool.ne(e, pool.constant(pool.width(e), v))
                                    ),
                                    Ok(SatResult::Sat(_))
                                )
                        })
                        .map(|&(e, v)| format!("{} expected {v:#x}", pool.to_sexp(e)));
                    panic!(
                        "{what}, {}: expected unsat, got {other:?}; first: {first:?}",
                        backend.name()
                    );
                }
            }
        }
    }
}

#[test]
fn solvers_agree_with_concrete_evaluation_on_arithmetic() {
    for width in [32, 64] {
        let values = operands(width);
        let mut inputs = Inputs::new();
        let mut checks = Vec::new();
        let ops = [
            FpBinOp::Add,
            FpBinOp::Sub,
            FpBinOp::Mul,
            FpBinOp::Div,
            FpBinOp::Rem,
        ];
        // Every operand pair once per operator would be 5 × 28²: take a diagonal sample.
        for (i, &x) in values.iter().enumerate() {
            for (j, &y) in values.iter().enumerate() {
                if (i + j) % 3 != 0 {
                    continue;
                }
                let op = ops[(i * 7 + j) % ops.len()];
                let (a, b) = (inputs.operand(width, x), inputs.operand(width, y));
                let concrete = {
                    let p = ExprPool::new();
                    let (ca, cb) = (p.constant(width, x), p.constant(width, y));
                    p.as_const(p.fp_binary(op, ca, cb)).unwrap()
                };
                checks.push((inputs.pool.fp_binary(op, a, b), concrete));
            }
        }
        assert_solvers_agree(&format!("arithmetic, {width} bits"), &inputs, &checks);
    }
}

#[test]
fn solvers_agree_with_concrete_evaluation_on_the_other_operations() {
    let preds = [
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
    let unary = [
        FpUnOp::Sqrt,
        FpUnOp::RoundEven,
        FpUnOp::Floor,
        FpUnOp::Ceil,
        FpUnOp::Trunc,
        FpUnOp::Round,
    ];
    for width in [32, 64] {
        let values = operands(width);
        let mut inputs = Inputs::new();
        let mut checks = Vec::new();
        // Each builder is run on constants (folded by concrete evaluation) and on symbolic
        // operands pinned to the same values (lowered to the solver).
        let both = |inputs: &mut Inputs,
                    checks: &mut Vec<(ExprId, u128)>,
                    args: &[u128],
                    build: &dyn Fn(&ExprPool, &[ExprId]) -> ExprId| {
            let p = ExprPool::new();
            let consts: Vec<ExprId> = args.iter().map(|&v| p.constant(width, v)).collect();
            let concrete = p
                .as_const(build(&p, &consts))
                .expect("constant operands fold");
            let syms: Vec<ExprId> = args.iter().map(|&v| inputs.operand(width, v)).collect();
            checks.push((build(&inputs.pool, &syms), concrete));
        };
        for (i, &x) in values.iter().enumerate() {
            let y = values[(i * 5 + 3) % values.len()];
            let z = values[(i * 11 + 1) % values.len()];
            let pred = preds[i % preds.len()];
            both(&mut inputs, &mut checks, &[x, y], &|p, a| {
                p.zext(p.fp_pred(pred, a[0], a[1]), 8)
            });
            let op = unary[i % unary.len()];
            both(&mut inputs, &mut checks, &[x], &|p, a| p.fp_unary(op, a[0]));
            both(&mut inputs, &mut checks, &[x, y, z], &|p, a| {
                p.fp_fma(a[0], a[1], a[2])
            });
            let max = i % 2 == 0;
            both(&mut inputs, &mut checks, &[x, y], &|p, a| {
                p.fp_min_max(max, a[0], a[1])
            });
            let to = 96 - width;
            both(&mut inputs, &mut checks, &[x], &|p, a| {
                p.zext(p.fp_convert(a[0], to), 64)
            });
            for w in [8, 16, 32, 64] {
                both(&mut inputs, &mut checks, &[x], &|p, a| {
                    p.zext(p.fp_to_sint(a[0], w), 64)
                });
                both(&mut inputs, &mut checks, &[x], &|p, a| {
                    p.zext(p.fp_to_uint(a[0], w), 64)
                });
            }
            for from in [8u32, 32, 64] {
                let n = x >> (width - from.min(width));
                for signed in [false, true] {
                    let p = ExprPool::new();
                    let concrete = p
                        .as_const(p.int_to_fp(
                            p.constant(from, n & ((1u128 << from) - 1)),
                            width,
                            signed,
                        ))
                        .unwrap();
                    let pool = &inputs.pool;
                    let array = pool.new_array("n", from / 8);
                    let bytes: Vec<ExprId> = (0..from / 8).map(|k| pool.sym(array, k)).collect();
                    let int = pool.concat_bytes(&bytes);
                    inputs
                        .constraints
                        .push(pool.eq(int, pool.constant(from, n & ((1u128 << from) - 1))));
                    checks.push((pool.int_to_fp(int, width, signed), concrete));
                }
            }
        }
        if width == 32 {
            // `float` arithmetic in `double`, rounded back (rewritten to the `float` operation).
            for (i, &x) in values.iter().enumerate() {
                let y = values[(i * 7 + 2) % values.len()];
                let op = [FpBinOp::Add, FpBinOp::Sub, FpBinOp::Mul, FpBinOp::Div][i % 4];
                both(&mut inputs, &mut checks, &[x, y], &|p, a| {
                    let (x, y) = (p.fp_convert(a[0], 64), p.fp_convert(a[1], 64));
                    p.fp_convert(p.fp_binary(op, x, y), 32)
                });
                both(&mut inputs, &mut checks, &[x], &|p, a| {
                    let x = p.fp_convert(a[0], 64);
                    p.fp_convert(p.fp_unary(FpUnOp::Sqrt, x), 32)
                });
            }
        }
        // Sums of converted integers (rewritten to the conversion of the integer sum).
        for (i, &x) in values.iter().enumerate() {
            let y = values[(i * 3 + 1) % values.len()];
            for (from, signed) in [
                (8u32, true),
                (16, false),
                (16, true),
                (32, true),
                (32, false),
            ] {
                for op in [FpBinOp::Add, FpBinOp::Sub] {
                    let m = (1u128 << from) - 1;
                    let p = ExprPool::new();
                    let (cx, cy) = (p.constant(from, x & m), p.constant(from, y & m));
                    let concrete = p
                        .as_const(p.fp_binary(
                            op,
                            p.int_to_fp(cx, width, signed),
                            p.int_to_fp(cy, width, signed),
                        ))
                        .unwrap();
                    let pool = &inputs.pool;
                    let ints: Vec<ExprId> = [x & m, y & m]
                        .iter()
                        .map(|&v| {
                            let array = pool.new_array("n", from / 8);
                            let bytes: Vec<ExprId> =
                                (0..from / 8).map(|k| pool.sym(array, k)).collect();
                            let int = pool.concat_bytes(&bytes);
                            inputs
                                .constraints
                                .push(pool.eq(int, pool.constant(from, v)));
                            int
                        })
                        .collect();
                    let e = pool.fp_binary(
                        op,
                        pool.int_to_fp(ints[0], width, signed),
                        pool.int_to_fp(ints[1], width, signed),
                    );
                    checks.push((e, concrete));
                }
            }
        }
        assert_solvers_agree(&format!("other operations, {width} bits"), &inputs, &checks);
    }
}

#[test]
fn concrete_folds_are_the_hardware_s_ieee_arithmetic() {
    let p = ExprPool::new();
    let d = |v: f64| p.constant(64, u128::from(v.to_bits()));
    let value = |e: ExprId| f64::from_bits(p.as_const(e).unwrap() as u64);
    assert_eq!(value(p.fp_binary(FpBinOp::Add, d(0.1), d(0.2))), 0.1 + 0.2);
    assert_eq!(value(p.fp_binary(FpBinOp::Rem, d(-7.5), d(2.0))), -1.5);
    assert_eq!(value(p.fp_unary(FpUnOp::Round, d(-2.5))), -3.0);
    assert_eq!(value(p.fp_unary(FpUnOp::RoundEven, d(-2.5))), -2.0);
    // 0/0 gives x86's default NaN; a NaN operand comes back quietened, sign and payload kept.
    let nan = p.fp_binary(FpBinOp::Div, d(0.0), d(0.0));
    assert_eq!(p.as_const(nan), Some(0xFFF8_0000_0000_0000));
    let signalling = p.constant(64, 0x7FF0_0000_0000_0001);
    let sum = p.fp_binary(FpBinOp::Add, d(1.0), signalling);
    assert_eq!(p.as_const(sum), Some(0x7FF8_0000_0000_0001));
    // Out of range: x86's integer indefinite.
    assert_eq!(p.as_const(p.fp_to_sint(d(1e300), 32)), Some(0x8000_0000));
    assert_eq!(
        p.as_const(p.fp_to_uint(d(1e19), 64)),
        Some(10_000_000_000_000_000_000)
    );
    assert_eq!(p.as_const(p.fp_to_sint(d(-1.9), 8)), Some(0xFF));
    // fpext keeps a NaN's payload, shifted, and quietens it.
    let f = p.constant(32, 0x7F80_0001);
    assert_eq!(p.as_const(p.fp_convert(f, 64)), Some(0x7FF8_0000_2000_0000));
    // minnum: -0.0 below +0.0, a NaN operand ignored.
    assert_eq!(
        value(p.fp_min_max(false, d(0.0), d(-0.0))).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(value(p.fp_min_max(true, d(f64::NAN), d(3.0))), 3.0);
}

#[test]
fn vectorized_floating_point_runs_lane_by_lane() {
    use crate::common::*;
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("vec_fp_a.c", dir.path(), "-O2");
    let b = compile_fixture("vec_fp_b.c", dir.path(), "-O2");
    let ll = std::process::Command::new(xcheck::toolchain::LLVM_DIS)
        .arg(&a)
        .arg("-o")
        .arg("-")
        .output()
        .expect("llvm-dis runs");
    let ll = String::from_utf8_lossy(&ll.stdout);
    assert!(
        ll.contains("<2 x double>"),
        "the loop was not vectorized:\n{ll}"
    );
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let run = |function: &str, size: &str| {
        let o = xcheck(
            dir.path(),
            &[
                &a,
                &b,
                "--function",
                function,
                "--buffer-size",
                size,
                "-o",
                function,
            ],
        );
        (o.status.code(), stdout(&o))
    };
    let (code, out) = run("scale4", "32");
    assert_eq!(code, Some(0), "{out}");
    // Summing in the other order rounds (or propagates NaNs) differently.
    let (code, out) = run("dot4", "16");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("(confirmed)"), "{out}");
}
