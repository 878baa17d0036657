/* host_helpers.h — what the mutant tests (test_mutants.c,
 * test_precision_mutants.c) share: a registered kernel by name, the host
 * backend, and one case through a kernel on it (inside guard zones). */
#ifndef DOTFUZZ_TEST_HOST_HELPERS_H
#define DOTFUZZ_TEST_HOST_HELPERS_H

#include <criterion/criterion.h>
#include <string.h>

#include "fuzz/backend/backend.h"
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

#endif
