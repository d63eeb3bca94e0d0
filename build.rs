//! Build steps cargo cannot infer: link CaDiCaL for the vendored Bitwuzla, and compile the
//! C harness (KLEE-compatible conveniences) to bitcode that the binary embeds.
use std::path::PathBuf;
use std::process::Command;

// The tool names of the one LLVM version xcheck runs (this build script uses two of them).
#[allow(dead_code)]
#[path = "src/toolchain.rs"]
mod toolchain;

fn main() {
    println!("cargo:rustc-link-lib=cadical");
    // The binary is linked as a fixed-address executable: as a position-independent one,
    // the dynamic loader applied some 64,000 relocations at every start (LLVM is linked in
    // statically), and every check starts a second process to vet its bitcode.
    println!("cargo:rustc-link-arg-bins=-no-pie");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=harness");

    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=src/toolchain.rs");
    let clang = std::env::var("XCHECK_CLANG").unwrap_or_else(|_| toolchain::CLANG.to_string());
    let link =
        std::env::var("XCHECK_LLVM_LINK").unwrap_or_else(|_| toolchain::LLVM_LINK.to_string());
    // harness.bc: the KLEE conveniences and the small C library, linked into every check.
    // posix.bc: the POSIX model (every `.c` under `harness/posix/`), linked only into
    // whole-program checks, so that function checks do not lower it.
    let mut posix: Vec<String> = std::fs::read_dir("harness/posix")
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".c"))
                .map(|n| format!("posix/{n}"))
                .collect()
        })
        .unwrap_or_default();
    posix.sort();
    let base = vec!["klee.c".to_string(), "libc.c".to_string()];
    for (sources, name) in [(base, "harness.bc"), (posix, "posix.bc")] {
        let mut parts = Vec::new();
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
            .arg(out.join(name)));
    }
}

fn run(command: &mut Command) {
    match command.status() {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("{command:?} failed ({s})"),
        Err(e) => panic!("cannot run {command:?} ({e}): run scripts/install.sh first"),
    }
}
