// nested_if: three levels of nested ifs (one with an else), a ballot at every level.
//
// v = inp[L] + L (L = gl_LocalInvocationIndex). Level 1: v % 3 != 0; level 2: v % 5 < 2 (else
// branch otherwise); level 3: v % 7 == 0. Each ballot shows the tangle at that point: it shrinks
// as control goes deeper and grows back at each merge, level by level, never skipping one
// (the inner if's lanes rejoin the level-2 tangle before the level-1 tangle).
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 17 slots of 64 words, slot s at outp[s*64 + L]; each probe writes
//   ballot .x to slot s and .y to s+1, only in the lanes that reach it (others: untouched):
//     slots 0,1   before the first if             (every lane)
//     slots 2,3   level 1 (v % 3 != 0)
//     slots 4,5   level 2 (and v % 5 < 2)
//     slots 6,7   level 3 (and v % 7 == 0)
//     slots 8,9   level 2, after the level-3 if
//     slots 10,11 level-2 else (v % 3 != 0 and v % 5 >= 2)
//     slots 12,13 level 1, after the level-2 if/else
//     slots 14,15 after everything                 (every lane)
//     slot  16    depth the lane reached (0..3)
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

void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint v = inp[L] + L;
    uint depth = 0u;
    PROBE(0u)
    if (v % 3u != 0u) {
        depth = 1u;
        PROBE(2u)
        if (v % 5u < 2u) {
            depth = 2u;
            PROBE(4u)
            if (v % 7u == 0u) {
                depth = 3u;
                PROBE(6u)
            }
            PROBE(8u)
        } else {
            PROBE(10u)
        }
        PROBE(12u)
    }
    PROBE(14u)
    outp[16u * 64u + L] = depth;
}
