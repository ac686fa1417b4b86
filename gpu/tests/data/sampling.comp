#version 450
// Filtered reads on the device beside the simulation: a combined image sampler (rgba8, 8x8)
// sampled between texels by a linear sampler (binding 0), and a separate texture and sampler
// (r32f, 8x8, bindings 1 and 2) sampled at texel centres. One invocation per output.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D smooth_tex;
layout(set = 0, binding = 1) uniform texture2D plain;
layout(set = 0, binding = 2) uniform sampler pick;
layout(std430, set = 0, binding = 3) buffer Out { vec4 outp[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    // Coordinates a third and two fifths of the way between texel centres.
    vec2 between = (vec2(float(i % 8u), float(i / 8u)) + vec2(0.5 + 1.0 / 3.0, 0.5 + 0.4)) / 8.0;
    vec2 centre = (vec2(float(i % 8u), float(i / 8u)) + 0.5) / 8.0;
    outp[2u * i] = textureLod(smooth_tex, between, 0.0);
    outp[2u * i + 1u] = textureLod(sampler2D(plain, pick), centre, 0.0);
}
