#version 450
// A combined image sampler, as the device comparison prepares it.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(std430, set = 0, binding = 1) buffer Out { vec4 outp[]; };
void main() {
    outp[gl_LocalInvocationIndex] = textureLod(tex, vec2(0.5), 0.0);
}
