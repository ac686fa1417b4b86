// Workgroup memory across subgroups with barriers: each invocation reads its mirror's value.
#version 460
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 96) in;
layout(std430, set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[96];
void main() {
    uint L = gl_LocalInvocationIndex;
    tile[L] = L * L + 7u;
    barrier();
    outp[L] = tile[95u - L] + gl_SubgroupID * 100000u;
}
