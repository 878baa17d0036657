/* test_lowp_types.c — the low-precision element types beside f32, f64 and
 * i32: their names, sizes and arithmetic facts; references that are bit
 * for bit those of the same values as f32 (short cases, cases past a
 * reference chunk, non-finite values, the exact dot, Kahan and G alone);
 * at the edge of the data whose partial sums are all exact in double;
 * the case file's version 4, which holds them and no other type; and the
 * guard zones' poison, element by element in every type. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/corpus.h"
#include "fuzz/lowp.h"
#include "kernels/kernel.h"
#include "fuzz/pcg32.h"
#include "reference/exact.h"
#include "reference/reference.h"

static const df_type lowp_types[] = {DF_F16, DF_BF16, DF_E4M3, DF_E5M2};
#define NLOWP (sizeof lowp_types / sizeof lowp_types[0])

Test(lowp_types, names_sizes_and_facts_are_the_formats)
{
    static const char *names[] = {"f16", "bf16", "e4m3", "e5m2"};
    static const size_t sizes[] = {2, 2, 1, 1};
    static const int p[] = {11, 8, 4, 3}, emin[] = {-14, -126, -6, -14};
    static const double max[] = {65504.0, 0x1.fep127, 448.0, 57344.0};
    for (size_t i = 0; i < NLOWP; i++) {
        df_type t = lowp_types[i], back;
        cr_assert_str_eq(df_type_name(t), names[i]);
        cr_assert_eq(df_type_parse(names[i], &back), 0);
        cr_assert_eq(back, t);
        cr_assert_eq(df_type_size(t), sizes[i], "%s", names[i]);
        cr_assert(df_type_is_lowp(t));
        df_type_facts f = df_type_facts_of(t);
        cr_assert_eq(f.p, p[i], "%s: p %d", names[i], f.p);
        cr_assert_eq(f.emin, emin[i], "%s: emin %d", names[i], f.emin);
        cr_assert_eq(f.max, max[i], "%s: max %a", names[i], f.max);
    }
    cr_assert_eq(df_type_facts_of(DF_F32).p, 24);
    cr_assert_eq(df_type_facts_of(DF_F64).emin, -1022);
    cr_assert(!df_type_is_lowp(DF_F32) && !df_type_is_lowp(DF_I32));
    df_type t;
    cr_assert_neq(df_type_parse("fp8", &t), 0);
}

/* n random encodings of t into v (bits), finite unless `specials`; bf16's
 * exponents kept low enough that no product or sum overflows f32. */
static void fill_bits(df_pcg32 *r, df_type t, void *v, uint64_t n, int specials)
{
    df_lowp f = (df_lowp)df_type_facts_of(t).lowp;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t bits;
        double x;
        do {
            bits = df_pcg32_next(r) & (df_type_size(t) == 2 ? 0xffffu : 0xffu);
            x = df_lowp_decode(f, bits);
        } while ((!specials && !isfinite(x)) || (t == DF_BF16 && fabs(x) > 0x1p40));
        if (df_type_size(t) == 2)
            ((uint16_t *)v)[i] = (uint16_t)bits;
        else
            ((uint8_t *)v)[i] = (uint8_t)bits;
    }
}

static void assert_same_double(double x, double y, const char *what)
{
    cr_assert(memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)), "%s: %a != %a", what, x,
              y);
}

static void assert_same_refs(const df_refs *x, const df_refs *y, const char *what)
{
    cr_assert_eq(x->exact_known, y->exact_known, "%s: exact_known", what);
    cr_assert_eq(x->exact_is_int, y->exact_is_int, "%s: exact_is_int", what);
    cr_assert_eq(x->fp_known, y->fp_known, "%s: fp_known", what);
    cr_assert_eq(x->all_integer, y->all_integer, "%s: all_integer", what);
    cr_assert_eq(x->has_nonfinite, y->has_nonfinite, "%s: has_nonfinite", what);
    cr_assert_eq(x->has_nan, y->has_nan, "%s: has_nan", what);
    assert_same_double(x->exact_hi, y->exact_hi, what);
    assert_same_double(x->exact_lo, y->exact_lo, what);
    assert_same_double(x->kahan, y->kahan, what);
    assert_same_double(x->kahan_err, y->kahan_err, what);
    assert_same_double(x->G, y->G, what);
    assert_same_double(x->max_abs_a, y->max_abs_a, what);
    assert_same_double(x->max_abs_b, y->max_abs_b, what);
    if (x->has_nonfinite && !x->has_nan) {
        assert_same_double(x->inf_want, y->inf_want, what);
        assert_same_double(x->fin_g, y->fin_g, what);
    }
    if (x->fp_known) {
        assert_same_double(x->fp.hi, y->fp.hi, what);
        assert_same_double(x->fp.lo, y->fp.lo, what);
        cr_assert_eq(x->fp.f32, y->fp.f32, "%s: fp.f32", what);
    }
}

/* The references of a lowp case, and those of its values as f32. */
static void check_case(df_type t, uint64_t n, uint64_t seed, int specials)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, (uint64_t)t);
    size_t es = df_type_size(t);
    void *a = malloc(n * es + 1), *b = malloc(n * es + 1);
    float *fa = malloc(n * sizeof(float) + 4), *fb = malloc(n * sizeof(float) + 4);
    cr_assert(a && b && fa && fb);
    fill_bits(&r, t, a, n, specials);
    fill_bits(&r, t, b, n, specials);
    df_type_widen(t, a, 0, n, fa);
    df_type_widen(t, b, 0, n, fb);
    for (uint64_t i = 0; i < n; i++)
        cr_assert(df_elem_as_double(t, a, i) == (double)fa[i] || isnan(fa[i]));
    char what[64];
    snprintf(what, sizeof what, "%s n=%llu seed=%llu", df_type_name(t),
             (unsigned long long)n, (unsigned long long)seed);
    df_refs lr, fr;
    df_refs_compute(t, a, b, n, &lr);
    df_refs_compute(DF_F32, fa, fb, n, &fr);
    assert_same_refs(&lr, &fr, what);

    df_refs_job jobs[2] = {{t, a, b, n, &lr}, {DF_F32, fa, fb, n, &fr}};
    memset(&lr, 0, sizeof lr);
    memset(&fr, 0, sizeof fr);
    df_refs_compute_many(jobs, 2);
    assert_same_refs(&lr, &fr, what);

    double el, ef;
    assert_same_double(df_kahan_dot(t, a, b, n, &el), df_kahan_dot(DF_F32, fa, fb, n, &ef), what);
    assert_same_double(el, ef, what);
    assert_same_double(df_abs_dot(t, a, b, n), df_abs_dot(DF_F32, fa, fb, n), what);
    df_exact xl, xf;
    cr_assert_eq(df_exact_dot(t, a, b, n, &xl), df_exact_dot(DF_F32, fa, fb, n, &xf));
    cr_assert_eq(xl.kind, xf.kind, "%s: exact kind", what);
    assert_same_double(xl.hi, xf.hi, what);
    assert_same_double(xl.lo, xf.lo, what);
    free(a), free(b), free(fa), free(fb);
}

Test(lowp_types, references_are_the_f32_values_references)
{
    static const uint64_t lengths[] = {0, 1, 2, 17, 2000, 65536, 65537, 3 * 65536 + 5};
    for (size_t i = 0; i < NLOWP; i++)
        for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
            check_case(lowp_types[i], lengths[k], 7 + k, 0);
            if (lengths[k] < 100000)
                check_case(lowp_types[i], lengths[k], 100 + k, 1); /* NaN, Inf */
        }
}

/* n encodings of t with a random sign and fraction and exponent fields in
 * [lo, hi] (E4M3's NaN pattern moved to its largest value). */
static void fill_window(df_pcg32 *r, df_type t, void *v, uint64_t n, uint32_t lo, uint32_t hi)
{
    df_lowp f = (df_lowp)df_type_facts_of(t).lowp;
    df_lowp_shape sh = df_lowp_shape_of(f);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t w = df_pcg32_next(r), field = lo + df_pcg32_bounded(r, hi - lo + 1);
        uint32_t bits = (w >> 31) << (sh.bits - 1) | field << sh.man_bits |
                        (w & ((1u << sh.man_bits) - 1u));
        if ((bits & ((1u << (sh.bits - 1)) - 1u)) > df_lowp_max_bits(f))
            bits = (bits & (1u << (sh.bits - 1))) | df_lowp_max_bits(f);
        if (df_type_size(t) == 2)
            ((uint16_t *)v)[i] = (uint16_t)bits;
        else
            ((uint8_t *)v)[i] = (uint8_t)bits;
    }
}

/* Data whose products' sums sit either side of where every partial sum is
 * exact in double (refs_lowp.c: G against 2^53 times the products' common
 * unit): exponent windows and lengths drawn so that log2 of G over that
 * unit falls near 53, some cases past a chunk; the references bit for bit
 * those of the same values as f32 (whose Kahan sum is the chain). */
Test(lowp_types, references_at_the_edge_of_exact_sums)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 2027, 5);
    for (size_t i = 0; i < NLOWP; i++) {
        df_type t = lowp_types[i];
        df_lowp_shape sh = df_lowp_shape_of((df_lowp)df_type_facts_of(t).lowp);
        size_t es = df_type_size(t);
        for (int trial = 0; trial < 60; trial++) {
            uint64_t n = trial % 10 == 9 ? 65536 + df_pcg32_bounded(&r, 70000)
                                         : 1 + df_pcg32_bounded(&r, 65536);
            /* G / unit is about n 2^(2 (man_bits + w)): w puts it near 2^53 */
            int log_n = 0;
            while ((UINT64_C(1) << log_n) < n)
                log_n++;
            int w = (53 - log_n) / 2 - sh.man_bits + (int)df_pcg32_bounded(&r, 6) - 1;
            uint32_t lo = 1 + df_pcg32_bounded(&r, 4), top = (1u << sh.exp_bits) - 2;
            uint32_t hi = w < 0 ? lo : lo + (uint32_t)w > top ? top : lo + (uint32_t)w;
            void *a = malloc(n * es), *b = malloc(n * es);
            float *fa = malloc(n * sizeof(float)), *fb = malloc(n * sizeof(float));
            cr_assert(a && b && fa && fb);
            fill_window(&r, t, a, n, lo, hi);
            fill_window(&r, t, b, n, lo, hi);
            df_type_widen(t, a, 0, n, fa);
            df_type_widen(t, b, 0, n, fb);
            char what[80];
            snprintf(what, sizeof what, "%s n=%llu fields [%u, %u]", df_type_name(t),
                     (unsigned long long)n, lo, hi);
            df_refs lr, fr;
            df_refs_compute(t, a, b, n, &lr);
            df_refs_compute(DF_F32, fa, fb, n, &fr);
            assert_same_refs(&lr, &fr, what);
            cr_assert(memcmp(&lr.kahan, &fr.kahan, sizeof lr.kahan) == 0 &&
                          memcmp(&lr.G, &fr.G, sizeof lr.G) == 0,
                      "%s: kahan %a G %a, as f32 %a %a", what, lr.kahan, lr.G, fr.kahan, fr.G);
            free(a), free(b), free(fa), free(fb);
        }
    }
}

Test(lowp_types, case_file_version_4_round_trips_and_holds_only_lowp)
{
    for (size_t i = 0; i < NLOWP; i++) {
        df_type t = lowp_types[i];
        uint8_t a[2 * 33], b[2 * 33];
        df_pcg32 r;
        df_pcg32_seed(&r, 5, i);
        fill_bits(&r, t, a, 33, 1);
        fill_bits(&r, t, b, 33, 1);
        df_case c = {.type = t, .n = 33, .a = a, .b = b, .seed = 9, .index = i};
        df_case_meta m = {.verdict = 0};
        uint8_t *buf = NULL;
        size_t len = 0;
        cr_assert_eq(df_corpus_encode(&c, &m, &buf, &len), 0);
        cr_assert_eq(len, DF_CORPUS_HEADER + 2 * 33 * df_type_size(t));
        cr_assert_eq(buf[8], 4, "%s: version %u", df_type_name(t), buf[8]);
        df_case_file f;
        char msg[256];
        cr_assert_eq(df_corpus_decode(buf, len, &f, msg, sizeof msg), DF_CORPUS_OK, "%s", msg);
        cr_assert_eq(f.c.type, t);
        cr_assert_eq(f.c.n, 33);
        cr_assert_eq(memcmp(f.c.a, a, 33 * df_type_size(t)), 0);
        cr_assert_eq(memcmp(f.c.b, b, 33 * df_type_size(t)), 0);
        df_case_file_free(&f);
        free(buf);
    }
}

/* A header's version or type byte changed (the checksum covers neither). */
static df_corpus_err decode_as(df_type t, uint16_t version, uint8_t type_byte, char *msg,
                               size_t len)
{
    uint8_t a[8] = {0}, b[8] = {0};
    df_case c = {.type = t, .n = 2, .a = a, .b = b};
    uint8_t *buf = NULL;
    size_t n = 0;
    cr_assert_eq(df_corpus_encode(&c, NULL, &buf, &n), 0);
    buf[8] = (uint8_t)version;
    buf[16] = type_byte;
    df_case_file f;
    df_corpus_err e = df_corpus_decode(buf, n, &f, msg, len);
    if (e == DF_CORPUS_OK)
        df_case_file_free(&f);
    free(buf);
    return e;
}

Test(lowp_types, other_versions_refuse_lowp_and_version_4_refuses_the_rest)
{
    char msg[256];
    cr_assert_eq(decode_as(DF_F16, 1, DF_F16, msg, sizeof msg), DF_CORPUS_E_TYPE);
    cr_assert(strstr(msg, "element type 4 in a version 1 file"), "%s", msg);
    cr_assert_eq(decode_as(DF_F32, 4, DF_F32, msg, sizeof msg), DF_CORPUS_E_TYPE);
    cr_assert(strstr(msg, "element type 1 in a version 4 file"), "%s", msg);
    cr_assert_eq(decode_as(DF_E4M3, 4, 8, msg, sizeof msg), DF_CORPUS_E_TYPE);
    cr_assert_eq(decode_as(DF_F32, 1, DF_F32, msg, sizeof msg), DF_CORPUS_OK);
}

/* Every backend's guards (df_guard_fill): count elements of the type's
 * poison, a quiet NaN (the format's canonical one) or DF_GUARD_I32, and
 * not a byte more. */
Test(lowp_types, guard_poison_is_each_types_nan_element_by_element)
{
    static const struct {
        df_type t;
        uint64_t bits;
    } want[] = {{DF_F32, 0x7fc00000u}, {DF_F64, 0x7ff8000000000000ull},
                {DF_I32, 0x40000001u}, {DF_F16, 0x7e00},
                {DF_BF16, 0x7fc0},     {DF_E4M3, 0x7f},
                {DF_E5M2, 0x7e}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        size_t es = df_type_size(want[i].t);
        unsigned char buf[5 * 8 + 1];
        memset(buf, 0xa5, sizeof buf);
        df_guard_fill(want[i].t, buf, 5);
        for (size_t e = 0; e < 5; e++) {
            uint64_t got = 0;
            memcpy(&got, buf + e * es, es); /* little-endian */
            cr_assert_eq(got, want[i].bits, "%s element %zu: 0x%llx", df_type_name(want[i].t),
                         e, (unsigned long long)got);
        }
        cr_assert_eq(buf[5 * es], 0xa5, "%s: a byte past the guard", df_type_name(want[i].t));
    }
}
