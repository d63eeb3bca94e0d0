//! LLVM's arithmetic intrinsics against their C definitions, run end to end through the
//! binary: each saturating operation of `tests/fixtures/sat_b.c` (`llvm.[su]{add,sub}.sat`
//! at 8 and 64 bits) must be proved equal to the branches of `sat_a.c`, and so must the
//! references against what clang -O2 makes of them. `usub.sat` once saturated at the maximum
//! instead of 0: musl's `vsnprintf(NULL, 0, …)` then copied past a 1-byte buffer, and every
//! busybox `split` path failed in the engine and nowhere else.

use crate::common::*;
use std::path::Path;

const FUNCTIONS: [&str; 9] = [
    "usub8", "uadd8", "ssub8", "sadd8", "usub64", "uadd64", "ssub64", "sadd64", "room",
];

/// Asserts that `xcheck A B --function f` proves every path of `f` equal.
fn assert_proved(dir: &Path, a: &Path, b: &Path, f: &str) {
    let out = dir.join(format!("out-{f}"));
    let o = xcheck(
        dir,
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            f,
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{f}: {text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["summary"]["unknown"], 0, "{f}: {text}");
    assert!(
        report["summary"]["proved"].as_u64().unwrap() >= 1,
        "{f}: {text}"
    );
}

#[test]
fn saturating_intrinsics_equal_their_branches() {
    let dir = tempfile::tempdir().unwrap();
    let reference = compile_fixture("sat_a.c", dir.path(), "-O0");
    let intrinsics = compile_fixture("sat_b.c", dir.path(), "-O0");
    for f in FUNCTIONS {
        assert_proved(dir.path(), &reference, &intrinsics, f);
    }
}

#[test]
fn what_the_optimizer_makes_of_saturation_equals_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let reference = compile_fixture("sat_a.c", dir.path(), "-O0");
    let optimized = compile_fixture("sat_a.c", dir.path(), "-O2");
    for f in FUNCTIONS {
        assert_proved(dir.path(), &reference, &optimized, f);
    }
}
