// A cooperative-matrix multiply-add: C = A * B + C over 16x16 f16 matrices, one subgroup.
// The Matrix view shows which lane holds which element of each matrix.
//
// Buffers: binding 0 holds A, binding 1 B, binding 2 C (column-major, 16 rows per column).

enable f16;
enable wgpu_cooperative_matrix;

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f16>;

@compute @workgroup_size(32)
fn main() {
    let ma = coopLoad<coop_mat16x16<f16, A>>(&a[0]);
    let mb = coopLoad<coop_mat16x16<f16, B>>(&b[0]);
    let mc = coopLoad<coop_mat16x16<f16, C>>(&c[0]);
    let r = coopMultiplyAdd(ma, mb, mc);
    coopStore(r, &c[0]);
}
