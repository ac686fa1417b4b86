// Packed integer dot products: each u32 holds four 8-bit values; dot4I8Packed reads them as
// signed, dot4U8Packed as unsigned (OpSDot / OpUDot with the packed format). The Dot view
// shows the four products of a lane.
//
// Buffers: binding 0 holds each word's index (the packed inputs), binding 1 the results.

requires packed_4x8_integer_dot_product;

@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) l: u32) {
    // Spread the index over all four bytes so the signs vary.
    let a = inp[l] * 0x01030507u;
    let b = 0xfe02ff01u;
    outp[l] = bitcast<u32>(dot4I8Packed(a, b));
    outp[32u + l] = dot4U8Packed(a, b);
}
