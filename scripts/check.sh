#!/usr/bin/env bash
# The whole test suite: formatting, lints, the core/UI dependency rule, every test.
# Usage: scripts/check.sh        (what CI runs; needs cargo, and apt for the native and web parts)
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== [${SECONDS}s] cargo fmt --check"
cargo fmt --all -- --check

echo "== [${SECONDS}s] core must not depend on UI crates"
if cargo tree -p lanescope_core -e normal | grep -E 'egui|eframe|wasm-bindgen'; then
    echo "lanescope_core depends on a UI crate" >&2
    exit 1
fi

echo "== [${SECONDS}s] numerics is the bottom layer: no module model, nothing that draws, no other workspace crate"
if cargo tree -p lanescope_numerics -e normal --prefix none | grep -E '^(rspirv|egui|eframe|wasm-bindgen|lanescope_[a-z_]+ )' | grep -v '^lanescope_numerics '; then
    echo "lanescope_numerics depends on a crate above it" >&2
    exit 1
fi

echo "== [${SECONDS}s] spirv (bytes and text <-> a module model) executes nothing: no numerics, no engine, nothing that draws"
if cargo tree -p lanescope_spirv -e normal --prefix none | grep -E '^(egui|eframe|wasm-bindgen|lanescope_[a-z_]+ )' | grep -v '^lanescope_spirv '; then
    echo "lanescope_spirv depends on a crate beside or above it" >&2
    exit 1
fi

echo "== [${SECONDS}s] dependency rules: core's layers (scripts/layers.py); the app reaches SPIR-V only through the core; the browser app has no compiler"
# Inside core, every path a file names (use lines and code alike) goes down the layers
# scripts/layers.py lists, and no circle of files crosses a layer.
python3 scripts/layers.py --max-upward 0 --max-knot 0
# The app's layers likewise: data and view-models, its state and asks, the views, the actions,
# the frame and hosts (APP_LAYERS in scripts/layers.py).
python3 scripts/layers.py --crate app --max-upward 0 --max-knot 0
if cargo tree -p lanescope -e normal --depth 1 | grep -E "rspirv"; then
    echo "the app depends on rspirv directly" >&2
    exit 1
fi
# The page's first visit has no compiler: naga and glslang are in the module it loads on demand.
if cargo tree -p lanescope --no-default-features -e normal --target wasm32-unknown-unknown | grep -E "naga|glslang"; then
    echo "the browser app links a compiler (it belongs in web/glsl, loaded on demand)" >&2
    exit 1
fi
# The page runs the comparison through WebGPU: lanescope_gpu without its Vulkan half, no
# Vulkan loader.
if cargo tree -p lanescope --no-default-features -e normal --target wasm32-unknown-unknown --prefix none | grep -E "^ash "; then
    echo "the browser app links the Vulkan device (ash: native only)" >&2
    exit 1
fi
if cargo tree -p lanescope --no-default-features -e features --target wasm32-unknown-unknown | grep -E 'lanescope_gpu feature "vulkan"'; then
    echo "the browser app links lanescope_gpu with its Vulkan half (native only)" >&2
    exit 1
fi
if cargo tree -p lanescope_gpu -e normal --prefix none | grep -E '^(egui|eframe|wasm-bindgen|lanescope_front|lanescope )'; then
    echo "lanescope_gpu depends on a crate that draws or one above it" >&2
    exit 1
fi
# The app's views ask for what changes the run and never carry it out: the methods that step,
# reset, open or export are private to gui/action (the compiler refuses a view that calls one);
# the entry points the host opens files and links with, `apply` itself, and the session and
# settings fields are public, so a view must not change them either.
views="app/src/gui/panels app/src/gui/tabs app/src/gui/views app/src/gui/editor app/src/gui/inputs app/src/gui/toolbar.rs app/src/gui/printf.rs app/src/gui/build.rs"
if grep -rnE '\b(app|self)\.(apply|open|open_example|open_source|apply_link)\(|&mut app\.(session|settings)\b|app\.session\.as_mut\(|app\.settings\.[a-z_.]+ [-+*|&^]?= ' $views; then
    echo "a view carries out an action itself (it should return it, or send it with app.ask)" >&2
    exit 1
fi

echo "== [${SECONDS}s] cargo clippy"
cargo clippy --workspace --all-targets --release -- -D warnings

echo "== [${SECONDS}s] cargo test (the UI's image snapshots render on Mesa's software Vulkan: setup-native.sh)"
bash scripts/setup-native.sh
cargo test --workspace --release

echo "== [${SECONDS}s] core tests in debug (integer overflow checks on)"
cargo test -p lanescope_core

echo "== [${SECONDS}s] native file dialogs under Xvfb with the xdg portal (LANESCOPE_SKIP_NATIVE=1 skips)"
if [ "${LANESCOPE_SKIP_NATIVE:-0}" != 1 ]; then
    bash scripts/setup-native.sh
    cargo build --release -p lanescope
    bash tests/native/dialogs.sh
fi

echo "== [${SECONDS}s] fuzz smoke run: modules and the front ends without glslang (permalink: scripts/fuzz.sh permalink, it builds the whole app)"
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    for target in load run settings differential amber spvasm wgsl; do
        bash scripts/fuzz.sh "$target" "${LANESCOPE_FUZZ_SECONDS:-20}"
    done
else
    echo "skipped: no nightly toolchain for cargo-fuzz"
fi

echo "== [${SECONDS}s] wasm float results, browser build and end-to-end test (set LANESCOPE_SKIP_WEB=1 to skip locally)"
if [ "${LANESCOPE_SKIP_WEB:-0}" != 1 ]; then
    bash scripts/setup-web.sh
    bash scripts/wasm-float-test.sh
    bash scripts/build-web.sh
    node tests/web/e2e.mjs
    # The browser's compiler module (GLSL, HLSL, WGSL) against the native compilers (the
    # compile-worker).
    cargo build --release -p lanescope
    node tests/web/glsl-module.mjs
fi
echo "== [${SECONDS}s] every check passed"
