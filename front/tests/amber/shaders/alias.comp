#version 450
// Bindings 0 and 1 are meant to share one buffer; binding 2 is a window of another.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer B { uint b[]; };
layout(set = 0, binding = 2) buffer C { uint c[]; };
void main() {
  uint x = gl_GlobalInvocationID.x;
  a[x] = x + 1u;
  b[x + 4u] = a[x] + 100u;
  c[x] = c[x] * 3u;
}
