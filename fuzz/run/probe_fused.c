/* probe_fused.c — the arithmetic of a kernel of f16, bf16, e4m3 or e5m2
 * data (probe.h's df_probe_lowp): cases of a few products, each a pair of
 * factors the format holds exactly, placed where a fused (tensor-core)
 * accumulation shows its shape:
 *   bits kept below the largest term  P at element 0, -P at 1, 2^-d P at
 *                                     2: the result is 2^-d P where the
 *                                     step keeps d bits below P, else 0;
 *   the fused span                   P at 0, -P at 1, t = 2^-(d+1) P at j
 *                                     (d the bits kept): in the step of P
 *                                     and -P, t is cut; in a later step (or
 *                                     another chain), it meets only what is
 *                                     left, 0, and survives; the first j
 *                                     where it does;
 *   result bits and rounding         P plus 0.25, 0.5 and 0.75 of 2^-k P,
 *                                     both signs;
 *   subnormal inputs, NaN and Inf    the format's smallest subnormal, its
 *                                     NaN, its infinities where it has them.
 * P is the largest power of two whose factors the format holds, so the
 * small terms reach as far below it as the format allows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/lowp.h"
#include "fuzz/run/probe.h"

enum { SPAN_MAX = 128 };

/* x in the format of t, exactly: its bits into *bits; -1 where it does
 * not hold x. */
static int encode(df_type t, double x, uint32_t *bits)
{
    df_lowp f = (df_lowp)df_type_facts_of(t).lowp;
    *bits = df_lowp_encode(f, x, 0);
    double back = df_lowp_decode(f, *bits);
    return back == x || (isnan(x) && isnan(back)) ? 0 : -1;
}

/* The bits of two factors of t whose product is v = m 2^e exactly (m a
 * small odd integer, or 0, Inf, NaN): a = m 2^ea, b = 2^(e - ea) for the
 * largest ea that works. -1 where no split does. */
static int factors(df_type t, double v, uint32_t *a, uint32_t *b)
{
    if (v == 0 || !isfinite(v))
        return encode(t, v, a) == 0 && encode(t, 1, b) == 0 ? 0 : -1;
    int e;
    double m = frexp(v, &e); /* v = m 2^e, m in [1/2, 1) */
    for (int ea = 40; ea >= -40; ea--) {
        double x = ldexp(m, ea), y = ldexp(1.0, e - ea);
        if (encode(t, x, a) == 0 && encode(t, y, b) == 0 && x * y == v)
            return 0;
    }
    return -1;
}

/* The kernel's result for the products v[0..n), element i's product v[i]
 * (zeros between), into *out. 0, or -1 (no split, a failed run, no
 * sandbox). */
static int run_products(df_probe_ctx *p, const double *v, size_t n, double *out)
{
    uint8_t a[2 * SPAN_MAX + 4], b[2 * SPAN_MAX + 4];
    df_type t = p->k->elem;
    size_t es = df_type_size(t);
    if (n > SPAN_MAX + 2)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t bx, by;
        if (factors(t, v[i], &bx, &by) != 0)
            return -1;
        if (es == 2) {
            uint16_t hx = (uint16_t)bx, hy = (uint16_t)by;
            memcpy(a + 2 * i, &hx, 2);
            memcpy(b + 2 * i, &hy, 2);
        } else {
            a[i] = (uint8_t)bx;
            b[i] = (uint8_t)by;
        }
    }
    return df_probe_run_bytes(p, a, b, n, out);
}

/* The exponent E of P = 2^E: twice the largest power of two the format
 * holds (so P = 2^(E/2) 2^(E/2)), kept 4 binades below the accumulator's
 * largest (bf16's range is f32's). */
static int top_exponent(df_type t, df_type acc)
{
    int e, room = 1 - df_type_facts_of(acc).emin - 4; /* IEEE: emax = 1 - emin */
    (void)frexp(df_type_facts_of(t).max, &e);
    return 2 * (e - 1) < room ? 2 * (e - 1) : room;
}

/* The largest d <= 64 for which P, -P, 2^-d P gives 2^-d P; -1 unknown. */
static int align_bits(df_probe_ctx *p, int E)
{
    int kept = 0;
    for (int d = 1; d <= 64; d++) {
        double v[3] = {ldexp(1, E), -ldexp(1, E), ldexp(1, E - d)}, r;
        if (run_products(p, v, 3, &r) != 0)
            return d > 1 ? -(d - 1) - 1000 : -1; /* the format reaches no lower */
        if (r != v[2])
            return kept;
        kept = d;
    }
    return kept;
}

/* The first j in [2, SPAN_MAX] where P at 0, -P at 1 and t = 2^-(d+1) P
 * at j keep t, d the bits a step keeps; SPAN_MAX + 1 when none does; -1
 * unknown (d unknown, or t past the format). */
static int fused_span(df_probe_ctx *p, int E, int d)
{
    double v[SPAN_MAX + 1];
    if (d < 0)
        return -1;
    for (int j = 2; j <= SPAN_MAX; j++) {
        memset(v, 0, sizeof v);
        v[0] = ldexp(1, E);
        v[1] = -ldexp(1, E);
        v[j] = ldexp(1, E - d - 1);
        double r;
        if (run_products(p, v, (size_t)j + 1, &r) != 0)
            return -1;
        if (r == v[j])
            return j;
    }
    return SPAN_MAX + 1;
}

/* The result's fraction bits: the largest k with P + 2^-k P exact; -1. */
static int result_bits(df_probe_ctx *p, int E)
{
    for (int k = 1; k <= 40; k++) {
        double v[2] = {ldexp(1, E), ldexp(1, E - k)}, r;
        if (run_products(p, v, 2, &r) != 0)
            return -1;
        if (r != v[0] + v[1])
            return k - 1;
    }
    return 40;
}

static df_probe_round result_round(df_probe_ctx *p, int E, int bits)
{
    if (bits < 0)
        return DF_PROBE_UNKNOWN;
    double P = ldexp(1, E), u = ldexp(P, -bits), r[4];
    double cases[4][2] = {{P, 0.75 * u}, {-P, -0.75 * u}, {P, 0.25 * u}, {P, 0.5 * u}};
    for (int i = 0; i < 4; i++)
        if (run_products(p, cases[i], 2, &r[i]) != 0)
            return DF_PROBE_UNKNOWN;
    double hi = P + u;
    if (r[0] == hi && r[1] == -hi && r[2] == P)
        return r[3] == P ? DF_PROBE_NEAREST_EVEN : r[3] == hi ? DF_PROBE_NEAREST_AWAY
                                                              : DF_PROBE_UNKNOWN;
    if (r[0] == P && r[1] == -P && r[2] == P)
        return DF_PROBE_ZERO;
    if (r[0] == P && r[1] == -hi && r[2] == P)
        return DF_PROBE_DOWN;
    if (r[0] == hi && r[1] == -P && r[2] == hi)
        return DF_PROBE_UP;
    return DF_PROBE_UNKNOWN;
}

/* 1: the products v[0..n) give want (NaNs equal), 0: not, -1: unknown. */
static int gives(df_probe_ctx *p, const double *v, size_t n, double want)
{
    double r;
    if (run_products(p, v, n, &r) != 0)
        return -1;
    return (isnan(want) && isnan(r)) || r == want;
}

void df_probe_lowp(df_probe_ctx *p, df_probe_card *card)
{
    df_type t = p->k->elem;
    int E = top_exponent(t, p->k->acc);
    card->acc_bits = result_bits(p, E);
    card->acc_round = result_round(p, E, card->acc_bits);
    card->product_bits = df_type_facts_of(t).p - 1; /* products of these formats are exact */
    int a = align_bits(p, E);
    card->align_bits = a;
    card->align_floor = a <= -1000; /* the format's range ended the scan */
    if (a <= -1000)
        card->align_bits = -a - 1000;
    card->fused_span = card->align_floor ? -1 : fused_span(p, E, card->align_bits);
    df_type_facts f = df_type_facts_of(t);
    df_lowp_shape s = df_lowp_shape_of((df_lowp)f.lowp);
    double sub = ldexp(1, f.emin - s.man_bits), v1[1] = {sub};
    card->subnormal_inputs = gives(p, v1, 1, sub);
    card->subnormal_results = -1; /* f32 results of these products stay normal */
    double vn[2] = {NAN, 1};
    card->nan_out = gives(p, vn, 2, NAN);
    double vi[2] = {INFINITY, 1}, vm[2] = {INFINITY, -INFINITY};
    card->inf_out = s.ieee ? gives(p, vi, 2, INFINITY) : -1;
    card->inf_minus_inf = s.ieee ? gives(p, vm, 2, NAN) : -1;
    card->launch_dependent = -1;
    card->runs_differ = -1;
}
