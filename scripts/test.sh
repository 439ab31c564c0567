#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it: installs what is missing, then checks formatting,
# lints, checks the YANG modules (yanglint, pyang), builds and runs every test (unit, property,
# interop with tshark/scapy/lldpd/lldpad, namespace tests as root). Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh

# A one-off build in CI gains nothing from incremental caches, which would double target/.
if [[ "${CI:-}" == "true" ]]; then
    export CARGO_INCREMENTAL=0
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings

echo "== fuzz targets compile"
cargo check --quiet --manifest-path fuzz/Cargo.toml --bins

echo "== YANG modules"
bash scripts/yang-check.sh

echo "== cargo test"
# Every test binary runs even after one fails, so that a run shows every failure at once.
cargo test --workspace --no-fail-fast
