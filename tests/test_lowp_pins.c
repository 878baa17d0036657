/* test_lowp_pins.c — known answers that pin, bit for bit, what the
 * low-precision host models and references give: every model result (its
 * bits and status) and every field of every reference (the exact dot's
 * digits, Kahan's sum and bound, G, the classes, NaN bits included) over
 * generated cases of each low-precision type and lp family, hashed
 * (FNV-1a) and compared with the hashes written below. A change of any bit
 * of any answer changes its row's hash: the models and references may be
 * made faster, never different.
 *
 * The models: each low-precision kernel's own, mma-e4m3's declaration
 * (no host model, but a declaration that fused_model.h evaluates), and
 * declarations evaluated over other formats' data (an input format whose
 * smallest exponent is not the declaration's), so that every path of
 * fused_model.h is pinned, not only today's pairings. The references:
 * df_refs_compute on each type and family's cases, df_refs_compute_many
 * on the same cases in batches (bit for bit df_refs_compute), the
 * references alone (df_exact_dot, df_kahan_dot, df_abs_dot) on some of
 * them, and cases past a reference chunk made of generated cases end to
 * end (several families in one case).
 *
 * A model's NaN result is hashed as one NaN, whatever its sign and
 * payload: where two NaNs meet in a float addition (the chains' sum) the
 * one that comes out is the operand order the compiler picks, which
 * differs between translation units of the same source (the rows below
 * that evaluate a declaration inline here, and the kernels' own), and the
 * oracle takes any NaN for any other. The references' NaNs are pinned as
 * they are.
 *
 * DF_PINS_PRINT=1 prints each row's hash as the table below writes it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "kernels/fp8_models.h"
#include "kernels/fused_model.h"
#include "tests/gen_fakes.h"
#include "reference/exact.h"
#include "reference/reference.h"

#define PIN_SEED 7
#define PIN_CASES 2000 /* a row's cases: n up to 65,536, as a run draws them */
#define PIN_LONG 6     /* long cases a type */

static const uint32_t lp_families[] = {DF_FAM_LP_RANGE, DF_FAM_LP_SUBNORMAL, DF_FAM_LP_SPECIAL,
                                       DF_FAM_LP_CANCEL};
#define NFAM (sizeof lp_families / sizeof lp_families[0])

#define FNV0 UINT64_C(14695981039346656037)
#define HASH(h, x) ((h) = df_test_fnv1a((h), &(x), sizeof(x)))

static uint64_t hash_exact(uint64_t h, const df_exact *e)
{
    HASH(h, e->kind);
    HASH(h, e->hi);
    HASH(h, e->lo);
    HASH(h, e->f32);
    HASH(h, e->sign);
    HASH(h, e->is_zero);
    HASH(h, e->top);
    HASH(h, e->bot);
    return df_test_fnv1a(h, e->mag, sizeof e->mag);
}

/* Every field of r, one at a time (no padding). */
static uint64_t hash_refs(uint64_t h, const df_refs *r)
{
    HASH(h, r->exact_known);
    HASH(h, r->exact_is_int);
    HASH(h, r->exact.hi);
    HASH(h, r->exact.lo);
    HASH(h, r->exact_hi);
    HASH(h, r->exact_lo);
    HASH(h, r->fp_known);
    if (r->fp_known)
        h = hash_exact(h, &r->fp);
    HASH(h, r->kahan);
    HASH(h, r->kahan_err);
    HASH(h, r->G);
    HASH(h, r->all_integer);
    HASH(h, r->has_nonfinite);
    HASH(h, r->has_nan);
    HASH(h, r->inf_want);
    HASH(h, r->fin_g);
    HASH(h, r->max_abs_a);
    HASH(h, r->max_abs_b);
    return h;
}

static int print_pins(void)
{
    const char *p = getenv("DF_PINS_PRINT");
    return p && *p && strcmp(p, "0") != 0;
}

static void check_pin(const char *row, uint64_t got, uint64_t want)
{
    if (print_pins())
        printf("    {\"%s\", UINT64_C(0x%016llx)},\n", row, (unsigned long long)got);
    cr_expect_eq(got, want, "%s: hash %016llx, pinned %016llx", row, (unsigned long long)got,
                 (unsigned long long)want);
}

typedef struct pin {
    const char *row;
    uint64_t hash;
} pin;

static uint64_t pinned(const pin *pins, size_t n, const char *row)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(pins[i].row, row) == 0)
            return pins[i].hash;
    return 0;
}

/* k's descriptor with data of type t: the shapes of a kernel over another
 * format's data. */
static df_kernel with_elem(const char *name, df_type t)
{
    const df_kernel *k = df_kernel_find(name);
    cr_assert_not_null(k, "%s is not registered", name);
    df_kernel f = *k;
    f.elem = t;
    return f;
}

/* ---- models ---------------------------------------------------------------- */

/* A model row: kernel `shape` (its chains, promotion and launch) over data
 * of type t, run as its registered host model (as == NULL) or as the fused
 * declaration `as`. */
typedef struct model_row {
    const char *name, *shape;
    df_type t;
    const df_fused_model *as;
} model_row;

static const df_fused_model decl_mma_f16 = {16, 25, 23, -126, 127, DF_ROUND_ZERO, -14};

static const model_row model_rows[] = {
    {"mma-f16", "mma-f16", DF_F16, NULL},
    {"mma-bf16", "mma-bf16", DF_BF16, NULL},
    {"wgmma-e4m3", "wgmma-e4m3", DF_E4M3, NULL},
    {"wgmma-e4m3-promoted", "wgmma-e4m3-promoted", DF_E4M3, NULL},
    {"m-wgmma-fp32", "m-wgmma-fp32", DF_E4M3, NULL},
    {"half2-f16", "half2-f16", DF_F16, NULL},
    {"m-half2-f32-declared", "m-half2-f32-declared", DF_F16, NULL},
    {"mma-e4m3 declared", "mma-e4m3", DF_E4M3, NULL}, /* its .fused, evaluated */
    {"wgmma chain on e5m2", "wgmma-e4m3", DF_E5M2, &df_wgmma_e4m3_chain},
    {"fp32 chain on e5m2 promoted", "wgmma-e4m3-promoted", DF_E5M2, &df_tc_e4m3_fp32},
    {"wgmma chain on f16", "wgmma-e4m3", DF_F16, &df_wgmma_e4m3_chain},
    {"mma-f16 decl on bf16", "mma-f16", DF_BF16, &decl_mma_f16},
    {"mma-f16 decl on e4m3", "mma-e4m3", DF_E4M3, &decl_mma_f16},
};

static const pin model_pins[] = {
    {"mma-f16/lp-range", UINT64_C(0xa73e4463e47412a5)},
    {"mma-f16/lp-subnormal", UINT64_C(0x7065164abeda416c)},
    {"mma-f16/lp-special", UINT64_C(0x43b36696ba57e2eb)},
    {"mma-f16/lp-cancel", UINT64_C(0xc6ca02c7c04240d4)},
    {"mma-bf16/lp-range", UINT64_C(0xe0d430eca37ca0c8)},
    {"mma-bf16/lp-subnormal", UINT64_C(0xadb82ec7be99ce93)},
    {"mma-bf16/lp-special", UINT64_C(0xc688405ac4043703)},
    {"mma-bf16/lp-cancel", UINT64_C(0x9cee348c706de486)},
    {"wgmma-e4m3/lp-range", UINT64_C(0x26e9820df742e908)},
    {"wgmma-e4m3/lp-subnormal", UINT64_C(0x9374d885bf06244a)},
    {"wgmma-e4m3/lp-special", UINT64_C(0x01b8b22ae393a761)},
    {"wgmma-e4m3/lp-cancel", UINT64_C(0xabae47e3af2289dd)},
    {"wgmma-e4m3-promoted/lp-range", UINT64_C(0x03e5240454b1088e)},
    {"wgmma-e4m3-promoted/lp-subnormal", UINT64_C(0xb100b60f3c1eca83)},
    {"wgmma-e4m3-promoted/lp-special", UINT64_C(0x78179653c042ab14)},
    {"wgmma-e4m3-promoted/lp-cancel", UINT64_C(0xef493feebd36f0b8)},
    {"m-wgmma-fp32/lp-range", UINT64_C(0x26e9820df742e908)},
    {"m-wgmma-fp32/lp-subnormal", UINT64_C(0x9374d885bf06244a)},
    {"m-wgmma-fp32/lp-special", UINT64_C(0x01b8b22ae393a761)},
    {"m-wgmma-fp32/lp-cancel", UINT64_C(0xabae47e3af2289dd)},
    {"half2-f16/lp-range", UINT64_C(0x47281f66dfe90083)},
    {"half2-f16/lp-subnormal", UINT64_C(0xc7b051f772aab9dc)},
    {"half2-f16/lp-special", UINT64_C(0xec1acca8e7a489d2)},
    {"half2-f16/lp-cancel", UINT64_C(0xce24dd6365357a7d)},
    {"m-half2-f32-declared/lp-range", UINT64_C(0x47281f66dfe90083)},
    {"m-half2-f32-declared/lp-subnormal", UINT64_C(0xc7b051f772aab9dc)},
    {"m-half2-f32-declared/lp-special", UINT64_C(0xec1acca8e7a489d2)},
    {"m-half2-f32-declared/lp-cancel", UINT64_C(0xce24dd6365357a7d)},
    {"mma-e4m3 declared/lp-range", UINT64_C(0x8b26981d40a4d012)},
    {"mma-e4m3 declared/lp-subnormal", UINT64_C(0x499733060fb02726)},
    {"mma-e4m3 declared/lp-special", UINT64_C(0xc35ba99a2862d291)},
    {"mma-e4m3 declared/lp-cancel", UINT64_C(0xf72a29be50210085)},
    {"wgmma chain on e5m2/lp-range", UINT64_C(0x7178f7eea5fd3b4f)},
    {"wgmma chain on e5m2/lp-subnormal", UINT64_C(0x45da7a8f334cedc2)},
    {"wgmma chain on e5m2/lp-special", UINT64_C(0x318ae9f21534eb6d)},
    {"wgmma chain on e5m2/lp-cancel", UINT64_C(0xf964a6b2039ee65b)},
    {"fp32 chain on e5m2 promoted/lp-range", UINT64_C(0xc7fd6e6ab37b70c1)},
    {"fp32 chain on e5m2 promoted/lp-subnormal", UINT64_C(0x458d1a532045fd0e)},
    {"fp32 chain on e5m2 promoted/lp-special", UINT64_C(0x21a604dfa46089c8)},
    {"fp32 chain on e5m2 promoted/lp-cancel", UINT64_C(0x2653ddce62d1bfcb)},
    {"wgmma chain on f16/lp-range", UINT64_C(0xb804c63272a87421)},
    {"wgmma chain on f16/lp-subnormal", UINT64_C(0x87527c875a8486d4)},
    {"wgmma chain on f16/lp-special", UINT64_C(0xa462307e35d35742)},
    {"wgmma chain on f16/lp-cancel", UINT64_C(0x58e8989dec2aaa0e)},
    {"mma-f16 decl on bf16/lp-range", UINT64_C(0xc586c58e3119ad15)},
    {"mma-f16 decl on bf16/lp-subnormal", UINT64_C(0x8fed60f1e1889625)},
    {"mma-f16 decl on bf16/lp-special", UINT64_C(0xe3f46c57a991ba44)},
    {"mma-f16 decl on bf16/lp-cancel", UINT64_C(0x19d4e072e860ec48)},
    {"mma-f16 decl on e4m3/lp-range", UINT64_C(0xede20f08e023a684)},
    {"mma-f16 decl on e4m3/lp-subnormal", UINT64_C(0x367d5017eddfc0df)},
    {"mma-f16 decl on e4m3/lp-special", UINT64_C(0xe523f3209ce88597)},
    {"mma-f16 decl on e4m3/lp-cancel", UINT64_C(0xdeb4ab87d6e35728)},
};

static void run_model_row(const model_row *mr, uint32_t fam, df_scratch *buf, uint64_t *h)
{
    df_kernel k = with_elem(mr->shape, mr->t);
    df_gen_opts go = {.max_n = 65536, .family = fam};
    df_scratch s = {0};
    for (uint64_t i = 0; i < PIN_CASES; i++) {
        df_case c;
        df_result out;
        cr_assert_eq(df_generate(PIN_SEED, i, &k, &go, buf, &c), 0);
        if (mr->as || !k.host_model)
            (void)df_model_fused_as(&k, mr->as ? mr->as : k.fused, &c, &out);
        else
            (void)k.host_model(&c, &s, &out);
        double f = isnan(out.f) ? NAN : out.f; /* any NaN as one (above) */
        HASH(*h, f);
        HASH(*h, out.status);
    }
    df_scratch_free(&s);
}

Test(lowp_pins, models_give_their_pinned_results, .timeout = 600)
{
    df_scratch buf = {0};
    for (size_t r = 0; r < sizeof model_rows / sizeof model_rows[0]; r++)
        for (size_t f = 0; f < NFAM; f++) {
            char row[96];
            uint64_t h = FNV0;
            run_model_row(&model_rows[r], lp_families[f], &buf, &h);
            snprintf(row, sizeof row, "%s/%s", model_rows[r].name,
                     df_family_by_id(lp_families[f])->name);
            check_pin(row, h, pinned(model_pins, sizeof model_pins / sizeof model_pins[0], row));
        }
    df_scratch_free(&buf);
}

/* ---- references ---------------------------------------------------------- */

static const df_type lowp_types[] = {DF_F16, DF_BF16, DF_E4M3, DF_E5M2};
#define NLOWP (sizeof lowp_types / sizeof lowp_types[0])

static const pin refs_pins[] = {
    {"f16/long", UINT64_C(0x782f84800895d756)},
    {"bf16/long", UINT64_C(0x5d2f4bba94730f50)},
    {"e4m3/long", UINT64_C(0xb32544d49d745db3)},
    {"e5m2/long", UINT64_C(0x49c7c4b9a335c2e1)},
    {"f16/lp-range", UINT64_C(0x9b5247f374a432dd)},
    {"f16/lp-subnormal", UINT64_C(0x6a64b7eb547f8a17)},
    {"f16/lp-special", UINT64_C(0xaea638a26d2f2ca6)},
    {"f16/lp-cancel", UINT64_C(0xb49eeca38c3c3c67)},
    {"bf16/lp-range", UINT64_C(0x10ec544f7fed5f4d)},
    {"bf16/lp-subnormal", UINT64_C(0x9171f063a3fa98f8)},
    {"bf16/lp-special", UINT64_C(0x0a5a657ea163623f)},
    {"bf16/lp-cancel", UINT64_C(0xda5e80d6334d663a)},
    {"e4m3/lp-range", UINT64_C(0x7569b17facc838c8)},
    {"e4m3/lp-subnormal", UINT64_C(0xb690e28df9570c65)},
    {"e4m3/lp-special", UINT64_C(0x1cea2f2d74b35928)},
    {"e4m3/lp-cancel", UINT64_C(0x35adafdf3bf90c06)},
    {"e5m2/lp-range", UINT64_C(0xfd1bb1fde6b750af)},
    {"e5m2/lp-subnormal", UINT64_C(0x43a747ba9382af01)},
    {"e5m2/lp-special", UINT64_C(0xb49fa87a86025a72)},
    {"e5m2/lp-cancel", UINT64_C(0xea989ab4b0274302)},
};

/* The references of m cases, alone and in batches of 64 as a run's slots
 * make them (bit for bit the same), hashed; every 16th case also the
 * references alone. */
static uint64_t hash_cases_refs(const df_case *cs, size_t m, uint64_t h)
{
    df_refs *one = calloc(m, sizeof *one), *many = calloc(m, sizeof *many);
    df_refs_job *jobs = calloc(m, sizeof *jobs);
    cr_assert(one && many && jobs);
    for (size_t i = 0; i < m; i++) {
        df_refs_compute(cs[i].type, cs[i].a, cs[i].b, cs[i].n, &one[i]);
        jobs[i] = (df_refs_job){cs[i].type, cs[i].a, cs[i].b, cs[i].n, &many[i]};
    }
    for (size_t i = 0; i < m; i += 64)
        df_refs_compute_many(jobs + i, m - i < 64 ? m - i : 64);
    for (size_t i = 0; i < m; i++) {
        uint64_t x = hash_refs(FNV0, &one[i]), y = hash_refs(FNV0, &many[i]);
        cr_assert_eq(x, y, "%s case %zu (n = %llu): df_refs_compute_many differs",
                     df_type_name(cs[i].type), i, (unsigned long long)cs[i].n);
        HASH(h, x);
        if (i % 16)
            continue;
        df_exact e;
        double bound, k = df_kahan_dot(cs[i].type, cs[i].a, cs[i].b, cs[i].n, &bound);
        double g = df_abs_dot(cs[i].type, cs[i].a, cs[i].b, cs[i].n);
        int rc = df_exact_dot(cs[i].type, cs[i].a, cs[i].b, cs[i].n, &e);
        HASH(h, k);
        HASH(h, bound);
        HASH(h, g);
        HASH(h, rc);
        h = hash_exact(h, &e);
    }
    free(one);
    free(many);
    free(jobs);
    return h;
}

/* A kernel of type t for the generator: e5m2 has none registered, so
 * mma-f16's shape stands in for it. */
static df_kernel gen_kernel(df_type t)
{
    return with_elem(t == DF_BF16 ? "mma-bf16" : t == DF_E4M3 ? "wgmma-e4m3" : "mma-f16", t);
}

Test(lowp_pins, references_give_their_pinned_results, .timeout = 600)
{
    df_scratch *buf = calloc(PIN_CASES, sizeof *buf);
    df_case *cs = calloc(PIN_CASES, sizeof *cs);
    cr_assert(buf && cs);
    for (size_t ti = 0; ti < NLOWP; ti++) {
        df_kernel k = gen_kernel(lowp_types[ti]);
        for (size_t f = 0; f < NFAM; f++) {
            df_gen_opts go = {.max_n = 65536, .family = lp_families[f]};
            for (uint64_t i = 0; i < PIN_CASES; i++)
                cr_assert_eq(df_generate(PIN_SEED, i, &k, &go, &buf[i], &cs[i]), 0);
            char row[64];
            snprintf(row, sizeof row, "%s/%s", df_type_name(lowp_types[ti]),
                     df_family_by_id(lp_families[f])->name);
            check_pin(row, hash_cases_refs(cs, PIN_CASES, FNV0),
                      pinned(refs_pins, sizeof refs_pins / sizeof refs_pins[0], row));
        }
    }
    for (size_t i = 0; i < PIN_CASES; i++)
        df_scratch_free(&buf[i]);
    free(buf);
    free(cs);
}

/* Long cases: generated cases of every lp family end to end (case j of a
 * long case from family j mod 4) until past `len` elements. */
Test(lowp_pins, long_references_give_their_pinned_results, .timeout = 600)
{
    const uint64_t lens[PIN_LONG] = {65537, 70000, 131072, 131073, 200000, 300000};
    for (size_t ti = 0; ti < NLOWP; ti++) {
        df_type t = lowp_types[ti];
        size_t es = df_type_size(t);
        df_kernel k = gen_kernel(t);
        df_case cs[PIN_LONG];
        unsigned char *mem[PIN_LONG][2];
        df_scratch buf = {0};
        uint64_t index = 0;
        for (size_t l = 0; l < PIN_LONG; l++) {
            uint64_t cap = lens[l] + 65536, n = 0;
            mem[l][0] = malloc(cap * es);
            mem[l][1] = malloc(cap * es);
            cr_assert(mem[l][0] && mem[l][1]);
            for (unsigned j = 0; n < lens[l]; j++) {
                df_gen_opts go = {.max_n = 65536, .family = lp_families[j % NFAM]};
                df_case c;
                cr_assert_eq(df_generate(PIN_SEED + 1, index++, &k, &go, &buf, &c), 0);
                uint64_t take = c.n < cap - n ? c.n : cap - n;
                memcpy(mem[l][0] + n * es, c.a, take * es);
                memcpy(mem[l][1] + n * es, c.b, take * es);
                n += take;
            }
            cs[l] = (df_case){.type = t, .n = n, .a = mem[l][0], .b = mem[l][1]};
        }
        char row[64];
        snprintf(row, sizeof row, "%s/long", df_type_name(t));
        check_pin(row, hash_cases_refs(cs, PIN_LONG, FNV0),
                  pinned(refs_pins, sizeof refs_pins / sizeof refs_pins[0], row));
        for (size_t l = 0; l < PIN_LONG; l++)
            free(mem[l][0]), free(mem[l][1]);
        df_scratch_free(&buf);
    }
}
