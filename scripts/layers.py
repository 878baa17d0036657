#!/usr/bin/env python3
"""layers.py — checks that dependencies point down (fuzz/README.md).

    scripts/layers.py [--root DIR] [--build DIR] [--max-lines N]

Every source file sits in a layer, lowest first:

  0  fuzz/case, fuzz/pcg32.h, fuzz/lowp.h, fuzz/cpu_clones.h, fuzz/outcome.h, fuzz/util,
     include/   (what everything shares)
  1  kernels/, reference/
  2  fuzz/      (the library)
  3  fuzz/backend/
  4  fuzz/check/
  5  fuzz/run/
  6  fuzz/cmd/

A file includes only from its own layer or lower. With --build, the objects
under DIR (nm) must call only into their own layer or lower, and no two
source files may call each other, directly or round a longer circle. With
--max-lines, no source file (the layers, tests/, tools/, libfuzzer/) is
longer than N lines. Prints one line per breach and exits 1 when there is
one, 0 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys

BASE = ("fuzz/case.", "fuzz/pcg32.h", "fuzz/lowp.h", "fuzz/cpu_clones.h", "fuzz/outcome.h",
        "fuzz/util.", "include/")
LAYERS = [("fuzz/cmd/", 6), ("fuzz/run/", 5), ("fuzz/check/", 4),
          ("fuzz/backend/", 3), ("kernels/", 1), ("reference/", 1), ("fuzz/", 2)]
SOURCE_DIRS = ("fuzz", "kernels", "reference", "include")
ALL_SOURCE_DIRS = SOURCE_DIRS + ("tests", "tools", "libfuzzer")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer(path):
    """The layer of a repository-relative path, or None outside the layers."""
    if path.startswith(BASE):
        return 0
    for prefix, rank in LAYERS:
        if path.startswith(prefix):
            return rank
    return None


def sources(root, tops=SOURCE_DIRS):
    for top in tops:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h", ".cu")):
                    yield os.path.relpath(os.path.join(d, f), root)


def check_includes(root):
    breaches = []
    for src in sorted(sources(root)):
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            lo, li = layer(src), layer(inc)
            if lo is not None and li is not None and li > lo:
                breaches.append(f"{src}: includes {inc}, a higher layer ({li} > {lo})")
    return breaches


def check_lengths(root, limit):
    breaches = []
    for src in sorted(sources(root, ALL_SOURCE_DIRS)):
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
            n = sum(1 for _ in fh)
        if n > limit:
            breaches.append(f"{src}: {n} lines, more than {limit}")
    return breaches


def unit_of(obj, build):
    """build/fuzz/x.o, x.model.o, x.gpu.o -> fuzz/x (the source file's stem)."""
    rel = os.path.relpath(obj, build)
    for suffix in (".model.o", ".gpu.o", ".o"):
        if rel.endswith(suffix):
            return rel[: -len(suffix)]
    return rel


def unit_layer(unit, root):
    for ext in (".c", ".cu", ".h"):
        if os.path.exists(os.path.join(root, unit + ext)):
            return layer(unit + ext)
    return None


def call_graph(root, build):
    defined, wanted = {}, {}
    for top in SOURCE_DIRS:
        for d, _, files in os.walk(os.path.join(build, top)):
            for f in files:
                if not f.endswith(".o"):
                    continue
                obj = os.path.join(d, f)
                unit = unit_of(obj, build)
                if unit_layer(unit, root) is None:
                    continue   # an object of a file no longer in the tree
                out = subprocess.run(["nm", obj], capture_output=True, text=True,
                                     check=True).stdout
                for line in out.splitlines():
                    parts = line.split()
                    if len(parts) == 3 and parts[1] in "TDBRV":
                        defined.setdefault(parts[2], unit)
                    elif len(parts) == 2 and parts[0] == "U":
                        wanted.setdefault(unit, set()).add(parts[1])
    graph = {}
    for unit, syms in wanted.items():
        for s in syms:
            to = defined.get(s)
            if to is not None and to != unit:
                graph.setdefault(unit, {}).setdefault(to, s)
    return graph


def circles(graph):
    """Strongly connected components of more than one unit (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_calls(root, build):
    graph = call_graph(root, build)
    breaches = []
    for unit in sorted(graph):
        for to, sym in sorted(graph[unit].items()):
            lo, lt = unit_layer(unit, root), unit_layer(to, root)
            if lt > lo:
                breaches.append(f"{unit}: calls {sym} in {to}, a higher layer ({lt} > {lo})")
    for comp in circles(graph):
        breaches.append("circle: " + " -> ".join(comp))
    return breaches


def main():
    ap = argparse.ArgumentParser(description="dependencies point down")
    ap.add_argument("--root", default=".", help="the repository (default .)")
    ap.add_argument("--build", help="the build folder whose objects to read (nm)")
    ap.add_argument("--max-lines", type=int, default=0, help="the longest a source file may be")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.root, "fuzz")):
        print(f"layers.py: --root {args.root}: no fuzz/ folder", file=sys.stderr)
        return 2
    if args.build and not os.path.isdir(args.build):
        print(f"layers.py: --build {args.build}: not a folder", file=sys.stderr)
        return 2
    breaches = check_includes(args.root)
    if args.build:
        breaches += check_calls(args.root, args.build)
    if args.max_lines > 0:
        breaches += check_lengths(args.root, args.max_lines)
    for b in breaches:
        print(b)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
