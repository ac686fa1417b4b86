#version 450
// Buffer device addresses (GL_EXT_buffer_reference): pointers held in a buffer, pointer
// arithmetic through uint64_t, a pointer made from a uvec2, a linked list walked through memory,
// an atomic through a pointer, and a pointer to an array element (OpPtrAccessChain).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8) in;

layout(buffer_reference) buffer Node;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Counter { uint n; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Node { Node next; uint value; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Word { uint w; };

layout(set = 0, binding = 0, std430) buffer Roots {
    Floats src;      // 16 floats
    Floats dst;      // 32 floats
    Node head;       // a list
    uvec2 counter;   // a Counter as two words
    uint64_t sum;    // out: head's address + the values of the list
    uint64_t wild;   // an address no buffer holds: the store through it is dropped
} roots;

void main() {
    uint i = gl_LocalInvocationID.x;
    roots.dst.v[i] = roots.src.v[i] * 2.0 + float(i);
    // Pointer arithmetic: skip two floats.
    Floats moved = Floats(uint64_t(roots.src) + 8);
    roots.dst.v[i + 8] = moved.v[i];
    // A pointer to one element, then the next ones through it (OpPtrAccessChain).
    Word w = Word(uint64_t(roots.dst) + 64);
    w[i + 8].w = floatBitsToUint(float(100 + i));
    atomicAdd(Counter(roots.counter).n, i + 1);
    if (i == 0) {
        uint s = 0;
        Node n = roots.head;
        for (int k = 0; k < 3; k++) {
            s += n.value;
            n = n.next;
        }
        roots.sum = uint64_t(roots.head) + s;
        Word(roots.wild).w = 7u;
    }
}
