/* fuzz/backend/cuda_stage.cu — a batch planned and staged for the cuda
 * backend (df_cuda_stage_batch; API in cuda_backend.h). Its cases are
 * validated (on the pool's threads in a large batch) and sorted by block
 * size; laid out: each vector's guarded span in the device batch, each
 * case's scratch, the groups of one block size; and staged: the table of
 * cases and every vector not on the device already, packed, into one
 * pinned buffer that crosses PCIe as one copy. On the device the unpack
 * kernel puts each vector between its guards (which never cross PCIe),
 * reading it from the packed copy or from where the GPU generated it, or
 * making it from the vector it follows from (df_derive). cuda_batch.cu
 * runs what is staged.
 *
 * Like every .cu file it is compiled twice (see Makefile); the cc half is
 * empty. */
#ifndef __CUDACC__
/* The nvcc half below is the staging; ISO C wants a declaration here. */
typedef int df_cuda_stage_is_built_by_nvcc;
#else
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/cuda_internal.h"
#include "fuzz/lowp.h"

/* One vector of a batch, unpacked on the device into its guarded span:
 * [poison: pre bytes | data: bytes, from src | poison: post]. */
typedef struct batch_unpack {
    uint64_t dst;          /* the span, from the device batch's base */
    uint64_t src;          /* the data's device address: in d_pack (the packed
                              copy that crossed PCIe), or in a generation set's
                              d_buf, where the GPU generated it */
    uint64_t pre, bytes, post;
    uint32_t type;         /* df_type: the poison's width and value */
    uint32_t xform;        /* 0: the data as they are; else what derive_xform
                              packs, which derive_word applies to each word */
    /* A BLAS call's buffer (inc other than 1): bytes is its footprint's,
     * and element i of the n at src lands where the call reads it
     * (kernels/blas.h), the poison in the gaps */
    int64_t inc;
    uint64_t n;
} batch_unpack;

/* Grows a host array of size-byte elements to hold at least need of them
 * (never shrinks). Returns 0, or -1 when memory runs out. */
static int grow_host(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t want = need > 2 * *cap ? need : 2 * *cap;
    void *q = realloc(*p, want * size);
    if (!q)
        return -1;
    *p = q;
    *cap = want;
    return 0;
}

/* The valid cases in order of block size, and in their order in the batch
 * within one size: a counting sort over the sizes (up to 1024 threads a
 * block; a larger one, which the launch will refuse, leaves the order to
 * qsort on the same key). tmp: room for m items. */
enum { MAX_SORT_BLOCK = 1024 };

static int item_cmp(const void *x, const void *y)
{
    const df_cuda_batch_item *p = (const df_cuda_batch_item *)x, *q = (const df_cuda_batch_item *)y;
    if (p->rc.launch.block != q->rc.launch.block)
        return p->rc.launch.block < q->rc.launch.block ? -1 : 1;
    return p->pos < q->pos ? -1 : p->pos > q->pos;
}

static const size_t INVALID_POS = (size_t)-1; /* an item whose case failed validation */

/* The valid ones of src[0..n) (pos != INVALID_POS, in batch order) into
 * dst, sorted; returns how many. */
static size_t sort_items(df_cuda_batch_item *dst, const df_cuda_batch_item *src, size_t n)
{
    size_t start[MAX_SORT_BLOCK + 2], m = 0;
    memset(start, 0, sizeof start);
    int big = 0;
    for (size_t j = 0; j < n; j++) {
        if (src[j].pos == INVALID_POS)
            continue;
        uint32_t b = src[j].rc.launch.block;
        if (b > MAX_SORT_BLOCK) /* the launch will refuse it: qsort on the same key */
            big = 1;
        else
            start[b + 1]++;
        m++;
    }
    if (big) {
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (src[j].pos != INVALID_POS)
                dst[k++] = src[j];
        qsort(dst, m, sizeof *dst, item_cmp);
        return m;
    }
    for (size_t b = 1; b <= MAX_SORT_BLOCK + 1; b++)
        start[b] += start[b - 1];
    for (size_t j = 0; j < n; j++) /* src is in batch order: stable */
        if (src[j].pos != INVALID_POS)
            dst[start[src[j].rc.launch.block]++] = src[j];
    return m;
}

/* Where the GPU generated the na bytes at v, one of a case's vectors
 * (df_cuda_gen_start), if it did: a vector that lies in a generation set's
 * pinned output has the same bytes at the same offset in the set's device
 * buffer, which the unpack kernel then reads in place of a packed copy:
 * the vector crosses PCIe once, device to host for the references. Each
 * vector is looked up alone: a metamorphic negate or scale copy keeps its
 * case's generated b beside an a of its own (metamorphic.c), which is
 * staged unless the batch says how it follows from the case's generated a
 * (place_a). The engine runs a batch only after its generation has
 * landed (and batch_enqueue's stream waits for it too), changes no
 * generated vector, and starts a set's next generation only after the
 * batch that reads it has run. Returns the set, or -1. */
static int generated_on_device(const df_cuda *cu, const void *v, size_t na,
                               const unsigned char **dev)
{
    uintptr_t a = (uintptr_t)v;
    for (int set = 0; set < DF_CUDA_GEN_SETS; set++) {
        uintptr_t h = (uintptr_t)cu->gen[set].h_out;
        if (na == 0 || !h || a < h || a - h > cu->gen[set].bytes ||
            cu->gen[set].bytes - (a - h) < na)
            continue;
        *dev = (const unsigned char *)cu->gen[set].d_buf + (a - h);
        return set;
    }
    return -1;
}

/* One vector of na bytes at v for the batch: read from the GPU's
 * generated copy (*dev, and its set marked for the batch's stream to wait
 * on), or packed into the staging buffer at *pk (*pack), which moves on. */
static void place_vector(df_cuda *cu, const void *v, size_t na, const unsigned char **dev,
                         size_t *pack, size_t *pk)
{
    int set = generated_on_device(cu, v, na, dev);
    if (set >= 0) {
        cu->ln->plan.gen_sets |= 1u << set;
        return;
    }
    *pack = *pk;
    *pk += df_cuda_round_up(na, 16);
}

/* A case's df_derive for the unpack kernel (derive_word): the op in the
 * low byte, the scale's exponent (-126 to 127: 2^kexp a normal float) in
 * the next, as int8. */
static uint32_t derive_xform(const df_derive *d)
{
    return (uint32_t)d->op | (uint32_t)(uint8_t)(int8_t)d->kexp << 8;
}

/* A case's a, placed as place_vector does, unless the case says how a
 * follows from a vector the GPU generated (df_derive): then the unpack
 * kernel makes a from that vector (it->xform_a), and nothing of a is
 * staged or copied in: a metamorphic negate or scale copy of a generated
 * case. Whether the GPU makes the same bits as the host's copy
 * (metamorphic.c) is what the batched runs against one-case runs on the
 * GPU check: a copy's result is judged against its host model's, on the
 * host's a. */
static void place_a(df_cuda *cu, df_cuda_batch_item *it, const df_derive *d, size_t na, size_t *pk)
{
    it->xform_a = 0;
    int set = -1;
    if (d && d->from && (d->op == DF_DERIVE_NEGATE ||
                         (d->op == DF_DERIVE_SCALE && it->rc.type != DF_I32 &&
                          d->kexp >= -126 && d->kexp <= 127))) /* 2^kexp normal */
        set = generated_on_device(cu, d->from, na, &it->dev_a);
    if (set < 0) {
        place_vector(cu, it->rc.a, na, &it->dev_a, &it->pack_a, pk);
        return;
    }
    cu->ln->plan.gen_sets |= 1u << set;
    it->xform_a = derive_xform(d);
}

/* batch_plan's validation of case i into items[i] (on the pool) */
typedef struct plan_job {
    const df_kernel *k;
    const df_case *const *cases;
    df_result *res;
    df_cuda_batch_item *items;
    int perturbed; /* a case carries a perturbed schedule (atomic) */
} plan_job;


static void validate_one(void *ctx, size_t i, unsigned worker)
{
    (void)worker;
    const plan_job *pj = (const plan_job *)ctx;
    df_cuda_batch_item *it = &pj->items[i];
    memset(&pj->res[i], 0, sizeof pj->res[i]);
    if (pj->cases[i]->sched.seed)
        __atomic_store_n((int *)&pj->perturbed, 1, __ATOMIC_RELAXED);
    it->pos = df_cuda_validate_case(pj->k, pj->cases[i], &it->rc, &pj->res[i]) == 0 ? i
                                                                             : INVALID_POS;
}

/* Validates the cases (the invalid ones get their error in res now, as
 * df_cuda_run gives it), sorts the valid ones by block and lays them out:
 * each one's guarded vector spans in the device batch, its packed vectors
 * in the staging buffer (unless the GPU generated them: generated_on_device),
 * and its scratch; *longest: the longest span, for the unpack's grid.
 * Returns the number of valid cases, or (size_t)-1 when host memory runs
 * out or a case carries a perturbed schedule (the batch runs one by one). */
static size_t batch_plan(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                         const df_derive *derive, size_t n, df_result *res,
                         size_t *stage_bytes, size_t *host_bytes, size_t *scratch_bytes,
                         size_t *longest)
{
    df_cuda_plan *pl = &cu->ln->plan;
    if (grow_host((void **)&pl->items, &pl->items_cap, 2 * n, sizeof *pl->items) != 0)
        return (size_t)-1;
    /* validated on the pool's threads (each case another core just
     * wrote: a cache miss a case on the caller's thread), then sorted
     * into place */
    plan_job pj = {k, cases, res, pl->items + n, 0};
    /* from DF_CUDA_POOL_MIN cases (a default run's kernels have a few dozen
     * each: see engine.c's models_in_prepare for what that cost) */
    df_pool_for(n >= DF_CUDA_POOL_MIN ? cu->pool : NULL, n, validate_one, &pj);
    if (pj.perturbed)
        return (size_t)-1; /* each perturbs the GPU around its own launch: one by one */
    size_t m = sort_items(pl->items, pl->items + n, n);
    pl->table_bytes = df_cuda_round_up(m * sizeof(df_gpu_batch_case), DF_CUDA_ALIGN);
    pl->unpack_bytes = df_cuda_round_up(2 * m * sizeof(batch_unpack), DF_CUDA_ALIGN);
    size_t off = pl->table_bytes, pk = pl->table_bytes + pl->unpack_bytes, sc = 0;
    pl->gen_sets = 0;
    *longest = 0;
    for (size_t j = 0; j < m; j++) {
        df_cuda_batch_item *it = &pl->items[j];
        const df_case *c = &it->rc;
        size_t es = df_type_size(c->type), g = df_cuda_guard_bytes(es);
        size_t tg = df_cuda_tail_guard_bytes(es);
        size_t na = (size_t)c->n * es; /* packed: the n elements the call reads */
        size_t fa = (size_t)df_cuda_span_elems(c, 0) * es, fb = (size_t)df_cuda_span_elems(c, 1) * es;
        it->pre_a = g + (size_t)c->launch.offset_a * es;
        it->pre_b = g + (size_t)c->launch.offset_b * es;
        it->off_a = off;
        off += df_cuda_round_up(it->pre_a + fa + tg, DF_CUDA_ALIGN);
        it->off_b = off;
        off += df_cuda_round_up(it->pre_b + fb + tg, DF_CUDA_ALIGN);
        size_t span_a = it->pre_a + fa + tg, span_b = it->pre_b + fb + tg;
        size_t span = span_a > span_b ? span_a : span_b;
        *longest = span > *longest ? span : *longest;
        it->dev_a = it->dev_b = NULL;
        it->pack_a = it->pack_b = 0;
        place_a(cu, it, derive ? &derive[it->pos] : NULL, na, &pk);
        place_vector(cu, c->b, na, &it->dev_b, &it->pack_b, &pk);
        it->scratch_off = sc;
        size_t sb = df_cuda_case_scratch(k, c);
        it->scratch_bytes = df_cuda_round_up(sb, DF_CUDA_ALIGN);
        sc += it->scratch_bytes;
    }
    *stage_bytes = off;
    *host_bytes = pk;
    *scratch_bytes = sc ? sc : (size_t)DF_CUDA_ALIGN;
    return m;
}

/* Groups of one CTA and lanes (df_batch_group_cta, df_batch_group_lanes:
 * one block size, or for DF_K_BATCH_ANY_BLOCK block sizes up to a power
 * of two, which the sort by block puts in a run), each within one launch's
 * 2^31 - 1 blocks; fills the table (first_block within the group). A
 * kernel without a batched launcher gets no groups: each case is its own
 * launch, from block 0. Returns 0 or -1. */
static int batch_groups(df_cuda *cu, const df_kernel *k, size_t m, size_t *ngroups)
{
    df_cuda_plan *pl = &cu->ln->plan;
    df_gpu_batch_case *tbl = (df_gpu_batch_case *)cu->ln->batch.h_batch;
    size_t ng = 0;
    if (!k->gpu->enqueue_batch) {
        for (size_t j = 0; j < m; j++) {
            tbl[j].first_block = 0;
            tbl[j].blocks = pl->items[j].rc.launch.grid;
        }
        *ngroups = 0;
        return 0;
    }
    for (size_t j = 0; j < m; j++) {
        const df_case *c = &pl->items[j].rc;
        uint32_t nb = k->gpu->batch_blocks ? k->gpu->batch_blocks(c->n, &c->launch)
                                           : c->launch.grid;
        int numbered = k->gpu->batch_blocks != NULL; /* else each case from block 0 */
        df_gpu_batch_group *g = ng ? &pl->groups[ng - 1] : NULL;
        uint32_t lanes = df_batch_group_lanes(k->flags, c->launch.block);
        if (!g || g->lanes != lanes || (uint64_t)g->blocks + nb > (uint64_t)INT32_MAX) {
            if (grow_host((void **)&pl->groups, &pl->groups_cap, ng + 1, sizeof *pl->groups))
                return -1;
            g = &pl->groups[ng++];
            *g = df_gpu_batch_group{j, 0, df_batch_group_cta(k->flags, c->launch.block), 0, 0,
                                    0, c->launch.block, lanes};
        }
        tbl[j].first_block = numbered ? g->blocks : 0;
        tbl[j].blocks = nb;
        g->blocks += nb;
        g->count++;
        g->max_n = c->n > g->max_n ? c->n : g->max_n;
        g->max_grid = c->launch.grid > g->max_grid ? c->launch.grid : g->max_grid;
    }
    *ngroups = ng;
    return 0;
}

/* One case of a batch in the pinned staging buffer: its table entry and
 * the two entries that have the device put each vector between its guards
 * (batch_unpack): the guards, about a third of the bytes at n = 2000, never
 * cross PCIe. The vectors are packed by stage_bytes. */
static void stage_entries(df_cuda *cu, size_t j)
{
    const df_cuda_plan *pl = &cu->ln->plan;
    const df_cuda_batch_bufs *bb = &cu->ln->batch;
    df_gpu_batch_case *tbl = (df_gpu_batch_case *)bb->h_batch;
    batch_unpack *up = (batch_unpack *)((char *)bb->h_batch + pl->table_bytes);
    char *d = (char *)bb->d_batch;
    const df_cuda_batch_item *it = &pl->items[j];
    const df_case *c = &it->rc;
    size_t es = df_type_size(c->type), tg = df_cuda_tail_guard_bytes(es);
    size_t from = pl->table_bytes; /* where h_batch's copy to d_pack starts */
    const char *pack = (const char *)bb->d_pack - from; /* h_batch offsets to device */
    uint64_t src_a = (uint64_t)(uintptr_t)(it->dev_a ? (const char *)it->dev_a : pack + it->pack_a);
    uint64_t src_b = (uint64_t)(uintptr_t)(it->dev_b ? (const char *)it->dev_b : pack + it->pack_b);
    df_gpu_batch_case *e = &tbl[j];
    e->a = d + it->off_a + it->pre_a;
    e->b = d + it->off_b + it->pre_b;
    e->n = c->n;
    e->scratch_off = it->scratch_off;
    e->grid = c->launch.grid;
    e->block = c->launch.block;
    e->result = (uint32_t)j;
    e->ticket = 0;
    e->inc_a = c->blas.on ? c->blas.inc_a : 1;
    e->inc_b = c->blas.on ? c->blas.inc_b : 1;
    e->n_arg = c->blas.on ? c->blas.n_arg : (int64_t)c->n;
    size_t fa = (size_t)df_cuda_span_elems(c, 0) * es, fb = (size_t)df_cuda_span_elems(c, 1) * es;
    up[2 * j] = batch_unpack{it->off_a, src_a, it->pre_a, fa, tg, (uint32_t)c->type,
                             it->xform_a, e->inc_a, c->n};
    up[2 * j + 1] = batch_unpack{it->off_b, src_b, it->pre_b, fb, tg, (uint32_t)c->type, 0,
                                 e->inc_b, c->n};
}

/* Bytes [lo, hi) of case j's vectors, packed into the staging buffer
 * (nothing of one that is on the device already). */
static void stage_bytes(df_cuda *cu, size_t j, size_t lo, size_t hi)
{
    const df_cuda_batch_item *it = &cu->ln->plan.items[j];
    char *h = (char *)cu->ln->batch.h_batch;
    if (hi > lo && !it->dev_a)
        df_copy_streaming(h + it->pack_a + lo, (const char *)it->rc.a + lo, hi - lo);
    if (hi > lo && !it->dev_b)
        df_copy_streaming(h + it->pack_b + lo, (const char *)it->rc.b + lo, hi - lo);
}

static size_t vector_bytes(const df_cuda_batch_item *it)
{
    return (size_t)it->rc.n * df_type_size(it->rc.type);
}

/* One case of a batch into the staging buffer, whole. */
static void stage_one(void *ctx, size_t j, unsigned worker)
{
    (void)worker;
    df_cuda *cu = (df_cuda *)ctx;
    stage_entries(cu, j);
    stage_bytes(cu, j, 0, vector_bytes(&cu->ln->plan.items[j]));
}

static size_t stage_pieces(const df_cuda_batch_item *it)
{
    size_t na = vector_bytes(it);
    return (it->dev_a && it->dev_b) || na <= DF_CUDA_STAGE_PIECE
               ? 1
               : (na + DF_CUDA_STAGE_PIECE - 1) / DF_CUDA_STAGE_PIECE;
}

/* Staging item i of a batch of long vectors: piece p of case j, where
 * stage_at[j] <= i < stage_at[j + 1]; a case's first piece writes its
 * entries too. */
static void stage_piece(void *ctx, size_t i, unsigned worker)
{
    (void)worker;
    df_cuda *cu = (df_cuda *)ctx;
    const df_cuda_plan *pl = &cu->ln->plan;
    size_t lo = 0, hi = pl->stage_at_n; /* stage_at[0..m]: at[m] is past every item */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl->stage_at[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    size_t j = lo, p = i - pl->stage_at[j], na = vector_bytes(&pl->items[j]);
    if (p == 0)
        stage_entries(cu, j);
    size_t from = p * (size_t)DF_CUDA_STAGE_PIECE;
    stage_bytes(cu, j, from, from + DF_CUDA_STAGE_PIECE < na ? from + DF_CUDA_STAGE_PIECE : na);
}

/* Bytes of span one block of the unpack kernel writes, at least: one block
 * per vector at n = 2000, a few thousand per vector at n = 2^26. */
enum { UNPACK_CHUNK = 1 << 16, UNPACK_THREADS = 256 };

/* An element of a derived vector (derive_xform's op, of type t) from the
 * one it follows from, as metamorphic.c makes it on the host: negation
 * (a float's sign bit; an int32's two's complement, which has no INT32_MIN
 * there) or the product by 2^k, correctly rounded (and exact: the plan
 * checked every product normal or zero), not contracted into anything. */
__device__ __forceinline__ uint32_t derive_word(uint32_t x, uint32_t t, uint32_t op, int k)
{
    if (op == DF_DERIVE_NEGATE)
        return t == DF_I32 ? 0u - x : x ^ 0x80000000u;
    return __float_as_uint(__fmul_rn(__uint_as_float(x), __uint_as_float((uint32_t)(127 + k) << 23)));
}

__device__ __forceinline__ unsigned long long derive_word(unsigned long long x, uint32_t,
                                                          uint32_t op, int k)
{
    if (op == DF_DERIVE_NEGATE)
        return x ^ 0x8000000000000000ull;
    return (unsigned long long)__double_as_longlong(
        __dmul_rn(__longlong_as_double((long long)x),
                  __longlong_as_double((long long)(1023 + k) << 52)));
}

/* Low-precision data are never derived (metamorphic.c makes them no
 * copies): the word as it is. */
template <typename W> __device__ __forceinline__ W derive_word(W x, uint32_t, uint32_t, int)
{
    return x;
}

/* Vector blockIdx.x of the batch into its guarded span, chunk blockIdx.y
 * of it (chunk bytes each): poison (df_guard_fill's values, the host
 * backend's), the data (made from src where v.xform says so: derive_word),
 * poison. Every size and offset is a multiple of the element size, and
 * each span starts 256-byte aligned. */
template <typename W>
__device__ void unpack_words(const batch_unpack &v, unsigned char *base, W poison, size_t chunk)
{
    W *dst = (W *)(base + v.dst);
    const W *src = (const W *)(uintptr_t)v.src;
    size_t pre = v.pre / sizeof(W), n = v.bytes / sizeof(W);
    size_t all = pre + n + v.post / sizeof(W);
    size_t lo = (size_t)blockIdx.y * (chunk / sizeof(W));
    size_t hi = lo + chunk / sizeof(W) < all ? lo + chunk / sizeof(W) : all;
    uint32_t op = v.xform & 0xffu;
    int k = (int8_t)(uint8_t)(v.xform >> 8);
    if (v.inc != 1) { /* a BLAS call's buffer: element j of the footprint */
        uint64_t step = v.inc < 0 ? (uint64_t)(-v.inc) : (uint64_t)v.inc;
        for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
            uint64_t j = i - pre, e = step ? j / step : 0;
            int read = i >= pre && i < pre + n && (step ? j % step == 0 : j == 0);
            if (read && v.inc < 0)
                e = v.n - 1 - e;
            dst[i] = !read ? poison
                     : op == DF_DERIVE_NONE ? src[e] : derive_word(src[e], v.type, op, k);
        }
        return;
    }
    if (op == DF_DERIVE_NONE) {
        for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
            dst[i] = i < pre || i >= pre + n ? poison : src[i - pre];
        return;
    }
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
        dst[i] = i < pre || i >= pre + n ? poison : derive_word(src[i - pre], v.type, op, k);
}

__global__ void batch_unpack_kernel(const batch_unpack *up, unsigned char *base, size_t chunk)
{
    const batch_unpack v = up[blockIdx.x];
    const uint64_t poison = df_guard_bits((df_type)v.type);
    if (v.type == DF_F64)
        unpack_words<unsigned long long>(v, base, poison, chunk);
    else if (v.type == DF_F16 || v.type == DF_BF16) /* no derived copies: plain data */
        unpack_words<uint16_t>(v, base, (uint16_t)poison, chunk);
    else if (v.type == DF_E4M3 || v.type == DF_E5M2)
        unpack_words<uint8_t>(v, base, (uint8_t)poison, chunk);
    else
        unpack_words<uint32_t>(v, base, (uint32_t)poison, chunk);
}

/* Launches the unpack of a batch of m cases, whose longest span is
 * longest bytes, on the stream; returns the launch's error. */
cudaError_t df_cuda_unpack_batch(df_cuda *cu, size_t m, size_t longest)
{
    /* chunks of at least UNPACK_CHUNK bytes, and at most 65535 a vector */
    size_t chunk = df_cuda_round_up(longest / 65535 + 1, UNPACK_CHUNK);
    dim3 grid((unsigned)(2 * m), (unsigned)((longest + chunk - 1) / chunk));
    batch_unpack_kernel<<<grid, UNPACK_THREADS, 0, cu->ln->stream>>>(
        (const batch_unpack *)cu->ln->batch.d_pack, (unsigned char *)cu->ln->batch.d_batch, chunk);
    return cudaGetLastError();
}

/* Every case of the batch, on the pool's threads when there is one: at
 * n = 2000 a batch of 4096 cases is 64 MB of copies, as much time on one
 * thread as the whole batch's CPU checking takes on sixteen. */
static void batch_stage(df_cuda *cu, size_t m)
{
    int split = 0;
    for (size_t j = 0; j < m && !split; j++)
        split = stage_pieces(&cu->ln->plan.items[j]) > 1;
    if (!split) { /* no vector past DF_CUDA_STAGE_PIECE: a case an item */
        df_pool_for(cu->pool, m, stage_one, cu);
        return;
    }
    /* long vectors: pieces of them, spread over the threads (stage_at is
     * exactly m + 1 long, which stage_piece's search relies on; where it
     * cannot be had, a case an item) */
    size_t *at = (size_t *)realloc(cu->ln->plan.stage_at, (m + 1) * sizeof *at);
    if (!at) {
        df_pool_for(cu->pool, m, stage_one, cu);
        return;
    }
    cu->ln->plan.stage_at = at;
    cu->ln->plan.stage_at_n = m + 1;
    at[0] = 0;
    for (size_t j = 0; j < m; j++)
        at[j + 1] = at[j] + stage_pieces(&cu->ln->plan.items[j]);
    df_pool_for(cu->pool, at[m], stage_piece, cu);
}

/* Buffers for m cases (twin: the scratch's pinned twin too); returns the
 * failed call or NULL. */
static const char *batch_buffers(df_cuda *cu, size_t m, size_t stage, size_t host,
                                 size_t scratch, int twin, cudaError_t *e)
{
    df_cuda_batch_bufs *b = &cu->ln->batch;
    if ((*e = df_cuda_grow(&b->h_batch, &b->h_batch_cap, host, 1)))
        return "cudaMallocHost(batch staging)";
    if ((*e = df_cuda_grow(&b->d_batch, &b->d_batch_cap, stage, 0)))
        return "cudaMalloc(batch)";
    if ((*e = df_cuda_grow(&b->d_pack, &b->d_pack_cap, host - cu->ln->plan.table_bytes, 0)))
        return "cudaMalloc(batch packed)";
    if ((*e = df_cuda_grow(&b->d_bscratch, &b->d_bscratch_cap, scratch, 0)))
        return "cudaMalloc(batch scratch)";
    if (twin && (*e = df_cuda_grow(&b->h_bscratch, &b->h_bscratch_cap, scratch, 1)))
        return "cudaMallocHost(batch scratch)";
    if ((*e = df_cuda_grow(&b->d_bres, &b->d_bres_cap, m * DF_CUDA_RESULT_BYTES, 0)))
        return "cudaMalloc(batch results)";
    if ((*e = df_cuda_grow(&b->h_bres, &b->h_bres_cap, m * DF_CUDA_RESULT_BYTES, 1)))
        return "cudaMallocHost(batch results)";
    if ((*e = df_cuda_grow((void **)&b->h_claims, &b->h_claims_cap,
                           m * DF_SOFT_CODES * sizeof *b->h_claims, 1)))
        return "cudaMallocHost(batch soft claims)";
    if (twin && (*e = df_cuda_grow((void **)&b->h_fetch, &b->h_fetch_cap,
                                   m * sizeof *b->h_fetch, 1)))
        return "cudaMallocHost(batch result places)";
    if (b->h_bres_of != b->h_bres || b->h_claims_of != b->h_claims) {
        b->h_bres_dev = df_cuda_device_view(b->h_bres);
        b->h_claims_dev = (int *)df_cuda_device_view(b->h_claims);
        b->h_bres_of = b->h_bres;
        b->h_claims_of = b->h_claims;
    }
    if (b->h_fetch_of != b->h_fetch) {
        b->h_fetch_dev = (df_gpu_fetch *)df_cuda_device_view(b->h_fetch);
        b->h_fetch_of = b->h_fetch;
    }
    if (b->bsoft.count < m) {
        const char *call = NULL;
        size_t want = b->bsoft.count * 2 > m ? b->bsoft.count * 2 : m;
        df_soft_slots_close(&b->bsoft);
        if ((*e = df_soft_slots_open(&b->bsoft, want, &call)))
            return call;
    }
    return NULL;
}

/* Lays out and stages k's cases[0..n) (res: each invalid case's error;
 * *call and *e: a failed allocation's). Returns 0 staged (st), 1 nothing
 * to run (every case invalid: their errors in res), 2 out of host memory
 * for the plan or the groups, or a case with a perturbed schedule (run
 * them one by one), 3 an allocation
 * failed (*call, *e). The time goes to the batch profile's plan and
 * staging, or to its staging-ahead parts when ahead. */
int df_cuda_plan_and_stage(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                           const df_derive *derive, size_t n, df_result *res,
                           df_cuda_staged *st, int ahead, const char **call, cudaError_t *e)
{
    double t = df_now();
    size_t stage = 0, scratch = 0;
    st->m = batch_plan(cu, k, cases, derive, n, res, &stage, &st->host, &scratch,
                       &st->longest);
    if (st->m == (size_t)-1)
        return 2;
    if (st->m == 0)
        return 1;
    *call = batch_buffers(cu, st->m, stage, st->host, scratch, !k->gpu->enqueue_batch, e);
    if (*call)
        return 3;
    if (batch_groups(cu, k, st->m, &st->ngroups) != 0)
        return 2;
    df_cuda_batch_tick(cu, ahead ? DF_CUDA_T_AHEAD_PLAN : DF_CUDA_T_PLAN, &t);
    batch_stage(cu, st->m);
    df_cuda_batch_tick(cu, ahead ? DF_CUDA_T_AHEAD_STAGE : DF_CUDA_T_STAGE, &t);
    return 0;
}

/* Whether the batched path takes k's n cases now (else df_cuda_run case
 * after case). */
int df_cuda_batched(const df_cuda *cu, const df_kernel *k, size_t n)
{
    /* debug-invariant mode synchronizes every round anyway, and reads the
     * cells back into one pinned scratch */
    return k->gpu && !cu->broken && n >= 2 &&
           !(cu->debug_invariants && (k->flags & DF_K_DEBUG_INVARIANTS));
}

extern "C" uint64_t df_cuda_stage_batch(df_cuda *cu, const df_kernel *k,
                                        const df_case *const *cases, const df_derive *derive,
                                        size_t n, df_result *res)
{
    cu->ahead.ticket = 0; /* lane 0's buffers' contents change now */
    if (!df_cuda_batched(cu, k, n) || cu->lanes[0].part.busy) /* (a part in flight uses them) */
        return 0;
    cu->ln = &cu->lanes[0]; /* the lane the run takes for the staged part */
    const char *call = NULL;
    cudaError_t e = cudaSuccess;
    df_cuda_staged st;
    if (df_cuda_plan_and_stage(cu, k, cases, derive, n, res, &st, 1, &call, &e) != 0)
        return 0; /* the run plans it again, and meets what went wrong */
    cu->ahead.st = st;
    cu->ahead.k = k;
    cu->ahead.cases = cases;
    cu->ahead.derive = derive;
    cu->ahead.n = n;
    cu->ahead.ticket = ++cu->ahead.tickets;
    return cu->ahead.ticket;
}

#endif
