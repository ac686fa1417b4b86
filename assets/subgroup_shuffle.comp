// subgroup_shuffle: moving values between lanes, votes, and ballot bit operations.
//
// v = inp[L] + L (L = gl_LocalInvocationIndex), x = v * 0x9E3779B1 (a distinct word per lane),
// lane = gl_SubgroupInvocationID, n = lanes in the subgroup (64 invocations fill whole subgroups
// for every power-of-two size from 4 to 64; a subgroup of 128 holds all 64). Every source lane is
// chosen inside the subgroup and active, so each result is defined.
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 30 slots of 64 words, slot s at outp[s*64 + L]:
//   every lane (uniform control flow):
//     0  subgroupShuffle(x, (lane * 5 + 3) % n)
//     1  subgroupShuffleXor(x, 3)
//     2  subgroupShuffleUp(x, min(lane, 3))          (lanes 0..2 read lane 0)
//     3  subgroupShuffleDown(x, min(n - 1 - lane, 2)) (the last lanes read the last lane)
//     4  subgroupBroadcast(x, 1)
//     5  subgroupBroadcastFirst(x)
//     6  subgroupQuadBroadcast(x, 2)
//     7  subgroupQuadSwapHorizontal(x)   8 subgroupQuadSwapVertical(x)   9 subgroupQuadSwapDiagonal(x)
//     10 subgroupElect() (1/0)
//     11 subgroupAll(v % 3 != 0)   12 subgroupAny(v % 7 == 0)   (1/0)
//     13 subgroupAllEqual(v / 4096) | subgroupAllEqual(x) << 1
//     with b = subgroupBallot(v % 3 == 0):
//     14 b.x   15 b.y   16 subgroupBallotBitCount(b)   17 subgroupBallotInclusiveBitCount(b)
//     18 subgroupBallotExclusiveBitCount(b)   19 subgroupBallotFindLSB(b)   20 subgroupBallotFindMSB(b)
//     21 subgroupBallotBitExtract(b, lane ^ 1)   22 subgroupInverseBallot(b)   (1/0)
//   inside `if ((lane & 2) != 0)` (lanes 2,3, 6,7, ...; others untouched):
//     23 subgroupShuffleXor(x, 1)       (the partner lane is in the branch too)
//     24 subgroupShuffle(x, subgroupBallotFindMSB(subgroupBallot(true))) (the last active lane)
//     25 subgroupBroadcastFirst(x)      (lane 2's x: the first active lane)
//     26 subgroupElect()                (1 in lane 2 only)
//     27 subgroupBallotBitCount(subgroupBallot(true))
//     28 subgroupAll(v % 3 != 0)        29 subgroupAny(v % 7 == 0)
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
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

#define OUT(s) outp[(s) * 64u + gl_LocalInvocationIndex]

void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint v = inp[L] + L;
    uint x = v * 0x9E3779B1u;
    uint lane = gl_SubgroupInvocationID;
    uint n = subgroupBallotBitCount(subgroupBallot(true));

    OUT(0u) = subgroupShuffle(x, (lane * 5u + 3u) % n);
    OUT(1u) = subgroupShuffleXor(x, 3u);
    OUT(2u) = subgroupShuffleUp(x, min(lane, 3u));
    OUT(3u) = subgroupShuffleDown(x, min(n - 1u - lane, 2u));
    OUT(4u) = subgroupBroadcast(x, 1u);
    OUT(5u) = subgroupBroadcastFirst(x);
    OUT(6u) = subgroupQuadBroadcast(x, 2u);
    OUT(7u) = subgroupQuadSwapHorizontal(x);
    OUT(8u) = subgroupQuadSwapVertical(x);
    OUT(9u) = subgroupQuadSwapDiagonal(x);
    OUT(10u) = subgroupElect() ? 1u : 0u;
    OUT(11u) = subgroupAll(v % 3u != 0u) ? 1u : 0u;
    OUT(12u) = subgroupAny(v % 7u == 0u) ? 1u : 0u;
    OUT(13u) = (subgroupAllEqual(v / 4096u) ? 1u : 0u) | (subgroupAllEqual(x) ? 2u : 0u);

    uvec4 b = subgroupBallot(v % 3u == 0u);
    OUT(14u) = b.x;
    OUT(15u) = b.y;
    OUT(16u) = subgroupBallotBitCount(b);
    OUT(17u) = subgroupBallotInclusiveBitCount(b);
    OUT(18u) = subgroupBallotExclusiveBitCount(b);
    OUT(19u) = subgroupBallotFindLSB(b);
    OUT(20u) = subgroupBallotFindMSB(b);
    OUT(21u) = subgroupBallotBitExtract(b, lane ^ 1u) ? 1u : 0u;
    OUT(22u) = subgroupInverseBallot(b) ? 1u : 0u;

    if ((lane & 2u) != 0u) {
        OUT(23u) = subgroupShuffleXor(x, 1u);
        OUT(24u) = subgroupShuffle(x, subgroupBallotFindMSB(subgroupBallot(true)));
        OUT(25u) = subgroupBroadcastFirst(x);
        OUT(26u) = subgroupElect() ? 1u : 0u;
        OUT(27u) = subgroupBallotBitCount(subgroupBallot(true));
        OUT(28u) = subgroupAll(v % 3u != 0u) ? 1u : 0u;
        OUT(29u) = subgroupAny(v % 7u == 0u) ? 1u : 0u;
    }
}
