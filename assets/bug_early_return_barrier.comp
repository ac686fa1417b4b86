// bug_early_return_barrier: invocations past the end of the data return before a barrier.
//
// `if (l >= n) return;` is the usual bounds check, but the barrier after it must be reached by
// every invocation of the workgroup: those that returned never arrive, which is undefined
// behaviour (many GPUs hang or skip the barrier). Lanescope reports barrier-divergence naming
// who exited and who waited. With -DFIXED the check moves after the barrier.
//
// Dispatch: 1 workgroup of 64 invocations; n = 40 (the first 40 hold data).
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
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };

shared uint tile[64];

void main() MAXIMALLY_RECONVERGES {
    const uint n = 40u;
    uint l = gl_LocalInvocationIndex;
#ifndef FIXED
    if (l >= n) {
        return;
    }
#endif
    tile[l] = l < n ? inp[l] : 0u;
    barrier();
#ifdef FIXED
    if (l >= n) {
        return;
    }
#endif
    // Each invocation reads its neighbour's element, which the barrier made visible.
    outp[l] = tile[(l + 1u) % n];
}
