/* util.c — the small helpers every layer shares (util.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/outcome.h"
#include "fuzz/util.h"

df_outcome df_outcome_worst(df_outcome a, df_outcome b)
{
    /* a bug outranks an input error: replay's exit status says "still
     * failing" first (README, Exit codes) */
    static const int rank[] = {0, 3, 2, 1};
    return rank[a] >= rank[b] ? a : b;
}

/* Whether s is a decimal number as the CLI takes it: digits, at most one
 * '.', an exponent (e or E, an optional sign, digits); a sign only where
 * allow_sign says; then nothing, or one of the unit letters in units (no
 * blanks, no 0x, no inf). */
static int decimal_text(const char *s, int allow_sign, const char *units)
{
    const char *p = s;
    if (allow_sign && (*p == '-' || *p == '+'))
        p++;
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p == '.') {
        size_t frac = strspn(p + 1, "0123456789");
        digits += frac;
        p += 1 + frac;
    }
    if (digits == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        size_t exp = strspn(p, "0123456789");
        if (exp == 0)
            return 0;
        p += exp;
    }
    return *p == '\0' || (strchr(units, *p) && p[1] == '\0');
}

int df_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !(*s >= '0' && *s <= '9'))
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10, end++;
    else if (*end == 'M')
        shift = 20, end++;
    else if (*end == 'G')
        shift = 30, end++;
    if (*end)
        return -1;
    if (shift && v > (~0ULL >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int df_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    if (!s || !decimal_text(s, 1, ""))
        return -1;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int df_parse_duration(const char *s, double *seconds)
{
    char *end;
    errno = 0;
    if (!s || !decimal_text(s, 0, "smh"))
        return -1;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return -1;
    double unit = 1;
    if (*end == 's')
        end++;
    else if (*end == 'm')
        unit = 60, end++;
    else if (*end == 'h')
        unit = 3600, end++;
    if (*end)
        return -1;
    *seconds = v * unit;
    return 0;
}

int df_sampled_at(uint32_t every, uint64_t seed, uint64_t index)
{
    if (!every)
        return 0;
    uint64_t z = index + seed * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z % every == 0;
}

uint64_t df_fresh_seed(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&s, sizeof s, 1, f) != 1)
            s = 0;
        fclose(f);
    }
    return s ^ ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
}

int df_grow(void *array, size_t *cap, size_t n, size_t size)
{
    void **p = array;
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    void *q = realloc(*p, nc * size);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

void df_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "dotfuzz %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see dotfuzz %s --help)\n", cmd);
}
