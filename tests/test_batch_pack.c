/* test_batch_pack.c — the arithmetic of batched groups that take several
 * block sizes (DF_K_BATCH_ANY_BLOCK, kernels/gpu_ops.h), which the GPU's
 * batched fold and tournament and the cuda backend's soft-report
 * renumbering share: a case's lanes and its group's CTA, and the place in
 * the case's own launch of each thread of a packed CTA. */
#include <criterion/criterion.h>
#include <string.h>

#include "kernels/gpu_ops.h"

/* Every block size a launch takes: the lanes are the power of two at or
 * above it, the CTA a whole number of lanes and at least 256 threads;
 * without the flag a group is of one block size, a case block a CTA. */
Test(batch_pack, lanes_and_ctas)
{
    for (uint32_t b = 1; b <= 1024; b++) {
        uint32_t lanes = df_batch_group_lanes(DF_K_BATCH_ANY_BLOCK, b);
        uint32_t cta = df_batch_group_cta(DF_K_BATCH_ANY_BLOCK, b);
        cr_assert((lanes & (lanes - 1)) == 0 && lanes >= b && lanes < 2 * b, "b %u: lanes %u",
                  b, lanes);
        cr_assert(cta % lanes == 0 && cta >= DF_BATCH_PACK_THREADS && cta <= 1024,
                  "b %u: cta %u", b, cta);
        cr_assert(cta == (lanes > DF_BATCH_PACK_THREADS ? lanes : DF_BATCH_PACK_THREADS));
        cr_assert_eq(df_batch_group_lanes(0, b), b);
        cr_assert_eq(df_batch_group_cta(0, b), b);
    }
}

/* A case of block b packed into CTAs: every thread of its own launch, up
 * to some blocks, is exactly one thread of the CTAs the launcher runs
 * (blocks / per of them, rounded up), and that thread's place is its own;
 * the threads of a CTA past the case's block, or past its blocks, idle. */
Test(batch_pack, every_thread_once)
{
    static const uint32_t blocks[] = {1, 2, 3, 4, 31, 33, 100, 128, 129, 255, 256, 257, 1000};
    for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
        const uint32_t b = blocks[bi];
        const uint32_t lanes = df_batch_group_lanes(DF_K_BATCH_ANY_BLOCK, b);
        const uint32_t cta = df_batch_group_cta(DF_K_BATCH_ANY_BLOCK, b), per = cta / lanes;
        const unsigned long long nblocks = 1000; /* the case's own grid */
        const uint32_t ctas = (uint32_t)((nblocks + per - 1) / per);
        static unsigned char seen[1000][1024];
        memset(seen, 0, sizeof seen);
        for (uint32_t c = 0; c < ctas; c++)
            for (uint32_t t = 0; t < cta; t++) {
                unsigned long long blk;
                uint32_t thr;
                df_batch_case_place(c, t, cta, lanes, &blk, &thr);
                cr_assert(thr < lanes);
                if (thr >= b || blk >= nblocks)
                    continue; /* idle */
                cr_assert_eq(seen[blk][thr], 0, "b %u: block %llu thread %u twice", b, blk, thr);
                seen[blk][thr] = 1;
            }
        for (unsigned long long blk = 0; blk < nblocks; blk++)
            for (uint32_t thr = 0; thr < b; thr++)
                cr_assert_eq(seen[blk][thr], 1, "b %u: block %llu thread %u not run", b, blk, thr);
    }
}

/* A group of one block size (every other batched kernel): the CTA is the
 * case's block, and a report's place is the CTA and thread themselves. */
Test(batch_pack, one_block_size_is_the_identity)
{
    unsigned long long blk;
    uint32_t thr;
    df_batch_case_place(7, 200, 256, 256, &blk, &thr);
    cr_assert(blk == 7 && thr == 200);
}

/* fold and tournament take several block sizes in a group; shfl does not. */
Test(batch_pack, which_kernels)
{
    cr_assert(df_kernel_find("fold")->flags & DF_K_BATCH_ANY_BLOCK);
    cr_assert(df_kernel_find("tournament")->flags & DF_K_BATCH_ANY_BLOCK);
    cr_assert(!(df_kernel_find("shfl")->flags & DF_K_BATCH_ANY_BLOCK));
}
