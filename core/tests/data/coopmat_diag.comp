#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
// Cooperative-matrix diagnostics, one case per MODE (specialization constant 0):
// 0 load in divergent control flow (coopmat-partial-tangle), 1 non-uniform Stride,
// 2 a Stride that runs out of the buffer, 3 a non-uniform scalar in MatrixTimesScalar,
// 4 per-lane writes then a store (coopmat-replica-mismatch under amd-rdna3 only),
// 5 a store with Stride 0 (coopmat-invalid-stride).
layout(constant_id = 0) const int MODE = 0;
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer B0 { float16_t src[]; };
layout(std430, set = 0, binding = 1) buffer B1 { float16_t dst[]; };
void main() {
    uint lane = gl_SubgroupInvocationID;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> m =
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>(float16_t(1.0));
    if (MODE == 0) {
        if (lane < 16u) {
            coopMatLoad(m, src, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
        }
    } else if (MODE == 1) {
        coopMatLoad(m, src, 0, 16u + (lane & 1u), gl_CooperativeMatrixLayoutRowMajor);
    } else if (MODE == 2) {
        coopMatLoad(m, src, 0, 1000, gl_CooperativeMatrixLayoutRowMajor);
    } else if (MODE == 3) {
        m = m * float16_t(lane);
    } else if (MODE == 4) {
        m[0] = float16_t(lane);
    } else {
        coopMatStore(m, dst, 0, 0, gl_CooperativeMatrixLayoutRowMajor);
        return;
    }
    coopMatStore(m, dst, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
