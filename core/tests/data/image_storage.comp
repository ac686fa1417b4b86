#version 450
// Storage images and texel buffers: imageLoad/imageStore in several formats, imageSize, an
// image atomic, and texel buffers read and written. 16 invocations, one per texel of a 4x4 image.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D counts;     // 4x4: each += x + 1
layout(set = 0, binding = 1, rgba8) uniform image2D colors;      // 4x4: read, inverted back
layout(set = 0, binding = 2, r32f) uniform image2D floats;       // 4x4: written x * 10 + y
layout(set = 0, binding = 3, rgba16f) uniform image2DArray layers; // 2x2x2: layer 1 = layer 0 * 2
layout(set = 0, binding = 4, r32i) uniform iimageBuffer ints;     // 16 texels: negated
layout(set = 0, binding = 5) uniform usamplerBuffer table;        // 16 texels, rg32ui
layout(set = 0, binding = 6, std430) buffer Out { uvec4 sizes; uvec2 fetched[16]; } outp;
void main() {
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint i = gl_LocalInvocationIndex;
    imageAtomicAdd(counts, p, uint(p.x + 1));
    vec4 c = imageLoad(colors, p);
    imageStore(colors, p, vec4(1.0) - c);
    imageStore(floats, p, vec4(float(p.x * 10 + p.y)));
    if (p.x < 2 && p.y < 2) {
        vec4 v = imageLoad(layers, ivec3(p, 0));
        imageStore(layers, ivec3(p, 1), v * 2.0);
    }
    int n = imageLoad(ints, int(i)).x;
    imageStore(ints, int(i), ivec4(-n));
    outp.fetched[i] = texelFetch(table, int(i)).xy;
    if (i == 0) {
        outp.sizes = uvec4(imageSize(colors), imageSize(layers).z, uint(imageSize(ints)));
    }
}
