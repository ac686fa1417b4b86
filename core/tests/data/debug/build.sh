#!/usr/bin/env bash
# Rebuild the debug-information test modules (needs the compilers set up by
# scripts/build-assets.sh): loop_switch.comp with glslang's -g (OpLine) and -gVS
# (NonSemantic.Shader.DebugInfo.100), the -gVS module with every call inlined (DebugInlinedAt),
# and inlined with locals promoted to SSA values (DebugValue); the assembly ones as written.
set -euo pipefail
cd "$(dirname "$0")"
bin=$(ls -d ../../../../.venv-shaders/lib/python3*/site-packages/cmeel.prefix)
export LD_LIBRARY_PATH="$bin/lib"
glslang="$bin/bin/glslangValidator --target-env vulkan1.3 -V"
$glslang -g loop_switch.comp -o loop_switch_g.spv
$glslang -gVS loop_switch.comp -o loop_switch_gvs.spv
"$bin/bin/spirv-opt" --inline-entry-points-exhaustive loop_switch_gvs.spv -o loop_switch_inlined.spv
"$bin/bin/spirv-opt" --inline-entry-points-exhaustive --eliminate-local-single-store \
    --eliminate-local-multi-store loop_switch_gvs.spv -o loop_switch_ssa.spv
for f in *.spvasm; do "$bin/bin/spirv-as" --target-env vulkan1.3 "$f" -o "${f%.spvasm}.spv"; done
