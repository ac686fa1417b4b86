// switch_fallthrough: a switch with several labels on one case, a fallthrough and a default.
//
// v = inp[L] + L (L = gl_LocalInvocationIndex), selector sel = v % 7 (an odd modulus, so that
// inp all zeros and inp[i] = i both give every value):
//   case 0, 1:         probe A, break           (two labels, one case construct)
//   case 2:            probe B, falls through into case 3
//   case 3:            probe C, break           (lanes with sel 2 and sel 3 both get here)
//   case 4:            probe D, break
//   case 5, default:   probe E                  (sel 5 and 6; last case, no break needed)
// This is where the two tangle choices the spec allows differ: one tangle per selector value
// (what an NVIDIA H100 does; Lanescope's `per-value`: the sel 0 and sel 1 lanes ballot apart
// at A, the sel 2 and 3 lanes apart at C, sel 5 and 6 apart at E) or one tangle per case
// construct (`per-case`: all the lanes of a case construct together). After the switch every
// lane reconverges (the last probe).
//
// Dispatch: 1 workgroup of 64 invocations (more workgroups overwrite the same words).
// Buffers (set 0):
//   binding 0 (read):  inp, 64 uints.
//   binding 1 (write): outp, 15 slots of 64 words, slot s at outp[s*64 + L]; each probe writes
//   ballot .x to slot s and .y to s+1, only in the lanes that reach it (others: untouched):
//     slots 0,1    before the switch (every lane)
//     slots 2,3    A      slots 4,5   B      slots 6,7   C
//     slots 8,9    D      slots 10,11 E
//     slots 12,13  after the switch (every lane)
//     slot  14     the lane's selector
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
    uint sel = v % 7u;
    outp[14u * 64u + L] = sel;
    PROBE(0u)
    switch (sel) {
    case 0u:
    case 1u:
        PROBE(2u)
        break;
    case 2u:
        PROBE(4u)
        // falls through
    case 3u:
        PROBE(6u)
        break;
    case 4u:
        PROBE(8u)
        break;
    case 5u:
    default:
        PROBE(10u)
    }
    PROBE(12u)
}
