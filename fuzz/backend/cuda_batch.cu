/* fuzz/backend/cuda_batch.cu — the cuda backend's batched run
 * (df_cuda_run_batch, and its halves df_cuda_part_start and
 * df_cuda_parts_end; API in cuda_backend.h) and the batch profile
 * (df_cuda_batch_times).
 *
 * A kernel's batch (a part, when the engine runs a batch's kernels side
 * by side) runs on a lane of its own (cuda_internal.h): its buffers,
 * stream, side streams and cuBLAS handles, up to DF_CUDA_LANES parts in
 * flight, each ended (waited for and finished) when its lane is taken
 * again or by df_cuda_parts_end. A part has one copy in and one
 * synchronization: every valid case's
 * vectors, inside the same guard zones as one case's (so each keeps its
 * misalignment and its poison), and the table of cases are staged into
 * one pinned buffer (the plan and staging: cuda_stage.cu) and copied as
 * one transfer, then unpacked on the device. Each case has its own set of
 * soft-error slots, result slot and scratch. A kernel with a batched
 * launcher (df_gpu_ops.enqueue_batch) then runs the batch in one launch
 * per block size (fold and tournament: per stage and block size), the
 * sizes side by side on side streams, into result slots zeroed first,
 * and one copy out; any other kernel runs its own enqueue for each case
 * round the side streams (enqueue_each; from several of the pool's
 * threads where the kernel says its enqueue may: DF_K_ENQUEUE_THREADS),
 * with its own launches but no synchronization between cases; each says
 * where its result lies (df_gpu_fetch_later) rather than copying it. The
 * results and the soft-error slots' claim words come back into pinned
 * memory in one launch, and each case's result goes through the kernel's
 * finish.
 * Batches of the kernels that check loop invariants in debug-invariant
 * mode, and every batch once the context is broken, run case after case
 * through df_cuda_run.
 *
 * Like every .cu file it is compiled twice (see Makefile); the cc half is
 * empty. */
#ifndef __CUDACC__
/* The nvcc half below is the batched run; ISO C wants a declaration here. */
typedef int df_cuda_batch_is_built_by_nvcc;
#else
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/cuda_internal.h"

enum { SIDE_MIN_CASES = 32 }; /* cases a batch has for each side stream its groups take */

extern "C" void df_cuda_batch_times(df_cuda *cu, double out[DF_CUDA_T_COUNT])
{
    for (int set = 0; set < DF_CUDA_GEN_SETS; set++)
        if (__atomic_load_n(&cu->gen[set].landed, __ATOMIC_ACQUIRE))
            df_cuda_gen_count(cu, set);
    memcpy(out, cu->batch_s, sizeof cu->batch_s);
    memset(cu->batch_s, 0, sizeof cu->batch_s);
}

/* The n cases one at a time through df_cuda_run, where the batched path
 * does not take them or a batch failed without a sticky error. */
static int run_one_by_one(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                          size_t n, df_result *res, size_t *done)
{
    *done = 0;
    for (size_t i = 0; i < n; i++) {
        int rc = df_cuda_run(cu, k, cases[i], &res[i]);
        *done = i + 1;
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Whether k's cases of a batch record where their results lie
 * (df_gpu_fetch_later) for batch_out_kernel to copy, rather than each
 * copying its own: a kernel without a batched launcher, where the pinned
 * buffers have device addresses. */
static int fetch_later(const df_cuda *cu, const df_kernel *k)
{
    const df_cuda_batch_bufs *b = &cu->ln->batch;
    return !k->gpu->enqueue_batch && b->h_fetch && b->h_fetch_dev && b->h_bres_dev &&
           b->h_claims_dev;
}

/* Case j of a batch of k's as its own df_gpu_ctx: its vectors, scratch,
 * result slot and set of soft-error slots in the batch's buffers, and the
 * scratch's pinned twin where the case's enqueue copies into it: NULL for
 * a kernel with a batched launcher (the plan makes no twin for it, and
 * one left by an earlier kernel's batch is not this case's). */
static void fill_batch_ctx(const df_cuda *cu, const df_kernel *k, size_t j, df_gpu_ctx *ctx)
{
    const df_cuda_lane *ln = cu->ln;
    const df_cuda_batch_bufs *b = &ln->batch;
    const df_cuda_batch_item *it = &ln->plan.items[j];
    memset(ctx, 0, sizeof *ctx);
    ctx->a = (const char *)b->d_batch + it->off_a + it->pre_a;
    ctx->b = (const char *)b->d_batch + it->off_b + it->pre_b;
    ctx->d_scratch = (char *)b->d_bscratch + it->scratch_off;
    ctx->h_scratch = b->h_bscratch && !k->gpu->enqueue_batch
                         ? (char *)b->h_bscratch + it->scratch_off
                         : NULL;
    ctx->d_scratch_bytes = it->scratch_bytes;
    ctx->d_result = (char *)b->d_bres + (size_t)DF_CUDA_RESULT_BYTES * j;
    ctx->h_result = (char *)b->h_bres + (size_t)DF_CUDA_RESULT_BYTES * j;
    ctx->stream = ln->stream;
    ctx->cublas = ln->cublas;
    ctx->debug_invariants = cu->debug_invariants;
    ctx->soft = df_soft_slots_dev_at(&b->bsoft, j);
}

/* The side streams and their events, made once. Returns the failed call
 * or NULL. */
static const char *side_streams(df_cuda *cu, cudaError_t *e)
{
    df_cuda_launch *l = &cu->ln->launch;
    if (!l->unpacked && (*e = cudaEventCreateWithFlags(&l->unpacked, cudaEventDisableTiming)))
        return "cudaEventCreateWithFlags(unpacked)";
    for (int s = 0; s < DF_CUDA_SIDE_STREAMS; s++) {
        if (!l->side[s] && (*e = cudaStreamCreateWithFlags(&l->side[s], cudaStreamNonBlocking)))
            return "cudaStreamCreateWithFlags(side)";
        if (!l->side_done[s] &&
            (*e = cudaEventCreateWithFlags(&l->side_done[s], cudaEventDisableTiming)))
            return "cudaEventCreateWithFlags(side)";
    }
    return NULL;
}

/* The first ns side streams start after what the stream holds now (the
 * batch's unpack). Returns 0 or the error, *call the failed call. */
static int sides_fork(df_cuda *cu, size_t ns, const char **call)
{
    df_cuda_launch *l = &cu->ln->launch;
    cudaError_t e = cudaSuccess;
    if (ns && (*call = side_streams(cu, &e)))
        return (int)e;
    if (ns && (e = cudaEventRecord(l->unpacked, cu->ln->stream)) != cudaSuccess)
        return *call = "cudaEventRecord(unpacked)", (int)e;
    for (size_t s = 0; s < ns; s++)
        if ((e = cudaStreamWaitEvent(l->side[s], l->unpacked, 0)) != cudaSuccess)
            return *call = "cudaStreamWaitEvent(unpacked)", (int)e;
    return 0;
}

/* The stream waits for the first ns side streams, after an error too
 * (code: the launches' outcome): nothing of this batch may still run when
 * the next one starts. Returns code, or the join's error when code is 0. */
static int sides_join(df_cuda *cu, size_t ns, int code, const char **call)
{
    df_cuda_launch *l = &cu->ln->launch;
    cudaError_t e;
    for (size_t s = 0; s < ns; s++)
        if ((e = cudaEventRecord(l->side_done[s], l->side[s])) != cudaSuccess ||
            (e = cudaStreamWaitEvent(cu->ln->stream, l->side_done[s], 0)) != cudaSuccess) {
            if (code == 0) {
                *call = "cudaStreamWaitEvent(side)";
                code = (int)e;
            }
            (void)cudaStreamSynchronize(l->side[s]);
        }
    return code;
}

/* A kernel without a batched launcher: its own enqueue for each case, each
 * in its part of the batch's buffers (fill_batch_ctx), copying its block
 * partials to the host where it has them, as when it runs alone, and
 * saying where its result lies for batch_out_kernel's copy (fetch_later),
 * with no synchronization between cases. The cases go round the side streams,
 * which start after the unpack and which the stream then waits for, so
 * cases run side by side: one case of seed 000's kernels (a thread per
 * block adding its block serially) leaves most of the GPU idle. A kernel
 * marked DF_K_ONE_STREAM runs its cases in order on the stream itself.
 * Returns 0 or the first error, as batch_enqueue. */
/* enqueue_each's threads: DF_K_ENQUEUE_THREADS kernels' cases go to at
 * most DF_CUDA_ENQ_THREADS of the pool's threads, each with at least
 * ENQ_MIN_CASES of the batch's cases, its own side stream and cuBLAS
 * handle (cu->ln->cublas_mt): a cuBLAS call or a cuBLASLt matmul takes
 * several microseconds of host time, which one thread pays case after
 * case while the GPU waits. */
enum { ENQ_MIN_CASES = 8 };
static_assert(DF_CUDA_ENQ_THREADS <= DF_CUDA_SIDE_STREAMS, "a side stream a thread");

typedef struct enq_part {
    df_cuda *cu;
    const df_kernel *k;
    size_t m, parts;
    /* each part's first failure: its case, code, call and detail */
    size_t bad_at[DF_CUDA_ENQ_THREADS];
    int code[DF_CUDA_ENQ_THREADS];
    const char *call[DF_CUDA_ENQ_THREADS];
    char detail[DF_CUDA_ENQ_THREADS][160];
} enq_part;

/* Case j of the batch through k's enqueue, on stream (NULL: the batch's
 * own) with the cuBLAS handle *handle, kept (a handle made now outlives
 * the batch). Returns the enqueue's code; a failure's call and words in
 * *call and detail. */
static int enqueue_case(df_cuda *cu, const df_kernel *k, size_t j, cudaStream_t stream,
                        void **handle, const char **call, char *detail, size_t dlen)
{
    df_gpu_ctx ctx;
    fill_batch_ctx(cu, k, j, &ctx);
    if (fetch_later(cu, k))
        ctx.fetch = &cu->ln->batch.h_fetch[j];
    if (stream)
        ctx.stream = stream;
    ctx.cublas = *handle;
    int code = k->gpu->enqueue(&ctx, &cu->ln->plan.items[j].rc);
    *handle = ctx.cublas;
    if (code != 0) {
        *call = ctx.failed_call ? ctx.failed_call : "enqueue";
        snprintf(detail, dlen, "%s", ctx.detail);
    }
    return code;
}

/* Part t: cases t, t + parts, ... on side stream t with handle t. */
static void enqueue_part(void *ctx, size_t t, unsigned w)
{
    (void)w;
    enq_part *ep = (enq_part *)ctx;
    df_cuda *cu = ep->cu;
    ep->code[t] = (int)cudaSetDevice(cu->device); /* the runtime's device is a thread's */
    ep->call[t] = ep->code[t] ? "cudaSetDevice" : NULL;
    ep->bad_at[t] = t;
    for (size_t j = t; j < ep->m && ep->code[t] == 0; j += ep->parts) {
        ep->code[t] = enqueue_case(cu, ep->k, j, cu->ln->launch.side[t], &cu->ln->cublas_mt[t],
                                   &ep->call[t], ep->detail[t], sizeof ep->detail[t]);
        if (ep->code[t] != 0)
            ep->bad_at[t] = j;
    }
}

/* enqueue_each on the pool's threads (DF_K_ENQUEUE_THREADS, parts of
 * them). Returns 0 or the failure of the lowest case that failed. */
static int enqueue_parts(df_cuda *cu, const df_kernel *k, size_t m, size_t parts,
                         const char **call, char *detail, size_t dlen)
{
    int code = sides_fork(cu, parts, call);
    if (code != 0)
        return code;
    enq_part *ep = (enq_part *)calloc(1, sizeof *ep);
    if (!ep)
        return sides_join(cu, parts, (int)cudaErrorMemoryAllocation, call);
    ep->cu = cu;
    ep->k = k;
    ep->m = m;
    ep->parts = parts;
    df_pool_for(cu->pool, parts, enqueue_part, ep);
    size_t first = m;
    for (size_t t = 0; t < parts; t++)
        if (ep->code[t] != 0 && ep->bad_at[t] < first) {
            first = ep->bad_at[t];
            code = ep->code[t];
            *call = ep->call[t];
            snprintf(detail, dlen, "%s", ep->detail[t]);
        }
    free(ep);
    return sides_join(cu, parts, code, call);
}

static int enqueue_each(df_cuda *cu, const df_kernel *k, size_t m, const char **call,
                        char *detail, size_t dlen)
{
    size_t parts = m / ENQ_MIN_CASES, pool = cu->pool ? df_pool_size(cu->pool) : 1;
    parts = parts < pool ? parts : pool;
    parts = parts < (size_t)DF_CUDA_ENQ_THREADS ? parts : (size_t)DF_CUDA_ENQ_THREADS;
    if ((k->flags & DF_K_ENQUEUE_THREADS) && parts > 1)
        return enqueue_parts(cu, k, m, parts, call, detail, dlen);
    const size_t sides = DF_CUDA_SIDE_STREAMS;
    size_t ns = (k->flags & DF_K_ONE_STREAM) ? 0 : (m < sides ? m : sides);
    int code = sides_fork(cu, ns, call);
    if (code != 0)
        return code;
    for (size_t j = 0; j < m && code == 0; j++)
        code = enqueue_case(cu, k, j, ns ? cu->ln->launch.side[j % ns] : NULL, &cu->ln->cublas,
                            call, detail, dlen);
    return sides_join(cu, ns, code, call);
}

/* A batch's results (nres of 16 bytes) and soft claim words (nclaims)
 * into their pinned copies, by the SMs' stores over PCIe: not two copies
 * on the copy engine, where they would queue behind the generation's
 * copy back (its pieces of megabytes) while the caller's synchronization
 * waits on them. The results are the batch's result slots (fetch NULL:
 * a batched launch's), or the bytes each case's enqueue said its result
 * is (fetch: df_gpu_fetch_later; a case with no place copied its own). */
static const size_t OUT_THREADS = 256, OUT_BLOCKS_MAX = 256;
static_assert(DF_CUDA_RESULT_BYTES == sizeof(uint4), "a result is one uint4");

__global__ void batch_out_kernel(const uint4 *res, const df_gpu_fetch *fetch, uint4 *h_res,
                                 size_t nres, const int *claims, int *h_claims, size_t nclaims)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nres; i += stride) {
        if (!fetch) {
            h_res[i] = res[i];
            continue;
        }
        const df_gpu_fetch f = fetch[i];
        const unsigned char *src = (const unsigned char *)f.src;
        for (uint32_t q = 0; src && q < f.bytes; q++)
            ((unsigned char *)&h_res[i])[q] = src[q];
    }
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nclaims; i += stride)
        h_claims[i] = claims[i];
}

/* Copy in, launches, copy out, one synchronization. Returns 0 or the
 * error, with *call the failed call (detail: the launcher's words). */
static int batch_issue(df_cuda *cu, const df_kernel *k, size_t m, size_t host,
                       size_t ngroups, size_t longest, const char **call, char *detail,
                       size_t dlen)
{
    df_gpu_enqueue_batch launch = k->gpu->enqueue_batch;
    df_cuda_lane *ln = cu->ln;
    df_cuda_batch_bufs *b = &ln->batch;
    double queued = df_now();
    cudaError_t e;
    if ((e = cudaSetDevice(cu->device)) != cudaSuccess)
        return *call = "cudaSetDevice", (int)e;
    if (!ln->stream &&
        (e = cudaStreamCreateWithFlags(&ln->stream, cudaStreamNonBlocking)) != cudaSuccess)
        return *call = "cudaStreamCreateWithFlags(lane)", (int)e;
    for (int k = 0; k < 5; k++)
        if (!ln->launch.bev[k] && (e = cudaEventCreate(&ln->launch.bev[k])) != cudaSuccess)
            return *call = "cudaEventCreate", (int)e;
    (void)cudaEventRecord(ln->launch.bev[0], ln->stream);
    if ((e = df_soft_slots_clear_n(&b->bsoft, m, ln->stream, call)) != cudaSuccess)
        return (int)e;
    if ((e = cudaMemcpyAsync(b->d_batch, b->h_batch, m * sizeof(df_gpu_batch_case),
                             cudaMemcpyHostToDevice, ln->stream)) != cudaSuccess)
        return *call = "cudaMemcpyAsync(batch table)", (int)e;
    if ((e = cudaMemcpyAsync(b->d_pack, (char *)b->h_batch + ln->plan.table_bytes,
                             host - ln->plan.table_bytes, cudaMemcpyHostToDevice, ln->stream)) !=
        cudaSuccess)
        return *call = "cudaMemcpyAsync(batch)", (int)e;
    (void)cudaEventRecord(ln->launch.bev[1], ln->stream);
    for (int set = 0; set < DF_CUDA_GEN_SETS; set++) /* the device copies it reads: landed */
        if ((ln->plan.gen_sets & (1u << set)) &&
            (e = cudaStreamWaitEvent(ln->stream, cu->gen[set].done, 0)) != cudaSuccess)
            return *call = "cudaStreamWaitEvent(generation)", (int)e;
    if ((e = df_cuda_unpack_batch(cu, m, longest)) != cudaSuccess)
        return *call = "batch_unpack_kernel", (int)e;
    (void)cudaEventRecord(ln->launch.bev[2], ln->stream);
    const int later = fetch_later(cu, k);
    if (later) /* each case's enqueue records its result's place */
        memset(b->h_fetch, 0, m * sizeof *b->h_fetch);
    if (!launch) {
        int code = enqueue_each(cu, k, m, call, detail, dlen);
        if (code != 0)
            return code;
        (void)cudaEventRecord(ln->launch.bev[3], ln->stream); /* each result copied or placed */
    } else {
        df_gpu_batch bt;
        memset(&bt, 0, sizeof bt);
        bt.d_cases = (df_gpu_batch_case *)b->d_batch;
        bt.groups = ln->plan.groups;
        bt.ngroups = ngroups;
        bt.d_scratch = b->d_bscratch;
        bt.d_results = b->d_bres;
        bt.stream = ln->stream;
        bt.soft = df_soft_slots_dev(&b->bsoft); /* case j's: set j */
        /* the slots zeroed here, before the side streams fork: a launcher
         * whose blocks add into their case's slot (atomic-block,
         * int-atomic) finds each at zero, as its own enqueue leaves its
         * word, for one memset a batch; a memset the launcher put on the
         * stream would race its groups' launches on the side streams,
         * which wait only for what the stream holds before it is called */
        if ((e = cudaMemsetAsync(b->d_bres, 0, m * DF_CUDA_RESULT_BYTES, ln->stream)) !=
            cudaSuccess)
            return *call = "cudaMemsetAsync(batch results)", (int)e;
        /* groups side by side: each is a few small launches (a block size's
         * cases), which one after another on one stream leave the GPU
         * mostly idle. A side stream costs three more API calls, so a
         * small batch (a default run's, 256 cases shared by the kernels)
         * takes one per SIDE_MIN_CASES cases. */
        const size_t sides = DF_CUDA_SIDE_STREAMS, by_cases = m / SIDE_MIN_CASES;
        size_t ns = ngroups < sides ? ngroups : sides;
        ns = ns < by_cases ? ns : by_cases;
        int code = ns > 1 ? sides_fork(cu, ns, call) : 0;
        if (code != 0)
            return code;
        if (ns > 1) {
            bt.side = (void *const *)ln->launch.side;
            bt.nside = ns;
        }
        int launched = launch(&bt);
        code = ns > 1 ? sides_join(cu, ns, launched, call) : launched;
        if (launched != 0) {
            *call = bt.failed_call ? bt.failed_call : "enqueue_batch";
            snprintf(detail, dlen, "%s", bt.detail);
            return launched;
        }
        if (code != 0)
            return code; /* the join's */
        (void)cudaEventRecord(ln->launch.bev[3], ln->stream);
    }
    /* the results (a batched launch's) and the soft-error slots' claim
     * words (a report claims its slot first): batch_finish reads the
     * pinned slots of the cases that have one, not a cache miss a case in
     * memory the device wrote */
    const size_t nres = launch || later ? m : 0, nclaims = m * DF_SOFT_CODES;
    if (b->h_bres_dev && b->h_claims_dev) {
        size_t most = nres > nclaims ? nres : nclaims;
        size_t blocks = (most + OUT_THREADS - 1) / OUT_THREADS;
        batch_out_kernel<<<(unsigned)(blocks < OUT_BLOCKS_MAX ? blocks : OUT_BLOCKS_MAX),
                           OUT_THREADS, 0, ln->stream>>>(
            (const uint4 *)b->d_bres, later ? b->h_fetch_dev : NULL,
            (uint4 *)b->h_bres_dev, nres, b->bsoft.d_claim,
            b->h_claims_dev, nclaims);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return *call = "batch_out_kernel", (int)e;
    } else {
        if (nres && (e = cudaMemcpyAsync(b->h_bres, b->d_bres,
                                         nres * DF_CUDA_RESULT_BYTES, cudaMemcpyDeviceToHost,
                                         ln->stream)) != cudaSuccess)
            return *call = "cudaMemcpyAsync(batch results)", (int)e;
        if ((e = cudaMemcpyAsync(b->h_claims, b->bsoft.d_claim,
                                 nclaims * sizeof *b->h_claims, cudaMemcpyDeviceToHost,
                                 ln->stream)) != cudaSuccess)
            return *call = "cudaMemcpyAsync(batch soft claims)", (int)e;
    }
    (void)cudaEventRecord(ln->launch.bev[4], ln->stream);
    cu->batch_s[DF_CUDA_T_ENQUEUE] += df_now() - queued;
    return 0;
}

/* Waits for what batch_issue put on the lane's stream, and adds its
 * device stages to the batch profile. Returns 0 or the error. */
static int batch_wait(df_cuda *cu, const char **call)
{
    df_cuda_lane *ln = cu->ln;
    cudaError_t e;
    if ((e = cudaStreamSynchronize(ln->stream)) != cudaSuccess)
        return *call = "cudaStreamSynchronize", (int)e;
    for (int k = 0; k < 4; k++) {
        float ms = 0;
        if (cudaEventElapsedTime(&ms, ln->launch.bev[k], ln->launch.bev[k + 1]) == cudaSuccess)
            cu->batch_s[DF_CUDA_T_COPYIN + k] += 1e-3 * ms;
    }
    return 0;
}

/* batch_finish's cases, for the pool */
typedef struct finish_job {
    df_cuda *cu;
    const df_kernel *k;
    const df_case *const *cases;
    df_result *res;
} finish_job;

/* Case j's result through the kernel's finish, from its slot. */
static void finish_one(void *ctx_, size_t j, unsigned worker)
{
    (void)worker;
    const finish_job *fj = (const finish_job *)ctx_;
    df_cuda *cu = fj->cu;
    const df_gpu_batch_case *tbl = (const df_gpu_batch_case *)cu->ln->batch.h_batch;
    const df_cuda_batch_item *it = &cu->ln->plan.items[j];
    df_gpu_ctx ctx;
    fill_batch_ctx(cu, fj->k, j, &ctx);
    df_result *r = &fj->res[it->pos];
    int code = fj->k->gpu->finish(&ctx, &it->rc, r);
    if (code != 0) {
        df_cuda_set_error(r, fj->k, fj->cases[it->pos],
                          ctx.failed_call ? ctx.failed_call : "finish", code, ctx.detail);
        return;
    }
    r->status = DF_RUN_OK;
    /* its own first reports, where it claimed a slot; the kernel wrote
     * the CTA and thread of the group's launch, which the case's own
     * launch numbers from first_block, several of its blocks a CTA where
     * the CTA is wider than its lanes (df_batch_case_place) */
    int claimed = 0;
    for (unsigned q = 0; q < DF_SOFT_CODES; q++)
        claimed |= cu->ln->batch.h_claims[j * DF_SOFT_CODES + q];
    uint32_t added = claimed ? df_soft_slots_read_at(&cu->ln->batch.bsoft, j, r) : 0;
    const uint32_t flags = fj->k->flags, b = tbl[j].block;
    for (unsigned q = 0; q < DF_SOFT_CODES; q++)
        if (added & (1u << q)) {
            df_soft_report *s = &r->soft[q];
            unsigned long long blk;
            df_batch_case_place(s->block - tbl[j].first_block, s->thread,
                                df_batch_group_cta(flags, b), df_batch_group_lanes(flags, b),
                                &blk, &s->thread);
            s->block = (uint32_t)blk;
        }
}

/* Each case's result through the kernel's finish. A batched launcher's
 * kernel (df_finish_float, a case's own slots and result) finishes a large
 * batch on the pool, not on the caller's thread, which stands between the
 * GPU's run and the judgement. A kernel without one (a plugin's) keeps
 * its finish on this thread. */
static int batch_finish(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                        size_t m, df_result *res)
{
    finish_job fj = {cu, k, cases, res};
    df_pool_for(k->gpu->enqueue_batch && m >= DF_CUDA_POOL_MIN ? cu->pool : NULL, m, finish_one,
                &fj);
    return 0;
}

static void end_all(df_cuda *cu);

/* Parts in flight on lanes other than the current one. */
static int others_in_flight(const df_cuda *cu)
{
    int busy = 0;
    for (int l = 0; l < DF_CUDA_LANES; l++)
        busy += &cu->lanes[l] != cu->ln && cu->lanes[l].part.busy;
    return busy;
}

/* A failed part: an ordinary error reruns its cases one at a time, so
 * each gets its own result or error; a sticky one leaves no context to
 * rerun in. With no other part in flight, the part's first case carries
 * it (*done = 1), saying that the culprit is one of its cases; with
 * others in flight, the error may be any of theirs: from then on no case
 * carries it (*done = 0 for every part that fails), and the caller runs
 * the unchecked cases again one at a time, where the culprit dies alone. */
static int batch_failed(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                        size_t n, df_result *res, size_t *done, const char *call, int code,
                        const char *detail)
{
    if (cu->ln->stream)
        (void)cudaStreamSynchronize(cu->ln->stream);
    int others = others_in_flight(cu);
    if (df_cuda_after_failure(cu) == 0) {
        end_all(cu); /* the reruns meet no other part's failure */
        return run_one_by_one(cu, k, cases, n, res, done);
    }
    if (others)
        cu->unattributed = 1;
    if (cu->unattributed) {
        *done = 0;
        return -1;
    }
    char why[96];
    snprintf(why, sizeof why, "batched launch of %zu cases from index %llu", n,
             (unsigned long long)cases[0]->index);
    memset(&res[0], 0, sizeof res[0]);
    df_cuda_set_error(&res[0], k, cases[0], call, code, detail && detail[0] ? detail : why);
    *done = 1;
    return -1;
}

static void part_end(df_cuda *cu, df_cuda_lane *ln);

/* Ends every part in flight, the oldest first; cu->ln is left as it was. */
static void end_all(df_cuda *cu)
{
    df_cuda_lane *cur = cu->ln;
    for (unsigned i = 0; i < DF_CUDA_LANES; i++) {
        df_cuda_lane *ln = &cu->lanes[(cu->next_lane + i) % DF_CUDA_LANES];
        if (ln->part.busy)
            part_end(cu, ln);
    }
    cu->ln = cur;
}

/* Ends the part on lane ln: waits for it, finishes its cases, and writes
 * its outcome. */
static void part_end(df_cuda *cu, df_cuda_lane *ln)
{
    df_cuda_part p = ln->part;
    ln->part.busy = 0;
    cu->ln = ln;
    double t = df_now();
    const char *call = NULL;
    int code = batch_wait(cu, &call);
    if (code != 0) {
        *p.rc = batch_failed(cu, p.k, p.cases, p.n, p.res, p.done, call, code, NULL);
        return;
    }
    df_cuda_batch_tick(cu, DF_CUDA_T_DEVICE, &t);
    batch_finish(cu, p.k, p.cases, p.st.m, p.res);
    df_cuda_batch_tick(cu, DF_CUDA_T_FINISH, &t);
    *p.done = p.n;
    *p.rc = 0;
}

/* The lane a part is planned, staged and issued on: lane 0 for the part
 * staged ahead there, else the next in turn, its own part ended first. */
static df_cuda_lane *take_lane(df_cuda *cu, int staged)
{
    df_cuda_lane *ln = staged ? &cu->lanes[0] : &cu->lanes[cu->next_lane % DF_CUDA_LANES];
    cu->next_lane = (unsigned)(ln - cu->lanes) + 1;
    if (ln->part.busy)
        part_end(cu, ln);
    cu->ln = ln;
    return ln;
}

/* df_cuda_part_start; alone: df_cuda_run_batch's, which runs a batch on a
 * broken context case after case (each meets the error), where a part in
 * flight beside others runs nothing. */
static void part_start(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                       const df_derive *derive, size_t n, df_result *res, size_t *done,
                       int *rc, uint64_t ticket, int alone)
{
    *done = 0;
    *rc = 0;
    int staged = ticket != 0 && ticket == cu->ahead.ticket && k == cu->ahead.k &&
                 cases == cu->ahead.cases && derive == cu->ahead.derive &&
                 n == cu->ahead.n;
    df_cuda_lane *ln = take_lane(cu, staged);
    if (ln == &cu->lanes[0])
        cu->ahead.ticket = 0; /* used now, or lane 0's buffers' contents change */
    if (cu->broken && (!alone || cu->unattributed)) /* nothing runs; no case is the culprit */
        return (void)(*rc = -1);
    if (!df_cuda_batched(cu, k, n)) { /* case after case, with nothing else in flight */
        end_all(cu);
        return (void)(*rc = run_one_by_one(cu, k, cases, n, res, done));
    }
    df_cuda_staged st = cu->ahead.st;
    const char *call = NULL;
    cudaError_t e = cudaSuccess;
    int how = staged ? 0 : df_cuda_plan_and_stage(cu, k, cases, derive, n, res, &st, 0, &call, &e);
    if (how == 1) {
        *done = n;
        return;
    }
    if (how == 2) {
        end_all(cu);
        return (void)(*rc = run_one_by_one(cu, k, cases, n, res, done));
    }
    if (how == 3)
        return (void)(*rc = batch_failed(cu, k, cases, n, res, done, call, (int)e, NULL));
    double t = df_now();
    char detail[160] = "";
    int code = batch_issue(cu, k, st.m, st.host, st.ngroups, st.longest, &call, detail,
                           sizeof detail);
    if (code != 0)
        return (void)(*rc = batch_failed(cu, k, cases, n, res, done, call, code, detail));
    df_cuda_batch_tick(cu, DF_CUDA_T_DEVICE, &t);
    ln->part = df_cuda_part{1, k, cases, n, res, done, rc, st};
}

extern "C" void df_cuda_part_start(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                                   const df_derive *derive, size_t n, df_result *res,
                                   size_t *done, int *rc, uint64_t ticket)
{
    part_start(cu, k, cases, derive, n, res, done, rc, ticket, 0);
}

extern "C" void df_cuda_parts_end(df_cuda *cu)
{
    end_all(cu);
    cu->next_lane = 0;
}

extern "C" int df_cuda_run_batch(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                                 const df_derive *derive, size_t n, df_result *res,
                                 size_t *done, void (*meanwhile)(void *ctx), void *ctx,
                                 uint64_t ticket)
{
    int rc = 0;
    part_start(cu, k, cases, derive, n, res, done, &rc, ticket, 1);
    df_cuda_lane *ln = cu->ln;
    if (meanwhile) /* the caller's work while the device runs the batch */
        meanwhile(ctx);
    if (ln->part.busy)
        part_end(cu, ln);
    return rc;
}

#endif
