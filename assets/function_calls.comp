// function_calls: a function with divergent early returns, called from main twice.
//
// v = inp[L] + L (L = gl_LocalInvocationIndex). classify(x) returns 1 early when x % 3 == 0,
// 2 early when x % 5 == 0, and 3 at its end, probing the tangle at each return. Each call's
// lanes leave the function through different returns, and reconverge at the function's return
// to the caller: the ballot right after the call is the tangle that made it. main calls it once
// with every lane, then again from inside a divergent if (lanes with v % 7 < 4 only, x = v + 1),
// where the call returns to that if's tangle, not to the whole subgroup.
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 22 slots of 64 words, slot s at outp[s*64 + L]; each probe writes
//   ballot .x to slot s and .y to s+1, only in the lanes that reach it (others: untouched):
//     slots 0,1    before the first call (every lane)
//     first call,  base 2:  slots 2,3 return 1;  4,5 return 2;  6,7 return 3
//     slots 8,9    right after the first call (every lane)
//     second call, base 10: slots 10,11 return 1; 12,13 return 2; 14,15 return 3
//     slots 16,17  right after the second call (lanes with v % 7 < 4)
//     slots 18,19  after the if (every lane)
//     slot  20     the first call's result
//     slot  21     the second call's result (lanes with v % 7 < 4; others untouched)
#version 460
// The source asks for maximal reconvergence; glslang 13.1 does not know the extension, so
// scripts/build-assets.sh adds the execution mode for it (the macro is empty there).
#ifdef GL_EXT_maximal_reconvergence
#extension GL_EXT_maximal_reconvergence : require
#define MAXIMALLY_RECONVERGES [[maximally_reconverges]]
#else
#define MAXIMALLY_RECONVERGES
#endif
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

// The tangle executing this point, as subgroupBallot(true): .x to slot s, .y to slot s + 1.
#define PROBE(s) { uvec4 b_ = subgroupBallot(true); \
    outp[(s) * 64u + gl_LocalInvocationIndex] = b_.x; \
    outp[((s) + 1u) * 64u + gl_LocalInvocationIndex] = b_.y; }

// Probes at slots base (return 1), base + 2 (return 2), base + 4 (return 3).
uint classify(uint x, uint base) {
    if (x % 3u == 0u) {
        PROBE(base)
        return 1u;
    }
    if (x % 5u == 0u) {
        PROBE(base + 2u)
        return 2u;
    }
    PROBE(base + 4u)
    return 3u;
}

void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint v = inp[L] + L;
    PROBE(0u)
    uint c = classify(v, 2u);
    PROBE(8u)
    outp[20u * 64u + L] = c;
    if (v % 7u < 4u) {
        uint d = classify(v + 1u, 10u);
        PROBE(16u)
        outp[21u * 64u + L] = d;
    }
    PROBE(18u)
}
