// break_continue: a loop with a conditional `continue` and a conditional `break`.
//
// v = inp[L] + L (L = gl_LocalInvocationIndex). For i = 0..5: lanes with (v + i) % 5 == 0 skip
// the rest of iteration i (`continue`, straight to the continue target); lane L breaks out in
// iteration i == v % 7 (never, for lanes with v % 7 == 6, which run all six iterations), unless
// it continued first. Probes at the top of the body, after the continue test, inside the break
// block and at the end of the body show: the continuing lanes leave the body tangle; the break
// block runs with only the lanes breaking in that iteration; every lane still in the loop
// reconverges at the continue target; all lanes reconverge after the loop.
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 52 slots of 64 words, slot s at outp[s*64 + L]; each probe writes
//   ballot .x to slot s and .y to s+1, only in the lanes that reach it (others: untouched):
//     slots 0,1                     before the loop (every lane)
//     slots 2+8i+2p, 3+8i+2p        iteration i (0..5), point p:
//                                   p=0 top of body, p=1 after the continue test,
//                                   p=2 in the break block, p=3 end of body
//     slots 50,51                   after the loop (every lane)
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
    PROBE(0u)
    for (uint i = 0u; i < 6u; i++) {
        PROBE(2u + 8u * i)
        if ((v + i) % 5u == 0u) {
            continue;
        }
        PROBE(4u + 8u * i)
        if (i == v % 7u) {
            PROBE(6u + 8u * i)
            break;
        }
        PROBE(8u + 8u * i)
    }
    PROBE(50u)
}
