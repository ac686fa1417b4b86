#version 450
// Extended instructions (GLSL.std.450, by name) and a switch with fall-through, a negative case
// and a default.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer O { float f[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    float x = o.f[i];
    float y = mix(x, sqrt(abs(x)), 0.25) + clamp(x, -1.0, 1.0) + fma(x, x, 1.0);
    y += length(vec3(x, y, 2.0)) + atan(y, x) + float(findMSB(int(i))) + unpackHalf2x16(i).x;
    switch (int(i)) {
        case 0: y += 1.0;
        case 3: y *= 2.0; break;
        case -5: y = 0.0; break;
        default: y -= 1.0;
    }
    o.f[i] = y;
}
