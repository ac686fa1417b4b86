// Every invocation of every workgroup writes word 0 (a data race: the last writer is the
// schedule's), and its own word after it.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint outp[]; };
void main() {
    uint L = gl_GlobalInvocationID.x;
    outp[0] = L + 1u;
    outp[1u + L] = L * 5u;
}
