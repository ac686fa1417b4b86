#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// Invocations leave a loop early with break, skipping the barrier the others wait at.
// FIXED: a flag keeps every invocation in the loop.
void main() {
    uint i = gl_LocalInvocationIndex;
    uint acc = 0u;
    bool done = false;
    for (uint k = 0u; k < 4u; k++) {
#ifdef FIXED
        if (k * 16u > i) {
            done = true;
        }
        if (!done) {
            tile[i] = k + i;
        }
#else
        if (k * 16u > i) {
            break;
        }
        tile[i] = k + i;
#endif
        barrier();
        acc += tile[(i + 1u) & 63u];
        barrier();
    }
    outp[gl_GlobalInvocationID.x] = acc;
}
