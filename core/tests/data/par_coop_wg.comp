#version 450
// Workgroup-scope cooperative matrices, one 16x16 tile per workgroup: D_w = A_w x B_w over two
// subgroups. Workgroup-scope matrices run when the workgroup's last subgroup arrives, so the
// final store happens outside any step (see core/tests/parallel.rs).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer B0 { float16_t a_[]; };
layout(std430, set = 0, binding = 1) readonly buffer B1 { float16_t b_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer B2 { float d_[]; };
void main() {
    uint t = gl_WorkGroupID.x * 256u;
    coopmat<float16_t, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseA> a;
    coopmat<float16_t, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseB> b;
    coopMatLoad(a, a_, t, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, b_, t, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator> c =
        coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator>(1.0);
    c = coopMatMulAdd(a, b, c);
    coopMatStore(c, d_, t, 16, gl_CooperativeMatrixLayoutRowMajor);
}
