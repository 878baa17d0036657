/* fuzz/backend/cuda_internal.h — what the cuda backend's files share, for
 * their nvcc halves only: struct df_cuda, its fields grouped by concern, a
 * batch's cases as laid out, the guard zones' sizes, and the functions one
 * file gives the others. The backend's files (API in cuda_backend.h):
 *
 *   cuda_backend.cu  the device, one case's buffers, one case through a
 *                    kernel
 *   cuda_stage.cu    a batch planned, laid out and staged into pinned
 *                    memory; its unpack on the device
 *   cuda_batch.cu    a batch's run: launches, results and soft errors back,
 *                    each case's finish; the batch profile
 *   cuda_devgen.cu   the GPU's generator (fuzz/gen/values.h on the device)
 *   cuda_perturb.cu  a perturbed schedule around one case's launch
 *
 * Calls between them go one way (scripts/layers.py checks it): cuda_batch.cu
 * calls into cuda_stage.cu, cuda_devgen.cu and cuda_backend.cu; those two
 * into cuda_backend.cu, which calls cuda_perturb.cu alone, which calls
 * none of them.
 */
#ifndef DOTFUZZ_CUDA_INTERNAL_H
#define DOTFUZZ_CUDA_INTERNAL_H

#ifndef __CUDACC__
#error "cuda_internal.h is for the nvcc half of the cuda backend's files"
#endif

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/blas.h"
#include "kernels/gpu_ops.h"
#include "kernels/kernel.h"
#include "kernels/soft_error_host.h"
#include "fuzz/backend/cuda_backend.h"
#include "fuzz/pool.h"

enum {
    DF_CUDA_RESULT_BYTES = 16, /* a kernel's result slot */
    DF_CUDA_ALIGN = 256,       /* every buffer's and span's alignment */
    DF_CUDA_SIDE_STREAMS = 16, /* side streams a batch's launches spread over */
    DF_CUDA_ENQ_THREADS = 8,   /* host threads a batch's enqueues spread over, at most
                                  (DF_K_ENQUEUE_THREADS: cuda_batch.cu) */
    DF_CUDA_POOL_MIN = 1024,   /* cases in a batch from which its plan and finish
                                  go on the pool's threads */
    DF_CUDA_DIRECT_BYTES = 1 << 30, /* a vector this long is copied from where it
                                       lies, its pages locked (copy_case_in) */
    DF_CUDA_STAGE_PIECE = 1 << 24 /* bytes of a long vector one thread stages
                                     at a time (a case of 2^26 elements: 256 MiB
                                     a vector, which one thread would stage while
                                     the others wait) */
};

/* A valid case of a batch: the resolved case, its place in the caller's
 * array and its layout in the staging buffer and the scratch. */
typedef struct df_cuda_batch_item {
    df_case rc;
    size_t pos;
    size_t off_a, off_b;   /* spans of a and b from the device batch's base */
    size_t pre_a, pre_b;   /* leading guard + offset, in bytes */
    size_t pack_a, pack_b; /* a and b, packed, from the staging base */
    const unsigned char *dev_a, *dev_b; /* a and b already on the device (the
                                           GPU generated them), or NULL */
    uint32_t xform_a;      /* dev_a is the vector a follows from: the unpack's
                              derive_word (derive_xform), else 0 */
    size_t scratch_off, scratch_bytes; /* its scratch, from the batch scratch's base */
} df_cuda_batch_item;

/* A batch laid out and staged (batch_plan, batch_buffers, batch_groups,
 * batch_stage): what batch_enqueue and batch_finish need of it. */
typedef struct df_cuda_staged {
    size_t m, host, ngroups, longest;
} df_cuda_staged;

/* df_cuda_run's buffers, grown on demand and reused across cases. */
typedef struct df_cuda_one {
    void *h_result, *d_result;   /* 16 bytes each */
    void *d_a, *d_b;             /* cudaMalloc'd, so 256-byte aligned; each
                                    vector inside guard zones */
    size_t d_a_cap, d_b_cap;
    void *h_stage;               /* pinned: a then b, copied in from the case */
    size_t h_stage_cap;
    void *d_scratch, *h_scratch; /* kernel scratch and its pinned twin */
    size_t d_scratch_cap, h_scratch_cap;
    df_soft_slots soft;          /* soft-error slots, one per kind */
} df_cuda_one;

/* A batch's buffers (df_cuda_run_batch): grown, never shrunk. */
typedef struct df_cuda_batch_bufs {
    void *h_batch;               /* pinned: [case table | unpack table | a, b packed] */
    void *d_batch;               /* [case table | each case's a, b with guards] */
    void *d_pack;                /* [unpack table | a, b packed]: h_batch's copy */
    size_t h_batch_cap, d_batch_cap, d_pack_cap;
    void *d_bscratch;            /* every case's scratch */
    void *h_bscratch;            /* its pinned twin (kernels without a batched launcher) */
    size_t d_bscratch_cap, h_bscratch_cap;
    void *d_bres, *h_bres;       /* 16 bytes of result per case */
    size_t d_bres_cap, h_bres_cap;
    df_soft_slots bsoft;         /* one set of soft-error slots per case */
    int *h_claims;               /* pinned: bsoft's claim words after the batch */
    size_t h_claims_cap;
    /* pinned: where each case of a kernel without a batched launcher left
     * its result (df_gpu_fetch_later), which batch_out_kernel reads */
    df_gpu_fetch *h_fetch;
    size_t h_fetch_cap;
    /* h_bres, h_claims and h_fetch as the device addresses them
     * (batch_out_kernel), or NULL: copies instead, and each case copies its
     * own result; *_of: the buffers they are of */
    void *h_bres_dev, *h_bres_of;
    int *h_claims_dev, *h_claims_of;
    df_gpu_fetch *h_fetch_dev, *h_fetch_of;
} df_cuda_batch_bufs;

/* A batch laid out (batch_plan, batch_groups, batch_stage). */
typedef struct df_cuda_plan {
    df_cuda_batch_item *items;   /* host: the batch's valid cases, by block */
    size_t items_cap;
    size_t *stage_at;            /* batch_stage: each case's first staging item, */
    size_t stage_at_n;           /* and the batch's count of items: m + 1 entries */
    df_gpu_batch_group *groups;
    size_t groups_cap;
    size_t table_bytes;          /* the case table's, rounded: where h_batch's copy to
                                    d_pack starts */
    size_t unpack_bytes;         /* the unpack table's, rounded */
    unsigned gen_sets;           /* bit s: the batch reads generation set s's d_buf */
} df_cuda_plan;

/* The batch staged ahead (df_cuda_stage_batch), into lane 0: its ticket
 * (0: none, or the buffers hold another), kernel, cases, count and
 * layout. */
typedef struct df_cuda_ahead {
    uint64_t ticket, tickets;
    const df_kernel *k;
    const df_case *const *cases;
    const df_derive *derive;
    size_t n;
    df_cuda_staged st;
} df_cuda_ahead;

/* A batch's run on the device: its events and side streams. */
typedef struct df_cuda_launch {
    cudaEvent_t bev[5];          /* a batch's device stages (DF_CUDA_T_COPYIN..) */
    cudaStream_t side[DF_CUDA_SIDE_STREAMS]; /* enqueue_each's, made on first use */
    cudaEvent_t side_done[DF_CUDA_SIDE_STREAMS], unpacked;
} df_cuda_launch;

/* A kernel's part of a batch issued on a lane and not yet ended
 * (df_cuda_part_start): what its end needs, and where its outcome goes. */
typedef struct df_cuda_part {
    int busy;                    /* issued, not ended */
    const df_kernel *k;
    const df_case *const *cases;
    size_t n;
    df_result *res;
    size_t *done;                /* the outcome: df_cuda_run_batch's *done */
    int *rc;                     /* and its return value */
    df_cuda_staged st;
} df_cuda_part;

/* A lane: one kernel's part of a batch, its buffers, layout, stream, side
 * streams and cuBLAS handles, so that the next kernel's part is planned,
 * staged and issued on another lane while the device runs this one's
 * (DF_CUDA_LANES parts in flight at most): a part a kernel, one after the
 * other, each waited for before the next, leaves the device idle while
 * the host plans, stages and issues, and the host idle while the device
 * runs. Each lane's handles are its own: a cuBLAS handle's workspace must
 * not serve two streams at once. */
enum { DF_CUDA_LANES = DF_CUDA_PARTS_IN_FLIGHT };
typedef struct df_cuda_lane {
    cudaStream_t stream;         /* made on first use */
    df_cuda_batch_bufs batch;
    df_cuda_plan plan;
    df_cuda_launch launch;
    void *cublas;                /* cublasHandle_t: enqueue_each's on one thread */
    void *cublas_mt[DF_CUDA_ENQ_THREADS]; /* one for each of its enqueue threads */
    df_cuda_part part;
} df_cuda_lane;

/* df_cuda_gen_start: the harness's generation, a set of buffers and a
 * stream each, so one set's copy back overlaps the next set's kernel (on
 * one stream they take turns, and the pool's workers wait for them) */
typedef struct df_cuda_gen_set {
    cudaStream_t stream;
    void *h_cs, *d_cs, *d_buf, *h_out, *d_long;
    size_t h_cs_cap, d_cs_cap, d_buf_cap, h_out_cap, d_long_cap;
    size_t bytes;                /* the last generation's, in d_buf and h_out alike */
    cudaEvent_t done;
    int landed;                  /* done seen complete, without error (atomic): the pool's
                                    threads then ask the driver no more */
    /* its timing (DF_CUDA_T_GEN_*): events before the cases' copy in,
     * after the kernels, after the copy back; the host's clock at the
     * start and when a thread first saw it land; timed: a generation
     * started whose times are not counted yet */
    cudaEvent_t ev[3];
    double started, landed_at;
    int timed;
} df_cuda_gen_set;

/* A perturbed schedule's resources (cuda_perturb.cu), made on first use:
 * the noise's stream, a buffer the memory noise streams through and the L2
 * flush writes (four L2s, at least 64 MiB), one word a noise block in
 * mapped host memory that each sets when it starts, and the device's
 * shape. */
typedef struct df_cuda_perturb {
    int ready;                   /* made */
    int unavailable;             /* making them failed: reruns go unperturbed */
    cudaStream_t stream;
    void *d_mem;
    size_t mem_bytes, l2_bytes;
    unsigned *h_started, *d_started; /* mapped: 2 words an SM */
    int sms;
    size_t smem;                 /* a noise block's dynamic shared memory */
} df_cuda_perturb;

struct df_cuda {
    /* the device */
    int device;
    uint64_t mem_total;          /* the device's global memory, bytes */
    cudaStream_t stream;
    void *cublas;                /* cublasHandle_t, made by cublas kernels (one case) */
    int debug_invariants;
    int broken;                  /* a sticky error poisoned the context:
                                    every run returns -1 */
    int unattributed;            /* it did so with several parts in flight: no
                                    case carries the error (cuda_batch.cu) */
    char describe[256];
    struct df_pool *pool;        /* staging threads for batches, or NULL */
    double batch_s[DF_CUDA_T_COUNT]; /* df_cuda_batch_times */
    df_cuda_one one;             /* one case */
    df_cuda_lane lanes[DF_CUDA_LANES]; /* batches: a kernel's part a lane */
    df_cuda_lane *ln;            /* the lane being planned, staged, issued or ended */
    unsigned next_lane;          /* the lane the next part takes (df_cuda_part_start) */
    df_cuda_ahead ahead;
    df_cuda_gen_set gen[DF_CUDA_GEN_SETS]; /* the GPU's generation */
    df_cuda_perturb perturb;     /* perturbed schedules */
    /* DOTFUZZ_GEN_TIMING set: the generations are timed (ev, started,
     * landed_at). Off by default: the timing events and their reads cost
     * a short case's run a noticeable share of its throughput */
    int gen_timing;
};

static inline size_t df_cuda_round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* The scratch kernel k asks for case c (0: none). */
static inline size_t df_cuda_case_scratch(const df_kernel *k, const df_case *c)
{
    return k->gpu->scratch_bytes ? k->gpu->scratch_bytes(c->n, &c->launch) : 0;
}

/* The elements of a validated case's vector on the device: a BLAS call's
 * buffer is its footprint (kernels/blas.h: df_cuda_validate_case sets
 * rc->blas.on for a DF_K_BLAS kernel's case and clears it for any other
 * kernel's), every other vector its n elements. */
static inline uint64_t df_cuda_span_elems(const df_case *rc, int is_b)
{
    if (!rc->blas.on)
        return rc->n;
    return df_blas_footprint(rc->n, is_b ? rc->blas.inc_b : rc->blas.inc_a);
}

/* Adds the time since *t to stage k of the batch profile; *t = now. */
static inline void df_cuda_batch_tick(df_cuda *cu, int k, double *t)
{
    double now = df_now();
    cu->batch_s[k] += now - *t;
    *t = now;
}

/* Guard zones: each vector lies inside its device buffer between guards of
 * poison (NaN for floats; for int32, which has no NaN, 0x40000001: odd, so
 * its product with any nonzero int32 is nonzero mod 2^32, and its square
 * wraps to INT32_MIN + 1), so a kernel that reads before or past its
 * inputs (an unguarded tail, an off-by-one) puts the poison into its sum.
 * The same width and values as the host backend's (fuzz/backend/backend.c). The
 * leading guard is df_cuda_guard_bytes (>= 64 elements and >= 256 bytes, a
 * multiple of 256), so the vector still starts at a 256-byte boundary plus
 * its offset (the shfl kernels rely on that: shfl_common.h); the offset
 * cells hold poison too. The trailing guard is a whole largest block of
 * elements (df_cuda_tail_guard_bytes): a kernel that forgets its tail guard
 * reads up to block - 1 elements past n, and those reads must stay inside
 * the buffer (past it they may fault, and a fault poisons the context). */
enum { DF_CUDA_TAIL_GUARD_ELEMS = 1024 }; /* m-tail reads up to block - 1 past n */

static inline size_t df_cuda_guard_bytes(size_t es)
{
    size_t g = DF_GUARD_ELEMS * es;
    return df_cuda_round_up(g > (size_t)DF_CUDA_ALIGN ? g : (size_t)DF_CUDA_ALIGN, DF_CUDA_ALIGN);
}

static inline size_t df_cuda_tail_guard_bytes(size_t es)
{
    return df_cuda_round_up(DF_CUDA_TAIL_GUARD_ELEMS * es, DF_CUDA_ALIGN);
}


/* ---- what one file gives the others ---- */

/* cuda_backend.cu: grows a device (pinned 0) or pinned host buffer to at
 * least need bytes, never shrinking it. */
cudaError_t df_cuda_grow(void **p, size_t *cap, size_t need, int pinned);
/* cuda_backend.cu: 0 when k can run case c, resolved into *rc (its
 * launch); else -1 with the error in res. */
int df_cuda_validate_case(const df_kernel *k, const df_case *c, df_case *rc, df_result *res);
/* cuda_backend.cu: res as the error of k's case c at call (code: a
 * cudaError_t, a cublasStatus_t where call names a cublas* call, or < 0
 * for a check failed on the host, which detail describes). */
void df_cuda_set_error(df_result *res, const df_kernel *k, const df_case *c,
                       const char *call, int code, const char *detail);
/* cuda_backend.cu: after a failure, drains the stream; 0 for an ordinary
 * error, -1 for a sticky one (the context is gone, cu->broken set). */
int df_cuda_after_failure(df_cuda *cu);

/* cuda_stage.cu: whether the batched path
 * takes k's n cases now; the plan and staging of a batch (0 staged into
 * *st, 1 nothing to run, 2 out of host memory, 3 an allocation failed:
 * *call, *e); the unpack of a staged batch's m cases on the stream. */
int df_cuda_batched(const df_cuda *cu, const df_kernel *k, size_t n);
int df_cuda_plan_and_stage(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                           const df_derive *derive, size_t n, df_result *res,
                           df_cuda_staged *st, int ahead, const char **call, cudaError_t *e);
cudaError_t df_cuda_unpack_batch(df_cuda *cu, size_t m, size_t longest);

/* cuda_devgen.cu: set's last generation into the batch
 * profile, once it has landed. */
void df_cuda_gen_count(df_cuda *cu, int set);

/* cuda_perturb.cu: case rc's perturbed schedule (rc->sched, seed nonzero)
 * set up around its launch, which comes next on cu->stream: the L2
 * flushed, the result word and scratch (scratch_bytes at d_scratch, the
 * buffer whole) poisoned, the stream drained, then the noise launched on
 * its own stream and waited for until its blocks have started; a
 * contending noise takes the lines of the result and of the first
 * used_bytes of the scratch, what the case's kernel asks for. Returns the failed call
 * or NULL (*e). When the perturbation's own resources cannot be made (a
 * device without the memory), it says so once on stderr and every rerun
 * goes unperturbed (NULL). df_cuda_perturb_after: waits for the noise to
 * end. */
const char *df_cuda_perturb_before(df_cuda *cu, const df_case *rc, void *d_result,
                                   void *d_scratch, size_t scratch_bytes, size_t used_bytes,
                                   cudaError_t *e);
cudaError_t df_cuda_perturb_after(df_cuda *cu);
/* cuda_perturb.cu: frees what df_cuda_perturb_before made. */
void df_cuda_perturb_close(df_cuda *cu);

#endif
