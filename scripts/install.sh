#!/usr/bin/env bash
# Installs everything xcheck needs on a fresh Debian 12 machine, from Debian's
# packages and crates.io only. Idempotent: a second run only checks. Fails loudly.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/llvm.sh
source "$repo/scripts/lib/llvm.sh"

# LLVM $LLVM_VERSION: the library xcheck links (llvm-N-dev, its llvm-config), the compiler and
# tools it runs (clang-N, lld-N for `xcheck cc`, llvm-N for opt, llvm-link, llvm-nm...),
# clang's builtins for `xcheck cc`'s native links (libclang-rt-N-dev) and the libclang that
# bindgen loads to build z3-sys (libclang1-N). clang-14 and llvm-14 (llvm-dis-14) build the
# clang-14 corpus (scripts/build-corpora.sh): xcheck still reads clang-14 bitcode.
# xcheck links LLVM statically (a process starts in half the time: the dynamic loader
# relocated libLLVM.so at every start, and every check starts a second process to vet its
# bitcode), and llvm-config's static component list includes Polly: libpolly-N-dev.
# chromium: the integration test tests/it/html.rs loads a check's report.html headless.
need_pkgs=("clang-$LLVM_VERSION" "lld-$LLVM_VERSION" "llvm-$LLVM_VERSION" "llvm-$LLVM_VERSION-dev"
           "libpolly-$LLVM_VERSION-dev"
           "llvm-$LLVM_VERSION-tools" "libclang-rt-$LLVM_VERSION-dev" "libclang1-$LLVM_VERSION"
           clang-14 llvm-14
           meson ninja-build pkg-config libgmp-dev libcadical-dev libsymfpu-dev
           zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev libffi-dev
           musl-dev musl-tools linux-libc-dev dpkg-dev
           csmith libcsmith-dev python3 libz3-dev
           chromium)

missing=()
for p in "${need_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "install.sh: installing ${missing[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

for tool in "$CLANG" "$OPT" "$LLVM_LINK" "$LLVM_NM" "$LLVM_OBJCOPY" "$LD_LLD" clang-14 llvm-dis-14 \
           pkg-config meson ninja cargo chromium; do
    command -v "$tool" >/dev/null || { echo "install.sh: $tool is still missing after install" >&2; exit 1; }
done
# The llvm-config that .cargo/config.toml's LLVM_SYS_191_PREFIX points llvm-sys at.
config="$LLVM_BIN/llvm-config"
[ -x "$config" ] || { echo "install.sh: $config is missing (llvm-$LLVM_VERSION-dev)" >&2; exit 1; }
[ "$("$config" --version | cut -d. -f1)" = "$LLVM_VERSION" ] \
    || { echo "install.sh: $config is LLVM $("$config" --version), not $LLVM_VERSION" >&2; exit 1; }
[ -f /usr/include/symfpu/core/unpackedFloat.h ] || { echo "install.sh: symfpu headers missing" >&2; exit 1; }
echo "install.sh: system packages present" >&2
