#version 450
// A three-point stencil: each workgroup loads its span plus one halo value on each side.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(set = 0, binding = 1) buffer Out { uint outp[]; };
shared uint t[66];
void main() {
    uint l = gl_LocalInvocationIndex;
    uint g = gl_GlobalInvocationID.x;
    uint n = gl_NumWorkGroups.x * 64u;
    t[l + 1u] = inp[g];
    if (l == 0u) {
        t[0] = inp[g == 0u ? n - 1u : g - 1u];
    }
    if (l == 63u) {
        t[65] = inp[(g + 1u) % n];
    }
    barrier();
    outp[g] = t[l] + 2u * t[l + 1u] + 4u * t[l + 2u];
}
