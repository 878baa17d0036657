/* cmd_report.c — `dotfuzz report DIR`: reads a campaign directory (the
 * format of `dotfuzz run --out DIR`: campaign, fuzzer_stats, kernels.tsv,
 * profile.tsv, ratio_hist.tsv, plot_data, findings.jsonl) and writes
 * RDIR/report.md, a Markdown summary, with four plots made by gnuplot (a
 * child process) in PNG and SVG (report_plots.c). The .gp scripts and .dat
 * files stay in RDIR so that any plot can be remade or restyled by hand.
 *
 * The reader (campaign_dir.c) is defensive: the campaign may still be
 * running. Torn and unparsable lines are skipped and counted, and the
 * counts are in the report. A missing optional file is named in the
 * report and the rest goes on. Only DIR/campaign and DIR/fuzzer_stats are
 * required. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz/run/campaign_dir.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/cmd/report_plots.h"

#define PATH_CAP DF_CAMPAIGN_PATH_CAP
#define PATH_MARGIN 256 /* room left in a path for the names joined to DIR */

typedef struct report_opts {
    const char *dir, *out;
    uint64_t top;
    int no_plots;
} report_opts;

static void report_usage(FILE *f)
{
    fputs("usage: dotfuzz report DIR [OPTIONS]\n"
          "\n"
          "Summarises the campaign directory DIR (written by dotfuzz run --out DIR)\n"
          "into RDIR/report.md: the campaign, a per-kernel table, findings by verdict,\n"
          "kernel and rule, the worst cases and every crash and hang with their replay\n"
          "commands, and four plots made with gnuplot (PNG and SVG; the .gp and .dat\n"
          "files are kept: cd RDIR && gnuplot NAME.gp remakes one). Torn or unparsable\n"
          "lines are skipped and counted; missing optional files are named.\n"
          "\n"
          "  --out RDIR     where to write (default DIR/report; created if missing)\n"
          "  --top N        list the N worst cases by error ratio (default 10)\n"
          "  --no-plots     write report.md only (gnuplot not needed)\n"
          "  -h, --help     this text\n"
          "\n"
          "Prints one line per file written.\n"
          "exit status: 0 written, 2 DIR missing or not a campaign directory,\n"
          "3 RDIR not writable, or gnuplot missing or failing (report.md still written)\n",
          f);
}

static int parse_report_opts(int argc, char **argv, report_opts *o)
{
    enum { OPT_OUT = 256, OPT_TOP, OPT_NO_PLOTS };
    static const struct option longopts[] = {
        {"out", required_argument, 0, OPT_OUT}, {"top", required_argument, 0, OPT_TOP},
        {"no-plots", no_argument, 0, OPT_NO_PLOTS}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    *o = (report_opts){.top = 10};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': return 1;
        case OPT_OUT: o->out = optarg; break;
        case OPT_NO_PLOTS: o->no_plots = 1; break;
        case OPT_TOP:
            if (df_parse_u64(optarg, &o->top)) {
                df_usage_error("report", "invalid value '%s' for --top", optarg);
                return -1;
            }
            break;
        case ':': df_usage_error("report", "option %s needs a value", argv[optind - 1]); return -1;
        default: df_usage_error("report", "unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (argc - optind != 1) {
        df_usage_error("report", "%s", "needs exactly one campaign directory DIR");
        return -1;
    }
    o->dir = argv[optind];
    return 0;
}

/* ---- Markdown helpers ---- */

/* s in a table cell: '|' escaped, line breaks and other controls blanked. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if ((unsigned char)*s < 0x20)
            fputc(' ', f);
        else
            fputc(*s, f);
    }
}

/* s as an inline code span, wide enough for backticks inside it. */
static void md_code(FILE *f, const char *s)
{
    const char *fence = strchr(s, '`') ? "`` " : "`";
    fputs(fence, f);
    md_cell(f, s);
    fputs(strchr(s, '`') ? " ``" : "`", f);
}

/* The replay command of a finding: DIR as given, shell-quoted if needed. */
static void replay_cmd(char *buf, size_t cap, const char *dir, const char *file)
{
    char path[PATH_CAP];
    if (df_campaign_join(path, dir, file) != 0) {
        snprintf(buf, cap, "(path of %s too long to show)", file);
        return;
    }
    if (strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-=:,@%") ==
        strlen(path)) {
        snprintf(buf, cap, "dotfuzz replay %s", path);
        return;
    }
    size_t n = (size_t)snprintf(buf, cap, "dotfuzz replay '");
    for (const char *s = path; *s && n + 5 < cap; s++)
        n += (size_t)(*s == '\'' ? snprintf(buf + n, cap - n, "'\\''")
                                 : snprintf(buf + n, cap - n, "%c", *s));
    snprintf(buf + n, cap - n, "'");
}

static void fmt_g(char *buf, size_t cap, double v)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.6g", v);
}

static void write_campaign_section(FILE *f, const df_campaign_data *c)
{
    const df_kv *cp = &c->camp, *st = &c->stats;
    const char *na = "(not recorded)";
#define V(t, k) (df_kv_get((t), (k)) ? df_kv_get((t), (k)) : na)
    fputs("## Campaign\n\n| | |\n|---|---|\n", f);
    fprintf(f, "| seed | %s |\n", V(cp, "seed"));
    fprintf(f, "| backend | %s |\n", V(cp, "backend"));
    fprintf(f, "| kernels | ");
    for (size_t i = 0; i < c->nk; i++) {
        fputs(i ? ", " : "", f);
        md_cell(f, c->kernels[i]);
    }
    fprintf(f, "%s(%zu) |\n", c->nk ? " " : "", c->nk);
    fprintf(f, "| max n | %s |\n", V(cp, "max_n"));
    fprintf(f, "| family | %s |\n", V(cp, "family"));
    double rt;
    const char *rts = df_kv_get(st, "run_time");
    if (rts && df_campaign_num(rts, &rt) == 0 && isfinite(rt) && rt >= 0)
        fprintf(f, "| run time | %s s (%.0f h %02.0f min %02.0f s) |\n", rts, floor(rt / 3600),
                floor(fmod(rt, 3600) / 60), floor(fmod(rt, 60)));
    else
        fprintf(f, "| run time | %s |\n", V(st, "run_time"));
    fprintf(f, "| cases | %s |\n", V(st, "cases_done"));
    fprintf(f, "| cases/s | %s (last session) |\n", V(st, "cases_per_sec"));
    fprintf(f, "| sessions | %s |\n", V(st, "sessions"));
    fprintf(f, "| jobs | %s |\n", V(st, "jobs"));
    fprintf(f, "| crashes | %s |\n", V(st, "crashes"));
    fprintf(f, "| hangs | %s |\n", V(st, "hangs"));
    fprintf(f, "| worker restarts | %s |\n", V(st, "worker_restarts"));
    fprintf(f, "| findings saved | %s |\n", V(st, "findings_saved"));
    fprintf(f, "| worst ratio | %s (%s) |\n", V(st, "worst_ratio"), V(st, "worst_kernel"));
    fprintf(f, "| verdicts | ok %s, precision %s, nondet %s, soft-error %s, bug %s |\n",
            V(st, "ok"), V(st, "precision"), V(st, "nondet"), V(st, "soft_error"), V(st, "bug"));
    static const char *const times[] = {"start_time", "last_update"};
    for (size_t i = 0; i < 2; i++) {
        double t;
        const char *s = df_kv_get(st, times[i]);
        char when[64] = "(not recorded)";
        if (s && df_campaign_num(s, &t) == 0 && isfinite(t) && t >= 0 && t < 1e12) {
            time_t tt = (time_t)t;
            struct tm tm;
            if (gmtime_r(&tt, &tm))
                strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
        }
        fprintf(f, "| %s | %s |\n", i ? "last update" : "started", when);
    }
    fputs("| command line | ", f);
    if (df_kv_get(st, "command_line"))
        md_code(f, df_kv_get(st, "command_line"));
    else
        fputs(na, f);
    fputs(" |\n\n", f);
#undef V
}

static void say_file(FILE *f, const char *name, const df_file_stat *s)
{
    if (!s->present) {
        fprintf(f, "`%s` is not present in the campaign directory.\n\n", name);
        return;
    }
    if (s->torn || s->bad)
        fprintf(f, "`%s`: %llu rows read; skipped %llu torn last line%s and %llu unparsable "
                   "line%s.\n\n",
                name, (unsigned long long)s->rows, (unsigned long long)s->torn,
                s->torn == 1 ? "" : "s", (unsigned long long)s->bad, s->bad == 1 ? "" : "s");
}

static void write_kernels_section(FILE *f, const df_campaign_data *c)
{
    fputs("## Kernels\n\n", f);
    say_file(f, DF_KERNELS_TSV, &c->st_kernels);
    if (!c->st_kernels.present)
        return;
    fputs("| kernel | cases | ok | precision | nondet | soft-error | bug | crashes | hangs | "
          "worst ratio | worst rel err | model equal | meta checked |\n"
          "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
          f);
    for (size_t i = 0; i < c->nkrows; i++) {
        fputs("|", f);
        for (size_t j = 0; j < DF_KT_COLS; j++) {
            fputs(" ", f);
            md_cell(f, c->krows[i].f[j]);
            fputs(" |", f);
        }
        fputs("\n", f);
    }
    fputs("\n", f);
}

/* Each float kernel's effective precision (precision_hist.tsv): what its
 * worst and median errors over h correspond to, declared bits beside. */
static void write_precision_section(FILE *f, df_campaign_data *c)
{
    fputs("## Effective precision\n\n", f);
    say_file(f, DF_PREC_TSV, &c->st_prec);
    if (!c->st_prec.present)
        return;
    fputs("The bits a kernel's errors correspond to: an error ratio r at tree height h is what "
          "a unit roundoff of r/h times the declared one gives. Evidence, not a verdict: a "
          "correct kernel keeps its declared bits or more.\n\n"
          "| kernel | declared bits | worst case | median case |\n|---|--:|--:|--:|\n",
          f);
    for (size_t k = 0; k < c->nk; k++) {
        double declared, worst, median;
        if (df_prec_rows_bits(c->prec, c->nprec, k, &declared, &worst, &median))
            fprintf(f, "| %s | %.0f | %.1f | %.1f |\n", c->kernels[k], declared, worst, median);
    }
    fputs("\n", f);
    if (!c->st_prech.present || !c->nprech)
        return;
    fputs("At each tree height h (bins of a power of two), the worst case and the typical one "
          "(the geometric mean of ratio / h):\n\n"
          "| kernel | h | cases with an error | worst case | typical case | declared bits |\n"
          "|---|--:|--:|--:|--:|--:|\n",
          f);
    for (size_t i = 0; i < c->nprech; i++) {
        const df_prech_row *r = &c->prech[i];
        df_hbin b = {(uint64_t)r->cases, r->worst_over_h, r->sum_log2};
        double worst, typical;
        if (df_hbin_eff_bits(&b, r->declared_bits == 24 ? DF_F32 : DF_F64, &worst, &typical))
            fprintf(f, "| %s | %.0f-%.0f | %.0f | %.1f | %.1f | %.0f |\n", c->kernels[r->k],
                    ldexp(1, (int)r->log2_h), ldexp(1, (int)r->log2_h + 1) - 1, r->cases, worst,
                    typical, r->declared_bits);
    }
    fputs("\n", f);
}

typedef struct rule_count {
    size_t k;
    int v;
    const char *rule;
    uint64_t count;
} rule_count;

static int cmp_rule_count(const void *a, const void *b)
{
    const rule_count *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    if (x->v != y->v)
        return x->v - y->v;
    return strcmp(x->rule, y->rule);
}

/* (kernel, verdict, rule) -> count, in kernel order; NULL when out of memory. */
static rule_count *count_rules(df_campaign_data *c, size_t *n)
{
    rule_count *r = calloc(c->nfs ? c->nfs : 1, sizeof *r);
    *n = 0;
    if (!r)
        return NULL;
    for (size_t i = 0; i < c->nfs; i++) {
        const df_logged_finding *f = &c->fs[i];
        size_t k = df_campaign_kernel_index(c, f->kernel), j = 0;
        while (j < *n && !(r[j].k == k && r[j].v == f->v && !strcmp(r[j].rule, f->rule)))
            j++;
        if (j == *n)
            r[(*n)++] = (rule_count){k, f->v, f->rule, 0};
        r[j].count++;
    }
    qsort(r, *n, sizeof *r, cmp_rule_count);
    return r;
}

static void write_findings_section(FILE *f, df_campaign_data *c)
{
    fputs("## Findings\n\n", f);
    say_file(f, DF_LOG_FILE, &c->st_find);
    if (!c->st_find.present)
        return;
    uint64_t byv[DF_N_VERDICTS] = {0};
    uint64_t *kv_counts = calloc(c->nk * DF_N_VERDICTS + 1, sizeof *kv_counts);
    for (size_t i = 0; i < c->nfs; i++) {
        byv[c->fs[i].v]++;
        if (kv_counts)
            kv_counts[df_campaign_kernel_index(c, c->fs[i].kernel) * DF_N_VERDICTS + (size_t)c->fs[i].v]++;
    }
    fprintf(f, "%zu findings.\n\n### By verdict\n\n| verdict | findings |\n|---|--:|\n", c->nfs);
    for (int v = 0; v < DF_N_VERDICTS; v++)
        fprintf(f, "| %s | %llu |\n", df_campaign_verdicts[v], (unsigned long long)byv[v]);
    fprintf(f, "| total | %zu |\n\n", c->nfs);
    if (kv_counts && c->nfs) {
        fputs("### By kernel and verdict\n\n| kernel |", f);
        for (int v = 0; v < DF_N_VERDICTS; v++)
            fprintf(f, " %s |", df_campaign_verdicts[v]);
        fputs(" total |\n|---|--:|--:|--:|--:|--:|--:|\n", f);
        for (size_t k = 0; k < c->nk; k++) {
            uint64_t tot = 0;
            for (int v = 0; v < DF_N_VERDICTS; v++)
                tot += kv_counts[k * DF_N_VERDICTS + (size_t)v];
            if (!tot)
                continue;
            fputs("| ", f);
            md_cell(f, c->kernels[k]);
            fputs(" |", f);
            for (int v = 0; v < DF_N_VERDICTS; v++)
                fprintf(f, " %llu |", (unsigned long long)kv_counts[k * DF_N_VERDICTS + (size_t)v]);
            fprintf(f, " %llu |\n", (unsigned long long)tot);
        }
        fputs("\n", f);
    }
    free(kv_counts);
    size_t nr;
    rule_count *r = c->nfs ? count_rules(c, &nr) : NULL;
    if (r) {
        fputs("### By kernel, verdict and rule\n\n| kernel | verdict | rule | findings |\n"
              "|---|---|---|--:|\n",
              f);
        for (size_t i = 0; i < nr; i++) {
            fputs("| ", f);
            md_cell(f, c->kernels[r[i].k]);
            fprintf(f, " | %s | ", df_campaign_verdicts[r[i].v]);
            md_cell(f, r[i].rule);
            fprintf(f, " | %llu |\n", (unsigned long long)r[i].count);
        }
        fputs("\n", f);
    }
    free(r);
}

/* Worst first: +inf, then finite descending, NaN last; ties in file order. */
static int cmp_ratio_desc(const void *a, const void *b)
{
    const df_logged_finding *const *x = a, *const *y = b;
    double p = (*x)->err_ratio, q = (*y)->err_ratio;
    int pn = isnan(p), qn = isnan(q);
    if (pn != qn)
        return pn - qn;
    if (!pn && p != q)
        return p > q ? -1 : 1;
    return *x < *y ? -1 : *x > *y;
}

static void finding_row(FILE *f, const char *dir, size_t rank, const df_logged_finding *x, int detail)
{
    char a[32], b[32], n[32], e[32], cmd[PATH_CAP + 64];
    fmt_g(a, sizeof a, x->err_ratio);
    fmt_g(b, sizeof b, x->rel_err);
    fmt_g(n, sizeof n, x->n);
    fmt_g(e, sizeof e, x->elapsed);
    replay_cmd(cmd, sizeof cmd, dir, x->file);
    fprintf(f, "| %zu | ", rank);
    md_cell(f, x->kernel);
    fprintf(f, " | %s | ", df_campaign_verdicts[x->v]);
    md_cell(f, x->rule);
    fprintf(f, " | %s | %s | %s | %s | ", n, a, b, e);
    if (detail) {
        if (!isnan(x->signal))
            fprintf(f, "signal %.0f", x->signal);
        else if (!isnan(x->watchdog_s))
            fprintf(f, "watchdog %.6g s", x->watchdog_s);
        if (x->why) {
            fputs(!isnan(x->signal) || !isnan(x->watchdog_s) ? "; " : "", f);
            md_cell(f, x->why);
        }
        fputs(" | ", f);
    }
    md_code(f, cmd);
    fputs(" |\n", f);
}

static void write_worst_section(FILE *f, const df_campaign_data *c, const report_opts *o)
{
    fputs("## Worst cases\n\n", f);
    if (!c->st_find.present || !c->nfs) {
        fputs("No findings to list.\n\n", f);
        return;
    }
    const df_logged_finding **ord = malloc(c->nfs * sizeof *ord);
    if (!ord) {
        fputs("(out of memory listing the findings)\n\n", f);
        return;
    }
    size_t m = 0;
    for (size_t i = 0; i < c->nfs; i++)
        if (!df_logged_crash_or_hang(&c->fs[i]))
            ord[m++] = &c->fs[i];
    qsort(ord, m, sizeof *ord, cmp_ratio_desc);
    size_t top = o->top < m ? (size_t)o->top : m;
    fprintf(f, "The %zu worst of %zu findings by error ratio (err_ratio = |err| / (u*G)).\n\n",
            top, m);
    const char *head = "| # | kernel | verdict | rule | n | err_ratio | rel_err | elapsed s | ";
    if (top) {
        fprintf(f, "%sreplay |\n|--:|---|---|---|--:|--:|--:|--:|---|\n", head);
        for (size_t i = 0; i < top; i++)
            finding_row(f, o->dir, i + 1, ord[i], 0);
        fputs("\n", f);
    }
    size_t nch = 0;
    for (size_t i = 0; i < c->nfs; i++)
        nch += (size_t)df_logged_crash_or_hang(&c->fs[i]);
    fprintf(f, "### Crashes and hangs\n\n%zu crash and hang findings%s\n\n", nch,
            nch ? ", all listed:" : ".");
    if (nch) {
        fprintf(f, "%sdetail | replay |\n|--:|---|---|---|--:|--:|--:|--:|---|---|\n", head);
        for (size_t i = 0, r = 0; i < c->nfs; i++)
            if (df_logged_crash_or_hang(&c->fs[i]))
                finding_row(f, o->dir, ++r, &c->fs[i], 1);
        fputs("\n", f);
    }
    free(ord);
}

static void write_plots_section(FILE *f, const df_plot *pr, const char *not_made)
{
    fputs("## Plots\n\n", f);
    if (not_made) {
        fprintf(f, "Plots were not made: %s.\n\n", not_made);
        return;
    }
    for (size_t i = 0; i < DF_N_PLOTS; i++) {
        fprintf(f, "### %s\n\n", pr[i].title);
        if (pr[i].made)
            fprintf(f, "![%s](%s.png)\n\n[SVG](%s.svg) · remake: `gnuplot %s.gp` (data in "
                       "`%s.dat`)\n\n",
                    pr[i].title, pr[i].name, pr[i].name, pr[i].name, pr[i].name);
        else
            fprintf(f, "Not made: %s.\n\n", pr[i].why);
    }
}

static void write_inputs_section(FILE *f, const df_campaign_data *c)
{
    static const char *const names[] = {DF_KERNELS_TSV, DF_PROFILE_TSV, DF_HIST_TSV,
                                        DF_PREC_TSV,    DF_PRECH_TSV,   DF_PLOT_FILE,
                                        DF_LOG_FILE};
    const df_file_stat *st[] = {&c->st_kernels, &c->st_prof, &c->st_hist, &c->st_prec,
                                &c->st_prech,   &c->st_pd,   &c->st_find};
    fputs("## Inputs\n\n| file | rows read | torn last line skipped | unparsable lines skipped |\n"
          "|---|--:|--:|--:|\n",
          f);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!st[i]->present)
            fprintf(f, "| %s | not present | | |\n", names[i]);
        else
            fprintf(f, "| %s | %llu | %llu | %llu |\n", names[i], (unsigned long long)st[i]->rows,
                    (unsigned long long)st[i]->torn, (unsigned long long)st[i]->bad);
    }
    fputs("\n", f);
}

static df_outcome write_markdown(const char *rdir, const report_opts *o, df_campaign_data *c,
                                 const df_plot *pr, const char *not_made)
{
    char path[PATH_CAP], when[64] = "";
    FILE *f = df_report_open(rdir, "report.md", path);
    if (!f)
        return DF_OUTCOME_ENV;
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fputs("# dotfuzz campaign report: ", f);
    md_code(f, o->dir);
    fputs("\n\n", f);
    write_campaign_section(f, c);
    write_kernels_section(f, c);
    write_precision_section(f, c);
    write_findings_section(f, c);
    write_worst_section(f, c, o);
    write_plots_section(f, pr, not_made);
    write_inputs_section(f, c);
    fputs("---\n\nMade by `dotfuzz report", f);
    fprintf(f, "%s` on %s from the campaign directory ", o->no_plots ? " --no-plots" : "", when);
    md_code(f, o->dir);
    fputs(not_made ? "; no plots.\n"
                   : "; plots by gnuplot from the .gp and .dat files beside this file.\n",
          f);
    return df_report_close(f, path) ? DF_OUTCOME_ENV : DF_OUTCOME_CLEAN;
}

static int make_rdir(const char *rdir)
{
    struct stat sb;
    if (mkdir(rdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dotfuzz report: cannot create %s: %s\n", rdir, strerror(errno));
        return -1;
    }
    if (stat(rdir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "dotfuzz report: %s is not a directory\n", rdir);
        return -1;
    }
    return 0;
}

df_outcome df_cmd_report(int argc, char **argv)
{
    report_opts o;
    int rc = parse_report_opts(argc, argv, &o);
    if (rc) {
        report_usage(rc > 0 ? stdout : stderr);
        return rc > 0 ? DF_OUTCOME_CLEAN : DF_OUTCOME_USAGE;
    }
    if (strlen(o.dir) > PATH_CAP - PATH_MARGIN ||
        (o.out && strlen(o.out) > PATH_CAP - PATH_MARGIN)) {
        df_usage_error("report", "%s", "path of DIR or RDIR too long");
        return DF_OUTCOME_USAGE;
    }
    df_campaign_data c = {0};
    df_outcome out = df_campaign_load("report", o.dir, &c);
    char rdir[PATH_CAP];
    if (out == DF_OUTCOME_CLEAN) {
        if (o.out)
            snprintf(rdir, sizeof rdir, "%s", o.out);
        else
            df_campaign_join(rdir, o.dir, "report");
        if (make_rdir(rdir) != 0)
            out = DF_OUTCOME_ENV;
    }
    if (out != DF_OUTCOME_CLEAN) {
        df_campaign_free(&c);
        return out;
    }
    df_plot pr[DF_N_PLOTS];
    const char *not_made;
    out = df_report_plots(&c, rdir, o.no_plots, pr, &not_made);
    out = df_outcome_worst(out, write_markdown(rdir, &o, &c, pr, not_made));
    df_campaign_free(&c);
    return out;
}

