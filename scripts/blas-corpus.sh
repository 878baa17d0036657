#!/usr/bin/env bash
# Writes the BLAS regression cases into corpus/regression (docs/blas.md):
#  - sblat1-sdot-*: the SDOT cases of reference BLAS's test program
#    (Reference-LAPACK/lapack, BLAS/TESTING/sblat1.f, CHECK2: the arrays
#    DX1 and DY1, n in NS = {0, 1, 2, 4}, the increment pairs INCXS/INCYS
#    = (1, 1), (2, -2), (-2, 1), (-1, -2)); the test expects DT7's values;
#  - rocblas-dot-n*: rocBLAS's dot sizes (ROCm/rocBLAS,
#    clients/gtest/dot_gtest.yaml: N in {-1, 0, 5, 10, 500, 1000, 1024,
#    1025, 7111, 10000, 33792}), unit increments, integers in [-5, 5] and
#    [-3, 3] so that every order gives the exact dot.
# Run from the repository root after `make`; it rewrites only these files.
set -euo pipefail
DF=${DF:-./dotfuzz}
out=corpus/regression
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%s\n' 0.6 0.1 -0.5 0.8 0.9 -0.3 -0.4 >"$tmp/dx1"
printf '%s\n' 0.5 -0.9 0.3 0.7 -0.6 0.2 0.8 >"$tmp/dy1"
for pair in "1 1" "2 -2" "-2 1" "-1 -2"; do
  set -- $pair
  for n in 0 1 2 4; do
    "$DF" import "$tmp/dx1" "$tmp/dy1" --blas "$n,$1,$2" -o "$out/sblat1-sdot-n$n-x$1-y$2.f32" >/dev/null
  done
done

for n in -1 0 5 10 500 1000 1024 1025 7111 10000 33792; do
  m=$((n > 0 ? n : 0))
  awk -v m="$m" 'BEGIN { for (i = 0; i < m; i++) print (i * 7) % 11 - 5 }' >"$tmp/x"
  awk -v m="$m" 'BEGIN { for (i = 0; i < m; i++) print (i * 3) % 7 - 3 }' >"$tmp/y"
  "$DF" import "$tmp/x" "$tmp/y" --blas "$n,1,1" -o "$out/rocblas-dot-n$n.f32" >/dev/null
done
echo "blas-corpus: $(ls "$out"/sblat1-sdot-* "$out"/rocblas-dot-* | wc -l) files in $out"
