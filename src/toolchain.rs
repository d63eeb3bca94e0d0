//! The LLVM toolchain xcheck runs: one version, named here, for every compiler and tool.
//!
//! `xcheck cc`, the native replay of function checks, the message that suggests
//! `opt -strip-debug`, and `build.rs` (which includes this file by path) run these programs;
//! Debian's `clang-19`, `lld-19` and `llvm-19` packages install them (scripts/install.sh).
//! The shell scripts take the same version from `scripts/lib/llvm.sh`, the Python scripts
//! read it there. It is the LLVM that xcheck links (Cargo.toml's `llvm19-1` feature), so the
//! bitcode these tools write is never newer than the reader.
//! clang finds lld (`-fuse-ld=lld`) beside itself, in `/usr/lib/llvm-19/bin`.

/// The LLVM major version, the one place it is written.
macro_rules! llvm_version {
    () => {
        "19"
    };
}

/// The C compiler (and linker driver).
pub const CLANG: &str = concat!("clang-", llvm_version!());
/// The optimizer: internalize and global DCE of whole-program bitcode.
pub const OPT: &str = concat!("opt-", llvm_version!());
/// The bitcode linker.
pub const LLVM_LINK: &str = concat!("llvm-link-", llvm_version!());
/// The symbol lister of object files.
pub const LLVM_NM: &str = concat!("llvm-nm-", llvm_version!());
/// The object-file editor that renames symbols apart.
pub const LLVM_OBJCOPY: &str = concat!("llvm-objcopy-", llvm_version!());
/// The disassembler (the tests read the IR clang wrote with it).
pub const LLVM_DIS: &str = concat!("llvm-dis-", llvm_version!());
