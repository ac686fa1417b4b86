#!/usr/bin/env bash
# Rebuilds the test shaders and scripts: shaders/*.comp (GLSL) and shaders/*.spvasm (SPIR-V
# assembly) -> shaders/*.spv, then *.amber.in -> *.amber, where a line `{{source NAME}}` becomes
# the shader's source and `{{spirv-hex NAME}}` its SPIR-V as hex bytes. The tests themselves
# need none of these tools; run this after editing a shader or a template.
#
# Tools: glslangValidator 13.1 and spirv-as 2025.5 from a venv made as in
# front/examples/amber_run.rs (.venv-shaders at the workspace root), or $LANESCOPE_SHADER_TOOLS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
prefix=${LANESCOPE_SHADER_TOOLS:-$(ls -d "$root"/.venv-shaders/lib/python3*/site-packages/cmeel.prefix | head -1)}
export LD_LIBRARY_PATH="$prefix/lib"
cd "$here/shaders"
for f in *.comp; do
  glslangValidator=("$prefix/bin/glslangValidator" -V -S comp --target-env vulkan1.1)
  "${glslangValidator[@]}" "$f" -o "${f%.comp}.spv" >/dev/null
done
for f in *.spvasm; do
  "$prefix/bin/spirv-as" --target-env vulkan1.1 "$f" -o "${f%.spvasm}.spv"
done
cd "$here"
python3 - <<'PY'
import glob, os, re
for tpl in sorted(glob.glob("*.amber.in")):
    out = []
    for line in open(tpl):
        m = re.fullmatch(r"\{\{(source|spirv-hex) (\S+)\}\}\n?", line)
        if not m:
            out.append(line)
        elif m.group(1) == "source":
            src = open(next(p for p in (f"shaders/{m.group(2)}.comp", f"shaders/{m.group(2)}.spvasm") if os.path.exists(p))).read()
            out.append(src if src.endswith("\n") else src + "\n")
        else:
            data = open(f"shaders/{m.group(2)}.spv", "rb").read()
            for i in range(0, len(data), 16):
                out.append(" ".join(f"{b:02x}" for b in data[i:i + 16]) + "\n")
    open(tpl[:-3], "w").write("".join(out))
PY
