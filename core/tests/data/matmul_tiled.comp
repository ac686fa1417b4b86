#version 460
// Tiled matrix multiply C = A x B, N x N (N a specialization constant, a multiple of 16):
// f16 inputs, f32 accumulation, 16x16 tiles of A and B staged in shared memory.
// One invocation per element of C; dispatch N/16 x N/16 workgroups.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(constant_id = 0) const uint N = 512u;
layout(std430, set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { float c[]; };
shared float16_t ta[16][16];
shared float16_t tb[16][16];
void main() {
    uint row = gl_GlobalInvocationID.y;
    uint col = gl_GlobalInvocationID.x;
    uint lx = gl_LocalInvocationID.x;
    uint ly = gl_LocalInvocationID.y;
    float acc = 0.0;
    for (uint t = 0u; t < N; t += 16u) {
        ta[ly][lx] = a[row * N + t + lx];
        tb[ly][lx] = b[(t + ly) * N + col];
        barrier();
        for (uint k = 0u; k < 16u; k++) {
            acc += float(ta[ly][k]) * float(tb[k][lx]);
        }
        barrier();
    }
    c[row * N + col] = acc;
}
