#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// A subgroup barrier executed by half of each subgroup. FIXED: by all of it.
void main() {
    uint i = gl_LocalInvocationIndex;
    tile[i] = i;
#ifdef FIXED
    subgroupMemoryBarrierShared();
    subgroupBarrier();
#else
    if ((gl_SubgroupInvocationID & 1u) == 0u) {
        subgroupMemoryBarrierShared();
        subgroupBarrier();
    }
#endif
    outp[gl_GlobalInvocationID.x] = tile[i ^ 1u];
}
