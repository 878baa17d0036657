/* registry.c — the table of mutants: known-buggy variants of the correct
 * kernels, one bug each (kernels/mutants/README.md lists them). They are
 * not fuzzed by `--kernel all`; df_kernel_find finds them by name. */
#include <stddef.h>

#include "kernels/kernel.h"

extern const df_kernel df_mutant_no_zero, df_mutant_tail,
    df_mutant_read_past_end, df_mutant_wrong_copy_size, df_mutant_no_sync,
    df_mutant_nonatomic, df_mutant_claims_det, df_mutant_wild_read, df_mutant_hang,
    df_mutant_grid_clamp;
extern const df_kernel df_mutant_pow2_tree, df_mutant_stride_off_by_one;
extern const df_kernel df_mutant_fold_bounds, df_mutant_tournament_bounds;
extern const df_kernel df_mutant_int16_sum, df_mutant_vec_tail, df_mutant_int32_acc;
extern const df_kernel df_mutant_zero_inside, df_mutant_no_fence, df_mutant_shfl_divergent;
extern const df_kernel df_mutant_rz_acc, df_mutant_bf16_products, df_mutant_mul24;
extern const df_kernel df_mutant_idx32, df_mutant_fp8_fast_accum, df_mutant_wgmma_fp32,
    df_mutant_cublaslt_splitk;
extern const df_kernel df_mutant_half2_f32_declared;
extern const df_kernel df_mutant_blas_neg_wrong_end, df_mutant_blas_neg_skipped,
    df_mutant_blas_zero_inc, df_mutant_blas_overrun;

static const df_kernel *const mutants[] = {
    &df_mutant_no_zero,         &df_mutant_tail,
    &df_mutant_pow2_tree,       &df_mutant_stride_off_by_one,
    &df_mutant_wrong_copy_size, &df_mutant_fold_bounds,
    &df_mutant_tournament_bounds, &df_mutant_no_sync,
    &df_mutant_nonatomic,       &df_mutant_claims_det,
    &df_mutant_read_past_end,   &df_mutant_int16_sum,
    &df_mutant_vec_tail,        &df_mutant_int32_acc,
    &df_mutant_wild_read,       &df_mutant_hang,
    &df_mutant_zero_inside,     &df_mutant_no_fence,
    &df_mutant_shfl_divergent,
    &df_mutant_rz_acc,          &df_mutant_bf16_products,
    &df_mutant_mul24,           &df_mutant_grid_clamp,
    &df_mutant_idx32,           &df_mutant_fp8_fast_accum,
    &df_mutant_wgmma_fp32,      &df_mutant_half2_f32_declared,
    &df_mutant_blas_neg_wrong_end, &df_mutant_blas_neg_skipped,
    &df_mutant_blas_zero_inc,   &df_mutant_blas_overrun,
    &df_mutant_cublaslt_splitk,
};

size_t df_mutant_count(void) { return sizeof mutants / sizeof mutants[0]; }

const df_kernel *df_mutant_at(size_t i)
{
    return i < df_mutant_count() ? mutants[i] : NULL;
}
