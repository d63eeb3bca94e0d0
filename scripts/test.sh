#!/usr/bin/env bash
# Installs everything (system packages, crates, the bundled musl), builds the corpora and
# runs every test: the system-call model natively, then fmt, clippy and cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/build-musl.sh
bash scripts/build-corpora.sh
bash harness/posix/test/run.sh
cargo fmt --check
cargo clippy --release --all-targets -- -D warnings
cargo test --release
