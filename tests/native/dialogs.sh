#!/usr/bin/env bash
# The native app's file dialogs for real: the release `lanescope` under Xvfb, in a D-Bus session
# with the xdg desktop portal and its GTK file chooser, driven with xdotool as a person would:
# Open cancelled, Open choosing a file, the trace and the window exported through the save
# dialog. Then the app with no session bus at all: Open and Export must say so and keep the app
# running.
#
#   tests/native/dialogs.sh [SHOTS_DIR]    (default target/native-shots)
#
# Needs scripts/setup-native.sh. LANESCOPE_BIN picks the binary (default target/release/lanescope,
# built when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

fail() {
    echo "FAIL: $*" >&2
    if [ -n "${work:-}" ] && [ -s "$work/app.err" ]; then
        echo "--- the app's stderr (last lines):" >&2
        tail -n 15 "$work/app.err" >&2
    fi
    exit 1
}
say() { echo "== dialogs: $*"; }

# wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds.
wait_for() {
    local limit=$1 what=$2
    shift 2
    local end=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        if [ -n "${app:-}" ] && ! kill -0 "$app" 2>/dev/null; then
            fail "the app is gone (waiting for $what)"
        fi
        [ "$SECONDS" -lt "$end" ] || fail "timed out after ${limit}s waiting for $what"
        sleep 0.2
    done
}

shot() { xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng >"$shots/$1.png"; }
alive() { kill -0 "$app" 2>/dev/null || fail "the app is gone $1"; }
no_panic() { ! grep -q "panicked" "$work/app.err" || fail "the app panicked $1"; }
title_has() { xdotool getwindowname "$wid" | grep -qF "$1"; }
# Keys to the app's window (no window manager here: focus is set by hand).
keys_to_app() {
    xdotool windowfocus --sync "$wid"
    xdotool key --clearmodifiers "$@"
}

start_app() {
    "$bin" "$root/assets/if_else.spv" >"$work/app.out" 2>"$work/app.err" &
    app=$!
    wait_for 30 "the app's window" xdotool search --onlyvisible --name '^Lanescope'
    wid=$(xdotool search --onlyvisible --name '^Lanescope' | head -n 1)
    wait_for 10 "the window title to name the module" title_has "if_else.spv"
}

stop_app() {
    if [ -n "${app:-}" ]; then
        kill "$app" 2>/dev/null || true
        wait "$app" 2>/dev/null || true
        app=""
    fi
}

# --- Inside the D-Bus session (this script again, under dbus-run-session) -------------------
bus_has() {
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner "string:$1" | grep -q 'boolean true'
}
chooser() { xdotool search --onlyvisible --pid "$gtk_pid" 2>/dev/null | tail -n 1; }
chooser_open() { [ -n "$(chooser)" ]; }
chooser_closed() { [ -z "$(chooser)" ]; }

# Waits for the file chooser, screenshots it, gives it the keyboard.
await_chooser() {
    wait_for 20 "$1 (the portal's GTK file chooser)" chooser_open
    sleep 0.5 # drawn
    shot "$2"
    xdotool windowfocus --sync "$(chooser)"
}

# Types a path into the chooser's location entry and confirms it. GTK completes file names
# as they are typed, from a folder it reads in the background; under load a completion can land
# mid-path, so a path that did not take is typed once more over it.
type_location() {
    local try
    for try in 1 2; do
        xdotool key ctrl+l
        sleep 0.3
        xdotool key ctrl+a
        xdotool type --delay 20 "$1"
        sleep 0.5
        shot "$2-$try"
        xdotool key Return
        for _ in $(seq 40); do
            chooser_open || return 0
            sleep 0.2
        done
        echo "== dialogs: the chooser is still open after typing the path (try $try)"
        xdotool windowfocus --sync "$(chooser)"
    done
}

valid_trace() {
    node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
             process.exit("schema" in d ? 0 : 1)' "$1"
}
# The window as PNG: it decodes, and is about the window's size (1400 x 860).
valid_png() {
    pngtopnm "$1" >"$work/window.pnm" || return 1
    local width
    width=$(head -n 2 "$work/window.pnm" | tail -n 1 | cut -d ' ' -f 1)
    [ "$(head -c 2 "$work/window.pnm")" = P6 ] && [ "$width" -ge 1000 ]
}

in_session() {
    # The GTK backend serves desktops that call themselves GNOME (its portal file's UseIn).
    export XDG_CURRENT_DESKTOP=GNOME GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 GTK_A11Y=none
    gtk_pid="" portal_pid="" app=""
    trap 'stop_app; kill $gtk_pid $portal_pid 2>/dev/null || true' EXIT
    /usr/libexec/xdg-desktop-portal-gtk >"$work/portal-gtk.log" 2>&1 &
    gtk_pid=$!
    wait_for 15 "the GTK portal backend on the bus" bus_has org.freedesktop.impl.portal.desktop.gtk
    /usr/libexec/xdg-desktop-portal >"$work/portal.log" 2>&1 &
    portal_pid=$!
    wait_for 15 "the desktop portal on the bus" bus_has org.freedesktop.portal.Desktop

    start_app
    say "Open (Ctrl+O), then Escape"
    keys_to_app ctrl+o
    await_chooser "the Open dialog" 01-open-dialog
    xdotool key Escape
    wait_for 10 "the Open dialog to close on Escape" chooser_closed
    sleep 1
    alive "after Open was cancelled"
    title_has "if_else.spv" || fail "a cancelled Open changed the module: $(xdotool getwindowname "$wid")"

    say "Open (Ctrl+O), typing assets/subgroup_reduce.spv"
    keys_to_app ctrl+o
    await_chooser "the second Open dialog" 02-open-again
    type_location "$root/assets/subgroup_reduce.spv" 02b-typed
    wait_for 15 "the chosen file in the window title" title_has "subgroup_reduce.spv — step 0"
    wait_for 10 "the Open dialog to close" chooser_closed
    sleep 0.5
    shot 03-opened

    mkdir -p "$work/out"
    say "Export the trace (Ctrl+Shift+E)"
    keys_to_app ctrl+shift+e
    await_chooser "the save dialog for the trace" 04-save-trace
    xdotool key ctrl+a
    xdotool type --delay 20 "$work/out/trace.json"
    xdotool key Return
    wait_for 15 "the exported trace to parse as JSON with \"schema\"" valid_trace "$work/out/trace.json"

    say "Export the window as PNG (Ctrl+Shift+S)"
    wait_for 10 "the save dialog to close" chooser_closed
    keys_to_app ctrl+shift+s
    await_chooser "the save dialog for the PNG" 05-save-png
    xdotool key ctrl+a
    xdotool type --delay 20 "$work/out/window.png"
    xdotool key Return
    wait_for 15 "the exported PNG to decode" valid_png "$work/out/window.png"
    alive "after the exports"
    no_panic "with dialogs"
    stop_app
}

# --- Outside: the display, both runs ---------------------------------------------------------
if [ "${1:-}" = --in-session ]; then
    in_session
    exit 0
fi

for tool in Xvfb xdotool xwd xwdtopnm pnmtopng pngtopnm dbus-run-session dbus-send node \
    /usr/libexec/xdg-desktop-portal /usr/libexec/xdg-desktop-portal-gtk; do
    command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup-native.sh"
done
bin=${LANESCOPE_BIN:-$root/target/release/lanescope}
if [ -z "${LANESCOPE_BIN:-}" ] && [ ! -x "$bin" ]; then
    (cd "$root" && cargo build --release -p lanescope)
fi
[ -x "$bin" ] || fail "no binary at $bin"
shots=$(mkdir -p "${1:-$root/target/native-shots}" && cd "${1:-$root/target/native-shots}" && pwd)
rm -f "$shots"/*.png
work=$(mktemp -d "${TMPDIR:-/tmp}/lanescope-dialogs.XXXXXX")
xvfb="" app=""
cleanup() {
    stop_app
    [ -z "$xvfb" ] || kill "$xvfb" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
start=$SECONDS

# Xvfb picks a free display and writes its number to fd 3.
# -noreset: the server must not regenerate when the first run's last client leaves, or the
# second run can find no display for a moment.
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp -noreset 3>"$work/display" 2>"$work/xvfb.log" &
xvfb=$!
wait_for 10 "Xvfb to start" test -s "$work/display"
export DISPLAY=":$(head -n 1 "$work/display")"
# The app's saved settings and the chooser's recent files stay in the temporary directory.
mkdir -m 700 -p "$work/run" "$work/empty"
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache" \
    XDG_RUNTIME_DIR="$work/run"
export root bin shots work

say "with a D-Bus session and the xdg portal (display $DISPLAY)"
if ! timeout 90 dbus-run-session -- bash "$0" --in-session; then
    echo "FAIL: the run with the portal failed; screenshots in $shots" >&2
    exit 1
fi

say "with no D-Bus session bus and no zenity: Open and Export say so, the app stays"
# rfd falls back to running zenity; an empty PATH makes sure none answers.
DBUS_SESSION_BUS_ADDRESS="unix:path=$work/no-bus" PATH="$work/empty" \
    "$bin" "$root/assets/if_else.spv" >"$work/app.out" 2>"$work/app.err" &
app=$!
wait_for 30 "the app's window" xdotool search --onlyvisible --name '^Lanescope'
wid=$(xdotool search --onlyvisible --name '^Lanescope' | head -n 1)
keys_to_app ctrl+o
wait_for 15 "\"no file dialog available\" on stderr" grep -q "no file dialog available" "$work/app.err"
sleep 2
alive "when no dialog could be shown"
shot 06-no-dialog
keys_to_app ctrl+shift+e
wait_for 15 "the export to say it was not saved" grep -q "was not saved" "$work/app.err"
sleep 1
alive "when no save dialog could be shown"
no_panic "without D-Bus"
title_has "if_else.spv" || fail "the session changed: $(xdotool getwindowname "$wid")"
stop_app

say "passed in $((SECONDS - start)) s; screenshots in $shots"
