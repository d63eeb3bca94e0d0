#!/usr/bin/env bash
# The benchmark (see scripts/bench.py): prints a Markdown report; keep it with
#   bash scripts/bench.sh > reports/bench.md
set -euo pipefail
cd "$(dirname "$0")/.."
# `bash scripts/bench.sh equiv-pairs` prints only the section of the equivalence pairs.
if [ "${1:-}" = equiv-pairs ]; then
    exec python3 scripts/bench_equiv_pairs.py
fi
exec python3 scripts/bench.py
