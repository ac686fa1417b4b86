#version 450
#extension GL_EXT_nonuniform_qualifier : require
// Arrays of image descriptors: storage images (atomics, and a store through a push-constant
// index), combined image samplers (texelFetch per invocation, textureLod through the uniform
// index) and sampler-less texel buffers (core/tests/images.rs).
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D counters[2];
layout(set = 0, binding = 1) uniform sampler2D textures[3];
layout(set = 0, binding = 2) uniform samplerBuffer table[2];
layout(set = 0, binding = 3) buffer Out { vec4 fetched[4]; vec4 sampled[4]; vec4 tbl[4]; } o;
layout(push_constant) uniform Pick { uint pick; };

void main() {
    uint i = gl_LocalInvocationID.x;
    imageAtomicAdd(counters[nonuniformEXT(i % 2)], ivec2(i, 0), 10 + i);
    if (i == 0) {
        imageStore(counters[pick % 2], ivec2(0, 1), uvec4(77));
    }
    o.fetched[i] = texelFetch(textures[nonuniformEXT(i % 3)], ivec2(i, 0), 0);
    o.sampled[i] = textureLod(textures[pick], vec2((float(i) + 0.5) / 4.0, 0.25), 0.0);
    o.tbl[i] = texelFetch(table[nonuniformEXT(i % 2)], int(i));
}
