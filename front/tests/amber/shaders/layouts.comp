#version 450
// Reads std140 matrices and std430 vec3s, updates a std140 int array.
layout(local_size_x = 1) in;
layout(std140, set = 0, binding = 0) uniform M { mat2 m[2]; };
layout(std430, set = 0, binding = 1) buffer V { vec3 v[]; };
layout(std430, set = 0, binding = 2) buffer O { vec4 o[]; };
layout(std140, set = 0, binding = 3) buffer S { int s[4]; };
void main() {
  o[0] = vec4(m[0] * vec2(1.0, 2.0), m[1][1]);
  o[1] = vec4(v[1], v[0].z);
  for (int k = 0; k < 4; k++) {
    s[k] += 10 * k;
  }
}
