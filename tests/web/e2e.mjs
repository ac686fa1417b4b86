// End-to-end test of the browser build: serves dist/ on 127.0.0.1, drives Debian's Chromium with
// playwright-core, and fails on console errors, a blank canvas, or an app that does not respond.
// Usage: node tests/web/e2e.mjs [SHOT_DIR]      (after scripts/build-web.sh)
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { spawn } from "node:child_process";
import { deflateRawSync } from "node:zlib";
import { readFile, mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { decodePng, distinctColours, meanLuminance } from "./png.mjs";

const root = resolve(new URL("../..", import.meta.url).pathname);
const dist = join(root, "dist");
const shots = resolve(process.argv[2] ?? join(root, "target", "web-shots"));
// The page is served as the README serves it: scripts/serve.py, gzip included.
const port = await new Promise((ok) => {
  const probe = createServer();
  probe.listen(0, "127.0.0.1", () => {
    const p = probe.address().port;
    probe.close(() => ok(p));
  });
});
const server = spawn("python3", [join(root, "scripts", "serve.py"), String(port), dist], {
  stdio: ["ignore", "ignore", "inherit"],
});
const base = `http://127.0.0.1:${port}/`;
for (let i = 0; ; i++) {
  try {
    await fetch(base);
    break;
  } catch (e) {
    if (i > 100) throw new Error(`scripts/serve.py did not start: ${e}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

const chromiumArgs = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
];
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumArgs });
const errors = [];
let failed = false;
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failed = true;
}

try {
  await mkdir(shots, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  // One listener for the whole test: Playwright intercepts file choosers only while one is
  // registered, and a chooser opened in between would never answer.
  const choosers = [];
  page.on("filechooser", (fc) => choosers.push(fc));
  const nextChooser = async () => {
    for (let i = 0; i < 150 && choosers.length === 0; i++) await page.waitForTimeout(100);
    if (choosers.length === 0) throw new Error("no file chooser opened");
    return choosers.shift();
  };
  const wasmEncoding = [];
  const glslRequests = [];
  const webgpuRequests = [];
  page.on("request", (r) => {
    if (r.url().includes("/glsl/")) glslRequests.push(r.url());
    if (r.url().endsWith("/webgpu.js")) webgpuRequests.push(r.url());
  });
  page.on("response", async (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} for ${r.url()}`);
    if (r.url().endsWith(".wasm")) {
      const h = await r.allHeaders();
      wasmEncoding.push(`${h["content-type"]}, ${h["content-encoding"] ?? "uncompressed"}`);
    }
  });

  // What the first visit downloads: the bodies as sent (gzip where the server compressed them),
  // every request until the app has drawn its first screen.
  let firstVisitBytes = 0, countingFirstVisit = true;
  page.on("requestfinished", async (req) => {
    if (!countingFirstVisit) return;
    const s = await req.sizes().catch(() => null);
    if (s) firstVisitBytes += s.responseBodySize;
  });
  // Key presses, timed on every page load (1b, 7a).
  await page.addInitScript(() => {
    window.lanescopeKeys = [];
    window.addEventListener("keydown", () => window.lanescopeKeys.push(performance.now()), true);
  });
  // 1. The page loads, the app starts (it removes #loading) and draws.
  await page.goto(base);
  await page.waitForSelector("#loading", { state: "detached", timeout: 120_000 });
  await page.waitForFunction(() => document.title.includes("step 0"), null, { timeout: 30_000 });
  check(/if_else\.spv/.test(await page.title()), `starts on the built-in example: "${await page.title()}"`);
  check(
    wasmEncoding[0] === "application/wasm, gzip",
    `the module is served compressed, as wasm: ${wasmEncoding[0]}`,
  );
  // The canvas draws without multisampling, depth or alpha (app/src/web.rs): under software
  // WebGL those halved every frame's cost.
  const attributes = await page.evaluate(() =>
    document.getElementById("lanescope_canvas").getContext("webgl2")?.getContextAttributes());
  check(attributes && !attributes.antialias && !attributes.depth && !attributes.alpha,
    `the canvas's WebGL2 context has no multisampling, depth or alpha: ${JSON.stringify(attributes)}`);
  await page.waitForTimeout(500);
  countingFirstVisit = false;
  const firstVisitMiB = firstVisitBytes / 1048576;
  check(firstVisitMiB > 1 && firstVisitMiB <= 2.5,
    `the first visit downloads ${firstVisitMiB.toFixed(2)} MiB (at most 2.5; the compilers come later, on demand)`);
  const first = decodePng(await page.screenshot({ path: join(shots, "01-loaded.png") }));
  check(distinctColours(first) > 20, `the canvas is drawn (${distinctColours(first)} colours)`);
  // The sizes the UI snapshots are taken at (app/tests/snapshots), in the browser.
  for (const [w, h] of [[1280, 720], [1920, 1080]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(700);
    const shot = decodePng(await page.screenshot({ path: join(shots, `01-${w}x${h}.png`) }));
    check(distinctColours(shot) > 20, `drawn at ${w}x${h}`);
  }
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.waitForTimeout(500);

  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  // The gaps between animation frames over 2 s in page `p` (each repaint's whole cost).
  const frameGaps = (p = page, ms = 2000) => p.evaluate((ms) => new Promise((done) => {
    const times = [];
    const tick = (t) => {
      times.push(t);
      if (t - times[0] < ms) requestAnimationFrame(tick);
      else done(times.slice(1).map((x, i) => x - times[i]));
    };
    requestAnimationFrame(tick);
  }), ms);
  // 1b. Timings, on this machine with software WebGL: the app marks the end of its first frame,
  // of each frame that shows another step and of each that lays out an edit (performance.mark)
  // and counts its frames (window.lanescopeFrames). The exact figures are printed for the note;
  // the checks are loose, so as not to flake on a loaded machine.
  const timing = { firstVisitMiB: Number(firstVisitMiB.toFixed(3)) };
  // egui may lay the first frame out twice (a pass it discards once it knows the sizes): the
  // frame ends with the last pass's mark.
  timing.firstFrame = await page.evaluate(
    () => performance.getEntriesByName("lanescope-first-frame").at(-1)?.startTime ?? NaN);
  timing.wasmStart = await page.evaluate(
    () => performance.getEntriesByName("lanescope-start")[0]?.startTime ?? NaN);
  // Each press of `key`: from its keydown to the end of the app's work in the frame that shows
  // its effect (the mark), and to the next animation frame after it (the frame drawn and handed
  // to the compositor: what the person sees).
  const latencies = async (key, mark, n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const before = await page.evaluate((m) => {
        window.lanescopeRaf = [];
        window.lanescopeRafOn = true;
        const tick = (t) => {
          window.lanescopeRaf.push(t);
          if (window.lanescopeRafOn) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        return performance.getEntriesByName(m).length;
      }, mark);
      await page.keyboard.press(key);
      await page.waitForFunction(([m, b]) => performance.getEntriesByName(m).length > b, [mark, before],
        { timeout: 5000 }).catch(() => {});
      await page.waitForTimeout(300);
      out.push(await page.evaluate((m) => {
        window.lanescopeRafOn = false;
        const e = performance.getEntriesByName(m);
        const key = window.lanescopeKeys.at(-1);
        const done = e.length ? e[e.length - 1].startTime : NaN;
        const shown = window.lanescopeRaf.find((t) => t > done) ?? NaN;
        const r = window.lanescopeRaf;
        return [done - key, shown - key, r.slice(1).map((t, j) => t - r[j])];
      }, mark));
    }
    return out;
  };
  const idleFrames = async () => {
    await page.waitForTimeout(700);
    const a = await page.evaluate(() => window.lanescopeFrames);
    await page.waitForTimeout(2000);
    return (await page.evaluate(() => window.lanescopeFrames)) - a;
  };
  timing.idleFrames = await idleFrames();
  await page.mouse.click(700, 400);
  const f10 = await latencies("F10", "lanescope-step", 9);
  timing.f10 = median(f10.map((x) => x[0]));
  timing.f10Shown = median(f10.map((x) => x[1]));
  timing.f10All = f10.map((x) => x.slice(0, 2).map(Math.round).join("/"));
  // Every frame while stepping: those around each F10 press (gaps between animation frames),
  // and 2 s of animating the example (F6: a step every few frames, every frame repainted).
  // Compared with the floor (an empty frame's repaint, 7a) at the end.
  const f10Gaps = f10.flatMap((x) => x[2]);
  await page.keyboard.press("F6");
  await page.waitForTimeout(300);
  const animateGaps = await frameGaps();
  await page.keyboard.press("Escape");
  timing.animateMedian = median(animateGaps);
  check(timing.firstFrame > 0 && timing.firstFrame < 15_000, `first frame at ${timing.firstFrame.toFixed(0)} ms`);
  check(timing.idleFrames <= 2, `an idle page draws no frames (${timing.idleFrames} in 2 s)`);
  check(timing.f10Shown < 1000, `F10 to the new step: median ${timing.f10.toFixed(0)} ms to the frame's end, ` +
    `${timing.f10Shown.toFixed(0)} ms to the next frame (${timing.f10All.join(", ")})`);
  // Back to a fresh start for what follows. (The floor, a repaint's own cost under software
  // WebGL, is the frame gap while animating, measured in 5.)
  await page.reload();
  await page.waitForFunction(() => document.title.includes("step 0"), null, { timeout: 60_000 });

  // 2. Stepping: Ctrl+F10 one instruction of the selected tangle, F10 a whole source line (the
  // example carries its GLSL).
  await page.mouse.click(700, 400);
  for (let i = 0; i < 5; i++) await page.keyboard.press("Control+F10");
  await page.waitForFunction(() => document.title.endsWith("step 5"), null, { timeout: 10_000 }).catch(() => {});
  check((await page.title()).endsWith("step 5"), `Ctrl+F10 five times: "${await page.title()}"`);
  await page.keyboard.press("F10");
  await page.waitForFunction(() => !/step 5$/.test(document.title), null, { timeout: 10_000 }).catch(() => {});
  const afterLine = Number((await page.title()).match(/step (\d+)$/)?.[1] ?? 0);
  check(afterLine > 5, `F10 steps the example's next GLSL line: "${await page.title()}"`);
  await page.screenshot({ path: join(shots, "02-stepped.png") });

  // 3. Another example through the address (#example=NAME), then run it to the end with F5.
  await page.goto(`${base}#example=loop_divergent`);
  await page.reload();
  await page.waitForFunction(() => document.title.includes("loop_divergent.spv"), null, { timeout: 60_000 });
  await page.mouse.click(700, 400);
  await page.keyboard.press("F5");
  await page.waitForFunction(() => !/step 0$/.test(document.title), null, { timeout: 30_000 }).catch(() => {});
  await page.waitForTimeout(1000);
  const ran = await page.title();
  check(/loop_divergent\.spv — step [1-9]\d*/.test(ran), `F5 runs the example: "${ran}"`);
  await page.screenshot({ path: join(shots, "03-example-run.png") });

  // 4. Upload a .spv through the browser's file input (Ctrl+O opens it; the dialog's Ok
  // confirms). A dialog cancelled first must not leave Open dead.
  await page.keyboard.press("Control+O");
  await (await nextChooser()).setFiles([]); // the picker closed with no file...
  await page.getByRole("button", { name: "Cancel" }).click(); // ...and the dialog cancelled
  await page.waitForTimeout(300);
  await page.mouse.click(700, 400);
  await page.waitForTimeout(300);
  await page.keyboard.press("Control+O");
  const fc = await nextChooser();
  await fc.setFiles(join(root, "assets", "subgroup_reduce.spv"));
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForFunction(() => document.title.includes("subgroup_reduce.spv"), null, { timeout: 15_000 }).catch(() => {});
  check((await page.title()).includes("subgroup_reduce.spv — step 0"), `uploaded a .spv: "${await page.title()}"`);

  // 5. A file that is not SPIR-V: an error in the app, not a dead page.
  await page.mouse.click(700, 400);
  await page.keyboard.press("Control+O");
  const junk = join(shots, "junk.spv");
  await writeFile(junk, Buffer.from("this is not spir-v"));
  await (await nextChooser()).setFiles(junk);
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForTimeout(1500);
  check((await page.title()).includes("subgroup_reduce.spv"), "a bad file keeps the open module");
  const last = decodePng(await page.screenshot({ path: join(shots, "04-bad-upload.png") }));
  check(distinctColours(last) > 20, "the canvas is still drawn after a bad upload");

  // 5b. Hostile modules (sizes past 4 GiB, recursion, fuzzer findings): refused ones keep the
  // open module, accepted ones open; the page never dies.
  const upload = async (file) => {
    await page.mouse.click(700, 400);
    await page.keyboard.press("Control+O");
    await (await nextChooser()).setFiles(file);
    await page.getByRole("button", { name: "Ok" }).click();
    await page.waitForTimeout(800);
  };
  const data = join(root, "core", "tests", "data");
  for (const f of ["layout_stride_overflow.spv", "layout_offset_overflow.spv", "recursion.spv",
    join("hostile", "irreducible.spv"), join("hostile", "huge_local_size.spv"),
    join("fuzz", "run-function-without-body.spv")]) {
    await upload(join(data, f));
    check((await page.title()).includes("subgroup_reduce.spv"), `hostile ${f} is refused: "${await page.title()}"`);
  }
  await upload(join(data, "runtime_huge_stride.spv"));
  check((await page.title()).includes("runtime_huge_stride.spv — step 0"),
    `a 1 GiB array stride opens with its buffer sized within the limit: "${await page.title()}"`);
  // An endless loop runs (F5) in slices: frames keep coming, Escape stops it.
  await upload(join(data, "infinite_loop.spv"));
  check((await page.title()).includes("infinite_loop.spv — step 0"), `opened an endless loop: "${await page.title()}"`);
  // Frame gaps (see frameGaps) over 2 s. Under software GL a repaint alone takes about
  // 100 ms here, so the run is compared with an animation, which repaints every frame but does
  // almost no work: the difference is what the run's slices add to a frame.
  await page.mouse.click(700, 400);
  await page.keyboard.press("F6"); // Animate
  await page.waitForTimeout(300);
  const animGaps = await frameGaps();
  const animated = await page.title();
  await page.keyboard.press("Escape");
  check(!/step 0$/.test(animated), `Animate steps the endless loop: "${animated}"`);
  await page.mouse.click(700, 400);
  await page.keyboard.press("F5");
  await page.waitForTimeout(300);
  const gaps = await frameGaps();
  const worst = Math.max(...gaps);
  check(gaps.length >= 4 && worst < 1000,
    `frames keep coming while an endless loop runs (${gaps.length} frames in 2 s, worst gap ${worst.toFixed(0)} ms)`);
  const [running, animating] = [median(gaps), median(animGaps)];
  timing.floor = animating;
  check(running - animating < 50, `the run adds ${Math.round(running - animating)} ms to a frame (median gap ` +
    `${running.toFixed(0)} ms running, ${animating.toFixed(0)} ms animating; worst ${worst.toFixed(0)} vs ` +
    `${Math.max(...animGaps).toFixed(0)} ms)`);
  await page.keyboard.press("Escape");
  await page.waitForTimeout(300);
  const stoppedAt = await page.title();
  await page.waitForTimeout(500);
  check(stoppedAt === (await page.title()) && !/step 0$/.test(stoppedAt), `Escape stops the run: "${stoppedAt}"`);
  await page.screenshot({ path: join(shots, "04b-endless-loop.png") });

  // 6. Permalinks: the address opens the playground at an example (or lesson), settings, view
  // and step. The first loads the page afresh; the rest change only the fragment, as a link
  // pasted into an open tab does. Each view is screenshotted.
  const links = [
    ["05-timeline", "example=loop_divergent&sg=16&view=timeline&step=120", "loop_divergent.spv — step 120"],
    ["06-rotate", "example=rotate_clustered&view=rotate&step=5", "rotate_clustered.spv — step 5"],
    ["07-dot", "example=dot_int8_acc&view=dot&lane=0:3&step=20", "dot_int8_acc.spv — step 20"],
    ["08-matrix", "example=coopmat_tile_f16&view=matrix&layout=amd-rdna3&step=640", "coopmat_tile_f16.spv — step 640"],
    ["09-compare", "example=switch_fallthrough&view=compare", "switch_fallthrough.spv — step 0"],
    ["10-lesson", "lesson=1&step=12", "— step 12"],
  ];
  for (const [i, [name, fragment, want]] of links.entries()) {
    await page.goto(`${base}#${fragment}`);
    if (i === 0) await page.reload();
    await page.waitForFunction((w) => document.title.endsWith(w), want, { timeout: 60_000 }).catch(() => {});
    check((await page.title()).endsWith(want), `#${fragment} lands on "${want}": "${await page.title()}"`);
    await page.waitForTimeout(1200); // the rotate animation settles
    const shot = decodePng(await page.screenshot({ path: join(shots, `${name}.png`) }));
    check(distinctColours(shot) > 20, `${name}: the canvas is drawn (${distinctColours(shot)} colours)`);
  }
  // Presenter mode (F2): the code and the view, large.
  await page.mouse.click(700, 300);
  await page.keyboard.press("F2");
  await page.keyboard.press("Space");
  await page.waitForFunction(() => !/step 12$/.test(document.title), null, { timeout: 10_000 }).catch(() => {});
  const presented = Number((await page.title()).match(/step (\d+)$/)?.[1] ?? 0);
  check(presented > 12, `Space steps a source line in presenter mode: "${await page.title()}"`);
  await page.screenshot({ path: join(shots, "11-presenter.png") });
  // Export: the window as PNG and the trace as JSON arrive as downloads.
  await page.keyboard.press("F2"); // presenter mode off
  const [png] = await Promise.all([
    page.waitForEvent("download", { timeout: 15_000 }),
    page.keyboard.press("Control+Shift+S"),
  ]);
  const pngBytes = await readFile(await png.path());
  const exported = decodePng(pngBytes);
  check(png.suggestedFilename() === `if_else-step${presented}.png`, `PNG export named ${png.suggestedFilename()}`);
  check(exported.width > 1000 && distinctColours(exported) > 20,
    `the exported PNG is the window (${exported.width}x${exported.height}, ${distinctColours(exported)} colours)`);
  const [json] = await Promise.all([
    page.waitForEvent("download", { timeout: 15_000 }),
    page.keyboard.press("Control+Shift+E"),
  ]);
  const trace = JSON.parse(await readFile(await json.path(), "utf8"));
  check(trace.schema === "lanescope-trace/2" && trace.steps.length === presented && trace.summary.steps === presented
    && trace.steps.every((s) => s.file === "if_else.comp" && s.line > 0),
    `the exported trace holds the ${presented} steps, each on a line of if_else.comp (${trace.schema}, ${trace.steps?.length} steps)`);
  // 7. The playground: a WGSL source opens in the editor and runs; an edit that does not
  // compile keeps the last run (the title says it is stale); the fix runs again at the same
  // step; the link carries the edited source. The compilers (naga for WGSL, glslang for GLSL
  // and HLSL) are a module of their own that the page loads only now, at the first compile.
  check(glslRequests.length === 0, `nothing of the compiler module is downloaded before a source is compiled (${glslRequests.length} requests)`);
  await page.mouse.click(700, 400);
  await page.keyboard.press("Control+O");
  await (await nextChooser()).setFiles(join(root, "assets", "templates", "divergent_loop.wgsl"));
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForFunction(() => document.title.includes("divergent_loop.wgsl — step 0"), null, { timeout: 30_000 }).catch(() => {});
  check((await page.title()).includes("divergent_loop.wgsl — step 0"), `opened a WGSL source: "${await page.title()}"`);
  check(glslRequests.some((u) => u.endsWith("lanescope_glsl_bg.wasm")), `the compiler module was loaded on demand (${glslRequests.length} requests)`);
  await page.mouse.click(700, 400);
  // F10 steps by source line: several instructions at once; Shift+F10 undoes the line whole.
  await page.keyboard.press("F10");
  await page.waitForFunction(() => !/step 0$/.test(document.title), null, { timeout: 10_000 }).catch(() => {});
  const lineStep = Number((await page.title()).match(/step (\d+)$/)?.[1] ?? 0);
  check(lineStep > 1, `F10 steps a source line (${lineStep} instructions): "${await page.title()}"`);
  await page.screenshot({ path: join(shots, "13a-source-line.png") });
  await page.keyboard.press("Shift+F10");
  await page.waitForFunction(() => document.title.endsWith("step 0"), null, { timeout: 10_000 }).catch(() => {});
  check((await page.title()).endsWith("step 0"), `Shift+F10 undoes the line: "${await page.title()}"`);
  // Ctrl+F10: one instruction at a time (the browser keeps Alt for itself).
  for (let i = 0; i < 3; i++) await page.keyboard.press("Control+F10");
  await page.waitForFunction(() => document.title.endsWith("step 3"), null, { timeout: 10_000 }).catch(() => {});
  check((await page.title()).endsWith("divergent_loop.wgsl — step 3"), `stepped the WGSL: "${await page.title()}"`);
  await page.mouse.click(300, 280); // a line of code in the editor
  await page.keyboard.press("End");
  await page.keyboard.type(" @@");
  await page.waitForFunction(() => document.title.includes("stale"), null, { timeout: 10_000 }).catch(() => {});
  check(/step 3 \(stale/.test(await page.title()), `an edit that does not compile keeps the run, stale: "${await page.title()}"`);
  await page.screenshot({ path: join(shots, "13-editor-error.png") });
  for (let i = 0; i < 3; i++) await page.keyboard.press("Backspace");
  await page.waitForFunction(() => document.title.endsWith("divergent_loop.wgsl — step 3"), null, { timeout: 10_000 }).catch(() => {});
  check((await page.title()).endsWith("divergent_loop.wgsl — step 3"), `the fixed source runs again to step 3: "${await page.title()}"`);
  await page.screenshot({ path: join(shots, "14-editor.png") });
  await page.keyboard.press("Control+Shift+L"); // Copy link (File menu)
  await page.waitForTimeout(300);
  const edited = page.url();
  check(edited.includes("module=divergent_loop.wgsl:"), `the link carries the source: ${edited.slice(0, 120)}`);
  const other = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  other.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await other.goto(edited);
  await other.waitForFunction(() => document.title.endsWith("divergent_loop.wgsl — step 3"), null, { timeout: 30_000 }).catch(() => {});
  check((await other.title()).endsWith("divergent_loop.wgsl — step 3"), `the link opens the edited source at its step: "${await other.title()}"`);
  await other.screenshot({ path: join(shots, "15-editor-link.png") });
  await other.close();
  // 7a. A keystroke in a 100-line source, to the frame that lays it out (see 1b).
  const hundred = join(shots, "hundred_lines.wgsl");
  const template = await readFile(join(root, "assets", "templates", "divergent_loop.wgsl"), "utf8");
  const pad = 100 - template.trimEnd().split("\n").length;
  await writeFile(hundred, template.trimEnd() + "\n" +
    Array.from({ length: pad }, (_, i) => `// padding line ${i + 1}: a comment as long as a line of code`).join("\n") + "\n");
  await page.mouse.click(700, 400);
  await page.keyboard.press("Control+O");
  await (await nextChooser()).setFiles(hundred);
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForFunction(() => document.title.includes("hundred_lines.wgsl"), null, { timeout: 15_000 }).catch(() => {});
  await page.mouse.click(300, 280);
  await page.keyboard.press("End");
  const keys = await latencies("x", "lanescope-edit", 9);
  timing.key = median(keys.map((x) => x[0]));
  timing.keyShown = median(keys.map((x) => x[1]));
  timing.keyAll = keys.map((x) => x.slice(0, 2).map(Math.round).join("/"));
  check(timing.keyShown < 1000, `a keystroke in a 100-line source: median ${timing.key.toFixed(0)} ms to the frame's end, ` +
    `${timing.keyShown.toFixed(0)} ms to the next frame (${timing.keyAll.join(", ")})`);
  await page.mouse.click(700, 400);
  // The floor itself: an empty egui frame of the same size, repainted every frame (`?floor`),
  // in a page of its own. What each figure above costs beyond it is the app's part.
  const empty = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await empty.goto(`${base}?floor`);
  await empty.waitForTimeout(1500);
  // (8 s: as many frames as the stepping below gives, so the two counts over the floor plus
  // 20 ms compare: the empty page's are this machine's own)
  const emptyGaps = await frameGaps(empty, 8000);
  await empty.close();
  timing.emptyFrame = median(emptyGaps);
  timing.emptyLongest = Math.max(...emptyGaps);
  timing.emptyFrames = emptyGaps.length;
  timing.emptyOver = emptyGaps.filter((g) => g > timing.emptyFrame + 20).length;
  check(emptyGaps.length >= 4, `an empty frame repaints (${emptyGaps.length} frames in 2 s, median ` +
    `${timing.emptyFrame.toFixed(0)} ms): F10 shows ${(timing.f10Shown - timing.emptyFrame).toFixed(0)} ms past it, ` +
    `a keystroke ${(timing.keyShown - timing.emptyFrame).toFixed(0)} ms`);
  // Frames while stepping longer than the floor plus 20 ms (frames come on the display's 16.7 ms
  // beat, so a frame is 17, 33, 50 ... ms).
  const over = (gaps) => gaps.filter((g) => g > timing.emptyFrame + 20).length;
  timing.steppingFrames = f10Gaps.length + animateGaps.length;
  timing.steppingOver = over(f10Gaps) + over(animateGaps);
  timing.steppingLongest = Math.max(...f10Gaps, ...animateGaps);
  // Which frames were over, for the note: around F10 presses, and while animating.
  timing.steppingOverF10 = f10Gaps.filter((g) => g > timing.emptyFrame + 20).map(Math.round);
  timing.steppingOverAnimate = animateGaps.filter((g) => g > timing.emptyFrame + 20).map(Math.round);
  check(timing.steppingLongest < 1000, `while stepping, ${timing.steppingOver} of ${timing.steppingFrames} frames ` +
    `are longer than the floor plus 20 ms (longest ${timing.steppingLongest.toFixed(0)} ms; animating: median ` +
    `${timing.animateMedian.toFixed(0)} ms); the empty page: ${timing.emptyOver} of ${timing.emptyFrames} ` +
    `(longest ${timing.emptyLongest.toFixed(0)} ms)`);
  console.log(`timings: ${JSON.stringify(timing)}`);

  // 7b. WGSL in the form a browser requires (`enable subgroups;`, `requires`, `diagnostic(off,
  // subgroup_uniformity)` for a ballot in divergent control flow) opens and runs to the end.
  const browserForm = join(shots, "browser_form.wgsl");
  await writeFile(browserForm, [
    "enable subgroups;",
    "enable f16;",
    "requires packed_4x8_integer_dot_product;",
    "diagnostic(off, subgroup_uniformity);",
    "",
    "@group(0) @binding(0) var<storage, read_write> outp: array<u32>;",
    "",
    "@compute @workgroup_size(32)",
    "fn main(@builtin(local_invocation_index) l: u32) {",
    "    if (l % 3u == 0u) {",
    "        outp[l] = subgroupBallot(true).x;",
    "    }",
    "    outp[32u + l] = u32(f16(l) + 0.5h) + dot4U8Packed(l, 0x01010101u);",
    "}",
    "",
  ].join("\n"));
  await page.mouse.click(700, 400);
  await page.keyboard.press("Control+O");
  await (await nextChooser()).setFiles(browserForm);
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForFunction(() => document.title.includes("browser_form.wgsl — step 0"), null, { timeout: 15_000 }).catch(() => {});
  check((await page.title()).includes("browser_form.wgsl — step 0"), `opened WGSL with \`enable subgroups;\`: "${await page.title()}"`);
  await page.mouse.click(700, 400);
  await page.keyboard.press("F5");
  await page.waitForFunction(() => !/step 0$/.test(document.title), null, { timeout: 30_000 }).catch(() => {});
  await page.waitForTimeout(1000);
  const browserRan = await page.title();
  check(/browser_form\.wgsl — step [1-9]\d*/.test(browserRan), `F5 runs the browser-form WGSL: "${browserRan}"`);
  // 7c. GLSL in the browser: a source and the header it includes, picked together, compile in
  // the compiler module (glslang for wasm32).
  const reduceComp = join(shots, "reduce.comp");
  const opsHeader = join(shots, "ops.glsl");
  await writeFile(opsHeader, [
    "// A header the source includes: the reduction and the block size.",
    "#define BLOCK 32",
    "uint combine(uint a, uint b) { return a + b; }",
    "",
  ].join("\n"));
  await writeFile(reduceComp, [
    "#version 450",
    "#extension GL_KHR_shader_subgroup_arithmetic : enable",
    '#include "ops.glsl"',
    "layout(local_size_x = BLOCK) in;",
    "layout(std430, binding = 0) buffer Out { uint data[]; };",
    "void main() {",
    "    uint i = gl_LocalInvocationIndex;",
    "    uint s = subgroupAdd(combine(i, 1u));",
    "    if (i % 2u == 0u) {",
    "        data[i] = s;",
    "    }",
    "}",
    "",
  ].join("\n"));
  await page.mouse.click(700, 400);
  await page.keyboard.press("Control+O");
  await (await nextChooser()).setFiles([opsHeader, reduceComp]);
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForFunction(() => document.title.includes("reduce.comp — step 0"), null, { timeout: 60_000 }).catch(() => {});
  check((await page.title()).includes("reduce.comp — step 0"), `opened GLSL with an #include of a file picked with it: "${await page.title()}"`);
  await page.mouse.click(700, 400);
  await page.keyboard.press("F10");
  await page.waitForFunction(() => !/step 0$/.test(document.title), null, { timeout: 10_000 }).catch(() => {});
  check(/reduce\.comp — step [1-9]\d*/.test(await page.title()), `F10 steps the GLSL's source lines: "${await page.title()}"`);
  await page.screenshot({ path: join(shots, "16-glsl-include.png") });
  // A macro bomb compiles in the worker: the page keeps drawing frames, the compile is stopped
  // at the time limit (the worker ended) and the next GLSL compiles in a new one.
  const bomb = join(shots, "bomb.comp");
  const bombLines = ["#version 450", "#define A0 x"];
  for (let i = 1; i <= 40; i++) bombLines.push(`#define A${i} A${i - 1} A${i - 1}`);
  bombLines.push("layout(local_size_x = 1) in;", "void main() { int x = 0; A40; }", "");
  await writeFile(bomb, bombLines.join("\n"));
  await page.keyboard.press("Control+O");
  await (await nextChooser()).setFiles(bomb);
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForTimeout(1500);
  // Frames of the page's main thread for two seconds: the compile (10 s to its limit) runs
  // beside them, so the longest gap is an ordinary frame's (software WebGL: ~150 ms here).
  const gap = await page.evaluate(() => new Promise((ok) => {
    let worst = 0, last = performance.now();
    const t0 = last;
    const tick = (t) => {
      worst = Math.max(worst, t - last);
      last = t;
      if (t - t0 < 2000) requestAnimationFrame(tick);
      else ok(worst);
    };
    requestAnimationFrame(tick);
  }));
  check(gap < 1000, `the page keeps drawing while the bomb compiles (longest gap between frames ${gap.toFixed(0)} ms)`);
  await page.waitForTimeout(9_000);
  await page.screenshot({ path: join(shots, "17-glsl-bomb.png") });
  await page.mouse.click(700, 400);
  await page.keyboard.press("Control+O");
  await (await nextChooser()).setFiles([reduceComp, opsHeader]);
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForFunction(() => document.title.includes("reduce.comp — step 0"), null, { timeout: 60_000 }).catch(() => {});
  check((await page.title()).includes("reduce.comp — step 0"), `after the bomb's time limit GLSL compiles again: "${await page.title()}"`);

  // A hostile link is an error in the app, not a dead page.
  await page.goto(`${base}#module=x.spv:AAAA&step=5`);
  await page.waitForTimeout(1000);
  const bad = decodePng(await page.screenshot({ path: join(shots, "12-bad-link.png") }));
  check(distinctColours(bad) > 20, "the canvas is still drawn after a bad link");

  // 7. The states the UI's image snapshots hold (app/tests/snapshots), in Chromium: if_else at
  // its split (step 32) in both themes at 1280x720 and 1920x1080, the timeline, presenter mode,
  // the code and graph folded (Ctrl+B, Ctrl+J), and an AmberScript's failed EXPECTs.
  const snap = async (name, fragment, want, w, h, theme, keys = []) => {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize({ width: w, height: h });
    await page.goto(`${base}#${fragment}`);
    await page.reload();
    await page.waitForFunction((x) => document.title.endsWith(x), want, { timeout: 60_000 }).catch(() => {});
    await page.waitForTimeout(800);
    for (const k of keys) {
      await page.mouse.click(w / 2, h - 60);
      await page.keyboard.press(k);
      await page.waitForTimeout(400);
    }
    const shot = decodePng(await page.screenshot({ path: join(shots, `snap-${name}.png`) }));
    const lum = meanLuminance(shot);
    check(
      (await page.title()).endsWith(want) && distinctColours(shot) > 20,
      `snapshot state ${name}: "${await page.title()}", ${distinctColours(shot)} colours`,
    );
    check(theme === "dark" ? lum < 100 : lum > 150, `${name} is drawn in the ${theme} theme (mean luminance ${lum.toFixed(0)})`);
    return shot;
  };
  const split = "example=if_else&step=32";
  for (const [w, h] of [[1280, 720], [1920, 1080]]) {
    for (const theme of ["dark", "light"]) {
      await snap(`main_${w}x${h}_${theme}`, split, "if_else.spv — step 32", w, h, theme);
    }
  }
  await snap("timeline_1280x720_dark", `${split}&view=timeline`, "if_else.spv — step 32", 1280, 720, "dark");
  await snap("presenter_1280x720_dark", split, "if_else.spv — step 32", 1280, 720, "dark", ["F2"]);
  const wide = await snap("main_1280x720_light", split, "if_else.spv — step 32", 1280, 720, "light");
  const folded = await snap("folded_code_and_graph_1280x720_light", split, "if_else.spv — step 32", 1280, 720, "light", [
    "Control+B",
    "Control+J",
  ]);
  // Folded, the code's columns at the left edge show the page's plain panel colour instead of
  // source text: the picture changed where the code was.
  let changed = 0;
  for (let i = 0; i < wide.pixels.length; i += wide.channels) {
    const x = (i / wide.channels) % wide.width;
    if (x > 60 && x < 400 && wide.pixels[i] !== folded.pixels[i]) changed++;
  }
  check(changed > 20_000, `Ctrl+B and Ctrl+J fold the code and the graph (${changed} pixels changed)`);
  // The folded panes are kept (a reload keeps them); the same keys unfold them.
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.mouse.click(640, 660);
  await page.keyboard.press("Control+B");
  await page.keyboard.press("Control+J");
  await page.waitForTimeout(400);
  const unfolded = decodePng(await page.screenshot());
  let same = 0;
  for (let i = 0; i < wide.pixels.length; i += wide.channels) {
    if (wide.pixels[i] === unfolded.pixels[i]) same++;
  }
  check(same / (wide.pixels.length / wide.channels) > 0.97, `unfolded again, the window is as before (${same} pixels alike)`);
  await page.keyboard.press("Control+O");
  await (await nextChooser()).setFiles(join(root, "front", "tests", "amber", "fail_hex.amber"));
  await page.getByRole("button", { name: "Ok" }).click();
  await page.waitForFunction(() => document.title.includes("fail_hex"), null, { timeout: 15_000 }).catch(() => {});
  await page.mouse.click(640, 660);
  await page.keyboard.press("F5");
  await page.waitForTimeout(1500);
  const amber = decodePng(await page.screenshot({ path: join(shots, "snap-amber_failures_1280x720_light.png") }));
  check(
    (await page.title()).includes("fail_hex") && distinctColours(amber) > 20,
    `an AmberScript with failing EXPECTs opens: "${await page.title()}"`,
  );
  check(webgpuRequests.length === 0, `the WebGPU module is not downloaded unless Run on GPU is asked for (${webgpuRequests.length} requests)`);
  await runOnWebGpu();
} catch (e) {
  check(false, `browser test crashed: ${e.stack ?? e}`);
} finally {
  await browser.close();
  server.kill();
}

// 8. Run on GPU in the browser: a WGSL source dispatched on the page's WebGPU adapter and
// compared with the simulation, word by word. Chromium's own WebGPU adapter (SwiftShader, with
// subgroups) is there behind --enable-unsafe-webgpu, in a browser of its own so the frame
// figures above are not measured beside it.
async function runOnWebGpu() {
  const gpuBrowser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [...chromiumArgs, "--enable-unsafe-webgpu"],
  });
  try {
    const gp = await gpuBrowser.newPage({ viewport: { width: 1400, height: 860 } });
    const said = [];
    gp.on("console", (m) => {
      if (m.text().startsWith("Run on GPU:")) said.push(m.text());
      else if (m.type() === "error") errors.push(m.text());
    });
    gp.on("pageerror", (e) => errors.push(String(e)));
    const chooser = [];
    gp.on("filechooser", (fc) => chooser.push(fc));
    const answer = async (n, ms) => {
      for (let i = 0; i < ms / 100 && said.length < n; i++) await gp.waitForTimeout(100);
      return said[n - 1] ?? "(no answer)";
    };
    await gp.goto(base);
    await gp.waitForSelector("#loading", { state: "detached", timeout: 120_000 });
    await gp.waitForFunction(() => document.title.includes("step 0"), null, { timeout: 60_000 });
    // The built-in example is SPIR-V: the browser says what it runs instead.
    await gp.mouse.click(700, 400);
    await gp.keyboard.press("Control+Shift+G");
    const refused = await answer(1, 10_000);
    check(refused.includes("runs a WGSL source"), `Run on GPU on a SPIR-V module says what the browser runs: "${refused}"`);
    // A WGSL source with subgroup operations, written as the simulator's compiler takes it
    // (no enable directive: the page adds the one the browser's WebGPU asks for).
    const wgsl = join(shots, "subgroup_mix.wgsl");
    await writeFile(wgsl, [
      "@group(0) @binding(0) var<storage, read> inp: array<u32, 128>;",
      "@group(0) @binding(1) var<storage, read_write> outp: array<u32, 128>;",
      "@compute @workgroup_size(64)",
      "fn main(@builtin(global_invocation_id) gid: vec3<u32>,",
      "        @builtin(subgroup_invocation_id) lane: u32,",
      "        @builtin(subgroup_size) size: u32) {",
      "    let i = gid.x;",
      "    let v = inp[i] & 0xffffu;",
      "    let mixed = subgroupAdd(v) ^ (subgroupShuffleXor(v, 1u) << 16u) ^ subgroupMax(v * 3u);",
      "    outp[i] = mixed ^ (lane << 24u) ^ (size << 28u) ^ dot4U8Packed(v, inp[i + 64u]);",
      "}",
      "",
    ].join("\n"));
    await gp.keyboard.press("Control+O");
    for (let i = 0; i < 150 && chooser.length === 0; i++) await gp.waitForTimeout(100);
    await chooser.shift().setFiles(wgsl);
    await gp.getByRole("button", { name: "Ok" }).click();
    await gp.waitForFunction(() => document.title.includes("subgroup_mix.wgsl — step 0"), null, { timeout: 60_000 }).catch(() => {});
    check((await gp.title()).includes("subgroup_mix.wgsl — step 0"), `opened the WGSL to run on WebGPU: "${await gp.title()}"`);
    await gp.mouse.click(700, 400);
    const started = Date.now();
    await gp.keyboard.press("Control+Shift+G");
    const ran = await answer(2, 60_000);
    const m = /subgroups of (\d+): (\d+) words compared, (\d+) identical/.exec(ran);
    check(
      m !== null && Number(m[2]) >= 256 && m[2] === m[3],
      `Run on GPU ran the WGSL on the page's WebGPU, every word as simulated, in ${Date.now() - started} ms: "${ran}"`,
    );
    // An adapter that names a range of subgroup sizes (as most GPUs' do: WebGPU cannot fix one
    // per pipeline): the page's adapter is made to say 4 to 16 while SwiftShader runs 4. The
    // simulation runs at 4, 8 and 16 and the device's words are set beside the one they agree
    // with, the note naming the sizes tried.
    await gp.evaluate(() => {
      const real = window.lanescopeWebGpu;
      window.lanescopeRealWebGpu = real;
      window.lanescopeWebGpu = (what, request) => what === "adapter"
        ? real(what).then((a) => ({ ...a, subgroupMinSize: 4, subgroupMaxSize: 16 }))
        : real(what, request);
    });
    await gp.mouse.click(700, 400);
    await gp.keyboard.press("Control+Shift+G");
    const ranged = await answer(3, 60_000);
    const rg = /subgroups of (\d+): (\d+) words compared, (\d+) identical/.exec(ranged);
    check(
      rg !== null && rg[1] === "4" && Number(rg[2]) >= 256 && rg[2] === rg[3]
        && ranged.includes("simulated at 4, 8 and 16") && ranged.includes("agree best with the simulation at 4,"),
      `Run on GPU on an adapter with a range of subgroup sizes set the device beside the simulation it agrees with: "${ranged}"`,
    );
    await gp.evaluate(() => { window.lanescopeWebGpu = window.lanescopeRealWebGpu; });
    // Overrides given values (a link carries a WGSL source and them, as the Build section's
    // Overrides sets them): the simulation's module and WebGPU's pipeline get the same. Neither
    // has an initializer, so a side without the values fails instead of agreeing on defaults.
    const scaled = [
      "override MUL: u32;",
      "@id(7) override OFFSET: u32;",
      "@group(0) @binding(0) var<storage, read_write> outp: array<u32, 64>;",
      "@compute @workgroup_size(64)",
      "fn main(@builtin(local_invocation_index) i: u32) { outp[i] = i * MUL + OFFSET; }",
      "",
    ].join("\n");
    const packed = deflateRawSync(Buffer.from(scaled)).toString("base64url");
    await gp.evaluate((f) => { location.hash = f; },
      `module=scaled.wgsl:${packed}&ovr=${encodeURIComponent("MUL=3 7=11")}`);
    await gp.waitForFunction(() => document.title.includes("scaled.wgsl — step 0"), null, { timeout: 60_000 }).catch(() => {});
    check((await gp.title()).includes("scaled.wgsl — step 0"), `a link opened a WGSL source with override values: "${await gp.title()}"`);
    await gp.mouse.click(700, 400);
    await gp.keyboard.press("Control+Shift+G");
    const overridden = await answer(4, 60_000);
    const o = /(\d+) words compared, (\d+) identical/.exec(overridden);
    check(o !== null && Number(o[1]) === 64 && o[1] === o[2],
      `Run on GPU gave WebGPU the override values the simulation ran with: "${overridden}"`);
    // Textures and a sampler: a storage texture read and written (r32uint), one only written
    // (rgba8unorm), a sampled one read by textureLoad and through a nearest sampler at texel
    // centres; each made from the simulation's texels and read back texel for texel.
    const textured = [
      "@group(0) @binding(0) var counts: texture_storage_2d<r32uint, read_write>;",
      "@group(0) @binding(1) var colours: texture_storage_2d<rgba8unorm, write>;",
      "@group(0) @binding(2) var source: texture_2d<f32>;",
      "@group(0) @binding(3) var pick: sampler;",
      "@group(0) @binding(4) var<storage, read_write> seen: array<vec4<f32>, 256>;",
      "@compute @workgroup_size(16, 16)",
      "fn main(@builtin(local_invocation_id) p: vec3<u32>) {",
      "    let xy = vec2<i32>(p.xy);",
      "    let c = textureLoad(counts, xy).x;",
      "    textureStore(counts, xy, vec4<u32>(c + p.x * p.y + 1u));",
      "    textureStore(colours, xy, vec4<f32>(f32(p.x) / 255.0, f32(p.y) / 255.0, 0.5, 1.0));",
      "    let uv = (vec2<f32>(p.xy) + 0.5) / 16.0;",
      "    seen[p.y * 16u + p.x] = textureLoad(source, xy, 0) + textureSampleLevel(source, pick, uv, 0.0);",
      "}",
      "",
    ].join("\n");
    const texturesPacked = deflateRawSync(Buffer.from(textured)).toString("base64url");
    // Texels other than zero, carried by the link as inputs: counts 7k + 3, source quarters.
    const counts = Buffer.alloc(16 * 16 * 4);
    for (let k = 0; k < 256; k++) counts.writeUInt32LE(7 * k + 3, 4 * k);
    const source = Buffer.alloc(16 * 16 * 16);
    for (let k = 0; k < 256 * 4; k++) source.writeFloatLE(((k * 5) % 23) * 0.25, 4 * k);
    const input = (slot, b) => `in=${slot}:${deflateRawSync(b).toString("base64url")}`;
    // What the page hands WebGPU is kept: the textures must go up with those texels.
    await gp.evaluate(() => {
      const real = window.lanescopeWebGpu;
      window.lanescopeWebGpu = (what, request) => {
        if (what === "run") {
          window.lanescopeUploaded = request.buffers
            .filter((b) => b.kind.endsWith("texture"))
            .map((b) => b.data.reduce((n, x) => n + (x !== 0 ? 1 : 0), 0));
        }
        return real(what, request);
      };
    });
    await gp.evaluate((f) => { location.hash = f; },
      `module=textured.wgsl:${texturesPacked}&${input("0.0.0", counts)}&${input("0.2.0", source)}`);
    await gp.waitForFunction(() => document.title.includes("textured.wgsl — step 0"), null, { timeout: 60_000 }).catch(() => {});
    check((await gp.title()).includes("textured.wgsl — step 0"), `a link opened a WGSL source with textures: "${await gp.title()}"`);
    await gp.mouse.click(700, 400);
    await gp.keyboard.press("Control+Shift+G");
    const texturedRun = await answer(5, 60_000);
    const tr = /(\d+) words compared, (\d+) identical/.exec(texturedRun);
    check(tr !== null && Number(tr[1]) >= 3 * 256 && tr[1] === tr[2],
      `Run on GPU made the textures and sampler on WebGPU, every texel word as simulated: "${texturedRun}"`);
    const uploaded = await gp.evaluate(() => window.lanescopeUploaded);
    check(Array.isArray(uploaded) && JSON.stringify(uploaded) === "[474,0,1869]",
      `the link's texels went up to WebGPU (non-zero bytes per texture: ${JSON.stringify(uploaded)})`);
    await gp.waitForTimeout(500);
    await gp.screenshot({ path: join(shots, "webgpu-compare.png") });
  } finally {
    await gpuBrowser.close();
  }
}

check(errors.length === 0, `no console errors${errors.length ? ":\n  " + errors.join("\n  ") : ""}`);
console.log(`screenshots in ${shots}`);
process.exit(failed ? 1 : 0);
