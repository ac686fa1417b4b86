#version 450
// Two specialization constants with one SpecId and different defaults (as ggml's shaders
// have): the workgroup size (default 1) and BLOCK_SIZE (default 128). Unspecialized, each
// keeps its own default; specializing SpecId 0 sets both.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint BLOCK_SIZE = 128;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main() {
    o[gl_LocalInvocationIndex] = BLOCK_SIZE;
}
