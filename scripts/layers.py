#!/usr/bin/env python3
"""The module graph of a crate's src (core's, or with --crate app the app's): which file names which (every `crate::`, `super::` and `self::`
path, in `use` lines and in code, `use crate::{a, b}` groups included; a name re-exported at
the crate root counts as the module it comes from), its strongly connected components, and the
edges that run from a lower layer up to a higher one (LAYERS below, lowest first). A circle
inside one layer is allowed; one that crosses layers is not.

Usage: scripts/layers.py [--crate core|app] [--max-upward N] [--max-knot N] [-v]
Exits 1 when there are more upward edges or a larger knot than allowed, so the layering can
only get better: lower the limits as edges go.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "core" / "src"

# Lowest first, by module or by file (`coopmat/exec`): a file may name its own layer and the
# layers below it.
LAYERS = [
    # plain data: lane sets, the lowered program, cooperative-matrix layouts, reports, printf
    ["lanes", "program", "coopmat", "trace", "printf"],
    ["load"],  # bytes -> program
    ["exec", "coopmat/exec"],  # one instruction
    ["sched"],  # tangles and records
    ["sim"],  # the facade
    # read-only views, step back, schedules and layouts compared
    ["view", "history", "explore", "portability"],
]
LAYER_OF = {m: i for i, names in enumerate(LAYERS) for m in names}
# Modules of the numerics crate, re-exported by lib.rs: below everything here.
EXTERNAL = {"alu", "dot", "float", "glsl450", "value"}

# The app: data and view-models, the app's state and what a person asks of it, the views that
# draw from the state, the one place that carries out what they asked, and the frame and hosts.
APP_LAYERS = [
    [
        "report", "examples", "gui/palette", "gui/highlight", "gui/disasm", "gui/cfg",
        "gui/permalink", "gui/fonts", "gui/dialog", "gui/clock", "gui/compile_job", "gui/gpu_job",
        "gui/session", "gui/settle", "gui/editor", "gui/build", "gui/views", "gui/inputs/values",
        "gui/widgets",
    ],
    ["gui/state", "gui/ask"],
    [
        "gui/panels", "gui/tabs", "gui/editor/view", "gui/editor/build_view", "gui/inputs", "gui/toolbar", "gui/keys",
        "gui/printf", "gui/picture",
    ],
    ["gui/action", "gui/incoming"],
    ["gui", "gui/host", "cli", "main", "web"],
]


def module_of(path: Path) -> list[str]:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def file_of(parts: list[str]) -> Path | None:
    """The longest prefix of `parts` that is a module file."""
    for n in range(len(parts), 0, -1):
        p = ROOT.joinpath(*parts[:n])
        for cand in (p.with_suffix(".rs"), p / "mod.rs"):
            if cand.is_file():
                return cand
    return None


def strip_comments_and_tests(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    # `pub(in crate::x)` names where an item is visible, not what it uses.
    text = re.sub(r"pub\(in [^)]*\)", "pub", text)
    # Unit tests are not part of the layering.
    m = re.search(r"#\[cfg\(test\)\]\s*mod tests\s*\{", text)
    return text[: m.start()] if m else text


def root_reexports(lib: str) -> dict[str, str]:
    """Names `lib.rs` re-exports (`pub use sim::{A, B}`) -> their module."""
    out = {}
    for m in re.finditer(r"pub use (\w+)::(\{[^}]*\}|\w+)", lib):
        mod, names = m.group(1), m.group(2).strip("{}")
        for name in re.findall(r"\w+", names):
            out[name] = mod
    return out


def expand_groups(text: str) -> list[str]:
    """Every path, with `a::{b, c::d}` groups expanded (one level of nesting is enough here)."""
    paths = []
    for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)*)::\{([^{}]*)\}", text):
        for item in m.group(2).split(","):
            item = item.strip().split(" as ")[0]
            if item:
                paths.append(f"{m.group(1)}::{item}")
    # A whole path only: a group's prefix (`crate::gui::{a, b}`) names its items, not itself.
    for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)(?!\w|::\w|::\{)", text):
        paths.append(m.group(1))
    return paths


def edges() -> dict[Path, set[Path]]:
    lib = (ROOT / "lib.rs").read_text()
    reexp = root_reexports(lib)
    graph: dict[Path, set[Path]] = {}
    for f in sorted(ROOT.rglob("*.rs")):
        if f.name == "lib.rs" or f.name == "tests.rs" or "tests" in f.relative_to(ROOT).parts:
            continue
        here = module_of(f)
        # A mod.rs's `super` is its folder's parent; a leaf file's `super` is its folder.
        base = here if f.name == "mod.rs" else here
        deps = set()
        for path in expand_groups(strip_comments_and_tests(f.read_text())):
            segs = path.split("::")
            if segs[0] == "crate":
                parts = segs[1:]
                if parts and parts[0] in reexp and not file_of(parts[:1]):
                    parts = [reexp[parts[0]]]
                elif parts and parts[0] in reexp and len(parts) == 1:
                    parts = [reexp[parts[0]]]
            else:
                cur = list(base)
                i = 0
                while i < len(segs) and segs[i] in ("super", "self"):
                    if segs[i] == "super":
                        cur = cur[:-1]
                    i += 1
                parts = cur + segs[i:]
            if not parts or parts[0] in EXTERNAL:
                continue
            target = file_of(parts)
            if target and target != f:
                deps.add(target)
        graph[f] = deps
    return graph


def sccs(graph: dict[Path, set[Path]]) -> list[list[Path]]:
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def top(f: Path) -> str:
    """The module a file belongs to for the layering: its longest prefix that has a layer."""
    parts = module_of(f)
    for n in range(len(parts), 0, -1):
        key = "/".join(parts[:n])
        if key in LAYER_OF:
            return key
    return parts[0] if parts else "lib"


def layer(f: Path) -> int:
    parts = module_of(f)
    for n in range(len(parts), 0, -1):
        key = "/".join(parts[:n])
        if key in LAYER_OF:
            return LAYER_OF[key]
    raise KeyError(str(f))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--crate", choices=["core", "app"], default="core")
    ap.add_argument("--max-upward", type=int)
    ap.add_argument("--max-knot", type=int)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    global ROOT, LAYERS, LAYER_OF, EXTERNAL
    if args.crate == "app":
        ROOT, LAYERS, EXTERNAL = REPO / "app" / "src", APP_LAYERS, set()
        LAYER_OF = {m: i for i, names in enumerate(LAYERS) for m in names}
    graph = edges()
    missing = sorted({top(f) for f in graph} - set(LAYER_OF))
    if missing:
        print(f"modules without a layer in scripts/layers.py: {missing}", file=sys.stderr)
        return 1
    upward = [
        (a, b)
        for a, deps in graph.items()
        for b in deps
        if layer(b) > layer(a)
    ]
    comps = sorted(sccs(graph), key=len, reverse=True)
    # A circle inside one layer is allowed (reported); one that spans layers is the knot.
    across_modules = [c for c in comps if len({top(f) for f in c}) > 1]
    across_layers = [c for c in across_modules if len({layer(f) for f in c}) > 1]
    knot = across_layers[0] if across_layers else []
    rel = lambda p: str(p.relative_to(ROOT))  # noqa: E731
    print(f"{args.crate}/src: {len(graph)} files, {sum(len(d) for d in graph.values())} edges; "
          f"largest circle across layers: {len(knot)} files; "
          f"across modules: {len(across_modules[0]) if across_modules else 0}; "
          f"upward edges: {len(upward)}")
    if args.v:
        for a, b in sorted(upward):
            print(f"  up: {rel(a)} -> {rel(b)}")
        for c in across_modules:
            print("  circle:", " ".join(sorted(rel(f) for f in c)))
    bad = False
    if args.max_upward is not None and len(upward) > args.max_upward:
        print(f"more upward edges than the {args.max_upward} allowed:", file=sys.stderr)
        for a, b in sorted(upward):
            print(f"  {rel(a)} -> {rel(b)}", file=sys.stderr)
        bad = True
    if args.max_knot is not None and len(knot) > args.max_knot:
        print(f"a circle of {len(knot)} files across layers (at most {args.max_knot}):",
              " ".join(sorted(rel(f) for f in knot)), file=sys.stderr)
        bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
