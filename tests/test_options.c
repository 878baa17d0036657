/* test_options.c — options mean what they say: numbers are decimal only,
 * `dotfuzz help CMD` is CMD's help, thread counts follow the CPUs the
 * process may use. Runs ./dotfuzz from the repository root on the host
 * backend. */
#include <criterion/criterion.h>
#include <sched.h>
#include <unistd.h>

#include "../fuzz/cli_util.h"
#include "../fuzz/pool.h"
#include "cli_helpers.h"

#define OUT_MAX (1 << 16)
static char out[OUT_MAX];
#define sh(...) df_test_sh(out, OUT_MAX, __VA_ARGS__)

Test(options, numbers_are_decimal_only)
{
    uint64_t u;
    cr_assert_eq(df_parse_u64("010", &u), 0);
    cr_assert_eq(u, 10, "a leading zero is not octal");
    cr_assert_eq(df_parse_u64("64k", &u), 0);
    cr_assert_eq(u, 65536);
    const char *bad_u[] = {"0x10", " 5", "-5", "+5", "5 ", "", "1e3", "5kk"};
    for (size_t i = 0; i < sizeof bad_u / sizeof bad_u[0]; i++)
        cr_assert_neq(df_parse_u64(bad_u[i], &u), 0, "'%s' accepted", bad_u[i]);
    double d;
    cr_assert_eq(df_parse_double("1e-6", &d), 0);
    cr_assert_eq(d, 1e-6);
    cr_assert_eq(df_parse_double("-2.5", &d), 0);
    const char *bad_d[] = {"0x1p-3", " 1", "inf", "nan", "1e", "1.2.3", "1e5e", ""};
    for (size_t i = 0; i < sizeof bad_d / sizeof bad_d[0]; i++)
        cr_assert_neq(df_parse_double(bad_d[i], &d), 0, "'%s' accepted", bad_d[i]);
    cr_assert_eq(df_parse_duration("1.5m", &d), 0);
    cr_assert_eq(d, 90);
    const char *bad_t[] = {"-1", "0x5", " 5", "5x", "5ss", "s"};
    for (size_t i = 0; i < sizeof bad_t / sizeof bad_t[0]; i++)
        cr_assert_neq(df_parse_duration(bad_t[i], &d), 0, "'%s' accepted", bad_t[i]);
}

Test(options, the_cli_refuses_what_is_not_decimal)
{
    cr_assert_eq(sh("./dotfuzz run --backend host --seed 010 --cases 1"), 0, "%s", out);
    cr_assert(strstr(out, "seed 10,"), "%s", out);
    cr_assert_eq(sh("./dotfuzz run --backend host --seed ' -5' --cases 1"), 2);
    cr_assert(strstr(out, "invalid value ' -5' for --seed"), "%s", out);
    cr_assert_eq(sh("./dotfuzz run --backend host --seed 0x10 --cases 1"), 2);
    cr_assert_eq(sh("./dotfuzz run --backend host --tol 0x1p-3 --cases 1"), 2);
    cr_assert_eq(sh("./dotfuzz replay --tol ' 1' corpus/regression"), 2);
}

Test(options, help_cmd_is_the_commands_help)
{
    const char *cmds[] = {"run", "replay", "smoke", "minimize", "merge", "hunt", "list",
                          "report", "import", "bench"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char direct[OUT_MAX];
        cr_assert_eq(df_test_sh(direct, OUT_MAX, "./dotfuzz %s --help", cmds[i]), 0);
        cr_assert_eq(sh("./dotfuzz help %s", cmds[i]), 0, "help %s: %s", cmds[i], out);
        cr_assert_str_eq(out, direct, "dotfuzz help %s", cmds[i]);
    }
    cr_assert_eq(sh("./dotfuzz help no-such"), 2);
    cr_assert(strstr(out, "unknown command 'no-such'"), "%s", out);
}

Test(options, threads_follow_the_cpus_the_process_may_use)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    cr_assert_eq(df_usable_cpus(), 1);
    df_pool *p = df_pool_create(0);
    cr_assert_not_null(p);
    cr_assert_eq(df_pool_size(p), 1, "one thread per usable CPU");
    df_pool_destroy(p);
    /* the executable: bench reports its threads; more than the CPUs is
     * allowed, with a note */
    cr_assert_eq(sh("taskset -c 0 ./dotfuzz bench --backend host --quick --time 0.1"), 0,
                 "%s", out);
    cr_assert(strstr(out, " 1 threads,"), "%s", out);
    cr_assert_eq(sh("taskset -c 0 ./dotfuzz run --backend host --kernel shfl --cases 50 "
                    "--threads 3 --corpus %s", df_test_tmpdir("opt")),
                 0, "%s", out);
    cr_assert(strstr(out, "--threads 3 is more than the 1 CPU(s)"), "%s", out);
}
