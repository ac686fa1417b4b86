#version 450
// Per invocation: doubles a uint, halves a float, negates an index.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer In { uint a[]; };
layout(set = 0, binding = 1) buffer Out { uint b[]; };
layout(set = 0, binding = 2) buffer F { float f[]; };
layout(set = 0, binding = 3) buffer I { int i[]; };
void main() {
  uint x = gl_GlobalInvocationID.x;
  b[x] = a[x] * 2u + x;
  f[x] = f[x] * 0.5;
  i[x] = -int(x);
}
