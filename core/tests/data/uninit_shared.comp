#version 450
// Reads of memory nobody wrote: shared memory read before any write, and a function variable
// set on one path only. With FIXED defined, both are written first. A partly written struct
// copied whole (only its written member used) must not be reported either way.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint s[64];
struct Pair { uint a; uint b; };
void main() {
    uint i = gl_LocalInvocationIndex;
#ifdef FIXED
    s[i] = i;
    barrier();
    uint x = 7u;
#else
    uint x;
#endif
    if (i % 2u == 0u) {
        x = i;
    }
    Pair p;
    p.a = i;
    Pair q = p;
    outp[i] = s[i] + x + q.a;
}
