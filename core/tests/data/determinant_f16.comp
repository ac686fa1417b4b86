// Determinant and dot product of an f16 matrix in f16 steps, as 16-bit hardware computes
// them (Vulkan CTS builtin/precision/square_matrix/determinant_compute_fp16_mat_3x3 expects
// this), next to the same matrix in f32.
//
// Binding 0 (std430): m[9] the matrix column-major (f16), then det16 = determinant in f16,
// dot16 = dot(column 1, column 2) in f16, and det32 = determinant of the matrix in f32.
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Buf {
    float16_t m[9];
    float16_t det16;
    float16_t dot16;
    float det32;
};

void main() {
    f16mat3 a = f16mat3(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
    det16 = determinant(a);
    dot16 = dot(a[1], a[2]);
    det32 = determinant(mat3(a));
}
