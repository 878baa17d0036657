/* json.c — JSON as dotfuzz writes it (json.h). */
#include <math.h>
#include <stdio.h>

#include "commit.h" /* DOTFUZZ_COMMIT, made by the Makefile */
#include "kernels/kernel.h"
#include "fuzz/json.h"

#define DOTFUZZ_RELEASE "0.2.0"

const char *df_version(void) { return DOTFUZZ_RELEASE " (commit " DOTFUZZ_COMMIT ")"; }

void df_json_stamp(FILE *f)
{
    fputs("\"dotfuzz_version\":", f);
    df_json_str(f, df_version());
    fprintf(f, ",\"schema_version\":%d", DF_SCHEMA_VERSION);
}

size_t df_utf8_len(const unsigned char *s)
{
    if (s[0] < 0xc2 || s[0] > 0xf4)
        return 0;
    size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
    /* no overlong forms, no surrogates, nothing past U+10FFFF */
    unsigned lo = s[0] == 0xe0 ? 0xa0 : s[0] == 0xf0 ? 0x90 : 0x80;
    unsigned hi = s[0] == 0xed ? 0x9f : s[0] == 0xf4 ? 0x8f : 0xbf;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

size_t df_utf8_put(FILE *f, const unsigned char *s)
{
    size_t n = df_utf8_len(s);
    if (n == 0) {
        fputc('?', f);
        return 1;
    }
    fwrite(s, 1, n, f);
    return n;
}

void df_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x80) {
            p += df_utf8_put(f, p) - 1;
        } else if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p);
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", *p);
        } else {
            fputc(*p, f);
        }
    }
    fputc('"', f);
}

void df_json_u64(FILE *f, uint64_t v) { fprintf(f, "\"%llu\"", (unsigned long long)v); }

void df_json_i64(FILE *f, int64_t v) { fprintf(f, "\"%lld\"", (long long)v); }

void df_json_member(FILE *f, const char *key, double x)
{
    if (isfinite(x)) {
        fprintf(f, "\"%s\":%.17g", key, x);
        return;
    }
    fprintf(f, "\"%s\":null,\"%s_class\":\"%s\"", key, key,
            isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
}

void df_json_fused(FILE *f, const df_kernel *k)
{
    const df_fused_model *m = k->fused;
    if (!m) {
        fputs("null", f);
        return;
    }
    fprintf(f,
            "{\"group\":%u,\"align_bits\":%d,\"out_bits\":%d,\"out_round\":\"%s\","
            "\"out_min_exp\":%d,\"out_max_exp\":%d,\"in_min_exp\":%d,\"chains\":%u}",
            m->group, m->align_bits, m->out_bits,
            m->out_round == DF_ROUND_ZERO ? "zero" : "nearest", m->out_min_exp, m->out_max_exp,
            m->in_min_exp, k->fused_chains ? k->fused_chains : 1u);
}
