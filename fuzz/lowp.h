/* lowp.h — the low-precision element formats: IEEE binary16 (fp16),
 * bfloat16, and the OCP 8-bit formats E4M3 and E5M2 (OCP "8-bit Floating
 * Point Specification (OFP8)" 1.0). Each value's bits decode exactly to a
 * double (every value of every format is one), and a double rounds to the
 * nearest value of a format, ties to even, as IEEE 754's roundTiesToEven
 * and CUDA's __float2half_rn, __float2bfloat16_rn and __nv_cvt_double_to_fp8
 * give it, subnormals kept.
 *
 *   format  bits  exponent  fraction  bias  largest finite   Inf  NaN
 *   f16     16    5         10        15    65504            yes  exponent all ones, fraction != 0
 *   bf16    16    8         7         127   ~3.39e38         yes  the same
 *   e4m3    8     4         3         7     448              no   S.1111.111 alone
 *   e5m2    8     5         2         15    57344            yes  exponent all ones, fraction != 0
 *
 * Past the largest finite value a rounding overflows: to Inf where the
 * format has one, to NaN in E4M3 (its encoding S.1111.111 is the one a
 * rounding to 480 would take); with `saturate` to the largest finite value
 * instead, as CUDA's __NV_SATFINITE conversions do. Rounding is from the
 * double, once: a value that a float would first round is the caller's to
 * round (double rounding is a kernel's bug to find, not this file's).
 *
 * Header-only and usable from host C and CUDA device code (DF_HD), so the
 * GPU's generator can make the host's values. Checked against MPFR, every
 * value and every midpoint of every format (tests/test_lowp.c).
 */
#ifndef DOTFUZZ_LOWP_H
#define DOTFUZZ_LOWP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/case.h"
#include "fuzz/pcg32.h" /* DF_HD */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum df_lowp {
    DF_LOWP_F16 = 0,
    DF_LOWP_BF16 = 1,
    DF_LOWP_E4M3 = 2,
    DF_LOWP_E5M2 = 3,
    DF_LOWP_COUNT = 4
} df_lowp;

/* The format of a low-precision element type, or -1 for f32, f64 and i32
 * (host and device: the references, the generator, the cuda staging). */
DF_HD int df_lowp_of(df_type t)
{
    switch (t) {
    case DF_F16: return DF_LOWP_F16;
    case DF_BF16: return DF_LOWP_BF16;
    case DF_E4M3: return DF_LOWP_E4M3;
    case DF_E5M2: return DF_LOWP_E5M2;
    case DF_F32:
    case DF_F64:
    case DF_I32: break;
    }
    return -1;
}

/* A format's shape: total, exponent and fraction bits, bias, and whether
 * its all-ones exponent is Inf/NaN (IEEE-style) or a binade of values
 * with one NaN (E4M3). */
typedef struct df_lowp_shape {
    uint8_t bits, exp_bits, man_bits;
    int16_t bias;
    uint8_t ieee;
} df_lowp_shape;

DF_HD df_lowp_shape df_lowp_shape_of(df_lowp f)
{
    switch (f) {
    case DF_LOWP_F16: return (df_lowp_shape){16, 5, 10, 15, 1};
    case DF_LOWP_BF16: return (df_lowp_shape){16, 8, 7, 127, 1};
    case DF_LOWP_E4M3: return (df_lowp_shape){8, 4, 3, 7, 0};
    default: return (df_lowp_shape){8, 5, 2, 15, 1};
    }
}

/* The largest finite magnitude's bits (sign clear). */
DF_HD uint32_t df_lowp_max_bits(df_lowp f)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t all = (1u << (s.bits - 1)) - 1u; /* every bit but the sign */
    /* IEEE-style: the exponent below all ones, fraction all ones; E4M3: all
     * ones but the fraction's lowest bit (S.1111.111 is NaN) */
    return s.ieee ? all - (1u << s.man_bits) : all - 1u;
}

/* The canonical NaN's bits (sign clear): the quiet NaN CUDA's conversions
 * give (f16 0x7e00, bf16 0x7fc0, E5M2 0x7e), E4M3's one NaN 0x7f. */
DF_HD uint32_t df_lowp_nan_bits(df_lowp f)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t all = (1u << (s.bits - 1)) - 1u;
    return s.ieee ? (all >> (s.man_bits - 1)) << (s.man_bits - 1) : all;
}

/* The value of bits (the low s.bits bits) in format f, exactly; a NaN
 * keeps its sign (its payload is not kept: df_lowp_encode gives it back
 * as the canonical NaN). */
DF_HD double df_lowp_decode(df_lowp f, uint32_t bits)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t man = bits & ((1u << s.man_bits) - 1u);
    uint32_t ex = (bits >> s.man_bits) & ((1u << s.exp_bits) - 1u);
    double sign = (bits >> (s.bits - 1)) & 1u ? -1.0 : 1.0;
    uint32_t top = (1u << s.exp_bits) - 1u;
    if (s.ieee && ex == top)
        return man ? copysign((double)NAN, sign) : sign * (double)INFINITY;
    if (!s.ieee && ex == top && man == (1u << s.man_bits) - 1u)
        return copysign((double)NAN, sign);
    if (ex == 0) /* subnormal: man 2^(1 - bias - man_bits) */
        return sign * ldexp((double)man, 1 - s.bias - s.man_bits);
    return sign * ldexp((double)((1u << s.man_bits) | man), (int)ex - s.bias - s.man_bits);
}

/* The value of bits in format f as an f32's bits: (float)df_lowp_decode(f,
 * bits), bit for bit, without a libm call, for loops over whole vectors
 * (df_type_widen, the fused models). Exact: f32 holds every value of every
 * format. A normal encoding's fields move into f32's as they are, its
 * exponent rebiased (127 - bias added); so does a bf16 subnormal (f32's
 * exponent field and bias are bf16's). Another format's subnormal is its
 * fraction, an integer below 2^man_bits, times the format's subnormal unit
 * 2^(1 - bias - man_bits), a normal f32: a product that is exact. Inf, and
 * NaN as the canonical quiet NaN (0x7fc00000), keep their sign. */
DF_HD uint32_t df_lowp_f32_bits(df_lowp f, uint32_t bits)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t sign = (bits >> (s.bits - 1) & 1u) << 31;
    uint32_t mag = bits & ((1u << (s.bits - 1)) - 1u), man_all = (1u << s.man_bits) - 1u;
    uint32_t ex = mag >> s.man_bits, top = (1u << s.exp_bits) - 1u;
    uint32_t r = (mag << (23 - s.man_bits)) + ((uint32_t)(127 - s.bias) << 23);
    /* every case made and one picked by a mask, without a branch, so that
     * a loop of these vectorizes (a conditional choice of the float
     * product becomes a branch around it); bf16's unit is not an f32 and
     * not picked */
    uint32_t unit = (uint32_t)(127 + 1 - s.bias - s.man_bits) << 23, sub;
    float u, v;
    memcpy(&u, &unit, sizeof u);
    v = (float)(int32_t)mag * u; /* mag < 2^15: a signed conversion, one instruction */
    memcpy(&sub, &v, sizeof sub);
    /* Inf, or (a fraction not 0: the sum carries past man_all) NaN */
    uint32_t special = UINT32_C(0x7f800000) | ((mag & man_all) + man_all) >> s.man_bits << 22;
    uint32_t is_sub = 0u - (uint32_t)((ex == 0) & (s.bias != 127));
    uint32_t is_special = 0u - (uint32_t)((s.ieee != 0) & (ex == top));
    uint32_t is_nan = 0u - (uint32_t)((s.ieee == 0) & (mag == (top << s.man_bits | man_all)));
    r = (sub & is_sub) | (r & ~is_sub);
    r = (special & is_special) | (r & ~is_special);
    r = (UINT32_C(0x7fc00000) & is_nan) | (r & ~is_nan);
    return sign | r;
}

/* df_lowp_decode(f, bits) through df_lowp_f32_bits: the same double, a
 * NaN's bits included (f32's canonical NaN widens to double's). */
DF_HD double df_lowp_value(df_lowp f, uint32_t bits)
{
    uint32_t u = df_lowp_f32_bits(f, bits);
    float x;
    memcpy(&x, &u, sizeof x);
    return (double)x;
}

/* The largest finite value of f as a double, without a libm call: the
 * exponent of df_lowp_max_bits and a fraction of all ones (E4M3: all ones
 * but the lowest bit). */
DF_HD double df_lowp_max_value(df_lowp f)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint64_t top = (1u << s.exp_bits) - (s.ieee ? 2u : 1u);
    uint64_t frac = ((UINT64_C(1) << s.man_bits) - (s.ieee ? 1u : 2u)) << (52 - s.man_bits);
    uint64_t u = (top - (uint64_t)s.bias + 1023) << 52 | frac;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* x rounded to format f, to nearest, ties to even, as df_lowp_round(f, x,
 * 0) gives it wherever that is finite (|result| <= df_lowp_max_value(f)),
 * without a libm call; *half gets half f's unit at x. With q the exponent
 * of that unit (x's exponent, at least the smallest normal's, less
 * man_bits) and M = 1.5 2^(q + 52), |x| + M lies in [2^(q + 52),
 * 2^(q + 53)), where a double's unit is 2^q: the addition rounds |x| to a
 * multiple of 2^q, to nearest, ties to the even multiple (M is an even
 * one), and subtracting M is exact. x sits on a midpoint of f exactly when
 * ||x| - |result|| == *half (that difference is exact). For NaN, for
 * +-Inf and past f's largest value (whose rounding is Inf or E4M3's NaN,
 * or the largest with saturation) it gives NaN or a value past the
 * largest: there the caller takes df_lowp_round. */
DF_HD double df_lowp_round_near(df_lowp f, double x, double *half)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint64_t u;
    double a = fabs(x), m, h, r;
    memcpy(&u, &a, sizeof u);
    int e = (int)(u >> 52) - 1023, emin = 1 - s.bias;
    e = e < emin ? emin : e > s.bias + 2 ? s.bias + 2 : e; /* Inf: past the largest */
    int q = e - s.man_bits;
    uint64_t mu = (uint64_t)(q + 52 + 1023) << 52 | UINT64_C(1) << 51;
    uint64_t hu = (uint64_t)(q - 1 + 1023) << 52;
    memcpy(&m, &mu, sizeof m);
    memcpy(&h, &hu, sizeof h);
    r = (a + m) - m;
    *half = h;
    return copysign(r, x);
}

/* x rounded to format f, to nearest, ties to even; its bits. A NaN gives
 * the canonical NaN (its sign kept); past the largest finite value, Inf
 * (E4M3: NaN) or, with saturate, the largest finite value. */
DF_HD uint32_t df_lowp_encode(df_lowp f, double x, int saturate)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t sign = signbit(x) ? 1u << (s.bits - 1) : 0u;
    if (isnan(x))
        return sign | df_lowp_nan_bits(f);
    double a = fabs(x);
    uint32_t mag, max = df_lowp_max_bits(f);
    int emin = 1 - s.bias; /* the smallest normal's exponent */
    int e;
    (void)frexp(a, &e); /* a = m 2^e, m in [1/2, 1): a's exponent is e - 1 */
    if (a == 0) {
        mag = 0;
    } else if (isinf(a) || e - 1 > s.bias + 1) {
        mag = max + 1; /* past every finite value: overflows below */
    } else if (e - 1 < emin) {
        /* subnormal (or the smallest normal, by a carry into the
         * exponent field): a multiple of 2^(emin - man_bits) */
        mag = (uint32_t)rint(ldexp(a, s.man_bits - emin));
    } else {
        /* normal: a 2^(man_bits - exponent) in [2^man_bits, 2^(man_bits+1)),
         * rounded; a carry moves into the exponent field */
        uint32_t m = (uint32_t)rint(ldexp(a, s.man_bits - (e - 1)));
        mag = ((uint32_t)(e - 1 + s.bias) << s.man_bits) + (m - (1u << s.man_bits));
    }
    if (mag > max) {
        if (saturate)
            mag = max;
        else
            mag = s.ieee ? max + 1 /* fraction 0 above max: Inf */ : df_lowp_nan_bits(f);
    }
    return sign | mag;
}

/* x rounded to format f and back: the nearest value of f (ties to even),
 * as a double. */
DF_HD double df_lowp_round(df_lowp f, double x, int saturate)
{
    return df_lowp_decode(f, df_lowp_encode(f, x, saturate));
}

#ifdef __cplusplus
}
#endif
#endif
