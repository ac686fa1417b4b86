#version 450
// Friendly names: OpName duplicates (two "Data" blocks, two "d" members, unnamed instances),
// built-ins, loop and selection controls, function names.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
struct Data { uint v; float w; };
layout(set = 0, binding = 0) buffer A { Data d[]; };
layout(set = 0, binding = 1) buffer B { Data d[]; } b;
layout(set = 0, binding = 2) uniform U { uint n; } u;
shared uint tile[64];

uint helper(uint x, float y) { return x * 3u + uint(y); }

void main() {
    uint i = gl_GlobalInvocationID.x + gl_LocalInvocationID.y + gl_WorkGroupID.z;
    tile[gl_LocalInvocationIndex] = gl_NumWorkGroups.x + gl_SubgroupInvocationID + gl_SubgroupSize;
    barrier();
    uint acc = 0u;
    [[unroll]] for (uint k = 0u; k < 4u; k++) acc += tile[(i + k) % 64u];
    [[dont_unroll]] for (uint k = 0u; k < u.n; k++) acc ^= k;
    [[flatten]] if (acc > 7u) acc = helper(acc, d[i].w);
    [[dont_flatten]] if (acc < 3u) acc = helper(acc, -0.5);
    b.d[i].v = acc;
    d[i].w = float(acc) * 0.25;
}
