/* test_lowp.c — fuzz/lowp.h against MPFR: every value of fp16, bf16, E4M3
 * and E5M2 decodes to what its bits say and encodes back to them; every
 * midpoint between neighbours rounds to the even one, and a hair either
 * side to the nearer; overflow, saturation, NaN, Inf and signed zeros
 * behave as the formats' specifications say; random doubles round as MPFR
 * rounds them into each format's precision and exponent range; the
 * decoding and the rounding without libm (df_lowp_f32_bits,
 * df_lowp_value, df_lowp_round_near) are the same, bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "fuzz/lowp.h"
#include "fuzz/pcg32.h"
#include "tests/mpfr_lowp.h"

/* x rounded into format f by MPFR (tests/mpfr_lowp.h). */
static double by_mpfr(df_lowp f, double x)
{
    mpfr_t m;
    mpfr_init2(m, 64);
    mpfr_set_d(m, x, MPFR_RNDN); /* exact */
    double r = df_test_mpfr_round_lowp(f, m);
    mpfr_clear(m);
    return r;
}

/* What df_lowp_round should give for x: MPFR's rounding, then the format's
 * overflow rule. */
static double expected(df_lowp f, double x, int saturate)
{
    if (isnan(x))
        return NAN;
    double max = df_lowp_decode(f, df_lowp_max_bits(f));
    double r = by_mpfr(f, x);
    if (fabs(r) > max) {
        if (saturate)
            return copysign(max, x);
        return df_lowp_shape_of(f).ieee ? copysign(INFINITY, x) : NAN;
    }
    return r;
}

/* df_lowp_round_near beside df_lowp_round: the same bits wherever it
 * says its rounding is finite, which is wherever df_lowp_round's is; half
 * the unit at x. */
static void check_near(df_lowp f, double x)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    double half, near = df_lowp_round_near(f, x, &half), slow = df_lowp_round(f, x, 0);
    int finite = fabs(near) <= df_lowp_max_value(f);
    cr_assert_eq(finite, isfinite(slow) != 0, "format %d: %a -> %a near, %a", f, x, near, slow);
    if (!finite)
        return;
    cr_assert(near == slow && signbit(near) == signbit(slow), "format %d: %a -> %a, want %a", f,
              x, near, slow);
    int e = x == 0 ? 1 - s.bias : ilogb(x);
    cr_assert_eq(half, ldexp(1, (e < 1 - s.bias ? 1 - s.bias : e) - s.man_bits - 1),
                 "format %d: %a: half unit %a", f, x, half);
}

static void check(df_lowp f, double x, int saturate)
{
    if (!isnan(x))
        check_near(f, x);
    double got = df_lowp_round(f, x, saturate), want = expected(f, x, saturate);
    if (isnan(want)) {
        cr_assert(isnan(got), "format %d: %a -> %a, want NaN", f, x, got);
        return;
    }
    cr_assert(got == want && signbit(got) == signbit(want),
              "format %d, saturate %d: %a -> %a, want %a", f, saturate, x, got, want);
}

static const char *const names[DF_LOWP_COUNT] = {"f16", "bf16", "e4m3", "e5m2"};

/* Every bit pattern: decoded, then encoded back to itself (NaNs to the
 * canonical NaN); then the midpoint between each finite value and the next
 * one up, exactly, and a hair either side of it, against MPFR. */
Test(lowp, every_value_and_every_midpoint)
{
    for (int f = 0; f < DF_LOWP_COUNT; f++) {
        df_lowp_shape s = df_lowp_shape_of((df_lowp)f);
        uint32_t n = 1u << s.bits, nans = 0, infs = 0;
        for (uint32_t b = 0; b < n; b++) {
            double v = df_lowp_decode((df_lowp)f, b);
            uint32_t back = df_lowp_encode((df_lowp)f, v, 0);
            if (isnan(v)) {
                nans++;
                uint32_t sign = b & (1u << (s.bits - 1));
                cr_assert_eq(back, sign | df_lowp_nan_bits((df_lowp)f), "%s %#x", names[f], b);
                continue;
            }
            infs += isinf(v) != 0;
            cr_assert_eq(back, b, "%s: %#x = %a encodes to %#x", names[f], b, v, back);
            cr_assert_eq(by_mpfr((df_lowp)f, v), v, "%s: %a is not in MPFR's format", names[f],
                         v);
            uint32_t up = b + 1; /* the next magnitude up, same sign */
            if ((b & ((1u << (s.bits - 1)) - 1u)) >= df_lowp_max_bits((df_lowp)f))
                continue;
            double w = df_lowp_decode((df_lowp)f, up);
            double mid = v + (w - v) / 2; /* exact: a few bits below a double's */
            for (int sat = 0; sat < 2; sat++) {
                check((df_lowp)f, mid, sat);
                check((df_lowp)f, nextafter(mid, INFINITY), sat);
                check((df_lowp)f, nextafter(mid, -INFINITY), sat);
            }
        }
        /* E4M3: one NaN a sign, no Inf; the others: the IEEE count */
        if (f == DF_LOWP_E4M3) {
            cr_assert_eq(nans, 2);
            cr_assert_eq(infs, 0);
        } else {
            cr_assert_eq(nans, 2 * ((1u << s.man_bits) - 1), "%s", names[f]);
            cr_assert_eq(infs, 2, "%s", names[f]);
        }
    }
}

/* The decoding without libm (df_lowp_f32_bits, df_lowp_value) is
 * df_lowp_decode's, bit for bit, for every pattern of every format (NaN's
 * included), and df_lowp_max_value its largest value. */
Test(lowp, fast_decoding_is_every_patterns_value)
{
    for (int f = 0; f < DF_LOWP_COUNT; f++) {
        df_lowp_shape s = df_lowp_shape_of((df_lowp)f);
        for (uint32_t b = 0; b < 1u << s.bits; b++) {
            double v = df_lowp_decode((df_lowp)f, b), w = df_lowp_value((df_lowp)f, b);
            float x = (float)v;
            uint32_t want, got = df_lowp_f32_bits((df_lowp)f, b);
            memcpy(&want, &x, sizeof want);
            cr_assert_eq(got, want, "%s %#x: f32 bits %#x, want %#x", names[f], b, got, want);
            cr_assert(memcmp(&v, &w, sizeof v) == 0, "%s %#x: %a, want %a", names[f], b, w, v);
        }
        cr_assert_eq(df_lowp_max_value((df_lowp)f),
                     df_lowp_decode((df_lowp)f, df_lowp_max_bits((df_lowp)f)), "%s", names[f]);
    }
}

/* The specifications' landmarks. */
Test(lowp, known_values)
{
    cr_assert_eq(df_lowp_decode(DF_LOWP_F16, 0x7bff), 65504.0);
    cr_assert_eq(df_lowp_decode(DF_LOWP_F16, 0x0001), ldexp(1, -24));
    cr_assert_eq(df_lowp_decode(DF_LOWP_F16, 0x3c00), 1.0);
    cr_assert_eq(df_lowp_decode(DF_LOWP_BF16, 0x3f80), 1.0);
    cr_assert_eq(df_lowp_decode(DF_LOWP_BF16, 0x7f7f), ldexp(255, 120));
    cr_assert_eq(df_lowp_decode(DF_LOWP_BF16, 0x0001), ldexp(1, -133));
    cr_assert_eq(df_lowp_decode(DF_LOWP_E4M3, 0x7e), 448.0);
    cr_assert_eq(df_lowp_decode(DF_LOWP_E4M3, 0x01), ldexp(1, -9));
    cr_assert_eq(df_lowp_decode(DF_LOWP_E4M3, 0x08), ldexp(1, -6));
    cr_assert(isnan(df_lowp_decode(DF_LOWP_E4M3, 0x7f)) && isnan(df_lowp_decode(DF_LOWP_E4M3, 0xff)));
    cr_assert_eq(df_lowp_decode(DF_LOWP_E4M3, 0x78), 256.0); /* its all-ones exponent is values */
    cr_assert_eq(df_lowp_decode(DF_LOWP_E5M2, 0x7b), 57344.0);
    cr_assert_eq(df_lowp_decode(DF_LOWP_E5M2, 0x01), ldexp(1, -16));
    cr_assert(isinf(df_lowp_decode(DF_LOWP_E5M2, 0x7c)));
    /* overflow: E4M3 to NaN above 464 (448's midpoint with 480, a tie kept
     * at 448, the even one), saturated to 448; E5M2 and f16 to Inf */
    cr_assert_eq(df_lowp_encode(DF_LOWP_E4M3, 464.0, 0), 0x7e);
    cr_assert_eq(df_lowp_encode(DF_LOWP_E4M3, 465.0, 0), 0x7f);
    cr_assert_eq(df_lowp_encode(DF_LOWP_E4M3, -1e9, 0), 0xff);
    cr_assert_eq(df_lowp_encode(DF_LOWP_E4M3, -1e9, 1), 0xfe);
    cr_assert_eq(df_lowp_encode(DF_LOWP_E4M3, INFINITY, 0), 0x7f);
    cr_assert_eq(df_lowp_encode(DF_LOWP_E5M2, 61440.0, 0), 0x7c); /* 57344's tie with 65536 */
    cr_assert_eq(df_lowp_encode(DF_LOWP_E5M2, 61439.0, 0), 0x7b);
    cr_assert_eq(df_lowp_encode(DF_LOWP_F16, 65520.0, 0), 0x7c00);
    cr_assert_eq(df_lowp_encode(DF_LOWP_F16, 65520.0, 1), 0x7bff);
    cr_assert_eq(df_lowp_encode(DF_LOWP_F16, -0.0, 0), 0x8000);
    cr_assert_eq(df_lowp_encode(DF_LOWP_BF16, -NAN, 0), 0xffc0);
    /* the smallest subnormal's half is a tie with 0: to 0; above it, up */
    cr_assert_eq(df_lowp_encode(DF_LOWP_F16, ldexp(1, -25), 0), 0x0000);
    cr_assert_eq(df_lowp_encode(DF_LOWP_F16, nextafter(ldexp(1, -25), 1), 0), 0x0001);
    cr_assert_eq(df_lowp_encode(DF_LOWP_E4M3, ldexp(3, -10), 0), 0x02); /* 1.5 quanta: to 2 */
    cr_assert_eq(df_lowp_encode(DF_LOWP_E4M3, ldexp(3, -11), 0), 0x01); /* 0.75: to 1 */
}

/* Random doubles over each format's range and past it, against MPFR. */
Test(lowp, random_doubles_round_as_mpfr)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 2026, 34);
    for (int f = 0; f < DF_LOWP_COUNT; f++) {
        df_lowp_shape s = df_lowp_shape_of((df_lowp)f);
        for (int i = 0; i < 200000; i++) {
            double m = 1.0 + (double)df_pcg32_next(&r) / 4294967296.0 +
                       (double)df_pcg32_next(&r) / 18446744073709551616.0;
            int e = (int)df_pcg32_bounded(&r, (uint32_t)(2 * s.bias + 2 * s.man_bits + 8)) -
                    (s.bias + s.man_bits + 4);
            double x = ldexp(m, e) * (df_pcg32_bounded(&r, 2) ? -1 : 1);
            check((df_lowp)f, x, (int)(i & 1));
        }
    }
}
