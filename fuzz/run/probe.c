/* probe.c — a float kernel's arithmetic from targeted cases (probe.h).
 * Each probe is a case of a few elements whose exact dot sits where the
 * property shows: 1 + 2^-k for the bits kept, 1 + 0.25, 0.5 and 0.75 of
 * an ulp of both signs for the rounding, a product at 2^-130 (f32) or
 * 2^-1030 (f64) for the subnormals, Inf and NaN among ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/pcg32.h"
#include "fuzz/run/probe.h"

const char *df_probe_round_name(df_probe_round r)
{
    switch (r) {
    case DF_PROBE_NEAREST_EVEN: return "nearest-even";
    case DF_PROBE_NEAREST_AWAY: return "nearest-away";
    case DF_PROBE_ZERO: return "toward-zero";
    case DF_PROBE_DOWN: return "down";
    case DF_PROBE_UP: return "up";
    default: return "unknown";
    }
}

enum { PROBE_MAX_N = 8 };

typedef df_probe_ctx prober;

/* The kernel's result on (a, b), n <= PROBE_MAX_N, into *out. Returns 0,
 * or -1 (a failed run, an invalid launch, or no sandbox: p->dead). */
static int dot(prober *p, const double *a, const double *b, size_t n, double *out)
{
    float fa[PROBE_MAX_N], fb[PROBE_MAX_N];
    if (p->k->elem != DF_F32)
        return df_probe_run_bytes(p, a, b, n, out);
    for (size_t i = 0; i < n; i++) {
        fa[i] = (float)a[i];
        fb[i] = (float)b[i];
    }
    return df_probe_run_bytes(p, fa, fb, n, out);
}

/* The result of one nonzero-pair case: a0 b0 + a1 b1 (b = 1 by default). */
static int dot2(prober *p, double a0, double a1, double *out)
{
    double a[2] = {a0, a1}, b[2] = {1, 1};
    return dot(p, a, b, 2, out);
}

/* 1: the result equals want (NaNs equal), 0: it does not, -1: no result. */
static int gives(prober *p, double a0, double b0, double a1, double b1, double want)
{
    double a[2] = {a0, a1}, b[2] = {b0, b1}, r;
    if (dot(p, a, b, 2, &r) != 0)
        return -1;
    return (isnan(want) && isnan(r)) || r == want;
}

/* The largest k <= top for which the kernel keeps 1 + 2^-k, given as
 * the terms 1 and 2^-k (product: as the one product (1 + 2^-k) x 1,
 * which the inputs' own precision bounds). r - 1 is exact (Sterbenz). */
static int bits_kept(prober *p, int product, int top)
{
    for (int k = 1; k <= top; k++) {
        double r, a[2] = {1.0 + ldexp(1, -k), 0}, b[2] = {1, 0};
        if (product ? dot(p, a, b, 2, &r) : dot2(p, 1.0, ldexp(1, -k), &r))
            return -1;
        if (r - 1.0 != ldexp(1, -k))
            return k - 1;
    }
    return top;
}

static df_probe_round acc_round(prober *p, int bits)
{
    if (bits < 0)
        return DF_PROBE_UNKNOWN;
    double u = ldexp(1, -bits), up75, dn75, up25, half;
    if (dot2(p, 1, 0.75 * u, &up75) || dot2(p, -1, -0.75 * u, &dn75) ||
        dot2(p, 1, 0.25 * u, &up25) || dot2(p, 1, 0.5 * u, &half))
        return DF_PROBE_UNKNOWN;
    double hi = 1 + u;
    if (up75 == hi && dn75 == -hi && up25 == 1)
        return half == 1 ? DF_PROBE_NEAREST_EVEN : half == hi ? DF_PROBE_NEAREST_AWAY
                                                              : DF_PROBE_UNKNOWN;
    if (up75 == 1 && dn75 == -1 && up25 == 1)
        return DF_PROBE_ZERO;
    if (up75 == 1 && dn75 == -hi && up25 == 1)
        return DF_PROBE_DOWN;
    if (up75 == hi && dn75 == -1 && up25 == hi)
        return DF_PROBE_UP;
    return DF_PROBE_UNKNOWN;
}

/* One case of 3,000 full-precision values of both signs under every block
 * size the kernel takes (powers of two), and five runs of it at its
 * default launch. */
static int launches(prober *p, df_probe_card *card)
{
    const df_kernel *k = p->k;
    enum { N = 3000 };
    static float fa[N], fb[N];
    static double da[N], db[N];
    df_pcg32 rng;
    df_pcg32_seed(&rng, 7, 3);
    for (int i = 0; i < N; i++) { /* full-precision values of both signs */
        da[i] = (double)df_pcg32_next(&rng) / 2147483648.0 - 1.0 +
                (double)df_pcg32_next(&rng) * 0x1p-60;
        db[i] = (double)df_pcg32_next(&rng) / 2147483648.0 - 1.0;
        fa[i] = (float)da[i];
        fb[i] = (float)db[i];
    }
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = k->elem;
    c.n = N;
    c.a = k->elem == DF_F32 ? (const void *)fa : (const void *)da;
    c.b = k->elem == DF_F32 ? (const void *)fb : (const void *)db;
    snprintf(c.kernel, sizeof c.kernel, "%s", k->name);
    if (df_launch_resolve(k, N, &c.launch, NULL, 0) != 0)
        return -1;
    double seen[16], f;
    unsigned nseen = 0;
    card->launches = 0;
    for (uint32_t bs = 1; bs <= k->block_max && bs != 0 && !p->dead; bs *= 2) {
        df_case v = c;
        v.launch.block = bs;
        v.launch.grid = 0;
        if (bs < k->block_min || df_launch_resolve(k, v.n, &v.launch, NULL, 0) != 0 ||
            df_probe_run_case(p, &v, &f) != 0)
            continue;
        card->launches++;
        unsigned j = 0;
        while (j < nseen && memcmp(&seen[j], &f, sizeof f) != 0)
            j++;
        if (j == nseen && nseen < 16)
            seen[nseen++] = f;
    }
    card->launch_results = nseen;
    card->launch_dependent = card->launches < 2 ? -1 : nseen > 1;
    double first = 0;
    int runs = 0, differ = 0;
    for (int i = 0; i < 5 && !p->dead; i++) {
        if (df_probe_run_case(p, &c, &f) != 0)
            continue;
        if (runs++ == 0)
            first = f;
        else
            differ |= memcmp(&first, &f, sizeof first) != 0;
    }
    card->runs_differ = runs < 2 ? -1 : differ;
    return 0;
}

int df_probe(df_sandbox *sb, const df_kernel *k, df_probe_card *card)
{
    prober p = {sb, k, 0, 0};
    memset(card, 0, sizeof *card);
    if (df_type_is_lowp(k->elem)) {
        df_probe_lowp(&p, card);
        card->runs = p.runs;
        return p.dead ? -1 : 0;
    }
    card->acc_bits = bits_kept(&p, 0, 64);
    card->product_bits = bits_kept(&p, 1, k->elem == DF_F64 ? 52 : 23);
    card->acc_round = acc_round(&p, card->acc_bits);
    /* a subnormal of the element type, and two normals whose product is a
     * subnormal of the accumulator */
    int f64 = k->elem == DF_F64, acc64 = k->acc == DF_F64;
    double sub_in = ldexp(1, f64 ? -1030 : -130);
    card->subnormal_inputs = gives(&p, sub_in, 1, 0, 0, sub_in);
    double x = ldexp(1, acc64 ? -520 : -70), y = ldexp(1, acc64 ? -510 : -60);
    if (!acc64 || f64)
        card->subnormal_results = gives(&p, x, y, 0, 0, x * y);
    else /* f32 inputs cannot make a double's subnormal product */
        card->subnormal_results = -1;
    card->nan_out = gives(&p, NAN, 1, 1, 1, NAN);
    card->inf_out = gives(&p, INFINITY, 1, 1, 1, INFINITY);
    card->inf_minus_inf = gives(&p, INFINITY, 1, -INFINITY, 1, NAN);
    if (!p.dead)
        launches(&p, card);
    card->runs = p.runs;
    return p.dead ? -1 : 0;
}
