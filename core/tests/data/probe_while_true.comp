// probe_while_true: ballot probes (see core/tests/reference/reconv) in a structure the GPU set lacks
#version 460
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };
// Invocation L owns REGION words of outp from L*REGION: [0]=#records, [1]=gl_SubgroupID,
// [2]=gl_SubgroupInvocationID, [3]=gl_SubgroupSize, then records {probe id, ballot.x, ballot.y, aux}.
#define REGION 516u
#define MAXREC 128u
uint g_nrec = 0u;
#define PROBE(id, aux) { uvec4 b_ = subgroupBallot(true); \
  uint o_ = gl_LocalInvocationIndex * REGION + 4u + min(g_nrec, MAXREC - 1u) * 4u; \
  outp[o_] = (id); outp[o_ + 1u] = b_.x; outp[o_ + 2u] = b_.y; outp[o_ + 3u] = (aux); \
  g_nrec++; outp[gl_LocalInvocationIndex * REGION] = g_nrec; }
#define HEADER() { uint h_ = gl_LocalInvocationIndex * REGION; outp[h_] = 0u; \
  outp[h_ + 1u] = gl_SubgroupID; outp[h_ + 2u] = gl_SubgroupInvocationID; outp[h_ + 3u] = gl_SubgroupSize; }

void main() {
    HEADER();
    uint v = inp[gl_LocalInvocationIndex];
    PROBE(0u, 0u);
    uint i = 0u;
    while (true) {
        PROBE(1u, i);
        if (i >= (v % 3u)) {
            if (((v >> 4u) & 1u) != 0u) { PROBE(2u, i); break; }
            if (i >= (v % 3u) + 1u) { PROBE(3u, i); break; }
        }
        i++;
    }
    PROBE(4u, 0u);
}
