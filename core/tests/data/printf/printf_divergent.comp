#version 450
// debugPrintfEXT on both sides of a divergent if/else and after it. Built twice: with
// printing (printf_divergent.spv) and without (-DNO_PRINTF, printf_divergent_plain.spv): the
// outputs and step counts must be the same.
#extension GL_EXT_debug_printf : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Out { uint o[]; };

void main() {
    uint i = gl_LocalInvocationIndex;
    uint g = gl_GlobalInvocationID.x;
    uint v = i * 3u;
    if ((i & 1u) == 0u) {
        v += 100u;
#ifndef NO_PRINTF
        debugPrintfEXT("even %u v=%d", i, v);
#endif
    } else {
        v = v * 2u;
#ifndef NO_PRINTF
        debugPrintfEXT("odd %u v=%x", i, v);
#endif
    }
#ifndef NO_PRINTF
    debugPrintfEXT("after %u: %v2f %lu %5.2f%%", i, vec2(float(i), 0.5), uint64_t(i) << 40, float(v) / 4.0);
#endif
    o[g] = v;
}
