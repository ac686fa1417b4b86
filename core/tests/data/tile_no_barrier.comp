#version 450
// A tile written by one subgroup and read by another with no barrier between: subgroup 0
// (invocations 0-31) fills tile[i] = i + 1; subgroup 1 (32-63) reads tile[i - 32]. What it
// reads depends on which subgroup ran first (a data race). With BARRIER defined, it does not.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[32];
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i < 32u) {
        tile[i] = i + 1u;
    }
#ifdef BARRIER
    barrier();
#endif
    if (i >= 32u) {
        outp[i - 32u] = tile[i - 32u];
    }
}
