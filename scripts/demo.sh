#!/usr/bin/env bash
# Installs everything, builds xcheck and the bundled musl, and crosschecks the bundled
# default pair: two word counters (corpora/programs/wc_w), one splitting words on spaces
# and newlines, the other on isspace(), under 3 bytes of symbolic stdin. Then every
# divergence found is replayed on the two native binaries. Exits 0 when every divergence
# the engine reported happens natively too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
cargo build --release
bash scripts/build-musl.sh
bash scripts/build-programs.sh wc_w
out="${XCHECK_DEMO_OUT:-xcheck-out}"
pair=build/programs/wc_w
set +e
./target/release/xcheck "$pair/a.bc" "$pair/b.bc" --sym-stdin 3 -o "$out" "$@"
verdict=$?
set -e
echo
if [ "$verdict" -eq 1 ]; then
    echo "== the divergences, replayed on the native binaries =="
    exec ./target/release/xcheck replay "$out" --native "$pair/a" "$pair/b"
fi
exit "$verdict"
