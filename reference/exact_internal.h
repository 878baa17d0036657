/* exact_internal.h — what the exact dot's files share and nothing outside
 * reference/ sees: the long accumulator's digits (df_exact_acc, exact.h)
 * and the adds into them, inline so that the buckets' flushes in exact.c
 * run them without a call; and the results made from a finished sum
 * (exact_round.c).
 *
 * value = sum d[j] * 2^(32 j + DF_EXACT_LSB) over the window [lo, hi);
 * digits outside it are zero (and not stored: the window grows, zeroing
 * what it takes in, so a short dot touches a few digits instead of 136).
 * Digits are signed and may exceed 32 bits between normalizations (each
 * flush adds fewer than 2^11 terms below 2^33 to any digit, far from
 * int64's limit).
 */
#ifndef DOTFUZZ_EXACT_INTERNAL_H
#define DOTFUZZ_EXACT_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "reference/exact.h"

/* Headroom: an add at digit j is below 2^64 at bit 32 j + 31 at most, so
 * 2^64 of them stay below 2^(32 j + 159) < 2^(32 (j + 4) + 63), which a
 * window reaching digit j + 4 holds in its signed top digit. */
#define DF_ACC_HEADROOM 5

static inline void df_acc_init(df_exact_acc *A)
{
    A->lo = A->hi = 0;
}

/* Grows the window to hold [lo, hi), zeroing the digits it takes in. */
static inline void df_acc_cover(df_exact_acc *A, int lo, int hi)
{
    if (A->lo == A->hi) {
        memset(A->d + lo, 0, (size_t)(hi - lo) * sizeof A->d[0]);
        A->lo = lo, A->hi = hi;
        return;
    }
    if (lo < A->lo) {
        memset(A->d + lo, 0, (size_t)(A->lo - lo) * sizeof A->d[0]);
        A->lo = lo;
    }
    if (hi > A->hi) {
        memset(A->d + A->hi, 0, (size_t)(hi - A->hi) * sizeof A->d[0]);
        A->hi = hi;
    }
}

/* Adds (neg ? -v : v) * 2^(pos + DF_EXACT_LSB); pos is a bit index >= 0. */
static inline void df_acc_add64(df_exact_acc *A, int pos, uint64_t v, int neg)
{
    int j = pos >> 5;
    df_acc_cover(A, j, j + DF_ACC_HEADROOM <= DF_EXACT_DIGITS ? j + DF_ACC_HEADROOM
                                                              : DF_EXACT_DIGITS);
    /* < 2^95: three digits */
    __extension__ unsigned __int128 w = (unsigned __int128)v << (pos & 31);
    int64_t p0 = (int64_t)(w & UINT64_C(0xffffffff));
    int64_t p1 = (int64_t)((w >> 32) & UINT64_C(0xffffffff));
    int64_t p2 = (int64_t)(uint64_t)(w >> 64);
    if (neg) {
        A->d[j] -= p0;
        A->d[j + 1] -= p1;
        A->d[j + 2] -= p2;
    } else {
        A->d[j] += p0;
        A->d[j + 1] += p1;
        A->d[j + 2] += p2;
    }
}

__extension__ static inline void df_acc_add128(df_exact_acc *A, int pos, unsigned __int128 v,
                                               int neg)
{
    df_acc_add64(A, pos, (uint64_t)v, neg);
    if (v >> 64)
        df_acc_add64(A, pos + 64, (uint64_t)(v >> 64), neg);
}

/* The integer v (an exact dot of integer data) into the digits. */
static inline void df_acc_add_int(df_exact_acc *A, df_i128 v)
{
    __extension__ unsigned __int128 u = ((unsigned __int128)(uint64_t)v.hi << 64) | v.lo;
    int negative = v.hi < 0;
    df_acc_add128(A, -DF_EXACT_LSB, negative ? (unsigned __int128)0 - u : u, negative);
}

/* Propagates carries: every digit of the window into [0, 2^32) except the
 * top one, which keeps the sign: the carry out of the top (0, or -1 for a
 * negative total, given the headroom) is folded back into it. floor(t /
 * 2^32) is taken exactly, without relying on >> of a negative value. */
static inline void df_acc_normalize(df_exact_acc *A)
{
    const int64_t two32 = (int64_t)1 << 32;
    int64_t c = 0;
    for (int j = A->lo; j < A->hi; j++) {
        int64_t t = A->d[j] + c;
        c = (t - (int64_t)((uint64_t)t & UINT64_C(0xffffffff))) / two32;
        A->d[j] = t - c * two32;
    }
    if (A->hi > A->lo)
        A->d[A->hi - 1] += c * two32;
}

/* A finite x != 0 as |x| = q 2^(pos + DF_EXACT_LSB), q < 2^53: returns pos. */
static inline int df_double_digits(double x, uint64_t *q)
{
    int e;
    double f = frexp(fabs(x), &e); /* |x| = f 2^e, f in [0.5, 1) */
    *q = (uint64_t)ldexp(f, 53);   /* exact: |x| = q 2^(e - 53) */
    return e - 53 - DF_EXACT_LSB;  /* >= -1073 - 53 + 2176 */
}

/* out as df_exact_dot writes a finite dot whose sum is in A (A is
 * normalized on the way). */
void df_exact_set_finite(df_exact *out, df_exact_acc *A);
/* out as df_exact_dot writes a dot of the non-finite kind. */
void df_exact_set_nonfinite(df_exact *out, int kind);

#endif
