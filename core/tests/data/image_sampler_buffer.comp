#version 450
// A `samplerBuffer` read with texelFetch. Built for Vulkan 1.1 (build.sh), where glslang declares
// it as an OpTypeSampledImage of a Buffer image (SPIR-V 1.6 forbids that): a uniform texel
// buffer, bound without a sampler.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform samplerBuffer tb;
layout(set = 0, binding = 1) buffer O { float o[4]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    o[i] = texelFetch(tb, int(i)).x * 2.0;
}
