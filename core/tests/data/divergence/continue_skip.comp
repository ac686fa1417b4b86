#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// continue skips the barrier at the end of the loop body for odd invocations on odd
// iterations. FIXED: the work is guarded instead.
void main() {
    uint i = gl_LocalInvocationIndex;
    uint acc = 0u;
    for (uint k = 0u; k < 4u; k++) {
#ifdef FIXED
        if (((i & k) & 1u) == 0u) {
            acc += k;
        }
#else
        if (((i & k) & 1u) != 0u) {
            continue;
        }
        acc += k;
#endif
        barrier();
    }
    outp[gl_GlobalInvocationID.x] = acc;
}
