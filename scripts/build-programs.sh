#!/usr/bin/env bash
# Builds the whole-program corpus: every corpora/programs/<name>/{a,b}.c becomes,
# through `xcheck cc` (bundled musl), a native static binary and its whole-program
# bitcode:  $XCHECK_BUILD_DIR/programs/<name>/{a,b}  and  {a,b}.bc
# Needs scripts/build-musl.sh to have run and target/release/xcheck to exist.
# A program is rebuilt only when its source or this script is newer than it.
#
# Usage: scripts/build-programs.sh [NAME...]   (default: every pair)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
script="$repo/scripts/$(basename "${BASH_SOURCE[0]}")"
src="$repo/corpora/programs"
build="${XCHECK_BUILD_DIR:-$repo/build}/programs"
xcheck="${XCHECK_BIN:-$repo/target/release/xcheck}"
libc="${XCHECK_BUILD_DIR:-$repo/build}/musl/lib/libc.a"
[ -x "$xcheck" ] || { echo "build-programs: $xcheck not built (cargo build --release)" >&2; exit 1; }

if [ $# -gt 0 ]; then
    names=("$@")
else
    names=()
    for dir in "$src"/*/; do
        [ -f "$dir/case.toml" ] && names+=("$(basename "$dir")")
    done
fi

for name in "${names[@]}"; do
    mkdir -p "$build/$name"
    for side in a b; do
        c="$src/$name/$side.c"
        out="$build/$name/$side"
        if [ -f "$out" ] && [ -f "$out.bc" ] && [ "$out.bc" -nt "$c" ] && [ "$out.bc" -nt "$script" ] \
           && [ "$out.bc" -nt "$libc" ]; then
            continue
        fi
        "$xcheck" cc -O1 -g -std=c99 -Wall -Wextra -Werror -o "$out" "$c"
        echo "build-programs: built $out and $out.bc" >&2
    done
done
