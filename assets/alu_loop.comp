// alu_loop: an ALU-bound loop for benchmarks: ITERATIONS (default 256) rounds of an integer hash
// and a float recurrence per invocation, with a uniform trip count (no divergence at all).
//
// h starts at inp[L] + L (L = gl_LocalInvocationIndex); each round mixes h (xor-shift-multiply,
// the "lowbias32" hash) and updates f = fract(fma(f, 1.618034, float(h >> 24) / 256)). The trip
// count is specialization constant 0 (`--spec 0=N` to change it).
//
// Dispatch: any number of workgroups of 64 invocations (they all write the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 2 slots of 64 words, slot s at outp[s*64 + L]:
//     slot 0: the final hash h     slot 1: the final f (float bits)
#version 460
// The source asks for maximal reconvergence; glslang 13.1 does not know the extension, so
// scripts/build-assets.sh adds the execution mode for it (the macro is empty there).
#ifdef GL_EXT_maximal_reconvergence
#extension GL_EXT_maximal_reconvergence : require
#define MAXIMALLY_RECONVERGES [[maximally_reconverges]]
#else
#define MAXIMALLY_RECONVERGES
#endif
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint ITERATIONS = 256u;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint h = inp[L] + L;
    float f = float(h & 0xFFFFu) * (1.0 / 65536.0);
    for (uint i = 0u; i < ITERATIONS; i++) {
        h ^= h >> 16;
        h *= 0x7feb352du;
        h ^= h >> 15;
        h *= 0x846ca68bu;
        h ^= h >> 16;
        h += i;
        f = fract(fma(f, 1.618034, float(h >> 24) * (1.0 / 256.0)));
    }
    outp[L] = h;
    outp[64u + L] = floatBitsToUint(f);
}
