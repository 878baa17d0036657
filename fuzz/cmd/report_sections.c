/* report_sections.c — the report's sections (report_sections.h). The
 * reader (campaign_dir.c) is defensive: torn and unparsable lines are
 * skipped and counted, and each section says what it could not read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/cmd/report_sections.h"
#include "fuzz/cmd/report_triage.h"

#define PATH_CAP DF_CAMPAIGN_PATH_CAP

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

static void say_file(df_doc *d, const char *name, const df_file_stat *s)
{
    if (!s->present) {
        df_doc_p_open(d);
        df_doc_code(d, name);
        df_doc_text(d, " is not present in the campaign directory.");
        df_doc_p_close(d);
        return;
    }
    if (s->torn || s->bad) {
        df_doc_p_open(d);
        df_doc_code(d, name);
        df_doc_text(d, ": %llu rows read; skipped %llu torn last line%s and %llu unparsable line%s.",
                    (unsigned long long)s->rows, (unsigned long long)s->torn,
                    s->torn == 1 ? "" : "s", (unsigned long long)s->bad, s->bad == 1 ? "" : "s");
        df_doc_p_close(d);
    }
}

/* The plots of one section, each under its title with its caption. */
static int plots(df_doc *d, const df_report_ctx *x, int section)
{
    int rc = 0;
    for (size_t i = 0; !x->not_made && i < DF_N_PLOTS; i++) {
        const df_plot *p = &x->pr[i];
        if (p->section != section)
            continue;
        df_doc_h(d, 3, p->name, "%s", p->title);
        if (!p->made) {
            df_doc_para(d, "Not made: %s.", p->why);
        } else if (df_doc_image(d, x->rdir, p->name, p->title, p->caption) != 0) {
            fprintf(stderr, "dotfuzz report: cannot read %s/%s.svg\n", x->rdir, p->name);
            df_doc_para(d, "Not shown: %s.svg could not be read.", p->name);
            rc = -1;
        }
    }
    return rc;
}

/* ---- the answer ---- */

static void write_head(df_doc *d, const df_report_ctx *x)
{
    const df_campaign_data *c = x->c;
    char answer[96];
    df_report_answer(c, answer, sizeof answer);
    df_doc_h(d, 1, "answer", "%s", answer);
    size_t caught, nm = df_report_mutants(c, &caught);
    df_doc_p_open(d);
    df_doc_text(d, "dotfuzz campaign report of ");
    df_doc_code(d, x->dir);
    const char *cases = df_kv_get(&c->stats, "cases_done");
    df_doc_text(d, ": %s cases, %zu correct kernel%s", cases ? cases : "(not recorded)",
                c->nk - nm, c->nk - nm == 1 ? "" : "s");
    size_t nb = df_report_distinct_bugs(c, 1);
    if (nm)
        df_doc_text(d, "; mutants (kernels built with a bug): %zu of %zu caught, %zu distinct "
                       "bug%s",
                    caught, nm, nb, nb == 1 ? "" : "s");
    df_doc_text(d, ". A bug's signature: its kernel and failure class (wrong result, fault, "
                   "hang); `dotfuzz triage DIR` lists each with a minimized reproducer.");
    df_doc_p_close(d);
    if (x->not_made)
        df_doc_para(d, "Plots were not made: %s.", x->not_made);
}

/* ---- the kernels ---- */

static void kernel_table(df_doc *d, const df_report_ctx *x, int mutants)
{
    const df_campaign_data *c = x->c;
    say_file(d, DF_KERNELS_TSV, &c->st_kernels);
    if (!c->st_kernels.present)
        return;
    static const char *const heads[] = {
        "kernel", "cases", "ok", "precision", "nondet", "soft-error", "bug", "crashes", "hangs",
        "worst ratio", "worst rel err", "model equal", "meta checked"};
    /* the host backend runs the kernels' models themselves: a result equal
     * to its model says nothing there (kernels.tsv keeps its 0, a number) */
    const char *backend = df_kv_get(&c->stats, "backend");
    int no_model_check = backend && !strcmp(backend, "host");
    df_doc_table(d, "lrrrrrrrrrrrr", heads);
    for (size_t i = 0; i < c->nkrows; i++) {
        if (df_report_is_mutant(c->krows[i].f[0]) != mutants)
            continue;
        df_doc_row_open(d);
        for (size_t j = 0; j < DF_KT_COLS; j++)
            df_doc_cell(d, "%s", j == DF_KT_MODEL_EQUAL && no_model_check ? "n/a"
                                                                          : c->krows[i].f[j]);
        df_doc_row_close(d);
    }
    df_doc_table_close(d);
}

/* Each float kernel's effective precision (precision_hist.tsv): what its
 * worst and median errors over h correspond to, declared bits beside. */
static void precision_tables(df_doc *d, const df_report_ctx *x)
{
    const df_campaign_data *c = x->c;
    df_doc_h(d, 3, "precision", "Effective precision");
    say_file(d, DF_PREC_TSV, &c->st_prec);
    if (!c->st_prec.present)
        return;
    df_doc_para(d, "The bits a kernel's errors correspond to: an error ratio r at tree height h "
                   "is what a unit roundoff of r/h times the declared one gives. Evidence, not a "
                   "verdict: a correct kernel keeps its declared bits or more.");
    static const char *const heads[] = {"kernel", "declared bits", "worst case", "median case"};
    df_doc_table(d, "lrrr", heads);
    for (size_t k = 0; k < c->nk; k++) {
        double declared, worst, median;
        if (df_report_is_mutant(c->kernels[k]) ||
            !df_prec_rows_bits(c->prec, c->nprec, k, &declared, &worst, &median))
            continue;
        df_doc_row_open(d);
        df_doc_cell(d, "%s", c->kernels[k]);
        df_doc_cell(d, "%.0f", declared);
        df_doc_cell(d, "%.1f", worst);
        df_doc_cell(d, "%.1f", median);
        df_doc_row_close(d);
    }
    df_doc_table_close(d);
    if (!c->st_prech.present || !c->nprech)
        return;
    df_doc_para(d, "At each tree height h (bins of a power of two), the worst case and the "
                   "typical one (the geometric mean of ratio / h):");
    static const char *const hh[] = {"kernel", "h", "cases with an error", "worst case",
                                     "typical case", "declared bits"};
    df_doc_table(d, "lrrrrr", hh);
    for (size_t i = 0; i < c->nprech; i++) {
        const df_prech_row *r = &c->prech[i];
        df_hbin b = {(uint64_t)r->cases, r->worst_over_h, r->sum_log2};
        double worst, typical;
        if (df_report_is_mutant(c->kernels[r->k]) ||
            !df_hbin_eff_bits(&b, df_prec_acc_of_bits(r->declared_bits), &worst, &typical))
            continue;
        df_doc_row_open(d);
        df_doc_cell(d, "%s", c->kernels[r->k]);
        df_doc_cell(d, "%.0f-%.0f", ldexp(1, (int)r->log2_h), ldexp(1, (int)r->log2_h + 1) - 1);
        df_doc_cell(d, "%.0f", r->cases);
        df_doc_cell(d, "%.1f", worst);
        df_doc_cell(d, "%.1f", typical);
        df_doc_cell(d, "%.0f", r->declared_bits);
        df_doc_row_close(d);
    }
    df_doc_table_close(d);
}

static int write_correct(df_doc *d, const df_report_ctx *x)
{
    df_doc_h(d, 2, "correct", "Correct kernels");
    df_doc_para(d, "Verdict counts per kernel (kernels.tsv); err ratio = |err| / (u G), whose "
                   "bug threshold is the oracle's bound, about the kernel's tree height h.");
    kernel_table(d, x, 0);
    int rc = plots(d, x, DF_PLOT_CORRECT);
    precision_tables(d, x);
    return rc;
}

static int write_mutants(df_doc *d, const df_report_ctx *x)
{
    size_t caught, nm = df_report_mutants(x->c, &caught);
    if (!nm)
        return 0;
    df_doc_h(d, 2, "mutants", "Mutants");
    size_t nb = df_report_distinct_bugs(x->c, 1);
    df_doc_para(d, "Kernels built with one bug each, to prove the oracle catches it: %zu of %zu "
                   "caught (a bug verdict), %zu distinct bug%s.",
                caught, nm, nb, nb == 1 ? "" : "s");
    kernel_table(d, x, 1);
    return plots(d, x, DF_PLOT_MUTANTS);
}

/* ---- findings ---- */

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

static void write_findings(df_doc *d, const df_report_ctx *x)
{
    df_campaign_data *c = x->c;
    df_doc_h(d, 2, "findings", "Findings");
    say_file(d, DF_LOG_FILE, &c->st_find);
    if (!c->st_find.present)
        return;
    uint64_t byv[DF_N_VERDICTS] = {0};
    uint64_t *kv = calloc(c->nk * DF_N_VERDICTS + 1, sizeof *kv);
    for (size_t i = 0; i < c->nfs; i++) {
        byv[c->fs[i].v]++;
        if (kv)
            kv[df_campaign_kernel_index(c, c->fs[i].kernel) * DF_N_VERDICTS + (size_t)c->fs[i].v]++;
    }
    df_doc_para(d, "%zu findings.", c->nfs);
    df_doc_h(d, 3, NULL, "By verdict");
    static const char *const hv[] = {"verdict", "findings"};
    df_doc_table(d, "lr", hv);
    for (int v = 0; v <= DF_N_VERDICTS; v++) {
        df_doc_row_open(d);
        df_doc_cell(d, "%s", v < DF_N_VERDICTS ? df_campaign_verdicts[v] : "total");
        df_doc_cell(d, "%llu", v < DF_N_VERDICTS ? (unsigned long long)byv[v]
                                                 : (unsigned long long)c->nfs);
        df_doc_row_close(d);
    }
    df_doc_table_close(d);
    if (kv && c->nfs) {
        df_doc_h(d, 3, NULL, "By kernel and verdict");
        const char *hk[DF_N_VERDICTS + 2] = {"kernel"};
        for (int v = 0; v < DF_N_VERDICTS; v++)
            hk[v + 1] = df_campaign_verdicts[v];
        hk[DF_N_VERDICTS + 1] = "total";
        df_doc_table(d, "lrrrrrr", hk);
        for (size_t k = 0; k < c->nk; k++) {
            uint64_t tot = 0;
            for (int v = 0; v < DF_N_VERDICTS; v++)
                tot += kv[k * DF_N_VERDICTS + (size_t)v];
            if (!tot)
                continue;
            df_doc_row_open(d);
            df_doc_cell(d, "%s", c->kernels[k]);
            for (int v = 0; v < DF_N_VERDICTS; v++)
                df_doc_cell(d, "%llu", (unsigned long long)kv[k * DF_N_VERDICTS + (size_t)v]);
            df_doc_cell(d, "%llu", (unsigned long long)tot);
            df_doc_row_close(d);
        }
        df_doc_table_close(d);
    }
    free(kv);
    size_t nr;
    rule_count *r = c->nfs ? count_rules(c, &nr) : NULL;
    if (r) {
        df_doc_h(d, 3, NULL, "By kernel, verdict and rule");
        static const char *const hr[] = {"kernel", "verdict", "rule", "findings"};
        df_doc_table(d, "lllr", hr);
        for (size_t i = 0; i < nr; i++) {
            df_doc_row_open(d);
            df_doc_cell(d, "%s", c->kernels[r[i].k]);
            df_doc_cell(d, "%s", df_campaign_verdicts[r[i].v]);
            df_doc_cell(d, "%s", r[i].rule);
            df_doc_cell(d, "%llu", (unsigned long long)r[i].count);
            df_doc_row_close(d);
        }
        df_doc_table_close(d);
    }
    free(r);
}

/* ---- worst cases ---- */

static const char *const worst_heads[] = {"#", "kernel", "verdict", "rule", "n", "err_ratio",
                                          "rel_err", "elapsed s", "detail", "replay"};

static void finding_row(df_doc *d, const char *dir, size_t rank, const df_logged_finding *f,
                        int detail)
{
    char a[32], b[32], n[32], e[32], cmd[PATH_CAP + 64];
    fmt_g(a, sizeof a, f->err_ratio);
    fmt_g(b, sizeof b, f->rel_err);
    fmt_g(n, sizeof n, f->n);
    fmt_g(e, sizeof e, f->elapsed);
    replay_cmd(cmd, sizeof cmd, dir, f->file);
    df_doc_row_open(d);
    df_doc_cell(d, "%zu", rank);
    df_doc_cell(d, "%s", f->kernel);
    df_doc_cell(d, "%s", df_campaign_verdicts[f->v]);
    df_doc_cell(d, "%s", f->rule);
    df_doc_cell(d, "%s", n);
    df_doc_cell(d, "%s", a);
    df_doc_cell(d, "%s", b);
    df_doc_cell(d, "%s", e);
    if (detail) {
        df_doc_cell_open(d);
        if (!isnan(f->signal))
            df_doc_text(d, "signal %.0f", f->signal);
        else if (!isnan(f->watchdog_s))
            df_doc_text(d, "watchdog %.6g s", f->watchdog_s);
        if (f->why)
            df_doc_text(d, "%s%s", !isnan(f->signal) || !isnan(f->watchdog_s) ? "; " : "",
                        f->why);
        df_doc_cell_close(d);
    }
    df_doc_cell_code(d, cmd);
    df_doc_row_close(d);
}

/* A table of rows [from, to) of ord, ranked from 1. */
static void worst_table(df_doc *d, const df_report_ctx *x, const df_logged_finding **ord,
                        size_t from, size_t to)
{
    const char *heads[9];
    memcpy(heads, worst_heads, 8 * sizeof *heads);
    heads[8] = worst_heads[9];
    df_doc_table(d, "rlllrrrrl", heads);
    for (size_t i = from; i < to; i++)
        finding_row(d, x->dir, i - from + 1, ord[i], 0);
    df_doc_table_close(d);
}

static void write_worst(df_doc *d, const df_report_ctx *x)
{
    const df_campaign_data *c = x->c;
    df_doc_h(d, 2, "worst", "Worst cases");
    if (!c->st_find.present || !c->nfs) {
        df_doc_para(d, "No findings to list.");
        return;
    }
    size_t nbugs, m, nover;
    const df_logged_finding **ord = df_report_worst_order(c, &nbugs, &m, &nover);
    if (!ord) {
        df_doc_para(d, "(out of memory listing the findings)");
        return;
    }
    size_t top = x->top < m ? (size_t)x->top : m;
    df_doc_para(d, "The %zu worst of %zu findings: bugs first (%zu), then the rest by error "
                   "ratio (err_ratio = |err| / (u G)). Expected overflows, crashes and hangs "
                   "have tables of their own.",
                top, m, nbugs);
    if (top)
        worst_table(d, x, ord, 0, top);
    df_doc_h(d, 3, "overflows", "Expected overflows");
    df_doc_para(d, "%zu finding%s of finite inputs whose sum some order of evaluation may "
                   "overflow (verdict precision, rule overflow): an infinite ratio that says "
                   "nothing of the kernel.%s",
                nover, nover == 1 ? "" : "s", nover > x->top ? " The first ones:" : "");
    if (nover)
        worst_table(d, x, ord, m, m + (nover < x->top ? nover : (size_t)x->top));
    size_t nch = 0;
    for (size_t i = 0; i < c->nfs; i++)
        nch += (size_t)df_logged_crash_or_hang(&c->fs[i]);
    df_doc_h(d, 3, "crashes", "Crashes and hangs");
    df_doc_para(d, "%zu crash and hang findings%s", nch, nch ? ", all listed:" : ".");
    if (nch) {
        df_doc_table(d, "rlllrrrrll", worst_heads);
        for (size_t i = 0, r = 0; i < c->nfs; i++)
            if (df_logged_crash_or_hang(&c->fs[i]))
                finding_row(d, x->dir, ++r, &c->fs[i], 1);
        df_doc_table_close(d);
    }
    free(ord);
}

/* ---- the campaign and the inputs ---- */

static void kv_row(df_doc *d, const char *name, const char *fmt, const char *a, const char *b)
{
    df_doc_row_open(d);
    df_doc_cell(d, "%s", name);
    df_doc_cell_open(d);
    df_doc_text(d, fmt, a, b);
    df_doc_cell_close(d);
    df_doc_row_close(d);
}

static int write_campaign(df_doc *d, const df_report_ctx *x)
{
    const df_campaign_data *c = x->c;
    const df_kv *cp = &c->camp, *st = &c->stats;
    const char *na = "(not recorded)";
#define V(t, k) (df_kv_get((t), (k)) ? df_kv_get((t), (k)) : na)
    df_doc_h(d, 2, "campaign", "Campaign");
    static const char *const heads[] = {"", ""};
    df_doc_table(d, "ll", heads);
    kv_row(d, "seed", "%s%s", V(cp, "seed"), "");
    kv_row(d, "backend", "%s%s", V(cp, "backend"), "");
    df_doc_row_open(d);
    df_doc_cell(d, "kernels");
    df_doc_cell_open(d);
    for (size_t i = 0; i < c->nk; i++)
        df_doc_text(d, "%s%s", i ? ", " : "", c->kernels[i]);
    df_doc_text(d, "%s(%zu)", c->nk ? " " : "", c->nk);
    df_doc_cell_close(d);
    df_doc_row_close(d);
    kv_row(d, "max n", "%s%s", V(cp, "max_n"), "");
    kv_row(d, "family", "%s%s", V(cp, "family"), "");
    double rt;
    const char *rts = df_kv_get(st, "run_time");
    if (rts && df_campaign_num(rts, &rt) == 0 && isfinite(rt) && rt >= 0) {
        char hms[64];
        snprintf(hms, sizeof hms, "%.0f h %02.0f min %02.0f s", floor(rt / 3600),
                 floor(fmod(rt, 3600) / 60), floor(fmod(rt, 60)));
        kv_row(d, "run time", "%s s (%s)", rts, hms);
    } else {
        kv_row(d, "run time", "%s%s", V(st, "run_time"), "");
    }
    kv_row(d, "cases", "%s%s", V(st, "cases_done"), "");
    kv_row(d, "cases/s", "%s%s", V(st, "cases_per_sec"), " (last session)");
    static const char *const plain[][2] = {
        {"sessions", "sessions"}, {"jobs", "jobs"}, {"crashes", "crashes"}, {"hangs", "hangs"},
        {"worker restarts", "worker_restarts"}, {"findings saved", "findings_saved"}};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        kv_row(d, plain[i][0], "%s%s", V(st, plain[i][1]), "");
    kv_row(d, "worst ratio", "%s (%s)", V(st, "worst_ratio"), V(st, "worst_kernel"));
    char verdicts[512];
    snprintf(verdicts, sizeof verdicts, "ok %s, precision %s, nondet %s, soft-error %s, bug %s",
             V(st, "ok"), V(st, "precision"), V(st, "nondet"), V(st, "soft_error"), V(st, "bug"));
    kv_row(d, "verdicts", "%s%s", verdicts, "");
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
        kv_row(d, i ? "last update" : "started", "%s%s", when, "");
    }
    df_doc_row_open(d);
    df_doc_cell(d, "command line");
    if (df_kv_get(st, "command_line"))
        df_doc_cell_code(d, df_kv_get(st, "command_line"));
    else
        df_doc_cell(d, "%s", na);
    df_doc_row_close(d);
    df_doc_table_close(d);
#undef V
    return plots(d, x, DF_PLOT_CAMPAIGN);
}

static void write_inputs(df_doc *d, const df_report_ctx *x)
{
    const df_campaign_data *c = x->c;
    static const char *const names[] = {DF_KERNELS_TSV, DF_PROFILE_TSV, DF_HIST_TSV,
                                        DF_PREC_TSV,    DF_PRECH_TSV,   DF_PLOT_FILE,
                                        DF_LOG_FILE};
    const df_file_stat *st[] = {&c->st_kernels, &c->st_prof, &c->st_hist, &c->st_prec,
                                &c->st_prech,   &c->st_pd,   &c->st_find};
    df_doc_h(d, 2, "inputs", "Inputs");
    static const char *const heads[] = {"file", "rows read", "torn last line skipped",
                                        "unparsable lines skipped"};
    df_doc_table(d, "lrrr", heads);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        df_doc_row_open(d);
        df_doc_cell(d, "%s", names[i]);
        if (!st[i]->present) {
            df_doc_cell(d, "not present");
            df_doc_cell(d, "%s", "");
            df_doc_cell(d, "%s", "");
        } else {
            df_doc_cell(d, "%llu", (unsigned long long)st[i]->rows);
            df_doc_cell(d, "%llu", (unsigned long long)st[i]->torn);
            df_doc_cell(d, "%llu", (unsigned long long)st[i]->bad);
        }
        df_doc_row_close(d);
    }
    df_doc_table_close(d);
}

int df_report_sections(df_doc *d, const df_report_ctx *x)
{
    write_head(d, x);
    int rc = write_correct(d, x);
    write_worst(d, x);
    rc |= write_mutants(d, x);
    write_findings(d, x);
    rc |= write_campaign(d, x);
    write_inputs(d, x);
    return rc ? -1 : 0;
}
