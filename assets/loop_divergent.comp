// loop_divergent: a loop whose trip count differs per lane (1 to 7 iterations).
//
// v = inp[L] + L (L = gl_LocalInvocationIndex); lane L runs trips = 1 + v % 7 iterations. The
// ballot in iteration i shows the lanes still looping: every lane in iteration 0, fewer each
// time. Lanes that take the same iteration together stay one tangle: each iteration's lanes
// reconverge at the loop's continue target before the next one. The lanes leave the loop at
// different iterations and all reconverge at its merge block (the ballot after the loop).
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 20 slots of 64 words, slot s at outp[s*64 + L]; each probe writes
//   ballot .x to slot s and .y to s+1, only in the lanes that reach it (others: untouched):
//     slots 0,1          before the loop (every lane)
//     slots 2+2i, 3+2i   iteration i, i = 0..6 (the lanes with trips > i)
//     slots 16,17        after the loop (every lane)
//     slot  18           the lane's trip count
//     slot  19           subgroupAdd(1) in the lane's last iteration: how many lanes of its
//                        tangle were still looping then
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
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

// The tangle executing this point, as subgroupBallot(true): .x to slot s, .y to slot s + 1.
#define PROBE(s) { uvec4 b_ = subgroupBallot(true); \
    outp[(s) * 64u + gl_LocalInvocationIndex] = b_.x; \
    outp[((s) + 1u) * 64u + gl_LocalInvocationIndex] = b_.y; }

void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint v = inp[L] + L;
    uint trips = 1u + v % 7u;
    PROBE(0u)
    uint looping = 0u;
    for (uint i = 0u; i < trips; i++) {
        PROBE(2u + 2u * i)
        looping = subgroupAdd(1u);
    }
    PROBE(16u)
    outp[18u * 64u + L] = trips;
    outp[19u * 64u + L] = looping;
}
