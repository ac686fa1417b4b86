// coopmat_gemm_int8: an int8 GEMM tile per subgroup, 16x16x32: signed 8-bit A (16x32) and
// B (32x16), 32-bit signed accumulator. glslang marks the int8_t/int operands with
// Matrix{A,B,C,Result}SignedComponentsKHR, so bytes are sign-extended (0xff is -1).
//
// v = inp[L] + L. Shared memory holds the bytes packed four to a uint: invocation L writes
// uints 4 (L % 32) .. + 3 of its subgroup's A and B: byte j of word w is
// A: ((v * 7 + 13 (4 w' + j)) % 255) - 127,  B: ((v * 11 + 5 (4 w' + j)) % 251) - 125
// (w' = w % 4). A rows are 8 uints (Stride 8), B rows 4 uints (Stride 4).
// C = 1000 * SubgroupID. Binding 1: D of subgroup t, row-major, at outp[t * 256 + r * 16 + c].
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
layout(set = 0, binding = 1) buffer Out { int outp[]; };
shared uint sA[256];
shared uint sB[256];
uint pack4(uint base, uint mul, uint step, uint m, uint bias) {
    uint w = 0u;
    for (uint j = 0u; j < 4u; j++) {
        int x = int((base * mul + step * j) % m) - int(bias);
        w |= (uint(x) & 0xffu) << (8u * j);
    }
    return w;
}
void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint v = inp[L] + L;
    uint t = gl_SubgroupID;
    for (uint w = 0u; w < 4u; w++) {
        uint at = t * 128u + (L % 32u) * 4u + w;
        sA[at] = pack4(v + w, 7u, 13u, 255u, 127u);
        sB[at] = pack4(v + 3u * w, 11u, 5u, 251u, 125u);
    }
    barrier();
    coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> ma;
    coopmat<int8_t, gl_ScopeSubgroup, 32, 16, gl_MatrixUseB> mb;
    coopMatLoad(ma, sA, t * 128u, 8u, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mb, sB, t * 128u, 4u, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> mc =
        coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(int(1000u * t));
    mc = coopMatMulAdd(ma, mb, mc);
    coopMatStore(mc, outp, t * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}
