#!/usr/bin/env bash
# The float suite of tests/wasm-float, built natively and for wasm32 (run by node): both must
# print the same digests, so a float result that differs between the native and the browser
# build fails. Correctness itself is checked by lanescope_core's tests; this checks sameness.
# Needs scripts/setup-web.sh: Debian's rustc-web, wasm-bindgen, node.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
crate="$root/tests/wasm-float/Cargo.toml"

if [ ! -x .web-toolchain/bin/cargo ] || ! command -v node >/dev/null; then
    echo "the web toolchain is not set up: run scripts/setup-web.sh first" >&2
    exit 1
fi

echo "== native"
native=$(CARGO_TARGET_DIR="$root/target/wasm-float" cargo run --quiet --release --manifest-path "$crate")
echo "$native"

echo "== wasm32 (node $(node --version))"
wasm=$(
    # The same environment as scripts/build-web.sh: rustc-web builds std for wasm32.
    export PATH="$root/.web-toolchain/bin:$HOME/.cargo/bin:$PATH"
    export RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$root/target/web" CARGO_PROFILE_RELEASE_DEBUG=0
    # The page's code generation (and flags: different ones would rebuild std and every crate
    # in the shared target directory, here and again in build-web.sh).
    export RUSTFLAGS="-C target-feature=-reference-types"
    unset RUSTUP_TOOLCHAIN || true
    cargo build --quiet --release --lib --manifest-path "$crate" \
        -Zbuild-std=std,panic_abort --target wasm32-unknown-unknown
    pkg="$root/target/wasm-float-pkg"
    rm -rf "$pkg"
    wasm-bindgen --target nodejs --no-typescript --out-dir "$pkg" \
        "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/lanescope_wasm_float.wasm"
    node -e 'process.stdout.write(require(process.argv[1]).float_digest())' \
        "$pkg/lanescope_wasm_float.js"
)
echo "$wasm"

if [ "$native" != "$wasm" ]; then
    diff <(echo "$native") <(echo "$wasm") || true
    echo "FAILED: native and wasm float results differ (lines above: < native, > wasm)" >&2
    exit 1
fi
echo "ok: native and wasm give the same float results"
