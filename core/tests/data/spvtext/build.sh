#!/usr/bin/env bash
# Rebuild the spvtext fixtures with the real SPIRV-Tools (2025.5) and glslang (13.1) from
# .venv-shaders (see scripts/build-assets.sh). The tests only read what this writes:
#   NAME.comp    -> NAME.spv (glslangValidator; debuginfo.comp with -gVS)
#   NAME.spvasm  -> NAME.spv (spirv-as) and NAME.preserve.spv (spirv-as --preserve-numeric-ids)
#   each NAME.spv and the repo modules in REPO_DIS -> NAME.dis (spirv-dis) and NAME.raw.dis
#                   (spirv-dis --raw-id), or NAME.dis.err when spirv-dis refuses the module
#   every other .spvasm tracked in the repo -> repo/PATH.spv and repo/PATH.preserve.spv (PATH
#                   with / written as __)
set -euo pipefail
cd "$(dirname "$0")"
root=$(git rev-parse --show-toplevel)
prefix=$(ls -d "$root"/.venv-shaders/lib/python3*/site-packages/cmeel.prefix)
export LD_LIBRARY_PATH="$prefix/lib"
bin=$prefix/bin

# Modules of the repo whose disassembly is pinned too: dot products, subgroup rotates, a
# cooperative matrix multiply, and invalid modules (a refused spec constant opcode, ids past the
# bound, a type used as a value).
REPO_DIS=(
    core/tests/reference/dot/dot_packed4x8.spv
    core/tests/reference/dot/dot_v4i32.spv
    core/tests/reference/rotate/rotate_uint.spv
    core/tests/reference/rotate/rotate_inactive_uint.spv
    core/tests/reference/coopmat/muladd_f16f16_f32f32_16x16x16.spv
    core/tests/data/hostile/id_of_wrong_kind.spv
    core/tests/data/fuzz/load-spec-constant-op-with-constant.spv
    core/tests/data/fuzz/run-function-without-body.spv
)

dis() { # module, output stem
    rm -f "$2.dis" "$2.raw.dis" "$2.dis.err"
    if "$bin/spirv-dis" --no-color "$1" -o "$2.dis" 2>"$2.dis.err"; then
        "$bin/spirv-dis" --no-color --raw-id "$1" -o "$2.raw.dis"
        rm "$2.dis.err"
    else
        rm -f "$2.dis"
    fi
}

for f in *.comp; do
    g=()
    [[ $f == debuginfo.comp ]] && g=(-gVS)
    "$bin/glslangValidator" -V "${g[@]}" --target-env vulkan1.3 "$f" -o "${f%.comp}.spv" >/dev/null
done
for f in *.spvasm; do
    "$bin/spirv-as" "$f" -o "${f%.spvasm}.spv"
    "$bin/spirv-as" --preserve-numeric-ids "$f" -o "${f%.spvasm}.preserve.spv"
done
for f in *.spv; do
    [[ $f == *.preserve.spv ]] || dis "$f" "${f%.spv}"
done

rm -rf repo
mkdir repo
for f in "${REPO_DIS[@]}"; do
    dis "$root/$f" "repo/${f//\//__}"
    sed -i "s|$root/||" "repo/${f//\//__}.dis.err" 2>/dev/null || true
done
# (the fixtures here are assembled above)
(cd "$root" && git ls-files '*.spvasm' ':!core/tests/data/spvtext') | while read -r f; do
    out="repo/${f//\//__}"
    "$bin/spirv-as" "$root/$f" -o "${out%.spvasm}.spv"
    "$bin/spirv-as" --preserve-numeric-ids "$root/$f" -o "${out%.spvasm}.preserve.spv"
done
