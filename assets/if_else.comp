// if_else: divergence at an if/else and reconvergence at its merge block.
//
// Every invocation computes v = inp[L] + L (L = gl_LocalInvocationIndex) and takes the `then`
// side when v % 3 == 0, the `else` side otherwise (with inp all zeros or inp[i] = i, a third of
// the lanes go each way). A ballot before the if, one in each branch and one after the merge show
// the tangles: the whole subgroup, then the two halves of the split, then the whole subgroup again
// (SPV_KHR_maximal_reconvergence: the invocations that diverged at the if reconverge at its merge).
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 10 slots of 64 words, slot s at outp[s*64 + L]:
//     slots 0,1  ballot .x/.y before the if          (every lane)
//     slots 2,3  ballot .x/.y in the then branch      (lanes with v % 3 == 0, else untouched)
//     slots 4,5  ballot .x/.y in the else branch      (the other lanes, else untouched)
//     slots 6,7  ballot .x/.y after the merge         (every lane)
//     slot  8    which branch the lane took (1 then, 2 else)
//     slot  9    subgroupAdd(v) inside the branch (sums over that branch's tangle only)
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
    PROBE(0u)
    if (v % 3u == 0u) {
        PROBE(2u)
        outp[8u * 64u + L] = 1u;
        outp[9u * 64u + L] = subgroupAdd(v);
    } else {
        PROBE(4u)
        outp[8u * 64u + L] = 2u;
        outp[9u * 64u + L] = subgroupAdd(v);
    }
    PROBE(6u)
}
