#version 450
// Two bindings the host may bind to one buffer (`--buffer 0:1=@0:0`): what is written through
// binding 0 is then read back through binding 1.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer B { uint b[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    a[i] = i + 1;
    memoryBarrierBuffer();
    barrier();
    b[i + 4] = b[i];
}
