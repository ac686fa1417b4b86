#version 450
// A per-workgroup histogram: bins cleared, counted with shared atomics, then added to the
// global histogram with buffer atomics.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint bins[16];
void main() {
    uint l = gl_LocalInvocationIndex;
    if (l < 16u) {
        bins[l] = 0u;
    }
    barrier();
    atomicAdd(bins[inp[gl_GlobalInvocationID.x] & 15u], 1u);
    barrier();
    if (l < 16u) {
        atomicAdd(outp[l], bins[l]);
    }
}
