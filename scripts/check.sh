#!/usr/bin/env bash
# The whole test suite: formatting, lints, the core/UI dependency rule, every test.
# Usage: scripts/check.sh        (what CI runs; needs only cargo)
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== core must not depend on UI crates"
if cargo tree -p lanescope_core -e normal | grep -E 'egui|eframe|wasm-bindgen'; then
    echo "lanescope_core depends on a UI crate" >&2
    exit 1
fi

echo "== cargo clippy"
cargo clippy --workspace --all-targets --release -- -D warnings

echo "== cargo test"
cargo test --workspace --release
