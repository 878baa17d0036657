#!/bin/bash
# session 24, call 1: M (39638a2, main) against Q (37d28b7's measured build)
# at n = 2000, rotated, two rounds; then M's full bench and the machine's env
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
: > $OUT/rows.txt
for order in "M Q" "Q M"; do
  for b in $order; do
    row /tmp/row.txt gpu-new/dotfuzz-$b; cat /tmp/row.txt >> $OUT/rows.txt
  done
done
grep -E '^\$|harness n = 2000' $OUT/rows.txt | sed 's/elem.s.*//' | cut -c1-200
echo '$ gpu-new/dotfuzz-M bench --backend cuda --kernel shfl --time 3' > $OUT/bench-M.txt
/usr/bin/time -v gpu-new/dotfuzz-M bench --backend cuda --kernel shfl --time 3 >> $OUT/bench-M.txt 2> $OUT/bench-M-time.txt
grep -E '^harness|^bare|vs seed|^seed' $OUT/bench-M.txt | cut -c1-160
grep -E 'Elapsed|Maximum resident' $OUT/bench-M-time.txt
cp gpu-new/dotfuzz-M dotfuzz
export DOTFUZZ_COMMIT="39638a2"
scripts/gpu-verify.sh env
