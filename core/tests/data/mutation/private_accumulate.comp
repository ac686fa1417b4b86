#version 450
// Shared partial sums per subgroup-sized chunk, then a second pass where invocation 0 of each
// chunk adds the chunks before it.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint part[8];
shared uint vals[64];
void main() {
    uint l = gl_LocalInvocationIndex;
    vals[l] = inp[gl_GlobalInvocationID.x];
    barrier();
    if ((l & 7u) == 0u) {
        uint acc = 0u;
        for (uint k = 0u; k < 8u; k++) {
            acc += vals[l + k];
        }
        part[l >> 3u] = acc;
    }
    barrier();
    uint before = 0u;
    for (uint c = 0u; c < (l >> 3u); c++) {
        before += part[c];
    }
    outp[gl_GlobalInvocationID.x] = before + vals[l];
}
