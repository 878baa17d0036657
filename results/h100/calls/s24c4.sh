#!/bin/bash
# session 24, call 4: 3123d59 (= O's binary; the commit changed a comment
# only): its n = 2000 row sampled (tools/cpu_sample.c), then a default run
# started detached for 1560 s with its resident memory every 30 s
# (gpu-verify rss-start), collected by call 6; this call then waits
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
row() { # OUTFILE BUILD [env...]
  local f=$1 b=$2; shift 2
  echo "\$ $b bench --backend cuda --kernel shfl --time 3  (stopped after the n = 2000 row)" > "$f"
  env "$@" stdbuf -oL "$b" bench --backend cuda --kernel shfl --time 3 >> "$f" 2>&1 &
  local pid=$! t=0
  while ! grep -q "idle workers of the pool" "$f" && [ $t -lt 600 ]; do sleep 0.1; t=$((t+1)); done
  kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
}
cp gpu-new/dotfuzz-O dotfuzz
row $OUT/bench-sampled-3123d59.txt ./dotfuzz DOTFUZZ_SAMPLE=/tmp/samples-3123d59.txt LD_PRELOAD=$PWD/gpu-new/libcpusample.so
grep -E 'harness n = 2000' $OUT/bench-sampled-3123d59.txt | cut -c1-120
mkdir -p /tmp/pk && cp /tmp/samples-3123d59.txt /tmp/pk/ && cp "$(ldconfig -p | awk '/libc.so.6 .*x86-64/ {print $NF; exit}')" /tmp/pk/libc.so.6
tar czf $OUT/samples-3123d59.tar.gz -C /tmp/pk .
export DOTFUZZ_COMMIT=3123d59
scripts/gpu-verify.sh env
scripts/gpu-verify.sh rss-start 1560
date -u +%H:%M:%S
while [ $(( $(date +%s) - T0 )) -lt 545 ]; do sleep 15; done
tail -n 3 /tmp/dotfuzz-verify/rsslong/rss.tsv
date -u +%H:%M:%S
