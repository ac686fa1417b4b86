#version 450
// ALU-bound: every invocation runs the same long integer/float loop (no divergence).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Params { uint iters; } params;
layout(std430, set = 0, binding = 1) buffer Out { uint data[]; } outp;
void main() {
    uint L = gl_GlobalInvocationID.x;
    uint h = L * 2654435761u + 1u;
    float f = float(L) * 0.5;
    for (uint i = 0u; i < params.iters; ++i) {
        h ^= h << 13; h ^= h >> 17; h ^= h << 5;
        f = f * 0.999 + float(h & 255u) * 0.001;
    }
    outp.data[L] = h ^ floatBitsToUint(f);
}
