#version 450
// A loop bound read from shared memory nobody wrote: the branch depends on undefined data.
// With FIXED defined, invocation 0 writes it first (and a barrier orders the write).
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint bound;
void main() {
    uint i = gl_LocalInvocationIndex;
#ifdef FIXED
    if (i == 0u) {
        bound = 3u;
    }
    barrier();
#endif
    uint acc = 0u;
    for (uint k = 0u; k < bound; k++) {
        acc += k;
    }
    outp[i] = acc;
}
