#version 450
// Descriptor array elements reached by device address (GL_EXT_buffer_reference): the push
// constants hold the addresses of elements 1 and 2 of a buffer array, read and written through
// them beside the array's own descriptors.
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(push_constant) uniform Push { Words one; Words two; } pc;
layout(set = 0, binding = 0, std430) buffer Parts { uint v[16]; } parts[3];
void main() {
    uint i = gl_LocalInvocationID.x;
    parts[0].v[i] = pc.one.w[i] + 100u * parts[1].v[15u - i];
    pc.two.w[i] = parts[1].v[i] * 2u + 1u;
}
