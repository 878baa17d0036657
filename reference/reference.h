/* reference.h — CPU references for a dot product: the Kahan-compensated
 * dot, G = sum |a_i b_i|, and df_refs, everything the oracle needs about a
 * case's inputs (the exact dots of exact.h and int_exact.h among them).
 *
 * All functions read vectors of element type t (float, double or int32_t),
 * allocate nothing and keep no state.
 */
#ifndef DOTFUZZ_REFERENCE_H
#define DOTFUZZ_REFERENCE_H

#include <stdint.h>

#include "fuzz/case.h"
#include "reference/exact.h"
#include "reference/int_exact.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kahan-compensated dot in double. f32 products are exact in double; i32
 * products are exact below 2^53 and rounded once above; f64 products are
 * rounded once. *err_bound receives a rigorous bound on |result - exact|
 * for finite inputs without overflow: (2u + 4n u^2) * sum|p_i| (Higham's
 * bound for Kahan summation, u = 2^-53), plus u * G for rounded products
 * and n * 2^-1074 for f64 underflow. */
double df_kahan_dot(df_type t, const void *a, const void *b, uint64_t n,
                    double *err_bound);

/* G = sum |a_i b_i| in double (products exact for f32 and i32). */
double df_abs_dot(df_type t, const void *a, const void *b, uint64_t n);

/* Everything the oracle needs about a case's inputs, computed once. */
typedef struct df_refs {
    int exact_known;     /* the exact dot is known: integer data, or any finite
                            float data through the superaccumulator */
    int exact_is_int;    /* exact holds it as an integer (integer data) */
    df_i128 exact;       /* valid when exact_is_int */
    double exact_hi, exact_lo; /* head+tail of exact (when known) */
    int fp_known;        /* fp holds the exact dot (finite f32/f64 inputs) */
    df_exact fp;         /* digits of s: exact |r - s| and ULP errors */
    double kahan;        /* Kahan reference, always computed */
    double kahan_err;    /* bound on |kahan - exact| */
    double G;            /* sum |a_i b_i| */
    int all_integer;     /* every element is an integer */
    int has_nonfinite;   /* some input is NaN or +-Inf */
    int has_nan;         /* some input is NaN */
    /* inputs holding +-Inf and no NaN (has_nonfinite, !has_nan): */
    double inf_want;     /* the class any order of the sum gives: NaN when
                            some product is 0 * Inf or infinite products of
                            both signs exist, else Inf of their sign */
    double fin_g;        /* sum |a_i b_i| over the finite products, which
                            could overflow on their own */
    double max_abs_a, max_abs_b;
} df_refs;

void df_refs_compute(df_type t, const void *a, const void *b, uint64_t n,
                     df_refs *out);

/* The references of the same case with a negated (a -> -a: no NaN in it,
 * no INT32_MIN in an i32 a), from the case's own, without reading the
 * data: under round-to-nearest fl(-x) = -fl(x), so every nonzero sum the
 * references form changes sign alone (Kahan's, the exact dot, an
 * infinity's class), and G, the classes and the maxima stay. A zero's sign
 * is the order's (x + -x is +0 either way), so a Kahan sum of zero (or
 * NaN) is not derived. Returns 0 with out bit for bit df_refs_compute's on
 * the negated data, or -1 (out untouched) where it cannot tell. */
int df_refs_negated(df_type t, const df_refs *in, df_refs *out);

/* The references of a case with its pairs (a_i, b_i) permuted, from the
 * case's own (in) and one Kahan pass over the permuted data (a, b): the
 * exact dot, the classes and the maxima do not depend on the order; Kahan's
 * sum, G and its bound are made again. Returns 0 with out bit for bit
 * df_refs_compute's on the permuted data, or -1 (out untouched) for data
 * holding NaN or Inf (the finite products' sum is the order's) or longer
 * than DF_REFS_CHUNK (Kahan's sum restarts at each chunk there). */
int df_refs_permuted(df_type t, const void *a, const void *b, uint64_t n, const df_refs *in,
                     df_refs *out);

/* The references of an f32 case with a scaled by 2^k, exactly (every
 * a_i and 2^k a_i normal or zero: df_scale_is_exact), from the case's own
 * (in) and one pass over the scaled a and b for their classes (integers or
 * not, the maxima): every sum the references form scales exactly, and the
 * exact dot's digits move k places. a is the scaled vector. Returns 0 with
 * out bit for bit df_refs_compute's on the scaled data, or -1 (out
 * untouched) where it cannot tell: not f32, longer than DF_REFS_CHUNK,
 * non-finite data, the data not in's scaled, or data that became integers
 * (whose integer dot is not at hand). */
int df_refs_scaled(df_type t, const void *a, const void *b, uint64_t n, int k,
                   const df_refs *in, df_refs *out);

/* Cases longer than DF_REFS_CHUNK are referenced a chunk of it at a time:
 * each chunk's part (df_refs_part_compute) from its elements alone, then
 * the parts merged in chunk order (df_refs_merge_*), so that many threads
 * can reference one case; df_refs_compute does the same on one thread.
 * What merges exactly (the exact dot, the classes, the maxima) is the
 * case's as a whole; Kahan's sum restarts at each chunk and the chunks'
 * sums are added exactly and rounded once (its bound: the chunks' bounds
 * plus that rounding), and G and the finite products' sum are added chunk
 * by chunk in order. */
#define DF_REFS_CHUNK (UINT64_C(1) << 16)
static inline uint64_t df_refs_chunks(uint64_t n)
{
    return n > DF_REFS_CHUNK ? (n + DF_REFS_CHUNK - 1) / DF_REFS_CHUNK : 0;
}

typedef struct df_refs_part {
    double max_abs_a, max_abs_b; /* +Inf where the chunk's vector is not finite */
    double s, g, maxp;           /* its Kahan sum from zero, its G, its largest |p| */
    double fin_g;                /* its finite products' sum */
    df_i128 total;               /* eligible: its exact integer dot */
    unsigned inf_seen;           /* which infinite products it has (reference.c) */
    uint8_t nonfinite, nan, all_integer, eligible, has_acc;
    df_exact_acc acc;            /* has_acc (finite floats, not eligible): its exact dot */
} df_refs_part;

/* Chunk j of the case of n elements. */
void df_refs_part_compute(df_type t, const void *a, const void *b, uint64_t n, uint64_t j,
                          df_refs_part *out);

typedef struct df_refs_merger {
    df_refs_part p;    /* the parts so far, merged */
    df_exact_acc fp;   /* the exact dot so far */
    df_exact_acc sums; /* the chunks' Kahan sums, exactly */
    uint64_t parts;
    int finite_s;      /* every chunk's Kahan sum finite */
} df_refs_merger;

void df_refs_merge_init(df_refs_merger *m);
/* The parts in chunk order, 0 first. */
void df_refs_merge_add(df_refs_merger *m, const df_refs_part *p);
/* The case's references from all its parts. */
void df_refs_merge_out(df_refs_merger *m, df_type t, uint64_t n, df_refs *out);

/* df_refs_compute for m cases at once, each out bit for bit the same: 16
 * at a time, the Kahan sums of up to sixteen cases of one element type run
 * side by side in vector lanes (Kahan is four dependent additions an
 * element, so one sum alone leaves the core mostly waiting), f32 cases'
 * exact dots extracted beside them, while the next 16 cases' data are
 * brought into the core's cache. Made for short vectors: each case's data
 * is read twice, after the other cases' first pass (integer data whose
 * sums stay below 2^53 once: their Kahan sum is exact). */
typedef struct df_refs_job {
    df_type t;
    const void *a, *b;
    uint64_t n;
    df_refs *out;
} df_refs_job;
void df_refs_compute_many(const df_refs_job *jobs, size_t m);
/* df_refs_permuted of m jobs, each job's out holding its case's own
 * references on entry (a permutation keeps all but Kahan's sum, G and the
 * bound): their Kahan sums side by side in vector lanes, as
 * df_refs_compute_many runs them (each lane's additions in its own sum's
 * order: the sum kahan's loop makes alone). ok[i]: 1 where job i's out is
 * then df_refs_permuted's, 0 where df_refs_permuted refuses it (out as on
 * entry). */
void df_refs_permuted_many(const df_refs_job *jobs, size_t m, unsigned char *ok);

/* The exact dot of finite f32 data the way df_refs_compute_many finds it
 * beside the Kahan sums (refs_many.c: the products pre-rounded into three
 * bins of fixed units, exact while the products' bits span about 3 (50 -
 * log2 n) places): 0 with *out as df_exact_dot gives it, or -1 where that
 * does not hold (then df_exact_dot does it). For the tests. */
int df_exact_bins_f32(const float *a, const float *b, uint64_t n, df_exact *out);

#ifdef __cplusplus
}
#endif
#endif
