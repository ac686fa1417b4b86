#version 450
// Reads an R32_UINT image, writes an RGBA8 image (even columns green, odd ones half red),
// counts even and odd texels with image atomics, and fills two slices of a 3D R32F image.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(set = 0, binding = 2, r32ui) uniform uimage2D count;
layout(set = 0, binding = 3, r32f) uniform writeonly image3D vol;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  uint v = imageLoad(src, p).r;
  vec4 c = (v % 2u == 0u) ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(0.5, 0.0, 0.0, 1.0);
  imageStore(dst, p, c);
  imageAtomicAdd(count, ivec2(int(v % 2u), 0), 1u);
  for (int z = 0; z < 2; z++) {
    imageStore(vol, ivec3(p, z), vec4(float(z * 10 + p.x)));
  }
}
