#version 450
// A packed image (R11fG11fB10f): the first texel's channels are read, and the second texel is
// written with a negative, an exact and a too-large value.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r11f_g11f_b10f) uniform image2D img;
layout(set = 0, binding = 1) buffer Out { vec4 texel0; };

void main() {
    texel0 = imageLoad(img, ivec2(0, 0));
    imageStore(img, ivec2(1, 0), vec4(-1.0, 3.0, 65536.0, 0.0));
}
