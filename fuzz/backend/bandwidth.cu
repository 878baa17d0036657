/* fuzz/backend/bandwidth.cu — the measurement behind `dotfuzz bandwidth` (what
 * is measured and how: fuzz/backend/bandwidth.h). The C half holds what needs no
 * GPU (inputs, median, rep policy, peak formula, judging) and, in a build
 * without CUDA, a df_bandwidth_measure that says so; the CUDA half drives
 * the kernels through their df_gpu_ops, as the cuda backend does, but times
 * each enqueue with events.
 */
#include "fuzz/backend/bandwidth.h"
#include "fuzz/backend/cuda_backend.h"

#ifndef __CUDACC__
/* ---- host half (C11) ---- */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/lowp.h"
#include "fuzz/pcg32.h"

void df_bw_opts_default(df_bw_opts *o)
{
    memset(o, 0, sizeof *o);
    o->n = DF_BW_DEFAULT_N;
    o->reps = DF_BW_DEFAULT_REPS;
    o->budget_s = DF_BW_DEFAULT_BUDGET_S;
}

double df_bw_peak_gbps(int mem_clock_khz, int bus_width_bits)
{
    return 2.0 * (double)mem_clock_khz * 1e3 * ((double)bus_width_bits / 8.0) / 1e9;
}

static int cmp_float(const void *x, const void *y)
{
    float fx = *(const float *)x, fy = *(const float *)y;
    return (fx > fy) - (fx < fy);
}

double df_bw_median(float *ms, unsigned count)
{
    qsort(ms, count, sizeof *ms, cmp_float);
    if (count % 2)
        return ms[count / 2];
    return ((double)ms[count / 2 - 1] + (double)ms[count / 2]) / 2.0;
}

unsigned df_bw_reps_for(double warm_ms, unsigned reps, double budget_s)
{
    double budget_ms = budget_s * 1e3;
    if (!(warm_ms > 0.0) || (double)reps * warm_ms <= budget_ms)
        return reps;
    unsigned least = reps < DF_BW_MIN_REPS ? reps : DF_BW_MIN_REPS;
    double fit = floor(budget_ms / warm_ms);
    return fit < (double)least ? least : (unsigned)fit;
}

/* One 32-bit draw per element; every value is exact in its type, and
 * non-zero (odd numerators) but where a low-precision format rounds a
 * small draw to zero. */
static void fill_one(df_pcg32 *rng, df_type t, void *v, uint64_t n)
{
    static const int32_t small[4] = {-2, -1, 1, 2};
    for (uint64_t i = 0; i < n; i++) {
        uint32_t x = df_pcg32_next(rng);
        switch (t) {
        case DF_F32:
            ((float *)v)[i] =
                (float)((int32_t)((x >> 8) * 2u + 1u) - (INT32_C(1) << 24)) * 0x1p-24f;
            break;
        case DF_F64:
            ((double *)v)[i] = ((double)x * 2.0 + 1.0 - 0x1p32) * 0x1p-32;
            break;
        case DF_I32:
            ((int32_t *)v)[i] = small[x >> 30];
            break;
        case DF_F16:
        case DF_BF16: /* x in (-1, 1), rounded to the format: its value, exactly */
            ((uint16_t *)v)[i] = (uint16_t)df_lowp_encode(
                (df_lowp)df_type_facts_of(t).lowp, ((double)x - 0x1p31) * 0x1p-31, 0);
            break;
        case DF_E4M3:
        case DF_E5M2:
            ((uint8_t *)v)[i] = (uint8_t)df_lowp_encode(
                (df_lowp)df_type_facts_of(t).lowp, ((double)x - 0x1p31) * 0x1p-31, 0);
            break;
        }
    }
}

void df_bw_fill(df_type t, void *a, void *b, uint64_t n)
{
    df_pcg32 rng;
    df_pcg32_seed(&rng, UINT64_C(0x62616e6477696474) /* "bandwidt" */, (uint64_t)t);
    fill_one(&rng, t, a, n);
    fill_one(&rng, t, b, n);
}

void df_bw_judge(const df_kernel *k, const df_case *c, const df_refs *refs,
                 const df_result *res, df_bw_row *row)
{
    df_oracle_opts opts = {.tol = 1e-6};
    df_judgement j;
    df_judge(k, c, refs, res, NULL, &opts, &j);
    row->failed = j.verdict == DF_V_BUG;
    if (j.verdict != DF_V_OK && j.verdict != DF_V_PRECISION)
        snprintf(row->result, sizeof row->result, "%s (%s): %.200s",
                 df_verdict_name(j.verdict), j.rule, j.why);
    else if (j.is_int)
        snprintf(row->result, sizeof row->result, "%s (%s): %" PRId64,
                 df_verdict_name(j.verdict), j.rule, j.iresult);
    else
        snprintf(row->result, sizeof row->result,
                 "%s (%s): rel err %.2g, err %.3g u*G, h %" PRIu64,
                 df_verdict_name(j.verdict), j.rule, j.rel_err, j.err_ratio,
                 j.h);
}

/* Per element type: the cuBLAS kernel its rows are compared with, and
 * whether its kernels keep n past their max_n (bandwidth.h says why i32's
 * do). Types not listed have neither. */
static const struct bw_type_rule {
    df_type type;
    const char *baseline;
    int past_max_n;
} bw_rules[] = {
    {DF_F32, "cublas-sdot", 0},  {DF_F64, "cublas-ddot", 0},
    {DF_I32, NULL, 1},           {DF_F16, "cublas-hdot", 0},
    {DF_BF16, "cublas-bfdot", 0}, {DF_E4M3, "cublaslt-e4m3-promoted", 0},
};

static const struct bw_type_rule *bw_rule(df_type t)
{
    for (size_t i = 0; i < sizeof bw_rules / sizeof bw_rules[0]; i++)
        if (bw_rules[i].type == t)
            return &bw_rules[i];
    return NULL;
}

const char *df_bw_baseline(df_type t)
{
    const struct bw_type_rule *rule = bw_rule(t);
    return rule ? rule->baseline : NULL;
}

uint64_t df_bw_row_n(const df_kernel *k, uint64_t n)
{
    const struct bw_type_rule *rule = bw_rule(k->elem);
    if (!k->max_n || k->max_n >= n || (rule && rule->past_max_n))
        return n;
    return k->max_n;
}

/* The longest row length of type t below `below`; 0 when none is left. */
static uint64_t bw_next_length(uint64_t n, df_type t, const df_kernel *const *ks,
                               size_t count, uint64_t below)
{
    uint64_t m = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t kn = ks[i]->elem == t ? df_bw_row_n(ks[i], n) : 0;
        if (kn < below && kn > m)
            m = kn;
    }
    return m;
}

size_t df_bw_plan(uint64_t n, const df_kernel *const *ks, size_t count,
                  df_bw_plan_row *out)
{
    size_t rows = 0;
    for (int ti = DF_F32; ti <= DF_TYPE_MAX; ti++) {
        const df_type t = (df_type)ti;
        const char *bname = df_bw_baseline(t);
        const df_kernel *base = NULL;
        for (size_t i = 0; bname && i < count; i++)
            if (ks[i]->elem == t && strcmp(ks[i]->name, bname) == 0)
                base = ks[i];
        for (uint64_t m = bw_next_length(n, t, ks, count, UINT64_MAX); m;
             m = bw_next_length(n, t, ks, count, m)) {
            int base_in = 0;
            out[rows++] = (df_bw_plan_row){NULL, t, m};
            for (size_t i = 0; i < count; i++)
                if (ks[i]->elem == t && df_bw_row_n(ks[i], n) == m) {
                    out[rows++] = (df_bw_plan_row){ks[i], t, m};
                    base_in |= ks[i] == base;
                }
            if (base && !base_in && (!base->max_n || base->max_n >= m))
                out[rows++] = (df_bw_plan_row){base, t, m};
        }
    }
    return rows;
}

void df_bw_ratios(df_bw_report *rep)
{
    for (size_t i = 0; i < rep->nrows; i++) {
        df_bw_row *row = &rep->rows[i];
        const char *peer = df_bw_baseline(row->type);
        row->vs_cublas = 0.0;
        for (size_t j = 0; peer && j < rep->nrows; j++) {
            const df_bw_row *b = &rep->rows[j];
            if (!b->is_copy && b->type == row->type && b->n == row->n &&
                strcmp(b->name, peer) == 0 && b->gbps > 0.0)
                row->vs_cublas = row->gbps / b->gbps;
        }
    }
}

void df_bw_report_free(df_bw_report *rep)
{
    free(rep->rows);
    rep->rows = NULL;
    rep->nrows = 0;
}

#ifndef DOTFUZZ_CUDA
int df_bandwidth_measure(const df_bw_opts *o, df_bw_report *rep, char *err,
                         size_t err_len)
{
    (void)o;
    memset(rep, 0, sizeof *rep);
    snprintf(err, err_len,
             "built without CUDA (no nvcc at build time): there are no GPU "
             "kernels to measure");
    return -1;
}
#endif

#else
/* ---- CUDA half ---- */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/shfl_common.h"

extern "C" const struct df_gpu_ops df_gpu_shfl;
extern "C" const struct df_gpu_ops df_gpu_shfl_f64acc;
extern "C" const struct df_gpu_ops df_gpu_shfl_f64;

/* Kernels whose GPU half says its occupancy (see shfl_common.h). */
static const struct {
    const struct df_gpu_ops *ops;
    int (*blocks_per_sm)(uint32_t block, int *out);
} bw_occupancy[] = {
    {&df_gpu_shfl, df_shfl_blocks_per_sm},
    {&df_gpu_shfl_f64acc, df_shfl_f64acc_blocks_per_sm},
    {&df_gpu_shfl_f64, df_shfl_f64_blocks_per_sm},
};

/* What one measurement run holds. */
typedef struct bw_run {
    const df_bw_opts *o;
    df_bw_report *rep;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *d_result, *h_result;
    void *cublas; /* handed to every kernel's ctx, destroyed at the end */
    int threads_per_sm, max_blocks_per_sm;
} bw_run;

/* One element type's inputs. */
typedef struct bw_inputs {
    df_type type;
    size_t esize;
    void *h_a, *h_b;
    void *d_buf; /* a at 0, b at the next 256-byte boundary past a */
    const void *d_a, *d_b;
    uint64_t refs_n; /* the length refs are of; 0: none yet */
    df_refs refs;
} bw_inputs;

/* "shfl f32", and " at n = N" where N is not the run's n. */
static void bw_progress(const bw_run *r, const char *name, df_type t, uint64_t n)
{
    char what[96];
    if (!r->o->progress)
        return;
    if (n == r->rep->n)
        snprintf(what, sizeof what, "%s %s", name, df_type_name(t));
    else
        snprintf(what, sizeof what, "%s %s at n = %llu", name, df_type_name(t),
                 (unsigned long long)n);
    r->o->progress(r->o->progress_arg, what);
}

/* After a failed call: clears a non-sticky error; a sticky one (a faulting
 * kernel) leaves the context unusable, so the run stops. */
static void bw_after_error(bw_run *r)
{
    (void)cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess)
        r->rep->aborted = 1;
}

static void bw_cuda_error(bw_run *r, df_bw_row *row, const char *call, cudaError_t e)
{
    row->failed = 1;
    snprintf(row->result, sizeof row->result, "error: %s: %s", call,
             cudaGetErrorName(e));
    bw_after_error(r);
}

/* Runs run(arg) DF_BW_WARMUPS times, then the timed runs between events;
 * fills row->reps and row->ms. Returns 0, or -1 with row->result set. */
template <typename F> static int bw_time(bw_run *r, df_bw_row *row, F run)
{
    float warm_ms = 0.0f;
    for (unsigned w = 0; w < DF_BW_WARMUPS; w++) {
        cudaError_t e = cudaEventRecord(r->start, r->stream);
        if (e == cudaSuccess && run(row) != 0)
            return -1;
        if (e == cudaSuccess)
            e = cudaEventRecord(r->stop, r->stream);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(r->stop);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&warm_ms, r->start, r->stop);
        if (e != cudaSuccess) {
            bw_cuda_error(r, row, "warm-up run", e);
            return -1;
        }
    }
    unsigned reps = df_bw_reps_for(warm_ms, r->o->reps, r->o->budget_s);
    float *ms = (float *)malloc(reps * sizeof *ms);
    if (!ms) {
        row->failed = 1;
        snprintf(row->result, sizeof row->result, "error: out of host memory");
        return -1;
    }
    for (unsigned i = 0; i < reps; i++) {
        cudaError_t e = cudaEventRecord(r->start, r->stream);
        if (e == cudaSuccess && run(row) != 0) {
            free(ms);
            return -1;
        }
        if (e == cudaSuccess)
            e = cudaEventRecord(r->stop, r->stream);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(r->stop);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms[i], r->start, r->stop);
        if (e != cudaSuccess) {
            free(ms);
            bw_cuda_error(r, row, "timed run", e);
            return -1;
        }
    }
    row->reps = reps;
    row->ms = df_bw_median(ms, reps);
    free(ms);
    row->gbps = row->ms > 0.0 ? row->bytes / (row->ms * 1e-3) / 1e9 : 0.0;
    row->frac_peak = r->rep->peak_gbps > 0.0 ? row->gbps / r->rep->peak_gbps : 0.0;
    return 0;
}

static df_bw_row *bw_new_row(bw_run *r, const char *name, df_type t, uint64_t n)
{
    df_bw_row *row = &r->rep->rows[r->rep->nrows++];
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", name);
    row->type = t;
    row->n = n;
    return row;
}

static void bw_copy_row(bw_run *r, const bw_inputs *in, uint64_t n)
{
    const size_t bytes = 2 * (size_t)n * in->esize;
    df_bw_row *row = bw_new_row(r, "device-copy", in->type, n);
    row->is_copy = 1;
    row->bytes = 2.0 * (double)bytes; /* read + write */
    snprintf(row->launch, sizeof row->launch, "cudaMemcpyAsync D2D, 2*n*%zu B",
             in->esize);
    bw_progress(r, row->name, in->type, n);
    void *dst = NULL;
    cudaError_t e = cudaMalloc(&dst, bytes);
    if (e != cudaSuccess) {
        bw_cuda_error(r, row, "cudaMalloc(copy destination)", e);
        return;
    }
    if (bw_time(r, row, [&](df_bw_row *rw) {
            cudaError_t ce = cudaMemcpyAsync(dst, in->d_buf, bytes,
                                             cudaMemcpyDeviceToDevice, r->stream);
            if (ce != cudaSuccess)
                bw_cuda_error(r, rw, "cudaMemcpyAsync", ce);
            return ce == cudaSuccess ? 0 : -1;
        }) == 0)
        snprintf(row->result, sizeof row->result, "copy");
    cudaFree(dst);
}

/* Resident blocks per SM for k at this block size; *how says where from. */
static int bw_blocks_per_sm(const bw_run *r, const df_kernel *k, uint32_t block,
                            const char **how)
{
    for (size_t i = 0; i < sizeof bw_occupancy / sizeof bw_occupancy[0]; i++) {
        int bps = 0;
        if (bw_occupancy[i].ops == k->gpu &&
            bw_occupancy[i].blocks_per_sm(block, &bps) == 0 && bps > 0) {
            *how = "";
            return bps;
        }
    }
    *how = ", thread limit";
    int bps = r->threads_per_sm / (int)block;
    if (bps > r->max_blocks_per_sm)
        bps = r->max_blocks_per_sm;
    return bps > 0 ? bps : 1;
}

/* The launch a row uses; -1 with row->result when the kernel cannot run. */
static int bw_launch(bw_run *r, const df_kernel *k, uint64_t n, df_launch *l,
                     df_bw_row *row)
{
    df_kernel timing = *k;
    timing.max_n = 0; /* past max_n it still runs, for timing only */
    memset(l, 0, sizeof *l);
    if ((k->flags & DF_K_GRID_FREE) && k->block_max == 1 && k->grid_max == 1) {
        l->block = l->grid = 1;
        snprintf(row->launch, sizeof row->launch, "library's own launch");
    } else if (k->flags & DF_K_GRID_FREE) {
        const char *how = "";
        l->block = k->block_default;
        int bps = bw_blocks_per_sm(r, k, l->block, &how);
        uint64_t grid = (uint64_t)r->rep->sm_count * (uint64_t)bps;
        int clamped = k->grid_max && grid > k->grid_max;
        l->grid = (uint32_t)(clamped ? k->grid_max : grid);
        snprintf(row->launch, sizeof row->launch,
                 "%ux%u persistent (%d SMs x %d%s%s)", l->grid, l->block,
                 r->rep->sm_count, bps, how, clamped ? ", grid_max" : "");
    }
    char why[160];
    if (df_launch_resolve(&timing, n, l, why, sizeof why) != 0) {
        snprintf(row->result, sizeof row->result, "not run: %s", why);
        return -1;
    }
    if (!(k->flags & DF_K_GRID_FREE))
        snprintf(row->launch, sizeof row->launch, "%ux%u default", l->grid,
                 l->block);
    return 0;
}

static void bw_enqueue_error(bw_run *r, df_bw_row *row, const df_gpu_ctx *ctx, int code)
{
    const char *call = ctx->failed_call ? ctx->failed_call : "enqueue";
    row->failed = 1;
    if (strncmp(call, "cublas", 6) == 0)
        snprintf(row->result, sizeof row->result, "error: %s: status %d %s",
                 call, code, ctx->detail);
    else
        snprintf(row->result, sizeof row->result, "error: %s: %s %s", call,
                 cudaGetErrorName((cudaError_t)code), ctx->detail);
    bw_after_error(r);
}

static void bw_kernel_row(bw_run *r, bw_inputs *in, const df_kernel *k, uint64_t n)
{
    df_bw_row *row = bw_new_row(r, k->name, in->type, n);
    row->bytes = 2.0 * (double)n * (double)in->esize;
    df_launch l;
    if (bw_launch(r, k, n, &l, row) != 0)
        return;
    bw_progress(r, k->name, in->type, n);

    size_t sbytes = k->gpu->scratch_bytes ? k->gpu->scratch_bytes(n, &l) : 0;
    void *d_scratch = NULL, *h_scratch = NULL;
    cudaError_t e = cudaSuccess;
    if (sbytes) {
        e = cudaMalloc(&d_scratch, sbytes);
        if (e == cudaSuccess)
            e = cudaMallocHost(&h_scratch, sbytes);
    }
    if (e != cudaSuccess) {
        bw_cuda_error(r, row, "scratch allocation", e);
        cudaFree(d_scratch);
        return;
    }
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = in->type;
    c.n = n;
    c.a = in->h_a;
    c.b = in->h_b;
    c.launch = l;
    snprintf(c.kernel, sizeof c.kernel, "%s", k->name);
    df_gpu_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.a = in->d_a;
    ctx.b = in->d_b;
    ctx.d_scratch = d_scratch;
    ctx.d_scratch_bytes = sbytes;
    ctx.h_scratch = h_scratch;
    ctx.d_result = r->d_result;
    ctx.h_result = r->h_result;
    ctx.stream = r->stream;
    ctx.cublas = r->cublas;

    int timed = bw_time(r, row, [&](df_bw_row *rw) {
        int code = k->gpu->enqueue(&ctx, &c);
        if (code != 0)
            bw_enqueue_error(r, rw, &ctx, code);
        return code;
    });
    r->cublas = ctx.cublas;
    if (timed == 0) {
        df_result res;
        memset(&res, 0, sizeof res);
        int code = k->gpu->finish(&ctx, &c, &res);
        if (code != 0) {
            bw_enqueue_error(r, row, &ctx, code);
        } else if (k->max_n && n > k->max_n) {
            snprintf(row->result, sizeof row->result,
                     "not judged: n > max_n %llu (timing only)",
                     (unsigned long long)k->max_n);
        } else {
            if (in->refs_n != n) {
                bw_progress(r, "CPU references", in->type, n);
                df_refs_compute(in->type, in->h_a, in->h_b, n, &in->refs);
                in->refs_n = n;
            }
            df_bw_judge(k, &c, &in->refs, &res, row);
        }
    }
    cudaFree(d_scratch);
    cudaFreeHost(h_scratch);
}

static void bw_free_inputs(bw_inputs *in)
{
    free(in->h_a);
    free(in->h_b);
    cudaFree(in->d_buf);
    memset(in, 0, sizeof *in);
}

/* n inputs of type t on host and device; -1 with err when memory runs out. */
static int bw_make_inputs(bw_run *r, df_type t, uint64_t n, bw_inputs *in, char *err,
                          size_t err_len)
{
    memset(in, 0, sizeof *in);
    in->type = t;
    in->esize = df_type_size(t);
    size_t vbytes = (size_t)n * in->esize;
    size_t stride = (vbytes + 255) / 256 * 256;
    in->h_a = malloc(vbytes);
    in->h_b = malloc(vbytes);
    if (!in->h_a || !in->h_b) {
        snprintf(err, err_len, "out of host memory for 2 x %zu bytes of %s",
                 vbytes, df_type_name(t));
        bw_free_inputs(in);
        return -1;
    }
    bw_progress(r, "inputs", t, n);
    df_bw_fill(t, in->h_a, in->h_b, n);
    cudaError_t e = cudaMalloc(&in->d_buf, 2 * stride);
    if (e == cudaSuccess)
        e = cudaMemcpy(in->d_buf, in->h_a, vbytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy((char *)in->d_buf + stride, in->h_b, vbytes,
                       cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        snprintf(err, err_len, "inputs of type %s (2 x %zu bytes): %s",
                 df_type_name(t), vbytes, cudaGetErrorString(e));
        bw_free_inputs(in);
        return -1;
    }
    in->d_a = in->d_buf;
    in->d_b = (const char *)in->d_buf + stride;
    return 0;
}

/* The plan's rows in order; each type's inputs made at its first row, the
 * longest. -1 with err when inputs cannot be made. */
static int bw_rows(bw_run *r, const df_bw_plan_row *plan, size_t nplan, char *err,
                   size_t err_len)
{
    bw_inputs in;
    memset(&in, 0, sizeof in);
    int rc = 0;
    for (size_t i = 0; i < nplan && rc == 0 && !r->rep->aborted; i++) {
        if (!in.d_buf || in.type != plan[i].type) {
            bw_free_inputs(&in);
            rc = bw_make_inputs(r, plan[i].type, plan[i].n, &in, err, err_len);
        }
        if (rc == 0 && plan[i].k)
            bw_kernel_row(r, &in, plan[i].k, plan[i].n);
        else if (rc == 0)
            bw_copy_row(r, &in, plan[i].n);
    }
    bw_free_inputs(&in);
    return rc;
}

/* Device 0's description, the peak, and the run's stream, events and
 * result buffers. */
static int bw_open(bw_run *r, char *err, size_t err_len)
{
    df_bw_report *rep = r->rep;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(err, err_len, "no CUDA device: %s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
        return -1;
    }
    cudaDeviceProp p;
    e = cudaSetDevice(0);
    if (e == cudaSuccess)
        e = cudaGetDeviceProperties(&p, 0);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&rep->mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&rep->bus_width_bits,
                                   cudaDevAttrGlobalMemoryBusWidth, 0);
    if (e == cudaSuccess)
        e = cudaDriverGetVersion(&rep->driver_version);
    if (e == cudaSuccess)
        e = cudaRuntimeGetVersion(&rep->runtime_version);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreate(&r->start);
    if (e == cudaSuccess)
        e = cudaEventCreate(&r->stop);
    if (e == cudaSuccess)
        e = cudaMalloc(&r->d_result, 16);
    if (e == cudaSuccess)
        e = cudaMallocHost(&r->h_result, 16);
    if (e != cudaSuccess) {
        snprintf(err, err_len, "opening CUDA device 0: %s", cudaGetErrorString(e));
        return -1;
    }
    snprintf(rep->device, sizeof rep->device, "%s", p.name);
    rep->cc_major = p.major;
    rep->cc_minor = p.minor;
    rep->sm_count = p.multiProcessorCount;
    r->threads_per_sm = p.maxThreadsPerMultiProcessor;
    r->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    rep->peak_from_option = r->o->peak_gbps > 0.0;
    rep->peak_gbps = rep->peak_from_option
                         ? r->o->peak_gbps
                         : df_bw_peak_gbps(rep->mem_clock_khz, rep->bus_width_bits);
    return 0;
}

static void bw_close(bw_run *r)
{
    if (r->cublas)
        cublasDestroy((cublasHandle_t)r->cublas);
    if (r->stream)
        cudaStreamDestroy(r->stream);
    if (r->start)
        cudaEventDestroy(r->start);
    if (r->stop)
        cudaEventDestroy(r->stop);
    cudaFree(r->d_result);
    cudaFreeHost(r->h_result);
}

extern "C" int df_bandwidth_measure(const df_bw_opts *o, df_bw_report *rep,
                                    char *err, size_t err_len)
{
    memset(rep, 0, sizeof *rep);
    if (o->n == 0 || o->reps == 0 || o->reps > DF_BW_MAX_REPS ||
        !(o->budget_s > 0.0) || o->peak_gbps < 0.0) {
        snprintf(err, err_len,
                 "bad options: n >= 1, reps in [1, %u], budget > 0, peak >= 0",
                 DF_BW_MAX_REPS);
        return -1;
    }
    rep->n = o->n;
    rep->reps = o->reps;
    size_t nk = df_kernel_count(), count = 0;
    const df_kernel **ks = (const df_kernel **)malloc((nk + 1) * sizeof *ks);
    df_bw_plan_row *plan =
        (df_bw_plan_row *)malloc((DF_BW_PLAN_MAX(nk) + 1) * sizeof *plan);
    rep->rows = (df_bw_row *)calloc(DF_BW_PLAN_MAX(nk) + 1, sizeof *rep->rows);
    if (!ks || !plan || !rep->rows) {
        free(ks);
        free(plan);
        snprintf(err, err_len, "out of host memory");
        return -1;
    }
    for (size_t i = 0; i < nk; i++)
        if (df_kernel_at(i)->gpu)
            ks[count++] = df_kernel_at(i);
    size_t nplan = df_bw_plan(o->n, ks, count, plan);
    bw_run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.rep = rep;
    int rc = bw_open(&r, err, err_len);
    if (rc == 0)
        rc = bw_rows(&r, plan, nplan, err, err_len);
    df_bw_ratios(rep);
    bw_close(&r);
    free(ks);
    free(plan);
    return rc;
}
#endif
