# shellcheck shell=bash disable=SC2034
# The LLVM toolchain of the shell scripts: one version, named here, for every compiler and
# tool they run (build-musl.sh, build-utils.sh, fp-ground-truth.sh, install.sh,
# harness/posix/test/run.sh). Sourced, never run; nothing is exported (a script exports what
# its children need). It is the version xcheck links and runs (src/toolchain.rs), so the
# bitcode these scripts write is never newer than xcheck's reader. scripts/build-corpora.sh
# names its two compilers (clang-19 and clang-14) itself.
LLVM_VERSION=19
LLVM_BIN="/usr/lib/llvm-$LLVM_VERSION/bin"
CLANG="clang-$LLVM_VERSION"
OPT="opt-$LLVM_VERSION"
LLVM_LINK="llvm-link-$LLVM_VERSION"
LLVM_AR="llvm-ar-$LLVM_VERSION"
LLVM_RANLIB="llvm-ranlib-$LLVM_VERSION"
LLVM_NM="llvm-nm-$LLVM_VERSION"
LLVM_DIS="llvm-dis-$LLVM_VERSION"
LLVM_OBJCOPY="llvm-objcopy-$LLVM_VERSION"
LLVM_STRIP="llvm-strip-$LLVM_VERSION"
LD_LLD="ld.lld-$LLVM_VERSION"
# The Debian packages that provide them.
LLVM_PKG_CLANG="clang-$LLVM_VERSION"
LLVM_PKG_TOOLS="llvm-$LLVM_VERSION"
LLVM_PKG_LLD="lld-$LLVM_VERSION"
