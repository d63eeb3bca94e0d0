//! Build steps cargo cannot infer: link CaDiCaL for the vendored Bitwuzla, and compile the
//! C harness (KLEE-compatible conveniences) to bitcode that the binary embeds.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rustc-link-lib=cadical");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=harness");

    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let harness = out.join("harness.bc");
    let clang = std::env::var("XCHECK_CLANG").unwrap_or_else(|_| "clang-14".to_string());
    let status = Command::new(&clang)
        .args([
            "-c",
            "-emit-llvm",
            "-O1",
            "-g",
            "-target",
            "x86_64-unknown-linux-gnu",
        ])
        .args(["-fno-vectorize", "-fno-slp-vectorize", "-ffreestanding"])
        .args(["-I", "harness/include", "harness/klee.c", "-o"])
        .arg(&harness)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("{clang} failed on harness/klee.c ({s})"),
        Err(e) => panic!("cannot run {clang} ({e}): run scripts/install.sh first"),
    }
}
