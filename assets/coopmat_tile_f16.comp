// coopmat_tile_f16: one 16x16x16 MulAdd per subgroup, f16 A and B, f32 accumulator:
// D = A x B + C with C = SubgroupID everywhere.
//
// v = inp[L] + L. A and B are built in shared memory declared as uvec4 (8 halves each, packed
// with packHalf2x16): invocation L writes sA[L] and sB[L], halves 8 (L % 32) + e (e < 8) of its
// subgroup's tiles, row-major: A's is ((v + e) % 7) - 3, B's ((3 v + e) % 5) / 2. The loads
// name the uvec4 array: the Stride (2) counts uvec4 elements of the pointee, not halves.
// Binding 1: D of subgroup t, row-major, at outp[t * 256 + r * 16 + c] (floats).
// Needs subgroups of 32 (nvidia and amd-rdna3 lay out 32 lanes; portable any).
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
shared uvec4 sA[64];
shared uvec4 sB[64];
void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint v = inp[L] + L;
    float a[8];
    float b[8];
    for (uint e = 0u; e < 8u; e++) {
        a[e] = float((v + e) % 7u) - 3.0;
        b[e] = float((3u * v + e) % 5u) * 0.5;
    }
    sA[L] = uvec4(packHalf2x16(vec2(a[0], a[1])), packHalf2x16(vec2(a[2], a[3])),
                  packHalf2x16(vec2(a[4], a[5])), packHalf2x16(vec2(a[6], a[7])));
    sB[L] = uvec4(packHalf2x16(vec2(b[0], b[1])), packHalf2x16(vec2(b[2], b[3])),
                  packHalf2x16(vec2(b[4], b[5])), packHalf2x16(vec2(b[6], b[7])));
    barrier();
    uint t = gl_SubgroupID;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
    coopMatLoad(ma, sA, t * 32u, 2u, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mb, sB, t * 32u, 2u, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> mc =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(float(t));
    mc = coopMatMulAdd(ma, mb, mc);
    coopMatStore(mc, outp, t * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}
