// Two bindings meant to share one buffer (the host binds the same buffer at both): the first
// half read through `src`, the second half written through `dst`; the words never overlap, so
// the result is defined with or without aliasing.
#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
void main() {
    uint L = gl_GlobalInvocationID.x;
    uint n = gl_NumWorkGroups.x * 32u;
    dst[n + L] = src[L] * 2u + 1u;
}
