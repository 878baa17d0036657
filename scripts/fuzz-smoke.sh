#!/usr/bin/env bash
# fuzz-smoke.sh — builds the libFuzzer targets (`make libfuzzer`) and runs
# each for a bounded time over a seed corpus copied from corpus/regression/
# and a case of each low-precision type.
# Exits non-zero when a target crashes (an oracle `bug` on a correct kernel,
# a parser round-trip failure, a sanitizer report). One summary line per
# target. FUZZ_SECONDS sets each target's time (default 20). Then libFuzzer
# must find a mutant (m-fold-bounds) from an empty corpus, and its crash
# artifact must replay as a bug and minimize to a handful of elements.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-20}"
make -s libfuzzer >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for target in dotfuzz-fuzz dotfuzz-fuzz-parser; do
  mkdir -p "$work/$target/corpus" "$work/$target/artifacts"
  cp corpus/regression/*.f32 corpus/regression/*.f64 corpus/regression/*.i32 "$work/$target/corpus/"
  # a case of each low-precision type (version 4 files), made by import
  printf '1\n-0.5\n0.25\n3\n' >"$work/a.txt"
  printf '2\n0.75\n-4\n0\n' >"$work/b.txt"
  for t in f16 bf16 e4m3 e5m2; do
    ./dotfuzz import --type "$t" -o "$work/$target/corpus/lowp.$t" "$work/a.txt" "$work/b.txt" >/dev/null
  done
  log="$work/$target/log"
  rc=0
  "build/libfuzzer/$target" -max_total_time="$secs" -max_len=131072 -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$work/$target/artifacts/" "$work/$target/corpus" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  first=$(grep -m1 -E '#[0-9]+[[:space:]]+INITED' "$log" | grep -oE '(cov|ft): [0-9]+' | tr '\n' ' ' || true)
  last=$(grep -E '#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|DONE)' "$log" | tail -n1 | grep -oE '(cov|ft): [0-9]+' | tr '\n' ' ' || true)
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "fuzz-smoke: $target FAILED (exit $rc) after ${execs:-?} execs; log tail:"
    tail -n 30 "$log"
    mkdir -p out/fuzz-smoke
    cp "$work/$target/artifacts/"* out/fuzz-smoke/ 2>/dev/null &&
      echo "fuzz-smoke: crash inputs kept in out/fuzz-smoke/ (replay: ./dotfuzz replay --backend host FILE)"
  else
    echo "fuzz-smoke: $target ok: ${execs:-?} execs in ${secs}s (${rate:-?}/s), ${first:-?}-> ${last:-?}"
  fi
done
# The other direction: libFuzzer must find a mutant's bug from an empty
# corpus (the mutator builds fresh cases), the crash artifact must replay as
# a bug, and minimize must shrink it to a handful of elements.
hunt="$work/mutant"
mkdir -p "$hunt/empty" "$hunt/artifacts"
rc=0
DOTFUZZ_LF_KERNEL=m-fold-bounds build/libfuzzer/dotfuzz-fuzz -max_total_time="$secs" -seed=1 \
  -artifact_prefix="$hunt/artifacts/" "$hunt/empty" >"$hunt/log" 2>&1 || rc=$?
crash=$(ls "$hunt/artifacts/"crash-* 2>/dev/null | head -n1 || true)
if [ "$rc" -eq 0 ] || [ -z "$crash" ]; then
  status=1
  echo "fuzz-smoke: libFuzzer did not find m-fold-bounds from an empty corpus in ${secs}s"
  tail -n 20 "$hunt/log"
else
  execs=$(grep -oE '^#[0-9]+' "$hunt/log" | tail -n1 | tr -d '#')
  rrc=0
  ./dotfuzz replay --backend host "$crash" >"$hunt/replay" 2>&1 || rrc=$?
  ./dotfuzz minimize --backend host -o "$hunt/min" "$crash" >"$hunt/minimize" 2>&1 || true
  after=$(sed -n 's/^after: n=\([0-9]*\).*/\1/p' "$hunt/minimize")
  mrc=0
  ./dotfuzz replay --backend host "$hunt/min" >/dev/null 2>&1 || mrc=$?
  if [ "$rrc" -eq 1 ] && [ "$mrc" -eq 1 ] && [ -n "$after" ] && [ "$after" -le 8 ]; then
    echo "fuzz-smoke: m-fold-bounds found from an empty corpus after ~${execs:-?} execs; the artifact replays as a bug and minimizes to n=$after"
  else
    status=1
    echo "fuzz-smoke: mutant artifact check failed (replay exit $rrc, minimized n=${after:-?}, its replay exit $mrc)"
    cat "$hunt/replay" "$hunt/minimize"
  fi
fi
exit "$status"
