#version 450
// Two views of one binding with a push-constant block declared between them (as ggml's
// get_rows quant variants do): the push constants are no element of a descriptor array, and
// both views name the same buffer.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(push_constant) uniform P { uint n; } p;
layout(set = 0, binding = 0) buffer A16 { uint16_t b[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint w = a[i];
    uint n = p.n;
    o[3 * i] = w;
    o[3 * i + 1] = uint(b[2 * i + 1]) << 16 | uint(b[2 * i]);
    o[3 * i + 2] = n;
}
