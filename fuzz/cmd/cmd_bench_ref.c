/* cmd_bench_ref.c — `dotfuzz bench-ref`: times the CPU references of
 * reference/ (exact superaccumulator dot, exact integer dot, Kahan, G) on
 * one core, over random data of several families, and prints one aligned
 * line per reference, type and family with its median time and elements/s.
 * The process pins itself to the CPU it starts on, so every row runs on the
 * same core. Each row's results are checked against each other: the exact
 * dot must equal the integer dot on integer data, and Kahan must lie within
 * its own error bound of the exact dot; a failed check is a bug.
 * Outcomes: clean; bug when a check fails; usage for a bad option; env when
 * the vectors cannot be allocated.
 * argv[0] is the subcommand's name ("bench-ref"); options start at argv[1].
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/exact.h"
#include "reference/reference.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/pcg32.h"
#include "fuzz/run/run.h"

static const char bench_ref_usage[] =
    "usage: dotfuzz bench-ref [--n N] [--reps R] [--type f32|f64|i32|all]\n"
    "\n"
    "Times the CPU references on one core (the process pins itself to the CPU\n"
    "it starts on) over N random elements per vector:\n"
    "  exact      the exact dot, correctly rounded (reference/exact.h)\n"
    "  exact-int  the exact integer dot (integer data only)\n"
    "  kahan      the Kahan-compensated dot with its error bound\n"
    "  G          sum |a_i b_i|\n"
    "on each data family:\n"
    "  uniform    floats uniform in [-50, 50]; i32: integers in [-50, 50]\n"
    "  wide-exp   random sign and significand, exponent uniform in [-63, 63]\n"
    "             (f32) or [-480, 480] (f64), so products and sums stay\n"
    "             normal and finite;\n"
    "             i32: uniform over all of int32\n"
    "  int-small  integers in [-50, 50] stored as f32 or f64\n"
    "Each row is the median of R timed calls after one warm-up call;\n"
    "elements/s counts the n elements of one vector per call. The exact dot\n"
    "must equal the integer dot on integer data and Kahan must lie within its\n"
    "bound of the exact dot, or the run ends with status 1.\n"
    "\n"
    "  --n N        elements per vector: a number (k, M, G suffixes) or 2^K\n"
    "               (default 2^24)\n"
    "  --reps R     timed calls per row, 1..1000 (default 5)\n"
    "  --type T     f32, f64, i32 or all (default all)\n"
    "  -h, --help   this text\n";

#define MAX_REPS 1000
#define MAX_N (UINT64_C(1) << 32)

typedef struct bench_cli {
    uint64_t n;
    unsigned reps;
    int types[3]; /* DF_F32, DF_F64, DF_I32 selected */
    int help;
} bench_cli;

/* ---- options ---------------------------------------------------------- */

/* A length: 2^K (K in [0, 32]) or a number with an optional k/M/G suffix. */
static int parse_n(const char *s, uint64_t *out)
{
    uint64_t v;
    if (strncmp(s, "2^", 2) == 0) {
        char *end = NULL;
        errno = 0;
        unsigned long k = strtoul(s + 2, &end, 10);
        if (end == s + 2 || *end || errno || k > 32)
            return -1;
        v = UINT64_C(1) << k;
    } else if (df_parse_u64(s, &v) != 0) {
        return -1;
    }
    if (v == 0 || v > MAX_N)
        return -1;
    *out = v;
    return 0;
}

static int parse_reps(const char *s, unsigned *out)
{
    uint64_t v;
    if (df_parse_u64(s, &v) != 0 || v < 1 || v > MAX_REPS)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int parse_types(const char *s, int *types)
{
    df_type t;
    memset(types, 0, 3 * sizeof *types);
    if (strcmp(s, "all") == 0) {
        types[0] = types[1] = types[2] = 1;
        return 0;
    }
    if (df_type_parse(s, &t) != 0)
        return -1;
    types[t - DF_F32] = 1;
    return 0;
}

/* Returns 0, or -1 after saying on stderr what is wrong. */
static int parse_args(int argc, char **argv, bench_cli *cli)
{
    memset(cli, 0, sizeof *cli);
    cli->n = UINT64_C(1) << 24;
    cli->reps = 5;
    cli->types[0] = cli->types[1] = cli->types[2] = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int missing = 0, bad = 0;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            cli->help = 1;
            return 0;
        } else if ((v = df_option_value(argc, argv, &i, "--n", &missing))) {
            bad = parse_n(v, &cli->n);
        } else if ((v = df_option_value(argc, argv, &i, "--reps", &missing))) {
            bad = parse_reps(v, &cli->reps);
        } else if ((v = df_option_value(argc, argv, &i, "--type", &missing))) {
            bad = parse_types(v, cli->types);
        } else if (!missing) {
            df_usage_error("bench-ref", "unknown option '%s'", arg);
            return -1;
        }
        if (missing) {
            df_usage_error("bench-ref", "%s needs a value", arg);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "dotfuzz bench-ref: bad value '%s' for %.*s (see dotfuzz "
                    "bench-ref --help)\n", v, (int)strcspn(arg, "="), arg);
            return -1;
        }
    }
    return 0;
}

/* ---- data --------------------------------------------------------------- */

enum { FAM_UNIFORM, FAM_WIDE, FAM_INT_SMALL, FAM_COUNT };
static const char *const family_names[FAM_COUNT] = {"uniform", "wide-exp", "int-small"};

/* Random sign and significand, exponent uniform in [-63, 63] (f32) or
 * [-480, 480] (f64): no product or sum of up to 2^32 of them leaves the
 * normal range, so Kahan and G run at full speed and stay finite. */
static float wide_f32(df_pcg32 *r)
{
    uint32_t e = (uint32_t)df_pcg32_range(r, 127 - 63, 127 + 63);
    uint32_t u = (df_pcg32_next(r) & UINT32_C(0x807fffff)) | e << 23;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static double wide_f64(df_pcg32 *r)
{
    uint64_t e = (uint64_t)df_pcg32_range(r, 1023 - 480, 1023 + 480);
    uint64_t hi = df_pcg32_next(r), lo = df_pcg32_next(r);
    uint64_t u = ((hi << 32 | lo) & UINT64_C(0x800fffffffffffff)) | e << 52;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static void fill_one(df_pcg32 *r, df_type t, int fam, void *v, uint64_t i)
{
    switch (t) {
    case DF_F32: {
        float *x = v;
        if (fam == FAM_UNIFORM)
            x[i] = df_pcg32_float(r) * 100.0f - 50.0f;
        else if (fam == FAM_WIDE)
            x[i] = wide_f32(r);
        else
            x[i] = (float)df_pcg32_range(r, -50, 50);
        break;
    }
    case DF_F64: {
        double *x = v;
        if (fam == FAM_UNIFORM)
            x[i] = df_pcg32_double(r) * 100.0 - 50.0;
        else if (fam == FAM_WIDE)
            x[i] = wide_f64(r);
        else
            x[i] = (double)df_pcg32_range(r, -50, 50);
        break;
    }
    case DF_I32: {
        int32_t *x = v;
        x[i] = fam == FAM_WIDE ? (int32_t)df_pcg32_next(r)
                               : (int32_t)df_pcg32_range(r, -50, 50);
        break;
    }
    default: /* the bench times the f32, f64 and i32 references */
        break;
    }
}

static void fill(df_type t, int fam, void *a, void *b, uint64_t n)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 42, (uint64_t)t * FAM_COUNT + (uint64_t)fam);
    for (uint64_t i = 0; i < n; i++) {
        fill_one(&r, t, fam, a, i);
        fill_one(&r, t, fam, b, i);
    }
}

/* ---- timing --------------------------------------------------------------- */

enum { REF_EXACT, REF_EXACT_INT, REF_KAHAN, REF_G, REF_COUNT };
static const char *const ref_names[REF_COUNT] = {"exact", "exact-int", "kahan", "G"};

/* What the last call of each reference returned, for the checks. */
typedef struct ref_results {
    df_exact exact;
    df_i128 exact_int;
    double kahan, kahan_err, G;
} ref_results;

/* One call; returns the reference's value (hi for the exact dots). */
static double call_ref(int ref, df_type t, const void *a, const void *b,
                       uint64_t n, ref_results *res)
{
    double hi = 0.0, lo = 0.0;
    switch (ref) {
    case REF_EXACT:
        df_exact_dot(t, a, b, n, &res->exact);
        return res->exact.hi;
    case REF_EXACT_INT:
        df_exact_dot_int(t, a, b, n, &res->exact_int);
        df_i128_to_double2(res->exact_int, &hi, &lo);
        return hi;
    case REF_KAHAN:
        res->kahan = df_kahan_dot(t, a, b, n, &res->kahan_err);
        return res->kahan;
    default:
        res->G = df_abs_dot(t, a, b, n);
        return res->G;
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median seconds of reps timed calls after one warm-up call. */
static double time_ref(int ref, df_type t, const void *a, const void *b,
                       uint64_t n, unsigned reps, ref_results *res,
                       double *value)
{
    double times[MAX_REPS];
    *value = call_ref(ref, t, a, b, n, res);
    for (unsigned k = 0; k < reps; k++) {
        double t0 = df_now();
        *value = call_ref(ref, t, a, b, n, res);
        times[k] = df_now() - t0;
    }
    qsort(times, reps, sizeof times[0], cmp_double);
    return reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
}

/* ---- checks and output ---------------------------------------------------- */

static int check_rows(df_type t, int fam, const ref_results *res, int have_int)
{
    int ok = 1;
    if (have_int) {
        double hi, lo;
        df_i128_to_double2(res->exact_int, &hi, &lo);
        if (hi != res->exact.hi || lo != res->exact.lo) {
            fprintf(stderr, "BUG    bench-ref %s %s: exact %a%+a differs from exact-int %a%+a\n",
                    df_type_name(t), family_names[fam], res->exact.hi, res->exact.lo, hi, lo);
            ok = 0;
        }
    }
    double err = df_exact_abs_err(&res->exact, res->kahan);
    if (!(err <= res->kahan_err)) {
        fprintf(stderr, "BUG    bench-ref %s %s: |kahan - exact| = %a exceeds Kahan's bound %a\n",
                df_type_name(t), family_names[fam], err, res->kahan_err);
        ok = 0;
    }
    return ok;
}

static void print_row(int ref, df_type t, int fam, uint64_t n, double sec, double value)
{
    printf("%-9s  %-4s  %-9s  %12.6f  %12.4g  %24.17g\n", ref_names[ref], df_type_name(t),
           family_names[fam], 1e3 * sec, (double)n / sec, value);
}

/* Every row of one type; returns 0 when all checks pass. */
static int bench_type(df_type t, const bench_cli *cli, void *a, void *b)
{
    int ok = 1;
    for (int fam = 0; fam < FAM_COUNT; fam++) {
        if (t == DF_I32 && fam == FAM_INT_SMALL)
            continue; /* the same data as uniform */
        int have_int = t == DF_I32 || fam == FAM_INT_SMALL;
        ref_results res;
        fill(t, fam, a, b, cli->n);
        for (int ref = 0; ref < REF_COUNT; ref++) {
            if (ref == REF_EXACT_INT && !have_int)
                continue;
            double value;
            double sec = time_ref(ref, t, a, b, cli->n, cli->reps, &res, &value);
            print_row(ref, t, fam, cli->n, sec, value);
            fflush(stdout);
        }
        ok &= check_rows(t, fam, &res, have_int);
    }
    return ok;
}

/* Pins the process to the CPU it runs on; returns that CPU or -1. */
static int pin_to_current_cpu(void)
{
#ifdef __linux__
    int cpu = sched_getcpu();
    cpu_set_t set;
    if (cpu < 0)
        return -1;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
#else
    return -1;
#endif
}

df_outcome df_cmd_bench_ref(int argc, char **argv)
{
    bench_cli cli;
    if (parse_args(argc, argv, &cli) != 0)
        return DF_OUTCOME_USAGE;
    if (cli.help) {
        fputs(bench_ref_usage, stdout);
        return DF_OUTCOME_CLEAN;
    }
    size_t esize = cli.types[1] ? sizeof(double) : sizeof(float);
    void *a = malloc(cli.n * esize), *b = malloc(cli.n * esize);
    if (!a || !b) {
        fprintf(stderr, "dotfuzz bench-ref: cannot allocate 2 x %" PRIu64 " elements\n", cli.n);
        free(a);
        free(b);
        return DF_OUTCOME_ENV;
    }
    int cpu = pin_to_current_cpu();
    printf("dotfuzz bench-ref: n = %" PRIu64 " per vector, median of %u calls after 1 "
           "warm-up, ",
           cli.n, cli.reps);
    if (cpu >= 0)
        printf("one core (pinned to cpu %d)\n\n", cpu);
    else
        printf("one thread (not pinned)\n\n");
    printf("%-9s  %-4s  %-9s  %12s  %12s  %24s\n", "reference", "type", "family", "median ms",
           "elements/s", "result");
    int ok = 1;
    static const df_type types[3] = {DF_F32, DF_F64, DF_I32};
    for (int k = 0; k < 3; k++)
        if (cli.types[k])
            ok &= bench_type(types[k], &cli, a, b);
    free(a);
    free(b);
    return ok ? DF_OUTCOME_CLEAN : DF_OUTCOME_BUG;
}
