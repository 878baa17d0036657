/* report_plots.c — the plots of `dotfuzz report` (report_plots.h): for
 * each, NAME.dat (the data, an index block per series) and NAME.gp (the
 * gnuplot script, PNG then SVG) written to RDIR, gnuplot run there as a
 * child process, and both images checked; and the report's output files,
 * which report.md shares. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/cmd/report_plots.h"

#define PATH_CAP DF_CAMPAIGN_PATH_CAP

/* s as a gnuplot single-quoted string (only '' is special there). */
static void gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
    fputc('\'', f);
}

static int pos_finite(double v)
{
    return isfinite(v) && v > 0;
}

/* ---- the report's files ---- */

FILE *df_report_open(const char *rdir, const char *name, char *path)
{
    df_campaign_join(path, rdir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "dotfuzz report: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

int df_report_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "dotfuzz report: cannot write %s\n", path);
        return -1;
    }
    printf("%s\n", path);
    return 0;
}

/* ---- each plot's data and commands ---- */

/* Writes one index block per kernel with a point on the log-log axes
 * (x = bin midpoint, y = column col of profile.tsv) and the plot command
 * into cmd. Returns the number of series. */
static size_t profile_dat(FILE *d, const df_campaign_data *c, int col, const char *dat, FILE *cmd)
{
    size_t series = 0;
    for (size_t k = 0; k < c->nk; k++) {
        int any = 0;
        for (size_t i = 0; i < c->nprof; i++) {
            const df_prof_row *r = &c->prof[i];
            double x = (r->n_lo + r->n_hi) / 2, y = col ? r->worst_rel_err : r->worst_ratio;
            if (r->k != k || !pos_finite(x) || !pos_finite(y))
                continue;
            if (!any)
                fprintf(d, "%s# %s\n# n_mid  n_lo  n_hi  cases  value\n", series ? "\n\n" : "",
                        c->kernels[k]);
            fprintf(d, "%.10g\t%.10g\t%.10g\t%.10g\t%.10g\n", x, r->n_lo, r->n_hi, r->cases, y);
            any = 1;
        }
        if (!any)
            continue;
        fprintf(cmd, "%s'%s' index %zu using 1:5 with linespoints title ", series ? ", \\\n     " : "plot ",
                dat, series);
        gp_str(cmd, c->kernels[k]);
        series++;
    }
    return series;
}

static size_t hist_dat(FILE *d, const df_campaign_data *c, const char *dat, FILE *cmd)
{
    size_t series = 0;
    for (size_t k = 0; k < c->nk; k++) {
        int any = 0;
        for (size_t i = 0; i < c->nhist; i++) {
            const df_hist_row *r = &c->hist[i];
            if (r->k != k || !pos_finite(r->count))
                continue;
            if (!any)
                fprintf(d, "%s# %s\n# log2_ratio  count\n", series ? "\n\n" : "", c->kernels[k]);
            fprintf(d, "%.10g\t%.10g\n", r->log2_ratio, r->count);
            any = 1;
        }
        if (!any)
            continue;
        fprintf(cmd, "%s'%s' index %zu using ($1+0.5):2 with boxes title ",
                series ? ", \\\n     " : "plot ", dat, series);
        gp_str(cmd, c->kernels[k]);
        series++;
    }
    return series;
}

static int cmp_elapsed(const void *a, const void *b)
{
    double p = (*(const df_logged_finding *const *)a)->elapsed, q = (*(const df_logged_finding *const *)b)->elapsed;
    return (p > q) - (p < q);
}

/* Cumulative findings (all, bug, crash, hang) against elapsed time, and
 * plot_data's total_execs (cases done) on the second axis. */
static size_t time_dat(FILE *d, const df_campaign_data *c, const char *dat, FILE *cmd)
{
    const df_logged_finding **ord = malloc((c->nfs + 1) * sizeof *ord);
    size_t m = 0, series = 0;
    if (!ord)
        return 0;
    for (size_t i = 0; i < c->nfs; i++)
        if (isfinite(c->fs[i].elapsed))
            ord[m++] = &c->fs[i];
    qsort(ord, m, sizeof *ord, cmp_elapsed);
    double end = m ? ord[m - 1]->elapsed : 0;
    for (size_t i = 0; i < c->npd; i++)
        end = c->pd[i][DF_PD_TIME] > end ? c->pd[i][DF_PD_TIME] : end;
    uint64_t all = 0, bug = 0, crash = 0, hang = 0;
    if (m) {
        fputs("# elapsed_s  findings  bug  crash  hang (cumulative)\n0\t0\t0\t0\t0\n", d);
        for (size_t i = 0; i < m; i++) {
            all++;
            bug += ord[i]->v == 4 && !df_logged_crash_or_hang(ord[i]);
            crash += !strcmp(ord[i]->rule, "crash");
            hang += !strcmp(ord[i]->rule, "hang");
            fprintf(d, "%.10g\t%llu\t%llu\t%llu\t%llu\n", ord[i]->elapsed,
                    (unsigned long long)all, (unsigned long long)bug,
                    (unsigned long long)crash, (unsigned long long)hang);
        }
        fprintf(d, "%.10g\t%llu\t%llu\t%llu\t%llu\n", end, (unsigned long long)all,
                (unsigned long long)bug, (unsigned long long)crash, (unsigned long long)hang);
        static const char *const names[] = {"all findings", "bug (oracle)", "crash", "hang"};
        uint64_t tot[] = {all, bug, crash, hang};
        for (size_t s = 0; s < 4; s++)
            if (tot[s])
                fprintf(cmd, "%s'%s' index 0 using 1:%zu with steps lw %d title '%s'",
                        series++ ? ", \\\n     " : "plot ", dat, s + 2, s ? 1 : 2, names[s]);
    }
    if (c->npd) {
        fprintf(d, "%s# relative_time  cases_done\n", m ? "\n\n" : "");
        for (size_t i = 0; i < c->npd; i++)
            if (isfinite(c->pd[i][DF_PD_EXECS]))
                fprintf(d, "%.10g\t%.10g\n", c->pd[i][DF_PD_TIME], c->pd[i][DF_PD_EXECS]);
        fprintf(cmd, "%s'%s' index %d using 1:2 axes x1y2 with lines dt 2 title 'cases done (right axis)'",
                series++ ? ", \\\n     " : "plot ", dat, m ? 1 : 0);
    }
    free(ord);
    return series;
}

/* ---- gnuplot ---- */

/* Runs `gnuplot script` in rdir; 0 when it exits 0. Its stdout (it should
 * print nothing) goes to /dev/null so that ours stays one line per file. */
static int run_gnuplot(const char *rdir, const char *script)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(rdir) != 0 || !freopen("/dev/null", "w", stdout))
            _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* A real image file: PNG magic or an <svg element, else removed (so that
 * a half-written image is never linked). */
static int image_ok(const char *path, int svg)
{
    FILE *f = fopen(path, "rb");
    char buf[512] = {0};
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    int ok = svg ? strstr(buf, "<svg") != NULL : n >= 8 && !memcmp(buf, "\x89PNG\r\n\x1a\n", 8);
    if (!ok)
        remove(path);
    return ok;
}

/* Writes NAME.dat and NAME.gp, runs gnuplot, checks both images. */
static void make_plot(const df_campaign_data *c, const char *rdir, df_plot *r, int kind)
{
    char dat[64], gp[64], datp[PATH_CAP], gpp[PATH_CAP], img[PATH_CAP];
    snprintf(dat, sizeof dat, "%s.dat", r->name);
    snprintf(gp, sizeof gp, "%s.gp", r->name);
    FILE *d = df_report_open(rdir, dat, datp), *cmd = tmpfile();
    if (!d || !cmd) {
        snprintf(r->why, sizeof r->why, "cannot write %s", dat);
        if (d)
            fclose(d);
        if (cmd)
            fclose(cmd);
        return;
    }
    size_t series = kind < 2 ? profile_dat(d, c, kind, dat, cmd)
                  : kind == 2 ? hist_dat(d, c, dat, cmd) : time_dat(d, c, dat, cmd);
    if (df_report_close(d, datp) != 0) {
        fclose(cmd);
        snprintf(r->why, sizeof r->why, "cannot write %s", dat);
        return;
    }
    if (!series) {
        fclose(cmd);
        static const char *const src[] = {
            DF_PROFILE_TSV " has no positive finite worst ratio",
            DF_PROFILE_TSV " has no positive finite relative error",
            DF_HIST_TSV " has no counts",
            "neither " DF_LOG_FILE " nor " DF_PLOT_FILE " has a row"};
        snprintf(r->why, sizeof r->why, "no data to plot (%s)", src[kind]);
        return;
    }
    FILE *g = df_report_open(rdir, gp, gpp);
    if (!g) {
        fclose(cmd);
        snprintf(r->why, sizeof r->why, "cannot write %s", gp);
        return;
    }
    fprintf(g, "# %s — made by dotfuzz report; remake with: gnuplot %s (in this\n"
               "# directory). One terminal pass per format: PNG, then SVG.\n",
            gp, gp);
    /* parenthesised: one string per plot, several lines each */
    static const char *const setup[] = {
        ("set logscale xy\nset xlabel 'n (length bin midpoint)'\n"
         "set ylabel 'worst error ratio |err|/(u*G)'\n"),
        ("set logscale xy\nset xlabel 'n (length bin midpoint)'\n"
         "set ylabel 'worst relative error'\n"),
        ("set logscale y\nset xlabel 'log2(error ratio), bins [k, k+1)'\nset ylabel 'cases'\n"
         "set arrow 1 from 0, graph 0 to 0, graph 1 nohead dashtype 2\n"
         "set boxwidth 0.9\nset style fill transparent solid 0.35\n"),
        ("set xlabel 'elapsed time (s)'\nset ylabel 'findings (cumulative)'\nset ytics nomirror\n"
         "set y2tics\nset y2label 'cases done'\nset yrange [0:*]\nset y2range [0:*]\n"),
    };
    fprintf(g, "set title ");
    gp_str(g, r->title);
    fprintf(g, "\nset grid\nset key outside right top\n%s"
               "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "    set terminal pngcairo size 1000,600 noenhanced\n"
               "} else {\n    set terminal png size 1000,600 noenhanced\n}\n"
               "set output '%s.png'\n",
            setup[kind], r->name);
    rewind(cmd);
    for (int ch; (ch = fgetc(cmd)) != EOF;)
        fputc(ch, g);
    fclose(cmd);
    fprintf(g, "\nset terminal svg size 1000,600 noenhanced\nset output '%s.svg'\nreplot\n"
               "unset output\n",
            r->name);
    if (df_report_close(g, gpp) != 0) {
        snprintf(r->why, sizeof r->why, "cannot write %s", gp);
        return;
    }
    if (run_gnuplot(rdir, gp) != 0) {
        snprintf(r->why, sizeof r->why, "gnuplot %s failed (its message is on stderr)", gp);
        return;
    }
    r->made = 1;
    for (int svg = 0; svg < 2; svg++) {
        char name[80];
        snprintf(name, sizeof name, "%s.%s", r->name, svg ? "svg" : "png");
        df_campaign_join(img, rdir, name);
        if (image_ok(img, svg)) {
            printf("%s\n", img);
        } else {
            r->made = 0;
            snprintf(r->why, sizeof r->why, "gnuplot did not write a valid %s", name);
        }
    }
}

/* gnuplot on PATH, as execlp will find it. */
static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char *copy = strdup(path), *save = NULL, full[PATH_CAP];
    int found = 0;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        snprintf(full, sizeof full, "%s/gnuplot", *d ? d : ".");
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

df_outcome df_report_plots(const df_campaign_data *c, const char *rdir, int no_plots,
                           df_plot pr[DF_N_PLOTS], const char **not_made)
{
    static const df_plot plots[DF_N_PLOTS] = {
        {"worst-ratio-vs-n", "Worst error ratio against n", 0, ""},
        {"rel-err-vs-n", "Worst relative error against n", 0, ""},
        {"ratio-hist", "Distribution of error ratios (log2)", 0, ""},
        {"findings-over-time", "Findings over time", 0, ""},
    };
    df_outcome out = DF_OUTCOME_CLEAN;
    memcpy(pr, plots, sizeof plots);
    *not_made = no_plots ? "--no-plots was given" : NULL;
    if (!*not_made && !have_gnuplot()) {
        *not_made = "gnuplot was not found on PATH (Debian: apt-get install gnuplot-nox)";
        fprintf(stderr, "dotfuzz report: %s; writing report.md without plots\n", *not_made);
        out = DF_OUTCOME_ENV;
    }
    for (int k = 0; !*not_made && k < DF_N_PLOTS; k++) {
        make_plot(c, rdir, &pr[k], k);
        if (!pr[k].made && strncmp(pr[k].why, "no data", 7) != 0) {
            fprintf(stderr, "dotfuzz report: plot %s not made: %s\n", pr[k].name, pr[k].why);
            out = DF_OUTCOME_ENV;
        }
    }
    return out;
}
