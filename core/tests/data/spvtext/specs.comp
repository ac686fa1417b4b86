#version 450
// Specialization constants, the operations on them glslang folds into OpSpecConstantOp, and a
// work group size given by ids.
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const int K = 3;
layout(constant_id = 3) const uint M = 7u;
layout(constant_id = 4) const bool FLAG = true;
layout(constant_id = 5) const float SCALE = 1.5;
const int K2 = K * 2 + 1;
const uint MK = M + uint(K);
const bool BOTH = FLAG && (K > 2);
const int NEG = -K;
const uint SHIFTED = M << 2u;
layout(set = 0, binding = 0) buffer O { int v[]; } o;
shared float s[MK];
void main() {
    s[gl_LocalInvocationIndex % MK] = SCALE;
    o.v[0] = K2 + NEG;
    o.v[1] = BOTH ? int(SHIFTED) : int(MK % 5u);
    o.v[2] = int(s[0] * SCALE) + int(gl_WorkGroupSize.x);
}
