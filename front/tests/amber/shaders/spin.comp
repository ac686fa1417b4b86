#version 450
// Never ends while a[0] is 0.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  uint n = 0u;
  while (a[0] == 0u) {
    n++;
  }
  a[1] = n;
}
