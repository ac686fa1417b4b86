// bug_reduction_no_barrier: a workgroup sum that forgets its barrier.
//
// Each of the 64 invocations stores its value in shared memory, then invocation 0 adds all 64.
// Without barrier() between the stores and the loads, nothing orders the other subgroup's
// stores before invocation 0's loads: a data race, and the sum depends on which subgroup runs
// first. Lanescope reports the race (data-race, with both accesses); `lanescope run --explore 4`
// shows the sum changing with the schedule. Compile with -DFIXED for the version with the
// barrier (no finding).
//
// Dispatch: 1 workgroup of 64 invocations.
// Buffers (set 0): binding 0 (read) inp, 64 uints; binding 1 (write) outp[0] = the sum.
#version 450
// The source asks for maximal reconvergence; glslang 13.1 does not know the extension, so
// scripts/build-assets.sh adds the execution mode for it (the macro is empty there).
#ifdef GL_EXT_maximal_reconvergence
#extension GL_EXT_maximal_reconvergence : require
#define MAXIMALLY_RECONVERGES [[maximally_reconverges]]
#else
#define MAXIMALLY_RECONVERGES
#endif
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

shared uint partial[64];

void main() MAXIMALLY_RECONVERGES {
    uint l = gl_LocalInvocationIndex;
    partial[l] = inp[l] + 1u;
#ifdef FIXED
    barrier();
#endif
    if (l == 0u) {
        uint sum = 0u;
        for (uint k = 0u; k < 64u; k++) {
            sum += partial[k];
        }
        outp[0] = sum;
    }
}
