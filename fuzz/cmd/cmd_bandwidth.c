/* cmd_bandwidth.c — `dotfuzz bandwidth`: parses its options, runs the
 * measurement of fuzz/backend/bandwidth.h and prints one line per kernel (and
 * per device copy) with its length, time, GB/s, fraction of peak and the
 * ratio to cuBLAS of the same type and length, as an aligned table, in
 * Markdown or as one JSON object (df_bw_print_json).
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
#include "fuzz/json.h"

static const char bandwidth_usage[] =
    "usage: dotfuzz bandwidth [--n N] [--reps R] [--peak-gbps X] [--markdown | --json]\n"
    "\n"
    "Times every kernel that has a GPU launcher on N random elements per\n"
    "vector of its type (f32, f64, i32, f16, bf16, e4m3, e5m2), beside cuBLAS\n"
    "of that type (cublas-sdot, -ddot, -hdot, -bfdot, cublaslt-e4m3-promoted;\n"
    "i32 and e5m2 have none) and a device-to-device copy, in one run on GPU 0.\n"
    "A kernel whose max_n is below N runs at its max_n (the tensor-core dots:\n"
    "65536), and its type's copy and cuBLAS run at that n too, so vs cuBLAS\n"
    "compares rows of one type and one n (the n column); i32 kernels keep N,\n"
    "timed only. Kernels with a free grid run a persistent grid (SMs x\n"
    "resident blocks per SM); the others their default launch. Each row is\n"
    "the median of R timed runs after 2 warm-ups (slow kernels get fewer\n"
    "runs: about 2 s per row). GB/s counts the 2*n*esize bytes a dot reads;\n"
    "at 65536 elements they sit in L2 and launch latency dominates.\n"
    "\n"
    "  --n N          elements per vector: a number or 2^K (default 2^28)\n"
    "  --reps R       timed runs per row, 1..1000 (default 20)\n"
    "  --peak-gbps X  peak memory bandwidth in GB/s (default: 2 x memory\n"
    "                 clock x bus width / 8, read off the device)\n"
    "  --markdown     print a Markdown table\n"
    "  --json         print one JSON object (docs/output-formats.md); without a GPU\n"
    "                 it says why nothing ran\n"
    "  -h, --help     this text\n";

typedef struct bw_cli {
    df_bw_opts opts;
    int markdown, json;
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
        } else if (strcmp(arg, "--json") == 0) {
            cli->json = 1;
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
    if (cli->markdown && cli->json) {
        fprintf(stderr, "dotfuzz bandwidth: --markdown and --json are two outputs: give one\n");
        return -1;
    }
    return 0;
}

static void progress(void *arg, const char *what)
{
    (void)arg;
    fprintf(stderr, "dotfuzz bandwidth: %s ...\n", what);
}

/* "2.15 GB for f32 and i32, 4.29 GB for f64": what a dot of each type
 * with rows at the run's n reads, types of one size together, in the
 * rows' order. */
static void print_dot_bytes(FILE *f, const df_bw_report *rep)
{
    df_type seen[DF_TYPE_MAX];
    size_t nseen = 0;
    for (size_t i = 0; i < rep->nrows; i++) {
        size_t j = 0;
        while (j < nseen && seen[j] != rep->rows[i].type)
            j++;
        if (rep->rows[i].n == rep->n && j == nseen && nseen < DF_TYPE_MAX)
            seen[nseen++] = rep->rows[i].type;
    }
    for (size_t i = 0, groups = 0; i < nseen; i++) {
        size_t esize = df_type_size(seen[i]), before = 0, count = 0;
        while (before < i && df_type_size(seen[before]) != esize)
            before++;
        if (before < i)
            continue; /* said with the first type of its size */
        fprintf(f, "%s%.3g GB for ", groups++ ? ", " : "",
                2e-9 * (double)esize * (double)rep->n);
        for (size_t j = i; j < nseen; j++)
            count += df_type_size(seen[j]) == esize;
        for (size_t j = i, k = 0; j < nseen; j++)
            if (df_type_size(seen[j]) == esize) {
                fprintf(f, "%s%s", k == 0 ? "" : k + 1 == count ? " and " : ", ",
                        df_type_name(seen[j]));
                k++;
            }
    }
}

static void print_header(FILE *f, const df_bw_report *rep)
{
    fprintf(f, "dotfuzz bandwidth: %s (sm_%d%d, %d SMs), driver %d.%d, runtime %d.%d\n",
            rep->device, rep->cc_major, rep->cc_minor, rep->sm_count,
            rep->driver_version / 1000, rep->driver_version % 1000 / 10,
            rep->runtime_version / 1000, rep->runtime_version % 1000 / 10);
    fprintf(f, "n = %" PRIu64 " per vector; a dot reads 2*n*esize bytes (", rep->n);
    print_dot_bytes(f, rep);
    fprintf(f, "); device-copy copies as many and counts them read + write\n");
    int shorter = 0;
    for (size_t i = 0; i < rep->nrows; i++)
        shorter |= rep->rows[i].n < rep->n;
    if (shorter)
        fprintf(f, "a kernel whose max_n is below n runs at its max_n, beside its type's "
                "device-copy and cuBLAS at that n (the n column), so vs cuBLAS compares "
                "rows of one type and one n; a short row's data sit in L2 and launch "
                "latency dominates its time\n");
    if (rep->peak_from_option)
        fprintf(f, "peak %.1f GB/s (--peak-gbps)\n", rep->peak_gbps);
    else
        fprintf(f, "peak %.1f GB/s = 2 x %.0f MHz x %d-bit bus / 8 (device attributes)\n",
                rep->peak_gbps, rep->mem_clock_khz / 1e3, rep->bus_width_bits);
    fprintf(f, "median of %u timed runs after %u warm-ups (fewer runs where reps says "
            "so: slow kernels, about %.0f s per row)\n\n",
            rep->reps, DF_BW_WARMUPS, DF_BW_DEFAULT_BUDGET_S);
}

/* The numeric cells of a row: "-" where there is no number. */
typedef struct bw_cells {
    char n[24], reps[16], ms[24], gbps[24], peak[16], ratio[16];
} bw_cells;

static void row_cells(const df_bw_row *r, bw_cells *c)
{
    snprintf(c->n, sizeof c->n, "%" PRIu64, r->n);
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

static void print_table(FILE *f, const df_bw_report *rep)
{
    int wname = (int)strlen("kernel"), wlaunch = (int)strlen("launch"), wn = 1;
    for (size_t i = 0; i < rep->nrows; i++) {
        bw_cells c;
        row_cells(&rep->rows[i], &c);
        int ln = (int)strlen(rep->rows[i].name), ll = (int)strlen(rep->rows[i].launch);
        int lnn = (int)strlen(c.n);
        wname = ln > wname ? ln : wname;
        wlaunch = ll > wlaunch ? ll : wlaunch;
        wn = lnn > wn ? lnn : wn;
    }
    fprintf(f, "%-*s  %-4s  %*s  %-*s  %5s  %10s  %9s  %6s  %9s  %s\n", wname, "kernel",
            "type", wn, "n", wlaunch, "launch", "reps", "median ms", "GB/s", "%peak",
            "vs cuBLAS", "result");
    for (size_t i = 0; i < rep->nrows; i++) {
        const df_bw_row *r = &rep->rows[i];
        bw_cells c;
        row_cells(r, &c);
        fprintf(f, "%-*s  %-4s  %*s  %-*s  %5s  %10s  %9s  %6s  %9s  %s\n", wname, r->name,
                df_type_name(r->type), wn, c.n, wlaunch, r->launch, c.reps, c.ms,
                c.gbps, c.peak, c.ratio, r->result);
    }
}

/* Markdown cells may not hold '|'. */
static void print_md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s, f);
    }
}

static void print_markdown(FILE *f, const df_bw_report *rep)
{
    fprintf(f, "| kernel | type | n | launch | reps | median ms | GB/s | %% peak | "
            "vs cuBLAS | result |\n");
    fprintf(f, "|---|---|--:|---|--:|--:|--:|--:|--:|---|\n");
    for (size_t i = 0; i < rep->nrows; i++) {
        const df_bw_row *r = &rep->rows[i];
        bw_cells c;
        row_cells(r, &c);
        fprintf(f, "| %s | %s | %s | ", r->name, df_type_name(r->type), c.n);
        print_md_cell(f, r->launch);
        fprintf(f, " | %s | %s | %s | %s | %s | ", c.reps, c.ms, c.gbps, c.peak, c.ratio);
        print_md_cell(f, r->result);
        fprintf(f, " |\n");
    }
}

void df_bw_print(FILE *f, const df_bw_report *rep, int markdown)
{
    print_header(f, rep);
    if (markdown)
        print_markdown(f, rep);
    else
        print_table(f, rep);
}

/* "key":x, or "key":null where the row has no such number (x <= 0). */
static void json_positive(FILE *f, const char *key, double x)
{
    if (x > 0)
        df_json_member(f, key, x);
    else
        fprintf(f, "\"%s\":null", key);
}

static void print_json_row(FILE *f, const df_bw_row *r)
{
    fputs("{\"kernel\":", f);
    df_json_str(f, r->name);
    fprintf(f, ",\"copy\":%s,\"type\":\"%s\",\"n\":%" PRIu64 ",\"launch\":",
            r->is_copy ? "true" : "false", df_type_name(r->type), r->n);
    df_json_str(f, r->launch);
    fprintf(f, ",\"ran\":%s,\"reps\":%u,", r->reps ? "true" : "false", r->reps);
    json_positive(f, "median_ms", r->reps ? r->ms : 0);
    fputc(',', f);
    json_positive(f, "bytes", r->reps ? r->bytes : 0);
    fputc(',', f);
    json_positive(f, "gbps", r->reps ? r->gbps : 0);
    fputc(',', f);
    json_positive(f, "frac_peak", r->reps ? r->frac_peak : 0);
    fputc(',', f);
    json_positive(f, "vs_cublas", r->reps ? r->vs_cublas : 0);
    fprintf(f, ",\"failed\":%s,\"result\":", r->failed ? "true" : "false");
    df_json_str(f, r->result);
    fputc('}', f);
}

void df_bw_print_json(FILE *f, const df_bw_report *rep, const char *err)
{
    fputc('{', f);
    df_json_stamp(f);
    size_t ran = 0;
    for (size_t i = 0; i < rep->nrows; i++)
        ran += rep->rows[i].reps > 0;
    fprintf(f, ",\"command\":\"bandwidth\",\"rows_run\":%zu,\"rows_not_run\":%zu,\"error\":",
            ran, rep->nrows - ran);
    df_json_str(f, err && *err ? err : NULL);
    fputs(",\"device\":", f);
    if (rep->device[0]) {
        fputs("{\"name\":", f);
        df_json_str(f, rep->device);
        fprintf(f, ",\"cc\":\"%d.%d\",\"sm_count\":%d,\"driver_version\":%d,"
                   "\"runtime_version\":%d,\"mem_clock_khz\":%d,\"bus_width_bits\":%d,",
                rep->cc_major, rep->cc_minor, rep->sm_count, rep->driver_version,
                rep->runtime_version, rep->mem_clock_khz, rep->bus_width_bits);
        json_positive(f, "peak_gbps", rep->peak_gbps);
        fprintf(f, ",\"peak_from\":\"%s\"}", rep->peak_from_option ? "option" : "device");
    } else {
        fputs("null", f);
    }
    fprintf(f, ",\"n\":%" PRIu64 ",\"reps\":%u,\"warmups\":%u,\"aborted\":%s,\"rows\":[",
            rep->n, rep->reps, DF_BW_WARMUPS, rep->aborted ? "true" : "false");
    for (size_t i = 0; i < rep->nrows; i++) {
        if (i)
            fputc(',', f);
        print_json_row(f, &rep->rows[i]);
    }
    fputs("]}\n", f);
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
    if (cli.json) {
        if (rep.n == 0) { /* stopped before the report took the options */
            rep.n = cli.opts.n;
            rep.reps = cli.opts.reps;
        }
        df_bw_print_json(stdout, &rep, rc != 0 ? err : NULL);
        fflush(stdout);
    } else if (rep.nrows > 0) {
        df_bw_print(stdout, &rep, cli.markdown);
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
