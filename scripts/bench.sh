#!/usr/bin/env bash
# The benchmark (see scripts/bench.py): prints a Markdown report; keep it with
#   bash scripts/bench.sh > reports/bench.md
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/bench.py
