/* import.c — text files of numbers to a case (syntax and rounding rules in
 * import.h). Every value is either converted as the user meant it or
 * refused with the file, the line and the reason. */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"
#include "fuzz/files.h"
#include "fuzz/gen/generator.h"
#include "fuzz/import.h"
#include "kernels/blas.h"
#include "fuzz/lowp.h"

/* What a line is parsed as: the element type, and the "C" locale that makes
 * '.' the decimal point. */
typedef struct parse_ctx {
    df_type type;
    locale_t c_locale;
} parse_ctx;

/* A growing array of elements of one type, stored in that type. */
typedef struct vec_buf {
    uint8_t *p;
    uint64_t n;
    size_t cap; /* bytes */
} vec_buf;

/* IEEE binary formats, for the exactness test of hex floats. */
typedef struct fp_format {
    int64_t prec; /* significand bits, hidden bit included */
    int64_t emin; /* exponent of the smallest normal */
    int64_t emax; /* exponent of the largest finite */
} fp_format;

static const fp_format binary32 = {24, -126, 127};
static const fp_format binary64 = {53, -1022, 1023};

static void set_msg(char *msg, size_t msg_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
    if (!msg || msg_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    return tolower(c) - 'a' + 10;
}

static int bit_length4(int d) /* d in 1..15 */
{
    return d >= 8 ? 4 : d >= 4 ? 3 : d >= 2 ? 2 : 1;
}

static int trailing_zeros4(int d) /* d in 1..15 */
{
    int z = 0;
    while (!(d & 1)) {
        d >>= 1;
        z++;
    }
    return z;
}

/* Saturating decimal exponent: beyond 2^40 every format over/underflows. */
static int64_t parse_exp(const char *s)
{
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    int64_t e = 0;
    for (; isdigit((unsigned char)*s); s++)
        if (e < ((int64_t)1 << 40))
            e = e * 10 + (*s - '0');
    return neg ? -e : e;
}

/* Whether the hex float s (already accepted in full by strtod, sign and
 * "0x" included) is exactly representable in format f. The value is
 * M * 2^scale with M the hex digits read as an integer; it is exact when
 * its significant bits fit the precision and its lowest set bit is no
 * finer than the smallest subnormal. */
static int hex_float_is_exact(const char *s, const fp_format *f)
{
    if (*s == '+' || *s == '-')
        s++;
    s += 2; /* "0x" */
    int64_t frac_digits = 0, lead = -1, last = -1, count = 0;
    int lead_digit = 0, last_digit = 0, in_frac = 0;
    for (; isxdigit((unsigned char)*s) || *s == '.'; s++) {
        if (*s == '.') {
            in_frac = 1;
            continue;
        }
        int d = hex_value(*s);
        if (d && lead < 0) {
            lead = count;
            lead_digit = d;
        }
        if (d) {
            last = count;
            last_digit = d;
        }
        frac_digits += in_frac;
        count++;
    }
    if (lead < 0)
        return 1; /* zero */
    int64_t exp = (*s == 'p' || *s == 'P') ? parse_exp(s + 1) : 0;
    int64_t scale = exp + 4 * (count - 1 - last) - 4 * frac_digits;
    int64_t lsb = scale + trailing_zeros4(last_digit);
    int64_t msb = scale + 4 * (last - lead) + bit_length4(lead_digit) - 1;
    return msb <= f->emax && lsb >= f->emin - (f->prec - 1) &&
           msb - lsb + 1 <= f->prec;
}

static int is_hex_token(const char *t)
{
    if (*t == '+' || *t == '-')
        t++;
    return t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
}

/* Parses one float token into dst (a float or a double) in locale c_locale
 * ("C"). why gets the reason for a refusal. */
static int parse_float(const char *tok, df_type t, locale_t c_locale,
                       void *dst, char *why, size_t why_len)
{
    char *end;
    errno = 0;
    float f = 0;
    double d = 0;
    if (t == DF_F32)
        d = f = strtof_l(tok, &end, c_locale);
    else
        d = strtod_l(tok, &end, c_locale);
    int range = errno == ERANGE;
    const char *tn = df_type_name(t);
    if (end == tok || *end != '\0') {
        set_msg(why, why_len, "'%.60s' is not a number", tok);
        return -1;
    }
    if (range && isinf(d)) {
        set_msg(why, why_len, "'%.60s' overflows %s", tok, tn);
        return -1;
    }
    if (range && d == 0) {
        set_msg(why, why_len, "'%.60s' underflows to zero in %s", tok, tn);
        return -1;
    }
    if (is_hex_token(tok) &&
        !hex_float_is_exact(tok, t == DF_F32 ? &binary32 : &binary64)) {
        set_msg(why, why_len,
                "hex float '%.60s' is not exactly representable in %s", tok,
                tn);
        return -1;
    }
    if (t == DF_F32)
        memcpy(dst, &f, sizeof f);
    else
        memcpy(dst, &d, sizeof d);
    return 0;
}

/* ---- low-precision types: exact values only ---------------------------- */

/* Significant digits a decimal may have and still be a value of a
 * low-precision type (bf16's smallest normal binade, m 2^-133 with m below
 * 256, has up to 96; its largest value 39); one with more is none of
 * them. */
#define DEC_DIGITS 160

/* A decimal's magnitude as its significant digits (no leading or trailing
 * zeros; n 0 for zero) and the power of ten of the first one. */
typedef struct dec_num {
    char dig[DEC_DIGITS];
    int n;
    int64_t exp;
    int longer; /* more than DEC_DIGITS significant digits */
} dec_num;

/* Reads the decimal s ([sign] digits [. digits] [e|E exponent], as strtod
 * accepted it, or as printf's %e writes one) into out. */
static void dec_read(const char *s, dec_num *out)
{
    memset(out, 0, sizeof *out);
    if (*s == '+' || *s == '-')
        s++;
    int64_t point = -1, pos = 0, first = -1, zeros = 0;
    for (; isdigit((unsigned char)*s) || *s == '.'; s++) {
        if (*s == '.') {
            point = pos;
            continue;
        }
        if (first < 0 && *s == '0') {
            pos++;
            continue;
        }
        if (first < 0)
            first = pos;
        pos++;
        if (*s == '0') { /* kept only when a nonzero digit follows */
            zeros++;
            continue;
        }
        for (; zeros > 0; zeros--)
            if (out->n < DEC_DIGITS)
                out->dig[out->n++] = '0';
            else
                out->longer = 1;
        if (out->n < DEC_DIGITS)
            out->dig[out->n++] = *s;
        else
            out->longer = 1;
    }
    if (first < 0)
        return; /* zero */
    if (point < 0)
        point = pos;
    int64_t e = (*s == 'e' || *s == 'E') ? parse_exp(s + 1) : 0;
    out->exp = e + point - first - 1;
}

/* Whether the decimal token tok is exactly the double d (d is what strtod
 * made of it): d's exact expansion, printed in the "C" locale, has the
 * same digits. */
static int dec_is_exactly(const char *tok, double d, locale_t c_locale)
{
    char buf[DEC_DIGITS + 40];
    locale_t old = uselocale(c_locale);
    snprintf(buf, sizeof buf, "%.*e", DEC_DIGITS + 2, fabs(d));
    uselocale(old);
    dec_num x, y;
    dec_read(tok, &x);
    dec_read(buf, &y);
    return !x.longer && !y.longer && x.n == y.n && (x.n == 0 || x.exp == y.exp) &&
           memcmp(x.dig, y.dig, (size_t)x.n) == 0;
}

/* v as text a reader may type back: its exact decimal when that is short,
 * else its hex float (exact too). */
static void exact_text(double v, locale_t c_locale, char *buf, size_t len)
{
    char e[DEC_DIGITS + 40];
    locale_t old = uselocale(c_locale);
    snprintf(e, sizeof e, "%.*e", DEC_DIGITS + 2, fabs(v));
    dec_num x;
    dec_read(e, &x);
    int prec = x.exp >= x.n && x.exp < 24 ? (int)x.exp + 1 : x.n; /* 15360, not 1.536e+04 */
    if (x.n <= 24)
        snprintf(buf, len, "%.*g", prec ? prec : 1, v);
    else
        snprintf(buf, len, "%a", v);
    uselocale(old);
}

/* Why d (from token tok) is no value of lowp format f: the nearest, or the
 * two it lies between when d is halfway (a token that is not exactly d may
 * then be nearer either). */
static void lowp_inexact(const char *tok, df_lowp f, double d, const char *tn,
                         locale_t c_locale, char *why, size_t why_len)
{
    double r = df_lowp_round(f, d, 0), o = 2 * d - r; /* o: r reflected through d */
    char rs[64], os[64];
    exact_text(r, c_locale, rs, sizeof rs);
    if (r != d && df_lowp_round(f, o, 0) == o) {
        exact_text(o, c_locale, os, sizeof os);
        set_msg(why, why_len, "'%.60s' is not exactly representable in %s (between %s and %s)",
                tok, tn, r < o ? rs : os, r < o ? os : rs);
    } else {
        set_msg(why, why_len, "'%.60s' is not exactly representable in %s (nearest: %s)", tok,
                tn, rs);
    }
}

/* Parses one value of a low-precision type: a decimal or hex float that
 * is exactly one of its values, or inf/nan. */
static int parse_lowp(const char *tok, df_type t, locale_t c_locale, void *dst, char *why,
                      size_t why_len)
{
    df_type_facts fa = df_type_facts_of(t);
    df_lowp f = (df_lowp)fa.lowp;
    const char *tn = df_type_name(t);
    char *end;
    errno = 0;
    double d = strtod_l(tok, &end, c_locale);
    int range = errno == ERANGE;
    if (end == tok || *end != '\0') {
        set_msg(why, why_len, "'%.60s' is not a number", tok);
        return -1;
    }
    if (isinf(d) && !range && !df_lowp_shape_of(f).ieee) {
        set_msg(why, why_len, "'%.60s': %s has no infinity", tok, tn);
        return -1;
    }
    if (isfinite(d) || range) {
        if (!(fabs(d) <= fa.max)) {
            char mx[64];
            exact_text(fa.max, c_locale, mx, sizeof mx);
            set_msg(why, why_len, "'%.60s' overflows %s (largest finite %s)", tok, tn, mx);
            return -1;
        }
        int exact = df_lowp_round(f, d, 0) == d &&
                    (is_hex_token(tok) ? hex_float_is_exact(tok, &binary64)
                                       : dec_is_exactly(tok, d, c_locale));
        if (!exact) {
            lowp_inexact(tok, f, d, tn, c_locale, why, why_len);
            return -1;
        }
    }
    uint32_t bits = df_lowp_encode(f, d, 0); /* NaN: the canonical one, its sign kept */
    if (df_type_size(t) == 1)
        *(uint8_t *)dst = (uint8_t)bits;
    else
        memcpy(dst, &(uint16_t){(uint16_t)bits}, 2);
    return 0;
}

/* "bits:0xHEX": an element's bit pattern as stored, any type. */
static int parse_bits(const char *tok, df_type t, void *dst, char *why, size_t why_len)
{
    const char *h = tok + strlen(DF_IMPORT_BITS);
    size_t size = df_type_size(t);
    if (h[0] != '0' || (h[1] != 'x' && h[1] != 'X') || !isxdigit((unsigned char)h[2])) {
        set_msg(why, why_len, "'%.60s' is not a bit pattern (bits:0x followed by hex digits)",
                tok);
        return -1;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(h + 2, &end, 16);
    if (*end != '\0') {
        set_msg(why, why_len, "'%.60s' is not a bit pattern (bits:0x followed by hex digits)",
                tok);
        return -1;
    }
    if (errno == ERANGE || (size < 8 && v >> (8 * size))) {
        set_msg(why, why_len, "'%.60s' has more than the %zu bits of %s", tok, 8 * size,
                df_type_name(t));
        return -1;
    }
    switch (size) {
    case 1: *(uint8_t *)dst = (uint8_t)v; break;
    case 2: memcpy(dst, &(uint16_t){(uint16_t)v}, 2); break;
    case 4: memcpy(dst, &(uint32_t){(uint32_t)v}, 4); break;
    default: memcpy(dst, &(uint64_t){(uint64_t)v}, 8); break;
    }
    return 0;
}

static int parse_int32(const char *tok, void *dst, char *why, size_t why_len)
{
    char *end;
    errno = 0;
    long long v = strtoll(tok, &end, 10);
    if (end == tok || *end != '\0') {
        set_msg(why, why_len, "'%.60s' is not an integer (i32 takes whole numbers)",
                tok);
        return -1;
    }
    if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX) {
        set_msg(why, why_len, "'%.60s' is outside the int32 range", tok);
        return -1;
    }
    int32_t i = (int32_t)v;
    memcpy(dst, &i, sizeof i);
    return 0;
}

/* Room for one more element of width size, or -1. */
static int vec_reserve(vec_buf *v, size_t size)
{
    if (v->n * size + size <= v->cap)
        return 0;
    size_t ncap = v->cap ? v->cap * 2 : 1024;
    if (ncap < v->cap) {
        errno = ENOMEM;
        return -1;
    }
    uint8_t *np = realloc(v->p, ncap);
    if (!np)
        return -1;
    v->p = np;
    v->cap = ncap;
    return 0;
}

/* Trims whitespace in place; returns the first non-blank character. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        s[--len] = '\0';
    return s;
}

/* Handles one line: skips blanks and comments, else appends its number. */
static int take_line(char *line, size_t len, const parse_ctx *ctx, vec_buf *v,
                     char *why, size_t why_len)
{
    if (strlen(line) != len) {
        set_msg(why, why_len, "line contains a NUL byte");
        return -1;
    }
    char *tok = trim(line);
    if (*tok == '\0' || *tok == '#')
        return 0;
    if (v->n >= DF_CORPUS_MAX_N) {
        set_msg(why, why_len, "more than %llu numbers",
                (unsigned long long)DF_CORPUS_MAX_N);
        return -1;
    }
    size_t size = df_type_size(ctx->type);
    if (vec_reserve(v, size) != 0) {
        set_msg(why, why_len, "out of memory after %llu numbers",
                (unsigned long long)v->n);
        return -1;
    }
    uint8_t *dst = v->p + v->n * size;
    int rc;
    if (strncmp(tok, DF_IMPORT_BITS, strlen(DF_IMPORT_BITS)) == 0)
        rc = parse_bits(tok, ctx->type, dst, why, why_len);
    else if (ctx->type == DF_I32)
        rc = parse_int32(tok, dst, why, why_len);
    else if (df_type_is_lowp(ctx->type))
        rc = parse_lowp(tok, ctx->type, ctx->c_locale, dst, why, why_len);
    else
        rc = parse_float(tok, ctx->type, ctx->c_locale, dst, why, why_len);
    if (rc == 0)
        v->n++;
    return rc;
}

static int read_numbers(const char *path, const parse_ctx *ctx, vec_buf *v,
                        char *msg, size_t msg_len)
{
    char why_open[200];
    FILE *fp = df_fopen_regular(path, why_open, sizeof why_open);
    if (!fp) {
        set_msg(msg, msg_len, "%s: %s", path, why_open);
        return -1;
    }
    char *line = NULL, why[160];
    size_t cap = 0;
    ssize_t got;
    unsigned long long lineno = 0;
    int rc = 0;
    errno = 0;
    while (rc == 0 && (got = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if ((rc = take_line(line, (size_t)got, ctx, v, why, sizeof why)) != 0)
            set_msg(msg, msg_len, "%s:%llu: %s", path, lineno, why);
    }
    if (rc == 0 && ferror(fp)) {
        set_msg(msg, msg_len, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(fp);
    return rc;
}

static int check_kernel(const char *kernel, df_type type, char *msg,
                        size_t msg_len)
{
    if (!kernel || !*kernel)
        return 0;
    const df_kernel *k = df_kernel_find(kernel);
    if (!k) {
        set_msg(msg, msg_len, "unknown kernel '%.40s'", kernel);
        return -1;
    }
    if (k->elem != type) {
        set_msg(msg, msg_len, "kernel '%s' takes %s, not %s", kernel,
                df_type_name(k->elem), df_type_name(type));
        return -1;
    }
    if (strlen(kernel) >= DF_NAME_MAX) {
        set_msg(msg, msg_len, "kernel name '%s' is longer than %d characters",
                kernel, DF_NAME_MAX - 1);
        return -1;
    }
    return 0;
}

/* Moves a and b into one buffer, a then b, as df_case_file owns them. */
static int assemble(const vec_buf *a, const vec_buf *b, df_type type,
                    const char *kernel, df_case_file *out)
{
    size_t size = df_type_size(type);
    size_t bytes = (size_t)a->n * size;
    uint8_t *data = malloc(bytes ? 2 * bytes : 1);
    if (!data)
        return -1;
    if (bytes) {
        memcpy(data, a->p, bytes);
        memcpy(data + bytes, b->p, bytes);
    }
    out->data = data;
    out->c.type = type;
    out->c.n = a->n;
    out->c.a = data;
    out->c.b = data + bytes;
    out->c.family = DF_FAM_IMPORTED;
    if (kernel)
        snprintf(out->c.kernel, sizeof out->c.kernel, "%s", kernel);
    return 0;
}

int df_import_text(const char *path_a, const char *path_b, df_type type,
                   const char *kernel, df_case_file *out, char *msg,
                   size_t msg_len)
{
    memset(out, 0, sizeof *out);
    if (df_type_size(type) == 0) {
        set_msg(msg, msg_len, "unknown element type %d", (int)type);
        return -1;
    }
    if (check_kernel(kernel, type, msg, msg_len) != 0)
        return -1;
    parse_ctx ctx = {type, newlocale(LC_NUMERIC_MASK, "C", (locale_t)0)};
    if (ctx.c_locale == (locale_t)0) {
        set_msg(msg, msg_len, "cannot create the C locale: %s",
                strerror(errno));
        return -1;
    }
    vec_buf a = {0}, b = {0};
    int rc = read_numbers(path_a, &ctx, &a, msg, msg_len);
    if (rc == 0)
        rc = read_numbers(path_b, &ctx, &b, msg, msg_len);
    freelocale(ctx.c_locale);
    if (rc == 0 && a.n != b.n) {
        set_msg(msg, msg_len, "%s has %llu numbers, %s has %llu", path_a,
                (unsigned long long)a.n, path_b, (unsigned long long)b.n);
        rc = -1;
    }
    if (rc == 0 && (rc = assemble(&a, &b, type, kernel, out)) != 0)
        set_msg(msg, msg_len, "out of memory for %llu numbers",
                (unsigned long long)a.n);
    free(a.p);
    free(b.p);
    return rc;
}

int df_import_blas(df_case_file *out, int64_t n_arg, int32_t inc_a, int32_t inc_b, char *msg,
                   size_t msg_len)
{
    uint64_t n = n_arg > 0 ? (uint64_t)n_arg : 0, len = out->c.n;
    size_t es = df_type_size(out->c.type);
    const int32_t incs[2] = {inc_a, inc_b};
    const unsigned char *from[2] = {out->c.a, out->c.b};
    for (int v = 0; v < 2; v++)
        if (df_blas_footprint(n, incs[v]) > len) {
            set_msg(msg, msg_len, "n %lld at increment %d reads %llu elements of %c; its file has "
                    "%llu", (long long)n_arg, incs[v],
                    (unsigned long long)df_blas_footprint(n, incs[v]), "ab"[v],
                    (unsigned long long)len);
            return -1;
        }
    unsigned char *data = malloc(n ? 2 * n * es : 1);
    if (!data) {
        set_msg(msg, msg_len, "out of memory for %llu elements", (unsigned long long)n);
        return -1;
    }
    for (int v = 0; v < 2; v++)
        for (uint64_t i = 0; i < n; i++)
            memcpy(data + (v * n + i) * es, from[v] + df_blas_pos(i, n, incs[v]) * es, es);
    free(out->data);
    out->data = data;
    out->c.a = data;
    out->c.b = data + n * es;
    out->c.n = n;
    out->c.blas = (df_blas){.on = 1, .inc_a = inc_a, .inc_b = inc_b, .n_arg = n_arg};
    return 0;
}
