#!/bin/bash
# session 25, machine 3: W (b1fc310: U + permute copies' references side by
# side, their sums alone) against U (7cdd81c) at n = 2000, rotated, four
# rounds; env; W's verdicts against S's (fb2bc86); the long cases' ring
# (longid); W's full bench; W's n = 2000 row sampled; memcheck over every
# kernel with the GPU generating (the unpack kernel's derived vectors)
set -u
cd "$(dirname "$0")/.."
scripts/gpu-verify.sh rows 4 gpu-new/dotfuzz-U gpu-new/dotfuzz-W
grep -E 'on the device|laid out' $OUT/rows.txt | sed 's/(events.*//;s/then waiting.*//' | cut -c1-200
cp gpu-new/dotfuzz-W dotfuzz
export DOTFUZZ_COMMIT=b1fc310
scripts/gpu-verify.sh env
scripts/gpu-verify.sh ab gpu-new/dotfuzz-S 0
rm -f $OUT/ab.txt
scripts/gpu-verify.sh longid
echo '$ gpu-new/dotfuzz-W bench --backend cuda --kernel shfl --time 3' > $OUT/bench-W.txt
stdbuf -oL gpu-new/dotfuzz-W bench --backend cuda --kernel shfl --time 3 >> $OUT/bench-W.txt 2>&1
grep -E '^harness|^bare|vs seed|^seed|peak' $OUT/bench-W.txt | cut -c1-160
f=/tmp/bench-sampled-W.txt
echo '$ gpu-new/dotfuzz-W bench --backend cuda --kernel shfl --time 3  (stopped after the n = 2000 row; DOTFUZZ_SAMPLE, LD_PRELOAD=libcpusample.so)' > $f
DOTFUZZ_SAMPLE=/tmp/samples-W.txt LD_PRELOAD=$PWD/gpu-new/libcpusample.so stdbuf -oL gpu-new/dotfuzz-W bench --backend cuda --kernel shfl --time 3 >> $f 2>&1 &
pid=$! t=0
while ! grep -q "idle workers of the pool" $f && [ $t -lt 600 ]; do sleep 0.1; t=$((t+1)); done
kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
grep -E 'harness n = 2000' $f | cut -c1-120
mkdir -p /tmp/pk && cp $f /tmp/samples-W.txt /tmp/pk/ && cp "$(ldconfig -p | awk '/libc.so.6 .*x86-64/ {print $NF; exit}')" /tmp/pk/libc.so.6
tar czf $OUT/samples-W.tar.gz -C /tmp/pk .
date -u +%H:%M:%S
timeout 240 scripts/gpu-verify.sh memcheck
date -u +%H:%M:%S
