/* test_triage.c — `dotfuzz triage` on a short host campaign over mutants of
 * different flaw kinds (a read past n, a tree needing a power of two, a
 * dropped vector tail, a wrong stride, rounding toward zero, a 16-bit
 * overflow, a BLAS stride) and a correct kernel: one distinct bug per
 * mutant whatever its rules, families and lengths, none for the correct
 * kernel, distinct signatures; reproducers minimized beside findings/ that
 * replay as bugs, findings/ untouched; a folder of case files gives the
 * same bugs; bad input is one line and exit 2.
 * Runs ./dotfuzz from the repository root (make test builds it first). */
#include <criterion/criterion.h>

#include "fuzz/run/triage.h"
#include "tests/cli_helpers.h"

#define OUT_MAX (1 << 18)

static char out[OUT_MAX];

/* FNV-1a over n bytes at p, continuing from h: the signature's hash,
 * written again here */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

#define sh(buf, ...) df_test_sh(buf, OUT_MAX, __VA_ARGS__)

static const char *const mutants[] = {"m-tail", "m-pow2-tree", "m-vec-tail",
                                      "m-stride-off-by-one", "m-rz-acc", "m-int16-sum",
                                      "m-blas-neg-wrong-end"};
#define NMUT (sizeof mutants / sizeof mutants[0])

/* A campaign of the mutants and fold, 4000 cases from seed 11. */
static char *campaign(void)
{
    char *d = df_test_tmpdir("triage");
    cr_assert_eq(sh(out, "./dotfuzz run --backend host --kernel m-tail,m-pow2-tree,m-vec-tail,"
                         "m-stride-off-by-one,m-rz-acc,m-int16-sum,m-blas-neg-wrong-end,fold "
                         "--cases 4000 --seed 11 --out %s/c --quiet", d), 1, "%s", out);
    static char c[128];
    snprintf(c, sizeof c, "%s/c", d);
    return c;
}

Test(triage, each_mutant_is_one_bug_the_correct_kernel_none)
{
    char *c = campaign();
    df_triage t = {0};
    cr_assert_eq(df_triage_dir("test", c, NULL, &t), DF_OUTCOME_CLEAN);
    cr_assert(t.campaign);
    cr_assert_eq(t.nbugs, NMUT, "%zu bugs", t.nbugs);
    uint64_t sum = 0, rules = 0, lens = 0;
    for (size_t m = 0; m < NMUT; m++) {
        int found = 0;
        for (size_t i = 0; i < t.nbugs; i++)
            found += !strcmp(t.bugs[i].kernel, mutants[m]);
        cr_assert_eq(found, 1, "%s: %d bugs", mutants[m], found);
    }
    for (size_t i = 0; i < t.nbugs; i++) {
        const df_triage_bug *b = &t.bugs[i];
        cr_assert_neq(strcmp(b->kernel, "fold"), 0);
        cr_assert_eq(b->cls, DF_BUG_WRONG);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(b->sig, t.bugs[j].sig);
        sum += b->count;
        rules += b->nrules;
        for (uint64_t x = b->len_buckets; x; x &= x - 1)
            lens++;
        cr_assert_leq(b->n_min, b->repro_n);
        cr_assert_eq(b->n_min, b->repro_n);
    }
    cr_assert_eq(sum, t.bug_findings);
    /* the fields left out of the key do vary within one flaw */
    cr_assert_gt(rules, t.nbugs, "keying by rule would split: %llu", (unsigned long long)rules);
    cr_assert_gt(lens, t.nbugs);
    cr_assert_gt(t.info_findings, 0, "precision findings counted apart");
    df_triage_free(&t);
}

Test(triage, reproducers_are_minimized_beside_findings_and_replay)
{
    char *c = campaign();
    cr_assert_eq(sh(out, "ls %s/findings | md5sum > %s/before", c, c), 0);
    cr_assert_eq(sh(out, "./dotfuzz triage --backend host %s", c), 1, "%s", out);
    cr_assert(strstr(out, "7 distinct bug(s)"), "%s", out);
    cr_assert_eq(sh(out, "ls %s/findings | md5sum | cmp - %s/before", c, c), 0, "%s", out);
    cr_assert_eq(sh(out, "ls %s/triage | wc -l", c), 0);
    cr_assert_eq(atoi(out), (int)NMUT, "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz replay --backend host %s/triage", c), 1, "%s", out);
    cr_assert(strstr(out, "bug 7"), "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz triage --backend host --json --kernel m-tail %s", c), 1);
    cr_assert(strstr(out, "\"distinct_bugs\":1") && strstr(out, "\"minimized\":{"), "%s", out);
}

Test(triage, a_folder_of_case_files_gives_the_same_bugs)
{
    char *c = campaign();
    df_triage a = {0}, b = {0};
    char f[160];
    snprintf(f, sizeof f, "%s/findings", c);
    cr_assert_eq(df_triage_dir("test", c, NULL, &a), DF_OUTCOME_CLEAN);
    cr_assert_eq(df_triage_dir("test", f, NULL, &b), DF_OUTCOME_CLEAN);
    cr_assert(!b.campaign);
    cr_assert_eq(a.nbugs, b.nbugs);
    for (size_t i = 0; i < a.nbugs; i++) {
        cr_assert_str_eq(a.bugs[i].sig, b.bugs[i].sig);
        cr_assert_eq(a.bugs[i].count, b.bugs[i].count);
    }
    df_triage_free(&a);
    df_triage_free(&b);
}

Test(triage, correct_kernels_give_no_bug_and_exit_0)
{
    char *d = df_test_tmpdir("triage");
    cr_assert_eq(sh(out, "./dotfuzz run --backend host --kernel fold,shfl,int-atomic "
                         "--cases 3000 --seed 5 --out %s/c --quiet", d), 0, "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz triage --backend host %s/c", d), 0, "%s", out);
    cr_assert(strstr(out, "0 distinct bug(s)"), "%s", out);
}

Test(triage, signature_is_fnv1a_of_kernel_and_class)
{
    cr_assert_eq(df_bug_class_of("crash"), DF_BUG_FAULT);
    cr_assert_eq(df_bug_class_of("exec"), DF_BUG_FAULT);
    cr_assert_eq(df_bug_class_of("sanitizer"), DF_BUG_FAULT);
    cr_assert_eq(df_bug_class_of("hang"), DF_BUG_HANG);
    cr_assert_eq(df_bug_class_of("order-set"), DF_BUG_WRONG);
    cr_assert_eq(df_bug_class_of("permute"), DF_BUG_WRONG);
    char sig[DF_SIG_LEN], want[DF_SIG_LEN];
    df_bug_signature("m-tail", DF_BUG_FAULT, sig);
    uint64_t h = fnv1a(0xcbf29ce484222325ull, "m-tail", 7);
    h = fnv1a(h, "fault", 5);
    snprintf(want, sizeof want, "%012llx", (unsigned long long)(h >> 16));
    cr_assert_str_eq(sig, want);
    df_bug_signature("m-tail", DF_BUG_WRONG, want);
    cr_assert_str_neq(sig, want);
}

Test(triage, bad_input_is_one_line_and_exit_2)
{
    cr_assert_eq(sh(out, "./dotfuzz triage /nonexistent-dir"), 2, "%s", out);
    cr_assert(strstr(out, "/nonexistent-dir") && !strchr(strchr(out, '\n') + 1, '\n'), "%s",
              out);
    cr_assert_eq(sh(out, "./dotfuzz triage"), 2, "%s", out);
    char *c = campaign();
    cr_assert_eq(sh(out, "./dotfuzz triage %s -o %s/findings", c, c), 2, "%s", out);
}
