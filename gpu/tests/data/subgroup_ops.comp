// Subgroup reductions, scans, a ballot and shuffles in uniform control flow: defined for any
// subgroup size, so the device and the simulation agree at the device's size.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };
void main() {
    uint L = gl_GlobalInvocationID.x;
    uint x = inp[L] & 0xffu;
    outp[6u * L + 0u] = subgroupAdd(x);
    outp[6u * L + 1u] = subgroupInclusiveAdd(x);
    outp[6u * L + 2u] = subgroupMax(x ^ L);
    outp[6u * L + 3u] = subgroupBallot(x % 3u == 0u).x;
    outp[6u * L + 4u] = subgroupShuffleXor(x, 1u);
    outp[6u * L + 5u] = gl_SubgroupSize * 100u + gl_SubgroupInvocationID;
}
