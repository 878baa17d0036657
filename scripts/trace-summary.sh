#!/usr/bin/env bash
# trace-summary.sh — a text timeline of a DOTFUZZ_TRACE file (fuzz/run/trace.h):
# per thread, one character per time step, what it was doing (G generate,
# R references, M model, J judge, w waiting on another thread, . nothing
# traced; the caller's line: P prepare, U GPU, F finish, N the next batch
# laid out and staged during the finish, C record), then
# each kind's busy thread-seconds in the window.
#   usage: scripts/trace-summary.sh FILE [FROM TO [COLUMNS]]
# FROM and TO are seconds as the file gives them; without them, the
# window of the last two batches the caller checked.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -r "$1" ]; then
  echo "usage: scripts/trace-summary.sh FILE [FROM TO [COLUMNS]] (FILE: a DOTFUZZ_TRACE file)" >&2
  exit 2
fi
file=$1 from=${2:-} to=${3:-} cols=${4:-100}
awk -F'\t' -v from="$from" -v to="$to" -v cols="$cols" '
  $1 == "thread" { next }
  { n++; th[n] = $1; kd[n] = $2; t0[n] = $4 + 0; t1[n] = $5 + 0
    if ($1 == "caller" && $2 == "prepare") { ps[++np] = $4 + 0 }
    if ($1 == "caller" && ($2 == "finish" || $2 == "record") && $5 + 0 > lastend) lastend = $5 + 0 }
  END {
    if (n == 0) { print "no events" > "/dev/stderr"; exit 1 }
    if (from == "") { from = np >= 2 ? ps[np - 1] : (np ? ps[np] : 0); to = lastend }
    from += 0; to += 0
    if (!(to > from)) { print "empty window" > "/dev/stderr"; exit 1 }
    step = (to - from) / cols
    code["generate"] = "G"; code["refs"] = "R"; code["model"] = "M"; code["judge"] = "J"
    code["wait"] = "w"; code["prepare"] = "P"; code["gpu"] = "U"; code["finish"] = "F"
    code["record"] = "C"; code["next"] = "N"
    for (i = 1; i <= n; i++) {
      a = t0[i] > from ? t0[i] : from; b = t1[i] < to ? t1[i] : to
      if (b <= a) continue
      busy[kd[i]] += b - a; if (th[i] != "caller") seen[th[i]] = 1
      for (c = int((a - from) / step); c < cols && from + c * step < b; c++) {
        lo = from + c * step; hi = lo + step
        ov = (b < hi ? b : hi) - (a > lo ? a : lo)
        if (ov > best[th[i], c]) { best[th[i], c] = ov; ch[th[i], c] = code[kd[i]] }
      }
    }
    printf "window %.3f s .. %.3f s, %.4f s a column\n", from, to, step
    line = ""; for (c = 0; c < cols; c++) line = line ((("caller", c) in ch) ? ch["caller", c] : ".")
    printf "%-7s %s\n", "caller", line
    m = 0; for (t in seen) ids[++m] = t + 0
    for (i = 2; i <= m; i++) { v = ids[i]; for (j = i - 1; j >= 1 && ids[j] > v; j--) ids[j + 1] = ids[j]; ids[j + 1] = v }
    for (i = 1; i <= m; i++) {
      line = ""; for (c = 0; c < cols; c++) line = line (((ids[i], c) in ch) ? ch[ids[i], c] : ".")
      printf "%-7s %s\n", ids[i], line
    }
    printf "busy thread-s in the window (%d threads, %.3f s):", m, to - from
    split("generate refs model judge wait", ks, " ")
    for (k = 1; k <= 5; k++) printf "  %s %.3f", ks[k], busy[ks[k]]
    printf "\n"
  }' "$file"
