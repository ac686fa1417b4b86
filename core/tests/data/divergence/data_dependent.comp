#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint tile[64];
// The branch around the barrier depends on per-invocation data (a hash of the index).
// FIXED: on the workgroup's id, the same for all of its invocations.
void main() {
    uint i = gl_LocalInvocationIndex;
    uint h = (i * 2654435761u) >> 28u;
#ifdef FIXED
    bool work = gl_WorkGroupID.x == 0u;
#else
    bool work = h < 12u;
#endif
    tile[i] = h;
    if (work) {
        barrier();
        outp[gl_GlobalInvocationID.x] = tile[63u - i];
    }
}
