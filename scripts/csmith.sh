#!/usr/bin/env bash
# Interpreter against native execution on random programs (issue 10's first oracle).
#
# For each seed, Csmith generates a small C program; `xcheck cc` builds it at -O0 and -O2
# against the bundled musl (native binary + whole-program bitcode); both binaries run
# natively (time limit, empty environment); then the two bitcode files are crosschecked as
# whole programs with NO symbolic input (`--sym-files 0 0` is the whole environment: no
# arguments, no files, empty stdin). A seed passes when the verdict is EQUIVALENT (exit 0)
# and the stdout and exit status the engine saw on both sides equal what the native
# binaries printed (read from the proved row's result text in report.json).
#
# Usage: scripts/csmith.sh [--seeds A..B | N] [-o DIR] [--max-time T] [--native-limit S] [--float]
#   N          seeds 1..N (default 10)
#   -o DIR     work directory (default $XCHECK_BUILD_DIR/csmith); DIR/<seed>/ keeps the
#              program, binaries and xcheck output; DIR/results.tsv one line per seed
#   --max-time engine limit per program (default 60s)
#   --native-limit  a program whose native run takes longer (seconds, default 1) is skipped
#   --float    programs with floating-point variables (Csmith's --float; their checksum
#              hashes each float's bytes, so the engine's FP semantics must be bit-exact)
#
# Classes (column 2 of results.tsv): pass; skipped-slow (native run over the limit, not
# checked); native-differs (-O0 and -O2 binaries disagree: undefined behaviour or a
# compiler bug, not an engine verdict); wrong-verdict (xcheck exit 1 although the natives
# agree: an engine bug); wrong-output (EQUIVALENT, but the engine's stdout or exit status
# is not the native one: an engine bug); unsupported (a construct the engine does not
# support, named); limit (the engine's time or memory limit); error (xcheck exit 2 or a
# crash); build-failed. Exit status: 0 when every seed is pass or skipped-slow, else 1;
# 2 for a usage error or a missing tool.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export XCHECK_BUILD_DIR="${XCHECK_BUILD_DIR:-$repo/build}"
xcheck="${XCHECK_BIN:-$repo/target/release/xcheck}"
csmith_inc="${CSMITH_INCLUDE:-/usr/include/csmith}"
first=1
last=10
out="$XCHECK_BUILD_DIR/csmith"
max_time=60s
native_limit=1
float=--no-float

die() { echo "csmith.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --seeds)
            [ $# -ge 2 ] || die "--seeds takes A..B"
            [[ "$2" =~ ^([0-9]+)\.\.([0-9]+)$ ]] || die "--seeds $2: expected A..B"
            first=${BASH_REMATCH[1]}
            last=${BASH_REMATCH[2]}
            shift 2 ;;
        -o) [ $# -ge 2 ] || die "-o takes a directory"; out="$2"; shift 2 ;;
        --max-time) [ $# -ge 2 ] || die "--max-time takes a time"; max_time="$2"; shift 2 ;;
        --native-limit)
            [ $# -ge 2 ] || die "--native-limit takes seconds"; native_limit="$2"; shift 2 ;;
        --float) float=--float; shift ;;
        [0-9]*)
            [[ "$1" =~ ^[0-9]+$ ]] || die "$1: expected a number of seeds"
            first=1
            last=$1
            shift ;;
        *) die "unknown argument '$1' (usage: csmith.sh [--seeds A..B | N] [-o DIR] [--max-time T] [--native-limit S] [--float])" ;;
    esac
done
[ "$first" -le "$last" ] || die "--seeds $first..$last: empty range"
command -v csmith >/dev/null || die "csmith not found (Debian package csmith; scripts/install.sh)"
[ -f "$csmith_inc/csmith.h" ] || die "$csmith_inc/csmith.h not found (Debian package libcsmith-dev)"
command -v python3 >/dev/null || die "python3 not found"
[ -x "$xcheck" ] || die "$xcheck not built (cargo build --release)"
[ -f "$XCHECK_BUILD_DIR/musl/lib/libc.a" ] || die "no bundled musl in $XCHECK_BUILD_DIR (scripts/build-musl.sh)"

# Small programs (an interpreter runs them), no floating point unless --float, main without
# arguments; everything else as Csmith's defaults. A fixed option list keeps seeds
# reproducible.
csmith_opts=(--max-funcs 3 --max-block-depth 3 --max-block-size 3 --max-expr-complexity 6
             --max-array-dim 2 --max-array-len-per-dim 4 --max-struct-fields 4
             "$float" --no-argc)

mkdir -p "$out" || die "cannot create $out"
out="$(cd "$out" && pwd)"
results="$out/results.tsv"
printf 'seed\tclass\tdetail\tnative_ms\tengine_ms\n' >"$results"

# check_report REPORT_JSON STATUS STDOUT_FILE: "ok" when every row of the report is proved
# and shows the native exit status and stdout on both sides, else what differs. The text is
# the engine's own rendering (`exit N, stdout "…"`, crosscheck/program.rs `quote`).
check_report() {
    python3 - "$@" <<'EOF'
import json, sys
report, status, stdout_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = open(stdout_file, "rb").read()
def quote(bs):
    s = '"'
    for b in bs[:200]:
        c = chr(b)
        if c == "\n": s += "\\n"
        elif c == "\t": s += "\\t"
        elif c == "\\": s += "\\\\"
        elif c == '"': s += '\\"'
        elif 0x20 <= b <= 0x7e: s += c
        else: s += "\\x%02x" % b
    s += '"'
    if len(bs) > 200:
        s += "… (%d bytes)" % len(bs)
    return s
want = "exit %d, stdout %s" % (status & 0xff, quote(data))
rows = json.load(open(report))["rows"]
if not rows:
    print("no rows in the report"); sys.exit()
for row in rows:
    for side in ("result_a", "result_b"):
        if row["verdict"] != "proved" or row[side] != want:
            print("row %d %s: engine %s, native %s" % (row["id"], side, row[side], want))
            sys.exit()
print("ok")
EOF
}

# classify_inconclusive REPORT_JSON: unsupported (with the construct and location) or limit.
classify_inconclusive() {
    python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for row in r["rows"]:
    text = " ".join(str(row.get(k) or "") for k in ("detail", "result_a", "result_b"))
    if "unsupported" in text.lower():
        print("unsupported\t" + text.replace("\t", " ")[:300]); sys.exit()
stop = r["summary"].get("stop_reason") or "incomplete"
print("limit\t" + str(stop))
EOF
}

now_ms() { date +%s%3N; }

started=$(now_ms)
for ((seed = first; seed <= last; seed++)); do
    dir="$out/$seed"
    rm -rf "$dir"
    mkdir -p "$dir"
    class=""
    detail=""
    native_ms=""
    engine_ms=""
    # In the seed's directory: Csmith writes platform.info into the current one.
    if ! (cd "$dir" && csmith --seed "$seed" "${csmith_opts[@]}" -o p.c >csmith.log 2>&1); then
        class=build-failed
        detail="csmith failed: $(head -c 200 "$dir/csmith.log" | tr '\t\n' '  ')"
    fi
    for level in O0 O2; do
        [ -z "$class" ] || break
        if ! "$xcheck" cc "-$level" -w -I"$csmith_inc" -o "$dir/p.$level" "$dir/p.c" \
                >"$dir/cc.$level.log" 2>&1; then
            class=build-failed
            detail="xcheck cc -$level: $(head -c 200 "$dir/cc.$level.log" | tr '\t\n' '  ')"
        fi
    done
    if [ -z "$class" ]; then
        t0=$(now_ms)
        slow=0
        for level in O0 O2; do
            (cd "$dir" && env -i timeout -k 1 "$native_limit" "./p.$level" \
                >"native.$level.out" 2>"native.$level.err" </dev/null)
            status=$?
            echo $status >"$dir/native.$level.status"
            case $status in 124 | 137) slow=1 ;; esac
        done
        native_ms=$(($(now_ms) - t0))
        if [ $slow = 1 ]; then
            class=skipped-slow
            detail="native run over ${native_limit}s"
        elif ! cmp -s "$dir/native.O0.out" "$dir/native.O2.out" ||
             ! cmp -s "$dir/native.O0.status" "$dir/native.O2.status"; then
            class=native-differs
            detail="-O0 and -O2 binaries disagree natively"
        fi
    fi
    if [ -z "$class" ]; then
        t0=$(now_ms)
        "$xcheck" "$dir/p.O0.bc" "$dir/p.O2.bc" --sym-files 0 0 -j 1 --max-time "$max_time" \
            --max-memory 2048 -o "$dir/xcheck-out" >"$dir/xcheck.log" 2>&1
        code=$?
        engine_ms=$(($(now_ms) - t0))
        report="$dir/xcheck-out/report.json"
        case $code in
            0)
                verdict=$(check_report "$report" "$(cat "$dir/native.O0.status")" "$dir/native.O0.out")
                if [ "$verdict" = ok ]; then
                    class=pass
                else
                    class=wrong-output
                    detail="$verdict"
                fi ;;
            1)
                class=wrong-verdict
                detail="xcheck exit 1 although the native binaries agree" ;;
            3)
                line=$(classify_inconclusive "$report")
                class="${line%%$'\t'*}"
                detail="${line#*$'\t'}" ;;
            2)
                class=error
                detail="xcheck exit 2: $(tail -n 1 "$dir/xcheck.log")" ;;
            *)
                class=error
                detail="xcheck exit $code (crash): $(tail -n 1 "$dir/xcheck.log")" ;;
        esac
    fi
    detail="${detail//$'\t'/ }"
    detail="${detail//$'\n'/ }"
    printf '%s\t%s\t%s\t%s\t%s\n' "$seed" "$class" "$detail" "$native_ms" "$engine_ms" >>"$results"
    echo "csmith.sh: seed $seed: $class${detail:+ ($detail)}" >&2
    if [ "$class" = pass ]; then
        # Keep the inputs and what was compared; the binaries are rebuilt from the seed.
        rm -f "$dir"/p.O0 "$dir"/p.O2 "$dir"/p.O0.bc "$dir"/p.O2.bc
    fi
done
elapsed=$(($(now_ms) - started))

echo "csmith.sh: seeds $first..$last in $((elapsed / 1000)) s; results in $results" >&2
cut -f2 "$results" | tail -n +2 | sort | uniq -c | sed 's/^/  /' >&2
bad=$(cut -f2 "$results" | tail -n +2 | grep -cvE '^(pass|skipped-slow)$')
[ "$bad" -eq 0 ]
