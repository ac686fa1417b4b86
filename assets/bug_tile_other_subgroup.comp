// bug_tile_other_subgroup: a tile loaded by one subgroup and read by another.
//
// Subgroup 0 loads a 32-word tile into shared memory; subgroup 1 reads it. A subgroup
// barrier (or lockstep execution) orders nothing between two subgroups: without barrier() the
// reads race with the loads (data-race), and when subgroup 1 runs first it reads words nobody
// has written yet (uninitialized-read; try the reverse schedule). With -DFIXED a barrier()
// separates the load from the reads.
//
// Dispatch: 1 workgroup of 64 invocations (two subgroups of 32).
// Buffers (set 0): binding 0 (read) inp, 64 uints; binding 1 (write) outp, 64 uints.
#version 450
// The source asks for maximal reconvergence; glslang 13.1 does not know the extension, so
// scripts/build-assets.sh adds the execution mode for it (the macro is empty there).
#ifdef GL_EXT_maximal_reconvergence
#extension GL_EXT_maximal_reconvergence : require
#define MAXIMALLY_RECONVERGES [[maximally_reconverges]]
#else
#define MAXIMALLY_RECONVERGES
#endif
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

shared uint tile[32];

void main() MAXIMALLY_RECONVERGES {
    uint l = gl_LocalInvocationIndex;
    if (l < 32u) {
        tile[l] = inp[l] * 10u;
    }
#ifdef FIXED
    barrier();
#else
    subgroupBarrier();
#endif
    if (l >= 32u) {
        outp[l] = tile[l - 32u];
    }
}
