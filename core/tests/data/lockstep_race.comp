#version 450
// Lanes of one subgroup exchange values through shared memory with no subgroup barrier: each
// writes x[i], then reads its neighbour's x[i ^ 1]. Only lockstep execution orders the write
// before the read here (a data race the memory model does not order). With BARRIER defined,
// subgroupBarrier() orders them.
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint x[32];
void main() {
    uint i = gl_LocalInvocationIndex;
    x[i] = i * 3u;
#ifdef BARRIER
    subgroupBarrier();
#endif
    outp[i] = x[i ^ 1u];
}
