// probe_nested_calls: ballot probes (see core/tests/reference/reconv) in a structure the GPU set lacks
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

uint g(uint x) {
    PROBE(20u, 0u);
    if ((x & 1u) != 0u) { PROBE(21u, 0u); return x + 1u; }
    PROBE(22u, 0u);
    return x;
}
uint f(uint x) {
    PROBE(10u, 0u);
    uint r = 0u;
    for (uint i = 0u; i < (x % 3u); i++) {
        r += g(x + i);
        PROBE(11u, i);
        if (((x >> i) & 4u) != 0u) { PROBE(12u, i); return r; }
    }
    PROBE(13u, 0u);
    return r + g(x);
}
void main() {
    HEADER();
    uint v = inp[gl_LocalInvocationIndex];
    PROBE(0u, 0u);
    uint a = f(v);
    PROBE(1u, 0u);
    if ((v & 8u) != 0u) { a += f(v >> 3u); PROBE(2u, 0u); }
    PROBE(3u, 0u);
    outp[gl_LocalInvocationIndex * REGION + 515u] = a;
}
