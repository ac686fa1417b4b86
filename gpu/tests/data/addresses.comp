#version 450
// Buffers reached by device address (GL_EXT_buffer_reference): pointers in push constants and in
// a declared buffer, a list linked through memory, and addresses written out. Bindings 1 to 3
// are not declared: the shader reaches them only through the addresses it is given.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 16) in;

layout(buffer_reference) buffer Node;
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Node { Node next; uint value; uint pad; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

layout(push_constant) uniform Push { Words src; Node head; } pc;
layout(set = 0, binding = 0, std430) buffer Out {
    uint64_t reached[16]; // the address of the node each invocation stopped at
    uint sums[16];
    Words dst;            // binding 2
} outp;

void main() {
    uint i = gl_LocalInvocationID.x;
    Node n = pc.head;
    uint s = 0;
    for (uint k = 0; k <= i % 4; k++) {
        s += n.value;
        n = n.next;
    }
    outp.sums[i] = s + pc.src.w[i];
    outp.reached[i] = uint64_t(n);
    outp.dst.w[i] = pc.src.w[i] * 3u;
}
