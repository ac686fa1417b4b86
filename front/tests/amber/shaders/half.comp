#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
// Doubles float16 values.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer H { float16_t h[]; };
void main() {
  h[gl_GlobalInvocationID.x] *= float16_t(2.0);
}
