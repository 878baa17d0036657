/* cmd_triage.c — `dotfuzz triage DIR`: a campaign's findings (or a folder
 * of case files) as distinct bugs, each with its smallest reproducer
 * minimized into DIR/triage (or -o); the grouping, the minimizing and the
 * printing are fuzz/run/triage.h's. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/plugin.h"
#include "fuzz/run/select.h"
#include "fuzz/run/triage.h"
#include "fuzz/util.h"

typedef struct triage_opts {
    const char *dir, *out, *backend;
    char *kernel;        /* --kernel values joined (select.h) */
    int json, minimize;
    double tol, watchdog_s;
    uint64_t max_tries;
    df_plugin_paths libs;
} triage_opts;

static void triage_usage(FILE *f)
{
    fputs("usage: dotfuzz triage DIR [OPTIONS]\n"
          "\n"
          "Groups the findings of campaign directory DIR (dotfuzz run --out DIR), or\n"
          "of a folder of case files, into distinct bugs: one per kernel and failure\n"
          "class (wrong result, fault, hang), whatever rule, input family, length or\n"
          "error size each finding had (docs/triage.md). Lists each bug once with its\n"
          "signature, count, first and last sighting and the replay command of its\n"
          "smallest reproducer, minimized while its rule keeps firing and written to\n"
          "DIR/triage (findings/ is only read). Precision, soft-error and nondet\n"
          "findings are counted apart: they are not bugs.\n"
          "\n"
          "  -o, --output OUT     the folder the reproducers go into (default DIR/triage)\n"
          "  --json               one JSON object on stdout instead of the table\n"
          "  --no-minimize        no minimizing: the smallest finding is the reproducer,\n"
          "                       nothing is written and no backend is opened\n"
          "  --kernel LIST        only the findings of these kernels, comma-separated,\n"
          "                       repeatable: names, 'all', 'mutants'\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable)\n"
          "  --backend B          where reproducers are minimized: cuda, host or auto\n"
          "                       (default auto)\n"
          "  --tol X              relative tolerance of a precision finding (default 1e-6)\n"
          "  --max-tries N        judged attempts per reproducer (default 2000)\n"
          "  --watchdog D         an attempt running longer is a hang (default 10s, or\n"
          "                       400 ns an element of longer cases)\n"
          "  -h, --help           this text\n"
          "\n"
          "exit status: 0 no bug among the findings, 1 some bug, 2 usage error or\n"
          "DIR unreadable (or some finding in it), 3 backend unavailable or OUT not\n"
          "writable\n",
          f);
}

static int parse_triage_opts(int argc, char **argv, triage_opts *o)
{
    enum { OPT_JSON = 256, OPT_NO_MIN, OPT_KERNEL, OPT_KERNEL_LIB, OPT_BACKEND, OPT_TOL,
           OPT_MAX_TRIES, OPT_WATCHDOG };
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},     {"json", no_argument, 0, OPT_JSON},
        {"no-minimize", no_argument, 0, OPT_NO_MIN}, {"kernel", required_argument, 0, OPT_KERNEL},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"backend", required_argument, 0, OPT_BACKEND}, {"tol", required_argument, 0, OPT_TOL},
        {"max-tries", required_argument, 0, OPT_MAX_TRIES},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (triage_opts){.backend = "auto", .tol = 1e-6, .max_tries = 2000, .minimize = 1};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': return 1;
        case 'o': o->out = optarg; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_NO_MIN: o->minimize = 0; break;
        case OPT_KERNEL:
            if (df_kernel_list_add(&o->kernel, optarg) != 0)
                return -1;
            break;
        case OPT_KERNEL_LIB:
            if (df_plugin_paths_add_cli("triage", &o->libs, optarg) != 0)
                return -1;
            break;
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_TOL:
            if (df_parse_tol_cli("triage", optarg, &o->tol) != 0)
                return -1;
            break;
        case OPT_MAX_TRIES:
            if (df_parse_max_tries_cli("triage", optarg, &o->max_tries) != 0)
                return -1;
            break;
        case OPT_WATCHDOG:
            if (df_parse_watchdog_cli("triage", optarg, &o->watchdog_s) != 0)
                return -1;
            break;
        case ':': df_usage_error("triage", "option %s needs a value", argv[optind - 1]); return -1;
        default: df_usage_error("triage", "unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (argc - optind != 1) {
        df_usage_error("triage", "%s", "needs one DIR (a campaign directory or a folder of "
                                       "case files)");
        return -1;
    }
    o->dir = argv[optind];
    return 0;
}

/* The reproducers' folder must not be the folder read, nor its findings/.
 * 0, or -1 said. */
static int out_apart(const char *dir, const char *out)
{
    char rd[PATH_MAX], rf[PATH_MAX], ro[PATH_MAX], findings[PATH_MAX + 16];
    snprintf(findings, sizeof findings, "%s/findings", dir);
    if (!realpath(out, ro))
        return 0; /* not there yet: made fresh */
    if ((realpath(dir, rd) && !strcmp(rd, ro)) || (realpath(findings, rf) && !strcmp(rf, ro))) {
        df_usage_error("triage", "-o '%s' is the folder of the findings: the reproducers go "
                                 "beside them, never among them", out);
        return -1;
    }
    return 0;
}

/* The names the --kernel list gives, into *names (malloc'd); 0 or -1 said. */
static int filter_of(const char *list, const char ***names, size_t *n)
{
    const df_kernel *ks[4 * DF_KERNEL_SET];
    unsigned char named[4 * DF_KERNEL_SET];
    if (df_kernels_of("triage", list, ks, named, 4 * DF_KERNEL_SET, n) != 0)
        return -1;
    *names = malloc((*n ? *n : 1) * sizeof **names);
    if (!*names)
        return -1;
    for (size_t i = 0; i < *n; i++)
        (*names)[i] = ks[i]->name;
    return 0;
}

static df_outcome triage(triage_opts *o)
{
    if (df_load_plugins_cli("triage", &o->libs) != 0)
        return DF_OUTCOME_USAGE;
    df_triage_filter flt = {0};
    const char **names = NULL;
    if (o->kernel && filter_of(o->kernel, &names, &flt.n) != 0)
        return DF_OUTCOME_USAGE;
    flt.names = names;
    char out[DF_TRIAGE_PATH_CAP];
    snprintf(out, sizeof out, "%s", o->out ? o->out : o->dir);
    if (!o->out && strlen(o->dir) + sizeof "/triage" <= sizeof out)
        strcat(out, "/triage");
    df_triage t = {0};
    df_outcome res = out_apart(o->dir, out) != 0 ? DF_OUTCOME_USAGE
                                                 : df_triage_dir("triage", o->dir, &flt, &t);
    if (res == DF_OUTCOME_CLEAN && o->minimize && t.nbugs) {
        df_triage_min_opts mo = {.backend = o->backend, .out = out, .tol = o->tol,
                                 .watchdog_s = o->watchdog_s, .max_tries = o->max_tries};
        res = df_dir_writable_cli("triage", "-o", out) != 0 ? DF_OUTCOME_ENV
                                                            : df_triage_minimize("triage", &t, &mo);
    }
    if (res == DF_OUTCOME_CLEAN || (res == DF_OUTCOME_ENV && t.nbugs)) {
        if (o->json)
            df_triage_print_json(stdout, &t);
        else
            df_triage_print(stdout, &t);
        if (t.unreadable)
            res = df_outcome_worst(res, DF_OUTCOME_USAGE);
        if (t.nbugs)
            res = df_outcome_worst(res, DF_OUTCOME_BUG);
    }
    df_triage_free(&t);
    free(names);
    return res;
}

df_outcome df_cmd_triage(int argc, char **argv)
{
    triage_opts o;
    int p = parse_triage_opts(argc, argv, &o);
    df_outcome out = DF_OUTCOME_USAGE;
    if (p > 0) {
        triage_usage(stdout);
        out = DF_OUTCOME_CLEAN;
    } else if (p == 0) {
        out = triage(&o);
    }
    free(o.kernel);
    return out;
}
