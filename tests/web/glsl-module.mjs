// The browser's compiler module (dist/glsl: glslang for wasm32, and naga) against the native
// compilers: every GLSL, HLSL and WGSL source in the repository goes to both as the same request
// (the native app's hidden `compile-worker` subcommand speaks the same protocol), and the
// replies must be the same: the same SPIR-V words, or the same diagnostics.
// Usage: node tests/web/glsl-module.mjs     (after scripts/build-web.sh and a native release build)
import { initSync, compile } from "../../dist/glsl/lanescope_glsl.js";
import { readFileSync } from "node:fs";
import { execFileSync, spawnSync } from "node:child_process";
import { join, resolve, basename } from "node:path";

const root = resolve(new URL("../..", import.meta.url).pathname);
const native = join(root, "target", "release", "lanescope");
initSync({ module: readFileSync(join(root, "dist", "glsl", "lanescope_glsl_bg.wasm")) });

const files = execFileSync("git", ["ls-files", "*.comp", "*.glsl", "*.hlsl", "*.wgsl"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && !f.startsWith("web/"));
const requests = files.map((f) => ({
  language: f.endsWith(".hlsl") ? "hlsl" : f.endsWith(".wgsl") ? "wgsl" : "glsl",
  file_name: basename(f),
  memory: 0,
  source: readFileSync(join(root, f), "utf8"),
}));
// Includes given as text, macros and an error, as the app sends them.
requests.push({
  language: "glsl",
  file_name: "main.comp",
  memory: 0,
  source: '#version 450\n#include "lib/a.glsl"\nlayout(local_size_x = N) in;\nlayout(binding = 0) buffer B { uint o[]; };\nvoid main() { o[gl_LocalInvocationIndex] = f(gl_LocalInvocationIndex); }\n',
  defines: [["N", "8"]],
  include_files: [["lib/a.glsl", '#include "b.glsl"\nuint f(uint x) { return g(x) + 1u; }\n'], ["lib/b.glsl", "uint g(uint x) { return x * 3u; }\n"]],
});
requests.push({ language: "glsl", file_name: "bad.comp", memory: 0, source: "#version 450\nvoid main() { undeclared = 1; }\n" });
requests.push({ language: "wgsl", file_name: "bad.wgsl", memory: 0, source: "@compute @workgroup_size(1) fn main() { let x = undeclared; }\n" });

let failed = 0, compiled = 0;
for (const r of requests) {
  const text = JSON.stringify(r);
  const web = compile(text);
  const out = spawnSync(native, ["compile-worker"], { input: text, encoding: "utf8", maxBuffer: 1 << 28 });
  const same = out.status === 0 && out.stdout === web;
  if (web.startsWith('{"compiled"')) compiled++;
  if (!same) {
    failed++;
    console.log(`FAIL ${r.file_name}: the browser's module and the native compiler differ\n  web:    ${web.slice(0, 200)}\n  native: ${out.stdout.slice(0, 200)} ${out.stderr.slice(0, 200)}`);
  }
}
console.log(`${failed ? "FAIL" : "ok  "} ${requests.length - failed} of ${requests.length} compiles alike in the browser's module and natively (${compiled} compiled, the rest errors)`);
process.exit(failed ? 1 : 0);
