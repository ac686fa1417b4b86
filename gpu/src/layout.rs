//! How a device spreads a cooperative matrix over its lanes, measured.
//!
//! The component-to-invocation mapping of `OpTypeCooperativeMatrixKHR` is the implementation's
//! and no API reports it, so a comparison infers it the way the built-in layouts were measured:
//! a probe dispatch loads two matrices of the type, one holding each element's row (plus one)
//! and one its column (plus one), and every lane writes what each of its components holds. The
//! pair names the element behind every (lane, component); a component holding neither (zero in
//! both) is padding. The result is a layout table ([`Table`]) the simulation then runs under,
//! kept per device in the user's cache directory ([`Cache`]) so a type is probed once.
//!
//! The probe is plain SPIR-V assembled here, so it runs on the simulator too: the tests check
//! that the probe infers each built-in layout from a simulation under it.

use crate::device::{DeviceInfo, Dispatch, GpuBuffer};
use lanescope_core::coopmat::{LayoutChoice, Table, TableMatrix, Use};
use lanescope_core::float::{from_f64, Format, Round};
use lanescope_core::program::{scalar_name, Program, Type};
use lanescope_core::value::ScalarTy;
use lanescope_core::{load, LoadOptions};

/// One cooperative matrix type to measure (Subgroup scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub use_: Use,
    pub elem: ScalarTy,
    pub rows: u32,
    pub cols: u32,
    /// Invocations per subgroup the probe runs with.
    pub lanes: u32,
}

/// Largest matrix a probe measures (its output holds two words per element per lane, at most).
const MAX_ELEMENTS: u32 = 1 << 12;

impl Probe {
    /// The Subgroup-scope cooperative matrix types `prog` declares, as probes at `lanes`
    /// invocations a subgroup; Workgroup-scope types are named in the second list (a probe
    /// measures one subgroup).
    pub fn of_program(prog: &Program, lanes: u32) -> (Vec<Probe>, Vec<String>) {
        let (mut probes, mut skipped) = (Vec::new(), Vec::new());
        for t in &prog.types().types {
            let Type::CoopMat(c) = t else { continue };
            let p = Probe {
                use_: c.use_,
                elem: c.elem,
                rows: c.rows,
                cols: c.cols,
                lanes,
            };
            if c.workgroup {
                skipped.push(format!("{} (Workgroup scope)", p.describe()));
            } else if !probes.contains(&p) {
                probes.push(p);
            }
        }
        (probes, skipped)
    }

    /// `MatrixA 16x16 f16`.
    pub fn describe(&self) -> String {
        format!(
            "{} {}x{} {}",
            self.use_.name(),
            self.rows,
            self.cols,
            scalar_name(self.elem)
        )
    }

    /// The key a measurement is cached under (with the device's).
    pub fn key(&self) -> String {
        format!("{} sg{}", self.describe(), self.lanes)
    }

    /// Words the probe's output buffer needs: the length, then a (row, column) pair per
    /// component of every lane (a lane holds at most every element).
    pub fn output_words(&self) -> usize {
        1 + 2 * self.lanes as usize * (self.rows * self.cols) as usize
    }

    /// The probe's two inputs, row-major: each element's row plus one, and its column plus one,
    /// in the component type.
    pub fn inputs(&self) -> Result<[Vec<u8>; 2], String> {
        let mut rows = Vec::new();
        let mut cols = Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                rows.extend(self.encode(r + 1)?);
                cols.extend(self.encode(c + 1)?);
            }
        }
        Ok([rows, cols])
    }

    /// `v` (a small positive integer) as the component type's bytes.
    fn encode(&self, v: u32) -> Result<Vec<u8>, String> {
        let bytes = (self.elem.size_bytes()) as usize;
        let bits = match Format::of(self.elem) {
            Some(f) => from_f64(f64::from(v), f, Round::Rte),
            None => u64::from(v),
        };
        let fits = match self.elem {
            ScalarTy::Int { bits: 8, signed } => v <= if signed { 127 } else { 255 },
            ScalarTy::BFloat16 => v <= 256,
            ScalarTy::Float { bits: 16 } => v <= 2048,
            _ => true,
        };
        if !fits {
            return Err(format!(
                "{} has more rows or columns than its component type counts exactly",
                self.describe()
            ));
        }
        Ok(bits.to_le_bytes()[..bytes].to_vec())
    }

    /// The probe module: binding 0 the rows, 1 the columns, 2 the output (the length, then
    /// for lane L and component i the pair at 1 + 2 (L length + i)).
    pub fn module(&self) -> Result<Vec<u32>, String> {
        if self.rows == 0 || self.cols == 0 || self.rows * self.cols > MAX_ELEMENTS {
            return Err(format!("no probe for {}: too large", self.describe()));
        }
        let (decl, caps, to_uint) = match self.elem {
            ScalarTy::Float { bits } => (
                format!("%ct = OpTypeFloat {bits}"),
                match bits {
                    16 => "OpCapability Float16\nOpCapability StorageBuffer16BitAccess",
                    64 => "OpCapability Float64",
                    _ => "",
                },
                "OpConvertFToU %uint",
            ),
            ScalarTy::Int { bits, signed } => (
                format!("%ct = OpTypeInt {bits} {}", u32::from(signed)),
                match bits {
                    8 => "OpCapability Int8\nOpCapability StorageBuffer8BitAccess",
                    16 => "OpCapability Int16\nOpCapability StorageBuffer16BitAccess",
                    64 => "OpCapability Int64",
                    _ => "",
                },
                // Codes are positive and small: the low 32 bits are the value.
                match (bits, signed) {
                    (32, _) => "OpBitcast %uint",
                    (_, false) => "OpUConvert %uint",
                    (_, true) => "OpSConvert %uint",
                },
            ),
            other => {
                return Err(format!(
                    "no probe for {} matrices: the probe reads {} components back as integers, which SPIR-V does not convert",
                    scalar_name(other),
                    scalar_name(other)
                ))
            }
        };
        let use_ = match self.use_ {
            Use::A => 0,
            Use::B => 1,
            Use::Accumulator => 2,
        };
        let (rows, cols, lanes) = (self.rows, self.cols, self.lanes);
        let stride = self.elem.size_bytes();
        let text = format!(
            r#"; Version: 1.5
OpCapability Shader
OpCapability GroupNonUniform
OpCapability CooperativeMatrixKHR
OpCapability VulkanMemoryModel
{caps}
OpExtension "SPV_KHR_cooperative_matrix"
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main "main" %lane_id %rows_in %cols_in %out
OpExecutionMode %main LocalSize {lanes} 1 1
OpDecorate %lane_id BuiltIn SubgroupLocalInvocationId
OpDecorate %arr_ct ArrayStride {stride}
OpMemberDecorate %In 0 Offset 0
OpDecorate %In Block
OpDecorate %rows_in DescriptorSet 0
OpDecorate %rows_in Binding 0
OpDecorate %cols_in DescriptorSet 0
OpDecorate %cols_in Binding 1
OpDecorate %arr_u ArrayStride 4
OpMemberDecorate %Out 0 Offset 0
OpDecorate %Out Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 2
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
{decl}
%scope = OpConstant %uint 3
%nrows = OpConstant %uint {rows}
%ncols = OpConstant %uint {cols}
%use = OpConstant %uint {use_}
%mat = OpTypeCooperativeMatrixKHR %ct %scope %nrows %ncols %use
%ptr_f_mat = OpTypePointer Function %mat
%ptr_f_ct = OpTypePointer Function %ct
%arr_ct = OpTypeRuntimeArray %ct
%In = OpTypeStruct %arr_ct
%ptr_sb_In = OpTypePointer StorageBuffer %In
%rows_in = OpVariable %ptr_sb_In StorageBuffer
%cols_in = OpVariable %ptr_sb_In StorageBuffer
%ptr_sb_ct = OpTypePointer StorageBuffer %ct
%arr_u = OpTypeRuntimeArray %uint
%Out = OpTypeStruct %arr_u
%ptr_sb_Out = OpTypePointer StorageBuffer %Out
%out = OpVariable %ptr_sb_Out StorageBuffer
%ptr_sb_u = OpTypePointer StorageBuffer %uint
%ptr_in_u = OpTypePointer Input %uint
%lane_id = OpVariable %ptr_in_u Input
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%main = OpFunction %void None %fn
%entry = OpLabel
%mr = OpVariable %ptr_f_mat Function
%mc = OpVariable %ptr_f_mat Function
%pr = OpAccessChain %ptr_sb_ct %rows_in %u0 %u0
%lr = OpCooperativeMatrixLoadKHR %mat %pr %u0 %ncols
OpStore %mr %lr
%pc = OpAccessChain %ptr_sb_ct %cols_in %u0 %u0
%lc = OpCooperativeMatrixLoadKHR %mat %pc %u0 %ncols
OpStore %mc %lc
%lane = OpLoad %uint %lane_id
%n = OpCooperativeMatrixLengthKHR %uint %mat
%first = OpIEqual %bool %lane %u0
OpSelectionMerge %counted None
OpBranchConditional %first %count %counted
%count = OpLabel
%p0 = OpAccessChain %ptr_sb_u %out %u0 %u0
OpStore %p0 %n
OpBranch %counted
%counted = OpLabel
%base = OpIMul %uint %lane %n
OpBranch %head
%head = OpLabel
%i = OpPhi %uint %u0 %counted %next %continue
%more = OpULessThan %bool %i %n
OpLoopMerge %exit %continue None
OpBranchConditional %more %body %exit
%body = OpLabel
%er = OpAccessChain %ptr_f_ct %mr %i
%vr = OpLoad %ct %er
%ur = {to_uint} %vr
%ec = OpAccessChain %ptr_f_ct %mc %i
%vc = OpLoad %ct %ec
%uc = {to_uint} %vc
%k = OpIAdd %uint %base %i
%k2 = OpIMul %uint %k %u2
%at = OpIAdd %uint %k2 %u1
%po = OpAccessChain %ptr_sb_u %out %u0 %at
OpStore %po %ur
%at1 = OpIAdd %uint %at %u1
%po1 = OpAccessChain %ptr_sb_u %out %u0 %at1
OpStore %po1 %uc
OpBranch %continue
%continue = OpLabel
%next = OpIAdd %uint %i %u1
OpBranch %head
%exit = OpLabel
OpReturn
OpFunctionEnd
"#
        );
        lanescope_core::spvtext::assemble(&text, &Default::default())
            .map_err(|e| format!("the probe for {} did not assemble: {e}", self.describe()))
    }

    /// The layout the probe's output `out` shows: each lane's components, `[row, col]` or
    /// padding.
    pub fn infer(&self, out: &[u8]) -> Result<TableMatrix, String> {
        let word = |i: usize| -> Option<u32> {
            out.get(4 * i..4 * i + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let bad = |why: String| format!("the probe of {}: {why}", self.describe());
        let length = word(0).ok_or_else(|| bad("no output".into()))?;
        let elements = self.rows * self.cols;
        if length == 0 || length > elements {
            return Err(bad(format!(
                "{length} components a lane, for {elements} elements"
            )));
        }
        let mut components = Vec::with_capacity(self.lanes as usize);
        for lane in 0..self.lanes {
            let mut held = Vec::with_capacity(length as usize);
            for i in 0..length {
                let at = 1 + 2 * (lane * length + i) as usize;
                let (Some(r), Some(c)) = (word(at), word(at + 1)) else {
                    return Err(bad("the output is short".into()));
                };
                held.push(match (r, c) {
                    (0, 0) => None,
                    (r, c) if (1..=self.rows).contains(&r) && (1..=self.cols).contains(&c) => {
                        Some([r - 1, c - 1])
                    }
                    (r, c) => {
                        return Err(bad(format!(
                        "lane {lane} component {i} holds row code {r}, column code {c}, no element"
                    )))
                    }
                });
            }
            components.push(held);
        }
        let m = TableMatrix {
            use_: self.use_,
            rows: self.rows,
            cols: self.cols,
            types: Some(vec![scalar_name(self.elem)]),
            components,
        };
        // Every element held, nothing twice in one place: what a table must be.
        Table {
            name: "probe".into(),
            lanes: self.lanes,
            matrices: vec![m.clone()],
        }
        .check()
        .map_err(bad)?;
        Ok(m)
    }
}

/// Measurements kept between runs: one JSON file, per device (its name, driver and Vulkan
/// version) the matrices measured on it by [`Probe::key`].
#[derive(Clone, Debug)]
pub struct Cache {
    pub path: std::path::PathBuf,
}

type CacheFile =
    std::collections::BTreeMap<String, std::collections::BTreeMap<String, TableMatrix>>;

impl Cache {
    /// `$LANESCOPE_CACHE_DIR`, else `$XDG_CACHE_HOME/lanescope`, else `~/.cache/lanescope`:
    /// `coopmat-layouts.json` there. None where no such directory can be named.
    pub fn user() -> Option<Self> {
        let dir = std::env::var_os("LANESCOPE_CACHE_DIR")
            .map(std::path::PathBuf::from)
            .or_else(|| {
                std::env::var_os("XDG_CACHE_HOME")
                    .map(|d| std::path::PathBuf::from(d).join("lanescope"))
            })
            .or_else(|| {
                std::env::var_os("HOME")
                    .map(|h| std::path::PathBuf::from(h).join(".cache/lanescope"))
            })?;
        Some(Self {
            path: dir.join("coopmat-layouts.json"),
        })
    }

    /// The key of a device's measurements.
    pub fn device_key(d: &DeviceInfo) -> String {
        format!("{} | {} | Vulkan {}", d.name, d.driver, d.api_version)
    }

    fn read(&self) -> CacheFile {
        std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// The measurement of `p` on `device`, if kept (and still a valid table).
    pub fn get(&self, device: &DeviceInfo, p: &Probe) -> Option<TableMatrix> {
        let m = self
            .read()
            .get(&Self::device_key(device))?
            .get(&p.key())?
            .clone();
        let valid = m.use_ == p.use_
            && (m.rows, m.cols) == (p.rows, p.cols)
            && Table {
                name: "cached".into(),
                lanes: p.lanes,
                matrices: vec![m.clone()],
            }
            .check()
            .is_ok();
        valid.then_some(m)
    }

    /// Keeps `m` as the measurement of `p` on `device` (best effort: a cache that cannot be
    /// written only costs a probe next time).
    pub fn put(&self, device: &DeviceInfo, p: &Probe, m: &TableMatrix) {
        let mut all = self.read();
        all.entry(Self::device_key(device))
            .or_default()
            .insert(p.key(), m.clone());
        if let (Some(dir), Ok(text)) = (self.path.parent(), serde_json::to_string_pretty(&all)) {
            let tmp = self.path.with_extension("json.tmp");
            let _ = std::fs::create_dir_all(dir)
                .and_then(|()| std::fs::write(&tmp, text))
                .and_then(|()| std::fs::rename(&tmp, &self.path));
        }
    }
}

/// Runs the probe of `p` on `device` and infers its layout.
pub fn measure(device: &DeviceInfo, p: &Probe) -> Result<TableMatrix, String> {
    let [rows, cols] = p.inputs()?;
    let buffer = |binding, data| GpuBuffer {
        binding,
        data,
        ..GpuBuffer::default()
    };
    let run = crate::vulkan::run(&Dispatch {
        spirv: p.module()?,
        entry: "main",
        spec: Vec::new(),
        push_constants: Vec::new(),
        buffers: vec![
            buffer(0, rows),
            buffer(1, cols),
            buffer(2, vec![0; 4 * p.output_words()]),
        ],
        workgroups: [1, 1, 1],
        subgroup_size: Some(p.lanes),
        full_subgroups: true,
        device: device.index,
        timeout: std::time::Duration::from_secs(20),
        without_maximal_reconvergence: false,
        notes: Vec::new(),
    })
    .map_err(|e| format!("the probe of {} on {}: {e}", p.describe(), device.name))?;
    if run.subgroup_size != p.lanes {
        return Err(format!(
            "the probe of {} ran with subgroups of {}, not {}",
            p.describe(),
            run.subgroup_size,
            p.lanes
        ));
    }
    p.infer(run.buffers.get(2).map_or(&[][..], Vec::as_slice))
}

/// The cooperative-matrix layout of `device` for the matrix types of `module` loaded as
/// `base` says (its entry point, specialization and subgroup size), measured (or found in
/// `cache`): `None` where the module has none or the device runs none. Fails naming the type a
/// probe could not measure.
pub fn device_layout(
    device: &DeviceInfo,
    module: &[u8],
    base: &LoadOptions,
    cache: Option<&Cache>,
) -> Result<Option<LayoutChoice>, String> {
    if !device.cooperative_matrix {
        return Ok(None);
    }
    let lanes = base.subgroup_size.unwrap_or(device.subgroup_size);
    let opts = LoadOptions {
        subgroup_size: Some(lanes),
        coopmat_layout: LayoutChoice::Portable,
        ..base.clone()
    };
    let prog = load(module, &opts).map_err(|e| e.to_string())?;
    let (probes, workgroup) = Probe::of_program(&prog, lanes);
    if let Some(w) = workgroup.first() {
        return Err(format!(
            "{w}: a probe measures one subgroup's layout, so Workgroup-scope matrices cannot be compared on the device"
        ));
    }
    if probes.is_empty() {
        return Ok(None);
    }
    let mut matrices = Vec::new();
    for p in &probes {
        let m = match cache.and_then(|c| c.get(device, p)) {
            Some(m) => m,
            None => {
                let m = measure(device, p)?;
                if let Some(c) = cache {
                    c.put(device, p, &m);
                }
                m
            }
        };
        matrices.push(m);
    }
    let table = Table {
        name: format!("measured on {}", device.name),
        lanes,
        matrices,
    };
    table.check()?;
    Ok(Some(LayoutChoice::Table(std::sync::Arc::new(table))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanescope_core::coopmat::Shape;
    use lanescope_core::{Bindings, Config};

    /// The probe run on the simulator under `layout`: its output buffer.
    fn simulate(p: &Probe, layout: &LayoutChoice) -> Vec<u8> {
        let opts = LoadOptions {
            subgroup_size: Some(p.lanes),
            coopmat_layout: layout.clone(),
            ..LoadOptions::default()
        };
        let [rows, cols] = p.inputs().expect("inputs");
        let b = Bindings {
            buffers: vec![
                (0, 0, rows),
                (0, 1, cols),
                (0, 2, vec![0; 4 * p.output_words()]),
            ],
            ..Bindings::default()
        };
        let cfg = Config {
            subgroup_size: p.lanes,
            ..Config::default()
        };
        let module = p.module().expect("assembles");
        let sim = crate::testing::simulate(&module, &opts, cfg, Some(b));
        sim.buffer(0, 2).expect("the output").to_vec()
    }

    /// For every shape each built-in layout lays out (among the common ones), the probe run
    /// under it infers it exactly: element for element, padding and replicas included.
    #[test]
    fn the_probe_infers_each_built_in_layout() {
        let types = [
            ScalarTy::Float { bits: 16 },
            ScalarTy::Float { bits: 32 },
            ScalarTy::Int {
                bits: 8,
                signed: true,
            },
            ScalarTy::Int {
                bits: 8,
                signed: false,
            },
            ScalarTy::Int {
                bits: 32,
                signed: true,
            },
        ];
        let sizes = [(16, 16), (16, 32), (32, 16), (16, 8), (8, 16), (8, 8)];
        let mut checked = Vec::new();
        for layout in LayoutChoice::builtin() {
            for use_ in [Use::A, Use::B, Use::Accumulator] {
                for elem in types {
                    for (rows, cols) in sizes {
                        let shape = Shape {
                            use_,
                            elem,
                            rows,
                            cols,
                            lanes: 32,
                            workgroup: false,
                        };
                        let Ok(frag) = layout.fragment(&shape) else {
                            continue;
                        };
                        let p = Probe {
                            use_,
                            elem,
                            rows,
                            cols,
                            lanes: 32,
                        };
                        let m = p.infer(&simulate(&p, &layout)).unwrap_or_else(|e| {
                            panic!("{} under {}: {e}", p.describe(), layout.name())
                        });
                        let map: Vec<u32> = m
                            .components
                            .iter()
                            .flatten()
                            .map(|c| {
                                c.map_or(lanescope_core::coopmat::layout::NONE, |[r, c]| {
                                    r * cols + c
                                })
                            })
                            .collect();
                        assert_eq!(map, frag.map, "{} under {}", p.describe(), layout.name());
                        checked.push(format!("{} {}", layout.name(), p.describe()));
                    }
                }
            }
        }
        // Each layout contributed, the replicated one (amd-rdna3) included.
        for name in ["nvidia", "amd-rdna3", "portable"] {
            assert!(
                checked.iter().filter(|c| c.starts_with(name)).count() >= 3,
                "{name}: {checked:?}"
            );
        }
    }

    /// A probe output that names no element, or leaves one unheld, is refused with why.
    #[test]
    fn a_nonsense_probe_output_is_refused() {
        let p = Probe {
            use_: Use::A,
            elem: ScalarTy::Float { bits: 16 },
            rows: 16,
            cols: 16,
            lanes: 32,
        };
        let mut out = simulate(&p, &LayoutChoice::Portable);
        let good = p.infer(&out).expect("infers");
        assert_eq!(good.components.len(), 32);
        // A row code past the matrix.
        out[4..8].copy_from_slice(&99u32.to_le_bytes());
        let e = p.infer(&out).unwrap_err();
        assert!(e.contains("row code 99"), "{e}");
        // Every component padding: elements unheld.
        let zeros = {
            let mut z = vec![0u8; out.len()];
            z[..4].copy_from_slice(&out[..4]);
            z
        };
        let e = p.infer(&zeros).unwrap_err();
        assert!(e.contains("MatrixA 16x16 f16"), "{e}");
        assert!(p.infer(&[]).unwrap_err().contains("no output"));
    }

    fn example(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../assets")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn device(coop: bool) -> DeviceInfo {
        DeviceInfo {
            name: "Test GPU".into(),
            driver: "1.2.3".into(),
            api_version: "1.3".into(),
            subgroup_size: 32,
            cooperative_matrix: coop,
            ..DeviceInfo::default()
        }
    }

    /// The matrix types a module declares are what gets probed: the int8 GEMM's A, B and
    /// accumulator, once each; a module without cooperative matrices, or a device without
    /// them, needs no layout.
    #[test]
    fn the_probes_are_the_modules_matrix_types() {
        let opts = LoadOptions {
            subgroup_size: Some(32),
            coopmat_layout: LayoutChoice::Portable,
            ..LoadOptions::default()
        };
        let prog = load(&example("coopmat_gemm_int8.spv"), &opts).expect("loads");
        let (probes, workgroup) = Probe::of_program(&prog, 32);
        assert!(workgroup.is_empty());
        let mut uses: Vec<Use> = probes.iter().map(|p| p.use_).collect();
        uses.sort_by_key(|u| *u as u8);
        uses.dedup();
        assert_eq!(uses, [Use::A, Use::B, Use::Accumulator], "{probes:?}");
        assert!(probes.iter().all(|p| p.lanes == 32));
        let plain = example("if_else.spv");
        let base = LoadOptions {
            subgroup_size: Some(32),
            ..LoadOptions::default()
        };
        assert_eq!(device_layout(&device(true), &plain, &base, None), Ok(None));
        let coop = example("coopmat_gemm_int8.spv");
        assert_eq!(device_layout(&device(false), &coop, &base, None), Ok(None));
    }

    /// A kept measurement comes back for its device and type only, and one that no longer
    /// makes a valid table (a hand-edited file) is not used.
    #[test]
    fn the_cache_keeps_a_measurement_per_device_and_type() {
        let dir = std::env::temp_dir().join(format!("lanescope-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache {
            path: dir.join("coopmat-layouts.json"),
        };
        let p = Probe {
            use_: Use::A,
            elem: ScalarTy::Float { bits: 16 },
            rows: 16,
            cols: 16,
            lanes: 32,
        };
        let m = p
            .infer(&simulate(&p, &LayoutChoice::Nvidia))
            .expect("infers");
        let d = device(true);
        assert_eq!(cache.get(&d, &p), None);
        cache.put(&d, &p, &m);
        assert_eq!(cache.get(&d, &p), Some(m.clone()));
        let other_device = DeviceInfo {
            driver: "1.2.4".into(),
            ..device(true)
        };
        assert_eq!(
            cache.get(&other_device, &p),
            None,
            "a new driver measures again"
        );
        let other_type = Probe { use_: Use::B, ..p };
        assert_eq!(cache.get(&d, &other_type), None);
        // A file whose entry lost an element is ignored.
        let text = std::fs::read_to_string(&cache.path).expect("written");
        let mut all: CacheFile = serde_json::from_str(&text).expect("json");
        let entry = all
            .get_mut(&Cache::device_key(&d))
            .and_then(|e| e.get_mut(&p.key()))
            .expect("kept");
        entry.components[0][0] = None;
        std::fs::write(&cache.path, serde_json::to_string(&all).expect("json")).expect("writes");
        assert_eq!(cache.get(&d, &p), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
