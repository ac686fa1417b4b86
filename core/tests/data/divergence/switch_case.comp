#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// A barrier in one case of a switch on the invocation index. FIXED: after the switch.
void main() {
    uint i = gl_LocalInvocationIndex;
    switch (i & 3u) {
    case 0u:
        tile[i] = 1u;
#ifndef FIXED
        barrier();
#endif
        break;
    default:
        tile[i] = 2u;
        break;
    }
#ifdef FIXED
    barrier();
#endif
    outp[gl_GlobalInvocationID.x] = tile[i ^ 4u];
}
