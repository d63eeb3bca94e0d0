#!/usr/bin/env bash
# Bytes per live state of a whole-program crosscheck (issue 16, part 4).
#
#   scripts/state-memory.sh A.bc B.bc SECONDS [xcheck options…]
#
# Runs `xcheck A.bc B.bc --search bfs -j 1 --max-time SECONDS OPTIONS` (breadth-first search
# grows the live set fast; SEARCH=interleaved, the default search, grows it furthest on the
# wc pair) and reads its peak resident memory (GNU time's %M) and the report's
# "live states (max)". The memory the check needs without a crowd of states is measured by
# a second run of the same command that stops at its first path (`--search dfs
# --max-paths 1`: a few states). Prints both runs' peaks, the live states, and
# (peak - baseline) / live states, which counts everything a live state keeps: its own
# frames, memory map and path condition, and its share of the expression pool and the
# solver caches the exploration grew (as KLEE's figure of states per GiB does).
#
# XCHECK (default target/release/xcheck) names the binary; SEARCH (default bfs) the search
# of the measured run. The memory cap is turned off (--max-memory 0), so that no state is
# dropped; keep SECONDS such that the peak fits.
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 A.bc B.bc SECONDS [xcheck options…]" >&2
    exit 2
fi
a=$1 b=$2 seconds=$3
shift 3
cd "$(dirname "$0")/.."
xcheck=${XCHECK:-target/release/xcheck}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs xcheck with the given extra options; prints the peak resident KiB, and keeps the
# reports in $work/$1.out.
peak_kib() {
    local name=$1
    shift
    # Exit codes 0, 1 and 3 are verdicts; 2 is an error.
    /usr/bin/time -f '%M' -o "$work/$name.time" \
        "$xcheck" "$a" "$b" -j 1 --max-memory 0 -o "$work/$name.out" "$@" \
        >"$work/$name.txt" 2>"$work/$name.err" || [ $? -ne 2 ] || {
        cat "$work/$name.err" >&2
        exit 2
    }
    tail -n 1 "$work/$name.time"
}

base=$(peak_kib base "$@" --search dfs --max-paths 1 --max-time "$seconds")
search=${SEARCH:-bfs}
peak=$(peak_kib run "$@" --search "$search" --max-time "$seconds")
# The report's counters (report.json: summary.counters, [name, value] pairs).
counter() {
    python3 -c 'import json, sys
counters = dict(json.load(open(sys.argv[1]))["summary"]["counters"])
print(counters.get(sys.argv[2], ""))' "$work/run.out/report.json" "$1"
}
live=$(counter 'live states (max)')
forks=$(counter forks)
instructions=$(counter instructions)
echo "command:        $xcheck $a $b -j 1 --max-memory 0 --search $search --max-time $seconds $*"
echo "baseline peak:  $((base / 1024)) MiB (the same check stopped at its first path)"
echo "run peak:       $((peak / 1024)) MiB"
echo "live states:    $live (max)"
echo "forks:          ${forks:-?}"
echo "instructions:   ${instructions:-?}"
if [ -n "$live" ] && [ "$live" -gt 0 ]; then
    echo "bytes/state:    $(((peak - base) * 1024 / live))"
fi
