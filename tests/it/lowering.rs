//! The lowering as data: the engine's IR text form (`src/ir/text.rs`, `xcheck show --ir`) and
//! its parser (`src/ir/parse.rs`).
//!
//! - Every function of the corpus (`corpora/`, built by scripts/build-corpora.sh with clang-19
//!   and clang-14) and of the LLVM 15–19 fixtures (`llvm19.rs`) round-trips: its text parses,
//!   prints the same text again, and the parsed function has the lowered one's structure.
//! - Snapshots: chosen functions printed and compared with
//!   `tests/data/lowering/<source>.<function>.ir`; `XCHECK_BLESS=1 cargo test --release
//!   --test it lowering` writes the new text instead, for review in the diff. Together they
//!   cover every construct (instruction kind with its operator and flags, terminator, phi)
//!   that the corpus and the fixtures lower to: a construct no snapshot shows fails the test.

use crate::common::*;
use crate::corpus::{build_corpora, build_dir};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use xcheck::ir::parse::{parse, same_structure};
use xcheck::ir::{FuncId, Side};

/// Each snapshot: where the function comes from (`case.side.level` of the clang-19 corpus,
/// or `llvm19.<fixture>`, `llvm19.rs`'s bitcode) and the function. The comments say what
/// each adds to the coverage.
const SNAPSHOTS: &[(&str, &str)] = &[
    // An intrinsic (llvm.abs) and a return value's range.
    ("abs.a.O2", "abs_value"),
    ("abs.b.O2", "abs_value"),
    // Stack slots, loads and stores, a loop with its branches.
    ("array_max.a.O0", "max_element"),
    // The same loop optimised: phis, pointer arithmetic.
    ("array_max.a.O2", "max_element"),
    // An overflow intrinsic's aggregate and its extraction.
    ("checked_add.a.O2", "checked_add"),
    // A table in a global, a switch or a lookup.
    ("day_of_year.a.O2", "day_of_year"),
    // Byte loads and bit operations.
    ("crc32_sliced.a.O2", "crc32_2"),
    // Floating point.
    ("fp_hypot_swap.a.O2", "hypot2"),
    // A loop over two buffers.
    ("memcmp.a.O2", "compare_buffers"),
    // The rest of the constructs, as the coverage test's greedy suggestion picked them
    // (`clang14.`: the clang-14 corpus; `llvm19.`: llvm19.rs's fixtures).
    ("clang14.memchr.b.O0", "find_byte"), // ["call", "intrinsic Cttz", "mul", "sdiv", "sub", "trunc"]
    ("llvm19.asm", "flags"), // ["add nuw", "copy", "or disjoint", "shl", "trunc nsw nuw"]
    ("llvm19.asm", "vclass"), // ["extractelement", "insertelement", "poison", "vector Intrinsic(FpClass)"]
    ("clang14.fp_bisect.b.O2", "bisect_sqrt"), // ["float Binary(Add)", "float Binary(Sub)", "float Cmp(Ogt)", "float Cmp(Olt)"]
    ("clang14.fp_is_integer.a.O2", "is_integer"), // ["float Cmp(Oeq)", "float FromSInt", "float ToSInt"]
    ("llvm19.opt", "vector_clz"), // ["ret void", "vector Binary(Or)", "vector Intrinsic(Ctlz)"]
    ("sum_to_n.a.O2", "sum_to_n"), // ["intrinsic UMin", "shl nsw nuw", "trunc nuw"]
    ("clang14.fp_floor_ceil.b.O2", "round_down"), // ["float Neg", "float Unary(Ceil)"]
    ("llvm19.opt", "reduce_popcount"), // ["reduce Add", "vector Intrinsic(Ctpop)"]
    ("clang14.ceil_div.b.O2", "ceil_div"), // ["udiv", "urem"]
    ("clang14.parse_decimal.b.O0", "is_digit"), // ["icmp sge", "icmp sle"]
    ("clang14.fp_bisect_le.b.O2", "bisect_sqrt"), // ["float Cmp(Ugt)", "float Cmp(Ult)"]
    ("clang14.fp_bisect_le.b.O0", "bisect_sqrt"), // ["float Binary(Div)", "float Cmp(Ole)"]
    ("clang14.memchr.b.O2", "find_byte"), // ["mul nuw", "shl nuw"]
    ("clang14.fp_sqrt_square.b.O2", "norm1"), // ["float Abs"]
    ("clang14.fp_floor_ceil.a.O2", "round_down"), // ["float Unary(Floor)"]
    ("clang14.fp_fmin_branch.a.O2", "smaller"), // ["float Min"]
    ("min.b.O2", "min_int"),      // ["intrinsic SMin"]
    ("llvm19.opt", "set_inline"), // ["intrinsic Memset"]
    ("llvm19.asm", "scmp"),       // ["intrinsic ThreeWayCmp { signed: true }"]
    ("llvm19.asm", "ucmp"),       // ["intrinsic ThreeWayCmp { signed: false }"]
    ("llvm19.opt", "copy_inline"), // ["intrinsic Memcpy"]
    ("clang14.fp_trunc_int.b.O2", "to_int"), // ["float Unary(Trunc)"]
    ("popcount.b.O2", "popcount"), // ["intrinsic Ctpop"]
    ("llvm19.opt", "reduce_and"), // ["reduce And"]
    ("llvm19.opt", "reduce_xor"), // ["reduce Xor"]
    ("clang14.sign.a.O2", "sign"), // ["ashr"]
    ("llvm19.opt", "fpc_neg"),    // ["intrinsic FpClass"]
    ("clang14.mod.a.O2", "mod"),  // ["shl nsw"]
    ("llvm19.opt", "tls"),        // ["intrinsic PassThrough"]
    ("clang14.fp_nan_min.b.O2", "nan_min"), // ["float Cmp(Uno)"]
    ("clang14.fp_fabs_copysign.b.O0", "magnitude"), // ["float CopySign"]
    ("llvm19.asm", "fprod"),      // ["reduce Ordered(Mul)"]
    ("llvm19.asm", "vscmp"),      // ["vector Intrinsic(ThreeWayCmp { signed: true })"]
    ("clang14.sum_to_n.b.O2", "sum_to_n"), // ["mul nsw nuw"]
    ("clang14.fp_float_madd.a.O2", "madd"), // ["float Convert"]
    ("llvm19.wrong", "fpc_qnan"), // ["float Cmp(Une)"]
    ("llvm19.asm", "fsum"),       // ["reduce Ordered(Add)"]
    ("llvm19.asm", "vrev"),       // ["shuffle"]
    ("llvm19.opt", "vector_abs"), // ["vector Intrinsic(Abs)"]
    ("llvm19.asm", "fsum_reassoc"), // ["unsupported"]
    ("llvm19.wrong", "fpc_nonneg_finite"), // ["float Cmp(Oge)"]
    ("is_pow2.a.O2", "is_power_of_two"), // ["lshr exact"]
    ("llvm19.ref", "zext_nneg"),  // ["mul nsw"]
    ("clang14.factorial.a.O0", "fact"), // ["icmp ule"]
    ("clang14.ceil_div.b.O0", "ceil_div"), // ["srem"]
    ("clang14.samples_sum.b.O2", "samples_sum"), // ["switch"]
    ("llvm19.ref", "vector_clz"), // ["intrinsic Ctlz"]
    ("clang14.factorial.a.O2", "factorial"), // ["undef"]
];

/// The bitcode file a snapshot's source names.
fn source_file(source: &str, fixtures: &[(&'static str, PathBuf)]) -> PathBuf {
    if let Some(name) = source.strip_prefix("llvm19.") {
        let (_, path) = fixtures
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no llvm19 fixture '{name}'"));
        return path.clone();
    }
    let (corpus, source) = match source.strip_prefix("clang14.") {
        Some(rest) => ("corpora-clang14", rest),
        None => ("corpora", source),
    };
    let (case, file) = source.split_once('.').expect("case.side.level");
    build_dir().join(format!("{corpus}/{case}/{file}.bc"))
}

/// `llvm19.rs`'s bitcode, built once per test process.
fn fixtures() -> &'static [(&'static str, PathBuf)] {
    static DIR: OnceLock<(tempfile::TempDir, Vec<(&'static str, PathBuf)>)> = OnceLock::new();
    let (_, files) = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let files = crate::llvm19::fixtures(dir.path());
        (dir, files)
    });
    files
}

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
    for &(source, function) in SNAPSHOTS {
        let bc = source_file(source, fixtures());
        let text = ir_text(&bc, function);
        assert!(text.contains(&format!("@A.{function}(")), "{text}");
        let file = repo().join(format!("tests/data/lowering/{source}.{function}.ir"));
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

/// Every expected file is a snapshot the test compares (none is left behind by a removed
/// entry of SNAPSHOTS), and each is IR text that parses and prints back unchanged.
#[test]
fn every_lowering_snapshot_is_compared_and_parses() {
    let dir = repo().join("tests/data/lowering");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let listed = SNAPSHOTS
            .iter()
            .any(|(source, function)| name == format!("{source}.{function}.ir"));
        assert!(
            listed,
            "tests/data/lowering/{name} is in no entry of SNAPSHOTS"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(parsed.text(), text, "{name} does not print back as it is");
    }
}

/// What a scan of bitcode files found: how many functions round-tripped, the failures, and
/// for the files' own functions (side A, not musl's), which function first shows each
/// construct.
#[derive(Default)]
struct Scan {
    functions: usize,
    failures: Vec<String>,
    constructs: BTreeMap<String, String>,
    /// The files' own functions as SNAPSHOTS names them, with their text's length and their
    /// constructs (for a suggestion of snapshots to add).
    own: Vec<(String, String, usize, BTreeSet<String>)>,
}

/// Prints, parses and prints again every function `bc` defines, and compares the parsed
/// structure with the lowered one.
fn scan_file(bc: &Path, label: &str, source: &str, scan: &mut Scan) {
    let module =
        xcheck::load::load(bc, None, &[]).unwrap_or_else(|e| panic!("{}: {e}", bc.display()));
    for (i, f) in module.functions.iter().enumerate() {
        if f.is_declaration() {
            continue;
        }
        let id = FuncId(i as u32);
        scan.functions += 1;
        let text = module.function_text(id).to_string();
        let what = format!("{label}: @{}", f.name);
        let parsed = match parse(&text) {
            Ok(p) => p,
            Err(e) => {
                scan.failures.push(format!("{what}: {e}\n{text}"));
                continue;
            }
        };
        let again = parsed.text();
        if again != text {
            scan.failures
                .push(format!("{what} prints back otherwise:\n{text}---\n{again}"));
        } else if let Err(e) = same_structure((&module, id), (&parsed.module, parsed.functions[0]))
        {
            scan.failures.push(format!("{what}: {e}"));
        }
        if f.side == Side::A && !module.library.contains(&f.name) {
            for c in f.constructs() {
                scan.constructs.entry(c).or_insert_with(|| what.clone());
            }
            let name = f.source_name.clone();
            scan.own
                .push((source.to_string(), name, text.len(), f.constructs()));
        }
    }
}

/// The scan of every corpus file (clang-19 and clang-14) and fixture, once per process.
fn scan() -> &'static Scan {
    static SCAN: OnceLock<Scan> = OnceLock::new();
    SCAN.get_or_init(|| {
        build_corpora();
        let mut scan = Scan::default();
        for (corpus, prefix) in [("corpora", ""), ("corpora-clang14", "clang14.")] {
            let dir = build_dir().join(corpus);
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .flat_map(|case| std::fs::read_dir(case.unwrap().path()).unwrap())
                .map(|f| f.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "bc"))
                .collect();
            files.sort();
            for bc in files {
                let label = bc.strip_prefix(build_dir()).unwrap().display().to_string();
                let case = bc.parent().unwrap().file_name().unwrap().to_string_lossy();
                let stem = bc.file_stem().unwrap().to_string_lossy();
                scan_file(&bc, &label, &format!("{prefix}{case}.{stem}"), &mut scan);
            }
        }
        for (name, bc) in fixtures() {
            let label = format!("llvm19.{name}");
            scan_file(bc, &label, &label, &mut scan);
        }
        scan
    })
}

#[test]
fn ir_text_round_trips_on_every_corpus_function() {
    let scan = scan();
    eprintln!("{} functions round-trip", scan.functions);
    assert!(scan.functions > 500, "only {} functions", scan.functions);
    assert!(
        scan.failures.is_empty(),
        "{} of {} functions do not round-trip:\n{}",
        scan.failures.len(),
        scan.functions,
        scan.failures.join("\n")
    );
}

/// A greedy choice of functions whose snapshots would show every construct `covered` lacks.
fn suggest(scan: &Scan, covered: &BTreeSet<String>) -> Vec<String> {
    let mut covered = covered.clone();
    let mut out = Vec::new();
    loop {
        let best = scan
            .own
            .iter()
            .map(|(source, f, len, cs)| (cs.difference(&covered).count(), *len, source, f, cs))
            .filter(|(new, ..)| *new > 0)
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let Some((_, _, source, f, cs)) = best else {
            return out;
        };
        let new: Vec<&String> = cs.difference(&covered).collect();
        out.push(format!("    (\"{source}\", \"{f}\"), // {new:?}"));
        covered.extend(cs.iter().cloned());
    }
}

/// Every construct the corpus and the fixtures lower to appears in a snapshot.
#[test]
fn snapshots_cover_every_construct() {
    let mut covered = BTreeSet::new();
    for (source, function) in SNAPSHOTS {
        let file = repo().join(format!("tests/data/lowering/{source}.{function}.ir"));
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue; // lowering_matches_its_snapshots says it is missing
        };
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for &f in &parsed.functions {
            covered.extend(parsed.module.function(f).constructs());
        }
    }
    let scan = scan();
    let missing: Vec<String> = scan
        .constructs
        .iter()
        .filter(|(c, _)| !covered.contains(*c))
        .map(|(c, first)| format!("  {c:<40} first in {first}"))
        .collect();
    eprintln!(
        "lowering snapshots cover {} of the {} constructs of the corpus and fixtures",
        scan.constructs.len() - missing.len(),
        scan.constructs.len()
    );
    assert!(
        missing.is_empty(),
        "constructs no snapshot shows:\n{}\nthese functions would show them all (smallest \
         first among those that add most):\n{}",
        missing.join("\n"),
        suggest(scan, &covered).join("\n")
    );
}
