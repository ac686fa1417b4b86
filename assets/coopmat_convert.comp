// coopmat_convert: conversions of a 16x16 f32 accumulator X(r, c) = (r * 16 + c - 100) / 4:
// to f16 (OpFConvert) and to int (OpConvertFToS, truncating). Under the built-in layouts the
// three types share one fragment layout, so each lane converts its own components; under a
// layout where they differ (e.g. --coopmat-layout assets/coopmat_layout_transposed.json, which
// lays f16 accumulators out column by column) the conversion moves elements between lanes.
// The f16 result is stored into a uint buffer: Stride 8 counts uints (16 halves per row).
// Binding 1, words 0..127: the f16 matrix, row-major, two halves per word. Binding 2, words
// 0..255: the int matrix, row-major. Both subgroups store the same values.
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
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
layout(set = 0, binding = 2) buffer OutI { int outi[]; };
shared float sX[256];
void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    for (uint k = 0u; k < 4u; k++) {
        uint e = L * 4u + k;
        sX[e] = (float(e) - 100.0) / 4.0;
    }
    barrier();
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> x;
    coopMatLoad(x, sX, 0u, 16u, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> h =
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(x);
    coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> i =
        coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(x);
    coopMatStore(h, outp, 0u, 8u, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(i, outi, 0u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}
