// Run on GPU in the browser: a WGSL dispatch on the page's WebGPU adapter, for the app's
// comparison with the simulation (app/src/web_gpu.rs). Loaded by index.html on first use only.
// Every failure is thrown as a sentence saying what failed.

let devicePromise = null;

async function adapterAndDevice() {
  if (!navigator.gpu) {
    throw "this browser offers no WebGPU (navigator.gpu is missing; Chromium needs a secure page and, headless, --enable-unsafe-webgpu)";
  }
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw "this browser has WebGPU but no adapter (no GPU it may use)";
  const wanted = ["subgroups", "shader-f16"].filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({ requiredFeatures: wanted });
  device.lost.then(() => { devicePromise = null; });
  return { adapter, device };
}

function ready() {
  if (!devicePromise) {
    devicePromise = adapterAndDevice();
    devicePromise.catch(() => { devicePromise = null; });
  }
  return devicePromise;
}

// What the adapter is and offers: { vendor, architecture, description, subgroupMinSize,
// subgroupMaxSize, features: [...] }.
export async function adapter() {
  const { adapter, device } = await ready();
  const info = adapter.info || {};
  return {
    vendor: info.vendor || "",
    architecture: info.architecture || "",
    description: info.description || "",
    subgroupMinSize: info.subgroupMinSize || 0,
    subgroupMaxSize: info.subgroupMaxSize || 0,
    features: [...device.features],
  };
}

async function scoped(device, what, f) {
  device.pushErrorScope("validation");
  device.pushErrorScope("out-of-memory");
  let value;
  try {
    value = await f();
  } finally {
    const oom = await device.popErrorScope();
    const invalid = await device.popErrorScope();
    const e = invalid || oom;
    if (e) throw `${what}: ${e.message}`;
  }
  return value;
}

// request: { wgsl, entry, constants: { KEY: number } (the overrides' values), workgroups:
// [x, y, z], buffers: [binding] }, each binding { group, binding, data: Uint8Array, kind } and
// by kind: "buffer" { type: "uniform" | "read-only-storage" | "storage" }; "storage-texture" and
// "texture" { format, view, dimension, size: [w, h, layers], texelBytes, mode (the storage
// access or the sample type) }, data its texels tightly packed; "sampler" { filter, address,
// type }. Returns every binding's bytes after the dispatch, in order (a texture's texels packed
// as they came; a sampler's none).
export async function run(request) {
  try {
    return await dispatch(request);
  } catch (e) {
    throw typeof e === "string" ? e : `WebGPU: ${(e && e.message) || e}`;
  }
}

// Bytes per row of a texture copy into a buffer: a multiple of 256.
const copyRow = (b) => Math.ceil(b.size[0] * b.texelBytes / 256) * 256;

function make(device, b) {
  if (b.kind === "sampler") {
    return {
      layout: { sampler: { type: b.type } },
      object: device.createSampler({
        magFilter: b.filter, minFilter: b.filter, mipmapFilter: b.filter,
        addressModeU: b.address, addressModeV: b.address, addressModeW: b.address,
      }),
    };
  }
  if (b.kind === "buffer") {
    const size = Math.max(4, Math.ceil(b.data.length / 4) * 4);
    const usage = (b.type === "uniform" ? GPUBufferUsage.UNIFORM : GPUBufferUsage.STORAGE) |
      GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const buffer = device.createBuffer({ size, usage, mappedAtCreation: true });
    new Uint8Array(buffer.getMappedRange()).set(b.data);
    buffer.unmap();
    return { layout: { buffer: { type: b.type } }, object: buffer, buffer };
  }
  const storage = b.kind === "storage-texture";
  const [w, h, layers] = b.size;
  const texture = device.createTexture({
    format: b.format,
    dimension: b.dimension,
    size: [w, h, layers],
    usage: GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC |
      (storage ? GPUTextureUsage.STORAGE_BINDING : GPUTextureUsage.TEXTURE_BINDING),
  });
  device.queue.writeTexture({ texture }, b.data,
    { bytesPerRow: w * b.texelBytes, rowsPerImage: h }, [w, h, layers]);
  const layout = storage
    ? { storageTexture: { access: b.mode, format: b.format, viewDimension: b.view } }
    : { texture: { sampleType: b.mode, viewDimension: b.view } };
  return { layout, object: texture.createView({ dimension: b.view }), texture };
}

async function dispatch(request) {
  const { device } = await ready();
  const module = device.createShaderModule({ code: request.wgsl });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === "error");
  if (errors.length) {
    throw "the browser's WebGPU refused the WGSL: " +
      errors.map((m) => `line ${m.lineNum}: ${m.message}`).join("; ");
  }
  const groups = new Map();
  for (const b of request.buffers) {
    if (!groups.has(b.group)) groups.set(b.group, []);
    groups.get(b.group).push(b);
  }
  const highest = Math.max(-1, ...groups.keys());
  return await scoped(device, "the dispatch could not be set up", async () => {
    const made = request.buffers.map((b) => make(device, b));
    const layouts = [];
    const bindGroups = [];
    for (let g = 0; g <= highest; g++) {
      const list = groups.get(g) || [];
      const layout = device.createBindGroupLayout({
        entries: list.map((b) => ({
          binding: b.binding,
          visibility: GPUShaderStage.COMPUTE,
          ...made[request.buffers.indexOf(b)].layout,
        })),
      });
      layouts.push(layout);
      bindGroups.push(device.createBindGroup({
        layout,
        entries: list.map((b) => {
          const m = made[request.buffers.indexOf(b)];
          return { binding: b.binding, resource: m.buffer ? { buffer: m.buffer } : m.object };
        }),
      }));
    }
    const pipeline = await device.createComputePipelineAsync({
      layout: device.createPipelineLayout({ bindGroupLayouts: layouts }),
      compute: { module, entryPoint: request.entry, constants: request.constants || {} },
    });
    // Where each binding is read back: buffers as they are, textures row by row.
    const reads = made.map((m, k) => {
      const b = request.buffers[k];
      const size = m.buffer ? m.buffer.size
        : m.texture ? copyRow(b) * b.size[1] * b.size[2] : 0;
      return size && device.createBuffer({
        size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
    });
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    bindGroups.forEach((bg, g) => pass.setBindGroup(g, bg));
    pass.dispatchWorkgroups(...request.workgroups);
    pass.end();
    made.forEach((m, k) => {
      const b = request.buffers[k];
      if (m.buffer) encoder.copyBufferToBuffer(m.buffer, 0, reads[k], 0, m.buffer.size);
      if (m.texture) {
        encoder.copyTextureToBuffer({ texture: m.texture },
          { buffer: reads[k], bytesPerRow: copyRow(b), rowsPerImage: b.size[1] }, b.size);
      }
    });
    device.queue.submit([encoder.finish()]);
    const out = [];
    for (const [k, r] of reads.entries()) {
      const b = request.buffers[k];
      if (!r) {
        out.push(new Uint8Array(0));
        continue;
      }
      await r.mapAsync(GPUMapMode.READ);
      const bytes = new Uint8Array(r.getMappedRange());
      if (made[k].buffer) {
        out.push(bytes.slice(0, b.data.length));
      } else {
        // Rows padded to 256 bytes, packed again as the simulation lays the texels out.
        const row = b.size[0] * b.texelBytes;
        const packed = new Uint8Array(row * b.size[1] * b.size[2]);
        for (let y = 0; y < b.size[1] * b.size[2]; y++) {
          packed.set(bytes.subarray(y * copyRow(b), y * copyRow(b) + row), y * row);
        }
        out.push(packed.slice(0, b.data.length));
      }
      r.unmap();
      r.destroy();
    }
    made.forEach((m) => (m.buffer || m.texture)?.destroy());
    return out;
  });
}
