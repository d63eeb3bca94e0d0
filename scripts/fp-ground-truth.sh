#!/usr/bin/env bash
# Native ground truth for the floating-point corpus: every corpora/fp_<name>/ pair is built
# natively at -O0 and at -O2 (clang-19 from scripts/lib/llvm.sh, x86-64, the flags of scripts/build-corpora.sh minus
# -emit-llvm, plus -lm) and both sides are run on the same inputs, their results compared.
#
# Usage: scripts/fp-ground-truth.sh [NAME...]   (default: every corpora/fp_* case)
#        FP_SAMPLES=N overrides the number of random inputs per check (default 1000000).
#
# For each case, scripts/fp-native/gen.py reads case.toml and the two function definitions
# (scalar double, float or integer parameters and return) and writes a driver
# (build/fp-native/<name>/driver.c, with scripts/fp-native/driver.h); each side is compiled to
# an object whose function is renamed with llvm-objcopy --redefine-sym (a.c and b.c stay
# as they are), and the driver is linked with both. Per check the driver tries:
#   - every combination of special values (+-0, +-inf, quiet and signaling NaNs of both
#     signs and several payloads, +-smallest and largest subnormal, +-DBL_MIN, +-DBL_MAX,
#     +-1, +-0.5, ties, powers of two, the int range's edges...; for integers 0, +-1, the
#     int32 edges...): the full cross product for up to two parameters, a reduced list of
#     about 14 values per parameter for three or more;
#   - then seeded random inputs (the same on every run) until FP_SAMPLES of them satisfy the
#     check's --assume: random bit patterns, moderate values +-m * 2^e (|e| <= 20), uniform
#     in [-16, 16], multiples of 1/4, special values.
# Results are compared per the check's arguments: bit for bit by default (memcmp of the
# result: -0.0 differs from +0.0, NaN payloads count), `--fp-equal ieee` (== with NaN equal
# to NaN), `--fp-tolerance ulp:N|abs:E|rel:E` (two NaNs equal, one NaN not, equal values and
# the same infinity equal, otherwise the distance in ulps, |a - b|, or |a - b| / max(|a|, |b|)
# in long double within the bound). `--assume P` is compiled into the driver as the C
# expression P over the parameter names (the corpus only uses C-compatible predicates).
#
# Verdicts: "diverged" requires a native witness, which is printed (decimal and %a).
# "equivalent" requires that no tried input differs. That is only a NECESSARY condition:
# sampling cannot prove equivalence, it can only fail to refute it. Both must hold at -O0 and
# at -O2. The script exits 1 when a case's expected verdict contradicts the native result,
# 2 on a usage or build error, 0 otherwise. Outputs go to build/fp-native/ only.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${XCHECK_BUILD_DIR:-$repo/build}/fp-native"
samples="${FP_SAMPLES:-1000000}"
# shellcheck source=lib/llvm.sh
source "$repo/scripts/lib/llvm.sh"

for tool in "$CLANG" "$LLVM_OBJCOPY" python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "fp-ground-truth: $tool not found" >&2
        exit 2
    fi
done

# The flags of scripts/build-corpora.sh, for an object instead of bitcode.
common=(-c -g -target x86_64-unknown-linux-gnu
        -fno-vectorize -fno-slp-vectorize
        -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter)
declare -A level_flags=(
    [O0]="-O0"
    [O2]="-O2"
)

if [ $# -gt 0 ]; then
    names=("$@")
else
    names=()
    for dir in "$repo"/corpora/fp_*/; do
        [ -f "$dir/case.toml" ] && names+=("$(basename "$dir")")
    done
fi
[ ${#names[@]} -gt 0 ] || { echo "fp-ground-truth: no corpora/fp_* cases" >&2; exit 2; }

contradictions=()
for name in "${names[@]}"; do
    case_dir="$repo/corpora/$name"
    [ -f "$case_dir/case.toml" ] || { echo "fp-ground-truth: no corpora/$name/case.toml" >&2; exit 2; }
    dir="$out/$name"
    mkdir -p "$dir"
    read -r fa fb < <(python3 "$repo/scripts/fp-native/gen.py" "$case_dir" "$dir") || exit 2
    for level in O0 O2; do
        # shellcheck disable=SC2206 # the level flags are meant to split
        flags=(${level_flags[$level]})
        (cd "$repo" && "$CLANG" "${flags[@]}" "${common[@]}" "corpora/$name/a.c" -o "$dir/a.$level.o")
        (cd "$repo" && "$CLANG" "${flags[@]}" "${common[@]}" "corpora/$name/b.c" -o "$dir/b.$level.o")
        "$LLVM_OBJCOPY" --redefine-sym "$fa=fpgt_a" "$dir/a.$level.o"
        "$LLVM_OBJCOPY" --redefine-sym "$fb=fpgt_b" "$dir/b.$level.o"
        # The driver itself is plain strict C at -O2 (driver.h is a library: not every helper
        # is used by every case); it never sees the sides' code.
        "$CLANG" -O2 -std=c11 -Wall -Wextra -Werror -Wno-unused-function -Wno-unused-const-variable -I"$repo/scripts/fp-native" \
            "$dir/driver.c" "$dir/a.$level.o" "$dir/b.$level.o" -lm -o "$dir/driver.$level"
        while IFS=$'\t' read -r index expect args; do
            echo "$name $level check $index [$args], expect $expect:"
            status=0
            "$dir/driver.$level" "$index" "$samples" || status=$?
            case "$status:$expect" in
                1:diverged | 0:equivalent) ;;
                0:diverged) contradictions+=("$name $level check $index: expected diverged, no native witness") ;;
                1:equivalent) contradictions+=("$name $level check $index: expected equivalent, natively diverged") ;;
                *) echo "fp-ground-truth: $dir/driver.$level $index failed (exit $status)" >&2; exit 2 ;;
            esac
        done < "$dir/checks.tsv"
    done
done

if [ ${#contradictions[@]} -gt 0 ]; then
    echo "fp-ground-truth: ${#contradictions[@]} expectation(s) contradict native ground truth:" >&2
    printf '  %s\n' "${contradictions[@]}" >&2
    exit 1
fi
echo "fp-ground-truth: ${#names[@]} case(s): every expected verdict agrees with native ground truth at -O0 and -O2" >&2
