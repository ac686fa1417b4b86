#version 460
// Cooperative-matrix GEMM C = A x B, N x N (N a specialization constant, a multiple of 16):
// f16 A and B, f32 accumulator; one subgroup of 32 per 16x16 tile of C, marching along K.
// Dispatch N/16 x N/16 workgroups at subgroup size 32.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(constant_id = 0) const uint N = 512u;
layout(std430, set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { float c[]; };
void main() {
    uint tr = gl_WorkGroupID.y * 16u;
    uint tc = gl_WorkGroupID.x * 16u;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    for (uint k = 0u; k < N; k += 16u) {
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, a, tr * N + k, N, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, b, k * N + tc, N, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopMatStore(acc, c, tr * N + tc, N, gl_CooperativeMatrixLayoutRowMajor);
}
