// Every invocation writes its own words: no order, no undefined value, integer arithmetic only.
// The device must leave every word as the simulation does.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };
void main() {
    uint L = gl_GlobalInvocationID.x;
    uint h = inp[L] * 2654435761u + L;
    h ^= h >> 13;
    outp[2u * L] = h;
    outp[2u * L + 1u] = (h % 7u == 0u) ? h * 3u : h + gl_LocalInvocationID.x;
}
