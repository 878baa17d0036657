/* backend.c — the host backend (host models on the CPU) and the dispatch to
 * the cuda backend (fuzz/backend/cuda_backend.cu).
 *
 * Guard zones: a host model never reads the case's own buffers. Each case's
 * vectors are copied into a scratch laid out [guard | a | guard | b | guard],
 * every guard DF_GUARD_ELEMS elements of a poison value (NaN for floats,
 * DF_GUARD_I32 for int32), so a model that reads a[-1] or a[n] (a mutant's
 * unguarded tail, an off-by-one) puts the poison into its sum, exactly as the
 * cuda backend's guarded device buffers do for the GPU kernel. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/cuda_backend.h"
#include "fuzz/backend/backend.h"
#include "kernels/blas.h"
#include "fuzz/gen/values.h"
#include "fuzz/pool.h"

_Static_assert(DF_GEN_SETS == DF_CUDA_GEN_SETS, "one set of generation buffers per set of slots");

struct df_backend {
    int is_cuda;
    df_cuda *cuda;        /* when is_cuda */
    int emulate;          /* host: emulates a GPU's lost context (DF_HOST_STICKY_ENV) */
    char sticky[256];     /* emulate: the error that lost it; "" while alive */
    df_model_ctx m;       /* host models' working memory and guarded copies */
    df_model_ctx beside;  /* the same for the model beside a device's run */
    df_pool *pool;        /* df_backend_set_pool's threads, or NULL */
    df_scratch gen[DF_GEN_SETS]; /* host: the generation's and uploads' sets */
    char note[256];
};

static int open_cuda(df_backend *b, char *err, size_t err_len)
{
#ifdef DOTFUZZ_CUDA
    if (df_cuda_open(&b->cuda, err, err_len) != 0)
        return -1;
    b->is_cuda = 1;
    return 0;
#else
    (void)b;
    snprintf(err, err_len, "this dotfuzz was built without CUDA (no nvcc at build time)");
    return -1;
#endif
}

int df_backend_open(const char *name, df_backend **out, char *err,
                    size_t err_len)
{
    df_backend *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    if (strcmp(name, "host") == 0) {
        b->emulate = getenv(DF_HOST_STICKY_ENV) != NULL;
        snprintf(b->note, sizeof b->note, "backend host: host models on the CPU%s",
                 b->emulate ? ", emulating a GPU's sticky errors (" DF_HOST_STICKY_ENV ")"
                            : "");
    } else if (strcmp(name, "cuda") == 0) {
        if (open_cuda(b, err, err_len) != 0) {
            free(b);
            return -1;
        }
    } else if (strcmp(name, "auto") == 0) {
        char why[200];
        if (open_cuda(b, why, sizeof why) != 0)
            snprintf(b->note, sizeof b->note,
                     "backend host (auto: no usable GPU: %s)", why);
    } else {
        snprintf(err, err_len, "unknown backend '%s' (cuda, host or auto)", name);
        free(b);
        return -1;
    }
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        snprintf(b->note, sizeof b->note, "backend cuda: %s",
                 df_cuda_describe(b->cuda));
#endif
    *out = b;
    return 0;
}

void df_backend_close(df_backend *b)
{
    if (!b)
        return;
#ifdef DOTFUZZ_CUDA
    if (b->cuda)
        df_cuda_close(b->cuda);
#endif
    df_model_ctx_free(&b->m);
    df_model_ctx_free(&b->beside);
    for (int g = 0; g < DF_GEN_SETS; g++)
        df_scratch_free(&b->gen[g]);
    free(b);
}

const char *df_backend_name(const df_backend *b)
{
    return b->is_cuda ? "cuda" : "host";
}

const char *df_backend_note(const df_backend *b) { return b->note; }

int df_backend_supports(const df_backend *b, const df_kernel *k)
{
    return b->is_cuda ? k->gpu != NULL : (k->host_run || k->host_model);
}

/* gc = c with a and b moved inside guard zones in m->guarded. Returns 0, or
 * -1 when memory runs out. */
static int guard_case(df_model_ctx *m, const df_case *c, df_case *gc)
{
    size_t es = df_type_size(c->type), g = DF_GUARD_ELEMS;
    *gc = *c;
    if (c->n > (SIZE_MAX / es - 3 * g) / 2)
        return -1;
    size_t n = (size_t)c->n;
    char *p = df_scratch_reserve(&m->guarded, (2 * n + 3 * g) * es);
    if (!p)
        return -1;
    char *a = p + g * es, *bv = a + (n + g) * es;
    df_guard_fill(c->type, p, g);
    df_guard_fill(c->type, a + n * es, g);
    df_guard_fill(c->type, bv + n * es, g);
    if (n) {
        memcpy(a, c->a, n * es);
        memcpy(bv, c->b, n * es);
    }
    gc->a = a;
    gc->b = bv;
    return 0;
}

/* gc = c as a BLAS call gets it (kernels/blas.h): a and b its buffers,
 * each footprint laid out by its increment with guard values in the gaps,
 * between guard zones, in m->guarded; a plain case is the call with
 * increments 1. Returns 0, -1 when memory runs out, or -2 when n_arg and
 * n disagree (the call would read past its buffers). */
static int guard_blas_case(df_model_ctx *m, const df_case *c, df_case *gc)
{
    size_t es = df_type_size(c->type), g = DF_GUARD_ELEMS;
    *gc = *c;
    if (!c->blas.on)
        gc->blas = (df_blas){.on = 1, .inc_a = 1, .inc_b = 1, .n_arg = (int64_t)c->n};
    if (!df_blas_n_agrees(gc->blas.n_arg, c->n))
        return -2;
    uint64_t fa = df_blas_footprint(c->n, gc->blas.inc_a);
    uint64_t fb = df_blas_footprint(c->n, gc->blas.inc_b);
    if (fa > SIZE_MAX / es / 4 || fb > SIZE_MAX / es / 4)
        return -1;
    char *p = df_scratch_reserve(&m->guarded, ((size_t)fa + (size_t)fb + 3 * g) * es);
    if (!p)
        return -1;
    char *a = p + g * es, *bv = a + ((size_t)fa + g) * es;
    df_guard_fill(c->type, p, g);
    df_blas_place(c->type, c->a, c->n, gc->blas.inc_a, a);
    df_guard_fill(c->type, a + (size_t)fa * es, g);
    df_blas_place(c->type, c->b, c->n, gc->blas.inc_b, bv);
    df_guard_fill(c->type, bv + (size_t)fb * es, g);
    gc->a = a;
    gc->b = bv;
    return 0;
}

/* Runs fn (k's host model, or its host_run routine) on a guarded copy of c. */
void df_model_ctx_free(df_model_ctx *m)
{
    df_scratch_free(&m->scratch);
    df_scratch_free(&m->guarded);
}

int df_run_model(df_model_ctx *m, const df_kernel *k, int whole, const df_case *c,
                 df_result *res)
{
    int (*fn)(const df_case *, df_scratch *, df_result *) =
        whole && k->host_run ? k->host_run : k->host_model;
    df_case gc = *c;
    memset(res, 0, sizeof *res);
    /* a model that stays in bounds sees no guard: copying 2^26 floats a
     * vector into one took twice the model's own time; a BLAS kernel sees
     * the call's buffers */
    int g = (k->flags & DF_K_BLAS) ? guard_blas_case(m, c, &gc)
            : !(k->flags & DF_K_MODEL_IN_BOUNDS) ? guard_case(m, c, &gc) : 0;
    if (g != 0) {
        res->status = DF_RUN_ERROR;
        if (g == -2)
            snprintf(res->err, sizeof res->err, "%s host model: BLAS n %lld with %llu "
                     "elements a vector", k->name, (long long)c->blas.n_arg,
                     (unsigned long long)c->n);
        else
            snprintf(res->err, sizeof res->err,
                     "%s host model: out of memory for the guarded copy of n = %llu", k->name,
                     (unsigned long long)c->n);
        return 0;
    }
    int rc = fn(&gc, &m->scratch, res);
    if (rc == DF_MODEL_STICKY && res->status != DF_RUN_OK)
        return 1;
    if (rc != 0 && res->status == DF_RUN_OK) {
        res->status = DF_RUN_ERROR;
        snprintf(res->err, sizeof res->err, "%s host model failed (out of memory?)",
                 k->name);
    }
    return 0;
}

int df_backend_is_host(const df_backend *b) { return !b->is_cuda && !b->emulate; }

/* The host backend emulating a device: the model is the kernel's run,
 * and a sticky error loses the "context" for good. Returns 0 or -1. */
static int emulated_run(df_backend *b, const df_kernel *k, const df_case *c, df_result *res)
{
    if (b->sticky[0]) {
        memset(res, 0, sizeof *res);
        df_result_error(res, k->name, c, "context lost earlier (host emulation)");
        return -1;
    }
    if (df_run_model(&b->m, k, 1, c, res) == 0)
        return 0;
    snprintf(b->sticky, sizeof b->sticky, "%s", res->err);
    return -1;
}

uint64_t df_backend_stage_batch(df_backend *b, const df_kernel *k, const df_case *const *cases,
                                const df_derive *derive, size_t n, df_result *res)
{
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda && df_backend_supports(b, k))
        return df_cuda_stage_batch(b->cuda, k, cases, derive, n, res);
#else
    (void)b;
    (void)k;
    (void)cases;
    (void)derive;
    (void)n;
    (void)res;
#endif
    return 0;
}

void df_backend_part_start(df_backend *b, const df_kernel *k, const df_case *const *cases,
                           const df_derive *derive, size_t n, df_result *res, size_t *done,
                           int *rc, uint64_t ticket)
{
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda && df_backend_supports(b, k)) {
        df_cuda_part_start(b->cuda, k, cases, derive, n, res, done, rc, ticket);
        return;
    }
#endif
    *rc = df_backend_run_batch(b, k, cases, derive, n, res, done, NULL, NULL, ticket);
}

void df_backend_parts_end(df_backend *b)
{
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        df_cuda_parts_end(b->cuda);
#else
    (void)b;
#endif
}

unsigned df_backend_parts_in_flight(const df_backend *b)
{
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        return DF_CUDA_PARTS_IN_FLIGHT;
#else
    (void)b;
#endif
    return 1;
}

int df_backend_run_batch(df_backend *b, const df_kernel *k, const df_case *const *cases,
                         const df_derive *derive, size_t n, df_result *res, size_t *done,
                         void (*meanwhile)(void *ctx), void *ctx, uint64_t ticket)
{
    *done = 0;
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda && df_backend_supports(b, k))
        return df_cuda_run_batch(b->cuda, k, cases, derive, n, res, done, meanwhile, ctx,
                                 ticket);
#else
    (void)ticket;
#endif
    (void)derive; /* the host backend runs each case on its own a */
    if (meanwhile) /* nothing to wait for: first */
        meanwhile(ctx);
    for (size_t i = 0; i < n; i++) {
        if (df_backend_run(b, k, cases[i], &res[i], NULL, NULL) != 0) {
            *done = i + 1;
            return -1;
        }
    }
    *done = n;
    return 0;
}

/* The model beside a device's run of a case, for model match. */
typedef struct beside_job {
    df_backend *b;
    const df_kernel *k;
    const df_case *c;
    df_result *model;
} beside_job;

static void model_beside(void *ctx, size_t i, unsigned w)
{
    (void)i;
    (void)w;
    beside_job *j = ctx;
    df_run_model(&j->b->beside, j->k, 0, j->c, j->model);
}

/* k's run of c on the device (or its emulation). Returns 0, or -1 when the
 * context is lost. */
static int device_run(df_backend *b, const df_kernel *k, const df_case *c, df_result *res)
{
    if (b->emulate)
        return emulated_run(b, k, c, res) != 0 ? -1 : 0;
#ifdef DOTFUZZ_CUDA
    memset(res, 0, sizeof *res);
    if (df_cuda_run(b->cuda, k, c, res) != 0)
        return -1; /* poisoned context: only a new process can go on */
#else
    (void)k;
    (void)c;
    (void)res;
#endif
    return 0;
}

int df_backend_run(df_backend *b, const df_kernel *k, const df_case *c,
                   df_result *res, df_result *model, int *model_ran)
{
    if (model_ran)
        *model_ran = 0;
    if (!df_backend_supports(b, k)) {
        memset(res, 0, sizeof *res);
        res->status = DF_RUN_ERROR;
        snprintf(res->err, sizeof res->err, "kernel %s cannot run on backend %s",
                 k->name, df_backend_name(b));
        return 0;
    }
    if (!b->is_cuda && !b->emulate) {
        df_run_model(&b->m, k, 1, c, res);
        return 0;
    }
    /* a device's run: the model beside it, for model match; a long case's
     * on a thread of the pool while this one stages and runs it (a huge
     * case's model and its staging take seconds each) */
    int beside = model && model_ran && k->host_model && (k->flags & DF_K_DETERMINISTIC);
    beside_job bj = {b, k, c, model};
    int loop = beside && c->n > DF_GEN_CHUNK ? df_pool_begin(b->pool, 1, model_beside, &bj)
                                             : -1;
    int rc = device_run(b, k, c, res);
    if (loop >= 0)
        df_pool_wait(b->pool, loop);
    else if (beside && rc == 0)
        model_beside(&bj, 0, 0);
    if (beside && rc == 0)
        *model_ran = 1;
    return rc;
}

uint64_t df_backend_device_bytes(const df_backend *b)
{
#ifdef DOTFUZZ_CUDA
    if (b->cuda)
        return df_cuda_mem_total(b->cuda);
#else
    (void)b;
#endif
    return 0;
}

void df_backend_set_pool(df_backend *b, struct df_pool *pool)
{
    b->pool = pool;
#ifdef DOTFUZZ_CUDA
    if (b->cuda)
        df_cuda_set_pool(b->cuda, pool);
#endif
}

int df_backend_batch_times(df_backend *b, double *out)
{
    if (!b->is_cuda)
        return -1;
    df_cuda_batch_times(b->cuda, out);
    return 0;
}

size_t df_devgen_layout(df_devgen_case *cs, size_t m)
{
    size_t bytes = 0;
    for (size_t j = 0; j < m; j++) {
        cs[j].off = bytes;
        bytes += (2 * (size_t)cs[j].n * df_type_size((df_type)cs[j].type) + 15) / 16 * 16;
    }
    return bytes;
}

int df_backend_gen_start(df_backend *b, int set, const df_devgen_case *cs, size_t m,
                         size_t bytes, void **out, char *err, size_t err_len)
{
    if (set < 0 || set >= DF_GEN_SETS) {
        snprintf(err, err_len, "no generation set %d", set);
        return -1;
    }
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        return df_cuda_gen_start(b->cuda, set, cs, m, bytes, out, err, err_len);
#endif
    /* the host's stand-in: the same bytes, made now on this thread */
    unsigned char *p = df_scratch_reserve(&b->gen[set], bytes ? bytes : 1);
    if (!p) {
        snprintf(err, err_len, "out of memory for %zu bytes of cases", bytes);
        return -1;
    }
    for (size_t j = 0; j < m; j++) {
        df_pcg32 r = cs[j].rng;
        size_t na = (size_t)cs[j].n * df_type_size((df_type)cs[j].type);
        (void)df_fill_values(cs[j].family, &r, (df_type)cs[j].type, p + cs[j].off,
                             p + cs[j].off + na, cs[j].n);
    }
    *out = p;
    return 0;
}

void *df_backend_upload_reserve(df_backend *b, int set, size_t bytes, size_t *cap, char *err,
                                size_t err_len)
{
    if (set < 0 || set >= DF_GEN_SETS) {
        snprintf(err, err_len, "no upload set %d", set);
        return NULL;
    }
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        return df_cuda_upload_reserve(b->cuda, set, bytes, cap, err, err_len);
#endif
    /* the host's stand-in: the set's memory, which nothing copies */
    void *p = df_scratch_reserve(&b->gen[set], bytes ? bytes : 1);
    if (!p) {
        snprintf(err, err_len, "out of memory for %zu bytes of vectors", bytes);
        return NULL;
    }
    *cap = b->gen[set].cap;
    return p;
}

int df_backend_upload_start(df_backend *b, int set, size_t bytes, char *err, size_t err_len)
{
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        return df_cuda_upload_start(b->cuda, set, bytes, err, err_len);
#endif
    (void)b;
    (void)set;
    (void)bytes;
    (void)err;
    (void)err_len;
    return 0;
}

int df_backend_gen_wait(df_backend *b, int set)
{
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        return df_cuda_gen_wait(b->cuda, set);
#endif
    (void)b;
    (void)set;
    return 0;
}

int df_backend_gen_landed(df_backend *b, int set)
{
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        return df_cuda_gen_landed(b->cuda, set);
#endif
    (void)b;
    (void)set;
    return 1;
}

int df_backend_devgen(df_backend *b, const df_devgen_case *cs, size_t m, size_t bytes,
                      void *out, double *ms, char *err, size_t err_len)
{
#ifdef DOTFUZZ_CUDA
    if (b->is_cuda)
        return df_cuda_devgen(b->cuda, cs, m, bytes, out, ms, err, err_len);
#else
    (void)cs, (void)m, (void)bytes, (void)out, (void)ms;
#endif
    snprintf(err, err_len, "generation on the GPU needs the cuda backend (this is %s)",
             df_backend_name(b));
    return -1;
}

void df_backend_set_debug_invariants(df_backend *b, int on)
{
#ifdef DOTFUZZ_CUDA
    if (b->cuda)
        df_cuda_set_debug_invariants(b->cuda, on);
#else
    (void)b;
    (void)on;
#endif
}

df_outcome df_backend_open_said(const char *cmd, const char *name, df_backend **out)
{
    char err[256];
    if (df_backend_open(name, out, err, sizeof err) == 0)
        return DF_OUTCOME_CLEAN;
    fprintf(stderr, "dotfuzz %s: %s\n", cmd, err);
    return strncmp(err, "unknown backend", 15) == 0 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
}
