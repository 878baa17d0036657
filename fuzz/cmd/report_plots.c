/* report_plots.c — the plots of `dotfuzz report` (report_plots.h): for
 * each, NAME.dat (the data, an index block per series) and NAME.gp (the
 * gnuplot script: a multiplot of small panels, PNG then SVG) written to
 * RDIR, gnuplot run there as a child process, and both images checked;
 * and the report's output files. What each plot shows is
 * report_panels.c's. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/cmd/report_panels.h"
#include "fuzz/cmd/report_plots.h"

#define PATH_CAP DF_CAMPAIGN_PATH_CAP

/* ---- the report's files ---- */

FILE *df_report_open(df_report_file *rf, const char *rdir, const char *name)
{
    rf->rdir = rdir;
    rf->name = name;
    if (df_campaign_join(rf->path, rdir, name) != 0) {
        fprintf(stderr, "dotfuzz report: path of %s in %s too long\n", name, rdir);
        return NULL;
    }
    FILE *f = df_campaign_out_open(&rf->o);
    if (!f)
        fprintf(stderr, "dotfuzz report: cannot write %s: out of memory\n", rf->path);
    return f;
}

int df_report_close(df_report_file *rf)
{
    int bad = ferror(rf->o.f);
    int rc = df_campaign_out_commit(&rf->o, rf->rdir, rf->name);
    if (rc != 0 || bad) {
        fprintf(stderr, "dotfuzz report: cannot write %s: %s\n", rf->path,
                rc == -1 ? strerror(errno) : "out of memory");
        return -1;
    }
    printf("%s\n", rf->path);
    return 0;
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

static void copy_stream(FILE *from, FILE *to)
{
    rewind(from);
    for (int ch; (ch = fgetc(from)) != EOF;)
        fputc(ch, to);
}

/* NAME.gp: the setup, then for PNG and SVG the panels in a layout of cols
 * columns, each panel about 270 x 210 pixels (one panel: 900 x 450). */
static void write_script(FILE *g, const df_plot *r, FILE *setup, FILE *body, size_t panels)
{
    size_t cols = panels == 1 ? 1 : (size_t)ceil(sqrt((double)panels));
    cols = cols > 5 ? 5 : cols;
    size_t rows = (panels + cols - 1) / cols;
    unsigned w = panels == 1 ? 900 : 270 * (unsigned)cols, h = panels == 1 ? 450 : 210 * (unsigned)rows + 40;
    fprintf(g, "# %s.gp: made by dotfuzz report; remake with: gnuplot %s.gp (in this\n"
               "# directory). The panels are drawn twice: PNG, then SVG.\n"
               "set grid\n",
            r->name, r->name);
    copy_stream(setup, g);
    for (int svg = 0; svg < 2; svg++) {
        if (svg)
            fprintf(g, "set terminal svg size %u,%u font 'sans,9' noenhanced\n", w, h);
        else
            fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                       "    set terminal pngcairo size %u,%u font 'sans,9' noenhanced\n"
                       "} else {\n    set terminal png size %u,%u noenhanced\n}\n",
                    w, h, w, h);
        fprintf(g, "set output '%s.%s'\nset multiplot layout %zu,%zu title ", r->name,
                svg ? "svg" : "png", rows, cols);
        df_gp_str(g, r->title);
        fputs("\n", g);
        copy_stream(body, g);
        fputs("unset multiplot\nunset output\n", g);
    }
}

/* Writes NAME.dat and NAME.gp, runs gnuplot, checks both images. */
static void make_plot(const df_campaign_data *c, const char *rdir, df_plot *r, df_panels_fn fn)
{
    char dat[64], gp[64], img[PATH_CAP];
    snprintf(dat, sizeof dat, "%s.dat", r->name);
    snprintf(gp, sizeof gp, "%s.gp", r->name);
    df_report_file df, gf;
    df_gp g = {df_report_open(&df, rdir, dat), tmpfile(), tmpfile(), dat, 0};
    const char *why = "";
    size_t panels = g.d && g.setup && g.body ? fn(c, &g, &why) : 0;
    if (!g.d || !g.setup || !g.body || df_report_close(&df) != 0) {
        snprintf(r->why, sizeof r->why, "cannot write %s", dat);
        panels = 0;
    } else if (!panels) {
        snprintf(r->why, sizeof r->why, "no data to plot (%s)", why);
    }
    FILE *f = panels ? df_report_open(&gf, rdir, gp) : NULL;
    if (f) {
        write_script(f, r, g.setup, g.body, panels);
        if (df_report_close(&gf) != 0)
            f = NULL;
    }
    if (g.setup)
        fclose(g.setup);
    if (g.body)
        fclose(g.body);
    if (!panels)
        return;
    if (!f) {
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
        {"ratio-vs-n", "Error ratio against n, correct kernels",
         "A panel per correct kernel, all on the same axes. Dots: the worst error ratio "
         "|err| / (u G) of each length bin; crosses at the floor: bins whose every case was "
         "exact. Shaded: the oracle's bug threshold (its bound gamma_h G over u G, about h) "
         "from the least to the largest tree height h(n) of the launches the generator draws; "
         "above the red line a case is a bug at any launch. A panel's title counts the "
         "kernel's bugs.",
         DF_PLOT_CORRECT, 0, ""},
        {"ratio-vs-n-mutants", "Error ratio against n, mutants",
         "The same for the mutants, kernels built with one bug each: dots above their red "
         "line are the oracle catching it (a mutant whose bug is not in its rounding, a race "
         "or a dropped element, may show it in another rule).",
         DF_PLOT_MUTANTS, 0, ""},
        {"ratio-hist", "Distribution of error ratios (log2), correct kernels",
         "A panel per correct kernel: the cases at each log2 error ratio; the bar at 'exact' "
         "counts those with no error (ratio 0, or below 2^-63). Dashed red: the bug threshold "
         "at the kernel's longest length bin (the largest over its launches).",
         DF_PLOT_CORRECT, 0, ""},
        {"precision-vs-h", "Effective precision against tree height, correct kernels",
         "A panel per correct float kernel: the bits of precision its errors correspond to at "
         "each tree height (ratio r at height h: declared bits - log2(r/h)), the worst case "
         "(dots) and the typical one (circles, a geometric mean); dashed: the declared bits. "
         "Evidence, not a verdict: a correct kernel keeps its declared bits or more.",
         DF_PLOT_CORRECT, 0, ""},
        {"progress", "Cases per second over time",
         "The harness's speed over the campaign (plot_data, a row per snapshot), with the "
         "findings saved and the bug verdicts so far on the right axis.",
         DF_PLOT_CAMPAIGN, 0, ""},
    };
    static const df_panels_fn fns[DF_N_PLOTS] = {
        df_panels_ratio_correct, df_panels_ratio_mutants, df_panels_hist, df_panels_precision,
        df_panels_progress,
    };
    df_outcome out = DF_OUTCOME_CLEAN;
    memcpy(pr, plots, sizeof plots);
    *not_made = no_plots ? "--no-plots was given" : NULL;
    if (!*not_made && !have_gnuplot()) {
        *not_made = "gnuplot was not found on PATH (Debian: apt-get install gnuplot-nox)";
        fprintf(stderr, "dotfuzz report: %s; writing the report without plots\n", *not_made);
        out = DF_OUTCOME_ENV;
    }
    for (int k = 0; !*not_made && k < DF_N_PLOTS; k++) {
        make_plot(c, rdir, &pr[k], fns[k]);
        if (!pr[k].made && strncmp(pr[k].why, "no data", 7) != 0) {
            fprintf(stderr, "dotfuzz report: plot %s not made: %s\n", pr[k].name, pr[k].why);
            out = DF_OUTCOME_ENV;
        }
    }
    return out;
}
