#!/usr/bin/env bash
# Installs everything, builds xcheck and the corpora, and checks the bundled default pair:
# an optimized modulo against its reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
cargo build --release
bash scripts/build-corpora.sh
exec ./target/release/xcheck build/corpora/mod/a.O0.bc build/corpora/mod/b.O0.bc --function mod=modOpt "$@"
