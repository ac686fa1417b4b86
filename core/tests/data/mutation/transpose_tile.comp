#version 450
// A 16x16 tile transposed through shared memory (padded rows against bank conflicts).
layout(local_size_x = 16, local_size_y = 4) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint tile[16][17];
void main() {
    uint x = gl_LocalInvocationID.x;
    uint base = gl_WorkGroupID.x * 256u;
    for (uint y = gl_LocalInvocationID.y; y < 16u; y += 4u) {
        tile[y][x] = inp[base + y * 16u + x];
    }
    barrier();
    for (uint y = gl_LocalInvocationID.y; y < 16u; y += 4u) {
        outp[base + y * 16u + x] = tile[x][y];
    }
}
