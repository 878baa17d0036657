/* cmd_bench.c — `dotfuzz bench`: the harness's throughput, measured side
 * by side with what it is compared against:
 *   seed loop   cases/s of the seeds' way at n = 2000: per case, generate
 *               it, run the kernel alone through the backend's one-case
 *               path (df_backend_run, no host model; cuda: pinned staging
 *               of both vectors with their guards, copy in, launch, result
 *               copy, one synchronization; host: the kernel's model), then
 *               a plain double dot and a relative-error compare;
 *   harness     verified cases/s of the engine's batch path at n = 2000 and
 *               n = 65536: generation, every reference (exact, Kahan, G),
 *               the run, the model match (cuda), the judgement, the
 *               metamorphic checks on 1 case in 16, the tallies (nothing
 *               is saved); batches buffered as run's --pipeline auto does
 *               ("x1": one buffer; "x2": double-buffered; "x3": the batch
 *               after next generated on the GPU too; "x4": and the one
 *               before recorded meanwhile; "x5": the two after next
 *               generated), and at n = 2000
 *               a second row with the other buffering, side by side;
 *               Cases are made as run's --gen auto makes them (cuda: on the
 *               GPU when double-buffered), and on cuda the n = 2000 row
 *               again with --gen cpu, side by side;
 *   GPU gen.    cuda: the last n = 2000 batch generated again on the GPU
 *               from the same PCG32 streams (df_backend_devgen: a warp a
 *               case), compared byte for byte with the CPU's, and the
 *               kernels' cases/s beside the CPU's generation on every
 *               thread of the pool;
 *   big n       at n = 2^26 (2^20 with --quick): the harness's verified
 *               elements/s over cases [0, BIG_BATCHES batches) (the same
 *               cases for any build and buffering) against the bare
 *               references alone (df_refs_compute, the oracle's, on the same
 *               pool over its last batch) and their ratio.
 * After each row: the process's peak resident memory (ru_maxrss), and for
 * harness rows the share of time in each stage of a batch.
 * Every number printed is measured in this run; with --json, one JSON
 * object (bench_out.h) holds them, and names the rows that did not run.
 * Outcomes: clean; usage for
 * a bad option; env when the backend, the kernel or memory is missing.
 * argv[0] is the subcommand's name ("bench"); options start at argv[1].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/cuda_backend.h"
#include "reference/reference.h"
#include "fuzz/backend/backend.h"
#include "fuzz/gen/generator.h"
#include "fuzz/json.h"
#include "fuzz/long_case.h"
#include "fuzz/cmd/bench_out.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/plugin.h"
#include "fuzz/run/options.h"
#include "fuzz/run/run.h"
#include "fuzz/run/select.h"

static const char bench_usage[] =
    "usage: dotfuzz bench [--backend B] [--kernel K] [--kernel-lib PATH]... [--time S]\n"
    "                     [--threads N] [--batch N] [--meta-every N] [--quick] [--json]\n"
    "\n"
    "Measures, on one kernel (default shfl):\n"
    "  seed loop   cases/s at n = 2000 of the seeds' loop: per case generate,\n"
    "              run through the backend's one-case path (cuda: stage, copy\n"
    "              in, launch, copy out, sync; host: the model), plain double\n"
    "              dot, compare\n"
    "  harness     verified cases/s of `dotfuzz run --batch` at n = 2000 and\n"
    "              65536: every reference, model match, judgement, metamorphic\n"
    "              checks on 1 case in --meta-every, tallies (no files saved);\n"
    "              buffered as run's --pipeline auto (x2: double-buffered, x3: and\n"
    "              the batch after next generated on the GPU meanwhile, x4: and\n"
    "              the one before recorded meanwhile, x5: the two after next\n"
    "              generated, x1: one buffer), and at n = 2000 again with the\n"
    "              other buffering\n"
    "              (the harness rows generate as run --gen auto does: on cuda, the\n"
    "              GPU when double-buffered; cuda adds the n = 2000 row with --gen cpu)\n"
    "  GPU gen.    cuda: the last batch at n = 2000 generated again on the GPU from\n"
    "              the same PCG32 streams (a warp a case), its bytes compared\n"
    "              with the CPU's, its cases/s beside the CPU's on every thread\n"
    "  big n       verified elements/s at n = 2^26 against the bare references\n"
    "              (df_refs_compute) on the same threads over its last batch: six\n"
    "              batches of a case a thread, cases 0 to 6 x threads, not --time\n"
    "              (the same cases for every build and buffering)\n"
    "  campaign    verified cases/s and elements/s of the default campaign, as\n"
    "              `dotfuzz run` with no options runs it on this backend (every\n"
    "              correct kernel, every family, lengths up to 65,536 and the long\n"
    "              cases, run's batch), and on cuda each kernel's share of the wall\n"
    "              in its runs on the GPU; beside the bare references' elements/s\n"
    "              over its last batch on the same threads\n"
    "and the peak resident memory after each row. Each row runs one batch a\n"
    "set of buffers untimed first (the buffers a campaign makes once; the big\n"
    "n row's from cases of its own) and prints their time.\n"
    "\n"
    "  --backend B   host, cuda or auto (default auto)\n"
    "  --kernel K    the kernel (default shfl)\n"
    "  --kernel-lib PATH  load kernels from a plugin library first (repeatable;\n"
    "                the ABI is include/dotfuzz/plugin.h), so --kernel may name one;\n"
    "                the default campaign row then has its kernels too, as run's\n"
    "  --time S      seconds per measurement (default 5)\n"
    "  --threads N   CPU threads (default 0: every core)\n"
    "  --batch N     cases per batch for n = 2000 (default 4096; n = 65536\n"
    "                uses N/8, at least 64; the big n one case per thread)\n"
    "  --meta-every N  metamorphic checks on 1 case in N (default 16, as run; 0 = off)\n"
    "  --quick       0.3 s per measurement and 2^20 for the big n (for CI)\n"
    "  --json        one JSON object instead of the text: every row's figures, and\n"
    "                the rows that did not run with why (docs/output-formats.md)\n"
    "  -h, --help    this text\n";

typedef struct bench_opts {
    const char *backend, *kernel;
    df_plugin_paths libs; /* --kernel-lib, loaded before --kernel is looked up */
    double time_s;
    uint64_t threads, batch, meta_every;
    int quick, json, help;
} bench_opts;

static int parse_args(int argc, char **argv, bench_opts *o)
{
    *o = (bench_opts){.backend = "auto", .kernel = "shfl", .time_s = 5, .batch = 4096,
                      .meta_every = 16};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int missing = 0, bad = 0;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            o->help = 1;
            return 0;
        } else if (!strcmp(arg, "--quick")) {
            o->quick = 1;
            continue;
        } else if (!strcmp(arg, "--json")) {
            o->json = 1;
            continue;
        } else if ((v = df_option_value(argc, argv, &i, "--backend", &missing))) {
            o->backend = v;
        } else if ((v = df_option_value(argc, argv, &i, "--kernel", &missing))) {
            o->kernel = v;
        } else if ((v = df_option_value(argc, argv, &i, "--kernel-lib", &missing))) {
            if (df_plugin_paths_add_cli("bench", &o->libs, v) != 0)
                return -1;
        } else if ((v = df_option_value(argc, argv, &i, "--time", &missing))) {
            bad = df_parse_duration(v, &o->time_s) != 0 || !(o->time_s > 0);
        } else if ((v = df_option_value(argc, argv, &i, "--threads", &missing))) {
            bad = df_parse_u64(v, &o->threads) != 0 || o->threads > 4096;
        } else if ((v = df_option_value(argc, argv, &i, "--meta-every", &missing))) {
            bad = df_parse_u64(v, &o->meta_every) != 0 || o->meta_every > 0xffffffffu;
        } else if ((v = df_option_value(argc, argv, &i, "--batch", &missing))) {
            bad = df_parse_u64(v, &o->batch) != 0 || o->batch < 2 || o->batch > (1u << 20);
        } else if (!missing) {
            df_usage_error("bench", "unknown option '%s'", arg);
            return -1;
        }
        if (missing) {
            df_usage_error("bench", "%s needs a value", arg);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "dotfuzz bench: bad value '%s' for %s (see dotfuzz bench --help)\n",
                    v, arg);
            return -1;
        }
    }
    if (o->quick)
        o->time_s = 0.3;
    return 0;
}

static double plain_dot(const df_case *c)
{
    double s = 0.0;
    for (uint64_t i = 0; i < c->n; i++) {
        if (c->type == DF_F32)
            s += (double)((const float *)c->a)[i] * ((const float *)c->b)[i];
        else if (c->type == DF_F64)
            s += ((const double *)c->a)[i] * ((const double *)c->b)[i];
        else if (c->type == DF_I32)
            s += (double)((const int32_t *)c->a)[i] * ((const int32_t *)c->b)[i];
        else /* 1- and 2-byte elements, decoded */
            s += df_elem_as_double(c->type, c->a, i) * df_elem_as_double(c->type, c->b, i);
    }
    return s;
}

/* The seeds' loop for time_s; returns cases/s, or -1 (cannot generate,
 * backend unusable). */
static double seed_loop(df_backend *b, const df_kernel *k, uint64_t n, double time_s,
                        uint64_t *alarms)
{
    df_gen_opts go = {.max_n = n, .fixed_n = n};
    df_scratch buf = {0};
    df_case c;
    df_result res;
    uint64_t i = 0;
    double t0 = df_now(), t = t0;
    for (; t - t0 < time_s; i++) {
        if (df_generate(1, i, k, &go, &buf, &c) != 0 ||
            df_backend_run(b, k, &c, &res, NULL, NULL) != 0) {
            df_scratch_free(&buf);
            return -1;
        }
        double ref = plain_dot(&c);
        *alarms += res.status != DF_RUN_OK || fabs(res.f - ref) > 1e-6 * fabs(ref);
        if ((i & 15) == 15)
            t = df_now();
    }
    t = df_now();
    df_scratch_free(&buf);
    return (double)i / (t - t0);
}

/* The big n row's cases: its batches (of a case a thread) from index 0,
 * the same cases whatever the buffering, so that builds compare; the
 * bare references run over its last batch. */
#define BIG_BATCHES 6
/* Where a fixed row's untimed batches take their cases: far from the
 * timed ones. */
#define WARM_BASE (UINT64_C(1) << 40)

/* The engine's batch path on cases of length n (0: the lengths of e's
 * options, as run draws them) for time_s, or, cases > 0, on cases
 * [0, cases). e is set up by the caller (pool, batch); its slots keep the
 * last batch's cases. */
static void harness(df_engine *e, uint64_t n, double time_s, uint64_t cases, df_bench_row *row)
{
    df_totals *t = calloc(1, sizeof *t);
    if (n) {
        e->go.max_n = n;
        e->go.fixed_n = n;
    }
    /* one batch first, untimed: the slots, the pinned and device buffers
     * are made once per campaign, not per batch (at n = 2^26 that batch
     * is most of a 3 s window); where the batches are buffered in several
     * sets, one batch a set (each set has buffers of its own: at n = 2^26
     * double-buffered, the second set's pinned memory and copies' room,
     * made in the timed window, were most of it); their time is printed
     * beside the row */
    uint64_t next = cases ? WARM_BASE : 0;
    double w0 = df_now();
    row->rc = t ? df_engine_range(e, next, next + e->batch, 0, t, &next) : DF_RANGE_ENV;
    df_engine_stats st;
    df_engine_stats_get(e, &st);
    if (row->rc == DF_RANGE_DONE && st.sets > 1) /* a range starts the ring at set 0 */
        row->rc = df_engine_range(e, next, next + st.sets * (uint64_t)e->batch, 0, t, &next);
    row->warm_s = df_now() - w0;
    df_engine_stats_reset(e);
    (void)df_backend_batch_times(e->b, row->gpu_s); /* zeroes them */
    df_pool_idle(e->pool, row->idle_s); /* zeroes them */
    if (t)
        memset(t, 0, sizeof *t);
    double t0 = df_now();
    if (row->rc == DF_RANGE_DONE && cases)
        row->rc = df_engine_range(e, 0, cases, 0, t, &next);
    else if (row->rc == DF_RANGE_DONE)
        row->rc = df_engine_range(e, next, UINT64_MAX, t0 + time_s, t, &next);
    row->secs = df_now() - t0;
    row->cases = row->elems = 0;
    for (size_t k = 0; t && k < e->nk; k++) {
        row->cases += t->tally[k].cases;
        row->elems += t->tally[k].elems;
    }
    df_engine_stats_get(e, &st);
    memcpy(row->stage_s, st.stage_s, sizeof row->stage_s);
    memcpy(row->finish_s, st.finish_s, sizeof row->finish_s);
    memcpy(row->cpu_s, st.cpu_s, sizeof row->cpu_s);
    memcpy(row->kernel_s, st.kernel_s, sizeof row->kernel_s);
    row->parts_end_s = st.parts_end_s;
    df_pool_idle(e->pool, row->idle_s);
    row->has_gpu_s = df_backend_batch_times(e->b, row->gpu_s) == 0;
    row->pipelined = st.pipelined;
    row->sets = st.sets;
    free(t);
}

static void refs_slot(void *ctx, size_t s, unsigned w)
{
    (void)w;
    int failed;
    const df_case *c = df_engine_last_case(ctx, s, &failed);
    df_refs refs;
    if (!failed)
        df_refs_compute(c->type, c->a, c->b, c->n, &refs);
}

/* The bare references over the engine's last batch of cases, for time_s:
 * elements/s. A case a thread; a batch of one case (a run's long index is
 * a batch of its own) a chunk a thread, as the run references it. */
static double bare_refs(df_engine *e, size_t cases, double time_s)
{
    uint64_t elems = 0, batch = 0; /* the elements referenced, a pass's */
    int failed = 1, f;
    const df_case *c = cases == 1 ? df_engine_last_case(e, 0, &failed) : NULL;
    for (size_t s = 0; s < cases; s++)
        batch += df_engine_last_case(e, s, &f)->n;
    double t0 = df_now(), t = t0;
    do {
        df_refs refs;
        if (c && !failed)
            df_refs_compute_pool(e->pool, c->type, c->a, c->b, c->n, &refs);
        else
            df_pool_for(e->pool, cases, refs_slot, e);
        elems += batch;
        t = df_now();
    } while (t - t0 < time_s);
    return (double)elems / (t - t0);
}

/* devgen_row's CPU half: slot s's case generated on the CPU, compared with
 * the GPU's bytes. */
typedef struct regen_job {
    df_engine *e;
    const df_devgen_case *cs;
    const unsigned char *gpu;
    unsigned char *equal;
    df_scratch *buf; /* one per pool thread */
} regen_job;

static void regen_slot(void *ctx, size_t s, unsigned w)
{
    regen_job *j = ctx;
    df_engine *e = j->e;
    int failed;
    uint64_t i = df_engine_last_case(e, s, &failed)->index;
    df_case c;
    j->equal[s] = 0;
    if (df_generate(e->o->seed, i, e->kernels[df_run_kernel_of(i, e->nk)], &e->go, &j->buf[w],
                    &c) != 0 || c.n != j->cs[s].n)
        return;
    size_t na = (size_t)c.n * df_type_size(c.type);
    j->equal[s] = !na || (memcmp(j->gpu + j->cs[s].off, c.a, na) == 0 &&
                          memcmp(j->gpu + j->cs[s].off + na, c.b, na) == 0);
}

/* devgen_row's breakdown: the GPU kernels' time for each family's cases of
 * the batch alone (a warp a case, so the family whose cases
 * take the longest sets the whole batch's time), printed on one line. */
static void devgen_families(df_bench_out *bo, df_backend *b, const df_devgen_case *cs, size_t m)
{
    df_devgen_case *sub = malloc((m ? m : 1) * sizeof *sub);
    if (!sub)
        return;
    df_bench_text(bo, "    of which, each family alone   ");
    if (bo->js)
        fputs(",\"families_ms\":{", bo->js);
    int nfam = 0;
    for (size_t f = 0; f < df_family_count(); f++) {
        const df_family *fam = df_family_at(f);
        size_t k = 0;
        for (size_t s = 0; s < m; s++)
            if (cs[s].family == fam->id)
                sub[k++] = cs[s];
        if (!k)
            continue;
        size_t bytes = df_devgen_layout(sub, k);
        unsigned char *out = malloc(bytes ? bytes : 1);
        char err[160] = "";
        double ms = 0;
        if (out && df_backend_devgen(b, sub, k, bytes, out, &ms, err, sizeof err) == 0) {
            df_bench_text(bo, "  %s %.3f ms (%zu)", fam->name, ms, k);
            if (bo->js) {
                fprintf(bo->js, "%s\"%s\":{\"cases\":%zu,", nfam++ ? "," : "", fam->name, k);
                df_json_member(bo->js, "ms", ms);
                fputc('}', bo->js);
            }
        }
        free(out);
    }
    df_bench_text(bo, "  (kernel time, cases)\n");
    if (bo->js)
        fputc('}', bo->js);
    free(sub);
}

/* cuda: the engine's last batch generated on the GPU from its cases' value
 * streams and on the CPU's threads, byte for byte, and both generators'
 * cases/s (the GPU kernel's time; the CPU's generation and comparison on
 * every thread). Returns 0, or -1 when it could not run or a case differs
 * (printed). */
static int devgen_row(df_bench_out *bo, df_engine *e, df_backend *b)
{
    df_engine_stats st;
    df_engine_stats_get(e, &st);
    size_t m = st.last_n, bytes = 0, equal = 0;
    unsigned nw = df_pool_size(e->pool);
    df_devgen_case *cs = calloc(m ? m : 1, sizeof *cs);
    unsigned char *eq = calloc(m ? m : 1, 1);
    df_scratch *buf = calloc(nw, sizeof *buf); /* the CPU's generation, a thread each */
    if (!cs || !eq || !buf) {
        free(cs);
        free(eq);
        free(buf);
        return -1;
    }
    for (size_t s = 0; s < m; s++) {
        df_case c;
        int failed;
        uint64_t i = df_engine_last_case(e, s, &failed)->index;
        if (df_generate_shape(e->o->seed, i, e->kernels[df_run_kernel_of(i, e->nk)], &e->go, &c,
                              &cs[s].rng) != 0) {
            fprintf(stderr, "dotfuzz bench: case %llu has no value stream\n",
                    (unsigned long long)i);
            free(cs);
            free(eq);
            free(buf);
            return -1;
        }
        cs[s].family = c.family;
        cs[s].type = (uint32_t)c.type;
        cs[s].n = c.n;
    }
    bytes = df_devgen_layout(cs, m);
    unsigned char *out = malloc(bytes ? bytes : 1);
    char err[160] = "";
    double ms = 0;
    /* twice: the first loads the kernel */
    int rc = out ? df_backend_devgen(b, cs, m, bytes, out, &ms, err, sizeof err) : -1;
    if (rc == 0)
        rc = df_backend_devgen(b, cs, m, bytes, out, &ms, err, sizeof err);
    double cpu = 0;
    if (rc == 0) {
        regen_job j = {e, cs, out, eq, buf};
        double t0 = df_now();
        df_pool_for(e->pool, m, regen_slot, &j);
        cpu = df_now() - t0;
        for (size_t s = 0; s < m; s++)
            equal += eq[s];
        const char *what = "generation n = 2000, GPU vs CPU";
        double gpu_rate = ms > 0 ? m / (ms * 1e-3) : 0.0, cpu_rate = cpu > 0 ? m / cpu : 0.0;
        df_bench_text(bo, "%-34s %14.0f cases/s  on the GPU (%zu cases, a warp each: %.3f "
                          "ms); the CPU on %u threads %.0f cases/s; bytes equal to the CPU's: "
                          "%zu of %zu\n",
                      what, gpu_rate, m, ms, df_pool_size(e->pool), cpu_rate, equal, m);
        df_bench_row_begin(bo, "gpu_generation", what);
        df_bench_num(bo, "gpu_cases_per_s", gpu_rate);
        df_bench_num(bo, "cases", (double)m);
        df_bench_num(bo, "gpu_ms", ms);
        df_bench_num(bo, "cpu_threads", df_pool_size(e->pool));
        df_bench_num(bo, "cpu_cases_per_s", cpu_rate);
        df_bench_num(bo, "cases_equal", (double)equal);
        devgen_families(bo, b, cs, m);
        df_bench_row_end(bo);
    } else {
        fprintf(stderr, "dotfuzz bench: generation on the GPU: %s\n", err);
        df_bench_not_run(bo, "gpu_generation", "generation n = 2000, GPU vs CPU", err);
    }
    for (unsigned w = 0; w < nw; w++)
        df_scratch_free(&buf[w]);
    free(buf);
    free(out);
    free(cs);
    free(eq);
    return rc == 0 && equal == m ? 0 : -1;
}

/* The harness at n with batches of batch cases, printed as one row. */
static int harness_measure(df_bench_out *bo, df_engine *e, const char *id, const char *what,
                           uint64_t n, size_t batch, double time_s, uint64_t cases,
                           df_bench_row *r)
{
    e->batch = (uint32_t)batch;
    df_engine_free(e); /* new slot count: slots are remade */
    harness(e, n, time_s, cases, r);
    return df_bench_harness(bo, id, what, r, batch, df_backend_is_host(e->b));
}

/* Where the campaign row's GPU stage went: each kernel's runs on the
 * backend (its part of each batch, its copies: its planning, staging and
 * issue, and the wait for an earlier part whose lane it takes), as a
 * share of the row's wall time, longest first, and the waits for each
 * batch's last parts in flight (a line of text; a JSON row of seconds). */
static void campaign_kernels(df_bench_out *bo, const df_bench_row *r, const df_kernel *const *ks,
                             size_t nk, const char *what)
{
    size_t order[DF_RUN_MAX_KERNELS];
    for (size_t i = 0; i < nk; i++) {
        size_t j = i;
        for (; j > 0 && r->kernel_s[order[j - 1]] < r->kernel_s[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    df_bench_text(bo, "  its GPU stage by kernel (share of the wall):");
    for (size_t i = 0; i < nk; i++)
        df_bench_text(bo, "%s %s %.1f%%", i % 6 == 5 ? "\n   " : "", ks[order[i]]->name,
                      100 * r->kernel_s[order[i]] / r->secs);
    df_bench_text(bo, "\n    the waits for each batch's last parts in flight %.1f%%\n",
                  100 * r->parts_end_s / r->secs);
    df_bench_row_begin(bo, "campaign_kernel_s", what);
    for (size_t i = 0; i < nk; i++)
        df_bench_num(bo, ks[order[i]]->name, r->kernel_s[order[i]]);
    df_bench_num(bo, "parts_end_s", r->parts_end_s);
    df_bench_num(bo, "wall_s", r->secs);
    df_bench_row_end(bo);
}

/* The default campaign, as `dotfuzz run` with no options runs it on this
 * backend: every correct kernel the backend runs, every family, run's
 * lengths (its long cases too) and batch, for time_s; then the bare
 * references over its last batch, on the same threads. */
static int campaign_rows(df_bench_out *bo, const bench_opts *o, df_backend *b, df_pool *pool)
{
    df_run_opts ro;
    df_run_opts_default(&ro);
    ro.meta.every = (uint32_t)o->meta_every;
    if (o->quick)
        ro.long_n = 0; /* a 0.3 s window holds no long case's worth */
    const df_kernel *ks[DF_RUN_MAX_KERNELS];
    size_t nk = 0;
    df_runs_on on = df_runs_on_backend(b);
    if (df_run_select(&ro, &on, ks, &nk) != 0)
        return -1;
    df_engine e;
    df_engine_init(&e, &ro, b, ks, nk);
    e.pool = pool;
    e.batch = df_run_default_batch(ro.max_n, nk);
    df_bench_row r;
    harness(&e, 0, o->time_s, 0, &r);
    char what[64];
    snprintf(what, sizeof what, "default campaign, %zu kernels", nk);
    int bad = df_bench_harness(bo, "campaign", what, &r, e.batch, df_backend_is_host(b)) != 0;
    const char *by_what = "  its kernels' runs on the backend, seconds";
    if (!bad && !df_backend_is_host(b))
        campaign_kernels(bo, &r, ks, nk, by_what);
    else
        df_bench_not_run(bo, "campaign_kernel_s", by_what,
                         bad ? "the campaign row stopped" : "cuda backend only");
    const char *bare_what = "  bare MT references, its batch";
    if (!bad) {
        df_engine_stats st;
        df_engine_stats_get(&e, &st);
        double bare = bare_refs(&e, st.last_n, o->time_s);
        df_bench_text(bo, "%-34s %14s          %12.3g elem/s  ratio campaign/bare %.3f\n",
                      bare_what, "", bare, (double)r.elems / r.secs / bare);
        df_bench_row_begin(bo, "campaign_bare_refs", bare_what);
        df_bench_num(bo, "elems_per_s", bare);
        df_bench_num(bo, "campaign_over_bare", (double)r.elems / r.secs / bare);
        df_bench_row_end(bo);
    } else {
        df_bench_not_run(bo, "campaign_bare_refs", bare_what, "the campaign row stopped");
    }
    df_engine_free(&e);
    return bad ? -1 : 0;
}

static df_outcome bench_rows(df_bench_out *bo, const bench_opts *o, df_backend *b,
                             const df_kernel *k)
{
    const df_kernel *ks[1] = {k};
    df_run_opts ro = {.kernel = k->name, .backend = o->backend, .corpus = "", .family = "all",
                      .max_n = 2000, .tol = 1e-6, .save_precision = DF_SAVE_NONE,
                      .save_bugs = DF_SAVE_NONE,
                      .meta = {.every = (uint32_t)o->meta_every, .reruns = 2},
                      .seed = 1, .seed_set = 1};
    uint64_t alarms = 0;
    double seed = seed_loop(b, k, 2000, o->time_s, &alarms);
    if (seed < 0) {
        fprintf(stderr, "dotfuzz bench: the seed loop could not run %s\n", k->name);
        df_bench_not_run(bo, "seed_loop", "seed loop, n = 2000", "the kernel could not run");
        return DF_OUTCOME_ENV;
    }
    double rss = df_bench_peak_rss_mib();
    df_bench_text(bo, "%-34s %14.0f cases/s  %12.3g elem/s  (%llu rel. err > 1e-6)  peak RSS "
                      "%8.1f MiB\n",
                  "seed loop, n = 2000", seed, seed * 2000, (unsigned long long)alarms, rss);
    df_bench_row_begin(bo, "seed_loop", "seed loop, n = 2000");
    df_bench_num(bo, "cases_per_s", seed);
    df_bench_num(bo, "elems_per_s", seed * 2000);
    df_bench_num(bo, "rel_err_alarms", (double)alarms);
    df_bench_num(bo, "peak_rss_mib", rss);
    df_bench_row_end(bo);
    df_engine e;
    df_engine_init(&e, &ro, b, ks, 1);
    e.pool = df_pool_create((unsigned)o->threads);
    if (!e.pool) {
        fprintf(stderr, "dotfuzz bench: cannot start threads\n");
        return DF_OUTCOME_ENV;
    }
    df_backend_set_pool(b, e.pool);
    unsigned nt = df_pool_size(e.pool);
    df_bench_text(bo, "%-34s %u threads, kernel %s, backend %s\n", "setup", nt, k->name,
                  df_backend_name(b));
    df_bench_row_begin(bo, "setup", "setup");
    df_bench_num(bo, "threads", nt);
    df_bench_row_end(bo);
    df_bench_row r2k, r1buf, r64k, rbig, rcpu; /* r1buf: n = 2000, the other buffering;
                                                 rcpu: generated on the CPU */
    size_t b64 = o->batch / 8 < 64 ? 64 : (size_t)(o->batch / 8);
    uint64_t big = o->quick ? (UINT64_C(1) << 20) : (UINT64_C(1) << 26);
    size_t bigbatch = nt < 2 ? 2 : nt; /* a case a thread */
    char what[64], bare_what[64];
    snprintf(what, sizeof what, "harness n = 2^%d, verified", o->quick ? 20 : 26);
    snprintf(bare_what, sizeof bare_what, "bare MT references n = 2^%d", o->quick ? 20 : 26);
    const char *stopped = "an earlier row stopped";
    int bad = harness_measure(bo, &e, "harness_2000", "harness n = 2000, verified", 2000,
                              (size_t)o->batch, o->time_s, 0, &r2k) != 0;
    /* the same with the other buffering, side by side */
    e.pipeline = r2k.pipelined ? DF_PIPE_OFF : DF_PIPE_ON;
    const char *other = r2k.pipelined ? "  the same, one buffer" : "  the same, double-buffered";
    if (bad)
        df_bench_not_run(bo, "harness_2000_other_buffering", other, stopped);
    else
        bad = harness_measure(bo, &e, "harness_2000_other_buffering", other, 2000,
                              (size_t)o->batch, o->time_s, 0, &r1buf) != 0;
    e.pipeline = DF_PIPE_AUTO;
    const char *gen_cpu = "  the same, generated on the CPU";
    if (strcmp(df_backend_name(b), "cuda") != 0) {
        df_bench_not_run(bo, "harness_2000_gen_cpu", gen_cpu, "cuda backend only");
        df_bench_not_run(bo, "gpu_generation", "generation n = 2000, GPU vs CPU",
                         "cuda backend only");
    } else if (bad) {
        df_bench_not_run(bo, "harness_2000_gen_cpu", gen_cpu, stopped);
        df_bench_not_run(bo, "gpu_generation", "generation n = 2000, GPU vs CPU", stopped);
    } else {
        /* run's --gen auto generates n = 2000 on the GPU: the same on the CPU,
         * side by side, then the two generators alone */
        ro.gen = DF_GEN_CPU;
        bad = harness_measure(bo, &e, "harness_2000_gen_cpu", gen_cpu, 2000, (size_t)o->batch,
                              o->time_s, 0, &rcpu) != 0;
        ro.gen = DF_GEN_AUTO;
        if (bad)
            df_bench_not_run(bo, "gpu_generation", "generation n = 2000, GPU vs CPU", stopped);
        else
            bad = devgen_row(bo, &e, b) != 0;
    }
    if (bad)
        df_bench_not_run(bo, "harness_65536", "harness n = 65536, verified", stopped);
    else
        bad = harness_measure(bo, &e, "harness_65536", "harness n = 65536, verified", 65536, b64,
                              o->time_s, 0, &r64k) != 0;
    if (bad)
        df_bench_not_run(bo, "harness_big", what, stopped);
    else
        bad = harness_measure(bo, &e, "harness_big", what, big, bigbatch, o->time_s,
                              BIG_BATCHES * bigbatch, &rbig) != 0;
    if (!bad) {
        df_engine_stats st;
        df_engine_stats_get(&e, &st);
        double bare = bare_refs(&e, st.last_n, o->time_s);
        double h = (double)rbig.cases * (double)big / rbig.secs, rss = df_bench_peak_rss_mib();
        df_bench_text(bo, "%-34s %14.0f cases/s  %12.3g elem/s  ratio harness/bare %.3f  peak "
                          "RSS %8.1f MiB\n", bare_what, bare / (double)big, bare, h / bare, rss);
        df_bench_row_begin(bo, "big_bare_refs", bare_what);
        df_bench_num(bo, "cases_per_s", bare / (double)big);
        df_bench_num(bo, "elems_per_s", bare);
        df_bench_num(bo, "harness_over_bare", h / bare);
        df_bench_num(bo, "peak_rss_mib", rss);
        df_bench_row_end(bo);
        double two = (r2k.pipelined ? r2k.cases / r2k.secs : r1buf.cases / r1buf.secs),
               one = (r2k.pipelined ? r1buf.cases / r1buf.secs : r2k.cases / r2k.secs);
        const char *vs = "harness n = 2000 vs seed loop";
        df_bench_text(bo, "%-34s %.2fx the seed loop; double-buffered %.2fx one buffer\n", vs,
                      (r2k.cases / r2k.secs) / seed, two / one);
        df_bench_row_begin(bo, "vs_seed_loop", vs);
        df_bench_num(bo, "harness_over_seed_loop", (r2k.cases / r2k.secs) / seed);
        df_bench_num(bo, "double_over_one_buffer", two / one);
        df_bench_row_end(bo);
        bad = campaign_rows(bo, o, b, e.pool) != 0;
    } else {
        df_bench_not_run(bo, "big_bare_refs", bare_what, stopped);
        df_bench_not_run(bo, "vs_seed_loop", "harness n = 2000 vs seed loop", stopped);
        df_bench_not_run(bo, "campaign", "default campaign", stopped);
        df_bench_not_run(bo, "campaign_kernel_s", "  its kernels' runs on the backend, seconds",
                         stopped);
        df_bench_not_run(bo, "campaign_bare_refs", "  bare MT references, its batch", stopped);
    }
    df_engine_free(&e);
    df_backend_set_pool(b, NULL);
    df_pool_destroy(e.pool);
    return bad ? DF_OUTCOME_ENV : DF_OUTCOME_CLEAN;
}

df_outcome df_cmd_bench(int argc, char **argv)
{
    bench_opts o;
    if (parse_args(argc, argv, &o) != 0)
        return DF_OUTCOME_USAGE;
    if (o.help) {
        fputs(bench_usage, stdout);
        return DF_OUTCOME_CLEAN;
    }
    df_note_threads("bench", o.threads);
    if (df_load_plugins_cli("bench", &o.libs) != 0)
        return DF_OUTCOME_USAGE;
    const df_kernel *k = df_kernel_find(o.kernel);
    if (!k) {
        df_usage_error("bench", "unknown kernel '%s'", o.kernel);
        return DF_OUTCOME_USAGE;
    }
    df_backend *b;
    df_outcome oc = df_backend_open_said("bench", o.backend, &b);
    if (oc != DF_OUTCOME_CLEAN)
        return oc;
    if (!df_backend_supports(b, k)) {
        fprintf(stderr, "dotfuzz bench: kernel %s cannot run on backend %s\n", k->name,
                df_backend_name(b));
        df_backend_close(b);
        return DF_OUTCOME_USAGE;
    }
    df_bench_out bo;
    char *what = NULL;
    size_t what_len = 0;
    FILE *w = open_memstream(&what, &what_len);
    if (!w || df_bench_out_open(&bo, o.json) != 0) {
        fprintf(stderr, "dotfuzz bench: out of memory\n");
        if (w)
            fclose(w);
        free(what);
        df_backend_close(b);
        return DF_OUTCOME_ENV;
    }
    /* the document's members that say what ran, before its rows */
    fputs("\"backend\":", w);
    df_json_str(w, df_backend_name(b));
    fputs(",\"backend_note\":", w);
    df_json_str(w, df_backend_note(b));
    fputs(",\"kernel\":", w);
    df_json_str(w, k->name);
    fprintf(w, ",\"quick\":%s,\"batch\":%llu,\"meta_every\":%llu,", o.quick ? "true" : "false",
            (unsigned long long)o.batch, (unsigned long long)o.meta_every);
    df_json_member(w, "time_s", o.time_s);
    oc = bench_rows(&bo, &o, b, k);
    int memory = fclose(w) == 0 && what;
    if (df_bench_out_close(&bo, memory ? what : "\"backend\":null", oc == DF_OUTCOME_CLEAN) !=
            0 || !memory) {
        fprintf(stderr, "dotfuzz bench: out of memory\n");
        oc = DF_OUTCOME_ENV;
    }
    free(what);
    df_backend_close(b);
    return oc;
}
