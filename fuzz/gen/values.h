/* values.h — the generator's value families (generator.h's DF_FAM_*): what
 * fills a case's vectors from its PCG32 stream once its family and shape are
 * drawn. Host C (fuzz/gen/generator.c) and CUDA device code (the cuda
 * backend's df_cuda_devgen) compile the same text, so the GPU fills a
 * case from the same stream with the same bytes: every value is made by
 * integer operations and IEEE operations whose rounding is fixed (+ - * /,
 * fma, conversions, ldexp, frexp), nothing fused that the text does not fuse
 * (-ffp-contract=off, nvcc --fmad=false), nothing flushed (nvcc's default
 * -ftz=false).
 *
 * The pieces, each included here:
 *   values_base.h      the host/device qualifiers and the draws and exact
 *                      helpers every family builds on
 *   values_families.h  every family but cond
 *   values_cond.h      cond (GenDot) and its exact running sum
 *   values_long.h      cases past DF_GEN_CHUNK, made in chunks
 *   values_lowp.h      the f16, bf16, e4m3 and e5m2 families (made whole)
 *   values_lanes.h     a whole case made by a warp's lanes together
 * df_fill_values dispatches on the family id. */
#ifndef DOTFUZZ_VALUES_H
#define DOTFUZZ_VALUES_H

#include <stdint.h>

#include "fuzz/gen/values_base.h"
#include "fuzz/gen/values_cond.h"
#include "fuzz/gen/values_families.h"
#include "fuzz/gen/values_long.h"
#include "fuzz/gen/values_lowp.h"
#include "fuzz/gen/values_lanes.h"

/* Fills a[0..n) and b[0..n) of type t with family `family`'s values from
 * r, as df_generate does after the family and shape draws. Returns 0, or
 * -1 for an unknown family. */
DF_VAL int df_fill_values(uint32_t family, df_pcg32 *r, df_type t, void *a, void *b,
                          uint64_t n)
{
    switch (family) { /* the low-precision families: whole, at any n */
    case DF_FAM_LP_RANGE: df_fill_lp_range(r, t, a, b, n); return 0;
    case DF_FAM_LP_SUBNORMAL: df_fill_lp_subnormal(r, t, a, b, n); return 0;
    case DF_FAM_LP_SPECIAL: df_fill_lp_special(r, t, a, b, n); return 0;
    case DF_FAM_LP_CANCEL: df_fill_lp_cancel(r, t, a, b, n); return 0;
    }
    if (n > DF_GEN_CHUNK)
        return df_fill_long(family, r, t, a, b, n);
    switch (family) {
    case DF_FAM_INT_SMALL: df_fill_int_small(r, t, a, b, n); return 0;
    case DF_FAM_UNIFORM: df_fill_uniform(r, t, a, b, n); return 0;
    case DF_FAM_INT_WIDE: df_fill_int_wide(r, t, a, b, n); return 0;
    case DF_FAM_COND: df_fill_cond(r, t, a, b, n); return 0;
    case DF_FAM_WIDE_EXP: df_fill_wide_exp(r, t, a, b, n); return 0;
    case DF_FAM_SPECIAL: df_fill_special(r, t, a, b, n); return 0;
    case DF_FAM_SPARSE: df_fill_sparse(r, t, a, b, n); return 0;
    case DF_FAM_CONSTANT: df_fill_constant(r, t, a, b, n); return 0;
    case DF_FAM_CANCEL: df_fill_cancel(r, t, a, b, n); return 0;
    case DF_FAM_INT_BIG: df_fill_int_big(r, t, a, b, n); return 0;
    case DF_FAM_FEW_TERMS: df_fill_few_terms(r, t, a, b, n); return 0;
    case DF_FAM_INT_FACTOR: df_fill_int_factor(r, t, a, b, n); return 0;
    }
    return -1;
}

#endif
