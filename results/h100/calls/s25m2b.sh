#!/bin/bash
# session 25, machine 2, call B: the long cases' ring against one at a
# time (longid) for V (1a4cea4); V's full bench; V's n = 2000 row sampled
# (tools/cpu_sample.c) with the GPU host's libc for the profile
set -u
cd "$(dirname "$0")/.."
cp gpu-new/dotfuzz-V dotfuzz
export DOTFUZZ_COMMIT=1a4cea4
scripts/gpu-verify.sh longid
echo '$ gpu-new/dotfuzz-V bench --backend cuda --kernel shfl --time 3' > $OUT/bench-V.txt
stdbuf -oL gpu-new/dotfuzz-V bench --backend cuda --kernel shfl --time 3 >> $OUT/bench-V.txt 2>&1
grep -E '^harness|^bare|vs seed|^seed|peak' $OUT/bench-V.txt | cut -c1-160
f=$OUT/bench-sampled-V.txt
echo '$ gpu-new/dotfuzz-V bench --backend cuda --kernel shfl --time 3  (stopped after the n = 2000 row; DOTFUZZ_SAMPLE, LD_PRELOAD=libcpusample.so)' > $f
DOTFUZZ_SAMPLE=/tmp/samples-V.txt LD_PRELOAD=$PWD/gpu-new/libcpusample.so stdbuf -oL gpu-new/dotfuzz-V bench --backend cuda --kernel shfl --time 3 >> $f 2>&1 &
pid=$! t=0
while ! grep -q "idle workers of the pool" $f && [ $t -lt 600 ]; do sleep 0.1; t=$((t+1)); done
kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
grep -E 'harness n = 2000' $f | cut -c1-120
mkdir -p /tmp/pk && cp /tmp/samples-V.txt /tmp/pk/ && cp "$(ldconfig -p | awk '/libc.so.6 .*x86-64/ {print $NF; exit}')" /tmp/pk/libc.so.6
tar czf $OUT/samples-V.tar.gz -C /tmp/pk .
date -u +%H:%M:%S
