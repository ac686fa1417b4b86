#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// Half-precision values in shared memory, two to a word: each invocation reads its
// neighbour's half, which shares its word.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared float16_t h[64];
void main() {
    uint l = gl_LocalInvocationIndex;
    h[l] = float16_t(inp[gl_GlobalInvocationID.x] & 255u);
    barrier();
    outp[gl_GlobalInvocationID.x] = uint(h[l ^ 1u]) + 1000u * uint(h[l]);
}
