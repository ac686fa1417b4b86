#version 450
// Tree reduction in shared memory: each step halves the active invocations, a barrier after
// every step. Inputs at binding 0, one sum per workgroup at binding 1.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint s[64];
void main() {
    uint l = gl_LocalInvocationIndex;
    s[l] = inp[gl_GlobalInvocationID.x];
    barrier();
    for (uint stride = 32u; stride > 0u; stride >>= 1u) {
        if (l < stride) {
            s[l] += s[l + stride];
        }
        barrier();
    }
    if (l == 0u) {
        outp[gl_WorkGroupID.x] = s[0];
    }
}
