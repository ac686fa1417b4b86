#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
// u8 x u8 -> u16 with SaturatingAccumulation: A x B overflows 16 bits where the inputs are
// large (undefined: coopmat-overflow); C + A x B saturates. Needs a layout with these types
// (portable).
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer B0 { uint8_t a_[]; };
layout(std430, set = 0, binding = 1) buffer B1 { uint8_t b_[]; };
layout(std430, set = 0, binding = 2) buffer B2 { uint16_t c_[]; };
layout(std430, set = 0, binding = 3) buffer B3 { uint16_t d_[]; };
void main() {
    coopmat<uint8_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
    coopmat<uint8_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b;
    coopmat<uint16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c;
    coopMatLoad(a, a_, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, b_, 0, 16, gl_CooperativeMatrixLayoutColumnMajor);
    coopMatLoad(c, c_, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    c = coopMatMulAdd(a, b, c, gl_MatrixOperandsSaturatingAccumulation);
    coopMatStore(c, d_, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
