/* test_sandbox.c — the sandbox's room (fuzz/run/room.h): a case
 * df_sandbox_generate makes there is df_generate's, bytes and all, and the
 * worker, reading it where it lies, judges it as it judges the same case
 * sent through the pipe: short cases and long ones (made and referenced on
 * every usable CPU), under hunt's metamorphic and schedule sampling; a long
 * case's model made beside its run on the worker's threads; a long case
 * whose worker dies referenced on the command's. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/backend.h"
#include "fuzz/gen/generator.h"
#include "fuzz/run/sandbox.h"

/* Same bits (two NaNs of any payload alike). */
static int same(double x, double y)
{
    return (x != x && y != y) || memcmp(&x, &y, sizeof x) == 0;
}

Test(sandbox, a_case_made_in_the_room_is_judged_as_one_sent, .timeout = 120)
{
    static const char *const names[] = {"shfl", "shfl-f64", "int-atomic", "m-tail", "m-idx32"};
    df_sandbox *sb = NULL;
    cr_assert_eq(df_sandbox_open("test", "host", 0, 0, &sb), DF_OUTCOME_CLEAN);
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts mo = {.every = 16, .reruns = 2, .schedule = 1}; /* hunt's */
    df_scratch own = {0}, spare = {0};
    int long_ones = 0;
    for (size_t ki = 0; ki < sizeof names / sizeof names[0]; ki++) {
        const df_kernel *k = df_kernel_find(names[ki]);
        cr_assert_not_null(k, "%s", names[ki]);
        for (uint64_t i = 0; i < 6; i++) {
            df_gen_opts go = {.max_n = 4096, .fixed_n = i % 2 ? 5 * DF_GEN_CHUNK + 17 : 0};
            df_case sent, made;
            cr_assert_eq(df_generate(7, i, k, &go, &own, &sent), 0);
            cr_assert_eq(df_sandbox_generate(sb, 7, i, k, &go, &spare, &made), 0);
            cr_assert_null(spare.p, "the case is made in the room, not in buf");
            size_t bytes = (size_t)sent.n * df_type_size(sent.type);
            cr_assert(made.n == sent.n && made.family == sent.family &&
                          memcmp(&made.launch, &sent.launch, sizeof made.launch) == 0 &&
                          memcmp(made.a, sent.a, bytes) == 0 &&
                          memcmp(made.b, sent.b, bytes) == 0,
                      "%s case %llu: not df_generate's", k->name, (unsigned long long)i);
            long_ones += sent.n > DF_GEN_CHUNK;
            df_checked rs, rm;
            cr_assert_eq(df_sandbox_check(sb, k, &sent, &oo, &mo, &rs), 0);
            cr_assert_eq(df_sandbox_check(sb, k, &made, &oo, &mo, &rm), 0);
            cr_assert(rs.j.verdict == rm.j.verdict && strcmp(rs.j.rule, rm.j.rule) == 0 &&
                          strcmp(rs.j.why, rm.j.why) == 0,
                      "%s case %llu: %s (%s) sent, %s (%s) made", k->name,
                      (unsigned long long)i, rs.j.rule, rs.j.why, rm.j.rule, rm.j.why);
            cr_assert(same(rs.j.result, rm.j.result) && rs.j.iresult == rm.j.iresult &&
                          same(rs.refs.kahan, rm.refs.kahan) &&
                          same(rs.refs.exact_hi, rm.refs.exact_hi) &&
                          same(rs.refs.exact_lo, rm.refs.exact_lo) && same(rs.refs.G, rm.refs.G),
                      "%s case %llu: results or references differ", k->name,
                      (unsigned long long)i);
        }
    }
    cr_assert_eq(long_ones, 15);
    df_scratch_free(&own);
    df_sandbox_close(sb);
}

/* Under the host's emulation of a device (DF_HOST_STICKY_ENV), the worker
 * runs a deterministic kernel's model beside the run, and a long case's on
 * a thread of its pool: the model one thread makes, and the verdict of
 * the case without it. */
Test(sandbox, a_long_cases_model_beside_its_run_is_the_models, .timeout = 60)
{
    setenv(DF_HOST_STICKY_ENV, "1", 1);
    df_sandbox *sb = NULL;
    cr_assert_eq(df_sandbox_open("test", "host", 0, 0, &sb), DF_OUTCOME_CLEAN);
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts none = {0};
    df_scratch spare = {0};
    df_model_ctx m = {0};
    static const char *const names[] = {"shfl", "tree-hostsum", "m-idx32"};
    for (size_t ki = 0; ki < sizeof names / sizeof names[0]; ki++) {
        const df_kernel *k = df_kernel_find(names[ki]);
        cr_assert(k && (k->flags & DF_K_DETERMINISTIC) && k->host_model, "%s", names[ki]);
        df_gen_opts go = {.max_n = 4096, .fixed_n = 3 * DF_GEN_CHUNK + 5};
        df_case c;
        df_checked r;
        df_result want;
        cr_assert_eq(df_sandbox_generate(sb, 3, ki, k, &go, &spare, &c), 0);
        cr_assert_eq(df_sandbox_check(sb, k, &c, &oo, &none, &r), 0);
        cr_assert_eq(df_run_model(&m, k, 0, &c, &want), 0);
        cr_assert(r.model_ran && r.model.status == DF_RUN_OK && same(r.model.f, want.f) &&
                      r.model.i == want.i,
                  "%s: the model beside the run: %a, alone %a", k->name, r.model.f, want.f);
        cr_assert_neq(r.j.verdict, DF_V_BUG, "%s: %s (%s)", k->name, r.j.rule, r.j.why);
    }
    df_model_ctx_free(&m);
    df_sandbox_close(sb);
}

/* A long case made in the room whose kernel kills its worker (m-wild-read
 * at n % 509 == 300) is judged a crash, its references made on the
 * command's threads those of the case; the next case gets a new worker. */
Test(sandbox, a_long_case_whose_worker_dies_keeps_its_references, .timeout = 60)
{
    df_sandbox *sb = NULL;
    cr_assert_eq(df_sandbox_open("test", "host", 0, 0, &sb), DF_OUTCOME_CLEAN);
    const df_kernel *k = df_kernel_find("m-wild-read");
    cr_assert_not_null(k);
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts none = {0};
    df_scratch spare = {0};
    df_gen_opts go = {.max_n = 4096, .fixed_n = 509 * 200 + 300};
    df_case c;
    df_checked r;
    df_refs want;
    for (uint64_t i = 0; i < 2; i++) {
        cr_assert_eq(df_sandbox_generate(sb, 5, i, k, &go, &spare, &c), 0);
        cr_assert_eq(df_sandbox_check(sb, k, &c, &oo, &none, &r), 0);
        df_refs_compute(c.type, c.a, c.b, c.n, &want);
        cr_assert(r.j.verdict == DF_V_BUG && strcmp(r.j.rule, "crash") == 0, "%s: %s",
                  r.j.rule, r.j.why);
        cr_assert(same(r.refs.kahan, want.kahan) && same(r.refs.G, want.G) &&
                      same(r.refs.exact_hi, want.exact_hi) &&
                      same(r.refs.exact_lo, want.exact_lo) &&
                      r.refs.has_nonfinite == want.has_nonfinite,
                  "case %llu: the references of a crashed case", (unsigned long long)i);
    }
    df_sandbox_close(sb);
}
