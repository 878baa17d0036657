#!/usr/bin/env python3
"""Sum tools/cpu_sample.c's samples by function (a CPU profile on the GPU host,
which has no perf).

usage: scripts/cpu-profile.py SAMPLES BINARY [--from T] [--to T] [--top N] [--lib FILE]
                             [--thread TID|main]

SAMPLES is the file DOTFUZZ_SAMPLE named; BINARY the same executable that ran
(for addr2line; the file that ran may have had another name). --from/--to
keep samples inside a window of wall time, in seconds since the epoch (as
`date +%s.%N` prints). --lib names a copy of a shared library that ran (the
GPU host's libc.so.6): its samples are named by the nearest exported symbol
below them (nm -D; an unexported function, such as the memcpy the loader
chose, takes the name of the one before it). Prints the samples a function
took itself, then the same with a shared library's samples given to the
first frame inside BINARY that called it (memcpy under the staging, the CUDA
driver under a launch), then the samples in which a function is anywhere on
the recorded stack (itself or one of its six callers: a stage's whole cost),
then the samples of each thread. --thread keeps one thread's samples (main:
the lowest thread id, the process's first thread: the engine's caller)."""
import bisect
import collections
import functools
import os
import subprocess
import sys


def parse(path):
    maps, samples = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("samples "):
                break
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            off = int(parts[2], 16)
            name = parts[5] if len(parts) > 5 else ""
            maps.append((lo, hi, off, name, "x" in parts[1]))
        for line in f:
            parts = line.split()
            samples.append((int(parts[0]) / 1e9, int(parts[1]),
                            [int(x, 16) for x in parts[2:]]))
    return maps, samples


def main(argv):
    args, opts = [], {"--from": None, "--to": None, "--top": "40", "--lib": None,
                   "--thread": None}
    i = 1
    while i < len(argv):
        if argv[i] in opts and i + 1 < len(argv):
            opts[argv[i]] = argv[i + 1]
            i += 2
        elif argv[i].startswith("-"):
            sys.exit(f"cpu-profile: unknown option {argv[i]}\n{__doc__}")
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        sys.exit(__doc__)
    path, binary = args
    maps, samples = parse(path)
    lo_t = float(opts["--from"]) if opts["--from"] else float("-inf")
    hi_t = float(opts["--to"]) if opts["--to"] else float("inf")
    samples = [s for s in samples if lo_t <= s[0] <= hi_t]
    if opts["--thread"] is not None and samples:
        want = (min(s[1] for s in samples) if opts["--thread"] == "main"
                else int(opts["--thread"]))
        samples = [s for s in samples if s[1] == want]
    if not samples:
        sys.exit("cpu-profile: no samples in that window")
    # the executable: BINARY's name, else the one program mapped executable
    # (it may have run under another name)
    progs = {os.path.basename(m[3]) for m in maps if m[4] and m[3].startswith("/")
             and ".so" not in os.path.basename(m[3]) and not m[3].startswith("/dev/")}
    exe = os.path.basename(binary)
    if exe not in progs:
        exe = progs.pop() if len(progs) == 1 else ""
    base = min((m[0] - m[2] for m in maps if os.path.basename(m[3]) == exe), default=None)
    if base is None or not exe:
        sys.exit(f"cpu-profile: no executable mapped in {path}")

    @functools.lru_cache(maxsize=None)  # each address is looked up twice, many times over
    def where(pc):
        for lo, hi, off, name, _ in maps:
            if lo <= pc < hi:
                return name, pc - base if os.path.basename(name) == exe else pc - lo + off
        return "?", pc

    offsets = set()
    for _, _, pcs in samples:
        for j, pc in enumerate(pcs):
            name, off = where(pc if j == 0 else pc - 1)
            if os.path.basename(name) == exe:
                offsets.add(off)
    offsets = sorted(offsets)
    sym = {}
    if offsets:
        out = subprocess.run(["addr2line", "-f", "-e", binary] + [hex(o) for o in offsets],
                             capture_output=True, text=True, check=True).stdout.split("\n")
        for k, o in enumerate(offsets):
            sym[o] = out[2 * k]

    lib_syms, lib = [], os.path.basename(opts["--lib"]) if opts["--lib"] else None
    if lib:
        out = subprocess.run(["nm", "-D", "--defined-only", opts["--lib"]],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TtWi":
                lib_syms.append((int(parts[0], 16), parts[2].split("@")[0]))
        lib_syms.sort()

    def lib_name(off):
        k = bisect.bisect_right(lib_syms, (off, "\uffff")) - 1
        return lib_syms[k][1] if k >= 0 else "?"

    def name_of(pc, j):
        name, off = where(pc if j == 0 else pc - 1)
        if os.path.basename(name) == exe:
            return sym.get(off, "?"), True
        if lib and os.path.basename(name) == lib:
            return f"[{lib}: near {lib_name(off)}]", False
        return "[" + (os.path.basename(name) or "anon") + "]", False

    own, attributed, stacked, threads = (collections.Counter() for _ in range(4))
    for _, tid, pcs in samples:
        leaf, inside = name_of(pcs[0], 0)
        own[leaf] += 1
        threads[tid] += 1
        stacked.update({name_of(pc, j)[0] for j, pc in enumerate(pcs)})
        label = leaf
        if not inside:
            for j in range(1, len(pcs)):
                caller, ok = name_of(pcs[j], j)
                if ok:
                    label = f"{caller} <- {leaf}"
                    break
        attributed[label] += 1
    total = len(samples)
    span = max(s[0] for s in samples) - min(s[0] for s in samples)
    top = int(opts["--top"])
    print(f"{total} samples over {span:.2f} s of wall time, {len(threads)} threads")
    for title, counts in (("the function itself", own),
                          ("a library's samples given to the binary's first caller",
                           attributed),
                          ("on the stack (the function or its callers, up to six frames up)",
                           stacked)):
        print(f"\n{title}:")
        for label, n in counts.most_common(top):
            print(f"  {100.0 * n / total:6.2f}%  {n:8d}  {label}")
    print("\nper thread:")
    for tid, n in sorted(threads.items(), key=lambda kv: -kv[1]):
        print(f"  {tid:8d}  {n:8d}  {100.0 * n / total:6.2f}%")


if __name__ == "__main__":
    main(sys.argv)
