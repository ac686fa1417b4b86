#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Each invocation records the subgroup size and a subgroup-wide sum.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer O { uint size[]; };
layout(set = 0, binding = 1) buffer S { uint sum[]; };
void main() {
  size[gl_LocalInvocationIndex] = gl_SubgroupSize;
  sum[gl_LocalInvocationIndex] = subgroupAdd(1u);
}
