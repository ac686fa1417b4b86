#version 450
// Reads back an RGBA8 image a previous pipeline wrote: red + green * 256 per texel.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D img;
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec4 c = imageLoad(img, p);
  o[p.y * 4 + p.x] = uint(c.r * 255.0 + 0.5) + uint(c.g * 255.0 + 0.5) * 256u;
}
