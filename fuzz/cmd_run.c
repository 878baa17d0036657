/* cmd_run.c — `dotfuzz run`: a campaign. Case i of seed S goes to kernel
 * i mod K of the selected kernels, is generated from (S, i), judged, and
 * saved to the corpus when its verdict is not ok. Status lines go to
 * stderr once a second (libFuzzer style), the summary to stdout. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "cli_util.h"
#include "generator.h"
#include "metamorphic.h"
#include "plugin.h"

typedef struct run_opts {
    const char *kernel;
    const char *backend;
    const char *corpus;
    const char *family;
    double time_s;
    uint64_t cases;
    uint64_t seed;
    int seed_set;
    uint64_t max_n;
    double tol;
    int debug_invariants;
    int save_precision; /* SAVE_ALL, SAVE_WORST or SAVE_NONE */
    df_meta_opts meta;
    df_plugin_paths libs; /* --kernel-lib, loaded before kernels are selected */
} run_opts;

/* Precision findings can be a few percent of all cases (seed 000 saw one in
 * a few hundred): saving each would fill a disk overnight, so by default a
 * precision case is saved only when it is its kernel's worst so far. */
enum { SAVE_NONE, SAVE_WORST, SAVE_ALL };

typedef struct kernel_tally {
    uint64_t cases;
    uint64_t verdicts[DF_V_COUNT];
    uint64_t model_equal; /* cuda: results equal to the host model bit for bit */
    uint64_t meta_checked; /* cases that went through the metamorphic checks */
    uint64_t seed_alarms;  /* cases seed 000's oracle flags: relative error > tol alone */
    uint64_t seed_alarms_bug; /* ... of which ours calls bug */
    double worst_ratio;
    double worst_rel_saved; /* worst relative error of a saved precision case */
} kernel_tally;

typedef struct run_state {
    const df_kernel *kernels[64];
    kernel_tally tally[64];
    size_t nk;
    uint64_t cases;
    uint64_t verdicts[DF_V_COUNT];
    uint64_t saved;
    double worst_ratio;
    const char *worst_kernel;
    uint8_t bucket_seen[DF_BUCKETS / 8]; /* error regimes reached (df_error_bucket) */
    uint32_t buckets;
} run_state;

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void run_usage(FILE *f)
{
    fputs("usage: dotfuzz run [OPTIONS]\n"
          "\n"
          "  --kernel NAME|all    kernel to fuzz (default all that the backend runs,\n"
          "                       those of --kernel-lib included)\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable; the ABI\n"
          "                       is include/dotfuzz/plugin.h)\n"
          "  --time DURATION      stop after this long: 10, 10s, 5m, 8h (default 60s\n"
          "                       when --cases is not given either)\n"
          "  --cases N            stop after N cases\n"
          "  --seed S             campaign seed (default: random, printed)\n"
          "  --max-n N            longest vector (default 65536; k/M suffixes)\n"
          "  --family NAME|all    generator family (default all)\n"
          "  --tol X              relative tolerance of a precision finding (default 1e-6)\n"
          "  --corpus DIR         where findings are saved (default corpus/findings)\n"
          "  --save-precision W   which precision findings to save: worst (default: a\n"
          "                       kernel's worst relative error so far), all, none\n"
          "  --backend B          cuda, host or auto (default auto: cuda when a GPU is present)\n"
          "  --debug-invariants   fold/tournament check their loop invariant every round (cuda)\n"
          "  --meta-every N       metamorphic checks (rerun, negate, scale, permute) on one\n"
          "                       case in N (default 16; 0 = off)\n"
          "  --reruns R           reruns of a sampled case for the determinism check (default 2)\n"
          "  -h, --help           this text\n"
          "\n"
          "exit status: 0 no bug found, 1 bug found, 2 usage error, 3 environment error\n",
          f);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t fresh_seed(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&s, sizeof s, 1, f) != 1)
            s = 0;
        fclose(f);
    }
    return s ^ ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
}

enum { OPT_SEED = 256, OPT_MAXN, OPT_TOL, OPT_CORPUS, OPT_BACKEND, OPT_FAMILY,
       OPT_DEBUG_INV, OPT_SAVE_PREC, OPT_META_EVERY, OPT_RERUNS,
       OPT_KERNEL_LIB };

static int parse_run_opts(int argc, char **argv, run_opts *o)
{
    static const struct option longopts[] = {
        {"kernel", required_argument, 0, 'k'}, {"time", required_argument, 0, 't'},
        {"cases", required_argument, 0, 'c'},  {"seed", required_argument, 0, OPT_SEED},
        {"max-n", required_argument, 0, OPT_MAXN}, {"tol", required_argument, 0, OPT_TOL},
        {"corpus", required_argument, 0, OPT_CORPUS},
        {"backend", required_argument, 0, OPT_BACKEND},
        {"family", required_argument, 0, OPT_FAMILY},
        {"debug-invariants", no_argument, 0, OPT_DEBUG_INV},
        {"save-precision", required_argument, 0, OPT_SAVE_PREC},
        {"meta-every", required_argument, 0, OPT_META_EVERY},
        {"reruns", required_argument, 0, OPT_RERUNS},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (run_opts){.kernel = "all", .backend = "auto", .corpus = "corpus/findings",
                    .family = "all", .time_s = -1, .max_n = 65536, .tol = 1e-6,
                    .save_precision = SAVE_WORST, .meta = {.every = 16, .reruns = 2}};
    uint64_t v;
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        const char *bad = NULL;
        switch (ch) {
        case 'h': return 1;
        case 'k': o->kernel = optarg; break;
        case 't': if (df_parse_duration(optarg, &o->time_s)) bad = "--time"; break;
        case 'c': if (df_parse_u64(optarg, &o->cases)) bad = "--cases"; break;
        case OPT_SEED: if (df_parse_u64(optarg, &o->seed)) bad = "--seed"; o->seed_set = 1; break;
        case OPT_MAXN:
            if (df_parse_u64(optarg, &o->max_n) || o->max_n == 0 || o->max_n > DF_CORPUS_MAX_N)
                bad = "--max-n"; /* findings must fit a case file */
            break;
        case OPT_TOL: if (df_parse_double(optarg, &o->tol) || o->tol < 0) bad = "--tol"; break;
        case OPT_CORPUS: o->corpus = optarg; break;
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_FAMILY: o->family = optarg; break;
        case OPT_DEBUG_INV: o->debug_invariants = 1; break;
        case OPT_KERNEL_LIB:
            if (df_plugin_paths_add_cli("run", &o->libs, optarg) != 0)
                return -1;
            break;
        case OPT_META_EVERY:
            if (df_parse_u64(optarg, &v) || v > 0xffffffffu)
                bad = "--meta-every";
            o->meta.every = (uint32_t)v;
            break;
        case OPT_RERUNS:
            if (df_parse_u64(optarg, &v) || v > 64)
                bad = "--reruns";
            o->meta.reruns = (uint32_t)v;
            break;
        case OPT_SAVE_PREC:
            if (!strcmp(optarg, "all"))
                o->save_precision = SAVE_ALL;
            else if (!strcmp(optarg, "worst"))
                o->save_precision = SAVE_WORST;
            else if (!strcmp(optarg, "none"))
                o->save_precision = SAVE_NONE;
            else
                bad = "--save-precision";
            break;
        case ':': df_usage_error("run", "option %s needs a value", argv[optind - 1]); return -1;
        default: df_usage_error("run", "unknown option '%s'", argv[optind - 1]); return -1;
        }
        if (bad) {
            fprintf(stderr, "dotfuzz run: invalid value '%s' for %s\n", optarg, bad);
            return -1;
        }
    }
    if (optind < argc) {
        df_usage_error("run", "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (o->time_s < 0)
        o->time_s = o->cases ? 0 : 60;
    if (!o->seed_set)
        o->seed = fresh_seed();
    return 0;
}

/* Selects the kernels to fuzz; returns -1 (usage) or -2 (backend cannot
 * run the one asked for). */
/* Whether the forced family (if any) can fill k's element type. */
static int family_fits(const run_opts *o, const df_kernel *k)
{
    const df_family *f = strcmp(o->family, "all") ? df_family_find(o->family) : NULL;
    return !f || ((f->types & DF_TYPE_BIT(k->elem)) &&
                  (!f->wide_only || (k->flags & DF_K_ACC_WIDE)));
}

static int select_kernels(const run_opts *o, df_backend *b, run_state *st)
{
    if (strcmp(o->family, "all") != 0 && !df_family_find(o->family)) {
        fprintf(stderr, "dotfuzz run: unknown family '%s' (see dotfuzz list)\n", o->family);
        return -1;
    }
    if (strcmp(o->kernel, "all") != 0) {
        const df_kernel *k = df_kernel_find(o->kernel);
        if (!k) {
            fprintf(stderr, "dotfuzz run: unknown kernel '%s' (see dotfuzz list)\n", o->kernel);
            return -1;
        }
        if (!df_backend_supports(b, k)) {
            fprintf(stderr, "dotfuzz run: kernel %s cannot run on backend %s\n", k->name,
                    df_backend_name(b));
            return -2;
        }
        if (!family_fits(o, k)) {
            fprintf(stderr, "dotfuzz run: family %s has no %s values for kernel %s\n",
                    o->family, df_type_name(k->elem), k->name);
            return -1;
        }
        st->kernels[st->nk++] = k;
        return 0;
    }
    size_t nbuiltin = df_kernel_count(), nall = nbuiltin + df_plugin_count();
    for (size_t i = 0; i < nall && st->nk < 64; i++) {
        const df_kernel *k = i < nbuiltin ? df_kernel_at(i) : df_plugin_at(i - nbuiltin);
        if (df_backend_supports(b, k) && family_fits(o, k))
            st->kernels[st->nk++] = k;
        else if (!family_fits(o, k))
            fprintf(stderr, "dotfuzz run: skipping %s: family %s has no %s values\n", k->name,
                    o->family, df_type_name(k->elem));
        else
            fprintf(stderr, "dotfuzz run: skipping %s: no %s on backend %s\n", k->name,
                    strcmp(df_backend_name(b), "host") == 0 ? "host model" : "GPU launcher",
                    df_backend_name(b));
    }
    return st->nk ? 0 : -2;
}

static void status_line(const run_state *st, double elapsed, const char *tag)
{
    fprintf(stderr,
            "#%llu\t%s cases/s: %.0f ok: %llu precision: %llu nondet: %llu bug: %llu "
            "worst-ratio: %.3g%s%s%s "
            "elapsed: %.0fs\n",
            (unsigned long long)st->cases, tag, elapsed > 0 ? st->cases / elapsed : 0.0,
            (unsigned long long)st->verdicts[DF_V_OK],
            (unsigned long long)st->verdicts[DF_V_PRECISION],
            (unsigned long long)st->verdicts[DF_V_NONDET],
            (unsigned long long)st->verdicts[DF_V_BUG], st->worst_ratio,
            st->worst_kernel ? " (" : "", st->worst_kernel ? st->worst_kernel : "",
            st->worst_kernel ? ")" : "", elapsed);
}

static void summary(const run_state *st, const run_opts *o, double elapsed,
                    const char *backend)
{
    printf("dotfuzz run: %llu cases in %.1f s (%.0f cases/s) on backend %s, seed %llu\n",
           (unsigned long long)st->cases, elapsed, elapsed > 0 ? st->cases / elapsed : 0.0,
           backend, (unsigned long long)o->seed);
    printf("  %-13s %10s %10s %10s %8s %8s %12s %12s %8s %12s\n", "kernel", "cases", "ok",
           "precision", "nondet", "bug", "worst-ratio", "model-equal", "meta", "seed-alarms");
    for (size_t i = 0; i < st->nk; i++) {
        const kernel_tally *t = &st->tally[i];
        printf("  %-13s %10llu %10llu %10llu %8llu %8llu %12.3g %12llu %8llu %12llu\n",
               st->kernels[i]->name, (unsigned long long)t->cases,
               (unsigned long long)t->verdicts[DF_V_OK],
               (unsigned long long)t->verdicts[DF_V_PRECISION],
               (unsigned long long)t->verdicts[DF_V_NONDET],
               (unsigned long long)t->verdicts[DF_V_BUG], t->worst_ratio,
               (unsigned long long)t->model_equal, (unsigned long long)t->meta_checked,
               (unsigned long long)t->seed_alarms);
    }
    uint64_t alarms = 0, alarms_bug = 0;
    for (size_t i = 0; i < st->nk; i++) {
        alarms += st->tally[i].seed_alarms;
        alarms_bug += st->tally[i].seed_alarms_bug;
    }
    printf("  seed 000's oracle (rel err > %g alone) would raise %llu alarm(s), %llu of them "
           "bugs by this oracle; this oracle: %llu bug(s)\n",
           o->tol, (unsigned long long)alarms, (unsigned long long)alarms_bug,
           (unsigned long long)st->verdicts[DF_V_BUG]);
    printf("  distinct error buckets (kernel x log2 ratio x log10 cond x verdict): %u\n",
           st->buckets);
    printf("  findings saved: %llu new file(s) in %s\n", (unsigned long long)st->saved,
           o->corpus);
}

/* Same result to the bit (two NaNs are equal: payloads are not portable). */
static int bit_equal(const df_result *x, const df_result *y)
{
    if (isnan(x->f) && isnan(y->f))
        return x->i == y->i;
    return memcmp(&x->f, &y->f, sizeof x->f) == 0 && x->i == y->i;
}

static int save_precision(const run_opts *o, kernel_tally *t, const df_judgement *j)
{
    if (o->save_precision == SAVE_ALL)
        return 1;
    if (o->save_precision == SAVE_NONE || !(j->rel_err > t->worst_rel_saved))
        return 0;
    t->worst_rel_saved = j->rel_err;
    return 1;
}

/* Tallies one judged case and saves it if it is a finding. Returns -1 if
 * the corpus cannot be written. */
static int record(run_state *st, size_t ki, const run_opts *o, const df_case *c,
                  const df_checked *r)
{
    const df_judgement *j = &r->j;
    kernel_tally *t = &st->tally[ki];
    st->cases++;
    t->cases++;
    st->verdicts[j->verdict]++;
    t->verdicts[j->verdict]++;
    uint32_t bk = df_error_bucket(st->kernels[ki], j);
    if (!(st->bucket_seen[bk / 8] & (1u << (bk % 8)))) {
        st->bucket_seen[bk / 8] |= (uint8_t)(1u << (bk % 8));
        st->buckets++;
    }
    if (r->model_ran && r->model.status == DF_RUN_OK && r->res.status == DF_RUN_OK &&
        bit_equal(&r->res, &r->model))
        t->model_equal++;
    if (df_seed_oracle_alarm(j, o->tol)) {
        t->seed_alarms++;
        t->seed_alarms_bug += j->verdict == DF_V_BUG;
    }
    if (isfinite(j->err_ratio) && j->err_ratio > t->worst_ratio)
        t->worst_ratio = j->err_ratio;
    if (isfinite(j->err_ratio) && j->err_ratio > st->worst_ratio) {
        st->worst_ratio = j->err_ratio;
        st->worst_kernel = st->kernels[ki]->name;
    }
    if (j->verdict == DF_V_OK || j->verdict == DF_V_NONDET ||
        (j->verdict == DF_V_PRECISION && !save_precision(o, t, j)))
        return 0; /* nondeterministic: measured and counted, not failed */
    char path[4096];
    int is_new = 0;
    if (df_save_finding(o->corpus, c, r, path, sizeof path, &is_new) != 0) {
        perror("dotfuzz run: cannot save finding");
        return -1;
    }
    st->saved += (uint64_t)is_new;
    if (j->verdict == DF_V_BUG)
        fprintf(stderr, "BUG    %s n=%llu seed=%llu index=%llu %s: %s -> %s\n",
                st->kernels[ki]->name, (unsigned long long)c->n,
                (unsigned long long)c->seed, (unsigned long long)c->index, j->rule, j->why,
                path);
    return 0;
}

static df_outcome campaign(const run_opts *o, df_backend *b, run_state *st)
{
    df_gen_opts go = {.max_n = o->max_n, .family = 0};
    if (strcmp(o->family, "all") != 0)
        go.family = df_family_find(o->family)->id; /* checked by select_kernels */
    df_oracle_opts oo = {.tol = o->tol};
    df_scratch buf = {0}, meta_buf = {0};
    df_checked r;
    df_outcome out = DF_OUTCOME_CLEAN;
    double t0 = now_s(), next_status = t0 + 1;
    for (uint64_t i = 0; !interrupted; i++) {
        if (o->cases && i >= o->cases)
            break;
        double t = now_s();
        if (o->time_s > 0 && t - t0 >= o->time_s)
            break;
        if (t >= next_status) {
            status_line(st, t - t0, "pulse");
            next_status = t + 1;
        }
        size_t ki = (size_t)(i % st->nk);
        const df_kernel *k = st->kernels[ki];
        df_case c;
        if (df_generate(o->seed, i, k, &go, &buf, &c) != 0) {
            fprintf(stderr, "dotfuzz run: cannot generate case %llu for %s (out of memory?)\n",
                    (unsigned long long)i, k->name);
            out = DF_OUTCOME_ENV;
            break;
        }
        int unusable = df_check_case_meta(b, k, &c, &oo, &o->meta, &meta_buf, &r) != 0;
        st->tally[ki].meta_checked += (uint64_t)df_meta_sampled(&o->meta, &c);
        if (record(st, ki, o, &c, &r) != 0) {
            out = DF_OUTCOME_ENV;
            break;
        }
        if (unusable) {
            /* the finding is saved; this process's CUDA context is gone */
            fprintf(stderr, "dotfuzz run: backend unusable after %s: %s\n", k->name,
                    r.res.err);
            break;
        }
    }
    df_scratch_free(&buf);
    df_scratch_free(&meta_buf);
    double elapsed = now_s() - t0;
    status_line(st, elapsed, interrupted ? "INTERRUPTED" : "DONE");
    summary(st, o, elapsed, df_backend_name(b));
    if (out == DF_OUTCOME_CLEAN && st->verdicts[DF_V_BUG])
        out = DF_OUTCOME_BUG;
    return out;
}

df_outcome df_cmd_run(int argc, char **argv)
{
    run_opts o;
    int p = parse_run_opts(argc, argv, &o);
    if (p > 0) {
        run_usage(stdout);
        return DF_OUTCOME_CLEAN;
    }
    if (p < 0)
        return DF_OUTCOME_USAGE;
    if (df_load_plugins_cli("run", &o.libs) != 0)
        return DF_OUTCOME_USAGE;
    df_backend *b = NULL;
    df_outcome opened = df_open_backend_cli("run", o.backend, &b);
    if (opened != DF_OUTCOME_CLEAN)
        return opened;
    df_backend_set_debug_invariants(b, o.debug_invariants);
    run_state *st = calloc(1, sizeof *st);
    if (!st) {
        df_backend_close(b);
        return DF_OUTCOME_ENV;
    }
    int sel = select_kernels(&o, b, st);
    df_outcome out;
    if (sel != 0) {
        if (sel == -2 && st->nk == 0 && strcmp(o.kernel, "all") == 0)
            fprintf(stderr, "dotfuzz run: no kernel runs on backend %s\n", df_backend_name(b));
        out = sel == -1 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
    } else {
        fprintf(stderr, "dotfuzz run: %s\n", df_backend_note(b));
        fprintf(stderr, "dotfuzz run: seed %llu, %zu kernel(s), max-n %llu, tol %g, corpus %s\n",
                (unsigned long long)o.seed, st->nk, (unsigned long long)o.max_n, o.tol,
                o.corpus);
        struct sigaction sa = {0}, old;
        sa.sa_handler = on_sigint;
        sigaction(SIGINT, &sa, &old);
        out = campaign(&o, b, st);
        sigaction(SIGINT, &old, NULL);
    }
    free(st);
    df_backend_close(b);
    return out;
}
