#!/bin/bash
# session 24, call 2: O (39638a2 + the batch's results and soft claims to the
# host by a kernel's stores, not two copies) against M (39638a2) at n = 2000,
# rotated, three rounds; then, where O is ahead on the means, O's verdicts
# against M's (gpu-verify ab) and O's full bench
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
for order in "O M" "M O" "O M"; do
  for b in $order; do
    row /tmp/row.txt gpu-new/dotfuzz-$b; cat /tmp/row.txt >> $OUT/rows.txt
  done
done
grep -E '^\$|harness n = 2000|on the device' $OUT/rows.txt | sed 's/elem.s.*//;s/(events.*//' | cut -c1-200
mean() { grep -A1 "dotfuzz-$1 bench" $OUT/rows.txt | grep 'harness n = 2000' | awk '{s+=$6} END {printf "%d", s/NR}'; }
mo=$(mean O); mm=$(mean M); echo "means: O $mo, M $mm"
if [ "$mo" -gt "$mm" ]; then
  echo '$ gpu-new/dotfuzz-O bench --backend cuda --kernel shfl --time 3' > $OUT/bench-O.txt
  gpu-new/dotfuzz-O bench --backend cuda --kernel shfl --time 3 >> $OUT/bench-O.txt 2>&1
  grep -E '^harness|^bare|vs seed|on the device' $OUT/bench-O.txt | cut -c1-200
  cp gpu-new/dotfuzz-O dotfuzz
  export DOTFUZZ_COMMIT="O (39638a2 + working tree)"
  scripts/gpu-verify.sh env
  scripts/gpu-verify.sh ab gpu-new/dotfuzz-M 0
fi
