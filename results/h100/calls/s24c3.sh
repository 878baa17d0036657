#!/bin/bash
# session 24, call 3: O's verdicts against M's (gpu-verify ab), O's full
# bench, and O's n = 2000 row sampled (the whole process; the caller's
# thread is one of its threads)
set -u
cd "$(dirname "$0")/.."
row() { # OUTFILE BUILD [env...]
  local f=$1 b=$2; shift 2
  echo "\$ $b bench --backend cuda --kernel shfl --time 3  (stopped after the n = 2000 row)" > "$f"
  env "$@" stdbuf -oL "$b" bench --backend cuda --kernel shfl --time 3 >> "$f" 2>&1 &
  local pid=$! t=0
  while ! grep -q "idle workers of the pool" "$f" && [ $t -lt 600 ]; do sleep 0.1; t=$((t+1)); done
  kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/gpu.txt
cat $OUT/gpu.txt
echo '$ gpu-new/dotfuzz-O bench --backend cuda --kernel shfl --time 3' > $OUT/bench-O.txt
/usr/bin/time -v gpu-new/dotfuzz-O bench --backend cuda --kernel shfl --time 3 >> $OUT/bench-O.txt 2> $OUT/bench-O-time.txt
grep -E '^harness|^bare|vs seed|^seed|on the device' $OUT/bench-O.txt | cut -c1-200
grep -E 'Elapsed|Maximum resident' $OUT/bench-O-time.txt
cp gpu-new/dotfuzz-O dotfuzz
row $OUT/bench-sampled-O.txt ./dotfuzz DOTFUZZ_SAMPLE=$OUT/samples-O.txt LD_PRELOAD=$PWD/gpu-new/libcpusample.so
grep -E 'harness n = 2000' $OUT/bench-sampled-O.txt | cut -c1-120
cp "$(ldconfig -p | awk '/libc.so.6 .*x86-64/ {print $NF; exit}')" $OUT/libc.so.6
gzip $OUT/samples-O.txt
export DOTFUZZ_COMMIT="O (39638a2 + working tree)"
scripts/gpu-verify.sh env
scripts/gpu-verify.sh ab gpu-new/dotfuzz-M 0
