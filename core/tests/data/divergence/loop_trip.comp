#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// A loop whose trip count differs per invocation, with a barrier in its body. FIXED: every
// invocation runs the most iterations and only works in its own.
void main() {
    uint i = gl_LocalInvocationIndex;
    uint acc = 0u;
    tile[i] = 0u;
#ifdef FIXED
    for (uint k = 0u; k < 3u; k++) {
        if (k < i % 3u) {
            tile[i] = k;
        }
        barrier();
        acc += tile[i];
        barrier();
    }
#else
    for (uint k = 0u; k < i % 3u; k++) {
        tile[i] = k;
        barrier();
        acc += tile[i];
        barrier();
    }
#endif
    outp[gl_GlobalInvocationID.x] = acc;
}
