#version 450
// Packed image formats: each of 8 invocations writes texel i of three 8x1 images from the
// values in `src`, then (after a barrier) reads all three back into `dst`
// (core/tests/images.rs checks against a model of the packing and rounding).
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, r11f_g11f_b10f) uniform image2D small_floats;
layout(set = 0, binding = 1, rgb10_a2) uniform image2D unorm;
layout(set = 0, binding = 2, rgb10_a2ui) uniform uimage2D uints;
layout(set = 0, binding = 3) buffer Src { vec4 src[8]; };
layout(set = 0, binding = 4) buffer Dst { vec4 floats[8]; vec4 unorms[8]; uvec4 uint_out[8]; };

void main() {
    uint i = gl_LocalInvocationID.x;
    ivec2 at = ivec2(i, 0);
    imageStore(small_floats, at, src[i]);
    imageStore(unorm, at, src[i]);
    imageStore(uints, at, uvec4(abs(src[i]) * 100.0));
    memoryBarrierImage();
    barrier();
    ivec2 back = ivec2(7 - i, 0);
    floats[i] = imageLoad(small_floats, back);
    unorms[i] = imageLoad(unorm, back);
    uint_out[i] = imageLoad(uints, back);
}
