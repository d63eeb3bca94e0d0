#!/usr/bin/env bash
# Installs everything (system packages, crates), builds the corpora and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/build-corpora.sh
cargo fmt --check
cargo clippy --release --all-targets -- -D warnings
cargo test --release
