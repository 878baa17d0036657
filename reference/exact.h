/* exact.h — the exact dot product of any f32, f64 or i32 vectors, held as a
 * long fixed-point number and rounded correctly from it: to double (head and
 * tail), to float, and the error of any result against it.
 *
 * Every finite input is taken as its integer significand times a power of
 * two, so every product is an exact integer times a power of two and the
 * sum is formed with integer additions only: no rounding, no underflow, no
 * overflow at any point, for every finite input (subnormals included).
 * reference/exact.c says how, and where each idea comes from.
 *
 * Allocation-free and stateless: df_exact_dot keeps its working state
 * (about 40 KiB) on the stack; the result is a plain value (df_exact, about
 * 600 bytes) that can be copied and kept.
 */
#ifndef DOTFUZZ_EXACT_H
#define DOTFUZZ_EXACT_H

#include <stdint.h>

#include "fuzz/case.h"
#include "reference/int_exact.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the exact dot of a case is (df_exact.kind). */
enum {
    DF_EXACT_FINITE = 0,  /* finite inputs: s is a real number */
    DF_EXACT_NAN = 1,     /* a NaN input, a product 0 * Inf, or Inf products of both signs */
    DF_EXACT_POS_INF = 2, /* Inf inputs whose products are all +Inf (or finite) */
    DF_EXACT_NEG_INF = 3, /* the same with -Inf */
};

/* |s| is kept as DF_EXACT_DIGITS 32-bit digits, digit j worth
 * 2^(32 j + DF_EXACT_LSB). The range covers every f64 dot of up to 2^64
 * terms: products lie in [2^-2148, 2^2048) (4288 bits with the count, the
 * size of Kulisch's accumulator for binary64). */
#define DF_EXACT_DIGITS 136
#define DF_EXACT_LSB (-2176)

typedef struct df_exact {
    int kind;       /* DF_EXACT_FINITE, _NAN, _POS_INF or _NEG_INF */
    /* Finite kind: hi = RN_double(s), lo = RN_double(s - hi), both with
     * gradual underflow, so hi + lo = s whenever s - hi is a double (s of at
     * most 107 significant bits with no underflow in lo). When |s| rounds
     * past DBL_MAX, hi = +-Inf and lo = 0. Non-finite kinds: hi is that
     * NaN or Inf and lo = 0. */
    double hi, lo;
    float f32;      /* RN_float(s), rounded from s itself, never from hi
                       (no double rounding); +-Inf past FLT_MAX */
    int sign;       /* -1, 0 or +1: the sign of s (0 for NaN and for s = 0) */
    int is_zero;    /* s is exactly zero (finite kind only) */
    int top;        /* index of the highest non-zero digit of mag, -1 if s = 0 */
    int bot;        /* index of the lowest non-zero digit of mag, DF_EXACT_DIGITS if s = 0 */
    uint32_t mag[DF_EXACT_DIGITS]; /* |s| (finite kind); all zero otherwise */
} df_exact;

/* The exact dot of a[0..n) and b[0..n), elements of type t. f32 and f64
 * data go through the superaccumulator; i32 data through df_exact_dot_int
 * (int_exact.h). Non-finite inputs give the IEEE class of the sum: NaN if
 * any input is NaN, some product is 0 * Inf, or infinite products of both
 * signs occur; otherwise the signed Inf. Returns 0, or -1 for an unknown
 * type or NULL vectors with n > 0 (*out is then a NaN kind). */
int df_exact_dot(df_type t, const void *a, const void *b, uint64_t n,
                 df_exact *out);

/* The exact dot as df_exact_dot writes it, from its value v when that is
 * already known (integer data): the same fields, bit for bit, as
 * df_exact_dot on the data gives, without its pass over them. Leaves the
 * padding of *out alone, as df_exact_dot does. */
void df_exact_of_int(df_i128 v, df_exact *out);
/* The same from k finite doubles whose sum is the value (terms each of which
 * is exact, as a superaccumulator's bins give them). */
void df_exact_of_doubles(const double *x, unsigned k, df_exact *out);

/* A running exact sum, for a dot made in parts (df_refs_part, reference.h):
 * each part's own, merged in any order with integer additions, so the
 * total is exact whatever the split. The superaccumulator's signed 32-bit
 * digits, of which only the window [lo, hi) is kept (about 1.1 KiB). */
typedef struct df_exact_acc {
    int64_t d[DF_EXACT_DIGITS];
    int lo, hi;
} df_exact_acc;

void df_exact_acc_init(df_exact_acc *A);
/* Adds the dot of n finite f32 or f64 pairs. Returns 0, or -1 when some
 * input is not finite, the type is not a float type or the vectors are
 * NULL (A then holds part of it: start again). */
int df_exact_acc_dot(df_exact_acc *A, df_type t, const void *a, const void *b, uint64_t n);
/* Adds the 128-bit integer hi 2^64 + lo (two's complement). */
void df_exact_acc_add_int(df_exact_acc *A, int64_t hi, uint64_t lo);
/* Adds a finite double, exactly. */
void df_exact_acc_add_double(df_exact_acc *A, double x);
/* dst += src. */
void df_exact_acc_merge(df_exact_acc *dst, const df_exact_acc *src);
/* The sum as df_exact_dot writes a finite dot of that value. */
void df_exact_acc_out(df_exact_acc *A, df_exact *out);

/* out = -s, every field as df_exact_dot writes it for a dot of -s (the
 * class's sign flipped for Inf; NaN and zero as they are). */
void df_exact_negate(const df_exact *s, df_exact *out);

/* out = s 2^k (|k| < 32), every field as df_exact_dot writes it for a dot
 * of that value; 0, or -1 (out untouched) where s is not finite or a bit
 * would leave the digits. */
int df_exact_scale(const df_exact *s, int k, df_exact *out);

/* |r - s| correctly rounded to double (round to nearest even, gradual
 * underflow, +Inf past DBL_MAX), computed from the digits of s, so it is
 * exact to the last bit even when |s| is tiny beside the products (hi + lo
 * would not be). Non-finite cases: 0 when r is the same NaN/Inf class as s,
 * +Inf otherwise (also for a NaN or Inf r against a finite s). */
double df_exact_abs_err(const df_exact *s, double r);

/* ulp_T(s), the spacing of format T around s: 2^(max(E, emin) - p + 1) with
 * E = floor(log2 |s|) capped at emax, and (p, emin, emax) = (24, -126, 127)
 * for DF_F32, (53, -1022, 1023) for DF_F64; 1 for DF_I32. For s = 0 it is
 * the smallest subnormal (2^-149, 2^-1074). NaN for non-finite s. */
double df_exact_ulp(const df_exact *s, df_type result_type);

/* The error of a result r in ulps of the result type at s:
 * |r - s| / ulp_T(s), correctly rounded to double (it is |r - s| scaled by a
 * power of two, rounded once from the exact difference). A correctly
 * rounded finite result has at most 0.5: hi for DF_F64, f32 for DF_F32.
 * Non-finite cases as df_exact_abs_err. */
double df_ulp_error(const df_exact *s, df_type result_type, double r);

#ifdef __cplusplus
}
#endif
#endif
