/* options.c — run's options (options.h): the table, the parser of one
 * value that the command line and a campaign file share, and what the
 * options give the generator and the watchdog. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/util.h"
#include "fuzz/corpus.h"
#include "fuzz/run/run.h"
#include "fuzz/run/options.h"
#include "fuzz/run/select.h"

int df_run_parse_save(const char *v, int *s)
{
    if (!strcmp(v, "all"))
        *s = DF_SAVE_ALL;
    else if (!strcmp(v, "none"))
        *s = DF_SAVE_NONE;
    else if (!strcmp(v, "new") || !strcmp(v, "worst"))
        *s = DF_SAVE_NEW;
    else
        return -1;
    return 0;
}

int df_run_parse_gen(const char *v, int *mode)
{
    static const char *const words[] = {"auto", "cpu", "gpu", "split"};
    for (int i = 0; i < (int)(sizeof words / sizeof *words); i++)
        if (strcmp(v, words[i]) == 0) {
            *mode = i;
            return 0;
        }
    return -1;
}

int df_run_parse_pipeline(const char *v, int *mode)
{
    if (!strcmp(v, "auto"))
        *mode = DF_PIPE_AUTO;
    else if (!strcmp(v, "on"))
        *mode = DF_PIPE_ON;
    else if (!strcmp(v, "off"))
        *mode = DF_PIPE_OFF;
    else
        return -1;
    return 0;
}


int df_run_option_fixes_cases(int ch)
{
    return ch == 'k' || ch == DF_OPT_SEED || ch == DF_OPT_MAXN || ch == DF_OPT_TOL ||
           ch == DF_OPT_CORPUS || ch == DF_OPT_BACKEND || ch == DF_OPT_FAMILY || ch == DF_OPT_DEBUG_INV ||
           ch == DF_OPT_SAVE_PREC || ch == DF_OPT_SAVE_BUGS || ch == DF_OPT_META_EVERY ||
           ch == DF_OPT_RERUNS || ch == DF_OPT_KERNEL_LIB || ch == DF_OPT_OUT ||
           ch == DF_OPT_LONG_N || ch == DF_OPT_SCHEDULE || ch == DF_OPT_HUGE ||
           ch == DF_OPT_HUGE_EVERY || ch == DF_OPT_HUGE_BYTES;
}

void df_run_gen_opts(const df_run_opts *o, const df_kernel *const *ks, size_t nk,
                     df_gen_opts *go)
{
    *go = (df_gen_opts){.max_n = o->max_n, .long_n = o->long_n};
    if (strcmp(o->family, "all") != 0)
        go->family = df_family_find(o->family)->id;
    df_gen_share(go, ks, nk);
    if (!o->huge)
        return;
    go->huge_every = o->huge_every;
    go->huge_bytes = o->huge_bytes;
    go->cycle = (uint32_t)nk;
    go->huge_mask = df_gen_huge_mask(ks, nk, o->huge_bytes);
}

void df_run_opts_default(df_run_opts *o)
{
    *o = (df_run_opts){.kernel = "all", .backend = "auto", .corpus = "corpus/findings",
                       .family = "all", .time_s = -1, .max_n = DF_RUN_MAX_N_DEFAULT,
                       .long_n = DF_GEN_LONG_DEFAULT, .huge_every = DF_GEN_HUGE_EVERY_RUN,
                       .huge_bytes = DF_GEN_HUGE_BYTES_DEFAULT, .tol = 1e-6,
                       .save_precision = DF_SAVE_NEW, .save_bugs = DF_SAVE_NEW,
                       .meta = {.every = 16, .reruns = 2},
                       .stats_every_s = 5, .batch = 0};
}

uint32_t df_run_default_batch(uint64_t max_n, size_t nk)
{
    uint64_t b = max_n ? ((uint64_t)1 << 24) / max_n : DF_RUN_BATCH_MAX;
    uint64_t each = 256 * (uint64_t)nk;
    b = b > each ? b : each;
    return (uint32_t)(b < 256 ? 256 : b > DF_RUN_BATCH_MAX ? DF_RUN_BATCH_MAX : b);
}

double df_run_default_watchdog(const df_run_opts *o)
{
    uint64_t batch = o->batch ? o->batch : DF_RUN_BATCH_MAX; /* 0: chosen later, at most this */
    return df_watchdog_for(batch * o->max_n +
                           (o->huge ? 8 * DF_GEN_HUGE_MAX : 0));
}

const char *df_run_option_value(df_run_opts *o, int ch, const char *arg)
{
    uint64_t v;
    switch (ch) {
    case 'k': return df_kernel_list_add(&o->kernel_given, arg) ? "--kernel" : NULL;
    case 't': return df_parse_duration(arg, &o->time_s) ? "--time" : NULL;
    case 'c': /* 0 would mean no limit, not "stop after 0 cases" */
        return df_parse_u64(arg, &o->cases) || o->cases == 0 ? "--cases" : NULL;
    case DF_OPT_SEED: o->seed_set = 1; return df_parse_u64(arg, &o->seed) ? "--seed" : NULL;
    case DF_OPT_MAXN: /* findings must fit a case file */
        return df_parse_u64(arg, &o->max_n) || o->max_n == 0 || o->max_n > DF_CORPUS_MAX_N
                   ? "--max-n" : NULL;
    case DF_OPT_TOL: return df_parse_double(arg, &o->tol) || o->tol < 0 ? "--tol" : NULL;
    case DF_OPT_CORPUS: o->corpus = arg; return NULL;
    case DF_OPT_BACKEND: o->backend = arg; return NULL;
    case DF_OPT_FAMILY: o->family = arg; return NULL;
    case DF_OPT_DEBUG_INV: o->debug_invariants = 1; return NULL;
    case DF_OPT_META_EVERY:
        if (df_parse_u64(arg, &v) || v > 0xffffffffu)
            return "--meta-every";
        o->meta.every = (uint32_t)v;
        return NULL;
    case DF_OPT_RERUNS:
        if (df_parse_u64(arg, &v) || v > 64)
            return "--reruns";
        o->meta.reruns = (uint32_t)v;
        return NULL;
    case DF_OPT_SCHEDULE:
        if (df_parse_u64(arg, &v) || v > 0xffffffffu)
            return "--schedule";
        o->meta.schedule = (uint32_t)v;
        return NULL;
    case DF_OPT_SAVE_PREC:
        return strcmp(arg, "new") == 0 || df_run_parse_save(arg, &o->save_precision)
                   ? "--save-precision" : NULL;
    case DF_OPT_SAVE_BUGS:
        return strcmp(arg, "worst") == 0 || df_run_parse_save(arg, &o->save_bugs)
                   ? "--save-bugs" : NULL;
    case DF_OPT_OUT: o->out = arg; return NULL;
    case DF_OPT_RESUME: o->resume = arg; return NULL;
    case DF_OPT_JOBS:
        if (df_parse_u64(arg, &v) || v == 0 || v > 256)
            return "--jobs";
        o->jobs = (uint32_t)v;
        return NULL;
    case DF_OPT_WATCHDOG:
        return df_parse_duration(arg, &o->watchdog_s) || !(o->watchdog_s > 0) ? "--watchdog"
                                                                               : NULL;
    case DF_OPT_STATS_EVERY:
        return df_parse_duration(arg, &o->stats_every_s) || !(o->stats_every_s > 0)
                   ? "--stats-every" : NULL;
    case DF_OPT_QUIET: o->quiet = 1; return NULL;
    case DF_OPT_BATCH:
        if (df_parse_u64(arg, &v) || v == 0 || v > 65536)
            return "--batch";
        o->batch = (uint32_t)v;
        return NULL;
    case DF_OPT_PIPELINE: return df_run_parse_pipeline(arg, &o->pipeline) ? "--pipeline" : NULL;
    case DF_OPT_GEN: return df_run_parse_gen(arg, &o->gen) ? "--gen" : NULL;
    case DF_OPT_SANITIZE: o->sanitize = arg; return NULL;
    case DF_OPT_LONG_N:
        return df_parse_u64(arg, &o->long_n) ||
                       (o->long_n && (o->long_n < DF_GEN_LONG_MIN || o->long_n > DF_CORPUS_MAX_N))
                   ? "--long-n" : NULL;
    case DF_OPT_HUGE: o->huge = 1; return NULL;
    case DF_OPT_HUGE_EVERY: /* at least a window past the batches a run holds at once */
        return df_parse_u64(arg, &o->huge_every) || o->huge_every < DF_GEN_HUGE_EVERY_RUN_MIN
                   ? "--huge-every" : NULL;
    case DF_OPT_HUGE_BYTES:
        return df_parse_u64(arg, &o->huge_bytes) ? "--huge-bytes" : NULL;
    case DF_OPT_SANITIZE_CASES:
        return df_parse_u64(arg, &o->sanitize_cases) || o->sanitize_cases == 0 ||
                       o->sanitize_cases > 100000
                   ? "--sanitize-cases" : NULL;
    case DF_OPT_THREADS:
        if (df_parse_u64(arg, &v) || v > 1024)
            return "--threads";
        o->threads = (uint32_t)v;
        return NULL;
    }
    return NULL;
}

const struct option df_run_longopts[] = {
    {"kernel", required_argument, 0, 'k'}, {"time", required_argument, 0, 't'},
    {"cases", required_argument, 0, 'c'},  {"seed", required_argument, 0, DF_OPT_SEED},
    {"max-n", required_argument, 0, DF_OPT_MAXN}, {"tol", required_argument, 0, DF_OPT_TOL},
    {"corpus", required_argument, 0, DF_OPT_CORPUS},
    {"backend", required_argument, 0, DF_OPT_BACKEND},
    {"family", required_argument, 0, DF_OPT_FAMILY},
    {"debug-invariants", no_argument, 0, DF_OPT_DEBUG_INV},
    {"save-precision", required_argument, 0, DF_OPT_SAVE_PREC},
    {"save-bugs", required_argument, 0, DF_OPT_SAVE_BUGS},
    {"meta-every", required_argument, 0, DF_OPT_META_EVERY},
    {"reruns", required_argument, 0, DF_OPT_RERUNS},
    {"schedule", required_argument, 0, DF_OPT_SCHEDULE},
    {"kernel-lib", required_argument, 0, DF_OPT_KERNEL_LIB},
    {"out", required_argument, 0, DF_OPT_OUT},
    {"resume", required_argument, 0, DF_OPT_RESUME},
    {"jobs", required_argument, 0, DF_OPT_JOBS},
    {"watchdog", required_argument, 0, DF_OPT_WATCHDOG},
    {"stats-every", required_argument, 0, DF_OPT_STATS_EVERY},
    {"quiet", no_argument, 0, DF_OPT_QUIET},
    {"batch", required_argument, 0, DF_OPT_BATCH},
    {"threads", required_argument, 0, DF_OPT_THREADS},
    {"pipeline", required_argument, 0, DF_OPT_PIPELINE},
    {"gen", required_argument, 0, DF_OPT_GEN},
    {"sanitize", required_argument, 0, DF_OPT_SANITIZE},
    {"long-n", required_argument, 0, DF_OPT_LONG_N},
    {"sanitize-cases", required_argument, 0, DF_OPT_SANITIZE_CASES},
    {"huge", no_argument, 0, DF_OPT_HUGE},
    {"huge-every", required_argument, 0, DF_OPT_HUGE_EVERY},
    {"huge-bytes", required_argument, 0, DF_OPT_HUGE_BYTES},
    {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
};

const char *df_run_option(df_run_opts *o, const char *name, const char *value)
{
    for (const struct option *op = df_run_longopts; op->name; op++)
        if (!strcmp(op->name, name) && op->has_arg == required_argument && op->val != 'k' &&
            op->val != DF_OPT_KERNEL_LIB)
            return df_run_option_value(o, op->val, value);
    return name;
}
