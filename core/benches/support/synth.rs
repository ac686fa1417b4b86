//! Synthetic compute shaders of any size for the load and frame benchmarks: a chain of `ifs`
//! selection constructs on bits of the invocation index (so lanes diverge and reconverge at every
//! one), each adding to an accumulator through an `OpPhi`, and a final store. `1 + 2 * ifs`
//! blocks; about 140 bytes per `if`.

use rspirv::binary::Assemble as _;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, MemoryModel, SelectionControl, StorageClass,
};

/// The module's words. Local size `local_x`; one storage buffer (set 0, binding 0) of `uint[]`
/// that must hold one word per invocation.
pub fn chain_of_ifs(ifs: usize, local_x: u32) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let u32t = b.type_int(32, 0);
    let boolt = b.type_bool();
    let v3 = b.type_vector(u32t, 3);
    let in_v3 = b.type_pointer(None, StorageClass::Input, v3);
    let gid = b.variable(in_v3, None, StorageClass::Input, None);
    b.decorate(
        gid,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::GlobalInvocationId)],
    );
    let rta = b.type_runtime_array(u32t);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let buf = b.type_struct([rta]);
    b.member_decorate(buf, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    b.decorate(buf, Decoration::Block, []);
    let sb_buf = b.type_pointer(None, StorageClass::StorageBuffer, buf);
    let sb_u32 = b.type_pointer(None, StorageClass::StorageBuffer, u32t);
    let out = b.variable(sb_buf, None, StorageClass::StorageBuffer, None);
    b.decorate(out, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(out, Decoration::Binding, [Operand::LiteralBit32(0)]);
    let consts: Vec<u32> = (0..64).map(|v| b.constant_bit32(u32t, v)).collect();
    let fn_t = b.type_function(void, []);

    let main = b
        .begin_function(void, None, FunctionControl::NONE, fn_t)
        .unwrap();
    let mut pred_label = b.begin_block(None).unwrap();
    let g = b.load(v3, None, gid, None, []).unwrap();
    let x = b.composite_extract(u32t, None, g, [0]).unwrap();
    let mut acc = x;
    for i in 0..ifs {
        let bit = b.bitwise_and(u32t, None, x, consts[1 << (i % 5)]).unwrap();
        let cond = b.i_not_equal(boolt, None, bit, consts[0]).unwrap();
        let then = b.id();
        let merge = b.id();
        b.selection_merge(merge, SelectionControl::NONE).unwrap();
        b.branch_conditional(cond, then, merge, []).unwrap();
        b.begin_block(Some(then)).unwrap();
        let v = b.i_add(u32t, None, acc, consts[i % 64]).unwrap();
        b.branch(merge).unwrap();
        b.begin_block(Some(merge)).unwrap();
        acc = b.phi(u32t, None, [(v, then), (acc, pred_label)]).unwrap();
        pred_label = merge;
    }
    let p = b.access_chain(sb_u32, None, out, [consts[0], x]).unwrap();
    b.store(p, acc, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::GLCompute, main, "main", [gid]);
    b.execution_mode(main, ExecutionMode::LocalSize, [local_x, 1, 1]);
    b.module().assemble()
}
