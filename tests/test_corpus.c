/* test_corpus.c — the case file: byte-exact encoding, lossless round trips,
 * one distinct error (and a message with the key fact) per kind of bad file,
 * SHA-1 names and atomic, deduplicating stores. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz/corpus.h"

#define assert_has(msg, sub)                                                  \
    cr_assert(strstr((msg), (sub)) != NULL, "message \"%s\" lacks \"%s\"",  \
              (msg), (sub))

/* The pinned file: n=1 f32, a={1.0}, b={-2.0}, kernel "atomic-block",
 * verdict 2, family 3, block 256, grid 4, offsets 1 and 2,
 * seed 0x0102030405060708, index 7, result -2.0, reference 0.5.
 * Written out by hand from the layout in corpus.h; the CRC 0xf365c188 was
 * computed once with python3 (zlib.crc32 and binascii.crc32 agree). */
static const uint8_t pinned[136] = {
    0x44, 0x4f, 0x54, 0x46, 0x55, 0x5a, 0x5a, 0x00, /* "DOTFUZZ\0" */
    0x01, 0x00, 0x80, 0x00,                         /* version 1, header 128 */
    0x88, 0xc1, 0x65, 0xf3,                         /* CRC-32 0xf365c188 */
    0x01, 0x02, 0x03, 0x00,                         /* f32, verdict 2, family 3 */
    0x00, 0x01, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, /* block 256, grid 4 */
    0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, /* offsets 1, 2 */
    0x00, 0x00, 0x00, 0x00,                         /* reserved */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* n = 1 */
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* seed */
    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* index 7 */
    0x61, 0x74, 0x6f, 0x6d, 0x69, 0x63, 0x2d, 0x62, /* "atomic-b" */
    0x6c, 0x6f, 0x63, 0x6b, 0x00, 0x00, 0x00, 0x00, /* "lock" */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, /* result -2.0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f, /* reference 0.5 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x80, 0x3f,                         /* a[0] = 1.0f */
    0x00, 0x00, 0x00, 0xc0,                         /* b[0] = -2.0f */
};

static const float pinned_a[1] = {1.0f}, pinned_b[1] = {-2.0f};

static df_case pinned_case(void)
{
    df_case c = {
        .type = DF_F32, .n = 1, .a = pinned_a, .b = pinned_b,
        .launch = {.block = 256, .grid = 4, .offset_a = 1, .offset_b = 2},
        .kernel = "atomic-block", .seed = 0x0102030405060708ull, .index = 7,
        .family = 3,
    };
    return c;
}

static const df_case_meta pinned_meta = {
    .verdict = 2, .result = -2.0, .reference = 0.5};

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Re-seals a hand-modified file so that only the intended defect remains. */
static void reseal(uint8_t *buf, size_t len)
{
    put_le(buf + 12, crc32(0L, buf + 16, (uInt)(len - 16)), 4);
}

static uint8_t *pinned_copy(void)
{
    uint8_t *p = malloc(sizeof pinned);
    cr_assert_not_null(p);
    memcpy(p, pinned, sizeof pinned);
    return p;
}

static df_corpus_err decode_expect(const uint8_t *buf, size_t len,
                                   df_corpus_err want, char *msg)
{
    df_case_file f;
    df_corpus_err e = df_corpus_decode(buf, len, &f, msg, 200);
    cr_assert_eq(e, want, "got %d (%s), want %d: %s", e, df_corpus_strerror(e),
                 want, msg);
    cr_assert_null(f.data, "a failed decode leaves no data");
    return e;
}

static void assert_same_case(const df_case_file *f, const df_case *c,
                             const df_case_meta *m)
{
    cr_assert_eq(f->c.type, c->type);
    cr_assert_eq(f->c.n, c->n);
    cr_assert_eq(f->c.launch.block, c->launch.block);
    cr_assert_eq(f->c.launch.grid, c->launch.grid);
    cr_assert_eq(f->c.launch.offset_a, c->launch.offset_a);
    cr_assert_eq(f->c.launch.offset_b, c->launch.offset_b);
    cr_assert_str_eq(f->c.kernel, c->kernel);
    cr_assert_eq(f->c.seed, c->seed);
    cr_assert_eq(f->c.index, c->index);
    cr_assert_eq(f->c.family, c->family);
    cr_assert_eq(f->meta.verdict, m->verdict);
    if (c->type == DF_I32)
        cr_assert_eq(f->meta.iresult, m->iresult);
    else
        cr_assert_eq(memcmp(&f->meta.result, &m->result, 8), 0);
    cr_assert_eq(memcmp(&f->meta.reference, &m->reference, 8), 0);
    size_t bytes = (size_t)c->n * df_type_size(c->type);
    cr_assert_not_null(f->c.a, "a decoded case always has vectors");
    cr_assert_not_null(f->c.b);
    if (bytes == 0)
        return;
    cr_assert_eq(memcmp(f->c.a, c->a, bytes), 0, "a differs bitwise");
    cr_assert_eq(memcmp(f->c.b, c->b, bytes), 0, "b differs bitwise");
}

static void round_trip(const df_case *c, const df_case_meta *m)
{
    uint8_t *buf;
    size_t len;
    cr_assert_eq(df_corpus_encode(c, m, &buf, &len), 0);
    cr_assert_eq(len, 128 + 2 * c->n * df_type_size(c->type));
    df_case_file f;
    char msg[200];
    cr_assert_eq(df_corpus_decode(buf, len, &f, msg, sizeof msg),
                 DF_CORPUS_OK, "%s", msg);
    assert_same_case(&f, c, m);
    df_case_file_free(&f);
    free(buf);
}

static float f32_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double f64_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

Test(corpus, encode_is_byte_exact_little_endian_for_pinned_case)
{
    df_case c = pinned_case();
    uint8_t *buf;
    size_t len;
    cr_assert_eq(df_corpus_encode(&c, &pinned_meta, &buf, &len), 0);
    cr_assert_eq(len, sizeof pinned);
    for (size_t i = 0; i < len; i++)
        cr_assert_eq(buf[i], pinned[i], "byte %zu is 0x%02x, want 0x%02x", i,
                     buf[i], pinned[i]);
    free(buf);
}

Test(corpus, decode_of_pinned_bytes_gives_every_field)
{
    df_case_file f;
    char msg[200];
    cr_assert_eq(df_corpus_decode(pinned, sizeof pinned, &f, msg, sizeof msg),
                 DF_CORPUS_OK, "%s", msg);
    df_case c = pinned_case();
    assert_same_case(&f, &c, &pinned_meta);
    cr_assert_eq(((const float *)f.c.a)[0], 1.0f);
    cr_assert_eq(((const float *)f.c.b)[0], -2.0f);
    df_case_file_free(&f);
    cr_assert_null(f.data);
}

Test(corpus, round_trip_f32_keeps_nan_negzero_subnormal_bits)
{
    const float a[] = {f32_bits(0x7fc01234u), -0.0f, f32_bits(1u),
                       f32_bits(0x807fffffu), INFINITY, FLT_MAX, 1.5f};
    const float b[] = {f32_bits(0xffa00001u), 0.0f, -INFINITY, FLT_MIN,
                       f32_bits(0x80000001u), -3.25f, f32_bits(0x7f800001u)};
    df_case c = {.type = DF_F32, .n = 7, .a = a, .b = b,
                 .launch = {.block = 1024, .grid = 0xfffffffeu,
                            .offset_a = 0xffffffffu, .offset_b = 3},
                 .kernel = "atomic-block", .seed = UINT64_MAX, .index = 1ull << 40,
                 .family = 65535};
    df_case_meta m = {.verdict = 5, .result = f64_bits(0xfff8000000000abcull),
                      .reference = -0.0};
    round_trip(&c, &m);
}

Test(corpus, round_trip_f64_keeps_every_bit)
{
    const double a[] = {f64_bits(0x7ff0000000000001ull), -0.0,
                        f64_bits(1ull), DBL_MAX, 0.1};
    const double b[] = {-INFINITY, f64_bits(0x800fffffffffffffull), DBL_MIN,
                        -1e300, f64_bits(0xfff8000000000000ull)};
    df_case c = {.type = DF_F64, .n = 5, .a = a, .b = b,
                 .launch = {.block = 32}, .seed = 42, .index = 54, .family = 2};
    df_case_meta m = {.verdict = 1, .result = 1e-310, .reference = 3.0};
    round_trip(&c, &m);
}

Test(corpus, round_trip_i32_keeps_values_and_int64_result)
{
    const int32_t a[] = {INT32_MIN, -1, 0, INT32_MAX};
    const int32_t b[] = {INT32_MAX, 1, -7, INT32_MIN};
    df_case c = {.type = DF_I32, .n = 4, .a = a, .b = b,
                 .kernel = "int-atomic", .seed = 9, .index = 3, .family = 1};
    df_case_meta m = {.verdict = 3, .iresult = INT64_MIN + 5, .reference = -42.0};
    round_trip(&c, &m);
}

Test(corpus, round_trip_empty_case_is_header_only)
{
    df_case c = {.type = DF_F64, .n = 0};
    df_case_meta m = {0};
    round_trip(&c, &m);
}

Test(corpus, encode_refuses_fields_the_format_cannot_hold)
{
    float v[1] = {1};
    uint8_t *buf = NULL;
    size_t len = 0;
    df_case c = {.type = (df_type)9, .n = 1, .a = v, .b = v};
    errno = 0;
    cr_assert_eq(df_corpus_encode(&c, NULL, &buf, &len), -1);
    cr_assert_eq(errno, EINVAL);
    c.type = DF_F32;
    memset(c.kernel, 'k', sizeof c.kernel); /* no NUL */
    cr_assert_eq(df_corpus_encode(&c, NULL, &buf, &len), -1);
    c.kernel[0] = '\0';
    c.family = 70000; /* the field is 16 bits */
    cr_assert_eq(df_corpus_encode(&c, NULL, &buf, &len), -1);
    c.family = 0;
    c.n = DF_CORPUS_MAX_N + 1;
    cr_assert_eq(df_corpus_encode(&c, NULL, &buf, &len), -1);
    cr_assert_null(buf);
}

Test(corpus, sha1_known_answers)
{
    char hex[41];
    df_sha1_hex((const uint8_t *)"abc", 3, hex);
    cr_assert_str_eq(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    df_sha1_hex((const uint8_t *)"", 0, hex);
    cr_assert_str_eq(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

Test(corpus, strerror_names_every_code_distinctly)
{
    for (int i = DF_CORPUS_OK; i <= DF_CORPUS_E_NOMEM; i++)
        for (int j = i + 1; j <= DF_CORPUS_E_NOMEM; j++)
            cr_assert_str_neq(df_corpus_strerror((df_corpus_err)i),
                              df_corpus_strerror((df_corpus_err)j));
    cr_assert_str_eq(df_corpus_strerror(DF_CORPUS_E_CHECKSUM),
                     "checksum mismatch");
}

/* ---- each reader error ------------------------------------------------ */

Test(corpus, shorter_than_header_is_truncated)
{
    char msg[200];
    decode_expect(pinned, 127, DF_CORPUS_E_TRUNCATED, msg);
    assert_has(msg, "127 bytes");
    decode_expect(pinned, 0, DF_CORPUS_E_TRUNCATED, msg);
}

Test(corpus, file_cut_in_the_vectors_is_a_size_error_with_both_sizes)
{
    char msg[200];
    decode_expect(pinned, 132, DF_CORPUS_E_SIZE, msg);
    assert_has(msg, "file is 132 bytes but n=1 of f32 needs 136");
}

Test(corpus, wrong_magic_is_rejected)
{
    uint8_t *p = pinned_copy();
    p[6] = 'X';
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_MAGIC, msg);
    assert_has(msg, "magic");
    free(p);
}

Test(corpus, unknown_version_names_both_versions)
{
    uint8_t *p = pinned_copy();
    p[8] = 7;
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_VERSION, msg);
    assert_has(msg, "unknown version 7 (this dotfuzz reads 1..5)");
    free(p);
}

Test(corpus, bad_header_size_is_a_header_error)
{
    uint8_t *p = pinned_copy();
    p[10] = 64;
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_HEADER, msg);
    assert_has(msg, "header size field is 64");
    free(p);
}

Test(corpus, nonzero_reserved_byte_is_a_header_error)
{
    char msg[200];
    const size_t where[] = {36, 39, 112, 127};
    for (size_t i = 0; i < 4; i++) {
        uint8_t *p = pinned_copy();
        p[where[i]] = 1;
        reseal(p, sizeof pinned);
        decode_expect(p, sizeof pinned, DF_CORPUS_E_HEADER, msg);
        assert_has(msg, "reserved");
        free(p);
    }
}

Test(corpus, verdict_byte_out_of_range_is_a_header_error)
{
    uint8_t *p = pinned_copy();
    p[17] = 200;
    reseal(p, sizeof pinned);
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_HEADER, msg);
    assert_has(msg, "verdict 200");
    free(p);
}

Test(corpus, unknown_element_type_is_rejected)
{
    uint8_t *p = pinned_copy();
    p[16] = 9;
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_TYPE, msg);
    assert_has(msg, "type 9");
    p[16] = 0;
    decode_expect(p, sizeof pinned, DF_CORPUS_E_TYPE, msg);
    free(p);
}

Test(corpus, extra_byte_is_a_size_error)
{
    uint8_t p[sizeof pinned + 1];
    memcpy(p, pinned, sizeof pinned);
    p[sizeof pinned] = 0;
    char msg[200];
    decode_expect(p, sizeof p, DF_CORPUS_E_SIZE, msg);
    assert_has(msg, "file is 137 bytes but n=1 of f32 needs 136");
}

Test(corpus, f64_type_byte_on_f32_sized_file_is_a_size_error)
{
    uint8_t *p = pinned_copy();
    p[16] = DF_F64; /* the same n now needs 16 more bytes */
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_SIZE, msg);
    assert_has(msg, "n=1 of f64 needs 144");
    free(p);
}

Test(corpus, flipped_payload_byte_fails_the_checksum)
{
    uint8_t *p = pinned_copy();
    p[133] ^= 0x01; /* inside b[0] */
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_CHECKSUM, msg);
    assert_has(msg, "!= recorded 0xf365c188");
    p[133] ^= 0x01;
    p[50] ^= 0x80; /* inside the seed: the header is covered too */
    decode_expect(p, sizeof pinned, DF_CORPUS_E_CHECKSUM, msg);
    free(p);
}

static void set_kernel_field(uint8_t *p, const char *bytes, size_t n)
{
    memset(p + 64, 0, 32);
    memcpy(p + 64, bytes, n);
    reseal(p, sizeof pinned);
}

Test(corpus, unknown_kernel_name_is_rejected)
{
    uint8_t *p = pinned_copy();
    set_kernel_field(p, "foo", 3);
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_KERNEL, msg);
    assert_has(msg, "unknown kernel 'foo'");
    free(p);
}

Test(corpus, kernel_of_the_wrong_type_is_rejected)
{
    uint8_t *p = pinned_copy();
    set_kernel_field(p, "int-atomic", 10);
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_KERNEL, msg);
    assert_has(msg, "kernel 'int-atomic' takes i32, file has f32");
    free(p);
}

Test(corpus, unterminated_kernel_name_is_rejected)
{
    uint8_t *p = pinned_copy();
    set_kernel_field(p, "atomic-blockatomic-blockatomic-b", 32);
    char msg[200];
    decode_expect(p, sizeof pinned, DF_CORPUS_E_KERNEL, msg);
    assert_has(msg, "not NUL-terminated within 32 bytes");
    free(p);
}

Test(corpus, nonprintable_or_unpadded_kernel_name_is_rejected)
{
    uint8_t *p = pinned_copy();
    char msg[200];
    set_kernel_field(p, "atomic\x01" "block", 12);
    decode_expect(p, sizeof pinned, DF_CORPUS_E_KERNEL, msg);
    assert_has(msg, "byte 6 is 0x01");
    set_kernel_field(p, "atomic-block\0x", 14);
    decode_expect(p, sizeof pinned, DF_CORPUS_E_KERNEL, msg);
    assert_has(msg, "NUL-padded");
    free(p);
}

Test(corpus, empty_kernel_name_means_any_kernel)
{
    uint8_t *p = pinned_copy();
    set_kernel_field(p, "", 0);
    df_case_file f;
    char msg[200];
    cr_assert_eq(df_corpus_decode(p, sizeof pinned, &f, msg, sizeof msg),
                 DF_CORPUS_OK, "%s", msg);
    cr_assert_str_eq(f.c.kernel, "");
    df_case_file_free(&f);
    free(p);
}

Test(corpus, huge_n_in_small_buffer_is_a_size_error)
{
    char msg[200];
    uint8_t *p = pinned_copy();
    put_le(p + 40, (uint64_t)1 << 32, 8);
    reseal(p, sizeof pinned);
    decode_expect(p, sizeof pinned, DF_CORPUS_E_SIZE, msg);
    assert_has(msg, "n=4294967296 of f32 needs 34359738496");
    put_le(p + 40, UINT64_MAX, 8); /* 2 n size would wrap */
    reseal(p, sizeof pinned);
    decode_expect(p, sizeof pinned, DF_CORPUS_E_SIZE, msg);
    assert_has(msg, "exceeds the limit");
    free(p);
}

/* A huge case's header (--huge: n in [2^31 + 1, 2^31 + 2^26]) is read
 * whole: n past 2^31 in 64 bits, the size it needs (16.5 GiB of f32 at
 * most, 33 GiB of f64) computed without wrapping, so a file of that size
 * would pass on to its checksum; here only the header is there. */
Test(corpus, huge_case_header_asks_for_its_whole_size)
{
    static const struct { uint64_t n; uint8_t type; const char *want; } cases[] = {
        {((uint64_t)1 << 31) + 1, 1, "n=2147483649 of f32 needs 17179869320"},
        {((uint64_t)1 << 31) + ((uint64_t)1 << 26), 1, "n=2214592512 of f32 needs 17716740224"},
        {((uint64_t)1 << 31) + 1, 2, "n=2147483649 of f64 needs 34359738512"},
        {((uint64_t)1 << 31) + ((uint64_t)1 << 26), 2, "n=2214592512 of f64 needs 35433480320"},
    };
    char msg[200];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *p = pinned_copy();
        put_le(p + 40, cases[i].n, 8);
        p[16] = cases[i].type;
        reseal(p, DF_CORPUS_HEADER);
        decode_expect(p, DF_CORPUS_HEADER, DF_CORPUS_E_SIZE, msg);
        assert_has(msg, cases[i].want);
        assert_has(msg, "file is 128 bytes");
        free(p);
    }
}

/* ---- files ------------------------------------------------------------ */

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *make_tmpdir(void)
{
    char *d = strdup("/tmp/dotfuzz-corpus-XXXXXX");
    cr_assert_not_null(mkdtemp(d), "mkdtemp: %s", strerror(errno));
    return d;
}

static void write_plain(const char *path, const uint8_t *buf, size_t len)
{
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(buf, 1, len, fp), len);
    cr_assert_eq(fclose(fp), 0);
}

/* Names in dir, sorted, joined by ' '. */
static void list_dir(const char *dir, char *out, size_t out_len)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    cr_assert_geq(n, 0, "scandir %s: %s", dir, strerror(errno));
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            if (out[0])
                strncat(out, " ", out_len - strlen(out) - 1);
            strncat(out, names[i]->d_name, out_len - strlen(out) - 1);
        }
        free(names[i]);
    }
    free(names);
}

Test(corpus, read_of_written_file_gives_the_case)
{
    char *d = make_tmpdir(), path[256], msg[200];
    snprintf(path, sizeof path, "%s/case", d);
    write_plain(path, pinned, sizeof pinned);
    df_case_file f;
    cr_assert_eq(df_corpus_read(path, &f, msg, sizeof msg), DF_CORPUS_OK,
                 "%s", msg);
    df_case c = pinned_case();
    assert_same_case(&f, &c, &pinned_meta);
    df_case_file_free(&f);
    rm_tree(d);
    free(d);
}

Test(corpus, read_of_file_cut_in_the_vectors_is_a_size_error)
{
    char *d = make_tmpdir(), path[256], msg[200];
    snprintf(path, sizeof path, "%s/cut", d);
    write_plain(path, pinned, 130);
    df_case_file f;
    cr_assert_eq(df_corpus_read(path, &f, msg, sizeof msg), DF_CORPUS_E_SIZE);
    assert_has(msg, "file is 130 bytes but n=1 of f32 needs 136");
    rm_tree(d);
    free(d);
}

Test(corpus, read_of_directory_is_an_io_error)
{
    char *d = make_tmpdir(), msg[200];
    df_case_file f;
    cr_assert_eq(df_corpus_read(d, &f, msg, sizeof msg), DF_CORPUS_E_IO);
    assert_has(msg, "directory");
    rm_tree(d);
    free(d);
}

Test(corpus, read_of_missing_file_is_an_io_error)
{
    char *d = make_tmpdir(), path[256], msg[200];
    snprintf(path, sizeof path, "%s/absent", d);
    df_case_file f;
    cr_assert_eq(df_corpus_read(path, &f, msg, sizeof msg), DF_CORPUS_E_IO);
    assert_has(msg, strerror(ENOENT));
    rm_tree(d);
    free(d);
}

/* Virtual memory in use now, from /proc/self/statm (pages). */
static uint64_t vm_bytes(void)
{
    unsigned long long pages = 0;
    FILE *fp = fopen("/proc/self/statm", "r");
    cr_assert_not_null(fp);
    cr_assert_eq(fscanf(fp, "%llu", &pages), 1);
    fclose(fp);
    return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A 128-byte file claiming n = 2^32 doubles (64 GiB). Under an address
 * space limit of 256 MiB more than in use, a reader that allocated from n
 * would fail with NOMEM (or crash) instead of reporting SIZE. */
Test(corpus, read_of_huge_n_small_file_allocates_nothing_large)
{
    char *d = make_tmpdir(), path[256], msg[200];
    uint8_t p[128];
    memcpy(p, pinned, 128);
    p[16] = DF_F64;
    put_le(p + 40, DF_CORPUS_MAX_N, 8);
    reseal(p, sizeof p);
    snprintf(path, sizeof path, "%s/huge", d);
    write_plain(path, p, sizeof p);
    struct rlimit rl = {.rlim_cur = vm_bytes() + (256u << 20)};
    rl.rlim_max = RLIM_INFINITY;
    cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0, "%s", strerror(errno));
    df_case_file f;
    df_corpus_err e = df_corpus_read(path, &f, msg, sizeof msg);
    rl.rlim_cur = RLIM_INFINITY;
    setrlimit(RLIMIT_AS, &rl);
    cr_assert_eq(e, DF_CORPUS_E_SIZE, "%d: %s", e, msg);
    assert_has(msg, "file is 128 bytes but n=4294967296 of f64 needs 68719476864");
    rm_tree(d);
    free(d);
}

Test(corpus, store_names_by_sha1_dedups_and_leaves_no_temp)
{
    char *d = make_tmpdir(), dir[256], path[512], path2[512], hex[41],
         expect[512], listing[512], msg[200];
    snprintf(dir, sizeof dir, "%s/corpus/regression", d); /* missing parents */
    df_sha1_hex(pinned, sizeof pinned, hex);
    snprintf(expect, sizeof expect, "%s/%s", dir, hex);

    int is_new = -1;
    cr_assert_eq(df_corpus_store(dir, NULL, pinned, sizeof pinned, path, sizeof path,
                                 &is_new), 0, "%s", strerror(errno));
    cr_assert_eq(is_new, 1);
    cr_assert_str_eq(path, expect);

    cr_assert_eq(df_corpus_store(dir, NULL, pinned, sizeof pinned, path2,
                                 sizeof path2, &is_new), 0);
    cr_assert_eq(is_new, 0, "second store of the same bytes is a duplicate");
    cr_assert_str_eq(path2, expect);

    list_dir(dir, listing, sizeof listing);
    cr_assert_str_eq(listing, hex, "directory holds exactly the case");

    df_case_file f;
    cr_assert_eq(df_corpus_read(path, &f, msg, sizeof msg), DF_CORPUS_OK,
                 "%s", msg);
    df_case c = pinned_case();
    assert_same_case(&f, &c, &pinned_meta);
    df_case_file_free(&f);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644, "mode %o", st.st_mode & 0777);
    rm_tree(d);
    free(d);
}

Test(corpus, store_under_a_regular_file_fails_with_enotdir)
{
    char *d = make_tmpdir(), dir[256];
    snprintf(dir, sizeof dir, "%s/file", d);
    write_plain(dir, pinned, 1);
    int is_new = -1;
    errno = 0;
    cr_assert_eq(df_corpus_store(dir, NULL, pinned, sizeof pinned, NULL, 0, &is_new),
                 -1);
    cr_assert_eq(errno, ENOTDIR, "errno %d (%s)", errno, strerror(errno));
    cr_assert_eq(is_new, 0);
    rm_tree(d);
    free(d);
}

Test(corpus, atomic_write_replaces_contents_and_leaves_no_temp)
{
    char *d = make_tmpdir(), path[256], listing[256];
    snprintf(path, sizeof path, "%s/stats", d);
    write_plain(path, (const uint8_t *)"old contents", 12);
    cr_assert_eq(df_write_file_atomic(path, (const uint8_t *)"new", 3), 0);
    char got[16] = {0};
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp);
    cr_assert_eq(fread(got, 1, sizeof got, fp), 3);
    fclose(fp);
    cr_assert_str_eq(got, "new");
    list_dir(d, listing, sizeof listing);
    cr_assert_str_eq(listing, "stats");
    rm_tree(d);
    free(d);
}

Test(corpus, failed_atomic_write_removes_temp_and_keeps_errno)
{
    char *d = make_tmpdir(), target[256], inner[300], listing[256];
    /* rename() cannot replace a non-empty directory: the last step fails. */
    snprintf(target, sizeof target, "%s/target", d);
    cr_assert_eq(mkdir(target, 0755), 0);
    snprintf(inner, sizeof inner, "%s/keep", target);
    write_plain(inner, pinned, 4);
    errno = 0;
    cr_assert_eq(df_write_file_atomic(target, pinned, sizeof pinned), -1);
    cr_assert(errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST,
              "errno %d (%s)", errno, strerror(errno));
    list_dir(d, listing, sizeof listing);
    cr_assert_str_eq(listing, "target", "temp file left behind: %s", listing);
    rm_tree(d);
    free(d);
}

Test(corpus, atomic_write_into_missing_directory_fails_with_enoent)
{
    char *d = make_tmpdir(), path[256];
    snprintf(path, sizeof path, "%s/no/such/file", d);
    errno = 0;
    cr_assert_eq(df_write_file_atomic(path, pinned, sizeof pinned), -1);
    cr_assert_eq(errno, ENOENT);
    rm_tree(d);
    free(d);
}
