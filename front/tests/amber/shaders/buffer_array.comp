#version 450
// Descriptor arrays: three storage buffers at binding 0 and two uniform buffers at binding 1,
// each element a buffer of its own; the invocation index picks the element.
layout(local_size_x = 3) in;
layout(set = 0, binding = 0) buffer Data { uint v[4]; } data[3];
layout(set = 0, binding = 1) uniform Scale { uint factor; } scale[2];

void main() {
    uint i = gl_LocalInvocationID.x;
    for (uint k = 0; k < 4; k++) {
        data[i].v[k] = data[i].v[k] * scale[i % 2].factor + i;
    }
}
