/* test_blas.c — cases as BLAS calls (kernels/blas.h, docs/blas.md): the
 * buffers' layout by known answers; the generator's BLAS arguments for the
 * kernels that take them (every increment of -3..3, n <= 0, a zero
 * increment's constant vectors) and none for the others; ref-blas-sdot's
 * loop over the buffers equal to the sequential sum of the vectors, on
 * every case; shfl-blas's gather and run equal to shfl's on the vectors;
 * the stride mutants caught in their first cases, the correct ones never a
 * bug. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/cli_helpers.h"
#include "tests/host_helpers.h"
#include "kernels/blas.h"

Test(blas, footprints_and_positions_are_reference_blas_s)
{
    cr_assert_eq(df_blas_footprint(0, 3), 0);
    cr_assert_eq(df_blas_footprint(1, -3), 1);
    cr_assert_eq(df_blas_footprint(4, 0), 1);
    cr_assert_eq(df_blas_footprint(4, 2), 7);
    cr_assert_eq(df_blas_footprint(4, -2), 7);
    /* incx = -2, n = 4: reference BLAS starts at (1 - n) incx + 1 = 7 (1-based) */
    const uint64_t want[4] = {6, 4, 2, 0};
    for (uint64_t i = 0; i < 4; i++) {
        cr_assert_eq(df_blas_pos(i, 4, -2), want[i]);
        cr_assert_eq(df_blas_pos(i, 4, 2), 2 * i);
        cr_assert_eq(df_blas_pos(i, 4, 0), 0);
    }
}

Test(blas, place_puts_the_elements_where_the_call_reads_and_guards_the_gaps)
{
    const float v[3] = {1, 2, 3};
    float buf[7];
    df_blas_place(DF_F32, v, 3, -3, buf);
    cr_assert(buf[6] == 1 && buf[3] == 2 && buf[0] == 3);
    cr_assert(isnan(buf[1]) && isnan(buf[2]) && isnan(buf[4]) && isnan(buf[5]));
    const float c[3] = {5, 5, 5};
    df_blas_place(DF_F32, c, 3, 0, buf);
    cr_assert(buf[0] == 5);
}

/* Every width (e4m3's byte, f16's two, i32's four, f64's eight) at every
 * increment of -3..3: each element at df_blas_pos, byte for byte, and every
 * other byte of the footprint the type's guard (df_guard_fill's); nothing
 * written past the footprint. */
Test(blas, place_lays_out_every_width_at_every_increment)
{
    const df_type types[4] = {DF_E4M3, DF_F16, DF_I32, DF_F64};
    unsigned char v[5 * 8], buf[13 * 8 + 8], guard[8];
    for (size_t i = 0; i < sizeof v; i++)
        v[i] = (unsigned char)(17 + 3 * i);
    for (int t = 0; t < 4; t++) {
        size_t es = df_type_size(types[t]);
        df_guard_fill(types[t], guard, 1);
        for (int32_t inc = -3; inc <= 3; inc++) {
            uint64_t n = inc ? 5 : 1, fp = df_blas_footprint(n, inc);
            memset(buf, 0xa5, sizeof buf);
            df_blas_place(types[t], v, n, inc, buf);
            for (uint64_t p = 0; p < fp; p++) {
                const unsigned char *want = guard;
                for (uint64_t i = 0; i < n; i++)
                    if (df_blas_pos(i, n, inc) == p)
                        want = v + i * es;
                cr_assert_eq(memcmp(buf + p * es, want, es), 0, "%s inc %d: element %llu",
                             df_type_name(types[t]), (int)inc, (unsigned long long)p);
            }
            cr_assert_eq(buf[fp * es], 0xa5, "%s inc %d: past the footprint",
                         df_type_name(types[t]), (int)inc);
        }
    }
}

/* The generator over cases 0..n-1 of seed 9 for kernel k. */
Test(blas, the_generator_gives_blas_kernels_every_increment_and_n_at_most_0)
{
    const df_kernel *k = df_test_find("ref-blas-sdot");
    df_gen_opts go = {.max_n = 4096};
    df_scratch buf = {0};
    int seen[7] = {0}, negative = 0;
    for (uint64_t i = 0; i < 3000; i++) {
        df_case c;
        cr_assert_eq(df_generate(9, i, k, &go, &buf, &c), 0);
        cr_assert_eq(c.blas.on, 1u);
        cr_assert(c.blas.inc_a >= -3 && c.blas.inc_a <= 3);
        seen[c.blas.inc_a + 3] = 1;
        seen[c.blas.inc_b + 3] = 1;
        if (c.blas.n_arg <= 0) {
            negative += c.blas.n_arg < 0;
            cr_assert_eq(c.n, 0);
        } else {
            cr_assert_eq((uint64_t)c.blas.n_arg, c.n);
        }
        if (c.blas.inc_a == 0 || c.blas.inc_b == 0) { /* one element read n times */
            const float *a = c.a, *b = c.b;
            for (uint64_t j = 1; j < c.n; j++)
                cr_assert(memcmp(&a[j], &a[0], 4) == 0 && memcmp(&b[j], &b[0], 4) == 0,
                          "case %llu: a zero increment with a vector not constant",
                          (unsigned long long)i);
        }
    }
    for (int s = 0; s < 7; s++)
        cr_assert(seen[s], "increment %d never drawn", s - 3);
    /* one case in 32 is given n <= 0, three in four of those negative */
    cr_assert(negative > 30 && negative < 150, "%d cases with n < 0", negative);
    df_case c;
    cr_assert_eq(df_generate(9, 0, df_test_find("shfl"), &go, &buf, &c), 0);
    cr_assert_eq(c.blas.on, 0u, "a kernel without DF_K_BLAS got BLAS arguments");
    df_scratch_free(&buf);
}

/* The loop over the buffers reads the vectors' elements in order: its
 * result is the plain sequential float sum of the case's vectors. */
Test(blas, the_reference_loop_is_the_sequential_sum_of_the_vectors)
{
    const df_kernel *k = df_test_find("ref-blas-sdot");
    df_backend *be = df_test_open_host();
    df_gen_opts go = {.max_n = 2000};
    df_scratch buf = {0};
    for (uint64_t i = 0; i < 500; i++) {
        df_case c;
        cr_assert_eq(df_generate(10, i, k, &go, &buf, &c), 0);
        df_result r;
        cr_assert_eq(df_backend_run(be, k, &c, &r, NULL, NULL), 0);
        cr_assert_eq(r.status, DF_RUN_OK, "%s", r.err);
        const float *a = c.a, *b = c.b;
        float want = 0.0f;
        for (uint64_t j = 0; j < c.n; j++) {
            float p = a[j] * b[j];
            want += p;
        }
        cr_assert((isnan(want) && isnan(r.f)) || r.f == want,
                  "case %llu (inc %d, %d, n_arg %lld): %a, the sequential sum %a",
                  (unsigned long long)i, c.blas.inc_a, c.blas.inc_b,
                  (long long)c.blas.n_arg, r.f, (double)want);
    }
    df_backend_close(be);
    df_scratch_free(&buf);
}

/* shfl-blas through the host backend (its strided buffers laid out) gives,
 * bit for bit, shfl's run on the case's own vectors at offsets 0: the
 * gather reads each element where the call puts it, whatever the
 * increments, and n_arg <= 0 reads nothing. */
Test(blas, shfl_blas_is_shfl_on_the_vectors_the_call_reads)
{
    const df_kernel *k = df_test_find("shfl-blas"), *shfl = df_test_find("shfl");
    df_backend *be = df_test_open_host();
    df_gen_opts go = {.max_n = 5000};
    df_scratch buf = {0};
    int strided = 0;
    for (uint64_t i = 0; i < 400; i++) {
        df_case c;
        cr_assert_eq(df_generate(11, i, k, &go, &buf, &c), 0);
        strided += c.blas.inc_a != 1 || c.blas.inc_b != 1;
        df_result r, want;
        cr_assert_eq(df_backend_run(be, k, &c, &r, NULL, NULL), 0);
        cr_assert_eq(r.status, DF_RUN_OK, "%s", r.err);
        df_case p = c;
        p.blas.on = 0;
        p.launch.offset_a = p.launch.offset_b = 0;
        memcpy(p.kernel, "shfl", sizeof "shfl");
        cr_assert_eq(df_backend_run(be, shfl, &p, &want, NULL, NULL), 0);
        cr_assert_eq(want.status, DF_RUN_OK, "%s", want.err);
        cr_assert((isnan(want.f) && isnan(r.f)) || memcmp(&r.f, &want.f, sizeof r.f) == 0,
                  "case %llu (inc %d, %d, n_arg %lld): %a, shfl %a", (unsigned long long)i,
                  c.blas.inc_a, c.blas.inc_b, (long long)c.blas.n_arg, r.f, want.f);
    }
    cr_assert(strided > 100, "%d strided cases of 400", strided);
    df_backend_close(be);
    df_scratch_free(&buf);
}

Test(blas, the_reference_loops_and_shfl_blas_are_never_a_bug, .timeout = 120)
{
    const char *names[] = {"ref-blas-sdot", "ref-blas-ddot", "shfl-blas"};
    df_test_never_a_bug(names, 3, 12, 3000, 4096);
}

Test(blas, each_stride_mutant_is_caught_in_its_first_cases, .timeout = 120)
{
    const char *names[] = {"m-blas-neg-wrong-end", "m-blas-neg-skipped", "m-blas-zero-inc",
                           "m-blas-overrun"};
    for (int i = 0; i < 4; i++)
        df_test_caught_early(df_test_find(names[i]), 4, 300, 4096, 60);
}

/* The zero-increment mutant's host model reads n elements of a
 * one-element buffer (its flaw): past the guards it reads the guard's NaN,
 * never the memory after them, here a page it may not read. */
Test(blas, a_mutants_read_past_its_guards_stays_in_its_buffer)
{
    const df_kernel *k = df_test_find("m-blas-zero-inc");
    size_t g = DF_GUARD_ELEMS, n = 1000, page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = (g + n + g + 1 + g) * sizeof(float); /* [g][b][g][a][g] */
    size_t span = (bytes + page - 1) / page * page;
    char *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map + span, page, PROT_NONE), 0);
    float *p = (float *)(map + span - bytes), *b = p + g, *a = b + n + g;
    df_guard_fill(DF_F32, p, bytes / sizeof(float));
    for (size_t i = 0; i < n; i++)
        b[i] = 1.0f;
    a[0] = 2.0f;
    df_case c = {.type = DF_F32, .n = n, .a = a, .b = b,
                 .blas = {.on = 1, .inc_a = 0, .inc_b = 1, .n_arg = (int64_t)n},
                 .launch = {.block = 256}};
    cr_assert_eq(df_launch_resolve(k, n, &c.launch, NULL, 0), 0);
    df_scratch s = {0};
    df_result r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(k->host_model(&c, &s, &r), 0);
    cr_assert(isnan(r.f), "the guard's NaN in the sum: %g", r.f);
    df_scratch_free(&s);
    munmap(map, span + page);
}

/* A BLAS case is a version 5 file that reads back whole; a file whose zero
 * increment goes with a vector that is not constant is refused. */
Test(blas, a_blas_case_file_reads_back_with_its_arguments)
{
    const float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = DF_F32;
    c.n = 3;
    c.a = a;
    c.b = b;
    c.blas = (df_blas){1, -2, 3, 0, 3};
    uint8_t *buf;
    size_t len;
    cr_assert_eq(df_corpus_encode(&c, NULL, &buf, &len), 0);
    cr_assert_eq(buf[8], 5, "version %u", buf[8]);
    df_case_file f;
    char msg[300];
    cr_assert_eq(df_corpus_decode(buf, len, &f, msg, sizeof msg), DF_CORPUS_OK, "%s", msg);
    cr_assert(f.c.blas.on == 1 && f.c.blas.inc_a == -2 && f.c.blas.inc_b == 3 &&
              f.c.blas.n_arg == 3);
    cr_assert(memcmp(f.c.a, a, sizeof a) == 0 && memcmp(f.c.b, b, sizeof b) == 0);
    df_case_file_free(&f);
    free(buf);
    c.blas.inc_a = 0; /* a is not constant */
    cr_assert_eq(df_corpus_encode(&c, NULL, &buf, &len), 0);
    cr_assert_eq(df_corpus_decode(buf, len, &f, msg, sizeof msg), DF_CORPUS_E_HEADER);
    cr_assert(strstr(msg, "increment 0 for a"), "%s", msg);
    free(buf);
}

/* A stride mutant's findings replay as the bug they were: the arguments
 * travel with the case. */
Test(blas, a_stride_finding_replays_as_its_bug, .timeout = 60)
{
    char *d = df_test_tmpdir("blas");
    static char out[1 << 16];
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel m-blas-neg-wrong-end --cases 200 "
                        "--seed 3 --quiet --corpus %s/f >/dev/null 2>&1; "
                        "./dotfuzz replay --backend host --json %s/f",
                        d, d);
    cr_assert_eq(rc, 1, "replay exit %d: %s", rc, out);
    cr_assert(strstr(out, "\"verdict\":\"bug\""), "%s", out);
    cr_assert(strstr(out, "\"blas\":{\"inc_a\":"), "%s", out);
    /* and minimizes to a short call, still that bug, its n_arg the new n */
    rc = df_test_sh(out, sizeof out,
                    "f=$(ls %s/f/bug-* | head -n 1) && ./dotfuzz minimize \"$f\" -o %s/min.f32 "
                    ">/dev/null && ./dotfuzz replay --backend host --json %s/min.f32",
                    d, d, d);
    cr_assert_eq(rc, 1, "minimized replay exit %d: %s", rc, out);
    const char *n = strstr(out, "\"n\":");
    cr_assert(n && strtoull(n + 4, NULL, 10) <= 4, "%s", out);
    cr_assert(strstr(out, "\"verdict\":\"bug\""), "%s", out);
}

/* The SDOT cases of reference BLAS's test program (corpus/regression,
 * scripts/blas-corpus.sh) give, on the reference loop, the values its
 * CHECK2 expects (sblat1.f's DT7, by increment pair and n). */
Test(blas, the_sblat1_cases_give_the_test_programs_values)
{
    static const struct { int ix, iy; double want[4]; } pairs[] = {
        {1, 1, {0.0, 0.30, 0.21, 0.62}},   {2, -2, {0.0, 0.30, -0.07, 0.85}},
        {-2, 1, {0.0, 0.30, -0.79, -0.74}}, {-1, -2, {0.0, 0.30, 0.33, 1.27}},
    };
    static const int ns[4] = {0, 1, 2, 4};
    const df_kernel *k = df_test_find("ref-blas-sdot");
    df_backend *be = df_test_open_host();
    for (int p = 0; p < 4; p++)
        for (int j = 0; j < 4; j++) {
            char path[128], msg[300];
            snprintf(path, sizeof path, "corpus/regression/sblat1-sdot-n%d-x%d-y%d.f32", ns[j],
                     pairs[p].ix, pairs[p].iy);
            df_case_file f;
            cr_assert_eq(df_corpus_read(path, &f, msg, sizeof msg), DF_CORPUS_OK, "%s: %s", path,
                         msg);
            cr_assert(f.c.blas.on && f.c.blas.inc_a == pairs[p].ix && f.c.blas.n_arg == ns[j]);
            df_result r;
            cr_assert_eq(df_backend_run(be, k, &f.c, &r, NULL, NULL), 0);
            cr_assert(fabs(r.f - pairs[p].want[j]) < 1e-6, "%s: %.9g, sblat1 expects %g", path,
                      r.f, pairs[p].want[j]);
            df_case_file_free(&f);
        }
    df_backend_close(be);
}

/* list --json says which kernels take BLAS arguments. */
Test(blas, list_json_names_the_blas_kernels)
{
    static char out[1 << 18];
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz list --json"), 0, "%s", out);
    const char *k = strstr(out, "{\"name\":\"ref-blas-sdot\"");
    cr_assert(k && strstr(k, "\"blas\":true") && strstr(k, "\"blas\":true") < strchr(k, '}'),
              "%s", out);
    k = strstr(out, "{\"name\":\"shfl\"");
    cr_assert(k && strstr(k, "\"blas\":false") && strstr(k, "\"blas\":false") < strchr(k, '}'),
              "%s", out);
}
