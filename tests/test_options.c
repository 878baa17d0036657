/* test_options.c — options mean what they say: numbers are decimal only,
 * `dotfuzz help CMD` is CMD's help, thread counts follow the CPUs the
 * process may use. Runs ./dotfuzz from the repository root on the host
 * backend. */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz/cmd/cli_util.h"
#include "fuzz/pool.h"
#include "fuzz/run/options.h"
#include "tests/cli_helpers.h"

#define OUT_MAX (1 << 16)
static char out[OUT_MAX];
#define sh(...) df_test_sh(out, OUT_MAX, __VA_ARGS__)

/* run's batch without --batch: many short cases a batch, a few hundred
 * long ones a kernel (2^24 / --max-n, at least 256 a kernel, within
 * [256, 4096]). */
Test(options, the_default_batch_follows_the_longest_case_and_the_kernels)
{
    cr_assert_eq(df_run_default_batch(65536, 1), 256);
    cr_assert_eq(df_run_default_batch(1u << 22, 1), 256);
    cr_assert_eq(df_run_default_batch(8192, 1), 2048);
    cr_assert_eq(df_run_default_batch(4096, 1), 4096);
    cr_assert_eq(df_run_default_batch(2000, 1), 4096);
    cr_assert_eq(df_run_default_batch(1, 1), 4096);
    cr_assert_eq(df_run_default_batch(65536, 3), 768);
    cr_assert_eq(df_run_default_batch(65536, 20), 4096);
    cr_assert_eq(df_run_default_batch(8192, 9), 2304);
}

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
    cr_assert_eq(sh("./dotfuzz run --backend host --seed 010 --cases 1 --corpus %s",
                    df_test_tmpdir("opt-decimal")), 0, "%s", out);
    cr_assert(strstr(out, "seed 10,"), "%s", out);
    cr_assert_eq(sh("./dotfuzz run --backend host --seed ' -5' --cases 1"), 2);
    cr_assert(strstr(out, "invalid value ' -5' for --seed"), "%s", out);
    cr_assert_eq(sh("./dotfuzz run --backend host --seed 0x10 --cases 1"), 2);
    cr_assert_eq(sh("./dotfuzz run --backend host --tol 0x1p-3 --cases 1"), 2);
    cr_assert_eq(sh("./dotfuzz replay --tol ' 1' corpus/regression"), 2);
    /* --cases N stops after N cases: 0 is refused, not a run without end */
    cr_assert_eq(sh("timeout 20 ./dotfuzz run --backend host --kernel shfl --cases 0 "
                    "--corpus %s", df_test_tmpdir("opt-cases")), 2, "%s", out);
    cr_assert(strstr(out, "invalid value '0' for --cases"), "%s", out);
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

/* A worker of one GPU among several is held to that GPU's run of the
 * allowed CPUs, in their numbering; a part that cannot be made changes
 * nothing. */
Test(options, a_pin_holds_a_part_of_the_allowed_cpus)
{
    cpu_set_t all, now;
    cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
    int n = CPU_COUNT(&all), low = -1, high = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            low = low < 0 ? c : low;
            high = c;
        }
    cr_assert_eq(df_pin_part(1, 1), -1, "no part 1 of 1");
    cr_assert_eq(df_pin_part(0, (unsigned)n + 1), -1, "more parts than CPUs");
    cr_assert_eq(sched_getaffinity(0, sizeof now, &now), 0);
    cr_assert(CPU_EQUAL(&now, &all), "a refused pin changes nothing");
    if (n < 2)
        cr_skip_test("one CPU: no two parts to tell apart");
    cr_assert_eq(df_pin_part(1, 2), 0);
    cr_assert_eq(sched_getaffinity(0, sizeof now, &now), 0);
    cr_assert_eq(CPU_COUNT(&now), n / 2, "the upper half, an odd CPU in part 0");
    cr_assert(CPU_ISSET(high, &now) && !CPU_ISSET(low, &now));
    cr_assert_eq(df_usable_cpus(), (unsigned)(n / 2));
}

/* Every JSON document names its version and schema; a 64-bit seed read
 * back by a JSON parser is the seed that reproduces the case; a number
 * that is not finite is null with its class beside. */
Test(options, json_round_trips_seeds_and_names_its_schema, .timeout = 60)
{
    char *d = df_test_tmpdir("json");
    const char *seed = "18446744073709551557"; /* above 2^53: a double would change it */
    int rc = sh("./dotfuzz run --backend host --kernel m-tail --cases 200 --seed %s "
                "--quiet --out %s/c", seed, d);
    cr_assert_eq(rc, 1, "%s", out);
    char py[512];
    snprintf(py, sizeof py, "%s/check.py", d);
    FILE *f = fopen(py, "w");
    cr_assert_not_null(f);
    fputs("import json, sys\n"
          "d, seed = sys.argv[1], sys.argv[2]\n"
          "rows = [json.loads(l) for l in open(d + '/findings.jsonl')]\n"
          "assert rows, 'no findings'\n"
          "for r in rows:\n"
          "    assert r['seed'] == seed, r['seed']\n"
          "    assert r['schema_version'] == 2 and r['dotfuzz_version'].startswith('0.'), r\n"
          "    for k in ('rel_err', 'err_ratio', 'cond'):\n"
          "        assert r[k] is None or isinstance(r[k], (int, float)), r\n"
          "        assert (r[k] is None) == (k + '_class' in r), r\n"
          "print(len(rows), sum(r['err_ratio'] is None for r in rows))\n",
          f);
    fclose(f);
    rc = sh("python3 %s %s/c %s", py, d, seed);
    cr_assert_eq(rc, 0, "%s", out);
    rc = sh("grep -E '^(dotfuzz_version|schema_version) ' %s/c/fuzzer_stats", d);
    cr_assert(strstr(out, "dotfuzz_version   : 0.") && strstr(out, "schema_version    : 2"),
              "%s", out);
    /* replay --json of each finding: the same seed, a whole JSON line */
    rc = sh("./dotfuzz replay --backend host --json %s/c/findings 2>/dev/null | python3 -c "
            "'import json, sys\n"
            "rows = [json.loads(l) for l in sys.stdin]\n"
            "assert rows and all(r[\"seed\"] == sys.argv[1] for r in rows)\n"
            "assert all(r[\"schema_version\"] == 2 for r in rows)\n"
            "print(\"ok\", len(rows))' %s", d, seed);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "ok "), "%s", out);
    /* smoke's summary */
    rc = sh("mkdir -p %s/reg && ./dotfuzz smoke --backend host --corpus %s/reg --kernel shfl "
            "--time 1 --seed %s --json %s/s.json && python3 -c 'import json, sys\n"
            "j = json.load(open(sys.argv[1]))\n"
            "assert j[\"seeds\"][\"fixed\"] == sys.argv[2], j[\"seeds\"]\n"
            "assert j[\"schema_version\"] == 2\n"
            "print(\"ok\")' %s/s.json %s", d, d, seed, d, d, seed);
    cr_assert_eq(rc, 0, "%s", out);
}

/* An option that would change nothing in its mode is refused, naming it. */
Test(options, an_option_without_effect_is_refused)
{
    const char *cases[][2] = {
        {"run --backend host --stats-every 1 --cases 1", "--stats-every"},
        {"run --backend host --batch 1 --threads 2 --cases 1", "--threads"},
        {"run --backend host --batch 1 --gen gpu --cases 1", "--gen"},
        {"run --backend host --debug-invariants --cases 1", "--debug-invariants"},
        {"replay --backend host --debug-invariants corpus/regression", "--debug-invariants"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = sh("./dotfuzz %s", cases[i][0]);
        cr_assert_eq(rc, 2, "%s: exit %d: %s", cases[i][0], rc, out);
        cr_assert(strstr(out, cases[i][1]) && strstr(out, "no effect"), "%s: %s", cases[i][0],
                  out);
    }
}

/* --max-n is the longest vector asked for: below its default the long
 * cases stay out unless --long-n asks for them; the campaign file keeps
 * what ran. */
Test(options, a_short_max_n_keeps_the_long_cases_out)
{
    char *dir = df_test_tmpdir("maxn");
    static const struct { const char *args, *long_n; } want[] = {
        {"--max-n 2000", "0"},
        {"--max-n 2000 --long-n 2100000", "2100000"},
        {"--max-n 100000", "4194304"},
        {"", "4194304"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_assert_eq(sh("./dotfuzz run --backend host --kernel shfl --seed 1 --cases 8 --quiet "
                        "%s --out %s/c%zu",
                        want[i].args, dir, i),
                     0, "%s", out);
        sh("sed -n 's/^long_n *: *//p' %s/c%zu/campaign", dir, i);
        cr_assert_eq(strtoull(out, NULL, 10), strtoull(want[i].long_n, NULL, 10),
                     "%s: long_n %s", want[i].args, out);
    }
    sh("rm -rf %s", dir);
}
