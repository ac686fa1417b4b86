#version 460
// Workgroups that talk through buffer memory: a global atomic counter hands out slots, and
// with -DNEIGHBOUR each workgroup also reads what the one before it wrote.
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };
layout(std430, set = 0, binding = 2) buffer Count { uint count; };
void main() {
    uint g = gl_GlobalInvocationID.x;
#ifdef NEIGHBOUR
    uint before = g >= 32u ? outp[g - 32u] : 7u;
    outp[g] = before * 3u + inp[g];
#else
    uint slot = atomicAdd(count, 1u);
    outp[slot] = inp[g] * 2u + slot;
#endif
}
