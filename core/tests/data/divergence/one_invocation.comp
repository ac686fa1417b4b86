#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// Invocation 0 alone waits at a barrier (as if to publish its value). FIXED: everyone does.
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) {
        tile[0] = 42u;
#ifndef FIXED
        barrier();
#endif
    }
#ifdef FIXED
    barrier();
#endif
    outp[gl_GlobalInvocationID.x] = tile[0];
}
