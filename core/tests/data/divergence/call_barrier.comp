#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// A function with a barrier, called from a branch. FIXED: called by every invocation.
uint exchange(uint i, uint v) {
    tile[i] = v;
    barrier();
    return tile[63u - i];
}
void main() {
    uint i = gl_LocalInvocationIndex;
    uint v = i * 7u;
#ifdef FIXED
    uint w = exchange(i, v);
    if ((i & 1u) == 0u) {
        v = w;
    }
#else
    if ((i & 1u) == 0u) {
        v = exchange(i, v);
    }
#endif
    outp[gl_GlobalInvocationID.x] = v;
}
