/* exact_acc.c — the exact dot's long accumulator as a value of its own
 * (df_exact_acc, exact.h): a dot made in parts, each part's sum added or
 * merged with integer additions, so the total is exact whatever the split;
 * and the exact dot from a value already known, an integer or a few exact
 * doubles, as df_exact_dot writes it.
 */
#include <math.h>

#include "reference/exact_internal.h"

/* ---- a dot in parts ------------------------------------------------------ */

void df_exact_acc_init(df_exact_acc *A) { df_acc_init(A); }

void df_exact_acc_add_int(df_exact_acc *A, int64_t hi, uint64_t lo)
{
    df_i128 v = {hi, lo};
    df_acc_add_int(A, v);
}

void df_exact_acc_add_double(df_exact_acc *A, double x)
{
    uint64_t q;
    if (x != 0.0) {
        int pos = df_double_digits(x, &q);
        df_acc_add64(A, pos, q, signbit(x) != 0);
    }
}

/* Digit by digit: each window holds its own carries' headroom (every add
 * covers DF_ACC_HEADROOM digits above it), and the merged value is a sum
 * of the same products, so that headroom still holds it; normalizing (at
 * df_exact_acc_out) takes digits of any size below int64's limit, far
 * above what a few thousand parts' sums of 32-bit digits reach. */
void df_exact_acc_merge(df_exact_acc *dst, const df_exact_acc *src)
{
    if (src->lo == src->hi)
        return;
    df_acc_cover(dst, src->lo, src->hi);
    for (int j = src->lo; j < src->hi; j++)
        dst->d[j] += src->d[j];
}

void df_exact_acc_out(df_exact_acc *A, df_exact *out) { df_exact_set_finite(out, A); }

/* ---- a value already known ----------------------------------------------- */

/* Everything df_exact_set_finite derives comes from the value alone (the
 * sign, the digits of the magnitude and their window trimmed to non-zero
 * digits, roundings of it), so an integer dot already known exactly gives
 * the fields df_exact_dot gives on the same data, whichever way it was
 * found. */
void df_exact_of_int(df_i128 v, df_exact *out)
{
    df_exact_acc A;
    df_acc_init(&A);
    df_acc_add_int(&A, v);
    df_exact_set_finite(out, &A);
}

/* The exact sum of k finite doubles, as df_exact_dot writes a dot of that
 * value (df_exact_set_finite: the fields come from the value alone). Each
 * double is an integer below 2^53 times a power of two at or above
 * 2^-1074 (df_double_digits), so it lands in the digits without rounding. */
void df_exact_of_doubles(const double *x, unsigned k, df_exact *out)
{
    df_exact_acc A;
    df_acc_init(&A);
    for (unsigned i = 0; i < k; i++)
        df_exact_acc_add_double(&A, x[i]);
    df_exact_set_finite(out, &A);
}
