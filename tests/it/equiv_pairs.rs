//! A CI sample of the equivalence benchmark (issue 33, `corpora/equiv-pairs`, run in full by
//! `scripts/bench_equiv_pairs.py`): six pairs, equivalent and not, checked with a low limit.
//! Only soundness is asserted, never timing or how many are decided: an EQUIVALENT on a pair
//! labelled not, or a confirmed difference on a pair labelled equivalent, fails.

use super::common::{repo, xcheck};
use std::process::Command;

/// The sample: loops, recursion, numerical code and printing, both labels.
const SAMPLE: [&str; 6] = [
    "loop_unroll_remainder_bug",
    "loop_popcount",
    "rec_factorial_base",
    "num_avg_uint",
    "print_pad_zero",
    "print_yesno",
];

/// A pair's `pair.toml` value of `key` (a string).
fn field(toml: &str, key: &str) -> String {
    let line = toml
        .lines()
        .find(|l| l.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no {key} in {toml}"));
    line.split('"').nth(1).unwrap().to_string()
}

#[test]
fn the_sample_gets_no_wrong_verdict() {
    let dir = tempfile::tempdir().unwrap();
    for name in SAMPLE {
        let pair = repo().join("corpora/equiv-pairs").join(name);
        let toml = std::fs::read_to_string(pair.join("pair.toml")).unwrap();
        let (function, label) = (field(&toml, "function"), field(&toml, "label"));
        let mut bcs = Vec::new();
        for side in ["a", "b"] {
            let bc = dir.path().join(format!("{name}.{side}.bc"));
            let status = Command::new(xcheck::toolchain::CLANG)
                .args(["-O0", "-g", "-c", "-emit-llvm", "-w"])
                .arg(pair.join(format!("{side}.c")))
                .arg("-o")
                .arg(&bc)
                .status()
                .unwrap();
            assert!(status.success(), "{name}/{side}.c compiles");
            bcs.push(bc.to_str().unwrap().to_string());
        }
        let out = format!("{name}.out");
        let args = [
            bcs[0].as_str(),
            bcs[1].as_str(),
            "--function",
            &function,
            "--max-time",
            "5",
            "-j",
            "1",
            "-o",
            &out,
        ];
        let o = xcheck(dir.path(), &args);
        let code = o.status.code().unwrap_or(-1);
        // 0 equivalent, 1 confirmed divergence, 3 inconclusive (allowed either way).
        match label.as_str() {
            "equivalent" => assert_ne!(
                code, 1,
                "{name}: a confirmed difference on an equivalent pair"
            ),
            "not" => assert_ne!(code, 0, "{name}: EQUIVALENT on a pair that is not"),
            other => panic!("{name}: unknown label {other}"),
        }
        assert!(matches!(code, 0 | 1 | 3), "{name}: exit {code}");
    }
}
