#!/usr/bin/env bash
# Installs everything xcheck needs on a fresh Debian 12 machine, from Debian's
# packages and crates.io only. Idempotent: a second run only checks. Fails loudly.
set -euo pipefail

need_pkgs=(clang-14 lld-14 llvm-14-dev llvm-14-tools libclang-common-14-dev
           meson ninja-build pkg-config libgmp-dev libcadical-dev libsymfpu-dev
           zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev libffi-dev
           musl-dev musl-tools linux-libc-dev dpkg-dev
           csmith libcsmith-dev python3 libz3-dev libclang1-14)

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

for tool in clang-14 llvm-link-14 llvm-config pkg-config meson ninja cargo; do
    command -v "$tool" >/dev/null || { echo "install.sh: $tool is still missing after install" >&2; exit 1; }
done
[ "$(llvm-config --version | cut -d. -f1)" = 14 ] || { echo "install.sh: llvm-config is not LLVM 14" >&2; exit 1; }
[ -f /usr/include/symfpu/core/unpackedFloat.h ] || { echo "install.sh: symfpu headers missing" >&2; exit 1; }
echo "install.sh: system packages present" >&2
