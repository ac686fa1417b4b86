#version 450
#extension GL_EXT_samplerless_texture_functions : require
// A uniform texel buffer of RGBA8 colours, a storage texel buffer of R32F sums (each adds its
// colour's channels), and an R32UI storage texel buffer counted with atomics.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform textureBuffer colors;
layout(set = 0, binding = 1, r32f) uniform imageBuffer sums;
layout(set = 0, binding = 2, r32ui) uniform uimageBuffer counts;
void main() {
  int i = int(gl_GlobalInvocationID.x);
  vec4 c = texelFetch(colors, i);
  imageStore(sums, i, vec4(imageLoad(sums, i).r + c.r + c.g + c.b + c.a));
  imageAtomicAdd(counts, i % 2, 1u);
}
