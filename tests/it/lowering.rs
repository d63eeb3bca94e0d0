//! Snapshots of the lowering: small C functions of `corpora/` (built by
//! scripts/build-corpora.sh with clang-19) printed in the engine's IR text form (`xcheck show
//! --ir`, `src/ir/text.rs`) and compared with `tests/data/lowering/<case>.<side>.<level>.ir`.
//! A change of the lowering changes the text and fails the test, which prints both;
//! `XCHECK_BLESS=1 cargo test --release --test it lowering` writes the new text instead,
//! for review in the diff.

use crate::common::*;
use crate::corpus::{build_corpora, build_dir};
use std::path::Path;

/// Each snapshot: the case, its side, the optimisation level, the function.
const SNAPSHOTS: &[(&str, &str, &str, &str)] = &[
    // An intrinsic (llvm.abs) and a return value's range.
    ("abs", "a", "O2", "abs_value"),
    ("abs", "b", "O2", "abs_value"),
    // Stack slots, loads and stores, a loop with its branches.
    ("array_max", "a", "O0", "max_element"),
    // The same loop optimised: phis, pointer arithmetic.
    ("array_max", "a", "O2", "max_element"),
    // An overflow intrinsic's aggregate and its extraction.
    ("checked_add", "a", "O2", "checked_add"),
    // A table in a global, a switch or a lookup.
    ("day_of_year", "a", "O2", "day_of_year"),
    // Byte loads and bit operations.
    ("crc32_sliced", "a", "O2", "crc32_2"),
    // Floating point.
    ("fp_hypot_swap", "a", "O2", "hypot2"),
    // A loop over two buffers.
    ("memcmp", "a", "O2", "compare_buffers"),
];

/// The IR text of `function` in the bitcode file `bc`, as `xcheck show --ir` prints it.
fn ir_text(bc: &Path, function: &str) -> String {
    let out = xcheck(
        &repo(),
        &["show", "--ir", bc.to_str().unwrap(), "--function", function],
    );
    assert!(out.status.success(), "xcheck show --ir: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn lowering_matches_its_snapshots() {
    build_corpora();
    let bless = std::env::var_os("XCHECK_BLESS").is_some_and(|v| v == "1");
    let mut changed = Vec::new();
    for &(case, side, level, function) in SNAPSHOTS {
        let bc = build_dir().join(format!("corpora/{case}/{side}.{level}.bc"));
        let text = ir_text(&bc, function);
        assert!(text.contains(&format!("@A.{function}(")), "{text}");
        let file = repo().join(format!("tests/data/lowering/{case}.{side}.{level}.ir"));
        if bless {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e}; XCHECK_BLESS=1 writes it", file.display()));
        if text != expected {
            changed.push(format!(
                "{}:\n--- expected\n{expected}--- lowered now\n{text}",
                file.display()
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "the lowering changed (XCHECK_BLESS=1 accepts it):\n{}",
        changed.join("\n")
    );
}

/// Every expected file is a snapshot the test compares: none is left behind by a removed
/// entry of SNAPSHOTS.
#[test]
fn every_lowering_snapshot_is_compared() {
    let dir = repo().join("tests/data/lowering");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let listed = SNAPSHOTS
            .iter()
            .any(|(case, side, level, _)| name == format!("{case}.{side}.{level}.ir"));
        assert!(
            listed,
            "tests/data/lowering/{name} is in no entry of SNAPSHOTS"
        );
    }
}
