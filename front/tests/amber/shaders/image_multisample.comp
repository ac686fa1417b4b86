#version 450
// A multisampled R32UI storage image: each sample s gains (s + 1) * 10; the sum of a texel's
// samples goes to an RGBA8 image as red / 255; the sample count to a buffer.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2DMS ms;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D resolved;
layout(set = 0, binding = 2) buffer O { int samples; };
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  int n = imageSamples(ms);
  uint sum = 0u;
  for (int s = 0; s < n; s++) {
    uint v = imageLoad(ms, p, s).r + uint(s + 1) * 10u;
    imageStore(ms, p, s, uvec4(v));
    sum += v;
  }
  imageStore(resolved, p, vec4(float(sum) / 255.0, 0.0, 0.0, 1.0));
  if (p == ivec2(0)) {
    samples = n;
  }
}
