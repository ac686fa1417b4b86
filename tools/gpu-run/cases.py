#!/usr/bin/env python3
"""Compare Lanescope with a real GPU on fresh inputs.

  cases.py make DIR        write the cases (shader + input buffers + how to run) under DIR
  cases.py device DIR OUT  (on the GPU machine) run every case with gpu-run, outputs into OUT
  cases.py compare DIR GPU_OUT   run every case with lanescope and compare with the GPU words

Cases: every example in assets/ (binding 0 filled with word indices, the rest zero), and the
reconvergence, rotate and dot reference shaders on new random inputs. Words the specs leave
undefined (Lanescope's poison) are reported apart from real mismatches.
"""
import json, os, random, struct, subprocess, sys, glob

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def words_bytes(w):
    return struct.pack("<%dI" % len(w), *w)


def make(d):
    os.makedirs(d, exist_ok=True)
    cases = []
    rnd = random.Random(20261122)

    def add(name, shader, workgroups, buffers, outs):
        cd = os.path.join(d, name)
        os.makedirs(cd, exist_ok=True)
        with open(os.path.join(cd, "shader.spv"), "wb") as f:
            f.write(open(shader, "rb").read())
        for b, w in buffers.items():
            with open(os.path.join(cd, "in%d.bin" % b), "wb") as f:
                f.write(words_bytes(w))
        cases.append({"name": name, "workgroups": workgroups, "buffers": sorted(buffers), "outs": outs})

    # Examples: sizes as the app binds them (64 words per invocation past the fixed part).
    for spv in sorted(glob.glob(os.path.join(ROOT, "assets", "*.spv"))):
        name = os.path.basename(spv)[:-4]
        inv = 128 if name == "workgroup_reduce" else 64
        bufs = {0: list(range(inv * 64)), 1: [0] * (inv * 64)}
        add("asset_" + name, spv, [1, 1, 1], bufs, [0, 1])
    # Reconvergence shaders on fresh random inputs.
    for spv in sorted(glob.glob(os.path.join(ROOT, "core/tests/reference/reconv/*.spv"))):
        name = os.path.basename(spv)[:-4]
        inv = 48 if "ls48" in name else 64
        for k in range(3):
            inp = [rnd.getrandbits(32) for _ in range(inv)]
            if k == 2:
                inp = [rnd.randrange(16) for _ in range(inv)]
            add("reconv_%s_%d" % (name, k), spv, [1, 1, 1], {0: inp, 1: [0] * (inv * 516)}, [1])
    # Rotate and dot reference shaders: their own buffers, new random data in binding 0.
    for group in ("rotate", "dot"):
        for jf in sorted(glob.glob(os.path.join(ROOT, "core/tests/reference", group, "*.json"))):
            doc = json.load(open(jf))
            bufs = {}
            for b in doc["buffers"]:
                ini = b["initial"]
                w = ini if isinstance(ini, list) else [ini.get("fill", 0)] * ini["words"]
                bufs[b["binding"]] = list(w)
            if group == "dot":
                bufs[0] = [rnd.getrandbits(32) if rnd.random() < 0.5 else rnd.choice([0, 0x80808080, 0x7f7f7f7f, 0xffffffff, 1]) for _ in bufs[0]]
            name = "%s_%s" % (group, os.path.basename(jf)[:-5])
            add(name, os.path.join(os.path.dirname(jf), doc["shader"]), doc["workgroups"], bufs, [b["binding"] for b in doc["buffers"]])
    json.dump(cases, open(os.path.join(d, "cases.json"), "w"), indent=1)
    print("%d cases" % len(cases))


def device(d, out):
    cases = json.load(open(os.path.join(d, "cases.json")))
    exe = os.path.join(ROOT, "tools/gpu-run/target/release/gpu-run")
    os.makedirs(out, exist_ok=True)
    bad = 0
    for c in cases:
        cd = os.path.join(d, c["name"])
        od = os.path.join(out, c["name"])
        os.makedirs(od, exist_ok=True)
        args = [exe, os.path.join(cd, "shader.spv"), "--workgroups", ",".join(map(str, c["workgroups"]))]
        for b in c["buffers"]:
            args += ["--buffer", "%d=%s" % (b, os.path.join(cd, "in%d.bin" % b))]
        for b in c["outs"]:
            args += ["--out", "%d=%s" % (b, os.path.join(od, "out%d.bin" % b))]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            bad += 1
            print("FAILED", c["name"], r.stderr.strip()[-300:])
    print("ran %d cases, %d failed" % (len(cases), bad))


def compare(d, gpu):
    cases = json.load(open(os.path.join(d, "cases.json")))
    exe = os.path.join(ROOT, "target/release/lanescope")
    total = mism = undefined_only = 0
    for c in cases:
        cd = os.path.join(d, c["name"])
        args = [exe, "run", os.path.join(cd, "shader.spv"), "--workgroups", ",".join(map(str, c["workgroups"])), "--json"]
        for b in c["buffers"]:
            args += ["--buffer", "0:%d=%s" % (b, os.path.join(cd, "in%d.bin" % b))]
        for b in c["outs"]:
            args += ["--out", "0:%d=%s" % (b, os.path.join(cd, "sim%d.bin" % b))]
        r = subprocess.run(args, capture_output=True, text=True)
        total += 1
        if r.returncode != 0:
            print("SIM FAILED", c["name"], r.stderr.strip()[:300])
            mism += 1
            continue
        summary = json.loads(r.stdout)
        undefined = [x["code"] for x in summary["diagnostics"]]
        for b in c["outs"]:
            gp = os.path.join(gpu, c["name"], "out%d.bin" % b)
            if not os.path.exists(gp):
                print("NO GPU OUTPUT", c["name"])
                continue
            g = open(gp, "rb").read()
            s = open(os.path.join(cd, "sim%d.bin" % b), "rb").read()
            n = len(g) // 4
            gw = struct.unpack("<%dI" % n, g)
            sw = struct.unpack("<%dI" % n, s[: n * 4])
            diff = [i for i in range(n) if gw[i] != sw[i]]
            if diff:
                tag = "DIFF(undefined: %s)" % ",".join(sorted(set(undefined))) if undefined else "MISMATCH"
                if undefined:
                    undefined_only += 1
                else:
                    mism += 1
                print(tag, c["name"], "binding", b, "%d words differ" % len(diff), "first", [(i, hex(sw[i]), hex(gw[i])) for i in diff[:4]])
    print("%d cases, %d mismatches, %d differ only where Lanescope reported undefined behaviour" % (total, mism, undefined_only))


if __name__ == "__main__":
    {"make": lambda: make(sys.argv[2]), "device": lambda: device(sys.argv[2], sys.argv[3]), "compare": lambda: compare(sys.argv[2], sys.argv[3])}[sys.argv[1]]()
