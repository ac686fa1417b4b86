#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
// A 32x32 f16 MatrixA: no layout measured on the H100 covers it (nvidia refuses it at load).
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer B0 { float16_t a_[]; };
void main() {
    coopmat<float16_t, gl_ScopeSubgroup, 32, 32, gl_MatrixUseA> a;
    coopMatLoad(a, a_, 0, 32, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(a, a_, 1024, 32, gl_CooperativeMatrixLayoutColumnMajor);
}
