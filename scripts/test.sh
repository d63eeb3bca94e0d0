#!/usr/bin/env bash
# Installs everything (system packages, crates, the bundled musl), builds the corpora and
# runs every test: fmt, clippy, cargo test, then the system-call model natively and under the engine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/build-musl.sh
bash scripts/build-corpora.sh
cargo fmt --check
cargo clippy --release --all-targets -- -D warnings
cargo test --release
# The system-call model natively, then once under the engine just tested.
XC_ENGINE=target/release/xcheck bash harness/posix/test/run.sh
