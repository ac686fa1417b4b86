#version 450
// A combined image sampler: four points at LOD 0, and the image's size.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer O { vec4 o[5]; };
const vec2 uvs[4] = vec2[](vec2(0.25, 0.25), vec2(0.5, 0.5), vec2(0.0, 0.25), vec2(1.5, 0.75));
void main() {
  uint i = gl_GlobalInvocationID.x;
  o[i] = textureLod(tex, uvs[i], 0.0);
  if (i == 0u) {
    o[4] = vec4(vec2(textureSize(tex, 0)), 0.0, 0.0);
  }
}
