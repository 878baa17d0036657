/* exact_helpers.h — what the exact dot's tests (test_exact.c,
 * test_exact_mpfr.c) share: results compared bit for bit, any NaN equal
 * to any NaN. */
#ifndef DOTFUZZ_TEST_EXACT_HELPERS_H
#define DOTFUZZ_TEST_EXACT_HELPERS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Same value and same sign of zero; any NaN equals any NaN. */
static inline int df_test_same_double(double x, double y)
{
    uint64_t ux, uy;
    memcpy(&ux, &x, sizeof ux);
    memcpy(&uy, &y, sizeof uy);
    return (isnan(x) && isnan(y)) || ux == uy;
}

static inline int df_test_same_float(float x, float y)
{
    uint32_t ux, uy;
    memcpy(&ux, &x, sizeof ux);
    memcpy(&uy, &y, sizeof uy);
    return (isnan(x) && isnan(y)) || ux == uy;
}

#endif
