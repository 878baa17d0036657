/* test_order_set.c — the exact oracle of few-term cases
 * (reference/order_set.h): known sets on hand-made cases (a sum past a
 * midpoint, a tie, a binade edge, an FMA), the cases that get no set, and
 * every set of 4,000 random cases against MPFR walking every tree
 * explicitly (products exact at 128 bits, each addition rounded once to 24
 * or 53 bits with MPFR_RNDN, an FMA's product entering exactly). The
 * oracle's rule: a result outside the set is a bug `order-set`, with the
 * set in its line. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/oracle.h"
#include "fuzz/pcg32.h"
#include "reference/order_set.h"

static int set_of_f32(const float *a, const float *b, uint64_t n, df_type acc, int ftz,
                      df_order_set *s)
{
    return df_order_set_of(DF_F32, acc, ftz, a, b, n, s);
}

Test(order_set, past_a_midpoint_every_order_rounds_up)
{
    /* 1 + 0.75 ulp: RN gives 1 + ulp in the one order there is; toward
     * zero would give 1 */
    float a[] = {0, 1.0f, 0, 0.75f * 0x1p-23f, 0}, b[] = {5, 1, 7, 1, 0};
    df_order_set s;
    cr_assert_eq(set_of_f32(a, b, 5, DF_F32, 0, &s), 1);
    cr_assert_eq(s.terms, 2);
    cr_assert_eq(s.count, 1);
    cr_assert(s.vals[0] == 1.0 + 0x1p-23);
    cr_assert(!df_order_set_has(&s, 1.0));
}

Test(order_set, a_tie_and_a_sticky_term_give_both_neighbours)
{
    /* 1 + ulp/2 + 2^-40: added in that order the tie goes to even (1) and
     * the small term is lost; the small term first makes it round up */
    float a[] = {1.0f, 0x1p-24f, 0x1p-40f}, b[] = {1, 1, 1};
    df_order_set s;
    cr_assert_eq(set_of_f32(a, b, 3, DF_F32, 0, &s), 1);
    cr_assert_eq(s.count, 2);
    cr_assert(df_order_set_has(&s, 1.0) && df_order_set_has(&s, 1.0 + 0x1p-23));
    /* in a double accumulator every sum is exact */
    cr_assert_eq(set_of_f32(a, b, 3, DF_F64, 0, &s), 1);
    cr_assert_eq(s.count, 1);
    cr_assert(s.vals[0] == 1.0 + 0x1p-24 + 0x1p-40);
}

Test(order_set, an_fma_keeps_the_product_exact)
{
    /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: rounded alone to 1 + 2^-11 (a
     * tie to even), exact inside an FMA with -1: 2^-11 + 2^-24 */
    float a[] = {1.0f + 0x1p-12f, -1.0f}, b[] = {1.0f + 0x1p-12f, 1.0f};
    df_order_set s;
    cr_assert_eq(set_of_f32(a, b, 2, DF_F32, 0, &s), 1);
    cr_assert_eq(s.count, 2);
    cr_assert(df_order_set_has(&s, 0x1p-11));
    cr_assert(df_order_set_has(&s, 0x1p-11 + 0x1p-24));
}

Test(order_set, f64_products_enter_exactly)
{
    /* (1 + 2^-30)^2 - 1 = 2^-29 + 2^-60, exact with an FMA */
    double a[] = {1.0 + 0x1p-30, -1.0}, b[] = {1.0 + 0x1p-30, 1.0};
    df_order_set s;
    cr_assert_eq(df_order_set_of(DF_F64, DF_F64, 0, a, b, 2, &s), 1);
    cr_assert(df_order_set_has(&s, 0x1p-29 + 0x1p-60));
    cr_assert(df_order_set_has(&s, 0x1p-29));
}

Test(order_set, cases_without_a_set)
{
    float five[] = {1, 2, 3, 4, 5}, ones[] = {1, 1, 1, 1, 1};
    df_order_set s;
    cr_assert_eq(set_of_f32(five, ones, 5, DF_F32, 0, &s), 0, "five nonzero products");
    cr_assert_eq(set_of_f32(five, ones, 4, DF_F32, 0, &s), 1);
    float inf[] = {0, INFINITY}, one[] = {1, 0};
    cr_assert_eq(set_of_f32(one, inf, 2, DF_F32, 0, &s), 0, "0 * Inf");
    int32_t i[] = {1, 2};
    cr_assert_eq(df_order_set_of(DF_I32, DF_I32, 0, i, i, 2, &s), 0, "integers");
    /* a subnormal sum: a set without flushing, none with it */
    float sub[] = {0x1p-126f, -0x1.8p-127f}, b[] = {1, 1};
    cr_assert_eq(set_of_f32(sub, b, 2, DF_F32, 0, &s), 1);
    cr_assert(df_order_set_has(&s, 0x1p-128));
    cr_assert_eq(set_of_f32(sub, b, 2, DF_F32, 1, &s), 0);
    /* no nonzero product: zero of either sign */
    float z[] = {0, -0.0f, 3}, w[] = {2, 5, 0};
    cr_assert_eq(set_of_f32(z, w, 3, DF_F32, 1, &s), 1);
    cr_assert(s.terms == 0 && df_order_set_has(&s, 0.0) && df_order_set_has(&s, -0.0));
    cr_assert(!df_order_set_has(&s, 0x1p-149));
}

/* ---- every tree, walked with MPFR ------------------------------------- */

typedef struct item {
    double v;   /* the value, in the accumulator's precision */
    int leaf;   /* a product not yet summed: may enter an FMA exactly */
    mpfr_t p;   /* its exact product (leaf) */
} item;

typedef struct walk {
    mpfr_prec_t prec;
    double found[4096];
    unsigned count;
} walk;

static void found(walk *w, double v)
{
    for (unsigned i = 0; i < w->count; i++)
        if (w->found[i] == v)
            return;
    cr_assert(w->count < 4096);
    w->found[w->count++] = v;
}

/* RN to prec bits of x + y (each an mpfr value). */
static double add_rn(mpfr_prec_t prec, mpfr_srcptr x, mpfr_srcptr y)
{
    mpfr_t s;
    mpfr_init2(s, prec);
    mpfr_add(s, x, y, MPFR_RNDN);
    double d = mpfr_get_d(s, MPFR_RNDN);
    mpfr_clear(s);
    return d;
}

/* Every way to finish summing items[0..m): two of them replaced by their
 * sum, in every choice of pair and of which (if any) enters as an exact
 * product. */
static void walk_trees(walk *w, item *it, unsigned m)
{
    if (m == 1) {
        found(w, it[0].v);
        return;
    }
    for (unsigned i = 0; i < m; i++)
        for (unsigned j = i + 1; j < m; j++) {
            item x = it[i], y = it[j];
            for (int fuse = 0; fuse < 3; fuse++) {
                if ((fuse == 1 && !x.leaf) || (fuse == 2 && !y.leaf))
                    continue;
                mpfr_t xv, yv;
                mpfr_init2(xv, 128);
                mpfr_init2(yv, 128);
                if (fuse == 1)
                    mpfr_set(xv, x.p, MPFR_RNDN);
                else
                    mpfr_set_d(xv, x.v, MPFR_RNDN);
                if (fuse == 2)
                    mpfr_set(yv, y.p, MPFR_RNDN);
                else
                    mpfr_set_d(yv, y.v, MPFR_RNDN);
                double s = add_rn(w->prec, xv, yv);
                mpfr_clear(xv);
                mpfr_clear(yv);
                item next[DF_ORDER_SET_MAX_TERMS];
                unsigned q = 0;
                for (unsigned r = 0; r < m; r++)
                    if (r != i && r != j)
                        next[q++] = it[r];
                next[q] = it[i];
                next[q].v = s;
                next[q].leaf = 0;
                walk_trees(w, next, q + 1);
            }
        }
}

/* A float or double of precision bits, exponent in [-e, e]. */
static double draw(df_pcg32 *r, int bits, int e)
{
    uint64_t m = (uint64_t)df_pcg32_next(r) << 32 | df_pcg32_next(r);
    m >>= 64 - bits;
    m |= (uint64_t)1 << (bits - 1);
    int ex = (int)df_pcg32_range(r, -e, e);
    double v = ldexp((double)m, ex - bits + 1);
    return df_pcg32_bounded(r, 2) ? -v : v;
}

static void check_against_mpfr(df_type elem, df_type acc, uint64_t seed)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, 7);
    int bits = elem == DF_F32 ? 24 : 53;
    mpfr_prec_t prec = acc == DF_F32 ? 24 : 53;
    unsigned with_sets = 0;
    for (int c = 0; c < 1000; c++) {
        unsigned k = 1 + df_pcg32_bounded(&r, 4);
        double av[4], bv[4];
        int spread = (int)df_pcg32_bounded(&r, 3) * 20; /* 0, 20 or 40 binades apart */
        for (unsigned i = 0; i < k; i++) {
            /* short factors sometimes, so the products are exact in the type */
            int fb = df_pcg32_bounded(&r, 2) ? bits : bits / 2;
            av[i] = draw(&r, fb, 2 + spread / 2);
            bv[i] = draw(&r, df_pcg32_bounded(&r, 2) ? bits : 1, 2 + spread / 2);
        }
        float af[4], bf[4];
        for (unsigned i = 0; i < k; i++)
            af[i] = (float)av[i], bf[i] = (float)bv[i];
        const void *a = elem == DF_F32 ? (const void *)af : (const void *)av;
        const void *b = elem == DF_F32 ? (const void *)bf : (const void *)bv;
        df_order_set s;
        if (!df_order_set_of(elem, acc, 0, a, b, k, &s))
            continue;
        with_sets++;
        walk w = {.prec = prec, .count = 0};
        item it[DF_ORDER_SET_MAX_TERMS];
        for (unsigned i = 0; i < k; i++) {
            double x = elem == DF_F32 ? af[i] : av[i], y = elem == DF_F32 ? bf[i] : bv[i];
            mpfr_init2(it[i].p, 128);
            mpfr_set_d(it[i].p, x, MPFR_RNDN);
            mpfr_mul_d(it[i].p, it[i].p, y, MPFR_RNDN); /* 106 bits: exact */
            mpfr_t t;
            mpfr_init2(t, prec);
            mpfr_set(t, it[i].p, MPFR_RNDN);
            it[i].v = mpfr_get_d(t, MPFR_RNDN);
            mpfr_clear(t);
            it[i].leaf = 1;
        }
        walk_trees(&w, it, k);
        cr_assert_eq(s.count, w.count, "case %d: %u values, MPFR's trees give %u", c, s.count,
                     w.count);
        for (unsigned i = 0; i < w.count; i++)
            cr_assert(df_order_set_has(&s, w.found[i]), "case %d: MPFR's %a missing", c,
                      w.found[i]);
        for (unsigned i = 0; i < k; i++)
            mpfr_clear(it[i].p);
    }
    cr_assert_gt(with_sets, 900, "%u of 1000 cases got a set", with_sets);
}

Test(order_set, f32_in_f32_matches_mpfr_trees, .timeout = 60)
{
    check_against_mpfr(DF_F32, DF_F32, 1);
}
Test(order_set, f32_in_f64_matches_mpfr_trees, .timeout = 60)
{
    check_against_mpfr(DF_F32, DF_F64, 2);
}
Test(order_set, f64_in_f64_matches_mpfr_trees, .timeout = 60)
{
    check_against_mpfr(DF_F64, DF_F64, 3);
}
Test(order_set, f32_in_f32_matches_mpfr_trees_again, .timeout = 60)
{
    check_against_mpfr(DF_F32, DF_F32, 4);
}

/* ---- the oracle's rule ------------------------------------------------- */

static uint64_t height_n(uint64_t n, const df_launch *l)
{
    (void)l;
    return n;
}

Test(order_set, the_oracle_calls_a_result_outside_the_set_a_bug)
{
    float a[] = {0, 1.0f, 0, 0.75f * 0x1p-23f}, b[] = {9, 1, 3, 1};
    df_kernel k;
    memset(&k, 0, sizeof k);
    k.name = "fake";
    k.elem = k.acc = DF_F32;
    k.block_min = k.block_max = k.block_default = 32;
    k.per_thread = 1;
    k.tree_height = height_n;
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = DF_F32;
    c.n = 4;
    c.a = a;
    c.b = b;
    c.launch.block = 32;
    c.launch.grid = 1;
    df_refs refs;
    df_refs_compute(DF_F32, a, b, 4, &refs);
    df_oracle_opts o = {.tol = 1e-6};
    df_result res;
    memset(&res, 0, sizeof res);
    df_judgement j;
    res.f = 1.0; /* toward zero: inside the bound (h = 4) */
    df_judge(&k, &c, &refs, &res, NULL, &o, &j);
    cr_assert(j.verdict == DF_V_BUG && !strcmp(j.rule, "order-set"), "%s: %s", j.rule, j.why);
    cr_assert(strstr(j.why, "0x1.000002p+0"), "the set is named: %s", j.why);
    res.f = 1.0 + 0x1p-23;
    df_judge(&k, &c, &refs, &res, NULL, &o, &j);
    cr_assert(j.verdict == DF_V_OK, "%s: %s", j.rule, j.why);
}

/* ---- the families that feed it ------------------------------------------ */

#include "fuzz/gen/generator.h"
#include "fuzz/gen/values.h"

/* few-terms: every case 1-4 nonzero products, and almost every one judged
 * exactly (the rest: subnormal f64 products, whose tails underflow) */
Test(order_set, few_terms_cases_are_judged_exactly)
{
    static const df_type types[] = {DF_F32, DF_F64};
    static float fa[5000], fb[5000];
    static double da[5000], db[5000];
    for (int k = 0; k < 2; k++) {
        df_type t = types[k];
        void *a = t == DF_F32 ? (void *)fa : (void *)da;
        void *b = t == DF_F32 ? (void *)fb : (void *)db;
        unsigned judged = 0, midpoints = 0;
        for (uint64_t i = 0; i < 2000; i++) {
            df_pcg32 r;
            df_pcg32_seed(&r, 77, i);
            uint64_t n = 1 + df_pcg32_bounded(&r, 5000);
            cr_assert_eq(df_fill_values(DF_FAM_FEW_TERMS, &r, t, a, b, n), 0);
            df_order_set s;
            if (!df_order_set_of(t, t, 0, a, b, n, &s))
                continue;
            cr_assert(s.terms >= 1 && s.terms <= 4);
            judged++;
            midpoints += s.count > 1;
        }
        /* f64: an eighth of the cases sit by the subnormals, unjudged */
        cr_assert_gt(judged, t == DF_F32 ? 1900u : 1700u, "%s: %u of 2000 judged",
                     df_type_name(t), judged);
        cr_assert_gt(midpoints, 150, "%s: %u sets with a choice", df_type_name(t), midpoints);
    }
}

/* int-factor: one factor of 2^23 or more where the case allows it, every
 * sum inside int32 */
Test(order_set, int_factor_draws_a_full_range_factor_inside_int32)
{
    static int32_t a[70000], b[70000];
    unsigned wide = 0;
    for (uint64_t i = 0; i < 500; i++) {
        df_pcg32 r;
        df_pcg32_seed(&r, 78, i);
        uint64_t n = 1 + df_pcg32_bounded(&r, i % 10 ? 4000 : 70000);
        cr_assert_eq(df_fill_values(DF_FAM_INT_FACTOR, &r, DF_I32, a, b, n), 0);
        int64_t sum = 0, lo = 0, hi = 0, big = 0;
        for (uint64_t j = 0; j < n; j++) {
            int64_t p = (int64_t)a[j] * b[j];
            sum += p;
            lo = sum < lo ? sum : lo;
            hi = sum > hi ? sum : hi;
            int64_t m = llabs(a[j]) > llabs(b[j]) ? llabs(a[j]) : llabs(b[j]);
            big = m > big ? m : big;
        }
        cr_assert(lo >= INT32_MIN && hi <= INT32_MAX, "case %llu: a partial sum leaves int32",
                  (unsigned long long)i);
        wide += big >= 0x800000;
    }
    cr_assert_gt(wide, 490, "%u of 500 cases with a factor past 2^23", wide);
}

/* ---- each flaw the few-terms family aims at lands outside the set ----- */

#include "kernels/mutants/precision_ops.h"

typedef float (*add_fn)(float x, float y);

/* x + y with no guard, round or sticky bit: y's bits below x's last place
 * are cut off (toward zero) before a correctly rounded add. */
static float add_no_guard(float x, float y)
{
    if (fabsf(y) > fabsf(x)) {
        float t = x;
        x = y, y = t;
    }
    if (x == 0)
        return x + y;
    double unit = ldexp(1.0, ilogb(x) - 23);
    double cut = trunc((double)y / unit) * unit;
    return (float)((double)x + cut);
}

/* x + y rounded first to 25 bits, then to 24: double rounding. */
static float add_double_rounding(float x, float y)
{
    double s = (double)x + (double)y; /* exact: two floats */
    if (s == 0)
        return (float)s;
    double unit = ldexp(1.0, ilogb(s) - 24);
    return (float)(nearbyint(s / unit) * unit);
}

/* x + y with a subnormal result flushed to zero. */
static float add_ftz(float x, float y)
{
    float s = x + y;
    return fabsf(s) < FLT_MIN ? copysignf(0.0f, s) : s;
}

static float add_nearest(float x, float y) { return x + y; }

/* The few-terms case's serial sum with products rounded by round_product
 * and sums made by add; how many of 4,000 f32 cases land outside the set. */
static unsigned outside(add_fn add, float (*round_product)(float))
{
    static float a[5000], b[5000];
    unsigned out = 0;
    for (uint64_t i = 0; i < 4000; i++) {
        df_pcg32 r;
        df_pcg32_seed(&r, 91, i);
        uint64_t n = 1 + df_pcg32_bounded(&r, 5000);
        cr_assert_eq(df_fill_values(DF_FAM_FEW_TERMS, &r, DF_F32, a, b, n), 0);
        df_order_set s;
        if (!df_order_set_of(DF_F32, DF_F32, 0, a, b, n, &s))
            continue;
        float acc = 0.0f;
        for (uint64_t j = 0; j < n; j++)
            acc = add(acc, round_product ? round_product(a[j] * b[j]) : a[j] * b[j]);
        out += !df_order_set_has(&s, acc);
    }
    return out;
}

Test(order_set, few_terms_cases_expose_each_flaw, .timeout = 60)
{
    cr_assert_eq(outside(add_nearest, NULL), 0u, "a correct serial sum is always in the set");
    unsigned rz = outside(df_fadd_rz, NULL), guard = outside(add_no_guard, NULL),
             twice = outside(add_double_rounding, NULL), ftz = outside(add_ftz, NULL),
             bf16 = outside(add_nearest, df_bf16_rn);
    cr_log_info("outside the set, of 4,000: toward zero %u, no guard bits %u, double "
                "rounding %u, flushed subnormals %u, bf16 products %u",
                rz, guard, twice, ftz, bf16);
    cr_assert_gt(rz, 100, "toward zero: %u", rz);
    cr_assert_gt(guard, 20, "no guard bits: %u", guard);
    cr_assert_gt(twice, 5, "double rounding: %u", twice);
    cr_assert_gt(ftz, 20, "flushed subnormals: %u", ftz);
    cr_assert_gt(bf16, 1000, "bf16 products: %u", bf16);
}
