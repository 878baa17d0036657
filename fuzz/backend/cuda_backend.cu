/* fuzz/backend/cuda_backend.cu — the cuda backend's device and one case
 * (API in cuda_backend.h): owns device 0, one non-blocking stream and one
 * case's device and pinned buffers, grown on demand and reused across
 * cases; copies a case in, lets the kernel's launcher enqueue its work,
 * synchronizes, lets it finish, and turns every failed call into an error
 * naming the kernel, the case and the call. Inputs sit between guard zones
 * of poison (NaN), so an out-of-bounds read shows in the result
 * (copy_case_in). A batch's plan and staging are in cuda_stage.cu, its run
 * in cuda_batch.cu, the GPU's generator in cuda_devgen.cu; what they share
 * in cuda_internal.h.
 *
 * Like the kernel files it is compiled twice (see Makefile). The nvcc half
 * is the backend. The cc half is empty when the build has nvcc, and when it
 * has none it is a backend that cannot open and says why.
 *
 * Launchers report a failure as a nonzero return with ctx->failed_call set:
 * a cudaError_t, a cublasStatus_t (failed_call names a cublas* call), or a
 * negative value for a failure found on the host (a broken loop invariant),
 * described in ctx->detail.
 *
 * Soft errors (kernels/soft_error.h): the slots are allocated once at open
 * (kernels/soft_error_host.h), cleared on the stream before each case,
 * polled without a CUDA call once the case is enqueued and read again
 * after the synchronization; each reported payload lands in res->soft. A
 * batch gives each case its own set of slots (bsoft), read after the
 * batch's one synchronization (cuda_batch.cu).
 *
 * A sticky error (illegal address, ...) poisons the process's CUDA context
 * for good: df_cuda_run returns -1 then and from then on, and df_cuda_open
 * in the same process refuses with that reason (even cudaDeviceReset does
 * not bring it back). Recovery is a new process. */
#include "kernels/kernel.h"
#include "fuzz/backend/cuda_backend.h"
#include "fuzz/pool.h"

#ifndef __CUDACC__
#ifndef DOTFUZZ_CUDA
/* ---- built without nvcc ---- */
#include <stdio.h>
#include <string.h>

int df_cuda_open(df_cuda **out, char *err, size_t err_len)
{
    *out = NULL;
    if (err && err_len)
        snprintf(err, err_len,
                 "built without CUDA (no nvcc at build time): rebuild with "
                 "nvcc on PATH or NVCC=/path/to/nvcc");
    return -1;
}

void df_cuda_close(df_cuda *cu) { (void)cu; }

const char *df_cuda_describe(const df_cuda *cu)
{
    (void)cu;
    return "no CUDA (built without nvcc)";
}

void df_cuda_set_debug_invariants(df_cuda *cu, int on)
{
    (void)cu;
    (void)on;
}

void df_cuda_set_pool(df_cuda *cu, struct df_pool *pool)
{
    (void)cu;
    (void)pool;
}

void df_cuda_batch_times(df_cuda *cu, double out[DF_CUDA_T_COUNT])
{
    (void)cu;
    memset(out, 0, DF_CUDA_T_COUNT * sizeof *out);
}

int df_cuda_run(df_cuda *cu, const df_kernel *k, const df_case *c,
                df_result *res)
{
    (void)cu;
    (void)k;
    (void)c;
    res->status = DF_RUN_ERROR;
    snprintf(res->err, sizeof res->err, "built without CUDA");
    return -1;
}
#else
/* The nvcc half below is the backend; ISO C wants a declaration here. */
typedef int df_cuda_backend_is_built_by_nvcc;
#endif

#else
/* ---- the backend (CUDA C) ---- */
#include <atomic>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/soft_error_host.h"
#include "fuzz/backend/cuda_internal.h"

/* Grows a buffer to at least need bytes (never shrinks). Doubling keeps
 * reallocations rare when lengths creep up; if the doubled size does not
 * fit, exactly what is needed is tried. */
cudaError_t df_cuda_grow(void **p, size_t *cap, size_t need, int pinned)
{
    if (*p && need <= *cap)
        return cudaSuccess;
    /* Doubling amortizes the small buffers. From 256 MiB on, a quarter
     * more than the need: the next batch of the same cases is larger by
     * their random offsets alone (a few bytes a case), and doubling a
     * pinned buffer of gigabytes for that costs seconds and pins twice
     * the memory. */
    size_t want = need >= (size_t)1 << 28 ? need + need / 4
                                          : (need > 2 * *cap ? need : 2 * *cap);
    want = df_cuda_round_up(want, DF_CUDA_ALIGN);
    if (*p) {
        cudaError_t e = pinned ? cudaFreeHost(*p) : cudaFree(*p);
        *p = NULL;
        *cap = 0;
        if (e != cudaSuccess)
            return e;
    }
    for (;;) {
        cudaError_t e = pinned ? cudaMallocHost(p, want) : cudaMalloc(p, want);
        if (e == cudaSuccess) {
            *cap = want;
            return cudaSuccess;
        }
        *p = NULL;
        size_t exact = df_cuda_round_up(need ? need : 1, DF_CUDA_ALIGN);
        if (e != cudaErrorMemoryAllocation || want == exact)
            return e;
        (void)cudaGetLastError(); /* out of memory is not sticky: clear it */
        want = exact;
    }
}

/* A sticky error (illegal address, launch failure, ...) leaves the context
 * unusable: every later call fails the same way. A non-sticky one (bad
 * launch configuration, out of memory) is cleared by cudaGetLastError.
 * Returns the sticky error, or cudaSuccess. */
static cudaError_t sticky_error_now(void)
{
    (void)cudaGetLastError();
    cudaError_t e = cudaDeviceSynchronize();
    return e != cudaSuccess ? e : cudaGetLastError();
}

/* The context a sticky error poisons is the process's, not one df_cuda's:
 * no later open in this process can work (cudaDeviceReset does not bring
 * it back), so the first such error is kept to say so. Process-wide
 * because the state it mirrors is. */
static std::atomic<const char *> process_sticky_error{nullptr};

static const char *error_string(const char *call, int code)
{
    if (code < 0)
        return "check failed on the host";
    if (strncmp(call, "cublas", 6) == 0)
        return cublasGetStatusString((cublasStatus_t)code);
    return cudaGetErrorString((cudaError_t)code);
}

void df_cuda_set_error(df_result *res, const df_kernel *k, const df_case *c,
                       const char *call, int code, const char *detail)
{
    int len = snprintf(res->err, sizeof res->err,
                       "%s case seed=%llu index=%llu n=%llu: %s: %s",
                       k->name, (unsigned long long)c->seed,
                       (unsigned long long)c->index, (unsigned long long)c->n,
                       call, code < 0 && detail && detail[0]
                                 ? detail
                                 : error_string(call, code));
    if (code >= 0 && detail && detail[0] && len >= 0 &&
        (size_t)len < sizeof res->err)
        snprintf(res->err + len, sizeof res->err - (size_t)len, " (%s)",
                 detail);
    res->status = DF_RUN_ERROR;
}

/* The kernel module's version ("580.159.04") from the first line of the
 * proc file the NVIDIA driver publishes on Linux ("NVRM version: NVIDIA
 * UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...");
 * 0 when it is not there. */
static int driver_module_version(char *out, size_t len)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    char line[512];
    int ok = 0;
    if (!f)
        return 0;
    const char *p = fgets(line, sizeof line, f) ? strstr(line, "Kernel Module") : NULL;
    while (p && *p && !ok) {
        p += strcspn(p, " \t\n");
        p += strspn(p, " \t\n");
        size_t n = strcspn(p, " \t\n");
        /* the first word after it made of digits and dots, e.g. 580.159.04 */
        if (n > 0 && n < len && p[0] >= '0' && p[0] <= '9' &&
            strspn(p, "0123456789.") == n && memchr(p, '.', n)) {
            memcpy(out, p, n);
            out[n] = '\0';
            ok = 1;
        }
    }
    fclose(f);
    return ok;
}

static void describe_device(df_cuda *cu, const cudaDeviceProp *prop)
{
    int drv = 0, rt = 0;
    char module[32];
    char driver[48];
    (void)cudaDriverGetVersion(&drv);
    (void)cudaRuntimeGetVersion(&rt);
    if (driver_module_version(module, sizeof module))
        snprintf(driver, sizeof driver, "%s", module);
    else
        snprintf(driver, sizeof driver, "CUDA %d.%d", drv / 1000,
                 drv % 1000 / 10);
    snprintf(cu->describe, sizeof cu->describe,
             "%.120s, sm_%d%d, driver %s, runtime %d.%d", prop->name, prop->major,
             prop->minor, driver, rt / 1000, rt % 1000 / 10);
}

static int open_fail(df_cuda *cu, char *err, size_t err_len, const char *call,
                     cudaError_t e)
{
    if (err && err_len)
        snprintf(err, err_len, "cannot open CUDA device 0: %s: %s", call,
                 cudaGetErrorString(e));
    df_cuda_close(cu);
    return -1;
}

extern "C" int df_cuda_open(df_cuda **out, char *err, size_t err_len)
{
    const char *sticky = process_sticky_error.load();
    *out = NULL;
    if (sticky) {
        if (err && err_len)
            snprintf(err, err_len,
                     "the CUDA context of this process is unusable after a "
                     "sticky error (%s): open the backend in a new process",
                     sticky);
        return -1;
    }
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        if (err && err_len)
            snprintf(err, err_len, "no CUDA device: cudaGetDeviceCount: %s",
                     e != cudaSuccess ? cudaGetErrorString(e)
                                      : "found 0 devices");
        return -1;
    }
    df_cuda *cu = (df_cuda *)calloc(1, sizeof *cu);
    if (!cu) {
        if (err && err_len)
            snprintf(err, err_len, "cannot open CUDA device 0: out of memory");
        return -1;
    }
    cu->ln = &cu->lanes[0];
    const char *timing = getenv("DOTFUZZ_GEN_TIMING");
    cu->gen_timing = timing && timing[0] && strcmp(timing, "0") != 0;
    cudaDeviceProp prop;
    if ((e = cudaSetDevice(0)) != cudaSuccess)
        return open_fail(cu, err, err_len, "cudaSetDevice(0)", e);
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess)
        return open_fail(cu, err, err_len, "cudaGetDeviceProperties", e);
    if ((e = cudaStreamCreateWithFlags(&cu->stream, cudaStreamNonBlocking)) !=
        cudaSuccess)
        return open_fail(cu, err, err_len, "cudaStreamCreateWithFlags", e);
    if ((e = cudaMallocHost(&cu->one.h_result, DF_CUDA_RESULT_BYTES)) != cudaSuccess)
        return open_fail(cu, err, err_len, "cudaMallocHost(result)", e);
    if ((e = cudaMalloc(&cu->one.d_result, DF_CUDA_RESULT_BYTES)) != cudaSuccess)
        return open_fail(cu, err, err_len, "cudaMalloc(result)", e);
    const char *call = NULL;
    if ((e = df_soft_slots_open(&cu->one.soft, 1, &call)) != cudaSuccess)
        return open_fail(cu, err, err_len, call, e);
    describe_device(cu, &prop);
    cu->mem_total = prop.totalGlobalMem;
    *out = cu;
    return 0;
}

/* A lane's buffers, streams, events and handles (df_cuda_close). */
static void close_lane(df_cuda_lane *ln)
{
    df_cuda_batch_bufs *b = &ln->batch;
    df_cuda_launch *l = &ln->launch;
    if (ln->cublas)
        (void)cublasDestroy((cublasHandle_t)ln->cublas);
    for (int t = 0; t < DF_CUDA_ENQ_THREADS; t++)
        if (ln->cublas_mt[t])
            (void)cublasDestroy((cublasHandle_t)ln->cublas_mt[t]);
    (void)cudaFree(b->d_batch);
    (void)cudaFree(b->d_pack);
    (void)cudaFree(b->d_bscratch);
    (void)cudaFreeHost(b->h_bscratch);
    (void)cudaFree(b->d_bres);
    (void)cudaFreeHost(b->h_batch);
    (void)cudaFreeHost(b->h_bres);
    (void)cudaFreeHost(b->h_claims);
    (void)cudaFreeHost(b->h_fetch);
    df_soft_slots_close(&b->bsoft);
    free(ln->plan.items);
    free(ln->plan.stage_at);
    free(ln->plan.groups);
    for (int s = 0; s < DF_CUDA_SIDE_STREAMS; s++) {
        if (l->side[s])
            (void)cudaStreamDestroy(l->side[s]);
        if (l->side_done[s])
            (void)cudaEventDestroy(l->side_done[s]);
    }
    if (l->unpacked)
        (void)cudaEventDestroy(l->unpacked);
    for (int k = 0; k < 5; k++)
        if (l->bev[k])
            (void)cudaEventDestroy(l->bev[k]);
    if (ln->stream)
        (void)cudaStreamDestroy(ln->stream);
}

extern "C" void df_cuda_close(df_cuda *cu)
{
    if (!cu)
        return;
    if (cu->cublas)
        (void)cublasDestroy((cublasHandle_t)cu->cublas);
    for (int l = 0; l < DF_CUDA_LANES; l++)
        close_lane(&cu->lanes[l]);
    df_cuda_perturb_close(cu);
    (void)cudaFree(cu->one.d_a);
    (void)cudaFree(cu->one.d_b);
    (void)cudaFree(cu->one.d_scratch);
    (void)cudaFree(cu->one.d_result);
    (void)cudaFreeHost(cu->one.h_stage);
    (void)cudaFreeHost(cu->one.h_scratch);
    (void)cudaFreeHost(cu->one.h_result);
    df_soft_slots_close(&cu->one.soft);
    if (cu->stream)
        (void)cudaStreamDestroy(cu->stream);
    for (int g = 0; g < DF_CUDA_GEN_SETS; g++) {
        (void)cudaFreeHost(cu->gen[g].h_cs);
        (void)cudaFreeHost(cu->gen[g].h_out);
        (void)cudaFree(cu->gen[g].d_cs);
        (void)cudaFree(cu->gen[g].d_buf);
        (void)cudaFree(cu->gen[g].d_long);
        if (cu->gen[g].done)
            (void)cudaEventDestroy(cu->gen[g].done);
        for (int k = 0; k < 3; k++)
            if (cu->gen[g].ev[k])
                (void)cudaEventDestroy(cu->gen[g].ev[k]);
        if (cu->gen[g].stream)
            (void)cudaStreamDestroy(cu->gen[g].stream);
    }
    free(cu);
}

extern "C" const char *df_cuda_describe(const df_cuda *cu)
{
    return cu ? cu->describe : "no CUDA device";
}

extern "C" uint64_t df_cuda_mem_total(const df_cuda *cu)
{
    return cu->mem_total;
}

extern "C" void df_cuda_set_debug_invariants(df_cuda *cu, int on)
{
    cu->debug_invariants = on;
}

extern "C" void df_cuda_set_pool(df_cuda *cu, struct df_pool *pool)
{
    cu->pool = pool;
}

/* A vector copied into the staging buffer a piece an item. */
typedef struct stage_copy {
    char *dst;
    const char *src;
    size_t bytes;
} stage_copy;

static void stage_copy_piece(void *ctx, size_t i, unsigned worker)
{
    (void)worker;
    const stage_copy *sc = (const stage_copy *)ctx;
    size_t from = i * (size_t)DF_CUDA_STAGE_PIECE, left = sc->bytes - from;
    memcpy(sc->dst + from, sc->src + from,
           left < (size_t)DF_CUDA_STAGE_PIECE ? left : (size_t)DF_CUDA_STAGE_PIECE);
}

/* Stages one vector with its guards at stage: [guard + offset | v | guard],
 * span bytes in all, the layout its device buffer gets; a long vector's
 * bytes on the pool's threads, DF_CUDA_STAGE_PIECE a thread at a time (a
 * huge case's 8 GiB a vector take one thread seconds). The guards move
 * with n and the offset, so they are written with every case: a few
 * kilobytes, copied in the same transfer as the vector. */
static void stage_guarded(df_pool *pool, void *stage, df_type t, const void *v, size_t pre,
                          size_t bytes, size_t post)
{
    df_guard_fill(t, stage, pre / df_type_size(t));
    stage_copy sc = {(char *)stage + pre, (const char *)v, bytes};
    df_pool_for(pool, (bytes + DF_CUDA_STAGE_PIECE - 1) / DF_CUDA_STAGE_PIECE,
                stage_copy_piece, &sc);
    df_guard_fill(t, (char *)stage + pre + bytes, post / df_type_size(t));
}

/* The host pages around [p, p + bytes), whole. */
static void page_span(const void *p, size_t bytes, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    *lo = (uintptr_t)p / page * page;
    *hi = ((uintptr_t)p + bytes + page - 1) / page * page;
}

/* Page-locks [lo, hi) where it lies (read-only: a huge case's vectors are
 * mapped read-only in the worker). 0, or -1 with the error cleared. */
static int lock_pages(uintptr_t lo, uintptr_t hi)
{
    if (cudaHostRegister((void *)lo, hi - lo, cudaHostRegisterReadOnly) == cudaSuccess)
        return 0;
    (void)cudaGetLastError(); /* not sticky: the staging path follows */
    return -1;
}

/* A huge case (DF_CUDA_DIRECT_BYTES a vector and more) goes to the device
 * from where it lies, its pages locked for the copy, rather than through
 * the staging buffer: pinning a new 20 GB staging buffer costs an H100
 * host seconds, locking the 16 GB where they lie under one. The
 * guards go through the staging buffer, which stays small. Synchronous:
 * the pages are unlocked when the copies are done. Returns 1 when the
 * case went this way, 0 when it must be staged (the pages could not be
 * locked), -1 with *e and *call on a failed copy. */
static int copy_in_place(df_cuda *cu, const df_case *c, size_t na, size_t pre_a, size_t pre_b,
                         size_t tg, cudaError_t *e, const char **call)
{
    uintptr_t alo, ahi, blo, bhi;
    page_span(c->a, na, &alo, &ahi);
    page_span(c->b, na, &blo, &bhi);
    int one = alo < bhi && blo < ahi; /* a and b share pages: lock them together */
    if (one) {
        alo = alo < blo ? alo : blo;
        ahi = ahi > bhi ? ahi : bhi;
    }
    if (lock_pages(alo, ahi) != 0)
        return 0;
    if (!one && lock_pages(blo, bhi) != 0) {
        (void)cudaHostUnregister((void *)alo);
        return 0;
    }
    size_t ga = pre_a + tg, gb = pre_b + tg;
    char *h = NULL, *da = (char *)cu->one.d_a, *db = (char *)cu->one.d_b;
    *call = NULL;
    if ((*e = df_cuda_grow(&cu->one.h_stage, &cu->one.h_stage_cap, ga + gb, 1))) {
        *call = "cudaMallocHost(guards)";
    } else {
        h = (char *)cu->one.h_stage;
        df_guard_fill(c->type, h, ga / df_type_size(c->type));
        df_guard_fill(c->type, h + ga, gb / df_type_size(c->type));
        struct { void *dst; const void *src; size_t bytes; } parts[] = {
            {da, h, pre_a}, {da + pre_a, c->a, na}, {da + pre_a + na, h + pre_a, tg},
            {db, h + ga, pre_b}, {db + pre_b, c->b, na}, {db + pre_b + na, h + ga + pre_b, tg},
        };
        for (size_t i = 0; i < sizeof parts / sizeof parts[0] && !*call; i++)
            if ((*e = cudaMemcpyAsync(parts[i].dst, parts[i].src, parts[i].bytes,
                                      cudaMemcpyHostToDevice, cu->stream)))
                *call = "cudaMemcpyAsync(in place)";
        if (!*call && (*e = cudaStreamSynchronize(cu->stream)))
            *call = "cudaStreamSynchronize(in place)";
    }
    (void)cudaHostUnregister((void *)alo);
    if (!one)
        (void)cudaHostUnregister((void *)blo);
    return *call ? -1 : 1;
}

/* The one-case device buffers for spans of a and b; *stage_b: where b's
 * span starts in the staging buffer. Returns the failed call or NULL. */
static const char *grow_device(df_cuda *cu, size_t span_a, size_t span_b, size_t *stage_b,
                               cudaError_t *e)
{
    *stage_b = df_cuda_round_up(span_a, DF_CUDA_ALIGN);
    if ((*e = df_cuda_grow(&cu->one.d_a, &cu->one.d_a_cap, *stage_b, 0)))
        return "cudaMalloc(a)";
    if ((*e = df_cuda_grow(&cu->one.d_b, &cu->one.d_b_cap,
                           df_cuda_round_up(span_b, DF_CUDA_ALIGN), 0)))
        return "cudaMalloc(b)";
    return NULL;
}

/* A BLAS call's buffers (c->blas on), each its footprint laid out by its
 * increment (df_blas_place: the guard value in the gaps) between the same
 * guards as a plain vector's, through the staging buffer. Returns the
 * failed call or NULL. */
static const char *copy_blas_in(df_cuda *cu, const df_case *c, size_t es, size_t pre_a,
                                size_t pre_b, size_t tg, cudaError_t *e)
{
    size_t fa = (size_t)df_cuda_span_elems(c, 0) * es, fb = (size_t)df_cuda_span_elems(c, 1) * es;
    size_t span_a = pre_a + fa + tg, span_b = pre_b + fb + tg, stage_b;
    const char *call = grow_device(cu, span_a, span_b, &stage_b, e);
    if (call)
        return call;
    if ((*e = df_cuda_grow(&cu->one.h_stage, &cu->one.h_stage_cap, stage_b + span_b, 1)))
        return "cudaMallocHost(staging)";
    char *h = (char *)cu->one.h_stage;
    df_guard_fill(c->type, h, span_a / es);
    df_blas_place(c->type, c->a, c->n, c->blas.inc_a, h + pre_a);
    df_guard_fill(c->type, h + stage_b, span_b / es);
    df_blas_place(c->type, c->b, c->n, c->blas.inc_b, h + stage_b + pre_b);
    if ((*e = cudaMemcpyAsync(cu->one.d_a, h, span_a, cudaMemcpyHostToDevice, cu->stream)))
        return "cudaMemcpyAsync(a)";
    if ((*e = cudaMemcpyAsync(cu->one.d_b, h + stage_b, span_b, cudaMemcpyHostToDevice,
                              cu->stream)))
        return "cudaMemcpyAsync(b)";
    return NULL;
}

/* Places a and b (offset elements past 256-byte aligned points inside their
 * guarded buffers) on the device through the pinned staging buffer, so the
 * copies are truly asynchronous (a huge case: from where it lies, above).
 * Returns the failed call or NULL. */
static const char *copy_case_in(df_cuda *cu, const df_case *c, size_t es,
                                cudaError_t *e)
{
    size_t na = (size_t)c->n * es, g = df_cuda_guard_bytes(es);
    size_t tg = df_cuda_tail_guard_bytes(es);
    size_t pre_a = g + (size_t)c->launch.offset_a * es;
    size_t pre_b = g + (size_t)c->launch.offset_b * es;
    if (c->blas.on && (c->blas.inc_a != 1 || c->blas.inc_b != 1)) /* else n elements each */
        return copy_blas_in(cu, c, es, pre_a, pre_b, tg, e);
    size_t span_a = pre_a + na + tg, span_b = pre_b + na + tg, stage_b;
    const char *grown = grow_device(cu, span_a, span_b, &stage_b, e);
    if (grown)
        return grown;
    if (na >= DF_CUDA_DIRECT_BYTES) {
        const char *call;
        int how = copy_in_place(cu, c, na, pre_a, pre_b, tg, e, &call);
        if (how != 0)
            return how > 0 ? NULL : call;
    }
    if ((*e = df_cuda_grow(&cu->one.h_stage, &cu->one.h_stage_cap, stage_b + span_b, 1)))
        return "cudaMallocHost(staging)";
    stage_guarded(cu->pool, cu->one.h_stage, c->type, c->a, pre_a, na, tg);
    stage_guarded(cu->pool, (char *)cu->one.h_stage + stage_b, c->type, c->b, pre_b, na, tg);
    if ((*e = cudaMemcpyAsync(cu->one.d_a, cu->one.h_stage, span_a,
                              cudaMemcpyHostToDevice, cu->stream)))
        return "cudaMemcpyAsync(a)";
    if ((*e = cudaMemcpyAsync(cu->one.d_b, (char *)cu->one.h_stage + stage_b, span_b,
                              cudaMemcpyHostToDevice, cu->stream)))
        return "cudaMemcpyAsync(b)";
    return NULL;
}

/* Checks what the launchers take for granted: the kernel's type, a launch
 * valid for it (resolved into *rc), a size that fits in memory (a BLAS
 * call's footprint, under 4 n, included), a DF_K_BLAS kernel's n_arg that
 * agrees with n (rc->blas on: a plain case is the call with increments 1;
 * any other kernel's rc->blas off). */
int df_cuda_validate_case(const df_kernel *k, const df_case *c, df_case *rc, df_result *res)
{
    char why[112];
    *rc = *c;
    size_t es = df_type_size(c->type);
    const char *what = NULL;
    if (c->type != k->elem) {
        snprintf(why, sizeof why, "case type %s, kernel wants %s",
                 df_type_name(c->type), df_type_name(k->elem));
        what = why;
    } else if (df_launch_resolve(k, c->n, &rc->launch, why, sizeof why) != 0) {
        what = why;
    } else if (c->n > (SIZE_MAX / 4 - 2 * (size_t)UINT32_MAX) / es / 4) {
        snprintf(why, sizeof why, "n = %llu is too large for this host",
                 (unsigned long long)c->n);
        what = why;
    } else if (!(k->flags & DF_K_BLAS)) {
        rc->blas.on = 0; /* the kernel reads plain vectors */
    } else {
        if (!rc->blas.on) { /* a plain case is the call with increments 1 */
            rc->blas.on = 1;
            rc->blas.inc_a = rc->blas.inc_b = 1;
            rc->blas.n_arg = (int64_t)c->n;
        }
        if (!df_blas_n_agrees(rc->blas.n_arg, c->n)) {
            snprintf(why, sizeof why, "BLAS n %lld with %llu elements a vector",
                     (long long)rc->blas.n_arg, (unsigned long long)c->n);
            what = why;
        }
    }
    if (!what)
        return 0;
    df_result_error(res, k->name, c, what);
    return -1;
}

/* After a failure: drain the stream so no work still uses the buffers,
 * then tell an ordinary error (0) from a sticky one (-1: this process's
 * CUDA context is gone; later runs and opens in it fail at once). */
int df_cuda_after_failure(df_cuda *cu)
{
    (void)cudaStreamSynchronize(cu->stream);
    cudaError_t e = sticky_error_now();
    if (e == cudaSuccess)
        return 0;
    cu->broken = 1;
    const char *none = nullptr;
    process_sticky_error.compare_exchange_strong(none, cudaGetErrorString(e));
    return -1;
}

/* df_cuda_after_failure, then the soft errors the case's kernels reported
 * before it failed (the slots are host memory, readable after a sticky
 * error; the stream is drained, so every report is in). */
static int after_failure_soft(df_cuda *cu, df_result *res)
{
    int rc = df_cuda_after_failure(cu);
    (void)df_soft_slots_read(&cu->one.soft, res, 1);
    return rc;
}

/* Clears the soft-error slots, copies the case in and grows the scratch
 * its kernel asks for, all on the stream. Returns the failed call or
 * NULL. */
static const char *stage_case(df_cuda *cu, const df_kernel *k,
                              const df_case *rc, cudaError_t *e)
{
    const char *call;
    if ((*e = cudaSetDevice(cu->device)) != cudaSuccess)
        return "cudaSetDevice";
    if ((*e = df_soft_slots_clear(&cu->one.soft, cu->stream, &call)) != cudaSuccess)
        return call;
    if ((call = copy_case_in(cu, rc, df_type_size(rc->type), e)))
        return call;
    size_t sb = df_cuda_case_scratch(k, rc);
    if (sb && (*e = df_cuda_grow(&cu->one.d_scratch, &cu->one.d_scratch_cap, sb, 0)))
        return "cudaMalloc(scratch)";
    if (sb && (*e = df_cuda_grow(&cu->one.h_scratch, &cu->one.h_scratch_cap, sb, 1)))
        return "cudaMallocHost(scratch)";
    return NULL;
}

static void fill_ctx(const df_cuda *cu, const df_case *rc, df_gpu_ctx *ctx)
{
    size_t es = df_type_size(rc->type);
    memset(ctx, 0, sizeof *ctx);
    ctx->a = (const char *)cu->one.d_a + df_cuda_guard_bytes(es) +
             (size_t)rc->launch.offset_a * es;
    ctx->b = (const char *)cu->one.d_b + df_cuda_guard_bytes(es) +
             (size_t)rc->launch.offset_b * es;
    ctx->d_scratch = cu->one.d_scratch;
    ctx->h_scratch = cu->one.h_scratch;
    ctx->d_scratch_bytes = cu->one.d_scratch_cap < cu->one.h_scratch_cap
                               ? cu->one.d_scratch_cap : cu->one.h_scratch_cap;
    ctx->d_result = cu->one.d_result;
    ctx->h_result = cu->one.h_result;
    ctx->stream = cu->stream;
    ctx->cublas = cu->cublas;
    ctx->debug_invariants = cu->debug_invariants;
    ctx->soft = df_soft_slots_dev(&cu->one.soft);
}

/* Returns 0 when res is filled (check res->status), -1 after a sticky
 * error (res says which). */
extern "C" int df_cuda_run(df_cuda *cu, const df_kernel *k, const df_case *c,
                           df_result *res)
{
    memset(res, 0, sizeof *res);
    if (cu->broken) {
        res->status = DF_RUN_ERROR;
        snprintf(res->err, sizeof res->err,
                 "%s case seed=%llu index=%llu n=%llu: not run: the CUDA "
                 "context is unusable after a sticky error (%s)",
                 k->name, (unsigned long long)c->seed,
                 (unsigned long long)c->index, (unsigned long long)c->n,
                 process_sticky_error.load());
        return -1;
    }
    if (!k->gpu) {
        res->status = DF_RUN_ERROR;
        snprintf(res->err, sizeof res->err, "%s has no GPU launcher", k->name);
        return 0;
    }
    df_case rc;
    if (df_cuda_validate_case(k, c, &rc, res) != 0)
        return 0;
    cudaError_t e;
    const char *call = stage_case(cu, k, &rc, &e);
    if (call) {
        df_cuda_set_error(res, k, c, call, (int)e, NULL);
        return after_failure_soft(cu, res);
    }
    df_gpu_ctx ctx;
    fill_ctx(cu, &rc, &ctx);
    if (rc.sched.seed &&
        (call = df_cuda_perturb_before(cu, &rc, ctx.d_result, ctx.d_scratch,
                                       ctx.d_scratch_bytes, df_cuda_case_scratch(k, &rc), &e))) {
        (void)df_cuda_perturb_after(cu);
        df_cuda_set_error(res, k, c, call, (int)e, NULL);
        return after_failure_soft(cu, res);
    }
    int code = k->gpu->enqueue(&ctx, &rc);
    cu->cublas = ctx.cublas; /* a handle made now outlives the case */
    /* whatever is reported already: no CUDA call, nothing waits */
    (void)df_soft_slots_read(&cu->one.soft, res, 0);
    if (code == 0 && (e = cudaStreamSynchronize(cu->stream)) != cudaSuccess) {
        code = (int)e;
        ctx.failed_call = "cudaStreamSynchronize";
    }
    if (rc.sched.seed && (e = df_cuda_perturb_after(cu)) != cudaSuccess && code == 0) {
        code = (int)e;
        ctx.failed_call = "cudaStreamSynchronize(noise)";
    }
    if (code == 0) {
        (void)df_soft_slots_read(&cu->one.soft, res, 1); /* every report is in */
        code = k->gpu->finish(&ctx, &rc, res);
    }
    if (code != 0) {
        df_cuda_set_error(res, k, c, ctx.failed_call ? ctx.failed_call : "enqueue",
                          code, ctx.detail);
        return after_failure_soft(cu, res);
    }
    res->status = DF_RUN_OK;
    return 0;
}

#endif
