/* lowp_cost.c — what a low-precision case costs the CPU, one thread: the
 * host model of each low-precision kernel that has one, and the
 * references (df_refs_compute_many on 64 cases at a time, as a run's
 * slots are referenced) of each low-precision type, and of f32 beside
 * them, over the cases a default run draws (seed 1, every family of the
 * type, n up to 65,536). Each row: the cases' thread
 * CPU time per case and per element, best of three passes over the same
 * cases (made once, before anything is timed), and an FNV-1a hash of what
 * came out, so two builds are compared on the same answers.
 * Build: make lowp-cost (build/tools/lowp-cost).
 * Usage: lowp-cost [CASES] (default 2000 a row).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/backend/backend.h"
#include "fuzz/gen/generator.h"
#include "reference/reference.h"

enum { PASSES = 3, BATCH = 64 /* a run's slots referenced together (DF_PREP_GROUP) */ };

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ c[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* The fields of r that carry answers (no padding hashed). */
static uint64_t hash_refs(uint64_t h, const df_refs *r)
{
    const double d[] = {r->exact_hi, r->exact_lo, r->kahan, r->kahan_err, r->G,
                        r->inf_want,  r->fin_g,    r->max_abs_a, r->max_abs_b};
    const int f[] = {r->exact_known, r->exact_is_int, r->fp_known, r->all_integer,
                     r->has_nonfinite, r->has_nan, r->fp.kind};
    h = fnv(h, d, sizeof d);
    h = fnv(h, f, sizeof f);
    return fnv(h, &r->fp.hi, sizeof r->fp.hi);
}

/* m cases of k (seed 1, every family of its type, n up to 65,536). */
static df_case *make_cases(const df_kernel *k, size_t m, df_scratch *buf, uint64_t *elems)
{
    df_case *cs = calloc(m, sizeof *cs);
    df_gen_opts go = {.max_n = 65536};
    *elems = 0;
    for (size_t i = 0; cs && i < m; i++) {
        if (df_generate(1, i, k, &go, &buf[i], &cs[i]) != 0) {
            fprintf(stderr, "lowp-cost: %s case %zu not generated\n", k->name, i);
            exit(1);
        }
        *elems += cs[i].n;
    }
    return cs;
}

static void row(const char *what, const char *name, double secs, size_t m, uint64_t elems,
                uint64_t h)
{
    printf("%-7s %-20s %9.1f us/case %7.2f ns/elem  hash %016llx\n", what, name,
           secs / (double)m * 1e6, secs / (double)elems * 1e9, (unsigned long long)h);
}

int main(int argc, char **argv)
{
    size_t m = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 2000;
    static const char *const models[] = {"mma-f16", "mma-bf16", "wgmma-e4m3",
                                         "wgmma-e4m3-promoted", "half2-f16"};
    /* a kernel of each type for its references' cases; e5m2 has none
     * registered, so mma-f16's descriptor with e5m2 data stands in */
    df_kernel e5m2 = *df_kernel_find("mma-f16");
    e5m2.elem = DF_E5M2;
    const df_kernel *refk[] = {df_kernel_find("mma-f16"), df_kernel_find("mma-bf16"),
                               df_kernel_find("wgmma-e4m3"), &e5m2, df_kernel_find("shfl")};
    df_scratch *buf = calloc(m, sizeof *buf);
    df_refs *refs = calloc(m, sizeof *refs);
    if (!buf || !refs)
        return 1;
    printf("lowp-cost: %zu cases a row, seed 1, n <= 65536, thread CPU time, best of %d\n", m,
           PASSES);
    for (size_t r = 0; r < sizeof refk / sizeof refk[0]; r++) {
        uint64_t elems, h = 0;
        df_case *cs = make_cases(refk[r], m, buf, &elems);
        double best = 1e300;
        for (int p = 0; p < PASSES; p++) {
            double t0 = cpu_now();
            for (size_t i = 0; i < m; i += BATCH) {
                df_refs_job j[BATCH];
                size_t k = m - i < BATCH ? m - i : BATCH;
                for (size_t q = 0; q < k; q++)
                    j[q] = (df_refs_job){cs[i + q].type, cs[i + q].a, cs[i + q].b, cs[i + q].n,
                                         &refs[i + q]};
                df_refs_compute_many(j, k);
            }
            double t = cpu_now() - t0;
            best = t < best ? t : best;
        }
        h = UINT64_C(0xcbf29ce484222325);
        for (size_t i = 0; i < m; i++)
            h = hash_refs(h, &refs[i]);
        row("refs", df_type_name(refk[r]->elem), best, m, elems, h);
        free(cs);
    }
    for (size_t q = 0; q < sizeof models / sizeof models[0]; q++) {
        const df_kernel *k = df_kernel_find(models[q]);
        uint64_t elems, h = UINT64_C(0xcbf29ce484222325);
        df_case *cs = make_cases(k, m, buf, &elems);
        df_model_ctx mc;
        memset(&mc, 0, sizeof mc);
        double best = 1e300;
        for (int p = 0; p < PASSES; p++) {
            double t0 = cpu_now();
            for (size_t i = 0; i < m; i++) {
                df_result res;
                df_run_model(&mc, k, 1, &cs[i], &res);
                if (p == 0)
                    h = fnv(h, &res.f, sizeof res.f);
            }
            double t = cpu_now() - t0;
            best = t < best ? t : best;
        }
        row("model", k->name, best, m, elems, h);
        df_model_ctx_free(&mc);
        free(cs);
    }
    for (size_t i = 0; i < m; i++)
        df_scratch_free(&buf[i]);
    free(buf);
    free(refs);
    return 0;
}
