#!/usr/bin/env python3
"""json_out_check.py: checks one --json document of dotfuzz bench,
bandwidth or hunt (test_json_out.c runs the commands on the host;
scripts/gpu-verify.sh json on a GPU, the *-gpu modes): it parses as one
JSON object and says what ran and what did not. Exits 0, or 1 with why.

usage: tests/json_out_check.py MODE FILE
  MODE: bench, bandwidth, hunt, bandwidth-report, bench-gpu, bandwidth-gpu, hunt-gpu"""
import json
import sys


def fail(why):
    sys.exit(f"json_out_check: {why}")


def stamped(d, command):
    if not isinstance(d.get("schema_version"), int) or "dotfuzz_version" not in d:
        fail("no version stamps")
    if command and d.get("command") != command:
        fail(f"command {d.get('command')!r}")


def numbers_of(row):
    return {k: v for k, v in row.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def bench(d):
    stamped(d, "bench")
    if d["backend"] != "host" or d["complete"] is not True:
        fail(f"backend {d['backend']}, complete {d['complete']}")
    rows = {r["row"]: r for r in d["rows"]}
    want = ["seed_loop", "setup", "harness_2000", "harness_2000_other_buffering",
            "harness_2000_gen_cpu", "gpu_generation", "harness_65536", "harness_big",
            "big_bare_refs", "vs_seed_loop", "campaign", "campaign_kernel_s",
            "campaign_bare_refs"]
    if [r["row"] for r in d["rows"]] != want:
        fail(f"rows {[r['row'] for r in d['rows']]}")
    for rid in ("harness_2000_gen_cpu", "gpu_generation", "campaign_kernel_s"):
        r = rows[rid]
        if r["ran"] is not False or r["why"] != "cuda backend only" or numbers_of(r):
            fail(f"{rid} on the host: {r}")
    for rid, r in rows.items():
        if r["ran"] and rid.startswith("harness") or rid == "campaign":
            if not r["cases_per_s"] > 0 or not r["elems_per_s"] > 0 or r["gpu_share"] is not None:
                fail(f"{rid}: {r}")
            if abs(sum(r["wall_share"].values()) - 1) > 1e-6:
                fail(f"{rid}: wall shares {r['wall_share']}")
    if not rows["seed_loop"]["cases_per_s"] > 0 or rows["setup"]["threads"] != 2:
        fail(f"seed loop or setup: {rows['seed_loop']} {rows['setup']}")


def bandwidth(d):
    stamped(d, "bandwidth")
    if d["rows"] or d["rows_run"] != 0 or d["device"] is not None or not d["error"]:
        fail(f"a host without a GPU: {d}")


def bandwidth_report(d):
    stamped(d, "bandwidth")
    rows = {r["kernel"]: r for r in d["rows"]}
    shfl, ia, mma = rows["shfl"], rows["int-atomic"], rows["mma-f16"]
    if d["device"]["name"] != "NVIDIA H100" or d["device"]["cc"] != "9.0":
        fail(f"device {d['device']}")
    if shfl["gbps"] != 3070.6 or shfl["vs_cublas"] != 1.027 or shfl["n"] != 268435456:
        fail(f"shfl {shfl}")
    if ia["vs_cublas"] is not None or mma["n"] != 65536:
        fail(f"int-atomic {ia}, mma-f16 {mma}")
    skipped = rows["half2-f16"]
    if skipped["ran"] or skipped["gbps"] is not None or skipped["median_ms"] is not None:
        fail(f"a row that did not run: {skipped}")
    if d["rows_run"] != 4 or d["rows_not_run"] != 1:
        fail(f"rows_run {d['rows_run']}, rows_not_run {d['rows_not_run']}")


def bench_gpu(d):
    stamped(d, "bench")
    if d["backend"] != "cuda" or d["complete"] is not True:
        fail(f"backend {d['backend']}, complete {d['complete']}")
    for r in d["rows"]:
        if r["ran"] is not True:
            fail(f"a row that did not run on cuda: {r}")
        if r["row"].startswith("harness") and r["gpu_share"] is None:
            fail(f"{r['row']}: no GPU stage on cuda")


def bandwidth_gpu(d):
    stamped(d, "bandwidth")
    if d["device"] is None or d["error"] is not None or d["rows_run"] == 0:
        fail(f"device {d['device']}, error {d['error']}, rows_run {d['rows_run']}")
    for r in d["rows"]:
        if r["ran"] and not (r["gbps"] > 0 and r["median_ms"] > 0):
            fail(f"a row that ran without its numbers: {r}")


def hunt_gpu(d):
    stamped(d, "hunt")
    k = {r["kernel"]: r for r in d["kernels"]}
    if d["backend"] != "cuda" or not all(r["ran"] for r in d["kernels"]):
        fail(f"backend {d['backend']}, kernels {d['kernels']}")
    if not k["m-tail"]["ours"]["caught"] or k["shfl"]["false_alarms"]["ours"] != 0:
        fail(f"m-tail {k['m-tail']}, shfl {k['shfl']}")


def hunt(d):
    stamped(d, "hunt")
    if d["seed"] != "5" or d["backend"] != "host" or not d["complete"]:
        fail(f"seed {d['seed']!r}, backend {d['backend']}")
    k = {r["kernel"]: r for r in d["kernels"]}
    tail, shfl, nosync = k["m-tail"], k["shfl"], k["m-no-sync"]
    if tail["kind"] != "mutant" or not tail["ours"]["caught"] or not tail["ours"]["rule"]:
        fail(f"m-tail {tail}")
    if tail["ours"]["cases"] > tail["cases"]:
        fail(f"m-tail caught after the cases it ran: {tail}")
    if shfl["kind"] != "correct" or shfl["false_alarms"]["ours"] != 0 or shfl["cases"] != 300:
        fail(f"shfl {shfl}")
    if nosync["ran"] or nosync["skipped"] != "cannot run" or "cases" in nosync:
        fail(f"m-no-sync {nosync}")
    if (d["escaped"], d["false_alarms"], d["skipped"]) != (0, 0, 1):
        fail(f"totals {d['escaped']} {d['false_alarms']} {d['skipped']}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2], encoding="utf-8") as f:
        try:
            d = json.load(f)
        except json.JSONDecodeError as e:
            fail(f"{sys.argv[2]} is not one JSON document: {e}")
    {"bench": bench, "bandwidth": bandwidth, "bandwidth-report": bandwidth_report,
     "hunt": hunt, "bench-gpu": bench_gpu, "bandwidth-gpu": bandwidth_gpu,
     "hunt-gpu": hunt_gpu}[sys.argv[1]](d)
    print(f"{sys.argv[1]}: ok")


if __name__ == "__main__":
    main()
