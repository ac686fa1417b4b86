// coopmat_activation: an element-wise activation on an accumulator. The f32 16x16 matrix
// X(r, c) = ((v + 3 r + 5 c) % 19) - 9 (v = inp[0] + subgroup) is loaded from shared memory;
// each invocation applies leaky ReLU to its own components (x > 0 ? x : x / 8, a loop over
// length(): per-lane element access) and the matrix is scaled by 0.5 (OpMatrixTimesScalar).
// Element-wise work is layout-independent: the result is the same under every layout.
// Binding 1: Y of subgroup t, row-major, at outp[t * 256 + r * 16 + c] (floats).
#version 450
// The source asks for maximal reconvergence; glslang 13.1 does not know the extension, so
// scripts/build-assets.sh adds the execution mode for it (the macro is empty there).
#ifdef GL_EXT_maximal_reconvergence
#extension GL_EXT_maximal_reconvergence : require
#define MAXIMALLY_RECONVERGES [[maximally_reconverges]]
#else
#define MAXIMALLY_RECONVERGES
#endif
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { float outp[]; };
shared float sX[512];
void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint t = gl_SubgroupID;
    uint v = inp[0] + t;
    for (uint k = 0u; k < 8u; k++) {
        uint e = (L % 32u) * 8u + k;
        uint r = e / 16u, c = e % 16u;
        sX[t * 256u + e] = float((v + 3u * r + 5u * c) % 19u) - 9.0;
    }
    barrier();
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> x;
    coopMatLoad(x, sX, t * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
    for (int i = 0; i < x.length(); i++) {
        float e = x[i];
        x[i] = e > 0.0 ? e : e * 0.125;
    }
    x = x * 0.5;
    coopMatStore(x, outp, t * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}
