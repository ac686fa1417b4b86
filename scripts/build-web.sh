#!/usr/bin/env bash
# Builds the browser version into dist/ (after scripts/setup-web.sh).
#
#   scripts/build-web.sh                 cargo + wasm-bindgen + wasm-opt (what CI runs; no Trunk needed)
#   scripts/build-web.sh --trunk         the same page through `trunk build`
#   scripts/build-web.sh --serve [PORT]  build, then serve dist/ on http://127.0.0.1:PORT (default 8080)
#
# Debian's rustc-web compiles std for wasm32 (-Zbuild-std); it gets its own target directory so
# that it and rustup's toolchain never invalidate each other's builds.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

use_trunk=0
serve_port=""
while [ $# -gt 0 ]; do
    case "$1" in
    --trunk) use_trunk=1 ;;
    --serve)
        serve_port="${2:-8080}"
        if [ $# -ge 2 ]; then shift; fi
        ;;
    *)
        echo "usage: $0 [--trunk] [--serve [PORT]]" >&2
        exit 2
        ;;
    esac
    shift
done

if [ ! -x .web-toolchain/bin/cargo ] || ! command -v wasm-opt >/dev/null || [ ! -d node_modules/playwright-core ]; then
    echo "the web toolchain is not set up: run scripts/setup-web.sh first" >&2
    exit 1
fi

export PATH="$root/.web-toolchain/bin:$HOME/.cargo/bin:$PATH"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="$root/target/web"
# Debug info only bloats the download.
export CARGO_PROFILE_RELEASE_DEBUG=0
# No reference types: wasm-bindgen then keeps JS objects in a JS array rather than an externref
# table, so the module has one table. Debian's binaryen (108, native: a minute where npm's
# binaryen run in node took four) writes a second table's export as the first's, and the page
# failed at start-up (`WebAssembly.Table.set()`).
export RUSTFLAGS="-C target-feature=-reference-types"
# Keep rustup from resolving cargo/rustc: these must be Debian's rustc-web.
unset RUSTUP_TOOLCHAIN || true

# glslang's C++ for the compiler module, through the wasi-sdk layout setup-web.sh assembles.
# NDEBUG as in release builds of glslang: its asserts and pool guard blocks only cost here.
# -Os (after cargo's -O3, so it wins): the compiler module downloads 1.21 MiB gzip, not 1.36,
# and compiles every source in the repository word for word as before (tests/web/glsl-module.mjs).
# The Rust code stays at opt-level 3: at "s" the app's module came out larger (3.10 against 3.05
# MiB gzip), less inlining leaving more and bigger functions for wasm-opt.
export WASI_SDK_PATH="$root/.web-toolchain/wasi-sdk"
export CXXFLAGS_wasm32_unknown_unknown="-DNDEBUG -Os"

# wasm-opt in place, minutes for these modules: its output is kept by its input's hash, so a
# rebuild that changed nothing in a module does not optimise it again.
optimise() {
    local key cached level="${2:--O2}"
    key="$(sha256sum "$1" | cut -c1-32)$level"
    cached="$CARGO_TARGET_DIR/wasm-opt-cache/$key.wasm"
    if [ ! -f "$cached" ]; then
        mkdir -p "$(dirname "$cached")"
        wasm-opt "$level" --enable-bulk-memory --enable-nontrapping-float-to-int "$1" -o "$cached.tmp"
        mv "$cached.tmp" "$cached"
    fi
    cp "$cached" "$1"
}

if [ "$use_trunk" = 1 ]; then
    export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
    trunk build
else
    # The app without glslang (`--no-default-features`): the page loads the compiler module
    # below only when a GLSL or HLSL source is compiled.
    # The app's crate in one codegen unit: generic egui code it instantiates (tooltips,
    # popups, scroll areas per closure) is then made once rather than once per unit that uses
    # it: 9 KB less to download (2.502 -> 2.493 MiB) for about 25 s more building that crate.
    cargo build --release -p lanescope --bin lanescope --no-default-features \
        --config profile.release.package.lanescope.codegen-units=1 \
        -Zbuild-std=std,panic_abort --target wasm32-unknown-unknown
    rm -rf dist
    mkdir -p dist
    wasm-bindgen --target web --no-typescript --out-dir dist --out-name lanescope \
        "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/lanescope.wasm"
    # -Oz: binaryen inlines less than at -O2 (rustc has inlined the hot paths already): -Os was
    # 22 KB less to download than -O2 (of 2.51 MiB gzip), -Oz 4 KB less again, for the same
    # stepping figures in the browser test.
    optimise dist/lanescope_bg.wasm -Oz
    # The page Trunk would make: index.html with its Rust link replaced by the loader, and the
    # files it copies (WebGPU's module, loaded by the page on first use) copied.
    loader='<script type="module">import init from "./lanescope.js"; init({ module_or_path: "./lanescope_bg.wasm" });</script>'
    awk -v loader="$loader" '/data-trunk rel="rust"/ { print "  " loader; next } /data-trunk/ { next } { print }' index.html >dist/index.html
    cp web/webgpu.js dist/webgpu.js
fi
# The GLSL/HLSL compiler module (glslang), loaded by the page on demand (see index.html).
if [ -x "$WASI_SDK_PATH/bin/clang++" ]; then
    cargo build --release -p lanescope_glsl_web --lib \
        -Zbuild-std=std,panic_abort --target wasm32-unknown-unknown
    mkdir -p dist/glsl
    wasm-bindgen --target web --no-typescript --out-dir dist/glsl --out-name lanescope_glsl \
        "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/lanescope_glsl_web.wasm"
    # -O1: a smaller download than -O2 for glslang (1.35 against 1.36 MiB gzip) in a quarter
    # of the time (28 s against 98 s here).
    optimise dist/glsl/lanescope_glsl_bg.wasm -O1
    cp web/glsl/worker.js dist/glsl/worker.js
else
    echo "== no wasi-sdk layout (scripts/setup-web.sh makes it): the page will have no GLSL compiler" >&2
fi
# Precompressed copies beside the files: scripts/serve.py (and any static host that looks for
# them) sends these to browsers that accept gzip.
for f in dist/*.wasm dist/*.js dist/*.html dist/glsl/*.wasm dist/glsl/*.js; do
    [ -e "$f" ] && gzip -9 -k -f -n "$f"
done
first=$(ls dist/*.wasm dist/*.js dist/*.html | grep -v webgpu.js)
echo "== built dist/: first visit $(cat $first | wc -c | awk '{printf "%.2f MiB", $1 / 1048576}') (gzip $(for f in $first; do cat "$f.gz"; done | wc -c | awk '{printf "%.2f MiB", $1 / 1048576}')); WebGPU module on demand $(wc -c <dist/webgpu.js) bytes; compiler module on demand $(cat dist/glsl/*.wasm dist/glsl/*.js 2>/dev/null | wc -c | awk '{printf "%.2f MiB", $1 / 1048576}') (gzip $(cat dist/glsl/*.gz 2>/dev/null | wc -c | awk '{printf "%.2f MiB", $1 / 1048576}'))"

if [ -n "$serve_port" ]; then
    echo "== serving http://127.0.0.1:$serve_port/ (Ctrl+C stops)"
    exec python3 scripts/serve.py "$serve_port" dist
fi
