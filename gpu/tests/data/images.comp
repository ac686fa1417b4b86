#version 450
// Images on the device beside the simulation: a storage image read and written (r32ui, 2D),
// one written from floats (rgba8: unorm conversion), a 2D array (rgba16f), a 3D image (r32f),
// a storage texel buffer (r32i), a sampled image read without a sampler (texelFetch on an
// rg32ui texture2D) and a uniform texel buffer (r32ui). 8x8 texels, 4 layers or slices; one
// invocation per texel (64 per workgroup, 1 workgroup).
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D counts;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D colour;
layout(set = 0, binding = 2, rgba16f) uniform image2DArray layers;
layout(set = 0, binding = 3, r32f) uniform image3D volume;
layout(set = 0, binding = 4, r32i) uniform iimageBuffer signed_texels;
layout(set = 0, binding = 5) uniform utexture2D fetched;
layout(set = 0, binding = 6) uniform utextureBuffer uniform_texels;
layout(std430, set = 0, binding = 7) buffer Out { uvec4 outp[]; };
void main() {
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint i = gl_LocalInvocationIndex;
    uint c = imageLoad(counts, p).x;
    imageStore(counts, p, uvec4(c * 3u + i));
    vec4 f = vec4(float(p.x) / 7.0, float(p.y) / 7.0, float(c & 255u) / 255.0, 0.5);
    imageStore(colour, p, f);
    for (int l = 0; l < 4; ++l) {
        vec4 v = imageLoad(layers, ivec3(p, l));
        imageStore(layers, ivec3(p, l), v * 2.0 + vec4(float(l)));
        float w = imageLoad(volume, ivec3(p, l)).x;
        imageStore(volume, ivec3(p, l), vec4(w + float(i * 4u + uint(l))));
    }
    int s = imageLoad(signed_texels, int(i)).x;
    imageStore(signed_texels, int(i), ivec4(-s - int(i)));
    uvec2 t = texelFetch(fetched, p, 0).xy;
    uint u = texelFetch(uniform_texels, int(i)).x;
    outp[i] = uvec4(t, u, c);
}
