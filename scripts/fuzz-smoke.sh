#!/usr/bin/env bash
# fuzz-smoke.sh — builds the libFuzzer targets (`make libfuzzer`) and runs
# each for a bounded time over a seed corpus copied from corpus/regression/.
# Exits non-zero when a target crashes (an oracle `bug` on a correct kernel,
# a parser round-trip failure, a sanitizer report). One summary line per
# target. FUZZ_SECONDS sets each target's time (default 20).
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
exit "$status"
