#!/usr/bin/env bash
# gpu-verify.sh — the GPU verification of the kernels (issue "GPU kernels"):
# run on a machine with an NVIDIA GPU, from the repository root, after `make`.
#
#   scripts/gpu-verify.sh env        device, driver, CUDA, commit, date -> OUTDIR/env.txt
#   scripts/gpu-verify.sh bandwidth  bandwidth table at n = 2^28 -> OUTDIR/bandwidth.md
#   scripts/gpu-verify.sh sanitize   compute-sanitizer memcheck + racecheck on every kernel
#                                    -> OUTDIR/sanitizer.txt
#   scripts/gpu-verify.sh campaign [SECONDS]
#                                    a campaign over every kernel and family (default 600 s)
#                                    beside one model-match run of 10^6 cases per deterministic
#                                    kernel, all at once -> OUTDIR/campaign.txt, OUTDIR/model-match.txt
#
# OUTDIR is $OUT when set (the device tool), else results/local.
set -uo pipefail
cd "$(dirname "$0")/.."
OUTDIR=${OUT:-results/local}
mkdir -p "$OUTDIR"
DF=./dotfuzz
WORK=${TMPDIR:-/tmp}/dotfuzz-verify
mkdir -p "$WORK"

env_info() {
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (working tree differs)')"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv
    nvcc --version | tail -n 2
    echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  } >"$OUTDIR/env.txt" 2>&1
  cat "$OUTDIR/env.txt"
}

bandwidth() {
  echo "\$ $DF bandwidth --markdown" >"$OUTDIR/bandwidth.md"
  $DF bandwidth --markdown >>"$OUTDIR/bandwidth.md" 2>&1
  local rc=$?
  cat "$OUTDIR/bandwidth.md"
  return $rc
}

sanitize() {
  local log="$OUTDIR/sanitizer.txt" rc=0
  : >"$log"
  for k in $($DF list --names); do
    for tool in memcheck racecheck; do
      local cmd="compute-sanitizer --tool $tool --error-exitcode 99 $DF run --backend cuda --kernel $k --cases 60 --max-n 3000 --seed 11 --corpus $WORK/san-$k"
      echo "\$ $cmd" >>"$log"
      $cmd >"$WORK/san.out" 2>&1
      local r=$?
      grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|DONE' "$WORK/san.out" | tail -n 4 >>"$log"
      echo "exit $r" >>"$log"
      [ $r -eq 0 ] || rc=1
    done
  done
  grep -cE '^exit 0$' "$log" | sed 's/^/clean runs: /' >>"$log"
  tail -n 30 "$log"
  return $rc
}

campaign() {
  local secs=${1:-600} pids=() k
  local det
  det=$($DF list --names --model-checked)
  echo "\$ $DF run --backend cuda --time ${secs}s --seed 20261121 --corpus $WORK/campaign" >"$OUTDIR/campaign.txt"
  $DF run --backend cuda --time "${secs}s" --seed 20261121 --corpus "$WORK/campaign" \
    >>"$OUTDIR/campaign.txt" 2>"$WORK/campaign.err" &
  pids+=($!)
  for k in $det; do
    $DF run --backend cuda --kernel "$k" --cases 1000000 --max-n 2048 --seed 5 \
      --save-precision none --corpus "$WORK/mm-$k" >"$WORK/mm-$k.out" 2>"$WORK/mm-$k.err" &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  grep -E '^BUG|^#.*DONE|backend' "$WORK/campaign.err" | head -n 40 >>"$OUTDIR/campaign.txt"
  : >"$OUTDIR/model-match.txt"
  for k in $det; do
    echo "\$ $DF run --backend cuda --kernel $k --cases 1000000 --max-n 2048 --seed 5 --save-precision none" >>"$OUTDIR/model-match.txt"
    cat "$WORK/mm-$k.out" >>"$OUTDIR/model-match.txt"
    grep -E '^BUG' "$WORK/mm-$k.err" | head -n 5 >>"$OUTDIR/model-match.txt"
  done
  cat "$OUTDIR/campaign.txt" "$OUTDIR/model-match.txt"
  return $rc
}

case "${1:-}" in
  env) env_info ;;
  bandwidth) bandwidth ;;
  sanitize) sanitize ;;
  campaign) campaign "${2:-600}" ;;
  *) echo "usage: $0 env|bandwidth|sanitize|campaign [SECONDS]" >&2; exit 2 ;;
esac
