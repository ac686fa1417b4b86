#version 450
// A histogram of 64 values into 4 bins: incremented without atomics, every bin is a data race
// between the invocations that hit it. With ATOMIC defined, atomicAdd makes it correct.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Hist { uint bins[4]; };
void main() {
    uint b = gl_LocalInvocationIndex % 4u;
#ifdef ATOMIC
    atomicAdd(bins[b], 1u);
#else
    bins[b] = bins[b] + 1u;
#endif
}
