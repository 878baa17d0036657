/* refs_internal.h — what the references' files share and nothing outside
 * reference/ sees: a span's classes (maxima, integrality, non-finite
 * values) and its exact integer dot (int_exact.c), the 128-bit integers
 * they are added in, Kahan's state and its span (kahan.c), and the one
 * pass over a case that df_refs_compute makes (reference.c), which
 * df_refs_compute_many (refs_many.c) makes in its own order.
 *
 * Data are read a span at a time: DF_REFS_SPAN elements, small enough that
 * a span of two f64 vectors (32 KiB) stays in L1 while it is classified,
 * summed exactly and summed by Kahan, so every pass reads memory once.
 */
#ifndef DOTFUZZ_REFS_INTERNAL_H
#define DOTFUZZ_REFS_INTERNAL_H

#include <stdint.h>

#include "reference/int_exact.h"
#include "reference/reference.h"

/* Elements per span: 2^11. */
#define DF_REFS_SPAN ((uint64_t)2048)

/* Largest magnitude the exact integer path accepts. */
#define DF_TWO31 2147483648.0

__extension__ typedef __int128 df_int128;
__extension__ typedef unsigned __int128 df_uint128;

/* What one pass over a span tells about one vector. The maximum is taken
 * over IEEE bit patterns with the sign cleared: for non-negative floats the
 * bit order is the value order, and NaN > Inf > every finite value, so one
 * integer max reduction (vectorizable without -ffast-math, unlike a
 * floating-point max) yields the max magnitude and both non-finite flags. */
typedef struct df_span_class {
    double max_abs;   /* largest |x|; meaningful when !nonfinite */
    int nonfinite;    /* some x is NaN or +-Inf */
    int nan;          /* some x is NaN */
    int nonint;       /* some finite x is not an integer */
} df_span_class;

/* The classes of x[off, off + len), elements of type t. */
df_span_class df_classify(df_type t, const void *x, uint64_t off, uint64_t len);
/* The same for f32 data from x. */
df_span_class df_classify_f32(const float *x, uint64_t len);

/* The exact integer path applies: finite integers of magnitude <= 2^31,
 * so every product fits in int64 (|a b| <= 2^62). */
static inline int df_exact_eligible(df_span_class ka, df_span_class kb)
{
    return !ka.nonfinite && !kb.nonfinite && !ka.nonint && !kb.nonint &&
           ka.max_abs <= DF_TWO31 && kb.max_abs <= DF_TWO31;
}

/* The exact dot of the eligible span [off, off + len), whose vectors'
 * largest magnitudes are max_a and max_b. */
df_int128 df_exact_span(df_type t, const void *a, const void *b, uint64_t off, uint64_t len,
                        double max_a, double max_b);

static inline df_i128 df_i128_pack(df_int128 v)
{
    df_uint128 u = (df_uint128)v;
    df_i128 r = {(int64_t)(uint64_t)(u >> 64), (uint64_t)u};
    return r;
}

static inline df_int128 df_i128_unpack(df_i128 v)
{
    df_uint128 u = ((df_uint128)(uint64_t)v.hi << 64) | v.lo;
    return (df_int128)u;
}

/* Running state of the Kahan sum and of G, carried across spans so that
 * spans do not change the order of operations. */
typedef struct df_kahan_state {
    double s, c;  /* Kahan sum and compensation */
    double g;     /* recursive sum of |p_i| (G) */
    double maxp;  /* largest |p_i| (tells whether i32 products rounded) */
} df_kahan_state;

/* Kahan's sum and G over [off, off + len), as written: one chain. */
void df_kahan_span(df_type t, const void *a, const void *b, uint64_t off, uint64_t len,
                   df_kahan_state *st);
/* The same state over integer data whose partial sums are all exact (see
 * kahan.c), in vector lanes. */
void df_exact_sum_span(df_type t, const void *a, const void *b, uint64_t off, uint64_t len,
                       df_kahan_state *st);
/* The rigorous bound on |kahan - exact| from the final state of n terms. */
double df_kahan_bound(df_type t, uint64_t n, const df_kahan_state *st);

/* One pass over a case's data, filling out but for Kahan's sum: returns
 * where Kahan's sum must go on from (*st as it stands; n when done). With
 * run_kahan the pass runs it; with fp_later (f32 data) the exact dot is
 * left to the lanes' bins (*fp_later set); with no_fp it is not made. */
uint64_t df_refs_scan(df_type t, const void *a, const void *b, uint64_t n, df_refs *out,
                      df_kahan_state *st, int run_kahan, int *fp_later, int no_fp);
/* Kahan's sum, G and the bound into out, from the final state. */
void df_refs_kahan_out(df_type t, uint64_t n, const df_kahan_state *st, df_refs *out);
/* out->fp, when finite, as the exact dot known with its head and tail. */
void df_refs_fp_out(df_refs *out);

/* refs_lowp.c: where every partial sum of the products of a chunk's f32
 * values wa, wb (len <= DF_REFS_CHUNK) of low-precision type t is exact in
 * double, Kahan's state from zero over them into st, and 1 (st->s is then
 * the chunk's exact dot); else 0, st untouched. */
int df_lowp_sums_exact(df_type t, const float *wa, const float *wb, uint64_t len,
                       df_kahan_state *st);

/* widen.c: chunk j (DF_REFS_CHUNK elements) of low-precision vectors a, b
 * of n elements, as floats in the calling thread's buffers (valid until
 * its next call); returns the chunk's length. The chunks of n elements:
 * df_widen_chunks. */
uint64_t df_widen_chunk(df_type t, const void *a, const void *b, uint64_t n, uint64_t j,
                        const float **wa, const float **wb);
static inline uint64_t df_widen_chunks(uint64_t n)
{
    return (n + DF_REFS_CHUNK - 1) / DF_REFS_CHUNK;
}

#endif
