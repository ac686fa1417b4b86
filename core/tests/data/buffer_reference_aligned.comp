#version 450
// Aligned memory operands: each invocation loads a uvec4 through a pointer declared 16-byte
// aligned; invocation 3's address is 4 bytes off (core/tests/buffer_addresses.rs).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 4) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Quad { uvec4 v; };
layout(set = 0, binding = 0, std430) buffer Root { uint64_t base; uvec4 outs[4]; } root;

void main() {
    uint i = gl_LocalInvocationID.x;
    Quad q = Quad(root.base + 16 * i + (i == 3 ? 4 : 0));
    root.outs[i] = q.v;
}
