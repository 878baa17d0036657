#!/bin/bash
# session 24, call 7: S (3123d59 + each vector of a batch's case looked up
# alone among the GPU's generated ones: a negate or scale copy's b is not
# staged) against O (3123d59's binary) at n = 2000, rotated, three rounds;
# S's verdicts against O's (gpu-verify ab), the long cases' ring against
# one at a time (longid, copies on every other case), then S's full bench
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
: > $OUT/rows.txt
for order in "S O" "O S" "S O"; do
  for b in $order; do
    row /tmp/row.txt gpu-new/dotfuzz-$b; cat /tmp/row.txt >> $OUT/rows.txt
  done
done
awk '/^\$/ {b=$2} /^harness n = 2000/ {print b, $6; s[b]+=$6; k[b]++} END {for (x in s) printf "mean %s %d\n", x, s[x]/k[x]}' $OUT/rows.txt
grep -E 'on the device|laid out' $OUT/rows.txt | sed 's/(events.*//;s/then waiting.*//' | cut -c1-200
cp gpu-new/dotfuzz-S dotfuzz
export DOTFUZZ_COMMIT="S (3123d59 + working tree)"
scripts/gpu-verify.sh env
scripts/gpu-verify.sh ab gpu-new/dotfuzz-O 0
rm -f $OUT/ab.txt
scripts/gpu-verify.sh longid
echo '$ gpu-new/dotfuzz-S bench --backend cuda --kernel shfl --time 3' > $OUT/bench-S.txt
stdbuf -oL gpu-new/dotfuzz-S bench --backend cuda --kernel shfl --time 3 >> $OUT/bench-S.txt 2>&1
grep -E '^harness|^bare|vs seed|^seed' $OUT/bench-S.txt | cut -c1-160
