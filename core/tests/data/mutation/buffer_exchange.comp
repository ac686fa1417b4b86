#version 450
// Invocations exchange values through the output buffer within a workgroup: a buffer memory
// barrier and a control barrier order the write with the partner's read.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
void main() {
    uint g = gl_GlobalInvocationID.x;
    outp[g] = inp[g] * 3u;
    memoryBarrierBuffer();
    barrier();
    uint partner = outp[g ^ 32u];
    // barrier() alone orders only shared memory: the partner's read must finish before the
    // write below.
    memoryBarrierBuffer();
    barrier();
    outp[g] = partner + 1u;
}
