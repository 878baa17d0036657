/* cmd_bandwidth.c — `dotfuzz bandwidth`: parses its options, runs the
 * measurement of fuzz/backend/bandwidth.h and prints one line per kernel (and
 * per device copy) with the time, GB/s, fraction of peak and the ratio to
 * cuBLAS of the same type, as an aligned table or in Markdown.
 * Outcomes: clean; bug when a kernel failed or gave a wrong result; usage
 * for a bad option; env without CUDA, without a GPU or out of memory.
 * argv[0] is the subcommand's name ("bandwidth"); options start at argv[1].
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/bandwidth.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"

static const char bandwidth_usage[] =
    "usage: dotfuzz bandwidth [--n N] [--reps R] [--peak-gbps X] [--markdown]\n"
    "\n"
    "Times every kernel that has a GPU launcher on N random non-zero elements\n"
    "per vector (f32 kernels on floats, f64 on doubles, i32 on int32), beside\n"
    "cuBLAS and a device-to-device copy, in one run on GPU 0. Kernels with a\n"
    "free grid run a persistent grid (SMs x resident blocks per SM); the\n"
    "others their default launch. Each row is the median of R timed runs\n"
    "after 2 warm-ups (slow kernels get fewer runs: about 2 s per row).\n"
    "GB/s counts the 2*n*esize bytes a dot reads.\n"
    "\n"
    "  --n N          elements per vector: a number or 2^K (default 2^28)\n"
    "  --reps R       timed runs per row, 1..1000 (default 20)\n"
    "  --peak-gbps X  peak memory bandwidth in GB/s (default: 2 x memory\n"
    "                 clock x bus width / 8, read off the device)\n"
    "  --markdown     print a Markdown table\n"
    "  -h, --help     this text\n";

typedef struct bw_cli {
    df_bw_opts opts;
    int markdown;
    int help;
} bw_cli;

/* A length: decimal digits or 2^K, K in [0, 62]. */
static int parse_n(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (strncmp(s, "2^", 2) == 0) {
        unsigned long k = strtoul(s + 2, &end, 10);
        if (end == s + 2 || *end || errno || k > 62)
            return -1;
        *out = UINT64_C(1) << k;
        return 0;
    }
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v == 0)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int parse_reps(const char *s, unsigned *out)
{
    char *end = NULL;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || errno || v < 1 || v > DF_BW_MAX_REPS)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int parse_gbps(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v <= 0.0)
        return -1;
    *out = v;
    return 0;
}

/* Returns 0, or -1 after saying on stderr what is wrong. */
static int parse_args(int argc, char **argv, bw_cli *cli)
{
    memset(cli, 0, sizeof *cli);
    df_bw_opts_default(&cli->opts);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int missing = 0, bad = 0;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            cli->help = 1;
            return 0;
        } else if (strcmp(arg, "--markdown") == 0) {
            cli->markdown = 1;
            continue;
        } else if ((v = df_option_value(argc, argv, &i, "--n", &missing))) {
            bad = parse_n(v, &cli->opts.n);
        } else if ((v = df_option_value(argc, argv, &i, "--reps", &missing))) {
            bad = parse_reps(v, &cli->opts.reps);
        } else if ((v = df_option_value(argc, argv, &i, "--peak-gbps", &missing))) {
            bad = parse_gbps(v, &cli->opts.peak_gbps);
        } else if (!missing) {
            fprintf(stderr, "dotfuzz bandwidth: unknown option '%s' (see --help)\n",
                    arg);
            return -1;
        }
        if (missing) {
            fprintf(stderr, "dotfuzz bandwidth: %s needs a value (see --help)\n", arg);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "dotfuzz bandwidth: bad value '%s' for %.*s (see --help)\n",
                    v, (int)strcspn(arg, "="), arg);
            return -1;
        }
    }
    return 0;
}

static void progress(void *arg, const char *what)
{
    (void)arg;
    fprintf(stderr, "dotfuzz bandwidth: %s ...\n", what);
}

static void print_header(const df_bw_report *rep)
{
    printf("dotfuzz bandwidth: %s (sm_%d%d, %d SMs), driver %d.%d, runtime %d.%d\n",
           rep->device, rep->cc_major, rep->cc_minor, rep->sm_count,
           rep->driver_version / 1000, rep->driver_version % 1000 / 10,
           rep->runtime_version / 1000, rep->runtime_version % 1000 / 10);
    printf("n = %" PRIu64 " per vector; a dot reads 2*n*esize bytes (%.3g GB for "
           "f32 and i32, %.3g GB for f64); device-copy copies as many and "
           "counts them read + write\n",
           rep->n, 8e-9 * (double)rep->n, 16e-9 * (double)rep->n);
    if (rep->peak_from_option)
        printf("peak %.1f GB/s (--peak-gbps)\n", rep->peak_gbps);
    else
        printf("peak %.1f GB/s = 2 x %.0f MHz x %d-bit bus / 8 (device attributes)\n",
               rep->peak_gbps, rep->mem_clock_khz / 1e3, rep->bus_width_bits);
    printf("median of %u timed runs after %u warm-ups (fewer runs where reps says "
           "so: slow kernels, about %.0f s per row)\n\n",
           rep->reps, DF_BW_WARMUPS, DF_BW_DEFAULT_BUDGET_S);
}

/* The numeric cells of a row: "-" where there is no number. */
typedef struct bw_cells {
    char reps[16], ms[24], gbps[24], peak[16], ratio[16];
} bw_cells;

static void row_cells(const df_bw_row *r, bw_cells *c)
{
    strcpy(c->reps, "-");
    strcpy(c->ms, "-");
    strcpy(c->gbps, "-");
    strcpy(c->peak, "-");
    strcpy(c->ratio, "-");
    if (r->reps == 0)
        return;
    snprintf(c->reps, sizeof c->reps, "%u", r->reps);
    snprintf(c->ms, sizeof c->ms, "%.4f", r->ms);
    snprintf(c->gbps, sizeof c->gbps, "%.1f", r->gbps);
    if (r->frac_peak > 0.0)
        snprintf(c->peak, sizeof c->peak, "%.1f%%", 100.0 * r->frac_peak);
    if (r->vs_cublas > 0.0)
        snprintf(c->ratio, sizeof c->ratio, "%.3fx", r->vs_cublas);
}

static void print_table(const df_bw_report *rep)
{
    int wname = (int)strlen("kernel"), wlaunch = (int)strlen("launch");
    for (size_t i = 0; i < rep->nrows; i++) {
        int ln = (int)strlen(rep->rows[i].name), ll = (int)strlen(rep->rows[i].launch);
        wname = ln > wname ? ln : wname;
        wlaunch = ll > wlaunch ? ll : wlaunch;
    }
    printf("%-*s  %-4s  %-*s  %5s  %10s  %9s  %6s  %9s  %s\n", wname, "kernel",
           "type", wlaunch, "launch", "reps", "median ms", "GB/s", "%peak",
           "vs cuBLAS", "result");
    for (size_t i = 0; i < rep->nrows; i++) {
        const df_bw_row *r = &rep->rows[i];
        bw_cells c;
        row_cells(r, &c);
        printf("%-*s  %-4s  %-*s  %5s  %10s  %9s  %6s  %9s  %s\n", wname, r->name,
               df_type_name(r->type), wlaunch, r->launch, c.reps, c.ms, c.gbps,
               c.peak, c.ratio, r->result);
    }
}

/* Markdown cells may not hold '|'. */
static void print_md_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

static void print_markdown(const df_bw_report *rep)
{
    printf("| kernel | type | launch | reps | median ms | GB/s | %% peak | "
           "vs cuBLAS | result |\n");
    printf("|---|---|---|--:|--:|--:|--:|--:|---|\n");
    for (size_t i = 0; i < rep->nrows; i++) {
        const df_bw_row *r = &rep->rows[i];
        bw_cells c;
        row_cells(r, &c);
        printf("| %s | %s | ", r->name, df_type_name(r->type));
        print_md_cell(r->launch);
        printf(" | %s | %s | %s | %s | %s | ", c.reps, c.ms, c.gbps, c.peak, c.ratio);
        print_md_cell(r->result);
        printf(" |\n");
    }
}

df_outcome df_cmd_bandwidth(int argc, char **argv)
{
    bw_cli cli;
    if (parse_args(argc, argv, &cli) != 0)
        return DF_OUTCOME_USAGE;
    if (cli.help) {
        fputs(bandwidth_usage, stdout);
        return DF_OUTCOME_CLEAN;
    }
    cli.opts.progress = progress;
    df_bw_report rep;
    char err[256] = "";
    int rc = df_bandwidth_measure(&cli.opts, &rep, err, sizeof err);
    if (rep.nrows > 0) {
        print_header(&rep);
        if (cli.markdown)
            print_markdown(&rep);
        else
            print_table(&rep);
        fflush(stdout);
    }
    int failed = 0;
    for (size_t i = 0; i < rep.nrows; i++)
        failed |= rep.rows[i].failed;
    df_bw_report_free(&rep);
    if (rc != 0) {
        fprintf(stderr, "dotfuzz bandwidth: %s\n", err);
        return DF_OUTCOME_ENV;
    }
    if (rep.aborted)
        fprintf(stderr, "dotfuzz bandwidth: stopped early: a kernel left the "
                        "CUDA context unusable\n");
    if (failed || rep.aborted) {
        fprintf(stderr, "dotfuzz bandwidth: some kernel failed or gave a wrong "
                        "result (see the result column)\n");
        return DF_OUTCOME_BUG;
    }
    return DF_OUTCOME_CLEAN;
}
