// ballot_after_loop: a subgroup ballot and reduction right after a loop that the lanes leave at
// different iterations, the place where SPV_KHR_maximal_reconvergence matters.
//
// v = inp[L] + L (L = gl_LocalInvocationIndex). Lane L leaves the loop with a `break` in
// iteration i = (4 - v % 5) % 5, the first i with (v + i) % 5 == 4: after 1 to 5 iterations
// (`trips`; the loop bound 8 is never reached). In the break block, only the lanes leaving in that
// iteration are tangled: their ballot and subgroupAdd(1) see just them (the spec: a break block
// executes as if still diverged by iteration). At the loop's merge block every lane that entered
// the loop is tangled again, so the ballot, the subgroupAdd(trips) and the subgroupElect() right
// after the loop see the whole subgroup: one total per subgroup, one elected lane per subgroup.
// (Without maximal reconvergence a compiler may move the code after the loop into the break
// block, and the results would then be those of the break-block probes.)
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 16 slots of 64 words, slot s at outp[s*64 + L] (the after-the-loop
//   results first, so that they sit in the first 256 words):
//     slots 0,1          ballot .x/.y right after the loop (every lane)
//     slot  2            subgroupAdd(trips) right after the loop (every lane: its subgroup's total)
//     slot  3            subgroupElect() right after the loop: 1 in one lane per subgroup, else 0
//     slots 4+2i, 5+2i   ballot .x/.y in the break block of iteration i, i = 0..4 (only the lanes
//                        leaving in iteration i; others untouched)
//     slot  14           subgroupAdd(1) in the break block: how many lanes left with this one
//     slot  15           the lane's trip count (1 to 5)
// A ballot's .y holds lanes 32..63 (zero for subgroups of 32 or fewer).
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
    uint trips = 0u;
    for (uint i = 0u; i < 8u; i++) {
        trips = i + 1u;
        if ((v + i) % 5u == 4u) {
            PROBE(4u + 2u * i)
            outp[14u * 64u + L] = subgroupAdd(1u);
            break;
        }
    }
    PROBE(0u)
    outp[2u * 64u + L] = subgroupAdd(trips);
    outp[3u * 64u + L] = subgroupElect() ? 1u : 0u;
    outp[15u * 64u + L] = trips;
}
