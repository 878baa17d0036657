/* mydot_lowp.c — an example dotfuzz plugin of ABI version 2's types and
 * fused accumulation: dot routines on f16 (IEEE binary16) vectors, loaded
 * with `dotfuzz --kernel-lib mydot_lowp.so`. The ABI is
 * include/dotfuzz/plugin.h.
 *
 * An f16 element is its 16 bits (a uint16_t); both kernels accumulate in
 * float and write a float:
 *   mydot-h16     a sequential float sum of the products (each exact in
 *                 float): IEEE additions, bounded by the tree height n.
 *   mydot-h16-tc  a tensor core's arithmetic in software, as Hopper's mma
 *                 on f16 into f32 is published: groups of 16 products
 *                 added to the running sum at once, every term cut 25
 *                 bits below the largest, the sum rounded toward zero
 *                 into float; declared as that fused accumulation
 *                 (dotfuzz_fused), so that dotfuzz bounds it by that
 *                 arithmetic and `dotfuzz probe` measures it against it.
 */
#include <math.h>
#include <stdint.h>

#include "dotfuzz/plugin.h"

/* An f16's value: sign, 5 exponent bits (bias 15), 10 fraction bits. */
static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24); /* subnormal */
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

static int mydot_h16(const void *va, const void *vb, uint64_t n,
                     const dotfuzz_launch *launch, void *result_out)
{
    const uint16_t *a = (const uint16_t *)va, *b = (const uint16_t *)vb;
    float s = 0.0f;
    uint64_t i;
    (void)launch;
    for (i = 0; i < n; i++)
        s += half_to_float(a[i]) * half_to_float(b[i]);
    *(float *)result_out = s;
    return 0;
}

/* d rounded toward zero into float (past FLT_MAX: FLT_MAX). */
static float float_toward_zero(double d)
{
    float f = (float)d;
    if (fabsf(f) > fabs(d))
        f = nextafterf(f, 0.0f);
    return f;
}

/* x = s 2^e: s in [1, 2), or below 1 at min_exp for a subnormal of x's
 * format; a zero at -126, so that it never raises the largest exponent. */
static double split(double x, int min_exp, int *e)
{
    int k;
    double s;
    if (x == 0) {
        *e = -126;
        return 0.0;
    }
    s = frexp(x, &k) * 2;
    k -= 1;
    if (k < min_exp) {
        s = ldexp(s, k - min_exp);
        k = min_exp;
    }
    *e = k;
    return s;
}

/* One fused step: c and the k <= 16 products a[i] b[i], each term at the
 * sum of its factors' exponents, cut toward zero 25 bits below the
 * largest, the cut terms added exactly (each an integer below 2^27 of one
 * quantum: their sum fits a double), the sum rounded toward zero into
 * float. NaN or Inf anywhere: what the plain sum gives. */
static float mma_step(float c, const uint16_t *a, const uint16_t *b, uint64_t k)
{
    double sig[17], plain = c, sum = 0.0;
    int ex[17], emax, t, nt;
    uint64_t i;
    for (i = 0; i < k; i++)
        plain += (double)half_to_float(a[i]) * half_to_float(b[i]);
    if (!isfinite(plain))
        return (float)plain;
    sig[0] = split(c, -126, &ex[0]);
    emax = ex[0];
    for (i = 0, nt = 1; i < k; i++, nt++) {
        int ea, eb;
        double sa = split(half_to_float(a[i]), -14, &ea);
        double sb = split(half_to_float(b[i]), -14, &eb);
        sig[nt] = sa * sb; /* exact: two 11-bit significands */
        ex[nt] = sig[nt] == 0 ? -126 : ea + eb;
        if (ex[nt] > emax)
            emax = ex[nt];
    }
    for (t = 0; t < nt; t++)
        sum += trunc(ldexp(sig[t], 25 + ex[t] - emax));
    return float_toward_zero(ldexp(sum, emax - 25));
}

/* The dot as Hopper's mma on f16 into f32 takes it: groups of 16 products,
 * each group's step adding them to the running sum. */
static int mydot_h16_tc(const void *va, const void *vb, uint64_t n,
                        const dotfuzz_launch *launch, void *result_out)
{
    const uint16_t *a = (const uint16_t *)va, *b = (const uint16_t *)vb;
    float c = 0.0f;
    uint64_t i;
    (void)launch;
    for (i = 0; i < n; i += 16)
        c = mma_step(c, a + i, b + i, n - i < 16 ? n - i : 16);
    *(float *)result_out = c;
    return 0;
}

/* Hopper's mma on f16 into f32: 16 products a step, 25 fraction bits kept
 * below the largest term, a float result rounded toward zero; the inputs'
 * smallest normal exponent is f16's (0 says so). */
static const dotfuzz_fused hopper_f16 = {16, 25, 23, DOTFUZZ_ROUND_ZERO, -126, 127, 0, 1};

static const dotfuzz_kernel kernels[] = {
    {"mydot-h16", "example plugin: f16 inputs, sequential float sum",
     DOTFUZZ_F16, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC | DOTFUZZ_ANY_ALIGNMENT,
     1, 1, 1, 0, 1, 0, 0, mydot_h16, 0, mydot_h16, 0, 0, 0},
    {"mydot-h16-tc", "example plugin: f16 inputs, a tensor core's fused sum in software",
     DOTFUZZ_F16, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC | DOTFUZZ_ANY_ALIGNMENT,
     1, 1, 1, 0, 1, 0, 0, mydot_h16_tc, 0, mydot_h16_tc, &hopper_f16, 0, 0},
};

static const dotfuzz_plugin plugin = {
    DOTFUZZ_PLUGIN_HEADER, sizeof kernels / sizeof kernels[0], "mydot_lowp", kernels};

const dotfuzz_plugin *dotfuzz_plugin_entry(void) { return &plugin; }
