#version 450
// Literals of every width and signedness: 8/16/64-bit ints, halves, doubles, negatives,
// values that print as hex floats (denormals) and ones that need all 9 or 17 digits.
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer O {
    int64_t i64[4]; uint64_t u64[4]; double f64[4]; float f32[8];
    float16_t f16[4]; int16_t i16[2]; uint16_t u16[2]; int8_t i8[2]; uint8_t u8[2]; int i32[2];
} o;
void main() {
    o.i64[0] = -1l; o.i64[1] = 9223372036854775807l; o.i64[2] = -9223372036854775807l - 1l;
    o.u64[0] = 0xfffffffffffful; o.u64[1] = 18446744073709551615ul;
    o.f64[0] = 0.1lf; o.f64[1] = -2.5e300lf; o.f64[2] = 4.9e-324lf; o.f64[3] = 1.0lf / 3.0lf;
    o.f32[0] = 0.1; o.f32[1] = 1e-40; o.f32[2] = 3.4028235e38; o.f32[3] = -0.0;
    o.f32[4] = 1e10; o.f32[5] = 123456789.0; o.f32[6] = 0.0001; o.f32[7] = 1.17549435e-38;
    o.f16[0] = 1.5hf; o.f16[1] = -0.1hf; o.f16[2] = 65504.0hf; o.f16[3] = 6e-8hf;
    o.i16[0] = -2s; o.i16[1] = 32767s; o.u16[0] = 65535us; o.u16[1] = 7us;
    o.i8[0] = int8_t(-128); o.i8[1] = int8_t(5); o.u8[0] = uint8_t(255); o.u8[1] = uint8_t(0);
    o.i32[0] = -2147483648; o.i32[1] = -7;
}
