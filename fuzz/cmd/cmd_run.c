/* cmd_run.c — `dotfuzz run`: a campaign. Case i of seed S goes to kernel
 * i mod K of the selected kernels, is generated from (S, i), judged, and
 * saved to the corpus when its verdict is not ok. Without --out it runs in
 * this process (fuzz/run/engine.c); with --out or --resume a supervisor runs
 * it in worker processes that may crash or hang (fuzz/run/campaign.c). Status
 * lines go to stderr once a second (libFuzzer style), the summary to
 * stdout. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/run/run.h"
#include "fuzz/run/options.h"
#include "fuzz/run/sanitize.h"
#include "fuzz/run/select.h"
#include "fuzz/run/supervisor.h"

static void run_usage(FILE *f)
{
    fputs("usage: dotfuzz run [OPTIONS]\n"
          "\n"
          "  --kernel LIST        kernels to fuzz, comma-separated, repeatable: names, 'all'\n"
          "                       (default: every correct kernel the backend runs, those\n"
          "                       of --kernel-lib included), 'mutants' (the known-buggy ones)\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable; the ABI\n"
          "                       is include/dotfuzz/plugin.h)\n"
          "  --time DURATION      stop after this long: 10, 10s, 1.5m, 8h (default 60s\n"
          "                       when --cases is not given either; 0: no time limit,\n"
          "                       until --cases or Ctrl-C)\n"
          "  --cases N            stop after N cases, N >= 1 (a campaign's total, over resumes)\n"
          "  --seed S             campaign seed (default: random, printed)\n"
          "  --max-n N            longest vector (default 65536; k/M suffixes)\n"
          "  --long-n N           every 16384th case is long instead: n drawn in\n"
          "                       [2^21 + 1, N] (default 4194304; 0: none; none by\n"
          "                       default when --max-n is below 65536)\n"
          "  --huge               cuda: one case in --huge-every is huge, n in\n"
          "                       [2^31 + 1, 2^31 + 2^26], for the kernels that take\n"
          "                       lengths past 2^31 in turn (see docs/cli.md)\n"
          "  --huge-every N       with --huge: the window holding one huge case (default\n"
          "                       4194304, at least 524288)\n"
          "  --huge-bytes B       with --huge: the most a huge case's two vectors take\n"
          "                       (default 17G: every f32 kernel, no f64 one; 33G: both)\n"
          "  --family NAME|all    generator family (default all)\n"
          "  --tol X              relative tolerance of a precision finding (default 1e-6)\n"
          "  --corpus DIR         where findings are saved (default corpus/findings;\n"
          "                       with --out, DIR/findings)\n"
          "  --save-precision W   which precision findings to save: worst (default: a\n"
          "                       kernel's worst relative error so far), all, none\n"
          "  --save-bugs W        which bug findings to save: new (default: one per kernel,\n"
          "                       verdict, rule and log2 error ratio), all, none\n"
          "  --backend B          cuda, host or auto (default auto: cuda when a GPU is present)\n"
          "  --debug-invariants   fold/tournament check their loop invariant every round (cuda)\n"
          "  --meta-every N       metamorphic checks (rerun, negate, scale, permute) on one\n"
          "                       case in N (default 16; 0 = off)\n"
          "  --reruns R           reruns of a sampled case for the determinism check (default 2)\n"
          "  --schedule N         rerun one case in N under a perturbed schedule (cuda: noise\n"
          "                       on a share of the SMs, memory traffic, a cold L2, poisoned\n"
          "                       buffers, another grid): a bug there is rule schedule, saved\n"
          "                       with its perturbation (default 0 = off)\n"
          "  --batch N            cases checked together: generated, referenced, modelled and\n"
          "                       judged on every core, run a kernel at a time on the backend,\n"
          "                       recorded in order (default 2^24 / --max-n and at least\n"
          "                       256 a kernel, within [256, 4096]: every kernel at the\n"
          "                       default --max-n 4096, one kernel 256; 1 = one at a\n"
          "                       time; the verdicts are the same either way)\n"
          "  --threads N          CPU threads for a batch (default 0: every core, shared\n"
          "                       among the campaign's workers)\n"
          "  --pipeline M         double-buffered batches: the next batch is generated and\n"
          "                       referenced while this one runs and is judged (with --gen\n"
          "                       gpu, the one after it generated too): auto (default: on\n"
          "                       with the cuda backend), on, off\n"
          "  --gen W              where a batch's vectors are made: cpu (every core), gpu\n"
          "                       (the GPU, from the same PCG32 streams, the same bytes;\n"
          "                       copied back for the references), split (each double-\n"
          "                       buffered batch on the GPU when the CPUs fell behind with\n"
          "                       the last, else on the CPU), auto (default: on the cuda\n"
          "                       backend with double-buffered batches, gpu for one kernel\n"
          "                       and split for several; gpu for cases past 65,536\n"
          "                       elements; else cpu)\n"
          "\n"
          "  --sanitize TOOL      after the run, each kernel's first cases and every finding\n"
          "                       of this run again under compute-sanitizer's TOOL\n"
          "                       (memcheck, racecheck, synccheck, initcheck), one child\n"
          "                       process each: a report is a bug, rule sanitizer (with --out:\n"
          "                       the session's new findings in DIR/findings)\n"
          "  --sanitize-cases N   each kernel's sample under the tool (default 16)\n"
          "\n"
          "campaigns (a supervisor and worker processes that may crash or hang):\n"
          "  --out DIR            keep the campaign's state, stats, log and findings in DIR\n"
          "                       (new or empty); see docs/campaigns.md\n"
          "  --resume DIR         continue the campaign in DIR with its own options (only\n"
          "                       --time, --cases, --jobs, --watchdog, --stats-every,\n"
          "                       --quiet, --batch, --threads, --pipeline, --gen may be\n"
          "                       given)\n"
          "  --jobs N             worker processes (default: two per GPU with 16 usable CPUs a\n"
          "                       GPU or more, else one; 1 with --huge and on host); on\n"
          "                       several GPUs a GPU's workers keep to its share of the CPUs\n"
          "  --watchdog DURATION  a case running longer is a hang: its worker is killed and\n"
          "                       the case saved as a bug (default 60s)\n"
          "  --stats-every DURATION  rewrite DIR/fuzzer_stats this often (default 5s)\n"
          "  --quiet              no status lines and no line per finding (DIR/findings.jsonl\n"
          "                       has them)\n"
          "  -h, --help           this text\n"
          "\n"
          "exit status: 0 no bug found, 1 bug found, 2 usage error, 3 environment error\n",
          f);
}

/* --huge and its options where the command line alone says they cannot
 * work: 0, or -1 (said). The backend that auto picks and the kernels that
 * take huge cases are checked once known (df_sup_probe). */
static int huge_refused(const df_run_opts *o, const unsigned char *given)
{
    static const struct { int opt; const char *name; } with_huge[] = {
        {DF_OPT_HUGE_EVERY, "--huge-every"}, {DF_OPT_HUGE_BYTES, "--huge-bytes"}};
    for (size_t i = 0; !o->huge && i < sizeof with_huge / sizeof with_huge[0]; i++)
        if (given[with_huge[i].opt]) {
            fprintf(stderr, "dotfuzz run: %s has no effect without --huge\n", with_huge[i].name);
            return -1;
        }
    if (o->huge && df_huge_refused("run", NULL, 0, o->huge_bytes, o->backend) != 0)
        return -1;
    if (o->huge && (o->gen == DF_GEN_GPU || o->gen == DF_GEN_SPLIT)) {
        fprintf(stderr, "dotfuzz run: --gen %s has no effect with --huge, whose cases "
                        "are made on the CPU\n", o->gen == DF_GEN_GPU ? "gpu" : "split");
        return -1;
    }
    return 0;
}

static int parse_run_opts(int argc, char **argv, df_run_opts *o)
{
    df_run_opts_default(o);
    const char *fixed = NULL;
    unsigned char given[DF_OPT_HUGE_BYTES + 1] = {0};
    int ch, li = -1;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", df_run_longopts, &li)) != -1) {
        if (ch > 0 && ch <= DF_OPT_HUGE_BYTES)
            given[ch] = 1;
        if (ch == 'h')
            return 1;
        if (ch == ':') {
            df_usage_error("run", "option %s needs a value", argv[optind - 1]);
            return -1;
        }
        if (ch == '?') {
            df_usage_error("run", "unknown option '%s'", argv[optind - 1]);
            return -1;
        }
        if (ch == DF_OPT_KERNEL_LIB) {
            if (df_plugin_paths_add_cli("run", &o->libs, optarg) != 0)
                return -1;
        } else {
            const char *bad = df_run_option_value(o, ch, optarg);
            if (bad) {
                fprintf(stderr, "dotfuzz run: invalid value '%s' for %s\n", optarg, bad);
                return -1;
            }
        }
        if (df_run_option_fixes_cases(ch) && !fixed && li >= 0)
            fixed = df_run_longopts[li].name;
        li = -1;
    }
    if (optind < argc) {
        df_usage_error("run", "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (o->resume && fixed) {
        fprintf(stderr, "dotfuzz run: --resume takes the campaign's options from its "
                        "directory; --%s cannot be given (see dotfuzz run --help)\n", fixed);
        return -1;
    }
    /* --max-n is the longest vector a user asks for: below the default it
     * keeps the long cases out too, unless --long-n asks for them */
    if (given[DF_OPT_MAXN] && !given[DF_OPT_LONG_N] && o->max_n < DF_RUN_MAX_N_DEFAULT)
        o->long_n = 0;
    if ((o->out || o->resume) && given[DF_OPT_CORPUS]) {
        fprintf(stderr, "dotfuzz run: with --out, findings go to DIR/findings: drop --corpus\n");
        return -1;
    }
    /* an option that would change nothing is refused, not ignored */
    if (given[DF_OPT_STATS_EVERY] && !o->out && !o->resume) {
        fprintf(stderr, "dotfuzz run: --stats-every has no effect without a campaign "
                        "directory (--out DIR), where fuzzer_stats is written\n");
        return -1;
    }
    static const struct { int opt; const char *name; } batched[] = {
        {DF_OPT_THREADS, "--threads"}, {DF_OPT_PIPELINE, "--pipeline"}, {DF_OPT_GEN, "--gen"}};
    for (size_t i = 0; o->batch == 1 && i < sizeof batched / sizeof batched[0]; i++)
        if (given[batched[i].opt]) {
            fprintf(stderr, "dotfuzz run: %s has no effect with --batch 1 (one case at a "
                            "time, on the worker's own thread)\n", batched[i].name);
            return -1;
        }
    df_sanitizer probe;
    if (o->sanitize && df_sanitizer_parse("run", o->sanitize, &probe) != 0)
        return -1;
    if (given[DF_OPT_SANITIZE_CASES] && !o->sanitize) {
        fprintf(stderr, "dotfuzz run: --sanitize-cases has no effect without --sanitize\n");
        return -1;
    }
    if (huge_refused(o, given) != 0)
        return -1;
    if (o->kernel_given)
        o->kernel = o->kernel_given;
    if (o->time_s < 0)
        o->time_s = o->cases ? 0 : 60;
    if (!o->resume && o->watchdog_s == 0)
        o->watchdog_s = df_run_default_watchdog(o);
    if (!o->seed_set)
        o->seed = df_fresh_seed();
    return 0;
}


/* ---- no campaign directory ---- */

/* The cases in worker processes, findings into --corpus. */
static df_outcome run_supervised(df_run_opts *o)
{
    df_sup s;
    if (df_sup_init(&s, o) != 0) {
        df_sup_free(&s);
        return DF_OUTCOME_ENV;
    }
    df_outcome out = DF_OUTCOME_CLEAN;
    int rc = df_load_plugins_cli("run", &o->libs) != 0 ? -1 : df_sup_probe(&s);
    if (rc != 0)
        out = rc == -1 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
    else if (df_dir_writable_cli("run", "--corpus", o->corpus) != 0)
        out = DF_OUTCOME_ENV;
    if (out != DF_OUTCOME_CLEAN) {
        df_sup_free(&s);
        return out;
    }
    df_sup_plan_workers(&s);
    /* the backend said once: its note ("backend host: ...") names it */
    if (!o->quiet)
        fprintf(stderr,
                "dotfuzz run: seed %llu, %zu kernel(s), %s, max-n %llu, tol %g, corpus %s, "
                "%u worker(s), watchdog %g s\n",
                (unsigned long long)o->seed, s.nk, s.note, (unsigned long long)o->max_n, o->tol,
                o->corpus, s.jobs, o->watchdog_s);
    struct timespec since;
    clock_gettime(CLOCK_REALTIME, &since);
    out = df_run_finish(&s, df_sup_run(&s), 0);
    if (o->sanitize && out != DF_OUTCOME_ENV && out != DF_OUTCOME_USAGE)
        out = df_outcome_worst(out, df_sanitize_after_run(&s, o, o->corpus, since));
    df_sup_free(&s);
    return out;
}

df_outcome df_cmd_run(int argc, char **argv)
{
    df_run_opts o;
    int p = parse_run_opts(argc, argv, &o);
    df_outcome out;
    if (p > 0) {
        run_usage(stdout);
        out = DF_OUTCOME_CLEAN;
    } else if (p < 0) {
        out = DF_OUTCOME_USAGE;
    } else {
        df_note_threads("run", o.threads);
        out = o.out || o.resume ? (df_outcome)df_campaign_run(&o, argc, argv)
                                : run_supervised(&o);
    }
    free(o.kernel_given);
    return out;
}
