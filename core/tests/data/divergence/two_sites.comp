#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// The two sides of a branch each have their own barrier: different instructions, so
// different dynamic instances. FIXED: one barrier after the branch.
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i < 32u) {
        tile[i] = i;
#ifndef FIXED
        barrier();
#endif
    } else {
        tile[i] = 64u - i;
#ifndef FIXED
        barrier();
#endif
    }
#ifdef FIXED
    barrier();
#endif
    outp[gl_GlobalInvocationID.x] = tile[63u - i];
}
