/* test_batch.c — batched checking (run --batch, fuzz/run/engine.c), one
 * buffer or double-buffered, gives exactly the verdicts, counts and saved
 * files of one case at a time on the same seed, and the thread pool
 * (fuzz/pool.h) runs every index once, with loops open side by side. */
#include <stdatomic.h>
#include <unistd.h>

#include "fuzz/backend/backend.h"
#include "fuzz/pool.h"
#include "fuzz/run/engine_internal.h"
#include "fuzz/run/run.h"
#include "fuzz/run/supervisor.h"
#include "kernels/kernel.h"
#include "tests/cli_helpers.h"

static char out1[1 << 16], out2[1 << 16];

/* The summary without its timing line and the corpus's name. */
static const char *table(char *out)
{
    char *t = strstr(out, "\n  kernel "), *end = strstr(out, "  findings saved:");
    cr_assert_not_null(t, "%s", out);
    cr_assert_not_null(end, "%s", out);
    *end = 0;
    return t;
}

/* The finding files of dir/a and dir/b: the same names, and enough of
 * them to mean something. */
static void same_files(const char *dir, const char *a, const char *b, const char *what)
{
    char l1[8192], l2[8192];
    df_test_sh(l1, sizeof l1, "ls %s/%s | sha1sum; ls %s/%s | wc -l", dir, a, dir, a);
    df_test_sh(l2, sizeof l2, "ls %s/%s | sha1sum; ls %s/%s | wc -l", dir, b, dir, b);
    cr_assert_str_eq(l2, l1, "the same finding files, %s", what);
    cr_assert(atoi(strchr(l1, '\n') + 1) > 50, "%s", l1);
}

Test(batch, batched_verdicts_counts_and_files_equal_one_at_a_time, .timeout = 120)
{
    char *d = df_test_tmpdir("batch"), dir[128];
    snprintf(dir, sizeof dir, "%s", d);
    const char *common = "run --backend host --kernel all,m-tail,m-fold-bounds,m-int16-sum "
                         "--seed 77 --cases 3000 --save-precision all --save-bugs all --quiet";
    int rc1 = df_test_sh(out1, sizeof out1, "./dotfuzz %s --batch 1 --corpus %s/one", common,
                         dir);
    int rc2 = df_test_sh(out2, sizeof out2,
                         "./dotfuzz %s --batch 97 --threads 3 --corpus %s/many", common, dir);
    cr_assert_eq(rc1, 1, "%s", out1);
    cr_assert_eq(rc2, rc1, "%s", out2);
    const char *t1 = table(out1); /* table() cuts its text where the table ends */
    cr_assert_str_eq(table(out2), t1);
    same_files(dir, "one", "many", "batched");
    /* double-buffered: the next batch made while this one is judged */
    rc2 = df_test_sh(out2, sizeof out2, "./dotfuzz %s --batch 97 --threads 3 --pipeline on "
                     "--corpus %s/pipe", common, dir);
    cr_assert_eq(rc2, rc1, "%s", out2);
    cr_assert_str_eq(table(out2), t1);
    same_files(dir, "one", "pipe", "double-buffered");
    df_test_sh(out1, sizeof out1, "rm -rf %s", dir);
}

/* `dotfuzz <common> <args> --corpus <dir>/<sub>` under the host backend's
 * GPU emulation, its output in out; its exit code. */
static int emulated(char *out, size_t len, const char *common, const char *args,
                    const char *dir, const char *sub)
{
    return df_test_sh(out, len, DF_HOST_STICKY_ENV "=1 ./dotfuzz %s %s --corpus %s/%s", common,
                      args, dir, sub);
}

/* The same run with args under the GPU emulation into dir/sub: exit code
 * rc1 and table t1, as one case at a time gave them. */
static void emulated_equals(const char *common, const char *args, const char *dir,
                            const char *sub, int rc1, const char *t1)
{
    int rc2 = emulated(out2, sizeof out2, common, args, dir, sub);
    cr_assert_eq(rc2, rc1, "%s", out2);
    cr_assert_str_eq(table(out2), t1);
}

/* A temporary directory for test tag in dir, then run's common arguments
 * under the GPU emulation one case at a time (dir/one, output in out1) and
 * with many (dir/many, output in out2); *rc1 and *rc2 their exit codes. */
static void one_and_many(const char *tag, char *dir, size_t dirlen, const char *common,
                         const char *many, int *rc1, int *rc2)
{
    snprintf(dir, dirlen, "%s", df_test_tmpdir(tag));
    *rc1 = emulated(out1, sizeof out1, common, "--batch 1", dir, "one");
    *rc2 = emulated(out2, sizeof out2, common, many, dir, "many");
}

/* The GPU path of the engine (the batch run through the backend, then the
 * model and judgement overlapped with the metamorphic copies' run), taken
 * here under the host backend's GPU emulation: the same table and finding
 * files as one case at a time, copies on every other case. */
Test(batch, gpu_path_with_overlapped_copies_equals_one_at_a_time, .timeout = 120)
{
    char dir[128];
    const char *common = "run --backend host --kernel all,m-tail,m-fold-bounds,m-int16-sum "
                         "--seed 78 --cases 3000 --meta-every 2 --save-precision all "
                         "--save-bugs all --quiet";
    int rc1, rc2;
    one_and_many("batchgpu", dir, sizeof dir, common, "--batch 97 --threads 3 --pipeline on",
                 &rc1, &rc2);
    cr_assert_eq(rc1, 1, "%s", out1);
    cr_assert_eq(rc2, rc1, "%s", out2);
    /* the GPU path: model match counted (the host backend's own path has none) */
    const char *fold = strstr(out1, "\n  fold ");
    unsigned long cases = 0, ok, prec, nondet, soft, bug, equal = 0;
    double worst;
    cr_assert_not_null(fold, "%s", out1);
    cr_assert_eq(sscanf(fold, " fold %lu %lu %lu %lu %lu %lu %lf %lu", &cases, &ok, &prec,
                        &nondet, &soft, &bug, &worst, &equal), 8, "%s", fold);
    cr_assert(cases > 0 && equal == cases, "the GPU path, model-equal on every case: %s", fold);
    const char *t1 = table(out1);
    cr_assert_str_eq(table(out2), t1);
    same_files(dir, "one", "many", "the GPU path");
    df_test_sh(out1, sizeof out1, "rm -rf %s", dir);
}

/* common (under the GPU emulation) with --batch 1, with `piped` and with
 * `single`: the same exit code, table and finding files (tag names the
 * temporary directory, what the runs in a failure's message). */
static void piped_and_single_equal_one_at_a_time(const char *tag, const char *common,
                                                 const char *piped, const char *single,
                                                 const char *what)
{
    char dir[128];
    int rc1, rc2;
    one_and_many(tag, dir, sizeof dir, common, piped, &rc1, &rc2);
    cr_assert_eq(rc2, rc1, "%s", out2);
    const char *t1 = table(out1);
    cr_assert_str_eq(table(out2), t1);
    same_files(dir, "one", "many", what);
    emulated_equals(common, single, dir, "single", rc1, t1);
    same_files(dir, "one", "single", what);
    df_test_sh(out1, sizeof out1, "rm -rf %s", dir);
}

/* The GPU path's upload buffer (df_upload) at the default lengths: a
 * batch of 1024 cases up to 65,536 elements asks for more than the first
 * batch's buffer (DF_UPLOAD_FIRST), so some cases keep their own vectors
 * and the next batches' buffers grow; the same table and finding files as
 * one case at a time, pipelined and not. */
Test(batch, batches_past_their_upload_buffer_equal_one_at_a_time, .timeout = 120)
{
    piped_and_single_equal_one_at_a_time(
        "batchup",
        "run --backend host --kernel all --seed 80 --cases 2500 --meta-every 4 "
        "--save-precision all --save-bugs all --quiet",
        "--batch 1024 --threads 3 --pipeline on --gen cpu",
        "--batch 1024 --threads 2 --pipeline off", "uploaded once a batch");
}

/* --gen gpu: a batch's cases made from their value streams by the
 * backend's generator (here the host emulation's stand-in, on the calling
 * thread; on cuda the GPU), pipelined (DF_SETS_MAX sets of slots: the
 * batches after next generated too, the one before recorded while this one
 * runs) or not: the same table and finding files as one case at a time
 * made by df_generate. */
Test(batch, generation_through_the_backend_equals_one_at_a_time, .timeout = 120)
{
    piped_and_single_equal_one_at_a_time(
        "batchgen",
        "run --backend host --kernel all,m-tail,m-int16-sum,m-int32-acc --seed 79 --cases 3000 "
        "--max-n 8000 --meta-every 3 --save-precision all --save-bugs all --quiet",
        "--batch 97 --threads 3 --pipeline on --gen gpu", "--batch 50 --pipeline off --gen gpu",
        "generated through the backend");
}

/* --gen gpu and split at the default lengths (up to 65,536 elements: a
 * warp a case on cuda, its shuffle in rounds past the shared memory): the
 * same table and finding files as one case at a time, whichever batches
 * the GPU (here the host emulation) makes. */
Test(batch, generation_at_the_default_lengths_equals_one_at_a_time, .timeout = 120)
{
    const char *common =
        "run --backend host --kernel shfl,shfl-f64,int-atomic,half2-f16 --seed 81 --cases 1200 "
        "--meta-every 5 --save-precision all --save-bugs all --quiet";
    piped_and_single_equal_one_at_a_time("batchgenlong", common,
                                         "--batch 256 --threads 3 --pipeline on --gen gpu",
                                         "--batch 300 --pipeline off --gen gpu",
                                         "generated through the backend");
    piped_and_single_equal_one_at_a_time("batchsplit", common,
                                         "--batch 64 --threads 3 --pipeline on --gen split",
                                         "--batch 50 --pipeline off --gen split",
                                         "generated on either side of a split");
}

/* split's choice: the GPU makes the next batch when the pool's workers
 * were idle less than DF_GEN_SPLIT_IDLE of their time over the last
 * cycle, the CPU when more, or before a cycle was measured. */
Test(batch, split_gives_the_gpu_a_batch_when_the_pool_is_behind)
{
    double cycle = 0.040, most = DF_GEN_SPLIT_IDLE * 8 * cycle;
    cr_assert(df_gen_pick_gpu(cycle, 0.0, 8));
    cr_assert(df_gen_pick_gpu(cycle, most * 0.9, 8));
    cr_assert_not(df_gen_pick_gpu(cycle, most * 1.1, 8));
    cr_assert(df_gen_pick_gpu(cycle, most * 1.1, 16));
    cr_assert_not(df_gen_pick_gpu(0.0, 0.0, 8));
    cr_assert_not(df_gen_pick_gpu(cycle, 0.0, 0));
}

/* The ring of DF_SETS_MAX sets of slots (--gen gpu, pipelined: a batch
 * recorded while the next one runs, three made ahead) with quick kernels
 * and few threads, where the batches ahead are still being prepared, their
 * loops open, when the one before them is taken up: the same table as one case
 * at a time, with one worker beside the caller and with two; each batch
 * but the last laid out while the one before it is judged. */
Test(batch, pipelined_ring_of_batches_equals_one_at_a_time, .timeout = 120)
{
    char dir[128];
    const char *common = "run --backend host --kernel shfl,fold --seed 5 --cases 6000 "
                         "--max-n 4000 --save-precision none --save-bugs none --quiet";
    int rc1, rc2;
    one_and_many("batchring", dir, sizeof dir, common,
                 "--batch 256 --threads 2 --pipeline on --gen gpu", &rc1, &rc2);
    cr_assert_eq(rc2, rc1, "%s", out2);
    const char *t1 = table(out1);
    cr_assert(strstr(t1, "  shfl ") && strstr(t1, "  fold "), "%s", t1);
    cr_assert_str_eq(table(out2), t1);
    /* traced: while the pool judges a batch, the caller lays out the next
     * one (engine_layout.c's df_stage_next, a "next" event), every batch but the
     * last of each range the supervisor handed out ("range" events) */
    char n[64];
    rc2 = df_test_sh(out2, sizeof out2,
                     "DOTFUZZ_TRACE=%s/t.tsv " DF_HOST_STICKY_ENV "=1 ./dotfuzz %s --batch 97 "
                     "--threads 3 --pipeline on --gen gpu --corpus %s/three",
                     dir, common, dir);
    cr_assert_eq(rc2, rc1, "%s", out2);
    cr_assert_str_eq(table(out2), t1);
    df_test_sh(n, sizeof n,
               "awk -F'\t' '$1 == \"caller\" && $2 == \"next\" { k++ } "
               "$1 == \"caller\" && $2 == \"gpu\" { b++ } "
               "$1 == \"caller\" && $2 == \"range\" { r++ } "
               "END { print k + 0, b + 0, r + 0 }' %s/t.tsv",
               dir);
    unsigned next = 0, batches = 0, ranges = 0;
    cr_assert_eq(sscanf(n, "%u %u %u", &next, &batches, &ranges), 3, "%s", n);
    cr_assert(batches >= 62 && ranges >= 1, "%s", n);
    cr_assert_eq(next, batches - ranges,
                 "batches laid out while the one before was judged (next, batches, ranges): %s",
                 n);
    df_test_sh(out1, sizeof out1, "rm -rf %s", dir);
}

/* The sets of slots a pipelined run takes when its cases are generated
 * through the backend, after one range of batches: `want`, and the run
 * recorded every case. */
static void sets_taken(uint32_t batch, uint64_t max_n, size_t want)
{
    df_backend *b = NULL;
    char err[200];
    cr_assert_eq(df_backend_open("host", &b, err, sizeof err), 0, "%s", err);
    const df_kernel *ks[1] = {df_kernel_find("shfl")};
    cr_assert_not_null(ks[0]);
    df_run_opts ro = {.kernel = "shfl", .backend = "host", .corpus = "", .family = "all",
                      .max_n = max_n, .tol = 1e-6, .save_precision = DF_SAVE_NONE,
                      .save_bugs = DF_SAVE_NONE, .meta = {.every = 16, .reruns = 2},
                      .seed = 3, .seed_set = 1, .gen = DF_GEN_GPU};
    df_engine e;
    df_engine_init(&e, &ro, b, ks, 1);
    e.batch = batch;
    e.pipeline = DF_PIPE_ON;
    e.pool = df_pool_create(2);
    cr_assert_not_null(e.pool);
    df_totals t;
    memset(&t, 0, sizeof t);
    uint64_t next = 0;
    cr_assert_eq(df_engine_range(&e, 0, 2 * (uint64_t)batch, 0, &t, &next), DF_RANGE_DONE);
    cr_assert_eq(next, 2 * (uint64_t)batch);
    df_engine_stats st;
    df_engine_stats_get(&e, &st);
    cr_assert_eq(st.sets, want, "batches of %u up to n = %llu: %zu sets", batch,
                 (unsigned long long)max_n, st.sets);
    df_pool_destroy(e.pool);
    e.pool = NULL;
    df_engine_free(&e);
    df_backend_close(b);
}

/* Generated through the backend, pipelined: DF_SETS_MAX sets where they
 * fit in DF_PIPELINE_BYTES (the bench's batches of 4096 at n = 2000) or in
 * half the machine's memory (batches of 2048 up to 8000 elements, 1.2 GiB
 * at worst), four where only four fit in DF_PIPELINE_BYTES and half the
 * memory does not hold five; the batch checked last recorded while the
 * next runs either way. */
Test(batch, generated_batches_take_five_sets_where_they_fit_else_four, .timeout = 120)
{
    sets_taken(4096, 2000, DF_SETS_MAX);
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    int five = 8000 <= ram / DF_PIPELINE_LONG_SHARE / (16 * (uint64_t)DF_SETS_MAX * 2048);
    sets_taken(2048, 8000, five ? DF_SETS_MAX : DF_SETS_DEFER);
}

static void count_call(void *ctx, size_t i, unsigned worker)
{
    atomic_uint *hits = ctx;
    (void)worker;
    atomic_fetch_add(&hits[i], 1);
}

static void note_worker(void *ctx, size_t i, unsigned worker)
{
    unsigned *who = ctx;
    who[i] = worker;
}

/* Items 0..3 each wait (2 s at most) until all four are running at once,
 * which four workers can do only if each takes one of them. */
static atomic_uint inside;
static atomic_uint met;
static void meet_four(void *ctx, size_t i, unsigned worker)
{
    (void)ctx, (void)worker;
    if (i >= 4)
        return;
    atomic_fetch_add(&inside, 1);
    for (int k = 0; k < 2000 && atomic_load(&inside) < 4; k++)
        usleep(1000);
    if (atomic_load(&inside) >= 4)
        atomic_fetch_add(&met, 1);
}

Test(batch, pool_for_each_gives_items_out_one_at_a_time)
{
    df_pool *p = df_pool_create(4);
    cr_assert_not_null(p);
    static atomic_uint hits[301];
    for (size_t i = 0; i < 301; i++)
        atomic_store(&hits[i], 0);
    df_pool_for_each(p, 301, count_call, hits);
    for (size_t i = 0; i < 301; i++)
        cr_assert_eq(atomic_load(&hits[i]), 1, "index %zu", i);
    /* 600 items: df_pool_for's chunks of five would put items 0..3 on two
     * workers at most, and they would never all meet */
    atomic_store(&inside, 0);
    atomic_store(&met, 0);
    df_pool_for_each(p, 600, meet_four, NULL);
    cr_assert_eq(atomic_load(&met), 4, "the first four items ran side by side");
    df_pool_destroy(p);
}

Test(batch, pool_runs_every_index_exactly_once_on_its_threads)
{
    df_pool *p = df_pool_create(4);
    cr_assert_not_null(p);
    cr_assert_eq(df_pool_size(p), 4);
    static atomic_uint hits[10007];
    static unsigned who[10007];
    for (int round = 0; round < 50; round++) { /* loops back to back reuse the threads */
        for (size_t i = 0; i < 10007; i++)
            atomic_store(&hits[i], 0);
        df_pool_for(p, 10007, count_call, hits);
        for (size_t i = 0; i < 10007; i++)
            cr_assert_eq(atomic_load(&hits[i]), 1, "index %zu round %d", i, round);
    }
    df_pool_for(p, 10007, note_worker, who);
    for (size_t i = 0; i < 10007; i++)
        cr_assert_lt(who[i], 4);
    df_pool_for(p, 0, count_call, hits); /* nothing to do: returns */
    df_pool_destroy(p);
    p = df_pool_create(1); /* one thread: a loop opened runs at its wait */
    for (size_t i = 0; i < 10007; i++)
        atomic_store(&hits[i], 0);
    int h = df_pool_begin(p, 10007, count_call, hits);
    cr_assert_geq(h, 0);
    df_pool_wait(p, h);
    for (size_t i = 0; i < 10007; i++)
        cr_assert_eq(atomic_load(&hits[i]), 1, "index %zu", i);
    df_pool_destroy(p);
    df_pool_for(NULL, 3, note_worker, who); /* no pool: the caller alone */
    cr_assert_eq(who[0] + who[1] + who[2], 0);
}

/* About 20 us of work: long enough that every worker takes chunks. */
static void busy_call(void *ctx, size_t i, unsigned w)
{
    double t0 = df_now();
    while (df_now() - t0 < 20e-6)
        ;
    count_call(ctx, i, w);
}

/* A worker takes the pool's lock to choose a loop, then stays on it chunk
 * after chunk while the choice holds (no loop opened since, no gate that
 * would come first shut): one choice a loop a worker, where taking the lock
 * at every chunk chose about as many times as there were chunks (128 here,
 * nearly all the workers'). */
Test(batch, pool_takes_its_lock_once_a_loop_a_worker)
{
    df_pool *p = df_pool_create(4);
    cr_assert_not_null(p);
    static atomic_uint hits[2048];
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < 2048; i++)
            atomic_store(&hits[i], 0);
        unsigned long before = df_pool_picks(p);
        df_pool_for(p, 2048, busy_call, hits); /* 128 chunks of 17 items */
        unsigned long picks = df_pool_picks(p) - before;
        for (size_t i = 0; i < 2048; i++)
            cr_assert_eq(atomic_load(&hits[i]), 1, "index %zu", i);
        cr_assert_leq(picks, 2 * 3, "round %d: %lu choices of a loop by 3 workers", round, picks);
    }
    df_pool_destroy(p);
}

static int gate_flag(void *ctx) { return atomic_load((atomic_int *)ctx); }

/* A gate that never opens, counting how often it is asked. */
static atomic_uint asked;
static int shut_gate(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&asked, 1);
    return 0;
}

/* A shut gate is asked at most once in 50 us (pool.c's
 * DF_POOL_GATE_EVERY) however many workers look for work: idle workers
 * look every 20 us each, and on the cuda backend each answer is a CUDA
 * event query under the pool's lock. */
Test(batch, pool_asks_a_shut_gate_at_most_every_50_us)
{
    df_pool *p = df_pool_create(8);
    cr_assert_not_null(p);
    static atomic_uint hits[100];
    atomic_store(&asked, 0);
    double t0 = df_now();
    int h = df_pool_begin_ahead(p, 100, count_call, hits, shut_gate, NULL);
    cr_assert_geq(h, 0);
    usleep(30000);
    unsigned n = atomic_load(&asked);
    double t1 = df_now();
    cr_assert_geq(n, 1, "the gate was never asked");
    cr_assert_leq(n, (unsigned)((t1 - t0) / 50e-6) + 1,
                  "asked %u times in %.1f ms", n, 1e3 * (t1 - t0));
    for (size_t i = 0; i < 100; i++)
        cr_assert_eq(atomic_load(&hits[i]), 0, "index %zu ran behind a shut gate", i);
    df_pool_wait(p, h); /* its waiter runs it, shut or not */
    for (size_t i = 0; i < 100; i++)
        cr_assert_eq(atomic_load(&hits[i]), 1, "index %zu", i);
    df_pool_destroy(p);
}

/* A loop opened behind a gate (df_pool_begin_ahead: the next batch, whose
 * cases the GPU is still making) is left alone by the workers while the
 * gate is shut, and the loops in front run meanwhile; once it opens the
 * workers take it; its waiter runs it even with the gate shut. */
Test(batch, pool_leaves_a_gated_loop_until_its_gate_opens)
{
    df_pool *p = df_pool_create(4);
    cr_assert_not_null(p);
    static atomic_uint hits[5000], front[10007];
    static atomic_int gate;
    static unsigned who[5000];
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < 5000; i++)
            atomic_store(&hits[i], 0);
        atomic_store(&gate, 0);
        int h = df_pool_begin_ahead(p, 5000, count_call, hits, gate_flag, &gate);
        cr_assert_geq(h, 0);
        for (size_t i = 0; i < 10007; i++)
            atomic_store(&front[i], 0);
        df_pool_for(p, 10007, count_call, front);
        for (size_t i = 0; i < 10007; i++)
            cr_assert_eq(atomic_load(&front[i]), 1, "front %zu", i);
        usleep(20000); /* idle workers poll the gate every 20 us */
        for (size_t i = 0; i < 5000; i++)
            cr_assert_eq(atomic_load(&hits[i]), 0, "index %zu ran behind a shut gate", i);
        if (round == 1) { /* opened: the workers run it without the waiter */
            atomic_store(&gate, 1);
            for (int t = 0; t < 2000; t++) {
                size_t done = 0;
                for (size_t i = 0; i < 5000; i++)
                    done += atomic_load(&hits[i]);
                if (done == 5000)
                    break;
                usleep(1000);
            }
            for (size_t i = 0; i < 5000; i++)
                cr_assert_eq(atomic_load(&hits[i]), 1, "index %zu after the gate opened", i);
        }
        df_pool_wait(p, h);
        for (size_t i = 0; i < 5000; i++)
            cr_assert_eq(atomic_load(&hits[i]), 1, "index %zu round %d", i, round);
    }
    /* a shut gate: the waiter alone runs it */
    atomic_store(&gate, 0);
    int h = df_pool_begin_ahead(p, 5000, note_worker, who, gate_flag, &gate);
    df_pool_wait(p, h);
    for (size_t i = 0; i < 5000; i++)
        cr_assert_eq(who[i], 0, "index %zu not on the waiter", i);
    df_pool_destroy(p);
}

/* Which loop each call the worker made belonged to, in order. */
typedef struct order_log {
    atomic_uint *next;
    unsigned *seq;
    unsigned id;
} order_log;

static void log_order(void *ctx, size_t i, unsigned worker)
{
    order_log *o = ctx;
    (void)i;
    (void)worker;
    usleep(50);
    o->seq[atomic_fetch_add(o->next, 1)] = o->id;
}

/* The order the workers serve open loops in: a loop before any loop of
 * work ahead (df_pool_begin_ahead: the batches after the next), and work
 * ahead oldest first, the batch the caller waits on next. With one worker
 * and three loops opened in a row (one, then two ahead), its calls go
 * loop by loop: newest-first had served the newest work ahead first. */
Test(batch, pool_serves_work_ahead_after_the_others_oldest_first)
{
    df_pool *p = df_pool_create(2); /* one worker beside the caller */
    cr_assert_not_null(p);
    enum { N = 200 };
    static unsigned seq[3 * N];
    atomic_uint next;
    atomic_store(&next, 0);
    order_log logs[3] = {{&next, seq, 0}, {&next, seq, 1}, {&next, seq, 2}};
    int h0 = df_pool_begin(p, N, log_order, &logs[0]);
    int h1 = df_pool_begin_ahead(p, N, log_order, &logs[1], NULL, NULL);
    int h2 = df_pool_begin_ahead(p, N, log_order, &logs[2], NULL, NULL);
    cr_assert(h0 >= 0 && h1 >= 0 && h2 >= 0);
    for (int t = 0; t < 5000 && atomic_load(&next) < 3 * N; t++)
        usleep(1000); /* the worker alone runs them */
    cr_assert_eq(atomic_load(&next), 3 * N, "the worker ran every call");
    for (size_t i = 1; i < 3 * N; i++)
        cr_assert_leq(seq[i - 1], seq[i], "call %zu: loop %u after loop %u", i, seq[i],
                      seq[i - 1]);
    df_pool_wait(p, h2);
    df_pool_wait(p, h1);
    df_pool_wait(p, h0);
    df_pool_destroy(p);
}

/* A loop left open in the background while loops are run in front of it
 * (the next batch made while this one is judged): every index of each
 * runs once; at most DF_POOL_MAX_LOOPS are open, and df_pool_for with no
 * loop free runs on the caller. */
Test(batch, pool_runs_a_background_loop_beside_the_loops_in_front)
{
    df_pool *p = df_pool_create(4);
    cr_assert_not_null(p);
    static atomic_uint back[200003], front[10007];
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < 200003; i++)
            atomic_store(&back[i], 0);
        int h = df_pool_begin(p, 200003, count_call, back);
        cr_assert_geq(h, 0);
        for (int f = 0; f < 5; f++) {
            for (size_t i = 0; i < 10007; i++)
                atomic_store(&front[i], 0);
            df_pool_for(p, 10007, count_call, front);
            for (size_t i = 0; i < 10007; i++)
                cr_assert_eq(atomic_load(&front[i]), 1, "front %zu round %d", i, round);
        }
        df_pool_wait(p, h);
        for (size_t i = 0; i < 200003; i++)
            cr_assert_eq(atomic_load(&back[i]), 1, "back %zu round %d", i, round);
    }
    int hs[DF_POOL_MAX_LOOPS];
    static atomic_uint many[DF_POOL_MAX_LOOPS][1000];
    for (int l = 0; l < DF_POOL_MAX_LOOPS; l++) {
        hs[l] = df_pool_begin(p, 1000, count_call, many[l]);
        cr_assert_geq(hs[l], 0);
    }
    cr_assert_eq(df_pool_begin(p, 10, count_call, front), -1, "no loop free");
    static unsigned who[64];
    df_pool_for(p, 64, note_worker, who);
    for (size_t i = 0; i < 64; i++)
        cr_assert_eq(who[i], 0, "run on the caller when no loop is free");
    for (int l = 0; l < DF_POOL_MAX_LOOPS; l++) {
        df_pool_wait(p, hs[l]);
        for (size_t i = 0; i < 1000; i++)
            cr_assert_eq(atomic_load(&many[l][i]), 1);
    }
    df_pool_destroy(p);
}

/* Cases past DF_GEN_CHUNK (max n 1M: about one in ten) made by the
 * prepare items chunk by chunk (engine_prepare.c's chunk_item), on the host
 * backend's path and under its GPU emulation: the same table and finding
 * files as one case at a time. */
Test(batch, long_cases_made_in_chunks_equal_one_at_a_time, .timeout = 120)
{
    char dir[128];
    const char *common = "run --backend host --kernel all,m-tail --seed 6 --cases 300 "
                         "--max-n 1M --meta-every 2 --save-precision all --save-bugs all --quiet";
    int rc1, rc2;
    one_and_many("batchlong", dir, sizeof dir, common, "--batch 16 --threads 3", &rc1, &rc2);
    cr_assert_eq(rc2, rc1, "%s", out2);
    const char *t1 = table(out1);
    cr_assert_str_eq(table(out2), t1);
    same_files(dir, "one", "many", "long cases under the GPU emulation");
    /* generated by the backend (the GPU's way): the sampled cases' permute
     * copies still made a chunk an item */
    emulated_equals(common, "--batch 16 --threads 3 --gen gpu", dir, "gen", rc1, t1);
    same_files(dir, "one", "gen", "long cases generated through the backend");
    rc1 = df_test_sh(out1, sizeof out1, "./dotfuzz %s --batch 1 --corpus %s/host1", common,
                     dir);
    rc2 = df_test_sh(out2, sizeof out2, "./dotfuzz %s --batch 16 --threads 3 --corpus %s/host",
                     common, dir);
    cr_assert_eq(rc2, rc1, "%s", out2);
    cr_assert_str_eq(table(out2), table(out1));
    same_files(dir, "host1", "host", "long cases, the host backend's path");
    df_test_sh(out1, sizeof out1, "rm -rf %s", dir);
}

/* The emulated runs after this one keep a trace (DOTFUZZ_TRACE) in dir/t.tsv. */
static void trace_into(const char *dir)
{
    char path[160];
    snprintf(path, sizeof path, "%s/t.tsv", dir);
    cr_assert_eq(setenv("DOTFUZZ_TRACE", path, 1), 0);
}

/* The awk program prog over dir/t.tsv's tab-separated fields: its output in n. */
static void trace_awk(char *n, size_t len, const char *dir, const char *prog)
{
    df_test_sh(n, len, "awk -F'\t' '%s' %s/t.tsv", prog, dir);
}

/* A temporary directory for test tag in dir, then run's common arguments
 * under the GPU emulation one case at a time (dir/one, output in out1) and,
 * traced (trace_into), with args (dir/sub): the same exit code, table and
 * finding files (what: the run's words in a failure). */
static void traced_equals_one(const char *tag, char *dir, size_t dirlen, const char *common,
                              const char *args, const char *sub, const char *what)
{
    snprintf(dir, dirlen, "%s", df_test_tmpdir(tag));
    int rc1 = emulated(out1, sizeof out1, common, "--batch 1", dir, "one");
    trace_into(dir);
    emulated_equals(common, args, dir, sub, rc1, table(out1));
    same_files(dir, "one", sub, what);
}

/* A long index (the 16,384th, --long-n) is a batch of its own, its case
 * made by chunk items on every thread (the trace: batches begun at 16383
 * and 16384; the case's generation in many events, on more than one
 * thread), under the GPU emulation double-buffered: the same table and
 * finding files as one case at a time. */
Test(batch, a_long_case_is_a_batch_of_its_own, .timeout = 120)
{
    char dir[128], n[64];
    const char *common = "run --backend host --kernel shfl,m-tail --seed 3 --cases 16400 "
                         "--max-n 256 --long-n 2200000 --save-precision all --save-bugs all "
                         "--quiet";
    traced_equals_one("batchsolo", dir, sizeof dir, common,
                      "--batch 4096 --threads 3 --pipeline on", "solo",
                      "a long case in a batch of its own");
    trace_awk(n, sizeof n, dir,
              "$1 == \"caller\" && $2 == \"prepare\" && ($3 == 16383 || $3 == 16384) "
              "{ b[$3] = 1 } END { for (x in b) k++; print k + 0 }");
    cr_assert_eq(atoi(n), 2, "batches begun at 16383 and 16384: %s", n);
    trace_awk(n, sizeof n, dir,
              "$1 != \"caller\" && $2 == \"generate\" && $3 == 16383 { k++; t[$1] = 1 } "
              "END { for (x in t) w++; print k + 0, w + 0 }");
    unsigned events = 0, threads = 0;
    cr_assert_eq(sscanf(n, "%u %u", &events, &threads), 2, "%s", n);
    cr_assert(events > 8 && threads > 1, "the long case's generation: %u events on %u threads",
              events, threads);
    df_test_sh(out1, sizeof out1, "rm -rf %s", dir);
}

/* Cases past the pipeline's bytes (max n 3M: three batches of 16 pass
 * DF_PIPELINE_BYTES) generated through the backend and pipelined: a ring of
 * three sets of slots (engine_layout.c's sets_fit: the machine's memory holds
 * them), whose batch after next is generated while the pool references
 * the two in front. The trace shows the three begun before the first
 * check; the table and finding files are one case at a time's. */
Test(batch, long_cases_in_a_ring_of_three_equal_one_at_a_time, .timeout = 120)
{
    char dir[128], n[64];
    const char *common = "run --backend host --kernel shfl,fold,int-atomic,m-tail --seed 8 "
                         "--cases 320 --max-n 3M --meta-every 2 --save-precision all "
                         "--save-bugs all --quiet";
    traced_equals_one("batchring3", dir, sizeof dir, common,
                      "--batch 16 --threads 3 --pipeline on --gen gpu", "ring",
                      "long cases in a ring of three");
    trace_awk(n, sizeof n, dir,
              "$1 == \"caller\" && $2 == \"gpu\" { exit } "
              "$1 == \"caller\" && $2 == \"generate\" { k++ } END { print k + 0 }");
    cr_assert_eq(atoi(n), 3, "batches begun before the first check: %s", n);
    df_test_sh(out1, sizeof out1, "rm -rf %s", dir);
}

/* DOTFUZZ_TRACE (fuzz/run/trace.h): the run's verdicts as without it, and a TSV
 * of the engine's events that scripts/trace-summary.sh reads; a file it
 * cannot write is said on stderr and leaves the run's outcome alone. */
Test(batch, trace_file_holds_the_engines_events)
{
    char *dir = df_test_tmpdir("trace");
    char out1[8192], out2[8192], sum[8192];
    const char *common = "run --backend host --kernel shfl,fold --seed 12 --cases 600 --batch 64 "
                         "--quiet --save-precision none --save-bugs none";
    int rc1 = df_test_sh(out1, sizeof out1, "./dotfuzz %s --corpus %s/a", common, dir);
    int rc2 = df_test_sh(out2, sizeof out2, "DOTFUZZ_TRACE=%s/t.tsv ./dotfuzz %s --corpus %s/b",
                         dir, common, dir);
    cr_assert_eq(rc1, 0, "%s", out1);
    cr_assert_eq(rc2, 0, "%s", out2);
    /* the tables past the timing line, up to the corpus's path */
    char *tab1 = strchr(out1, '\n'), *tab2 = strchr(out2, '\n');
    cr_assert(tab1 && tab2);
    char *e1 = strstr(tab1, "findings saved"), *e2 = strstr(tab2, "findings saved");
    if (e1)
        *e1 = '\0';
    if (e2)
        *e2 = '\0';
    cr_assert_str_eq(tab1, tab2, "the tables with and without the trace");
    char path[256];
    snprintf(path, sizeof path, "%s/t.tsv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "the trace file");
    char line[512];
    unsigned kinds = 0, rows = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, "thread\tkind\tindex\tstart\tend\n", "the header row first");
    static const char *const want[] = {"\tgenerate\t", "\trefs\t", "\tmodel\t", "\tjudge\t",
                                       "\tprepare\t"};
    while (fgets(line, sizeof line, f)) {
        rows++;
        for (unsigned k = 0; k < 5; k++)
            kinds |= strstr(line, want[k]) ? 1u << k : 0u;
        double t0 = -1, t1 = -2;
        cr_assert_eq(sscanf(line, "%*s %*s %*s %lf %lf", &t0, &t1), 2, "%s", line);
        cr_assert(t0 >= 0 && t1 >= t0, "%s", line);
    }
    fclose(f);
    cr_assert_eq(kinds, 31u, "every kind of event the host backend's batches make (%x)", kinds);
    cr_assert_gt(rows, 30);
    int rc3 = df_test_sh(sum, sizeof sum, "bash scripts/trace-summary.sh %s", path);
    cr_assert_eq(rc3, 0, "%s", sum);
    cr_assert_not_null(strstr(sum, "busy thread-s in the window"), "%s", sum);
    cr_assert_not_null(strstr(sum, "caller "), "%s", sum);
    int rc4 = df_test_sh(out2, sizeof out2,
                         "DOTFUZZ_TRACE=%s/no/such/dir/t.tsv ./dotfuzz %s --corpus %s/c", dir,
                         common, dir);
    cr_assert_eq(rc4, 0, "%s", out2);
    cr_assert_not_null(strstr(out2, "could not write the trace"), "%s", out2);
    /* %p: the process id, one file a process (a campaign's workers) */
    int rc5 = df_test_sh(out2, sizeof out2,
                         "DOTFUZZ_TRACE=%s/p.%%p.tsv ./dotfuzz %s --corpus %s/d >/dev/null && "
                         "ls %s | grep -c '^p[.][0-9][0-9]*[.]tsv$'",
                         dir, common, dir, dir);
    cr_assert_eq(rc5, 0, "%s", out2);
    cr_assert_str_eq(out2, "1\n", "one file named by the process id");
    df_test_sh(out1, sizeof out1, "rm -rf %s", dir);
}

/* The workers a run starts without --jobs: two a GPU where each GPU has 16
 * usable CPUs or more, else one a GPU; one a GPU with huge cases; one
 * without a GPU. */
Test(batch, default_workers_follow_the_gpus_and_their_cpus)
{
    cr_assert_eq(df_sup_default_jobs(1, 16, 0), 2);
    cr_assert_eq(df_sup_default_jobs(1, 15, 0), 1);
    cr_assert_eq(df_sup_default_jobs(2, 32, 0), 4);
    cr_assert_eq(df_sup_default_jobs(2, 31, 0), 2);
    cr_assert_eq(df_sup_default_jobs(8, 128, 0), 16);
    cr_assert_eq(df_sup_default_jobs(1, 64, 1), 1, "huge cases: one worker a GPU");
    cr_assert_eq(df_sup_default_jobs(0, 64, 0), 1);
}

/* On several GPUs a worker keeps to its GPU's share of the CPUs: a share
 * a GPU in use, none with one GPU in use. */
Test(batch, workers_keep_to_their_gpus_share_of_the_cpus)
{
    unsigned part, parts;
    cr_assert_eq(df_sup_cpu_part(0, 2, 1, &part, &parts), 0, "one GPU: no pin");
    cr_assert_eq(df_sup_cpu_part(0, 1, 2, &part, &parts), 0, "one worker: one GPU in use");
    for (uint32_t w = 0; w < 4; w++) { /* the default on two GPUs: 0, 2 on GPU 0 */
        cr_assert_eq(df_sup_cpu_part(w, 4, 2, &part, &parts), 1);
        cr_assert(part == w % 2 && parts == 2, "worker %u: part %u of %u", w, part, parts);
    }
    cr_assert(df_sup_cpu_part(2, 3, 8, &part, &parts) && part == 2 && parts == 3,
              "three workers on eight GPUs: three GPUs in use, a third each");
}
