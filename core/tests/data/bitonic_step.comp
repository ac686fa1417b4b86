#version 450
// One compare-exchange pass of a bitonic sort over 64 keys held in shared memory. Both
// partners of a pair read both keys; only the lower one swaps them. The swap is not separated
// from the partner's reads by a barrier, so those reads race with it. Their values only decide
// how a condition is computed (glslang branches on `a > b` for the `||`) that `partner > me`
// makes false for the higher partner: the race is reported unobserved. With USE every
// invocation also counts the pairs it saw out of order, and the race is observed.
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer In { uint keys_in[]; };
layout(binding = 1) buffer Out { uint keys_out[]; };

shared uint keys[64];

void main() {
    const uint me = gl_LocalInvocationID.x;
    keys[me] = keys_in[me];
    barrier();
    uint seen = 0;
    for (uint j = 32; j > 0; j /= 2) {
        const uint partner = me ^ j;
        const uint lo = min(me, partner);
        const uint hi = max(me, partner);
        const uint a = keys[lo];
        const uint b = keys[hi];
        const uvec2 pair = uvec2(a, b);
        if ((a > b || (me == 63u && pair.x == pair.y)) && partner > me) {
            keys[lo] = b;
            keys[hi] = a;
        }
#ifdef USE
        if (a > b) {
            seen += 1;
        }
#endif
        barrier();
    }
    keys_out[me] = keys[me] + seen;
}
