//! Build steps cargo cannot infer: link CaDiCaL for the vendored Bitwuzla, and compile the
//! C harness (KLEE-compatible conveniences) to bitcode that the binary embeds.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rustc-link-lib=cadical");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=harness");

    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let clang = std::env::var("XCHECK_CLANG").unwrap_or_else(|_| "clang-14".to_string());
    let link = std::env::var("XCHECK_LLVM_LINK").unwrap_or_else(|_| "llvm-link-14".to_string());
    let mut parts = Vec::new();
    // The KLEE conveniences, the small C library for function checks, and the POSIX model
    // (every `.c` under `harness/posix/`) that whole-program checks run on.
    let mut sources = vec!["klee.c".to_string(), "libc.c".to_string()];
    if let Ok(dir) = std::fs::read_dir("harness/posix") {
        let mut posix: Vec<String> = dir
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".c"))
            .map(|n| format!("posix/{n}"))
            .collect();
        posix.sort();
        sources.extend(posix);
    }
    for source in &sources {
        let part = out.join(source.replace(".c", ".bc").replace('/', "_"));
        run(Command::new(&clang)
            .args([
                "-c",
                "-emit-llvm",
                "-O1",
                "-g",
                "-target",
                "x86_64-unknown-linux-gnu",
            ])
            .args([
                "-fno-vectorize",
                "-fno-slp-vectorize",
                "-ffreestanding",
                "-fno-builtin",
            ])
            .args(["-I", "harness/include"])
            .arg(format!("harness/{source}"))
            .arg("-o")
            .arg(&part));
        parts.push(part);
    }
    run(Command::new(&link)
        .args(&parts)
        .arg("-o")
        .arg(out.join("harness.bc")));
}

fn run(command: &mut Command) {
    match command.status() {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("{command:?} failed ({s})"),
        Err(e) => panic!("cannot run {command:?} ({e}): run scripts/install.sh first"),
    }
}
