/* test_batch.c — batched checking (run --batch, fuzz/engine.c) gives
 * exactly the verdicts, counts and saved files of one case at a time on
 * the same seed, and the thread pool (fuzz/pool.h) runs every index once. */
#include <stdatomic.h>

#include "../fuzz/pool.h"
#include "cli_helpers.h"

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
    cr_assert_str_eq(table(out2), table(out1));
    char l1[8192], l2[8192];
    df_test_sh(l1, sizeof l1, "ls %s/one | sha1sum; ls %s/one | wc -l", dir, dir);
    df_test_sh(l2, sizeof l2, "ls %s/many | sha1sum; ls %s/many | wc -l", dir, dir);
    cr_assert_str_eq(l2, l1, "the same finding files");
    cr_assert(atoi(strchr(l1, '\n') + 1) > 50, "%s", l1);
    df_test_sh(l1, sizeof l1, "rm -rf %s", dir);
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
    df_pool_for(NULL, 3, note_worker, who); /* no pool: the caller alone */
    cr_assert_eq(who[0] + who[1] + who[2], 0);
}
