/* test_model_bounds.c — the host models that df_run_model runs on a case's
 * own vectors, without the guarded copy (DF_K_MODEL_IN_BOUNDS), read
 * nothing outside a[0..n) and b[0..n): each vector is placed against an
 * unmapped page, after its last element and then before its first, on
 * every family, type, offset and launch the generator draws, and the
 * model's result is the guarded run's bit for bit. A model that reads past
 * the end (m-read-past-end's) dies there, which shows that the fence
 * catches one. CPU only. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/backend/backend.h"
#include "fuzz/gen/generator.h"
#include "kernels/kernel.h"

/* A mapping of len bytes whose first and last pages are unmapped. */
typedef struct fence {
    char *base;
    size_t len, page;
} fence;

/* bytes placed against the fence after them (at_end) or before them. */
static void *fenced(fence *f, const void *src, size_t bytes, int at_end)
{
    f->page = (size_t)sysconf(_SC_PAGESIZE);
    size_t inner = (bytes + f->page - 1) / f->page * f->page;
    f->len = inner + 2 * f->page;
    f->base = mmap(NULL, f->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(f->base, MAP_FAILED);
    cr_assert_eq(mprotect(f->base, f->page, PROT_NONE), 0);
    cr_assert_eq(mprotect(f->base + f->page + inner, f->page, PROT_NONE), 0);
    char *p = at_end ? f->base + f->page + inner - bytes : f->base + f->page;
    memcpy(p, src, bytes);
    return p;
}

static void unfence(fence *f) { munmap(f->base, f->len); }

/* k's host model on c with both vectors fenced (after them, or before) */
static df_result fenced_model(const df_kernel *k, const df_case *c, int at_end,
                              df_scratch *scratch)
{
    size_t bytes = (size_t)c->n * df_type_size(c->type);
    fence fa, fb;
    df_case fc = *c;
    fc.a = fenced(&fa, c->a, bytes, at_end);
    fc.b = fenced(&fb, c->b, bytes, at_end);
    df_result r;
    memset(&r, 0, sizeof r);
    (void)k->host_model(&fc, scratch, &r);
    unfence(&fa);
    unfence(&fb);
    return r;
}

static int same_result(const df_result *x, const df_result *y)
{
    return memcmp(&x->f, &y->f, sizeof x->f) == 0 && x->i == y->i &&
           x->status == y->status && x->soft_mask == y->soft_mask &&
           memcmp(x->soft, y->soft, sizeof x->soft) == 0;
}

/* Runs k's model on `cases` cases of seed 11 (n up to max_n; every 16th
 * case n = long_n) fenced both ways, in a child process. Returns its wait
 * status: exit 0 when every result is the guarded one's, 1 when one
 * differs, a signal when the model read outside the vectors. */
static int fenced_run(const df_kernel *k, unsigned cases, uint64_t max_n, uint64_t long_n)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        df_scratch buf = {0}, scratch = {0};
        df_model_ctx m = {0};
        for (unsigned i = 0; i < cases; i++) {
            df_gen_opts o = {.max_n = max_n, .fixed_n = i % 16 == 15 ? long_n : 0};
            df_case c;
            if (df_generate(11, i, k, &o, &buf, &c) != 0)
                _exit(2);
            /* the guarded run: k as df_run_model treats an unflagged model */
            df_kernel guarded = *k;
            guarded.flags &= ~(unsigned)DF_K_MODEL_IN_BOUNDS;
            df_result want;
            (void)df_run_model(&m, &guarded, 0, &c, &want);
            for (int at_end = 1; at_end >= 0; at_end--) {
                df_result got = fenced_model(k, &c, at_end, &scratch);
                if (!same_result(&got, &want)) {
                    fprintf(stderr, "%s case %u n=%llu: fenced %s differs\n", k->name, i,
                            (unsigned long long)c.n, at_end ? "after" : "before");
                    _exit(1);
                }
            }
        }
        _exit(0);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return st;
}

static void each_flagged(const df_kernel *(*at)(size_t), size_t count, unsigned *seen)
{
    for (size_t i = 0; i < count; i++) {
        const df_kernel *k = at(i);
        if (!(k->flags & DF_K_MODEL_IN_BOUNDS))
            continue;
        cr_assert_not_null(k->host_model, "%s is flagged in bounds with no model", k->name);
        int st = fenced_run(k, 400, 3000, 70000);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "%s's model, fenced: %s %d", k->name,
                  WIFSIGNALED(st) ? "killed by signal" : "exit", WIFSIGNALED(st)
                                                             ? WTERMSIG(st)
                                                             : WEXITSTATUS(st));
        ++*seen;
    }
}

Test(model_bounds, flagged_models_read_only_their_vectors, .timeout = 300)
{
    unsigned seen = 0;
    each_flagged(df_kernel_at, df_kernel_count(), &seen);
    each_flagged(df_mutant_at, df_mutant_count(), &seen);
    /* the deterministic kernels' models, which the cuda path runs beside
     * every case, are the ones that must not copy */
    const char *must[] = {"shfl", "shfl-f64acc", "shfl-f64", "fold", "tournament",
                          "tree-hostsum", "int-atomic"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        cr_assert(df_kernel_find(must[i])->flags & DF_K_MODEL_IN_BOUNDS, "%s", must[i]);
    cr_assert_geq(seen, 7);
}

/* The fence catches a model that reads past the end, so the test above can
 * fail: m-read-past-end's model reads a[n] on every case. */
Test(model_bounds, a_model_reading_past_the_end_dies_on_the_fence)
{
    const df_kernel *k = df_kernel_find("m-read-past-end");
    cr_assert_not_null(k);
    cr_assert_not(k->flags & DF_K_MODEL_IN_BOUNDS);
    int st = fenced_run(k, 4, 3000, 70000);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "status %d", st);
}
