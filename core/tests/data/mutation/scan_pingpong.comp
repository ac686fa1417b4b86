#version 450
// Inclusive prefix sum (Hillis-Steele) over two shared buffers used in turn.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint buf[2][64];
void main() {
    uint l = gl_LocalInvocationIndex;
    uint src = 0u;
    buf[0][l] = inp[gl_GlobalInvocationID.x];
    barrier();
    for (uint d = 1u; d < 64u; d <<= 1u) {
        uint v = buf[src][l];
        if (l >= d) {
            v += buf[src][l - d];
        }
        buf[1u - src][l] = v;
        src = 1u - src;
        barrier();
    }
    outp[gl_GlobalInvocationID.x] = buf[src][l];
}
