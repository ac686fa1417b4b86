// A ballot inside divergent control flow, in an entry point without MaximallyReconvergesKHR:
// which invocations take part is the device's to choose (the simulation reconverges maximally).
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };
void main() {
    uint L = gl_GlobalInvocationID.x;
    uint v = inp[L];
    uint b = 0u;
    for (uint i = 0u; i < (v % 4u); i++) {
        if (((v >> i) & 1u) == 1u) {
            b += subgroupBallot(true).x;
        }
    }
    outp[L] = b;
}
