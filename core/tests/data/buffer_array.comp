#version 450
#extension GL_EXT_nonuniform_qualifier : require
// A descriptor array of three storage buffers, each with its own length: indexed by constants,
// by a push constant (dynamically uniform) and per invocation (nonuniformEXT), written through
// the uniform index, and asked for its runtime array's length (core/tests/descriptor_arrays.rs).
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer In { uint count; uint data[]; } ins[3];
layout(set = 0, binding = 1) buffer Out { uint sums[]; };
layout(push_constant) uniform Pick { uint pick; };

void main() {
    uint i = gl_LocalInvocationID.x;
    sums[i] = ins[0].data[i] + ins[1].data[i] * 10 + ins[2].data[i] * 100;
    sums[4 + i] = ins[pick].data[i];
    sums[8 + i] = ins[nonuniformEXT(i % 3)].count;
    sums[12 + i] = ins[nonuniformEXT(i % 3)].data.length();
    ins[pick].data[i] += 1000;
}
