// Float results the Vulkan specification lets devices compute within error bounds (sin, exp,
// pow, a division, inversesqrt), beside correctly rounded ones.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { float outp[]; };
void main() {
    uint L = gl_GlobalInvocationID.x;
    float x = float(inp[L] % 1000u) / 250.0 - 2.0;
    outp[4u * L + 0u] = sin(x) * exp(x * 0.5);
    outp[4u * L + 1u] = pow(abs(x) + 0.5, 1.7);
    outp[4u * L + 2u] = inversesqrt(abs(x) + 1.0) / (x + 3.0);
    outp[4u * L + 3u] = x * 2.0 + 1.0;
}
