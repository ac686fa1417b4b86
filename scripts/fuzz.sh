#!/usr/bin/env bash
# Fuzz the loader and the engine (needs the nightly toolchain and cargo-fuzz, which this installs).
# Usage: scripts/fuzz.sh TARGET [SECONDS]     TARGET: load | run | differential
# Seeds come from every .spv in the project; crashes land in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh load|run|differential [SECONDS]}
seconds=${2:-60}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p "fuzz/corpus/$target"
if [ "$target" != differential ]; then
    cp -n core/tests/reference/*/*.spv assets/*.spv core/tests/data/*.spv core/tests/data/hostile/*.spv "fuzz/corpus/$target/" 2>/dev/null || true
fi
cd fuzz
cargo +nightly fuzz run -O "$target" "corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
