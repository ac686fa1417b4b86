#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// Bytes in shared memory, four to a word: each invocation reads the byte three places on
// within its word, then the workgroup reuses the array for a second round.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint8_t b[64];
void main() {
    uint l = gl_LocalInvocationIndex;
    b[l] = uint8_t(inp[gl_GlobalInvocationID.x]);
    barrier();
    uint first = uint(b[l ^ 3u]);
    barrier();
    b[l] = uint8_t(first + l);
    barrier();
    outp[gl_GlobalInvocationID.x] = first + 256u * uint(b[(l + 4u) & 63u]);
}
