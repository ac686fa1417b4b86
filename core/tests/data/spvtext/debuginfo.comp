#version 450
// Built with -gVS: NonSemantic.Shader.DebugInfo.100, OpString, OpSource with the text, OpLine.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer O { uint v[]; } o;
struct S { uint a; float b[2]; };
uint twice(uint x) { return x + x; }
void main() {
    S s;
    s.a = twice(gl_LocalInvocationIndex);
    s.b[1] = 0.5;
    for (int k = 0; k < 3; ++k) s.a += uint(k);
    o.v[gl_LocalInvocationIndex] = s.a + uint(s.b[1]);
}
