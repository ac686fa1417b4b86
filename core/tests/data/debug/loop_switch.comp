#version 450
#extension GL_GOOGLE_include_directive : require
// A loop whose trip count differs per lane, a call into an included file, and a switch: the
// source-level debugging tests step it by line and read `L`, `i` and `acc` by name.
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer Out { uint outp[]; };
#include "common.glsl"
void main() {
    uint L = gl_LocalInvocationIndex;
    uint acc = 0u;
    for (uint i = 0u; i < L % 3u; i++) {
        acc += scale(i);
    }
    switch (L % 4u) {
    case 0u: acc += 10u; break;
    case 1u: acc += 20u; break;
    default: acc += 30u; break;
    }
    outp[L] = acc;
    outp[L + 8u] = outp[L + 100u] + scale(L);
}
