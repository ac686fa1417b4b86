#!/usr/bin/env bash
# Installs what driving the native app under a virtual display needs (tests/native/dialogs.sh,
# screenshots) and the software Vulkan driver of the image snapshot tests: Xvfb, xdotool, screenshot tools, a D-Bus session bus and the xdg desktop portal
# with its GTK file chooser. Debian packages only; idempotent.
#
# The app itself needs none of these to build or run: winit and glutin load X11/GL at run time,
# and rfd talks to the portal over D-Bus in pure Rust.
set -euo pipefail

# dbus-daemon: dbus-run-session and the session bus; nodejs: checks the exported JSON;
# mesa-vulkan-drivers (lavapipe) and libvulkan1: the software Vulkan the UI's image snapshot
# tests render on through wgpu.
packages=(xvfb x11-apps netpbm xdotool dbus-daemon xdg-desktop-portal xdg-desktop-portal-gtk
    fonts-dejavu-core nodejs mesa-vulkan-drivers libvulkan1)
missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ "${#missing[@]}" -eq 0 ]; then
    echo "== setup-native: Debian packages present"
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
echo "== setup-native: apt-get install ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
