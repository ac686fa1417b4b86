#version 450
// Invocations past `n` return before the barrier the others wait at: undefined behaviour
// (every invocation of the workgroup must execute it). With FIXED defined, the work is
// guarded instead and every invocation reaches the barrier.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
void main() {
    uint i = gl_LocalInvocationIndex;
    const uint n = 40u;
#ifdef FIXED
    if (i < n) {
        tile[i] = i;
    }
    barrier();
    if (i < n) {
        outp[i] = tile[n - 1u - i];
    }
#else
    if (i >= n) {
        return;
    }
    tile[i] = i;
    barrier();
    outp[i] = tile[n - 1u - i];
#endif
}
