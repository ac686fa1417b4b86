// subgroup_reduce: the subgroup arithmetic operations, over the whole subgroup and again inside
// a divergent branch (where they combine only the branch's tangle).
//
// v = inp[L] + L (L = gl_LocalInvocationIndex), x = (v * 0x9E3779B1) >> 24 (a pseudo-random byte
// per lane). Each block of 12 slots holds, per lane:
//   +0 subgroupAdd(x)          +1 subgroupInclusiveAdd(x)   +2 subgroupExclusiveAdd(x)
//   +3 subgroupMin(x)          +4 subgroupMax(x)            +5 subgroupAnd(x | 0x100)
//   +6 subgroupOr(x)           +7 subgroupXor(x)            +8 subgroupClusteredAdd(x, 4)
//   +9 subgroupClusteredMax(x, 4)
//   +10 subgroupMin(int(x) - 128) (signed, as a uint)
//   +11 subgroupAdd(float(x) * 0.25) (float bits; exact: quarters summed below 2^24)
// The scans (inclusive/exclusive) and clustered operations follow lane order within the tangle:
// inside the branch an inactive lane contributes nothing, and a cluster of 4 lanes combines only
// its active lanes.
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 26 slots of 64 words, slot s at outp[s*64 + L]:
//     slots 0..11   the block above, every lane (uniform control flow)
//     slots 12..23  the block above, inside `if (v % 3 != 0)` (those lanes only; others untouched)
//     slots 24,25   subgroupBallot(true) .x/.y inside that branch (its tangle)
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
#extension GL_KHR_shader_subgroup_clustered : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

#define OUT(s) outp[(s) * 64u + gl_LocalInvocationIndex]

#define REDUCE(base, x) { \
    OUT((base) + 0u) = subgroupAdd(x); \
    OUT((base) + 1u) = subgroupInclusiveAdd(x); \
    OUT((base) + 2u) = subgroupExclusiveAdd(x); \
    OUT((base) + 3u) = subgroupMin(x); \
    OUT((base) + 4u) = subgroupMax(x); \
    OUT((base) + 5u) = subgroupAnd((x) | 0x100u); \
    OUT((base) + 6u) = subgroupOr(x); \
    OUT((base) + 7u) = subgroupXor(x); \
    OUT((base) + 8u) = subgroupClusteredAdd(x, 4u); \
    OUT((base) + 9u) = subgroupClusteredMax(x, 4u); \
    OUT((base) + 10u) = uint(subgroupMin(int(x) - 128)); \
    OUT((base) + 11u) = floatBitsToUint(subgroupAdd(float(x) * 0.25)); }

void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint v = inp[L] + L;
    uint x = (v * 0x9E3779B1u) >> 24;
    REDUCE(0u, x)
    if (v % 3u != 0u) {
        REDUCE(12u, x)
        uvec4 b = subgroupBallot(true);
        OUT(24u) = b.x;
        OUT(25u) = b.y;
    }
}
