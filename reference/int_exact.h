/* int_exact.h — the exact dot product of integer data, as a signed 128-bit
 * integer, and what the references do with such an integer: round it to a
 * head+tail pair of doubles, compare it with an int64.
 *
 * Integer data are i32 vectors, or f32/f64 vectors whose every element is
 * an integer of magnitude at most 2^31. Allocation-free and stateless.
 */
#ifndef DOTFUZZ_INT_EXACT_H
#define DOTFUZZ_INT_EXACT_H

#include <stdint.h>

#include "fuzz/case.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The exact dot of integer data, as a signed 128-bit integer split in two
 * 64-bit halves (value = hi * 2^64 + lo, two's complement). */
typedef struct df_i128 {
    int64_t hi;
    uint64_t lo;
} df_i128;

/* Exact dot product of integer data. For DF_I32 it always succeeds. For
 * DF_F32/DF_F64 it succeeds when every element is an integer of magnitude
 * <= 2^31 (so each product fits in int64); otherwise it returns -1 and the
 * caller must use the Kahan reference with its bound.
 * Returns 0 on success. */
int df_exact_dot_int(df_type t, const void *a, const void *b, uint64_t n,
                     df_i128 *out);

/* The exact integer as a head+tail pair of doubles: hi = round-to-nearest
 * of the value, lo = round-to-nearest of (value - hi). hi + lo is exact
 * whenever |value| < 2^106. */
void df_i128_to_double2(df_i128 v, double *hi, double *lo);
int df_i128_fits_i64(df_i128 v);
int df_i128_cmp_i64(df_i128 v, int64_t x); /* <0, 0, >0 */

#ifdef __cplusplus
}
#endif
#endif
