#!/usr/bin/env bash
# Fuzz the loader, the engine and the front ends (needs the nightly toolchain and cargo-fuzz,
# which this installs).
# Usage: scripts/fuzz.sh TARGET [SECONDS]
#   TARGET: load | run | settings | differential (modules), amber | spvasm | wgsl (sources),
#           glsl (GLSL and HLSL through glslang; builds its C++), permalink (the app's links)
# Seeds come from the project's modules, scripts and sources; crashes land in
# fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh load|run|settings|differential|amber|spvasm|wgsl|glsl|permalink [SECONDS]}
seconds=${2:-60}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p "fuzz/corpus/$target"
seeds=(core/tests/reference/*/*.spv assets/*.spv core/tests/data/*.spv core/tests/data/hostile/*.spv)
if [ "$target" = settings ]; then
    # Its input is 32 bytes of settings, then the module: seed with a few settings per module
    # (subgroup size 32, 8 or 0; with and without the portability check and aliased buffers).
    for f in "${seeds[@]}"; do
        n=$(basename "$f" .spv)
        for h in '\x20' '\x08\x00\x00\x00\x02\x00\x06' '\x00\x00\x00\x00\x00\x01\x04'; do
            out="fuzz/corpus/settings/$n-$(printf '%s' "$h" | md5sum | cut -c1-6)"
            [ -e "$out" ] || { printf "$h" | head -c 32; head -c 32 /dev/zero; } | head -c 32 | cat - "$f" >"$out"
        done
    done
elif [ "$target" = amber ]; then
    cp -n front/tests/amber/*.amber "fuzz/corpus/amber/" 2>/dev/null || true
elif [ "$target" = spvasm ]; then
    # Its first byte picks the assembler's options.
    for f in $(find core/tests assets -name '*.spvasm'); do
        out="fuzz/corpus/spvasm/$(basename "$f")"
        [ -e "$out" ] || { printf '\x02'; cat "$f"; } >"$out"
    done
elif [ "$target" = wgsl ]; then
    cp -n assets/templates/*.wgsl "fuzz/corpus/wgsl/" 2>/dev/null || true
elif [ "$target" = glsl ]; then
    # Its first byte picks GLSL or HLSL and whether macros are given.
    for f in core/tests/data/*.comp core/tests/data/hlsl/*.hlsl assets/templates/*.comp; do
        out="fuzz/corpus/glsl/$(basename "$f")"
        [ -e "$out" ] || { case "$f" in *.hlsl) printf '\x01';; *) printf '\x00';; esac; cat "$f"; } >"$out"
    done
elif [ "$target" = permalink ]; then
    printf '#example=loop_divergent&sg=16&wg=2,1,1&switch=per-case&order=2&step=120&lane=0:3&view=timeline' \
        >fuzz/corpus/permalink/example
    printf '#module=a%%20b.spv:AwA&layout=portable&lesson=2' >fuzz/corpus/permalink/module
elif [ "$target" != differential ]; then
    cp -n "${seeds[@]}" "fuzz/corpus/$target/" 2>/dev/null || true
fi
cd fuzz
features=()
[ "$target" = permalink ] && features=(--features app)
[ "$target" = glsl ] && features=(--features glsl)
cargo +nightly fuzz run -O "${features[@]}" "$target" "corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
