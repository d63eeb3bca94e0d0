#!/usr/bin/env bash
# Runs every corpus check at -O0 and -O2 with the release binary and prints a table:
# verdict, paths, solver queries, wall time. Appends nothing; redirect to keep results.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
bash scripts/build-corpora.sh 2>/dev/null
bin=./target/release/xcheck
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| pair | opt | args | verdict | paths | queries | solver ms | wall ms |\n|---|---|---|---|---|---|---|---|\n'
total=0
for dir in corpora/*/; do
    name=$(basename "$dir")
    spec=$(python3 - "$dir/case.toml" <<'PY'
import sys, tomllib
c = tomllib.load(open(sys.argv[1], 'rb'))
f = c.get('function') or f"{c['a']}={c['b']}"
for chk in c['check']:
    print(f + '\t' + '\x1f'.join(chk.get('args', [])))
PY
)
    while IFS=$'\t' read -r fn args; do
        IFS=$'\x1f' read -r -a extra <<<"$args"
        for opt in O0 O2; do
            rm -rf "$out"/*
            "$bin" "build/corpora/$name/a.$opt.bc" "build/corpora/$name/b.$opt.bc" --function "$fn" -o "$out" "${extra[@]}" >/dev/null 2>&1 || true
            python3 - "$out/report.json" "$name" "$opt" "${extra[*]:-}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))['summary']
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {r['overall']} | {r['paths']} | {r['queries']} | {r['solver_time_ms']} | {r['wall_time_ms']} |")
PY
        done
    done <<<"$spec"
done
