//! Integers wider than 128 bits (issue 10, "Bad input never crashes": clang emits `i160`
//! loads for packed bit-fields), run end to end through the binary: bit-fields against the
//! same fields read and written by hand (`tests/fixtures/wide_{a,b}.c`), and each legalized
//! operation against a byte-level reference (`wide_ops.ll` against `wide_ops_ref.c`).

use crate::common::*;
use std::path::Path;

/// Runs `xcheck A B --function f` on two fixtures compiled at `opt`: the exit code, the
/// printed output and the report.
fn check(
    dir: &Path,
    a: &str,
    b: &str,
    f: &str,
    opt: &str,
) -> (Option<i32>, String, serde_json::Value) {
    // At -O2 clang-19's SLP vectorizer turns the byte stores of `set_b` into `<4 x i128>`
    // (wider than 128 bits, one register per lane: `lower/wide_vector.rs`).
    let a = compile_fixture(a, dir, opt);
    let b = compile_fixture(b, dir, opt);
    let out = dir.join(format!("out-{f}{opt}"));
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
    let report = std::fs::read_to_string(out.join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (o.status.code(), text, report)
}

/// Asserts that every path of `f` was proved (none unknown: the wide values were modelled).
fn assert_proved(a: &str, b: &str, f: &str) {
    for opt in ["-O0", "-O2"] {
        let dir = tempfile::tempdir().unwrap();
        let (code, out, report) = check(dir.path(), a, b, f, opt);
        assert_eq!(code, Some(0), "{f} {opt}: {out}");
        let summary = &report["summary"];
        assert_eq!(summary["overall"], "equivalent", "{f} {opt}: {out}");
        assert_eq!(summary["unknown"], 0, "{f} {opt}: {out}");
        assert!(summary["proved"].as_u64().unwrap() >= 1, "{f} {opt}: {out}");
    }
}

// See: #10, bad input never crashes. Packed bit-fields with a 160-bit storage unit.
#[test]
fn packed_bit_fields_equal_their_bytes() {
    for f in [
        "get_b", "get_c", "get_sc", "set_b", "set_c", "inc_b", "same_b",
    ] {
        assert_proved("wide_a.c", "wide_b.c", f);
    }
}

// See: #10. A's field is one bit wider: the divergence is found, replayed, and needs bit 120.
#[test]
fn a_wider_bit_field_diverges_on_its_extra_bit() {
    for opt in ["-O0", "-O2"] {
        let dir = tempfile::tempdir().unwrap();
        let (code, out, report) = check(dir.path(), "wide_a.c", "wide_b.c", "wide_b", opt);
        assert_eq!(code, Some(1), "{opt}: {out}");
        let row = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["verdict"] == "diverged")
            .unwrap_or_else(|| panic!("{opt}: a divergence: {out}"));
        assert_eq!(row["confirmed"], true, "{opt}: {out}");
        let bytes: Vec<u8> = row["inputs"][0]["bytes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().unwrap() as u8)
            .collect();
        assert_eq!(bytes.len(), 20, "{opt}: {out}");
        assert_eq!(bytes[15] & 1, 1, "{opt}: bit 120 must be set: {bytes:?}");
    }
}

#[test]
fn wide_add_sub_and_compare_match_bytes() {
    for f in ["add160", "sub160", "add300", "cmp160"] {
        assert_proved("wide_ops.ll", "wide_ops_ref.c", f);
    }
}

#[test]
fn wide_shifts_casts_phi_and_select_match_bits() {
    for f in ["shifts200", "casts", "choose"] {
        assert_proved("wide_ops.ll", "wide_ops_ref.c", f);
    }
}

// An operation the legalization does not expand stays unsupported, named with its type.
#[test]
fn wide_multiplication_is_unknown_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, report) = check(dir.path(), "wide_ops.ll", "wide_ops_ref.c", "mul160", "-O0");
    assert_eq!(code, Some(3), "{out}");
    assert_eq!(report["summary"]["unknown"], 1, "{out}");
    assert!(out.contains("mul on i160 (wider than 128 bits)"), "{out}");
}
