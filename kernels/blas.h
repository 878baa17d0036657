/* kernels/blas.h — a case as a BLAS dot call: `dot(n, x, incx, y, incy)` with the
 * reference BLAS meaning (netlib's sdot/ddot; docs/blas.md writes it out):
 *
 *   n <= 0          the result is 0 and nothing is read;
 *   incx > 0        element i of the vector is x[i incx];
 *   incx < 0        element i is x[(n - 1 - i) |incx|]: the vector is read
 *                   from the end of its footprint, as reference BLAS does
 *                   (its first index is (1 - n) incx + 1, 1-based);
 *   incx = 0        every element is x[0].
 *
 * A case keeps its vectors as the n elements the call reads, in the order
 * it reads them (df_case.a and .b: what every reference, model and check
 * reads); df_blas says how the call's buffers hold them. The buffer of a
 * vector is its footprint, 1 + (n - 1) |inc| elements (1 when inc = 0, 0
 * when n = 0), and every element of it the call must not read holds the
 * type's guard value (NaN, or INT32_MIN for i32), so a routine that reads
 * one shows it in its result. With inc = 0 every element of the vector is
 * the same (the generator and import make it so).
 */
#ifndef DOTFUZZ_BLAS_H
#define DOTFUZZ_BLAS_H

#include <stdint.h>

#include "fuzz/case.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The buffer elements a vector of n elements takes at increment inc. */
static inline uint64_t df_blas_footprint(uint64_t n, int32_t inc)
{
    if (n == 0)
        return 0;
    uint64_t step = inc < 0 ? (uint64_t)(-(int64_t)inc) : (uint64_t)inc;
    return 1 + (n - 1) * step;
}

/* Where element i of n sits in its buffer at increment inc. */
static inline uint64_t df_blas_pos(uint64_t i, uint64_t n, int32_t inc)
{
    if (inc >= 0)
        return i * (uint64_t)inc;
    return (n - 1 - i) * (uint64_t)(-(int64_t)inc);
}

/* Whether a call given n_arg reads vectors of n elements: n = n_arg when
 * n_arg > 0, else 0. */
static inline int df_blas_n_agrees(int64_t n_arg, uint64_t n)
{
    return n_arg > 0 ? (uint64_t)n_arg == n : n == 0;
}

/* b's n_arg after its vectors became n elements long: n, or, for n = 0,
 * an n_arg of 0 or less as it was. */
static inline void df_blas_follow_n(df_blas *b, uint64_t n)
{
    if (n > 0 || b->n_arg > 0)
        b->n_arg = (int64_t)n;
}

/* Writes the buffer of v (n elements of type t) at increment inc into buf
 * (df_blas_footprint(n, inc) elements): the vector's elements where the
 * call reads them, the guard value everywhere else. With inc = 0, buf[0]
 * is v[0]. */
void df_blas_place(df_type t, const void *v, uint64_t n, int32_t inc, void *buf);

#ifdef __cplusplus
}
#endif
#endif
