import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
const port = 8941;
const server = spawn("python3", ["/work/main/scripts/serve.py", String(port), "/tmp/wgpu"], { stdio: "ignore" });
await new Promise((ok) => setTimeout(ok, 800));
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--enable-unsafe-webgpu"] });
const page = await browser.newPage();
await page.goto(`http://127.0.0.1:${port}/`);
const r = await page.evaluate(async () => {
  const a = await navigator.gpu.requestAdapter();
  if (!a) return "no adapter";
  const info = a.info;
  const d = await a.requestDevice({ requiredFeatures: ["subgroups"] });
  const code = `enable subgroups;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32, @builtin(subgroup_size) s: u32, @builtin(subgroup_invocation_id) l: u32) {
  o[i] = subgroupAdd(i) * 1000u + s;
}`;
  const m = d.createShaderModule({ code });
  const ci = await m.getCompilationInfo();
  const p = d.createComputePipeline({ layout: "auto", compute: { module: m, entryPoint: "main" } });
  const b = d.createBuffer({ size: 256, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  const rb = d.createBuffer({ size: 256, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const bg = d.createBindGroup({ layout: p.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: b } }] });
  const e = d.createCommandEncoder(); const pass = e.beginComputePass(); pass.setPipeline(p); pass.setBindGroup(0, bg); pass.dispatchWorkgroups(1); pass.end();
  e.copyBufferToBuffer(b, 0, rb, 0, 256); d.queue.submit([e.finish()]);
  await rb.mapAsync(GPUMapMode.READ); const out = Array.from(new Uint32Array(rb.getMappedRange()));
  return JSON.stringify({ vendor: info.vendor, arch: info.architecture, desc: info.description, min: info.subgroupMinSize, max: info.subgroupMaxSize, features: [...a.features], msgs: ci.messages.map(x=>x.message), out: out.slice(0, 10) });
});
console.log(r);
await browser.close(); server.kill();
