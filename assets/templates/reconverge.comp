// Maximal reconvergence (GL_EXT_maximal_reconvergence): invocations that split at the if meet
// again right after it, so the ballot after the merge sees the whole subgroup. GLSL compiles
// in the native app only; the browser build takes WGSL and SPIR-V assembly.
#version 460
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

void main() [[maximally_reconverges]] {
    uint l = gl_LocalInvocationIndex;
    uint v = inp[l];
    if (v % 3u == 0u) {
        outp[l] = subgroupBallot(true).x;
    } else {
        outp[l] = subgroupBallot(true).x | 0x80000000u;
    }
    outp[32u + l] = subgroupBallot(true).x;
}
