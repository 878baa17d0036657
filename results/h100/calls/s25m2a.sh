#!/bin/bash
# session 25, machine 2, call A: T (f76c1a3), U (7cdd81c: negate and scale
# copies' a made on the GPU) and V (1a4cea4: U + permute copies'
# references side by side) at n = 2000, rotated, three rounds (gpu-verify
# rows); env; V's verdicts against S's (fb2bc86, verified in session 24:
# covers f76c1a3's review, 7cdd81c and 1a4cea4 together); U's only if V's differ
set -u
cd "$(dirname "$0")/.."
scripts/gpu-verify.sh rows 3 gpu-new/dotfuzz-T gpu-new/dotfuzz-U gpu-new/dotfuzz-V
grep -E 'on the device|laid out' $OUT/rows.txt | sed 's/(events.*//;s/then waiting.*//' | cut -c1-200
cp gpu-new/dotfuzz-V dotfuzz
export DOTFUZZ_COMMIT=1a4cea4
scripts/gpu-verify.sh env
scripts/gpu-verify.sh ab gpu-new/dotfuzz-S 0
rm -f $OUT/ab.txt
if grep -q "DIFFERENT" $OUT/ab-identity.txt; then
  mv $OUT/ab-identity.txt $OUT/ab-identity-V.txt
  cp gpu-new/dotfuzz-U dotfuzz
  scripts/gpu-verify.sh ab gpu-new/dotfuzz-S 0
  mv $OUT/ab-identity.txt $OUT/ab-identity-U.txt
  rm -f $OUT/ab.txt
fi
date -u +%H:%M:%S
