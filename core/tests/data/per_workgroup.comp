#version 450
// Each workgroup writes its own four words: out[4 * wg + i] = wg + 1; binding 1 counts the
// workgroups that ran with an atomic (so workgroups communicate through it).
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
layout(set = 0, binding = 1) buffer Count { uint ran; };
void main() {
    uint wg = gl_WorkGroupID.x;
    outp[4u * wg + gl_LocalInvocationIndex] = wg + 1u;
    if (gl_LocalInvocationIndex == 0u) {
        atomicAdd(ran, 1u);
    }
}
