/* host_helpers.h — what the host-kernel tests (test_mutants.c,
 * test_precision_mutants.c, test_f16_acc.c, test_tf32.c, test_half2.c)
 * share: a registered kernel by name, the host backend, one case through a
 * kernel on it (inside guard zones), and the bugs among a seed's cases. */
#ifndef DOTFUZZ_TEST_HOST_HELPERS_H
#define DOTFUZZ_TEST_HOST_HELPERS_H

#include <criterion/criterion.h>
#include <string.h>

#include "fuzz/backend/backend.h"
#include "fuzz/check/check.h"
#include "fuzz/gen/generator.h"
#include "kernels/kernel.h"

static inline const df_kernel *df_test_find(const char *name)
{
    const df_kernel *k = df_kernel_find(name);
    cr_assert_not_null(k, "%s is not registered", name);
    return k;
}

static inline df_backend *df_test_open_host(void)
{
    df_backend *b = NULL;
    char err[256];
    cr_assert_eq(df_backend_open("host", &b, err, sizeof err), 0, "%s", err);
    return b;
}

/* k on the host backend, block threads a block, the rest of the launch
 * derived; the run must succeed. */
static inline df_result df_test_run_host(const df_kernel *k, df_type t, const void *a,
                                         const void *b, uint64_t n, uint32_t block)
{
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = t;
    c.n = n;
    c.a = a;
    c.b = b;
    c.launch.block = block;
    cr_assert_eq(df_launch_resolve(k, n, &c.launch, NULL, 0), 0);
    df_backend *be = df_test_open_host();
    df_result r;
    cr_assert_eq(df_backend_run(be, k, &c, &r, NULL, NULL), 0);
    df_backend_close(be);
    cr_assert_eq(r.status, DF_RUN_OK, "%s: %s", k->name, r.err);
    return r;
}

/* The bug verdicts among cases 0..cases-1 of seed (family, or with 0
 * every family of k's type; n up to max_n) judged on k on the host
 * backend; *first the 1-based index of the first, 0 when none. */
static inline unsigned df_test_bugs_in(const df_kernel *k, uint64_t seed, uint32_t family,
                                       uint64_t cases, uint64_t max_n, uint64_t *first)
{
    df_backend *b = df_test_open_host();
    df_gen_opts go = {.max_n = max_n, .family = family};
    df_oracle_opts oo = {.tol = 1e-6};
    df_scratch buf = {0};
    unsigned bugs = 0;
    *first = 0;
    for (uint64_t i = 0; i < cases; i++) {
        df_case c;
        df_checked r;
        cr_assert_eq(df_generate(seed, i, k, &go, &buf, &c), 0);
        cr_assert_eq(df_check_case(b, k, &c, &oo, &r), 0);
        if (r.j.verdict == DF_V_BUG && bugs++ == 0)
            *first = i + 1;
    }
    df_scratch_free(&buf);
    df_backend_close(b);
    return bugs;
}

/* The same over every family of k's type. */
static inline unsigned df_test_bugs_of(const df_kernel *k, uint64_t seed, uint64_t cases,
                                       uint64_t max_n, uint64_t *first)
{
    return df_test_bugs_in(k, seed, 0, cases, max_n, first);
}

/* Asserts that none of the named kernels has a bug verdict among cases
 * 0..cases-1 of seed (as df_test_bugs_of). */
static inline void df_test_never_a_bug(const char *const *names, size_t count, uint64_t seed,
                                       uint64_t cases, uint64_t max_n)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t first;
        unsigned bugs = df_test_bugs_of(df_test_find(names[i]), seed, cases, max_n, &first);
        cr_assert_eq(bugs, 0, "%s: %u bug(s), the first at case %llu", names[i], bugs,
                     (unsigned long long)first);
    }
}

/* Asserts that k has a bug verdict among cases 0..cases-1 of each seed
 * 1..seeds (as df_test_bugs_of), the first at case `within` or sooner. */
static inline void df_test_caught_early(const df_kernel *k, uint64_t seeds, uint64_t cases,
                                        uint64_t max_n, uint64_t within)
{
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        uint64_t first;
        unsigned bugs = df_test_bugs_of(k, seed, cases, max_n, &first);
        cr_assert_gt(bugs, 0, "%s seed %llu: not caught in %llu cases", k->name,
                     (unsigned long long)seed, (unsigned long long)cases);
        cr_assert_leq(first, within, "%s seed %llu: first caught at case %llu", k->name,
                      (unsigned long long)seed, (unsigned long long)first);
    }
}

#endif
