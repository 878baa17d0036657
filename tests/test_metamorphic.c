/* test_metamorphic.c — the rerun, negate, scale and permute checks catch
 * kernels (host models here, on the host backend) that are each wrong in
 * exactly the way one check can see, while staying inside the rounding
 * bound on the original case; and correct kernels pass them all. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "fuzz/backend/backend.h"
#include "fuzz/gen/generator.h"
#include "fuzz/check/metamorphic.h"
#include "reference/reference.h"

static uint64_t height_n(uint64_t n, const df_launch *l)
{
    (void)l;
    return n + 1;
}

static float serial_sum(const df_case *c)
{
    const float *a = c->a, *b = c->b;
    float s = 0.0f;
    for (uint64_t i = 0; i < c->n; i++)
        s += a[i] * b[i];
    return s;
}

/* rounds up positive results by one ulp: within the bound, not odd */
static int model_asymmetric(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    float r = serial_sum(c);
    out->f = r > 0 ? nextafterf(r, INFINITY) : r;
    return 0;
}

/* one ulp up on every other call: what a racy kernel looks like */
static int calls;
static int model_flaky(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    float r = serial_sum(c);
    out->f = (calls++ & 1) ? nextafterf(r, INFINITY) : r;
    return 0;
}

/* keeps the result on a fixed absolute grid of 2^-30: not scale-invariant */
static int model_fixed_grid(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    out->f = (float)(nearbyint((double)serial_sum(c) * 0x1p30) * 0x1p-30);
    return 0;
}

/* drops the last element (an unguarded tail) */
static int model_drops_last(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    df_case shorter = *c;
    shorter.n = c->n ? c->n - 1 : 0;
    out->f = serial_sum(&shorter);
    return 0;
}

static int model_serial(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    out->f = serial_sum(c);
    return 0;
}

static df_kernel fake(int (*model)(const df_case *, df_scratch *, df_result *), unsigned flags)
{
    return (df_kernel){.name = "fake", .origin = "test", .summary = "test", .elem = DF_F32,
                       .acc = DF_F32, .flags = flags, .block_min = 1, .block_max = 1,
                       .block_default = 1, .per_thread = 1, .tree_height = height_n,
                       .host_model = model};
}

static df_backend *host(void)
{
    df_backend *b = NULL;
    char err[200];
    cr_assert_eq(df_backend_open("host", &b, err, sizeof err), 0);
    return b;
}

/* Judges c on k, then the metamorphic checks; returns the final verdict. */
static df_verdict check(const df_kernel *k, df_case *c, df_checked *r, df_meta_report *rep)
{
    df_backend *b = host();
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts mo = {.every = 1, .reruns = 2};
    df_scratch buf = {0};
    cr_assert_eq(df_check_case(b, k, c, &oo, r), 0);
    cr_assert_eq(df_metamorphic(b, k, c, &oo, &mo, &buf, r, rep), 0);
    df_scratch_free(&buf);
    df_backend_close(b);
    return r->j.verdict;
}

static df_case make_case(const float *a, const float *b, uint64_t n, uint64_t index)
{
    return (df_case){.type = DF_F32, .n = n, .a = a, .b = b, .launch = {1, 1, 0, 0},
                     .seed = 1, .index = index};
}

static const float pos_a[] = {1.5f, 2.25f, 0.1f, 3.0f, 7.75f, 0.3f};
static const float ones[] = {1, 1, 1, 1, 1, 1};

Test(metamorphic, correct_kernel_passes_every_check)
{
    df_kernel k = fake(model_serial, DF_K_DETERMINISTIC);
    for (uint64_t idx = 0; idx < 16; idx++) {
        df_case c = make_case(pos_a, ones, 6, idx);
        df_checked r;
        df_meta_report rep;
        df_verdict v = check(&k, &c, &r, &rep);
        cr_assert(v == DF_V_OK || v == DF_V_PRECISION, "index %llu: %s %s",
                  (unsigned long long)idx, r.j.rule, r.j.why);
        cr_assert_eq(rep.ran & (DF_META_RERUN | DF_META_NEGATE | DF_META_PERMUTE),
                     DF_META_RERUN | DF_META_NEGATE | DF_META_PERMUTE);
        cr_assert_eq(rep.distinct, 1);
    }
}

Test(metamorphic, negate_catches_an_asymmetric_rounding)
{
    df_kernel k = fake(model_asymmetric, DF_K_DETERMINISTIC);
    df_case c = make_case(pos_a, ones, 6, 3);
    df_checked r;
    df_meta_report rep;
    /* the original result alone is inside the bound */
    df_backend *b = host();
    df_oracle_opts oo = {.tol = 1.0};
    cr_assert_eq(df_check_case(b, &k, &c, &oo, &r), 0);
    cr_assert_neq(r.j.verdict, DF_V_BUG, "%s", r.j.why);
    df_backend_close(b);
    cr_assert_eq(check(&k, &c, &r, &rep), DF_V_BUG);
    cr_assert_str_eq(r.j.rule, "negate");
}

Test(metamorphic, rerun_fails_a_flaky_kernel_that_claims_determinism)
{
    df_kernel k = fake(model_flaky, DF_K_DETERMINISTIC);
    df_case c = make_case(pos_a, ones, 6, 0);
    df_checked r;
    df_meta_report rep;
    calls = 0;
    cr_assert_eq(check(&k, &c, &r, &rep), DF_V_BUG);
    cr_assert_str_eq(r.j.rule, "rerun");
    cr_assert_eq(rep.distinct, 2);
}

Test(metamorphic, rerun_measures_a_kernel_that_claims_nothing)
{
    df_kernel k = fake(model_flaky, 0);
    df_case c = make_case(pos_a, ones, 6, 0);
    df_checked r;
    df_meta_report rep;
    calls = 0;
    cr_assert_eq(check(&k, &c, &r, &rep), DF_V_NONDET);
    cr_assert_str_eq(r.j.rule, "rerun");
    cr_assert(strstr(r.j.why, "2 distinct results over 3 runs"), "%s", r.j.why);
}

Test(metamorphic, scale_catches_a_fixed_absolute_grid)
{
    /* s = 2^-24 + 2^-33: the grid drops 2^-33 (inside the bound, G = 2);
     * scaled by 2^k with k >= 3 the bit survives, so f(2^k a) != 2^k f(a) */
    static const float a[] = {1.0f, -1.0f, 0x1p-24f + 0x1p-33f};
    static const float b3[] = {1, 1, 1};
    df_kernel k = fake(model_fixed_grid, DF_K_DETERMINISTIC);
    int caught = 0, passed = 0;
    for (uint64_t idx = 0; idx < 64; idx++) {
        df_case c = make_case(a, b3, 3, idx);
        df_checked r;
        df_meta_report rep;
        df_verdict v = check(&k, &c, &r, &rep);
        cr_assert(rep.ran & DF_META_SCALE, "scale did not run at index %llu",
                  (unsigned long long)idx);
        if (rep.scale_k >= 3) {
            cr_assert_eq(v, DF_V_BUG, "k=%d: %s", rep.scale_k, r.j.why);
            cr_assert_str_eq(r.j.rule, "scale");
            caught++;
        } else {
            cr_assert_neq(v, DF_V_BUG, "k=%d: %s %s", rep.scale_k, r.j.rule, r.j.why);
            passed++;
        }
    }
    cr_assert_gt(caught, 0);
    cr_assert_gt(passed, 0);
}

Test(metamorphic, permute_moves_a_nonzero_into_an_unguarded_tail)
{
    static const float a[] = {1, 2, 3, 4, 0};
    static const float b5[] = {1, 1, 1, 1, 1};
    df_kernel k = fake(model_drops_last, DF_K_DETERMINISTIC);
    int caught = 0;
    for (uint64_t idx = 0; idx < 10; idx++) {
        df_case c = make_case(a, b5, 5, idx);
        df_checked r;
        df_meta_report rep;
        if (check(&k, &c, &r, &rep) == DF_V_BUG) {
            cr_assert_str_eq(r.j.rule, "permute", "%s", r.j.why);
            caught++;
        }
    }
    cr_assert_gt(caught, 5);
}

Test(metamorphic, scale_is_exact_only_where_it_provably_is)
{
    df_kernel k = fake(model_serial, DF_K_DETERMINISTIC);
    static const float ints[] = {3, -7, 50};
    static const float sub[] = {3, 0x1p-140f, 1};
    static const float tiny[] = {0x1.000002p-70f, 1, 1};
    static const float tiny_b[] = {0x1.000002p-70f, 1, 1};
    df_case c = make_case(ints, ints, 3, 0);
    cr_assert(df_scale_is_exact(&k, &c, 2558, 6));
    cr_assert(df_scale_is_exact(&k, &c, 2558, -6));
    cr_assert(!df_scale_is_exact(&k, &c, 0x1p126, 6), "G 2^132 overflows float");
    c = make_case(sub, ones, 3, 0);
    cr_assert(!df_scale_is_exact(&k, &c, 4, 1), "a subnormal input");
    /* products of two 2^-70 values with full mantissas: quantum 2^-186 */
    c = make_case(tiny, tiny_b, 3, 0);
    cr_assert(!df_scale_is_exact(&k, &c, 2, -1));
    df_kernel ftz = fake(model_serial, DF_K_DETERMINISTIC | DF_K_FLUSHES_SUBNORMALS);
    c = make_case(ints, ints, 3, 0);
    cr_assert(!df_scale_is_exact(&ftz, &c, 2558, 1), "flush-to-zero kernels are excluded");
    static const uint16_t h16[] = {0x4200, 0xc700, 0x5240}; /* 3, -7, 50 as f16 */
    c = make_case(ints, ints, 3, 0);
    c.type = DF_F16;
    c.a = c.b = h16;
    cr_assert(!df_scale_is_exact(&k, &c, 2558, 1), "no scaled copy of a low-precision case");
}

/* df_scale_is_exact's rule element by element, written apart from its
 * one-pass scan of the bits: classes from fpclassify, exponents from ilogb.
 * Returns 1 where the scaling by 2^kexp is provably exact. */
static int scale_exact_by_element(const df_kernel *k, df_type t, const void *a, const void *b,
                                  uint64_t n, double G, int kexp)
{
    if ((k->flags & DF_K_FLUSHES_SUBNORMALS) || !isfinite(G))
        return 0;
    int f32 = t == DF_F32;
    int pe = f32 ? 24 : 53, emin_e = f32 ? -126 : -1022, emax_e = f32 ? 127 : 1023;
    int p = k->acc == DF_F32 ? 24 : 53, emin = k->acc == DF_F32 ? -126 : -1022;
    long qmin = 1L << 30;
    for (uint64_t i = 0; i < n; i++) {
        double x = f32 ? ((const float *)a)[i] : ((const double *)a)[i];
        double y = f32 ? ((const float *)b)[i] : ((const double *)b)[i];
        if (!isfinite(x) || !isfinite(y))
            return 0;
        if (x == 0)
            continue;
        int xsub = f32 ? fpclassify((float)x) == FP_SUBNORMAL : fpclassify(x) == FP_SUBNORMAL;
        int ex = ilogb(x);
        if (xsub || ex + kexp < emin_e || ex + kexp > emax_e)
            return 0;
        if (y == 0)
            continue;
        if (f32 ? fpclassify((float)y) == FP_SUBNORMAL : fpclassify(y) == FP_SUBNORMAL)
            return 0;
        long q = (long)(ex - (pe - 1)) + (ilogb(y) - (pe - 1));
        qmin = q < qmin ? q : qmin;
    }
    if (qmin != 1L << 30 && qmin + (kexp < 0 ? kexp : 0) < emin - p + 1)
        return 0;
    return ldexp(G, kexp > 0 ? kexp + 2 : 2) < (k->acc == DF_F32 ? FLT_MAX : DBL_MAX);
}

/* A value of format t drawn to reach every branch of the rule: zeros,
 * subnormals, normals near the ends of the range and in the middle, and
 * now and then Inf or NaN. */
static double scale_value(df_pcg32 *r, df_type t)
{
    int f32 = t == DF_F32;
    double sign = df_pcg32_bounded(r, 2) ? -1.0 : 1.0;
    double m = 1.0 + (double)df_pcg32_next(r) * 0x1p-32;
    switch (df_pcg32_bounded(r, 16)) {
    case 0: return 0.0 * sign;
    case 1: return sign * ldexp(m, f32 ? -140 : -1060);                  /* subnormal */
    case 2: return sign * ldexp(m, (f32 ? -126 : -1022) + (int)df_pcg32_bounded(r, 8)); /* low */
    case 3: return sign * ldexp(m, (f32 ? 120 : 1016) + (int)df_pcg32_bounded(r, 7));   /* high */
    case 4: return df_pcg32_bounded(r, 64) ? sign * m : (df_pcg32_bounded(r, 2) ? NAN : sign * INFINITY);
    default: return sign * ldexp(m, (int)df_pcg32_bounded(r, 80) - 40);
    }
}

Test(metamorphic, scale_is_exact_matches_the_rule_element_by_element)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 7, 11);
    enum { N = 6 };
    float af[N], bf[N];
    double ad[N], bd[N];
    unsigned yes = 0, no = 0;
    for (int acc = 0; acc < 2; acc++) {
        df_kernel k = fake(model_serial, DF_K_DETERMINISTIC);
        k.acc = acc ? DF_F64 : DF_F32;
        for (int it = 0; it < 4000; it++) {
            df_type t = it % 2 ? DF_F64 : DF_F32;
            /* a few kinds per case, so that whole cases pass too */
            unsigned n = 1 + df_pcg32_bounded(&r, N);
            for (unsigned i = 0; i < n; i++) {
                double x = scale_value(&r, t), y = scale_value(&r, t);
                if (it % 3 == 0) /* cases of middle-range normals alone */
                    x = ldexp(1.0 + i, (int)df_pcg32_bounded(&r, 20)), y = -x;
                af[i] = (float)x, bf[i] = (float)y, ad[i] = x, bd[i] = y;
            }
            const void *a = t == DF_F32 ? (const void *)af : (const void *)ad;
            const void *b = t == DF_F32 ? (const void *)bf : (const void *)bd;
            df_case c = {.type = t, .n = n, .a = a, .b = b};
            double G = df_abs_dot(t, a, b, n);
            int kexp = 1 + (int)df_pcg32_bounded(&r, 6);
            kexp = df_pcg32_bounded(&r, 2) ? -kexp : kexp;
            int want = scale_exact_by_element(&k, t, a, b, n, G, kexp);
            cr_assert_eq(df_scale_is_exact(&k, &c, G, kexp), want,
                         "case %d (type %d, n %u, kexp %d, acc %d)", it, (int)t, n, kexp, acc);
            want ? yes++ : no++;
        }
    }
    cr_assert_gt(yes, 500, "exact scalings drawn: %u", yes);
    cr_assert_gt(no, 500, "inexact ones: %u", no);
}

/* The cuda path makes a sampled case's copies before its run, as if the
 * run ended well, and settles the plan after it: the plan it ends with is
 * the one made from the real first run, variant for variant and byte for
 * byte, whether that run ended well or not (f32, f64, i32 cases of every
 * family, lengths 0 to 300). */
Test(metamorphic, copies_made_before_the_run_settle_to_the_real_plan)
{
    static const char *names[] = {"shfl", "shfl-f64", "int-atomic"};
    df_meta_opts mo = {.every = 1, .reruns = 2};
    df_scratch buf = {0};
    df_meta_plan early, real;
    memset(&early, 0, sizeof early);
    memset(&real, 0, sizeof real);
    int dropped = 0;
    for (uint64_t i = 0; i < 600; i++) {
        const df_kernel *k = df_kernel_find(names[i % 3]);
        df_gen_opts go = {.max_n = 300};
        df_case c;
        cr_assert_eq(df_generate(17, i, k, &go, &buf, &c), 0);
        df_checked ok, r;
        memset(&ok, 0, sizeof ok);
        df_refs_compute(c.type, c.a, c.b, c.n, &ok.refs);
        ok.res.status = DF_RUN_OK;
        r = ok;
        if (i % 2)
            r.res.status = DF_RUN_ERROR; /* the run failed */
        cr_assert_eq(df_meta_plan_variants(k, &c, &ok, &mo, &early), 0);
        size_t before = early.nvar;
        df_meta_plan_settle(&early, &r);
        dropped += early.nvar < before;
        cr_assert_eq(df_meta_plan_variants(k, &c, &r, &mo, &real), 0);
        cr_assert_eq(early.nvar, real.nvar, "case %llu", (unsigned long long)i);
        cr_assert_eq(early.kexp, real.kexp);
        size_t bytes = (size_t)c.n * df_type_size(c.type);
        for (size_t v = 0; v < real.nvar; v++) {
            cr_assert_eq(early.kind[v], real.kind[v], "case %llu variant %zu",
                         (unsigned long long)i, v);
            cr_assert_eq(early.var[v].n, real.var[v].n);
            cr_assert_eq(memcmp(early.var[v].a, real.var[v].a, bytes), 0);
            cr_assert_eq(memcmp(early.var[v].b, real.var[v].b, bytes), 0);
            cr_assert_eq(early.ran[v], 0);
        }
    }
    cr_assert_gt(dropped, 100); /* failed runs lost their negate and scale copies */
    df_meta_plan_free(&early);
    df_meta_plan_free(&real);
    df_scratch_free(&buf);
}

/* The hint the cuda backend makes a copy's a from, on the GPU that
 * generated the case (df_meta_plan_derive, case.h's df_derive): each
 * negate and scale copy's a is, bit for bit, what the unpack kernel's
 * derive_word makes of the case's a (a float's sign bit flipped, an
 * int32's two's complement; the product by 2^kexp, exact there), and the
 * other copies have none (f32, f64, i32 cases of every family). */
Test(metamorphic, each_derived_copy_is_its_hint_applied_to_the_case)
{
    static const char *names[] = {"shfl", "shfl-f64", "int-atomic"};
    df_meta_opts mo = {.every = 1, .reruns = 1};
    df_scratch buf = {0};
    df_meta_plan p;
    memset(&p, 0, sizeof p);
    int negated = 0, scaled = 0, none = 0;
    for (uint64_t i = 0; i < 600; i++) {
        const df_kernel *k = df_kernel_find(names[i % 3]);
        df_gen_opts go = {.max_n = 300};
        df_case c;
        cr_assert_eq(df_generate(23, i, k, &go, &buf, &c), 0);
        df_checked ok;
        memset(&ok, 0, sizeof ok);
        df_refs_compute(c.type, c.a, c.b, c.n, &ok.refs);
        ok.res.status = DF_RUN_OK;
        cr_assert_eq(df_meta_plan_variants(k, &c, &ok, &mo, &p), 0);
        for (size_t v = 0; v < p.nvar; v++) {
            df_derive d = df_meta_plan_derive(&c, &p, v);
            if (p.kind[v] != DF_META_NEGATE && p.kind[v] != DF_META_SCALE) {
                cr_assert_eq(d.op, DF_DERIVE_NONE);
                cr_assert_null(d.from);
                none++;
                continue;
            }
            cr_assert_eq(d.from, c.a, "from the case's own a");
            cr_assert_eq(p.var[v].b, c.b, "beside the case's own b");
            cr_assert_eq(d.op, p.kind[v] == DF_META_NEGATE ? DF_DERIVE_NEGATE : DF_DERIVE_SCALE);
            negated += d.op == DF_DERIVE_NEGATE;
            scaled += d.op == DF_DERIVE_SCALE;
            for (uint64_t j = 0; j < c.n; j++) {
                if (c.type == DF_F64) {
                    uint64_t x, y, want;
                    memcpy(&x, (const double *)c.a + j, 8);
                    memcpy(&y, (const double *)p.var[v].a + j, 8);
                    double s = ldexp(((const double *)c.a)[j], d.kexp);
                    memcpy(&want, &s, 8);
                    if (d.op == DF_DERIVE_NEGATE)
                        want = x ^ UINT64_C(0x8000000000000000);
                    cr_assert_eq(y, want, "case %llu element %llu", (unsigned long long)i,
                                 (unsigned long long)j);
                } else {
                    uint32_t x, y, want;
                    memcpy(&x, (const uint32_t *)c.a + j, 4);
                    memcpy(&y, (const uint32_t *)p.var[v].a + j, 4);
                    if (d.op == DF_DERIVE_NEGATE) {
                        want = c.type == DF_I32 ? 0u - x : x ^ 0x80000000u;
                    } else {
                        cr_assert_eq(c.type, DF_F32, "no scale copy of int32 data");
                        float s = (float)ldexp((double)((const float *)c.a)[j], d.kexp);
                        memcpy(&want, &s, 4);
                    }
                    cr_assert_eq(y, want, "case %llu element %llu", (unsigned long long)i,
                                 (unsigned long long)j);
                }
            }
            if (d.op == DF_DERIVE_SCALE)
                cr_assert(d.kexp != 0 && d.kexp >= -6 && d.kexp <= 6);
        }
    }
    cr_assert_gt(negated, 200);
    cr_assert_gt(scaled, 50);
    cr_assert_gt(none, 600);
    df_meta_plan_free(&p);
    df_scratch_free(&buf);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
    return p < q ? -1 : p > q;
}

/* A permute copy of a case past DF_GEN_CHUNK: made chunk by chunk, last to
 * first, it is df_meta_plan_fill's, a permutation of the case's pairs
 * that keeps each pair together, and moves whole chunks as well as the
 * pairs inside them. */
Test(metamorphic, long_permute_copies_made_in_chunks_in_any_order)
{
    const df_kernel *k = df_kernel_find("shfl");
    cr_assert_not_null(k);
    static const uint64_t ns[] = {3 * DF_GEN_CHUNK, 4 * DF_GEN_CHUNK + 5};
    df_meta_opts mo = {.every = 1, .reruns = 1};
    df_scratch buf = {0};
    df_meta_plan p, q;
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    for (size_t m = 0; m < 2; m++) {
        df_gen_opts go = {.max_n = ns[m], .fixed_n = ns[m], .family = 2 /* uniform */};
        df_case c;
        cr_assert_eq(df_generate(21, m, k, &go, &buf, &c), 0);
        cr_assert_eq(c.n, ns[m]);
        df_checked ok;
        memset(&ok, 0, sizeof ok);
        df_refs_compute(c.type, c.a, c.b, c.n, &ok.refs);
        ok.res.status = DF_RUN_OK;
        cr_assert_eq(df_meta_plan_variants(k, &c, &ok, &mo, &p), 0);
        cr_assert_eq(df_meta_plan_layout(k, &c, &ok, &mo, &q), 0);
        size_t v = 0;
        while (v < p.nvar && p.kind[v] != DF_META_PERMUTE)
            v++;
        cr_assert_lt(v, p.nvar, "a permute copy");
        uint64_t chunks = df_meta_permute_chunks(&c);
        cr_assert_eq(chunks, (c.n + DF_GEN_CHUNK - 1) / DF_GEN_CHUNK);
        cr_assert_eq(q.perm_left, chunks);
        for (uint64_t j = chunks; j-- > 0;)
            df_meta_permute_chunk(&c, &q, v, j);
        size_t bytes = (size_t)c.n * sizeof(float);
        cr_assert_eq(memcmp(p.var[v].a, q.var[v].a, bytes), 0);
        cr_assert_eq(memcmp(p.var[v].b, q.var[v].b, bytes), 0);
        /* the same pairs (a's and b's bits side by side), sorted */
        uint64_t *x = malloc(c.n * sizeof *x), *y = malloc(c.n * sizeof *y);
        cr_assert(x && y);
        const uint32_t *ca = c.a, *cb = c.b, *pa = p.var[v].a, *pb = p.var[v].b;
        uint64_t moved_chunk = 0, moved = 0;
        for (uint64_t i = 0; i < c.n; i++) {
            x[i] = (uint64_t)ca[i] << 32 | cb[i];
            y[i] = (uint64_t)pa[i] << 32 | pb[i];
            moved += x[i] != y[i];
        }
        for (uint64_t j = 0; j + 1 < chunks; j++) /* the chunks' first pairs moved */
            moved_chunk += memcmp(pa + j * DF_GEN_CHUNK, ca + j * DF_GEN_CHUNK, 4) != 0;
        qsort(x, c.n, sizeof *x, cmp_u64);
        qsort(y, c.n, sizeof *y, cmp_u64);
        cr_assert_eq(memcmp(x, y, c.n * sizeof *x), 0, "a permutation of the pairs");
        cr_assert_gt(moved, c.n * 99 / 100);
        cr_assert_gt(moved_chunk, 0);
        free(x);
        free(y);
    }
    df_meta_plan_free(&p);
    df_meta_plan_free(&q);
    df_scratch_free(&buf);
}
