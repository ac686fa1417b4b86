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
// [x, y, z], buffers: [{ group, binding, uniform, readOnly, data: Uint8Array }] }. Returns every
// buffer's bytes after the dispatch, in order.
export async function run(request) {
  try {
    return await dispatch(request);
  } catch (e) {
    throw typeof e === "string" ? e : `WebGPU: ${(e && e.message) || e}`;
  }
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
    const made = request.buffers.map((b) => {
      const size = Math.max(4, Math.ceil(b.data.length / 4) * 4);
      const usage = (b.uniform ? GPUBufferUsage.UNIFORM : GPUBufferUsage.STORAGE) |
        GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
      const buffer = device.createBuffer({ size, usage, mappedAtCreation: true });
      new Uint8Array(buffer.getMappedRange()).set(b.data);
      buffer.unmap();
      return buffer;
    });
    const layouts = [];
    const bindGroups = [];
    for (let g = 0; g <= highest; g++) {
      const list = groups.get(g) || [];
      const layout = device.createBindGroupLayout({
        entries: list.map((b) => ({
          binding: b.binding,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: b.uniform ? "uniform" : b.readOnly ? "read-only-storage" : "storage" },
        })),
      });
      layouts.push(layout);
      bindGroups.push(device.createBindGroup({
        layout,
        entries: list.map((b) => ({
          binding: b.binding,
          resource: { buffer: made[request.buffers.indexOf(b)] },
        })),
      }));
    }
    const pipeline = await device.createComputePipelineAsync({
      layout: device.createPipelineLayout({ bindGroupLayouts: layouts }),
      compute: { module, entryPoint: request.entry, constants: request.constants || {} },
    });
    const reads = made.map((b) => device.createBuffer({
      size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    }));
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    bindGroups.forEach((bg, g) => pass.setBindGroup(g, bg));
    pass.dispatchWorkgroups(...request.workgroups);
    pass.end();
    made.forEach((b, k) => encoder.copyBufferToBuffer(b, 0, reads[k], 0, b.size));
    device.queue.submit([encoder.finish()]);
    const out = [];
    for (const [k, r] of reads.entries()) {
      await r.mapAsync(GPUMapMode.READ);
      out.push(new Uint8Array(r.getMappedRange()).slice(0, request.buffers[k].data.length));
      r.unmap();
      r.destroy();
    }
    made.forEach((b) => b.destroy());
    return out;
  });
}
