// Specialization constants (including one that sizes the workgroup) and push constants.
// Binding 0: 64 uints written: outp[L] = L * SCALE + pc.offset (+1000 if FLAG), outp[63] = WG size.
#version 460
layout(local_size_x_id = 7) in;
layout(constant_id = 0) const uint SCALE = 3u;
layout(constant_id = 1) const bool FLAG = false;
layout(constant_id = 2) const float RATIO = 0.5;
layout(push_constant) uniform PC { uint offset; float bias; } pc;
layout(std430, set = 0, binding = 0) buffer Out { uint outp[]; };
void main() {
    uint L = gl_LocalInvocationIndex;
    uint v = L * SCALE + pc.offset + (FLAG ? 1000u : 0u);
    outp[L] = v;
    if (L == 0u) {
        outp[62] = floatBitsToUint(RATIO + pc.bias);
        outp[63] = gl_WorkGroupSize.x;
    }
}
