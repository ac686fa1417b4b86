#!/usr/bin/env bash
# Installs everything the browser build and its end-to-end test need on a fresh Debian 12 machine.
# Idempotent: each step is skipped when what it installs is already there.
#
#   scripts/setup-web.sh            wasm toolchain, wasm-bindgen, binaryen, Chromium, playwright-core:
#                                   what build-web.sh (and --serve) and the browser test use
#   scripts/setup-web.sh --trunk    also Trunk, for `trunk serve` / `build-web.sh --trunk` (10+ minutes)
#   scripts/setup-web.sh --no-trunk the default (kept for older command lines)
#   scripts/setup-web.sh --native   also what driving the native app needs (scripts/setup-native.sh)
#
# Why this route: rustup cannot fetch the wasm32 standard library on these machines, so Debian's
# rustc-web builds std for wasm32 itself (-Zbuild-std, see scripts/build-web.sh). rustup's toolchain
# stays the default for everything else.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130 # must equal the wasm-bindgen version in Cargo.lock
TRUNK_STABLE_VERSION=0.21.14 # the newest Trunk that builds with a 1.95 rustc
want_trunk=0
want_native=0
for arg in "$@"; do
    case "$arg" in
    --trunk) want_trunk=1 ;;
    --no-trunk) want_trunk=0 ;;
    --native) want_native=1 ;;
    *)
        echo "usage: $0 [--trunk] [--native]" >&2
        exit 2
        ;;
    esac
done

log() { echo "== setup-web: $*"; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# --- Debian packages -------------------------------------------------------------------------
packages=(rustc-web cargo-web rust-web-src rust-web-llvm lld-22 chromium fonts-dejavu-core)
if [ "$want_native" = 1 ]; then bash scripts/setup-native.sh; fi
missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ "${#missing[@]}" -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    log "Debian packages present"
fi

# --- A PATH directory where cargo/rustc are Debian's rustc-web -------------------------------
# Only scripts/build-web.sh puts it on PATH; nothing global changes.
mkdir -p .web-toolchain/bin
for tool in cargo rustc rustdoc; do
    ln -sf "/usr/bin/$tool" ".web-toolchain/bin/$tool"
done

# --- wasm-bindgen-cli ------------------------------------------------------------------------
have_bindgen=""
if command -v wasm-bindgen >/dev/null 2>&1; then
    have_bindgen="$(wasm-bindgen --version | awk '{print $2}')"
fi
if [ "$have_bindgen" != "$WASM_BINDGEN_VERSION" ]; then
    log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    # Not --locked: its lock file pins crates that no longer build with this toolchain.
    cargo install wasm-bindgen-cli --version "=$WASM_BINDGEN_VERSION"
else
    log "wasm-bindgen $WASM_BINDGEN_VERSION present"
fi

# --- Trunk (for `trunk serve` / `trunk build`) -----------------------------------------------
if [ "$want_trunk" = 1 ]; then
    if command -v trunk >/dev/null 2>&1; then
        log "$(trunk --version) present"
    elif rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
        log "cargo +nightly install trunk (the newest Trunk needs rustc >= 1.96.1; takes 10+ minutes)"
        cargo +nightly install trunk --locked
    else
        log "cargo install trunk $TRUNK_STABLE_VERSION (takes 10+ minutes)"
        cargo install trunk --version "$TRUNK_STABLE_VERSION" --locked
    fi
fi

# --- npm: binaryen 132 (Debian's 108 emits a broken wasm) and playwright-core ----------------
if [ -x node_modules/.bin/wasm-opt ] && [ -d node_modules/playwright-core ] &&
    node_modules/.bin/wasm-opt --version | grep -q 'version 132'; then
    log "npm tools present"
else
    log "npm ci"
    npm ci --no-audit --no-fund
fi

log "done"
