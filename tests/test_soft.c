/* test_soft.c — soft errors end to end on the host backend
 * (kernels/soft_error.h): int-atomic's host model reports an int32
 * overflow with the block, thread and index the GPU kernel reports, the
 * oracle turns it into verdict soft-error, the payload survives a case file
 * (format version 2) and replay shows it. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/backend.h"
#include "fuzz/check/check.h"
#include "fuzz/corpus.h"
#include "tests/cli_helpers.h"

#define N 2000
#define BLOCK 256
#define HOT 1500 /* block 5, thread 220 */

static int32_t a[N], b[N];

/* One product of 2^32 (wraps to 0 in int32) among products of 1. */
static df_case overflow_case(void)
{
    for (int i = 0; i < N; i++)
        a[i] = b[i] = 1;
    a[HOT] = b[HOT] = 65536;
    df_case c = {.type = DF_I32, .n = N, .a = a, .b = b, .launch = {.block = BLOCK}};
    strcpy(c.kernel, "int-atomic");
    cr_assert_eq(df_launch_resolve(df_kernel_find("int-atomic"), N, &c.launch, NULL, 0), 0);
    return c;
}

static void check_on_host(const df_case *c, df_checked *r)
{
    df_backend *b = NULL;
    char err[200];
    cr_assert_eq(df_backend_open("host", &b, err, sizeof err), 0, "%s", err);
    df_oracle_opts oo = {.tol = 1e-6};
    cr_assert_eq(df_check_case(b, df_kernel_find("int-atomic"), c, &oo, r), 0);
    df_backend_close(b);
}

Test(soft, int32_overflow_is_a_soft_error_with_block_thread_and_index)
{
    df_case c = overflow_case();
    df_checked r;
    check_on_host(&c, &r);
    cr_assert_eq(r.j.verdict, DF_V_SOFT_ERROR, "%s: %s", r.j.rule, r.j.why);
    cr_assert_str_eq(r.j.rule, "soft-error");
    cr_assert_eq(r.res.soft_mask, 1u << (DF_SOFT_INT_OVERFLOW - 1));
    const df_soft_report *s = &r.res.soft[DF_SOFT_INT_OVERFLOW - 1];
    cr_assert_eq(s->code, DF_SOFT_INT_OVERFLOW);
    cr_assert_eq(s->kernel, DF_SOFT_K_INT_ATOMIC);
    cr_assert_eq(s->block, HOT / BLOCK);
    cr_assert_eq(s->thread, HOT % BLOCK);
    cr_assert_eq(s->index, HOT);
    cr_assert_eq(s->ivalue, (int64_t)1 << 32);
    cr_assert(strstr(r.j.why, "kernel reported int32-overflow at block 5 thread 220 index 1500"),
              "%s", r.j.why);
    cr_assert_eq(r.res.i, N - 1, "the product wrapped to 0: the sum of the other ones");
}

Test(soft, first_report_of_a_kind_wins_and_later_ones_are_dropped)
{
    df_result r = {0};
    df_soft_note(&r, DF_SOFT_INT_OVERFLOW, DF_SOFT_K_INT_ATOMIC, 1, 2, 3, 0, 4, 5, 0.0);
    df_soft_note(&r, DF_SOFT_INT_OVERFLOW, DF_SOFT_K_INT_ATOMIC, 9, 9, 9, 0, 9, 9, 0.0);
    df_soft_note(&r, DF_SOFT_NONFINITE, DF_SOFT_K_SHFL, 7, 1, 1, 0, 1, 0, 1.0);
    cr_assert_eq(r.soft_mask, 3u);
    cr_assert_eq(r.soft[0].block, 2);
    cr_assert_eq(r.soft[0].index, 4);
    cr_assert_eq(r.soft[1].kernel, DF_SOFT_K_SHFL);
    df_soft_note(&r, 0, 0, 0, 0, 0, 0, 0, 0, 0.0); /* no such kind: ignored */
    df_soft_note(&r, DF_SOFT_CODES + 1, 0, 0, 0, 0, 0, 0, 0, 0.0);
    cr_assert_eq(r.soft_mask, 3u);
}

Test(soft, a_report_does_not_excuse_a_wrong_result_of_another_kind)
{
    df_case c = overflow_case();
    a[HOT] = b[HOT] = 1; /* nothing overflows: exact 2000 */
    df_refs refs;
    df_refs_compute(c.type, c.a, c.b, c.n, &refs);
    df_result res = {.i = 1999};
    df_soft_note(&res, DF_SOFT_INT_OVERFLOW, DF_SOFT_K_INT_ATOMIC, 1, 0, 0, 0, 0, 1, 0.0);
    df_judgement j;
    df_oracle_opts oo = {.tol = 1e-6};
    df_judge(df_kernel_find("int-atomic"), &c, &refs, &res, NULL, &oo, &j);
    cr_assert_eq(j.verdict, DF_V_BUG);
    cr_assert_str_eq(j.rule, "exact");
    cr_assert(strstr(j.why, "the kernel also reported int32-overflow"), "%s", j.why);
}

Test(soft, payload_is_saved_as_a_version_2_record_and_replay_shows_it)
{
    df_case c = overflow_case();
    df_checked r;
    check_on_host(&c, &r);
    char *d = df_test_tmpdir("soft"), dir[128], path[512];
    snprintf(dir, sizeof dir, "%s", d);
    int is_new = 0;
    cr_assert_eq(df_save_finding(dir, &c, &r, path, sizeof path, &is_new), 0);
    df_case_file f;
    char msg[256];
    cr_assert_eq(df_corpus_read(path, &f, msg, sizeof msg), DF_CORPUS_OK, "%s", msg);
    cr_assert_eq(f.meta.verdict, DF_V_SOFT_ERROR);
    cr_assert_eq(f.meta.nsoft, 1);
    cr_assert_eq(memcmp(&f.meta.soft[0], &r.res.soft[0], sizeof f.meta.soft[0]), 0);
    cr_assert_eq(f.c.n, N);
    cr_assert_eq(((const int32_t *)f.c.b)[N - 1], 1, "the vectors end before the record");
    df_case_file_free(&f);
    char out[8192];
    int rc = df_test_sh(out, sizeof out, "./dotfuzz replay --backend host %s", path);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "soft error: int32-overflow reported by int-atomic (line "), "%s", out);
    cr_assert(strstr(out, "block 5 thread 220 round 0 index 1500 value 4294967296"), "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

Test(soft, files_without_reports_stay_version_1_and_bad_record_counts_are_refused)
{
    df_case c = overflow_case();
    df_case_meta m = {.verdict = DF_V_OK};
    uint8_t *buf;
    size_t len;
    cr_assert_eq(df_corpus_encode(&c, &m, &buf, &len), 0);
    cr_assert_eq(buf[8], 1, "no soft error: version 1, byte for byte as before");
    cr_assert_eq(len, 128 + 2 * N * 4);
    free(buf);
    m.nsoft = 1;
    m.soft[0] = (df_soft_report){.code = DF_SOFT_INT_OVERFLOW, .index = 7};
    cr_assert_eq(df_corpus_encode(&c, &m, &buf, &len), 0);
    cr_assert_eq(buf[8], 2);
    cr_assert_eq(buf[36], 1);
    cr_assert_eq(len, 128 + 2 * N * 4 + DF_CORPUS_SOFT_RECORD);
    df_case_file f;
    char msg[256];
    cr_assert_eq(df_corpus_decode(buf, len - DF_CORPUS_SOFT_RECORD, &f, msg, sizeof msg),
                 DF_CORPUS_E_SIZE, "%s", msg);
    buf[36] = 4;
    cr_assert_eq(df_corpus_decode(buf, len, &f, msg, sizeof msg), DF_CORPUS_E_HEADER);
    cr_assert(strstr(msg, "4 soft-error records"), "%s", msg);
    free(buf);
}

/* df_result_copy (a batch's results into its slots on the cuda backend):
 * what the readers read comes across (the value, status and mask; each
 * report whose bit is set; the error text of a failed run) into a
 * destination that held another result, whose other bytes none of them
 * reads: the oracle's verdict and the case file are the same as from the
 * result itself. */
Test(soft, result_copy_carries_what_readers_read)
{
    df_case c = overflow_case();
    df_checked r, copy;
    check_on_host(&c, &r);
    cr_assert_eq(r.j.verdict, DF_V_SOFT_ERROR, "%s", r.j.rule);
    copy = r;
    memset(&copy.res, 0x5a, sizeof copy.res); /* an earlier result's leftovers */
    df_result_copy(&copy.res, &r.res);
    cr_assert(copy.res.i == r.res.i && copy.res.status == r.res.status);
    cr_assert_eq(copy.res.soft_mask, r.res.soft_mask);
    df_oracle_opts oo = {.tol = 1e-6};
    df_judge(df_kernel_find("int-atomic"), &c, &copy.refs, &copy.res, NULL, &oo, &copy.j);
    cr_assert_eq(copy.j.verdict, r.j.verdict);
    cr_assert_str_eq(copy.j.rule, r.j.rule);
    cr_assert_str_eq(copy.j.why, r.j.why);
    uint8_t *f1 = NULL, *f2 = NULL;
    size_t l1 = 0, l2 = 0;
    cr_assert_eq(df_finding_encode(&c, &r, &f1, &l1), 0);
    cr_assert_eq(df_finding_encode(&c, &copy, &f2, &l2), 0);
    cr_assert(l1 > 0 && l1 == l2 && memcmp(f1, f2, l1) == 0, "the case files differ");
    free(f1);
    free(f2);
    /* a failed run: its error text too */
    df_result err = r.res, into;
    memset(&into, 0x5a, sizeof into);
    df_result_error(&err, "int-atomic", &c, "cudaLaunchKernel: too many resources requested");
    err.soft_mask = 0;
    df_result_copy(&into, &err);
    cr_assert_eq(into.status, DF_RUN_ERROR);
    cr_assert_str_eq(into.err, err.err);
    cr_assert_eq(into.soft_mask, 0u);
}
