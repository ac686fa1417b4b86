#!/usr/bin/env python3
"""Copy the GPU reference data into the project, compactly, for the tests.

    scripts/compact-reference.py [SOURCE] [DEST]

SOURCE defaults to /work/shared/reference (or $LANESCOPE_REFERENCE_SOURCE), DEST to
core/tests/reference. For each group (reconv, rotate, dot, coopmat, coopmat_diag) it copies
SOURCE/<group>/ to DEST/<group>/:

- every shader (`.spv`, the `.nomr.spv` variants included) and its source (`.comp`, `.spvasm`)
  byte for byte;
- every run (`.json`) rewritten compactly: the same keys in the same order
  (name, shader, entry, workgroups, buffers[{set, binding, initial, gpu_final}],
  push_constants when present, meta), no whitespace, and each buffer's `gpu_final` replaced by
  {"words": N, "nonzero": [[index, value], ...]} (every nonzero word, by index) when that is
  shorter than the plain list. `initial` and `meta` are kept as given.

It then checks that every compacted run expands back to the original words, and removes
files in DEST/<group>/ that the source no longer has. Only the standard library is used.
"""

import json
import os
import sys
from pathlib import Path

GROUPS = ["reconv", "rotate", "dot", "coopmat", "coopmat_diag"]
COPY_SUFFIXES = (".spv", ".comp", ".spvasm")
KEY_ORDER = ["name", "shader", "entry", "workgroups", "buffers", "push_constants", "meta"]
BUFFER_KEY_ORDER = ["set", "binding", "initial", "gpu_final"]


def dumps(value):
    return json.dumps(value, separators=(",", ":"))


def expand(desc):
    """Words of a buffer description: a plain list, {words, fill} or {words, nonzero}."""
    if isinstance(desc, list):
        return desc
    out = [desc.get("fill", 0)] * desc["words"]
    for i, v in desc.get("nonzero", []):
        out[i] = v
    return out


def compact_words(words):
    """The shorter of the plain list and {words, nonzero}."""
    sparse = {"words": len(words), "nonzero": [[i, w] for i, w in enumerate(words) if w != 0]}
    return sparse if len(dumps(sparse)) < len(dumps(words)) else words


def ordered(obj, order):
    """obj's keys in `order` first, then any others as they came (nothing is dropped)."""
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def compact_run(doc):
    doc = ordered(doc, KEY_ORDER)
    buffers = []
    for b in doc["buffers"]:
        b = ordered(b, BUFFER_KEY_ORDER)
        b["gpu_final"] = compact_words(b["gpu_final"])
        buffers.append(b)
    doc["buffers"] = buffers
    return doc


def check(original, compacted):
    assert list(original) == list(compacted), "keys changed"
    for key in original:
        if key != "buffers":
            assert original[key] == compacted[key], f"{key} changed"
    assert len(original["buffers"]) == len(compacted["buffers"])
    for a, b in zip(original["buffers"], compacted["buffers"]):
        assert list(a) == list(b), "buffer keys changed"
        assert a["set"] == b["set"] and a["binding"] == b["binding"]
        assert a["initial"] == b["initial"], "initial changed"
        assert expand(a["gpu_final"]) == expand(b["gpu_final"]), "gpu_final changed"


def write_if_changed(path, data):
    if path.exists() and path.read_bytes() == data:
        return False
    path.write_bytes(data)
    return True


def main(argv):
    root = Path(__file__).resolve().parent.parent
    src_root = Path(argv[1] if len(argv) > 1 else os.environ.get(
        "LANESCOPE_REFERENCE_SOURCE", "/work/shared/reference"))
    dst_root = Path(argv[2]) if len(argv) > 2 else root / "core/tests/reference"
    if not src_root.is_dir():
        sys.exit(f"no reference data at {src_root}")
    total_in = total_out = changed = 0
    for group in GROUPS:
        src, dst = src_root / group, dst_root / group
        if not src.is_dir():
            sys.exit(f"missing group {src}")
        dst.mkdir(parents=True, exist_ok=True)
        wanted = set()
        g_in = g_out = 0
        runs = 0
        for f in sorted(src.iterdir()):
            if not f.is_file():
                continue
            if f.suffix == ".json":
                raw = f.read_bytes()
                original = json.loads(raw)
                compacted = compact_run(original)
                check(original, compacted)
                check(original, json.loads(dumps(compacted)))
                data = dumps(compacted).encode() + b"\n"
                runs += 1
            elif f.name.endswith(COPY_SUFFIXES):
                raw = data = f.read_bytes()
            else:
                continue
            wanted.add(f.name)
            g_in += len(raw)
            g_out += len(data)
            changed += write_if_changed(dst / f.name, data)
        for f in sorted(dst.iterdir()):
            if f.is_file() and f.name not in wanted:
                print(f"removing {f} (not in {src})")
                f.unlink()
        print(f"{group:<13} {runs:>4} runs, {len(wanted):>4} files: {g_in:>9} -> {g_out:>9} bytes")
        total_in += g_in
        total_out += g_out
    print(f"{'total':<13} {'':>20}  {total_in:>9} -> {total_out:>9} bytes ({changed} files written)")


if __name__ == "__main__":
    main(sys.argv)
