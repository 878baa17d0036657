/* test_mutator.c — the libFuzzer mutator (libfuzzer/mutator.c), built here
 * by the host compiler without libFuzzer: every case it makes from a case
 * file is a case file of the same type (a low-precision one stays version
 * 4), and on f16, bf16, e4m3 and e5m2 it reaches each format's landmarks
 * as bits inside the element. */
#include <criterion/criterion.h>

#include "fuzz/lowp.h"
#include "libfuzzer/mutator.c"

/* libFuzzer's byte mutator, which the custom one falls back to: not linked
 * here; it leaves the bytes as they are. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
    (void)data;
    (void)max_size;
    return size;
}

enum { CAP = 1 << 12, N = 24 };

/* A case file of n elements of type t, small integers (a low-precision
 * type's nearest values), into buf; its length. */
static size_t make_case(df_type t, uint64_t n, uint8_t *buf)
{
    uint8_t a[N * 8], b[N * 8];
    int lp = df_type_facts_of(t).lowp;
    size_t es = df_type_size(t);
    for (uint64_t i = 0; i < n; i++) {
        double x = (double)i - 7, y = 3.0 - (double)i / 2;
        uint32_t bx = lp >= 0 ? df_lowp_encode((df_lowp)lp, x, 1) : 0;
        uint32_t by = lp >= 0 ? df_lowp_encode((df_lowp)lp, y, 1) : 0;
        float fx = (float)x, fy = (float)y;
        memcpy(a + i * es, lp >= 0 ? (void *)&bx : (void *)&fx, es); /* little-endian */
        memcpy(b + i * es, lp >= 0 ? (void *)&by : (void *)&fy, es);
    }
    df_case c = {.type = t, .n = n, .a = a, .b = b};
    df_case_meta meta = {0};
    uint8_t *enc;
    size_t len;
    cr_assert_eq(df_corpus_encode(&c, &meta, &enc, &len), 0);
    cr_assert_leq(len, CAP);
    memcpy(buf, enc, len);
    free(enc);
    return len;
}

/* Element i of a low-precision vector: its bits. */
static uint32_t bits_at(df_type t, const void *v, uint64_t i)
{
    return df_type_size(t) == 1 ? ((const uint8_t *)v)[i] : ((const uint16_t *)v)[i];
}

/* Decodes what the mutator made: a valid case file of type t. */
static void decode_as(const uint8_t *buf, size_t len, df_type t, df_case_file *f)
{
    char msg[300];
    cr_assert_eq(df_corpus_decode(buf, len, f, msg, sizeof msg), DF_CORPUS_OK, "%s: %s",
                 df_type_name(t), msg);
    cr_assert_eq(f->c.type, t);
    /* a case mutated onto a BLAS kernel may become a BLAS call: version 5 */
    cr_assert_eq(buf[8] | buf[9] << 8, f->c.blas.on ? 5 : df_type_is_lowp(t) ? 4 : 1, "version");
}

/* Mutates one case of type t under many seeds; every output is a case of
 * t, and the format's landmarks (either sign) all turn up. */
static void mutates_to_landmarks(df_type t)
{
    df_lowp f = (df_lowp)df_type_facts_of(t).lowp;
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t max = df_lowp_max_bits(f), sign = 1u << (s.bits - 1);
    const uint32_t want[] = {1u, 1u << s.man_bits, max, df_lowp_nan_bits(f),
                             s.ieee ? max + 1 : max, max | sign, df_lowp_nan_bits(f) | sign};
    int seen[sizeof want / sizeof want[0]] = {0};
    uint8_t orig[CAP], buf[CAP];
    size_t len0 = make_case(t, N, orig);
    unsigned changed = 0;
    for (unsigned seed = 1; seed <= 3000; seed++) {
        memcpy(buf, orig, len0);
        size_t len = LLVMFuzzerCustomMutator(buf, len0, CAP, seed);
        cr_assert_gt(len, 0u);
        df_case_file c;
        decode_as(buf, len, t, &c);
        changed += len != len0 || memcmp(buf, orig, len0) != 0;
        for (uint64_t i = 0; i < c.c.n; i++)
            for (size_t w = 0; w < sizeof want / sizeof want[0]; w++)
                seen[w] |= bits_at(t, c.c.a, i) == want[w] ||
                           bits_at(t, c.c.b, i) == want[w];
        df_case_file_free(&c);
    }
    cr_assert_gt(changed, 2400u, "%s: %u of 3000 changed", df_type_name(t), changed);
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++)
        cr_assert(seen[w], "%s: landmark 0x%x never made", df_type_name(t), want[w]);
}

Test(mutator, f16_cases_stay_f16_and_reach_its_landmarks) { mutates_to_landmarks(DF_F16); }
Test(mutator, bf16_cases_stay_bf16_and_reach_its_landmarks) { mutates_to_landmarks(DF_BF16); }
Test(mutator, e4m3_cases_stay_e4m3_and_reach_its_landmarks) { mutates_to_landmarks(DF_E4M3); }
Test(mutator, e5m2_cases_stay_e5m2_and_reach_its_landmarks) { mutates_to_landmarks(DF_E5M2); }

Test(mutator, f32_cases_stay_valid_version_1_or_blas_files)
{
    uint8_t orig[CAP], buf[CAP];
    size_t len0 = make_case(DF_F32, N, orig);
    for (unsigned seed = 1; seed <= 500; seed++) {
        memcpy(buf, orig, len0);
        size_t len = LLVMFuzzerCustomMutator(buf, len0, CAP, seed);
        df_case_file c;
        decode_as(buf, len, DF_F32, &c);
        df_case_file_free(&c);
    }
}

/* Crossover splices two cases of one low-precision type into a third;
 * cases of two types give nothing. */
Test(mutator, crossover_keeps_the_type_and_refuses_two_types)
{
    uint8_t x[CAP], y[CAP], out[CAP];
    size_t lx = make_case(DF_E5M2, N, x), ly = make_case(DF_E5M2, N / 2, y);
    for (unsigned seed = 1; seed <= 200; seed++) {
        size_t len = LLVMFuzzerCustomCrossOver(x, lx, y, ly, out, CAP, seed);
        df_case_file c;
        decode_as(out, len, DF_E5M2, &c);
        df_case_file_free(&c);
    }
    size_t lz = make_case(DF_E4M3, N, y);
    cr_assert_eq(LLVMFuzzerCustomCrossOver(x, lx, y, lz, out, CAP, 1), 0u);
}

/* A case for ref-blas-sdot mutates into valid BLAS calls (version 5, the
 * reader's checks pass: n_arg and n agree, a zero increment's vector is
 * constant), among them negative and zero increments and n <= 0. */
Test(mutator, blas_cases_stay_valid_calls_and_reach_the_edges)
{
    uint8_t a[N * 4], b[N * 4], orig[CAP], buf[CAP];
    for (int i = 0; i < N; i++) {
        float x = (float)i - 7, y = 3.0f - (float)i / 2;
        memcpy(a + 4 * i, &x, 4);
        memcpy(b + 4 * i, &y, 4);
    }
    df_case c = {.type = DF_F32, .n = N, .a = a, .b = b, .blas = {1, 1, 1, 0, N}};
    memcpy(c.kernel, "ref-blas-sdot", sizeof "ref-blas-sdot");
    df_case_meta meta = {0};
    uint8_t *enc;
    size_t len0;
    cr_assert_eq(df_corpus_encode(&c, &meta, &enc, &len0), 0);
    memcpy(orig, enc, len0);
    free(enc);
    int neg = 0, zero = 0, nonpos = 0;
    for (unsigned seed = 1; seed <= 2000; seed++) {
        memcpy(buf, orig, len0);
        size_t len = LLVMFuzzerCustomMutator(buf, len0, CAP, seed);
        df_case_file f;
        decode_as(buf, len, DF_F32, &f);
        cr_assert(f.c.blas.on, "seed %u: the BLAS arguments were lost", seed);
        neg |= f.c.blas.inc_a < 0 || f.c.blas.inc_b < 0;
        zero |= f.c.blas.inc_a == 0 || f.c.blas.inc_b == 0;
        nonpos |= f.c.blas.n_arg <= 0;
        df_case_file_free(&f);
    }
    cr_assert(neg && zero && nonpos, "negative %d, zero %d, n <= 0 %d", neg, zero, nonpos);
}
