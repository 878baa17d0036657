/* kernels/blas_dot.cu — `ref-blas-sdot`, `ref-blas-ddot`: the reference
 * BLAS dot, arguments and all, as a kernel of the host backend; and its
 * mutants, the stride bugs BLAS libraries have shipped. Their card, models
 * and descriptors.
 *
 *   names       ref-blas-sdot (f32), ref-blas-ddot (f64); mutants
 *               m-blas-neg-wrong-end, m-blas-neg-skipped,
 *               m-blas-zero-inc, m-blas-overrun (f32)
 *   origin      dotfuzz: netlib's reference BLAS sdot/ddot (docs/blas.md)
 *   GPU code    none yet: host backend only
 *   host model  the reference loop on the call's buffers: nothing for
 *               n <= 0; ix starts at (1 - n) incx for incx < 0, else 0; each
 *               step adds x[ix] y[iy], the product rounded, then the sum,
 *               in the accumulator's type, in order
 *   h(n)        n: the first product's rounding and n - 1 additions
 *   differs     takes BLAS arguments (DF_K_BLAS): increments of any sign,
 *               zero, n <= 0
 *
 * The mutants, each one flaw in that loop:
 *   m-blas-neg-wrong-end  a negative increment read from the buffer's
 *                         start, as if |inc| (the vector reversed)
 *   m-blas-neg-skipped    a negative increment returns 0 without reading
 *                         (rocBLAS once returned success this way)
 *   m-blas-zero-inc       a zero increment taken as 1 (reads past the
 *                         one-element buffer)
 *   m-blas-overrun        n + 1 elements summed (a loop bound i <= n)
 */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include "kernels/blas.h"
#include "kernels/model_common.h"

typedef enum blas_flaw {
    FLAW_NONE,
    FLAW_NEG_WRONG_END,
    FLAW_NEG_SKIPPED,
    FLAW_ZERO_INC,
    FLAW_OVERRUN,
} blas_flaw;

/* Where step i reads at increment inc of an n-element call, as the loop
 * with flaw computes it. */
static int64_t blas_at(int64_t i, int64_t n, int32_t inc, blas_flaw flaw)
{
    if (flaw == FLAW_ZERO_INC && inc == 0)
        inc = 1;
    if (flaw == FLAW_NEG_WRONG_END && inc < 0)
        inc = -inc;
    int64_t start = inc < 0 ? (1 - n) * (int64_t)inc : 0;
    return start + i * (int64_t)inc;
}

/* The reference loop (with flaw) over c's buffers, in T. */
#define BLAS_LOOP(T, c, flaw, out)                                             \
    do {                                                                       \
        const T *x = (const T *)(c)->a, *y = (const T *)(c)->b;                \
        int64_t n = (c)->blas.n_arg, steps = n + ((flaw) == FLAW_OVERRUN);     \
        T acc = 0;                                                             \
        int skip = (flaw) == FLAW_NEG_SKIPPED && ((c)->blas.inc_a < 0 || (c)->blas.inc_b < 0); \
        for (int64_t i = 0; n > 0 && !skip && i < steps; i++) {                \
            T p = x[blas_at(i, n, (c)->blas.inc_a, flaw)] *                    \
                  y[blas_at(i, n, (c)->blas.inc_b, flaw)];                     \
            acc += p;                                                          \
        }                                                                      \
        (out)->f = acc;                                                        \
    } while (0)

/* k's loop over case c, a BLAS case of k's type (the backend makes a plain
 * case one with increments 1). */
static int blas_model(const df_kernel *k, const df_case *c, blas_flaw flaw, df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    if (!c->blas.on) {
        df_result_error(out, k->name, c, "a plain case: the backend gives BLAS arguments");
        return -1;
    }
    if (k->elem == DF_F64)
        BLAS_LOOP(double, c, flaw, out);
    else
        BLAS_LOOP(float, c, flaw, out);
    return 0;
}

extern const df_kernel df_kernel_ref_blas_sdot, df_kernel_ref_blas_ddot;
extern const df_kernel df_mutant_blas_neg_wrong_end, df_mutant_blas_neg_skipped,
    df_mutant_blas_zero_inc, df_mutant_blas_overrun;

#define BLAS_MODEL(fn, kernel, flaw)                                           \
    static int fn(const df_case *c, df_scratch *s, df_result *out)             \
    {                                                                          \
        (void)s;                                                               \
        return blas_model(&kernel, c, flaw, out);                              \
    }
BLAS_MODEL(sdot_model, df_kernel_ref_blas_sdot, FLAW_NONE)
BLAS_MODEL(ddot_model, df_kernel_ref_blas_ddot, FLAW_NONE)
BLAS_MODEL(neg_wrong_end_model, df_mutant_blas_neg_wrong_end, FLAW_NEG_WRONG_END)
BLAS_MODEL(neg_skipped_model, df_mutant_blas_neg_skipped, FLAW_NEG_SKIPPED)
BLAS_MODEL(zero_inc_model, df_mutant_blas_zero_inc, FLAW_ZERO_INC)
BLAS_MODEL(overrun_model, df_mutant_blas_overrun, FLAW_OVERRUN)

static uint64_t sequential(uint64_t n, const df_launch *l)
{
    (void)l;
    return n ? n : 1;
}

#define BLAS_LAUNCH                                                            \
    .flags = DF_K_DETERMINISTIC | DF_K_BLAS, .block_min = 1, .block_max = 1,   \
    .block_default = 1, .grid_max = 1, .per_thread = 1, .max_n = 65536,        \
    .tree_height = sequential

const df_kernel df_kernel_ref_blas_sdot = {
    .name = "ref-blas-sdot", .origin = "dotfuzz",
    .summary = "reference BLAS sdot: increments of any sign, n <= 0 (host only)",
    .elem = DF_F32, .acc = DF_F32, BLAS_LAUNCH, .host_model = sdot_model};
const df_kernel df_kernel_ref_blas_ddot = {
    .name = "ref-blas-ddot", .origin = "dotfuzz",
    .summary = "reference BLAS ddot: increments of any sign, n <= 0 (host only)",
    .elem = DF_F64, .acc = DF_F64, BLAS_LAUNCH, .host_model = ddot_model};

#define BLAS_MUTANT(var, nm, sum, fn)                                          \
    const df_kernel var = {.name = nm, .origin = "dotfuzz (ref-blas-sdot)",    \
                           .summary = sum, .elem = DF_F32, .acc = DF_F32,      \
                           BLAS_LAUNCH, .host_model = fn}
BLAS_MUTANT(df_mutant_blas_neg_wrong_end, "m-blas-neg-wrong-end",
            "a negative increment read from the buffer's start: the vector reversed",
            neg_wrong_end_model);
BLAS_MUTANT(df_mutant_blas_neg_skipped, "m-blas-neg-skipped",
            "a negative increment returns 0 unread (rocBLAS's success without computing)",
            neg_skipped_model);
BLAS_MUTANT(df_mutant_blas_zero_inc, "m-blas-zero-inc",
            "a zero increment taken as 1: reads past its one-element buffer", zero_inc_model);
BLAS_MUTANT(df_mutant_blas_overrun, "m-blas-overrun",
            "n + 1 elements summed (a loop bound i <= n): one past the footprint",
            overrun_model);
#endif
