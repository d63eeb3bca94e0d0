//! Helpers shared by the integration tests: compiling C fixtures to bitcode, running the binary.
#![allow(dead_code)] // Each test binary uses a different subset of the helpers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles `tests/fixtures/<name>` to bitcode in `dir` with the toolchain's clang at `opt`.
pub fn compile_fixture(name: &str, dir: &Path, opt: &str) -> PathBuf {
    let out = dir.join(format!("{}.{opt}.bc", name.trim_end_matches(".c")));
    let optimizable = ["-Xclang", "-disable-O0-optnone"];
    compile_c(xcheck::toolchain::CLANG, name, &out, opt, &optimizable);
    out
}

/// Compiles `tests/fixtures/<name>` to the bitcode file `out` with compiler `cc` (clang-19 or
/// clang-14) at `opt`, with debug information, the harness's headers and `extra` flags.
pub fn compile_c(cc: &str, name: &str, out: &Path, opt: &str, extra: &[&str]) {
    let src = repo().join("tests/fixtures").join(name);
    // The harness's headers for C sources (an `.ll` fixture has none to find).
    let include = repo().join("harness/include");
    let headers: &[&std::ffi::OsStr] = if name.ends_with(".c") {
        &["-I".as_ref(), include.as_os_str()]
    } else {
        &[]
    };
    let status = Command::new(cc)
        .args(["-c", "-emit-llvm", "-g", opt])
        .args(extra)
        .args(headers)
        .arg(&src)
        .arg("-o")
        .arg(out)
        .status()
        .unwrap_or_else(|e| panic!("{cc} runs (scripts/install.sh installs it): {e}"));
    assert!(status.success(), "{cc} failed on {}", src.display());
}

/// Runs the xcheck binary with `args` in `dir`.
pub fn xcheck(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xcheck"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the xcheck binary runs")
}

/// The names of the `.ktest` files in `dir`, sorted; none when `dir` is missing.
pub fn test_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".ktest"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// SplitMix64: a fixed seed gives the same cases on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (not zero).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
