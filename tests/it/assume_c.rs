//! The `--assume` language against C itself: random expressions over parameters of
//! assorted C types, compiled by clang as the body of a function. For every expression E,
//! `--assume 'E'` must admit only inputs where C's `E` is true, and `--assume '!(E)'` only
//! inputs where it is false (inputs on which C's evaluation is undefined are excluded by
//! both). clang's typing (promotions, usual arithmetic conversions, literal types) is the
//! oracle; it shares no code with xcheck's. See: #10 ("property tests for the precondition
//! language").

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
        let status = std::process::Command::new("clang-14")
            .args(["-c", "-emit-llvm", "-g", "-O0", "-fwrapv", "-w"])
            .args(["-Xclang", "-disable-O0-optnone"])
            .arg(dir.path().join(format!("{side}.c")))
            .arg("-o")
            .arg(dir.path().join(format!("{side}.bc")))
            .status()
            .expect("clang-14 runs");
        assert!(status.success(), "clang-14 failed on {side}.c");
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
