/* test_minimize.c — `dotfuzz minimize` and `dotfuzz merge` end to end on
 * the host backend: an imported overflow and a mutant's finding shrink to a
 * few pairs with the same rule and still replay as that bug; a case that is
 * no bug is refused; merging overlapping corpora drops duplicates and
 * same-bucket cases yet keeps every (kernel, verdict, rule) of its inputs;
 * an unreadable input is counted and the rest merged.
 * Runs ./dotfuzz from the repository root (make test builds it first). */
#include <criterion/criterion.h>

#include "tests/cli_helpers.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define OUT_MAX (1 << 18)

static char out[OUT_MAX];

#define sh(buf, ...) df_test_sh(buf, OUT_MAX, __VA_ARGS__)
#define tmpdir() df_test_tmpdir("min")

/* From minimize's "LABEL: n=N kernel=K ... VERDICT (RULE): ..." line. */
static void parse_state(const char *text, const char *label, unsigned long long *n, char *rule)
{
    char key[32];
    snprintf(key, sizeof key, "%s: n=", label);
    const char *p = strstr(text, key);
    cr_assert_not_null(p, "no '%s' line in:\n%s", label, text);
    *n = strtoull(p + strlen(key), NULL, 10);
    const char *open = strchr(p, '('), *close = open ? strchr(open, ')') : NULL;
    cr_assert(open && close);
    memcpy(rule, open + 1, (size_t)(close - open - 1));
    rule[close - open - 1] = '\0';
}

/* 40 pairs of small integers, two of which (7 and 30) make the int32 sum
 * overflow: 46341^2 > 2^31 - 1 alone. */
static void make_overflow_case(const char *d, char *path, size_t len)
{
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/a.txt", d);
    snprintf(b, sizeof b, "%s/b.txt", d);
    FILE *fa = fopen(a, "w"), *fb = fopen(b, "w");
    cr_assert(fa && fb);
    for (int i = 1; i <= 40; i++) {
        int big = i == 7 || i == 30;
        fprintf(fa, "%d\n", big ? 46341 : i % 5 + 1);
        fprintf(fb, "%d\n", big ? 46341 : 2);
    }
    fclose(fa);
    fclose(fb);
    snprintf(path, len, "%s/ov.case", d);
    cr_assert_eq(sh(out, "./dotfuzz import %s %s --type i32 --kernel int-atomic -o %s", a, b,
                    path), 0, "%s", out);
}

/* int-atomic reports its own int32 overflow (kernels/soft_error.h): the
 * case is a soft-error, and minimize keeps that rule while it shrinks. */
Test(minimize, int_overflow_shrinks_to_one_pair_with_rule_soft_error)
{
    char *d = tmpdir(), path[128], rule0[64], rule1[64];
    make_overflow_case(d, path, sizeof path);
    cr_assert_eq(sh(out, "./dotfuzz minimize --backend host %s", path), 0, "%s", out);
    unsigned long long n0, n1;
    parse_state(out, "before", &n0, rule0);
    parse_state(out, "after", &n1, rule1);
    cr_assert_eq(n0, 40);
    cr_assert_str_eq(rule0, "soft-error");
    cr_assert_str_eq(rule1, "soft-error");
    cr_assert_eq(n1, 1, "one 46341^2 pair overflows int32 alone; got n=%llu", n1);
    cr_assert(strstr(out, "wrote"));
    cr_assert_eq(sh(out, "./dotfuzz replay --backend host %s.min", path), 0, "%s", out);
    cr_assert(strstr(out, "int-atomic") && strstr(out, "soft-error") &&
              strstr(out, "int32-overflow reported by int-atomic"), "%s", out);
    cr_assert(strstr(out, "n=1 "), "%s", out);
}

Test(minimize, mutant_finding_shrinks_and_replays_as_the_same_bug)
{
    char *d = tmpdir(), rule0[64], rule1[64];
    cr_assert_eq(sh(out, "./dotfuzz run --backend host --kernel m-fold-bounds --cases 60 "
                         "--seed 1 --max-n 64 --corpus %s/c", d), 1, "%s", out);
    cr_assert_eq(sh(out, "f=$(ls %s/c | head -n 1); ./dotfuzz minimize --backend host "
                         "%s/c/$f -o %s/m.case", d, d, d), 0, "%s", out);
    unsigned long long n0, n1;
    parse_state(out, "before", &n0, rule0);
    parse_state(out, "after", &n1, rule1);
    cr_assert_str_eq(rule1, rule0);
    cr_assert_gt(n0, 8);
    cr_assert_leq(n1, 4, "m-fold-bounds drops the last cell of an odd round: a few pairs "
                         "show it; got n=%llu from %llu", n1, n0);
    cr_assert_eq(sh(out, "./dotfuzz replay --backend host %s/m.case", d), 1, "%s", out);
    char needle[80];
    snprintf(needle, sizeof needle, " %s ", rule0);
    cr_assert(strstr(out, "m-fold-bounds") && strstr(out, needle), "%s", out);
}

Test(minimize, case_that_is_no_bug_exits_2_saying_nothing_to_minimize)
{
    char *d = tmpdir();
    cr_assert_eq(sh(out, "printf '1\\n2\\n3\\n' > %s/a.txt; printf '4\\n5\\n6\\n' > %s/b.txt; "
                         "./dotfuzz import %s/a.txt %s/b.txt --kernel fold -o %s/ok.case",
                    d, d, d, d, d), 0, "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz minimize --backend host %s/ok.case", d), 2, "%s", out);
    cr_assert(strstr(out, "is neither a bug nor a soft error on fold: nothing to minimize"), "%s", out);
    cr_assert_eq(sh(out, "test -e %s/ok.case.min", d), 1, "nothing may be written");
}

Test(minimize, kernel_less_case_needs_kernel_and_unreadable_file_exits_2)
{
    char *d = tmpdir();
    cr_assert_eq(sh(out, "printf '1\\n' > %s/a.txt; ./dotfuzz import %s/a.txt %s/a.txt "
                         "-o %s/any.case", d, d, d, d), 0, "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz minimize --backend host %s/any.case", d), 2);
    cr_assert(strstr(out, "names no kernel: give --kernel NAME"), "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz minimize --backend host %s/missing.case", d), 2);
    cr_assert(strstr(out, "missing.case"), "%s", out);
}

/* Adds the "kernel verdict rule" triples replay prints for path to set
 * (n of them so far); returns the new count. */
static size_t triples(const char *path, char set[][128], size_t n, size_t max)
{
    static char buf[OUT_MAX];
    /* stdout alone: stderr's summary would land inside a buffered line */
    sh(buf, "{ ./dotfuzz replay --backend host %s 2>/dev/null; }", path);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char k[40], v[24], r[40], t[128];
        if (!strstr(line, " n=") ||
            sscanf(line, "%*s %39s %23s %*s %*s %*s %39s", k, v, r) != 3)
            continue;
        snprintf(t, sizeof t, "%s %s %s", k, v, r);
        size_t i = 0;
        while (i < n && strcmp(set[i], t))
            i++;
        if (i == n && n < max)
            strcpy(set[n++], t);
    }
    return n;
}

/* "LABEL: read R, kept K, duplicate D, redundant X, unreadable U" */
static void parse_counts(const char *text, const char *label, unsigned c[5])
{
    char key[256];
    snprintf(key, sizeof key, "%s: read", label);
    const char *p = strstr(text, key);
    cr_assert_not_null(p, "no counts for %s in:\n%s", label, text);
    cr_assert_eq(sscanf(p + strlen(label) + 2,
                        "read %u, kept %u, duplicate %u, redundant %u, unreadable %u",
                        &c[0], &c[1], &c[2], &c[3], &c[4]), 5);
}

static unsigned count_files(const char *dir)
{
    char buf[64];
    sh(buf, "ls %s | wc -l", dir);
    return (unsigned)strtoul(buf, NULL, 10);
}

/* Two mutants' findings: A from m-tail, B from m-fold-bounds plus a copy
 * of every file of A. */
static void make_overlapping(const char *d)
{
    cr_assert_eq(sh(out, "./dotfuzz run --backend host --kernel m-tail --cases 40 --seed 2 --save-bugs all "
                         "--corpus %s/A", d), 1, "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz run --backend host --kernel m-fold-bounds --cases 40 --save-bugs all "
                         "--seed 2 --corpus %s/B; cp %s/A/* %s/B/", d, d, d), 0, "%s", out);
}

Test(merge, overlapping_corpora_keep_every_kernel_verdict_rule_without_duplicates)
{
    char *d = tmpdir(), a[128], b[128], m[128];
    make_overlapping(d);
    snprintf(a, sizeof a, "%s/A", d);
    snprintf(b, sizeof b, "%s/B", d);
    snprintf(m, sizeof m, "%s/M", d);
    unsigned na = count_files(a), nb = count_files(b);
    cr_assert_eq(sh(out, "./dotfuzz merge %s %s %s --backend host", m, a, b), 0, "%s", out);
    cr_assert_null(strstr(out, "cannot open"), "a new OUT is not an error: %s", out);
    unsigned ca[5], cb[5];
    parse_counts(out, a, ca);
    parse_counts(out, b, cb);
    cr_assert_eq(ca[0], na);
    cr_assert_eq(cb[0], nb);
    cr_assert_eq(cb[2], na, "every copy of A in B is a duplicate");
    cr_assert_eq(ca[4] + cb[4], 0);
    cr_assert_gt(ca[3] + cb[3], 0, "same-bucket findings are redundant");
    cr_assert_eq(ca[1] + ca[2] + ca[3], na);
    cr_assert_eq(cb[1] + cb[2] + cb[3], nb);
    cr_assert_eq(count_files(m), ca[1] + cb[1]);
    cr_assert_lt(count_files(m), nb);

    static char in_set[256][128], out_set[256][128];
    size_t nin = triples(b, in_set, triples(a, in_set, 0, 256), 256);
    size_t nout = triples(m, out_set, 0, 256);
    cr_assert_gt(nin, 1);
    for (size_t i = 0; i < nin; i++) {
        size_t j = 0;
        while (j < nout && strcmp(in_set[i], out_set[j]))
            j++;
        cr_assert_lt(j, nout, "merged corpus lost '%s'", in_set[i]);
    }
    cr_assert_eq(sh(out, "./dotfuzz merge %s %s --backend host", m, b), 0, "%s", out);
    parse_counts(out, b, cb);
    cr_assert_eq(cb[1], 0, "a second merge of the same input adds nothing");
}

Test(merge, unreadable_input_is_counted_exit_2_and_the_rest_merged)
{
    char *d = tmpdir();
    cr_assert_eq(sh(out, "./dotfuzz run --backend host --kernel m-tail --cases 20 --seed 2 "
                         "--corpus %s/A; echo garbage > %s/A/zz-bad", d, d), 0, "%s", out);
    char a[128];
    snprintf(a, sizeof a, "%s/A", d);
    unsigned na = count_files(a);
    cr_assert_eq(sh(out, "./dotfuzz merge %s/M %s %s/no-such-file --backend host", d, a, d),
                 2, "%s", out);
    cr_assert(strstr(out, "zz-bad: file is 8 bytes"), "%s", out);
    cr_assert(strstr(out, "no-such-file"), "%s", out);
    unsigned c[5];
    parse_counts(out, a, c);
    cr_assert_eq(c[0], na);
    cr_assert_eq(c[4], 1);
    cr_assert_gt(c[1], 0);
    char m[128];
    snprintf(m, sizeof m, "%s/M", d);
    cr_assert_eq(count_files(m), c[1]);
    cr_assert_eq(sh(out, "./dotfuzz merge /proc/dotfuzz-no %s --backend host", a), 3, "%s", out);
}
