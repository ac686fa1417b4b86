#version 460
// Independent workgroups: each reads its slice of `inp` through shared memory (with a
// barrier), diverges, reduces over its subgroup and writes its own slice of `outp`.
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint tile[32];
void main() {
    uint l = gl_LocalInvocationIndex;
    uint g = gl_GlobalInvocationID.x;
    tile[l] = inp[g];
    barrier();
    uint acc = 0u;
    for (uint i = 0u; i < 32u; i++) {
        acc = acc * 31u + tile[(l + i) % 32u];
    }
    if (acc % 3u == 0u) {
        acc += subgroupAdd(l);
    } else {
        acc ^= subgroupMax(g);
    }
    outp[g] = acc;
#ifdef OOB
    // Workgroup 5 writes past the end of `outp`: an out-of-bounds diagnostic.
    if (gl_WorkGroupID.x == 5u) {
        outp[g + 100000u] = 1u;
    }
#endif
}
