//! The `--assume` language against C itself: random expressions over parameters of
//! assorted C types, compiled by clang as the body of a function. For every expression E,
//! `--assume 'E'` must admit only inputs where C's `E` is true, and `--assume '!(E)'` only
//! inputs where it is false (inputs on which C's evaluation is undefined are excluded by
//! both). clang's typing (promotions, usual arithmetic conversions, literal types) is the
//! oracle; it shares no code with xcheck's. See: #10 ("property tests for the precondition
//! language"). The same for floating-point expressions and literals, and a pair (`fabs`)
//! whose verdict turns on C's meaning of FP comparisons. See: #12 (part 5).

use crate::common::*;
use std::fmt::Write as _;

/// A pick from `items`.
fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}

/// Parameters: `int a, unsigned b, signed char c, unsigned short d, long e,
/// unsigned long f, _Bool g, const short *p` (4 elements).
const PARAMS: &str = "int a, unsigned b, signed char c, unsigned short d, long e, unsigned long f, _Bool g, const short *p";

const LITERALS: &[&str] = &[
    "0",
    "1",
    "-1",
    "7",
    "100",
    "255",
    "'a'",
    "0x7f",
    "0x80000000",
    "0xffffffff",
    "2147483647",
    "2147483648",
    "4294967295u",
    "10u",
    "3L",
    "0xffffffffffffffff",
    "9223372036854775807",
    "1UL",
    "65535",
    "32768",
];

fn leaf(rng: &mut Rng) -> String {
    match rng.below(10) {
        0..=4 => pick(rng, &["a", "b", "c", "d", "e", "f", "g"]).to_string(),
        5 => format!("p[{}]", rng.below(4)),
        6 => "p[a & 3]".to_string(),
        _ => pick(rng, LITERALS).to_string(),
    }
}

fn expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.below(4) == 0 {
        return leaf(rng);
    }
    match rng.below(8) {
        0 => format!("{}({})", pick(rng, &["-", "~", "!"]), expr(rng, depth - 1)),
        1 => {
            // A chain of one precedence, parenthesised as a whole.
            let op = pick(rng, &["+", "-", "&&", "||", "&", "|", "^"]);
            let n = 2 + rng.below(3);
            let terms: Vec<String> = (0..n).map(|_| expr(rng, depth - 1)).collect();
            format!("({})", terms.join(&format!(" {op} ")))
        }
        _ => {
            let op = pick(
                rng,
                &[
                    "+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&",
                    "^", "|", "&&", "||",
                ],
            );
            format!("({} {op} {})", expr(rng, depth - 1), expr(rng, depth - 1))
        }
    }
}

#[test]
fn assume_means_what_c_means() {
    const CASES: usize = 48;
    let mut rng = Rng(0x5eed_0010);
    let exprs: Vec<String> = (0..CASES).map(|_| expr(&mut rng, 3)).collect();
    let dir = tempfile::tempdir().unwrap();
    let (mut a, mut b) = (String::new(), String::new());
    let mut config = String::from(
        "[defaults]\nmax_time = \"30s\"\nbuffer_size = 8\n\n[[pair]]\na = \"a.bc\"\nb = \"b.bc\"\n",
    );
    for (i, e) in exprs.iter().enumerate() {
        // t<i>: A is C's truth value; with E assumed it must always be 1 (B), and with
        // !(E) assumed always 0 (B of f<i>).
        writeln!(a, "int t{i}({PARAMS}) {{ return ({e}) != 0; }}").unwrap();
        writeln!(a, "int f{i}({PARAMS}) {{ return ({e}) != 0; }}").unwrap();
        writeln!(b, "int t{i}({PARAMS}) {{ return 1; }}").unwrap();
        writeln!(b, "int f{i}({PARAMS}) {{ return 0; }}").unwrap();
        let quoted = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(
            config,
            "[[pair.function]]\nname = \"t{i}\"\nassume = [\"{}\"]\n[[pair.function]]\nname = \"f{i}\"\nassume = [\"!({})\"]",
            quoted(e),
            quoted(e)
        )
        .unwrap();
    }
    for (name, text) in [("a.c", &a), ("b.c", &b), ("check.toml", &config)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    for side in ["a", "b"] {
        // -fwrapv: the language wraps signed overflow, so C must too for the comparison.
        let status = std::process::Command::new(xcheck::toolchain::CLANG)
            .args(["-c", "-emit-llvm", "-g", "-O0", "-fwrapv", "-w"])
            .args(["-Xclang", "-disable-O0-optnone"])
            .arg(dir.path().join(format!("{side}.c")))
            .arg("-o")
            .arg(dir.path().join(format!("{side}.bc")))
            .status()
            .expect("clang runs");
        assert!(status.success(), "clang failed on {side}.c");
    }
    let o = xcheck(dir.path(), &["--config", "check.toml", "--json"]);
    let mut checked = 0;
    let mut contradictions = 0;
    let mut failures = Vec::new();
    for line in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let function = v["function"].as_str().unwrap().to_string();
        let i: usize = function[1..].parse().unwrap();
        match v["verdict"].as_str().unwrap() {
            "equivalent" => checked += 1,
            "error"
                if v["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("contradict")) =>
            {
                // The condition (or its negation) holds for no defined input: nothing to
                // compare here, the other direction checks the expression.
                contradictions += 1
            }
            other => failures.push(format!(
                "{function}: {other} for `{}` (error: {}; rows in {})",
                exprs[i], v["error"], v["out_dir"]
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n{}",
        failures.join("\n"),
        stderr(&o)
    );
    assert_eq!(checked + contradictions, 2 * CASES, "{}", stderr(&o));
    assert!(
        checked >= CASES * 3 / 2,
        "too few checkable cases: {checked} of {}",
        2 * CASES
    );
}

/// Compiles `a.c` and `b.c` holding `a` and `b` at `opt` in `dir`.
fn compile_pair(dir: &std::path::Path, a: &str, b: &str, opt: &str) {
    for (side, text) in [("a", a), ("b", b)] {
        std::fs::write(dir.join(format!("{side}.c")), text).unwrap();
        let status = std::process::Command::new(xcheck::toolchain::CLANG)
            .args(["-c", "-emit-llvm", "-g", opt, "-w"])
            .args(["-Xclang", "-disable-O0-optnone"])
            .arg(dir.join(format!("{side}.c")))
            .arg("-o")
            .arg(dir.join(format!("{side}.bc")))
            .status()
            .expect("clang runs");
        assert!(status.success(), "clang failed on {side}.c");
    }
}

/// `x < 0 ? -x : x` and `fabs(x)` differ only at -0.0 and at NaNs with the sign bit set, so
/// a floating-point precondition decides the verdict, with C's meaning: `-0.0 >= 0.0` is
/// true, `NaN != 0.0` is true, `NaN < 0.0` and `NaN > 0.0` are false.
#[test]
fn floating_point_preconditions_mean_what_c_means() {
    let a = "double f(double x) { return x < 0 ? -x : x; }\n\
             float g(float x) { return x < 0 ? -x : x; }\n\
             double h(const double *p) { return p[1] < 0 ? -p[1] : p[1]; }\n";
    let b = "#include <math.h>\n\
             double f(double x) { return fabs(x); }\n\
             float g(float x) { return fabsf(x); }\n\
             double h(const double *p) { return fabs(p[1]); }\n";
    // (function, assumption, expected verdict, what the diverging input must be).
    let is_minus_zero = |bits: u64| bits == 0x8000_0000_0000_0000;
    let is_negative_nan = |bits: u64| f64::from_bits(bits).is_nan() && bits >> 63 == 1;
    type Case<'a> = (&'a str, &'a str, &'a str, Option<&'a dyn Fn(u64) -> bool>);
    let cases: &[Case] = &[
        ("f", "x > 0.0 || x < 0.0", "equivalent", None),
        ("f", "x < -1e-300 || x >= 0x1p-1074", "equivalent", None),
        ("f", "x >= 0.0", "diverged", Some(&is_minus_zero)),
        (
            "f",
            "x > -INFINITY && x <= 0",
            "diverged",
            Some(&is_minus_zero),
        ),
        ("f", "x != 0.0", "diverged", Some(&is_negative_nan)),
        ("f", "!(x == 0.0)", "diverged", Some(&is_negative_nan)),
        // A float compared with double literals is converted to double first.
        ("g", "x < -1e-46 || x > 1e-46", "equivalent", None),
        ("g", "x * 2.0f != 0 && x == x", "equivalent", None),
        ("g", "x <= 0.0f && !(x < 0.0)", "diverged", None),
        // Debug information makes `p[1]` the second double (bytes 8 to 15).
        ("h", "p[1] > 0.0 || p[1] < 0.0", "equivalent", None),
        ("h", "p[1] >= 0.0 && p[0] == p[0]", "diverged", None),
    ];
    for opt in ["-O0", "-O2"] {
        let dir = tempfile::tempdir().unwrap();
        compile_pair(dir.path(), a, b, opt);
        for (function, assume, verdict, input) in cases {
            let o = xcheck(
                dir.path(),
                &["a.bc", "b.bc", "--function", function, "--assume", assume],
            );
            let out = format!("{}{}", stdout(&o), stderr(&o));
            let report: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.path().join("xcheck-out/report.json")).unwrap(),
            )
            .unwrap();
            let what = format!("{opt} {function} --assume '{assume}'");
            assert_eq!(report["summary"]["overall"], *verdict, "{what}: {out}");
            assert_eq!(
                o.status.code(),
                Some(if *verdict == "equivalent" { 0 } else { 1 }),
                "{what}: {out}"
            );
            if let Some(check) = input {
                for row in report["rows"].as_array().unwrap() {
                    if row["verdict"] != "diverged" {
                        continue;
                    }
                    let bytes: Vec<u8> = row["inputs"][0]["bytes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|b| b.as_u64().unwrap() as u8)
                        .collect();
                    let bits = u64::from_le_bytes(bytes.try_into().unwrap());
                    assert!(check(bits), "{what}: diverged at {bits:#x}");
                }
            }
        }
    }
}

/// Floating operands where C allows only integers, and literals C does not have, are
/// one-line usage errors (exit 2) naming the operator or the literal.
#[test]
fn floating_point_precondition_errors() {
    let dir = tempfile::tempdir().unwrap();
    compile_pair(
        dir.path(),
        "double f(double x) { return x; }\n",
        "double f(double x) { return x + 0.0; }\n",
        "-O0",
    );
    for (assume, message) in [
        ("x % 2 > 0", "invalid operands to binary % (double and int)"),
        (
            "(x & 1) == 0",
            "invalid operands to binary & (double and int)",
        ),
        (
            "x < 1.5L",
            "floating literal '1.5L' is a long double, which is not supported",
        ),
        (
            "x < 1e",
            "floating literal '1e' has no digits in its exponent",
        ),
        (
            "x < 0x1p",
            "floating literal '0x1p' has no digits in its exponent",
        ),
        (
            "x < 0x1.8",
            "hexadecimal floating literal '0x1.8' needs a binary exponent",
        ),
    ] {
        let o = xcheck(
            dir.path(),
            &["a.bc", "b.bc", "--function", "f", "--assume", assume],
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{assume}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{assume}: {err}");
        assert!(err.contains(message), "{assume}: {err}");
    }
}

/// Floating-point literals of assorted forms and types, special values included.
const FP_LITERALS: &[&str] = &[
    "0.0",
    "1.5",
    "2.0f",
    "1e6",
    "0.1f",
    "0.1",
    "0x1p-3",
    "0x1.8p+1f",
    ".5",
    "3.",
    "1e-310",
    "INFINITY",
    "NAN",
    "3",
    "-1",
];

/// An arithmetic expression of floating type (or an int `a` converted where it meets one).
fn fp_expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.below(3) == 0 {
        return match rng.below(6) {
            0 | 1 => "x".to_string(),
            2 | 3 => "y".to_string(),
            4 => "a".to_string(),
            _ => pick(rng, FP_LITERALS).to_string(),
        };
    }
    match rng.below(5) {
        0 => format!("-({})", fp_expr(rng, depth - 1)),
        _ => format!(
            "({} {} {})",
            fp_expr(rng, depth - 1),
            pick(rng, &["+", "-", "*", "+"]),
            fp_expr(rng, depth - 1)
        ),
    }
}

/// A condition over floating values: comparisons, truthiness and the logical operators.
fn fp_cond(rng: &mut Rng, depth: u32) -> String {
    match rng.below(if depth == 0 { 2 } else { 6 }) {
        0 => format!(
            "({} {} {})",
            fp_expr(rng, 1),
            pick(rng, &["<", "<=", ">", ">=", "==", "!="]),
            fp_expr(rng, 1)
        ),
        1 => fp_expr(rng, 1),
        2 => format!("!({})", fp_cond(rng, depth - 1)),
        _ => format!(
            "({} {} {})",
            fp_cond(rng, depth - 1),
            pick(rng, &["&&", "||"]),
            fp_cond(rng, depth - 1)
        ),
    }
}

/// As `assume_means_what_c_means`, over `double x, float y, int a` and floating literals.
#[test]
fn floating_assume_means_what_c_means() {
    const CASES: usize = 48;
    let mut rng = Rng(0x5eed_0012);
    let exprs: Vec<String> = (0..CASES).map(|_| fp_cond(&mut rng, 3)).collect();
    let dir = tempfile::tempdir().unwrap();
    let (mut a, mut b) = (String::from("#include <math.h>\n"), String::new());
    let mut config =
        String::from("[defaults]\nmax_time = \"60s\"\n\n[[pair]]\na = \"a.bc\"\nb = \"b.bc\"\n");
    const FP_PARAMS: &str = "double x, float y, int a";
    for (i, e) in exprs.iter().enumerate() {
        writeln!(a, "int t{i}({FP_PARAMS}) {{ return ({e}) != 0; }}").unwrap();
        writeln!(a, "int f{i}({FP_PARAMS}) {{ return ({e}) != 0; }}").unwrap();
        writeln!(b, "int t{i}({FP_PARAMS}) {{ return 1; }}").unwrap();
        writeln!(b, "int f{i}({FP_PARAMS}) {{ return 0; }}").unwrap();
        writeln!(
            config,
            "[[pair.function]]\nname = \"t{i}\"\nassume = [\"{e}\"]\n[[pair.function]]\nname = \"f{i}\"\nassume = [\"!({e})\"]",
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("check.toml"), &config).unwrap();
    compile_pair(dir.path(), &a, &b, "-O0");
    // `-(a)` and `a * 3` overflow for some `int a` on side A alone, which --ub report would
    // name; the subject here is what the precondition means.
    let args = ["--config", "check.toml", "--json", "--ub", "machine"];
    let o = xcheck(dir.path(), &args);
    let (mut checked, mut contradictions, mut failures) = (0, 0, Vec::new());
    for line in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let function = v["function"].as_str().unwrap().to_string();
        let i: usize = function[1..].parse().unwrap();
        match v["verdict"].as_str().unwrap() {
            "equivalent" => checked += 1,
            "error"
                if v["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("contradict")) =>
            {
                contradictions += 1
            }
            other => failures.push(format!(
                "{function}: {other} for `{}` (error: {})",
                exprs[i], v["error"]
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n{}",
        failures.join("\n"),
        stderr(&o)
    );
    assert_eq!(checked + contradictions, 2 * CASES, "{}", stderr(&o));
    assert!(
        checked >= CASES * 3 / 2,
        "too few checkable cases: {checked}"
    );
}
