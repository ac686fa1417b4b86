#version 450
// A sampled image and a separate sampler: four points at LOD 0.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform texture2D tex;
layout(set = 0, binding = 1) uniform sampler smp;
layout(set = 0, binding = 2) buffer O { vec4 o[]; };
const vec2 uvs[4] = vec2[](vec2(0.25, 0.25), vec2(0.5, 0.5), vec2(0.0, 0.25), vec2(0.75, 0.75));
void main() {
  uint i = gl_GlobalInvocationID.x;
  o[i] = textureLod(sampler2D(tex, smp), uvs[i], 0.0);
}
