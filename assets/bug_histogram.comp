// bug_histogram: a histogram counted with plain loads and stores instead of atomics.
//
// Many invocations add 1 to the same bin: each does load, add, store, and two invocations
// doing that to one bin race (increments are lost on a GPU). Lanescope reports data-race on
// the bins in buffer memory. With -DFIXED, atomicAdd makes every increment count.
//
// Dispatch: 1 workgroup of 64 invocations.
// Buffers (set 0): binding 0 (read) inp, 64 uints; binding 1 (read-write) bins, 8 uints.
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
layout(std430, set = 0, binding = 1) buffer Bins { uint bins[]; };

void main() MAXIMALLY_RECONVERGES {
    uint bin = inp[gl_LocalInvocationIndex] % 8u;
#ifdef FIXED
    atomicAdd(bins[bin], 1u);
#else
    bins[bin] = bins[bin] + 1u;
#endif
}
