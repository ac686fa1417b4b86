#version 450
// Two declarations of one binding (descriptor aliasing): a store through one view must be
// visible through the other, since both name the same buffer.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer AsUint { uint u[]; };
layout(set = 0, binding = 0) buffer AsFloat { float f[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    f[i] = float(i) + 0.5;
    memoryBarrierBuffer();
    u[i + 4] = u[i];
}
