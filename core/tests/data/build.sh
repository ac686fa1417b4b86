#!/usr/bin/env bash
# Rebuild the test shaders here (needs the compilers set up by scripts/build-assets.sh).
set -euo pipefail
cd "$(dirname "$0")"
bin=$(ls -d ../../../.venv-shaders/lib/python3*/site-packages/cmeel.prefix)
export LD_LIBRARY_PATH="$bin/lib"
for f in *.comp; do "$bin/bin/glslangValidator" --target-env vulkan1.3 -V "$f" -o "${f%.comp}.spv"; done
for f in *.spvasm; do [ -e "$f" ] && "$bin/bin/spirv-as" --target-env vulkan1.3 "$f" -o "${f%.spvasm}.spv"; done
for f in hostile/*.spvasm; do "$bin/bin/spirv-as" --target-env vulkan1.3 "$f" -o "${f%.spvasm}.spv"; done
# A samplerBuffer as an OpTypeSampledImage of a texel buffer, which only SPIR-V before 1.6 has.
"$bin/bin/glslangValidator" --target-env vulkan1.1 -V image_sampler_buffer.comp -o image_sampler_buffer.spv
# The same tile with its barrier.
"$bin/bin/glslangValidator" --target-env vulkan1.3 -V -DBARRIER tile_no_barrier.comp -o tile_barrier.spv
# The detectors' shaders, each with its fixed variant.
g="$bin/bin/glslangValidator --target-env vulkan1.3 -V"
$g -DBARRIER lockstep_race.comp -o lockstep_race_fixed.spv
$g -DATOMIC histogram.comp -o histogram_fixed.spv
$g -DFIXED early_return_barrier.comp -o early_return_barrier_fixed.spv
$g -DFIXED uninit_shared.comp -o uninit_shared_fixed.spv
$g -DFIXED uninit_branch.comp -o uninit_branch_fixed.spv
$g -DUSE bitonic_step.comp -o bitonic_step_use.spv
# Parallel workgroups: an out-of-bounds variant, and workgroups reading each other's words.
$g -DOOB par_tile.comp -o par_tile_oob.spv
$g -DNEIGHBOUR par_shared.comp -o par_neighbour.spv
# matmul_tiled.comp and matmul_coop.comp build with the *.comp loop above.
# The mutation suite's shaders (core/tests/mutations.rs mutates their SPIR-V).
for f in mutation/*.comp; do $g "$f" -o "${f%.comp}.spv"; done
# Barrier divergence: each shader and its FIXED variant.
for f in divergence/*.comp; do
    $g "$f" -o "${f%.comp}.spv"
    $g -DFIXED "$f" -o "${f%.comp}_fixed.spv"
done
# debugPrintfEXT: the shader with its printing, and without (NO_PRINTF).
$g printf/printf_divergent.comp -o printf/printf_divergent.spv
$g -DNO_PRINTF printf/printf_divergent.comp -o printf/printf_divergent_plain.spv
# A module from HLSL with NonSemantic.Shader.DebugInfo.100 (glslang -D -gVS; DXC and Slang emit the same set).
"$bin/bin/glslangValidator" -D -V -gVS -S comp -e CSMain --target-env vulkan1.3 hlsl/wave_sum.hlsl -o hlsl/wave_sum.spv
