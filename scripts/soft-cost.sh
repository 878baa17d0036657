#!/usr/bin/env bash
# scripts/soft-cost.sh — the cost of soft-error reporting:
# builds tools/soft_cost.cu three times, with DF_SOFT_MODE 0 (no reporting),
# 1 (printf) and 2 (the atomicCAS slot, kernels/soft_error.h), prints the
# ptxas lines it parsed for each instrumented kernel (registers and spills
# per mode), runs each build on GPU 0 and writes the joined Markdown table
# to OUT (also to stdout).
#   usage: scripts/soft-cost.sh OUT.md [log2 n (default 28)]
#   env:   NVCC (default nvcc), CUDA_ARCH (default sm_90), BUILD (default build),
#          SOFT_COST_PREBUILT=1 (use the builds already in BUILD/soft-cost)
set -euo pipefail
out=${1:?usage: scripts/soft-cost.sh OUT.md [log2 n]}
lg=${2:-28}
cd "$(dirname "$0")/.."
nvcc=${NVCC:-nvcc}
arch=${CUDA_ARCH:-sm_90}
dir=${BUILD:-build}/soft-cost
mkdir -p "$dir" "$(dirname "$out")"
kernels='df_shfl_kernelIffE|df_fold_round_kernel|df_tournament_round_kernel|df_shadow_init_kernel|df_round_shadow_kernel|atomic_block_kernel|int_atomic_kernelILb0E'
modes=(none printf slot)
ptx_table="$dir/ptxas.md"
printf '| kernel (mangled) | mode | ptxas: registers | ptxas: spill stores/loads | ptxas: stack |\n|---|---|---|---|---|\n' >"$ptx_table"
for m in 0 1 2; do
    # SOFT_COST_PREBUILT=1: the three builds and their ptxas logs are in
    # $dir already (made on a machine with nvcc and no GPU, carried over)
    [ "${SOFT_COST_PREBUILT:-0}" = 1 ] && [ -x "$dir/soft-cost-$m" ] ||
    "$nvcc" -std=c++17 -gencode "arch=compute_${arch#sm_},code=$arch" --fmad=false \
        -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -DDOTFUZZ_CUDA -O3 -I. \
        -DDF_SOFT_MODE=$m -Xptxas -v -o "$dir/soft-cost-$m" tools/soft_cost.cu \
        2>"$dir/ptxas-$m.txt"
    echo "== DF_SOFT_MODE=$m (${modes[$m]}): ptxas lines parsed"
    # "Function properties for F", "N bytes stack frame, S bytes spill stores,
    # L bytes spill loads", "Used R registers": one block per function
    awk -v re="$kernels" -v mode="${modes[$m]}" -v table="$ptx_table" '
        /Function properties for / { fn = $NF; keep = fn ~ re; if (keep) print; next }
        keep && /stack frame/ { print; stack = $1; st = $5; ld = $9; next }
        keep && /Used [0-9]+ registers/ {
            print
            for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1)
            printf "| `%s` | %s | %s | %s / %s | %s |\n", fn, mode, regs, st, ld, stack >> table
            keep = 0
        }' "$dir/ptxas-$m.txt"
done
{
    "$dir/soft-cost-0" --header "$lg"
    "$dir/soft-cost-1" "$lg" | grep -v '^soft error' || true
    "$dir/soft-cost-2" "$lg"
    echo
    echo "ptxas -v (registers, spills and stack per kernel, as compiled):"
    echo
    cat "$ptx_table"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
