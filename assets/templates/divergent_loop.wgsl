// A divergent loop: invocation L loops L % 4 + 1 times. Each iteration a ballot records which
// invocations are still looping together (the tangle): watch it shrink, then all meet again.
// Buffers: binding 0 holds each word's index (the input), binding 1 receives the results.
enable subgroups;
diagnostic(off, subgroup_uniformity); // the ballots in the loop run in divergent control flow

@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) l: u32) {
    let trips = inp[l] % 4u + 1u;
    var sum = 0u;
    for (var i = 0u; i < trips; i++) {
        // The invocations still in the loop at this iteration.
        let together = subgroupBallot(true).x;
        sum += countOneBits(together);
    }
    // Everyone is back together here.
    let all = subgroupBallot(true).x;
    outp[l] = sum;
    outp[32u + l] = all;
}
