// A descriptor array of three storage buffers beside an input: each element written by every
// invocation at its own place (on the device: one descriptor per element, each read back).
#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint d[]; } outs[3];
void main() {
    uint L = gl_GlobalInvocationID.x;
    uint v = inp[L];
    outs[0].d[L] = v + 1u;
    outs[1].d[L] = v * 3u;
    outs[2].d[L] = v ^ 0x5a5au;
}
