#!/usr/bin/env bash
# Rebuild the device comparison's test shaders here (needs the compilers set up by
# scripts/build-assets.sh). The tests read the committed .spv files.
set -euo pipefail
cd "$(dirname "$0")"
bin=$(ls -d ../../../.venv-shaders/lib/python3*/site-packages/cmeel.prefix)
export LD_LIBRARY_PATH="$bin/lib"
for f in *.comp; do
    "$bin/bin/glslangValidator" --target-env vulkan1.3 -V "$f" -o "${f%.comp}.spv"
done
for f in *.spvasm; do "$bin/bin/spirv-as" --target-env vulkan1.3 "$f" -o "${f%.spvasm}.spv"; done
for f in *.spv; do "$bin/bin/spirv-val" --target-env vulkan1.3 "$f"; done
