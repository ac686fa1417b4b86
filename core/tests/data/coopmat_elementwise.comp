#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
// Element-wise arithmetic and conversions on a 16x16 f32 accumulator:
// g = -((c * 2) + c - c) = -2c, h = f16(g) (column-major), i = int(g), q = float(h) / c.
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer B0 { float f[]; };
layout(std430, set = 0, binding = 1) buffer B1 { float g[]; };
layout(std430, set = 0, binding = 2) buffer B2 { float16_t h[]; };
layout(std430, set = 0, binding = 3) buffer B3 { int i_[]; };
layout(std430, set = 0, binding = 4) buffer B4 { float q[]; };
void main() {
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c;
    coopMatLoad(c, f, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> d = c * 2.0;
    d = d + c;
    d = d - c;
    d = -d;
    coopMatStore(d, g, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> hh =
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(d);
    coopMatStore(hh, h, 0, 16, gl_CooperativeMatrixLayoutColumnMajor);
    coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> ii =
        coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(d);
    coopMatStore(ii, i_, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> back =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(hh);
    back = back / c;
    coopMatStore(back, q, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
