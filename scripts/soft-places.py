#!/usr/bin/env python3
"""Each soft-error finding of fold and tournament in DIR (written by a
batched cuda run, whose launches pack several of a case's blocks in a CTA):
its recorded reports' block, thread and index against the host model's,
from `dotfuzz replay --backend host --json FILE` (docs/case-format.md has
the records' layout).

usage: scripts/soft-places.py DIR   (DOTFUZZ: the binary, default ./dotfuzz)"""
import glob
import json
import os
import struct
import subprocess
import sys

DF = os.environ.get("DOTFUZZ", "./dotfuzz")
same = diff = 0
for f in sorted(glob.glob(sys.argv[1] + "/soft-error*")):
    d = open(f, "rb").read()
    size = {1: 4, 2: 8, 3: 4}.get(d[16], 0)
    kernel = d[64:96].split(b"\0")[0].decode()
    if kernel not in ("fold", "tournament") or not size:
        continue
    n, = struct.unpack_from("<Q", d, 40)
    block, = struct.unpack_from("<I", d, 20)
    recs = [struct.unpack_from("<IIIIIIQ", d, 128 + 2 * n * size + 48 * i) for i in range(d[36])]
    out = subprocess.run([DF, "replay", "--backend", "host", "--no-meta", "--json", f],
                         capture_output=True, text=True).stdout
    host = []
    for line in out.splitlines():
        if line.startswith("{"):
            host += json.loads(line).get("soft_errors") or []
    locs = {(s["block"], s["thread"], int(s["index"])) for s in host}
    for code, _k, _line, blk, thr, rnd, idx in recs:
        if (blk, thr, idx) in locs:
            same += 1
        else:
            diff += 1
            print("DIFF", f.split("/")[-1][:48], kernel, "n", n, "block", block,
                  "gpu", (code, blk, thr, rnd, idx), "host", sorted(locs)[:3])
print("soft reports of fold and tournament: %d at the host model's block, thread and index, "
      "%d not" % (same, diff))
