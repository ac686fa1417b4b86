// Half-precision transcendentals (sin, exp) whose product is stored as a float: the precision
// variants nudge 16-bit results too.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { float outp[]; };
void main() {
    uint L = gl_GlobalInvocationID.x;
    float16_t x = float16_t(float(inp[L] % 1000u) / 250.0 - 2.0);
    f16vec2 v = f16vec2(sin(x), exp(x * float16_t(0.5)));
    outp[L] = float(v.x * v.y);
}
