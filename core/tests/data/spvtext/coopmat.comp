#version 450
// Cooperative matrices (KHR): types with constant dimensions and uses, loads and stores with
// layouts, and a multiply-add with signed components and saturation.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { int8_t a[]; };
layout(set = 0, binding = 1) buffer B { int8_t b[]; };
layout(set = 0, binding = 2) buffer C { int c[]; };
void main() {
    coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> ma;
    coopmat<int8_t, gl_ScopeSubgroup, 32, 16, gl_MatrixUseB> mb;
    coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> mc;
    coopMatLoad(ma, a, 0, 32, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mb, b, 0, 16, gl_CooperativeMatrixLayoutColumnMajor);
    coopMatLoad(mc, c, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    mc = coopMatMulAdd(ma, mb, mc, gl_MatrixOperandsSaturatingAccumulation);
    mc = mc * int(mc.length());
    coopMatStore(mc, c, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
