// A loop that never ends for odd invocations: the step budget must stop it.
#version 460
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer Out { uint outp[]; };
void main() {
    uint L = gl_LocalInvocationIndex;
    uint i = 0u;
    while ((L & 1u) != 0u || i < 4u) { i++; outp[L] = i; }
}
