#version 450
// A row's maximum, then its sum of differences, each reduced in one shared array that is
// reused: the barrier after reading the maximum guards the array's reuse.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint red[32];
void main() {
    uint l = gl_LocalInvocationIndex;
    uint v = inp[gl_GlobalInvocationID.x];
    red[l] = v;
    barrier();
    for (uint s = 16u; s > 0u; s >>= 1u) {
        if (l < s) {
            red[l] = max(red[l], red[l + s]);
        }
        barrier();
    }
    uint m = red[0];
    barrier();
    red[l] = m - v;
    barrier();
    for (uint s = 16u; s > 0u; s >>= 1u) {
        if (l < s) {
            red[l] += red[l + s];
        }
        barrier();
    }
    outp[gl_GlobalInvocationID.x] = (m - v) * 1000u + red[0];
}
