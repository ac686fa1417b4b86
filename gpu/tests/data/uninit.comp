// Shared memory only the even invocations write: the even ones then read an odd neighbour's
// word nobody wrote (undefined), the odd ones an even neighbour's (defined).
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint outp[]; };
shared uint s[64];
void main() {
    uint L = gl_LocalInvocationID.x;
    if (L % 2u == 0u) {
        s[L] = L * 3u + 1u;
    }
    barrier();
    outp[L] = s[L ^ 1u];
}
