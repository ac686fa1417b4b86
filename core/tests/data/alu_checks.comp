// Self-checking ALU coverage: each check compares a value computed from run-time inputs (so
// glslang cannot fold it) with its expected value and writes 1 (pass) or 0 at outp[check].
// Binding 0: inp = {0, 1, 2, 3, ..., 15} (word i holds i); binding 1: 64 result words.
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint outp[]; };
struct S { uint a; float b; uvec3 c; int d; };
layout(std430, set = 0, binding = 2) buffer Mats { layout(row_major) mat3 rm; mat3 cm; S s[2]; };
shared uint sh[4];

void check(uint k, bool ok) { outp[k] = ok ? 1u : 0u; }

void main() {
    uint one = inp[1], two = inp[2], three = inp[3], zero = inp[0];
    int m1 = int(zero) - 1;                      // -1
    // 8/16/64-bit integers
    uint8_t b8 = uint8_t(250u + one * 10u);      // wraps to 4
    check(0u, b8 == uint8_t(4));
    int16_t s16 = int16_t(m1) * int16_t(30000) * int16_t(two);  // -60000 wraps to 5536
    check(1u, s16 == int16_t(5536));
    uint64_t big = uint64_t(one) << 40u;
    check(2u, big + uint64_t(three) == 1099511627779ul);
    int64_t sl = int64_t(m1) * 5000000000l;
    check(3u, sl == -5000000000l);
    check(4u, (uint64_t(-1l) >> 60u) == 15ul);
    // signed division truncates; GLSL % on ints is OpSMod: the result takes the divisor's sign
    check(5u, (int(-7) / int(two)) == -3 + int(zero) && (int(-7 - int(zero)) % int(two)) == 1);
    check(6u, ((m1 * 7) % 2) == 1 && ((m1 * 7) % -2) == -1);
    // floats: f16, f32, f64
    float16_t h = float16_t(float(three)) / float16_t(float(two));
    check(7u, h == float16_t(1.5));
    double dd = double(one) / double(three);
    check(8u, abs(dd * 3.0lf - 1.0lf) < 1e-15lf && dd != double(float(dd)));
    float f = float(two) * 0.1;
    check(9u, f == 0.2);
    check(10u, isnan(float(zero) / float(zero)) && isinf(float(one) / float(zero)));
    // conversions
    check(11u, int(-2.7 + float(zero)) == -2 && uint(3.9 + float(zero)) == 3u);
    check(12u, floatBitsToUint(float(one)) == 0x3f800000u && uintBitsToFloat(0x40000000u + zero) == 2.0);
    check(13u, float(int(m1)) == -1.0 && float(uint(0xffffffffu - zero)) == 4294967296.0);
    // bit operations
    uint v = 0xf0f0u + zero;
    check(14u, bitCount(v) == 8 && findLSB(v) == 4 && findMSB(v) == 15 && bitfieldReverse(one) == 0x80000000u);
    check(15u, bitfieldExtract(v, 4, 4) == 0xfu && bitfieldExtract(int(0xf0u + zero), 4, 4) == -1);
    check(16u, bitfieldInsert(0u + zero, 0xffu, 8, 4) == 0xf00u);
    uint carry; uint sum = uaddCarry(0xffffffffu, two, carry);
    check(17u, sum == 1u && carry == 1u);
    uint hi, lo; umulExtended(0x80000000u + zero, 4u, hi, lo);
    check(18u, hi == 2u && lo == 0u);
    // GLSL.std.450
    check(19u, abs(sqrt(float(two)) - 1.4142135) < 1e-6 && inversesqrt(4.0 + float(zero)) == 0.5);
    check(20u, clamp(int(m1) * 5, -2, 3) == -2 && min(two, three) == 2u && max(-1.5, float(zero)) == 0.0);
    check(21u, fract(-1.25 + float(zero)) == 0.75 && floor(-1.5 + float(zero)) == -2.0 && ceil(1.2 + float(zero)) == 2.0);
    check(22u, round(2.5 + float(zero)) == 3.0 && roundEven(2.5 + float(zero)) == 2.0 && trunc(-2.5 + float(zero)) == -2.0);
    check(23u, mix(2.0, 4.0, 0.25 + float(zero)) == 2.5 && step(1.0, float(two)) == 1.0 && smoothstep(0.0, 2.0, float(one)) == 0.5);
    check(24u, fma(2.0, 3.0, float(one)) == 7.0 && pow(2.0, float(three)) == 8.0 && exp2(float(three)) == 8.0 && log2(8.0 + float(zero)) == 3.0);
    check(25u, packHalf2x16(vec2(float(one), -2.0)) == 0xc0003c00u && unpackHalf2x16(0x3c00u + zero).x == 1.0);
    check(26u, packUnorm4x8(vec4(float(zero), 1.0, 0.5, 2.0)) == 0xff80ff00u && packSnorm2x16(vec2(-1.0, 0.5 + float(zero))) == 0x40008001u);
    vec3 a3 = vec3(float(one), 0.0, 0.0), b3 = vec3(0.0, float(one), 0.0);
    check(27u, cross(a3, b3) == vec3(0.0, 0.0, 1.0) && dot(a3 + b3, b3) == 1.0 && length(vec2(3.0, float(three) + 1.0)) == 5.0);
    check(28u, normalize(vec2(float(three), 4.0)) == vec2(0.6, 0.8) && reflect(vec2(1.0, -float(one)), vec2(0.0, 1.0)) == vec2(1.0, 1.0));
    int e; float mant = frexp(8.0 + float(zero), e);
    check(29u, mant == 0.5 && e == 4 && ldexp(0.5, int(two) + 2) == 8.0);
    // matrices
    mat2 m = mat2(float(one), 2.0, 3.0, 4.0);    // columns (1,2), (3,4)
    check(30u, (m * vec2(1.0, float(one)))  == vec2(4.0, 6.0) && (vec2(1.0, float(one)) * m) == vec2(3.0, 7.0));
    check(31u, determinant(m) == -2.0 && inverse(m)[0] == vec2(-2.0, 1.0) && transpose(m)[0] == vec2(1.0, 3.0));
    check(32u, (m * m)[1] == vec2(15.0, 22.0) && outerProduct(vec2(float(one), 2.0), vec2(3.0, 4.0))[1] == vec2(4.0, 8.0));
    // explicit layouts: row-major and column-major matrices, a struct array (set up below)
    rm = mat3(float(one)); rm[0][1] = 5.0; cm = rm;
    s[1].c = uvec3(7u, 8u, 9u + zero); s[1].d = m1;
    check(33u, rm[0][1] == 5.0 && cm[0][1] == 5.0 && s[1].c.z == 9u && s[1].d == -1);
    // vectors, swizzles, dynamic indexing, select
    uvec4 q = uvec4(one, two, three, 4u);
    check(34u, q.wzyx == uvec4(4u, 3u, 2u, 1u) && q[two] == 3u && any(greaterThan(q, uvec4(3u))) && !all(greaterThan(q, uvec4(1u))));
    check(35u, (two > one ? q.x : q.y) == 1u && mix(uvec2(1u, 2u), uvec2(3u, 4u), bvec2(false, one == 1u)) == uvec2(1u, 4u));
    // shared memory and atomics
    sh[0] = 5u + zero; sh[1] = 0u;
    uint old = atomicAdd(sh[0], 3u);
    atomicMax(sh[1], two);
    uint cx = atomicCompSwap(sh[0], 8u, 11u);
    check(36u, old == 5u && sh[0] == 11u && sh[1] == 2u && cx == 8u && atomicExchange(sh[1], 9u) == 2u && atomicAnd(sh[1], 3u) == 9u && sh[1] == 1u);
    // loops with phis and a function-like swap pattern
    uint x = one, y = two;
    for (uint i = zero; i < 5u; i++) { uint t = x; x = y; y = t + y; }
    check(37u, x == 13u && y == 21u);
    // integer abs/sign, unsigned compare of large values
    check(38u, abs(m1 * 3) == 3 && sign(m1) == -1 && (0x80000000u + zero) > 1u && (int(0x80000000u + zero) < 0));
    check(39u, (uint(m1) >> 28) == 15u && (m1 >> 28) == -1 && (int(one) << 31) == int(0x80000000u));
}
