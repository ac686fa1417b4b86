// workgroup_reduce: a reduction across the subgroups of a 128-invocation workgroup through
// shared (Workgroup) memory and barrier(), plus atomics and some float / vector arithmetic.
//
// v = inp[L] + L (L = gl_LocalInvocationIndex). Each subgroup sums v (subgroupAdd), its elected
// lane stores the sum in shared partial[gl_SubgroupID]; after barrier() the first subgroup adds
// the gl_NumSubgroups partial sums. Every invocation also atomicAdds v and 1 into the output.
// The float value f = clamp(floor(fma(sqrt(float(v)), 2, 0.5)) * 0.25, 0, 8) is a multiple of
// 1/4, so its sums are exact in any order (no rounding differences between runs or devices).
//
// Dispatch: 1 workgroup of 128 invocations (local_size_x = 128; more workgroups would add to the
// atomic totals and overwrite the rest).
// Buffers (set 0):
//   binding 0 (read):  inp, 128 uints.
//   binding 1 (read/write): outp, 5 slots of 128 words, slot s at outp[s*128 + L]:
//     slot 0 (totals, not per invocation):
//       [0] sum of v via shared memory   [1] sum of f via shared memory (float bits)
//       [2] gl_NumSubgroups              [3] atomicAdd of every v       [4] atomicAdd of 1 (= 128)
//       [5] atomicMax of the lanes' `mixed` values
//       Words 3, 4 and 5 accumulate onto their initial value: start binding 1 at zero.
//     slot 1: f (float bits)          slot 2: mixed, a uvec2/vec2/uvec4 computation from v
//     slot 3: gl_SubgroupID           slot 4: this subgroup's subgroupAdd(v)
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
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

// One entry per subgroup: 128 invocations in subgroups of at least 4 lanes.
shared uint partial[32];
shared float fpartial[32];

void main() MAXIMALLY_RECONVERGES {
    uint L = gl_LocalInvocationIndex;
    uint v = inp[L] + L;

    float f = clamp(floor(fma(sqrt(float(v)), 2.0, 0.5)) * 0.25, 0.0, 8.0);
    uvec2 pair = uvec2(v, v * 3u + 1u);
    vec2 half_pair = vec2(pair & uvec2(0xFFu)) * 0.5;
    uvec4 q = uvec4(v, v >> 1, v >> 2, v >> 3) & uvec4(0xFu);
    vec4 fq = vec4(q) * vec4(1.0, 0.5, 0.25, 2.0);
    uint mixed = uint(half_pair.x + half_pair.y) + uint(dot(fq, vec4(1.0))) + pair.y % 7u;

    uint s = subgroupAdd(v);
    float fs = subgroupAdd(f);
    if (subgroupElect()) {
        partial[gl_SubgroupID] = s;
        fpartial[gl_SubgroupID] = fs;
    }
    barrier();
    if (gl_SubgroupID == 0u) {
        uint t = 0u;
        float ft = 0.0;
        for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) {
            t += partial[i];
            ft += fpartial[i];
        }
        t = subgroupAdd(t);
        ft = subgroupAdd(ft);
        if (subgroupElect()) {
            outp[0] = t;
            outp[1] = floatBitsToUint(ft);
            outp[2] = gl_NumSubgroups;
        }
    }
    atomicAdd(outp[3], v);
    atomicAdd(outp[4], 1u);
    atomicMax(outp[5], mixed);
    outp[1u * 128u + L] = floatBitsToUint(f);
    outp[2u * 128u + L] = mixed;
    outp[3u * 128u + L] = gl_SubgroupID;
    outp[4u * 128u + L] = s;
}
