//! What a comparison hands a device and gets back, whichever API runs it (Vulkan natively,
//! WebGPU in the browser): the device's description, the dispatch, its buffers and images, and
//! what the device left in them.

use lanescope_core::program::image::{Dim, ImageDesc, ImageType, SamplerDesc, TexelFormat};
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// Why a dispatch did not run on the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuError {
    /// No Vulkan loader could be opened (`libvulkan.so.1`).
    NoLoader(String),
    /// The loader found no device.
    NoDevice,
    /// `--gpu-device` named a device the machine lacks.
    NoSuchDevice { index: usize, count: usize },
    /// A Vulkan call failed: what was being done, and the result.
    Vulkan { what: &'static str, result: String },
    /// The dispatch needs something the device does not offer.
    Unsupported(String),
    /// The dispatch had not finished when the wait gave up (the device is left to it).
    Timeout(Duration),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoLoader(e) => write!(
                f,
                "no Vulkan loader on this machine ({e}); install one (Debian: libvulkan1) and a driver (mesa-vulkan-drivers gives the software device lavapipe)"
            ),
            Self::NoDevice => f.write_str(
                "the Vulkan loader found no device (Debian: mesa-vulkan-drivers gives the software device lavapipe)",
            ),
            Self::NoSuchDevice { index, count } => write!(
                f,
                "there is no Vulkan device {index}: this machine has {count} (`lanescope devices` lists them)"
            ),
            Self::Vulkan { what, result } => write!(f, "{what}: {result}"),
            Self::Unsupported(what) => f.write_str(what),
            Self::Timeout(d) => write!(
                f,
                "the dispatch had not finished on the device after {} s",
                d.as_secs()
            ),
        }
    }
}

impl std::error::Error for GpuError {}

/// What a device offers that a comparison depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// Its place in the loader's list (what `--gpu-device` takes).
    pub index: usize,
    pub name: String,
    /// `cpu`, `discrete GPU`, `integrated GPU`, `virtual GPU` or `other`.
    pub kind: &'static str,
    /// The driver's name and version text, when the driver says.
    pub driver: String,
    /// The Vulkan version the device supports.
    pub api_version: String,
    /// The subgroup size a pipeline gets by default.
    pub subgroup_size: u32,
    /// The sizes a pipeline may require (subgroup size control), when it may.
    pub subgroup_size_range: Option<[u32; 2]>,
    /// Whether a pipeline may require full subgroups.
    pub full_subgroups: bool,
    /// The subgroup operation classes compute shaders may use.
    pub subgroup_operations: Vec<&'static str>,
    /// `VK_KHR_shader_maximal_reconvergence`.
    pub maximal_reconvergence: bool,
    /// `VK_KHR_shader_subgroup_rotate`.
    pub subgroup_rotate: bool,
    /// `VK_KHR_cooperative_matrix`.
    pub cooperative_matrix: bool,
    /// Integer dot products (`VK_KHR_shader_integer_dot_product` or Vulkan 1.3).
    pub integer_dot_product: bool,
    /// 8- and 16-bit storage buffer access.
    pub storage_8bit: bool,
    pub storage_16bit: bool,
    /// Fractional bits of linear filtering's weights (`subTexelPrecisionBits`; Vulkan asks for
    /// at least 4).
    pub sub_texel_bits: u32,
}

/// One buffer of a dispatch.
#[derive(Clone, Debug, Default)]
pub struct GpuBuffer {
    pub set: u32,
    pub binding: u32,
    /// Its element of a descriptor array (0 for a single buffer).
    pub element: u32,
    /// Bound as a uniform buffer (else a storage buffer).
    pub uniform: bool,
    /// The shader cannot write it (a WebGPU layout says so: `read-only-storage`).
    pub read_only: bool,
    /// An image or texel buffer whose texels `data` holds (tightly packed), bound as one.
    pub image: Option<GpuImage>,
    /// A sampler bound here: alone (no `image`), or with `image` as a combined image sampler.
    pub sampler: Option<SamplerDesc>,
    /// Its contents before the dispatch (unused where it `shares`).
    pub data: Vec<u8>,
    /// The buffer (an index into the dispatch's, an earlier one that shares nothing) whose
    /// storage this binding binds too: what it reads back is that buffer's.
    pub shares: Option<usize>,
    /// The simulation's device address of the buffer, for a module that reaches buffers by
    /// address: the device's own is asked for, and every input word inside this range (an
    /// 8-byte-aligned 64-bit word: [`crate::address`]) is moved to it.
    pub address: Option<u64>,
    /// The module declares no binding here: the buffer is only reached by its address (no
    /// descriptor).
    pub undeclared: bool,
}

/// One compute dispatch, as `lanescope run` describes it.
#[derive(Clone, Debug)]
pub struct Dispatch<'a> {
    /// The module as the device runs it (see [`crate::module::without_maximal_reconvergence`]).
    pub spirv: Vec<u32>,
    pub entry: &'a str,
    /// Specialization constants: (SpecId, the value's bytes).
    pub spec: Vec<(u32, Vec<u8>)>,
    pub push_constants: Vec<u8>,
    pub buffers: Vec<GpuBuffer>,
    pub workgroups: [u32; 3],
    /// The subgroup size to require where the device lets a pipeline require one.
    pub subgroup_size: Option<u32>,
    /// Require full subgroups (the workgroup's x size is a multiple of the subgroup size).
    pub full_subgroups: bool,
    /// Which device ([`DeviceInfo::index`]).
    pub device: usize,
    /// How long to wait for the dispatch.
    pub timeout: Duration,
    /// The module's MaximallyReconvergesKHR was left out (the device lacks it).
    pub without_maximal_reconvergence: bool,
    /// What the comparison's reader should know from preparing it (see
    /// [`crate::compare::Comparison::notes`]); the device's run carries it on.
    pub notes: Vec<String>,
}

/// What the device left in the buffers, in the dispatch's order.
#[derive(Clone, Debug)]
pub struct GpuRun {
    pub device: DeviceInfo,
    /// The subgroup size the pipeline ran with (required, or the device's default).
    pub subgroup_size: u32,
    pub buffers: Vec<Vec<u8>>,
    /// As [`Dispatch::without_maximal_reconvergence`].
    pub without_maximal_reconvergence: bool,
    /// The device's address of each buffer that has one ([`GpuBuffer::address`]), by (set,
    /// binding, element).
    pub addresses: Vec<((u32, u32, u32), u64)>,
    /// [`Dispatch::notes`], carried on.
    pub notes: Vec<String>,
}

/// An image binding as the device makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuImage {
    pub format: TexelFormat,
    pub dim: Dim,
    pub arrayed: bool,
    /// As [`ImageDesc::extent`]: array layers (six faces a cube) along the first dimension the
    /// image does not use.
    pub extent: [u32; 3],
    /// Read through a sampled-image (or uniform texel buffer) descriptor, else a storage one.
    pub sampled: bool,
    /// Its texels are integers (a sampler's border for it is integer black).
    pub integer: bool,
    /// A storage image the shader reads (no `NonReadable`) and writes (no `NonWritable`):
    /// WebGPU's binding layout names the access.
    pub readable: bool,
    pub writable: bool,
}

impl GpuImage {
    /// The device's image for a resource of type `ty` bound as `desc`, or why there is none.
    pub fn new(name: &str, ty: &ImageType, desc: &ImageDesc) -> Result<Self, String> {
        if ty.multisampled || desc.samples > 1 {
            return Err(format!(
                "`{name}` is a multisampled image; those are not run on the device yet"
            ));
        }
        Ok(Self {
            format: desc.format,
            dim: ty.dim,
            arrayed: ty.arrayed,
            extent: desc.extent,
            sampled: ty.sampled == 1,
            integer: desc.format.is_integer(),
            readable: true,
            writable: ty.sampled != 1,
        })
    }

    pub fn texel_buffer(&self) -> bool {
        self.dim == Dim::Buffer
    }
}
