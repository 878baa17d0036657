/* target.c — the libFuzzer target: one input is one dotfuzz case file (the
 * same bytes), judged as `dotfuzz replay` judges it. A `bug` verdict aborts
 * after one line on stderr, so libFuzzer saves crash-<sha1>, which `dotfuzz
 * replay` reproduces. After each judgement one of libFuzzer's extra
 * counters is set for (kernel, error-ratio bucket, condition bucket,
 * verdict), so an input that reaches a new error regime counts as new
 * coverage even when it runs no new code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/check/check.h"
#include "libfuzzer/lf_common.h"

/* libFuzzer (FuzzerExtraCounters.cpp) reads the bytes between
 * __start___libfuzzer_extra_counters and __stop___libfuzzer_extra_counters,
 * clears them word by word before each run and turns each nonzero byte into
 * features after it. A multiple of 8 bytes, aligned, kept by the linker. */
#define DF_LF_COUNTERS DF_BUCKETS
__attribute__((section("__libfuzzer_extra_counters"), used, aligned(64)))
static uint8_t df_lf_counters[DF_LF_COUNTERS];

static df_backend *backend; /* opened on the first input, kept */

static df_backend *lf_backend(void)
{
    if (backend)
        return backend;
    const char *name = getenv("DOTFUZZ_BACKEND");
    char err[200];
    if (!name || strcmp(name, "cuda") != 0)
        name = "host";
    if (df_backend_open(name, &backend, err, sizeof err) != 0) {
        /* No input can be judged: stopping beats reporting every input as
         * uninteresting. */
        fprintf(stderr, "dotfuzz-fuzz: backend %s: %s\n", name, err);
        abort();
    }
    return backend;
}

static void bump_counter(const df_kernel *k, const df_judgement *j)
{
    uint8_t *c = &df_lf_counters[df_error_bucket(k, j) % DF_LF_COUNTERS];
    if (*c < 255)
        (*c)++;
}

/* An int32-accumulator kernel given data whose exact dot does not fit
 * int32: the oracle's overflow rule calls that a bug (the kernel cannot
 * hold its answer), but it is the known limit of the kernel's domain, which
 * the generator stays inside; the mutator leaves it at once, so reporting
 * it would stop every run at the first such case. DOTFUZZ_LF_INT_OVERFLOW=1
 * reports it as the oracle judges it. The rule is decided from the exact
 * value alone, before any result is compared, so this hides no wrong
 * answer inside the domain (wrapping int32 arithmetic is exact there). */
static int out_of_domain(const df_kernel *k, const df_judgement *j)
{
    static int report = -1;
    if (report < 0) {
        const char *e = getenv("DOTFUZZ_LF_INT_OVERFLOW");
        report = e && strcmp(e, "1") == 0;
    }
    return !report && j->is_int && !(k->flags & DF_K_ACC_WIDE) && j->rule &&
           strcmp(j->rule, "overflow") == 0;
}

/* Runs src on k; 1 when it ran, 0 when k cannot take it. */
static int run_on(const df_kernel *k, const df_case *src, const df_refs *refs)
{
    df_backend *b = lf_backend();
    df_case c;
    if (!df_backend_supports(b, k) || df_launch_for(k, src, &c, NULL, 0) != 0)
        return 0;
    df_oracle_opts oo = {.tol = 1e-6};
    df_checked r;
    if (df_check_case_refs(b, k, &c, refs, &oo, &r) != 0) {
        fprintf(stderr, "dotfuzz-fuzz: backend unusable on %s: %s\n", k->name,
                r.res.err);
        abort();
    }
    bump_counter(k, &r.j);
    if (r.j.verdict == DF_V_BUG && !out_of_domain(k, &r.j)) {
        fprintf(stderr, "dotfuzz-fuzz: bug: kernel %s rule %s n=%llu block=%u grid=%u: %s\n",
                k->name, r.j.rule ? r.j.rule : "?", (unsigned long long)c.n,
                c.launch.block, c.launch.grid, r.j.why);
        abort();
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > DF_LF_MAX_INPUT)
        return -1;
    df_case_file f;
    char msg[300];
    if (df_corpus_decode(data, size, &f, msg, sizeof msg) != DF_CORPUS_OK)
        return -1;
    if (f.c.launch.offset_a > DF_LF_MAX_OFFSET || f.c.launch.offset_b > DF_LF_MAX_OFFSET) {
        df_case_file_free(&f);
        return -1;
    }
    df_refs refs;
    df_refs_compute(f.c.type, f.c.a, f.c.b, f.c.n, &refs);
    int ran = 0;
    const df_kernel *forced = df_lf_forced_kernel();
    if (forced) {
        /* only inputs that name the forced kernel (the mutator writes its
         * name): a crash artifact must replay on the kernel it failed on */
        ran = strcmp(f.c.kernel, forced->name) == 0 && run_on(forced, &f.c, &refs);
    } else if (f.c.kernel[0]) {
        ran = run_on(df_kernel_find(f.c.kernel), &f.c, &refs);
    } else {
        const df_kernel *k;
        for (size_t i = 0; (k = df_lf_kernel_of_type(f.c.type, i)) != NULL; i++)
            ran += run_on(k, &f.c, &refs);
    }
    df_case_file_free(&f);
    return ran ? 0 : -1;
}
