#version 450
// Sampled images: texelFetch and textureLod with the bound sampler (nearest or linear, and its
// address mode) on a 2D image, a 2D array, a 3D image and a cube. Invocation i samples at
// coordinates from the `at` buffer and writes what it read.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform sampler2D tex;          // 4x4 rgba8 or r32f
layout(set = 0, binding = 1) uniform sampler2DArray arr;     // 2x2x3
layout(set = 0, binding = 2) uniform sampler3D vol;          // 2x2x2
layout(set = 0, binding = 3) uniform samplerCube cube;       // 1x1x6
layout(set = 0, binding = 4) uniform texture2D plain;        // the same texels as `tex`
layout(set = 0, binding = 5) uniform sampler smp;            // a sampler of its own
layout(set = 0, binding = 6, std430) buffer At { vec4 at[8]; };
layout(set = 0, binding = 7, std430) buffer Out { vec4 o[8][6]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    vec4 a = at[i];
    o[i][0] = textureLod(tex, a.xy, 0.0);
    o[i][1] = texelFetch(tex, ivec2(a.zw), 0);
    o[i][2] = textureLod(arr, vec3(a.xy, a.z), 0.0);
    o[i][3] = textureLod(vol, vec3(a.xy, a.w), 0.0);
    o[i][4] = textureLod(cube, vec3(a.x - 0.5, a.y - 0.5, a.w - 0.5), 0.0);
    o[i][5] = textureLod(sampler2D(plain, smp), a.xy, 0.0);
}
