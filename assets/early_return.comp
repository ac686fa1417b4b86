// early_return: invocations leave main early from divergent control flow; the rest go on.
//
// v = inp[L] + L (L = gl_LocalInvocationIndex). Lanes with v % 3 == 0 return from inside an if
// (after a probe there); then lanes with v % 5 == 1 return without a probe. The ballots after
// each if show only the survivors: a returned invocation never rejoins its subgroup's tangle,
// and subgroup operations after the return count only the survivors.
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 10 slots of 64 words, slot s at outp[s*64 + L]; each probe writes
//   ballot .x to slot s and .y to s+1, only in the lanes that reach it (others: untouched):
//     slots 0,1   at the start (every lane)
//     slots 2,3   in the first if, just before `return` (lanes with v % 3 == 0)
//     slots 4,5   after the first if (lanes with v % 3 != 0)
//     slots 6,7   after the second if (v % 3 != 0 and v % 5 != 1): the survivors
//     slot  8     1 in every lane at the start; overwritten with 2 by the survivors
//     slot  9     subgroupAdd(1) among the survivors (survivors only)
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
    outp[8u * 64u + L] = 1u;
    PROBE(0u)
    if (v % 3u == 0u) {
        PROBE(2u)
        return;
    }
    PROBE(4u)
    if (v % 5u == 1u) {
        return;
    }
    PROBE(6u)
    outp[8u * 64u + L] = 2u;
    outp[9u * 64u + L] = subgroupAdd(1u);
}
