/* cli.c — the outcome-to-exit-code mapping (the only one), the option
 * parsers the subcommands share, their array growth and their fresh seed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "backend.h"
#include "cli_util.h"
#include "files.h"
#include "pool.h"

int df_exit_code(df_outcome o)
{
    switch (o) {
    case DF_OUTCOME_CLEAN: return 0;
    case DF_OUTCOME_BUG: return 1;
    case DF_OUTCOME_USAGE: return 2;
    case DF_OUTCOME_ENV: return 3;
    }
    return 3;
}

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

int df_parse_tol_cli(const char *cmd, const char *arg, double *tol)
{
    if (df_parse_double(arg, tol) == 0 && *tol >= 0)
        return 0;
    df_usage_error(cmd, "invalid --tol '%s'", arg);
    return -1;
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

void df_note_threads(const char *cmd, uint64_t threads)
{
    unsigned cpus = df_usable_cpus();
    if (threads > cpus)
        fprintf(stderr, "dotfuzz %s: --threads %llu is more than the %u CPU(s) this process "
                        "may use: the threads share them\n", cmd, (unsigned long long)threads,
                cpus);
}

int df_output_ok_cli(const char *cmd, const char *opt, const char *path)
{
    char msg[200];
    if (df_output_ok(path, msg, sizeof msg) == 0)
        return 0;
    fprintf(stderr, "dotfuzz %s: %s %s: %s\n", cmd, opt, path, msg);
    return -1;
}

int df_dir_writable_cli(const char *cmd, const char *opt, const char *dir)
{
    /* dir, or the nearest of its parents that exists (dir is made there
     * when the first file is saved), must take a new entry */
    char at[4096];
    snprintf(at, sizeof at, "%s", *dir ? dir : ".");
    struct stat st;
    while (stat(at, &st) != 0 && errno == ENOENT) {
        char *slash = strrchr(at, '/');
        if (!slash)
            snprintf(at, sizeof at, ".");
        else
            slash[slash == at] = 0; /* "/x" leaves "/" */
    }
    int ok = stat(at, &st) == 0 && S_ISDIR(st.st_mode);
    if (ok) { /* a file made and removed: permissions, read-only mounts, root alike */
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/.dotfuzz-probe-XXXXXX", at);
        int fd = mkstemp(probe);
        ok = fd >= 0;
        if (ok) {
            close(fd);
            unlink(probe);
        }
    }
    if (!ok)
        fprintf(stderr, "dotfuzz %s: %s %s cannot be written (%s: %s)\n", cmd, opt, dir, at,
                errno ? strerror(errno) : "not a directory");
    return ok ? 0 : -1;
}

void df_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "dotfuzz %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see dotfuzz %s --help)\n", cmd);
}

const char *df_option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t len = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, len) != 0)
        return NULL;
    if (arg[len] == '=')
        return arg + len + 1;
    if (arg[len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

df_outcome df_open_backend_cli(const char *cmd, const char *name, df_backend **b)
{
    char err[256];
    if (df_backend_open(name, b, err, sizeof err) == 0)
        return DF_OUTCOME_CLEAN;
    fprintf(stderr, "dotfuzz %s: %s\n", cmd, err);
    return strncmp(err, "unknown backend", 15) == 0 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
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
