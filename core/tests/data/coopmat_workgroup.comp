#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
// Workgroup-scope cooperative matrices over two subgroups: a 16x16x16 f16 MulAdd, and a matrix
// written element by element by every invocation then stored.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer B0 { float16_t a_[]; };
layout(std430, set = 0, binding = 1) buffer B1 { float16_t b_[]; };
layout(std430, set = 0, binding = 2) buffer B2 { float c_[]; };
layout(std430, set = 0, binding = 3) buffer B3 { float d_[]; };
layout(std430, set = 0, binding = 4) buffer B4 { float e_[]; };
void main() {
    coopmat<float16_t, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseA> a;
    coopmat<float16_t, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseB> b;
    coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator> c;
    coopMatLoad(a, a_, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, b_, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(c, c_, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    c = coopMatMulAdd(a, b, c);
    coopMatStore(c, d_, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator> e =
        coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    for (int i = 0; i < e.length(); i++) {
        e[i] = float(gl_LocalInvocationIndex * 100u + uint(i));
    }
    coopMatStore(e, e_, 0, 16, gl_CooperativeMatrixLayoutColumnMajor);
}
