/* cmd_smoke.c — `dotfuzz smoke`: the CI gate. Replays the committed
 * regression corpus, then fuzzes every kernel for a fixed time from a fixed
 * seed and a fresh one, stops at the first reproducible new bug, saves it,
 * and writes what CI systems read: a JUnit XML report and a JSON summary.
 *
 * Judging is `replay`'s for the corpus (metamorphic checks on every case)
 * and `run`'s for the fuzzing (one case in 16), so a failure here
 * reproduces with the replay command printed beside it.
 *
 * This file holds the options and the order of the steps; the run itself
 * is smoke_run.c, the summary and reports smoke_report.c (smoke.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/cmd/smoke.h"
#include "fuzz/plugin.h"
#include "fuzz/pool.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/run/select.h"
#include "fuzz/util.h"

static void smoke_usage(FILE *f)
{
    fputs("usage: dotfuzz smoke [OPTIONS]\n"
          "\n"
          "The CI gate: replays the regression corpus, then fuzzes every kernel from a\n"
          "fixed seed and a fresh one, stopping at the first reproducible new bug, which\n"
          "is saved. Writes a JUnit XML report and a JSON summary when asked.\n"
          "\n"
          "  --corpus DIR         regression corpus to replay (repeatable; default\n"
          "                       corpus/regression)\n"
          "  --kernel LIST        kernels to fuzz, comma-separated, repeatable: names, 'all',\n"
          "                       'mutants' (default all that the backend runs, as run)\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable)\n"
          "  --backend B          cuda, host or auto (default auto)\n"
          "  --time DURATION      fuzzing time, split over the two seeds (default 30s; 0:\n"
          "                       the regression corpus alone)\n"
          "  --watchdog DURATION  a case running longer is a hang (bug; default 10s, or\n"
          "                       400 ns an element of longer cases)\n"
          "  --seed S             the fixed seed (default 1); the other is random, printed\n"
          "  --findings DIR       where a new bug is saved (default corpus/findings)\n"
          "  --junit FILE         write a JUnit XML report\n"
          "  --json FILE          write a JSON summary\n"
          "  --sanitize TOOL      replay each regression file again under compute-sanitizer's\n"
          "                       TOOL (memcheck, racecheck, synccheck, initcheck): a report\n"
          "                       fails the file (rule sanitizer)\n"
          "  -h, --help           this text\n"
          "\n"
          "A bug is reproducible when a second check of the case says bug again (else it\n"
          "is reported as flaky and fuzzing goes on), new when its case file's SHA-1 name\n"
          "is not one of the replayed corpus's. A regression case fails when its verdict\n"
          "is bug or differs from the verdict its file records.\n"
          "\n"
          "exit status: 0 no bug, 1 a regression case failed or a reproducible new bug,\n"
          "2 usage error or unreadable corpus file, 3 environment error\n",
          f);
}

enum { OPT_CORPUS = 256, OPT_KERNEL, OPT_KERNEL_LIB, OPT_BACKEND, OPT_SEED, OPT_FINDINGS,
       OPT_JUNIT, OPT_JSON, OPT_WATCHDOG, OPT_SANITIZE };

/* One option into o; returns the name of the option whose value is bad. */
static const char *smoke_opt(int ch, const char *arg, df_smoke_opts *o, int *corpus_set)
{
    switch (ch) {
    case OPT_CORPUS:
        if (!*corpus_set)
            o->ndirs = 0; /* the first --corpus replaces the default */
        *corpus_set = 1;
        if (o->ndirs == DF_SMOKE_MAX_DIRS)
            return "--corpus (too many)";
        o->dirs[o->ndirs++] = arg;
        return NULL;
    case OPT_KERNEL:
        return df_kernel_list_add(&o->kernels, arg) ? "--kernel" : NULL;
    case OPT_BACKEND: o->backend = arg; return NULL;
    case 't': return df_parse_duration(arg, &o->time_s) ? "--time" : NULL;
    case OPT_SEED: return df_parse_u64(arg, &o->seed) ? "--seed" : NULL;
    case OPT_FINDINGS: o->findings = arg; return NULL;
    case OPT_JUNIT: o->junit = arg; return NULL;
    case OPT_JSON: o->json = arg; return NULL;
    case OPT_WATCHDOG:
        return df_parse_duration(arg, &o->watchdog_s) || !(o->watchdog_s > 0) ? "--watchdog"
                                                                               : NULL;
    case OPT_SANITIZE: return df_sanitizer_parse("smoke", arg, &o->san) ? "--sanitize" : NULL;
    }
    return "?";
}

static int parse_smoke_opts(int argc, char **argv, df_smoke_opts *o)
{
    static const struct option longopts[] = {
        {"corpus", required_argument, 0, OPT_CORPUS},
        {"kernel", required_argument, 0, OPT_KERNEL},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"backend", required_argument, 0, OPT_BACKEND}, {"time", required_argument, 0, 't'},
        {"seed", required_argument, 0, OPT_SEED},
        {"findings", required_argument, 0, OPT_FINDINGS},
        {"junit", required_argument, 0, OPT_JUNIT}, {"json", required_argument, 0, OPT_JSON},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"sanitize", required_argument, 0, OPT_SANITIZE},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (df_smoke_opts){.backend = "auto", .findings = "corpus/findings", .time_s = 30,
                      .seed = DF_SMOKE_SEED, .dirs = {"corpus/regression"}, .ndirs = 1};
    int ch, corpus_set = 0;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (ch == 'h')
            return 1;
        if (ch == ':') {
            df_usage_error("smoke", "option %s needs a value", argv[optind - 1]);
            return -1;
        }
        if (ch == '?') {
            df_usage_error("smoke", "unknown option '%s'", argv[optind - 1]);
            return -1;
        }
        if (ch == OPT_KERNEL_LIB) {
            if (df_plugin_paths_add_cli("smoke", &o->libs, optarg) != 0)
                return -1;
            continue;
        }
        const char *bad = smoke_opt(ch, optarg, o, &corpus_set);
        if (bad) {
            fprintf(stderr, "dotfuzz smoke: invalid value '%s' for %s\n", optarg, bad);
            return -1;
        }
    }
    if (optind < argc) {
        df_usage_error("smoke", "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if ((o->junit && df_output_ok_cli("smoke", "--junit", o->junit) != 0) ||
        (o->json && df_output_ok_cli("smoke", "--json", o->json) != 0))
        return -1;
    return 0;
}

static void smoke_free(df_smoke_state *st)
{
    for (size_t i = 0; i < st->nreg; i++) {
        free(st->reg[i].file);
        free(st->reg[i].message);
        free(st->reg[i].detail);
    }
    free(st->reg);
    free(st->known);
    df_scratch_free(&st->buf);
    df_sandbox_close(st->sb);
    free(st);
}

static df_outcome smoke_main(const df_smoke_opts *opts)
{
    df_smoke_state *st = calloc(1, sizeof *st);
    if (!st)
        return DF_OUTCOME_ENV;
    st->o = opts;
    if (opts->san.tool)
        snprintf(st->san_label, sizeof st->san_label, "compute-sanitizer %s", opts->san.tool);
    df_outcome out = df_sandbox_open("smoke", opts->backend, 0, opts->watchdog_s, &st->sb);
    if (out == DF_OUTCOME_CLEAN)
        out = df_smoke_select_kernels(st);
    if (out == DF_OUTCOME_CLEAN && df_dir_writable_cli("smoke", "--findings", opts->findings))
        out = DF_OUTCOME_ENV;
    if (out != DF_OUTCOME_CLEAN) {
        smoke_free(st);
        return out;
    }
    st->seeds[0] = (df_smoke_seed){.label = "fixed", .seed = opts->seed};
    st->seeds[1] = (df_smoke_seed){.label = "fresh", .seed = df_fresh_seed()};
    fprintf(stderr, "dotfuzz smoke: %s\n", df_sandbox_note(st->sb));
    printf("dotfuzz smoke: seeds %llu (fixed) and %llu (fresh), %zu kernel(s), %.0f s of "
           "fuzzing\n",
           (unsigned long long)st->seeds[0].seed, (unsigned long long)st->seeds[1].seed,
           st->nk, opts->time_s);
    fflush(stdout);
    double t0 = df_now();
    st->started = time(NULL);
    df_smoke_run(st);
    double elapsed = df_now() - t0;
    df_smoke_print_summary(st, elapsed);
    out = st->out;
    if (opts->junit && df_smoke_write_report(opts->junit, st, elapsed, out, 1) != 0)
        out = df_outcome_worst(out, DF_OUTCOME_ENV);
    if (opts->json && df_smoke_write_report(opts->json, st, elapsed, out, 0) != 0)
        out = df_outcome_worst(out, DF_OUTCOME_ENV);
    smoke_free(st);
    return out;
}

df_outcome df_cmd_smoke(int argc, char **argv)
{
    df_smoke_opts o;
    int p = parse_smoke_opts(argc, argv, &o);
    df_outcome out = DF_OUTCOME_USAGE;
    if (p > 0) {
        smoke_usage(stdout);
        out = DF_OUTCOME_CLEAN;
    } else if (p == 0 && df_load_plugins_cli("smoke", &o.libs) == 0) {
        out = smoke_main(&o);
    }
    free(o.kernels);
    return out;
}
