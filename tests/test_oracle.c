/* test_oracle.c — one test per oracle rule, on fake kernel descriptors
 * (a chosen tree height and flags) and small hand-made cases whose exact
 * answers are known. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz/oracle.h"

static uint64_t height_2(uint64_t n, const df_launch *l)
{
    (void)n, (void)l;
    return 2;
}

static uint64_t height_n(uint64_t n, const df_launch *l)
{
    (void)l;
    return n;
}

static df_kernel fake_kernel(df_type elem, df_type acc, unsigned flags,
                             uint64_t (*height)(uint64_t, const df_launch *))
{
    df_kernel k;
    memset(&k, 0, sizeof k);
    k.name = "fake";
    k.origin = "test";
    k.summary = "descriptor built by the test";
    k.elem = elem;
    k.acc = acc;
    k.flags = flags;
    k.block_min = k.block_max = k.block_default = 32;
    k.per_thread = 1;
    k.tree_height = height;
    return k;
}

static df_case make_case(df_type t, const void *a, const void *b, uint64_t n)
{
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = t;
    c.n = n;
    c.a = a;
    c.b = b;
    c.launch.block = 32;
    c.launch.grid = 1;
    return c;
}

static df_result float_result(double f)
{
    df_result r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.status = DF_RUN_OK;
    return r;
}

static df_result int_result(int64_t i)
{
    df_result r = float_result(0.0);
    r.i = i;
    return r;
}

/* Runs the oracle on data with references computed from the data. */
static df_judgement judge(const df_kernel *k, const df_case *c, const df_result *res,
                          const df_result *model)
{
    df_refs refs;
    df_oracle_opts opts = {.tol = 1e-6};
    df_judgement j;
    df_refs_compute(c->type, c->a, c->b, c->n, &refs);
    df_judge(k, c, &refs, res, model, &opts, &j);
    return j;
}

#define assert_verdict(j, v, r)                                                \
    cr_assert((j).verdict == (v) && strcmp((j).rule, (r)) == 0,                \
              "got %s/%s (%s), want %s/%s", df_verdict_name((j).verdict),      \
              (j).rule, (j).why, df_verdict_name(v), (r))

Test(oracle, verdict_names)
{
    cr_assert_str_eq(df_verdict_name(DF_V_OK), "ok");
    cr_assert_str_eq(df_verdict_name(DF_V_PRECISION), "precision");
    cr_assert_str_eq(df_verdict_name(DF_V_NONDET), "nondeterministic");
    cr_assert_str_eq(df_verdict_name(DF_V_SOFT_ERROR), "soft-error");
    cr_assert_str_eq(df_verdict_name(DF_V_BUG), "bug");
}

Test(oracle, gamma_values)
{
    cr_assert(df_gamma(0, 0x1p-24) == 0.0);
    cr_assert(df_gamma(2, 0x1p-24) == 0x1p-23 / (1.0 - 0x1p-23));
    cr_assert(isinf(df_gamma(UINT64_C(1) << 24, 0x1p-24)));
    cr_assert(isinf(df_gamma(UINT64_C(1) << 30, 0x1p-24)));
}

Test(oracle, exec_error_is_bug)
{
    int32_t a[] = {1}, b[] = {1};
    df_kernel k = fake_kernel(DF_I32, DF_I32, DF_K_DETERMINISTIC, height_n);
    df_case c = make_case(DF_I32, a, b, 1);
    df_result res = int_result(1);
    res.status = DF_RUN_ERROR;
    strcpy(res.err, "cudaErrorIllegalAddress: an illegal memory access");
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "exec");
    cr_assert_str_eq(j.why, "cudaErrorIllegalAddress: an illegal memory access");
}

Test(oracle, int_exact_ok)
{
    int32_t a[] = {1, 2, 3}, b[] = {4, -5, 6};
    df_kernel k = fake_kernel(DF_I32, DF_I32, DF_K_DETERMINISTIC, height_n);
    df_case c = make_case(DF_I32, a, b, 3);
    df_result res = int_result(12);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_OK, "exact");
    cr_assert(j.is_int && j.iresult == 12 && j.abs_err == 0.0);
    cr_assert(j.exact_known && j.exact_hi == 12.0 && j.G == 32.0);
    cr_assert(j.h == 3);
}

/* c judged with opts.terse and without: verdict v and rule both ways, the
 * same numbers, why empty when terse and holding text when not, and ulp_err
 * measured only when not. */
static void terse_and_full(const df_kernel *k, const df_case *c, const df_result *res,
                           df_verdict v, const char *rule, const char *text)
{
    df_refs refs;
    df_refs_compute(c->type, c->a, c->b, c->n, &refs);
    df_oracle_opts full = {.tol = 1e-6}, terse = {.tol = 1e-6, .terse = 1};
    df_judgement j1, j2;
    df_judge(k, c, &refs, res, NULL, &full, &j1);
    df_judge(k, c, &refs, res, NULL, &terse, &j2);
    assert_verdict(j1, v, rule);
    assert_verdict(j2, v, rule);
    cr_assert(strstr(j1.why, text), "%s", j1.why);
    cr_assert_str_eq(j2.why, "");
    cr_assert(j1.rel_err == j2.rel_err && j1.err_ratio == j2.err_ratio && j1.G == j2.G &&
              j1.bound == j2.bound);
    cr_assert(!isnan(j1.ulp_err) && isnan(j2.ulp_err), "ulp %g and %g", j1.ulp_err,
              j2.ulp_err);
}

/* opts.terse: an ok or precision verdict leaves why empty (nothing else
 * changes); a bug, or an ok case with a soft-error report, keeps its text. */
Test(oracle, terse_leaves_ok_and_precision_verdicts_without_text_or_ulps)
{
    float a[] = {1.5f, 2.25f, -3.0f}, b[] = {4.0f, -5.5f, 6.0f};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_n);
    df_case c = make_case(DF_F32, a, b, 3);
    df_refs refs;
    df_refs_compute(c.type, c.a, c.b, c.n, &refs);
    df_oracle_opts terse = {.tol = 1e-6, .terse = 1};
    df_result ok = float_result(refs.exact_hi), bad = float_result(refs.exact_hi + 1.0);
    df_judgement j2;
    terse_and_full(&k, &c, &ok, DF_V_OK, "within-tolerance", "rel err");
    df_judge(&k, &c, &refs, &bad, NULL, &terse, &j2);
    assert_verdict(j2, DF_V_BUG, "bound");
    cr_assert(strstr(j2.why, "bound"), "%s", j2.why);
    df_soft_note(&ok, 1, 0, 0, 0, 0, 0, 0, 0, 0.0);
    df_judge(&k, &c, &refs, &ok, NULL, &terse, &j2);
    cr_assert_eq(j2.verdict, DF_V_SOFT_ERROR);
    cr_assert(strstr(j2.why, "rel err"), "the ok text after the report: %s", j2.why);
    /* precision (ill-conditioned, inside the bound) */
    float pa[] = {0x1p25f, 1, -0x1p25f}, pb[] = {1, 1, 1};
    df_kernel k2 = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c2 = make_case(DF_F32, pa, pb, 3);
    df_result zero = float_result(0.0);
    terse_and_full(&k2, &c2, &zero, DF_V_PRECISION, "tolerance", "cond");
}

Test(oracle, int_off_by_one_is_bug_exact)
{
    int32_t a[] = {1, 2, 3}, b[] = {4, -5, 6};
    df_kernel k = fake_kernel(DF_I32, DF_I32, DF_K_DETERMINISTIC, height_n);
    df_case c = make_case(DF_I32, a, b, 3);
    df_result res = int_result(13);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "exact");
    cr_assert(j.abs_err == 1.0 && j.rel_err == 1.0 / 12.0);
    cr_assert(strstr(j.why, "13") && strstr(j.why, "12"), "%s", j.why);
}

/* 2^31 - 1 + 1 does not fit int32: a wrapped INT32_MIN is a silent overflow. */
Test(oracle, int_overflow_is_bug_overflow)
{
    int32_t a[] = {INT32_MAX, 1}, b[] = {1, 1};
    df_kernel k = fake_kernel(DF_I32, DF_I32, DF_K_DETERMINISTIC, height_n);
    df_case c = make_case(DF_I32, a, b, 2);
    df_result res = int_result(INT32_MIN);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "overflow");
    cr_assert(strstr(j.why, "2147483648"), "%s", j.why);
    /* exactly INT32_MAX still fits */
    int32_t a2[] = {INT32_MAX - 1, 1};
    c = make_case(DF_I32, a2, b, 2);
    res = int_result(INT32_MAX);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_OK, "exact");
}

/* Products 2^53 and 1: the true G = 2^53 + 1 sums to 2^53 in double, so
 * G == 2^53 is not proof of the f64 exact regime. A correct serial f64
 * kernel returns 2^53 (exact 2^53 + 1 is not a double): not a bug. */
Test(oracle, f64_exact_regime_excludes_g_of_2p53)
{
    double a[] = {0x1p26, 1}, b[] = {0x1p27, 1};
    df_kernel k = fake_kernel(DF_F64, DF_F64, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F64, a, b, 2);
    df_result res = float_result(0x1p53);
    df_judgement j = judge(&k, &c, &res, NULL);
    cr_assert(j.G == 0x1p53 && j.exact_hi == 0x1p53 && j.exact_lo == 1.0);
    cr_assert(j.abs_err == 1.0);
    assert_verdict(j, DF_V_OK, "within-tolerance");
    /* inside the bound, but no order of two terms gives it */
    res = float_result(0x1p53 + 2);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "order-set");
    res = float_result(0x1p53 + 8);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "bound");
}

/* 3*5 + 4*6 = 39 with G = 39 <= 2^24: every order gives 39 exactly. */
Test(oracle, float_exact_regime_one_ulp_off_is_bug_exact)
{
    float a[] = {3, 4}, b[] = {5, 6};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 2);
    df_result res = float_result(nextafterf(39.0f, 40.0f));
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "exact");
    cr_assert(strstr(j.why, "exact 39") && strstr(j.why, "0x1.380002p+5"), "%s", j.why);
    res = float_result(39.0);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_OK, "within-tolerance");
    cr_assert(j.abs_err == 0.0 && j.rel_err == 0.0 && j.err_ratio == 0.0);
}

/* G = 2^24 is still the f32 exact regime: 2 off is a bug. At G = 2^24 + 1
 * the exact 2^24 + 1 is not a float; a result of 2^24 is then fine. */
Test(oracle, float_exact_regime_edge_at_2p24)
{
    float a[] = {0x1p23f, 0x1p23f}, b[] = {1, 1};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 2);
    df_result res = float_result(0x1p24 + 2);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "exact");
    float a3[] = {0x1p23f, 0x1p23f, 1}, b3[] = {1, 1, 1};
    c = make_case(DF_F32, a3, b3, 3);
    res = float_result(0x1p24); /* exact 2^24 + 1 rounds either way */
    j = judge(&k, &c, &res, NULL);
    cr_assert_neq(j.verdict, DF_V_BUG, "%s: %s", j.rule, j.why);
}

/* a = {2^25, 1, -2^25}: exact 1, G = 2^26 + 1 > 2^24. A serial float sum
 * loses the 1 (ulp(2^25) = 4) and returns 0: relative error 1, but within
 * gamma_2 G ~ 8: ill-conditioned input, not a broken kernel. */
Test(oracle, ill_conditioned_inside_bound_is_precision_tolerance)
{
    float a[] = {0x1p25f, 1, -0x1p25f}, b[] = {1, 1, 1};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 3);
    df_result res = float_result(0.0);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_PRECISION, "tolerance");
    cr_assert(strstr(j.why, "cond"), "%s", j.why);
    double G = 0x1p26 + 1;
    cr_assert(j.G == G && j.ref == 1.0 && j.abs_err == 1.0 && j.rel_err == 1.0);
    cr_assert(j.u == 0x1p-24 && j.h == 2);
    cr_assert(j.cond == 2 * G, "cond %a", j.cond);
    cr_assert(j.err_ratio == 1.0 / (0x1p-24 * G), "ratio %a", j.err_ratio);
    double want_bound = df_gamma(2, 0x1p-24) * G * (1 + 3 * 0x1p-52) + 3 * 0x1p-150;
    cr_assert(j.bound == want_bound, "bound %a", j.bound);
    cr_assert(j.bound > 8.0 && j.bound < 8.001);
}

/* Five nonzero products: too many for the order set, so the bound judges. */
Test(oracle, beyond_bound_is_bug_bound)
{
    float a[] = {0x1p25f, 1, -0x1p25f, 1, -1}, b[] = {1, 1, 1, 1, 1};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 5);
    df_result res = float_result(16.0);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "bound");
    cr_assert(j.abs_err == 15.0);
    /* A taller tree (h = 5) is allowed gamma_5 G ~ 20: an error of 12 is
     * then a precision finding, not a bug. */
    df_kernel tall = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_n);
    res = float_result(13.0);
    j = judge(&tall, &c, &res, NULL);
    assert_verdict(j, DF_V_PRECISION, "tolerance");
}

/* 0.1 * 0.3 + 0.2 * 0.4 in f64: not integer data, so the exact value comes
 * from the superaccumulator (reference/exact.c), not the i128 path. */
Test(oracle, model_mismatch_is_bug_model)
{
    double a[] = {0.1, 0.2}, b[] = {0.3, 0.4};
    df_kernel k = fake_kernel(DF_F64, DF_F64, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F64, a, b, 2);
    double r = 0.1 * 0.3 + 0.2 * 0.4;
    df_result res = float_result(r);
    df_result model = float_result(nextafter(r, 1.0));
    df_judgement j = judge(&k, &c, &res, &model);
    assert_verdict(j, DF_V_BUG, "model");
    char both[64];
    snprintf(both, sizeof both, "%a", model.f);
    cr_assert(strstr(j.why, both), "%s", j.why);
    model = float_result(r);
    j = judge(&k, &c, &res, &model);
    assert_verdict(j, DF_V_OK, "within-tolerance");
    cr_assert(j.exact_known && j.ref == j.exact_hi);
    cr_assert(j.ulp_err <= 0.5, "r is RN(s) up to Kahan-level error: %g ulp", j.ulp_err);
}

Test(oracle, model_ignored_when_nondeterministic_or_failed)
{
    double a[] = {0.1, 0.2}, b[] = {0.3, 0.4};
    df_kernel k = fake_kernel(DF_F64, DF_F64, 0, height_2);
    df_case c = make_case(DF_F64, a, b, 2);
    double r = 0.1 * 0.3 + 0.2 * 0.4;
    df_result res = float_result(r);
    df_result model = float_result(nextafter(r, 1.0));
    df_judgement j = judge(&k, &c, &res, &model);
    assert_verdict(j, DF_V_OK, "within-tolerance");
    k.flags = DF_K_DETERMINISTIC;
    model.status = DF_RUN_ERROR;
    j = judge(&k, &c, &res, &model);
    assert_verdict(j, DF_V_OK, "within-tolerance");
}

Test(oracle, nan_in_nan_out_ok_finite_out_bug)
{
    float a[] = {1, NAN}, b[] = {2, 3};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 2);
    df_result res = float_result(NAN);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_OK, "nan");
    res = float_result(2.0);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nan");
    res = float_result(INFINITY);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nan");
}

Test(oracle, inf_products_of_one_sign_give_that_inf)
{
    float a[] = {INFINITY, 1}, b[] = {-2, 3};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 2);
    df_result res = float_result(-INFINITY);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_OK, "nonfinite");
    res = float_result(INFINITY);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nonfinite");
    res = float_result(NAN);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nonfinite");
    res = float_result(3.0);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nonfinite");
}

Test(oracle, inf_times_zero_or_opposite_infs_give_nan)
{
    df_kernel k = fake_kernel(DF_F64, DF_F64, DF_K_DETERMINISTIC, height_2);
    double a[] = {INFINITY, 1}, b[] = {0, 3};
    df_case c = make_case(DF_F64, a, b, 2);
    df_result res = float_result(NAN);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_OK, "nonfinite");
    res = float_result(INFINITY);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nonfinite");
    double a2[] = {INFINITY, -INFINITY}, b2[] = {1, 1};
    c = make_case(DF_F64, a2, b2, 2);
    res = float_result(NAN);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_OK, "nonfinite");
    res = float_result(-INFINITY);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nonfinite");
}

/* -Inf plus FLT_MAX + FLT_MAX: an order that sums the finite part first
 * overflows it to +Inf and then gets NaN. Allowed, as a precision finding. */
Test(oracle, inf_with_overflowing_finite_part_nan_is_precision)
{
    float a[] = {INFINITY, FLT_MAX, FLT_MAX}, b[] = {-1, 1, 1};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 3);
    df_result res = float_result(NAN);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_PRECISION, "overflow");
    res = float_result(INFINITY);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nonfinite");
}

Test(oracle, finite_in_inf_out_is_bug_nonfinite)
{
    float a[] = {1e30f, -1e30f}, b[] = {1e8f, 1e8f};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 2);
    df_result res = float_result(INFINITY);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nonfinite");
    res = float_result(NAN);
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "nonfinite");
}

/* FLT_MAX + FLT_MAX overflows in float in every order: Inf is expected. */
Test(oracle, finite_in_inf_out_when_g_overflows_is_precision_overflow)
{
    float a[] = {FLT_MAX, FLT_MAX}, b[] = {1, 1};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 2);
    df_result res = float_result(INFINITY);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_PRECISION, "overflow");
}

/* Four products of 2^-140 (subnormal in float): a kernel that flushes them
 * returns 0, off by 2^-138. Gradual underflow allows only 4 * 2^-150 plus
 * gamma_2 G: a bug. A kernel declared as flushing is allowed 8 * 2^-126,
 * so the same result becomes a precision finding (relative error 1). */
Test(oracle, flush_to_zero_widens_bound)
{
    float a[] = {0x1p-100f, 0x1p-100f, 0x1p-100f, 0x1p-100f};
    float b[] = {0x1p-40f, 0x1p-40f, 0x1p-40f, 0x1p-40f};
    df_kernel k = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F32, a, b, 4);
    df_result res = float_result(0.0);
    df_judgement j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_BUG, "bound");
    cr_assert(j.abs_err == 0x1p-138);
    cr_assert(j.bound == df_gamma(2, 0x1p-24) * 0x1p-138 * (1 + 4 * 0x1p-52) + 4 * 0x1p-150);

    k.flags |= DF_K_FLUSHES_SUBNORMALS;
    j = judge(&k, &c, &res, NULL);
    assert_verdict(j, DF_V_PRECISION, "tolerance");
    cr_assert(j.bound == df_gamma(2, 0x1p-24) * 0x1p-138 * (1 + 4 * 0x1p-52) + 8 * 0x1p-126);
}

/* With a Kahan reference, its own error bound widens the rounding bound. */
Test(oracle, kahan_error_widens_bound)
{
    /* five products, so the order set stays out of it */
    double a[] = {0.5, 0.5, 0.5, 0.5, 0.5}, b[] = {0.5, 0.5, 0.5, 0.5, 0.5};
    df_kernel k = fake_kernel(DF_F64, DF_F64, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F64, a, b, 5);
    df_refs refs;
    memset(&refs, 0, sizeof refs);
    refs.kahan = 1.0;
    refs.kahan_err = 1e-10;
    refs.G = 1.0;
    df_result res = float_result(1.0 + 0x1p-40);
    df_oracle_opts opts = {.tol = 1e-6};
    df_judgement j;
    df_judge(&k, &c, &refs, &res, NULL, &opts, &j);
    assert_verdict(j, DF_V_OK, "within-tolerance");
    cr_assert(j.abs_err == 0x1p-40 && j.err_ratio == 0x1p-40 / 0x1p-53);
    refs.kahan_err = 0.0;
    df_judge(&k, &c, &refs, &res, NULL, &opts, &j);
    assert_verdict(j, DF_V_BUG, "bound");
}

/* s = 0: rel_err is 0 for a zero result and +inf otherwise; cond is +inf.
 * With an exact zero inside the exact regime any nonzero result is a bug;
 * outside it (0.5 makes the data non-integer) a nonzero result inside the
 * bound is a bug too when, as here, every order of the two products gives
 * zero. */
Test(oracle, zero_reference_cond_and_rel_err)
{
    double a[] = {0x1p30, 3, -0x1p30}, b[] = {1, 0, 1};
    df_kernel k = fake_kernel(DF_F64, DF_F64, DF_K_DETERMINISTIC, height_2);
    df_case c = make_case(DF_F64, a, b, 3);
    df_result res = float_result(0.0);
    df_judgement j = judge(&k, &c, &res, NULL);
    cr_assert(j.exact_known && j.exact_hi == 0.0 && j.G == 0x1p31);
    cr_assert(j.rel_err == 0.0 && isinf(j.cond) && j.cond > 0);
    assert_verdict(j, DF_V_OK, "within-tolerance");
    res = float_result(0x1p-20);
    j = judge(&k, &c, &res, NULL);
    cr_assert(isinf(j.rel_err) && j.abs_err == 0x1p-20);
    assert_verdict(j, DF_V_BUG, "exact");

    float fa[] = {0x1p60f, 0.5f, -0x1p60f}, fb[] = {1, 0, 1};
    df_kernel kf = fake_kernel(DF_F32, DF_F32, DF_K_DETERMINISTIC, height_2);
    c = make_case(DF_F32, fa, fb, 3);
    res = float_result(0x1p20);
    j = judge(&kf, &c, &res, NULL);
    cr_assert(j.exact_known && j.exact_hi == 0.0 && j.kahan == 0.0 && j.G == 0x1p61);
    cr_assert(isinf(j.rel_err) && isinf(j.cond) && j.abs_err == 0x1p20);
    cr_assert(j.err_ratio == 0x1p20 / (0x1p-24 * 0x1p61));
    assert_verdict(j, DF_V_BUG, "order-set");
}
