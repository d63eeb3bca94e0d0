//! Layering and hygiene rules of ARCHITECTURE.md, checked on the source tree.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn all_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 20, "source tree not found");
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn every_module_starts_with_a_doc_comment() {
    for (path, text) in all_sources() {
        assert!(
            text.starts_with("//!"),
            "{path} must start with a `//!` line saying what it is for"
        );
    }
}

#[test]
fn only_load_and_lower_touch_llvm() {
    for (path, text) in all_sources() {
        let allowed = path == "src/load.rs" || path.starts_with("src/lower/");
        let uses_llvm = text.contains("inkwell") || text.contains("llvm_sys");
        assert!(
            allowed || !uses_llvm,
            "{path} must not use inkwell/llvm_sys (only load.rs and lower/ do)"
        );
    }
}

#[test]
fn only_the_backend_uses_the_bitwuzla_bindings() {
    for (path, text) in all_sources() {
        if text.contains("bitwuzla_sys") {
            assert_eq!(
                path, "src/solver/bitwuzla.rs",
                "only the backend may use bitwuzla_sys"
            );
        }
        if !path.starts_with("src/solver/") {
            assert!(
                !text.to_lowercase().contains("bitwuzla"),
                "{path} names Bitwuzla; only src/solver/ may"
            );
        }
    }
}

#[test]
fn only_the_second_backend_uses_the_z3_bindings() {
    for (path, text) in all_sources() {
        if text.contains("z3_sys") {
            assert_eq!(
                path, "src/solver/z3.rs",
                "only the Z3 backend may use z3_sys"
            );
        }
        if !path.starts_with("src/solver/") {
            assert!(
                !text.to_lowercase().contains("z3"),
                "{path} names Z3; only src/solver/ may"
            );
        }
    }
}

#[test]
fn logic_files_stay_small() {
    for (path, text) in all_sources() {
        let lines = text.lines().count();
        assert!(
            lines <= 1500,
            "{path} has {lines} lines; split it by responsibility"
        );
    }
}

#[test]
fn no_stubs_in_the_engine() {
    for (path, text) in all_sources() {
        for stub in ["todo!(", "unimplemented!("] {
            assert!(!text.contains(stub), "{path} contains {stub}");
        }
    }
}

/// The engine's stages never write to the terminal: progress goes through shared counters
/// that the front end draws, and what users must know goes into the report (its notes).
#[test]
fn the_engine_does_not_write_to_the_terminal() {
    // A developer's trace switched on by an environment variable (`XCHECK_SLOW_QUERY_MS`),
    // not output for users.
    const ALLOWED: &[&str] = &["src/solver/chain.rs"];
    let stages = ["src/exec/", "src/expr/", "src/solver/", "src/crosscheck/"];
    for (path, text) in all_sources() {
        if !stages.iter().any(|s| path.starts_with(s)) || ALLOWED.contains(&path.as_str()) {
            continue;
        }
        // Unit tests may print what they measured.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for writer in [
            "print!(",
            "println!(",
            "eprint!(",
            "eprintln!(",
            "std::io::stderr",
            "std::io::stdout",
            "dbg!(",
        ] {
            assert!(
                !code.contains(writer),
                "{path} uses {writer}: the engine does not write to the terminal"
            );
        }
    }
}
