/* test_import.c — text vectors to a case: what parses to which bits, what is
 * refused, and that each refusal names the file, the line and the fact. */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/import.h"

#define assert_has(msg, sub)                                                  \
    cr_assert(strstr((msg), (sub)) != NULL, "message \"%s\" lacks \"%s\"",  \
              (msg), (sub))

/* A scratch directory holding a.txt and b.txt. */
typedef struct fixture {
    char dir[64];
    char a[128];
    char b[128];
} fixture;

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
    cr_assert_eq(fputs(text, fp) >= 0, 1);
    cr_assert_eq(fclose(fp), 0);
}

static void setup_files(fixture *fx, const char *a, const char *b)
{
    snprintf(fx->dir, sizeof fx->dir, "/tmp/dotfuzz-import-XXXXXX");
    cr_assert_not_null(mkdtemp(fx->dir), "mkdtemp: %s", strerror(errno));
    snprintf(fx->a, sizeof fx->a, "%s/a.txt", fx->dir);
    snprintf(fx->b, sizeof fx->b, "%s/b.txt", fx->dir);
    write_text(fx->a, a);
    write_text(fx->b, b);
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void teardown(fixture *fx)
{
    nftw(fx->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Imports a and b as type t for kernel k; expects success. */
static void import_ok(const char *a, const char *b, df_type t, const char *k,
                      df_case_file *out)
{
    fixture fx;
    char msg[256] = "";
    setup_files(&fx, a, b);
    int rc = df_import_text(fx.a, fx.b, t, k, out, msg, sizeof msg);
    teardown(&fx);
    cr_assert_eq(rc, 0, "import failed: %s", msg);
}

/* Imports and expects a refusal whose message contains want. */
static void import_refused(const char *a, const char *b, df_type t,
                           const char *k, const char *want)
{
    fixture fx;
    char msg[256] = "";
    df_case_file out;
    setup_files(&fx, a, b);
    int rc = df_import_text(fx.a, fx.b, t, k, &out, msg, sizeof msg);
    teardown(&fx);
    cr_assert_eq(rc, -1, "accepted; wanted refusal with \"%s\"", want);
    cr_assert_null(out.data);
    assert_has(msg, want);
}

static uint32_t f32_at(const df_case_file *f, int which, uint64_t i)
{
    uint32_t u;
    memcpy(&u, (const float *)(which ? f->c.b : f->c.a) + i, 4);
    return u;
}

static uint64_t f64_at(const df_case_file *f, int which, uint64_t i)
{
    uint64_t u;
    memcpy(&u, (const double *)(which ? f->c.b : f->c.a) + i, 8);
    return u;
}

Test(import, f32_decimal_and_hex_floats_parse_to_expected_bits)
{
    df_case_file f;
    import_ok("1.5\n-1.5e3\n0x1.8p+1\n  0.1  \n-0\n0x1p-149\nnan\n-INF\n",
              "1\n2\n3\n4\n5\n6\n7\n8\n", DF_F32, "atomic-block", &f);
    cr_assert_eq(f.c.n, 8);
    cr_assert_eq(f.c.type, DF_F32);
    cr_assert_eq(f32_at(&f, 0, 0), 0x3fc00000u);      /* 1.5 */
    cr_assert_eq(f32_at(&f, 0, 1), 0xc4bb8000u);      /* -1500 */
    cr_assert_eq(f32_at(&f, 0, 2), 0x40400000u);      /* 3 */
    cr_assert_eq(f32_at(&f, 0, 3), 0x3dcccccdu);      /* 0.1 rounded */
    cr_assert_eq(f32_at(&f, 0, 4), 0x80000000u);      /* -0 keeps its sign */
    cr_assert_eq(f32_at(&f, 0, 5), 0x00000001u);      /* smallest subnormal */
    cr_assert(isnan(((const float *)f.c.a)[6]));
    cr_assert_eq(f32_at(&f, 0, 7), 0xff800000u);      /* -inf */
    cr_assert_eq(f32_at(&f, 1, 7), 0x41000000u);      /* b[7] = 8 */
    df_case_file_free(&f);
}

Test(import, f64_decimal_rounds_and_exact_hex_keeps_53_bits)
{
    df_case_file f;
    import_ok("0.1\n0x1.0000000000001p+0\n", "-0x1p-1074\n1e308\n", DF_F64,
              NULL, &f);
    cr_assert_eq(f64_at(&f, 0, 0), 0x3fb999999999999aull);
    cr_assert_eq(f64_at(&f, 0, 1), 0x3ff0000000000001ull);
    cr_assert_eq(f64_at(&f, 1, 0), 0x8000000000000001ull);
    cr_assert_eq(f64_at(&f, 1, 1), 0x7fe1ccf385ebc8a0ull);
    df_case_file_free(&f);
}

Test(import, comments_blank_lines_and_crlf_are_skipped)
{
    df_case_file f;
    import_ok("# exported by numpy\n\n  1\n   # mid comment\n\t\n2\r\n",
              "3\n\n\n4", DF_F32, "", &f);
    cr_assert_eq(f.c.n, 2);
    cr_assert_eq(((const float *)f.c.a)[0], 1.0f);
    cr_assert_eq(((const float *)f.c.a)[1], 2.0f);
    cr_assert_eq(((const float *)f.c.b)[0], 3.0f);
    cr_assert_eq(((const float *)f.c.b)[1], 4.0f);
    df_case_file_free(&f);
}

Test(import, result_is_an_imported_case_that_encodes_and_decodes)
{
    df_case_file f;
    import_ok("-2147483648\n7\n", "1\n-3\n", DF_I32, "int-atomic", &f);
    cr_assert_eq(f.c.family, 0);
    cr_assert_eq(f.c.seed, 0);
    cr_assert_eq(f.c.index, 0);
    cr_assert_eq(f.c.launch.block, 0);
    cr_assert_eq(f.c.launch.grid, 0);
    cr_assert_eq(f.c.launch.offset_a, 0);
    cr_assert_eq(f.c.launch.offset_b, 0);
    cr_assert_str_eq(f.c.kernel, "int-atomic");
    cr_assert_eq(((const int32_t *)f.c.a)[0], INT32_MIN);
    cr_assert_eq(((const int32_t *)f.c.b)[1], -3);

    uint8_t *buf;
    size_t len;
    cr_assert_eq(df_corpus_encode(&f.c, &f.meta, &buf, &len), 0);
    cr_assert_eq(len, 128 + 2 * 2 * 4);
    df_case_file g;
    char msg[200];
    cr_assert_eq(df_corpus_decode(buf, len, &g, msg, sizeof msg),
                 DF_CORPUS_OK, "%s", msg);
    cr_assert_eq(memcmp(g.c.a, f.c.a, 8), 0);
    cr_assert_eq(memcmp(g.c.b, f.c.b, 8), 0);
    cr_assert_str_eq(g.c.kernel, "int-atomic");
    df_case_file_free(&g);
    df_case_file_free(&f);
    free(buf);
}

Test(import, mismatched_counts_name_both_counts)
{
    import_refused("1\n2\n3\n4\n5\n", "# four\n1\n2\n3\n4\n", DF_F32, NULL,
                   "a.txt has 5 numbers, ");
    import_refused("1\n2\n3\n4\n5\n", "1\n2\n3\n4\n", DF_F32, NULL,
                   "b.txt has 4");
}

Test(import, bad_token_names_file_and_line)
{
    import_refused("1\n2\n3\n", "1\n\n1.2.3\n", DF_F32, NULL,
                   "b.txt:3: '1.2.3' is not a number");
    import_refused("1 2\n", "1\n", DF_F64, NULL,
                   "a.txt:1: '1 2' is not a number");
}

Test(import, inexact_hex_float_refused_for_f32_but_exact_in_f64)
{
    import_refused("0x1.000001p+0\n", "1\n", DF_F32, NULL,
                   "a.txt:1: hex float '0x1.000001p+0' is not exactly "
                   "representable in f32");
    import_refused("1\n", "0x1p-150\n", DF_F32, NULL, "b.txt:1:");
    df_case_file f;
    import_ok("0x1.000001p+0\n", "0x1p-150\n", DF_F64, NULL, &f);
    cr_assert_eq(f64_at(&f, 0, 0), 0x3ff0000010000000ull);
    df_case_file_free(&f);
}

Test(import, hex_float_exactness_boundaries_in_f32)
{
    df_case_file f;
    /* FLT_MAX, 24 significant bits, the smallest subnormal spelled two
     * ways, unnormalized forms of 1, a leading '.', many leading zeros. */
    import_ok("0x1.fffffep+127\n0x1.000002p+0\n0x0.000002p-126\n"
              "0x10p-4\n0x.8p1\n0x0000000000000000000001P0\n",
              "1\n2\n3\n4\n5\n6\n", DF_F32, NULL, &f);
    cr_assert_eq(f32_at(&f, 0, 0), 0x7f7fffffu);
    cr_assert_eq(f32_at(&f, 0, 1), 0x3f800001u);
    cr_assert_eq(f32_at(&f, 0, 2), 0x00000001u);
    cr_assert_eq(f32_at(&f, 0, 3), 0x3f800000u);
    cr_assert_eq(f32_at(&f, 0, 4), 0x3f800000u);
    cr_assert_eq(f32_at(&f, 0, 5), 0x3f800000u);
    df_case_file_free(&f);
    /* 26 significant bits; a subnormal needing a bit below 2^-149. */
    import_refused("0x1.0000008p+0\n", "1\n", DF_F32, NULL,
                   "not exactly representable in f32");
    import_refused("0x1.8p-149\n", "1\n", DF_F32, NULL,
                   "not exactly representable in f32");
    import_refused("0x1p128\n", "1\n", DF_F32, NULL, "overflows f32");
}

Test(import, float_overflow_and_underflow_to_zero_refused)
{
    import_refused("1e39\n", "1\n", DF_F32, NULL, "'1e39' overflows f32");
    import_refused("1e-50\n", "1\n", DF_F32, NULL,
                   "'1e-50' underflows to zero in f32");
    import_refused("1\n", "-1e400\n", DF_F64, NULL, "'-1e400' overflows f64");
}

Test(import, i32_non_integer_refused)
{
    import_refused("1\n1.5\n", "1\n2\n", DF_I32, NULL,
                   "a.txt:2: '1.5' is not an integer");
    import_refused("1e3\n", "1\n", DF_I32, NULL, "'1e3' is not an integer");
}

Test(import, i32_out_of_range_refused)
{
    import_refused("2147483648\n", "1\n", DF_I32, NULL,
                   "a.txt:1: '2147483648' is outside the int32 range");
    import_refused("1\n", "-2147483649\n", DF_I32, NULL,
                   "b.txt:1: '-2147483649' is outside the int32 range");
    import_refused("1\n", "99999999999999999999999\n", DF_I32, NULL,
                   "outside the int32 range");
}

Test(import, unknown_kernel_refused)
{
    import_refused("1\n", "1\n", DF_F32, "foo", "unknown kernel 'foo'");
}

Test(import, kernel_type_mismatch_refused)
{
    import_refused("1\n", "1\n", DF_F32, "int-atomic",
                   "kernel 'int-atomic' takes i32, not f32");
    import_refused("1\n", "1\n", DF_I32, "atomic-block",
                   "kernel 'atomic-block' takes f32, not i32");
}

Test(import, missing_file_is_named)
{
    df_case_file out;
    char msg[256];
    cr_assert_eq(df_import_text("/nonexistent/a.txt", "/nonexistent/b.txt",
                                DF_F32, NULL, &out, msg, sizeof msg),
                 -1);
    assert_has(msg, "/nonexistent/a.txt: ");
    assert_has(msg, strerror(ENOENT));
}

/* ---- low-precision types and bit patterns ---- */

/* Imports text as vector a (and b) of type t; a must hold exactly the n
 * elements at want, bit for bit. */
static void expect_elems(const char *text, df_type t, const void *want, uint64_t n)
{
    df_case_file f;
    import_ok(text, text, t, NULL, &f);
    cr_assert_eq(f.c.type, t);
    cr_assert_eq(f.c.n, n);
    size_t es = df_type_size(t);
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *got = (const uint8_t *)f.c.a + i * es, *w = (const uint8_t *)want + i * es;
        cr_assert_eq(memcmp(got, w, es), 0, "%s element %llu differs", df_type_name(t),
                     (unsigned long long)i);
    }
    df_case_file_free(&f);
}

Test(import, f16_exact_decimals_hex_floats_specials_and_bits)
{
    static const uint16_t want[] = {0x3c00, 0x3800, 0x8000, 0x7bff, 0x0400, 0x0001, 0x0001,
                                    0xfe00, 0xfc00, 0x7c01, 0x7380, 0x3c00, 0x3800};
    expect_elems("1\n0.5\n-0\n65504\n6.103515625e-05\n5.9604644775390625e-08\n0x1p-24\n"
                 "-nan\n-inf\nbits:0x7c01\n0x3c00\n100e-2\n.5000\n",
                 DF_F16, want, 13);
}

Test(import, eight_bit_and_bf16_landmarks_parse_to_their_bits)
{
    static const uint8_t e4m3[] = {0x7e, 0x81, 0x7f, 0x36, 0xff, 0xc4};
    expect_elems("448\n-0x1p-9\nnan\n0.875\nbits:0xff\n-3\n", DF_E4M3, e4m3, 6);
    static const uint8_t e5m2[] = {0x7b, 0x7c, 0x01};
    expect_elems("57344\ninf\n0x1p-16\n", DF_E5M2, e5m2, 3);
    static const uint16_t bf16[] = {0x3f81, 0x7f7f, 0x0001};
    expect_elems("1.0078125\n0x1.fep+127\n0x1p-133\n", DF_BF16, bf16, 3);
}

/* One refusal: a.txt and b.txt as type t, and what the message says. */
typedef struct refusal {
    const char *a, *b;
    df_type t;
    const char *want;
} refusal;

/* Inexact low-precision values (with the nearest value, or the two about
 * a halfway one), overflow, e4m3's missing infinity and bad bit patterns. */
Test(import, lowp_values_and_bit_patterns_refused_name_file_line_and_value)
{
    static const refusal r[] = {
        {"1\n0.1\n", "1\n1\n", DF_F16,
         "a.txt:2: '0.1' is not exactly representable in f16 (nearest: 0.0999755859375)"},
        /* one digit too many for a double, still not 1 */
        {"1.00000000000000000000000000001\n", "1\n", DF_F16,
         "not exactly representable in f16 (nearest: 1)"},
        {"1\n", "1.00390625\n", DF_BF16,
         "b.txt:1: '1.00390625' is not exactly representable in bf16 (between 1 and "
         "1.0078125)"},
        {"0x1.001p0\n", "1\n", DF_F16, "'0x1.001p0' is not exactly"},
        {"1e-10\n", "1\n", DF_F16, "(nearest: 0)"},
        {"0x1p-16\n", "1\n", DF_E4M3, "not exactly representable in e4m3"},
        {"65520\n", "1\n", DF_F16, "a.txt:1: '65520' overflows f16 (largest finite 65504)"},
        {"480\n", "1\n", DF_E4M3, "'480' overflows e4m3 (largest finite 448)"},
        {"1\n", "-inf\n", DF_E4M3, "b.txt:1: '-inf': e4m3 has no infinity"},
        {"1e999\n", "1\n", DF_E5M2, "'1e999' overflows e5m2"},
        {"bits:0x13c00\n", "1\n", DF_F16,
         "a.txt:1: 'bits:0x13c00' has more than the 16 bits of f16"},
        {"bits:0x100\n", "1\n", DF_E5M2, "more than the 8 bits of e5m2"},
        {"bits:3c00\n", "1\n", DF_F16, "'bits:3c00' is not a bit pattern"},
        {"bits:0x3g\n", "1\n", DF_F16, "is not a bit pattern"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        import_refused(r[i].a, r[i].b, r[i].t, NULL, r[i].want);
}

Test(import, bit_patterns_in_every_type)
{
    static const uint32_t f32[] = {0x7fc00001u, 0x3f800000u}; /* a NaN's payload kept */
    expect_elems("bits:0x7fc00001\nbits:0X3F800000\n", DF_F32, f32, 2);
    static const uint64_t f64[] = {0xffffffffffffffffull, 1ull};
    expect_elems("bits:0xffffffffffffffff\nbits:0x1\n", DF_F64, f64, 2);
    static const int32_t i32[] = {-1, INT32_MIN};
    expect_elems("bits:0xffffffff\nbits:0x80000000\n", DF_I32, i32, 2);
}

Test(import, a_lowp_case_encodes_as_version_4_and_decodes_the_same)
{
    df_case_file f;
    import_ok("1\n-2\n", "0.5\nbits:0x7e01\n", DF_F16, "", &f);
    uint8_t *buf;
    size_t len;
    cr_assert_eq(df_corpus_encode(&f.c, &f.meta, &buf, &len), 0);
    cr_assert_eq(len, 128 + 2 * 2 * 2);
    cr_assert_eq(buf[8] | buf[9] << 8, 4); /* the version */
    cr_assert_eq(buf[16], DF_F16);
    df_case_file g;
    char msg[200];
    cr_assert_eq(df_corpus_decode(buf, len, &g, msg, sizeof msg), DF_CORPUS_OK, "%s", msg);
    cr_assert_eq(g.c.type, DF_F16);
    cr_assert_eq(memcmp(g.c.a, f.c.a, 4), 0);
    cr_assert_eq(memcmp(g.c.b, f.c.b, 4), 0);
    df_case_file_free(&g);
    df_case_file_free(&f);
    free(buf);
}
