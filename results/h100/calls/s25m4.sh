#!/bin/bash
# session 25, machine 4: X (b1fc310's tree with prepare items of 128 short
# cases, DF_PREP_GROUP, not 64: the first window of an item, its data not
# prefetched, an eighth of the item's cases, not a quarter) against W
# (b1fc310), rotated, four rounds; X's runs against W's at --batch 4096
# (prepare items of 128 need batches of 4096), the GPU generating
set -u
cd "$(dirname "$0")/.."
scripts/gpu-verify.sh rows 4 gpu-new/dotfuzz-W gpu-new/dotfuzz-X
grep -E 'on the device|laid out|CPU time' $OUT/rows.txt | sed 's/(events.*//;s/then waiting.*//' | cut -c1-160
cp gpu-new/dotfuzz-X dotfuzz
export DOTFUZZ_COMMIT="X (b1fc310 + DF_PREP_GROUP 128)"
scripts/gpu-verify.sh env
C="run --backend cuda --kernel shfl,shfl-f64acc,shfl-f64,fold,tournament,tree-hostsum,int-atomic --seed 5 --cases 40000 --batch 4096 --max-n 8000 --save-precision all --save-bugs all --quiet"
files() { for f in "$1"/*; do v=$(od -An -tu1 -j17 -N1 "$f" | tr -d ' '); if [ "$v" = 4 ]; then echo soft; else echo "${f##*/} $(cksum <"$f")"; fi; done | sort; }
{
  echo "\$ W/X $C --corpus DIR"
  rm -rf /tmp/idw /tmp/idx
  gpu-new/dotfuzz-W $C --corpus /tmp/idw > /tmp/idw.txt 2>&1; echo "W exit $?"
  gpu-new/dotfuzz-X $C --corpus /tmp/idx > /tmp/idx.txt 2>&1; echo "X exit $?"
  cat /tmp/idx.txt
  if diff <(sed -e 1d -e "s|/tmp/idw|C|" /tmp/idw.txt) <(sed -e 1d -e "s|/tmp/idx|C|" /tmp/idx.txt) && diff <(files /tmp/idw) <(files /tmp/idx) > /dev/null; then
    echo "IDENTICAL: every line but the timing line; $(files /tmp/idx | grep -vc '^soft$') finding files byte for byte, and as many soft-error files ($(files /tmp/idx | grep -c '^soft$'))"
  else
    echo DIFFERENT
  fi
} > $OUT/identity-X.txt 2>&1
tail -n 1 $OUT/identity-X.txt
date -u +%H:%M:%S
