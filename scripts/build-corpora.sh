#!/usr/bin/env bash
# Builds the function-pair corpus with both compilers users hand xcheck bitcode from:
# every corpora/<name>/{a,b}.c becomes
#   $XCHECK_BUILD_DIR/corpora/<name>/{a,b}.O0.bc and .O2.bc         (clang-19)
#   $XCHECK_BUILD_DIR/corpora-clang14/<name>/{a,b}.O0.bc and .O2.bc (clang-14)
# with an llvm-dis'd .ll next to each .bc for review. XCHECK_BUILD_DIR defaults
# to <repo>/build. A .bc is rebuilt only when it (or its .ll) is missing, or
# when the .c or this script is newer than it.
#
# Usage: scripts/build-corpora.sh [NAME...]   (default: every case in corpora/)
#
# Each built file is reported on stderr. Afterwards every .ll of the selected
# cases is scanned: vector types (which the engine may not support) and
# x86_fp80 (long double, which the engine may not support) give a warning.
# Floating point in float and double is allowed.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
script="$repo/scripts/$(basename "${BASH_SOURCE[0]}")"
corpora="$repo/corpora"
build_root="${XCHECK_BUILD_DIR:-$repo/build}"
# version:directory of each compiler's corpus.
compilers=(19:corpora 14:corpora-clang14)

for tool in clang-19 llvm-dis-19 clang-14 llvm-dis-14; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "build-corpora: $tool not found; run scripts/install.sh" >&2
        exit 1
    fi
done

# Flags shared by both optimisation levels. Vectorisation is off because the
# engine may not support vector instructions; -O2 may still unroll loops.
# They go after the -O flag: clang treats a later -O2 as -fvectorize again.
common=(-c -emit-llvm -g -fno-discard-value-names
        -target x86_64-unknown-linux-gnu
        -fno-vectorize -fno-slp-vectorize
        -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter)
declare -A level_flags=(
    [O0]="-O0 -Xclang -disable-O0-optnone"
    [O2]="-O2"
)

if [ $# -gt 0 ]; then
    names=("$@")
else
    names=()
    for dir in "$corpora"/*/; do
        # Function pairs only; whole-program pairs (corpora/programs) have their own script.
        [ -f "$dir/case.toml" ] || continue
        names+=("$(basename "$dir")")
    done
fi
[ ${#names[@]} -gt 0 ] || { echo "build-corpora: no cases in $corpora" >&2; exit 1; }

# needs_build SRC BC LL: true when BC or LL is missing or older than SRC or this script.
needs_build() {
    [ -f "$2" ] && [ -f "$3" ] || return 0
    [ "$1" -nt "$2" ] || [ "$script" -nt "$2" ] || [ "$2" -nt "$3" ]
}

built=0
lls=()
for compiler in "${compilers[@]}"; do
version="${compiler%%:*}"
build="$build_root/${compiler#*:}"
for name in "${names[@]}"; do
    case_dir="$corpora/$name"
    for side in a b; do
        src="$case_dir/$side.c"
        [ -f "$src" ] || { echo "build-corpora: missing $src" >&2; exit 1; }
        out_dir="$build/$name"
        mkdir -p "$out_dir"
        for level in O0 O2; do
            bc="$out_dir/$side.$level.bc"
            ll="$out_dir/$side.$level.ll"
            lls+=("$ll")
            needs_build "$src" "$bc" "$ll" || continue
            # shellcheck disable=SC2206 # the level flags are meant to split
            flags=(${level_flags[$level]})
            # Write to temporaries first so that a failed step leaves no fresh-looking
            # output (a missing .ll makes the next run rebuild). Compiling the relative
            # path from the repo root, with the prefix map, keeps absolute paths of this
            # checkout out of source_filename and the debug info.
            (cd "$repo" && "clang-$version" "${flags[@]}" "${common[@]}" \
                -fdebug-prefix-map="$repo"=. "corpora/$name/$side.c" -o "$bc.tmp")
            mv "$bc.tmp" "$bc"
            (cd "$out_dir" && "llvm-dis-$version" "$side.$level.bc" -o "$side.$level.ll.tmp")
            mv "$ll.tmp" "$ll"
            echo "build-corpora: built ${bc#"$repo"/} (+ .ll) from corpora/$name/$side.c" >&2
            built=$((built + 1))
        done
    done
done
done

# Scan the code, not the metadata (lines starting with '!') or attribute groups.
code_lines() { grep -vE '^(!|attributes #)' "$1" || true; }

vector_files=()
fp80_files=()
for ll in "${lls[@]}"; do
    if code_lines "$ll" | grep -q '<[0-9]* x '; then
        vector_files+=("${ll#"$repo"/}")
    fi
    if code_lines "$ll" | grep -qw 'x86_fp80'; then
        fp80_files+=("${ll#"$repo"/}")
    fi
done

for f in ${vector_files[@]+"${vector_files[@]}"}; do
    echo "build-corpora: warning: vector types in $f (the engine may not support them)" >&2
done
for f in ${fp80_files[@]+"${fp80_files[@]}"}; do
    echo "build-corpora: warning: x86_fp80 (long double) in $f (the engine may not support it)" >&2
done
echo "build-corpora: ${#names[@]} cases × ${#compilers[@]} compilers, $built file(s) built, ${#vector_files[@]} with vectors, ${#fp80_files[@]} with x86_fp80" >&2
