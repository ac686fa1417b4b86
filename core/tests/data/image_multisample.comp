#version 450
// A multisampled storage image: each invocation writes every sample of its texel, adds to
// sample 1 atomically, and reports imageSamples; sample 4 of a 4-sample image is outside it.
#extension GL_EXT_samplerless_texture_functions : enable
layout(local_size_x = 2, local_size_y = 2) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2DMS ms;
layout(set = 0, binding = 1, std430) buffer Out { uint samples; uint sum[4]; } outp;
void main() {
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint i = gl_LocalInvocationIndex;
    for (int s = 0; s < 4; s++) {
        imageStore(ms, p, s, uvec4(i * 10 + uint(s)));
    }
    imageAtomicAdd(ms, p, 1, 100u);
    imageStore(ms, p, 4, uvec4(999));
    uint sum = 0;
    for (int s = 0; s < 4; s++) {
        sum += imageLoad(ms, p, s).x;
    }
    outp.sum[i] = sum;
    if (i == 0) {
        outp.samples = uint(imageSamples(ms));
    }
}
