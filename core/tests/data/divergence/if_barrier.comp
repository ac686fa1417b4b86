#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// A barrier inside a branch only some invocations take. FIXED: the barrier after the branch.
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i < 40u) {
        tile[i] = i;
#ifndef FIXED
        barrier();
#endif
    }
#ifdef FIXED
    barrier();
#endif
    if (i < 40u) {
        outp[gl_GlobalInvocationID.x] = tile[39u - i];
    }
}
