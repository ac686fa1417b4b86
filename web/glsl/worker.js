// The page's shader compilers: glslang built for wasm32 and naga (web/glsl), run in a Web Worker
// so a compile never blocks the page and one past its time limit is stopped by ending the
// worker. index.html starts it at the first WGSL, GLSL or HLSL compile; it says when it is ready, then answers
// each request (the compile worker's JSON protocol) with the reply.
import init, { compile } from "./lanescope_glsl.js";

const ready = init({ module_or_path: new URL("./lanescope_glsl_bg.wasm", import.meta.url) });
ready.then(
  () => postMessage({ ready: true }),
  (e) => postMessage({ failed: String(e) }),
);
onmessage = async (e) => {
  await ready;
  postMessage({ reply: compile(e.data) });
};
