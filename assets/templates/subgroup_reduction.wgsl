// A workgroup sum in two stages: subgroupAdd within each subgroup, then the first invocation
// of every subgroup writes its partial sum to workgroup memory and, after a barrier, invocation
// 0 adds the partials. Remove the workgroupBarrier() and the race detector reports the race.
//
// Buffers: binding 0 holds each word's index (the input), binding 1 receives the sum.

enable subgroups;

@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;

var<workgroup> partial: array<u32, 8>;

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) l: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    let s = subgroupAdd(inp[l]);
    if (lane == 0u) {
        partial[l / size] = s;
    }
    workgroupBarrier();
    if (l == 0u) {
        var total = 0u;
        for (var k = 0u; k < 128u / size; k++) {
            total += partial[k];
        }
        outp[0] = total;
    }
}
