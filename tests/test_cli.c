/* test_cli.c — the dotfuzz executable end to end, on the host backend:
 * help and exit codes, a clean campaign, a planted bug that is saved and
 * replayed, and every corpus-reading failure through `replay`.
 * Runs ./dotfuzz from the repository root (make test builds it first). */
#include <criterion/criterion.h>

#include "tests/cli_helpers.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT_MAX (1 << 16)

#define sh(buf, ...) df_test_sh(buf, OUT_MAX, __VA_ARGS__)
#define tmpdir() df_test_tmpdir("cli")

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static char out[OUT_MAX];

Test(cli, help_goes_to_stdout_and_exits_0)
{
    cr_assert_eq(system("./dotfuzz --help >/dev/null 2>/tmp/dotfuzz-help-err"), 0);
    cr_assert_eq(sh(out, "./dotfuzz --help"), 0);
    cr_assert(strstr(out, "usage: dotfuzz COMMAND"));
    cr_assert_eq(sh(out, "./dotfuzz run --help"), 0);
    cr_assert(strstr(out, "--max-n"));
    cr_assert_eq(sh(out, "./dotfuzz replay --help"), 0);
    cr_assert_eq(sh(out, "./dotfuzz import --help"), 0);
}

Test(cli, usage_errors_exit_2)
{
    cr_assert_eq(sh(out, "./dotfuzz"), 2);
    cr_assert_eq(sh(out, "./dotfuzz frobnicate"), 2);
    cr_assert(strstr(out, "unknown command 'frobnicate'"));
    cr_assert_eq(sh(out, "./dotfuzz run --bogus"), 2);
    cr_assert_eq(sh(out, "./dotfuzz run --max-n abc"), 2);
    cr_assert(strstr(out, "invalid value 'abc' for --max-n"));
    cr_assert_eq(sh(out, "./dotfuzz run --backend warp-drive --cases 1"), 2);
    cr_assert_eq(sh(out, "./dotfuzz run --backend host --kernel no-such --cases 1"), 2);
    cr_assert_eq(sh(out, "./dotfuzz replay"), 2);
}

Test(cli, list_names_every_seed_kernel_and_family)
{
    cr_assert_eq(sh(out, "./dotfuzz list"), 0);
    const char *names[] = {"atomic-block", "int-atomic", "fold", "tournament",
                           "tree-hostsum", "shfl", "shfl-f64acc", "shfl-f64",
                           "cublas-sdot", "int-small", "uniform", "int-wide"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_assert(strstr(out, names[i]), "list lacks %s", names[i]);
    /* the len64 column: cuBLAS's _64 dot takes huge cases, int-atomic not */
    const char *head = strstr(out, "\n  name "), *col = strstr(out, " len64 ");
    cr_assert(head && col, "%s", out);
    size_t at = (size_t)(col + 1 - head); /* the column's offset in a line */
    const char *sdot = strstr(out, "\n  cublas-sdot "), *iat = strstr(out, "\n  int-atomic ");
    cr_assert(sdot && iat, "%s", out);
    cr_assert(!strncmp(sdot + at, "yes ", 4), "%.80s", sdot + 1);
    cr_assert(!strncmp(iat + at, "no ", 3), "%.80s", iat + 1);
    /* the families of the low-precision types name all four */
    cr_assert(strstr(out, " lp-range     f16,bf16,e4m3,e5m2 "), "%s", out);
}

Test(cli, list_json_gives_types_fused_and_families)
{
    cr_assert_eq(sh(out, "./dotfuzz list --json"), 0, "%s", out);
    cr_assert_eq(out[0], '{');
    cr_assert(strstr(out, "\"schema_version\":"), "%s", out);
    cr_assert(strstr(out, "{\"name\":\"shfl-f64acc\",\"origin\":\"seed 004\",\"elem\":\"f32\","
                          "\"acc\":\"f64\",\"deterministic\":true,"), "%s", out);
    cr_assert(strstr(out, "\"fused\":null,"), "%s", out);
    cr_assert(strstr(out, "\"name\":\"lp-cancel\",\"types\":[\"f16\",\"bf16\",\"e4m3\",\"e5m2\"]"),
              "%s", out);
    cr_assert(strstr(out, "\"name\":\"int-small\",\"types\":[\"f32\",\"f64\",\"i32\"]"), "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz list --json | python3 -m json.tool >/dev/null"), 0, "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz list --json --names"), 2);
}

Test(cli, host_campaign_on_correct_kernels_finds_no_bug)
{
    char *d = tmpdir();
    int rc = sh(out, "./dotfuzz run --backend host --cases 600 --seed 7 --max-n 5000 "
                     "--corpus %s/c",
                d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "backend host"));
    cr_assert(strstr(out, "600 cases"));
    cr_assert(strstr(out, "bug: 0"));
}

Test(cli, same_seed_gives_the_same_campaign)
{
    char *d = tmpdir();
    char first[OUT_MAX];
    cr_assert_eq(sh(first, "./dotfuzz run --backend host --cases 200 --seed 99 "
                           "--family uniform --corpus %s/a | grep -v '^ *findings'",
                    d),
                 0);
    cr_assert_eq(sh(out, "./dotfuzz run --backend host --cases 200 --seed 99 "
                         "--family uniform --corpus %s/b | grep -v '^ *findings'",
                    d),
                 0);
    /* the per-kernel table (counts by verdict, worst ratio) is identical */
    const char *t1 = strstr(first, "  kernel"), *t2 = strstr(out, "  kernel");
    cr_assert(t1 && t2);
    cr_assert_str_eq(t1, t2);
}

/* int-atomic accumulates in int32, as seed 002's kernel does: a dot that
 * overflows int32 comes back wrong, and the kernel now says so through its
 * soft-error slot (kernels/soft_error.h). */
static void plant_overflow_case(const char *d, char *casefile)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a.txt", d);
    snprintf(b, sizeof b, "%s/b.txt", d);
    write_text(a, "# two products of 2.5e9 each\n50000\n50000\n");
    write_text(b, "50000\n\n50000\n");
    sprintf(casefile, "%s/overflow.case", d);
    cr_assert_eq(sh(out, "./dotfuzz import %s %s --type i32 --kernel int-atomic -o %s", a, b,
                    casefile),
                 0, "%s", out);
}

Test(cli, planted_overflow_is_reported_by_the_kernel_and_replayed)
{
    char *d = tmpdir(), casefile[600];
    plant_overflow_case(d, casefile);
    int rc = sh(out, "./dotfuzz replay --backend host %s", casefile);
    cr_assert_eq(rc, 0, "a soft error is no silent bug: exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "int-atomic    soft-error"), "%s", out);
    cr_assert(strstr(out, "kernel reported int32-overflow at block 0 thread 0 index 0"), "%s",
              out);
    cr_assert(strstr(out, "does not fit int32"), "%s", out);
    /* JSON carries the exact value 5e9, the verdict and the payload */
    rc = sh(out, "./dotfuzz replay --backend host --json %s 2>/dev/null", casefile);
    cr_assert_eq(rc, 0);
    cr_assert(strstr(out, "\"verdict\":\"soft-error\""), "%s", out);
    cr_assert(strstr(out, "\"type\":\"i32\",\"acc\":\"i32\",\"fused\":null,"), "%s", out);
    cr_assert(strstr(out, "\"exact\":{\"known\":true"), "%s", out);
    cr_assert(strstr(out, "5000000000"), "%s", out);
    cr_assert(strstr(out, "\"soft_errors\":[{\"code\":\"int32-overflow\",\"kernel\":"
                          "\"int-atomic\""), "%s", out);
    cr_assert(strstr(out, "\"ivalue\":\"2500000000\""), "%s", out);
}

Test(cli, import_rejects_bad_numbers_with_file_and_line)
{
    char *d = tmpdir(), a[512], b[512];
    snprintf(a, sizeof a, "%s/a.txt", d);
    snprintf(b, sizeof b, "%s/b.txt", d);
    write_text(a, "1\n2\n");
    write_text(b, "1\nfoo\n");
    cr_assert_eq(sh(out, "./dotfuzz import %s %s -o %s/x.case", a, b, d), 2);
    cr_assert(strstr(out, "b.txt:2"), "%s", out);
}

/* An f16 case made by import replays on a tensor-core kernel, and its
 * JSON names the element and accumulator types and the fused model. */
Test(cli, imported_f16_case_replays_with_its_types_in_json)
{
    char *d = tmpdir(), a[512], b[512];
    snprintf(a, sizeof a, "%s/a.txt", d);
    snprintf(b, sizeof b, "%s/b.txt", d);
    write_text(a, "1\n0.5\nbits:0xc000\n"); /* -2 */
    write_text(b, "3\n4\n0.25\n");
    cr_assert_eq(sh(out, "./dotfuzz import %s %s --type f16 --kernel mma-f16 -o %s/h.case", a, b,
                    d),
                 0, "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz replay --backend host --json %s/h.case 2>/dev/null", d), 0,
                 "%s", out);
    cr_assert(strstr(out, "\"kernel\":\"mma-f16\",\"type\":\"f16\",\"acc\":\"f32\",\"fused\":"
                          "{\"group\":16,"), "%s", out);
    cr_assert(strstr(out, "\"result\":{\"hex\":\"0x1.2p+2\",\"dec\":4.5}"), "%s", out);
    cr_assert(strstr(out, "\"verdict\":\"ok\""), "%s", out);
}

/* Writes a valid f32 case (n = 3) to path via import, returns its bytes. */
static size_t good_case(const char *d, const char *path, unsigned char *bytes, size_t cap)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/ga.txt", d);
    snprintf(b, sizeof b, "%s/gb.txt", d);
    write_text(a, "1\n2\n3\n");
    write_text(b, "4\n5\n6\n");
    cr_assert_eq(sh(out, "./dotfuzz import %s %s --kernel fold -o %s", a, b, path), 0);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    size_t n = fread(bytes, 1, cap, f);
    fclose(f);
    cr_assert_eq(n, 128 + 2 * 3 * 4);
    return n;
}

static void write_bytes(const char *path, const unsigned char *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/* Each broken file: exit 2, one line naming the file and the problem. */
static void expect_unreadable(const char *path, const char *fact)
{
    int rc = sh(out, "./dotfuzz replay --backend host %s", path);
    cr_assert_eq(rc, 2, "exit %d for %s:\n%s", rc, path, out);
    cr_assert(strstr(out, path), "message does not name %s:\n%s", path, out);
    cr_assert(strstr(out, fact), "message lacks '%s':\n%s", fact, out);
}

Test(cli, good_case_replays_ok)
{
    char *d = tmpdir(), path[600];
    unsigned char bytes[512];
    snprintf(path, sizeof path, "%s/good", d);
    good_case(d, path, bytes, sizeof bytes);
    cr_assert_eq(sh(out, "./dotfuzz replay --backend host %s", path), 0, "%s", out);
    cr_assert(strstr(out, "fold"));
    cr_assert(strstr(out, " ok "), "%s", out);
    /* 1*4 + 2*5 + 3*6 = 32: exact value, cond, ULP error and ratio in the JSON */
    cr_assert_eq(sh(out, "./dotfuzz replay --backend host --json %s 2>/dev/null", path), 0);
    cr_assert(strstr(out, "\"exact\":{\"known\":true,\"hex\":\"0x1p+5\""), "%s", out);
    cr_assert(strstr(out, "\"ulp_err\":0,"), "%s", out);
    cr_assert(strstr(out, "\"err_ratio\":0,"), "%s", out);
    cr_assert(strstr(out, "\"cond\":2,"), "%s", out);
    cr_assert(strstr(out, "\"kahan\":{\"hex\":\"0x1p+5\""), "%s", out);
}

Test(cli, corpus_read_failures_each_exit_2_with_a_message)
{
    char *d = tmpdir(), path[600];
    unsigned char good[512], bad[512];
    snprintf(path, sizeof path, "%s/good", d);
    size_t n = good_case(d, path, good, sizeof good);

    snprintf(path, sizeof path, "%s/truncated", d);
    write_bytes(path, good, 100);
    expect_unreadable(path, "trunc");

    memcpy(bad, good, n);
    bad[0] = 'X';
    snprintf(path, sizeof path, "%s/magic", d);
    write_bytes(path, bad, n);
    expect_unreadable(path, "magic");

    memcpy(bad, good, n);
    bad[8] = 9;
    snprintf(path, sizeof path, "%s/version", d);
    write_bytes(path, bad, n);
    expect_unreadable(path, "version");

    memcpy(bad, good, n);
    bad[n - 1] ^= 0x40;
    snprintf(path, sizeof path, "%s/checksum", d);
    write_bytes(path, bad, n);
    expect_unreadable(path, "checksum");

    snprintf(path, sizeof path, "%s/short-vectors", d);
    write_bytes(path, good, n - 4);
    expect_unreadable(path, "bytes");

    snprintf(path, sizeof path, "%s/missing", d);
    expect_unreadable(path, "missing");
}

Test(cli, unknown_kernel_in_a_file_is_an_input_error)
{
    char *d = tmpdir(), path[600];
    unsigned char good[512];
    snprintf(path, sizeof path, "%s/good", d);
    size_t n = good_case(d, path, good, sizeof good);
    /* rename the kernel and fix the CRC with python's zlib, another tool
     * that reads the format */
    memcpy(good + 64, "nosuch", 7);
    snprintf(path, sizeof path, "%s/unknown-kernel", d);
    write_bytes(path, good, n);
    cr_assert_eq(sh(out, "python3 -c \"import sys,zlib,struct;p=sys.argv[1];b=bytearray(open(p,"
                         "'rb').read());b[12:16]=struct.pack('<I',zlib.crc32(bytes(b[16:])));"
                         "open(p,'wb').write(b)\" %s",
                    path),
                 0, "%s", out);
    expect_unreadable(path, "nosuch");
}

Test(cli, a_bad_file_in_a_directory_loses_nothing_else)
{
    char *d = tmpdir(), path[700], dir[600];
    unsigned char good[512];
    snprintf(dir, sizeof dir, "%s/corpus", d);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/aaa-good", dir);
    size_t n = good_case(d, path, good, sizeof good);
    snprintf(path, sizeof path, "%s/bbb-truncated", dir);
    write_bytes(path, good, n / 2);
    int rc = sh(out, "./dotfuzz replay --backend host %s", dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "aaa-good  fold"), "%s", out);
    cr_assert(strstr(out, "bbb-truncated"), "%s", out);
}

Test(cli, campaign_findings_replay_with_the_same_verdict)
{
    /* uniform floats at n up to 20000 give precision findings (the seed's
     * "big floating point errors"): each saved file replays as precision */
    char *d = tmpdir();
    int rc = sh(out, "./dotfuzz run --backend host --kernel atomic-block --family uniform "
                     "--cases 400 --seed 3 --max-n 20000 --corpus %s/f",
                d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(!strstr(out, "findings saved: 0 "), "expected precision findings:\n%s", out);
    rc = sh(out, "./dotfuzz replay --backend host %s/f", d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "atomic-block  precision"), "%s", out);
    cr_assert(strstr(out, "ok 0, precision"), "%s", out);
    cr_assert(strstr(out, ", bug 0"), "%s", out);
}

Test(cli, regression_corpus_replays_without_a_bug)
{
    int rc = sh(out, "./dotfuzz replay --backend host corpus/regression");
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "35 file(s), 0 unreadable"), "%s", out);
    cr_assert(strstr(out, "seed000-precision-n2000-cond2e4.f32  atomic-block  precision"), "%s",
              out);
    /* fused chains that are f32 subnormals: precision, never a bug */
    cr_assert(strstr(out, "bf16-subnormal-chain-n4097.bf16  mma-bf16      precision"), "%s",
              out);
    cr_assert(strstr(out, ", bug 0"), "%s", out);
}

/* The mutants whose flaw today's oracle cannot see on generated cases:
 * m-rz-acc's truncated sums stay inside the bound, and on the host backend
 * its result is its model's; m-mul24 is wrong only on factors past 2^23,
 * which no i32 family draws. */
/* Every mutant the host runs is caught, the crashing and hanging ones
 * included (seed 5 reaches m-hang's length at its case 481), and no
 * correct kernel raises a false alarm. m-grid-clamp's bug needs a long
 * case, the first at case 16384: the next test. */
Test(cli, hunt_catches_every_host_mutant_without_false_alarms, .timeout = 120)
{
    int rc = sh(out, "./dotfuzz hunt --backend host --cases 1000 --time 1 --seed 5 "
                     "--watchdog 1s --kernel all --kernel m-no-zero,m-tail,m-pow2-tree,"
                     "m-stride-off-by-one,m-wrong-copy-size,m-fold-bounds,m-tournament-bounds,"
                     "m-claims-det,m-read-past-end,m-int16-sum,m-vec-tail,m-int32-acc,"
                     "m-wild-read,m-hang,m-rz-acc,m-bf16-products,m-mul24,"
                     "m-half2-f32-declared");
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "0 mutant(s) escaped this oracle, 0 correct kernel(s) with false alarms"),
              "%s", out);
    cr_assert(strstr(out, "m-tail"), "%s", out);
    cr_assert(strstr(out, "m-fold-bounds"), "%s", out);
    const char *hang = strstr(out, "m-hang "), *crash = strstr(out, "m-wild-read ");
    const char *rz = strstr(out, "m-rz-acc ");
    cr_assert(rz && strstr(rz, " order-set "), "rounding toward zero, inside the bound: %s", out);
    cr_assert(hang && crash, "%s", out);
    cr_assert(!strncmp(strstr(hang, "ours: ") + 6, "yes", 3) && strstr(hang, " hang "), "%s",
              out);
    cr_assert(!strncmp(strstr(crash, "ours: ") + 6, "yes", 3) && strstr(crash, " crash "), "%s",
              out);
}

/* hunt's own watchdog (3 s, not run's 10 s) finds m-hang within its 10 s
 * budget at the defaults: case 2434 of seed 1 reaches its length. */
Test(cli, hunt_finds_a_hang_within_its_budget, .timeout = 60)
{
    int rc = sh(out, "./dotfuzz hunt --backend host --kernel m-hang");
    cr_assert_eq(rc, 0, "%s", out);
    const char *row = strstr(out, "m-hang ");
    cr_assert(row && strstr(row, "ours: yes"), "%s", out);
    unsigned long long cases;
    double secs;
    cr_assert_eq(sscanf(strstr(row, "ours: yes") + 9, "%llu cases %lf s", &cases, &secs), 2, "%s",
                 row);
    cr_assert(secs >= 3 && secs < 10, "caught after %.3f s: %s", secs, row);
}

/* m-grid-clamp drops the elements past 65,535 blocks of 32: only long
 * cases (run's every 16384th, hunt's every 1024th; --long-n) reach it,
 * and hunt's defaults do. */
Test(cli, hunt_catches_a_clamped_grid_on_long_cases, .timeout = 180)
{
    int rc = sh(out, "./dotfuzz hunt --backend host --kernel m-grid-clamp");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "m-grid-clamp         mutant  ours: yes"), "%s", out);
    rc = sh(out, "./dotfuzz hunt --backend host --kernel m-grid-clamp --cases 20000 --time 120 "
                 "--long-n 0");
    cr_assert_eq(rc, 1, "without long cases it escapes: %s", out);
    rc = sh(out, "./dotfuzz hunt --backend host --kernel m-grid-clamp --long-every 0");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--long-every"), "%s", out);
}

/* hunt's second phase runs cases in batches at run's pace: with no long
 * case one at a time (--long-every past any index reached), m-grid-clamp
 * is met only among the batches' cases (run's long case at every 16384th
 * index), past the cases the first phase ran, and the phase ends at the
 * catch. --no-batched keeps the whole budget one case at a time. */
Test(cli, hunt_meets_in_batches_what_one_at_a_time_misses, .timeout = 120)
{
    int rc = sh(out, "./dotfuzz hunt --backend host --kernel m-grid-clamp --long-every 4294967295 "
                 "--max-n 64 --seed 3 --time 12 --json | python3 -c 'import json, sys; "
                 "k = json.load(sys.stdin)[\"kernels\"][0]; o = k[\"ours\"]; "
                 "print(o[\"phase\"], o[\"cases\"] %% 16384, o[\"seconds\"] < 12, "
                 "k[\"cases\"] >= o[\"cases\"] - 4096)'");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_str_eq(out, "batched 0 True True\n");
    rc = sh(out, "./dotfuzz hunt --backend host --kernel m-grid-clamp --long-every 4294967295 "
                 "--max-n 64 --seed 3 --time 3 --no-batched");
    cr_assert_eq(rc, 1, "one case at a time, no long case: it escapes: %s", out);
    cr_assert(strstr(out, "one case at a time") && !strstr(out, "(batched)"), "%s", out);
}

/* A kernel that rounds its sums toward zero stays inside the bound; the
 * order set catches it in the first 1,000 cases of the default mix, for
 * every seed tried. */
Test(cli, rounding_toward_zero_is_caught_by_the_order_set_for_every_seed, .timeout = 120)
{
    for (int seed = 1; seed <= 20; seed++) {
        int rc = sh(out, "./dotfuzz hunt --backend host --kernel m-rz-acc --cases 1000 --seed %d",
                    seed);
        cr_assert_eq(rc, 0, "seed %d:\n%s", seed, out);
        const char *rz = strstr(out, "m-rz-acc ");
        cr_assert(rz && !strncmp(strstr(rz, "ours: ") + 6, "yes", 3) && strstr(rz, " order-set "),
                  "seed %d:\n%s", seed, out);
    }
}

/* tools/cpu_sample.c preloaded into a run (the GPU host has no perf): the
 * samples file holds the run's mapped files and samples of its threads,
 * and scripts/cpu-profile.py names the binary's functions from them (on
 * the host backend, the shfl model and the references), one thread's
 * alone with --thread, and refuses a window that holds none. The library's path comes from make test. */
Test(cli, cpu_sampler_profiles_a_run_by_function, .timeout = 120)
{
    const char *lib = getenv("DF_CPU_SAMPLE_LIB");
    cr_assert_not_null(lib, "make test names the sampler library (DF_CPU_SAMPLE_LIB)");
    cr_assert_eq(access(lib, R_OK), 0, "no %s", lib);
    char *dir = tmpdir();
    int rc = sh(out,
                "DOTFUZZ_SAMPLE=%s/s.txt LD_PRELOAD=%s ./dotfuzz run --backend host "
                "--kernel shfl --cases 120000 --max-n 2000 --batch 256 --threads 2 --seed 4 "
                "--save-bugs none --save-precision none --quiet --corpus %s/c",
                dir, lib, dir);
    cr_assert_eq(rc, 0, "%s", out);
    /* the cases ran in a worker process: its samples are s.txt.<pid>, the
     * file with the most samples */
    char n[64];
    sh(n, "for f in %s/s.txt.*; do awk '$1 == \"samples\" { print $2, FILENAME }' $f; done "
          "| sort -n | tail -n 1 | { read k f; mv $f %s/w.txt; echo $k; }", dir, dir);
    cr_assert_geq(atoi(n), 20, "samples: %s", n);
    rc = sh(out, "python3 scripts/cpu-profile.py %s/w.txt ./dotfuzz --top 60", dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "samples over") && strstr(out, "per thread:"), "%s", out);
    cr_assert(strstr(out, "shfl_f32") && strstr(out, "kahan"), "%s", out);
    cr_assert(strstr(out, "2 threads") && strstr(out, "on the stack"), "%s", out);
    /* the caller's thread alone, its stages counted with their callees */
    rc = sh(out, "python3 scripts/cpu-profile.py %s/w.txt ./dotfuzz --thread main --top 200",
            dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, " 1 threads") && strstr(out, "on the stack"), "%s", out);
    rc = sh(out, "python3 scripts/cpu-profile.py %s/w.txt ./dotfuzz --from 0 --to 1", dir);
    cr_assert_neq(rc, 0, "%s", out);
    cr_assert(strstr(out, "no samples in that window"), "%s", out);
    sh(out, "rm -rf %s", dir);
}
