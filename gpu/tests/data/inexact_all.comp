// Every float operation the Vulkan precision table bounds or says is inherited, on 32-bit
// scalars and vectors and on a double: each result stored, so a precision variant's rewrite of
// every one is run (tests/precision in gpu/src/precision.rs).
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float64 : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { float outp[]; };
layout(std430, set = 0, binding = 2) buffer Wide { double wide[]; };
void main() {
    uint L = gl_GlobalInvocationID.x;
    float x = float(inp[L] % 64u) / 40.0 + 0.1;   // (0.1, 1.7]
    float y = float(inp[L] % 7u) + 1.5;
    vec2 v = vec2(x, y);
    uint o = 32u * L;
    outp[o + 0u] = sin(x);
    outp[o + 1u] = cos(y);
    outp[o + 2u] = tan(x);
    outp[o + 3u] = asin(x * 0.5);
    outp[o + 4u] = acos(x * 0.5);
    outp[o + 5u] = atan(x);
    outp[o + 6u] = atan(x, y);
    outp[o + 7u] = sinh(x);
    outp[o + 8u] = cosh(x);
    outp[o + 9u] = tanh(x);
    outp[o + 10u] = asinh(x);
    outp[o + 11u] = acosh(y);
    outp[o + 12u] = atanh(x * 0.5);
    outp[o + 13u] = pow(x, y);
    outp[o + 14u] = exp(x);
    outp[o + 15u] = log(x);
    outp[o + 16u] = exp2(y);
    outp[o + 17u] = log2(y);
    outp[o + 18u] = sqrt(y);
    outp[o + 19u] = inversesqrt(x);
    outp[o + 20u] = fma(x, y, 0.25);
    outp[o + 21u] = mod(y, x);
    outp[o + 22u] = x / y;
    outp[o + 23u] = length(v);
    outp[o + 24u] = distance(v, vec2(0.5));
    outp[o + 25u] = normalize(v).y;
    outp[o + 26u] = refract(normalize(v), vec2(0.0, 1.0), 0.5).x;
    vec2 s = sin(v) + exp(v) * log(v);
    outp[o + 27u] = s.x + s.y;
    double d = double(x);
    wide[2u * L] = d / double(y);
    wide[2u * L + 1u] = sqrt(d);
}
