/* plugin.c — `--kernel-lib`: loads a shared library through the ABI of
 * include/dotfuzz/plugin.h, checks every field of what it describes, and
 * registers each of its kernels as a df_kernel.
 *
 * A df_kernel's callbacks (host_model, tree_height, the GPU ops) receive no
 * pointer to their kernel, so each plugin kernel gets a slot with its own
 * set of small trampoline functions that know the slot's number. The
 * library is never closed: the registry points into it until exit. */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/dotfuzz/plugin.h"
#include "kernels/gpu_ops.h"
#include "kernels/kernel.h"
#include "kernels/model_common.h"
#include "fuzz/files.h"
#include "fuzz/lowp.h"
#include "fuzz/plugin.h"
#include "fuzz/pool.h"
#include "fuzz/worker.h"

#ifdef DOTFUZZ_CUDA
#include <cuda_runtime_api.h>

#include "kernels/gpu_fetch.h"
#endif

typedef struct plug_slot {
    df_kernel k;        /* what the registry holds */
    dotfuzz_kernel pk;  /* the plugin's description, copied (an older
                           version's kernel with the newer fields NULL) */
    df_fused_model fused; /* k.fused points here when pk.fused is set */
    const char *lib;    /* the library's path, as given */
    char name[DF_NAME_MAX];
    char origin[24];
    struct df_gpu_ops ops;
} plug_slot;

static plug_slot slots[DF_PLUGIN_KERNELS_MAX];
static size_t nslots;

/* A poisoned result (all bits set: NaN for floats, -1 for int32) shows a
 * routine that accumulates into its output without zeroing it first. */
enum { RESULT_BYTES = 16 };

_Static_assert(DOTFUZZ_F32 == DF_F32 && DOTFUZZ_F64 == DF_F64 && DOTFUZZ_I32 == DF_I32 &&
                   DOTFUZZ_F16 == DF_F16 && DOTFUZZ_BF16 == DF_BF16 &&
                   DOTFUZZ_E4M3 == DF_E4M3 && DOTFUZZ_E5M2 == DF_E5M2,
               "the ABI's type codes are dotfuzz's");
_Static_assert(DOTFUZZ_ROUND_NEAREST == DF_ROUND_NEAREST && DOTFUZZ_ROUND_ZERO == DF_ROUND_ZERO,
               "the ABI's roundings are the fused model's");

/* A version 1 dotfuzz_kernel: version 2's up to fused, which follows a
 * pointer, so the two layouts agree on every byte before it; a version 2
 * one: version 3's up to scratch_bytes, which follows the fused pointer. */
#define KERNEL_V1_SIZE offsetof(dotfuzz_kernel, fused)
#define KERNEL_V2_SIZE offsetof(dotfuzz_kernel, scratch_bytes)

/* A batch's table goes to dot_device_batch as the backend built it: the
 * ABI's case is the backend's, byte for byte. */
#define SAME_FIELD(f)                                                                  \
    _Static_assert(offsetof(dotfuzz_batch_case, f) == offsetof(df_gpu_batch_case, f) && \
                       sizeof(((dotfuzz_batch_case *)0)->f) ==                         \
                           sizeof(((df_gpu_batch_case *)0)->f),                        \
                   "dotfuzz_batch_case." #f " is df_gpu_batch_case's")
SAME_FIELD(a);
SAME_FIELD(b);
SAME_FIELD(n);
SAME_FIELD(scratch_off);
SAME_FIELD(grid);
SAME_FIELD(block);
SAME_FIELD(first_block);
SAME_FIELD(result);
SAME_FIELD(ticket);
SAME_FIELD(blocks);
SAME_FIELD(inc_a);
SAME_FIELD(inc_b);
SAME_FIELD(n_arg);
_Static_assert(sizeof(dotfuzz_batch_case) == sizeof(df_gpu_batch_case) &&
                   _Alignof(dotfuzz_batch_case) == _Alignof(df_gpu_batch_case),
               "dotfuzz_batch_case is df_gpu_batch_case");

static void widen(uint32_t acc, const void *r, df_result *out)
{
    if (acc == DOTFUZZ_F16) {
        uint16_t h;
        memcpy(&h, r, sizeof h);
        out->f = df_lowp_decode(DF_LOWP_F16, h);
    } else if (acc == DOTFUZZ_F32) {
        float f;
        memcpy(&f, r, sizeof f);
        out->f = f;
    } else if (acc == DOTFUZZ_F64) {
        memcpy(&out->f, r, sizeof out->f);
    } else {
        int32_t v;
        memcpy(&v, r, sizeof v);
        out->i = v;
    }
}

/* l as a plugin sees it, with c's BLAS arguments (c NULL, or a plain
 * case: increments 1 and n). */
static dotfuzz_launch to_plugin_launch(const df_launch *l, const df_case *c, uint64_t n)
{
    dotfuzz_launch p = {l->block, l->grid, l->offset_a, l->offset_b, 1, 1, (int64_t)n, NULL};
    if (c && c->blas.on) {
        p.inc_a = c->blas.inc_a;
        p.inc_b = c->blas.inc_b;
        p.n_arg = c->blas.n_arg;
    }
    return p;
}

/* ---- vectors at the launch's offsets ---- */

static size_t round64(size_t x) { return (x + 63) / 64 * 64; }

/* Bytes to hold both vectors at their offsets; 0 when the case's own
 * buffers serve (no offsets). The caller has bounded n. */
static size_t placed_bytes(uint64_t n, const df_launch *l, size_t es)
{
    if (!l->offset_a && !l->offset_b)
        return 0;
    return round64(((size_t)l->offset_a + (size_t)n) * es) +
           ((size_t)l->offset_b + (size_t)n) * es;
}

/* Copies the case's vectors into base (64-byte aligned, placed_bytes
 * long) at their offsets, so the routine sees them where the launch says. */
static void place(void *base, const df_case *c, const df_launch *l, size_t es,
                  const void **a, const void **b)
{
    size_t na = (size_t)c->n * es;
    char *pa = (char *)base + (size_t)l->offset_a * es;
    char *pb = (char *)base + round64(((size_t)l->offset_a + (size_t)c->n) * es) +
               (size_t)l->offset_b * es;
    if (na) {
        memcpy(pa, c->a, na);
        memcpy(pb, c->b, na);
    }
    *a = pa;
    *b = pb;
}

static int n_too_large(uint64_t n, size_t es)
{
    return n > (SIZE_MAX / 4 - 2 * (size_t)UINT32_MAX) / es;
}

/* ---- host forms: the whole routine and the model ---- */

static int host_call(plug_slot *s, dotfuzz_dot_host_fn fn, const char *form,
                     const df_case *c, df_scratch *scratch, df_result *out)
{
    df_launch l;
    if (df_model_begin(&s->k, c, &l, out) != 0)
        return -1;
    size_t es = df_type_size(c->type);
    const void *a = c->a, *b = c->b;
    if (n_too_large(c->n, es)) {
        snprintf(out->err, sizeof out->err, "%s %s: n = %llu too large", s->name, form,
                 (unsigned long long)c->n);
        out->status = DF_RUN_ERROR;
        return -1;
    }
    size_t bytes = (s->k.flags & DF_K_BLAS) ? 0 : placed_bytes(c->n, &l, es); /* BLAS: x, y */
    if (bytes) {
        void *base = df_scratch_reserve(scratch, bytes);
        if (!base) {
            snprintf(out->err, sizeof out->err, "%s %s: out of memory", s->name, form);
            out->status = DF_RUN_ERROR;
            return -1;
        }
        place(base, c, &l, es, &a, &b);
    }
    dotfuzz_launch pl = to_plugin_launch(&l, c, c->n);
    unsigned char r[RESULT_BYTES];
    memset(r, 0xff, sizeof r);
    int rc = fn(a, b, c->n, &pl, r);
    if (rc != 0) {
        snprintf(out->err, sizeof out->err, "%s %s returned %d", s->name, form, rc);
        out->status = DF_RUN_ERROR;
        return -1;
    }
    widen(s->pk.acc, r, out);
    return 0;
}

static int host_form(plug_slot *s, const df_case *c, df_scratch *scr, df_result *out)
{
    return host_call(s, s->pk.dot_host, "dot_host", c, scr, out);
}

static int model_form(plug_slot *s, const df_case *c, df_scratch *scr, df_result *out)
{
    return host_call(s, s->pk.host_model, "host_model", c, scr, out);
}

static uint64_t height(plug_slot *s, uint64_t n, const df_launch *l)
{
    dotfuzz_launch pl = to_plugin_launch(l, NULL, n);
    return s->pk.tree_height(n, &pl);
}

/* ---- GPU forms (cuda backend) ---- */

/* The device forms get the scratch the kernel asks for; the whole
 * routine, when it is the GPU form, pinned host scratch for vectors
 * placed at offsets. */
static size_t gpu_scratch(plug_slot *s, uint64_t n, const df_launch *l)
{
    if (s->pk.dot_device) {
        if (!s->pk.scratch_bytes)
            return 0;
        dotfuzz_launch pl = to_plugin_launch(l, NULL, n);
        uint64_t bytes = s->pk.scratch_bytes(n, &pl);
        return bytes > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)bytes;
    }
    size_t es = df_type_size((df_type)s->pk.elem);
    return n_too_large(n, es) ? 0 : placed_bytes(n, l, es);
}

static int gpu_host_form(plug_slot *s, df_gpu_ctx *ctx, const df_case *c)
{
    size_t es = df_type_size(c->type);
    const void *a = c->a, *b = c->b;
    size_t bytes = placed_bytes(c->n, &c->launch, es);
    if (bytes) {
        if (!ctx->h_scratch || ctx->d_scratch_bytes < bytes) {
            snprintf(ctx->detail, sizeof ctx->detail, "no host scratch for placed vectors");
            ctx->failed_call = "dot_host";
            return -1;
        }
        place(ctx->h_scratch, c, &c->launch, es, &a, &b);
    }
    dotfuzz_launch pl = to_plugin_launch(&c->launch, c, c->n);
    memset(ctx->h_result, 0xff, RESULT_BYTES);
    int rc = s->pk.dot_host(a, b, c->n, &pl, ctx->h_result);
    if (rc != 0) {
        snprintf(ctx->detail, sizeof ctx->detail, "%s dot_host returned %d", s->name, rc);
        ctx->failed_call = "dot_host";
        return -1;
    }
    return 0;
}

#ifdef DOTFUZZ_CUDA
static size_t acc_size(uint32_t acc)
{
    return acc == DOTFUZZ_F16 ? sizeof(uint16_t) : df_type_size((df_type)acc);
}

/* A device form's nonzero return rc: the form is the failed call, and a
 * failure that is no CUDA error (rc < 0) says so in detail. */
static int form_failed(const plug_slot *s, const char *form, int rc, const char **call,
                       char *detail, size_t len)
{
    *call = form;
    if (rc < 0)
        snprintf(detail, len, "%s %s returned %d", s->name, form, rc);
    return rc;
}

static int gpu_device_form(plug_slot *s, df_gpu_ctx *ctx, const df_case *c)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    cudaError_t e = cudaMemsetAsync(ctx->d_result, 0xff, RESULT_BYTES, stream);
    if (e != cudaSuccess) {
        ctx->failed_call = "cudaMemsetAsync(result)";
        return (int)e;
    }
    dotfuzz_launch pl = to_plugin_launch(&c->launch, c, c->n);
    pl.d_scratch = s->pk.scratch_bytes ? ctx->d_scratch : NULL;
    int rc = s->pk.dot_device(ctx->a, ctx->b, c->n, &pl, ctx->d_result, ctx->stream);
    if (rc != 0)
        return form_failed(s, "dot_device", rc, &ctx->failed_call, ctx->detail,
                           sizeof ctx->detail);
    return df_fetch_result(ctx, ctx->d_result, acc_size(s->pk.acc));
}

/* The batched form: one call per group (a block size), on the group's
 * stream, with the group's result slots poisoned first on that stream.
 * The backend reads case j's result from slot j and a group is the table's
 * cases first .. first + count - 1, so its slots are those. */
static int gpu_batch(plug_slot *s, df_gpu_batch *bt)
{
    for (size_t g = 0; g < bt->ngroups; g++) {
        const df_gpu_batch_group *gr = &bt->groups[g];
        void *stream = bt->nside ? bt->side[g % bt->nside] : bt->stream;
        cudaError_t e = cudaMemsetAsync((char *)bt->d_results + RESULT_BYTES * gr->first, 0xff,
                                        RESULT_BYTES * gr->count, (cudaStream_t)stream);
        if (e != cudaSuccess) {
            bt->failed_call = "cudaMemsetAsync(results)";
            return (int)e;
        }
        dotfuzz_batch pb = {(dotfuzz_batch_case *)(bt->d_cases + gr->first),
                            gr->count,
                            gr->block,
                            gr->blocks,
                            gr->max_grid,
                            0,
                            gr->max_n,
                            s->pk.scratch_bytes ? bt->d_scratch : NULL,
                            bt->d_results,
                            stream};
        int rc = s->pk.dot_device_batch(&pb);
        if (rc != 0)
            return form_failed(s, "dot_device_batch", rc, &bt->failed_call, bt->detail,
                               sizeof bt->detail);
    }
    return 0;
}
#else
static int gpu_batch(plug_slot *s, df_gpu_batch *bt)
{
    (void)s;
    bt->failed_call = "dot_device_batch";
    snprintf(bt->detail, sizeof bt->detail, "a build without CUDA");
    return -1;
}
#endif

/* A batched launch runs every block of each case's grid, numbered one
 * case after the other (first_block). */
static uint32_t batch_blocks(uint64_t n, const df_launch *l)
{
    (void)n;
    return l->grid;
}

static int gpu_enqueue(plug_slot *s, df_gpu_ctx *ctx, const df_case *c)
{
#ifdef DOTFUZZ_CUDA
    if (s->pk.dot_device)
        return gpu_device_form(s, ctx, c);
#endif
    return gpu_host_form(s, ctx, c);
}

static int gpu_finish(plug_slot *s, df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    (void)c;
    widen(s->pk.acc, ctx->h_result, res);
    return 0;
}

/* ---- one set of trampolines per slot ---- */

#define DF_SLOT_FNS(i)                                                                 \
    static int host_##i(const df_case *c, df_scratch *s, df_result *o)                 \
    {                                                                                  \
        return host_form(&slots[i], c, s, o);                                          \
    }                                                                                  \
    static int model_##i(const df_case *c, df_scratch *s, df_result *o)                \
    {                                                                                  \
        return model_form(&slots[i], c, s, o);                                         \
    }                                                                                  \
    static uint64_t height_##i(uint64_t n, const df_launch *l)                         \
    {                                                                                  \
        return height(&slots[i], n, l);                                                \
    }                                                                                  \
    static size_t scratch_##i(uint64_t n, const df_launch *l)                          \
    {                                                                                  \
        return gpu_scratch(&slots[i], n, l);                                           \
    }                                                                                  \
    static int enqueue_##i(df_gpu_ctx *ctx, const df_case *c)                          \
    {                                                                                  \
        return gpu_enqueue(&slots[i], ctx, c);                                         \
    }                                                                                  \
    static int finish_##i(df_gpu_ctx *ctx, const df_case *c, df_result *r)             \
    {                                                                                  \
        return gpu_finish(&slots[i], ctx, c, r);                                       \
    }                                                                                  \
    static int batch_##i(df_gpu_batch *bt) { return gpu_batch(&slots[i], bt); }

#define DF_SLOT_ENTRY(i)                                                               \
    {host_##i, model_##i, height_##i, scratch_##i, enqueue_##i, finish_##i, batch_##i},

#define DF_SLOTS_8(X, b) X(b##0) X(b##1) X(b##2) X(b##3) X(b##4) X(b##5) X(b##6) X(b##7)
#define DF_SLOTS(X)                                                                    \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) DF_SLOTS_8(X, 1) X(18) X(19)        \
    DF_SLOTS_8(X, 2) X(28) X(29) DF_SLOTS_8(X, 3) X(38) X(39) DF_SLOTS_8(X, 4) X(48)     \
    X(49) DF_SLOTS_8(X, 5) X(58) X(59) X(60) X(61) X(62) X(63)

DF_SLOTS(DF_SLOT_FNS)

typedef struct slot_fns {
    int (*host)(const df_case *, df_scratch *, df_result *);
    int (*model)(const df_case *, df_scratch *, df_result *);
    uint64_t (*height)(uint64_t, const df_launch *);
    size_t (*scratch)(uint64_t, const df_launch *);
    int (*enqueue)(df_gpu_ctx *, const df_case *);
    int (*finish)(df_gpu_ctx *, const df_case *, df_result *);
    int (*batch)(df_gpu_batch *);
} slot_fns;

static const slot_fns fns[] = {DF_SLOTS(DF_SLOT_ENTRY)};

_Static_assert(sizeof fns / sizeof fns[0] == DF_PLUGIN_KERNELS_MAX,
               "one set of trampolines per slot");

/* ---- checking a description ---- */

static int name_ok(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    if (len == 0 || len > DOTFUZZ_PLUGIN_NAME_MAX || len >= DF_NAME_MAX)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
            return 0;
    return 1;
}

/* Whether a kernel of ABI version abi may take elem and accumulate in acc. */
static int types_ok(uint32_t abi, uint32_t elem, uint32_t acc)
{
    switch (elem) {
    case DOTFUZZ_F32: return acc == DOTFUZZ_F32 || acc == DOTFUZZ_F64;
    case DOTFUZZ_F64: return acc == DOTFUZZ_F64;
    case DOTFUZZ_I32: return acc == DOTFUZZ_I32;
    case DOTFUZZ_F16:
    case DOTFUZZ_BF16:
    case DOTFUZZ_E4M3:
    case DOTFUZZ_E5M2:
        return abi >= 2 && (acc == DOTFUZZ_F16 || acc == DOTFUZZ_F32 || acc == DOTFUZZ_F64);
    default: return 0;
    }
}

/* The first problem with k's fused accumulation (k->fused set), or NULL. */
static const char *fused_problem(const dotfuzz_kernel *k, char *why, size_t why_len)
{
    const dotfuzz_fused *f = k->fused;
    df_type_facts in = df_type_facts_of((df_type)k->elem), acc = df_type_facts_of((df_type)k->acc);
    int acc_emax = ilogb(acc.max);
    if (in.lowp < 0)
        return "fused accumulation: only for f16, bf16, e4m3 and e5m2 elements";
    if (f->group < 1 || f->group > 64)
        snprintf(why, why_len, "fused group %u: need 1 to 64", f->group);
    else if (f->align_bits < 1 || f->align_bits > 48)
        snprintf(why, why_len, "fused align_bits %d: need 1 to 48", f->align_bits);
    else if (f->out_bits < 1 || f->out_bits > acc.p - 1)
        snprintf(why, why_len, "fused out_bits %d: need 1 to %d (%s's fraction bits)",
                 f->out_bits, acc.p - 1, df_type_name((df_type)k->acc));
    else if (f->out_round != DOTFUZZ_ROUND_NEAREST && f->out_round != DOTFUZZ_ROUND_ZERO)
        snprintf(why, why_len, "fused out_round %u: need DOTFUZZ_ROUND_NEAREST (0) or "
                 "DOTFUZZ_ROUND_ZERO (1)", f->out_round);
    else if (f->out_min_exp < acc.emin || f->out_min_exp >= f->out_max_exp ||
             f->out_max_exp > acc_emax)
        snprintf(why, why_len, "fused exponents %d..%d: need %d <= out_min_exp < out_max_exp "
                 "<= %d (%s)", f->out_min_exp, f->out_max_exp, acc.emin, acc_emax,
                 df_type_name((df_type)k->acc));
    else if (f->in_min_exp != 0 && f->in_min_exp != in.emin)
        snprintf(why, why_len, "fused in_min_exp %d: %s's smallest normal exponent is %d "
                 "(or give 0)", f->in_min_exp, df_type_name((df_type)k->elem), in.emin);
    else if (f->chains > 65536)
        snprintf(why, why_len, "fused chains %u: need 0 to 65536", f->chains);
    else
        return NULL;
    return why;
}

static const char *block_problem(const dotfuzz_kernel *k)
{
    if (k->block_min == 0 || k->block_min > k->block_max)
        return "block range: need 1 <= block_min <= block_max";
    if (k->block_max > 1024)
        return "block_max above 1024";
    if (k->block_default < k->block_min || k->block_default > k->block_max)
        return "block_default outside [block_min, block_max]";
    if ((k->flags & DOTFUZZ_BLOCK_POW2) && !df_is_pow2_u32(k->block_default))
        return "block_default is not a power of two (DOTFUZZ_BLOCK_POW2)";
    if ((k->flags & DOTFUZZ_BLOCK_WARP) && k->block_default % 32 != 0)
        return "block_default is not a multiple of 32 (DOTFUZZ_BLOCK_WARP)";
    return NULL;
}

/* The first problem with kernel k of ABI version abi, or NULL. why is
 * scratch for messages. */
static const char *kernel_problem(uint32_t abi, const dotfuzz_kernel *k, char *why,
                                  size_t why_len)
{
    const char *p;
    if (!name_ok(k->name))
        return "bad name: need 1 to 31 characters from [A-Za-z0-9_.-]";
    if (!types_ok(abi, k->elem, k->acc)) {
        snprintf(why, why_len,
                 "unknown or unsupported types elem=%u acc=%u (f32=1, f64=2, i32=3%s; "
                 "f32->f32|f64, f64->f64, i32->i32%s)",
                 k->elem, k->acc, abi >= 2 ? ", f16=4, bf16=5, e4m3=6, e5m2=7" : "",
                 abi >= 2 ? ", f16|bf16|e4m3|e5m2->f16|f32|f64" : "; ABI version 1");
        return why;
    }
    if (k->flags & ~DOTFUZZ_KNOWN_FLAGS) {
        snprintf(why, why_len, "unknown flag bits 0x%x", k->flags & ~DOTFUZZ_KNOWN_FLAGS);
        return why;
    }
    if ((k->flags & DOTFUZZ_TF32_INPUTS) && k->elem != DOTFUZZ_F32)
        return "DOTFUZZ_TF32_INPUTS on elements that are not f32";
    if ((k->flags & DOTFUZZ_BLAS) && (k->flags & DOTFUZZ_ANY_ALIGNMENT))
        return "DOTFUZZ_BLAS with DOTFUZZ_ANY_ALIGNMENT (the call's arrays have no offset)";
    if ((p = block_problem(k)))
        return p;
    if (!(k->flags & DOTFUZZ_GRID_FREE) && k->grid_max)
        return "grid_max set without DOTFUZZ_GRID_FREE";
    if (!k->dot_host && !k->dot_device)
        return "neither dot_host nor dot_device";
    if (k->dot_device_batch && !k->dot_device)
        return "dot_device_batch without dot_device (single cases run through dot_device)";
    if (k->scratch_bytes && !k->dot_device)
        return "scratch_bytes without dot_device (only the device forms get scratch)";
    return k->fused ? fused_problem(k, why, why_len) : NULL;
}

/* Kernel i of pl's table, whose entries are kernel_size bytes (an older
 * version's are shorter: what they lack stays zero). */
static dotfuzz_kernel kernel_at(const dotfuzz_plugin *pl, uint32_t i)
{
    dotfuzz_kernel k;
    memset(&k, 0, sizeof k);
    memcpy(&k, (const char *)pl->kernels + (size_t)i * pl->kernel_size, pl->kernel_size);
    return k;
}

/* Whether kernel i's name is free: no built-in, loaded kernel or earlier
 * kernel of this plugin has it. */
static int name_free(const dotfuzz_plugin *pl, uint32_t i)
{
    dotfuzz_kernel k = kernel_at(pl, i);
    if (df_kernel_find(k.name))
        return 0;
    for (uint32_t j = 0; j < i; j++)
        if (strcmp(kernel_at(pl, j).name, k.name) == 0)
            return 0;
    return 1;
}

static int check_plugin(const char *path, const dotfuzz_plugin *pl, char *err,
                        size_t err_len)
{
    if (pl->abi_version < 1 || pl->abi_version > DOTFUZZ_PLUGIN_ABI_VERSION) {
        snprintf(err, err_len,
                 "%s: plugin ABI version %u, but this dotfuzz speaks versions 1 to %u "
                 "(rebuild the plugin against this dotfuzz's include/dotfuzz/plugin.h)",
                 path, pl->abi_version, DOTFUZZ_PLUGIN_ABI_VERSION);
        return -1;
    }
    size_t ksize = pl->abi_version == 1   ? KERNEL_V1_SIZE
                   : pl->abi_version == 2 ? KERNEL_V2_SIZE
                                          : sizeof(dotfuzz_kernel);
    if (pl->plugin_size != sizeof(dotfuzz_plugin) || pl->kernel_size != ksize) {
        snprintf(err, err_len,
                 "%s: struct sizes %u/%u differ from ABI version %u's %zu/%zu "
                 "(dotfuzz_plugin/dotfuzz_kernel: a mismatched plugin.h or compiler)",
                 path, pl->plugin_size, pl->kernel_size, pl->abi_version,
                 sizeof(dotfuzz_plugin), ksize);
        return -1;
    }
    if (pl->nkernels == 0 || !pl->kernels) {
        snprintf(err, err_len, "%s: the plugin describes no kernels", path);
        return -1;
    }
    if (pl->nkernels > DF_PLUGIN_KERNELS_MAX - nslots) {
        snprintf(err, err_len, "%s: %u kernels, but only %zu more plugin kernels fit", path,
                 pl->nkernels, DF_PLUGIN_KERNELS_MAX - nslots);
        return -1;
    }
    for (uint32_t i = 0; i < pl->nkernels; i++) {
        dotfuzz_kernel k = kernel_at(pl, i);
        char why[200];
        const char *p = kernel_problem(pl->abi_version, &k, why, sizeof why);
        if (!p && !name_free(pl, i))
            p = "name already taken (by a built-in or an already loaded kernel)";
        if (p) {
            snprintf(err, err_len, "%s: kernel %u '%.31s': %s", path, i,
                     k.name ? k.name : "(null)", p);
            return -1;
        }
    }
    return 0;
}

/* ---- registering ---- */

static unsigned to_df_flags(uint32_t f)
{
    unsigned out = DF_K_ONE_STREAM; /* its GPU form may keep state between calls */
    out |= (f & DOTFUZZ_DETERMINISTIC) ? DF_K_DETERMINISTIC : 0u;
    out |= (f & DOTFUZZ_FLUSHES_SUBNORMALS) ? DF_K_FLUSHES_SUBNORMALS : 0u;
    out |= (f & DOTFUZZ_ANY_ALIGNMENT) ? DF_K_ANY_ALIGNMENT : 0u;
    out |= (f & DOTFUZZ_BLOCK_POW2) ? DF_K_BLOCK_POW2 : 0u;
    out |= (f & DOTFUZZ_BLOCK_WARP) ? DF_K_BLOCK_WARP : 0u;
    out |= (f & DOTFUZZ_GRID_FREE) ? DF_K_GRID_FREE : 0u;
    out |= (f & DOTFUZZ_LEN64) ? DF_K_LEN64 : 0u;
    out |= (f & DOTFUZZ_TF32_INPUTS) ? DF_K_TF32_INPUTS : 0u;
    out |= (f & DOTFUZZ_BLAS) ? DF_K_BLAS : 0u;
    return out;
}

/* The host backend runs a whole-routine kernel itself (host_run); the
 * model-match rule on the cuda backend uses its host_model. */
static void bind_slot(size_t i)
{
    plug_slot *s = &slots[i];
    s->k.host_run = s->pk.dot_host ? fns[i].host : NULL;
    s->k.host_model = s->pk.host_model ? fns[i].model : NULL;
}

static void fill_slot(size_t i, const dotfuzz_kernel *pk, const char *origin, const char *lib)
{
    plug_slot *s = &slots[i];
    memset(s, 0, sizeof *s);
    s->pk = *pk;
    s->lib = lib;
    snprintf(s->name, sizeof s->name, "%s", pk->name);
    snprintf(s->origin, sizeof s->origin, "%s", origin);
    s->ops = (struct df_gpu_ops){fns[i].scratch, fns[i].enqueue, fns[i].finish,
                                 pk->dot_device_batch ? fns[i].batch : NULL,
                                 pk->dot_device_batch ? batch_blocks : NULL};
    if (pk->fused) {
        const dotfuzz_fused *f = pk->fused;
        int in_min = f->in_min_exp ? f->in_min_exp : df_type_facts_of((df_type)pk->elem).emin;
        s->fused = (df_fused_model){f->group,       f->align_bits,  f->out_bits,
                                    f->out_min_exp, f->out_max_exp, (df_round)f->out_round,
                                    in_min};
    }
    s->k = (df_kernel){
        .name = s->name,
        .origin = s->origin,
        .summary = pk->summary ? pk->summary : "",
        .elem = (df_type)pk->elem,
        .acc = (df_type)pk->acc,
        .flags = to_df_flags(pk->flags),
        .block_min = pk->block_min,
        .block_max = pk->block_max,
        .block_default = pk->block_default,
        .grid_max = pk->grid_max,
        .per_thread = pk->per_thread ? pk->per_thread : 1,
        .max_n = pk->max_n,
        .tree_height = pk->tree_height ? fns[i].height : NULL,
        .gpu = NULL,
        .fused = pk->fused ? &s->fused : NULL,
        .fused_chains = pk->fused ? pk->fused->chains : 0, /* 0: one chain */
    };
#ifdef DOTFUZZ_CUDA
    /* a BLAS call's arrays reach the device forms only: dot_host alone
     * runs on the host backend */
    s->k.gpu = (pk->flags & DOTFUZZ_BLAS) && !pk->dot_device ? NULL : &s->ops;
#endif
    bind_slot(i);
}

static const dotfuzz_plugin *open_plugin(const char *path, char *err, size_t err_len)
{
    /* RTLD_LOCAL: two plugins may each define dotfuzz_plugin_entry */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, err_len, "%s: cannot load: %s", path, e ? e : "dlopen failed");
        return NULL;
    }
    dlerror();
    void *sym = dlsym(h, DOTFUZZ_PLUGIN_ENTRY_SYMBOL);
    if (!sym) {
        snprintf(err, err_len, "%s: not a dotfuzz plugin: no symbol %s", path,
                 DOTFUZZ_PLUGIN_ENTRY_SYMBOL);
        dlclose(h);
        return NULL;
    }
    dotfuzz_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* ISO C has no object-to-function cast */
    const dotfuzz_plugin *pl = entry();
    if (!pl) {
        snprintf(err, err_len, "%s: %s() returned NULL", path, DOTFUZZ_PLUGIN_ENTRY_SYMBOL);
        dlclose(h);
        return NULL;
    }
    return pl; /* h stays open: the kernels live in it */
}

/* Loads, checks and registers path in this process. */
static int load_here(const char *path, char *err, size_t err_len)
{
    const dotfuzz_plugin *pl = open_plugin(path, err, err_len);
    if (!pl || check_plugin(path, pl, err, err_len) != 0)
        return -1;
    size_t first = nslots;
    for (uint32_t i = 0; i < pl->nkernels; i++) {
        dotfuzz_kernel k = kernel_at(pl, i);
        fill_slot(first + i, &k, "plugin", path);
        if (df_registry_add(&slots[first + i].k) != 0) {
            /* checked above; only a full registry gets here */
            snprintf(err, err_len, "%s: kernel '%s': the registry refused it (full)", path,
                     k.name);
            return -1;
        }
        nslots++;
    }
    return 0;
}

/* ---- loading in a worker first ---- */

/* The longest a library may take to load. */
#define LOAD_WATCHDOG_S 60

/* What loading a library in a worker process said. */
typedef struct probe_answer {
    int32_t rc;
    char err[512];
} probe_answer;

static int probe_body(void *ctx, int in, int out, df_heartbeat *hb)
{
    (void)in;
    probe_answer a = {0, ""};
    df_worker_case_begin(hb, 0, 1);
    a.rc = load_here(ctx, a.err, sizeof a.err);
    df_worker_case_end(hb);
    return df_write_all(out, &a, sizeof a) ? DF_LEAVE_FAILED : DF_LEAVE_DONE;
}

/* Loads path in a worker process first: a constructor or an entry point
 * that crashes, exits or hangs ends that process, not this one, and is
 * said in err. Returns 0 when the worker loaded it, else -1. */
static int probe(const char *path, char *err, size_t err_len)
{
    df_worker w;
    if (df_worker_init(&w) != 0 || df_worker_start(&w, 1, 0, probe_body, (void *)path) != 0) {
        snprintf(err, err_len, "%s: cannot start a process to load it: %s", path,
                 strerror(errno));
        df_worker_free(&w);
        return -1;
    }
    probe_answer a;
    int got = 0;
    /* a load that hangs: the watchdog ends it (it is busy from its start) */
    while (!got) {
        struct pollfd pf = {.fd = w.from, .events = POLLIN};
        if (poll(&pf, 1, 100) > 0) {
            got = df_read_full(w.from, &a, sizeof a) == 0 ? 1 : -1;
            break;
        }
        df_worker_watchdog(&w, df_now(), LOAD_WATCHDOG_S);
    }
    df_worker_end end;
    df_worker_reap(&w, &end);
    df_worker_free(&w);
    if (got == 1) {
        a.err[sizeof a.err - 1] = 0;
        if (a.rc != 0)
            snprintf(err, err_len, "%s", a.err);
        return a.rc != 0 ? -1 : 0;
    }
    char how[200];
    df_end_text(&end, LOAD_WATCHDOG_S, how, sizeof how);
    snprintf(err, err_len, "%s: loading it ended the process (%s): its constructor or %s()",
             path, how, DOTFUZZ_PLUGIN_ENTRY_SYMBOL);
    return -1;
}

int df_plugin_load(const char *path, char *err, size_t err_len)
{
    if (probe(path, err, err_len) != 0)
        return -1;
    return load_here(path, err, err_len);
}

int df_plugin_describe(size_t i, char *buf, size_t len)
{
    if (i >= nslots)
        return -1;
    const dotfuzz_kernel *k = &slots[i].pk;
    int at = snprintf(buf, len,
                      "%s %s elem=%u acc=%u flags=0x%x block=%u-%u/%u grid_max=%u "
                      "per_thread=%u max_n=%llu forms=%s%s%s%s%s",
                      slots[i].lib, k->name, k->elem, k->acc, k->flags, k->block_min,
                      k->block_max, k->block_default, k->grid_max, k->per_thread,
                      (unsigned long long)k->max_n, k->dot_host ? "h" : "",
                      k->dot_device ? "d" : "", k->dot_device_batch ? "b" : "",
                      k->host_model ? "m" : "",
                      k->tree_height ? "t" : "");
    const df_fused_model *f = slots[i].k.fused;
    if (f && at >= 0 && (size_t)at < len) /* group/align/out bits/round/exponents/chains */
        snprintf(buf + at, len - (size_t)at, " fused=%u/%d/%d/%s/%d..%d/%d/%u", f->group,
                 f->align_bits, f->out_bits, f->out_round == DF_ROUND_ZERO ? "rz" : "rn",
                 f->out_min_exp, f->out_max_exp, f->in_min_exp,
                 slots[i].k.fused_chains ? slots[i].k.fused_chains : 1u);
    return 0;
}

const struct df_gpu_ops *df_plugin_gpu_ops(size_t i)
{
    return i < nslots ? &slots[i].ops : NULL;
}

int df_plugin_paths_add(df_plugin_paths *p, const char *path)
{
    if (p->n == DF_PLUGIN_PATHS_MAX)
        return -1;
    p->path[p->n++] = path;
    return 0;
}

int df_plugin_load_all(const df_plugin_paths *p, char *err, size_t err_len)
{
    for (size_t i = 0; i < p->n; i++)
        if (df_plugin_load(p->path[i], err, err_len) != 0)
            return -1;
    return 0;
}

int df_load_plugins_cli(const char *cmd, const df_plugin_paths *p)
{
    char err[512];
    if (df_plugin_load_all(p, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "dotfuzz %s: --kernel-lib %s\n", cmd, err);
    return -1;
}

int df_plugin_paths_add_cli(const char *cmd, df_plugin_paths *p, const char *path)
{
    if (df_plugin_paths_add(p, path) == 0)
        return 0;
    fprintf(stderr, "dotfuzz %s: more than %d --kernel-lib\n", cmd, DF_PLUGIN_PATHS_MAX);
    return -1;
}
