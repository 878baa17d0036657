/* cmd_report.c — `dotfuzz report DIR`: reads a campaign directory (the
 * format of `dotfuzz run --out DIR`: campaign, fuzzer_stats, kernels.tsv,
 * profile.tsv, ratio_hist.tsv, precision tables, plot_data,
 * findings.jsonl) and writes RDIR/report.md, and with --html
 * RDIR/report.html, one page with its plots inside. Both come from the
 * same sections (report_sections.c), their first line the answer: whether
 * a correct kernel had a bug. The plots are gnuplot's (a child process),
 * one small panel per kernel, in PNG and SVG (report_plots.c); the .gp
 * scripts and .dat files stay in RDIR so that any plot can be remade or
 * restyled by hand.
 *
 * The reader (campaign_dir.c) is defensive: the campaign may still be
 * running. Torn and unparsable lines are skipped and counted, and the
 * counts are in the report. A missing optional file is named in the
 * report and the rest goes on. Only DIR/campaign and DIR/fuzzer_stats are
 * required. */
#include <errno.h>
#include <getopt.h>
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
#include "fuzz/cmd/report_sections.h"
#include "fuzz/cmd/report_triage.h"

#define PATH_CAP DF_CAMPAIGN_PATH_CAP
#define PATH_MARGIN 256 /* room left in a path for the names joined to DIR */

typedef struct report_opts {
    const char *dir, *out;
    uint64_t top;
    int no_plots, html;
} report_opts;

static void report_usage(FILE *f)
{
    fputs("usage: dotfuzz report DIR [OPTIONS]\n"
          "\n"
          "Summarises the campaign directory DIR (written by dotfuzz run --out DIR)\n"
          "into RDIR/report.md. Its first line says whether a correct kernel had a bug\n"
          "(\"Bugs in correct kernels: none\" or \"N distinct\"); then the correct kernels\n"
          "(verdict counts, plots with a small panel per kernel: error ratio against n\n"
          "beside the oracle's bug threshold, the ratios' histogram, effective\n"
          "precision), the worst cases (bugs first; expected overflows, crashes and\n"
          "hangs apart) with their replay commands, the mutants, the findings, the\n"
          "campaign and its cases/s over time. Plots by gnuplot (PNG and SVG; the .gp\n"
          "and .dat files are kept: cd RDIR && gnuplot NAME.gp remakes one). Torn or\n"
          "unparsable lines are skipped and counted; missing optional files are named.\n"
          "\n"
          "  --out RDIR     where to write (default DIR/report; created if missing)\n"
          "  --top N        list the N worst cases by error ratio (default 10)\n"
          "  --html         also RDIR/report.html: the same report as one page, its\n"
          "                 plots inside it (no other file, no network, no script)\n"
          "  --no-plots     no plots (gnuplot not needed)\n"
          "  -h, --help     this text\n"
          "\n"
          "Prints one line per file written.\n"
          "exit status: 0 written, 2 DIR missing or not a campaign directory,\n"
          "3 RDIR not writable, or gnuplot missing or failing (the report still written)\n",
          f);
}

static int parse_report_opts(int argc, char **argv, report_opts *o)
{
    enum { OPT_OUT = 256, OPT_TOP, OPT_NO_PLOTS, OPT_HTML };
    static const struct option longopts[] = {
        {"out", required_argument, 0, OPT_OUT}, {"top", required_argument, 0, OPT_TOP},
        {"no-plots", no_argument, 0, OPT_NO_PLOTS}, {"html", no_argument, 0, OPT_HTML},
        {"help", no_argument, 0, 'h'},
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
        case OPT_HTML: o->html = 1; break;
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

/* The page's style: tables compact, numbers right, figures as wide as the
 * page allows. No script, no file or address outside the page. */
static const char html_style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;"
    "color:#222}\n"
    "h1{font-size:1.6em;margin:0 0 .4em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}\n"
    "th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}\n"
    "th{background:#f3f3f3}td:not(:first-child){font-variant-numeric:tabular-nums}\n"
    "th.r,td.r{text-align:right}code{font-size:.9em;word-break:break-all}\n"
    "figure{margin:.5em 0 1.5em}figure img{max-width:100%;height:auto;border:1px solid #eee}\n"
    "figcaption{font-size:.9em;color:#444;max-width:70em}\n";

/* report.md or report.html: the sections (report_sections.c), and around
 * them the page (HTML) or the footer naming how it was made. */
static df_outcome write_report(const char *rdir, const report_opts *o, df_campaign_data *c,
                               const df_plot *pr, const char *not_made, int html)
{
    df_report_file rf;
    char when[64] = "";
    FILE *f = df_report_open(&rf, rdir, html ? "report.html" : "report.md");
    if (!f)
        return DF_OUTCOME_ENV;
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    df_doc d = {f, html, NULL, 0};
    if (html) {
        char answer[96];
        df_report_answer(c, answer, sizeof answer);
        fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<title>%s: dotfuzz report</title>\n<style>\n%s</style>\n</head>\n<body>\n",
                answer, html_style);
    }
    df_report_ctx x = {c, o->dir, rdir, o->top, pr, not_made};
    int rc = df_report_sections(&d, &x);
    df_doc_p_open(&d);
    df_doc_text(&d, "Made by ");
    df_doc_code(&d, o->no_plots ? "dotfuzz report --no-plots" : "dotfuzz report");
    df_doc_text(&d, " on %s from the campaign directory ", when);
    df_doc_code(&d, o->dir);
    df_doc_text(&d, not_made ? "; no plots."
                             : html ? "; plots by gnuplot, each an SVG inside this page."
                                    : "; plots by gnuplot from the .gp and .dat files beside "
                                      "this file.");
    df_doc_p_close(&d);
    if (html)
        fputs("</body>\n</html>\n", f);
    if (df_report_close(&rf) != 0)
        return DF_OUTCOME_ENV;
    return rc ? DF_OUTCOME_ENV : DF_OUTCOME_CLEAN;
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
    out = df_outcome_worst(out, write_report(rdir, &o, &c, pr, not_made, 0));
    if (o.html)
        out = df_outcome_worst(out, write_report(rdir, &o, &c, pr, not_made, 1));
    df_campaign_free(&c);
    return out;
}

